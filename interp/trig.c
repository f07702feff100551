/* f32 log, cos, sin and sqrt, operation for operation as ptxgen emits them
 * (mathlib.c's ptx_math_log_f32, trig.c, optab.c's sqrt), so the
 * interpreter's results are the GPU's bit for bit (for sqrt, whose
 * sqrt.approx is the hardware's own, within its error). The method is
 * described with the constants in base/trig.h. Each PTX .ftz operation
 * becomes its C operation between ftz() of the inputs and of the result;
 * the others are plain C float arithmetic (one rounding per statement:
 * -std=c11 does not contract a * b + c into an fma). */
#include "scalar.h"
#include "../base/trig.h"

#include <math.h>
#include <string.h>

static uint32_t bits_of(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static float float_of(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* a subnormal as the zero of its sign, as .ftz reads and writes it */
static float ftz(float f) { return f != 0 && fabsf(f) < 0x1p-126f ? copysignf(0.0f, f) : f; }

static float fma_ftz(float a, float b, float c) { return ftz(fmaf(ftz(a), ftz(b), ftz(c))); }

static float mul_ftz(float a, float b) { return ftz(ftz(a) * ftz(b)); }

/* cvt.rni.ftz.s32.f32: to nearest even, saturating, NaN -> 0 */
static int32_t rni_ftz_s32(float f) {
    f = ftz(f);
    if (isnan(f)) return 0;
    float r = nearbyintf(f);
    if (r >= 0x1p31f) return INT32_MAX;
    if (r < -0x1p31f) return INT32_MIN;
    return (int32_t)r;
}

/* log: see base/trig.h. Negative inputs (and -0 after the scaling, NaN,
 * +inf) go through fma(x, inf, inf): NaN, NaN, NaN, +inf; zero gives -inf. */
float interp_log_f32(float x) {
    bool sub = x < 0x1p-126f;
    float xs = sub ? x * 0x1p23f : x;
    float e0 = sub ? -23.0f : 0.0f;
    uint32_t u = bits_of(xs);
    uint32_t k = (u - LOGF_TWO_THIRDS) & 0xFF800000u;
    float e = fma_ftz((float)(int32_t)k, 0x1p-23f, e0);
    float f = float_of(u - k) + -1.0f;
    float p = fma_ftz(logf_poly[0], f, logf_poly[1]);
    for (int i = 2; i < 9; i++) p = fma_ftz(p, f, logf_poly[i]);
    float q = f * p;
    float r = fma_ftz(q, f, f);
    float y = fma_ftz(e, LOGF_LN2, r);
    if (u >= 0x7F800000u) y = fma_ftz(xs, INFINITY, INFINITY);
    return xs == 0.0f ? -INFINITY : y;
}

/* The slow path's window: word j of the 224-bit product m * 2/pi */
static void trig_product(uint32_t m, uint32_t w[7]) {
    uint64_t carry = 0;
    for (int k = 0; k < 6; k++) {
        uint64_t p = (uint64_t)trig_two_over_pi[k] * m + carry;
        w[k] = (uint32_t)p;
        carry = p >> 32;
    }
    w[6] = (uint32_t)carry;
}

/* The top 32 bits of hi:lo shifted left by s (0..31) */
static uint32_t shl_hi(uint32_t hi, uint32_t lo, uint32_t s) {
    return (uint32_t)((((uint64_t)hi << 32 | lo) << s) >> 32);
}

/* Payne-Hanek for finite |x| >= TRIG_FAST_LIMIT: the quadrant and r */
static int32_t trig_reduce_slow(uint32_t u, float *r) {
    uint32_t w[7];
    trig_product((u << 8) | 0x80000000u, w);
    uint32_t e = u >> 23, j = (((e & 224) - 128) >> 3) / 4, s = e & 31;
    uint32_t hi = shl_hi(w[6 - j], w[5 - j], s), mid = shl_hi(w[5 - j], w[4 - j], s);
    uint32_t t = shl_hi(hi, mid, 2), lo = mid << 2;
    int32_t q = (int32_t)((t >> 31) + (hi >> 30));
    uint32_t s31 = (uint32_t)((int32_t)t >> 31);
    int64_t v = (int64_t)((uint64_t)(s31 ^ t) << 32 | (s31 ^ lo));
    float rf = (float)((double)v * TRIG_QUARTER_TURN);
    *r = (int32_t)(t ^ u) < 0 ? -rf : rf;
    return (u >> 31) ? -q : q;
}

float interp_trig_f32(bool is_cos, float x) {
    int32_t i = rni_ftz_s32(x * TRIG_TWO_OVER_PI_F);
    float fi = (float)i;
    float r = fma_ftz(fi, trig_pio2[0], x);
    r = fma_ftz(fi, trig_pio2[1], r);
    r = fma_ftz(fi, trig_pio2[2], r);
    float ax = fabsf(x);
    if (ax >= TRIG_FAST_LIMIT) {
        if (ax == INFINITY) {
            i = 0;
            r = NAN;
        } else {
            i = trig_reduce_slow(bits_of(x), &r);
        }
    }
    uint32_t n = (uint32_t)i + (is_cos ? 1 : 0);
    bool odd = n & 1;
    float z2 = mul_ftz(r, r);
    float p = odd ? 1.0f : r;
    float z = fma_ftz(z2, p, 0.0f);
    float c0 = odd ? fma_ftz(trig_cos_top[0], z2, trig_cos_top[1]) : trig_sin_poly[0];
    float c1 = odd ? trig_cos_poly[0] : trig_sin_poly[1];
    float c2 = odd ? trig_cos_poly[1] : trig_sin_poly[2];
    float t = fma_ftz(fma_ftz(c0, z2, c1), z2, c2);
    float y = fma_ftz(t, z, p);
    return n & 2 ? fma_ftz(y, -1.0f, 0.0f) : y;
}

/* sqrt.approx.ftz.f32: a subnormal input is its signed zero */
float interp_sqrt_f32(float x) { return sqrtf(ftz(x)); }
