/* Layout assignment: gives every tile value a layout and inserts
 * convert_layout where two choices meet.
 *
 *  1. anchors: every load/store of a pointer tile gets a blocked layout whose
 *     per-thread runs are as wide as axis analysis proves safe (contiguity,
 *     alignment, mask constancy; at most 16 bytes), lanes along the fastest
 *     dim first, so a warp's accesses are coalesced; an atomic gets one
 *     with runs of 1 (PTX atomics are not vectors) for its operands and
 *     its result;
 *  2. wants, backward: operands of elementwise ops want their result's
 *     layout, broadcast/expand_dims operands its projection, loop inits and
 *     yields their carried value's, memory operands their anchor;
 *  3. assignment, forward: a value takes its want, else a layout derived
 *     from its operands, else the default layout;
 *  4. every operand whose layout is not the one its op needs gets a
 *     convert_layout right before the op, one per (value, layout, block);
 *     constants, splats and aranges are re-created in the needed layout
 *     instead (cheaper than moving data between threads).
 * A reduce works in its operands' layout; a scan too when that layout holds
 * the axis as scan needs (doc/ir.md), else in one that does.
 * A dot is an anchor too: its result and accumulator take the wgmma
 * accumulator layout when the dot fits wgmma (sm_90a), else the mma.sync
 * one when it fits mma.sync (layout_dot_mma_ok), else the default layout
 * (the FMA path), whatever the users want; its operands
 * the layouts derived from it (layout_dot_operands). A loop-carried
 * accumulator so keeps that layout through the loop, and the epilogue
 * converts once after it.
 * For a vector add every want agrees and no convert is inserted. */
#include "opt.h"

#include <string.h>

typedef struct Anchor {
    IrOp *op;
    int32_t layout;
    int fast;        /* the fastest dim of the access */
    int safe_vec;    /* widest access along it that axis analysis proves safe */
    int vec;         /* what the layout gives each thread (<= safe_vec) */
} Anchor;

typedef struct Converted {
    ValId from;
    int32_t layout;
    IrBlock *block;
    ValId to;
} Converted;

typedef struct LayoutPass {
    IrFunc *fn;
    int num_warps;
    AxisInfo *axis;
    uint32_t n_orig;        /* values that existed before the pass (want/axis size) */
    int32_t *want;
    Anchor *anchors;
    uint32_t n_anchors, cap_anchors;
    Converted *converted;
    uint32_t n_converted, cap_converted;
    HashIdx *anchor_at;      /* anchors by op */
    HashIdx *converted_at;   /* converted by (value, layout, block) */
} LayoutPass;

static int64_t pow2_floor(int64_t x) {
    int64_t p = 1;
    while (p <= x / 2) p *= 2;
    return p;
}

static bool is_tile(LayoutPass *P, ValId v) { return ir_type(P->fn, v).rank > 0; }
static int32_t layout_of(LayoutPass *P, ValId v) { return P->fn->vals[v].layout; }
static int32_t intern(LayoutPass *P, Layout l) { return ir_layout_intern(P->fn, &l); }

static int32_t want_of(LayoutPass *P, ValId v) { return v < P->n_orig ? P->want[v] : -1; }

/* The first want is kept: it comes from the latest use in program order,
 * or from an anchor. */
static void want_set(LayoutPass *P, ValId v, int32_t l) {
    if (l >= 0 && v < P->n_orig && is_tile(P, v) && P->want[v] < 0) P->want[v] = l;
}

/* A layout for values nothing constrains: vec elements along the last dim,
 * up to 16 bytes, without replicating registers. */
static int32_t default_layout(LayoutPass *P, IrType t) {
    int64_t per_thread = ir_numel(t) / (32 * P->num_warps);
    int64_t vec = 16 / elem_bytes((ElemType)t.elem);
    if (per_thread < vec) vec = per_thread < 1 ? 1 : pow2_floor(per_thread);
    return intern(P, layout_default(t.rank, t.shape, (int)vec, P->num_warps));
}

/* ---- 1. anchors ---- */

/* Dims from fastest to slowest: by contiguity, ties to the later dim. */
static void access_order(const AxisInfo *a, int rank, int32_t *order) {
    for (int i = 0; i < rank; i++) order[i] = rank - 1 - i;
    for (int i = 1; i < rank; i++)
        for (int j = i; j > 0 && a->contiguity[order[j]] > a->contiguity[order[j - 1]]; j--) {
            int32_t tmp = order[j];
            order[j] = order[j - 1];
            order[j - 1] = tmp;
        }
}

/* vec elements of the pointer tile's fastest dim per access: no more than the
 * contiguity, the alignment in elements, 16 bytes, and (masked) the run over
 * which the mask is constant. */
static int safe_vec(LayoutPass *P, IrOp *op, IrType pt, int fast) {
    const AxisInfo *a = &P->axis[op->operands[0]];
    int64_t eb = elem_bytes((ElemType)pt.pointee);
    int64_t vec = a->contiguity[fast];
    if (a->divisibility[fast] / eb < vec) vec = a->divisibility[fast] / eb;
    if (16 / eb < vec) vec = 16 / eb;
    ValId mask = VAL_NONE;
    if (op->opc == OP_LOAD && op->n_operands > 1) mask = op->operands[1];
    if (op->opc == OP_STORE && op->n_operands > 2) mask = op->operands[2];
    if (mask != VAL_NONE && is_tile(P, mask) && P->axis[mask].constancy[fast] < vec)
        vec = P->axis[mask].constancy[fast];
    return vec < 1 ? 1 : (int)pow2_floor(vec);
}

/* Blocked: vec along the fastest dim, lanes and then warps fill the dims in
 * access order, what is left over replicates along the slowest dim. */
static Layout access_layout(LayoutPass *P, IrType t, const int32_t *order, int vec) {
    int32_t spt[IR_MAX_RANK] = {0}, tpw[IR_MAX_RANK] = {0}, wpc[IR_MAX_RANK] = {0};
    int lanes = 32, warps = P->num_warps, slow = order[t.rank - 1];
    for (int d = 0; d < t.rank; d++) spt[d] = d == order[0] ? vec : 1;
    for (int i = 0; i < t.rank; i++) {
        int d = order[i], room = t.shape[d] / spt[d] > 1 ? t.shape[d] / spt[d] : 1;
        tpw[d] = lanes < room ? lanes : room;
        lanes /= tpw[d];
    }
    tpw[slow] *= lanes;
    for (int i = 0; i < t.rank; i++) {
        int d = order[i], room = t.shape[d] / (spt[d] * tpw[d]);
        if (room < 1) room = 1;
        wpc[d] = warps < room ? warps : room;
        warps /= wpc[d];
    }
    wpc[slow] *= warps;
    return layout_blocked(t.rank, t.shape, spt, tpw, wpc, order, P->num_warps);
}

static bool is_atomic(Opcode opc) { return opc == OP_ATOMIC || opc == OP_ATOMIC_CAS; }

/* Atomics are anchors too, one element per access (PTX's atom has no
 * vectors), so all their operands and their result share that layout. */
static void add_anchor(IrFunc *fn, IrOp *op, void *ud) {
    LayoutPass *P = ud;
    bool atomic = is_atomic(op->opc);
    if ((op->opc != OP_LOAD && op->opc != OP_STORE && !atomic) || !is_tile(P, op->operands[0])) return;
    IrType pt = ir_type(fn, op->operands[0]);
    int32_t order[IR_MAX_RANK];
    access_order(&P->axis[op->operands[0]], pt.rank, order);
    int safe = atomic ? 1 : safe_vec(P, op, pt, order[0]);
    /* no wider than what each thread has to hold: no replicated registers */
    int64_t per_thread = ir_numel(pt) / (32 * P->num_warps);
    int vec = per_thread < safe ? (per_thread < 1 ? 1 : (int)pow2_floor(per_thread)) : safe;
    Anchor a = {op, intern(P, access_layout(P, pt, order, vec)), order[0], safe, vec};
    VEC_PUSH(fn->ctx->arena, P->anchors, P->n_anchors, P->cap_anchors, a);
}

/* after every anchor is added */
static void index_anchors(LayoutPass *P) {
    P->anchor_at = hidx_new(P->fn->ctx->arena, P->n_anchors);
    for (uint32_t k = 0; k < P->n_anchors; k++) hidx_put(P->anchor_at, hash_ptr(P->anchors[k].op), k);
}

static Anchor *find_anchor(LayoutPass *P, IrOp *op) {
    for (uint32_t it = 0, k; (k = hidx_next(P->anchor_at, hash_ptr(op), &it));)
        if (P->anchors[k - 1].op == op) return &P->anchors[k - 1];
    return NULL;
}

static int32_t anchor_of(LayoutPass *P, IrOp *op) {
    Anchor *a = find_anchor(P, op);
    return a ? a->layout : -1;
}

/* Consecutive elements along dim that one warp's access covers: the
 * per-thread run, extended by lanes that continue it (replicated lanes read
 * the same addresses, so they are skipped). */
static int64_t warp_run(const Layout *l, int dim) {
    int64_t run = layout_contig_regs(l, dim);
    for (int k = 0; k < l->n_bits[LL_LANE]; k++) {
        const int32_t *v = l->basis[LL_LANE][k];
        bool zero = true, next = true;
        for (int d = 0; d < l->rank; d++) {
            zero &= v[d] == 0;
            next &= v[d] == (d == dim ? run : 0);
        }
        if (zero) continue;
        if (!next) break;
        run *= 2;
    }
    return run;
}

/* A load may as well produce the layout its users want (and so need no
 * convert after it) when that costs nothing: each thread's vectors are as
 * wide and each warp's accesses as coalesced, or the tile is smaller than
 * the thread block, so that threads share addresses and caches serve them. */
static void adopt_use_layout(LayoutPass *P, IrOp *load) {
    Anchor *a = find_anchor(P, load);
    int32_t w = want_of(P, load->results[0]);
    if (!a || w < 0) return;
    const Layout *wl = &P->fn->layouts[w];
    int run = layout_contig_regs(wl, a->fast);
    bool small = ir_numel(ir_type(P->fn, load->results[0])) < 32 * P->num_warps;
    bool as_good = run >= a->vec && warp_run(wl, a->fast) >= warp_run(&P->fn->layouts[a->layout], a->fast);
    if (!small && !as_good) return;
    a->layout = w;
    a->vec = run < a->safe_vec ? run : a->safe_vec;
}

/* ---- 2. wants, backward ---- */
/* The shape ops move no data: their operand's layout is their result's
 * mapped back (ir.h: layout_permute, _reshape, _join, _split). -1 where
 * there is none: a reshape to a scalar takes any layout, and a layout
 * whose last dim is not one register bit cannot be split. */
static int32_t shape_operand_need(LayoutPass *P, IrOp *op, int32_t l) {
    IrFunc *fn = P->fn;
    const Layout *rl = &fn->layouts[l];
    Layout out;
    switch (op->opc) {
    case OP_TRANS: {
        int32_t inv[IR_MAX_RANK];
        for (int i = 0; i < op->attr.n_ints; i++) inv[op->attr.ints[i]] = i;
        return intern(P, layout_permute(rl, inv));
    }
    case OP_RESHAPE: {
        IrType xt = ir_type(fn, op->operands[0]);
        return intern(P, layout_reshape(rl, xt.rank, xt.shape));
    }
    case OP_JOIN: return layout_split(rl, &out) ? intern(P, out) : -1;
    case OP_SPLIT: return intern(P, layout_join(rl));
    default: return -1;
    }
}

static bool is_shape_op(Opcode opc) {
    return opc == OP_TRANS || opc == OP_RESHAPE || opc == OP_JOIN || opc == OP_SPLIT;
}

/* The layout operand i of op needs when op's result has layout l. */
static int32_t operand_need(LayoutPass *P, IrOp *op, uint32_t i, int32_t l) {
    IrFunc *fn = P->fn;
    if (is_shape_op(op->opc)) return l >= 0 ? shape_operand_need(P, op, l) : -1;
    if (op->opc == OP_BROADCAST)
        return intern(P, layout_project(&fn->layouts[l], ir_type(fn, op->operands[i]).shape));
    if (op->opc == OP_EXPAND_DIMS) return intern(P, layout_drop_dim(&fn->layouts[l], (int)op->attr.i));
    return l;
}

static void back_block(LayoutPass *P, IrBlock *b);

static bool passes_layout_through(Opcode opc) {
    return (ir_info(opc)->flags & F_ELEMWISE) || opc == OP_MULTIPLE_OF || opc == OP_MAX_CONTIGUOUS ||
           opc == OP_INLINE_ASM || opc == OP_MAP_ELEM;
}

static void want_operands(LayoutPass *P, IrOp *op, int32_t l) {
    for (uint32_t i = 0; i < op->n_operands; i++) want_set(P, op->operands[i], l);
}

/* Carried values of region ops: `vals[i]` want what `from[i]` wants. */
static void want_each(LayoutPass *P, const ValId *vals, const ValId *from, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) want_set(P, vals[i], want_of(P, from[i]));
}

/* The loop's carried value i is one value seen four ways (init, block arg,
 * yield operand, result), and all four get one layout. Only uses inside the
 * loop decide wants here: a convert there runs every iteration, one for the
 * uses after the loop runs once (fwd_loop_carried falls back to the
 * result's want). The body is walked twice so that what the block args want
 * reaches the yielded values too. */
static void back_loop(LayoutPass *P, IrBlock *body, const ValId *args, const ValId *init,
                      IrBlock *back, uint32_t n) {
    IrOp *yield = back->last;
    TRIC_ASSERT(!n || (yield && yield->n_operands == n));
    for (int round = 0; round < 2; round++) {
        if (n && round) want_each(P, yield->operands, args, n);
        if (back != body) back_block(P, back);
        back_block(P, body);
    }
    want_each(P, init, args, n);
}

static void back_while(LayoutPass *P, IrOp *op) {
    IrBlock *before = op->regions[0], *after = op->regions[1];
    IrOp *cond = before->last;
    TRIC_ASSERT(cond && cond->opc == OP_CONDITION && cond->n_operands == after->n_args + 1);
    /* forwarded values: condition operands -> after args and results */
    for (uint32_t i = 0; i < op->n_results; i++) {
        want_set(P, after->args[i], want_of(P, op->results[i]));
        want_set(P, op->results[i], want_of(P, after->args[i]));
    }
    back_block(P, after);
    want_each(P, cond->operands + 1, after->args, after->n_args);
    back_loop(P, before, before->args, op->operands, after, op->n_operands);
    want_each(P, cond->operands + 1, after->args, after->n_args);
    back_block(P, before);
}

static void back_if(LayoutPass *P, IrOp *op) {
    for (uint32_t r = 0; r < 2; r++) {
        IrOp *y = op->regions[r]->last;
        if (op->n_results) {
            TRIC_ASSERT(y && y->opc == OP_YIELD && y->n_operands == op->n_results);
            want_each(P, y->operands, op->results, op->n_results);
        }
        back_block(P, op->regions[r]);
    }
}

static bool scan_ok(LayoutPass *P, IrOp *op, int32_t l);

/* The layout a dot works in: its accumulator's and its result's. */
static int32_t dot_layout(LayoutPass *P, IrOp *op) {
    IrType t = ir_type(P->fn, op->results[0]);
    if (layout_dot_wgmma_bits(P->fn, op)) return intern(P, layout_wgmma_acc(t.shape, P->num_warps));
    if (layout_dot_mma_ok(P->fn, op)) return intern(P, layout_mma_acc(t.rank, t.shape, P->num_warps));
    return default_layout(P, t);
}

/* The layouts of a dot's operands (a, b, acc) when it works in l. */
static void dot_operand_layouts(LayoutPass *P, IrOp *op, int32_t l, int32_t *need) {
    Layout la, lb;
    (void)layout_dot_operands(P->fn, op, &P->fn->layouts[l], &la, &lb);
    need[0] = intern(P, la);
    need[1] = intern(P, lb);
    need[2] = l;
}

static void back_dot(LayoutPass *P, IrOp *op) {
    int32_t need[3];
    dot_operand_layouts(P, op, dot_layout(P, op), need);
    for (uint32_t i = 0; i < 3; i++) want_set(P, op->operands[i], need[i]);
}

static bool narrows(LayoutPass *P, IrOp *op) {
    return op->opc == OP_CAST && is_tile(P, op->operands[0]) &&
           elem_bits((ElemType)ir_type(P->fn, op->results[0]).elem) <
               elem_bits((ElemType)ir_type(P->fn, op->operands[0]).elem);
}

static void back_op(LayoutPass *P, IrOp *op) {
    ValId r = op->n_results ? op->results[0] : VAL_NONE;
    switch (op->opc) {
    case OP_LOAD: adopt_use_layout(P, op); /* fall through */
    case OP_STORE:
    case OP_ATOMIC:
    case OP_ATOMIC_CAS: want_operands(P, op, anchor_of(P, op)); break;
    case OP_BROADCAST:
    case OP_EXPAND_DIMS:
        if (want_of(P, r) >= 0) want_set(P, op->operands[0], operand_need(P, op, 0, want_of(P, r)));
        break;
    case OP_FOR: {
        IrBlock *body = op->regions[0];
        uint32_t n = op->n_operands - 3;
        TRIC_ASSERT(body->n_args == n + 1 && op->n_results == n);
        back_loop(P, body, body->args + 1, op->operands + 3, body, n);
        break;
    }
    case OP_WHILE: back_while(P, op); break;
    case OP_IF: back_if(P, op); break;
    case OP_TRANS:
    case OP_RESHAPE:
    case OP_JOIN:
    case OP_SPLIT: {
        int32_t w = want_of(P, r);
        if (op->opc == OP_SPLIT && w < 0) w = want_of(P, op->results[1]);
        if (w >= 0) want_operands(P, op, operand_need(P, op, 0, w));
        break;
    }
    case OP_SCAN:
        if (scan_ok(P, op, want_of(P, r))) want_operands(P, op, want_of(P, r));
        break;
    case OP_DOT: back_dot(P, op); break;
    case OP_GATHER: want_set(P, op->operands[1], want_of(P, r)); break;   /* the result lies where the index does */
    default:
        /* a narrowing cast works in its operand's layout (fwd_result): what
         * its users want does not reach back past it, so a tile reshaped and
         * split before the cast keeps the dot's layout and the convert moves
         * the narrow halves */
        if (r != VAL_NONE && passes_layout_through(op->opc) && !narrows(P, op)) want_operands(P, op, want_of(P, r));
        break;
    }
}

static void back_block(LayoutPass *P, IrBlock *b) {
    for (IrOp *op = b->last; op; op = op->prev) back_op(P, op);
}

/* ---- 3. assignment, forward ---- */
static void fwd_block(LayoutPass *P, IrBlock *b);

static void set_layout(LayoutPass *P, ValId v, int32_t l) {
    if (is_tile(P, v)) P->fn->vals[v].layout = l;
}

static bool is_remat(IrOp *def) {
    return def && (def->opc == OP_CONST || def->opc == OP_SPLAT || def->opc == OP_ARANGE);
}

/* An elementwise result nothing wants follows its operands: a loaded value's
 * layout first (moving it costs), then any other computed value's, and only
 * then a constant's (which is re-created anywhere for free) or a loop-carried
 * value's that nothing in the loop wants (its layout is only a guess, which
 * fwd_loop revises to what the body yields: `acc += x` must not move x). */
static int32_t follow_operands(LayoutPass *P, IrOp *op) {
    int32_t best = -1;
    int best_rank = 0;
    for (uint32_t i = 0; i < op->n_operands; i++) {
        ValId v = op->operands[i];
        if (!is_tile(P, v) || layout_of(P, v) < 0) continue;
        IrOp *def = P->fn->vals[v].def;
        bool guessed = !def && P->fn->vals[v].block && want_of(P, v) < 0;
        int rank = def && def->opc == OP_LOAD ? 3 : is_remat(def) || guessed ? 1 : 2;
        if (rank > best_rank) {
            best = layout_of(P, v);
            best_rank = rank;
        }
    }
    return best;
}

/* A layout for the broadcast of src to shape t that projects back to src:
 * the new coordinate bits go to src's replicated lanes and warps first, the
 * rest to new registers. */
static Layout broadcast_from(const Layout *src, IrType t) {
    Layout l = *src;
    for (int d = 0; d < t.rank; d++) {
        l.shape[d] = t.shape[d];
        if (src->shape[d] != 1 || t.shape[d] == 1) continue;
        int bits = log2_ceil(t.shape[d]), covered = 0;
        for (int kind = LL_LANE; kind <= LL_WARP; kind++)
            for (int k = 0; k < l.n_bits[kind] && covered < bits; k++) {
                bool zero = true;
                for (int e = 0; e < t.rank; e++) zero &= l.basis[kind][k][e] == 0;
                if (zero) l.basis[kind][k][d] = 1 << covered++;
            }
        for (; covered < bits; covered++) {
            TRIC_ASSERT(l.n_bits[LL_REG] < LL_MAX_BITS);
            l.basis[LL_REG][l.n_bits[LL_REG]++][d] = 1 << covered;
        }
    }
    return l;
}

/* The layout of a result nothing wants: from the operand's where it can be
 * derived (so no convert is needed), else the default. */
static int32_t derived_layout(LayoutPass *P, IrOp *op, IrType t) {
    ValId x = op->n_operands ? op->operands[0] : VAL_NONE;
    int32_t lx = x != VAL_NONE && is_tile(P, x) ? layout_of(P, x) : -1;
    int32_t l = -1;
    if (op->opc == OP_BROADCAST && lx >= 0) l = intern(P, broadcast_from(&P->fn->layouts[lx], t));
    else if (op->opc == OP_EXPAND_DIMS && lx >= 0)
        l = intern(P, layout_add_dim(&P->fn->layouts[lx], (int)op->attr.i));
    else if (op->opc == OP_CONVERT_LAYOUT || passes_layout_through(op->opc)) l = follow_operands(P, op);
    else if (op->opc == OP_TRANS && lx >= 0) l = intern(P, layout_permute(&P->fn->layouts[lx], op->attr.ints));
    else if (op->opc == OP_RESHAPE && lx >= 0) l = intern(P, layout_reshape(&P->fn->layouts[lx], t.rank, t.shape));
    else if (op->opc == OP_JOIN && (l = follow_operands(P, op)) >= 0) l = intern(P, layout_join(&P->fn->layouts[l]));
    else if (op->opc == OP_GATHER) l = layout_of(P, op->operands[1]);
    return l >= 0 ? l : default_layout(P, t);
}

/* A cast to a narrower type keeps its operand's layout: where the two
 * layouts differ (a matmul's accumulator, in the mma layout, cast to f16
 * for 16-byte stores), the convert then moves the narrow values, half the
 * shared memory and bytes of converting before the cast. */
static bool narrowing_cast(LayoutPass *P, IrOp *op) {
    if (op->opc != OP_CAST || !is_tile(P, op->operands[0]) || layout_of(P, op->operands[0]) < 0) return false;
    return elem_bits((ElemType)ir_type(P->fn, op->results[0]).elem) <
           elem_bits((ElemType)ir_type(P->fn, op->operands[0]).elem);
}

/* loads take their anchor; a narrowing cast its operand's layout; everything
 * else its want, else a derived layout. Shared-memory buffers have none (a
 * pipeline ring's slot count need not be a power of two): they appear only
 * when the passes run again over IR the pipeline already went through. */
static void fwd_result(LayoutPass *P, IrOp *op) {
    ValId r = op->results[0];
    IrType t = ir_type(P->fn, r);
    if (!t.rank || op->opc == OP_LOCAL_ALLOC || op->opc == OP_MBAR_ALLOC) return;
    int32_t l = op->opc == OP_LOAD || is_atomic(op->opc) ? anchor_of(P, op) : -1;
    if (l < 0 && narrowing_cast(P, op)) l = layout_of(P, op->operands[0]);
    if (l < 0) l = want_of(P, r);
    if (l >= 0 && op->opc == OP_JOIN && shape_operand_need(P, op, l) < 0) l = -1;   /* not one register bit */
    if (l < 0) l = derived_layout(P, op, t);
    set_layout(P, r, l);
}

/* Carried value i of a loop: what the body wants, else what the uses after
 * the loop want, else what it starts as. */
static int32_t carried_choice(LayoutPass *P, ValId arg, ValId result, ValId init) {
    if (want_of(P, arg) >= 0) return want_of(P, arg);
    if (result != VAL_NONE && want_of(P, result) >= 0) return want_of(P, result);
    return layout_of(P, init);
}

/* The carried layouts are chosen before the body is assigned. When nothing
 * in the body wanted one, the body's own choice for the yielded value (a
 * loaded value's layout, say) is better than a guess: a convert at the init
 * or after the loop runs once, one at the yield every iteration. So the body
 * is assigned again with that choice. */
typedef void (*FwdBodyFn)(LayoutPass *P, IrOp *loop);

static void fwd_loop(LayoutPass *P, IrOp *loop, const ValId *args, const ValId *results,
                     const ValId *init, IrBlock *back, uint32_t n, FwdBodyFn run) {
    for (uint32_t i = 0; i < n; i++) {
        int32_t l = carried_choice(P, args[i], results ? results[i] : VAL_NONE, init[i]);
        set_layout(P, args[i], l);
        if (results) set_layout(P, results[i], l);
    }
    for (int round = 0; round < 2; round++) {
        run(P, loop);
        IrOp *yield = back->last;
        bool again = false;
        for (uint32_t i = 0; i < n && !round; i++) {
            ValId y = yield->operands[i];
            if (!is_tile(P, args[i]) || want_of(P, args[i]) >= 0 || layout_of(P, y) == layout_of(P, args[i]))
                continue;
            set_layout(P, args[i], layout_of(P, y));
            if (results) set_layout(P, results[i], layout_of(P, y));
            again = true;
        }
        if (!again) break;
    }
}

static void for_body(LayoutPass *P, IrOp *op) { fwd_block(P, op->regions[0]); }

static void fwd_for(LayoutPass *P, IrOp *op) {
    IrBlock *body = op->regions[0];
    fwd_loop(P, op, body->args + 1, op->results, op->operands + 3, body, op->n_operands - 3, for_body);
}

/* while: the before region's args are carried (init, after's yield); the
 * condition's forwarded values become the after region's args and results */
static void while_body(LayoutPass *P, IrOp *op) {
    IrBlock *before = op->regions[0], *after = op->regions[1];
    fwd_block(P, before);
    IrOp *cond = before->last;
    for (uint32_t i = 0; i < op->n_results; i++) {
        ValId arg = after->args[i], res = op->results[i];
        int32_t l = want_of(P, arg) >= 0 ? want_of(P, arg)
                  : want_of(P, res) >= 0 ? want_of(P, res) : layout_of(P, cond->operands[1 + i]);
        set_layout(P, arg, l);
        set_layout(P, res, l);
    }
    fwd_block(P, after);
}

static void fwd_while(LayoutPass *P, IrOp *op) {
    IrBlock *before = op->regions[0];
    fwd_loop(P, op, before->args, NULL, op->operands, op->regions[1], op->n_operands, while_body);
}

static void fwd_if(LayoutPass *P, IrOp *op) {
    fwd_block(P, op->regions[0]);
    fwd_block(P, op->regions[1]);
    for (uint32_t i = 0; i < op->n_results; i++) {
        ValId r = op->results[i];
        ValId then_v = op->regions[0]->last->operands[i];
        set_layout(P, r, want_of(P, r) >= 0 ? want_of(P, r) : layout_of(P, then_v));
    }
}

/* A reduce works in its operands' layout (the best of them, as an
 * elementwise op would pick; the others are brought into it), and its
 * results are that layout with the reduced dim dropped: a slice, where the
 * lanes and warps that held different positions along the axis now hold
 * the same result. Users that want another layout get a convert. */
static void fwd_reduce(LayoutPass *P, IrOp *op) {
    int32_t l = follow_operands(P, op);
    TRIC_ASSERT(l >= 0);
    if (ir_type(P->fn, op->results[0]).rank == 0) return;
    int32_t r = intern(P, layout_drop_dim(&P->fn->layouts[l], (int)op->attr.i));
    for (uint32_t i = 0; i < op->n_results; i++) set_layout(P, op->results[i], r);
}

/* Whether layout l (an index) splits the scan's axis as scan needs
 * (layout_scan_parts). */
static bool scan_ok(LayoutPass *P, IrOp *op, int32_t l) {
    IrType t = ir_type(P->fn, op->operands[0]);
    int parts[4];
    return l >= 0 && layout_scan_parts(&P->fn->layouts[l], (int)op->attr.i, t.shape[op->attr.i], parts, NULL, NULL);
}

/* A scan works in its operands' layout when that splits the axis into
 * registers, lanes, warps (and registers again); otherwise in a blocked
 * layout with the axis fastest (runs of up to 16 bytes per thread, then
 * lanes, then warps along it), and its operands are converted. */
static int32_t scan_layout(LayoutPass *P, IrOp *op) {
    int32_t l = follow_operands(P, op);
    if (scan_ok(P, op, l)) return l;
    IrType t = ir_type(P->fn, op->operands[0]);
    int axis = (int)op->attr.i;
    int32_t order[IR_MAX_RANK];
    order[0] = axis;
    for (int d = t.rank - 1, i = 1; d >= 0; d--)
        if (d != axis) order[i++] = d;
    int64_t vec = ir_numel(t) / (32 * P->num_warps), most = 16 / elem_bytes((ElemType)t.elem);
    if (vec > most) vec = most;
    if (vec > t.shape[axis]) vec = t.shape[axis];
    l = intern(P, access_layout(P, t, order, vec < 1 ? 1 : (int)pow2_floor(vec)));
    TRIC_ASSERT(scan_ok(P, op, l));
    return l;
}

/* Its results have the layout it works in. */
static void fwd_scan(LayoutPass *P, IrOp *op) {
    int32_t l = scan_layout(P, op);
    for (uint32_t i = 0; i < op->n_results; i++) set_layout(P, op->results[i], l);
}

/* split: the operand's layout without its last-dim register bit when it
 * has one (no data moves), else what a result wants, else the default;
 * the operand is then converted to that layout joined. */
static void fwd_split(LayoutPass *P, IrOp *op) {
    int32_t lx = layout_of(P, op->operands[0]), l = -1;
    Layout out;
    if (lx >= 0 && layout_split(&P->fn->layouts[lx], &out)) l = intern(P, out);
    if (l < 0) l = want_of(P, op->results[0]) >= 0 ? want_of(P, op->results[0]) : want_of(P, op->results[1]);
    if (l < 0) l = default_layout(P, ir_type(P->fn, op->results[0]));
    for (uint32_t i = 0; i < op->n_results; i++) set_layout(P, op->results[i], l);
}

static void fwd_block(LayoutPass *P, IrBlock *b) {
    for (IrOp *op = b->first; op; op = op->next) {
        if (op->opc == OP_REDUCE) fwd_reduce(P, op);
        else if (op->opc == OP_SPLIT) fwd_split(P, op);
        else if (op->opc == OP_SCAN) fwd_scan(P, op);
        else if (op->opc == OP_FOR) fwd_for(P, op);
        else if (op->opc == OP_WHILE) fwd_while(P, op);
        else if (op->opc == OP_IF) fwd_if(P, op);
        else if (op->opc == OP_DOT) set_layout(P, op->results[0], dot_layout(P, op));
        else if (op->opc == OP_INLINE_ASM || op->opc == OP_MAP_ELEM) {
            /* every result in one layout: register k of each is element k's */
            fwd_result(P, op);
            for (uint32_t i = 1; i < op->n_results; i++) set_layout(P, op->results[i], layout_of(P, op->results[0]));
        } else
            for (uint32_t i = 0; i < op->n_results; i++)
                if (i == 0) fwd_result(P, op);
                else set_layout(P, op->results[i], default_layout(P, ir_type(P->fn, op->results[i])));
    }
}

/* ---- 4. converts ---- */

/* Integer index math (aranges, splats, their broadcasts, sums and compares)
 * is cheaper to compute again in another layout than to move between
 * threads through shared memory: up to this many ops are re-created. */
#define REMAT_MAX_OPS 32

/* Ops needed to re-create v from scalars, or more than `budget` if v cannot
 * be re-created (it depends on a load, a loop, a block argument). */
static int remat_ops(LayoutPass *P, ValId v, int budget) {
    IrOp *def = P->fn->vals[v].def;
    if (budget <= 0 || !def || def->n_results != 1) return budget + 1;
    if (is_remat(def)) return 1;
    bool shape_op = def->opc == OP_BROADCAST || def->opc == OP_EXPAND_DIMS || def->opc == OP_TRANS ||
                    def->opc == OP_RESHAPE;
    if (!(ir_info(def->opc)->flags & F_PURE) || !(shape_op || passes_layout_through(def->opc)))
        return budget + 1;
    int n = 1;
    for (uint32_t i = 0; i < def->n_operands && n <= budget; i++)
        if (is_tile(P, def->operands[i])) n += remat_ops(P, def->operands[i], budget - n);
    return n;
}

static ValId in_layout(LayoutPass *P, IrOp *user, ValId v, int32_t l);

static uint32_t converted_hash(const Converted *c) {
    return hash_ptr(c->block) ^ hash_u64((uint64_t)c->from << 32 | (uint32_t)c->layout);
}

static Converted *find_converted(LayoutPass *P, ValId v, int32_t l, IrBlock *b) {
    Converted key = {v, l, b, VAL_NONE};
    for (uint32_t it = 0, k; (k = hidx_next(P->converted_at, converted_hash(&key), &it));) {
        Converted *c = &P->converted[k - 1];
        if (c->from == v && c->layout == l && c->block == b) return c;
    }
    return NULL;
}

static void add_converted(LayoutPass *P, Converted c) {
    VEC_PUSH(P->fn->ctx->arena, P->converted, P->n_converted, P->cap_converted, c);
    uint32_t from = hidx_reserve(&P->converted_at, P->fn->ctx->arena, 1, P->n_converted) ? 0 : P->n_converted - 1;
    for (uint32_t k = from; k < P->n_converted; k++) hidx_put(P->converted_at, converted_hash(&P->converted[k]), k);
}

/* A copy of def (whose result is to have layout l) right before user, its
 * tile operands themselves brought into the layouts it needs. */
static IrOp *clone_before(LayoutPass *P, IrOp *user, IrOp *def, int32_t l) {
    IrFunc *fn = P->fn;
    ValId *ops = arena_alloc(fn->ctx->arena, sizeof(ValId) * (def->n_operands ? def->n_operands : 1));
    for (uint32_t i = 0; i < def->n_operands; i++) {
        ValId o = def->operands[i];
        ops[i] = is_tile(P, o) ? in_layout(P, user, o, operand_need(P, def, i, l)) : o;
    }
    IrType t = ir_type(fn, def->results[0]);
    IrOp *copy = ir_op_new(fn, def->opc, def->loc, ops, def->n_operands, &t, 1, 0);
    copy->attr = def->attr;
    return copy;
}

/* v in layout l, usable by `user`: v itself, or a copy made right before the
 * user (re-created if cheap, else convert_layout), shared by later users in
 * the same block. */
static ValId in_layout(LayoutPass *P, IrOp *user, ValId v, int32_t l) {
    if (!is_tile(P, v) || layout_of(P, v) == l) return v;
    IrFunc *fn = P->fn;
    Converted *done = find_converted(P, v, l, user->parent);
    if (done) return done->to;
    IrOp *def = fn->vals[v].def;
    IrType t = ir_type(fn, v);
    IrOp *copy;
    if (remat_ops(P, v, REMAT_MAX_OPS) <= REMAT_MAX_OPS) copy = clone_before(P, user, def, l);
    else copy = ir_op_new(fn, OP_CONVERT_LAYOUT, user->loc, &v, 1, &t, 1, 0);
    ir_insert_before(user, copy);
    ValId to = copy->results[0];
    fn->vals[to].layout = l;
    fn->vals[to].name = fn->vals[v].name;
    add_converted(P, (Converted){v, l, user->parent, to});
    return to;
}

static void require(LayoutPass *P, IrOp *op, uint32_t i, int32_t l) {
    if (l >= 0) op->operands[i] = in_layout(P, op, op->operands[i], l);
}

/* The layout the value flowing through a terminator's operand i must have. */
static int32_t terminator_need(LayoutPass *P, IrOp *term, uint32_t i) {
    IrOp *parent = term->parent->parent;
    if (!parent) return -1;
    if (term->opc == OP_CONDITION) return i ? layout_of(P, parent->regions[1]->args[i - 1]) : -1;
    if (parent->opc == OP_WHILE) return layout_of(P, parent->regions[0]->args[i]);
    return i < parent->n_results ? layout_of(P, parent->results[i]) : -1;
}

static void fix_operands(IrFunc *fn, IrOp *op, void *ud) {
    LayoutPass *P = ud;
    (void)fn;
    int32_t anchor = anchor_of(P, op);
    ValId r = op->n_results ? op->results[0] : VAL_NONE;
    /* chosen before any operand is replaced, as fwd_reduce chose it */
    int32_t reduce_in = op->opc == OP_REDUCE ? follow_operands(P, op) : op->opc == OP_SCAN ? scan_layout(P, op) : -1;
    int32_t dot_need[3] = {-1, -1, -1};
    if (op->opc == OP_DOT) dot_operand_layouts(P, op, layout_of(P, r), dot_need);
    for (uint32_t i = 0; i < op->n_operands; i++) {
        ValId v = op->operands[i];
        if (!is_tile(P, v)) continue;
        switch (op->opc) {
        case OP_LOAD:
        case OP_STORE:
        case OP_ATOMIC:
        case OP_ATOMIC_CAS: require(P, op, i, anchor); break;
        case OP_BROADCAST:
        case OP_EXPAND_DIMS:
        case OP_TRANS:
        case OP_RESHAPE:
        case OP_JOIN:
        case OP_SPLIT: require(P, op, i, operand_need(P, op, i, layout_of(P, r))); break;
        case OP_FOR: require(P, op, i, i >= 3 ? layout_of(P, op->results[i - 3]) : -1); break;
        case OP_WHILE: require(P, op, i, layout_of(P, op->regions[0]->args[i])); break;
        case OP_YIELD:
        case OP_CONDITION: require(P, op, i, terminator_need(P, op, i)); break;
        case OP_REDUCE:
        case OP_SCAN: require(P, op, i, reduce_in); break;
        case OP_DOT: require(P, op, i, dot_need[i]); break;
        case OP_HISTOGRAM: require(P, op, i, i ? layout_of(P, op->operands[0]) : -1); break;
        case OP_GATHER: require(P, op, i, i ? layout_of(P, r) : -1); break;
        default:
            if (r != VAL_NONE && passes_layout_through(op->opc)) require(P, op, i, layout_of(P, r));
            break;
        }
    }
    if (anchor >= 0 && !is_atomic(op->opc)) op->attr.vec = find_anchor(P, op)->vec;
}

/* requires: nothing (runs axis analysis itself). changes: gives every tile
 * value a layout, sets attr.vec of loads/stores of tiles, inserts
 * convert_layout (and re-created constants/splats/aranges) where a value's
 * layout is not the one its user needs. */
void pass_layout(IrFunc *fn) {
    Arena *a = fn->ctx->arena;
    LayoutPass P;
    memset(&P, 0, sizeof P);
    P.fn = fn;
    P.num_warps = fn->ctx->target.num_warps;
    TRIC_ASSERT(P.num_warps >= 1 && P.num_warps <= 32 && (P.num_warps & (P.num_warps - 1)) == 0);
    P.axis = axisinfo_compute(fn);
    P.n_orig = fn->n_vals;
    P.want = arena_alloc(a, sizeof(int32_t) * P.n_orig);
    for (uint32_t v = 0; v < P.n_orig; v++) P.want[v] = -1;
    for (uint32_t v = 0; v < P.n_orig; v++) fn->vals[v].layout = -1;
    ir_walk(fn, fn->body, add_anchor, &P);
    index_anchors(&P);
    back_block(&P, fn->body);
    fwd_block(&P, fn->body);
    ir_walk(fn, fn->body, fix_operands, &P);
}
