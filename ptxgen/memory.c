/* Global loads and stores, vectorized by attr.vec (the number of leading
 * registers of each group that pass_layout proved consecutive in memory and
 * aligned to the group's size, with one mask value across the group).
 *
 * Widths: 32- and 64-bit elements load straight into their registers
 * (.v2/.v4); smaller elements travel as packed 32-bit words when a group
 * has at least 4 bytes (never .v8.b16, which crashes ptxas), otherwise as
 * single or .v2 sub-word accesses. i1 is a byte in memory.
 */
#include "ptx.h"

/* "{%r1, %r2}" or "%r1" */
static const char *reg_list(Ptx *P, const Reg *r, int n) {
    Buf b = {0};
    if (n > 1) buf_putc(&b, '{');
    for (int i = 0; i < n; i++) {
        if (i) buf_puts(&b, ", ");
        ptx_put_reg(&b, r[i]);
    }
    if (n > 1) buf_putc(&b, '}');
    const char *s = arena_strdup(P->arena, b.data);
    buf_free(&b);
    return s;
}

/* "%rd5", "%rd5+64" or "%rd5+-64" (PTX's spelling): inside the brackets */
static const char *address(Ptx *P, Reg base, int64_t off) {
    const char *b = reg_list(P, &base, 1);
    return off ? arena_printf(P->arena, "%s+%lld", b, (long long)off) : b;
}

/* The address of each vector: register r's pointer, or register 0's plus
 * a constant where the pointer tile is affine (affine.c). */
typedef struct Addresses {
    Reg *ptr;
    int64_t *delta;   /* NULL: each register its own */
} Addresses;

static Addresses addresses(Ptx *P, IrOp *op, ValId ptr, Reg *regs, int n) {
    Addresses a = {regs, arena_alloc(P->arena, sizeof(int64_t) * (size_t)n)};
    if (P->fn->vals[ptr].type.rank == 0 || !ptx_affine_deltas(P, op, ptr, a.delta, n)) a.delta = NULL;
    return a;
}

static Reg addr_base(const Addresses *a, int r) { return a->delta ? a->ptr[0] : a->ptr[r]; }
static int64_t addr_off(const Addresses *a, int r) { return a->delta ? a->delta[r] : 0; }

static const char *vec_sfx(int n) { return n == 4 ? ".v4" : n == 2 ? ".v2" : ""; }

/* The instruction's name ("ld.global.cg", "st.global.L1::evict_first.L2::cache_hint",
 * "ld.volatile.global") and the text after its operands (", %rd3": the L2
 * cache policy, or ""). An eviction policy sets both the L1 priority (unless
 * a cache operator is given: PTX allows one or the other, and the operator
 * is the stronger request) and the L2 priority, through a policy register. */
typedef struct MemOp {
    const char *name, *policy;
} MemOp;

static MemOp mem_op(Ptx *P, IrOp *op, bool is_load) {
    int64_t cm = op->attr.i, ev = op->attr.i2;
    if (cm < CACHE_NONE || cm > CACHE_WT || ev < EVICT_NONE || ev > EVICT_LAST)
        diag_error(P->ctx, op->loc, "invalid cache modifier or eviction policy");
    bool ok = is_load ? cm != CACHE_WB && cm != CACHE_WT : cm != CACHE_CA && cm != CACHE_CV;
    if (!ok)
        diag_error(P->ctx, op->loc, "cache modifier '%s' is not valid for a %s", cache_mod_names[cm],
                   is_load ? "load" : "store");
    if (is_load && (op->attr.flags & LOADF_VOLATILE)) return (MemOp){"ld.volatile.global", ""};
    const char *l1 = "", *l2 = "", *policy = "";
    if (ev != EVICT_NONE) {
        if (P->version < 74) P->version = 74;
        if (cm == CACHE_NONE) l1 = ev == EVICT_FIRST ? ".L1::evict_first" : ".L1::evict_last";
        l2 = ".L2::cache_hint";
        Reg pol = ptx_l2_policy(P, ev == EVICT_LAST);
        policy = arena_printf(P->arena, ", %s", reg_list(P, &pol, 1));
    }
    return (MemOp){arena_printf(P->arena, "%s.global%s%s%s", is_load ? "ld" : "st", cache_mod_names[cm], l1, l2),
                   policy};
}

static int vector_width(IrOp *op, int n, int bytes, bool scalar) {
    int vec = op->attr.vec > 0 ? op->attr.vec : 1;
    if (scalar) vec = 1;
    TRIC_ASSERT((vec & (vec - 1)) == 0 && n % vec == 0);
    while (vec * bytes > 16) vec /= 2;   /* an aligned wider run is also 16-byte aligned */
    return vec;
}

/* ---- loads ---- */

typedef struct LoadGroup {
    ElemType e;
    MemOp op;
    Reg addr, pred;
    int64_t off;       /* bytes past addr */
    Reg *dst;          /* vec registers of the result */
    const Reg *other;  /* vec registers of `other`, or NULL */
    int vec;
    bool other_const;  /* `other` is a constant: its bits are other_bits */
    uint64_t other_bits;
} LoadGroup;

static Reg zero_of(Ptx *P, RegClass c) { return ptx_const_reg(P, c, 0); }

/* 32- and 64-bit elements: the destination registers are the vector. */
static void load_wide(Ptx *P, LoadGroup *g) {
    int bits = elem_bits(g->e);
    if (g->pred)
        for (int j = 0; j < g->vec; j++)
            ptx_mov(P, g->dst[j], g->other ? g->other[j] : zero_of(P, REG_CLASS(g->dst[j])));
    ptx_ins(P, "%s%s%s.b%d %s, [%s]%s;", ptx_guard(P, g->pred), g->op.name, vec_sfx(g->vec), bits,
            reg_list(P, g->dst, g->vec), address(P, g->addr, g->off), g->op.policy);
}

/* After a packed or sub-word load: masked-off elements take `other`. */
static void load_fill_other(Ptx *P, LoadGroup *g) {
    if (!g->pred || !g->other || g->other_const) return;
    for (int j = 0; j < g->vec; j++) {
        const char *mov = REG_CLASS(g->dst[j]) == RC_PRED ? "mov.pred" : "mov.b16";
        ptx_ins(P, "@!%R %s %R, %R;", g->pred, mov, g->dst[j], g->other[j]);
    }
}

static void unpack_byte(Ptx *P, ElemType e, Reg d, Reg word, int byte) {
    Reg t = ptx_reg(P, RC_B32);
    ptx_ins(P, "bfe.%s32 %R, %R, %d, 8;", e == ET_I8 ? "s" : "u", t, word, 8 * byte);
    if (e == ET_I1) ptx_ins(P, "setp.ne.b32 %R, %R, 0;", d, t);
    else ptx_ins(P, "cvt.u16.u32 %R, %R;", d, t);   /* bfe extended it already */
}

/* 8- and 16-bit elements, at least 4 bytes: packed words, then unpacked.
 * A constant `other` is packed into the words the load leaves alone where
 * masked off, so no per-element fill follows. */
static void load_packed(Ptx *P, LoadGroup *g) {
    int bytes = elem_bytes(g->e), nw = g->vec * bytes / 4;
    uint32_t fill = 0;
    if (g->other_const)
        fill = bytes == 2 ? (uint32_t)(g->other_bits & 0xFFFF) * 0x00010001u
                          : (uint32_t)(g->other_bits & 0xFF) * 0x01010101u;
    Reg w[4];
    for (int k = 0; k < nw; k++) {
        w[k] = ptx_reg(P, RC_B32);
        if (g->pred) ptx_ins(P, "mov.b32 %R, %x;", w[k], fill);
    }
    ptx_ins(P, "%s%s%s.b32 %s, [%s]%s;", ptx_guard(P, g->pred), g->op.name, vec_sfx(nw), reg_list(P, w, nw),
            address(P, g->addr, g->off), g->op.policy);
    for (int k = 0; k < nw; k++) {
        if (bytes == 2) ptx_ins(P, "mov.b32 {%R, %R}, %R;", g->dst[2 * k], g->dst[2 * k + 1], w[k]);
        else
            for (int j = 0; j < 4; j++) unpack_byte(P, g->e, g->dst[4 * k + j], w[k], j);
    }
    load_fill_other(P, g);
}

/* Under 4 bytes: one or two 8-bit, or one 16-bit, element(s). */
static void load_small(Ptx *P, LoadGroup *g) {
    bool is_bool = g->e == ET_I1;
    Reg t[2];
    for (int j = 0; j < g->vec; j++) {
        t[j] = is_bool ? ptx_reg(P, RC_B16) : g->dst[j];
        if (!g->pred) continue;
        /* what masked-off lanes keep: `other` itself, a bool's constant as
         * the byte it would load (load_fill_other skips constants), else 0 */
        Reg fill = !g->other ? zero_of(P, RC_B16)
                   : !is_bool ? g->other[j]
                   : g->other_const ? ptx_const_reg(P, RC_B16, (uint32_t)(g->other_bits & 1))
                   : zero_of(P, RC_B16);
        ptx_mov(P, t[j], fill);
    }
    const char *ty = elem_bytes(g->e) == 2 ? "b16" : g->e == ET_I8 ? "s8" : "u8";
    ptx_ins(P, "%s%s%s.%s %s, [%s]%s;", ptx_guard(P, g->pred), g->op.name, vec_sfx(g->vec), ty, reg_list(P, t, g->vec),
            address(P, g->addr, g->off), g->op.policy);
    if (!is_bool) return;
    for (int j = 0; j < g->vec; j++) ptx_ins(P, "setp.ne.b16 %R, %R, 0;", g->dst[j], t[j]);
    load_fill_other(P, g);
}

void ptx_load(Ptx *P, IrOp *op) {
    IrFunc *fn = P->fn;
    uint32_t n_mem = ir_load_n_mem(op);   /* a tma load not moved by TMA: its tensor map goes unused */
    TRIC_ASSERT(n_mem >= 1 && n_mem <= 3);
    ValId res = op->results[0];
    ElemType e = (ElemType)fn->vals[res].type.elem;
    int n;
    Reg *ptr = ptx_regs(P, op->operands[0], &n);
    Addresses at = addresses(P, op, op->operands[0], ptr, n);
    Reg *mask = n_mem > 1 ? ptx_regs(P, op->operands[1], NULL) : NULL;
    Reg *other = n_mem > 2 ? ptx_regs(P, op->operands[2], NULL) : NULL;
    IrOp *other_def = other ? fn->vals[op->operands[2]].def : NULL;
    Reg *dst = ptx_def(P, op, res);
    TRIC_ASSERT(n == ptx_value_nregs(P, op, res));
    int bytes = elem_bytes(e);
    int vec = vector_width(op, n, bytes, fn->vals[res].type.rank == 0);
    MemOp mop = mem_op(P, op, true);
    for (int r = 0; r < n; r += vec) {
        LoadGroup g = {e, mop, addr_base(&at, r), mask ? mask[r] : REG_NONE, addr_off(&at, r), dst + r,
                       other ? other + r : NULL, vec,
                       other_def && other_def->opc == OP_CONST, 0};
        if (g.other_const) g.other_bits = ptx_const_bits(P, other_def, e);
        if (bytes >= 4) load_wide(P, &g);
        else if (vec * bytes >= 4) load_packed(P, &g);
        else load_small(P, &g);
    }
}

/* ---- stores ---- */

/* One 32-bit register per byte-sized element, low byte significant. */
static Reg byte_word(Ptx *P, ElemType e, Reg v) {
    Reg t = ptx_reg(P, RC_B32);
    if (e == ET_I1) ptx_ins(P, "selp.b32 %R, 1, 0, %R;", t, v);
    else ptx_ins(P, "cvt.u32.u16 %R, %R;", t, v);
    return t;
}

static Reg pack_word(Ptx *P, ElemType e, const Reg *v) {
    Reg w = ptx_reg(P, RC_B32);
    if (elem_bytes(e) == 2) {
        ptx_ins(P, "mov.b32 %R, {%R, %R};", w, v[0], v[1]);   /* first = low half */
        return w;
    }
    Reg b[4];
    for (int j = 0; j < 4; j++) b[j] = byte_word(P, e, v[j]);
    Reg lo = ptx_reg(P, RC_B32), hi = ptx_reg(P, RC_B32);
    ptx_ins(P, "prmt.b32 %R, %R, %R, 0x0040;", lo, b[0], b[1]);   /* bytes a0, b0 */
    ptx_ins(P, "prmt.b32 %R, %R, %R, 0x0040;", hi, b[2], b[3]);
    ptx_ins(P, "prmt.b32 %R, %R, %R, 0x5410;", w, lo, hi);
    return w;
}

static void store_group(Ptx *P, MemOp op, ElemType e, Reg addr, int64_t off, Reg pred, const Reg *v, int vec) {
    int bytes = elem_bytes(e);
    const char *a = address(P, addr, off);
    if (bytes >= 4) {
        ptx_ins(P, "%s%s%s.b%d [%s], %s%s;", ptx_guard(P, pred), op.name, vec_sfx(vec), 8 * bytes, a,
                reg_list(P, v, vec), op.policy);
    } else if (vec * bytes >= 4) {
        int nw = vec * bytes / 4, per = 4 / bytes;
        Reg w[4];
        for (int k = 0; k < nw; k++) w[k] = pack_word(P, e, v + k * per);
        ptx_ins(P, "%s%s%s.b32 [%s], %s%s;", ptx_guard(P, pred), op.name, vec_sfx(nw), a, reg_list(P, w, nw),
                op.policy);
    } else {
        Reg t[2];
        for (int j = 0; j < vec; j++) {
            t[j] = v[j];
            if (e == ET_I1) {
                t[j] = ptx_reg(P, RC_B16);
                ptx_ins(P, "selp.u16 %R, 1, 0, %R;", t[j], v[j]);
            }
        }
        ptx_ins(P, "%s%s%s.%s [%s], %s%s;", ptx_guard(P, pred), op.name, vec_sfx(vec), bytes == 2 ? "b16" : "u8", a,
                reg_list(P, t, vec), op.policy);
    }
}

/* Only the canonical holder of each element stores it (a replicated layout
 * has several), and a scalar store is done once per program. */
void ptx_store(Ptx *P, IrOp *op) {
    IrFunc *fn = P->fn;
    TRIC_ASSERT(op->n_operands == 2 || op->n_operands == 3);
    ValId val = op->operands[1];
    ElemType e = (ElemType)fn->vals[val].type.elem;
    int n, nv;
    Reg *ptr = ptx_regs(P, op->operands[0], &n);
    Addresses at = addresses(P, op, op->operands[0], ptr, n);
    Reg *v = ptx_regs(P, val, &nv);
    Reg *mask = op->n_operands > 2 ? ptx_regs(P, op->operands[2], NULL) : NULL;
    TRIC_ASSERT(n == nv);
    bool scalar = fn->vals[val].type.rank == 0;
    uint32_t dup_regs = 0;
    Reg owner = scalar ? ptx_tid0(P) : ptx_layout_owner(P, ptx_layout_index(P, op, val), &dup_regs);
    int vec = vector_width(op, n, elem_bytes(e), scalar);
    MemOp mop = mem_op(P, op, false);
    for (int r = 0; r < n; r += vec) {
        if ((uint32_t)r & dup_regs) continue;
        Reg pred = mask ? mask[r] : owner;
        if (mask && owner) {
            pred = ptx_reg(P, RC_PRED);
            ptx_ins(P, "and.pred %R, %R, %R;", pred, mask[r], owner);
        }
        store_group(P, mop, e, addr_base(&at, r), addr_off(&at, r), pred, v + r, vec);
    }
}
