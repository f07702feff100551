/* Constants of the f32 log, cos and sin routines that ptxgen emits
 * (mathlib.c's log, trig.c) and interp/trig.c mirrors in C (one copy, so
 * the two cannot drift apart). They are the values CUDA's libdevice logf,
 * sinf and cosf use, which is what Triton's tl.log/sin/cos compile to:
 * with the same operations in the same order tric's results are Triton's
 * bit for bit (doc/interp.md). */
#ifndef TRIC_BASE_TRIG_H
#define TRIC_BASE_TRIG_H

#include <stdint.h>

/* ---- log ----
 * x = 2^e m with m in [2/3, 4/3) (found by subtracting 2/3's bits),
 * f = m - 1, log x = e ln2 + f + f^2 P(f): P by Horner from the highest
 * coefficient down (the last, -1/2, included); the subnormal case scales
 * by 2^23 and takes 23 off e. */
#define LOGF_TWO_THIRDS 0x3F2AAAABu
static const float logf_poly[9] = {
    -0x1.0aa04ep-3f, 0x1.2073ecp-3f, -0x1.f19b98p-4f, 0x1.1e52aap-3f, -0x1.55b172p-3f,
    0x1.99da16p-3f, -0x1.fffe44p-3f, 0x1.5554f0p-2f, -0x1.0p-1f,
};
#define LOGF_LN2 0x1.62e430p-1f

/* ---- sin and cos ----
 * Fast path (|x| < TRIG_FAST_LIMIT): the quadrant i = rint(x 2/pi), and
 * r = x - i pi/2 by three fmas with pi/2 split in three.
 * Slow path: Payne-Hanek. The 24-bit mantissa (at the top of a word) times
 * 192 bits of 2/pi gives 224 bits; a window of them, picked by the
 * exponent, holds the quadrant (its top 2 bits, rounded by the third) and
 * then the remainder, a signed 64-bit fraction of a quarter turn (negative
 * ones as one's complement), scaled to radians in f64 and rounded to f32.
 * Then on r (z = r^2): sin r = r + r z S(z), cos r = 1 + z C(z), taken and
 * negated by the quadrant (cos x is sin of quadrant + 1). */
#define TRIG_TWO_OVER_PI_F 0x1.45f306p-1f
static const float trig_pio2[3] = {-0x1.921fb4p+0f, -0x1.4442d0p-24f, -0x1.84698ap-48f};
#define TRIG_FAST_LIMIT 105615.0f

/* 192 bits of 2/pi, the least significant word first */
static const uint32_t trig_two_over_pi[6] = {
    0x3C439041, 0xDB629599, 0xF534DDC0, 0xFC2757D1, 0x4E441529, 0xA2F9836E,
};

/* pi/2 * 2^-64: turns the 64-bit fixed-point remainder into radians */
#define TRIG_QUARTER_TURN 0x1.921fb54442d19p-64

/* S and C with the highest coefficient first; C's top one is an fma of two */
static const float trig_sin_poly[3] = {-0x1.9a82a6p-13f, 0x1.110bc8p-7f, -0x1.555550p-3f};
static const float trig_cos_top[2] = {0x1.9758p-16f, -0x1.6c0fdap-10f};
static const float trig_cos_poly[2] = {0x1.555576p-5f, -0x1.fffffep-2f};

#endif
