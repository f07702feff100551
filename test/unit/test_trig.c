/* f32 cos and sin (ptxgen/trig.c, mirrored by interp/trig.c):
 *  1. the interpreter's C routine against libm's double sin/cos rounded to
 *     f32, on special inputs and a spread of 2^32 / 8191 bit patterns (every
 *     exponent, many mantissas): within 1 ulp everywhere, and equal to the
 *     correctly rounded value on all but a tiny fraction;
 *  2. the emitted PTX text on the PTX simulator, bit for bit equal to the C
 *     routine (so the interpreter and the GPU agree exactly).
 * TRIG_ALL=1 runs part 1 over all 2^32 inputs. */
#include "interp/scalar.h"
#include "sim_snippet.h"

#include <float.h>
#include <math.h>

static int failures;

static const float special_inputs[] = {
    0.0f, -0.0f, 0x1p-149f, -0x1p-149f, 0x1p-126f, 1e-20f, 0.25f, 0.4999999f, 0.5f, -0.5f, 0.7853982f, 1.0f,
    1.5707964f, -1.5707964f, 3.1415927f, 4.712389f, 6.2831855f, 10.0f, 100.0f, 102873.42f, 105615.0f, 1e6f,
    16777216.0f, 1e10f, 1.7e19f, 2.5e30f, 1e38f, FLT_MAX, -FLT_MAX, INFINITY, -INFINITY, NAN,
};

typedef struct Fn {
    const char *name;
    bool is_cos;
    void (*emit)(Ptx *P, Reg d, Reg a);
} Fn;

static const Fn fns[] = {
    {"cos", true, ptx_math_cos_f32},
    {"sin", false, ptx_math_sin_f32},
};

static float libm_ref(bool is_cos, float x) { return (float)(is_cos ? cos((double)x) : sin((double)x)); }

static int64_t ordered(float f) {
    int32_t i;
    memcpy(&i, &f, 4);
    return i < 0 ? -(int64_t)(i & 0x7FFFFFFF) : i;
}

/* ---- 1. the C routine against libm ---- */

static void check_one(const Fn *f, float x, long *inexact, double *worst) {
    float got = interp_trig_f32(f->is_cos, x), want = libm_ref(f->is_cos, x);
    if (isnan(want) || isnan(got)) {
        if (isnan(want) != isnan(got)) {
            if (failures++ < 10) printf("%s(%a) = %a, libm %a\n", f->name, x, got, want);
        }
        return;
    }
    int64_t d = llabs(ordered(got) - ordered(want));
    if (d == 0) return;
    (*inexact)++;
    /* error in ulps of the exact value */
    double exact = f->is_cos ? cos((double)x) : sin((double)x);
    double ulp = ldexp(1.0, ilogb(fabs(exact) > FLT_MIN ? exact : FLT_MIN) - 23);
    double e = fabs((double)got - exact) / ulp;
    if (e > *worst) *worst = e;
    if (d > 1 && failures++ < 10) printf("%s(%a) = %a, libm %a (%lld ulps)\n", f->name, x, got, want, (long long)d);
}

static void test_accuracy(void) {
    uint64_t step = getenv("TRIG_ALL") ? 1 : 8191;
    for (size_t fi = 0; fi < ARRAY_LEN(fns); fi++) {
        long inexact = 0, n = 0;
        double worst = 0;
        for (size_t i = 0; i < ARRAY_LEN(special_inputs); i++, n++) check_one(&fns[fi], special_inputs[i], &inexact, &worst);
        for (uint64_t b = 0; b < (UINT64_C(1) << 32); b += step, n++) check_one(&fns[fi], sn_f32(b), &inexact, &worst);
        printf("%s: %ld inputs, %ld not correctly rounded, worst %.3f ulp\n", fns[fi].name, n, inexact, worst);
        if (inexact * 10000 > n || worst > 0.51) {
            printf("%s: too many inexact results or too large an error\n", fns[fi].name);
            failures++;
        }
    }
    /* exact values the routine must give */
    if (interp_trig_f32(false, -0.0f) != 0.0f || !signbit(interp_trig_f32(false, -0.0f)) ||
        interp_trig_f32(true, 0.0f) != 1.0f || interp_trig_f32(false, 0x1p-149f) != 0x1p-149f) {
        printf("sin(-0), cos(0) or sin(tiny) wrong\n");
        failures++;
    }
}

/* ---- 2. executing trig.c's PTX ---- */

static float cos_model(float x) { return interp_trig_f32(true, x); }
static float sin_model(float x) { return interp_trig_f32(false, x); }

static void test_ptx_text(void) {
    for (size_t fi = 0; fi < ARRAY_LEN(fns); fi++)
        if (!snip_check_f32_unary(fns[fi].name, fns[fi].emit, fns[fi].is_cos ? cos_model : sin_model, false,
                                  special_inputs, ARRAY_LEN(special_inputs), 131071, "TRIG_DUMP"))
            failures++;
}

int main(void) {
    test_accuracy();
    test_ptx_text();
    if (failures) printf("%d failures\n", failures);
    return failures != 0;
}
