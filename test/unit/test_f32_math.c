/* fp32 log and log2 (ir/mathfn_op.c's programs).
 *
 * 1. The programs, run in C (mathfn_run, what the interpreter and constant
 *    folding compute; for log: libdevice's logf with its .ftz steps), measured
 *    against libm's double log and log2 (their error, ~2^-53 relative, is
 *    ~2^-29 of an f32 ulp): the maximum error in ulps must stay under the
 *    function's max_ulp, and special inputs must give exactly IEEE's
 *    answers. By default every 997th bit pattern and all of [1/2, 2) at a
 *    stride of 31 (where the worst cases are); F32MATH_ALL=1 runs all 2^32
 *    inputs, split over the CPUs (the programs run step by step: roughly
 *    half an hour of one core, estimated), built with -O2 outside ASan, linked with
 *    the objects (libtric.a hides these functions), for example:
 *      make && gcc -O2 -march=native -std=c11 -D_GNU_SOURCE -I. \
 *          test/unit/test_f32_math.c $(find build -mindepth 2 -name '*.o') \
 *          -ldl -lm -lpthread -o /tmp/f32 && F32MATH_ALL=1 /tmp/f32
 *    (measured when the routines were hand-written PTX with a C mirror,
 *    the same operations: log 0.8642 ulp at 0x1.476956p-1, log2 0.7762 ulp
 *    at 0x1.5bce82p+0; every special input exact, log2(2^k) = k for all k).
 * 2. The PTX text ptxgen prints for the programs runs on the PTX simulator
 *    (sim/, in a kernel of one thread per input: sim_snippet.h) and must
 *    agree with mathfn_run bit for bit, on the special inputs and a
 *    strided subset of all bit patterns (2^24 of them spread over every
 *    exponent with F32MATH_DENSE=1), and for log also on a stride of
 *    tl.randn's inputs [1e-7, 1).
 */
#include "base/base.h"
#include "ir/ir.h"
#include "ir/mathfn.h"
#include "ptxgen/ptx.h"
#include "interp/interp.h"
#include "sim_snippet.h"
#include "check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>
#include <unistd.h>

/* The largest error allowed, in ulps of the correctly rounded result; the
 * exhaustive maximum of log2 is 0.7762: the final rounding, plus the
 * roundings of f^2 p(f) and of the small terms' sum, which matter most
 * where k = +-1 cancels most of f (x near 2/3 and 4/3). log is libdevice's
 * logf (documented within 1 ulp; 0.8642 ulp over all 2^32 inputs). */
#define MAX_ULP_LOG 0.88
#define MAX_ULP_LOG2 0.8

/* ---- 1. the programs, run in C ---- */

static MathProg prog_log, prog_log2;

static float run_prog(const MathProg *p, float x) {
    uint64_t a = sn_bits32(x);
    return sn_f32(mathfn_run(p, &a));
}

static float ref_log(float x) { return run_prog(&prog_log, x); }
static float ref_log2(float x) { return run_prog(&prog_log2, x); }
static void emit_log(Ptx *P, Reg d, Reg a) { ptx_math_op(P, OP_LOG, ET_F32, d, a); }
static void emit_log2(Ptx *P, Reg d, Reg a) { ptx_math_op(P, OP_LOG2, ET_F32, d, a); }

typedef struct Fn {
    const char *name;
    float (*ref)(float);
    double (*exact)(double);
    void (*emit)(Ptx *P, Reg d, Reg a);
    double max_ulp;
} Fn;

static const Fn fns[] = {
    {"log", ref_log, log, emit_log, MAX_ULP_LOG},
    {"log2", ref_log2, log2, emit_log2, MAX_ULP_LOG2},
};

/* ---- measuring ---- */

/* |got - want| in ulps of the f32 binade of want (results of log are never
 * subnormal: the smallest nonzero is log(1 - 2^-24) ~ -2^-24). */
static double ulp_error(float got, double want) {
    if (isinf(got) || isnan(got)) return INFINITY;
    int ex;
    frexp(want, &ex);                  /* want in [2^(ex-1), 2^ex) */
    return fabs((double)got - want) / ldexp(1.0, ex - 24);
}

/* What an input must give: NaN for NaN and x < 0, -inf for +-0, +inf for
 * +inf; for positive finite x, want is the exact value, and exact says
 * whether it must be hit exactly (log 1 = +0, log2 2^k = k). */
typedef enum Expect { E_NAN, E_VALUE, E_EXACT } Expect;

static Expect expected(const Fn *f, float x, double *want) {
    if (isnan(x) || x < 0) return E_NAN;
    if (x == 0) {
        *want = -INFINITY;
        return E_EXACT;
    }
    *want = f->exact((double)x);
    int e;
    bool pow2 = frexpf(x, &e) == 0.5f;
    return isinf(x) || x == 1.0f || (pow2 && f->ref == ref_log2) ? E_EXACT : E_VALUE;
}

typedef struct Scan {
    const Fn *f;
    uint64_t from, to, step;      /* bit patterns from, from + step, ... < to */
    double worst;
    float worst_x;
    uint64_t bad;                 /* special or exact inputs answered wrongly */
    float first_bad;
} Scan;

static void scan_one(Scan *s, float x) {
    double want = 0;
    float y = s->f->ref(x);
    switch (expected(s->f, x, &want)) {
    case E_NAN:
        if (!isnan(y)) goto bad;
        return;
    case E_EXACT:
        if (y != want || !signbit(y) != !signbit(want)) goto bad;
        return;
    case E_VALUE: {
        double e = ulp_error(y, want);
        if (e > s->worst) {
            s->worst = e;
            s->worst_x = x;
        }
        return;
    }
    }
bad:
    if (s->bad++ == 0) s->first_bad = x;
}

static int scan_thread(void *arg) {
    Scan *s = arg;
    for (uint64_t u = s->from; u < s->to; u += s->step) scan_one(s, sn_f32(u));
    return 0;
}

/* Scans [from, to) by step, split over n_threads (1 = no threads). */
static Scan scan(const Fn *f, uint64_t from, uint64_t to, uint64_t step, int n_threads) {
    Scan part[64], all = {.f = f};
    thrd_t th[64];
    bool started[64] = {0};
    if (n_threads > 64) n_threads = 64;
    uint64_t count = (to - from + step - 1) / step, per = (count + (uint64_t)n_threads - 1) / (uint64_t)n_threads;
    for (int i = 0; i < n_threads; i++) {
        uint64_t a = from + (uint64_t)i * per * step, b = a + per * step;
        part[i] = (Scan){.f = f, .from = a, .to = b < to ? b : to, .step = step};
        started[i] = n_threads > 1 && thrd_create(&th[i], scan_thread, &part[i]) == thrd_success;
        if (!started[i]) scan_thread(&part[i]);
    }
    for (int i = 0; i < n_threads; i++)
        if (started[i]) thrd_join(th[i], NULL);
    for (int i = 0; i < n_threads; i++) {
        if (part[i].worst > all.worst) {
            all.worst = part[i].worst;
            all.worst_x = part[i].worst_x;
        }
        if (part[i].bad && !all.bad) all.first_bad = part[i].first_bad;
        all.bad += part[i].bad;
    }
    return all;
}

static void report(const char *what, Scan s) {
    printf("%-5s %-22s max %.4f ulp at %a (%s(x) = %a)\n", s.f->name, what, s.worst, s.worst_x, s.f->name,
           s.f->ref(s.worst_x));
    if (s.worst > s.f->max_ulp) {
        printf("%s: max error %.4f ulp exceeds %.2f\n", s.f->name, s.worst, s.f->max_ulp);
        failures++;
    }
    if (s.bad) {
        printf("%s: %llu special or exact inputs wrong, first %a -> %a\n", s.f->name, (unsigned long long)s.bad,
               s.first_bad, s.f->ref(s.first_bad));
        failures++;
    }
}

static void test_accuracy(void) {
    bool all = getenv("F32MATH_ALL") != NULL;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = all && cpus > 1 ? (int)cpus : 1;
    uint64_t half = sn_bits32(0.5f), two = sn_bits32(2.0f);
    for (size_t fi = 0; fi < ARRAY_LEN(fns); fi++) {
        const Fn *f = &fns[fi];
        if (all) {
            report("all 2^32 inputs", scan(f, 0, UINT64_C(1) << 32, 1, threads));
        } else {
            report("every 997th pattern", scan(f, 0, UINT64_C(1) << 32, 997, 1));
            report("[1/2, 2) by 31", scan(f, half, two, 31, 1));
        }
    }
}

/* ---- special inputs ---- */

static void expect(const Fn *f, float x, float want) {
    float got = f->ref(x);
    bool ok = isnan(want) ? isnan(got) : sn_bits32(got) == sn_bits32(want);
    if (!ok) {
        printf("%s(%a) = %a, expected %a\n", f->name, x, got, want);
        failures++;
    }
}

static const float special_inputs[] = {
    0.0f, -0.0f, 1.0f, -1.0f, 2.0f, 0.5f, 3.0f, 10.0f, 0x1p-149f, -0x1p-149f, 0x1p-126f, 0x1.fffffep-127f,
    0x1.fffffep+127f, INFINITY, -INFINITY, NAN, -NAN, 0x1.555556p-1f, 0x1.555554p-1f, 0x1.555556p+0f,
    0x1.555554p+0f, 1.0f + 0x1p-23f, 1.0f - 0x1p-24f, 0x1.558698p-1f, 0x1.5bce82p+0f, 2.7182817f,
};

static void test_special(void) {
    const Fn *lg = &fns[0], *l2 = &fns[1];
    float nan = NAN, inf = INFINITY;
    expect(lg, 1.0f, 0.0f);
    expect(lg, 0.0f, -inf);
    expect(lg, -0.0f, -inf);
    expect(lg, -1.0f, nan);
    expect(lg, -inf, nan);
    expect(lg, -0x1p-149f, nan);
    expect(lg, inf, inf);
    expect(lg, nan, nan);
    expect(lg, 2.0f, 0x1.62e430p-1f);
    expect(lg, 0x1p-149f, -0x1.9d1da0p+6f);           /* -103.27893 */
    expect(lg, 0x1.fffffep+127f, 0x1.62e430p+6f);     /* 88.72284 */
    expect(lg, 1.0f + 0x1p-23f, 0x1.fffffep-24f);     /* log(1+u) = u - u^2/2 */
    expect(lg, 1.0f - 0x1p-24f, -0x1.000000p-24f);
    expect(lg, 0x1p-127f, -0x1.601e68p+6f);           /* -88.02969: subnormals are not flushed */
    expect(l2, 1.0f, 0.0f);
    expect(l2, 0.0f, -inf);
    expect(l2, -2.0f, nan);
    expect(l2, inf, inf);
    expect(l2, nan, nan);
    expect(l2, 3.0f, 0x1.95c01ap+0f);
    expect(l2, 0x1.fffffep+127f, 0x1.000000p+7f);     /* 128 - 2^-24 / ln 2 rounds to 128 */
    for (int e = -149; e <= 127; e++) expect(l2, ldexpf(1.0f, e), (float)e);
}

/* ---- 2. executing the programs' PTX ---- */

static void test_ptx_text(void) {
    /* 65521, a prime: every exponent, many mantissas; 2^24 with F32MATH_DENSE */
    uint64_t step = getenv("F32MATH_DENSE") ? 256 : 65521;
    for (size_t fi = 0; fi < ARRAY_LEN(fns); fi++)
        if (!snip_check_f32_unary(fns[fi].name, fns[fi].emit, fns[fi].ref, true, special_inputs,
                                  ARRAY_LEN(special_inputs), step, "F32MATH_DUMP"))
            failures++;
}

/* log on tl.randn's inputs max(1e-7, u), u in [0, 1): a stride of the bit
 * patterns of [1e-7, 1) on the simulator, bit for bit */
static void test_ptx_randn_range(void) {
    uint32_t lo = sn_bits32(1e-7f), hi = sn_bits32(1.0f), step = getenv("F32MATH_DENSE") ? 11 : 4099;
    size_t n = (hi - lo) / step;
    float *xs = malloc(n * sizeof *xs);
    for (size_t i = 0; i < n; i++) xs[i] = sn_f32(lo + (uint32_t)i * step);
    /* the specials argument takes them all; a step of 2^32 adds one more (0) */
    if (!snip_check_f32_unary("log", emit_log, ref_log, true, xs, n, UINT64_C(1) << 32,
                              "F32MATH_DUMP"))
        failures++;
    free(xs);
}

int main(void) {
    CHECK(mathfn_build_op(&prog_log, OP_LOG, ET_F32));
    CHECK(mathfn_build_op(&prog_log2, OP_LOG2, ET_F32));
    test_special();
    test_accuracy();
    test_ptx_text();
    test_ptx_randn_range();
    if (failures) printf("%d failures\n", failures);
    return failures != 0;
}
