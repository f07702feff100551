/* IR construction and editing: functions, values, ops, blocks, the builder,
 * and the type and opcode tables generated from types.def and ops.def. */
#include "ir.h"

#include <math.h>
#include <string.h>

/* ---- element types ---- */
static const struct {
    const char *ir, *triton;
    int bits;
    ElemClass cls;
} elem_table[ET_COUNT] = {
#define X(e, ir, tt, bits, cls) [e] = {ir, tt, bits, cls},
#include "types.def"
#undef X
};

const char *elem_name(ElemType e) { return elem_table[e].ir; }
const char *elem_triton_name(ElemType e) { return elem_table[e].triton; }
int elem_bits(ElemType e) { return elem_table[e].bits; }
int elem_bytes(ElemType e) { return elem_table[e].bits < 8 ? 1 : elem_table[e].bits / 8; }
ElemClass elem_class(ElemType e) { return elem_table[e].cls; }
bool elem_is_float(ElemType e) { return elem_table[e].cls == EC_FLOAT; }
bool elem_is_int(ElemType e) {
    ElemClass c = elem_table[e].cls;
    return c == EC_BOOL || c == EC_SINT || c == EC_UINT;
}
bool elem_is_signed(ElemType e) { return elem_table[e].cls == EC_SINT; }

ElemType elem_from_name(const char *s, size_t n) {
    for (int e = 0; e < ET_COUNT; e++)
        if (strlen(elem_table[e].ir) == n && !memcmp(elem_table[e].ir, s, n)) return (ElemType)e;
    return ET_COUNT;
}

/* ---- float element values ---- */

/* A float type's fields. ieee: the all-ones exponent holds inf and NaN.
 * Otherwise (f8e4m3, the "fn" variant) there is no inf, only the all-ones
 * pattern is NaN, and the rest of that exponent's values are finite. */
typedef struct FloatFormat {
    int ebits, mbits;
    bool ieee;
} FloatFormat;

static FloatFormat float_format(ElemType e) {
    switch (e) {
    case ET_F8E4M3: return (FloatFormat){4, 3, false};
    case ET_F8E5M2: return (FloatFormat){5, 2, true};
    case ET_F16: return (FloatFormat){5, 10, true};
    case ET_BF16: return (FloatFormat){8, 7, true};
    case ET_F32: return (FloatFormat){8, 23, true};
    case ET_F64: return (FloatFormat){11, 52, true};
    default: tric_unreachable();
    }
}

static int format_bias(FloatFormat f) { return (1 << (f.ebits - 1)) - 1; }

static double format_max(FloatFormat f) {
    int emax = (1 << f.ebits) - 2 - format_bias(f);
    if (f.ieee) return ldexp(2.0 - ldexp(1.0, -f.mbits), emax);
    return ldexp(2.0 - ldexp(1.0, 1 - f.mbits), emax + 1);   /* all ones but the NaN's last bit */
}

/* Rounding at a fixed quantum is exact arithmetic on doubles: q is a power
 * of two no smaller than 2^-1074 for every format, so a / q and r * q lose
 * nothing and nearbyint (the default mode: nearest, ties to even) is the
 * only rounding. Below the smallest normal the quantum stops shrinking,
 * which gives the subnormals. */
double elem_round_toward(ElemType e, double x, bool toward_zero) {
    FloatFormat f = float_format(e);
    if (e == ET_F64 || isnan(x) || x == 0) return x;
    double max = format_max(f);
    /* fp8 rounds to nearest as PTX's cvt.rn.satfinite does (Triton's
     * conversion): out-of-range values and infinities become the largest
     * finite value; toward zero keeps e5m2's infinities */
    bool satfinite = elem_bits(e) == 8 && !toward_zero;
    if (isinf(x)) return f.ieee && !satfinite ? x : copysign(max, x);
    double a = fabs(x);
    int ex;
    frexp(a, &ex);                      /* a in [2^(ex-1), 2^ex) */
    int emin = 1 - format_bias(f);
    int lead = ex - 1 < emin ? emin : ex - 1;
    double q = ldexp(1.0, lead - f.mbits);
    double r = (toward_zero ? trunc(a / q) : nearbyint(a / q)) * q;
    if (r > max) r = f.ieee && !toward_zero && !satfinite ? INFINITY : max;
    return copysign(r, x);
}

double elem_round(ElemType e, double x) { return elem_round_toward(e, x, false); }

uint64_t elem_float_bits(ElemType e, double x) {
    FloatFormat f = float_format(e);
    uint64_t emask = (UINT64_C(1) << f.ebits) - 1, mmask = (UINT64_C(1) << f.mbits) - 1;
    double r = elem_round(e, x);
    if (isnan(r)) return f.ieee && elem_bits(e) != 8 ? (emask << f.mbits) | (UINT64_C(1) << (f.mbits - 1)) : (emask << f.mbits) | mmask;
    uint64_t sign = (uint64_t)(signbit(r) ? 1 : 0) << (f.ebits + f.mbits);
    double a = fabs(r);
    if (isinf(a)) return sign | (emask << f.mbits);
    if (a == 0) return sign;
    int ex;
    frexp(a, &ex);
    int biased = ex - 1 + format_bias(f);
    if (biased <= 0) return sign | (uint64_t)ldexp(a, format_bias(f) - 1 + f.mbits);   /* subnormal */
    return sign | (uint64_t)biased << f.mbits | ((uint64_t)ldexp(a, f.mbits - (ex - 1)) & mmask);
}

double elem_float_from_bits(ElemType e, uint64_t bits) {
    FloatFormat f = float_format(e);
    uint64_t emask = (UINT64_C(1) << f.ebits) - 1, mmask = (UINT64_C(1) << f.mbits) - 1;
    bool neg = (bits >> (f.ebits + f.mbits)) & 1;
    uint64_t ex = (bits >> f.mbits) & emask, man = bits & mmask;
    int bias = format_bias(f);
    double v;
    if (f.ieee && ex == emask) v = man ? NAN : INFINITY;
    else if (!f.ieee && ex == emask && man == mmask) v = NAN;
    else if (ex == 0) v = ldexp((double)man, 1 - bias - f.mbits);
    else v = ldexp((double)(man | (mmask + 1)), (int)ex - bias - f.mbits);
    return neg ? -v : v;
}

/* Float remainder as the GPU code (and Triton's) computes it: C's fmod,
 * except that a zero result is +0 whatever a's sign (the fused
 * multiply-add's exact zero) and an infinite b gives a (inf % inf too). */
double elem_frem(double a, double b) {
    if (isinf(b)) return a;
    double r = fmod(a, b);
    return r == 0 ? 0.0 : r;
}

/* a + b rounded once to e: the double sum is rounded to odd (when it is
 * inexact, its last bit is made 1 by stepping toward the exact sum, which
 * TwoSum's error term gives), and a double rounded to odd, having more than
 * two bits beyond e's precision, then rounds to nearest as the exact sum
 * would. Operands are any doubles (a product of two f32 may lie beyond f32). */
double elem_round_sum(ElemType e, double a, double b) {
    double s = a + b;
    if (e == ET_F64 || !isfinite(s)) return elem_round(e, s);
    double bb = s - a, err = (a - (s - bb)) + (b - bb);
    uint64_t u;
    memcpy(&u, &s, sizeof u);
    if (err != 0 && !(u & 1)) s = nextafter(s, err > 0 ? INFINITY : -INFINITY);
    return elem_round(e, s);
}

/* cvt.rna.tf32.f32: the top 10 mantissa bits kept, rounded to nearest with
 * ties away from zero (half an ulp added to the magnitude, then truncated;
 * a carry into the exponent is right, up to inf), the low 13 bits zero.
 * Infinities and NaNs are left as they are. */
uint32_t elem_tf32_bits(uint32_t f32_bits) {
    if ((f32_bits & 0x7F800000u) == 0x7F800000u) return f32_bits;
    return (f32_bits + 0x1000u) & 0xFFFFE000u;
}

/* ---- ops ---- */
const OpInfo ir_opinfo[OP_COUNT] = {
#define X(e, name, nops, nres, nreg, flags) [e] = {name, nops, nres, nreg, flags},
#include "ops.def"
#undef X
};

const char *const cmp_pred_names[] = {"eq", "ne", "lt", "le", "gt", "ge"};
const char *const sreg_names[] = {"smid", "globaltimer"};
const char *const cache_mod_names[] = {"", ".ca", ".cg", ".cs", ".cv", ".wb", ".wt"};
const char *const evict_names[] = {"", "evict_first", "evict_last"};
const char *const dot_precision_names[] = {"tf32", "tf32x3", "ieee"};
const char *const atomic_kind_names[] = {"add", "max", "min", "and", "or", "xor", "xchg"};
const char *const mem_sem_names[] = {"acq_rel", "acquire", "release", "relaxed"};
const char *const mem_scope_names[] = {"gpu", "cta", "sys"};

/* ---- types ---- */
IrType ir_scalar(ElemType e) {
    IrType t = {0};
    t.elem = (uint8_t)e;
    return t;
}

IrType ir_ptr(ElemType pointee) {
    IrType t = {0};
    t.elem = ET_PTR;
    t.pointee = (uint8_t)pointee;
    return t;
}

IrType ir_tile(IrType scalar, int rank, const int32_t *shape) {
    IrType t = ir_elem_of(scalar);
    t.rank = (uint8_t)rank;
    for (int i = 0; i < rank; i++) t.shape[i] = shape[i];
    return t;
}

IrType ir_with_elem(IrType t, IrType scalar) {
    t.elem = scalar.elem;
    t.pointee = scalar.elem == ET_PTR ? scalar.pointee : 0;
    return t;
}

IrType ir_elem_of(IrType t) {
    IrType s = {0};
    s.elem = t.elem;
    s.pointee = t.elem == ET_PTR ? t.pointee : 0;
    return s;
}

bool ir_type_eq(IrType a, IrType b) {
    if (a.elem != b.elem || a.rank != b.rank) return false;
    if (a.elem == ET_PTR && a.pointee != b.pointee) return false;
    for (int i = 0; i < a.rank; i++)
        if (a.shape[i] != b.shape[i]) return false;
    return true;
}

int64_t ir_numel(IrType t) {
    int64_t n = 1;
    for (int i = 0; i < t.rank; i++) n *= t.shape[i];
    return n;
}

static void scalar_print(Buf *b, IrType t) {
    if (t.elem == ET_PTR) buf_printf(b, "ptr<%s>", elem_name(t.pointee));
    else buf_puts(b, elem_name(t.elem));
}

void ir_type_print(Buf *b, IrType t) {
    if (t.rank == 0) {
        scalar_print(b, t);
        return;
    }
    buf_puts(b, "tile<");
    for (int i = 0; i < t.rank; i++) buf_printf(b, "%dx", t.shape[i]);
    scalar_print(b, t);
    buf_putc(b, '>');
}

/* ---- functions, values, blocks ---- */
IrFunc *ir_func_new(Ctx *c, const char *name) {
    IrFunc *fn = arena_alloc(c->arena, sizeof *fn);
    fn->ctx = c;
    fn->name = arena_strdup(c->arena, name);
    IrValue none = {0};
    none.layout = -1;
    VEC_PUSH(c->arena, fn->vals, fn->n_vals, fn->cap_vals, none);   /* VAL_NONE */
    fn->body = ir_block_new(fn);
    return fn;
}

ValId ir_value_new(IrFunc *fn, IrType t) {
    IrValue v = {0};
    v.type = t;
    v.layout = -1;
    VEC_PUSH(fn->ctx->arena, fn->vals, fn->n_vals, fn->cap_vals, v);
    return fn->n_vals - 1;
}

IrBlock *ir_block_new(IrFunc *fn) { return arena_alloc(fn->ctx->arena, sizeof(IrBlock)); }

ValId ir_block_add_arg(IrFunc *fn, IrBlock *b, IrType t) {
    ValId v = ir_value_new(fn, t);
    fn->vals[v].block = b;
    VEC_PUSH(fn->ctx->arena, b->args, b->n_args, b->cap_args, v);
    return v;
}

ValId ir_param_add(IrFunc *fn, const char *name, IrType t, int32_t divisibility) {
    ValId v = ir_block_add_arg(fn, fn->body, t);
    fn->vals[v].name = name ? arena_strdup(fn->ctx->arena, name) : NULL;
    IrParam p = {fn->vals[v].name, v, divisibility, NULL, PARAM_WHOLE, 0, false, NULL, 0};
    VEC_PUSH(fn->ctx->arena, fn->params, fn->n_params, fn->cap_params, p);
    return v;
}

/* ---- ops ---- */

/* Ops and their operand, result and region arrays come from chunks of
 * their own, in creation order: a walk over a long function then reads
 * memory in order, instead of hopping one page per op over the scratch
 * that the lowering and the passes leave between them in the arena (a
 * TLB miss per op per walk, the bulk of compiling a long kernel). Still
 * arena memory, zeroed. */
#define IR_MEM_CHUNK 65536

static void *ir_mem(IrFunc *fn, size_t n) {
    n = (n + 15) & ~(size_t)15;
    if (fn->mem_left < n) {
        size_t size = n > IR_MEM_CHUNK ? n : IR_MEM_CHUNK;
        fn->mem = arena_alloc(fn->ctx->arena, size);
        fn->mem_left = size;
    }
    void *p = fn->mem;
    fn->mem += n;
    fn->mem_left -= n;
    return p;
}

IrOp *ir_op_new(IrFunc *fn, Opcode opc, SrcLoc loc, const ValId *operands, uint32_t n_operands,
                const IrType *result_types, uint32_t n_results, uint32_t n_regions) {
    IrOp *op = ir_mem(fn, sizeof *op);
    op->opc = opc;
    op->loc = loc;
    ir_op_set_operands(fn, op, operands, n_operands);
    op->n_results = n_results;
    op->results = ir_mem(fn, sizeof(ValId) * (n_results ? n_results : 1));
    for (uint32_t i = 0; i < n_results; i++) {
        op->results[i] = ir_value_new(fn, result_types[i]);
        fn->vals[op->results[i]].def = op;
    }
    op->n_regions = n_regions;
    op->regions = ir_mem(fn, sizeof(IrBlock *) * (n_regions ? n_regions : 1));
    for (uint32_t i = 0; i < n_regions; i++) {
        op->regions[i] = ir_block_new(fn);
        op->regions[i]->parent = op;
    }
    return op;
}

void ir_op_set_operands(IrFunc *fn, IrOp *op, const ValId *operands, uint32_t n) {
    op->n_operands = n;
    op->operands = ir_mem(fn, sizeof(ValId) * (n ? n : 1));
    if (n) memcpy(op->operands, operands, sizeof(ValId) * n);
}

void ir_block_append(IrBlock *b, IrOp *op) {
    op->parent = b;
    op->next = NULL;
    op->prev = b->last;
    if (b->last) b->last->next = op;
    else b->first = op;
    b->last = op;
}

void ir_insert_before(IrOp *pos, IrOp *op) {
    IrBlock *b = pos->parent;
    op->parent = b;
    op->next = pos;
    op->prev = pos->prev;
    if (pos->prev) pos->prev->next = op;
    else b->first = op;
    pos->prev = op;
}

void ir_insert_after(IrOp *pos, IrOp *op) {
    if (pos->next) ir_insert_before(pos->next, op);
    else ir_block_append(pos->parent, op);
}

void ir_op_unlink(IrOp *op) {
    IrBlock *b = op->parent;
    if (op->prev) op->prev->next = op->next;
    else b->first = op->next;
    if (op->next) op->next->prev = op->prev;
    else b->last = op->prev;
    op->prev = op->next = NULL;
    op->parent = NULL;
}

void ir_walk(IrFunc *fn, IrBlock *b, IrWalkFn f, void *ud) {
    for (IrOp *op = b->first, *next; op; op = next) {
        next = op->next;   /* f may unlink op */
        f(fn, op, ud);
        for (uint32_t r = 0; r < op->n_regions; r++) ir_walk(fn, op->regions[r], f, ud);
    }
}

typedef struct {
    ValId from, to;
} ReplaceUses;

static void replace_in_op(IrFunc *fn, IrOp *op, void *ud) {
    (void)fn;
    ReplaceUses *r = ud;
    for (uint32_t i = 0; i < op->n_operands; i++)
        if (op->operands[i] == r->from) op->operands[i] = r->to;
}

void ir_replace_uses(IrFunc *fn, ValId from, ValId to) { ir_replace_uses_in(fn, fn->body, from, to); }

void ir_replace_uses_in(IrFunc *fn, IrBlock *b, ValId from, ValId to) {
    ReplaceUses r = {from, to};
    ir_walk(fn, b, replace_in_op, &r);
}

void ir_fwd_set(IrFwd *f, ValId from, ValId to) {
    if (from == to) return;
    if (from >= f->n) {
        uint32_t n = f->fn->n_vals > 2 * f->n ? f->fn->n_vals : 2 * f->n;
        f->to = arena_realloc(f->fn->ctx->arena, f->to, sizeof(ValId) * f->n, sizeof(ValId) * n);
        f->n = n;
    }
    f->to[from] = to;
    f->any = true;
}

ValId ir_fwd_get(IrFwd *f, ValId v) {
    ValId r = v;
    while (r < f->n && f->to[r]) r = f->to[r];
    /* shorten the chain so that a long run of replacements stays linear */
    while (v < f->n && f->to[v] && f->to[v] != r) {
        ValId next = f->to[v];
        f->to[v] = r;
        v = next;
    }
    return r;
}

bool ir_fwd_op(IrFwd *f, IrOp *op) {
    bool changed = false;
    if (!f->any) return false;
    for (uint32_t i = 0; i < op->n_operands; i++) {
        ValId v = ir_fwd_get(f, op->operands[i]);
        changed |= v != op->operands[i];
        op->operands[i] = v;
    }
    return changed;
}

static void fwd_in_op(IrFunc *fn, IrOp *op, void *ud) {
    (void)fn;
    ir_fwd_op(ud, op);
}

void ir_fwd_apply(IrFwd *f) {
    if (f->any) ir_walk(f->fn, f->fn->body, fwd_in_op, f);
}

static ValId clone_mapped(const ValId *map, uint32_t n_map, ValId v) { return v < n_map && map[v] ? map[v] : v; }

IrOp *ir_clone_op(IrBuilder *b, const IrOp *op, ValId *map, uint32_t n_map) {
    IrFunc *fn = b->fn;
    Arena *a = fn->ctx->arena;
    ValId *ops = arena_alloc(a, sizeof(ValId) * (op->n_operands ? op->n_operands : 1));
    IrType *types = arena_alloc(a, sizeof(IrType) * (op->n_results ? op->n_results : 1));
    for (uint32_t i = 0; i < op->n_operands; i++) ops[i] = clone_mapped(map, n_map, op->operands[i]);
    for (uint32_t i = 0; i < op->n_results; i++) types[i] = fn->vals[op->results[i]].type;
    IrOp *c = ir_op_new(fn, op->opc, op->loc, ops, op->n_operands, types, op->n_results, op->n_regions);
    c->attr = op->attr;
    if (b->before) ir_insert_before(b->before, c);
    else ir_block_append(b->block, c);
    for (uint32_t i = 0; i < op->n_results; i++) {
        fn->vals[c->results[i]].layout = fn->vals[op->results[i]].layout;
        fn->vals[c->results[i]].name = fn->vals[op->results[i]].name;
        if (op->results[i] < n_map) map[op->results[i]] = c->results[i];
    }
    for (uint32_t r = 0; r < op->n_regions; r++) {
        const IrBlock *src = op->regions[r];
        IrBlock *dst = c->regions[r];
        for (uint32_t i = 0; i < src->n_args; i++) {
            ValId x = ir_block_add_arg(fn, dst, fn->vals[src->args[i]].type);
            fn->vals[x].layout = fn->vals[src->args[i]].layout;
            fn->vals[x].name = fn->vals[src->args[i]].name;
            if (src->args[i] < n_map) map[src->args[i]] = x;
        }
        IrBuilder in = {fn, dst, NULL, op->loc};
        for (const IrOp *o = src->first; o; o = o->next) ir_clone_op(&in, o, map, n_map);
    }
    return c;
}

static void count_in_op(IrFunc *fn, IrOp *op, void *ud) {
    (void)fn;
    uint32_t *uses = ud;
    for (uint32_t i = 0; i < op->n_operands; i++) uses[op->operands[i]]++;
}

uint32_t *ir_count_uses(IrFunc *fn) {
    uint32_t *uses = arena_alloc(fn->ctx->arena, sizeof(uint32_t) * fn->n_vals);
    ir_walk(fn, fn->body, count_in_op, uses);
    return uses;
}

/* ---- the builder ---- */
IrOp *ir_build(IrBuilder *b, Opcode opc, const ValId *operands, uint32_t n_operands,
               const IrType *result_types, uint32_t n_results, uint32_t n_regions) {
    IrOp *op = ir_op_new(b->fn, opc, b->loc, operands, n_operands, result_types, n_results, n_regions);
    if (b->before) ir_insert_before(b->before, op);
    else ir_block_append(b->block, op);
    return op;
}

ValId ir_build1(IrBuilder *b, Opcode opc, IrType result, ValId a) {
    return ir_build(b, opc, &a, 1, &result, 1, 0)->results[0];
}

ValId ir_build2(IrBuilder *b, Opcode opc, IrType result, ValId a, ValId c) {
    ValId ops[2] = {a, c};
    return ir_build(b, opc, ops, 2, &result, 1, 0)->results[0];
}

ValId ir_build3(IrBuilder *b, Opcode opc, IrType result, ValId a, ValId c, ValId d) {
    ValId ops[3] = {a, c, d};
    return ir_build(b, opc, ops, 3, &result, 1, 0)->results[0];
}

ValId ir_const_int(IrBuilder *b, IrType t, int64_t v) {
    IrOp *op = ir_build(b, OP_CONST, NULL, 0, &t, 1, 0);
    op->attr.i = v;
    op->attr.f = (double)v;
    return op->results[0];
}

ValId ir_const_float(IrBuilder *b, IrType t, double v) {
    IrOp *op = ir_build(b, OP_CONST, NULL, 0, &t, 1, 0);
    op->attr.f = v;
    return op->results[0];
}

int32_t ir_layout_intern(IrFunc *fn, const Layout *l) {
    for (uint32_t i = 0; i < fn->n_layouts; i++)
        if (layout_eq(&fn->layouts[i], l)) return (int32_t)i;
    VEC_PUSH(fn->ctx->arena, fn->layouts, fn->n_layouts, fn->cap_layouts, *l);
    return (int32_t)fn->n_layouts - 1;
}

ValId ir_for_add_carried(IrFunc *fn, IrOp *loop, ValId init) {
    IrBlock *body = loop->regions[0];
    IrType t = fn->vals[init].type;
    int32_t layout = fn->vals[init].layout;
    ValId *ops = arena_alloc(fn->ctx->arena, sizeof(ValId) * (loop->n_operands + 1));
    memcpy(ops, loop->operands, sizeof(ValId) * loop->n_operands);
    ops[loop->n_operands] = init;
    ir_op_set_operands(fn, loop, ops, loop->n_operands + 1);
    ValId *res = arena_alloc(fn->ctx->arena, sizeof(ValId) * (loop->n_results + 1));
    if (loop->n_results) memcpy(res, loop->results, sizeof(ValId) * loop->n_results);
    ValId r = ir_value_new(fn, t);
    fn->vals[r].def = loop;
    fn->vals[r].layout = layout;
    res[loop->n_results++] = r;
    loop->results = res;
    ValId a = ir_block_add_arg(fn, body, t);
    fn->vals[a].layout = layout;
    return a;
}

void ir_for_add_yield(IrFunc *fn, IrOp *loop, ValId v) {
    IrOp *y = loop->regions[0]->last;
    ValId *ops = arena_alloc(fn->ctx->arena, sizeof(ValId) * (y->n_operands + 1));
    memcpy(ops, y->operands, sizeof(ValId) * y->n_operands);
    ops[y->n_operands] = v;
    ir_op_set_operands(fn, y, ops, y->n_operands + 1);
}
