/* pass_ptrcarry: a loop-carried pointer tile that advances by one uniform
 * step per iteration (the matmul tutorial's `a_ptrs += BLOCK_SIZE_K *
 * stride_ak`)
 *
 *   %r = for %i = ... iter(%a = %start) { ... %a ...; %n = addptr %a, splat(%s); yield %n }
 *
 * becomes the loop-invariant start plus a carried scalar element offset:
 *
 *   %r2 = for %i = ... iter(%off = 0 : i64) {
 *       %a2 = addptr %start, splat(%off)   ... %a2 ...
 *       yield %off + i64(%s) }
 *   (uses of %r: addptr %start, splat(%r2))
 *
 * and where start is addptr(splat(%p), %offsets), %a2 is
 * addptr(splat(addptr %p, %off), %offsets).
 *
 * Why: a carried tile is opaque to the PTX emitter's affine analysis
 * (ptxgen/affine.c), so the loop carries one 64-bit register per vector
 * of it, 48 registers for the tutorial's 128x256x128 tiles on sm_80 (which
 * then spilled). Now the loop keeps the offsets, one 32-bit register per
 * vector where they are i32, or none where they are affine (loads and
 * pipelined copies then address every vector from one base register),
 * and carries one 64-bit offset. The offset is summed in 64 bits from the
 * step as the tile's element type extends it, so the addresses are those
 * the repeated additions gave. The old carried value is left with no uses
 * and dce removes it. Runs before layout assignment. */
#include "opt.h"

/* Where v's chain of splat, broadcast and expand_dims starts (v itself
 * when it is none of those): a scalar there means every element of v is
 * that scalar. */
static ValId chain_source(IrFunc *fn, ValId v) {
    for (IrOp *d; (d = fn->vals[v].def) && (d->opc == OP_SPLAT || d->opc == OP_BROADCAST || d->opc == OP_EXPAND_DIMS);)
        v = d->operands[0];
    return v;
}

/* v, a tile with the same integer in every element: that integer as a
 * scalar (made at b for a constant tile); VAL_NONE otherwise */
static ValId uniform_scalar(IrFunc *fn, IrBuilder *b, ValId v) {
    ValId s = chain_source(fn, v);
    IrValue *x = &fn->vals[s];
    if (!elem_is_int((ElemType)x->type.elem) || x->type.elem == ET_I1) return VAL_NONE;
    if (x->type.rank == 0) return s;
    if (x->def && x->def->opc == OP_CONST) return ir_const_int(b, ir_scalar((ElemType)x->type.elem), x->def->attr.i);
    return VAL_NONE;
}

/* v, a tile of one pointer in every element: that pointer (a scalar);
 * VAL_NONE otherwise */
static ValId uniform_pointer(IrFunc *fn, ValId v) {
    ValId s = chain_source(fn, v);
    return fn->vals[s].type.rank == 0 ? s : VAL_NONE;
}

/* The tile `start` advanced by off elements, at b. A start of the form
 * addptr(splat(p), offsets) becomes addptr(splat(p + off), offsets): the
 * loop then keeps the offsets (32 bits a vector where they are i32)
 * rather than 64-bit pointers, and forms each address with one mad. */
static ValId advanced(IrFunc *fn, IrBuilder *b, ValId start, ValId off) {
    IrType t = fn->vals[start].type;
    IrOp *d = fn->vals[start].def;
    ValId p = d && d->opc == OP_ADDPTR ? uniform_pointer(fn, d->operands[0]) : VAL_NONE;
    if (p) {
        ValId base = ir_build2(b, OP_ADDPTR, fn->vals[p].type, p, off);
        return ir_build2(b, OP_ADDPTR, t, ir_build1(b, OP_SPLAT, t, base), d->operands[1]);
    }
    return ir_build2(b, OP_ADDPTR, t, start, ir_build1(b, OP_SPLAT, ir_with_elem(t, ir_scalar(ET_I64)), off));
}

static void rewrite_carried(IrFunc *fn, IrOp *loop, uint32_t k) {
    IrBlock *body = loop->regions[0];
    IrOp *y = body->last;
    ValId a = body->args[k], next = y->operands[k - 1], start = loop->operands[3 + k - 1];
    IrType t = fn->vals[a].type, i64 = ir_scalar(ET_I64);
    IrOp *d = fn->vals[next].def;
    if (t.rank == 0 || t.elem != ET_PTR || !d || d->opc != OP_ADDPTR || d->operands[0] != a || d->parent != body)
        return;
    IrBuilder end = {fn, body, y, y->loc};
    ValId step = uniform_scalar(fn, &end, d->operands[1]);
    if (!step) return;
    IrBuilder before = {fn, loop->parent, loop, loop->loc};
    ValId off = ir_for_add_carried(fn, loop, ir_const_int(&before, i64, 0));
    ValId off_out = loop->results[loop->n_results - 1];
    ValId step64 = fn->vals[step].type.elem == ET_I64 ? step : ir_build1(&end, OP_CAST, i64, step);
    ir_for_add_yield(fn, loop, ir_build2(&end, OP_ADD, i64, off, step64));
    IrBuilder top = {fn, body, body->first, loop->loc};
    ir_replace_uses(fn, a, advanced(fn, &top, start, off));
    IrBuilder after = {fn, loop->parent, loop->next, loop->loc};
    ValId result = loop->results[k - 1];
    ir_replace_uses(fn, result, advanced(fn, &after, start, off_out));
}

static void visit(IrFunc *fn, IrOp *op, void *ud) {
    (void)ud;
    if (op->opc != OP_FOR) return;
    uint32_t n = op->regions[0]->n_args;   /* the carried values it has now; new ones go after */
    for (uint32_t k = 1; k < n; k++) rewrite_carried(fn, op, k);
}

void pass_ptrcarry(IrFunc *fn) { ir_walk(fn, fn->body, visit, NULL); }
