/* pass_contract: a float multiply whose only use is an add in the same
 * block becomes one fused multiply-add, x * y + z -> fma(x, y, z), rounded
 * once, as Triton's LLVM backend contracts them. ptxas would contract the
 * separate mul and add by itself; making it a decision of the IR keeps the
 * CPU interpreter computing what the GPU does, and the PTX saying it.
 * Off with Target.no_fp_fusion (Triton's enable_fp_fusion=False), which
 * also makes the emitter round each mul and add (.rn) so ptxas cannot.
 * f32 and f64 only, as the math op's fma has those. */
#include "opt.h"
#include "../ir/mathfn.h"

#include <string.h>

static bool same_type(IrType a, IrType b) {
    return a.elem == b.elem && a.rank == b.rank && !memcmp(a.shape, b.shape, sizeof a.shape);
}

/* operand k of add, when it is such a multiply */
static IrOp *fusable_mul(IrFunc *fn, IrOp *add, int k, const uint32_t *uses) {
    ValId v = add->operands[k];
    IrOp *mul = fn->vals[v].def;
    if (!mul || mul->opc != OP_MUL || mul->parent != add->parent || uses[v] != 1) return NULL;
    return same_type(ir_type(fn, v), ir_type(fn, add->results[0])) ? mul : NULL;
}

static void contract_block(IrFunc *fn, IrBlock *b, const uint32_t *uses, IrFwd *fwd) {
    for (IrOp *op = b->first, *next; op; op = next) {
        next = op->next;
        ir_fwd_op(fwd, op);
        for (uint32_t r = 0; r < op->n_regions; r++) contract_block(fn, op->regions[r], uses, fwd);
        if (op->opc != OP_ADD) continue;
        ElemType e = (ElemType)ir_type(fn, op->results[0]).elem;
        if (e != ET_F32 && e != ET_F64) continue;
        IrOp *mul = fusable_mul(fn, op, 0, uses);
        int k = 0;
        if (!mul) mul = fusable_mul(fn, op, k = 1, uses);
        if (!mul) continue;
        ValId args[3] = {mul->operands[0], mul->operands[1], op->operands[1 - k]};
        IrType t = ir_type(fn, op->results[0]);
        IrOp *fma = ir_op_new(fn, OP_MATH, op->loc, args, 3, &t, 1, 0);
        fma->attr.i = MF_FMA;
        ir_insert_before(op, fma);
        ir_fwd_set(fwd, op->results[0], fma->results[0]);
        ir_op_unlink(op);
        ir_op_unlink(mul);
    }
}

void pass_contract(IrFunc *fn) {
    if (fn->ctx->target.no_fp_fusion) return;
    IrFwd fwd = {fn, NULL, 0, false};
    contract_block(fn, fn->body, ir_count_uses(fn), &fwd);
    ir_fwd_apply(&fwd);
}
