/* fp64 exp, exp2, log, log2 (ir/mathfn_op.c's programs).
 *
 * 1. The programs, run in C (mathfn_run, what the interpreter and constant
 *    folding compute), measured against long double (expl, exp2l, logl,
 *    log2l) over millions of inputs across the whole range: the maximum
 *    error in ulps must stay under the bound below.
 * 2. Special inputs: overflow, underflow and subnormal results, infinities,
 *    NaN, zeros, negatives, subnormal inputs, exact cases (log 1 = 0).
 * 3. The PTX text ptxgen prints for the programs runs on the PTX simulator
 *    (sim/, in a kernel of one thread per input: sim_snippet.h), and must
 *    agree with mathfn_run bit for bit, so what 1 and 2 measure is what the
 *    GPU runs.
 * 4. rsqrt, which optab.c writes as sqrt.rn.f64 then rcp.rn.f64 (two
 *    correct roundings; C's sqrt and 1.0 / are the same operations): its
 *    error against long double stays under MAX_ULP_RSQRT.
 *
 * F64MATH_N=<inputs per class> runs more (default 500000 for 1, 1/8 of it for 3).
 */
#include "base/base.h"
#include "ir/ir.h"
#include "ir/mathfn.h"
#include "ptxgen/ptx.h"
#include "sim_snippet.h"
#include "check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The largest errors allowed, in ulps of the correctly rounded result (the
 * measured maxima are printed). Normal results, measured with 8 million
 * inputs per class: exp 0.595, exp2 0.598 (one rounding of e^r, whose
 * polynomial part carries ~0.1 ulp), log 0.659, log2 0.768 (the correction
 * term s (f^2/2 + R) carries ~0.15 ulp of log, more of log2 near 0.5).
 * Subnormal results of exp and exp2 round twice (at 53 bits, then to the
 * subnormal's precision): measured 0.760, bound about 0.8. */
#define MAX_ULP 0.85
/* Two roundings: the second costs 0.5 ulp, the first (2^-53 relative) up to
 * 1 ulp where the result's mantissa is near 2, so at most 1.5 ulp. */
#define MAX_ULP_RSQRT 1.5
#define MAX_ULP_SUBNORMAL 0.85

/* ---- 1. the programs, run in C ---- */

static const Opcode fn_ops[4] = {OP_EXP, OP_EXP2, OP_LOG, OP_LOG2};
static MathProg progs[4];

static double run_prog(int fi, double x) {
    uint64_t a = sn_bits64(x);
    return sn_f64(mathfn_run(&progs[fi], &a));
}

static double ref_exp(double x) { return run_prog(0, x); }
static double ref_exp2(double x) { return run_prog(1, x); }
static double ref_log(double x) { return run_prog(2, x); }
static double ref_log2(double x) { return run_prog(3, x); }

static void emit_exp(Ptx *P, Reg d, Reg a) { ptx_math_op(P, OP_EXP, ET_F64, d, a); }
static void emit_exp2(Ptx *P, Reg d, Reg a) { ptx_math_op(P, OP_EXP2, ET_F64, d, a); }
static void emit_log(Ptx *P, Reg d, Reg a) { ptx_math_op(P, OP_LOG, ET_F64, d, a); }
static void emit_log2(Ptx *P, Reg d, Reg a) { ptx_math_op(P, OP_LOG2, ET_F64, d, a); }

/* ---- measuring ---- */

typedef struct Fn {
    const char *name;
    double (*ref)(double);
    long double (*exact)(long double);
    void (*emit)(Ptx *P, Reg d, Reg a);
} Fn;

static const Fn fns[] = {
    {"exp", ref_exp, expl, emit_exp},
    {"exp2", ref_exp2, exp2l, emit_exp2},
    {"log", ref_log, logl, emit_log},
    {"log2", ref_log2, log2l, emit_log2},
};

/* |got - want| in ulps of the double nearest want (ulp 2^-1074 for
 * subnormals); beyond DBL_MAX + ulp/2 only inf is right. */
static double ulp_error(double got, long double want) {
    if (isnan(want)) return isnan(got) ? 0 : INFINITY;
    long double limit = 0x1p1024L - 0x1p970L;   /* DBL_MAX + half its ulp */
    if (fabsl(want) >= limit) return got == (want > 0 ? INFINITY : -INFINITY) ? 0 : INFINITY;
    if (isinf(got) || isnan(got)) return INFINITY;
    int ex = 0;
    frexpl(want, &ex);                          /* want = fr 2^ex, fr in [0.5, 1) */
    int ulp_exp = ex - 53 < -1074 ? -1074 : ex - 53;
    return (double)(fabsl((long double)got - want) / ldexpl(1.0L, ulp_exp));
}

typedef struct Rng {
    uint64_t s;
} Rng;

static uint64_t rng_next(Rng *r) {   /* xorshift64* */
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 0x2545F4914F6CDD1Dull;
}

static double rng_unit(Rng *r) { return (double)(rng_next(r) >> 11) * 0x1p-53; }   /* [0, 1) */
static double rng_range(Rng *r, double lo, double hi) { return lo + (hi - lo) * rng_unit(r); }

/* sign * 2^[lo, hi) with a random mantissa: every magnitude alike */
static double rng_log_range(Rng *r, int lo, int hi, bool random_sign) {
    double v = ldexp(1.0 + rng_unit(r), lo + (int)(rng_next(r) % (uint64_t)(hi - lo)));
    return random_sign && (rng_next(r) & 1) ? -v : v;
}

/* A class of inputs: the i-th of n, for function f. */
typedef double (*Gen)(Rng *r);

static double g_exp_range(Rng *r) { return rng_range(r, -746.0, 710.0); }
static double g_exp_small(Rng *r) { return rng_log_range(r, -60, 10, true); }
static double g_exp_edges(Rng *r) {   /* where results overflow or go subnormal */
    return rng_next(r) & 1 ? rng_range(r, 707.0, 709.8) : rng_range(r, -745.2, -707.0);
}
static double g_exp2_range(Rng *r) { return rng_range(r, -1080.0, 1025.0); }
static double g_exp2_small(Rng *r) { return rng_log_range(r, -60, 11, true); }
static double g_exp2_edges(Rng *r) {
    return rng_next(r) & 1 ? rng_range(r, 1020.0, 1024.0) : rng_range(r, -1075.5, -1020.0);
}
static double g_pos_all(Rng *r) {   /* any positive finite double, subnormals too */
    uint64_t u = rng_next(r) & 0x7FFFFFFFFFFFFFFFull;
    if ((u >> 52) == 0x7FF) u &= 0x7FEFFFFFFFFFFFFFull;
    return sn_f64(u);
}
static double g_pos_subnormal(Rng *r) { return sn_f64(1 + rng_next(r) % 0x000FFFFFFFFFFFFFull); }
static double g_near_one(Rng *r) {   /* log's small results: 1 +- 2^-[1, 52] */
    return 1.0 + rng_log_range(r, -53, -1, true);
}
static double g_half_two(Rng *r) { return rng_range(r, 0.5, 2.0); }

typedef struct Class {
    const char *what;
    Gen gen;
} Class;

#define LOG_CLASSES                                                                \
    {{"all positive", g_pos_all}, {"subnormal", g_pos_subnormal}, {"1 +- 2^-k", g_near_one}, \
     {"[0.5, 2]", g_half_two}}

static const Class classes[][4] = {   /* per entry of fns */
    {{"[-746, 710]", g_exp_range}, {"|x| in 2^[-60, 10]", g_exp_small},
     {"overflow/subnormal edges", g_exp_edges}},
    {{"[-1080, 1025]", g_exp2_range}, {"|x| in 2^[-60, 11]", g_exp2_small},
     {"overflow/subnormal edges", g_exp2_edges}},
    LOG_CLASSES,
    LOG_CLASSES,
};

static long n_inputs(void) {
    const char *s = getenv("F64MATH_N");
    long n = s ? atol(s) : 0;
    return n > 0 ? n : 500000;
}

static void test_accuracy(void) {
    long n = n_inputs();
    for (size_t fi = 0; fi < ARRAY_LEN(fns); fi++) {
        const Fn *f = &fns[fi];
        for (size_t ci = 0; ci < 4 && classes[fi][ci].gen; ci++) {
            const Class *c = &classes[fi][ci];
            Rng r = {0x9E3779B97F4A7C15ull ^ (fi * 131 + ci)};
            double worst[2] = {0, 0}, worst_x[2] = {0, 0};   /* normal, subnormal results */
            for (long i = 0; i < n; i++) {
                double x = c->gen(&r);
                double y = f->ref(x);
                double e = ulp_error(y, f->exact((long double)x));
                int sub = y != 0 && fabs(y) < 0x1p-1022;
                if (e > worst[sub]) {
                    worst[sub] = e;
                    worst_x[sub] = x;
                }
            }
            for (int sub = 0; sub < 2; sub++) {
                if (sub && worst[sub] == 0) continue;
                printf("%-5s %-26s %s max %.4f ulp at %a (%s(x) = %a)\n", f->name, c->what,
                       sub ? "subnormal:" : "normal:   ", worst[sub], worst_x[sub], f->name,
                       f->ref(worst_x[sub]));
                double bound = sub ? MAX_ULP_SUBNORMAL : MAX_ULP;
                if (worst[sub] > bound) {
                    printf("%s: max error %.4f ulp exceeds %.2f\n", f->name, worst[sub], bound);
                    failures++;
                }
            }
        }
    }
}

/* ---- 2. special inputs ---- */

static void expect(const char *fn, double (*f)(double), double x, double want) {
    double got = f(x);
    bool ok = isnan(want) ? isnan(got) : sn_bits64(got) == sn_bits64(want);
    if (!ok) {
        printf("%s(%a) = %a (%.17g), expected %a (%.17g)\n", fn, x, got, got, want, want);
        failures++;
    }
}

static void test_special(void) {
    double inf = INFINITY, nan = NAN, tiny = 0x1p-1074;
    /* exp: overflow from ln(DBL_MAX) = 709.782712893384, underflow, subnormals */
    expect("exp", ref_exp, 0.0, 1.0);
    expect("exp", ref_exp, -0.0, 1.0);
    expect("exp", ref_exp, 1.0, 0x1.5bf0a8b145769p+1);
    expect("exp", ref_exp, 709.78, 0x1.fe9ce5c4c52b4p+1023);
    expect("exp", ref_exp, 709.782712893384, 0x1.fffffffffff2ap+1023);
    expect("exp", ref_exp, 709.79, inf);
    expect("exp", ref_exp, 1e300, inf);
    expect("exp", ref_exp, inf, inf);
    expect("exp", ref_exp, -inf, 0.0);
    expect("exp", ref_exp, -1e300, 0.0);
    expect("exp", ref_exp, -708.0, 0x1.7c8ab2288c9abp-1022);   /* just above the normal range */
    expect("exp", ref_exp, -740.0, 0x0.0000000000055p-1022);   /* 85 * 2^-1074 = 4.2e-322 */
    expect("exp", ref_exp, -745.0, tiny);
    expect("exp", ref_exp, -745.2, 0.0);
    expect("exp", ref_exp, nan, nan);
    expect("exp", ref_exp, -nan, nan);
    /* exp2: exact powers of two down into the subnormals */
    expect("exp2", ref_exp2, 0.0, 1.0);
    expect("exp2", ref_exp2, 1.0, 2.0);
    expect("exp2", ref_exp2, 10.0, 1024.0);
    expect("exp2", ref_exp2, -1.0, 0.5);
    expect("exp2", ref_exp2, 0.5, 0x1.6a09e667f3bcdp+0);
    expect("exp2", ref_exp2, 1023.0, 0x1p1023);
    expect("exp2", ref_exp2, 1023.999, 0x1.ffa52de61c1b3p+1023);
    expect("exp2", ref_exp2, 1024.0, inf);
    expect("exp2", ref_exp2, -1022.0, 0x1p-1022);
    expect("exp2", ref_exp2, -1030.0, 0x1p-1030);
    expect("exp2", ref_exp2, -1074.0, tiny);
    expect("exp2", ref_exp2, -1075.0, 0.0);   /* the tie rounds to even */
    expect("exp2", ref_exp2, -1074.5, tiny);
    expect("exp2", ref_exp2, inf, inf);
    expect("exp2", ref_exp2, -inf, 0.0);
    expect("exp2", ref_exp2, 5e15, inf);
    expect("exp2", ref_exp2, -5e15, 0.0);
    expect("exp2", ref_exp2, nan, nan);
    /* log, log2 */
    expect("log", ref_log, 1.0, 0.0);
    expect("log", ref_log, 2.0, 0x1.62e42fefa39efp-1);
    expect("log", ref_log, 0x1.5bf0a8b145769p+1, 1.0);   /* e rounded: log is 1 - 4e-17 */
    expect("log", ref_log, 0.0, -inf);
    expect("log", ref_log, -0.0, -inf);
    expect("log", ref_log, -1.0, nan);
    expect("log", ref_log, -inf, nan);
    expect("log", ref_log, -tiny, nan);
    expect("log", ref_log, inf, inf);
    expect("log", ref_log, nan, nan);
    expect("log", ref_log, tiny, -0x1.74385446d71c3p+9);          /* -744.44 */
    expect("log", ref_log, 0x1p-1030, -0x1.64f886378b146p+9);
    expect("log", ref_log, 0x1.fffffffffffffp+1023, 0x1.62e42fefa39efp+9);
    expect("log2", ref_log2, 1.0, 0.0);
    expect("log2", ref_log2, 8.0, 3.0);
    expect("log2", ref_log2, 0x1p-1022, -1022.0);
    expect("log2", ref_log2, tiny, -1074.0);
    expect("log2", ref_log2, 0x1p-1060, -1060.0);
    expect("log2", ref_log2, 0x1p1023, 1023.0);
    expect("log2", ref_log2, 0.0, -inf);
    expect("log2", ref_log2, -2.0, nan);
    expect("log2", ref_log2, inf, inf);
    expect("log2", ref_log2, nan, nan);
    expect("log2", ref_log2, 3.0, 0x1.95c01a39fbd68p+0);
    /* 1 is exact and every power of two gives its exponent */
    for (int e = -1074; e <= 1023; e++) {
        double x = ldexp(1.0, e);
        if (ref_log2(x) != (double)e) {
            printf("log2(2^%d) = %a\n", e, ref_log2(x));
            failures++;
        }
    }
}

/* ---- 3. executing the programs' PTX (on the simulator) ---- */

static double special_inputs[] = {
    0.0, -0.0, 1.0, -1.0, 2.0, 0.5, 3.0, 10.0, 0x1p-1074, -0x1p-1074, 0x1p-1022, 0x1p-1030,
    0x1.fffffffffffffp+1023,
    709.78, 709.79, 710.0, 1000.0, -708.0, -740.0, -745.0, -745.2, -746.0, -1074.0, -1074.5, -1075.0, -1080.0,
    1023.0, 1023.999, 1024.0, 1025.0, 1e300, -1e300, INFINITY, -INFINITY, NAN, -NAN, 0x1.6a09e667f3bccp-1,
    0x1.6a09e667f3bcdp+0, 0x1.6a09e00000000p-1, 0x1.6a09dffffffffp-1, 1.0 + 0x1p-52, 1.0 - 0x1p-53,
};

static void test_ptx_text(void) {
    long n = n_inputs() / 8;
    size_t total = (size_t)n + ARRAY_LEN(special_inputs);
    uint64_t *in = malloc(total * sizeof *in), *out = malloc(total * sizeof *out);
    for (size_t fi = 0; fi < ARRAY_LEN(fns); fi++) {
        const Fn *f = &fns[fi];
        Rng r = {0x243F6A8885A308D3ull + fi};
        for (size_t i = 0; i < total; i++) {
            double x;
            if (i < ARRAY_LEN(special_inputs)) {
                x = special_inputs[i];
            } else {   /* each class in turn, and random bit patterns */
                int ci = (int)(i % 5);
                const Class *c = &classes[fi][ci < 4 ? ci : 0];
                x = ci < 4 && c->gen ? c->gen(&r) : sn_f64(rng_next(&r));
            }
            in[i] = sn_bits64(x);
        }
        Snippet sn;
        SnipUnary u = {f->emit};
        snip_build(&sn, (RegClass[]){RC_F64}, 1, (RegClass[]){RC_F64}, 1, snip_emit_unary, &u);
        if (getenv("F64MATH_DUMP")) printf("%s", sn.ptx);
        printf("%-5s PTX: %d instructions\n", f->name, sn.n_ins);
        Buf err = {0};
        bool ok = snip_run(&sn, in, out, total, &err);
        if (!ok) printf("%s: the simulator cannot run the PTX:\n%s", f->name, buf_str(&err));
        long bad = 0;
        for (size_t i = 0; ok && i < total; i++) {
            double x = sn_f64(in[i]), got = sn_f64(out[i]), want = f->ref(x);
            if (sn_bits64(got) != sn_bits64(want) && !(isnan(got) && isnan(want))) {
                if (bad++ < 5) printf("%s PTX(%a) = %a, C gives %a\n", f->name, x, got, want);
            }
        }
        if (!ok || bad) {
            printf("%s: PTX and C differ on %ld of %zu inputs\n", f->name, bad, total);
            failures++;
        }
        buf_free(&err);
        snip_free(&sn);
    }
    free(in);
    free(out);
}

/* ---- 4. rsqrt ---- */

static double rsqrt_rn(double x) { return 1.0 / sqrt(x); }

static void test_rsqrt(void) {
    long n = n_inputs();
    Rng r = {0x13198A2E03707344ull};
    double worst = 0, worst_x = 0;
    for (long i = 0; i < n; i++) {
        double x = i & 1 ? g_pos_all(&r) : rng_range(&r, 1.0, 4.0);   /* every binade; one period */
        double y = 1.0 / sqrt(x);
        double e = ulp_error(y, 1.0L / sqrtl((long double)x));
        if (e > worst) {
            worst = e;
            worst_x = x;
        }
    }
    printf("rsqrt max %.4f ulp at %a\n", worst, worst_x);
    if (worst > MAX_ULP_RSQRT) {
        printf("rsqrt: max error %.4f ulp exceeds %.2f\n", worst, MAX_ULP_RSQRT);
        failures++;
    }
    expect("rsqrt", rsqrt_rn, 4.0, 0.5);
    expect("rsqrt", rsqrt_rn, 0.0, INFINITY);
    expect("rsqrt", rsqrt_rn, -0.0, -INFINITY);
    expect("rsqrt", rsqrt_rn, INFINITY, 0.0);
    expect("rsqrt", rsqrt_rn, -1.0, NAN);
    expect("rsqrt", rsqrt_rn, 0x1p-1074, 0x1p537);
}

int main(void) {
    for (int fi = 0; fi < 4; fi++) CHECK(mathfn_build_op(&progs[fi], fn_ops[fi], ET_F64));
    test_special();
    test_accuracy();
    test_ptx_text();
    test_rsqrt();
    if (failures) printf("%d failures\n", failures);
    return failures != 0;
}
