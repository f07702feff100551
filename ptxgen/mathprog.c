/* The `math` op and the ops PTX lacks (f64 exp, exp2, log, log2; f32 log,
 * log2, sin, cos): ir/mathfn.c's or ir/mathfn_op.c's program for the
 * function and type, printed one PTX instruction per step (the interpreter
 * and constant folding execute the same steps, so all give the same bits). Every rounding is explicit (.rn), so ptxas
 * contracts nothing; the code is straight-line, selects instead of
 * branches. */
#include "ptx.h"
#include "../ir/mathfn.h"

#include <stdio.h>
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

/* An operand's text: its register, or an MO_IMM's value in place */
typedef struct Opnd {
    char s[24];
} Opnd;

static Opnd opnd(const MathProg *p, const int *def, const Reg *r, int i) {
    Opnd o;
    const MIns *k = def[i] >= 0 ? &p->ins[def[i]] : NULL;
    if (!k || k->op != MO_IMM) {
        Buf b = {0};
        ptx_put_reg(&b, r[i]);
        snprintf(o.s, sizeof o.s, "%s", buf_str(&b));
        buf_free(&b);
        return o;
    }
    switch ((MType)p->rty[i]) {
    case MT_F32: snprintf(o.s, sizeof o.s, "0f%08X", (unsigned)k->imm); break;
    case MT_F64: snprintf(o.s, sizeof o.s, "0d%016llX", (unsigned long long)k->imm); break;
    default:
        switch ((MathImm)k->cmp) {
        case MIM_DEC: snprintf(o.s, sizeof o.s, "%lld", (long long)(int32_t)(uint32_t)k->imm); break;
        case MIM_HEX8: snprintf(o.s, sizeof o.s, "0x%08X", (unsigned)k->imm); break;
        default: snprintf(o.s, sizeof o.s, "0x%X", (unsigned)k->imm); break;
        }
    }
    return o;
}

static void put_cvt(Ptx *P, const char *ftz, MType to, MType from, Reg d, const char *a) {
    if (from == MT_B64 && to == MT_B32) ptx_ins(P, "cvt.u32.u64 %R, %s;", d, a);
    else if (from == MT_B32) ptx_ins(P, "cvt.rn.%s.s32 %R, %s;", fty[to], d, a);
    else if (from == MT_B64) ptx_ins(P, "cvt.rn.%s.s64 %R, %s;", fty[to], d, a);
    else if (to == MT_B32) ptx_ins(P, "cvt.rni%s.s32.%s %R, %s;", ftz, fty[from], d, a);
    else if (to == MT_F64) ptx_ins(P, "cvt.f64.f32 %R, %s;", d, a);
    else ptx_ins(P, "cvt.rn.f32.f64 %R, %s;", d, a);
}

/* setp's type: b32 compares signed unless told otherwise, b64 unsigned */
static const char *setp_ty(MType ta, int fl) {
    if (ta == MT_B32) return fl & MI_U ? "u32" : fl & MI_B ? "b32" : "s32";
    return ta == MT_B64 ? "u64" : fty[ta];
}

static void put_ins(Ptx *P, const MathProg *p, const int *def, const MIns *in, Reg *r) {
    MType t = (MType)p->rty[in->d], ta = (MType)p->rty[in->a];
    Reg d = r[in->d];
    Opnd oa = opnd(p, def, r, in->a), ob = opnd(p, def, r, in->b), oc = opnd(p, def, r, in->c);
    const char *a = oa.s, *b = ob.s, *c = oc.s;
    const char *ft = fty[t], *ftz = in->fl & MI_FTZ ? ".ftz" : "";
    switch ((MOp)in->op) {
    case MO_CONST: put_const(P, t, d, in->imm); return;
    case MO_IMM: return;
    case MO_ADD: ptx_ins(P, "add.rn%s.%s %R, %s, %s;", ftz, ft, d, a, b); return;
    case MO_SUB: ptx_ins(P, "sub.rn%s.%s %R, %s, %s;", ftz, ft, d, a, b); return;
    case MO_MUL: ptx_ins(P, "mul.rn%s.%s %R, %s, %s;", ftz, ft, d, a, b); return;
    case MO_FMA: ptx_ins(P, "fma.rn%s.%s %R, %s, %s, %s;", ftz, ft, d, a, b, c); return;
    case MO_DIV: ptx_ins(P, "div.rn.%s %R, %s, %s;", ft, d, a, b); return;
    case MO_SQRT: ptx_ins(P, "sqrt.rn.%s %R, %s;", ft, d, a); return;
    case MO_NEG: ptx_ins(P, "neg.%s %R, %s;", t == MT_B32 || t == MT_B64 ? int_ty(t, true) : ft, d, a); return;
    case MO_ABS: ptx_ins(P, "abs.%s %R, %s;", ft, d, a); return;
    case MO_MIN: ptx_ins(P, "min.%s %R, %s, %s;", ft, d, a, b); return;
    case MO_MAX: ptx_ins(P, "max.%s %R, %s, %s;", ft, d, a, b); return;
    case MO_COPYSIGN: ptx_ins(P, "copysign.%s %R, %s, %s;", ft, d, a, b); return;
    case MO_RNI: ptx_ins(P, "cvt.rni.%s.%s %R, %s;", ft, ft, d, a); return;
    case MO_RMI: ptx_ins(P, "cvt.rmi.%s.%s %R, %s;", ft, ft, d, a); return;
    case MO_RPI: ptx_ins(P, "cvt.rpi.%s.%s %R, %s;", ft, ft, d, a); return;
    case MO_RZI: ptx_ins(P, "cvt.rzi.%s.%s %R, %s;", ft, ft, d, a); return;
    case MO_CVT: put_cvt(P, ftz, t, ta, d, a); return;
    case MO_SETP: ptx_ins(P, "setp.%s.%s %R, %s, %s;", cmp_names[in->cmp], setp_ty(ta, in->fl), d, a, b); return;
    case MO_TESTP: ptx_ins(P, "testp.%s.%s %R, %s;", testp_names[in->cmp - MC_NAN], fty[ta], d, a); return;
    case MO_SELP: ptx_ins(P, "selp.%s %R, %s, %s, %s;", in->fl & MI_S ? "s32" : ft, d, a, b, c); return;
    case MO_IADD: ptx_ins(P, "add.%s %R, %s, %s;", int_ty(t, true), d, a, b); return;
    case MO_ISUB: ptx_ins(P, "sub.%s %R, %s, %s;", int_ty(t, true), d, a, b); return;
    case MO_AND: ptx_ins(P, "and.%s %R, %s, %s;", ft, d, a, b); return;
    case MO_OR: ptx_ins(P, "or.%s %R, %s, %s;", ft, d, a, b); return;
    case MO_XOR: ptx_ins(P, "xor.%s %R, %s, %s;", ft, d, a, b); return;
    case MO_SHL: ptx_ins(P, "shl.%s %R, %s, %s;", ft, d, a, b); return;
    case MO_SHRS: ptx_ins(P, "shr.%s %R, %s, %s;", int_ty(t, true), d, a, b); return;
    case MO_SHRU: ptx_ins(P, "shr.%s %R, %s, %s;", int_ty(t, false), d, a, b); return;
    case MO_HI: ptx_ins(P, "mov.b64 {%R, %R}, %s;", ptx_reg(P, RC_B32), d, a); return;
    case MO_LO: ptx_ins(P, "mov.b64 {%R, %R}, %s;", d, ptx_reg(P, RC_B32), a); return;
    case MO_SPLIT: ptx_ins(P, "mov.b64 {%R, %R}, %s;", d, r[in->c], a); return;
    case MO_PACK: ptx_ins(P, "mov.b64 %R, {%s, %s};", d, a, b); return;
    case MO_MOVB: ptx_ins(P, "mov.b32 %R, %s;", d, a); return;
    case MO_POPC: ptx_ins(P, "popc.%s %R, %s;", fty[ta], d, a); return;
    case MO_CLZ: ptx_ins(P, "clz.%s %R, %s;", fty[ta], d, a); return;
    case MO_BREV: ptx_ins(P, "brev.%s %R, %s;", ft, d, a); return;
    case MO_MULHI: ptx_ins(P, "mul.hi.%s %R, %s, %s;", int_ty(t, in->imm != 0), d, a, b); return;
    case MO_EX2A: ptx_ins(P, "ex2.approx.f32 %R, %s;", d, a); return;
    case MO_LG2A: ptx_ins(P, "lg2.approx.f32 %R, %s;", d, a); return;
    case MO_SINA: ptx_ins(P, "sin.approx.f32 %R, %s;", d, a); return;
    case MO_COSA: ptx_ins(P, "cos.approx.f32 %R, %s;", d, a); return;
    case MO_DIVF: ptx_ins(P, "div.full.f32 %R, %s, %s;", d, a, b); return;
    case MO_MULLO: ptx_ins(P, "mul.lo.%s %R, %s, %s;", int_ty(t, false), d, a, b); return;
    case MO_MAD: ptx_ins(P, "mad.lo.s32 %R, %s, %s, %s;", d, a, b, c); return;
    case MO_MULWIDE: ptx_ins(P, "mul.wide.u32 %R, %s, %s;", d, a, b); return;
    case MO_MADWIDE: ptx_ins(P, "mad.wide.u32 %R, %s, %s, %s;", d, a, b, c); return;
    case MO_BFE: ptx_ins(P, "bfe.u32 %R, %s, %s, %s;", d, a, b, c); return;
    }
    tric_unreachable();
}

/* Prints p with result register d and operand registers args. PTX
 * registers are taken in the order p created its registers (each by the
 * first step that writes it or a later-created register), the result's
 * being d, constants the cached prologue ones, immediates none. */
static void put_prog(Ptx *P, const MathProg *p, Reg d, const Reg *args) {
    Reg r[MP_MAX_REGS];
    int def[MP_MAX_REGS];
    for (int i = 0; i < p->n_regs; i++) {
        def[i] = -1;
        r[i] = REG_NONE;
    }
    for (int i = 0; i < p->n_ins; i++) {
        const MIns *in = &p->ins[i];
        if (def[in->d] < 0) def[in->d] = i;
        if (in->op == MO_SPLIT && def[in->c] < 0) def[in->c] = i;
    }
    for (int i = 0; i < p->n_in; i++) r[i] = args[i];
    int next = p->n_in;
    for (int i = 0; i < p->n_ins; i++) {
        const MIns *in = &p->ins[i];
        int upto = in->op == MO_SPLIT && in->c > in->d ? in->c : in->d;
        for (; next <= upto; next++) {
            TRIC_ASSERT(def[next] >= 0);
            const MIns *k = &p->ins[def[next]];
            MType t = (MType)p->rty[next];
            if (next == p->out) r[next] = d;
            else if (k->op == MO_IMM) continue;
            else if (k->op == MO_CONST && t != MT_PRED) r[next] = ptx_const_reg(P, class_of[t], k->imm);
            else r[next] = ptx_reg(P, class_of[t]);
        }
        if (in->op != MO_CONST || in->d == p->out) put_ins(P, p, def, in, r);
    }
}

void ptx_math_fn(Ptx *P, int fn, ElemType e, Reg d, const Reg *args) {
    MathProg prog;
    mathfn_build(&prog, (MathFn)fn, e);
    put_prog(P, &prog, d, args);
}

bool ptx_math_op(Ptx *P, Opcode opc, ElemType e, Reg d, Reg a) {
    MathProg prog;
    if (!mathfn_build_op(&prog, opc, e)) return false;
    put_prog(P, &prog, d, &a);
    return true;
}
