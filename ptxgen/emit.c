/* PTX emission: the module skeleton, registers, index math from linear
 * layouts, the walk over ops, and structured control flow.
 *
 * The body is written into one buffer and the prologue (parameter loads,
 * thread index math, constants) into another, because what the prologue
 * needs is only known once the body is done; both become the entry's text
 * after the register declarations, which come last for the same reason.
 */
#include "ptx.h"
#include "../ir/tmap.h"

#include <string.h>

static const char *const reg_prefix[RC_COUNT] = {"p", "h", "r", "f", "rd", "fd"};
static const char *const reg_decl[RC_COUNT] = {".pred", ".b16", ".b32", ".f32", ".b64", ".f64"};

/* ---- instruction text ---- */

/* "%r12": by hand, not printf, as most of a kernel's text is registers */
void ptx_put_reg(Buf *b, Reg r) {
    char s[16];
    int n = 0;
    s[n++] = '%';
    for (const char *p = reg_prefix[REG_CLASS(r)]; *p; p++) s[n++] = *p;
    char digits[10];
    int k = 0;
    for (uint32_t v = r & 0x0FFFFFFFu; k == 0 || v; v /= 10) digits[k++] = (char)('0' + v % 10);
    while (k) s[n++] = digits[--k];
    buf_putn(b, s, (size_t)n);
}

const char *ptx_guard(Ptx *P, Reg pred) {
    if (!pred) return "";
    Buf b = {0};
    buf_putc(&b, '@');
    ptx_put_reg(&b, pred);
    buf_putc(&b, ' ');
    const char *g = arena_strdup(P->arena, b.data);
    buf_free(&b);
    return g;
}

void ptx_ins(Ptx *P, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    Buf *b = P->out;
    buf_putc(b, '\t');
    for (const char *s = fmt; *s; s++) {
        if (*s != '%') {
            buf_putc(b, *s);
            continue;
        }
        switch (*++s) {
        case 'R': {
            Reg r = va_arg(ap, Reg);
            TRIC_ASSERT(r != REG_NONE);
            ptx_put_reg(b, r);
            break;
        }
        case 's': buf_puts(b, va_arg(ap, const char *)); break;
        case 'd': buf_printf(b, "%d", va_arg(ap, int)); break;
        case 'l': buf_printf(b, "%lld", (long long)va_arg(ap, int64_t)); break;
        case 'x': buf_printf(b, "0x%X", va_arg(ap, unsigned)); break;
        case 'D': {   /* an f64 immediate, exactly: 0d + its 16 hex digits */
            double v = va_arg(ap, double);
            uint64_t u;
            memcpy(&u, &v, sizeof u);
            buf_printf(b, "0d%016llX", (unsigned long long)u);
            break;
        }
        case 'F': {   /* an f32 immediate: 0f + its 8 hex digits */
            float v = (float)va_arg(ap, double);
            uint32_t u;
            memcpy(&u, &v, sizeof u);
            buf_printf(b, "0f%08X", (unsigned)u);
            break;
        }
        case '%': buf_putc(b, '%'); break;
        default: tric_unreachable();
        }
    }
    buf_putc(b, '\n');
    P->n_insts++;
    va_end(ap);
}

void ptx_label(Ptx *P, const char *what, int n) { buf_printf(P->out, "$L_%s_%d:\n", what, n); }

Reg ptx_reg(Ptx *P, RegClass c) {
    uint32_t n = ++P->n_regs[c];
    TRIC_ASSERT(n < 0x0FFFFFFFu);
    return ((Reg)c << 28) | n;
}

/* The prologue is straight-line code at entry; switching into it keeps the
 * body's instruction count (used to drop empty .loc lines) unchanged. */
typedef struct PrologueMark {
    Buf *out;
    int n_insts;
} PrologueMark;

static PrologueMark prologue_begin(Ptx *P) {
    PrologueMark m = {P->out, P->n_insts};
    P->out = &P->prologue;
    return m;
}

static void prologue_end(Ptx *P, PrologueMark m) {
    P->out = m.out;
    P->n_insts = m.n_insts;
}

/* ---- values and their registers ---- */

int32_t ptx_layout_index(Ptx *P, IrOp *op, ValId v) {
    IrValue *iv = &P->fn->vals[v];
    if (iv->layout < 0)
        diag_error(P->ctx, op ? op->loc : (SrcLoc){0},
                   "tile value %%%u has no layout (layouts must be assigned before PTX generation)",
                   (unsigned)v);
    const Layout *l = &P->fn->layouts[iv->layout];
    TRIC_ASSERT(l->rank == iv->type.rank);
    for (int d = 0; d < l->rank; d++) TRIC_ASSERT(l->shape[d] == iv->type.shape[d]);
    return iv->layout;
}

int ptx_value_nregs(Ptx *P, IrOp *op, ValId v) {
    if (P->fn->vals[v].type.rank == 0) return 1;
    return layout_n_regs(&P->fn->layouts[ptx_layout_index(P, op, v)]);
}

Reg *ptx_regs(Ptx *P, ValId v, int *n) {
    TRIC_ASSERT(v != VAL_NONE && v < P->fn->n_vals && P->vn[v] > 0);
    if (n) *n = P->vn[v];
    return P->vregs[v];
}

void ptx_alias(Ptx *P, ValId v, Reg *regs, int n) {
    TRIC_ASSERT(P->vn[v] == 0);
    P->vregs[v] = regs;
    P->vn[v] = n;
}

uint32_t ptx_uses(Ptx *P, ValId v) {
    if (!P->uses) P->uses = ir_count_uses(P->fn);
    return P->uses[v];
}

Reg *ptx_def(Ptx *P, IrOp *op, ValId v) {
    int n = ptx_value_nregs(P, op, v);
    RegClass c = ptx_class_of((ElemType)P->fn->vals[v].type.elem);
    Reg *regs = arena_alloc(P->arena, sizeof(Reg) * (size_t)n);
    for (int i = 0; i < n; i++) regs[i] = ptx_reg(P, c);
    ptx_alias(P, v, regs, n);
    return regs;
}

static Reg *reg_array(Ptx *P, int n) { return arena_alloc(P->arena, sizeof(Reg) * (size_t)n); }

void ptx_mov(Ptx *P, Reg d, Reg a) {
    static const char *const mov[RC_COUNT] = {"mov.pred", "mov.b16", "mov.b32",
                                              "mov.f32",  "mov.b64", "mov.f64"};
    TRIC_ASSERT(REG_CLASS(d) == REG_CLASS(a));
    if (d != a) ptx_ins(P, "%s %R, %R;", mov[REG_CLASS(d)], d, a);
}

/* Moves src[i] into dst[i] for all i as if at once: when a later move would
 * read a register an earlier one wrote, everything goes through temporaries. */
static void parallel_mov(Ptx *P, const Reg *dst, const Reg *src, int n) {
    bool conflict = false;
    for (int i = 0; i < n && !conflict; i++)
        for (int j = i + 1; j < n; j++)
            if (src[j] == dst[i] && src[j] != dst[j]) conflict = true;
    if (!conflict) {
        for (int i = 0; i < n; i++) ptx_mov(P, dst[i], src[i]);
        return;
    }
    Reg *tmp = reg_array(P, n);
    for (int i = 0; i < n; i++) {
        tmp[i] = ptx_reg(P, REG_CLASS(src[i]));
        ptx_mov(P, tmp[i], src[i]);
    }
    for (int i = 0; i < n; i++) ptx_mov(P, dst[i], tmp[i]);
}

/* All registers of a list of values, concatenated. */
static Reg *values_regs(Ptx *P, const ValId *vals, uint32_t n_vals, int *total) {
    int n = 0;
    for (uint32_t i = 0; i < n_vals; i++) n += P->vn[vals[i]];
    Reg *all = reg_array(P, n ? n : 1);
    int k = 0;
    for (uint32_t i = 0; i < n_vals; i++) {
        int m;
        Reg *r = ptx_regs(P, vals[i], &m);
        for (int j = 0; j < m; j++) all[k++] = r[j];
    }
    *total = n;
    return all;
}

/* values_regs of vals[first, n): an empty array may be NULL, and C has no
 * NULL + 0 */
static Reg *values_regs_from(Ptx *P, const ValId *vals, uint32_t first, uint32_t n, int *total) {
    return values_regs(P, first < n ? vals + first : NULL, first < n ? n - first : 0, total);
}

/* ---- constants (prologue, one register per distinct bit pattern) ---- */

static uint32_t const_hash(RegClass c, uint64_t bits) { return hash_u64(bits) ^ (uint32_t)c; }

/* a kernel can have many distinct constants: a hash, not a search */
static void const_add(Ptx *P, ConstReg cr) {
    VEC_PUSH(P->arena, P->consts, P->n_consts, P->cap_consts, cr);
    uint32_t from = hidx_reserve(&P->const_at, P->arena, 1, P->n_consts) ? 0 : P->n_consts - 1;
    for (uint32_t k = from; k < P->n_consts; k++) hidx_put(P->const_at, const_hash(P->consts[k].cls, P->consts[k].bits), k);
}

Reg ptx_const_reg(Ptx *P, RegClass c, uint64_t bits) {
    for (uint32_t it = 0, k; (k = hidx_next(P->const_at, const_hash(c, bits), &it));)
        if (P->consts[k - 1].cls == c && P->consts[k - 1].bits == bits) return P->consts[k - 1].reg;
    Reg r = ptx_reg(P, c);
    PrologueMark m = prologue_begin(P);
    switch (c) {
    case RC_PRED: ptx_ins(P, "mov.pred %R, %d;", r, bits ? 1 : 0); break;
    case RC_B16: ptx_ins(P, "mov.b16 %R, %x;", r, (unsigned)(bits & 0xFFFF)); break;
    case RC_B32: ptx_ins(P, "mov.b32 %R, %x;", r, (unsigned)(bits & 0xFFFFFFFFu)); break;
    case RC_F32:
        buf_printf(P->out, "\tmov.b32 %%f%u, 0f%08X;\n", (unsigned)(r & 0x0FFFFFFFu),
                   (unsigned)(bits & 0xFFFFFFFFu));
        break;
    case RC_B64:
        buf_printf(P->out, "\tmov.b64 %%rd%u, 0x%llX;\n", (unsigned)(r & 0x0FFFFFFFu),
                   (unsigned long long)bits);
        break;
    case RC_F64:
        buf_printf(P->out, "\tmov.b64 %%fd%u, 0d%016llX;\n", (unsigned)(r & 0x0FFFFFFFu),
                   (unsigned long long)bits);
        break;
    default: tric_unreachable();
    }
    prologue_end(P, m);
    const_add(P, (ConstReg){c, bits, r});
    return r;
}

/* ---- thread indices (prologue) ---- */

Reg ptx_tid(Ptx *P) {
    if (P->tid) return P->tid;
    PrologueMark m = prologue_begin(P);
    P->tid = ptx_reg(P, RC_B32);
    ptx_ins(P, "mov.u32 %R, %%tid.x;", P->tid);
    P->lane = ptx_reg(P, RC_B32);
    ptx_ins(P, "and.b32 %R, %R, 31;", P->lane, P->tid);
    P->warp = ptx_reg(P, RC_B32);
    ptx_ins(P, "shr.u32 %R, %R, 5;", P->warp, P->tid);
    prologue_end(P, m);
    return P->tid;
}

/* The cache-policy operand of loads and stores with an eviction policy:
 * all of L2 (fraction 1.0, the default) at that priority, as Triton's
 * eviction_policy does on sm_80 and later. */
Reg ptx_l2_policy(Ptx *P, bool evict_last) {
    if (P->l2_policy[evict_last]) return P->l2_policy[evict_last];
    PrologueMark m = prologue_begin(P);
    Reg r = P->l2_policy[evict_last] = ptx_reg(P, RC_B64);
    ptx_ins(P, "createpolicy.fractional.L2::evict_%s.b64 %R;", evict_last ? "last" : "first", r);
    prologue_end(P, m);
    return r;
}

Reg ptx_tid0(Ptx *P) {
    if (P->tid0) return P->tid0;
    Reg tid = ptx_tid(P);
    PrologueMark m = prologue_begin(P);
    P->tid0 = ptx_reg(P, RC_PRED);
    ptx_ins(P, "setp.eq.u32 %R, %R, 0;", P->tid0, tid);
    prologue_end(P, m);
    return P->tid0;
}

static int warp_bits(Ptx *P) { return log2_ceil(P->ctx->target.num_warps); }

/* ---- linear layouts: the thread part at run time ---- */

/* XOR into acc the contribution of the bits of src (lane or warp): input bit
 * k contributes vals[k], so output bit j of it is input bit k moved by
 * j - k: group the (k, j) pairs by that shift and emit one and/shift per
 * group. Blocked layouts need one group (often without the and). */
static Reg thread_terms(Ptx *P, const int32_t *vals, int n, Reg src, int hw_bits, Reg acc) {
    uint32_t mask[64] = {0};
    for (int k = 0; k < n; k++) {
        int32_t f = vals[k];
        for (int j = 0; j < 31; j++)
            if (f >> j & 1) mask[j - k + 32] |= 1u << k;
    }
    uint32_t full = hw_bits >= 32 ? ~0u : (1u << hw_bits) - 1;
    for (int s = 0; s < 64; s++) {
        if (!mask[s]) continue;
        int shift = s - 32;
        Reg t = src;
        if (mask[s] != full) {
            t = ptx_reg(P, RC_B32);
            ptx_ins(P, "and.b32 %R, %R, %x;", t, src, mask[s]);
        }
        if (shift) {
            Reg u = ptx_reg(P, RC_B32);
            if (shift > 0) ptx_ins(P, "shl.b32 %R, %R, %d;", u, t, shift);
            else ptx_ins(P, "shr.u32 %R, %R, %d;", u, t, -shift);
            t = u;
        }
        if (acc) {
            Reg x = ptx_reg(P, RC_B32);
            ptx_ins(P, "xor.b32 %R, %R, %R;", x, acc, t);
            t = x;
        }
        acc = t;
    }
    return acc;
}

Reg ptx_thread_xor(Ptx *P, const int32_t *lane_vals, int n_lane, const int32_t *warp_vals, int n_warp) {
    TRIC_ASSERT(n_lane <= 5 && n_warp <= warp_bits(P));
    ptx_tid(P);
    PrologueMark m = prologue_begin(P);
    Reg acc = thread_terms(P, lane_vals, n_lane, P->lane, 5, REG_NONE);
    acc = thread_terms(P, warp_vals, n_warp, P->warp, warp_bits(P), acc);
    prologue_end(P, m);
    return acc ? acc : ptx_const_reg(P, RC_B32, 0);
}

Reg ptx_layout_flat(Ptx *P, int32_t li) {
    LayoutRegs *lr = &P->lregs[li];
    if (lr->flat_done) return lr->flat;
    const Layout *l = &P->fn->layouts[li];
    int32_t vals[LL_KINDS][LL_MAX_BITS];
    for (int kind = LL_LANE; kind <= LL_WARP; kind++)
        for (int k = 0; k < l->n_bits[kind]; k++) vals[kind][k] = layout_flat(l, l->basis[kind][k]);
    lr->flat = ptx_thread_xor(P, vals[LL_LANE], l->n_bits[LL_LANE], vals[LL_WARP], l->n_bits[LL_WARP]);
    lr->flat_done = true;
    return lr->flat;
}

void ptx_layout_room(Ptx *P) {
    if (P->fn->n_layouts <= P->n_lregs) return;
    uint32_t n = P->fn->n_layouts * 2;
    LayoutRegs *grown = arena_alloc(P->arena, sizeof(LayoutRegs) * n);
    memcpy(grown, P->lregs, sizeof(LayoutRegs) * P->n_lregs);
    P->lregs = grown;
    P->n_lregs = n;
}

int32_t ptx_intern_layout(Ptx *P, const Layout *l) {
    int32_t li = ir_layout_intern(P->fn, l);
    ptx_layout_room(P);
    return li;
}

Reg ptx_layout_owner(Ptx *P, int32_t li, uint32_t *dup_reg_mask) {
    LayoutRegs *lr = &P->lregs[li];
    if (!lr->owner_done) {
        uint32_t tid_mask;
        layout_duplicates(&P->fn->layouts[li], P->ctx->target.num_warps, &lr->owner_reg_mask, &tid_mask);
        if (tid_mask) {
            Reg tid = ptx_tid(P);
            PrologueMark m = prologue_begin(P);
            Reg t = ptx_reg(P, RC_B32);
            ptx_ins(P, "and.b32 %R, %R, %x;", t, tid, tid_mask);
            lr->owner = ptx_reg(P, RC_PRED);
            ptx_ins(P, "setp.eq.u32 %R, %R, 0;", lr->owner, t);
            prologue_end(P, m);
        }
        lr->owner_done = true;
    }
    *dup_reg_mask = lr->owner_reg_mask;
    return lr->owner;
}

/* ---- ops that only rename registers ----
 * Each maps a result coordinate (and which result: split has two) to the
 * coordinate of an operand (and which operand: join has two). The maps are
 * linear over the coordinate bits, so the lane and warp bases can be
 * mapped one by one; constant offsets (split's second half) only come
 * from `which`. */
typedef struct CoordMap {
    Opcode opc;
    int axis;                      /* expand_dims */
    const int32_t *perm;           /* trans */
    const Layout *src, *res;       /* shapes */
} CoordMap;

/* The operand coordinate of result `which`'s coordinate in; returns the
 * operand's index. */
static int map_coord(const CoordMap *m, int which, const int32_t *in, int32_t *out) {
    const Layout *src = m->src;
    for (int d = 0; d < IR_MAX_RANK; d++) out[d] = 0;
    switch (m->opc) {
    case OP_EXPAND_DIMS:
        for (int d = 0, o = 0; d < src->rank + 1; d++)
            if (d != m->axis) out[o++] = in[d];
        return 0;
    case OP_BROADCAST:
        for (int d = 0; d < src->rank; d++) out[d] = src->shape[d] == 1 ? 0 : in[d];
        return 0;
    case OP_TRANS:
        for (int d = 0; d < src->rank; d++) out[m->perm[d]] = in[d];
        return 0;
    case OP_RESHAPE:
        layout_unflat(src->rank, src->shape, layout_flat_index(m->res->rank, m->res->shape, in), out);
        return 0;
    case OP_JOIN:
        for (int d = 0; d < src->rank; d++) out[d] = in[d];
        return in[src->rank];
    case OP_SPLIT:
        for (int d = 0; d < src->rank - 1; d++) out[d] = in[d];
        out[src->rank - 1] = which;
        return 0;
    default:
        for (int d = 0; d < src->rank; d++) out[d] = in[d];
        return 0;
    }
}

/* Result `which` (value res, layout L) gets, in each register, the register
 * of operand srcs[k] (all of layout S) that holds the mapped coordinate in
 * the same thread. That works when S's lane and warp bases are L's mapped
 * ones (and select no other operand): then only the register part differs,
 * and it is known at compile time. Returns NULL if it does not. */
static Reg *alias_mapped(Ptx *P, IrOp *op, ValId res, int which, const ValId *srcs, CoordMap *map) {
    const Layout *L = &P->fn->layouts[ptx_layout_index(P, op, res)];
    const Layout *S = &P->fn->layouts[ptx_layout_index(P, op, srcs[0])];
    int32_t c[IR_MAX_RANK], m[IR_MAX_RANK];
    map->src = S;
    map->res = L;
    for (int kind = LL_LANE; kind <= LL_WARP; kind++) {
        if (L->n_bits[kind] != S->n_bits[kind]) return NULL;
        for (int k = 0; k < L->n_bits[kind]; k++) {
            if (map_coord(map, 0, L->basis[kind][k], m) != 0) return NULL;
            if (map->opc == OP_SPLIT) m[S->rank - 1] = 0;   /* the linear part */
            for (int d = 0; d < S->rank; d++)
                if (m[d] != S->basis[kind][k][d]) return NULL;
        }
    }
    int n = layout_n_regs(L), ns = layout_n_regs(S);
    int32_t *src_flat = arena_alloc(P->arena, sizeof(int32_t) * (size_t)ns);
    for (int r = 0; r < ns; r++) src_flat[r] = layout_reg_flat(S, r);
    Reg *regs = reg_array(P, n);
    for (int r = 0; r < n; r++) {
        layout_coord(L, r, 0, 0, c);
        int k = map_coord(map, which, c, m);
        int32_t want = layout_flat(S, m);
        int found = -1;
        for (int q = 0; q < ns && found < 0; q++)
            if (src_flat[q] == want) found = q;
        if (found < 0) return NULL;
        regs[r] = ptx_regs(P, srcs[k], NULL)[found];
    }
    return regs;
}

/* Register-only conversion, for convert_layout between layouts that differ
 * only in register order (convert.c falls back to shared memory). */
bool ptx_try_alias_convert(Ptx *P, IrOp *op) {
    CoordMap map = {OP_CONVERT_LAYOUT, 0, NULL, NULL, NULL};
    Reg *regs = alias_mapped(P, op, op->results[0], 0, op->operands, &map);
    if (!regs) return false;
    ptx_alias(P, op->results[0], regs, ptx_value_nregs(P, op, op->results[0]));
    return true;
}

/* broadcast, expand_dims, hints, trans, reshape, join, split */
static void emit_view(Ptx *P, IrOp *op) {
    ValId src = op->operands[0];
    if (P->fn->vals[op->results[0]].type.rank == 0) {   /* hints on scalars; a reshape to a scalar */
        Reg *s = ptx_regs(P, src, NULL);   /* every thread holds a one-element tile in register 0 */
        ptx_alias(P, op->results[0], s, 1);
        return;
    }
    CoordMap map = {op->opc, (int)op->attr.i, op->attr.ints, NULL, NULL};
    if (op->opc == OP_MULTIPLE_OF || op->opc == OP_MAX_CONTIGUOUS) map.opc = OP_CONVERT_LAYOUT;
    for (uint32_t i = 0; i < op->n_results; i++) {
        Reg *regs = alias_mapped(P, op, op->results[i], (int)i, op->operands, &map);
        /* pass_layout gives the result of a view exactly the derived layout */
        TRIC_ASSERT(regs != NULL);
        ptx_alias(P, op->results[i], regs, ptx_value_nregs(P, op, op->results[i]));
    }
}

static void emit_splat(Ptx *P, IrOp *op) {
    Reg s = ptx_regs(P, op->operands[0], NULL)[0];
    int n = ptx_value_nregs(P, op, op->results[0]);
    Reg *regs = reg_array(P, n);
    for (int i = 0; i < n; i++) regs[i] = s;
    ptx_alias(P, op->results[0], regs, n);
}

/* ---- constants, program ids, arange ---- */

uint64_t ptx_const_bits(Ptx *P, IrOp *op, ElemType e) {
    int64_t i = op->attr.i;
    double f = op->attr.f;
    switch (e) {
    case ET_I1: return i != 0;
    case ET_I8: return (uint16_t)(int16_t)(int8_t)i;
    case ET_U8: return (uint64_t)i & 0xFF;
    case ET_I16: case ET_U16: return (uint64_t)i & 0xFFFF;
    case ET_I32: case ET_U32: return (uint64_t)i & 0xFFFFFFFFu;
    case ET_I64: case ET_U64: case ET_PTR: return (uint64_t)i;
    case ET_F8E4M3: case ET_F8E5M2:   /* the low byte of a 16-bit register */
    case ET_F16: case ET_BF16: case ET_F32: case ET_F64: return elem_float_bits(e, f);
    default:
        diag_error(P->ctx, op->loc, "constants of type %s are not supported yet", elem_name(e));
    }
}

static void emit_const(Ptx *P, IrOp *op) {
    ValId v = op->results[0];
    ElemType e = (ElemType)P->fn->vals[v].type.elem;
    Reg r = ptx_const_reg(P, ptx_class_of(e), ptx_const_bits(P, op, e));
    int n = ptx_value_nregs(P, op, v);
    Reg *regs = reg_array(P, n);
    for (int i = 0; i < n; i++) regs[i] = r;
    ptx_alias(P, v, regs, n);
}

static void emit_special(Ptx *P, IrOp *op) {
    static const char *const axis[] = {"x", "y", "z"};
    if (op->attr.i < 0 || op->attr.i > 2)
        diag_error(P->ctx, op->loc, "%s axis must be 0, 1 or 2, not %lld", ir_info(op->opc)->name,
                   (long long)op->attr.i);
    Reg d = ptx_def(P, op, op->results[0])[0];
    ptx_ins(P, "mov.u32 %R, %s.%s;", d, op->opc == OP_PROGRAM_ID ? "%ctaid" : "%nctaid",
            axis[op->attr.i]);
}

/* Register r holds start + (C_r ^ T) where C_r is the register part of its
 * coordinate and T the thread part; when their bits cannot overlap the XOR
 * is an addition and folds into one add with an immediate. */
static void emit_arange(Ptx *P, IrOp *op) {
    ValId v = op->results[0];
    int li = ptx_layout_index(P, op, v);
    const Layout *l = &P->fn->layouts[li];
    int n = layout_n_regs(l);
    int32_t support = layout_thread_support(l);
    int64_t start = op->attr.i;
    Reg *regs = reg_array(P, n);
    Reg t = support ? ptx_layout_flat(P, li) : REG_NONE;
    for (int r = 0; r < n; r++) {
        int32_t c = layout_reg_flat(l, r);
        if (!support) {
            regs[r] = ptx_const_reg(P, RC_B32, (uint32_t)(start + c));
            continue;
        }
        Reg base = t;
        int64_t add = start + c;
        if (c & support) {
            base = ptx_reg(P, RC_B32);
            ptx_ins(P, "xor.b32 %R, %R, %d;", base, t, (int)c);
            add = start;
        }
        if (add == 0) {
            regs[r] = base;
            continue;
        }
        regs[r] = ptx_reg(P, RC_B32);
        ptx_ins(P, "add.s32 %R, %R, %d;", regs[r], base, (int)add);
    }
    ptx_alias(P, v, regs, n);
}

/* ---- walking ops ---- */

static IrOp *emit_block(Ptx *P, IrBlock *b);

static int file_index(Ptx *P, const SrcFile *f) {
    for (uint32_t i = 0; i < P->n_files; i++)
        if (P->files[i] == f) return (int)i + 1;
    VEC_PUSH(P->arena, P->files, P->n_files, P->cap_files, f);
    return (int)P->n_files;
}

/* A comment naming the op, and a .loc that is dropped again if the op
 * turned out to need no instructions (views, constants). */
typedef struct OpMark {
    size_t loc_pos;
    int n_insts;
} OpMark;

/* the .loc line of op's source position, if it has one */
static void put_loc(Ptx *P, const IrOp *op) {
    if (op->loc.file && op->loc.line > 0)
        buf_printf(P->out, "\t.loc %d %d %d\n", file_index(P, op->loc.file), op->loc.line,
                   op->loc.col > 0 ? op->loc.col : 0);
}

static OpMark op_begin(Ptx *P, IrOp *op) {
    if (op->loc.line > 0) buf_printf(P->out, "\t// %s (line %d)\n", ir_info(op->opc)->name, op->loc.line);
    else buf_printf(P->out, "\t// %s\n", ir_info(op->opc)->name);
    OpMark m = {P->out->len, P->n_insts};
    put_loc(P, op);
    return m;
}

static void op_end(Ptx *P, OpMark m) {
    if (P->n_insts != m.n_insts) return;
    P->out->len = m.loc_pos;
    P->out->data[m.loc_pos] = 0;
}

static void yield_into(Ptx *P, IrOp *term, Opcode want, uint32_t first, const Reg *dst, int n) {
    TRIC_ASSERT(term && term->opc == want);
    int m;
    Reg *src = values_regs_from(P, term->operands, first, term->n_operands, &m);
    TRIC_ASSERT(m == n);
    OpMark mark = op_begin(P, term);
    parallel_mov(P, dst, src, n);
    op_end(P, mark);
}

static Reg *def_args(Ptx *P, IrOp *op, IrBlock *b, uint32_t first, int *n) {
    for (uint32_t i = first; i < b->n_args; i++) ptx_def(P, op, b->args[i]);
    return values_regs_from(P, b->args, first, b->n_args, n);
}

static void alias_results(Ptx *P, IrOp *op, IrBlock *b, uint32_t first) {
    TRIC_ASSERT(b->n_args - first == op->n_results);
    for (uint32_t i = 0; i < op->n_results; i++) {
        int n;
        Reg *r = ptx_regs(P, b->args[first + i], &n);
        ptx_alias(P, op->results[i], r, n);
    }
}

static bool is_negative_const(Ptx *P, ValId v) {
    IrOp *def = P->fn->vals[v].def;
    return def && def->opc == OP_CONST && def->attr.i < 0;
}

/* for iv = lb; iv < ub (iv > ub for a constant negative step); iv += step */
static void emit_for(Ptx *P, IrOp *op) {
    TRIC_ASSERT(op->n_operands >= 3);
    IrBlock *body = op->regions[0];
    ValId iv = body->args[0];
    ElemType it = (ElemType)P->fn->vals[iv].type.elem;
    if (!elem_is_int(it) || it == ET_I1)
        diag_error(P->ctx, op->loc, "loop induction variable of type %s is not supported", elem_name(it));
    Reg ivr = ptx_def(P, op, iv)[0];
    ptx_mov(P, ivr, ptx_regs(P, op->operands[0], NULL)[0]);
    int n_init, n_carried;
    Reg *init = values_regs(P, op->operands + 3, op->n_operands - 3, &n_init);
    Reg *carried = def_args(P, op, body, 1, &n_carried);
    TRIC_ASSERT(n_init == n_carried);
    parallel_mov(P, carried, init, n_carried);
    alias_results(P, op, body, 1);
    int label = P->n_labels++;
    ptx_label(P, "for", label);
    Reg done = ptx_reg(P, RC_PRED);
    ptx_ins(P, "setp.%s.%s %R, %R, %R;", is_negative_const(P, op->operands[2]) ? "le" : "ge",
            ptx_arith_sfx(it), done, ivr, ptx_regs(P, op->operands[1], NULL)[0]);
    ptx_ins(P, "@%R bra $L_end_%d;", done, label);
    IrOp *term = emit_block(P, body);
    yield_into(P, term, OP_YIELD, 0, carried, n_carried);
    ptx_ins(P, "add.%s %R, %R, %R;", ptx_arith_sfx(it), ivr, ivr, ptx_regs(P, op->operands[2], NULL)[0]);
    ptx_ins(P, "bra $L_for_%d;", label);
    ptx_label(P, "end", label);
}

/* The ops of b (nested ifs too) have no effects, read no shared memory and
 * yield scalars: running them when their branch is not taken changes
 * nothing but registers. */
static bool select_safe(Ptx *P, IrBlock *b) {
    for (IrOp *o = b->first; o; o = o->next) {
        if (o->opc == OP_YIELD) {
            for (uint32_t i = 0; i < o->n_operands; i++)
                if (ir_type(P->fn, o->operands[i]).rank) return false;
            continue;
        }
        if (o->opc == OP_IF) {
            if (!select_safe(P, o->regions[0]) || !select_safe(P, o->regions[1])) return false;
            continue;
        }
        if (!ptx_quiet_op(o) || o->opc == OP_INLINE_ASM) return false;
    }
    return true;
}

/* Inside map_elementwise each thread's elements may take either branch:
 * both are run and the results selected, so the threads of a warp do not
 * diverge (when select_safe allows it). */
static bool emit_if_select(Ptx *P, IrOp *op, Reg cond) {
    if (!P->map_depth || !select_safe(P, op->regions[0]) || !select_safe(P, op->regions[1])) return false;
    IrOp *t0 = emit_block(P, op->regions[0]);
    IrOp *t1 = emit_block(P, op->regions[1]);
    for (uint32_t i = 0; i < op->n_results; i++) {
        Reg a = ptx_regs(P, t0->operands[i], NULL)[0], b = ptx_regs(P, t1->operands[i], NULL)[0];
        Reg *d = arena_alloc(P->arena, sizeof(Reg));
        *d = ptx_select_reg(P, cond, a, b);
        ptx_alias(P, op->results[i], d, 1);
    }
    return true;
}

static void emit_if(Ptx *P, IrOp *op) {
    Reg cond = ptx_regs(P, op->operands[0], NULL)[0];
    TRIC_ASSERT(REG_CLASS(cond) == RC_PRED);
    if (emit_if_select(P, op, cond)) return;
    for (uint32_t i = 0; i < op->n_results; i++) ptx_def(P, op, op->results[i]);
    int n;
    Reg *res = values_regs(P, op->results, op->n_results, &n);
    int label = P->n_labels++;
    ptx_ins(P, "@!%R bra $L_else_%d;", cond, label);
    IrOp *term = emit_block(P, op->regions[0]);
    if (term || n) yield_into(P, term, OP_YIELD, 0, res, n);
    ptx_ins(P, "bra $L_endif_%d;", label);
    ptx_label(P, "else", label);
    term = emit_block(P, op->regions[1]);
    if (term || n) yield_into(P, term, OP_YIELD, 0, res, n);
    ptx_label(P, "endif", label);
}

static void emit_while(Ptx *P, IrOp *op) {
    IrBlock *before = op->regions[0], *after = op->regions[1];
    int n_init, n_carried, n_fwd;
    Reg *init = values_regs(P, op->operands, op->n_operands, &n_init);
    Reg *carried = def_args(P, op, before, 0, &n_carried);
    TRIC_ASSERT(n_init == n_carried);
    parallel_mov(P, carried, init, n_carried);
    Reg *fwd = def_args(P, op, after, 0, &n_fwd);
    alias_results(P, op, after, 0);
    int label = P->n_labels++;
    ptx_label(P, "while", label);
    IrOp *cond_op = emit_block(P, before);
    TRIC_ASSERT(cond_op && cond_op->opc == OP_CONDITION && cond_op->n_operands >= 1);
    yield_into(P, cond_op, OP_CONDITION, 1, fwd, n_fwd);
    Reg cond = ptx_regs(P, cond_op->operands[0], NULL)[0];
    ptx_ins(P, "@!%R bra $L_wend_%d;", cond, label);
    IrOp *term = emit_block(P, after);
    yield_into(P, term, OP_YIELD, 0, carried, n_carried);
    ptx_ins(P, "bra $L_while_%d;", label);
    ptx_label(P, "wend", label);
}

static void emit_op(Ptx *P, IrOp *op) {
    OpMark m = op_begin(P, op);
    P->scratch_at = op->attr.smem.set ? op->attr.smem.off : -1;
    switch (op->opc) {
    case OP_CONST: emit_const(P, op); break;
    case OP_PROGRAM_ID:
    case OP_NUM_PROGRAMS: emit_special(P, op); break;
    case OP_SREG:
        ptx_ins(P, op->attr.i == SREG_SMID ? "mov.u32 %R, %%smid;" : "mov.u64 %R, %%globaltimer;",
                ptx_def(P, op, op->results[0])[0]);
        break;
    case OP_ARANGE: emit_arange(P, op); break;
    case OP_SPLAT: emit_splat(P, op); break;
    case OP_BROADCAST:
    case OP_EXPAND_DIMS:
    case OP_TRANS:
    case OP_RESHAPE:
    case OP_JOIN:
    case OP_SPLIT:
    case OP_MULTIPLE_OF:
    case OP_MAX_CONTIGUOUS: emit_view(P, op); break;
    case OP_CONVERT_LAYOUT: ptx_convert_layout(P, op); break;
    case OP_LOAD: ptx_load(P, op); break;
    case OP_STORE: ptx_store(P, op); break;
    case OP_ATOMIC:
    case OP_ATOMIC_CAS: ptx_atomic(P, op); break;
    case OP_FOR: emit_for(P, op); break;
    case OP_IF: emit_if(P, op); break;
    case OP_WHILE: emit_while(P, op); break;
    case OP_REDUCE: ptx_reduce(P, op); break;
    case OP_SCAN: ptx_scan(P, op); break;
    case OP_HISTOGRAM: ptx_histogram(P, op); break;
    case OP_GATHER: ptx_gather(P, op); break;
    case OP_RET: ptx_ins(P, "ret;"); break;
    case OP_PRINT: ptx_print(P, op); break;
    case OP_ASSERT: ptx_assert(P, op); break;
    case OP_ASSUME: break;   /* a promise for the analyses: no code */
    case OP_BARRIER: ptx_ins(P, "bar.sync 0;"); break;
    case OP_DOT: ptx_dot(P, op); break;
    case OP_WGMMA: ptx_wgmma(P, op); break;
    case OP_WGMMA_WAIT: ptx_wgmma_wait(P, op); break;
    case OP_LOCAL_ALLOC: break;   /* placed by ptx_smem_buffers_plan */
    case OP_ASYNC_COPY: ptx_async_copy(P, op); break;
    case OP_MBAR_ALLOC: break;   /* placed by ptx_smem_buffers_plan */
    case OP_MBAR_INIT: ptx_mbar_init(P, op, true); break;
    case OP_MBAR_INVAL: ptx_mbar_init(P, op, false); break;
    case OP_MBAR_WAIT: ptx_mbar_wait(P, op); break;
    case OP_TMA_COPY: ptx_tma_copy(P, op); break;
    case OP_TMAP_CREATE: ptx_tmap_create(P, op); break;
    case OP_ASYNC_COMMIT: ptx_ins(P, "cp.async.commit_group;"); break;
    case OP_ASYNC_WAIT: ptx_ins(P, "cp.async.wait_group %d;", (int)op->attr.i); break;
    case OP_FENCE_ASYNC: ptx_ins(P, "fence.proxy.async.shared::cta;"); break;
    case OP_LOCAL_LOAD: ptx_local_load(P, op); break;
    case OP_INLINE_ASM: ptx_inline_asm(P, op); break;
    case OP_MAP_ELEM: ptx_map_elementwise(P, op); break;
    default:
        TRIC_ASSERT(ir_info(op->opc)->flags & F_ELEMWISE);
        ptx_elementwise(P, op);
        break;
    }
    op_end(P, m);
}

/* Emits every op of b; returns its yield/condition terminator (the parent
 * turns it into moves), NULL if it has none. An op may have emitted the
 * ops after it (P->resume: the last of them). */
static IrOp *emit_block(Ptx *P, IrBlock *b) {
    for (IrOp *op = b->first; op; op = op->next) {
        if (op->opc == OP_YIELD || op->opc == OP_CONDITION) {
            TRIC_ASSERT(op->next == NULL);
            return op;
        }
        emit_op(P, op);
        if (P->resume) {
            op = P->resume;
            P->resume = NULL;
        }
    }
    return NULL;
}

bool ptx_quiet_op(const IrOp *o) {
    return (ir_info(o->opc)->flags & F_PURE) && o->opc != OP_CONVERT_LAYOUT && o->opc != OP_REDUCE &&
           o->opc != OP_SCAN && !o->n_regions;
}

/* The pipelined loop's copies (opt/pipeline.c puts them after the dot) go
 * out between the dot's first k-step and the rest: the warps start their
 * mmas right after the barrier, and the copies still leave almost a whole
 * iteration earlier than at the end of the body. Legal because a copy's
 * bytes land at some time before the wait that covers them, and nothing
 * may read a slot whose copy is pending (doc/ir.md): the dot's reads and
 * the copies touch different slots. */
void ptx_emit_copies_after(Ptx *P, IrOp *dot) {
    IrOp *end = NULL;
    for (IrOp *o = dot->next; o && !end; o = o->next) {
        if (o->opc == OP_ASYNC_COMMIT) end = o;
        else if (o->opc != OP_ASYNC_COPY && (!ptx_quiet_op(o) || o->opc == OP_DOT)) return;
        for (uint32_t i = 0; i < o->n_operands; i++)
            if (o->operands[i] == dot->results[0]) return;
    }
    if (!end) return;
    int32_t scratch = P->scratch_at;
    for (IrOp *o = dot->next; o != end->next; o = o->next) emit_op(P, o);
    P->scratch_at = scratch;
    P->resume = end;
    put_loc(P, dot);   /* the mmas that follow are the dot's again */
}

IrOp *ptx_emit_block(Ptx *P, IrBlock *b) { return emit_block(P, b); }

/* ---- the module ---- */

static const char *param_type(ElemType e) {
    switch (e) {
    case ET_PTR: case ET_I64: case ET_U64: return ".u64";
    case ET_I32: case ET_U32: return ".u32";
    case ET_I16: case ET_U16: return ".u16";
    case ET_F16: case ET_BF16: return ".b16";
    case ET_F32: return ".f32";
    case ET_F64: return ".f64";
    default: return ".u8";    /* i1, i8, u8, fp8 */
    }
}

/* the parameter's name in PTX: a tuple item's dots (shape.0) become '$',
 * which PTX names may hold and Python's may not */
static const char *param_name(Ptx *P, uint32_t i) {
    const char *n = P->fn->params[i].name;
    if (!n) return arena_printf(P->arena, "arg%u", (unsigned)i);
    if (!strchr(n, '.')) return n;
    char *s = arena_strdup(P->arena, n);
    for (char *c = s; *c; c++)
        if (*c == '.') *c = '$';
    return s;
}

static void load_params(Ptx *P) {
    for (uint32_t i = 0; i < P->fn->n_params; i++) {
        IrParam *prm = &P->fn->params[i];
        ElemType e = (ElemType)P->fn->vals[prm->val].type.elem;
        TRIC_ASSERT(P->fn->vals[prm->val].type.rank == 0);
        Reg d = ptx_def(P, NULL, prm->val)[0];
        const char *name = param_name(P, i);
        if (prm->tensormap) {   /* by value: TMA takes its generic address (doc/ptx.md, "TMA") */
            ptx_ins(P, "mov.b64 %R, %s;", d, name);
            ptx_ins(P, "cvta.param.u64 %R, %R;", d, d);
        } else if (e == ET_PTR) {
            Reg t = ptx_reg(P, RC_B64);
            ptx_ins(P, "ld.param.u64 %R, [%s];", t, name);
            ptx_ins(P, "cvta.to.global.u64 %R, %R;", d, t);
        } else if (e == ET_I1) {
            Reg t = ptx_reg(P, RC_B16);
            ptx_ins(P, "ld.param.u8 %R, [%s];", t, name);
            ptx_ins(P, "setp.ne.b16 %R, %R, 0;", d, t);
        } else {
            /* sign-extending i8 into its 16-bit register keeps it normalized */
            ptx_ins(P, "ld.param%s %R, [%s];", e == ET_I8 ? ".s8" : param_type(e), d, name);
        }
    }
}

static int ptx_version(Ptx *P) {
    int v = P->ti->ptx;
    return v > P->version ? v : P->version;
}

/* a path as a PTX string: control characters (a newline would start a
 * line of its own in the PTX) and '"' as octal escapes, which ptxas reads
 * (it refuses a backslash-quote and takes a doubled backslash) */
static void put_quoted(Buf *b, const char *s) {
    buf_putc(b, '"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20 || c == 0x7f || c == '"') {
            buf_printf(b, "\\%03o", c);
            continue;
        }
        if (c == '\\') buf_putc(b, '\\');
        buf_putc(b, (char)c);
    }
    buf_putc(b, '"');
}

static char *assemble(Ptx *P) {
    const Target *t = &P->ctx->target;
    Buf out = {0};
    int v = ptx_version(P);
    buf_printf(&out, "//\n// Generated by tric %s\n//\n", TRIC_VERSION);
    Buf loads = {0};
    ir_load_report(P->fn, &loads, "//   ");
    if (loads.len) buf_printf(&out, "// Global loads:\n%s//\n", loads.data);
    buf_free(&loads);
    buf_putc(&out, '\n');
    buf_printf(&out, ".version %d.%d\n.target sm_%d%s\n.address_size 64\n\n", v / 10, v % 10, t->sm,
               t->arch_a ? "a" : "");
    for (uint32_t i = 0; i < P->n_files; i++) {
        buf_printf(&out, ".file %u ", (unsigned)i + 1);
        put_quoted(&out, P->files[i]->path);
        buf_putc(&out, '\n');
    }
    ptx_debug_decls(P, &out);
    if (P->uses_smem)
        buf_printf(&out, ".extern .shared .align %d .b8 tric_smem[];\n", P->smem_align > 16 ? (int)P->smem_align : 16);
    buf_printf(&out, "\n.visible .entry %s(", P->fn->name);
    for (uint32_t i = 0; i < P->fn->n_params; i++) {
        ElemType e = (ElemType)P->fn->vals[P->fn->params[i].val].type.elem;
        if (P->fn->params[i].tensormap)
            buf_printf(&out, "%s\n\t.param .align 64 .b8 %s[%d]", i ? "," : "", param_name(P, i), TMAP_BYTES);
        else
            buf_printf(&out, "%s\n\t.param %s %s", i ? "," : "", param_type(e), param_name(P, i));
    }
    buf_printf(&out, "%s)\n.maxntid %d, 1, 1\n", P->fn->n_params ? "\n" : "", 32 * t->num_warps);
    if (t->maxnreg) buf_printf(&out, ".maxnreg %d\n", t->maxnreg);
    buf_puts(&out, "{\n");
    for (int c = 0; c < RC_COUNT; c++)
        if (P->n_regs[c]) buf_printf(&out, "\t.reg %s %%%s<%u>;\n", reg_decl[c], reg_prefix[c], P->n_regs[c] + 1);
    buf_putn(&out, P->locals.data ? P->locals.data : "", P->locals.len);
    buf_putc(&out, '\n');
    buf_putn(&out, P->prologue.data ? P->prologue.data : "", P->prologue.len);
    buf_putn(&out, P->body.data ? P->body.data : "", P->body.len);
    buf_puts(&out, "}\n");
    return buf_take(&out);
}

static void check_target(Ctx *c) {
    const Target *t = &c->target;
    if (!target_info(t)->name) {
        Buf names = {.arena = c->arena};
        target_names(&names, ", ");
        diag_fatal(c, NULL, "unsupported target sm_%d%s (supported: %s)", t->sm, t->arch_a ? "a" : "", names.data);
    }
    int w = t->num_warps;
    if (w < 1 || w > 32 || (w & (w - 1)))
        diag_fatal(c, NULL, "num_warps must be a power of two from 1 to 32, not %d", w);
}

static void emit_function(Ptx *P) {
    check_target(P->ctx);
    P->out = &P->prologue;
    load_params(P);
    if (!P->fn->smem_planned)
        diag_fatal(P->ctx, NULL, "cannot emit PTX: shared memory is not allocated (run the smem pass, or --passes all)");
    ptx_smem_buffers_plan(P);
    P->out = &P->body;
    IrOp *term = emit_block(P, P->fn->body);
    TRIC_ASSERT(term == NULL);
    if (!P->fn->body->last || P->fn->body->last->opc != OP_RET) ptx_ins(P, "ret;");
}

char *ptx_emit(IrFunc *fn) {
    Ctx *ctx = fn->ctx;
    Ptx *P = arena_alloc(ctx->arena, sizeof *P);
    P->fn = fn;
    P->ctx = ctx;
    P->arena = ctx->arena;
    P->vregs = arena_alloc(P->arena, sizeof(Reg *) * fn->n_vals);
    P->vn = arena_alloc(P->arena, sizeof(int32_t) * fn->n_vals);
    P->n_lregs = fn->n_layouts ? fn->n_layouts : 1;
    P->lregs = arena_alloc(P->arena, sizeof(LayoutRegs) * P->n_lregs);
    P->ti = target_info(&ctx->target);
    /* A user error unwinds through here so the heap buffers are freed. */
    jmp_buf here;
    jmp_buf *outer = ctx->bail;
    if (setjmp(here)) {
        buf_free(&P->body);
        buf_free(&P->prologue);
        buf_free(&P->globals);
        buf_free(&P->locals);
        ctx->bail = outer;
        if (outer) longjmp(*outer, 1);
        return NULL;
    }
    ctx->bail = &here;
    emit_function(P);
    char *text = assemble(P);
    buf_free(&P->body);
    buf_free(&P->prologue);
    buf_free(&P->globals);
    buf_free(&P->locals);
    ctx->bail = outer;
    return text;
}
