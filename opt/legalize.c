/* Pass legalize: Triton's conversions on this target, spelled out.
 *
 * An IR op means the same on every target (doc/ir.md: a cast rounds once).
 * Triton's NVIDIA backend converts some types in steps on older targets,
 * and its results are those of the steps, so a kernel must compute them
 * there too. This pass writes the steps into the IR; every later stage
 * (fold, the interpreter, ptxgen, the simulator) then computes the same
 * bits without asking which target it is, and the target's capabilities
 * (base/target.c) are read here once:
 *  - f32 -> fp8 without a one-step conversion (before sm_90): through f16
 *    rounded toward zero, then to fp8 (to nearest even); an rtz cast to
 *    fp8e5 stays one step (rtz twice is rtz once);
 *  - an integer -> bf16 without cvt.bf16 from integers (before sm_90):
 *    through f32, which rounds twice where |x| > 2^24.
 * Lowering ends with it (frontend/lower.c), so the IR of a .py kernel is
 * already legal; hand-written IR gets it with --passes legalize. */
#include "opt.h"

static ValId cast_before(IrFunc *fn, IrOp *op, ValId v, ElemType to, int rounding) {
    IrType t = ir_with_elem(fn->vals[v].type, ir_scalar(to));
    IrBuilder b = {fn, op->parent, op, op->loc};
    IrOp *c = ir_build(&b, OP_CAST, &v, 1, &t, 1, 0);
    c->attr.i = rounding;
    fn->vals[c->results[0]].layout = fn->vals[v].layout;
    return c->results[0];
}

static void legalize_op(IrFunc *fn, IrOp *op, void *ud) {
    const TargetInfo *ti = ud;
    if (op->opc != OP_CAST) return;
    ElemType s = (ElemType)fn->vals[op->operands[0]].type.elem, t = (ElemType)fn->vals[op->results[0]].type.elem;
    if (s == ET_F32 && (t == ET_F8E4M3 || t == ET_F8E5M2) && op->attr.i != ROUND_RTZ && !ti->hopper) {
        op->operands[0] = cast_before(fn, op, op->operands[0], ET_F16, ROUND_RTZ);
        op->attr.i = ROUND_DEFAULT;
    } else if (t == ET_BF16 && elem_is_int(s) && s != ET_I1 && !ti->bf16_arith) {
        op->operands[0] = cast_before(fn, op, op->operands[0], ET_F32, ROUND_DEFAULT);
    }
}

void pass_legalize(IrFunc *fn) { ir_walk(fn, fn->body, legalize_op, (void *)target_info(&fn->ctx->target)); }
