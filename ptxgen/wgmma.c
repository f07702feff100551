/* wgmma and wgmma_wait (ops.def): the Hopper tensor-core path.
 *
 * The accumulator is in the wgmma layout (ir/layout.c: layout_wgmma_acc):
 * warps of a warpgroup 16 rows apart, further warpgroups along M, then
 * along N in slices; each thread's registers 4 (t + T i) .. 4 (t + T i) + 3
 * are n8 tile t of its slice (T tiles) in the M repeat i, which is exactly
 * how a wgmma.m64nN's d registers lie (doc/ptx.md, "wgmma accumulator").
 * So one op issues, per k-step in ascending order, per 64-row repeat and
 * per N-instruction (the slice, or 256 columns of it), one
 *
 *   wgmma.mma_async.sync.aligned.m64nNkK.f32.A.B {d}, descA | {a}, descB, p, 1, 1[, transA], transB;
 *
 * (p: true, or use_acc in the first k-step) between a wgmma.fence and a commit_group. The descriptors come from the
 * buffers' slots (convert.c lays them out as the tensor cores read them):
 * the slot's descriptor plus the operand's byte offset >> 4, the offset
 * being the unswizzled one of the instruction's first element: the
 * warpgroup's rows (A) or columns (B), known at run time from the warp
 * index, the repeat's rows, the k-step's columns. With A in registers its
 * fragments are mma.sync's (the wgmma layout's A operand layout), packed
 * as dot.c packs them.
 *
 * The result takes the accumulator's registers (wgmma accumulates in place);
 * an accumulator that something else still reads is copied first. A
 * wgmma_wait is wgmma.wait_group N, its result the same registers. */
#include "ptx.h"

static const char *wgmma_type(ElemType e) {
    switch (e) {
    case ET_F16: return "f16";
    case ET_BF16: return "bf16";
    case ET_F32: return "f32";
    case ET_I8: return "s8";
    case ET_I32: return "s32";
    case ET_F8E4M3: return "e4m3";
    case ET_F8E5M2: return "e5m2";
    default: tric_unreachable();
    }
}

/* The accumulator's registers, or a copy when another op reads them too */
static Reg *acc_regs(Ptx *P, IrOp *op, ValId acc, int *n) {
    Reg *c = ptx_regs(P, acc, n);
    IrOp *def = P->fn->vals[acc].def;
    bool own = (!def || def->opc == OP_WGMMA || def->opc == OP_WGMMA_WAIT || def->opc == OP_DOT) &&
               ptx_uses(P, acc) == 1;
    if (own) {
        ptx_alias(P, op->results[0], c, *n);
        return c;
    }
    Reg *d = ptx_def(P, op, op->results[0]);
    for (int i = 0; i < *n; i++) ptx_mov(P, d[i], c[i]);
    return d;
}

/* The unswizzled byte offset of element (r, c) of an operand (A: m, k;
 * B: k, n) in its slot, which may hold it transposed */
static int32_t operand_offset(Ptx *P, ValId buf, bool t, int32_t r, int32_t c) {
    return t ? ptx_wgmma_offset(P, buf, c, r) : ptx_wgmma_offset(P, buf, r, c);
}

/* This warpgroup's byte offset into an operand's slot: its warp bits
 * beyond the first two (the warpgroup index) move the accumulator by
 * (m, n); the operand moves by its rows (A: m) or columns (B: n). */
static Reg group_offset(Ptx *P, const Layout *lc, ValId buf, bool is_a, bool t) {
    Reg off = REG_NONE;
    for (int k = 2; k < lc->n_bits[LL_WARP]; k++) {
        const int32_t *v = lc->basis[LL_WARP][k];
        int32_t bytes = is_a ? operand_offset(P, buf, t, v[0], 0) : operand_offset(P, buf, t, 0, v[1]);
        if (!bytes) continue;
        ptx_tid(P);
        Reg bit = ptx_reg(P, RC_B32), sum = ptx_reg(P, RC_B32);
        ptx_ins(P, "bfe.u32 %R, %R, %d, 1;", bit, P->warp, k);
        if (off) ptx_ins(P, "mad.lo.u32 %R, %R, %d, %R;", sum, bit, (int)bytes, off);
        else ptx_ins(P, "mul.lo.u32 %R, %R, %d;", sum, bit, (int)bytes);
        off = sum;
    }
    return off;
}

/* the slot's descriptor moved by this warpgroup's offset */
static Reg group_desc(Ptx *P, const Layout *lc, ValId buf, ValId slot, bool is_a, bool t, bool *mn_major) {
    Reg d = ptx_wgmma_slot_desc(P, buf, slot, mn_major);
    Reg off = group_offset(P, lc, buf, is_a, t);
    if (!off) return d;
    Reg s = ptx_reg(P, RC_B32), w = ptx_reg(P, RC_B64), r = ptx_reg(P, RC_B64);
    ptx_ins(P, "shr.u32 %R, %R, 4;", s, off);
    ptx_ins(P, "cvt.u64.u32 %R, %R;", w, s);
    ptx_ins(P, "add.s64 %R, %R, %R;", r, d, w);
    return r;
}

/* "%rd7" moved by off bytes (a multiple of 16): "%rd9" after an add */
static Reg desc_at(Ptx *P, Reg base, int32_t off) {
    if (!off) return base;
    Reg r = ptx_reg(P, RC_B64);
    ptx_ins(P, "add.s64 %R, %R, %d;", r, base, (int)(off >> 4));
    return r;
}

static void put_regs(Buf *b, const Reg *r, int n) {
    buf_putc(b, '{');
    for (int i = 0; i < n; i++) {
        if (i) buf_puts(b, ", ");
        ptx_put_reg(b, r[i]);
    }
    buf_putc(b, '}');
}

void ptx_wgmma(Ptx *P, IrOp *op) {
    IrFunc *fn = P->fn;
    uint32_t nm = ir_wgmma_n_main(op);
    bool ss = nm == 5;
    ValId accv = op->operands[nm - 1];
    ValId abuf = ss ? op->operands[0] : VAL_NONE, bbuf = op->operands[ss ? 2 : 1];
    const Layout *lc = &fn->layouts[ptx_layout_index(P, op, accv)];
    IrType ct = fn->vals[accv].type;
    ElemType ea = (ElemType)fn->vals[op->operands[0]].type.elem, eb = (ElemType)fn->vals[bbuf].type.elem;
    ElemType ec = (ElemType)ct.elem;
    int bits = elem_bits(ea), ks = 256 / bits, p = 32 / bits;
    int32_t k = fn->vals[bbuf].type.shape[op->attr.flags & WGMMA_B_T ? 2 : 1];
    int32_t warps[2];
    layout_wgmma_warps(ct.shape, P->ctx->target.num_warps, warps);
    int32_t slice = ct.shape[1] / warps[1], in = slice < 256 ? slice : 256;
    int reps = ct.shape[0] / (16 * warps[0]);
    int n;
    Reg *d = acc_regs(P, op, accv, &n);
    TRIC_ASSERT(n == reps * slice / 2);
    bool trans_a = false, trans_b = false, at = op->attr.flags & WGMMA_A_T, bt = op->attr.flags & WGMMA_B_T;
    Reg da = ss ? group_desc(P, lc, abuf, op->operands[1], true, at, &trans_a) : REG_NONE;
    Reg db = group_desc(P, lc, bbuf, op->operands[ss ? 3 : 2], false, bt, &trans_b);
    /* A in registers: its fragments, packed */
    const Layout *la = NULL;
    int32_t *ta = NULL;
    PtxPacked pa = {0};
    if (!ss) {
        la = &fn->layouts[ptx_layout_index(P, op, op->operands[0])];
        ta = ptx_reg_table(P, la);
        int na;
        const Reg *ra = ptx_regs(P, op->operands[0], &na);
        pa = ptx_packed_new(P, op->operands[0], ra, na, p, false);
    }
    /* scale-d: whether d is added to, always after the first k-step; in the
     * first as use_acc says */
    Reg one = ptx_const_reg(P, RC_PRED, 1);
    Reg first = op->attr.flags & WGMMA_USE_ACC ? ptx_regs(P, op->operands[nm], NULL)[0] : one;
    const char *shape = arena_printf(P->arena, "wgmma.mma_async.sync.aligned.m64n%dk%d.%s.%s.%s", (int)in, ks,
                                     wgmma_type(ec), wgmma_type(ea), wgmma_type(eb));
    ptx_ins(P, "wgmma.fence.sync.aligned;");
    for (int32_t k0 = 0; k0 < k; k0 += ks)
        for (int i = 0; i < reps; i++) {
            int32_t oc[IR_MAX_RANK];
            layout_coord(lc, 4 * (slice / 8) * i, 0, 0, oc);   /* the repeat's first row */
            Reg fa[4] = {0};
            if (!ss)
                for (int j = 0; j < 4; j++) fa[j] = ptx_pack(P, &pa, ptx_frag_reg(la, ta, j, p, 0, oc[0], k0), false);
            Reg a = ss ? desc_at(P, da, operand_offset(P, abuf, at, oc[0], k0)) : REG_NONE;
            for (int32_t n0 = 0; n0 < slice; n0 += in) {
                Reg b = desc_at(P, db, operand_offset(P, bbuf, bt, k0, n0));
                Buf *o = P->out;
                buf_printf(o, "\t%s ", shape);
                put_regs(o, d + 4 * (n0 / 8) + 4 * (slice / 8) * i, in / 2);
                buf_puts(o, ", ");
                if (ss) ptx_put_reg(o, a);
                else put_regs(o, fa, 4);
                buf_puts(o, ", ");
                ptx_put_reg(o, b);
                buf_puts(o, ", ");
                ptx_put_reg(o, k0 ? one : first);
                /* scale-a, scale-b (not for integers); the transposes for 16-bit types only */
                if (bits == 16) buf_printf(o, ss ? ", 1, 1, %d, %d;\n" : ", 1, 1, %d;\n", ss ? trans_a : trans_b, trans_b);
                else buf_puts(o, ec == ET_I32 ? ";\n" : ", 1, 1;\n");
                P->n_insts++;
            }
        }
    ptx_ins(P, "wgmma.commit_group.sync.aligned;");
    if (P->version < 80) P->version = 80;
}

void ptx_wgmma_wait(Ptx *P, IrOp *op) {
    int n;
    Reg *r = ptx_regs(P, op->operands[0], &n);
    ptx_ins(P, "wgmma.wait_group.sync.aligned %d;", (int)op->attr.i);
    ptx_alias(P, op->results[0], r, n);
}
