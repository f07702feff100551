/* elem_round, elem_float_bits and elem_float_from_bits (ir/ir.c): the one
 * rounding of double constants to f16/bf16/f32/f64/fp8 that pass_fold and
 * ptxgen share.
 *
 * 1. Chosen cases: ties to even, subnormals, overflow, NaN, signed zero, and
 *    1 + 2^-8 + 2^-30, which rounds to bf16 1 + 2^-7 directly but to 1
 *    through f32 (the double rounding this replaced).
 * 2. Every f16/bf16/fp8 bit pattern decodes and encodes back to itself.
 * 3. Random doubles over each format's range against an oracle that finds
 *    the two neighbouring values by searching the (monotone) bit patterns
 *    and takes the nearer, the even one on a tie; f32 also against C's
 *    double -> float conversion, f16 against _Float16 where gcc has it. */
#include "base/base.h"
#include "ir/ir.h"
#include "check.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>


static void bits_are(ElemType e, double x, uint64_t want, int line) {
    uint64_t got = elem_float_bits(e, x);
    if (got != want) {
        printf("line %d: elem_float_bits(%s, %a) = 0x%llX, expected 0x%llX\n", line, elem_name(e), x,
               (unsigned long long)got, (unsigned long long)want);
        failures++;
    }
}
#define BITS(e, x, want) bits_are(e, x, want, __LINE__)

static uint64_t f64_bits(double x) {
    uint64_t u;
    memcpy(&u, &x, 8);
    return u;
}

static void test_cases(void) {
    /* f16: ties to even, subnormals, overflow at 65520 (the tie above 65504) */
    BITS(ET_F16, 1.0, 0x3C00);
    BITS(ET_F16, 1.0 + 0x1p-11, 0x3C00);                 /* tie -> even */
    BITS(ET_F16, 1.0 + 0x1p-11 + 0x1p-40, 0x3C01);       /* just above the tie */
    BITS(ET_F16, 1.0 + 3 * 0x1p-11, 0x3C02);             /* tie -> even (up) */
    BITS(ET_F16, -2.5, 0xC100);
    BITS(ET_F16, 0x1p-24, 0x0001);                       /* smallest subnormal */
    BITS(ET_F16, 0x1p-25, 0x0000);                       /* tie with 0 -> 0 */
    BITS(ET_F16, 0x1.0000000000001p-25, 0x0001);
    BITS(ET_F16, 3 * 0x1p-25, 0x0002);                   /* 1.5 units: tie -> 2 */
    BITS(ET_F16, 1023 * 0x1p-24, 0x03FF);                /* largest subnormal */
    BITS(ET_F16, 0x1p-14 - 0x1p-25, 0x0400);             /* tie -> the smallest normal */
    BITS(ET_F16, 65504.0, 0x7BFF);
    BITS(ET_F16, 65519.99, 0x7BFF);
    BITS(ET_F16, 65520.0, 0x7C00);
    BITS(ET_F16, -1e10, 0xFC00);
    BITS(ET_F16, INFINITY, 0x7C00);
    BITS(ET_F16, -0.0, 0x8000);
    BITS(ET_F16, NAN, 0x7E00);
    BITS(ET_F16, -NAN, 0x7E00);
    /* bf16: one rounding from the double, never through f32 */
    BITS(ET_BF16, 1.0 + 0x1p-8 + 0x1p-30, 0x3F81);
    CHECK(elem_round(ET_BF16, 1.0 + 0x1p-8 + 0x1p-30) == 1.0 + 0x1p-7);
    BITS(ET_BF16, 1.0 + 0x1p-8, 0x3F80);                 /* tie -> even */
    BITS(ET_BF16, 1.0 + 3 * 0x1p-8, 0x3F82);
    BITS(ET_BF16, 0x1p-133, 0x0001);                     /* smallest subnormal */
    BITS(ET_BF16, 0x1p-134, 0x0000);
    BITS(ET_BF16, 0x1.8p-133, 0x0002);
    BITS(ET_BF16, 0x1.fep127, 0x7F7F);                   /* largest finite */
    BITS(ET_BF16, 0x1.ffp127, 0x7F80);                   /* tie -> 2^128: inf */
    BITS(ET_BF16, 0x1.fefffffffp127, 0x7F7F);
    BITS(ET_BF16, 1e39, 0x7F80);                         /* beyond f32 too */
    BITS(ET_BF16, -1e300, 0xFF80);
    BITS(ET_BF16, NAN, 0x7FC0);
    /* f32 */
    BITS(ET_F32, 1.0 + 0x1p-24, 0x3F800000);
    BITS(ET_F32, 1.0 + 0x1p-24 + 0x1p-50, 0x3F800001);
    BITS(ET_F32, 0x1p-149, 0x00000001);
    BITS(ET_F32, 0x1p-150, 0x00000000);
    BITS(ET_F32, 0x1.8p-149, 0x00000002);
    BITS(ET_F32, (double)FLT_MAX, 0x7F7FFFFF);
    BITS(ET_F32, 0x1.ffffffp127, 0x7F800000);           /* FLT_MAX + half an ulp: inf */
    BITS(ET_F32, 0x1.fffffefffffffp127, 0x7F7FFFFF);
    BITS(ET_F32, 1e300, 0x7F800000);
    BITS(ET_F32, NAN, 0x7FC00000);
    /* f64: unchanged, NaN canonical */
    BITS(ET_F64, 0.1, f64_bits(0.1));
    BITS(ET_F64, -0x1p-1074, f64_bits(-0x1p-1074));
    BITS(ET_F64, -INFINITY, 0xFFF0000000000000ull);
    BITS(ET_F64, -NAN, 0x7FF8000000000000ull);
    CHECK(elem_round(ET_F64, 0.1) == 0.1);
    /* toward zero (casts with rounding = rtz): truncates, and overflows to the largest finite value */
    CHECK(elem_round_toward(ET_F16, 1.0 + 0x1p-10 * 0.99, true) == 1.0);
    CHECK(elem_round_toward(ET_F16, -(1.0 + 0x1p-10 * 1.99), true) == -(1.0 + 0x1p-10));
    CHECK(elem_round_toward(ET_F16, 70000.0, true) == 65504.0);
    CHECK(elem_round_toward(ET_F16, -1e10, true) == -65504.0);
    CHECK(isinf(elem_round_toward(ET_F16, INFINITY, true)));
    CHECK(elem_round_toward(ET_BF16, 1.0 + 0x1p-7 * 0.75, true) == 1.0);
    CHECK(elem_round_toward(ET_F32, 0x1p-149 * 1.5, true) == 0x1p-149);
    CHECK(elem_round_toward(ET_F32, 0x1p-150, true) == 0);
    CHECK(elem_round_toward(ET_F16, 1.0 + 0x1p-10 * 0.99, false) == 1.0 + 0x1p-10);
    /* fp8 saturates (cvt.rn.satfinite, Triton's conversion): e5m2's inf
     * only toward zero; both NaNs are 0x7F */
    BITS(ET_F8E5M2, 57344.0, 0x7B);
    BITS(ET_F8E5M2, 61440.0, 0x7B);                      /* tie -> 65536: saturates */
    BITS(ET_F8E5M2, -INFINITY, 0xFB);
    BITS(ET_F8E5M2, NAN, 0x7F);
    CHECK(elem_round_toward(ET_F8E5M2, 1e6, true) == 57344.0);
    CHECK(isinf(elem_round_toward(ET_F8E5M2, INFINITY, true)));
    BITS(ET_F8E5M2, 0x1p-16, 0x01);
    BITS(ET_F8E4M3, 448.0, 0x7E);
    BITS(ET_F8E4M3, 464.0, 0x7E);                        /* tie -> even (448) */
    BITS(ET_F8E4M3, 1e6, 0x7E);
    BITS(ET_F8E4M3, -INFINITY, 0xFE);
    BITS(ET_F8E4M3, NAN, 0x7F);
    BITS(ET_F8E4M3, 0x1p-9, 0x01);                       /* smallest subnormal */
    BITS(ET_F8E4M3, 0x1p-10, 0x00);
    /* decoding */
    CHECK(elem_float_from_bits(ET_F16, 0x7BFF) == 65504.0);
    CHECK(elem_float_from_bits(ET_F16, 0x8001) == -0x1p-24);
    CHECK(elem_float_from_bits(ET_BF16, 0x3F81) == 1.0 + 0x1p-7);
    CHECK(isinf(elem_float_from_bits(ET_BF16, 0xFF80)) && elem_float_from_bits(ET_BF16, 0xFF80) < 0);
    CHECK(isnan(elem_float_from_bits(ET_F16, 0x7C01)));
    CHECK(isnan(elem_float_from_bits(ET_F8E4M3, 0xFF)));
    CHECK(elem_float_from_bits(ET_F8E4M3, 0x7E) == 448.0);
    CHECK(elem_float_from_bits(ET_F32, 0x00000001) == 0x1p-149);
    CHECK(elem_float_from_bits(ET_F64, 0x3FF0000000000000ull) == 1.0);
}

/* ---- 2. round trips ---- */

static void test_roundtrip(ElemType e) {
    int bits = elem_bits(e);
    long bad = 0;
    for (uint64_t b = 0; b < (UINT64_C(1) << bits); b++) {
        double v = elem_float_from_bits(e, b);
        if (isnan(v)) continue;
        if (isinf(v) && bits == 8) {   /* e5m2's inf saturates to its largest finite value */
            bool ok = elem_float_bits(e, v) == (b & 0x80) + 0x7B;
            if (!ok && bad++ < 3) printf("%s: inf pattern 0x%llX does not saturate\n", elem_name(e), (unsigned long long)b);
            continue;
        }
        bool ok = elem_round(e, v) == v && elem_float_bits(e, v) == b;
        if (!ok && bad++ < 3)
            printf("%s: pattern 0x%llX (%a) does not round-trip\n", elem_name(e), (unsigned long long)b, v);
    }
    if (bad) failures++;
}

/* ---- 3. random doubles against an oracle ---- */

/* The largest non-NaN non-negative pattern (inf, or e4m3's 448), found
 * once per format: below the NaNs. */
static uint64_t top_pattern(ElemType e) {
    static uint64_t cache[ET_COUNT];
    if (!cache[e]) {
        uint64_t b = (UINT64_C(1) << (elem_bits(e) - 1)) - 1;
        while (isnan(elem_float_from_bits(e, b))) b--;
        cache[e] = b;
    }
    return cache[e];
}

/* |x| rounded by searching: the largest pattern with value <= |x|, then
 * the nearer of it and the next (the even one on a tie). Past the largest
 * finite value: inf if the format has it and |x| is at least halfway to the
 * next power of two, else the largest finite. */
static uint64_t oracle(ElemType e, double x) {
    double a = fabs(x);
    uint64_t sign = signbit(x) ? UINT64_C(1) << (elem_bits(e) - 1) : 0;
    uint64_t top = top_pattern(e), lo = 0, hi = top;
    double topv = elem_float_from_bits(e, top);
    bool has_inf = isinf(topv);
    uint64_t max_finite = has_inf ? top - 1 : top;
    double maxv = elem_float_from_bits(e, max_finite);
    if (a >= maxv) {
        double ulp = maxv - elem_float_from_bits(e, max_finite - 1);
        bool sat = elem_bits(e) == 8;   /* fp8 saturates (satfinite) */
        return sign | (has_inf && !sat && a >= maxv + ulp / 2 ? top : max_finite);
    }
    while (lo < hi) {   /* largest b with value(b) <= a */
        uint64_t mid = (lo + hi + 1) / 2;
        if (elem_float_from_bits(e, mid) <= a) lo = mid;
        else hi = mid - 1;
    }
    double below = elem_float_from_bits(e, lo), above = elem_float_from_bits(e, lo + 1);
    double db = a - below, da = above - a;
    uint64_t r = db < da ? lo : da < db ? lo + 1 : (lo & 1 ? lo + 1 : lo);
    return sign | r;
}

static uint64_t rng_next(uint64_t *s) {   /* xorshift64* */
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1Dull;
}

/* A double of any sign with a random mantissa and an exponent in [lo, hi]. */
static double random_double(uint64_t *s, int lo, int hi) {
    double m = 1.0 + (double)(rng_next(s) >> 11) * 0x1p-53;
    double v = ldexp(m, lo + (int)(rng_next(s) % (uint64_t)(hi - lo + 1)));
    return rng_next(s) & 1 ? -v : v;
}

/* A value of e with a few random low bits added or removed, so halfway
 * points and their neighbours come up often. */
static double near_value(uint64_t *s, ElemType e) {
    uint64_t top = top_pattern(e);
    uint64_t max_finite = isinf(elem_float_from_bits(e, top)) ? top - 1 : top;
    uint64_t b = rng_next(s) % max_finite;   /* b + 1 is finite */
    double v = elem_float_from_bits(e, b), w = elem_float_from_bits(e, b + 1);
    double t = (double)(rng_next(s) % 9) / 8;   /* 0, 1/8, ..., 1 of the way to the next */
    return v + (w - v) * t;
}

static void test_random(ElemType e, int emin, int emax, long n) {
    uint64_t s = 0x9E3779B97F4A7C15ull + (uint64_t)e;
    long bad = 0;
    for (long i = 0; i < n; i++) {
        double x = i & 1 ? random_double(&s, emin, emax) : near_value(&s, e);
        uint64_t got = elem_float_bits(e, x), want = oracle(e, x);
        bool ok = got == want && elem_round(e, x) == elem_float_from_bits(e, want);
        if (e == ET_F32) {
            float f = (float)x;
            ok = ok && elem_round(e, x) == (double)f;
        }
#ifdef __FLT16_MAX__
        if (e == ET_F16) {
            _Float16 h = (_Float16)x;
            uint16_t hb;
            memcpy(&hb, &h, 2);
            ok = ok && got == hb;
        }
#endif
        if (!ok && bad++ < 5)
            printf("%s: %a gives 0x%llX, expected 0x%llX\n", elem_name(e), x, (unsigned long long)got,
                   (unsigned long long)want);
    }
    if (bad) failures++;
}

int main(void) {
    test_cases();
    test_roundtrip(ET_F16);
    test_roundtrip(ET_BF16);
    test_roundtrip(ET_F8E4M3);
    test_roundtrip(ET_F8E5M2);
    test_random(ET_F16, -30, 20, 200000);
    test_random(ET_BF16, -140, 132, 200000);
    test_random(ET_F32, -155, 132, 200000);
    test_random(ET_F8E4M3, -12, 12, 50000);
    test_random(ET_F8E5M2, -20, 20, 50000);
    if (failures) printf("%d failures\n", failures);
    return failures != 0;
}
