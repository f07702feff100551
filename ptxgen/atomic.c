/* atomic and atomic_cas: PTX atom/red, one element per instruction.
 *
 * Each element's read-modify-write happens exactly once: only its canonical
 * holder issues it (a replicated layout has several holders, a scalar has
 * every thread; ptx_layout_owner / thread 0), predicated on the mask too.
 * The old values then reach every holder: through shared memory when
 * other threads hold replicas (ptx_smem_share), by register moves when
 * only registers of one thread repeat. Masked-off elements read 0.
 *
 * When nothing uses the result, `red` replaces `atom` where PTX has it
 * (not for exch; ordering relaxed or release, as red has no acquire).
 *
 * Float max/min are integer atomics on the bit pattern, as Triton lowers
 * them: a value with the sign bit clear takes atom.max.s32 (min.s32), one
 * with it set atom.min.u32 (max.u32); the two predicated instructions write
 * one register. f32 add is atom.add.f32 (which flushes subnormals), f16
 * and bf16 add take .noftz (bf16 from sm_90 on).
 */
#include "ptx.h"

/* ".acq_rel.gpu" */
static const char *sem_scope(Ptx *P, IrOp *op) {
    TRIC_ASSERT(op->attr.i2 >= 0 && op->attr.i2 < SEM_COUNT && op->attr.flags < SCOPE_COUNT);
    return arena_printf(P->arena, ".%s.%s", mem_sem_names[op->attr.i2], mem_scope_names[op->attr.flags]);
}

/* "add.u32", "max.s64", "and.b32", "exch.b64", "add.noftz.f16", "cas.b16":
 * the operation and type of an integer or float atomic (not float max/min) */
static const char *op_type(Ptx *P, IrOp *op, ElemType e) {
    int bits = elem_bits(e);
    if (op->opc == OP_ATOMIC_CAS) return arena_printf(P->arena, "cas.b%d", bits);
    const char *sign = elem_is_signed(e) ? "s" : "u";
    switch ((AtomicKind)op->attr.i) {
    case ATOM_ADD:
        if (e == ET_BF16 && !P->ti->bf16_arith)
            diag_error(P->ctx, op->loc, "atomic_add of bf16 needs sm_90 or later (PTX has atom.add.bf16 from sm_90)");
        if (e == ET_F16 || e == ET_BF16) return arena_printf(P->arena, "add.noftz.%s", e == ET_F16 ? "f16" : "bf16");
        if (elem_is_float(e)) return arena_printf(P->arena, "add.f%d", bits);
        return arena_printf(P->arena, "add.u%d", bits);
    case ATOM_MAX: return arena_printf(P->arena, "max.%s%d", sign, bits);
    case ATOM_MIN: return arena_printf(P->arena, "min.%s%d", sign, bits);
    case ATOM_AND: return arena_printf(P->arena, "and.b%d", bits);
    case ATOM_OR: return arena_printf(P->arena, "or.b%d", bits);
    case ATOM_XOR: return arena_printf(P->arena, "xor.b%d", bits);
    case ATOM_XCHG: return arena_printf(P->arena, "exch.b%d", bits);
    default: tric_unreachable();
    }
}

typedef struct AtomElem {
    Reg addr, val, cmp;   /* cmp: atomic_cas only */
    Reg pred;             /* REG_NONE: always */
    Reg old;              /* REG_NONE: the result is not used */
} AtomElem;

/* One atom (or red) of `opty` at one element. */
static void atom_one(Ptx *P, IrOp *op, const char *opty, const AtomElem *a) {
    const char *ss = sem_scope(P, op);
    int64_t sem = op->attr.i2;
    Buf b = {0};
    bool has_red = op->opc == OP_ATOMIC && op->attr.i != ATOM_XCHG;
    if (a->old == REG_NONE && has_red && (sem == SEM_RELAXED || sem == SEM_RELEASE)) {
        buf_printf(&b, "red%s.global.%s [", ss, opty);
        ptx_put_reg(&b, a->addr);
        buf_puts(&b, "], ");
        ptx_put_reg(&b, a->val);
    } else {
        Reg d = a->old ? a->old : ptx_reg(P, REG_CLASS(a->val));
        buf_printf(&b, "atom%s.global.%s ", ss, opty);
        ptx_put_reg(&b, d);
        buf_puts(&b, ", [");
        ptx_put_reg(&b, a->addr);
        buf_puts(&b, "], ");
        if (a->cmp) {
            ptx_put_reg(&b, a->cmp);
            buf_puts(&b, ", ");
        }
        ptx_put_reg(&b, a->val);
    }
    buf_putc(&b, ';');
    ptx_ins(P, "%s%s", ptx_guard(P, a->pred), b.data);
    buf_free(&b);
}

/* Float max/min: the bits as an integer, split by the sign of the value. */
static void atom_float_minmax(Ptx *P, IrOp *op, ElemType e, const AtomElem *a) {
    int bits = elem_bits(e);
    RegClass ic = bits == 64 ? RC_B64 : RC_B32;
    bool is_max = op->attr.i == ATOM_MAX;
    Reg iv = ptx_reg(P, ic), neg = ptx_reg(P, RC_PRED);
    ptx_ins(P, "mov.b%d %R, %R;", bits, iv, a->val);
    ptx_ins(P, "setp.lt.s%d %R, %R, 0;", bits, neg, iv);
    Reg p_pos = ptx_reg(P, RC_PRED), p_neg = ptx_reg(P, RC_PRED);
    ptx_ins(P, "not.pred %R, %R;", p_pos, neg);
    if (a->pred) {
        ptx_ins(P, "and.pred %R, %R, %R;", p_pos, a->pred, p_pos);
        ptx_ins(P, "and.pred %R, %R, %R;", p_neg, a->pred, neg);
    } else {
        p_neg = neg;
    }
    Reg iold = a->old ? ptx_reg(P, ic) : REG_NONE;
    if (iold) ptx_ins(P, "mov.b%d %R, 0;", bits, iold);
    AtomElem pos = {a->addr, iv, REG_NONE, p_pos, iold}, negv = {a->addr, iv, REG_NONE, p_neg, iold};
    atom_one(P, op, arena_printf(P->arena, "%s.s%d", is_max ? "max" : "min", bits), &pos);
    atom_one(P, op, arena_printf(P->arena, "%s.u%d", is_max ? "min" : "max", bits), &negv);
    if (iold) ptx_ins(P, "mov.b%d %R, %R;", bits, a->old, iold);
}

/* mask and owner (either may be REG_NONE) as one predicate */
static Reg both(Ptx *P, Reg mask, Reg owner) {
    if (!mask || !owner) return mask ? mask : owner;
    Reg p = ptx_reg(P, RC_PRED);
    ptx_ins(P, "and.pred %R, %R, %R;", p, mask, owner);
    return p;
}

/* The non-duplicate register of layout l that holds what register r holds
 * (the same thread: duplicate registers differ in register bits only). */
static int same_element_reg(const Layout *l, int r, uint32_t dup) {
    int32_t want = layout_reg_flat(l, r);
    for (int k = 0; k < layout_n_regs(l); k++)
        if (!((uint32_t)k & dup) && layout_reg_flat(l, k) == want) return k;
    tric_unreachable();
}

void ptx_atomic(Ptx *P, IrOp *op) {
    IrFunc *fn = P->fn;
    bool cas = op->opc == OP_ATOMIC_CAS;
    ValId res = op->results[0];
    IrType rt = fn->vals[res].type;
    ElemType e = (ElemType)rt.elem;
    int n;
    Reg *ptr = ptx_regs(P, op->operands[0], &n);
    Reg *val = ptx_regs(P, op->operands[cas ? 2 : 1], NULL);
    Reg *cmp = cas ? ptx_regs(P, op->operands[1], NULL) : NULL;
    Reg *mask = !cas && op->n_operands > 2 ? ptx_regs(P, op->operands[2], NULL) : NULL;
    TRIC_ASSERT(n == ptx_value_nregs(P, op, res));
    bool scalar = rt.rank == 0, used = ptx_uses(P, res) > 0;
    uint32_t dup = 0;
    int32_t li = scalar ? -1 : ptx_layout_index(P, op, res);
    Reg owner = scalar ? ptx_tid0(P) : ptx_layout_owner(P, li, &dup);
    bool float_minmax = !cas && elem_is_float(e) && (op->attr.i == ATOM_MAX || op->attr.i == ATOM_MIN);
    const char *opty = float_minmax ? NULL : op_type(P, op, e);
    Reg *old = arena_alloc(P->arena, sizeof(Reg) * (size_t)n);
    for (int r = 0; r < n; r++) {
        if ((uint32_t)r & dup) continue;
        old[r] = ptx_reg(P, ptx_class_of(e));
        AtomElem a = {ptr[r], val[r], cmp ? cmp[r] : REG_NONE, both(P, mask ? mask[r] : REG_NONE, owner),
                      used ? old[r] : REG_NONE};
        if (used && a.pred) ptx_mov(P, old[r], ptx_const_reg(P, ptx_class_of(e), 0));
        if (float_minmax) atom_float_minmax(P, op, e, &a);
        else atom_one(P, op, opty, &a);
    }
    for (int r = 0; r < n; r++)
        if ((uint32_t)r & dup) old[r] = old[same_element_reg(&fn->layouts[li], r, dup)];
    if (used && owner) ptx_smem_share(P, op, res, old, owner);
    else ptx_alias(P, res, old, n);
}
