/* Elementwise ops: op x type -> PTX, from a table where one line says it,
 * and small functions for what a line cannot (compares, select, addptr,
 * casts). Every op is applied per register of its (equal-layout) operands.
 *
 * How element types live in registers (and why):
 *   i1            .pred           predicates are what setp/selp/@p use
 *   i8, u8        .b16            PTX has no 8-bit arithmetic; the value is kept
 *                                 sign- (i8) or zero- (u8) extended to 16 bits,
 *                                 so compares, division and widening need no
 *                                 fix-up; ops that can leave 8 bits re-extend
 *   i16, u16      .b16
 *   f16, bf16     .b16            (.bf16 is not a register type)
 *   i32, u32      .b32            f32 .f32,  i64 u64 ptr .b64,  f64 .f64
 */
#include "ptx.h"
#include "../ir/mathfn.h"

#include <string.h>

RegClass ptx_class_of(ElemType e) {
    switch (e) {
    case ET_I1: return RC_PRED;
    case ET_I32: case ET_U32: return RC_B32;
    case ET_F32: return RC_F32;
    case ET_I64: case ET_U64: case ET_PTR: return RC_B64;
    case ET_F64: return RC_F64;
    default: return RC_B16;   /* 8- and 16-bit ints, f16, bf16, fp8 */
    }
}

const char *ptx_bits_sfx(ElemType e) {
    static const char *const sfx[RC_COUNT] = {"pred", "b16", "b32", "b32", "b64", "b64"};
    return sfx[ptx_class_of(e)];
}

const char *ptx_arith_sfx(ElemType e) {
    switch (e) {
    case ET_I1: return "pred";
    case ET_I8: case ET_I16: return "s16";
    case ET_U8: case ET_U16: return "u16";
    case ET_I32: return "s32";
    case ET_U32: return "u32";
    case ET_I64: return "s64";
    case ET_U64: case ET_PTR: return "u64";
    case ET_F16: return "f16";
    case ET_BF16: return "bf16";
    case ET_F32: return "f32";
    case ET_F64: return "f64";
    default: return "b16";    /* fp8: bits only */
    }
}

static const char *signed_sfx(ElemType e) {
    static const char *const sfx[RC_COUNT] = {"pred", "s16", "s32", "f32", "s64", "f64"};
    return sfx[ptx_class_of(e)];
}

static bool is_8bit(ElemType e) { return e == ET_I8 || e == ET_U8 || e == ET_F8E4M3 || e == ET_F8E5M2; }
static bool is_f8(ElemType e) { return e == ET_F8E4M3 || e == ET_F8E5M2; }

_Noreturn static void unsupported(Ptx *P, IrOp *op, ElemType e) {
    diag_error(P->ctx, op->loc, "%s on %s is not supported yet", ir_info(op->opc)->name,
               elem_triton_name(e));
}

/* ---- small conversions shared with memory.c and convert.c ---- */

void ptx_norm8(Ptx *P, ElemType e, Reg d, Reg a) {
    if (e == ET_I8) ptx_ins(P, "cvt.s16.s8 %R, %R;", d, a);
    else ptx_ins(P, "cvt.u16.u8 %R, %R;", d, a);
}

/* f16/bf16 -> f32 is exact. Before cvt.f32.bf16 exists (PTX 7.1, which our
 * sm_80 .version 7.0 lacks) the bf16 bits simply become the upper half. */
Reg ptx_to_f32(Ptx *P, ElemType e, Reg a) {
    if (e == ET_F32) return a;
    Reg f = ptx_reg(P, RC_F32);
    if (e == ET_F16) ptx_ins(P, "cvt.f32.f16 %R, %R;", f, a);
    else if (P->ti->bf16_cvt) ptx_ins(P, "cvt.f32.bf16 %R, %R;", f, a);
    else ptx_ins(P, "mov.b32 %R, {%R, %R};", f, ptx_const_reg(P, RC_B16, 0), a);   /* first = low */
    return f;
}

static void from_f32(Ptx *P, ElemType e, Reg d, Reg f, bool rz) {
    ptx_ins(P, "cvt.%s.%s.f32 %R, %R;", rz ? "rz" : "rn", ptx_arith_sfx(e), d, f);
}

/* ---- the table ----
 * Template language: %d result, %a %b operands, %t the type's arithmetic
 * suffix (s32, u16, f32, bf16, ...), %B its bits suffix (b16, b32, pred),
 * %I its signed integer suffix, %0..%3 scratch registers of the result's
 * class, %P %Q scratch predicates, %S operand b as a 32-bit register (shift
 * amounts are .u32 in PTX whatever the type), %K<hex> a register of the
 * result's class holding those bits, %r ".rn" where float contraction is
 * off (Target.no_fp_fusion: ptxas does not fuse a .rn mul and add into an
 * fma). ';' separates instructions. */
enum {
    G_I1 = 1 << 0, G_S8 = 1 << 1, G_U8 = 1 << 2, G_S16 = 1 << 3, G_U16 = 1 << 4,
    G_S32 = 1 << 5, G_U32 = 1 << 6, G_S64 = 1 << 7, G_U64 = 1 << 8, G_F16 = 1 << 9,
    G_BF16 = 1 << 10, G_F32 = 1 << 11, G_F64 = 1 << 12,
    G_SINT = G_S8 | G_S16 | G_S32 | G_S64,
    G_UINT = G_U8 | G_U16 | G_U32 | G_U64,
    G_INT = G_SINT | G_UINT,
    G_HALF = G_F16 | G_BF16,
    G_FLOAT = G_HALF | G_F32 | G_F64,
};

enum {
    R_NORM8 = 1,    /* result can leave 8 bits: re-extend */
    R_SM90 = 2,     /* only where the target has bf16 arithmetic (sm_90+) */
    R_PRE90 = 4,    /* only where it has none */
    R_NAN = 8,      /* only with attr.i == 1 (NaN-propagating min/max) */
    R_NONAN = 16,   /* only without */
};

typedef struct OpRow {
    Opcode opc;
    uint32_t types;
    unsigned flags;
    const char *tmpl;
} OpRow;

#define FREM(T, TY)                                                                        \
    "div.rn." T " %0, %a, %b; cvt.rzi." T "." T " %0, %0; neg." T " %0, %0; "              \
    "fma.rn." T " %1, %0, %b, %a; "                                                        \
    "setp.lt." T " %P, %1, 0" TY "; setp.lt." T " %Q, %a, 0" TY "; xor.pred %P, %P, %Q; "  \
    "setp.ne." T " %Q, %1, 0" TY "; and.pred %P, %P, %Q; "                                 \
    "copysign." T " %2, %a, %b; add." T " %3, %1, %2; selp." T " %1, %3, %1, %P; "         \
    "testp.infinite." T " %P, %b; selp." T " %d, %a, %1, %P"

static const OpRow optab[] = {
    {OP_ADD, G_INT, R_NORM8, "add.%t %d, %a, %b"},
    {OP_ADD, G_I1, 0, "xor.pred %d, %a, %b"},   /* modulo 2, as LLVM's add i1 */
    {OP_ADD, G_F16 | G_F32 | G_F64, 0, "add%r.%t %d, %a, %b"},
    {OP_ADD, G_BF16, R_SM90, "add.bf16 %d, %a, %b"},
    {OP_ADD, G_BF16, R_PRE90, "fma.rn.bf16 %d, %a, %K3F80, %b"},
    {OP_SUB, G_INT, R_NORM8, "sub.%t %d, %a, %b"},
    {OP_SUB, G_I1, 0, "xor.pred %d, %a, %b"},
    {OP_SUB, G_F16 | G_F32 | G_F64, 0, "sub%r.%t %d, %a, %b"},
    {OP_SUB, G_BF16, R_SM90, "sub.bf16 %d, %a, %b"},
    {OP_SUB, G_BF16, R_PRE90, "fma.rn.bf16 %d, %b, %KBF80, %a"},
    {OP_MUL, G_INT, R_NORM8, "mul.lo.%t %d, %a, %b"},
    {OP_MUL, G_I1, 0, "and.pred %d, %a, %b"},
    {OP_MUL, G_F16 | G_F32 | G_F64, 0, "mul%r.%t %d, %a, %b"},
    {OP_MUL, G_BF16, R_SM90, "mul.bf16 %d, %a, %b"},
    {OP_MUL, G_BF16, R_PRE90, "fma.rn.bf16 %d, %a, %b, %K8000"},   /* + (-0) keeps -0 */
    {OP_DIV, G_INT, R_NORM8, "div.%t %d, %a, %b"},
    {OP_DIV, G_F32, 0, "div.full.f32 %d, %a, %b"},
    {OP_DIV, G_F64, 0, "div.rn.f64 %d, %a, %b"},
    {OP_REM, G_INT, R_NORM8, "rem.%t %d, %a, %b"},
    /* Triton's float %: a - trunc(a/b)*b, fixed up by one b when the
     * rounded quotient crossed an integer, and a when b is infinite
     * (elem_frem in ir/ir.c says what that computes). Exact while |a/b| <
     * 2^24 (f32) / 2^53 (f64); beyond that the quotient itself is rounded. */
    {OP_REM, G_F32, 0, FREM("f32", "f00000000")},
    {OP_REM, G_F64, 0, FREM("f64", "d0000000000000000")},
    {OP_AND, G_INT | G_I1, 0, "and.%B %d, %a, %b"},
    {OP_OR, G_INT | G_I1, 0, "or.%B %d, %a, %b"},
    {OP_XOR, G_INT | G_I1, 0, "xor.%B %d, %a, %b"},
    {OP_SHL, G_INT, R_NORM8, "shl.%B %d, %a, %S"},
    {OP_SHR, G_INT, 0, "shr.%t %d, %a, %S"},
    {OP_MIN, G_INT, 0, "min.%t %d, %a, %b"},
    {OP_MIN, G_F32 | G_HALF, R_NONAN, "min.%t %d, %a, %b"},
    {OP_MIN, G_F32 | G_HALF, R_NAN, "min.NaN.%t %d, %a, %b"},
    {OP_MIN, G_F64, R_NONAN, "min.f64 %d, %a, %b"},
    {OP_MIN, G_F64, R_NAN,   /* no min.NaN.f64: a + b is NaN exactly when one is */
     "min.f64 %0, %a, %b; setp.nan.f64 %P, %a, %b; add.f64 %1, %a, %b; selp.f64 %d, %1, %0, %P"},
    {OP_MAX, G_INT, 0, "max.%t %d, %a, %b"},
    {OP_MAX, G_F32 | G_HALF, R_NONAN, "max.%t %d, %a, %b"},
    {OP_MAX, G_F32 | G_HALF, R_NAN, "max.NaN.%t %d, %a, %b"},
    {OP_MAX, G_F64, R_NONAN, "max.f64 %d, %a, %b"},
    {OP_MAX, G_F64, R_NAN,
     "max.f64 %0, %a, %b; setp.nan.f64 %P, %a, %b; add.f64 %1, %a, %b; selp.f64 %d, %1, %0, %P"},
    {OP_NEG, G_INT, R_NORM8, "neg.%I %d, %a"},
    {OP_NEG, G_FLOAT, 0, "neg.%t %d, %a"},
    {OP_NOT, G_INT, R_NORM8, "not.%B %d, %a"},
    {OP_NOT, G_I1, 0, "not.pred %d, %a"},
    {OP_ABS, G_SINT, R_NORM8, "abs.%t %d, %a"},
    {OP_ABS, G_UINT, 0, "mov.%B %d, %a"},
    {OP_ABS, G_FLOAT, 0, "abs.%t %d, %a"},
    /* Triton's lowering: exp(x) = ex2(x * log2 e), a fast approximation as
     * Triton's; log and log2 (f32 and f64) and f64 exp are fntab's, accurate */
    {OP_EXP, G_F32, 0, "mul.f32 %0, %a, 0f3FB8AA3B; ex2.approx.f32 %d, %0"},
    {OP_EXP2, G_F32, 0, "ex2.approx.f32 %d, %a"},
    {OP_SQRT, G_F32, 0, "sqrt.approx.ftz.f32 %d, %a"},   /* as Triton: subnormals flush */
    {OP_SQRT, G_F64, 0, "sqrt.rn.f64 %d, %a"},
    {OP_RSQRT, G_F32, 0, "rsqrt.approx.f32 %d, %a"},
    /* f64 rsqrt: two correct roundings rather than rsqrt.approx.f64 (~2^-50
     * relative). libdevice's __nv_rsqrt is within 1 ulp; this is within 1.5
     * (the first rounding can cost 1 ulp where the result's mantissa is near
     * 2; measured 1.49 in test_f64_math.c) */
    {OP_RSQRT, G_F64, 0, "sqrt.rn.f64 %0, %a; rcp.rn.f64 %d, %0"},
    /* tl.umulhi: unsigned whatever the type's signedness, as Triton's */
    {OP_MULHI, G_S32 | G_U32, 0, "mul.hi.u32 %d, %a, %b"},
    {OP_MULHI, G_S64 | G_U64, 0, "mul.hi.u64 %d, %a, %b"},
};

static uint32_t group_of(ElemType e) {
    switch (e) {
    case ET_I1: return G_I1;
    case ET_I8: return G_S8;
    case ET_U8: return G_U8;
    case ET_I16: return G_S16;
    case ET_U16: return G_U16;
    case ET_I32: return G_S32;
    case ET_U32: return G_U32;
    case ET_I64: return G_S64;
    case ET_U64: return G_U64;
    case ET_F16: return G_F16;
    case ET_BF16: return G_BF16;
    case ET_F32: return G_F32;
    case ET_F64: return G_F64;
    default: return 0;
    }
}

static const OpRow *find_row(Ptx *P, IrOp *op, ElemType e) {
    uint32_t g = group_of(e);
    bool nan = op->attr.i == 1;
    for (size_t i = 0; i < ARRAY_LEN(optab); i++) {
        const OpRow *r = &optab[i];
        if (r->opc != op->opc || !(r->types & g)) continue;
        if ((r->flags & R_SM90) && !P->ti->bf16_arith) continue;
        if ((r->flags & R_PRE90) && P->ti->bf16_arith) continue;
        if ((r->flags & R_NAN) && !nan) continue;
        if ((r->flags & R_NONAN) && nan) continue;
        return r;
    }
    return NULL;
}

static Reg shift_amount(Ptx *P, Reg b) {
    if (REG_CLASS(b) == RC_B32) return b;
    Reg t = ptx_reg(P, RC_B32);
    ptx_ins(P, "cvt.u32.%s %R, %R;", REG_CLASS(b) == RC_B16 ? "u16" : "u64", t, b);
    return t;
}

static void emit_row(Ptx *P, const OpRow *row, ElemType e, Reg d, Reg a, Reg b) {
    Reg tmp[4] = {0}, ptmp[2] = {0};
    Reg s = strstr(row->tmpl, "%S") ? shift_amount(P, b) : REG_NONE;
    Buf *o = P->out;
    buf_putc(o, '\t');
    for (const char *t = row->tmpl; *t; t++) {
        if (*t == ';') {
            buf_puts(o, ";\n\t");
            P->n_insts++;
            while (t[1] == ' ') t++;
            continue;
        }
        if (*t != '%') {
            buf_putc(o, *t);
            continue;
        }
        switch (*++t) {
        case 'd': ptx_put_reg(o, d); break;
        case 'a': ptx_put_reg(o, a); break;
        case 'b': ptx_put_reg(o, b); break;
        case 'S': ptx_put_reg(o, s); break;
        case 't': buf_puts(o, ptx_arith_sfx(e)); break;
        case 'r': if (P->ctx->target.no_fp_fusion) buf_puts(o, ".rn"); break;   /* no contraction into fma */
        case 'B': buf_puts(o, ptx_bits_sfx(e)); break;
        case 'I': buf_puts(o, signed_sfx(e)); break;
        case '0': case '1': case '2': case '3': {
            int k = *t - '0';
            if (!tmp[k]) tmp[k] = ptx_reg(P, REG_CLASS(d));
            ptx_put_reg(o, tmp[k]);
            break;
        }
        case 'P': case 'Q': {
            int k = *t == 'Q';
            if (!ptmp[k]) ptmp[k] = ptx_reg(P, RC_PRED);
            ptx_put_reg(o, ptmp[k]);
            break;
        }
        case 'K': {
            uint64_t bits = 0;
            for (int h; (h = base_hex_digit(t[1])) >= 0; t++) bits = bits * 16 + (uint64_t)h;
            ptx_put_reg(o, ptx_const_reg(P, REG_CLASS(d), bits));
            break;
        }
        default: tric_unreachable();
        }
    }
    buf_puts(o, ";\n");
    P->n_insts++;
    if ((row->flags & R_NORM8) && is_8bit(e)) ptx_norm8(P, e, d, d);
}

/* f16/bf16 ops PTX lacks (division, math functions) run in f32 and round
 * back once, as Triton does. */
static bool via_f32(Ptx *P, IrOp *op, ElemType e, Reg d, Reg a, Reg b) {
    if (e != ET_F16 && e != ET_BF16) return false;
    MathProg prog;
    bool is_prog = mathfn_build_op(&prog, op->opc, ET_F32);
    const OpRow *row = is_prog ? NULL : find_row(P, op, ET_F32);
    if (!is_prog && !row) return false;
    Reg fa = ptx_to_f32(P, e, a);
    Reg fb = b ? ptx_to_f32(P, e, b) : REG_NONE;
    Reg fd = ptx_reg(P, RC_F32);
    if (is_prog) ptx_math_op(P, op->opc, ET_F32, fd, fa);
    else emit_row(P, row, ET_F32, fd, fa, fb);
    from_f32(P, e, d, fd, false);
    return true;
}

/* ---- compares and select ---- */

static const char *cmp_name(CmpPred p, bool is_float) {
    static const char *const names[] = {"eq", "ne", "lt", "le", "gt", "ge"};
    /* float != is true for NaN (unordered), as in C and Triton */
    if (is_float && p == CMP_NE) return "neu";
    return names[p];
}

static void emit_cmp(Ptx *P, IrOp *op, ElemType e, Reg d, Reg a, Reg b) {
    if (op->attr.i < CMP_EQ || op->attr.i > CMP_GE)
        diag_error(P->ctx, op->loc, "unknown comparison predicate %lld", (long long)op->attr.i);
    CmpPred p = (CmpPred)op->attr.i;
    if (e == ET_I1) {   /* compare as 0/1 integers */
        Reg x = ptx_reg(P, RC_B16), y = ptx_reg(P, RC_B16);
        ptx_ins(P, "selp.u16 %R, 1, 0, %R;", x, a);
        ptx_ins(P, "selp.u16 %R, 1, 0, %R;", y, b);
        ptx_ins(P, "setp.%s.u16 %R, %R, %R;", cmp_name(p, false), d, x, y);
        return;
    }
    if (is_f8(e) || (!group_of(e) && e != ET_PTR)) unsupported(P, op, e);
    if (e == ET_BF16 && !P->ti->bf16_arith) {   /* setp.bf16 is sm_90+; widening is exact */
        a = ptx_to_f32(P, e, a);
        b = ptx_to_f32(P, e, b);
        e = ET_F32;
    }
    ptx_ins(P, "setp.%s.%s %R, %R, %R;", cmp_name(p, elem_is_float(e)), ptx_arith_sfx(e), d, a, b);
}

static void emit_select(Ptx *P, Reg d, Reg c, Reg a, Reg b) {
    if (REG_CLASS(d) != RC_PRED) {
        static const char *const ty[RC_COUNT] = {"", "b16", "b32", "f32", "b64", "f64"};
        ptx_ins(P, "selp.%s %R, %R, %R, %R;", ty[REG_CLASS(d)], d, a, b, c);
        return;
    }
    Reg nc = ptx_reg(P, RC_PRED), t = ptx_reg(P, RC_PRED), u = ptx_reg(P, RC_PRED);
    ptx_ins(P, "and.pred %R, %R, %R;", t, c, a);
    ptx_ins(P, "not.pred %R, %R;", nc, c);
    ptx_ins(P, "and.pred %R, %R, %R;", u, nc, b);
    ptx_ins(P, "or.pred %R, %R, %R;", d, t, u);
}

/* ptr + offset * sizeof(pointee), the offset sign- or zero-extended by its type */
static void emit_addptr(Ptx *P, IrOp *op, ElemType off, Reg d, Reg p, Reg o) {
    IrType pt = P->fn->vals[op->operands[0]].type;
    int bytes = elem_bytes((ElemType)pt.pointee);
    switch (off) {
    case ET_I32: ptx_ins(P, "mad.wide.s32 %R, %R, %d, %R;", d, o, bytes, p); break;
    case ET_U32: ptx_ins(P, "mad.wide.u32 %R, %R, %d, %R;", d, o, bytes, p); break;
    case ET_I64:
    case ET_U64: ptx_ins(P, "mad.lo.s64 %R, %R, %d, %R;", d, o, bytes, p); break;
    case ET_I8: case ET_I16: case ET_U8: case ET_U16: {
        Reg w = ptx_reg(P, RC_B64);
        ptx_ins(P, "cvt.%s64.%s %R, %R;", elem_is_signed(off) ? "s" : "u", ptx_arith_sfx(off), w, o);
        ptx_ins(P, "mad.lo.s64 %R, %R, %d, %R;", d, w, bytes, p);
        break;
    }
    default:
        diag_error(P->ctx, op->loc, "pointer offset of type %s is not supported", elem_triton_name(off));
    }
}

/* ---- casts ---- */

static int reg_bits(ElemType e) { return is_8bit(e) ? 16 : elem_bits(e); }

static void cast_to_bool(Ptx *P, IrOp *op, ElemType s, Reg d, Reg a) {
    if (elem_is_int(s)) {
        ptx_ins(P, "setp.ne.%s %R, %R, 0;", ptx_arith_sfx(s), d, a);
        return;
    }
    if (s == ET_BF16 && !P->ti->bf16_arith) {
        a = ptx_to_f32(P, s, a);
        s = ET_F32;
    }
    switch (s) {   /* NaN is true, as (bool)NaN in C */
    case ET_F32: ptx_ins(P, "setp.neu.f32 %R, %R, 0f00000000;", d, a); break;
    case ET_F64: ptx_ins(P, "setp.neu.f64 %R, %R, 0d0000000000000000;", d, a); break;
    case ET_F16:
    case ET_BF16:
        ptx_ins(P, "setp.neu.%s %R, %R, %R;", ptx_arith_sfx(s), d, a, ptx_const_reg(P, RC_B16, 0));
        break;
    default: unsupported(P, op, s);
    }
}

static void cast_from_bool(Ptx *P, ElemType t, Reg d, Reg a) {
    switch (t) {
    case ET_F32: ptx_ins(P, "selp.f32 %R, 0f3F800000, 0f00000000, %R;", d, a); break;
    case ET_F64: ptx_ins(P, "selp.f64 %R, 0d3FF0000000000000, 0d0000000000000000, %R;", d, a); break;
    case ET_F16: ptx_ins(P, "selp.b16 %R, 0x3C00, 0x0000, %R;", d, a); break;
    case ET_BF16: ptx_ins(P, "selp.b16 %R, 0x3F80, 0x0000, %R;", d, a); break;
    default: ptx_ins(P, "selp.%s %R, 1, 0, %R;", ptx_bits_sfx(t), d, a); break;
    }
}

/* Integers: extension follows the source's signedness (C semantics);
 * narrowing truncates. 8-bit values are 16-bit registers kept extended. */
static void cast_int_int(Ptx *P, ElemType s, ElemType t, Reg d, Reg a) {
    if (is_8bit(t)) {
        Reg h = a;
        if (reg_bits(s) != 16) {
            h = ptx_reg(P, RC_B16);
            ptx_ins(P, "cvt.u16.%s %R, %R;", ptx_arith_sfx(s), h, a);
        }
        ptx_norm8(P, t, d, h);
    } else if (reg_bits(s) == reg_bits(t)) {
        ptx_mov(P, d, a);
    } else {
        ptx_ins(P, "cvt.%s.%s %R, %R;", ptx_arith_sfx(t), ptx_arith_sfx(s), d, a);
    }
}

static void cast_f64_bf16(Ptx *P, Reg d, Reg a, bool rz);

/* One rounding, as the IR's cast means. No cvt.bf16 from integers before
 * sm_90 (a .py kernel's casts there went through f32 in pass legalize, as
 * Triton's do; this serves IR written by hand): through f64, exact for
 * 32-bit integers, and for 64-bit ones truncated with the dropped bits
 * kept as a sticky last bit (round to odd), then cast_f64_bf16. */
static void cast_int_float(Ptx *P, ElemType s, ElemType t, Reg d, Reg a) {
    if (t == ET_BF16 && !P->ti->bf16_arith) {
        const char *sfx = ptx_arith_sfx(s);
        Reg w = ptx_reg(P, RC_F64);
        if (elem_bits(s) < 64) {
            ptx_ins(P, "cvt.rn.f64.%s %R, %R;", sfx, w, a);
        } else {
            Reg z = ptx_reg(P, RC_F64), back = ptx_reg(P, RC_B64), bits = ptx_reg(P, RC_B64);
            Reg odd = ptx_reg(P, RC_B64), sel = ptx_reg(P, RC_B64), inexact = ptx_reg(P, RC_PRED);
            ptx_ins(P, "cvt.rz.f64.%s %R, %R;", sfx, z, a);
            ptx_ins(P, "cvt.rzi.%s.f64 %R, %R;", sfx, back, z);
            ptx_ins(P, "setp.ne.b64 %R, %R, %R;", inexact, back, a);
            ptx_ins(P, "mov.b64 %R, %R;", bits, z);
            ptx_ins(P, "or.b64 %R, %R, 1;", odd, bits);
            ptx_ins(P, "selp.b64 %R, %R, %R, %R;", sel, odd, bits, inexact);
            ptx_ins(P, "mov.b64 %R, %R;", w, sel);
        }
        cast_f64_bf16(P, d, w, false);
        return;
    }
    ptx_ins(P, "cvt.rn.%s.%s %R, %R;", ptx_arith_sfx(t), ptx_arith_sfx(s), d, a);
}

/* Truncates toward zero; PTX saturates out-of-range values (NaN -> 0). */
static void cast_float_int(Ptx *P, ElemType s, ElemType t, Reg d, Reg a) {
    if (s == ET_BF16) {
        a = ptx_to_f32(P, s, a);
        s = ET_F32;
    }
    if (is_8bit(t)) {
        Reg h = ptx_reg(P, RC_B16);
        ptx_ins(P, "cvt.rzi.%s.%s %R, %R;", ptx_arith_sfx(t), ptx_arith_sfx(s), h, a);
        ptx_norm8(P, t, d, h);
        return;
    }
    ptx_ins(P, "cvt.rzi.%s.%s %R, %R;", ptx_arith_sfx(t), ptx_arith_sfx(s), d, a);
}

/* f64 -> bf16 without cvt.bf16.f64 (before sm_90): round to f32 toward
 * zero, set the lowest bit if that was inexact (round to odd), then round to
 * bf16: 24 bits >= 8 + 2, so the result equals one correct rounding. */
static void cast_f64_bf16(Ptx *P, Reg d, Reg a, bool rz) {
    Reg f = ptx_reg(P, RC_F32);
    ptx_ins(P, "cvt.rz.f32.f64 %R, %R;", f, a);
    if (!rz) {
        Reg back = ptx_reg(P, RC_F64), bits = ptx_reg(P, RC_B32), odd = ptx_reg(P, RC_B32);
        Reg sel = ptx_reg(P, RC_B32), inexact = ptx_reg(P, RC_PRED);
        ptx_ins(P, "cvt.f64.f32 %R, %R;", back, f);
        ptx_ins(P, "setp.neu.f64 %R, %R, %R;", inexact, back, a);
        ptx_ins(P, "mov.b32 %R, %R;", bits, f);
        ptx_ins(P, "or.b32 %R, %R, 1;", odd, bits);
        ptx_ins(P, "selp.b32 %R, %R, %R, %R;", sel, odd, bits, inexact);
        f = ptx_reg(P, RC_F32);
        ptx_ins(P, "mov.b32 %R, %R;", f, sel);
    }
    from_f32(P, ET_BF16, d, f, rz);
}

static void cast_float_float(Ptx *P, ElemType s, ElemType t, Reg d, Reg a, bool rz) {
    const char *rnd = rz ? "rz" : "rn";
    bool widen = elem_bits(t) > elem_bits(s);
    if (s == ET_BF16 && (t == ET_F32 || !P->ti->bf16_arith || t == ET_F16)) {
        Reg f = ptx_to_f32(P, s, a);
        if (t == ET_F32) ptx_mov(P, d, f);
        else if (t == ET_F64) ptx_ins(P, "cvt.f64.f32 %R, %R;", d, f);
        else from_f32(P, t, d, f, rz);
        return;
    }
    if (s == ET_F16 && t == ET_BF16) {
        from_f32(P, t, d, ptx_to_f32(P, s, a), rz);
        return;
    }
    if (s == ET_F64 && t == ET_BF16 && !P->ti->bf16_arith) {
        cast_f64_bf16(P, d, a, rz);
        return;
    }
    if (widen) ptx_ins(P, "cvt.%s.%s %R, %R;", ptx_arith_sfx(t), ptx_arith_sfx(s), d, a);
    else ptx_ins(P, "cvt.%s.%s.%s %R, %R;", rnd, ptx_arith_sfx(t), ptx_arith_sfx(s), d, a);
}

/* ---- fp8 ----
 * An fp8 value is the low byte of a 16-bit register. The packed cvt forms
 * (sm_89 with PTX 8.1, sm_90 with 7.8) convert two at a time; the other
 * lane gets zero and its result is dropped. */

static const char *f8_name(ElemType e) { return e == ET_F8E4M3 ? "e4m3x2" : "e5m2x2"; }

static void need_fp8_cvt(Ptx *P, IrOp *op, ElemType s, ElemType t) {
    if (!P->ti->fp8)
        diag_error(P->ctx, op->loc, "cast from %s to %s needs sm_89 or newer; the target is sm_%d",
                   elem_triton_name(s), elem_triton_name(t), P->ctx->target.sm);
    if (P->version < P->ti->fp8_ptx) P->version = P->ti->fp8_ptx;
}

/* fp8 -> f16 (exact) */
static Reg f8_to_f16(Ptx *P, ElemType s, Reg a) {
    Reg pair = ptx_reg(P, RC_B32), h = ptx_reg(P, RC_B16);
    ptx_ins(P, "cvt.rn.f16x2.%s %R, %R;", f8_name(s), pair, a);
    ptx_ins(P, "cvt.u16.u32 %R, %R;", h, pair);   /* the low half */
    return h;
}

Reg ptx_f8_to_f16(Ptx *P, ElemType e, Reg a) { return f8_to_f16(P, e, a); }

/* f16/bf16/f32 -> fp8: to nearest even, saturating (the IR cast's meaning,
 * ir.h elem_round); rz only from f32 to e5m2, whose bytes are an f16's
 * upper byte, so truncating the f16 (rounded toward zero) is exact. */
static void cast_to_f8(Ptx *P, ElemType s, ElemType t, Reg d, Reg a, bool rz) {
    if (s == ET_F16) {
        Reg pair = ptx_reg(P, RC_B32);
        ptx_ins(P, "cvt.u32.u16 %R, %R;", pair, a);
        ptx_ins(P, "cvt.rn.satfinite.%s.f16x2 %R, %R;", f8_name(t), d, pair);
        return;
    }
    Reg f = ptx_to_f32(P, s, a);
    if (rz) {
        Reg h = ptx_reg(P, RC_B16);
        ptx_ins(P, "cvt.rz.f16.f32 %R, %R;", h, f);
        ptx_ins(P, "shr.u16 %R, %R, 8;", d, h);
        return;
    }
    ptx_ins(P, "cvt.rn.satfinite.%s.f32 %R, 0f00000000, %R;", f8_name(t), d, f);
}

static void cast_f8(Ptx *P, IrOp *op, ElemType s, ElemType t, Reg d, Reg a) {
    bool from8 = is_f8(s), ok;
    ElemType other = from8 ? t : s;
    ok = other == ET_F16 || other == ET_BF16 || other == ET_F32;
    if (!ok || (op->attr.i == ROUND_RTZ && !(s == ET_F32 && t == ET_F8E5M2)))
        diag_error(P->ctx, op->loc, "cast from %s to %s%s is not supported (the frontend goes through fp16 or fp32)",
                   elem_triton_name(s), elem_triton_name(t), op->attr.i == ROUND_RTZ ? " toward zero" : "");
    need_fp8_cvt(P, op, s, t);
    if (!from8) {
        cast_to_f8(P, s, t, d, a, op->attr.i == ROUND_RTZ);
        return;
    }
    Reg h = f8_to_f16(P, s, a);
    if (t == ET_F16) ptx_mov(P, d, h);
    else if (t == ET_F32) ptx_ins(P, "cvt.f32.f16 %R, %R;", d, h);
    else from_f32(P, t, d, ptx_to_f32(P, ET_F16, h), false);   /* bf16 holds every fp8 value */
}

static void emit_cast(Ptx *P, IrOp *op, ElemType s, ElemType t, Reg d, Reg a) {
    if (s == t) {
        ptx_mov(P, d, a);
        return;
    }
    if (is_f8(s) || is_f8(t)) {
        cast_f8(P, op, s, t, d, a);
        return;
    }
    if (s == ET_PTR || t == ET_PTR) {
        ElemType other = s == ET_PTR ? t : s;
        if (other != ET_I64 && other != ET_U64 && other != ET_PTR)
            diag_error(P->ctx, op->loc, "cast from %s to %s is not supported (pointers convert to and "
                       "from 64-bit integers)", elem_triton_name(s), elem_triton_name(t));
        ptx_mov(P, d, a);
        return;
    }
    if (t == ET_I1) cast_to_bool(P, op, s, d, a);
    else if (s == ET_I1) cast_from_bool(P, t, d, a);
    else if (elem_is_int(s) && elem_is_int(t)) cast_int_int(P, s, t, d, a);
    else if (elem_is_int(s)) cast_int_float(P, s, t, d, a);
    else if (elem_is_int(t)) cast_float_int(P, s, t, d, a);
    else cast_float_float(P, s, t, d, a, op->attr.i == ROUND_RTZ);
}

static void emit_bitcast(Ptx *P, IrOp *op, ElemType s, ElemType t, Reg d, Reg a) {
    if (elem_bits(s) != elem_bits(t))
        diag_error(P->ctx, op->loc, "bitcast from %s to %s changes the size", elem_triton_name(s),
                   elem_triton_name(t));
    if (is_8bit(t) && s != t) {   /* the 16-bit register's upper byte follows the new type */
        ptx_norm8(P, t == ET_I8 ? ET_I8 : ET_U8, d, a);
        return;
    }
    if (REG_CLASS(d) == REG_CLASS(a)) ptx_mov(P, d, a);
    else ptx_ins(P, "mov.%s %R, %R;", ptx_bits_sfx(t), d, a);
}

/* ---- driver ---- */

static void emit_one(Ptx *P, IrOp *op, ElemType e, ElemType et, Reg d, Reg a, Reg b, Reg c) {
    switch (op->opc) {
    case OP_CMP: emit_cmp(P, op, e, d, a, b); return;
    case OP_SELECT: emit_select(P, d, a, b, c); return;
    case OP_ADDPTR: emit_addptr(P, op, (ElemType)P->fn->vals[op->operands[1]].type.elem, d, a, b); return;
    case OP_CAST: emit_cast(P, op, e, et, d, a); return;
    case OP_BITCAST: emit_bitcast(P, op, e, et, d, a); return;
    case OP_MATH: {
        Reg args[3] = {a, b, c};
        ptx_math_fn(P, (int)op->attr.i, e, d, args);
        return;
    }
    default: break;
    }
    if (ptx_try_divrem_const(P, op, e, d, a)) return;
    if (ptx_math_op(P, op->opc, e, d, a)) return;
    const OpRow *row = find_row(P, op, e);
    if (row) emit_row(P, row, e, d, a, b);
    else if (!via_f32(P, op, e, d, a, b)) unsupported(P, op, e);
}

static bool same_layout(const Layout *x, const Layout *y) {
    if (x->rank != y->rank) return false;
    for (int d = 0; d < x->rank; d++)
        if (x->shape[d] != y->shape[d]) return false;
    for (int k = 0; k < LL_KINDS; k++) {
        if (x->n_bits[k] != y->n_bits[k]) return false;
        for (int i = 0; i < x->n_bits[k]; i++)
            for (int d = 0; d < x->rank; d++)
                if (x->basis[k][i][d] != y->basis[k][i][d]) return false;
    }
    return true;
}

void ptx_elementwise(Ptx *P, IrOp *op) {
    IrFunc *fn = P->fn;
    ValId res = op->results[0];
    int n = ptx_value_nregs(P, op, res);
    TRIC_ASSERT(op->n_operands >= 1 && op->n_operands <= 3);
    Reg *in[3] = {0};
    for (uint32_t i = 0; i < op->n_operands; i++) {
        ValId v = op->operands[i];
        int m;
        in[i] = ptx_regs(P, v, &m);
        TRIC_ASSERT(m == n);
        if (fn->vals[v].type.rank)   /* pass_layout inserts converts where layouts differ */
            TRIC_ASSERT(same_layout(&fn->layouts[ptx_layout_index(P, op, v)],
                                    &fn->layouts[ptx_layout_index(P, op, res)]));
    }
    /* the type that picks the instruction: the condition's is not it */
    ValId typed = op->opc == OP_SELECT ? op->operands[1] : op->operands[0];
    ElemType e = (ElemType)fn->vals[typed].type.elem;
    ElemType et = (ElemType)fn->vals[res].type.elem;
    RegClass rc = ptx_class_of(et);
    Reg *d = arena_alloc(P->arena, sizeof(Reg) * (size_t)n);
    int *rep = arena_alloc(P->arena, sizeof(int) * (size_t)n);
    ptx_constancy_reps(P, op, res, rep, n);
    if (op->opc == OP_ADDPTR && ptx_only_base_needed(P, op, res, n))
        for (int r = 1; r < n; r++) rep[r] = 0;   /* memory ops add constants to register 0 */
    for (int r = 0; r < n; r++) {
        if (rep[r] < r) {   /* a run of equal values: computed once */
            d[r] = d[rep[r]];
            continue;
        }
        /* registers whose operands repeat an earlier one's (splats,
         * constants, broadcasts) reuse its result */
        int same = -1;
        for (int q = 0; q < r && same < 0; q++) {
            bool eq = true;
            for (uint32_t i = 0; i < op->n_operands; i++) eq = eq && in[i][q] == in[i][r];
            if (eq) same = q;
        }
        if (same >= 0) {
            d[r] = d[same];
            continue;
        }
        d[r] = ptx_reg(P, rc);
        emit_one(P, op, e, et, d[r], in[0][r], in[1] ? in[1][r] : REG_NONE, in[2] ? in[2][r] : REG_NONE);
    }
    ptx_alias(P, res, d, n);
}
