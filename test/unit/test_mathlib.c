/* The `math` op's functions (ir/mathfn.c) against libm in long double:
 * 1. every function at fp32 and fp64 over special values, sweeps of its
 *    interesting ranges and random bit patterns, within the bound stated in
 *    the table below (doc/math.md repeats it); exact functions exactly.
 * 2. the PTX that ptxgen/mathprog.c prints for each program, run on the PTX
 *    simulator over a sample: bit for bit what mathfn_run computes.
 * MATHLIB_N=count sets the random inputs per function (default 20000). */
#include "base/base.h"
#include "ir/mathfn.h"

#include "sim_snippet.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the stated bounds (ulps of the result type; 0 = exact) ---- */

typedef struct Bound {
    MathFn f;
    double ulp32, ulp64;   /* < 0: not checked against libm here (the .approx ones) */
} Bound;

static const Bound bounds[] = {
    {MF_FLOOR, 0, 0},    {MF_CEIL, 0, 0},     {MF_TRUNC, 0, 0},    {MF_RINT, 0, 0},
    {MF_ROUND, 0, 0},    {MF_FMA, 0, 0},      {MF_DIV_RN, 0.5, 0.5}, {MF_SQRT_RN, 0.5, 0.5},
    {MF_COPYSIGN, 0, 0}, {MF_EXP, 0.51, 1.5}, {MF_EXP10, 0.51, 2},  {MF_EXPM1, 0.51, 2},
    {MF_LOG1P, 0.51, 3}, {MF_LOG10, 0.51, 2.5}, {MF_TANH, 1.5, 3},   {MF_SINH, 0.51, 3},
    {MF_COSH, 0.51, 2},  {MF_ASINH, 0.51, 3.5}, {MF_ACOSH, 0.51, 3},  {MF_ATANH, 0.51, 3.5},
    {MF_ERF, 2, 6},   {MF_ATAN, 0.51, 2.5},  {MF_ATAN2, 0.51, 3},  {MF_ASIN, 0.51, 3},
    {MF_ACOS, 0.51, 3},  {MF_CBRT, 0.51, 1},  {MF_POW, 0.51, 2},   {MF_HYPOT, 0.51, 1},
    {MF_SIN, 0.51, 1},   {MF_COS, 0.51, 1},   {MF_TAN, 0.51, 1},   {MF_ERFC, 0.51, 5},
    {MF_ERFINV, 0.51, 5},
};

/* erfinv by Newton's method in long double (erfc in the tails, where
 * 1 - |y| is exact) */
static long double erfinvl_(long double y) {
    long double a = fabsl(y);
    if (isnan(a) || a > 1) return NAN;
    if (a == 1) return copysignl(INFINITY, y);
    if (a == 0) return y;
    long double w = logl((1 - a) * (1 + a)), b = 2 / (3.14159265358979323846L * 0.147L) + w / 2;
    long double x = sqrtl(sqrtl(b * b - w / 0.147L) - b);
    for (int i = 0; i < 12; i++) {
        long double f = a > 0.5L ? (1 - a) - erfcl(x) : erfl(x) - a;
        x -= f / (1.1283791670955125738961589031215452L * expl(-x * x));
    }
    return copysignl(x, y);
}

static long double ref(MathFn f, long double x, long double y, long double z) {
    switch (f) {
    case MF_FLOOR: return floorl(x);
    case MF_CEIL: return ceill(x);
    case MF_TRUNC: return truncl(x);
    case MF_RINT: return nearbyintl(x);
    case MF_ROUND: return roundl(x);
    case MF_FMA: return x * y + z;   /* exact in long double for fp32; fp64 uses fma below */
    case MF_DIV_RN: return x / y;
    case MF_SQRT_RN: return sqrtl(x);
    case MF_COPYSIGN: return copysignl(x, y);
    case MF_EXP: return expl(x);
    case MF_EXP10: return expl(x * 2.302585092994045684017991454684364208L);
    case MF_EXPM1: return expm1l(x);
    case MF_LOG1P: return log1pl(x);
    case MF_LOG10: return log10l(x);
    case MF_TANH: return tanhl(x);
    case MF_SINH: return sinhl(x);
    case MF_COSH: return coshl(x);
    case MF_ASINH: return asinhl(x);
    case MF_ACOSH: return acoshl(x);
    case MF_ATANH: return atanhl(x);
    case MF_ERF: return erfl(x);
    case MF_ATAN: return atanl(x);
    case MF_ATAN2: return atan2l(x, y);
    case MF_ASIN: return asinl(x);
    case MF_ACOS: return acosl(x);
    case MF_CBRT: return cbrtl(x);
    case MF_POW: return powl(x, y);
    case MF_HYPOT: return hypotl(x, y);
    case MF_SIN: return sinl(x);
    case MF_COS: return cosl(x);
    case MF_TAN: return tanl(x);
    case MF_ERFC: return erfcl(x);
    case MF_ERFINV: return erfinvl_(x);
    default: return NAN;
    }
}

/* |got - want| in ulps of the type at want (want rounded to the type
 * first: an overflowing reference is inf) */
static double ulps(bool f64, double got, long double want) {
    double w = f64 ? (double)want : (double)(float)want;
    if (isnan(got) || isnan(w)) return isnan(got) && isnan(w) ? 0 : INFINITY;
    if (isinf(w) || isinf(got)) return got == w ? 0 : INFINITY;
    int e;
    frexpl(want, &e);
    int emin = f64 ? -1021 : -125, mant = f64 ? 53 : 24;
    if (e < emin) e = emin;
    long double ulp = ldexpl(1.0L, e - mant);
    return (double)(fabsl((long double)got - want) / ulp);
}

static uint64_t g_seed = 0x9E3779B97F4A7C15u;
static uint64_t rnd(void) {
    g_seed ^= g_seed << 13;
    g_seed ^= g_seed >> 7;
    g_seed ^= g_seed << 17;
    return g_seed;
}

/* an input: specials, a value in the function's range, or random bits */
static double pick(MathFn f, bool f64, int i) {
    static const double specials[] = {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, INFINITY, -INFINITY, NAN,
                                      1e-30, -1e-30, 3.0, 0.25, 10.0, -10.0, 100.0, 88.5, -87.0, 1e-300};
    /* the doubles closest to multiples of pi/2, and large ones */
    static const double trig[] = {0x1.6ac5b262ca1ffp+849, 0x1.8a3e5b1c6c6f5p+0, 0x1.921fb54442d18p+0, 0x1.921fb54442d18p+1,
                                  1e22, 0x1.fffffffffffffp+1023, 0x1.0p+1023, 6381956970095103.0 * 0x1p797,
                                  5.0e-324, 0x1.921fb54442d19p-1, 0x1.921fb54442d17p-1, 3.0 * 0x1.921fb54442d18p+0};
    if (i < (int)ARRAY_LEN(specials)) return specials[i];
    uint64_t r = rnd();
    double u = (double)(r >> 11) * 0x1p-53;
    if ((f == MF_SIN || f == MF_COS || f == MF_TAN) && i < (int)(ARRAY_LEN(specials) + ARRAY_LEN(trig)))
        return trig[i - ARRAY_LEN(specials)];
    if (f == MF_ERFINV && i % 4) {   /* (-1, 1), and near +-1 */
        double v = i % 4 == 1 ? u * 2 - 1 : 1 - ldexp(u, -(int)(rnd() % 54));
        return r & 1 ? -v : v;
    }
    switch (i % 4) {
    case 0: {   /* random bits */
        if (f64) {
            double d;
            memcpy(&d, &r, 8);
            return d;
        }
        uint32_t w = (uint32_t)r;
        float fl;
        memcpy(&fl, &w, 4);
        return fl;
    }
    case 1: return (u * 2 - 1) * 4;                          /* [-4, 4] */
    case 2: return (u * 2 - 1) * (f == MF_ERF ? 7 : f == MF_ERFC ? 30 : 100);    /* wider */
    default: return ldexp(u * 2 - 1, (int)(rnd() % 80) - 60);   /* tiny to large */
    }
}

static int failures;

static double to_type(bool f64, double v) { return f64 ? v : (double)(float)v; }

static uint64_t slot_of(bool f64, double v) {
    if (f64) return sn_bits64(v);
    return sn_bits32((float)v);
}

static double value_of(bool f64, uint64_t s) { return f64 ? sn_f64(s) : (double)sn_f32(s); }

static void check_fn(const Bound *b, bool f64, int n) {
    double bound = f64 ? b->ulp64 : b->ulp32;
    if (bound < 0) return;
    ElemType e = f64 ? ET_F64 : ET_F32;
    MathProg *p = malloc(sizeof *p);
    mathfn_build(p, b->f, e);
    int nargs = mathfn_info[b->f].n_args;
    double worst = 0, wx = 0, wy = 0;
    for (int i = 0; i < n; i++) {
        double a[3];
        for (int k = 0; k < nargs; k++) a[k] = to_type(f64, pick(b->f, f64, k ? (i * 7 + k) % n : i));
        if (b->f == MF_POW && i % 3 == 0) a[1] = (double)((int)(rnd() % 21) - 10);   /* integer exponents */
        uint64_t s[3];
        for (int k = 0; k < nargs; k++) s[k] = slot_of(f64, a[k]);
        double got = value_of(f64, mathfn_run(p, s));
        long double want;
        if (b->f == MF_FMA) want = f64 ? fma(a[0], a[1], a[2]) : (long double)fmaf((float)a[0], (float)a[1], (float)a[2]);
        else want = ref(b->f, a[0], nargs > 1 ? a[1] : 0, nargs > 2 ? a[2] : 0);
        double u = ulps(f64, got, want);
        if (u > worst) worst = u, wx = a[0], wy = nargs > 1 ? a[1] : 0;
    }
    printf("  %-9s %s max %.3f ulp (bound %g)", mathfn_info[b->f].name, f64 ? "fp64" : "fp32", worst, bound);
    if (worst > bound) {
        printf("  FAIL at x=%a y=%a", wx, wy);
        failures++;
    }
    printf("\n");
    free(p);
}

/* exact results of the bit and test functions */
static void check_exact(void) {
    MathProg *p = malloc(sizeof *p);
    struct { MathFn f; ElemType e; uint64_t a, b, want; } cases[] = {
        {MF_ISNAN, ET_F32, 0x7FC00000, 0, 1},   {MF_ISNAN, ET_F32, 0x7F800000, 0, 0},
        {MF_ISINF, ET_F32, 0xFF800000, 0, 1},   {MF_ISINF, ET_F64, 0x7FF0000000000000, 0, 1},
        {MF_ISFINITE, ET_F64, 0x7FF0000000000000, 0, 0}, {MF_ISFINITE, ET_F32, 0x3F800000, 0, 1},
        {MF_SIGNBIT, ET_F32, 0x80000000, 0, 1}, {MF_SIGNBIT, ET_F64, 0x8000000000000000, 0, 1},
        {MF_SIGNBIT, ET_F64, 0x3FF0000000000000, 0, 0},
        {MF_POPC, ET_I32, 0xF0F0F0F1, 0, 17},   {MF_POPC, ET_I64, 0xFFFFFFFFFFFFFFFF, 0, 64},
        {MF_CLZ, ET_I32, 1, 0, 31},             {MF_CLZ, ET_I32, 0, 0, 32}, {MF_CLZ, ET_I64, 1, 0, 63},
        {MF_BREV, ET_I32, 1, 0, 0x80000000},    {MF_BREV, ET_I64, 1, 0, 0x8000000000000000},
        {MF_MULHI, ET_I32, 0xFFFFFFFF, 2, 0xFFFFFFFF},   /* -1 * 2 = -2: high word -1 */
        {MF_MULHI, ET_U32, 0xFFFFFFFF, 2, 1},
        {MF_MULHI, ET_I64, 0xFFFFFFFFFFFFFFFF, 3, 0xFFFFFFFFFFFFFFFF},
        {MF_ROUND, ET_F32, 0x3EFFFFFF, 0, 0},    /* 0.49999997 -> 0 */
        {MF_ROUND, ET_F32, 0xBFC00000, 0, 0xC0000000},   /* -1.5 -> -2 */
        {MF_RINT, ET_F32, 0x40200000, 0, 0x40000000},    /* 2.5 -> 2 */
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        mathfn_build(p, cases[i].f, cases[i].e);
        uint64_t args[2] = {cases[i].a, cases[i].b};
        uint64_t got = mathfn_run(p, args);
        if (got != cases[i].want) {
            printf("FAIL %s(%#llx, %#llx) = %#llx, expected %#llx\n", mathfn_info[cases[i].f].name,
                   (unsigned long long)cases[i].a, (unsigned long long)cases[i].b, (unsigned long long)got,
                   (unsigned long long)cases[i].want);
            failures++;
        }
    }
    free(p);
}

/* ---- 2. the PTX on the simulator ---- */

static const RegClass class_of_mt[] = {RC_PRED, RC_B32, RC_F32, RC_B64, RC_F64};

typedef struct SnipFn {
    MathFn f;
    ElemType e;
} SnipFn;

static void emit_math(Ptx *P, const Reg *out, const Reg *in, void *ud) {
    SnipFn *s = ud;
    Reg args[3] = {in[0], in[1], in[2]};
    ptx_math_fn(P, s->f, s->e, out[0], args);
}

static void check_sim(MathFn f, ElemType e, int n) {
    MathProg *p = malloc(sizeof *p);
    mathfn_build(p, f, e);
    int nargs = mathfn_info[f].n_args;
    RegClass in_cls[3], out_cls[1] = {class_of_mt[p->rty[p->out]]};
    for (int k = 0; k < nargs; k++) in_cls[k] = class_of_mt[p->rty[k]];
    for (int k = nargs; k < 3; k++) in_cls[k] = in_cls[0];
    SnipFn sf = {f, e};
    Snippet s;
    snip_build(&s, in_cls, 3, out_cls, 1, emit_math, &sf);
    uint64_t *in = calloc((size_t)n * 3, 8), *out = calloc((size_t)n, 8);
    bool f64 = e == ET_F64;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) {
            double v = pick(f, f64, k ? (i * 5 + k) % n : i);
            in[i * 3 + k] = elem_is_float(e) ? slot_of(f64, v) : rnd() & (f64 || e == ET_I64 || e == ET_U64 ? ~0ull : 0xFFFFFFFFull);
        }
    Buf err = {0};
    if (!snip_run(&s, in, out, (size_t)n, &err)) {
        printf("FAIL %s %s: the simulator refused the PTX: %s\n", mathfn_info[f].name, elem_name(e), buf_str(&err));
        failures++;
    } else {
        int bad = 0;
        for (int i = 0; i < n && bad < 3; i++) {
            uint64_t want = mathfn_run(p, &in[i * 3]);
            uint64_t got = out[i];
            int bits = p->rty[p->out] == MT_F64 || p->rty[p->out] == MT_B64 ? 64 : 32;
            if (bits == 32) got &= 0xFFFFFFFFu;
            if (got != want) {
                printf("FAIL %s %s: PTX gives %#llx, C %#llx for %#llx\n", mathfn_info[f].name, elem_name(e),
                       (unsigned long long)got, (unsigned long long)want, (unsigned long long)in[i * 3]);
                bad++;
                failures++;
            }
        }
    }
    snip_free(&s);
    buf_free(&err);
    free(in);
    free(out);
    free(p);
}

int main(void) {
    const char *env = getenv("MATHLIB_N");
    int n = env ? atoi(env) : 20000;
    printf("ulp sweeps, %d inputs each:\n", n);
    for (size_t i = 0; i < ARRAY_LEN(bounds); i++) {
        check_fn(&bounds[i], false, n);
        check_fn(&bounds[i], true, n);
    }
    check_exact();
    for (int f = 0; f < MF_COUNT; f++) {
        ElemType ts[2];
        int nt = 0;
        switch (mathfn_info[f].kind) {
        case MK_FLOAT: case MK_TEST: ts[nt++] = ET_F32; ts[nt++] = ET_F64; break;
        case MK_F32: ts[nt++] = ET_F32; break;
        case MK_INT: case MK_COUNT: ts[nt++] = ET_I32; ts[nt++] = ET_I64; break;
        }
        for (int k = 0; k < nt; k++) check_sim((MathFn)f, ts[k], 256);
    }
    if (failures) printf("%d failures\n", failures);
    else printf("all passed\n");
    return failures != 0;
}
