/* convert_layout: move a tile between two layouts.
 *
 * When the two layouts put every element in the same thread and only the
 * register order differs, registers are renamed (no code). Otherwise the
 * tile goes through shared memory: every thread writes its registers at the
 * row-major index of their elements, a barrier, every thread reads the
 * elements of its new registers, and a second barrier so the next user of
 * the buffer cannot overwrite it before everyone has read.
 *
 * The row-major index of a linear layout is itself linear in (register,
 * lane, warp), so an address is "thread base + compile-time offset" when the
 * register's index bits cannot overlap the thread's, which is the case for
 * blocked layouts; otherwise one xor and one mad per register.
 */
#include "ptx.h"

Reg ptx_smem_base(Ptx *P) {
    if (P->smem_base) return P->smem_base;
    Buf *saved = P->out;
    int n_insts = P->n_insts;
    P->out = &P->prologue;
    P->smem_base = ptx_reg(P, RC_B32);
    ptx_ins(P, "mov.u32 %R, tric_smem;", P->smem_base);
    P->out = saved;
    P->n_insts = n_insts;
    P->uses_smem = true;
    return P->smem_base;
}

typedef struct SmemTile {
    int32_t li;
    const Layout *l;
    Reg flat;       /* row-major index of the thread's part */
    Reg base;       /* smem + flat * bytes */
    int32_t support;
    int bytes;
} SmemTile;

static SmemTile smem_tile(Ptx *P, int32_t li, int bytes) {
    SmemTile t = {li, &P->fn->layouts[li], REG_NONE, REG_NONE, 0, bytes};
    t.support = ptx_ll_thread_support(t.l);
    t.flat = ptx_layout_flat(P, li);
    t.base = ptx_reg(P, RC_B32);
    ptx_ins(P, "mad.lo.u32 %R, %R, %d, %R;", t.base, t.flat, bytes, ptx_smem_base(P));
    return t;
}

/* "[%r7+24]" for register r of the tile */
static const char *smem_addr(Ptx *P, const SmemTile *t, int r) {
    int32_t c = ptx_ll_reg_flat(t->l, r);
    Buf b = {0};
    buf_putc(&b, '[');
    if (c & t->support) {
        Reg x = ptx_reg(P, RC_B32), a = ptx_reg(P, RC_B32);
        ptx_ins(P, "xor.b32 %R, %R, %d;", x, t->flat, (int)c);
        ptx_ins(P, "mad.lo.u32 %R, %R, %d, %R;", a, x, t->bytes, ptx_smem_base(P));
        ptx_put_reg(&b, a);
    } else {
        ptx_put_reg(&b, t->base);
        if (c) buf_printf(&b, "+%d", (int)(c * t->bytes));
    }
    buf_putc(&b, ']');
    const char *s = arena_strdup(P->arena, b.data);
    buf_free(&b);
    return s;
}

static const char *smem_type(ElemType e, bool is_load) {
    switch (elem_bytes(e)) {
    case 1: return e == ET_I8 && is_load ? "s8" : "u8";
    case 2: return "b16";
    case 4: return "b32";
    default: return "b64";
    }
}

static void write_tile(Ptx *P, IrOp *op, ValId v, ElemType e) {
    int32_t li = ptx_layout_index(P, op, v);
    SmemTile t = smem_tile(P, li, elem_bytes(e));
    uint32_t dup_regs;
    ptx_layout_owner(P, li, &dup_regs);   /* registers that repeat another need no write */
    int n;
    Reg *regs = ptx_regs(P, v, &n);
    for (int r = 0; r < n; r++) {
        if ((uint32_t)r & dup_regs) continue;
        Reg x = regs[r];
        if (e == ET_I1) {
            x = ptx_reg(P, RC_B16);
            ptx_ins(P, "selp.u16 %R, 1, 0, %R;", x, regs[r]);
        }
        ptx_ins(P, "st.shared.%s %s, %R;", smem_type(e, false), smem_addr(P, &t, r), x);
    }
}

static void read_tile(Ptx *P, IrOp *op, ValId v, ElemType e) {
    int32_t li = ptx_layout_index(P, op, v);
    SmemTile t = smem_tile(P, li, elem_bytes(e));
    int n = ptx_value_nregs(P, op, v);
    Reg *regs = ptx_def(P, op, v);
    for (int r = 0; r < n; r++) {
        if (e == ET_I1) {
            Reg x = ptx_reg(P, RC_B16);
            ptx_ins(P, "ld.shared.u8 %R, %s;", x, smem_addr(P, &t, r));
            ptx_ins(P, "setp.ne.b16 %R, %R, 0;", regs[r], x);
        } else {
            ptx_ins(P, "ld.shared.%s %R, %s;", smem_type(e, true), regs[r], smem_addr(P, &t, r));
        }
    }
}

void ptx_convert_layout(Ptx *P, IrOp *op) {
    ValId src = op->operands[0], res = op->results[0];
    IrType ty = P->fn->vals[res].type;
    if (ty.rank == 0) {   /* scalars have no layout */
        ptx_alias(P, res, ptx_regs(P, src, NULL), 1);
        return;
    }
    if (ptx_try_alias_convert(P, op)) return;
    ElemType e = (ElemType)ty.elem;
    int64_t size = ir_numel(ty) * elem_bytes(e);
    TRIC_ASSERT(size <= INT32_MAX);
    if (size > P->fn->shared_bytes) P->fn->shared_bytes = (int32_t)size;
    write_tile(P, op, src, e);
    ptx_ins(P, "bar.sync 0;");
    read_tile(P, op, res, e);
    ptx_ins(P, "bar.sync 0;");
}
