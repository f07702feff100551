/* f32 cos and sin, operation for operation as ptxgen/trig.c emits them, so
 * the interpreter's results are the GPU's bit for bit (the method and its
 * error are described there). Integer steps are exact; the double steps are
 * the same roundings in the same order (separate multiplies, explicit fma). */
#include "scalar.h"
#include "../base/trig.h"

#include <math.h>
#include <string.h>

/* A 64-bit funnel: the 32 bits of hi:lo starting s bits below hi's top */
static uint32_t funnel(uint32_t hi, uint32_t lo, uint32_t s) {
    uint64_t v = ((uint64_t)hi << 32) | lo;
    return (uint32_t)(v >> (32 - s));
}

/* |x| = m 2^(be-150) with be >= 126 reduced by pi/2: the quadrant (mod 4)
 * and the remainder in (-1/2, 1/2] quarter turns, scaled by 2^64 */
static uint32_t reduce_large(uint32_t m, uint32_t be, int64_t *frac) {
    const uint32_t *t = trig_two_over_pi;
    uint32_t b = be - 120, w = b >> 5, s = b & 31;
    uint32_t w0 = funnel(t[w], t[w + 1], s), w1 = funnel(t[w + 1], t[w + 2], s);
    uint32_t w2 = funnel(t[w + 2], t[w + 3], s);
    uint64_t p0 = (uint64_t)m * w2;
    uint64_t p1 = (uint64_t)m * w1 + (p0 >> 32);
    uint64_t p2 = (uint64_t)m * w0 + (p1 >> 32);
    uint32_t a0 = (uint32_t)p0, a1 = (uint32_t)p1, a2 = (uint32_t)p2;
    uint64_t g = ((uint64_t)(a2 & 0x3FFFFFFF) << 34) | ((uint64_t)a1 << 2) | (a0 >> 30);
    *frac = (int64_t)g;
    return (a2 >> 30) + (uint32_t)(g >> 63);
}

static double poly(const double *c, int n, double z) {
    double p = c[n - 1];
    for (int i = n - 2; i >= 0; i--) p = fma(p, z, c[i]);
    return p;
}

float interp_trig_f32(bool is_cos, float x) {
    uint32_t u;
    memcpy(&u, &x, 4);
    uint32_t ax = u & 0x7FFFFFFF, be = ax >> 23;
    if (be == 255) return NAN;
    float fa;
    memcpy(&fa, &ax, 4);
    double r = fa;
    uint32_t q = 0;
    if (be >= 126) {
        int64_t frac;
        q = reduce_large((ax & 0x7FFFFF) | 0x800000, be, &frac);
        r = (double)frac * TRIG_QUARTER_TURN;
    }
    double z = r * r;
    double s = fma(r * z, poly(trig_sin_poly, 6, z), r);
    double c = fma(z, poly(trig_cos_poly, 7, z), 1.0);
    uint32_t n = q + (is_cos ? 1 : 0);
    double v = n & 1 ? c : s;
    if (n & 2) v = -v;
    if (!is_cos && (u >> 31)) v = -v;
    return (float)v;
}
