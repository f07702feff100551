/* histogram (ops.def): B 32-bit counters in the scratch shared memory. The
 * threads zero them (thread t counters t, t + T, ...), meet, add one for
 * each element they hold canonically (an element several threads hold
 * counts once) whose value lies in [0, B) and whose mask is set
 * (red.shared.add.u32: the unsigned compare leaves negative values out),
 * meet, and read the counters in the result's layout; a last barrier lets
 * the next user of the scratch write. */
#include "ptx.h"

void ptx_histogram(Ptx *P, IrOp *op) {
    IrFunc *fn = P->fn;
    ValId x = op->operands[0];
    int32_t bins = (int32_t)op->attr.i, threads = 32 * P->ctx->target.num_warps;
    bool wide = elem_bits((ElemType)fn->vals[x].type.elem) == 64;
    Reg base = ptx_scratch_addr(P, 4 * bins, 16), tid = ptx_tid(P);
    Reg mine = ptx_reg(P, RC_B32);
    ptx_ins(P, "mad.lo.u32 %R, %R, 4, %R;", mine, tid, base);
    for (int32_t i0 = 0; i0 < bins; i0 += threads) {
        Reg in = REG_NONE;
        if (i0 + threads > bins) {
            in = ptx_reg(P, RC_PRED);
            ptx_ins(P, "setp.lt.u32 %R, %R, %d;", in, tid, (int)(bins - i0));
        }
        ptx_ins(P, "%sst.shared.u32 [%R+%d], 0;", ptx_guard(P, in), mine, (int)(4 * i0));
    }
    ptx_ins(P, "bar.sync 0;");
    int n;
    Reg *v = ptx_regs(P, x, &n), *mask = op->n_operands > 1 ? ptx_regs(P, op->operands[1], NULL) : NULL;
    uint32_t dup;
    Reg owner = ptx_layout_owner(P, ptx_layout_index(P, op, x), &dup);
    for (int r = 0; r < n; r++) {
        if ((uint32_t)r & dup) continue;
        Reg in = ptx_reg(P, RC_PRED), at = ptx_reg(P, RC_B32), lo = v[r];
        ptx_ins(P, "setp.lt.u%d %R, %R, %d;", wide ? 64 : 32, in, v[r], (int)bins);
        if (mask) ptx_ins(P, "and.pred %R, %R, %R;", in, in, mask[r]);
        if (owner) ptx_ins(P, "and.pred %R, %R, %R;", in, in, owner);
        if (wide) {
            lo = ptx_reg(P, RC_B32);
            ptx_ins(P, "cvt.u32.u64 %R, %R;", lo, v[r]);
        }
        ptx_ins(P, "mad.lo.u32 %R, %R, 4, %R;", at, lo, base);
        ptx_ins(P, "@%R red.shared.add.u32 [%R], 1;", in, at);
    }
    ptx_ins(P, "bar.sync 0;");
    ptx_smem_read(P, op, op->results[0]);
    ptx_ins(P, "bar.sync 0;");
}
