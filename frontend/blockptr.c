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
#include "../ir/tmap.h"

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
    /* as in Triton, a block pointer to int1 is one to int8: bools are bytes */
    if (bt.pointee == ET_I1) {
        base = lower_cast(L, a[0].loc, base, ir_ptr(ET_I8), false, ROUND_DEFAULT);
        bt.pointee = ET_I8;
    }
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
 * its tensor map or none, the block's tile type, the padding) loads and
 * stores whole blocks at the offsets each access gives, every dim
 * bounds-checked: desc.load(offs) is a load through the block pointer
 * (base, shape, strides, offs) with boundary_check on every dim and the
 * descriptor's padding. With a tensor map (a host descriptor on sm_90 and
 * later, whose block TMA can move: ir/tmap.h) the load also carries the
 * map and the offsets (LOADF_TMA), so that the pipeline can move its
 * blocks by TMA. */
static int desc_rank(const LVal *d) { return (int)(d->n - 2) / 2; }
static LVal *desc_tmap(LVal *d) { return &d->items[d->n - 1]; }

static LVal new_desc(Lower *L, LVal base, int rank, const int32_t *block, bool nan) {
    LVal d = {0};
    d.kind = LV_TENSOR_DESC;
    d.n = 2 + 2 * (size_t)rank;
    d.items = arena_alloc(L->ctx->arena, sizeof(LVal) * d.n);
    d.items[0] = base;
    *desc_tmap(&d) = lval_none();
    d.dtype = ir_tile(ir_scalar((ElemType)lower_type(L, &base).pointee), rank, block);
    d.i = nan;
    return d;
}

/* What the kernel's signature promises v (a scalar, through casts) is a
 * multiple of: its divisibility hint, a constant's value; 1 if nothing */
static int64_t known_multiple(Lower *L, const LVal *v) {
    if (v->kind == LV_INT) return v->i ? (v->i < 0 ? -v->i : v->i) : INT32_MAX;
    if (v->kind != LV_TENSOR) return 1;
    ValId id = v->id;
    for (IrOp *d = L->fn->vals[id].def; d && d->opc == OP_CAST; d = L->fn->vals[id].def) id = d->operands[0];
    for (uint32_t k = 0; k < L->fn->n_params; k++)
        if (L->fn->params[k].val == id) return L->fn->params[k].divisibility;
    return 1;
}

/* A descriptor made in the kernel gets a tensor map (made in the kernel
 * too: tensormap.replace, sm_90a) where TMA can move its blocks and the
 * signature promises what TMA requires: a 16-byte aligned base and strides
 * that are 16-byte multiples. Else its loads stay plain loads. */
static bool device_tma_ok(Lower *L, const LVal *desc) {
    const Target *t = &L->ctx->target;
    int rank = desc_rank(desc), eb = elem_bytes((ElemType)desc->dtype.elem);
    TmapBox box;
    if (!target_info(t)->wgmma || !tmap_box((ElemType)desc->dtype.elem, rank, desc->dtype.shape, &box)) return false;
    if (known_multiple(L, &desc->items[0]) % 16) return false;
    for (int d = 0; d + 1 < rank; d++)
        if ((known_multiple(L, &desc->items[1 + rank + d]) * eb) % 16) return false;
    return true;
}

/* The kernel's global scratch parameter (made on first use, last), with
 * room for one more tensor map per program: which one it is */
static int scratch_slot(Lower *L, ValId *scratch) {
    IrParam *p = NULL;
    for (uint32_t k = 0; k < L->fn->n_params; k++)
        if (L->fn->params[k].part == PARAM_SCRATCH) p = &L->fn->params[k];
    if (!p) {
        ir_param_add(L->fn, "tric_scratch", ir_ptr(ET_I8), 16);
        p = &L->fn->params[L->fn->n_params - 1];
        p->part = PARAM_SCRATCH;
    }
    *scratch = p->val;
    p->scratch_bytes += TMAP_BYTES;
    return p->scratch_bytes / TMAP_BYTES - 1;
}

/* tensormap_create of desc into its program's 128 bytes of the scratch:
 * map k of program p (x fastest) at scratch + (k * programs + p) * 128 */
static LVal lower_tmap_create(Lower *L, SrcLoc loc, LVal *desc, bool nan) {
    ValId scratch;
    int k = scratch_slot(L, &scratch);
    IrType i64 = ir_scalar(ET_I64), i32 = ir_scalar(ET_I32);
    L->b.loc = loc;
    ValId pid[3], np[3];
    for (int axis = 0; axis < 3; axis++) {
        IrOp *op = ir_build(&L->b, OP_PROGRAM_ID, NULL, 0, &i32, 1, 0);
        op->attr.i = axis;
        pid[axis] = ir_build1(&L->b, OP_CAST, i64, op->results[0]);
        op = ir_build(&L->b, OP_NUM_PROGRAMS, NULL, 0, &i32, 1, 0);
        op->attr.i = axis;
        np[axis] = ir_build1(&L->b, OP_CAST, i64, op->results[0]);
    }
    ValId lin = ir_build2(&L->b, OP_ADD, i64, pid[1], ir_build2(&L->b, OP_MUL, i64, np[1], pid[2]));
    lin = ir_build2(&L->b, OP_ADD, i64, pid[0], ir_build2(&L->b, OP_MUL, i64, np[0], lin));
    ValId programs = ir_build2(&L->b, OP_MUL, i64, np[0], ir_build2(&L->b, OP_MUL, i64, np[1], np[2]));
    ValId slot = ir_build2(&L->b, OP_ADD, i64, ir_build2(&L->b, OP_MUL, i64, ir_const_int(&L->b, i64, k), programs), lin);
    ValId off = ir_build2(&L->b, OP_MUL, i64, slot, ir_const_int(&L->b, i64, TMAP_BYTES));
    ValId dst = ir_build2(&L->b, OP_ADDPTR, ir_ptr(ET_I8), scratch, off);
    int rank = desc_rank(desc);
    ValId ops[2 + 2 * IR_MAX_RANK];
    uint32_t n = 0;
    ops[n++] = dst;
    ops[n++] = desc->items[0].id;
    for (int d = 0; d < rank; d++)
        ops[n++] = lower_cast(L, loc, lval_to_tensor(L, loc, desc->items[1 + d]), i32, false, 0).id;
    for (int d = 0; d + 1 < rank; d++)
        ops[n++] = lower_cast(L, loc, lval_to_tensor(L, loc, desc->items[1 + rank + d]), i64, false, 0).id;
    IrType pt = ir_ptr(ET_I8);
    L->b.loc = loc;
    IrOp *op = ir_build(&L->b, OP_TMAP_CREATE, ops, n, &pt, 1, 0);
    op->attr.n_ints = (uint8_t)rank;
    memcpy(op->attr.ints, desc->dtype.shape, sizeof(int32_t) * (size_t)rank);
    op->attr.flags = nan ? TMAP_NAN : 0;
    return lval_tensor(L, op->results[0]);
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
    if (device_tma_ok(L, &desc)) *desc_tmap(&desc) = lower_tmap_create(L, loc, &desc, nan);
    return desc;
}

/* A host TensorDescriptor parameter: its base pointer (16-byte aligned),
 * shape (int32; the last dim a multiple of 16 with the ":16" hint) and
 * strides but the last (int64, 16-byte multiples) are kernel parameters;
 * the last stride is 1. Where TMA can move its blocks (sm_90 and later),
 * its tensor map is one more, last. */
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
    TmapBox box;
    if (target_info(&L->ctx->target)->hopper && tmap_box(e->type, rank, e->block, &box)) {
        ValId v = ir_param_add(L->fn, arena_printf(L->ctx->arena, "%s_tmap", name), ir_ptr(ET_I8), 1);
        p = &L->fn->params[L->fn->n_params - 1];
        p->arg = name, p->part = PARAM_DESC_TMAP, p->tensormap = true;
        Buf sig = {.arena = L->ctx->arena};
        buf_printf(&sig, "tensordesc<%s[", elem_triton_name(e->type));
        for (int d = 0; d < rank; d++) buf_printf(&sig, d ? ", %d" : "%d", e->block[d]);
        buf_printf(&sig, "]%s>", e->pad_nan ? ",nan" : "");
        p->desc_sig = buf_str(&sig);
        *desc_tmap(&desc) = lval_tensor(L, v);
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
    int rank = desc_rank(&desc);
    ValId ops[4 + IR_MAX_RANK];
    ops[0] = block_pointers(L, loc, &bp, (1u << rank) - 1, &mask).id;
    ops[1] = mask.id;
    LVal pad = desc.i ? lval_float(NAN) : lval_int(0);
    ops[2] = lower_const_tensor(L, loc, &pad, desc.dtype).id;
    uint32_t n = 3;
    if (desc_tmap(&desc)->kind == LV_TENSOR) {
        ops[n++] = desc_tmap(&desc)->id;
        for (int d = 0; d < rank; d++)
            ops[n++] = lval_to_tensor(L, loc, *bp_offset(&bp, d)).id;
    }
    L->b.loc = loc;
    IrOp *ld = ir_build(&L->b, OP_LOAD, ops, n, &desc.dtype, 1, 0);
    if (n > 3) ld->attr.flags |= LOADF_TMA;
    return lval_tensor(L, ld->results[0]);
}

/* The value a write through desc gets (argument a): in the block's shape,
 * cast to the element type. */
static LVal desc_value(Lower *L, const LVal *desc, const LArg *a) {
    LVal v = lval_to_tensor(L, a->loc, a->v);
    IrType vt = lower_type(L, &v);
    if (vt.rank != desc->dtype.rank || memcmp(vt.shape, desc->dtype.shape, sizeof(int32_t) * vt.rank))
        diag_error(L->ctx, a->loc, "the value's shape %s is not the descriptor's block shape %s", shape_str(L, vt),
                   shape_str(L, desc->dtype));
    return lower_cast(L, a->loc, v, ir_elem_of(desc->dtype), false, 0);
}

/* desc.store(offsets, value), tl.store_tensor_descriptor(desc, offsets, value) */
LVal bi_desc_store(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    LVal desc = desc_arg(L, &a[0]), bp = desc_block(L, &desc, &a[1]), mask;
    if (desc.items[0].const_ptr) diag_error(L->ctx, a[0].loc, "Cannot store to a constant pointer");
    ValId ops[3];
    ops[1] = desc_value(L, &desc, &a[2]).id;
    ops[0] = block_pointers(L, loc, &bp, (1u << desc_rank(&desc)) - 1, &mask).id;
    ops[2] = mask.id;
    L->b.loc = loc;
    ir_build(&L->b, OP_STORE, ops, 3, NULL, 0, 0);
    return lval_none();
}

/* desc.atomic_KIND(offsets, value): the block combined into memory where it
 * lies inside the shape, nothing returned. Triton reduces with TMA on sm_90
 * (cp.reduce.async.bulk.tensor) and with atomics before; tric uses relaxed
 * element atomics on every target. The element types are Triton's for the
 * target: on sm_90+ min/max also take fp16/bf16, which tric cannot do yet
 * (PTX has those atomics only in vector forms). */
static LVal desc_atomic(Lower *L, SrcLoc loc, LArg *a, AtomicKind kind) {
    const char *name = atomic_kind_names[kind];
    LVal desc = desc_arg(L, &a[0]), bp = desc_block(L, &desc, &a[1]), mask;
    if (desc.items[0].const_ptr) diag_error(L->ctx, a[0].loc, "Cannot store to a constant pointer");
    ElemType e = (ElemType)desc.dtype.elem;
    bool word = e == ET_U32 || e == ET_I32 || e == ET_U64, half = e == ET_F16 || e == ET_BF16;
    bool ok = kind == ATOM_ADD ? word || e == ET_F32 || half
              : kind == ATOM_MIN || kind == ATOM_MAX ? word || e == ET_I64 || (half && target_info(&L->ctx->target)->hopper)
                                                     : word || e == ET_I64;
    if (!ok)
        diag_error(L->ctx, a[0].loc, "atomic_%s of a tensor descriptor does not support %s on sm_%d", name,
                   dtype_name(ir_scalar(e)), L->ctx->target.sm);
    if (half && kind != ATOM_ADD)
        diag_error(L->ctx, a[0].loc, "atomic_%s of a tensor descriptor of %s is not supported by tric yet",
                   name, dtype_name(ir_scalar(e)));
    ValId ops[3];
    ops[1] = desc_value(L, &desc, &a[2]).id;
    ops[0] = block_pointers(L, loc, &bp, (1u << desc_rank(&desc)) - 1, &mask).id;
    ops[2] = mask.id;
    L->b.loc = loc;
    IrOp *op = ir_build(&L->b, OP_ATOMIC, ops, 3, &desc.dtype, 1, 0);
    op->attr.i = kind;
    op->attr.i2 = SEM_RELAXED;
    op->attr.flags = SCOPE_GPU;
    return lval_none();
}

LVal bi_desc_atomic_add(Lower *L, SrcLoc loc, LArg *a, LVal *r, int n) { return desc_atomic(L, loc, a, ATOM_ADD); }
LVal bi_desc_atomic_min(Lower *L, SrcLoc loc, LArg *a, LVal *r, int n) { return desc_atomic(L, loc, a, ATOM_MIN); }
LVal bi_desc_atomic_max(Lower *L, SrcLoc loc, LArg *a, LVal *r, int n) { return desc_atomic(L, loc, a, ATOM_MAX); }
LVal bi_desc_atomic_and(Lower *L, SrcLoc loc, LArg *a, LVal *r, int n) { return desc_atomic(L, loc, a, ATOM_AND); }
LVal bi_desc_atomic_or(Lower *L, SrcLoc loc, LArg *a, LVal *r, int n) { return desc_atomic(L, loc, a, ATOM_OR); }
LVal bi_desc_atomic_xor(Lower *L, SrcLoc loc, LArg *a, LVal *r, int n) { return desc_atomic(L, loc, a, ATOM_XOR); }

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
