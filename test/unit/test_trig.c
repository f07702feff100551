/* f32 cos and sin (ir/mathfn_op.c's programs: libdevice's cosf/sinf):
 *  1. the programs run in C (mathfn_run, what the interpreter computes)
 *     against libm's double sin/cos, on special inputs and a spread of
 *     2^32 / 8191 bit patterns (every exponent, many mantissas): within
 *     MAX_ULP of the exact value everywhere (subnormal inputs flush: sin
 *     gives the zero of x's sign, cos 1);
 *  2. the PTX text ptxgen prints for them on the PTX simulator, bit for bit
 *     equal to mathfn_run (so the interpreter and the GPU agree exactly), on
 *     the special inputs, a stride of all bit patterns (2^24 of them spread
 *     over every exponent with TRIG_DENSE=1) and a stride of tl.randn's
 *     arguments [0, 2pi).
 * TRIG_ALL=1 runs part 1 over all 2^32 inputs. */
#include "interp/interp.h"
#include "ir/mathfn.h"
#include "sim_snippet.h"

#include <float.h>
#include <math.h>

static int failures;

/* libdevice documents 2 ulp for sinf and cosf; measured over all 2^32
 * inputs (TRIG_ALL=1): cos 1.511 ulp at 0x1.173412p+16, sin 1.499 ulp at
 * 0x1.8f5c76p+21 (about 10% of the results are not correctly rounded) */
#define MAX_ULP 1.6

static const float special_inputs[] = {
    0.0f, -0.0f, 0x1p-149f, -0x1p-149f, 0x1p-126f, 1e-20f, 0.25f, 0.4999999f, 0.5f, -0.5f, 0.7853982f, 1.0f,
    1.5707964f, -1.5707964f, 3.1415927f, 4.712389f, 6.2831855f, 10.0f, 100.0f, 102873.42f, 105615.0f, 1e6f,
    16777216.0f, 1e10f, 1.7e19f, 2.5e30f, 1e38f, FLT_MAX, -FLT_MAX, INFINITY, -INFINITY, NAN,
};

static MathProg prog_cos, prog_sin;

static float trig(bool is_cos, float x) {
    uint64_t a = sn_bits32(x);
    return sn_f32(mathfn_run(is_cos ? &prog_cos : &prog_sin, &a));
}

static void emit_cos(Ptx *P, Reg d, Reg a) { ptx_math_op(P, OP_COS, ET_F32, d, a); }
static void emit_sin(Ptx *P, Reg d, Reg a) { ptx_math_op(P, OP_SIN, ET_F32, d, a); }

typedef struct Fn {
    const char *name;
    bool is_cos;
    void (*emit)(Ptx *P, Reg d, Reg a);
} Fn;

static const Fn fns[] = {
    {"cos", true, emit_cos},
    {"sin", false, emit_sin},
};

/* libm in double; a subnormal x is flushed to its signed zero first */
static double libm_exact(bool is_cos, float x) {
    double d = x != 0 && fabsf(x) < FLT_MIN ? copysign(0.0, x) : (double)x;
    return is_cos ? cos(d) : sin(d);
}

/* ---- 1. the programs in C against libm ---- */

static void check_one(const Fn *f, float x, long *inexact, double *worst, float *worst_x) {
    float got = trig(f->is_cos, x);
    double exact = libm_exact(f->is_cos, x);
    if (isnan(exact) || isnan(got)) {
        if (isnan(exact) != isnan(got) && failures++ < 10) printf("%s(%a) = %a, libm %a\n", f->name, x, got, exact);
        return;
    }
    if (got == (float)exact && !signbit(got) == !signbit((float)exact)) return;
    (*inexact)++;
    /* error in ulps of the exact value */
    double ulp = ldexp(1.0, ilogb(fabs(exact) > FLT_MIN ? exact : FLT_MIN) - 23);
    double e = fabs((double)got - exact) / ulp;
    if (e > *worst) {
        *worst = e;
        *worst_x = x;
    }
    if (e > MAX_ULP && failures++ < 10) printf("%s(%a) = %a, libm %a (%.3f ulp)\n", f->name, x, got, exact, e);
}

static void test_accuracy(void) {
    uint64_t step = getenv("TRIG_ALL") ? 1 : 8191;
    for (size_t fi = 0; fi < ARRAY_LEN(fns); fi++) {
        long inexact = 0, n = 0;
        double worst = 0;
        float worst_x = 0;
        for (size_t i = 0; i < ARRAY_LEN(special_inputs); i++, n++)
            check_one(&fns[fi], special_inputs[i], &inexact, &worst, &worst_x);
        for (uint64_t b = 0; b < (UINT64_C(1) << 32); b += step, n++)
            check_one(&fns[fi], sn_f32(b), &inexact, &worst, &worst_x);
        printf("%s: %ld inputs, %ld not correctly rounded, worst %.3f ulp at %a\n", fns[fi].name, n, inexact,
               worst, worst_x);
    }
    /* exact values the routine must give */
    if (trig(false, -0.0f) != 0.0f || !signbit(trig(false, -0.0f)) ||
        trig(true, 0.0f) != 1.0f || trig(false, 0x1p-149f) != 0.0f ||
        signbit(trig(false, 0x1p-149f)) || !signbit(trig(false, -0x1p-149f)) ||
        trig(true, -0x1p-149f) != 1.0f) {
        printf("sin(-0), cos(0), sin(+-tiny) or cos(tiny) wrong\n");
        failures++;
    }
}

/* ---- 2. executing the programs' PTX ---- */

static float cos_model(float x) { return trig(true, x); }
static float sin_model(float x) { return trig(false, x); }

static void test_ptx_text(void) {
    uint64_t step = getenv("TRIG_DENSE") ? 256 : 131071;
    for (size_t fi = 0; fi < ARRAY_LEN(fns); fi++)
        if (!snip_check_f32_unary(fns[fi].name, fns[fi].emit, fns[fi].is_cos ? cos_model : sin_model, false,
                                  special_inputs, ARRAY_LEN(special_inputs), step, "TRIG_DUMP"))
            failures++;
}

/* tl.randn's arguments 2 pi u, u in [0, 1): a stride of [0, 2pi)'s bit
 * patterns (the specials argument takes them; a step of 2^32 adds one 0) */
static void test_ptx_randn_range(void) {
    uint32_t hi = sn_bits32(6.2831855f), step = getenv("TRIG_DENSE") ? 13 : 8191;
    size_t n = hi / step;
    float *xs = malloc(n * sizeof *xs);
    for (size_t i = 0; i < n; i++) xs[i] = sn_f32((uint32_t)i * step);
    for (size_t fi = 0; fi < ARRAY_LEN(fns); fi++)
        if (!snip_check_f32_unary(fns[fi].name, fns[fi].emit, fns[fi].is_cos ? cos_model : sin_model, false, xs, n,
                                  UINT64_C(1) << 32, "TRIG_DUMP"))
            failures++;
    free(xs);
}

int main(void) {
    if (!mathfn_build_op(&prog_cos, OP_COS, ET_F32) || !mathfn_build_op(&prog_sin, OP_SIN, ET_F32)) {
        printf("no sin/cos program\n");
        return 1;
    }
    test_accuracy();
    test_ptx_text();
    test_ptx_randn_range();
    if (failures) printf("%d failures\n", failures);
    return failures != 0;
}
