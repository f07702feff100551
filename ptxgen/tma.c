/* TMA rings (opt/pipeline.c): the mbarriers that track each slot and the
 * cp.async.bulk.tensor copies that fill it (doc/ptx.md, "TMA" and
 * "mbarrier"); and the tensor maps of descriptors made in the kernel
 * (doc/ptx.md, "Tensor maps built in the kernel").
 *
 * One thread (thread 0) initializes and ends the barriers and issues every
 * copy; every thread waits. A copy of a slot is, for each box of the block
 * (ir/tmap.h), one cp.async.bulk.tensor into the slot's block of S bytes a
 * row, completing on the slot's barrier, after an arrive.expect_tx of the
 * whole block's bytes (out-of-bounds parts of a box count too). The slot
 * may have been read through the generic proxy (ldmatrix, ld.shared) last
 * time round: a proxy fence orders those reads before TMA's write. */
#include "ptx.h"
#include "../ir/tmap.h"

static void need_ptx80(Ptx *P) {
    if (P->version < 80) P->version = 80;
}

/* mbarrier_init / mbarrier_inval: thread 0, every barrier of the ring;
 * after either the block meets: no thread waits on a barrier before its
 * init, and none reuses a barrier's bytes (the epilogue's shared memory may
 * overlap them) before its inval, which another warp may still be behind */
void ptx_mbar_init(Ptx *P, IrOp *op, bool init) {
    ValId bars = op->operands[0];
    const char *g = ptx_guard(P, ptx_tid0(P));
    int n = P->fn->vals[bars].type.shape[0];
    Reg base = ptx_buffer_addr(P, bars);
    for (int s = 0; s < n; s++) {
        if (init) ptx_ins(P, "%smbarrier.init.shared::cta.b64 [%R+%d], 1;", g, base, 8 * s);
        else ptx_ins(P, "%smbarrier.inval.shared::cta.b64 [%R+%d];", g, base, 8 * s);
    }
    if (init) ptx_ins(P, "fence.mbarrier_init.release.cluster;");
    ptx_ins(P, "bar.sync 0;");
    need_ptx80(P);
}

/* mbarrier_wait bars, slot, phase: every thread polls until the phase of
 * that parity has completed */
void ptx_mbar_wait(Ptx *P, IrOp *op) {
    Reg bar = ptx_slot_addr(P, op->operands[0], op->operands[1]);
    Reg phase = ptx_regs(P, op->operands[2], NULL)[0], done = ptx_reg(P, RC_PRED);
    int label = P->n_labels++;
    ptx_label(P, "mbar", label);
    ptx_ins(P, "mbarrier.try_wait.parity.shared::cta.b64 %R, [%R], %R;", done, bar, phase);
    ptx_ins(P, "@!%R bra $L_mbar_%d;", done, label);
    need_ptx80(P);
}

/* tma_copy buf, slot, bars, tmap, pred, c0, c1: the block at (c0, c1) */
void ptx_tma_copy(Ptx *P, IrOp *op) {
    IrFunc *fn = P->fn;
    IrType bt = fn->vals[op->operands[0]].type;
    ElemType e = (ElemType)bt.elem;
    int32_t block[2] = {bt.shape[1], bt.shape[2]};
    TmapBox box;
    TRIC_ASSERT(bt.rank == 3 && tmap_box(e, 2, block, &box));
    Reg go = ptx_reg(P, RC_PRED);
    ptx_ins(P, "and.pred %R, %R, %R;", go, ptx_regs(P, op->operands[4], NULL)[0], ptx_tid0(P));
    const char *g = ptx_guard(P, go);
    Reg dst = ptx_slot_addr(P, op->operands[0], op->operands[1]);
    Reg bar = ptx_slot_addr(P, op->operands[2], op->operands[1]);
    Reg map = ptx_regs(P, op->operands[3], NULL)[0];
    Reg row = ptx_regs(P, op->operands[5], NULL)[0], col = ptx_regs(P, op->operands[6], NULL)[0];
    int bytes = block[0] * block[1] * elem_bytes(e);
    ptx_ins(P, "%sfence.proxy.async.shared::cta;", g);
    ptx_ins(P, "%smbarrier.arrive.expect_tx.shared::cta.b64 _, [%R], %d;", g, bar, bytes);
    for (int b = 0; b < box.n_boxes; b++) {
        Reg x = col;
        if (b) {
            x = ptx_reg(P, RC_B32);
            ptx_ins(P, "add.s32 %R, %R, %d;", x, col, b * box.inner);
        }
        ptx_ins(P, "%scp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%R+%d], [%R, {%R, %R}], "
                "[%R];", g, dst, b * block[0] * box.swizzle, map, x, row, bar);
    }
    need_ptx80(P);
}

/* tensormap_create dst, base, shape.., strides..: warp 0 zeroes 128 bytes
 * of shared memory, thread 0 writes the fields there (tensormap.replace:
 * dims innermost first, the rank as rank - 1, strides in bytes), warp 0
 * copies them to dst with a release of the tensor-map proxy and acquires
 * them back, and the block meets: then TMA may use dst. The PTX says
 * 8.6: compilers for 8.5 and before took the strides divided by 16 (a
 * ptxas bug), so a driver that JIT-compiles 8.6 reads them as bytes. */
void ptx_tmap_create(Ptx *P, IrOp *op) {
    IrFunc *fn = P->fn;
    int rank = op->attr.n_ints;
    ElemType e = (ElemType)fn->vals[op->operands[1]].type.pointee;
    TmapBox box;
    TRIC_ASSERT(tmap_box(e, rank, op->attr.ints, &box));
    Reg stage = ptx_scratch_addr(P, TMAP_BYTES, 128), tid = ptx_tid(P), w0 = ptx_reg(P, RC_PRED);
    Reg dst = ptx_regs(P, op->operands[0], NULL)[0], lane4 = ptx_reg(P, RC_B32), at = ptx_reg(P, RC_B32);
    ptx_ins(P, "setp.lt.u32 %R, %R, 32;", w0, tid);
    const char *g0 = ptx_guard(P, w0), *t0 = ptx_guard(P, ptx_tid0(P));
    ptx_ins(P, "shl.b32 %R, %R, 2;", lane4, P->lane);
    ptx_ins(P, "add.u32 %R, %R, %R;", at, stage, lane4);
    ptx_ins(P, "%sst.shared.b32 [%R], 0;", g0, at);
    ptx_ins(P, "bar.warp.sync -1;");
    const char *rep = "tensormap.replace.tile";
    ptx_ins(P, "%s%s.global_address.shared::cta.b1024.b64 [%R], %R;", t0, rep, stage, ptx_regs(P, op->operands[1], NULL)[0]);
    ptx_ins(P, "%s%s.rank.shared::cta.b1024.b32 [%R], %d;", t0, rep, stage, rank - 1);
    for (int d = 0; d < rank; d++) {
        int dim = rank - 1 - d;
        ptx_ins(P, "%s%s.box_dim.shared::cta.b1024.b32 [%R], %d, %d;", t0, rep, stage, d,
                d ? (int)op->attr.ints[dim] : box.inner);
        ptx_ins(P, "%s%s.global_dim.shared::cta.b1024.b32 [%R], %d, %R;", t0, rep, stage, d,
                ptx_regs(P, op->operands[2 + dim], NULL)[0]);
        ptx_ins(P, "%s%s.element_stride.shared::cta.b1024.b32 [%R], %d, 1;", t0, rep, stage, d);
        if (!d) continue;
        Reg s = ptx_reg(P, RC_B64);
        ptx_ins(P, "mul.lo.s64 %R, %R, %d;", s, ptx_regs(P, op->operands[2 + rank + dim], NULL)[0], elem_bytes(e));
        ptx_ins(P, "%s%s.global_stride.shared::cta.b1024.b64 [%R], %d, %R;", t0, rep, stage, d - 1, s);
    }
    ptx_ins(P, "%s%s.elemtype.shared::cta.b1024.b32 [%R], %d;", t0, rep, stage, tmap_ptx_elemtype(tmap_dtype(e)));
    ptx_ins(P, "%s%s.swizzle_mode.shared::cta.b1024.b32 [%R], %d;", t0, rep, stage,
            box.swizzle == 128 ? 3 : box.swizzle == 64 ? 2 : 1);
    if (op->attr.flags & TMAP_NAN) ptx_ins(P, "%s%s.fill_mode.shared::cta.b1024.b32 [%R], 1;", t0, rep, stage);
    ptx_ins(P, "bar.warp.sync -1;");
    ptx_ins(P, "%stensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%R], [%R], %d;",
            g0, dst, stage, TMAP_BYTES);
    ptx_ins(P, "%sfence.proxy.tensormap::generic.acquire.gpu [%R], %d;", g0, dst, TMAP_BYTES);
    ptx_ins(P, "%scp.async.bulk.commit_group;", g0);
    ptx_ins(P, "%scp.async.bulk.wait_group.read 0;", g0);
    ptx_ins(P, "bar.sync 0;");
    ptx_mov(P, ptx_def(P, op, op->results[0])[0], dst);
    if (P->version < 86) P->version = 86;
}
