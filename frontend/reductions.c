/* Reductions: tl.reduce with a @jit combine function, and the reductions
 * Triton's standard library builds on it (sum, max, min with or without
 * indices, argmax, argmin, xor_sum, reduce_or), as functions and as tensor
 * methods. Each becomes one `reduce` op per reduced axis; the combine
 * function is its region: the user's function inlined on scalars, or the
 * one op (or, for indices, the few ops) the library function would be.
 * axis=None reduces the last axis, then the one before, down to axis 0.
 *
 * Scans (tl.associative_scan, cumsum, cumprod) are built the same way: one
 * `scan` op whose region is the combine function. */
#include "lower.h"

#include <string.h>

enum { AXIS_ALL = -1000 };

typedef enum Combine {
    CB_USER, CB_ADD, CB_MAX, CB_MIN, CB_XOR, CB_OR,
    CB_ARGMAX, CB_ARGMIN,   /* (value, index) pairs */
    CB_MUL,                 /* cumprod */
} Combine;

typedef struct CombineSpec {
    Combine kind;
    bool tie_left;          /* argmax/argmin: equal values keep the lower index */
    AstFunc *fn;            /* CB_USER */
    SrcLoc fn_loc;
} CombineSpec;


static bool flag(Lower *L, const LArg *a, bool dflt, const char *what) {
    if (larg_absent(a)) return dflt;
    if (a->v.kind == LV_TENSOR) diag_error(L->ctx, a->loc, "%s must be a compile-time value", what);
    return lower_truth(L, a->loc, &a->v);
}

/* verb: "reduce" or "scan", for the message */
static LVal tensor_arg(Lower *L, const LArg *a, const char *verb) {
    LVal v = lval_to_tensor(L, a->loc, a->v);
    if (lower_type(L, &v).rank == 0) diag_error(L->ctx, a->loc, "cannot %s a scalar: the input must be a tensor", verb);
    return v;
}

/* axis: a compile-time int in [-rank, rank), or None (all axes) */
static int axis_arg(Lower *L, const LArg *a, int rank) {
    if (larg_absent(a)) return AXIS_ALL;
    int64_t v;
    if (a->v.kind == LV_INT || a->v.kind == LV_BOOL) v = a->v.i;
    else if (a->v.kind == LV_TENSOR && a->v.has_origin) v = a->v.origin_i;
    else diag_error(L->ctx, a->loc, "axis must be a compile-time integer (tl.constexpr) or None, got a %s",
                    lval_kind_name(&a->v));
    if (v < -rank || v >= rank)
        diag_error(L->ctx, a->loc, "invalid axis %lld. Expected %d <= axis < %d", (long long)v, -rank, rank);
    return (int)(v < 0 ? v + rank : v);
}

/* ---- the combine region ---- */

static ValId scalar_op(Lower *L, Opcode opc, IrType t, ValId a, ValId b) { return ir_build2(&L->b, opc, t, a, b); }

static ValId cmp_op(Lower *L, CmpPred p, ValId a, ValId b) {
    ValId ops[2] = {a, b};
    IrType t = ir_scalar(ET_I1);
    IrOp *op = ir_build(&L->b, OP_CMP, ops, 2, &t, 1, 0);
    op->attr.i = p;
    return op->results[0];
}

/* Triton's _argmax_combine / _argmin_combine: the first pair wins when its
 * value is greater (smaller), or, breaking ties to the left, equal with a
 * lower index. */
static void arg_combine(Lower *L, const CombineSpec *cs, const ValId *args, ValId *out) {
    ValId v1 = args[0], i1 = args[1], v2 = args[2], i2 = args[3];
    IrType b = ir_scalar(ET_I1);
    ValId win = cmp_op(L, cs->kind == CB_ARGMAX ? CMP_GT : CMP_LT, v1, v2);
    if (cs->tie_left) {
        ValId tie = scalar_op(L, OP_AND, b, cmp_op(L, CMP_EQ, v1, v2), cmp_op(L, CMP_LT, i1, i2));
        win = scalar_op(L, OP_OR, b, win, tie);
    }
    out[0] = ir_build3(&L->b, OP_SELECT, ir_type(L->fn, v1), win, v1, v2);
    out[1] = ir_build3(&L->b, OP_SELECT, ir_type(L->fn, i1), win, i1, i2);
}

/* The user's @jit function on the 2n scalars; it returns n of them. */
static void user_combine(Lower *L, SrcLoc loc, const CombineSpec *cs, const ValId *args, uint32_t n, ValId *out) {
    AstFunc *f = cs->fn;
    CallArgs ca;
    memset(&ca, 0, sizeof ca);
    ca.n = (int)(2 * n);
    ca.args = arena_alloc(L->ctx->arena, sizeof(LVal) * 2 * n);
    ca.locs = arena_alloc(L->ctx->arena, sizeof(SrcLoc) * 2 * n);
    for (uint32_t k = 0; k < 2 * n; k++) {
        ca.args[k] = lval_tensor(L, args[k]);
        ca.locs[k] = loc;
    }
    LVal r = lower_call_jit(L, loc, f, &ca);
    const LVal *items = &r;
    size_t got = 1;
    if (r.kind == LV_TUPLE) {
        items = r.items;
        got = r.n;
    }
    if (got != n || r.kind == LV_NONE)
        diag_error(L->ctx, cs->fn_loc, "combine_fn '%s' must return %u value%s (one per input), got %s", f->node->str,
                   n, n == 1 ? "" : "s", r.kind == LV_NONE ? "None" : arena_printf(L->ctx->arena, "%zu", got));
    for (uint32_t k = 0; k < n; k++) {
        IrType want = ir_type(L->fn, args[k]);
        LVal v = items[k];
        if (lval_is_number(&v)) v = lower_cast(L, loc, v, want, false, 0);
        if (v.kind != LV_TENSOR || !ir_type_eq(lower_type(L, &v), want))
            diag_error(L->ctx, cs->fn_loc, "combine_fn '%s' returned %s for value %u, expected a scalar %s", f->node->str,
                       v.kind == LV_TENSOR ? type_str(L, lower_type(L, &v)) : lval_kind_name(&v), k,
                       dtype_name(want));
        out[k] = v.id;
    }
}

static void fill_combine(Lower *L, SrcLoc loc, const CombineSpec *cs, IrOp *op) {
    IrBlock *blk = op->regions[0];
    uint32_t n = op->n_operands;
    IrBuilder saved = L->b;
    L->b.block = blk;
    L->b.before = NULL;
    L->b.loc = loc;
    ValId *out = arena_alloc(L->ctx->arena, sizeof(ValId) * n);
    IrType t = ir_type(L->fn, blk->args[0]);
    static const Opcode one_op[] = {[CB_ADD] = OP_ADD, [CB_MAX] = OP_MAX, [CB_MIN] = OP_MIN,
                                    [CB_XOR] = OP_XOR, [CB_OR] = OP_OR, [CB_MUL] = OP_MUL};
    switch (cs->kind) {
    case CB_USER: user_combine(L, loc, cs, blk->args, n, out); break;
    case CB_ARGMAX:
    case CB_ARGMIN: arg_combine(L, cs, blk->args, out); break;
    default: out[0] = scalar_op(L, one_op[cs->kind], t, blk->args[0], blk->args[1]); break;
    }
    ir_build(&L->b, OP_YIELD, out, n, NULL, 0, 0);
    L->b = saved;
}

/* ---- building reduce ops ---- */

/* One reduce of the n tiles xs along axis; results into xs. */
static void reduce_axis(Lower *L, SrcLoc loc, ValId *xs, uint32_t n, int axis, const CombineSpec *cs) {
    IrType *rt = arena_alloc(L->ctx->arena, sizeof(IrType) * n);
    for (uint32_t k = 0; k < n; k++) {
        IrType t = ir_type(L->fn, xs[k]);
        rt[k] = t;
        rt[k].rank--;
        for (int d = axis; d < rt[k].rank; d++) rt[k].shape[d] = t.shape[d + 1];
        rt[k].shape[rt[k].rank] = 0;
    }
    L->b.loc = loc;
    IrOp *op = ir_build(&L->b, OP_REDUCE, xs, n, rt, n, 1);
    op->attr.i = axis;
    for (uint32_t j = 0; j < 2; j++)
        for (uint32_t k = 0; k < n; k++) ir_block_add_arg(L->fn, op->regions[0], ir_elem_of(rt[k]));
    fill_combine(L, loc, cs, op);
    for (uint32_t k = 0; k < n; k++) xs[k] = op->results[k];
}

/* reduce(xs, axis, combine, keep_dims) over n tiles of one shape: a tensor
 * for one input, else a tuple */
static LVal reduce_tiles(Lower *L, SrcLoc loc, ValId *xs, uint32_t n, int axis, const CombineSpec *cs, bool keep) {
    int rank = ir_type(L->fn, xs[0]).rank;
    if (axis == AXIS_ALL)
        for (int d = rank - 1; d >= 0; d--) reduce_axis(L, loc, xs, n, d, cs);
    else reduce_axis(L, loc, xs, n, axis, cs);
    if (keep)
        for (uint32_t k = 0; k < n; k++) {
            if (axis != AXIS_ALL) xs[k] = lower_expand_dim(L, loc, xs[k], axis);
            else
                for (int d = 0; d < rank; d++) xs[k] = lower_expand_dim(L, loc, xs[k], d);
        }
    if (n == 1) return lval_tensor(L, xs[0]);
    LVal t;
    memset(&t, 0, sizeof t);
    t.kind = LV_TUPLE;
    t.n = n;
    t.items = arena_alloc(L->ctx->arena, sizeof(LVal) * n);
    for (uint32_t k = 0; k < n; k++) t.items[k] = lval_tensor(L, xs[k]);
    return t;
}

static LVal reduce_one(Lower *L, SrcLoc loc, LVal x, int axis, const CombineSpec *cs, bool keep) {
    ValId *xs = arena_alloc(L->ctx->arena, sizeof(ValId));
    xs[0] = x.id;
    return reduce_tiles(L, loc, xs, 1, axis, cs, keep);
}

/* The input of tl.reduce / tl.associative_scan (`what`): one tensor or a
 * tuple of tensors of one shape; *n of them, *t0 the first one's type. */
static ValId *tile_inputs(Lower *L, const LArg *a, const char *what, uint32_t *n, IrType *t0) {
    const LVal *items = &a->v;
    *n = 1;
    if (a->v.kind == LV_TUPLE) {
        items = a->v.items;
        *n = (uint32_t)a->v.n;
        if (!*n) diag_error(L->ctx, a->loc, "%s needs at least one input", what);
    }
    const char *verb = !strcmp(what, "reduce") ? "reduce" : "scan";
    ValId *xs = arena_alloc(L->ctx->arena, sizeof(ValId) * *n);
    *t0 = (IrType){0};
    for (uint32_t k = 0; k < *n; k++) {
        LArg one = {true, items[k], a->loc};
        LVal v = tensor_arg(L, &one, verb);
        IrType t = lower_type(L, &v);
        if (k && (t.rank != t0->rank || memcmp(t.shape, t0->shape, sizeof t.shape)))
            diag_error(L->ctx, a->loc, "%s inputs must have the same shape, got %s and %s", what, shape_str(L, *t0),
                       shape_str(L, t));
        if (!k) *t0 = t;
        xs[k] = v.id;
    }
    return xs;
}

/* combine_fn: a @jit function of 2n arguments; doing: "reducing" / "scanning" */
static AstFunc *combine_fn_arg(Lower *L, const LArg *a, uint32_t n, const char *doing) {
    if (a->v.kind != LV_FUNC)
        diag_error(L->ctx, a->loc, "combine_fn must be a @jit function, got a %s", lval_kind_name(&a->v));
    AstFunc *f = a->v.func;
    if (f->node->args.n != (int)(2 * n))
        diag_error(L->ctx, a->loc, "combine_fn '%s' takes %d argument%s, but %s %u input%s needs %u", f->node->str,
                   f->node->args.n, f->node->args.n == 1 ? "" : "s", doing, n, n == 1 ? "" : "s", 2 * n);
    return f;
}

/* ---- the builtins ---- */

/* What reduce and associative_scan give for an input written as a tuple:
 * a tuple, a one-item one too (`s, = tl.associative_scan((x,), 0, f)`). */
static LVal tuple_like(Lower *L, const LArg *input, LVal v) {
    if (input->v.kind != LV_TUPLE || v.kind == LV_TUPLE) return v;
    LVal t = {0};
    t.kind = LV_TUPLE;
    t.n = 1;
    t.items = arena_alloc(L->ctx->arena, sizeof(LVal));
    t.items[0] = v;
    return t;
}

/* reduce(input, axis, combine_fn, keep_dims=False); input may be a tuple */
LVal bi_reduce(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    uint32_t n;
    IrType t0;
    ValId *xs = tile_inputs(L, &a[0], "reduce", &n, &t0);
    int axis = axis_arg(L, &a[1], t0.rank);
    CombineSpec cs = {CB_USER, false, combine_fn_arg(L, &a[2], n, "reducing"), a[2].loc};
    return tuple_like(L, &a[0], reduce_tiles(L, loc, xs, n, axis, &cs, flag(L, &a[3], false, "keep_dims")));
}

/* sum: integers narrower than 32 bits add up in (u)int32, floats in their
 * own type, unless dtype= says otherwise */
LVal bi_sum(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    LVal x = tensor_arg(L, &a[0], "reduce");
    IrType t = lower_type(L, &x);
    int axis = axis_arg(L, &a[1], t.rank);
    ElemType e = t.elem, to = e;
    if (!larg_absent(&a[3])) {
        if (a[3].v.kind != LV_DTYPE) diag_error(L->ctx, a[3].loc, "dtype must be a dtype such as tl.float32");
        to = a[3].v.dtype.elem;
    } else if (elem_is_int(e) && elem_bits(e) < 32) {
        to = elem_is_signed(e) ? ET_I32 : ET_U32;
    }
    if (to == ET_PTR || e == ET_PTR) diag_error(L->ctx, loc, "sum of pointers is not supported");
    x = lower_cast(L, loc, x, ir_scalar(to), false, 0);
    CombineSpec cs = {CB_ADD, false, NULL, loc};
    return reduce_one(L, loc, x, axis, &cs, flag(L, &a[2], false, "keep_dims"));
}

static LVal arg_indices(Lower *L, SrcLoc loc, LVal x, int axis, bool is_max, bool tie_left, bool keep);

/* max/min: without indices, narrower than 32 bits goes to fp32/int32;
 * bf16 always to fp32 */
static LVal minmax(Lower *L, SrcLoc loc, LArg *a, bool is_max) {
    LVal x = tensor_arg(L, &a[0], "reduce");
    IrType t = lower_type(L, &x);
    int axis = axis_arg(L, &a[1], t.rank);
    bool keep = flag(L, &a[4], false, "keep_dims");
    if (t.elem == ET_PTR) diag_error(L->ctx, a[0].loc, "%s of pointers is not supported", is_max ? "max" : "min");
    if (t.elem == ET_BF16) x = lower_cast(L, loc, x, ir_scalar(ET_F32), false, 0);
    if (flag(L, &a[2], false, "return_indices"))
        return arg_indices(L, loc, x, axis, is_max, flag(L, &a[3], true, "return_indices_tie_break_left"), keep);
    ElemType e = lower_type(L, &x).elem;
    if (elem_bits(e) < 32) x = lower_cast(L, loc, x, ir_scalar(elem_is_float(e) ? ET_F32 : ET_I32), false, 0);
    CombineSpec cs = {is_max ? CB_MAX : CB_MIN, false, NULL, loc};
    return reduce_one(L, loc, x, axis, &cs, keep);
}

LVal bi_max(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) { return minmax(L, loc, a, true); }
LVal bi_min(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) { return minmax(L, loc, a, false); }

/* The index of every element along axis (the flat row-major index for
 * axis=None), as an int32 tile of x's shape. */
static ValId index_tile(Lower *L, SrcLoc loc, IrType t, int axis) {
    LVal idx = lval_int(0);
    int64_t stride = 1;
    for (int d = t.rank - 1; d >= 0; d--) {
        if (axis != AXIS_ALL && d != axis) continue;
        int32_t n = t.shape[d];
        L->b.loc = loc;
        IrType at = ir_tile(ir_scalar(ET_I32), 1, &n);
        IrOp *ar = ir_build(&L->b, OP_ARANGE, NULL, 0, &at, 1, 0);
        ar->attr.i = 0;
        ar->attr.i2 = n;
        ValId v = ar->results[0];
        for (int e = 0; e < t.rank; e++)   /* to rank, size 1 except at d */
            if (e != d) v = lower_expand_dim(L, loc, v, e);
        LVal term = lval_tensor(L, v);
        if (stride != 1) term = lower_binop(L, loc, BIN_MUL, term, lval_int(stride));
        idx = lower_binop(L, loc, BIN_ADD, idx, term);
        stride *= n;
    }
    return lower_broadcast_to(L, loc, idx, ir_with_elem(t, ir_scalar(ET_I32))).id;
}

static LVal arg_indices(Lower *L, SrcLoc loc, LVal x, int axis, bool is_max, bool tie_left, bool keep) {
    IrType t = lower_type(L, &x);
    ValId *xs = arena_alloc(L->ctx->arena, sizeof(ValId) * 2);
    xs[0] = x.id;
    xs[1] = index_tile(L, loc, t, axis);
    CombineSpec cs = {is_max ? CB_ARGMAX : CB_ARGMIN, tie_left, NULL, loc};
    return reduce_tiles(L, loc, xs, 2, axis, &cs, keep);
}

static LVal argminmax(Lower *L, SrcLoc loc, LArg *a, bool is_max) {
    LVal x = tensor_arg(L, &a[0], "reduce");
    IrType t = lower_type(L, &x);
    int axis = axis_arg(L, &a[1], t.rank);
    if (t.elem == ET_PTR) diag_error(L->ctx, a[0].loc, "%s of pointers is not supported", is_max ? "argmax" : "argmin");
    if (t.elem == ET_BF16) x = lower_cast(L, loc, x, ir_scalar(ET_F32), false, 0);
    LVal r = arg_indices(L, loc, x, axis, is_max, flag(L, &a[2], true, "tie_break_left"), flag(L, &a[3], false, "keep_dims"));
    return r.items[1];
}

LVal bi_argmax(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) { return argminmax(L, loc, a, true); }
LVal bi_argmin(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) { return argminmax(L, loc, a, false); }

static LVal int_reduce(Lower *L, SrcLoc loc, LArg *a, Combine kind, const char *name) {
    LVal x = tensor_arg(L, &a[0], "reduce");
    IrType t = lower_type(L, &x);
    if (!elem_is_int(t.elem)) diag_error(L->ctx, a[0].loc, "%s only supported for integers, got %s", name, dtype_name(ir_elem_of(t)));
    int axis = axis_arg(L, &a[1], t.rank);
    CombineSpec cs = {kind, false, NULL, loc};
    return reduce_one(L, loc, x, axis, &cs, flag(L, &a[2], false, "keep_dims"));
}

LVal bi_xor_sum(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) { return int_reduce(L, loc, a, CB_XOR, "xor_sum"); }
LVal bi_reduce_or(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) { return int_reduce(L, loc, a, CB_OR, "reduce_or"); }

/* ---- scans ---- */

/* axis: a compile-time int; cumsum's and cumprod's default is 0 */
static int scan_axis_arg(Lower *L, const LArg *a, int rank) {
    if (!a->present) return 0;
    int axis = axis_arg(L, a, rank);
    if (axis == AXIS_ALL) diag_error(L->ctx, a->loc, "a scan needs an axis: an integer, not None");
    return axis;
}

/* One scan of the n tiles xs along axis: a tensor for one input, else a
 * tuple. */
static LVal scan_tiles(Lower *L, SrcLoc loc, ValId *xs, uint32_t n, int axis, bool reverse, const CombineSpec *cs) {
    IrType *rt = arena_alloc(L->ctx->arena, sizeof(IrType) * n);
    for (uint32_t k = 0; k < n; k++) rt[k] = ir_type(L->fn, xs[k]);
    L->b.loc = loc;
    IrOp *op = ir_build(&L->b, OP_SCAN, xs, n, rt, n, 1);
    op->attr.i = axis;
    op->attr.i2 = reverse;
    for (uint32_t j = 0; j < 2; j++)
        for (uint32_t k = 0; k < n; k++) ir_block_add_arg(L->fn, op->regions[0], ir_elem_of(rt[k]));
    fill_combine(L, loc, cs, op);
    if (n == 1) return lval_tensor(L, op->results[0]);
    LVal t;
    memset(&t, 0, sizeof t);
    t.kind = LV_TUPLE;
    t.n = n;
    t.items = arena_alloc(L->ctx->arena, sizeof(LVal) * n);
    for (uint32_t k = 0; k < n; k++) t.items[k] = lval_tensor(L, op->results[k]);
    return t;
}

/* associative_scan(input, axis, combine_fn, reverse=False); input may be a
 * tuple of tensors of one shape */
LVal bi_associative_scan(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    uint32_t n;
    IrType t0;
    ValId *xs = tile_inputs(L, &a[0], "associative_scan", &n, &t0);
    int axis = scan_axis_arg(L, &a[1], t0.rank);
    CombineSpec cs = {CB_USER, false, combine_fn_arg(L, &a[2], n, "scanning"), a[2].loc};
    return tuple_like(L, &a[0], scan_tiles(L, loc, xs, n, axis, flag(L, &a[3], false, "reverse"), &cs));
}

/* cumsum/cumprod: dtype= casts first; else cumsum widens integers narrower
 * than 32 bits to (u)int32 as sum does, and both take bf16 to fp32 */
static LVal cum_op(Lower *L, SrcLoc loc, LArg *a, Combine kind, const char *name) {
    LVal x = tensor_arg(L, &a[0], "scan");
    IrType t = lower_type(L, &x);
    int axis = scan_axis_arg(L, &a[1], t.rank);
    ElemType e = t.elem, to = e;
    if (e == ET_PTR) diag_error(L->ctx, a[0].loc, "%s of pointers is not supported", name);
    if (kind == CB_ADD && !larg_absent(&a[3])) {
        if (a[3].v.kind != LV_DTYPE) diag_error(L->ctx, a[3].loc, "dtype must be a dtype such as tl.float32");
        to = a[3].v.dtype.elem;
        if (to == ET_PTR) diag_error(L->ctx, a[3].loc, "%s of pointers is not supported", name);
    } else if (kind == CB_ADD && elem_is_int(e) && elem_bits(e) < 32) {
        to = elem_is_signed(e) ? ET_I32 : ET_U32;
    } else if (e == ET_BF16) {
        to = ET_F32;
    }
    x = lower_cast(L, loc, x, ir_scalar(to), false, 0);
    ValId *xs = arena_alloc(L->ctx->arena, sizeof(ValId));
    xs[0] = x.id;
    CombineSpec cs = {kind, false, NULL, loc};
    return scan_tiles(L, loc, xs, 1, axis, flag(L, &a[2], false, "reverse"), &cs);
}

LVal bi_cumsum(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) { return cum_op(L, loc, a, CB_ADD, "cumsum"); }
LVal bi_cumprod(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) { return cum_op(L, loc, a, CB_MUL, "cumprod"); }
