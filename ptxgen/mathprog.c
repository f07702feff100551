/* The `math` op: ir/mathfn.c's program for the function and type, printed
 * one PTX instruction per step (the interpreter executes the same steps, so
 * both give the same bits). Every rounding is explicit (.rn), so ptxas
 * contracts nothing; the code is straight-line, selects instead of
 * branches. */
#include "ptx.h"
#include "../ir/mathfn.h"

#include <string.h>

static const RegClass class_of[] = {RC_PRED, RC_B32, RC_F32, RC_B64, RC_F64};
static const char *const fty[] = {"pred", "b32", "f32", "b64", "f64"};
static const char *const cmp_names[] = {"eq", "ne", "lt", "le", "gt", "ge", "ltu", "geu"};
static const char *const testp_names[] = {"notanumber", "infinite", "finite"};

static void put_const(Ptx *P, MType t, Reg d, uint64_t imm) {
    switch (t) {
    case MT_F32: {
        uint32_t w = (uint32_t)imm;
        float f;
        memcpy(&f, &w, 4);
        ptx_ins(P, "mov.f32 %R, %F;", d, (double)f);
        break;
    }
    case MT_F64: {
        double v;
        memcpy(&v, &imm, 8);
        ptx_ins(P, "mov.f64 %R, %D;", d, v);
        break;
    }
    case MT_B32: ptx_ins(P, "mov.b32 %R, %x;", d, (unsigned)imm); break;
    default: ptx_ins(P, "mov.b64 %R, %l;", d, (int64_t)imm); break;
    }
}

static const char *int_ty(MType t, bool s) {
    if (t == MT_B64) return s ? "s64" : "u64";
    return s ? "s32" : "u32";
}

static void put_cvt(Ptx *P, MType to, MType from, Reg d, Reg a) {
    if (from == MT_B32) ptx_ins(P, "cvt.rn.%s.s32 %R, %R;", fty[to], d, a);
    else if (from == MT_B64) ptx_ins(P, "cvt.rn.%s.s64 %R, %R;", fty[to], d, a);
    else if (to == MT_B32) ptx_ins(P, "cvt.rni.s32.%s %R, %R;", fty[from], d, a);
    else if (to == MT_F64) ptx_ins(P, "cvt.f64.f32 %R, %R;", d, a);
    else ptx_ins(P, "cvt.rn.f32.f64 %R, %R;", d, a);
}

static void put_ins(Ptx *P, const MathProg *p, const MIns *in, Reg *r) {
    MType t = (MType)p->rty[in->d], ta = (MType)p->rty[in->a];
    Reg d = r[in->d], a = r[in->a], b = r[in->b], c = r[in->c];
    const char *ft = fty[t];
    switch ((MOp)in->op) {
    case MO_CONST: put_const(P, t, d, in->imm); return;
    case MO_ADD: ptx_ins(P, "add.rn.%s %R, %R, %R;", ft, d, a, b); return;
    case MO_SUB: ptx_ins(P, "sub.rn.%s %R, %R, %R;", ft, d, a, b); return;
    case MO_MUL: ptx_ins(P, "mul.rn.%s %R, %R, %R;", ft, d, a, b); return;
    case MO_FMA: ptx_ins(P, "fma.rn.%s %R, %R, %R, %R;", ft, d, a, b, c); return;
    case MO_DIV: ptx_ins(P, "div.rn.%s %R, %R, %R;", ft, d, a, b); return;
    case MO_SQRT: ptx_ins(P, "sqrt.rn.%s %R, %R;", ft, d, a); return;
    case MO_NEG: ptx_ins(P, "neg.%s %R, %R;", ft, d, a); return;
    case MO_ABS: ptx_ins(P, "abs.%s %R, %R;", ft, d, a); return;
    case MO_MIN: ptx_ins(P, "min.%s %R, %R, %R;", ft, d, a, b); return;
    case MO_MAX: ptx_ins(P, "max.%s %R, %R, %R;", ft, d, a, b); return;
    case MO_COPYSIGN: ptx_ins(P, "copysign.%s %R, %R, %R;", ft, d, a, b); return;
    case MO_RNI: ptx_ins(P, "cvt.rni.%s.%s %R, %R;", ft, ft, d, a); return;
    case MO_RMI: ptx_ins(P, "cvt.rmi.%s.%s %R, %R;", ft, ft, d, a); return;
    case MO_RPI: ptx_ins(P, "cvt.rpi.%s.%s %R, %R;", ft, ft, d, a); return;
    case MO_RZI: ptx_ins(P, "cvt.rzi.%s.%s %R, %R;", ft, ft, d, a); return;
    case MO_CVT: put_cvt(P, t, ta, d, a); return;
    case MO_SETP:
        ptx_ins(P, "setp.%s.%s %R, %R, %R;", cmp_names[in->cmp], ta == MT_B32 ? "s32" : ta == MT_B64 ? "u64" : fty[ta], d, a, b);
        return;
    case MO_TESTP: ptx_ins(P, "testp.%s.%s %R, %R;", testp_names[in->cmp - MC_NAN], fty[ta], d, a); return;
    case MO_SELP: ptx_ins(P, "selp.%s %R, %R, %R, %R;", ft, d, a, b, c); return;
    case MO_IADD: ptx_ins(P, "add.%s %R, %R, %R;", int_ty(t, true), d, a, b); return;
    case MO_ISUB: ptx_ins(P, "sub.%s %R, %R, %R;", int_ty(t, true), d, a, b); return;
    case MO_AND: ptx_ins(P, "and.%s %R, %R, %R;", ft, d, a, b); return;
    case MO_OR: ptx_ins(P, "or.%s %R, %R, %R;", ft, d, a, b); return;
    case MO_SHL: ptx_ins(P, "shl.%s %R, %R, %R;", ft, d, a, b); return;
    case MO_SHRS: ptx_ins(P, "shr.%s %R, %R, %R;", int_ty(t, true), d, a, b); return;
    case MO_SHRU: ptx_ins(P, "shr.%s %R, %R, %R;", int_ty(t, false), d, a, b); return;
    case MO_HI: ptx_ins(P, "mov.b64 {%R, %R}, %R;", ptx_reg(P, RC_B32), d, a); return;
    case MO_LO: ptx_ins(P, "mov.b64 {%R, %R}, %R;", d, ptx_reg(P, RC_B32), a); return;
    case MO_PACK: ptx_ins(P, "mov.b64 %R, {%R, %R};", d, a, b); return;
    case MO_MOVB: ptx_ins(P, "mov.b32 %R, %R;", d, a); return;
    case MO_POPC: ptx_ins(P, "popc.%s %R, %R;", fty[ta], d, a); return;
    case MO_CLZ: ptx_ins(P, "clz.%s %R, %R;", fty[ta], d, a); return;
    case MO_BREV: ptx_ins(P, "brev.%s %R, %R;", ft, d, a); return;
    case MO_MULHI: ptx_ins(P, "mul.hi.%s %R, %R, %R;", int_ty(t, in->imm != 0), d, a, b); return;
    case MO_EX2A: ptx_ins(P, "ex2.approx.f32 %R, %R;", d, a); return;
    case MO_LG2A: ptx_ins(P, "lg2.approx.f32 %R, %R;", d, a); return;
    case MO_SINA: ptx_ins(P, "sin.approx.f32 %R, %R;", d, a); return;
    case MO_COSA: ptx_ins(P, "cos.approx.f32 %R, %R;", d, a); return;
    case MO_DIVF: ptx_ins(P, "div.full.f32 %R, %R, %R;", d, a, b); return;
    case MO_MULLO: ptx_ins(P, "mul.lo.%s %R, %R, %R;", int_ty(t, false), d, a, b); return;
    }
    tric_unreachable();
}

void ptx_math_fn(Ptx *P, int fn, ElemType e, Reg d, const Reg *args) {
    MathProg prog, *p = &prog;
    mathfn_build(p, (MathFn)fn, e);
    Reg r[MP_MAX_REGS];
    for (int i = 0; i < p->n_in; i++) r[i] = args[i];
    for (int i = 0; i < p->n_ins; i++) {
        const MIns *in = &p->ins[i];
        /* the result's register is d; constants are the cached prologue ones */
        if (in->d == p->out) r[in->d] = d;
        else if (in->op == MO_CONST && p->rty[in->d] != MT_PRED)
            r[in->d] = ptx_const_reg(P, class_of[p->rty[in->d]], in->imm);
        else r[in->d] = ptx_reg(P, class_of[p->rty[in->d]]);
        if (in->op != MO_CONST || in->d == p->out) put_ins(P, p, in, r);
    }
}
