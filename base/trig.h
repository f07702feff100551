/* Constants of the f32 cos/sin routine that ptxgen/trig.c emits and
 * interp/trig.c mirrors (one table, so the two cannot drift apart). */
#ifndef TRIC_BASE_TRIG_H
#define TRIC_BASE_TRIG_H

#include <stdint.h>

/* 32 zero bits, then the first 224 bits of 2/pi: the window of 96 bits that
 * the Payne-Hanek reduction of an f32 argument of exponent >= -1 needs
 * starts within the first five words */
static const uint32_t trig_two_over_pi[8] = {
    0x00000000, 0xA2F9836E, 0x4E441529, 0xFC2757D1, 0xF534DDC0, 0xDB629599, 0x3C439041, 0xFE5163AB,
};

/* pi/2 * 2^-64: turns the 64-bit fixed-point remainder into radians */
#define TRIG_QUARTER_TURN 0x1.921fb54442d18p-64

/* Taylor coefficients (1/n! with signs, rounded to double): on |r| <= pi/4
 * sin r = r + r z S(z), cos r = 1 + z C(z), z = r^2, truncation errors
 * 2^-45 and 2^-50 relative, far below an f32 result's half ulp */
static const double trig_sin_poly[6] = {
    -1.0 / 6, 1.0 / 120, -1.0 / 5040, 1.0 / 362880, -1.0 / 39916800, 1.0 / 6227020800,
};
static const double trig_cos_poly[7] = {
    -1.0 / 2, 1.0 / 24, -1.0 / 720, 1.0 / 40320, -1.0 / 3628800, 1.0 / 479001600, -1.0 / 87178291200,
};

#endif
