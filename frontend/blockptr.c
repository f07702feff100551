/* Block pointers: tl.make_block_ptr, tl.advance, and tl.load / tl.store
 * through them.
 *
 * A block pointer is a compile-time aggregate (LV_BLOCK_PTR): the base
 * pointer, the tensor's shape and strides (int64) and the block's offsets
 * (int32), one each per dim, with the block's shape and element type in
 * its dtype. It crosses loops and ifs leaf by leaf like a tuple (lower.c),
 * so `p = tl.advance(p, (0, BK))` in a K loop carries the offsets. A load
 * or store through it is the pointer tile and mask Triton's rewrite of
 * tensor pointers makes:
 *
 *   ptrs[i0, .., ir] = base + sum_d (int64)(offsets[d] + i_d) * strides[d]
 *   mask             = and over the dims d in boundary_check of
 *                      0 <= offsets[d] + i_d < shape[d]
 *
 * with the out-of-bounds elements of a load reading zero (padding_option
 * "zero", or none given) or NaN ("nan"). `order` is a layout hint only:
 * axis analysis finds the contiguous dim from the strides itself. */
#include "lower.h"

#include <math.h>
#include <string.h>

static int block_rank(const LVal *bp) { return (int)(bp->n - 1) / 3; }
static LVal *bp_shape(LVal *bp, int d) { return &bp->items[1 + d]; }
static LVal *bp_stride(LVal *bp, int d) { return &bp->items[1 + block_rank(bp) + d]; }
static LVal *bp_offset(LVal *bp, int d) { return &bp->items[1 + 2 * block_rank(bp) + d]; }

/* The items of a tuple argument (a single value is a tuple of one) */
static const LVal *tuple_items(const LArg *a, size_t *n) {
    if (a->v.kind == LV_TUPLE) {
        *n = a->v.n;
        return a->v.items;
    }
    *n = 1;
    return &a->v;
}

/* v as an integer of type t: a number stays a number, a scalar integer
 * tensor is cast */
static LVal index_value(Lower *L, SrcLoc loc, const LVal *v, ElemType t, const char *what) {
    if (v->kind == LV_INT || v->kind == LV_BOOL) return lval_int(v->i);
    if (v->kind == LV_TENSOR) {
        IrType vt = lower_type(L, v);
        if (vt.rank == 0 && elem_is_int((ElemType)vt.elem) && vt.elem != ET_I1)
            return lower_cast(L, loc, *v, ir_scalar(t), false, 0);
    }
    diag_error(L->ctx, loc, "Expected %s to be integers (scalars), got a %s", what, lval_kind_name(v));
}

static void index_tuple(Lower *L, const LArg *a, ElemType t, const char *what, LVal *out, int rank) {
    size_t n;
    const LVal *items = tuple_items(a, &n);
    if ((int)n != rank)
        diag_error(L->ctx, a->loc, "Expected shape/strides/offsets/block_shape to have the same length");
    for (int d = 0; d < rank; d++) out[d] = index_value(L, a->loc, &items[d], t, what);
}

/* tl.make_block_ptr(base, shape, strides, offsets, block_shape, order) */
LVal bi_make_block_ptr(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    LVal base = lval_to_tensor(L, a[0].loc, a[0].v);
    IrType bt = lower_type(L, &base);
    if (bt.rank != 0 || bt.elem != ET_PTR)
        diag_error(L->ctx, a[0].loc, "Expected `base` to be a pointer type (but not a block pointer type or others)");
    if (bt.pointee == ET_I1) diag_error(L->ctx, a[0].loc, "block pointers to int1 are not supported");
    size_t rank;
    const LVal *bs = tuple_items(&a[4], &rank);
    if (rank < 1 || rank > IR_MAX_RANK) diag_error(L->ctx, a[4].loc, "block_shape must have 1 to %d dims", IR_MAX_RANK);
    int32_t shape[IR_MAX_RANK];
    for (size_t d = 0; d < rank; d++) {
        int64_t v = bs[d].kind == LV_INT ? bs[d].i : bs[d].kind == LV_TENSOR && bs[d].has_origin ? bs[d].origin_i : -1;
        if (bs[d].kind != LV_INT && !(bs[d].kind == LV_TENSOR && bs[d].has_origin))
            diag_error(L->ctx, a[4].loc, "Expected a list of constant integers (`int32_t` range) in `block_shape`");
        if (v < 1 || v > INT32_MAX || (v & (v - 1)))
            diag_error(L->ctx, a[4].loc, "block_shape's dims must be powers of two, got %lld", (long long)v);
        shape[d] = (int32_t)v;
    }
    size_t n_order;
    const LVal *order = tuple_items(&a[5], &n_order);
    bool seen[IR_MAX_RANK] = {false};
    for (size_t d = 0; d < n_order; d++) {
        int64_t o = order[d].kind == LV_INT ? order[d].i : -1;
        if (o < 0 || o >= (int64_t)rank || seen[o] || n_order != rank)
            diag_error(L->ctx, a[5].loc, "Expected a permutation of (0, 1, ..., len(order)-1) in order");
        seen[o] = true;
    }
    LVal bp = {0};
    bp.kind = LV_BLOCK_PTR;
    bp.n = 1 + 3 * rank;
    bp.items = arena_alloc(L->ctx->arena, sizeof(LVal) * bp.n);
    bp.items[0] = base;
    bp.dtype = ir_tile(ir_scalar(bt.pointee), (int)rank, shape);
    index_tuple(L, &a[1], ET_I64, "shape", bp.items + 1, (int)rank);
    index_tuple(L, &a[2], ET_I64, "strides", bp.items + 1 + rank, (int)rank);
    index_tuple(L, &a[3], ET_I32, "offsets", bp.items + 1 + 2 * rank, (int)rank);
    return bp;
}

static LVal block_ptr_arg(Lower *L, const LArg *a, const char *fn) {
    if (a->v.kind != LV_BLOCK_PTR) diag_error(L->ctx, a->loc, "tl.%s expects a block pointer, got a %s", fn,
                                               lval_kind_name(&a->v));
    return a->v;
}

/* tl.advance(base, offsets): the block moved by offsets (int32) */
LVal bi_advance(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    LVal bp = block_ptr_arg(L, &a[0], "advance");
    int rank = block_rank(&bp);
    LVal r = bp;
    r.items = arena_alloc(L->ctx->arena, sizeof(LVal) * bp.n);
    memcpy(r.items, bp.items, sizeof(LVal) * bp.n);
    LVal delta[IR_MAX_RANK];
    index_tuple(L, &a[1], ET_I32, "offsets", delta, rank);
    for (int d = 0; d < rank; d++) {
        LVal *o = bp_offset(&r, d);
        if (delta[d].kind == LV_INT && delta[d].i == 0) continue;
        *o = lower_binop(L, loc, BIN_ADD, *o, delta[d]);
        if (o->kind == LV_TENSOR) *o = lower_cast(L, loc, *o, ir_scalar(ET_I32), false, 0);
    }
    return r;
}

/* offsets[d] + arange(0, B_d) as int32, shaped 1 x .. x B_d x .. x 1 */
static LVal block_index(Lower *L, SrcLoc loc, LVal *bp, int d) {
    int rank = block_rank(bp);
    int32_t n = bp->dtype.shape[d];
    IrType t = ir_tile(ir_scalar(ET_I32), 1, &n);
    L->b.loc = loc;
    IrOp *ar = ir_build(&L->b, OP_ARANGE, NULL, 0, &t, 1, 0);
    ar->attr.i2 = n;
    LVal idx = lower_binop(L, loc, BIN_ADD, lval_tensor(L, ar->results[0]), *bp_offset(bp, d));
    idx = lower_cast(L, loc, idx, ir_scalar(ET_I32), false, 0);
    for (int j = 0; j < rank; j++)
        if (j != d) idx = lval_tensor(L, lower_expand_dim(L, loc, idx.id, j));
    return idx;
}

/* the dims boundary_check names, checked as Triton does */
static unsigned boundary_dims(Lower *L, const LArg *a, int rank) {
    if (larg_absent(a)) return 0;
    size_t n;
    const LVal *items = tuple_items(a, &n);
    unsigned dims = 0;
    for (size_t i = 0; i < n; i++) {
        if (items[i].kind != LV_INT) diag_error(L->ctx, a->loc, "boundary_check must be a tuple of constant integers");
        if (items[i].i < 0 || items[i].i >= rank)
            diag_error(L->ctx, a->loc, "boundary_check argument out of range: %lld (the block has %d dims)",
                       (long long)items[i].i, rank);
        dims |= 1u << items[i].i;
    }
    return dims;
}

/* The pointer tile of the block, and in *mask the bounds of the dims in
 * `dims` (none: no mask) */
static LVal block_pointers(Lower *L, SrcLoc loc, LVal *bp, unsigned dims, LVal *mask) {
    int rank = block_rank(bp);
    LVal ptrs = bp->items[0];
    *mask = lval_none();
    for (int d = 0; d < rank; d++) {
        LVal idx = block_index(L, loc, bp, d);
        LVal wide = lower_cast(L, loc, idx, ir_scalar(ET_I64), false, 0);
        ptrs = lower_binop(L, loc, BIN_ADD, ptrs, lower_binop(L, loc, BIN_MUL, wide, *bp_stride(bp, d)));
        if (!(dims >> d & 1)) continue;
        LVal zero = lval_int(0);
        LVal in = lower_binop(L, loc, BIN_BITAND, lower_compare(L, loc, ACMP_GE, wide, zero),
                              lower_compare(L, loc, ACMP_LT, wide, *bp_shape(bp, d)));
        *mask = mask->kind == LV_NONE ? in : lower_binop(L, loc, BIN_BITAND, *mask, in);
    }
    ptrs = lower_broadcast_to(L, loc, ptrs, bp->dtype);
    if (mask->kind != LV_NONE) *mask = lower_broadcast_to(L, loc, *mask, bp->dtype);
    return ptrs;
}

/* tl.load(block_ptr, boundary_check=, padding_option=, ...): the operands of
 * the load (pointers, mask, other), *n_ops of them */
int lower_block_load(Lower *L, SrcLoc loc, LArg *a, ValId *ops) {
    LVal bp = a[0].v;
    if (!larg_absent(&a[1]) || !larg_absent(&a[2]))
        diag_error(L->ctx, loc, "`mask` and `other` arguments cannot be specified for loading block pointers");
    unsigned dims = boundary_dims(L, &a[3], block_rank(&bp));
    const char *pad = larg_str(L, &a[4], "padding_option");
    bool nan = !strcmp(pad, "nan");
    if (*pad && !nan && strcmp(pad, "zero")) diag_error(L->ctx, a[4].loc, "Padding option must be one of zero or nan");
    if (nan && !elem_is_float((ElemType)bp.dtype.elem))
        diag_error(L->ctx, a[4].loc, "Padding option `nan` is not supported for integer block pointers");
    LVal mask;
    ops[0] = block_pointers(L, loc, &bp, dims, &mask).id;
    if (mask.kind == LV_NONE) return 1;
    ops[1] = mask.id;
    LVal pad_value = nan ? lval_float(NAN) : lval_int(0);
    ops[2] = lower_const_tensor(L, loc, &pad_value, bp.dtype).id;
    return 3;
}

/* tl.store(block_ptr, value, boundary_check=): pointers, value (cast to the
 * element type, broadcast from a scalar), mask; *n of them */
int lower_block_store(Lower *L, SrcLoc loc, LArg *a, ValId *ops) {
    LVal bp = a[0].v;
    if (!larg_absent(&a[2])) diag_error(L->ctx, loc, "`mask` argument cannot be specified for storing block pointers");
    unsigned dims = boundary_dims(L, &a[3], block_rank(&bp));
    LVal v = lval_is_number(&a[1].v) ? lower_const_tensor(L, a[1].loc, &a[1].v, bp.dtype) : lval_to_tensor(L, a[1].loc, a[1].v);
    IrType vt = lower_type(L, &v);
    if (vt.rank == 0) v = lower_broadcast_to(L, a[1].loc, v, bp.dtype);
    else if (vt.rank != bp.dtype.rank || memcmp(vt.shape, bp.dtype.shape, sizeof(int32_t) * vt.rank))
        diag_error(L->ctx, a[1].loc, "Block shape(%s) and value shape(%s) mismatch", shape_str(L, bp.dtype),
                   shape_str(L, vt));
    v = lower_cast(L, a[1].loc, v, ir_elem_of(bp.dtype), false, 0);
    LVal mask;
    ops[0] = block_pointers(L, loc, &bp, dims, &mask).id;
    ops[1] = v.id;
    if (mask.kind == LV_NONE) return 2;
    ops[2] = mask.id;
    return 3;
}

/* ---- tensor descriptors ----
 * A descriptor (LV_TENSOR_DESC: base, shape[r] int32, strides[r] int64,
 * the block's tile type, the padding) loads and stores whole blocks at the
 * offsets each access gives, every dim bounds-checked: desc.load(offs) is a
 * load through the block pointer (base, shape, strides, offs) with
 * boundary_check on every dim and the descriptor's padding. */
static int desc_rank(const LVal *d) { return (int)(d->n - 1) / 2; }

static LVal new_desc(Lower *L, LVal base, int rank, const int32_t *block, bool nan) {
    LVal d = {0};
    d.kind = LV_TENSOR_DESC;
    d.n = 1 + 2 * (size_t)rank;
    d.items = arena_alloc(L->ctx->arena, sizeof(LVal) * d.n);
    d.items[0] = base;
    d.dtype = ir_tile(ir_scalar((ElemType)lower_type(L, &base).pointee), rank, block);
    d.i = nan;
    return d;
}

/* tl.make_tensor_descriptor(base, shape, strides, block_shape, padding_option="zero"),
 * with Triton's checks */
LVal bi_make_tensor_descriptor(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    LVal base = lval_to_tensor(L, a[0].loc, a[0].v);
    IrType bt = lower_type(L, &base);
    if (bt.rank != 0 || bt.elem != ET_PTR) diag_error(L->ctx, a[0].loc, "Expected `base` to be a pointer");
    size_t rank, n_strides, n_block;
    tuple_items(&a[1], &rank);
    tuple_items(&a[2], &n_strides);
    const LVal *bs = tuple_items(&a[3], &n_block);
    if (rank < 1 || rank > 5) diag_error(L->ctx, a[1].loc, "Expected 1 <= ndim <= 5 but got %d dimensions", (int)rank);
    if (rank > IR_MAX_RANK) diag_error(L->ctx, a[1].loc, "tensor descriptors of %d dims are not supported", (int)rank);
    if (n_strides != rank) diag_error(L->ctx, a[2].loc, "Expected %d strides but got %d", (int)rank, (int)n_strides);
    if (n_block != rank)
        diag_error(L->ctx, a[3].loc, "Expected block_shape to have %d dimensions but got %d", (int)rank, (int)n_block);
    int32_t block[IR_MAX_RANK];
    for (size_t d = 0; d < rank; d++) {
        if (bs[d].kind != LV_INT || bs[d].i < 1 || bs[d].i > INT32_MAX || (bs[d].i & (bs[d].i - 1)))
            diag_error(L->ctx, a[3].loc, "block_shape must be powers of two (tl.constexpr)");
        block[d] = (int32_t)bs[d].i;
    }
    int eb = elem_bytes((ElemType)bt.pointee);
    if (block[rank - 1] * eb < 16)
        diag_error(L->ctx, a[3].loc,
                   "Descriptor block shape must have at least 16 bytes in the last dimension, but got %d * %d = %d "
                   "bytes", (int)block[rank - 1], eb, (int)block[rank - 1] * eb);
    const LVal *st = a[2].v.kind == LV_TUPLE ? a[2].v.items : &a[2].v;
    if (st[rank - 1].kind == LV_INT && st[rank - 1].i != 1)
        diag_error(L->ctx, a[2].loc, "Tensor descriptor last dim must be 1 but got %lld", (long long)st[rank - 1].i);
    if (st[rank - 1].kind != LV_INT)
        diag_error(L->ctx, a[2].loc, "Tensor descriptor last dim must be 1 (a compile-time 1)");
    const char *pad = larg_str(L, &a[4], "padding_option");
    bool nan = !strcmp(pad, "nan");
    if (*pad && !nan && strcmp(pad, "zero")) diag_error(L->ctx, a[4].loc, "Padding option must be one of zero or nan");
    if (nan && !elem_is_float((ElemType)bt.pointee))
        diag_error(L->ctx, a[4].loc, "Padding option `nan` is not supported for integer blocks");
    LVal desc = new_desc(L, base, (int)rank, block, nan);
    index_tuple(L, &a[1], ET_I32, "shape", desc.items + 1, (int)rank);
    index_tuple(L, &a[2], ET_I64, "strides", desc.items + 1 + rank, (int)rank);
    return desc;
}

/* A host TensorDescriptor parameter: its base pointer (16-byte aligned),
 * shape (int32; the last dim a multiple of 16 with the ":16" hint) and strides but the
 * last (int64, 16-byte multiples) are kernel parameters; the last stride
 * is 1. */
LVal lower_desc_param(Lower *L, const char *name, const SigEntry *e) {
    int rank = e->n_block, eb = elem_bytes(e->type);
    if (rank > IR_MAX_RANK) diag_error(L->ctx, e->loc, "tensor descriptors of %d dims are not supported", rank);
    if (e->block[rank - 1] * eb < 16)
        diag_error(L->ctx, e->loc, "Descriptor block shape must have at least 16 bytes in the last dimension");
    const char *pname = arena_printf(L->ctx->arena, "%s_base", name);
    ValId base = ir_param_add(L->fn, pname, ir_ptr(e->type), 16);
    IrParam *p = &L->fn->params[L->fn->n_params - 1];
    p->arg = name, p->part = PARAM_DESC_BASE;
    LVal desc = new_desc(L, lval_tensor(L, base), rank, e->block, e->pad_nan);
    for (int d = 0; d < rank; d++) {
        ValId v = ir_param_add(L->fn, arena_printf(L->ctx->arena, "%s_shape%d", name, d), ir_scalar(ET_I32),
                               d == rank - 1 ? e->divisibility : 1);
        p = &L->fn->params[L->fn->n_params - 1];
        p->arg = name, p->part = PARAM_DESC_SHAPE, p->part_index = (uint8_t)d;
        desc.items[1 + d] = lval_tensor(L, v);
    }
    for (int d = 0; d < rank; d++) {
        if (d == rank - 1) {
            desc.items[1 + rank + d] = lval_int(1);
            break;
        }
        int32_t div = 16 / eb > 1 ? 16 / eb : 1;
        ValId v = ir_param_add(L->fn, arena_printf(L->ctx->arena, "%s_stride%d", name, d), ir_scalar(ET_I64), div);
        p = &L->fn->params[L->fn->n_params - 1];
        p->arg = name, p->part = PARAM_DESC_STRIDE, p->part_index = (uint8_t)d;
        desc.items[1 + rank + d] = lval_tensor(L, v);
    }
    return desc;
}

/* the block pointer of desc at the offsets of argument a */
static LVal desc_block(Lower *L, const LVal *desc, const LArg *a) {
    int rank = desc_rank(desc);
    size_t n;
    tuple_items(a, &n);
    if ((int)n != rank) diag_error(L->ctx, a->loc, "expected %d offsets, but got %d", rank, (int)n);
    LVal bp = {0};
    bp.kind = LV_BLOCK_PTR;
    bp.n = 1 + 3 * (size_t)rank;
    bp.items = arena_alloc(L->ctx->arena, sizeof(LVal) * bp.n);
    memcpy(bp.items, desc->items, sizeof(LVal) * (1 + 2 * (size_t)rank));
    bp.dtype = desc->dtype;
    index_tuple(L, a, ET_I32, "offsets", bp.items + 1 + 2 * rank, rank);
    return bp;
}

static LVal desc_arg(Lower *L, const LArg *a) {
    if (a->v.kind != LV_TENSOR_DESC) diag_error(L->ctx, a->loc, "expected a tensor descriptor, got a %s",
                                                 lval_kind_name(&a->v));
    return a->v;
}

/* desc.load(offsets), tl.load_tensor_descriptor(desc, offsets) */
LVal bi_desc_load(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    LVal desc = desc_arg(L, &a[0]), bp = desc_block(L, &desc, &a[1]), mask;
    ValId ops[3];
    ops[0] = block_pointers(L, loc, &bp, (1u << desc_rank(&desc)) - 1, &mask).id;
    ops[1] = mask.id;
    LVal pad = desc.i ? lval_float(NAN) : lval_int(0);
    ops[2] = lower_const_tensor(L, loc, &pad, desc.dtype).id;
    L->b.loc = loc;
    return lval_tensor(L, ir_build(&L->b, OP_LOAD, ops, 3, &desc.dtype, 1, 0)->results[0]);
}

/* desc.store(offsets, value), tl.store_tensor_descriptor(desc, offsets, value):
 * value in the block's shape, cast to its element type */
LVal bi_desc_store(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    LVal desc = desc_arg(L, &a[0]), bp = desc_block(L, &desc, &a[1]), mask;
    if (desc.items[0].const_ptr) diag_error(L->ctx, a[0].loc, "Cannot store to a constant pointer");
    LVal v = lval_to_tensor(L, a[2].loc, a[2].v);
    IrType vt = lower_type(L, &v);
    if (vt.rank != desc.dtype.rank || memcmp(vt.shape, desc.dtype.shape, sizeof(int32_t) * vt.rank))
        diag_error(L->ctx, a[2].loc, "the value's shape %s is not the descriptor's block shape %s", shape_str(L, vt),
                   shape_str(L, desc.dtype));
    v = lower_cast(L, a[2].loc, v, ir_elem_of(desc.dtype), false, 0);
    ValId ops[3];
    ops[0] = block_pointers(L, loc, &bp, (1u << desc_rank(&desc)) - 1, &mask).id;
    ops[1] = v.id;
    ops[2] = mask.id;
    L->b.loc = loc;
    ir_build(&L->b, OP_STORE, ops, 3, NULL, 0, 0);
    return lval_none();
}

/* desc.shape, desc.strides (tuples), desc.block_shape, desc.dtype */
LVal lower_desc_attr(Lower *L, SrcLoc loc, LVal desc, const char *name) {
    int rank = desc_rank(&desc);
    bool shape = !strcmp(name, "shape"), strides = !strcmp(name, "strides"), block = !strcmp(name, "block_shape");
    if (!strcmp(name, "dtype")) return lval_dtype(ir_elem_of(desc.dtype));
    if (!shape && !strides && !block) diag_error(L->ctx, loc, "'tensor_descriptor' object has no attribute '%s'", name);
    LVal t = {0};
    t.kind = LV_TUPLE;
    t.n = (size_t)rank;
    t.items = arena_alloc(L->ctx->arena, sizeof(LVal) * (size_t)rank);
    for (int d = 0; d < rank; d++)
        t.items[d] = block ? lval_int(desc.dtype.shape[d]) : desc.items[1 + (strides ? rank : 0) + d];
    return t;
}
