/* libdevice.NAME (triton.language.extra[.cuda].libdevice): the functions
 * Triton takes from NVIDIA's libdevice, each lowered to what computes the
 * same thing here: a `math` op (ir/mathfn.def), an existing op (exp, log,
 * sqrt, abs, min/max, %), or rounding then a cast (float2int_rn, ...).
 * Arguments are positional arg0, arg1, arg2 as in Triton's stubs. Names
 * not in the table keep the "libdevice.X is not supported yet" error. */
#include "lower.h"
#include "../ir/mathfn.h"

#include <string.h>

typedef enum LdKind {
    LD_FN,      /* a math function: a = MathFn */
    LD_SPLIT,   /* fp32: math function a; fp64: unary op b (-1: not yet) */
    LD_OP,      /* unary op a at fp32 and fp64 (b: 1 = fp32 only) */
    LD_MINMAX,  /* a: is_max */
    LD_FMOD,
    LD_UMULHI,
    LD_ABS,     /* integers (abs, llabs) */
    LD_TAN,     /* fp32: sin / cos; fp64: the math function */
    LD_TRIG,    /* fp32: unary op a; fp64: math function b */
    LD_SAT,     /* saturatef: clamp to [0, 1], NaN to 0 */
    LD_POWI,    /* pow with an integer exponent */
    LD_F2I,     /* round by math function a (-1: toward zero), cast to b; from type c */
    LD_CAST,    /* cast from type c to b */
    LD_BITCAST, /* bitcast from type c to b */
} LdKind;

typedef struct LdRow {
    const char *name;
    LdKind kind;
    int a, b, c;
} LdRow;

static const char *ld_name(Lower *L, const LdRow *r) { return arena_printf(L->ctx->arena, "libdevice.%s", r->name); }

static IrType ld_type(Lower *L, LVal *v) { return lower_type(L, v); }

static const char *tname(ElemType e) { return dtype_name(ir_scalar(e)); }

static void want_float(Lower *L, SrcLoc loc, const LdRow *r, ElemType e, bool f32_only) {
    if (e == ET_F32 || (!f32_only && e == ET_F64)) return;
    if (e == ET_F64)
        diag_error(L->ctx, loc, "%s of fp64 is not supported yet (fp32 is)", ld_name(L, r));
    diag_error(L->ctx, loc, "%s: expected dtype %s but got %s", ld_name(L, r), f32_only ? "['fp32']" : "['fp32', 'fp64']",
               tname(e));
}

static void want_type(Lower *L, SrcLoc loc, const LdRow *r, ElemType e, ElemType want) {
    if (e != want)
        diag_error(L->ctx, loc, "%s: expected dtype ['%s'] but got %s", ld_name(L, r), tname(want), tname(e));
}

static LVal unary_op(Lower *L, SrcLoc loc, Opcode opc, LVal x) {
    L->b.loc = loc;
    return lval_tensor(L, ir_build1(&L->b, opc, ld_type(L, &x), x.id));
}

static LVal ld_fn(Lower *L, SrcLoc loc, const LdRow *r, int fn, LVal *v, int n) {
    MathFn f = (MathFn)fn;
    /* the fast_* functions are fp32 only */
    if (mathfn_info[f].kind == MK_F32 && strncmp(r->name, "fast_", 5))
        want_float(L, loc, r, (ElemType)ld_type(L, &v[0]).elem, true);
    return lower_math(L, loc, fn, v, n, ld_name(L, r));
}

static LVal ld_call(Lower *L, SrcLoc loc, LArg *a, const LdRow *r) {
    LVal v[3];
    for (int i = 0; i < 3; i++)
        if (a[i].present) v[i] = lval_to_tensor(L, a[i].loc, a[i].v);
    ElemType e = (ElemType)ld_type(L, &v[0]).elem;
    switch (r->kind) {
    case LD_FN: return ld_fn(L, loc, r, r->a, v, mathfn_info[r->a].n_args);
    case LD_SPLIT:
        want_float(L, loc, r, e, r->b < 0);
        if (e == ET_F32) return lower_math(L, loc, r->a, v, 1, ld_name(L, r));
        return unary_op(L, loc, (Opcode)r->b, v[0]);
    case LD_OP:
        want_float(L, loc, r, e, r->b == 1);
        return unary_op(L, loc, (Opcode)r->a, v[0]);
    case LD_MINMAX:
        want_float(L, loc, r, e, false);
        return lower_minmax(L, loc, r->a, v[0], v[1], false);
    case LD_FMOD:
        want_float(L, loc, r, e, false);
        return lower_binop(L, loc, BIN_MOD, v[0], v[1]);
    case LD_UMULHI: return lower_umulhi(L, loc, v[0], v[1]);
    case LD_ABS:
        if (!elem_is_signed(e)) want_type(L, loc, r, e, ET_I32);
        return unary_op(L, loc, OP_ABS, v[0]);
    case LD_TRIG:
        want_float(L, loc, r, e, false);
        if (e == ET_F64) return lower_math(L, loc, r->b, v, 1, ld_name(L, r));
        return unary_op(L, loc, (Opcode)r->a, v[0]);
    case LD_TAN: {
        want_float(L, loc, r, e, false);
        if (e == ET_F64) return lower_math(L, loc, MF_TAN, v, 1, ld_name(L, r));
        LVal q[2] = {unary_op(L, loc, OP_SIN, v[0]), unary_op(L, loc, OP_COS, v[0])};
        return lower_math(L, loc, MF_DIV_RN, q, 2, ld_name(L, r));
    }
    case LD_SAT:
        want_float(L, loc, r, e, false);
        return lower_minmax(L, loc, false, lower_minmax(L, loc, true, v[0], lval_float(0.0), false), lval_float(1.0),
                            false);
    case LD_POWI: {
        want_float(L, loc, r, e, false);
        IrType yt = ld_type(L, &v[1]);
        if (!elem_is_int(yt.elem)) want_type(L, a[1].loc, r, (ElemType)yt.elem, ET_I32);
        LVal q[2] = {v[0], lower_cast(L, loc, v[1], ir_scalar(e), false, 0)};
        return lower_math(L, loc, MF_POW, q, 2, ld_name(L, r));
    }
    case LD_F2I: {
        want_type(L, loc, r, e, (ElemType)r->c);
        LVal x = r->a >= 0 ? lower_math(L, loc, r->a, v, 1, ld_name(L, r)) : v[0];
        return lower_cast(L, loc, x, ir_scalar((ElemType)r->b), false, 0);
    }
    case LD_CAST: want_type(L, loc, r, e, (ElemType)r->c); return lower_cast(L, loc, v[0], ir_scalar((ElemType)r->b), false, 0);
    case LD_BITCAST:
        want_type(L, loc, r, e, (ElemType)r->c);
        return lower_cast(L, loc, v[0], ir_scalar((ElemType)r->b), true, 0);
    }
    tric_unreachable();
}

/* The table: X(name, params, kind, a, b, c); a wrapper function per row. */
#define F2I(pre, src, dst)                                                  \
    X(pre##_rn, "arg0", LD_F2I, MF_RINT, dst, src)                          \
    X(pre##_rz, "arg0", LD_F2I, -1, dst, src)                               \
    X(pre##_rd, "arg0", LD_F2I, MF_FLOOR, dst, src)                         \
    X(pre##_ru, "arg0", LD_F2I, MF_CEIL, dst, src)

#define LIBDEVICE(X)                                                        \
    X(tanh, "arg0", LD_FN, MF_TANH, 0, 0)                                   \
    X(erf, "arg0", LD_FN, MF_ERF, 0, 0)                                     \
    X(exp10, "arg0", LD_FN, MF_EXP10, 0, 0)                                 \
    X(expm1, "arg0", LD_FN, MF_EXPM1, 0, 0)                                 \
    X(log1p, "arg0", LD_FN, MF_LOG1P, 0, 0)                                 \
    X(log10, "arg0", LD_FN, MF_LOG10, 0, 0)                                 \
    X(sinh, "arg0", LD_FN, MF_SINH, 0, 0)                                   \
    X(cosh, "arg0", LD_FN, MF_COSH, 0, 0)                                   \
    X(asinh, "arg0", LD_FN, MF_ASINH, 0, 0)                                 \
    X(acosh, "arg0", LD_FN, MF_ACOSH, 0, 0)                                 \
    X(atanh, "arg0", LD_FN, MF_ATANH, 0, 0)                                 \
    X(atan, "arg0", LD_FN, MF_ATAN, 0, 0)                                   \
    X(atan2, "arg0,arg1", LD_FN, MF_ATAN2, 0, 0)                            \
    X(asin, "arg0", LD_FN, MF_ASIN, 0, 0)                                   \
    X(acos, "arg0", LD_FN, MF_ACOS, 0, 0)                                   \
    X(cbrt, "arg0", LD_FN, MF_CBRT, 0, 0)                                   \
    X(floor, "arg0", LD_FN, MF_FLOOR, 0, 0)                                 \
    X(ceil, "arg0", LD_FN, MF_CEIL, 0, 0)                                   \
    X(trunc, "arg0", LD_FN, MF_TRUNC, 0, 0)                                 \
    X(rint, "arg0", LD_FN, MF_RINT, 0, 0)                                   \
    X(nearbyint, "arg0", LD_FN, MF_RINT, 0, 0)                              \
    X(round, "arg0", LD_FN, MF_ROUND, 0, 0)                                 \
    X(fma, "arg0,arg1,arg2", LD_FN, MF_FMA, 0, 0)                           \
    X(fma_rn, "arg0,arg1,arg2", LD_FN, MF_FMA, 0, 0)                        \
    X(copysign, "arg0,arg1", LD_FN, MF_COPYSIGN, 0, 0)                      \
    X(isnan, "arg0", LD_FN, MF_ISNAN, 0, 0)                                 \
    X(isinf, "arg0", LD_FN, MF_ISINF, 0, 0)                                 \
    X(isfinited, "arg0", LD_FN, MF_ISFINITE, 0, 0)                          \
    X(finitef, "arg0", LD_FN, MF_ISFINITE, 0, 0)                            \
    X(signbit, "arg0", LD_FN, MF_SIGNBIT, 0, 0)                             \
    X(div_rn, "arg0,arg1", LD_FN, MF_DIV_RN, 0, 0)                          \
    X(sqrt_rn, "arg0", LD_FN, MF_SQRT_RN, 0, 0)                             \
    X(popc, "arg0", LD_FN, MF_POPC, 0, 0)                                   \
    X(clz, "arg0", LD_FN, MF_CLZ, 0, 0)                                     \
    X(brev, "arg0", LD_FN, MF_BREV, 0, 0)                                   \
    X(mulhi, "arg0,arg1", LD_FN, MF_MULHI, 0, 0)                            \
    X(mul64hi, "arg0,arg1", LD_FN, MF_MULHI, 0, 0)                          \
    X(hypot, "arg0,arg1", LD_FN, MF_HYPOT, 0, 0)                            \
    X(pow, "arg0,arg1", LD_FN, MF_POW, 0, 0)                                \
    X(erfc, "arg0", LD_FN, MF_ERFC, 0, 0)                                   \
    X(erfinv, "arg0", LD_FN, MF_ERFINV, 0, 0)                               \
    X(fast_expf, "arg0", LD_FN, MF_FAST_EXP, 0, 0)                          \
    X(fast_exp10f, "arg0", LD_FN, MF_FAST_EXP10, 0, 0)                      \
    X(fast_logf, "arg0", LD_FN, MF_FAST_LOG, 0, 0)                          \
    X(fast_log2f, "arg0", LD_FN, MF_FAST_LOG2, 0, 0)                        \
    X(fast_log10f, "arg0", LD_FN, MF_FAST_LOG10, 0, 0)                      \
    X(fast_sinf, "arg0", LD_FN, MF_FAST_SIN, 0, 0)                          \
    X(fast_cosf, "arg0", LD_FN, MF_FAST_COS, 0, 0)                          \
    X(fast_tanf, "arg0", LD_FN, MF_FAST_TAN, 0, 0)                          \
    X(fast_powf, "arg0,arg1", LD_FN, MF_FAST_POW, 0, 0)                     \
    X(fast_dividef, "arg0,arg1", LD_FN, MF_FAST_DIV, 0, 0)                  \
    X(exp, "arg0", LD_SPLIT, MF_EXP, OP_EXP, 0)                             \
    X(sqrt, "arg0", LD_SPLIT, MF_SQRT_RN, OP_SQRT, 0)                       \
    X(exp2, "arg0", LD_OP, OP_EXP2, 0, 0)                                   \
    X(log, "arg0", LD_OP, OP_LOG, 0, 0)                                     \
    X(log2, "arg0", LD_OP, OP_LOG2, 0, 0)                                   \
    X(rsqrt, "arg0", LD_OP, OP_RSQRT, 0, 0)                                 \
    X(fabs, "arg0", LD_OP, OP_ABS, 0, 0)                                    \
    X(sin, "arg0", LD_TRIG, OP_SIN, MF_SIN, 0)                              \
    X(cos, "arg0", LD_TRIG, OP_COS, MF_COS, 0)                              \
    X(tan, "arg0", LD_TAN, 0, 0, 0)                                         \
    X(fmin, "arg0,arg1", LD_MINMAX, 0, 0, 0)                                \
    X(fmax, "arg0,arg1", LD_MINMAX, 1, 0, 0)                                \
    X(fmod, "arg0,arg1", LD_FMOD, 0, 0, 0)                                  \
    X(umulhi, "arg0,arg1", LD_UMULHI, 0, 0, 0)                              \
    X(umul64hi, "arg0,arg1", LD_UMULHI, 0, 0, 0)                            \
    X(abs, "arg0", LD_ABS, 0, 0, 0)                                         \
    X(llabs, "arg0", LD_ABS, 0, 0, 0)                                       \
    X(saturatef, "arg0", LD_SAT, 0, 0, 0)                                   \
    X(powi, "arg0,arg1", LD_POWI, 0, 0, 0)                                  \
    F2I(float2int, ET_F32, ET_I32)                                          \
    F2I(float2uint, ET_F32, ET_U32)                                         \
    F2I(double2int, ET_F64, ET_I32)                                         \
    F2I(double2uint, ET_F64, ET_U32)                                        \
    F2I(float2ll, ET_F32, ET_I64)                                           \
    F2I(float2ull, ET_F32, ET_U64)                                          \
    F2I(double2ll, ET_F64, ET_I64)                                          \
    F2I(double2ull, ET_F64, ET_U64)                                         \
    X(llrint, "arg0", LD_FN_I64, MF_RINT, 0, -1)                             \
    X(llround, "arg0", LD_FN_I64, MF_ROUND, 0, -1)                           \
    X(int2float_rn, "arg0", LD_CAST, 0, ET_F32, ET_I32)                     \
    X(uint2float_rn, "arg0", LD_CAST, 0, ET_F32, ET_U32)                    \
    X(ll2float_rn, "arg0", LD_CAST, 0, ET_F32, ET_I64)                      \
    X(ull2float_rn, "arg0", LD_CAST, 0, ET_F32, ET_U64)                     \
    X(int2double_rn, "arg0", LD_CAST, 0, ET_F64, ET_I32)                    \
    X(uint2double_rn, "arg0", LD_CAST, 0, ET_F64, ET_U32)                   \
    X(ll2double_rn, "arg0", LD_CAST, 0, ET_F64, ET_I64)                     \
    X(ull2double_rn, "arg0", LD_CAST, 0, ET_F64, ET_U64)                    \
    X(double2float_rn, "arg0", LD_CAST, 0, ET_F32, ET_F64)                  \
    X(float_as_int, "arg0", LD_BITCAST, 0, ET_I32, ET_F32)                  \
    X(int_as_float, "arg0", LD_BITCAST, 0, ET_F32, ET_I32)                  \
    X(double_as_longlong, "arg0", LD_BITCAST, 0, ET_I64, ET_F64)            \
    X(longlong_as_double, "arg0", LD_BITCAST, 0, ET_F64, ET_I64)

/* llrint/llround: fp32 or fp64, rounded, then to int64 */
#define LD_FN_I64 LD_F2I
#define X(nm, params, kind, a, b, c)                                                        \
    static LVal ld_##nm(Lower *L, SrcLoc loc, LArg *args, LVal *rest, int n_rest) {         \
        (void)rest, (void)n_rest;                                                           \
        static const LdRow row = {#nm, kind, a, b, c};                                      \
        return ld_llrint_fix(L, loc, args, &row);                                           \
    }

/* llrint and llround take both float types: their row's c is -1 */
static LVal ld_llrint_fix(Lower *L, SrcLoc loc, LArg *args, const LdRow *row) {
    if (row->kind == LD_F2I && row->c < 0) {
        LVal x = lval_to_tensor(L, args[0].loc, args[0].v);
        LdRow r = *row;
        r.b = ET_I64;
        r.c = lower_type(L, &x).elem;
        want_float(L, loc, row, (ElemType)r.c, false);
        return ld_call(L, loc, args, &r);
    }
    return ld_call(L, loc, args, row);
}

LIBDEVICE(X)
#undef X

static const Builtin ld_builtins[] = {
#define X(nm, params, kind, a, b, c) {#nm, 0, params, ld_##nm},
    LIBDEVICE(X)
#undef X
};

const Builtin *libdevice_builtin(const char *name) {
    for (size_t i = 0; i < ARRAY_LEN(ld_builtins); i++)
        if (!strcmp(ld_builtins[i].name, name)) return &ld_builtins[i];
    return NULL;
}
