/* gather (ops.def): src goes row-major into the scratch shared memory
 * (each element once), the threads meet, and each register of the result
 * (index's layout) loads src's element at its own coordinates with the
 * axis one taken from index: with the flat row-major index f of the result
 * element (its thread's part XOR its register's: layouts are linear), the
 * axis field of f (between the bits of the dims after it and before it)
 * is replaced by the index modulo src's size there. A last barrier lets
 * the next user of the scratch write. */
#include "ptx.h"

void ptx_gather(Ptx *P, IrOp *op) {
    IrFunc *fn = P->fn;
    ValId src = op->operands[0], idx = op->operands[1], res = op->results[0];
    IrType st = fn->vals[src].type, xt = fn->vals[idx].type;
    ElemType e = (ElemType)st.elem;
    int axis = (int)op->attr.i, bytes = elem_bytes(e);
    int64_t inner = 1;
    for (int d = axis + 1; d < st.rank; d++) inner *= st.shape[d];
    int lo = log2_ceil(inner), nx = log2_ceil(xt.shape[axis]), ns = log2_ceil(st.shape[axis]);
    ptx_smem_write(P, op, src);
    Reg base = ptx_scratch_addr(P, (int32_t)(ir_numel(st) * bytes), 16);
    ptx_ins(P, "bar.sync 0;");
    int32_t li = ptx_layout_index(P, op, res);
    const Layout *l = &fn->layouts[li];
    Reg flat = ptx_layout_flat(P, li);
    int n;
    Reg *ix = ptx_regs(P, idx, &n), *out = ptx_def(P, op, res);
    bool wide = elem_bits((ElemType)xt.elem) == 64;
    for (int r = 0; r < n; r++) {
        Reg f = ptx_reg(P, RC_B32), keep = ptx_reg(P, RC_B32), at = ptx_reg(P, RC_B32), a = ptx_reg(P, RC_B32);
        ptx_ins(P, "xor.b32 %R, %R, %d;", f, flat, (int)layout_reg_flat(l, r));
        /* the dims before the axis, moved to src's axis size; the dims after it */
        ptx_ins(P, "shr.u32 %R, %R, %d;", keep, f, lo + nx);
        ptx_ins(P, "shl.b32 %R, %R, %d;", keep, keep, lo + ns);
        ptx_ins(P, "and.b32 %R, %R, %d;", f, f, (int)(inner - 1));
        ptx_ins(P, "or.b32 %R, %R, %R;", keep, keep, f);
        Reg i32 = ix[r];
        if (wide) {
            i32 = ptx_reg(P, RC_B32);
            ptx_ins(P, "cvt.u32.u64 %R, %R;", i32, ix[r]);
        } else if (elem_bits((ElemType)xt.elem) < 32) {
            i32 = ptx_reg(P, RC_B32);
            ptx_ins(P, "cvt.u32.u16 %R, %R;", i32, ix[r]);
        }
        ptx_ins(P, "and.b32 %R, %R, %d;", at, i32, (int)(st.shape[axis] - 1));
        ptx_ins(P, "shl.b32 %R, %R, %d;", at, at, lo);
        ptx_ins(P, "or.b32 %R, %R, %R;", at, at, keep);
        ptx_ins(P, "mad.lo.u32 %R, %R, %d, %R;", a, at, bytes, base);
        if (e == ET_I1) {
            Reg b = ptx_reg(P, RC_B16);
            ptx_ins(P, "ld.shared.u8 %R, [%R];", b, a);
            ptx_ins(P, "setp.ne.b16 %R, %R, 0;", out[r], b);
        } else {
            ptx_ins(P, "ld.shared.%s %R, [%R];", ptx_smem_type(e, true), out[r], a);
        }
    }
    ptx_ins(P, "bar.sync 0;");
}
