/* reduce: combine a tile's elements along one axis with the op's combine
 * function (its region, emitted inline on registers for every combination).
 *
 * The order is the IR's (doc/ir.md, "reduce"), which is Triton's:
 *  1. in each thread, the registers of one result element folded left to
 *     right in register order: acc = combine(acc, next);
 *  2. across lanes, shfl.sync.bfly for each lane level, from the highest
 *     lane bit down: both partners then compute combine(lower lane's
 *     value, upper lane's value) and agree (when the combine is one
 *     commutative op on its two arguments the swap is skipped:
 *     combine(b, a) is then combine(a, b) bit for bit);
 *  3. across warps, through shared memory: every warp writes its partial at
 *     (result element, warp index along the axis), one barrier, then either
 *     every thread reads all W partials of its result elements (contiguous,
 *     so vector loads) and combines them as a tree over the warp levels,
 *     highest first, or lane i reads partial i and the warp levels are done
 *     as butterflies like step 2, highest first (use_warp_shuffles picks
 *     one).
 *
 * Shared memory: pass smem (opt/smem.c) places the arrays of partials of
 * the reductions that need step 3 (two areas they take turns in) and says
 * when one must wait for the earlier readers of its area first.
 */
#include "ptx.h"

#include <string.h>

typedef struct ReduceShape {
    const Layout *lx;   /* the operands' layout */
    int32_t lr;         /* the results' layout index, -1 for scalars */
    int m;              /* levels */
    int32_t steps[3 * LL_MAX_BITS];
    int kinds[3 * LL_MAX_BITS], bits[3 * LL_MAX_BITS];
    int n_warp_levels;
    int64_t n_results;  /* elements of one result (1 for a scalar) */
} ReduceShape;

static ReduceShape reduce_shape(Ptx *P, IrOp *op) {
    ReduceShape s;
    memset(&s, 0, sizeof s);
    ValId x = op->operands[0], r = op->results[0];
    s.lx = &P->fn->layouts[ptx_layout_index(P, op, x)];
    IrType t = P->fn->vals[x].type;
    int axis = (int)op->attr.i;
    s.m = layout_reduce_levels(s.lx, axis, t.shape[axis], s.steps, s.kinds, s.bits);
    if (s.m < 0)
        diag_error(P->ctx, op->loc, "reduce: the operand's layout mixes the reduced dim with others (not supported)");
    for (int i = 0; i < s.m; i++) s.n_warp_levels += s.kinds[i] == LL_WARP;
    s.lr = P->fn->vals[r].type.rank ? ptx_layout_index(P, op, r) : -1;
    s.n_results = ir_numel(P->fn->vals[r].type);
    return s;
}

bool ptx_reduce_slot(Ptx *P, IrOp *op, int32_t *offset, bool *bar_before) {
    (void)P;
    if (!op->attr.smem.set) return false;
    *offset = op->attr.smem.off;
    *bar_before = op->attr.smem.sync;
    return true;
}

/* ---- the combine function, inline ---- */

void ptx_forget_block(Ptx *P, IrBlock *b) {
    for (uint32_t i = 0; i < b->n_args; i++) P->vn[b->args[i]] = 0;
    for (IrOp *op = b->first; op; op = op->next) {
        for (uint32_t i = 0; i < op->n_results; i++) P->vn[op->results[i]] = 0;
        for (uint32_t r = 0; r < op->n_regions; r++) ptx_forget_block(P, op->regions[r]);
    }
}

void ptx_bind(Ptx *P, ValId v, Reg r) {
    Reg *one = arena_alloc(P->arena, sizeof(Reg));
    *one = r;
    P->vn[v] = 0;
    ptx_alias(P, v, one, 1);
}

/* out[k] = combine(a..., b...)[k]: the region's ops on these registers;
 * its values are forgotten afterwards so the next combination defines
 * them again */
void ptx_combine(Ptx *P, IrOp *op, const Reg *a, const Reg *b, Reg *out) {
    IrBlock *blk = op->regions[0];
    uint32_t n = op->n_operands;
    for (uint32_t k = 0; k < n; k++) {
        ptx_bind(P, blk->args[k], a[k]);
        ptx_bind(P, blk->args[n + k], b[k]);
    }
    IrOp *term = ptx_emit_block(P, blk);
    TRIC_ASSERT(term && term->opc == OP_YIELD && term->n_operands == n);
    for (uint32_t k = 0; k < n; k++) out[k] = ptx_regs(P, term->operands[k], NULL)[0];
    ptx_forget_block(P, blk);
}

/* One op, commutative, on the two arguments, yielded: combine(b, a) is
 * combine(a, b), so butterfly partners need not agree on the order. */
static bool commutative_combine(IrOp *op) {
    IrBlock *b = op->regions[0];
    IrOp *f = b->first;
    if (op->n_operands != 1 || !f || !f->next || f->next->opc != OP_YIELD) return false;
    if (!(ir_info(f->opc)->flags & F_COMMUTES) || f->n_operands != 2 || f->n_results != 1) return false;
    bool args = (f->operands[0] == b->args[0] && f->operands[1] == b->args[1]) ||
                (f->operands[0] == b->args[1] && f->operands[1] == b->args[0]);
    return args && f->next->n_operands == 1 && f->next->operands[0] == f->results[0];
}

/* ---- lanes ---- */

static Reg lane_bit_pred(Ptx *P, int bit) {
    if (P->lane_bit[bit]) return P->lane_bit[bit];
    ptx_tid(P);
    Buf *saved = P->out;
    int n_insts = P->n_insts;
    P->out = &P->prologue;
    Reg t = ptx_reg(P, RC_B32), p = ptx_reg(P, RC_PRED);
    ptx_ins(P, "and.b32 %R, %R, %d;", t, P->lane, 1 << bit);
    ptx_ins(P, "setp.ne.u32 %R, %R, 0;", p, t);
    P->out = saved;
    P->n_insts = n_insts;
    P->lane_bit[bit] = p;
    return p;
}

/* Another lane's copy of register a: shfl.sync.MODE with lane operand b
 * and clamp (bfly b = the lane mask, 31: the partner lane ^ mask). */
Reg ptx_shuffle(Ptx *P, Reg a, const char *mode, int b, int clamp) {
    RegClass c = REG_CLASS(a);
    Reg d = ptx_reg(P, c);
    if (c == RC_B32 || c == RC_F32) {
        ptx_ins(P, "shfl.sync.%s.b32 %R, %R, %d, %d, -1;", mode, d, a, b, clamp);
    } else if (c == RC_B64 || c == RC_F64) {
        Reg lo = ptx_reg(P, RC_B32), hi = ptx_reg(P, RC_B32), lo2 = ptx_reg(P, RC_B32), hi2 = ptx_reg(P, RC_B32);
        ptx_ins(P, "mov.b64 {%R, %R}, %R;", lo, hi, a);
        ptx_ins(P, "shfl.sync.%s.b32 %R, %R, %d, %d, -1;", mode, lo2, lo, b, clamp);
        ptx_ins(P, "shfl.sync.%s.b32 %R, %R, %d, %d, -1;", mode, hi2, hi, b, clamp);
        ptx_ins(P, "mov.b64 %R, {%R, %R};", d, lo2, hi2);
    } else {
        Reg w = ptx_reg(P, RC_B32), w2 = ptx_reg(P, RC_B32);
        if (c == RC_PRED) ptx_ins(P, "selp.u32 %R, 1, 0, %R;", w, a);
        else ptx_ins(P, "cvt.u32.u16 %R, %R;", w, a);
        ptx_ins(P, "shfl.sync.%s.b32 %R, %R, %d, %d, -1;", mode, w2, w, b, clamp);
        if (c == RC_PRED) ptx_ins(P, "setp.ne.u32 %R, %R, 0;", d, w2);
        else ptx_ins(P, "cvt.u16.u32 %R, %R;", d, w2);
    }
    return d;
}

/* d = p ? a : b for any register class */
Reg ptx_select_reg(Ptx *P, Reg p, Reg a, Reg b) {
    static const char *const ty[RC_COUNT] = {"", "b16", "b32", "f32", "b64", "f64"};
    RegClass c = REG_CLASS(a);
    Reg d = ptx_reg(P, c);
    if (c != RC_PRED) {
        ptx_ins(P, "selp.%s %R, %R, %R, %R;", ty[c], d, a, b, p);
        return d;
    }
    Reg t = ptx_reg(P, RC_PRED), u = ptx_reg(P, RC_PRED), np = ptx_reg(P, RC_PRED);
    ptx_ins(P, "and.pred %R, %R, %R;", t, p, a);
    ptx_ins(P, "not.pred %R, %R;", np, p);
    ptx_ins(P, "and.pred %R, %R, %R;", u, np, b);
    ptx_ins(P, "or.pred %R, %R, %R;", d, t, u);
    return d;
}

/* ---- shared memory ---- */

static const char *st_type(int bytes) { return bytes == 2 ? "b16" : bytes == 8 ? "b64" : "b32"; }

/* "[%r5+64]" */
const char *ptx_smem_addr(Ptx *P, Reg base, int64_t off) {
    Buf b = {0};
    buf_putc(&b, '[');
    ptx_put_reg(&b, base);
    if (off) buf_printf(&b, "+%lld", (long long)off);
    buf_putc(&b, ']');
    const char *s = arena_strdup(P->arena, b.data);
    buf_free(&b);
    return s;
}

static void store_partial(Ptx *P, Reg v, int bytes, const char *where) {
    if (REG_CLASS(v) == RC_PRED) {
        Reg w = ptx_reg(P, RC_B32);
        ptx_ins(P, "selp.u32 %R, 1, 0, %R;", w, v);
        v = w;
    }
    ptx_ins(P, "st.shared.%s %s, %R;", st_type(bytes), where, v);
}

/* vals[0..n) = the n partials at `base + off` (a row of W values) */
void ptx_load_partials(Ptx *P, RegClass c, int bytes, Reg base, int64_t off, Reg *vals, int n) {
    RegClass lc = c == RC_PRED ? RC_B32 : c;
    int vec = 16 / bytes < 4 ? 16 / bytes : 4;
    if (vec > n) vec = n;
    for (int i = 0; i < n; i += vec) {
        Buf regs = {0};
        for (int j = 0; j < vec; j++) {
            vals[i + j] = ptx_reg(P, lc);
            buf_puts(&regs, j ? ", " : "");
            ptx_put_reg(&regs, vals[i + j]);
        }
        if (vec > 1) ptx_ins(P, "ld.shared.v%d.%s {%s}, %s;", vec, st_type(bytes), regs.data, ptx_smem_addr(P, base, off + i * bytes));
        else ptx_ins(P, "ld.shared.%s %s, %s;", st_type(bytes), regs.data, ptx_smem_addr(P, base, off + i * bytes));
        buf_free(&regs);
    }
    if (c != RC_PRED) return;
    for (int i = 0; i < n; i++) {
        Reg p = ptx_reg(P, RC_PRED);
        ptx_ins(P, "setp.ne.u32 %R, %R, 0;", p, vals[i]);
        vals[i] = p;
    }
}

/* The warp's index along the axis: warp id bit bits[t] becomes bit t. When
 * those bits are consecutive (the common case: the axis's warp bits come
 * first or last, ascending) the index is one field of %warp, or %warp itself
 * when they are all its bits; otherwise it is gathered bit by bit. */
static Reg warp_index(Ptx *P, const ReduceShape *s) {
    ptx_tid(P);
    int first = -1, len = 0;
    bool runs = true;
    for (int t = 0; t < s->m; t++) {
        if (s->kinds[t] != LL_WARP) continue;
        if (first < 0) first = s->bits[t];
        runs = runs && s->bits[t] == first + len;
        len++;
    }
    TRIC_ASSERT(len > 0);
    if (runs) {
        if (first == 0 && (1 << len) >= P->ctx->target.num_warps) return P->warp;
        Reg x = ptx_reg(P, RC_B32);
        if (first == 0) ptx_ins(P, "and.b32 %R, %R, %d;", x, P->warp, (1 << len) - 1);
        else ptx_ins(P, "bfe.u32 %R, %R, %d, %d;", x, P->warp, first, len);
        return x;
    }
    Reg w = REG_NONE;
    int lv = 0;
    for (int t = 0; t < s->m; t++) {
        if (s->kinds[t] != LL_WARP) continue;
        Reg x = ptx_reg(P, RC_B32), y = ptx_reg(P, RC_B32);
        ptx_ins(P, "bfe.u32 %R, %R, %d, 1;", x, P->warp, s->bits[t]);
        if (lv) ptx_ins(P, "shl.b32 %R, %R, %d;", y, x, lv);
        else y = x;
        if (w) {
            Reg z = ptx_reg(P, RC_B32);
            ptx_ins(P, "or.b32 %R, %R, %R;", z, w, y);
            y = z;
        }
        w = y;
        lv++;
    }
    return w;
}

/* ---- the op ---- */

/* For each result register, the operand register (with no axis bits) that
 * holds the same coordinates once the axis is dropped. */
static int *result_sources(Ptx *P, IrOp *op, const ReduceShape *s, uint32_t axis_mask, int n_res) {
    int *src = arena_alloc(P->arena, sizeof(int) * (size_t)n_res);
    int axis = (int)op->attr.i, nregs = layout_n_regs(s->lx);
    for (int q = 0; q < n_res; q++) {
        int32_t want[IR_MAX_RANK] = {0}, c[IR_MAX_RANK];
        if (s->lr >= 0) layout_coord(&P->fn->layouts[s->lr], q, 0, 0, want);
        src[q] = -1;
        for (int r = 0; r < nregs && src[q] < 0; r++) {
            if ((uint32_t)r & axis_mask) continue;
            layout_coord(s->lx, r, 0, 0, c);
            bool same = true;
            for (int d = 0, o = 0; d < s->lx->rank; d++) {
                if (d == axis) continue;
                same = same && c[d] == want[o++];
            }
            if (same) src[q] = r;
        }
        TRIC_ASSERT(src[q] >= 0);
    }
    return src;
}

/* acc[k][r] combined with acc[k][r2], into acc[k][r] */
static void combine_regs(Ptx *P, IrOp *op, Reg **acc, int r, int r2) {
    uint32_t n = op->n_operands;
    Reg *a = arena_alloc(P->arena, sizeof(Reg) * n * 3), *b = a + n, *out = b + n;
    for (uint32_t k = 0; k < n; k++) {
        a[k] = acc[k][r];
        b[k] = acc[k][r2];
    }
    ptx_combine(P, op, a, b, out);
    for (uint32_t k = 0; k < n; k++) acc[k][r] = out[k];
}

static void lane_level(Ptx *P, IrOp *op, Reg **acc, const int *src, int n_res, int bit) {
    uint32_t n = op->n_operands;
    bool swap_free = commutative_combine(op);
    Reg p = swap_free ? REG_NONE : lane_bit_pred(P, bit);
    Reg *other = arena_alloc(P->arena, sizeof(Reg) * n * (size_t)n_res);
    for (int q = 0; q < n_res; q++)   /* all shuffles first: they overlap */
        for (uint32_t k = 0; k < n; k++) other[q * n + k] = ptx_shuffle(P, acc[k][src[q]], "bfly", 1 << bit, 31);
    Reg *a = arena_alloc(P->arena, sizeof(Reg) * n * 3), *b = a + n, *out = b + n;
    for (int q = 0; q < n_res; q++) {
        for (uint32_t k = 0; k < n; k++) {
            Reg mine = acc[k][src[q]], theirs = other[q * n + k];
            a[k] = swap_free ? mine : ptx_select_reg(P, p, theirs, mine);
            b[k] = swap_free ? theirs : ptx_select_reg(P, p, mine, theirs);
        }
        ptx_combine(P, op, a, b, out);
        for (uint32_t k = 0; k < n; k++) acc[k][src[q]] = out[k];
    }
}

/* The cross-warp strategy, one rule: with W partials per result element
 * (W = 2^warp levels),
 *  - tree: every thread loads all W partials of its result elements (W/4
 *    vector loads each) and combines them level by level, W - 1 combines;
 *  - shuffle: lane i loads partial i mod W (one scalar load), then log2 W
 *    butterflies over lane bits log2 W - 1 .. 0 combine them in the same
 *    order, and every lane ends with the total (both partners compute
 *    combine(lower, upper), as in step 2). Lanes >= W repeat lanes < W.
 *    It needs every lane of a warp to want the same result elements: the
 *    results' layout must not depend on the lane.
 * Both read what the warps wrote after the one barrier, so the buffers and
 * barriers (plan_block) are the same. The shuffle strategy issues fewer
 * instructions once W >= 8 (W = 16: 1 load + 4 shuffles + 4 combines
 * against 4 loads + 15 combines per result element), and measured faster
 * on the H100 for the fused softmax at 16 warps.
 * To build the tree-only variant (for a GPU comparison), set
 * RED_SHUFFLE_MIN_PARTIALS to 64 (no W reaches it). */
enum { RED_SHUFFLE_MIN_PARTIALS = 8 };

static bool use_warp_shuffles(Ptx *P, const ReduceShape *s) {
    int W = 1 << s->n_warp_levels;
    if (W < RED_SHUFFLE_MIN_PARTIALS || W > 32) return false;
    if (s->lr < 0) return true;
    const Layout *lr = &P->fn->layouts[s->lr];
    for (int k = 0; k < lr->n_bits[LL_LANE]; k++)
        for (int d = 0; d < lr->rank; d++)
            if (lr->basis[LL_LANE][k][d]) return false;
    return true;
}

/* tree strategy: all W partials of each result element, combined in turn */
static void read_tree(Ptx *P, IrOp *op, const ReduceShape *s, Reg **acc, const int *src, int n_res,
                      const Reg *row, const int32_t *off) {
    uint32_t n = op->n_operands;
    int W = 1 << s->n_warp_levels;
    const Layout *lr = s->lr >= 0 ? &P->fn->layouts[s->lr] : NULL;
    Reg *part = arena_alloc(P->arena, sizeof(Reg) * n * (size_t)W);
    Reg **parts = arena_alloc(P->arena, sizeof(Reg *) * n);
    for (uint32_t k = 0; k < n; k++) parts[k] = part + k * (size_t)W;
    for (int q = 0; q < n_res; q++) {
        int32_t f = lr ? layout_reg_flat(lr, q) : 0;
        for (uint32_t k = 0; k < n; k++) {
            int bytes = smem_elem_bytes((ElemType)P->fn->vals[op->operands[k]].type.elem);
            RegClass c = REG_CLASS(acc[k][src[q]]);
            ptx_load_partials(P, c, bytes, row[k], off[k] + (int64_t)f * W * bytes, parts[k], W);
        }
        for (int lv = s->n_warp_levels - 1; lv >= 0; lv--)
            for (int i = 0; i < 1 << lv; i++) combine_regs(P, op, parts, i, i + (1 << lv));
        for (uint32_t k = 0; k < n; k++) acc[k][src[q]] = parts[k][0];
    }
}

/* shuffle strategy: lane i takes partial i mod W of each result element,
 * then the warp levels become lane levels 0..log2 W - 1 */
static void read_shuffle(Ptx *P, IrOp *op, const ReduceShape *s, Reg **acc, const int *src, int n_res,
                         const Reg *row, const int32_t *off) {
    uint32_t n = op->n_operands;
    int W = 1 << s->n_warp_levels;
    const Layout *lr = s->lr >= 0 ? &P->fn->layouts[s->lr] : NULL;
    Reg i = P->lane;
    if (W < 32) {
        i = ptx_reg(P, RC_B32);
        ptx_ins(P, "and.b32 %R, %R, %d;", i, P->lane, W - 1);
    }
    Reg *mine = arena_alloc(P->arena, sizeof(Reg) * n);
    for (uint32_t k = 0; k < n; k++) {
        mine[k] = ptx_reg(P, RC_B32);
        ptx_ins(P, "mad.lo.u32 %R, %R, %d, %R;", mine[k], i, smem_elem_bytes((ElemType)P->fn->vals[op->operands[k]].type.elem), row[k]);
    }
    for (int q = 0; q < n_res; q++) {   /* all loads first: they overlap */
        int32_t f = lr ? layout_reg_flat(lr, q) : 0;
        for (uint32_t k = 0; k < n; k++) {
            int bytes = smem_elem_bytes((ElemType)P->fn->vals[op->operands[k]].type.elem);
            RegClass c = REG_CLASS(acc[k][src[q]]);
            ptx_load_partials(P, c, bytes, mine[k], off[k] + (int64_t)f * W * bytes, &acc[k][src[q]], 1);
        }
    }
    for (int lv = s->n_warp_levels - 1; lv >= 0; lv--) lane_level(P, op, acc, src, n_res, lv);
}

static void warp_levels(Ptx *P, IrOp *op, const ReduceShape *s, Reg **acc, const int *src, int n_res) {
    int32_t at;
    bool bar_before;
    TRIC_ASSERT(ptx_reduce_slot(P, op, &at, &bar_before));   /* the verifier checks it */
    uint32_t n = op->n_operands;
    int W = 1 << s->n_warp_levels;
    const Layout *lr = s->lr >= 0 ? &P->fn->layouts[s->lr] : NULL;
    int32_t support = lr ? layout_thread_support(lr) : 0;
    Reg smem = ptx_smem_base(P), fth = lr && support ? ptx_layout_flat(P, s->lr) : REG_NONE;
    /* row = smem + (f * W) * bytes with f the thread's result element; the
     * write slot adds w */
    Reg w = warp_index(P, s);
    int32_t *off = arena_alloc(P->arena, sizeof(int32_t) * n);
    for (uint32_t k = 0, o = (uint32_t)at; k < n; k++) {
        off[k] = (int32_t)o;
        o += (uint32_t)smem_reduce_bytes(P->fn, op, k);
    }
    Reg *row = arena_alloc(P->arena, sizeof(Reg) * n), *slot = arena_alloc(P->arena, sizeof(Reg) * n);
    for (uint32_t k = 0; k < n; k++) {
        int bytes = smem_elem_bytes((ElemType)P->fn->vals[op->operands[k]].type.elem);
        row[k] = smem;
        if (fth) {
            row[k] = ptx_reg(P, RC_B32);
            ptx_ins(P, "mad.lo.u32 %R, %R, %d, %R;", row[k], fth, W * bytes, smem);
        }
        slot[k] = ptx_reg(P, RC_B32);
        ptx_ins(P, "mad.lo.u32 %R, %R, %d, %R;", slot[k], w, bytes, row[k]);
    }
    if (bar_before) ptx_ins(P, "bar.sync 0;");
    /* registers whose result element's index bits meet the thread's need
     * their own address */
    for (int q = 0; q < n_res; q++) {
        int32_t f = lr ? layout_reg_flat(lr, q) : 0;
        TRIC_ASSERT(!(f & support));
        for (uint32_t k = 0; k < n; k++) {
            int bytes = smem_elem_bytes((ElemType)P->fn->vals[op->operands[k]].type.elem);
            store_partial(P, acc[k][src[q]], bytes, ptx_smem_addr(P, slot[k], off[k] + (int64_t)f * W * bytes));
        }
    }
    ptx_ins(P, "bar.sync 0;");
    if (use_warp_shuffles(P, s)) read_shuffle(P, op, s, acc, src, n_res, row, off);
    else read_tree(P, op, s, acc, src, n_res, row, off);
}

/* A private copy of each operand's nregs registers, for a reduce or scan to
 * combine in place (the operands keep theirs). */
Reg **ptx_operand_copies(Ptx *P, IrOp *op, int nregs) {
    Reg **acc = arena_alloc(P->arena, sizeof(Reg *) * op->n_operands);
    for (uint32_t k = 0; k < op->n_operands; k++) {
        int m;
        Reg *in = ptx_regs(P, op->operands[k], &m);
        TRIC_ASSERT(m == nregs);
        acc[k] = arena_alloc(P->arena, sizeof(Reg) * (size_t)nregs);
        memcpy(acc[k], in, sizeof(Reg) * (size_t)nregs);
    }
    return acc;
}

void ptx_reduce(Ptx *P, IrOp *op) {
    ReduceShape s = reduce_shape(P, op);
    uint32_t n = op->n_operands;
    int nregs = layout_n_regs(s.lx);
    Reg **acc = ptx_operand_copies(P, op, nregs);
    uint32_t axis_mask = 0;
    for (int t = 0; t < s.m; t++)
        if (s.kinds[t] == LL_REG) axis_mask |= 1u << s.bits[t];
    /* 1. registers: each register without axis bits folds in the others
     * of its result element (those differing from it in axis bits only),
     * in register order */
    for (int r = 0; r < nregs; r++) {
        if ((uint32_t)r & axis_mask) continue;
        for (int r2 = r + 1; r2 < nregs; r2++)
            if (((uint32_t)r2 & ~axis_mask) == (uint32_t)r) combine_regs(P, op, acc, r, r2);
    }
    int n_res = s.lr >= 0 ? layout_n_regs(&P->fn->layouts[s.lr]) : 1;
    int *src = result_sources(P, op, &s, axis_mask, n_res);
    /* 2. lanes, from the highest bit down */
    for (int t = s.m - 1; t >= 0; t--)
        if (s.kinds[t] == LL_LANE) lane_level(P, op, acc, src, n_res, s.bits[t]);
    /* 3. warps */
    if (s.n_warp_levels) warp_levels(P, op, &s, acc, src, n_res);
    for (uint32_t k = 0; k < n; k++) {
        Reg *res = arena_alloc(P->arena, sizeof(Reg) * (size_t)n_res);
        for (int q = 0; q < n_res; q++) res[q] = acc[k][src[q]];
        ptx_alias(P, op->results[k], res, n_res);
    }
}
