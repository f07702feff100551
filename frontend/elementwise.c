/* tl.inline_asm_elementwise and tl.map_elementwise: a function applied to
 * the elements of tensors broadcast together, `pack` elements at a time.
 * The first becomes an `inline_asm` op (the user's PTX, checked here
 * against ir/asm.c's contract so a mistake is reported at the call); the
 * second a `map_elementwise` op whose region is the @jit function inlined
 * on scalars, as reduce's combine region is. */
#include "lower.h"

#include <string.h>

/* The values of args (tensors or numbers) broadcast to one shape, as
 * Triton's binary ops broadcast (no type promotion). */
static ValId *broadcast_all(Lower *L, SrcLoc loc, const LVal *args, const SrcLoc *locs, uint32_t n, IrType *shape) {
    LVal *t = arena_alloc(L->ctx->arena, sizeof(LVal) * (n ? n : 1));
    *shape = ir_scalar(ET_I32);
    for (uint32_t i = 0; i < n; i++) {
        t[i] = lval_to_tensor(L, locs[i], args[i]);
        IrType ti = lower_type(L, &t[i]);
        *shape = i ? lower_broadcast_shape(L, locs[i], *shape, ti) : ti;
    }
    ValId *ids = arena_alloc(L->ctx->arena, sizeof(ValId) * (n ? n : 1));
    for (uint32_t i = 0; i < n; i++) ids[i] = lower_broadcast_to(L, loc, t[i], *shape).id;
    return ids;
}

static LVal results_of(Lower *L, IrOp *op, bool as_tuple) {
    if (!as_tuple) return lval_tensor(L, op->results[0]);
    LVal r = {0};
    r.kind = LV_TUPLE;
    r.n = op->n_results;
    r.items = arena_alloc(L->ctx->arena, sizeof(LVal) * op->n_results);
    for (uint32_t i = 0; i < op->n_results; i++) r.items[i] = lval_tensor(L, op->results[i]);
    return r;
}

static int pack_arg(Lower *L, const LArg *a) {
    int64_t pack = larg_absent(a) ? 1 : larg_int(L, a, "pack");
    if (pack < 1 || pack > 1 << 16) diag_error(L->ctx, a->loc, "pack must be between 1 and 65536, got %lld", (long long)pack);
    return (int)pack;
}

static const char *text_arg(Lower *L, const LArg *a, const char *what) {
    if (a->v.kind != LV_STR)
        diag_error(L->ctx, a->loc, "inline_asm_elementwise's %s must be a compile-time string, got a %s", what,
                   lval_kind_name(&a->v));
    if (memchr(a->v.s, 0, a->v.n)) diag_error(L->ctx, a->loc, "inline_asm_elementwise's %s holds a NUL character", what);
    return arena_strndup(L->ctx->arena, a->v.s, a->v.n);
}

/* inline_asm_elementwise(asm, constraints, args, dtype, is_pure, pack) */
LVal bi_inline_asm_elementwise(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    const char *text = text_arg(L, &a[0], "asm");
    const char *cons = text_arg(L, &a[1], "constraints");
    LVal args = a[2].v;
    if (args.kind != LV_TUPLE)
        diag_error(L->ctx, a[2].loc, "inline_asm_elementwise's args must be a list or tuple of tensors, got a %s",
                   lval_kind_name(&args));
    bool multi = a[3].v.kind == LV_TUPLE;
    uint32_t n_out = multi ? (uint32_t)a[3].v.n : 1;
    if (n_out == 0) diag_error(L->ctx, a[3].loc, "inline_asm_elementwise needs at least one result dtype");
    ElemType *out = arena_alloc(L->ctx->arena, sizeof(ElemType) * n_out);
    for (uint32_t k = 0; k < n_out; k++) {
        const LVal *d = multi ? &a[3].v.items[k] : &a[3].v;
        if (d->kind != LV_DTYPE)
            diag_error(L->ctx, a[3].loc, "inline_asm_elementwise's dtype must be a dtype or a tuple of dtypes, got a %s",
                       lval_kind_name(d));
        out[k] = (ElemType)d->dtype.elem;
    }
    if (a[4].v.kind == LV_TENSOR) diag_error(L->ctx, a[4].loc, "is_pure must be a compile-time bool");
    bool pure = lower_truth(L, a[4].loc, &a[4].v);
    int pack = pack_arg(L, &a[5]);
    uint32_t n_in = (uint32_t)args.n;
    SrcLoc *locs = arena_alloc(L->ctx->arena, sizeof(SrcLoc) * (n_in ? n_in : 1));
    for (uint32_t i = 0; i < n_in; i++) locs[i] = a[2].loc;
    IrType shape;
    ValId *ids = broadcast_all(L, loc, args.items, locs, n_in, &shape);
    ElemType *in = arena_alloc(L->ctx->arena, sizeof(ElemType) * (n_in ? n_in : 1));
    for (uint32_t i = 0; i < n_in; i++) in[i] = (ElemType)ir_type(L->fn, ids[i]).elem;
    Buf why = {.arena = L->ctx->arena};
    if (!ir_asm_check(L->ctx->arena, cons, text, pack, in, n_in, out, n_out, &why))
        diag_error(L->ctx, loc, "inline_asm_elementwise: %s", why.data);
    IrType *rt = arena_alloc(L->ctx->arena, sizeof(IrType) * n_out);
    for (uint32_t k = 0; k < n_out; k++) {
        IrType e = multi ? a[3].v.items[k].dtype : a[3].v.dtype;
        rt[k] = n_in ? ir_with_elem(shape, e) : e;
    }
    L->b.loc = loc;
    IrOp *op = ir_build(&L->b, OP_INLINE_ASM, ids, n_in, rt, n_out, 0);
    op->attr.str = text;
    op->attr.str2 = cons;
    op->attr.i = pack;
    op->attr.flags = pure ? ASM_PURE : 0;
    return results_of(L, op, multi);
}

/* map_elementwise(scalar_fn, *args, pack=1) */
LVal bi_map_elementwise(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    if (a[0].v.kind != LV_FUNC)
        diag_error(L->ctx, a[0].loc, "map_elementwise's scalar_fn must be a @jit function, got a %s",
                   lval_kind_name(&a[0].v));
    AstFunc *f = a[0].v.func;
    if (n_rest == 0) diag_error(L->ctx, loc, "map_elementwise needs at least one tensor to map over");
    int pack = pack_arg(L, &a[1]);
    uint32_t n_in = (uint32_t)n_rest, np = (uint32_t)pack;
    SrcLoc *locs = arena_alloc(L->ctx->arena, sizeof(SrcLoc) * n_in);
    for (uint32_t i = 0; i < n_in; i++) locs[i] = loc;
    IrType shape;
    ValId *ids = broadcast_all(L, loc, rest, locs, n_in, &shape);
    if ((int64_t)f->node->args.n != (int64_t)n_in * pack)
        diag_error(L->ctx, a[0].loc, "map_elementwise's scalar_fn '%s' takes %d argument%s, but %u input%s with "
                   "pack=%d need %u", f->node->str, f->node->args.n, f->node->args.n == 1 ? "" : "s", n_in,
                   n_in == 1 ? "" : "s", pack, n_in * np);
    /* the region first: its yields give the result types */
    IrBlock *blk = ir_block_new(L->fn);
    CallArgs ca;
    memset(&ca, 0, sizeof ca);
    ca.n = (int)(n_in * np);
    ca.args = arena_alloc(L->ctx->arena, sizeof(LVal) * n_in * np);
    ca.locs = arena_alloc(L->ctx->arena, sizeof(SrcLoc) * n_in * np);
    for (uint32_t i = 0; i < n_in; i++)
        for (uint32_t j = 0; j < np; j++) {
            ca.args[i * np + j] = lval_tensor(L, ir_block_add_arg(L->fn, blk, ir_elem_of(ir_type(L->fn, ids[i]))));
            ca.locs[i * np + j] = loc;
        }
    IrBuilder saved = L->b;
    L->b.block = blk;
    L->b.before = NULL;
    L->b.loc = loc;
    LVal r = lower_call_jit(L, loc, f, &ca);
    bool multi = r.kind == LV_TUPLE;
    uint32_t got = multi ? (uint32_t)r.n : r.kind == LV_NONE ? 0 : 1;
    if (got == 0 || got % np)
        diag_error(L->ctx, a[0].loc, "map_elementwise's scalar_fn '%s' returned %u value%s, expected a positive "
                   "multiple of pack=%d", f->node->str, got, got == 1 ? "" : "s", pack);
    ValId *ys = arena_alloc(L->ctx->arena, sizeof(ValId) * got);
    for (uint32_t k = 0; k < got; k++) {
        LVal v = multi ? r.items[k] : r;
        if (lval_is_number(&v)) v = lval_to_tensor(L, loc, v);
        if (v.kind != LV_TENSOR || lower_type(L, &v).rank != 0)
            diag_error(L->ctx, a[0].loc, "map_elementwise's scalar_fn '%s' returned %s for value %u, expected a scalar",
                       f->node->str, v.kind == LV_TENSOR ? type_str(L, lower_type(L, &v)) : lval_kind_name(&v), k);
        ys[k] = v.id;
    }
    uint32_t n_out = got / np;
    IrType *rt = arena_alloc(L->ctx->arena, sizeof(IrType) * n_out);
    for (uint32_t k = 0; k < n_out; k++) {
        IrType e = ir_type(L->fn, ys[k * np]);
        for (uint32_t j = 1; j < np; j++)
            if (!ir_type_eq(ir_type(L->fn, ys[k * np + j]), e))
                diag_error(L->ctx, a[0].loc, "map_elementwise's scalar_fn '%s' returned %s for value %u but %s for "
                           "value %u of the same result (pack=%d)", f->node->str, dtype_name(ir_type(L->fn, ys[k * np + j])),
                           k * np + j, dtype_name(e), k * np, pack);
        rt[k] = ir_with_elem(shape, e);
    }
    ir_build(&L->b, OP_YIELD, ys, got, NULL, 0, 0);
    L->b = saved;
    L->b.loc = loc;
    IrOp *op = ir_build(&L->b, OP_MAP_ELEM, ids, n_in, rt, n_out, 1);
    op->regions[0] = blk;
    blk->parent = op;
    op->attr.i = pack;
    /* a tuple whenever scalar_fn returned one (a 1-tuple too), as Triton */
    return results_of(L, op, multi);
}
