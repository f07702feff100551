/* The shape builtins: tl.reshape / view / ravel, trans / permute and .T,
 * broadcast / broadcast_to, expand_dims, join / split, interleave and cat,
 * as functions and as tensor methods. None moves data in the IR's meaning:
 * each is one `trans`, `reshape`, `join`, `split`, `broadcast` or
 * `expand_dims` op (or a few: cat is join, trans, reshape), and the layout
 * pass makes most of them free in registers. Messages follow Triton's. */
#include "lower.h"

#include <string.h>


static LVal tensor_of(Lower *L, const LArg *a) { return lval_to_tensor(L, a->loc, a->v); }

static IrType type_of(Lower *L, LVal v) { return lower_type(L, &v); }

static int64_t const_int(Lower *L, SrcLoc loc, const LVal *v, const char *what) {
    if (v->kind == LV_INT || v->kind == LV_BOOL) return v->i;
    if (v->kind == LV_TENSOR && v->has_origin) return v->origin_i;
    diag_error(L->ctx, loc, "%s must be a compile-time integer (tl.constexpr), got a %s", what, lval_kind_name(v));
}

/* Python's repr of a list of ints, "[4, 2]", for messages. */
static const char *int_list(Lower *L, const int64_t *v, int n) {
    Buf b = {0};
    buf_putc(&b, '[');
    for (int i = 0; i < n; i++) buf_printf(&b, "%s%lld", i ? ", " : "", (long long)v[i]);
    buf_putc(&b, ']');
    const char *s = arena_strndup(L->ctx->arena, b.data, b.len);
    buf_free(&b);
    return s;
}

/* The integers of a `*shape` / `*dims` parameter: one tuple or list, or
 * the positionals themselves (first = the slot after input, then rest).
 * Returns how many (at most IR_MAX_RANK + 1: more is an error). */
static int int_args(Lower *L, SrcLoc loc, const LArg *first, const LVal *rest, int n_rest, int64_t *out,
                    const char *what) {
    const LVal *items = rest;
    int n = n_rest;
    LVal one;
    if (first) {
        one = first->v;
        items = &one;
        n = 1;
    }
    if (n == 1 && items[0].kind == LV_TUPLE) {
        n = (int)items[0].n;
        items = items[0].items;
    }
    if (n > IR_MAX_RANK) diag_error(L->ctx, loc, "tensors of rank %d are not supported (at most %d)", n, IR_MAX_RANK);
    for (int i = 0; i < n; i++) out[i] = const_int(L, loc, &items[i], what);
    return n;
}

/* a shape of powers of two (Triton's _shape_check_impl) */
static IrType shape_type(Lower *L, SrcLoc loc, IrType elem, const int64_t *dims, int n) {
    IrType t = ir_elem_of(elem);
    t.rank = (uint8_t)n;
    for (int i = 0; i < n; i++) {
        if (dims[i] <= 0 || dims[i] > (1 << 30) || (dims[i] & (dims[i] - 1)))
            diag_error(L->ctx, loc, "Shape element %d must be a power of 2, got %lld", i, (long long)dims[i]);
        t.shape[i] = (int32_t)dims[i];
    }
    if (n) lower_check_shape(L, loc, t.rank, t.shape);
    return t;
}

/* t without its last dim (shapes are zero beyond the rank: types are
 * compared whole in places) */
static IrType drop_last(IrType t) {
    t.shape[--t.rank] = 0;
    return t;
}

static LVal build1(Lower *L, SrcLoc loc, Opcode opc, LVal x, IrType t) {
    L->b.loc = loc;
    return lval_tensor(L, ir_build1(&L->b, opc, t, x.id));
}

/* ---- reshape, view, ravel ---- */

/* x reshaped to t (row-major order kept): a splat from a scalar, nothing
 * for the same shape, else one reshape op (to a scalar: the unsplat of a
 * one-element tile). */
LVal lower_reshape(Lower *L, SrcLoc loc, LVal x, IrType t) {
    IrType xt = type_of(L, x);
    if (ir_numel(xt) != ir_numel(t))
        diag_error(L->ctx, loc, "reshape() cannot change total number of elements in tensor: %s has %lld, %s has %lld",
                   shape_str(L, xt), (long long)ir_numel(xt), shape_str(L, t), (long long)ir_numel(t));
    if (ir_type_eq(xt, t)) return x;
    if (xt.rank == 0) return build1(L, loc, OP_SPLAT, x, t);
    return build1(L, loc, OP_RESHAPE, x, t);
}

static LVal reshape_common(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    LVal x = tensor_of(L, &a[0]);
    int64_t dims[IR_MAX_RANK + 1];
    int n = int_args(L, loc, NULL, rest, n_rest, dims, "reshape's shape");
    return lower_reshape(L, loc, x, shape_type(L, loc, type_of(L, x), dims, n));
}

/* can_reorder only allows an order tric never changes */
LVal bi_reshape(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) { return reshape_common(L, loc, a, rest, n_rest); }

LVal bi_ravel(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    (void)rest, (void)n_rest;
    LVal x = tensor_of(L, &a[0]);
    IrType t = type_of(L, x);
    int64_t n = ir_numel(t);
    return lower_reshape(L, loc, x, shape_type(L, loc, t, &n, 1));
}

/* x.item(): a one-element tensor as a scalar (Triton's unsplat) */
LVal lower_item(Lower *L, SrcLoc loc, LVal x) {
    IrType t = type_of(L, x);
    if (t.rank == 0) return x;
    if (ir_numel(t) != 1)
        diag_error(L->ctx, loc, "can only unsplat single-element tensors, not a tensor of shape %s", shape_str(L, t));
    return build1(L, loc, OP_RESHAPE, x, ir_elem_of(t));
}

LVal bi_item(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    (void)rest, (void)n_rest;
    return lower_item(L, loc, tensor_of(L, &a[0]));
}

/* ---- trans, permute, .T ---- */

static LVal permute_dims(Lower *L, SrcLoc loc, LVal x, const int64_t *dims, int n) {
    IrType xt = type_of(L, x), t = xt;
    if (n != xt.rank)
        diag_error(L->ctx, loc, "permute dims must have the same length as input shape: %s has %d dims, got %s",
                   shape_str(L, xt), xt.rank, int_list(L, dims, n));
    unsigned seen = 0;
    bool identity = true;
    for (int i = 0; i < n; i++) {
        if (dims[i] < 0 || dims[i] >= n || (seen >> dims[i] & 1))
            diag_error(L->ctx, loc, "permute dims must be a permutation of 0, 1, ..., n-1, but were %s",
                       int_list(L, dims, n));
        seen |= 1u << dims[i];
        identity &= dims[i] == i;
        t.shape[i] = xt.shape[dims[i]];
    }
    if (identity) return x;
    L->b.loc = loc;
    IrOp *op = ir_build(&L->b, OP_TRANS, &x.id, 1, &t, 1, 0);
    op->attr.n_ints = (uint8_t)n;
    for (int i = 0; i < n; i++) op->attr.ints[i] = (int32_t)dims[i];
    return lval_tensor(L, op->results[0]);
}

/* no dims: the last two swap */
LVal bi_trans(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    LVal x = tensor_of(L, &a[0]);
    int64_t dims[IR_MAX_RANK + 1];
    int n = int_args(L, loc, NULL, rest, n_rest, dims, "trans's dims");
    if (n == 0) {
        int r = type_of(L, x).rank;
        if (r < 2) diag_error(L->ctx, loc, "trans() with no dims swaps the last two dims; this tensor has rank %d", r);
        for (int i = 0; i < r; i++) dims[i] = i;
        dims[r - 2] = r - 1;
        dims[r - 1] = r - 2;
        n = r;
    }
    return permute_dims(L, loc, x, dims, n);
}

LVal bi_permute(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    LVal x = tensor_of(L, &a[0]);
    int64_t dims[IR_MAX_RANK + 1];
    int n = int_args(L, loc, NULL, rest, n_rest, dims, "permute's dims");
    return permute_dims(L, loc, x, dims, n);
}

LVal lower_transpose_attr(Lower *L, SrcLoc loc, LVal x) {
    int r = type_of(L, x).rank;
    if (r != 2) diag_error(L->ctx, loc, "tensor.T is the 2-D transpose; this tensor has rank %d", r);
    static const int64_t swap[2] = {1, 0};
    return permute_dims(L, loc, x, swap, 2);
}

/* ---- broadcast_to, broadcast, expand_dims ---- */

LVal bi_broadcast_to(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    LVal x = tensor_of(L, &a[0]);
    IrType xt = type_of(L, x);
    int64_t dims[IR_MAX_RANK + 1];
    int n = int_args(L, loc, NULL, rest, n_rest, dims, "broadcast_to's shape");
    IrType t = shape_type(L, loc, xt, dims, n);
    if (xt.rank && xt.rank != t.rank)
        diag_error(L->ctx, loc, "Cannot broadcast, rank mismatch: %s, %s", shape_str(L, xt), shape_str(L, t));
    for (int d = 0; d < xt.rank; d++)
        if (xt.shape[d] != 1 && xt.shape[d] != t.shape[d])
            diag_error(L->ctx, loc,
                       "Cannot broadcast, the expanded size of the tensor (%d) must match the existing size (%d) at "
                       "non-singleton dimension %d: %s, %s",
                       t.shape[d], xt.shape[d], d, shape_str(L, xt), shape_str(L, t));
    return lower_broadcast_to(L, loc, x, t);
}

static LVal pair(Lower *L, LVal a, LVal b) {
    LVal r = {0};
    r.kind = LV_TUPLE;
    r.n = 2;
    r.items = arena_alloc(L->ctx->arena, sizeof(LVal) * 2);
    r.items[0] = a;
    r.items[1] = b;
    return r;
}

LVal bi_broadcast(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    (void)rest, (void)n_rest;
    LVal x = tensor_of(L, &a[0]), y = tensor_of(L, &a[1]);
    IrType t = lower_broadcast_shape(L, loc, type_of(L, x), type_of(L, y));
    return pair(L, lower_broadcast_to(L, loc, x, t), lower_broadcast_to(L, loc, y, t));
}

/* axis: an int or a sequence of them, each in [-new_rank, new_rank) */
LVal bi_expand_dims(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    (void)rest, (void)n_rest;
    LVal x = tensor_of(L, &a[0]);
    int64_t axes[IR_MAX_RANK + 1];
    int n = int_args(L, a[1].loc, &a[1], NULL, 0, axes, "expand_dims's axis");
    int rank = type_of(L, x).rank + n;
    if (rank > IR_MAX_RANK)
        diag_error(L->ctx, loc, "tensors of rank %d are not supported (at most %d)", rank, IR_MAX_RANK);
    for (int i = 0; i < n; i++) {
        if (axes[i] < -rank || axes[i] >= rank)
            diag_error(L->ctx, a[1].loc, "invalid axis %lld. Expected %d <= axis < %d", (long long)axes[i], -rank, rank);
        if (axes[i] < 0) axes[i] += rank;
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            if (axes[i] == axes[j])
                diag_error(L->ctx, a[1].loc, "expand_dims received duplicate axes, normalized axes = %s",
                           int_list(L, axes, n));
    for (int i = 1; i < n; i++)   /* ascending, so each axis is a position in the final shape */
        for (int j = i; j > 0 && axes[j] < axes[j - 1]; j--) {
            int64_t tmp = axes[j];
            axes[j] = axes[j - 1];
            axes[j - 1] = tmp;
        }
    for (int i = 0; i < n; i++) x = lval_tensor(L, lower_expand_dim(L, loc, x.id, (int)axes[i]));
    return x;
}

/* ---- join, split, interleave, cat ---- */

/* a and b broadcast to one shape (scalars to [1], the result then [2]) and
 * joined along a new last dim of size 2 */
static LVal join_values(Lower *L, SrcLoc loc, LVal x, LVal y) {
    IrType xt = type_of(L, x), yt = type_of(L, y);
    if (xt.elem != yt.elem || xt.pointee != yt.pointee)
        diag_error(L->ctx, loc, "join() needs a and b of one dtype, got %s and %s", dtype_name(ir_elem_of(xt)),
                   dtype_name(ir_elem_of(yt)));
    IrType t = lower_broadcast_shape(L, loc, xt, yt);
    bool scalars = t.rank == 0;
    if (scalars) {
        t.rank = 1;
        t.shape[0] = 1;
    }
    if (t.rank >= IR_MAX_RANK)
        diag_error(L->ctx, loc, "join() of rank-%d tensors would give rank %d (at most %d)", t.rank, t.rank + 1,
                   IR_MAX_RANK);
    x = lower_broadcast_to(L, loc, x, t);
    y = lower_broadcast_to(L, loc, y, t);
    IrType r = t;
    r.shape[r.rank++] = 2;
    lower_check_shape(L, loc, r.rank, r.shape);
    L->b.loc = loc;
    LVal j = lval_tensor(L, ir_build2(&L->b, OP_JOIN, r, x.id, y.id));
    if (scalars) {
        IrType two = drop_last(r);
        two.shape[0] = 2;
        j = build1(L, loc, OP_RESHAPE, j, two);
    }
    return j;
}

LVal bi_join(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    (void)rest, (void)n_rest;
    return join_values(L, loc, tensor_of(L, &a[0]), tensor_of(L, &a[1]));
}

/* [..., 2] -> ([...], [...]); a 1-D [2] gives two scalars */
LVal bi_split(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    (void)rest, (void)n_rest;
    LVal x = tensor_of(L, &a[0]);
    IrType xt = type_of(L, x);
    if (xt.rank == 0 || xt.shape[xt.rank - 1] != 2)
        diag_error(L->ctx, a[0].loc, "split() needs the last dim to have size 2, got shape %s", shape_str(L, xt));
    bool was_1d = xt.rank == 1;
    if (was_1d) {
        IrType t = xt;
        t.rank = 2;
        t.shape[0] = 1;
        t.shape[1] = 2;
        x = build1(L, loc, OP_RESHAPE, x, t);
        xt = t;
    }
    IrType h = drop_last(xt);
    L->b.loc = loc;
    IrType types[2] = {h, h};
    IrOp *op = ir_build(&L->b, OP_SPLIT, &x.id, 1, types, 2, 0);
    LVal p = lval_tensor(L, op->results[0]), q = lval_tensor(L, op->results[1]);
    if (was_1d) {
        p = build1(L, loc, OP_RESHAPE, p, ir_elem_of(h));
        q = build1(L, loc, OP_RESHAPE, q, ir_elem_of(h));
    }
    return pair(L, p, q);
}

/* flip(x, dim=None): x reversed along dim (default the last). Index i
 * along it (n = 2^k elements) becomes n-1-i, all its bits inverted: one
 * bit at a time, x seen as [P, 2, Q] (that bit the middle dim) gets the two
 * halves of the middle dim swapped, by a split and a join the other way
 * round, so every step is 3-D whatever x's rank and n (Triton's own flip
 * needs rank + k dims). */
LVal bi_flip(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    (void)rest, (void)n_rest;
    LVal x = tensor_of(L, &a[0]);
    IrType t = type_of(L, x);
    int64_t d = larg_absent(&a[1]) ? t.rank - 1 : larg_int(L, &a[1], "dim");
    if (d < 0) d += t.rank;
    if (d < 0 || d >= t.rank) diag_error(L->ctx, a[1].present ? a[1].loc : loc, "flip: dim must be None or in [-rank, rank)");
    int64_t n = t.shape[d], outer = 1, inner = 1;
    for (int i = 0; i < t.rank; i++) {
        if (i < d) outer *= t.shape[i];
        if (i > d) inner *= t.shape[i];
    }
    static const int64_t swap_last[3] = {0, 2, 1};
    for (int64_t bit = 1; bit < n; bit <<= 1) {
        int64_t dims[3] = {outer * (n / (2 * bit)), 2, bit * inner};
        LVal y = lower_reshape(L, loc, x, shape_type(L, loc, t, dims, 3));
        y = permute_dims(L, loc, y, swap_last, 3);                         /* [P, Q, 2] */
        IrType h = drop_last(type_of(L, y));
        IrType halves[2] = {h, h};
        L->b.loc = loc;
        IrOp *op = ir_build(&L->b, OP_SPLIT, &y.id, 1, halves, 2, 0);
        y = join_values(L, loc, lval_tensor(L, op->results[1]), lval_tensor(L, op->results[0]));
        x = permute_dims(L, loc, y, swap_last, 3);                         /* [P, 2, Q], halves swapped */
    }
    return lower_reshape(L, loc, x, t);
}

/* join, then the pairs flattened into the last dim: a0 b0 a1 b1 ... */
/* ---- sort, topk: Triton's bitonic network ----
 *
 * The last dim (n = 2^m) is sorted by compare-and-swap steps over partner
 * distances D = 2^i. A step sees x as [P, B, 2, D] (the pair's bit the 2),
 * moves the pair dim last, splits it into the left and right elements l
 * and r, and puts back, as Triton's _compare_and_swap computes them:
 *   l' = (l > r) != flip ? r : l,   r' = (r > l) != !flip ? l : r
 * flip being the order of the block the pair lies in: bit s of the
 * position in a merge of stage s < m (blocks alternate), `descending` in
 * the last. Every step is 4-D, whatever x's rank and n. */

/* bit `bit` of the block index b of [P, B, 2, D], as a [1, B, 1] i1 tile */
static LVal block_bit(Lower *L, SrcLoc loc, int64_t blocks, int bit) {
    int32_t nb = (int32_t)blocks;
    IrType at = ir_tile(ir_scalar(ET_I32), 1, &nb);
    L->b.loc = loc;
    IrOp *ar = ir_build(&L->b, OP_ARANGE, NULL, 0, &at, 1, 0);
    ar->attr.i = 0;
    ar->attr.i2 = nb;
    int64_t dims[3] = {1, blocks, 1};
    LVal b = lower_reshape(L, loc, lval_tensor(L, ar->results[0]), shape_type(L, loc, at, dims, 3));
    b = lower_binop(L, loc, BIN_BITAND, lower_binop(L, loc, BIN_RSHIFT, b, lval_int(bit)), lval_int(1));
    return lower_compare(L, loc, ACMP_NE, b, lval_int(0));
}

/* x with elements 2^i apart along the last dim compared and swapped;
 * flip_bit >= 0: the order is that bit of the position, else `descending` */
static LVal compare_swap(Lower *L, SrcLoc loc, LVal x, int i, int flip_bit, bool descending) {
    IrType t = type_of(L, x);
    int64_t n = t.shape[t.rank - 1], d = (int64_t)1 << i, blocks = n / (2 * d);
    int64_t dims[4] = {ir_numel(t) / n, blocks, 2, d};
    static const int64_t pair_last[4] = {0, 1, 3, 2};
    LVal y = permute_dims(L, loc, lower_reshape(L, loc, x, shape_type(L, loc, t, dims, 4)), pair_last, 4);
    IrType h = drop_last(type_of(L, y));
    IrType halves[2] = {h, h};
    L->b.loc = loc;
    IrOp *sp = ir_build(&L->b, OP_SPLIT, &y.id, 1, halves, 2, 0);
    LVal l = lval_tensor(L, sp->results[0]), r = lval_tensor(L, sp->results[1]);
    /* the left element's position has bit i clear: bit s > i of it is bit s - i - 1 of the block */
    LVal flip = flip_bit >= 0 ? block_bit(L, loc, blocks, flip_bit - i - 1) : lval_bool(descending);
    LVal not_flip = lower_unary(L, loc, UN_NOT, flip);
    LVal l2 = lower_where(L, loc, lower_compare(L, loc, ACMP_NE, lower_compare(L, loc, ACMP_GT, l, r), flip), r, l);
    LVal r2 = lower_where(L, loc, lower_compare(L, loc, ACMP_NE, lower_compare(L, loc, ACMP_GT, r, l), not_flip), l, r);
    y = permute_dims(L, loc, join_values(L, loc, l2, r2), pair_last, 4);
    return lower_reshape(L, loc, y, t);
}

/* tl.max (descending) or tl.min of x along axis, as Triton's sort_impl
 * reduces (a reduce works in its operand's layout: no layout is pushed
 * back onto x); as there, 16-bit floats come out f32 */
static LVal reduce_extreme(Lower *L, SrcLoc loc, LVal x, int axis, bool keep, bool descending) {
    LArg r[5] = {{true, x, loc}, {true, lval_int(axis), loc}, {0}, {0}, {true, lval_bool(keep), loc}};
    return descending ? bi_max(L, loc, r, NULL, 0) : bi_min(L, loc, r, NULL, 0);
}

/* the larger (descending) or smaller of the elements 2^i apart whose
 * position has bit i clear and set: the last dim halved */
static LVal halve(Lower *L, SrcLoc loc, LVal x, int i, bool descending) {
    IrType t = type_of(L, x);
    int64_t n = t.shape[t.rank - 1], d = (int64_t)1 << i;
    int64_t dims[4] = {ir_numel(t) / n, n / (2 * d), 2, d};
    LVal m = reduce_extreme(L, loc, lower_reshape(L, loc, x, shape_type(L, loc, t, dims, 4)), 2, false, descending);
    IrType out = ir_with_elem(t, ir_elem_of(type_of(L, m)));   /* f32 for 16-bit floats, as Triton's */
    out.shape[out.rank - 1] = (int32_t)(n / 2);
    return lower_reshape(L, loc, m, out);
}

/* sort_impl(x, k, dim, descending) of Triton: k = 0 sorts */
static LVal sort_impl(Lower *L, SrcLoc loc, LArg *a, int64_t k, const LArg *dim_arg, const LArg *desc_arg) {
    LVal x = tensor_of(L, &a[0]);
    IrType t = type_of(L, x);
    if (t.rank < 1) diag_error(L->ctx, a[0].loc, "sort needs a tensor of rank 1 or more, got a scalar");
    if (!larg_absent(dim_arg) && larg_int(L, dim_arg, "dim") != t.rank - 1)
        diag_error(L->ctx, dim_arg->loc, "only minor dimension is currently supported");
    bool descending = !larg_absent(desc_arg) && larg_int(L, desc_arg, "descending") != 0;
    int64_t n = t.shape[t.rank - 1];
    int m = log2_ceil(n), lk = k ? log2_ceil(k) : m;
    if (lk == 0) return reduce_extreme(L, loc, x, t.rank - 1, true, descending);   /* the max (min), a dim of 1 */
    for (int s = 1; s <= lk; s++)
        for (int i = s - 1; i >= 0; i--) x = compare_swap(L, loc, x, i, s < m ? s : -1, descending);
    for (int s = lk + 1; s <= m; s++) {   /* bitonic top-k: halve, merge the halves' blocks of k */
        x = halve(L, loc, x, lk, descending);
        for (int i = lk - 1; i >= 0; i--) x = compare_swap(L, loc, x, i, s < m ? lk : -1, descending);
    }
    return x;
}

LVal bi_sort(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    (void)rest, (void)n_rest;
    return sort_impl(L, loc, a, 0, &a[1], &a[2]);
}

/* topk(x, k, dim=None, descending=True): the k largest (smallest) of the
 * last dim, in order */
LVal bi_topk(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    (void)rest, (void)n_rest;
    LVal x = tensor_of(L, &a[0]);
    IrType t = type_of(L, x);
    int64_t k = larg_int(L, &a[1], "topk's k");
    if (k <= 0) diag_error(L->ctx, a[1].loc, "topk: k must be greater than 0");
    if (k & (k - 1)) diag_error(L->ctx, a[1].loc, "topk: k must be a power of two");
    if (t.rank && k > t.shape[t.rank - 1])
        diag_error(L->ctx, a[1].loc, "topk: k must not exceed the size of the selected dimension");
    LArg desc = larg_absent(&a[3]) ? (LArg){true, lval_bool(true), loc} : a[3];
    return sort_impl(L, loc, a, k, &a[2], &desc);
}

LVal bi_interleave(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    (void)rest, (void)n_rest;
    LVal j = join_values(L, loc, tensor_of(L, &a[0]), tensor_of(L, &a[1]));
    IrType t = type_of(L, j);
    if (t.rank == 1) return j;
    IrType r = drop_last(t);
    r.shape[r.rank - 1] *= 2;
    lower_check_shape(L, loc, r.rank, r.shape);
    return build1(L, loc, OP_RESHAPE, j, r);
}

/* Tensors of one shape, concatenated along dim (0 by default) keeping
 * their order: join, the new dim moved before dim, then merged with it.
 * Triton 3.6 takes only can_reorder=True (any order); this order is one. */
LVal bi_cat(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    (void)rest, (void)n_rest;
    LVal x = tensor_of(L, &a[0]), y = tensor_of(L, &a[1]);
    IrType xt = type_of(L, x), yt = type_of(L, y);
    if (xt.rank == 0 || !ir_type_eq(xt, yt))
        diag_error(L->ctx, loc, "cat() supports tensors of one shape and dtype only, got %s and %s",
                   type_str(L, xt), type_str(L, yt));
    int dim = 0;
    if (!larg_absent(&a[3])) {
        int64_t d = const_int(L, a[3].loc, &a[3].v, "cat's dim");
        if (d < -xt.rank || d >= xt.rank)
            diag_error(L->ctx, a[3].loc, "invalid axis %lld. Expected %d <= axis < %d", (long long)d, -xt.rank, xt.rank);
        dim = (int)(d < 0 ? d + xt.rank : d);
    }
    LVal j = join_values(L, loc, x, y);
    int64_t perm[IR_MAX_RANK];
    for (int i = 0, k = 0; i <= xt.rank; i++) perm[i] = i == dim ? xt.rank : k++;
    LVal p = permute_dims(L, loc, j, perm, xt.rank + 1);
    IrType r = xt;
    r.shape[dim] *= 2;
    lower_check_shape(L, loc, r.rank, r.shape);
    return build1(L, loc, OP_RESHAPE, p, r);
}
