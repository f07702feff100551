/* The programs (mathfn.h) of the Triton ops that PTX lacks: fp64 exp,
 * exp2, log, log2 and fp32 log, log2, sin, cos (what Triton takes from
 * libdevice). ptxgen prints them (ptxgen/mathprog.c), the interpreter and
 * constant folding run them (mathfn_run): one definition, the same bits.
 * Each is straight-line: no branches, no tables, every rounding an
 * explicit .rn (so ptxas contracts nothing), special inputs handled by
 * clamps and selects. Constants are immediates printed in place, and
 * registers are created in the order the PTX numbers them.
 *
 * fp64 exp(x): x = k ln2 + r, |r| <= ln2/2, k = rint(x log2 e). ln2 is
 *          split in two (ln2 + ln2_lo): fma(k, -ln2, x) is exact, so the
 *          reduced argument is the pair r + dr. e^r - 1 = r + q, q = r^2
 *          p(r) + dr (1 + r), p a degree-10 minimax fit of (e^r - 1 -
 *          r)/r^2; 1 + r + q is summed exactly (Fast2Sum twice) and rounded
 *          once, then scaled by 2^k1 * 2^k2 (k1 + k2 = k, each a normal
 *          power), so 2^1024 overflows to inf and subnormal results round
 *          only there.
 * exp2(x): k = rint(x), r = x - k (exact); r ln2 as the exact pair rh + rl
 *          (fma gives the product's rounding error); then as exp.
 * log(x):  x = 2^k m, m in [sqrt(1/2), sqrt 2) (subnormals scaled by 2^54
 *          first), f = m - 1 (exact), s = f / (2 + f); log m = 2 atanh s
 *          = f - f^2/2 + s (f^2/2 + R), R = z h(z), z = s^2, h a degree-7
 *          minimax fit. f - f^2/2 is kept exact as hi + lo, k ln2 + hi is
 *          summed exactly, and one rounding ends it.
 * log2(x): (hi + lo) log2 e with the product's error from an fma, plus k.
 * Errors (max over 8 million inputs per range, in ulps): exp 0.60, exp2
 * 0.60, log 0.66, log2 0.77; exp and exp2 results below 2^-1022 round
 * twice: 0.76 (test/unit/test_f64_math.c). The coefficients are minimax
 * (Remez exchange in mpmath, relative error) rounded to double: exp's fit
 * is within 2^-57 on |r| <= 0.3466, log's within 2^-54 (the rounding of
 * 2/3) on z <= 0.02944.
 *
 * fp32 log is libdevice's logf, operation for operation (Triton's tl.log,
 * so tric's results are Triton's bit for bit): x = 2^e m with m in [2/3,
 * 4/3) (found by subtracting 2/3's bits), f = m - 1, log x = e ln2 + f +
 * f^2 P(f), P by Horner from the highest coefficient down (the last, -1/2,
 * included); the subnormal case scales by 2^23 and takes 23 off e. Within
 * 1 ulp (test/unit/test_f32_math.c).
 * fp32 log2 (Triton's is not known here, so it stays tric's own) uses f32
 * arithmetic only (fp64 is slow on most GPUs): x = 2^k m, m in [2/3, 4/3)
 * (subnormals scaled by 2^23 first), f = m - 1 (exact), |f| <= 1/3;
 * log2(1+f) = f log2(e) - f^2/2 + f^2 p(f), p a degree-9 minimax fit; -f^2/2
 * comes from an fma of the exact -f/2 and f, f log2(e) is split exactly,
 * k + f log2(e) is summed exactly, one rounding ends it. 0.78 ulp over all
 * 2^32 inputs; log2(2^k) = k. The fit is minimax in mpmath weighted to the
 * error relative to log2(1+f), rounded to f32: within 2^-28 on [-1/3, 1/3].
 *
 * fp32 cos and sin (tl.cos, tl.sin; Box-Muller in tl.randn) are libdevice's
 * cosf and sinf, the same operations in the same order, so the results are
 * Triton's bit for bit. Fast path (|x| < TRIG_FAST_LIMIT): the quadrant i =
 * rint(x 2/pi), and r = x - i pi/2 by three fmas with pi/2 split in three.
 * Slow path: Payne-Hanek. The 24-bit mantissa (at the top of a word) times
 * 192 bits of 2/pi gives 224 bits; a window of them, picked by the
 * exponent, holds the quadrant (its top 2 bits, rounded by the third) and
 * then the remainder, a signed 64-bit fraction of a quarter turn (negative
 * ones as one's complement), scaled to radians in f64 and rounded to f32.
 * Then on r (z = r^2): sin r = r + r z S(z), cos r = 1 + z C(z), taken and
 * negated by the quadrant (cos x is sin of quadrant + 1). Where libdevice
 * branches (the slow path, infinities, the quadrant's choice of polynomial
 * and sign) this is straight-line: the slow path is computed for every
 * lane (its loop over the 2/pi table unrolled, the window picked by
 * selects instead of local memory) and selected. */
#include "mathfn_priv.h"

#include <math.h>
#include <string.h>

/* ---- the constants ---- */

static const double L2E = 0x1.71547652b82fep+0, L2E_LO = 0x1.777d0ffda0d24p-56;
static const double LN2 = 0x1.62e42fefa39efp-1, LN2_LO = 0x1.abc9e3b39803fp-56;
static const double LN2_HI42 = 0x1.62e42fefa3800p-1, LN2_LO42 = 0x1.ef35793c76730p-45;
/* (e^r - 1 - r) / r^2 ~ sum EXP_POLY[i] r^i, |r| <= 0.3466 */
static const double EXP_POLY[11] = {
    0x1.0000000000000p-1,  0x1.5555555555557p-3,  0x1.555555555554ep-5,
    0x1.11111111100ecp-7,  0x1.6c16c16c1a07dp-10, 0x1.a01a01abe05fbp-13,
    0x1.a01a0190600aap-16, 0x1.71de0246e7afcp-19, 0x1.27e510dd0ccd0p-22,
    0x1.af4dc1b946f59p-26, 0x1.1f19f47b8e302p-29,
};
/* (2 atanh(s)/s - 2) / z ~ sum LOG_POLY[i] z^i, z = s^2 <= 0.02944 */
static const double LOG_POLY[8] = {
    0x1.5555555555555p-1, 0x1.9999999999a38p-2, 0x1.2492492476b5cp-2,
    0x1.c71c72017e710p-3, 0x1.745cf8f61bdd5p-3, 0x1.3b1c3838546bep-3,
    0x1.0fbe4dadbd262p-3, 0x1.0c0665b00771cp-3,
};
/* f32 log2: log2(e) = L2E_F + L2E_F_LO; (log2(1+f) - f log2(e) + f^2/2) / f^2 */
static const float L2E_F = 0x1.715476p+0f, L2E_F_LO = 0x1.4ae0c0p-26f;
static const float LOG2F_POLY[10] = {
    -0x1.c551dap-3f, 0x1.ec70a0p-2f, -0x1.7153a4p-2f, 0x1.277574p-2f, -0x1.ecdb04p-3f,
    0x1.a69b38p-3f,  -0x1.67ee20p-3f, 0x1.3e1af2p-3f, -0x1.7d30aep-3f, 0x1.61a724p-3f,
};
/* libdevice's logf */
#define LOGF_TWO_THIRDS 0x3F2AAAABu   /* 2/3 rounded up */
static const float LOGF_POLY[9] = {
    -0x1.0aa04ep-3f, 0x1.2073ecp-3f, -0x1.f19b98p-4f, 0x1.1e52aap-3f, -0x1.55b172p-3f,
    0x1.99da16p-3f, -0x1.fffe44p-3f, 0x1.5554f0p-2f, -0x1.0p-1f,
};
static const float LOGF_LN2 = 0x1.62e430p-1f;
/* libdevice's sinf and cosf */
static const float TRIG_TWO_OVER_PI_F = 0x1.45f306p-1f;
static const float TRIG_PIO2[3] = {-0x1.921fb4p+0f, -0x1.4442d0p-24f, -0x1.84698ap-48f};
static const float TRIG_FAST_LIMIT = 105615.0f;
/* 192 bits of 2/pi, the least significant word first */
static const uint32_t TRIG_TWO_OVER_PI[6] = {
    0x3C439041, 0xDB629599, 0xF534DDC0, 0xFC2757D1, 0x4E441529, 0xA2F9836E,
};
/* pi/2 * 2^-64: turns the 64-bit fixed-point remainder into radians */
static const double TRIG_QUARTER_TURN = 0x1.921fb54442d19p-64;
/* S and C with the highest coefficient first; C's top one is an fma of two */
static const float TRIG_SIN_POLY[3] = {-0x1.9a82a6p-13f, 0x1.110bc8p-7f, -0x1.555550p-3f};
static const float TRIG_COS_TOP[2] = {0x1.9758p-16f, -0x1.6c0fdap-10f};
static const float TRIG_COS_POLY[2] = {0x1.555576p-5f, -0x1.fffffep-2f};

/* ---- building: registers first (their PTX numbering), then steps ---- */

static int f64r(MathProg *p) { return mathfn_reg(p, MT_F64); }
static int f32r(MathProg *p) { return mathfn_reg(p, MT_F32); }
static int b32r(MathProg *p) { return mathfn_reg(p, MT_B32); }
static int b64r(MathProg *p) { return mathfn_reg(p, MT_B64); }
static int predr(MathProg *p) { return mathfn_reg(p, MT_PRED); }

/* d = op(a, b, c), with the flags fl */
static void put(MathProg *p, MOp op, int fl, int d, int a, int b, int c) { mathfn_put(p, d, op, a, b, c, 0, 0, fl); }
static void put2(MathProg *p, MOp op, int d, int a, int b) { put(p, op, 0, d, a, b, 0); }
static void setp(MathProg *p, MathCmp cmp, int fl, int d, int a, int b) {
    mathfn_put(p, d, MO_SETP, a, b, 0, 0, cmp, fl);
}
static void selp(MathProg *p, int d, int a, int b, int c) { put(p, MO_SELP, 0, d, a, b, c); }

/* immediates */
static int imm(MathProg *p, MType t, uint64_t bits, MathImm how) {
    int d = mathfn_reg(p, t);
    mathfn_put(p, d, MO_IMM, 0, 0, 0, bits, how, 0);
    return d;
}
static int kd(MathProg *p, double v) {
    uint64_t u;
    memcpy(&u, &v, 8);
    return imm(p, MT_F64, u, MIM_HEX);
}
static int kf(MathProg *p, float v) {
    uint32_t u;
    memcpy(&u, &v, 4);
    return imm(p, MT_F32, u, MIM_HEX);
}
static int kfbits(MathProg *p, uint32_t u) { return imm(p, MT_F32, u, MIM_HEX); }
static int kdec(MathProg *p, int32_t v) { return imm(p, MT_B32, (uint32_t)v, MIM_DEC); }
static int khex(MathProg *p, uint32_t v) { return imm(p, MT_B32, v, MIM_HEX); }
/* a b32 constant in a register (ptxgen's cached prologue one) */
static int kreg(MathProg *p, uint32_t v) {
    int d = b32r(p);
    mathfn_put(p, d, MO_CONST, 0, 0, 0, v, 0, 0);
    return d;
}

/* Fast2Sum: s + err = a + b exactly, when |a| >= |b| or a == 0 (f64 or f32) */
static void fast_two_sum(MathProg *p, int s, int err, int a, int b) {
    int u = mathfn_reg(p, (MType)p->rty[s]);
    put2(p, MO_ADD, s, a, b);
    put2(p, MO_SUB, u, s, a);
    put2(p, MO_SUB, err, b, u);
}

/* ---- fp64 exp, exp2 ---- */

/* min(max(x, lo), hi) that lets NaN through (min.f64 would drop it) */
static int clamp(MathProg *p, int x, double lo, double hi) {
    int P = predr(p), Q = predr(p), t = f64r(p), c = f64r(p);
    setp(p, MC_GT, 0, P, x, kd(p, hi));
    selp(p, t, kd(p, hi), x, P);
    setp(p, MC_LT, 0, Q, t, kd(p, lo));
    selp(p, c, kd(p, lo), t, Q);
    return c;
}

/* The f64 2^e, for a normal exponent e (b32) */
static int pow2(MathProg *p, int e) {
    int hi = b32r(p), d = f64r(p);
    put(p, MO_MAD, 0, hi, e, kdec(p, 1048576), kdec(p, 1072693248));   /* (e + 1023) << 20 */
    put2(p, MO_PACK, d, kreg(p, 0), hi);
    return d;
}

/* c[top] x^top + ... + c[0] by Horner's rule in f64 fmas, the highest
 * coefficient first */
static int horner(MathProg *p, int x, const double *c, int top) {
    int h = f64r(p);
    put(p, MO_FMA, 0, h, x, kd(p, c[top]), kd(p, c[top - 1]));
    for (int i = top - 2; i >= 0; i--) {
        int n = f64r(p);
        put(p, MO_FMA, 0, n, h, x, kd(p, c[i]));
        h = n;
    }
    return h;
}

/* 2^k e^(rh + rl): the second half of exp and exp2 */
static int exp_finish(MathProg *p, int k, int rh, int rl) {
    const double *c = EXP_POLY;
    int r = f64r(p), dr = f64r(p), lin = f64r(p), r2 = f64r(p), q = f64r(p);
    fast_two_sum(p, r, dr, rh, rl);                     /* r + dr = rh + rl */
    put(p, MO_FMA, 0, lin, dr, r, dr);                  /* e^(r + dr) ~ e^r + dr (1 + r) */
    put2(p, MO_MUL, r2, r, r);
    int P = horner(p, r, c, 10);
    put(p, MO_FMA, 0, q, r2, P, lin);
    /* 1 + r + q with one rounding: h + l = r + q, then 1 + h = t + tl exactly */
    int h = f64r(p), l = f64r(p), t = f64r(p), u = f64r(p), tl = f64r(p), lo = f64r(p), z = f64r(p), y = f64r(p);
    fast_two_sum(p, h, l, r, q);                        /* |q| < |r| or r == q == 0 */
    put2(p, MO_ADD, t, h, kd(p, 1.0));
    put2(p, MO_SUB, u, t, kd(p, 1.0));
    put2(p, MO_SUB, tl, h, u);
    put2(p, MO_ADD, lo, tl, l);
    put2(p, MO_ADD, z, t, lo);                          /* e^r, rounded once */
    /* k = k1 + k2, both within the normal exponents for |k| <= 1080 */
    int k1 = b32r(p), k2 = b32r(p);
    put2(p, MO_SHRS, k1, k, kdec(p, 1));
    put2(p, MO_ISUB, k2, k, k1);
    int s1 = pow2(p, k1), s2 = pow2(p, k2);
    put2(p, MO_MUL, y, z, s1);                          /* exact */
    int d = f64r(p);
    put2(p, MO_MUL, d, y, s2);
    return d;
}

/* exp(x). Beyond the clamp the result is already inf (> 709.79) or 0
 * (< -745.14); NaN passes the clamp and the arithmetic. */
static int exp64(MathProg *p, int a) {
    int x = clamp(p, a, -746.0, 710.0);
    int t = f64r(p), kdr = f64r(p), k = b32r(p), rh = f64r(p), rl = f64r(p);
    put2(p, MO_MUL, t, x, kd(p, L2E));
    put2(p, MO_RNI, kdr, t, 0);
    put2(p, MO_CVT, k, t, 0);                           /* NaN -> 0 */
    put(p, MO_FMA, 0, rh, kdr, kd(p, -LN2), x);         /* exact */
    put2(p, MO_MUL, rl, kdr, kd(p, -LN2_LO));
    return exp_finish(p, k, rh, rl);
}

/* exp2(x): inf from 1024 on, 0 below -1075 */
static int exp2_64(MathProg *p, int a) {
    int x = clamp(p, a, -1080.0, 1025.0);
    int kdr = f64r(p), k = b32r(p), r = f64r(p), rh = f64r(p), nrh = f64r(p), err = f64r(p), rl = f64r(p);
    put2(p, MO_RNI, kdr, x, 0);
    put2(p, MO_CVT, k, x, 0);
    put2(p, MO_SUB, r, x, kdr);                         /* exact */
    put2(p, MO_MUL, rh, r, kd(p, LN2));
    put2(p, MO_NEG, nrh, rh, 0);
    put(p, MO_FMA, 0, err, r, kd(p, LN2), nrh);         /* r ln2 - rh, exact */
    put(p, MO_FMA, 0, rl, r, kd(p, LN2_LO), err);
    return exp_finish(p, k, rh, rl);
}

/* ---- fp64 log, log2 ---- */

typedef struct LogParts {
    int k;      /* b32: x = 2^k m */
    int hi;     /* log m = hi + lo, rounded about once, where lo is */
    int lo;     /* small against hi (|lo| < 2^-5 |hi|) */
} LogParts;

/* The first half of log and log2. Meaningless for x <= 0, inf and NaN,
 * which log_special replaces. */
static LogParts log_parts(MathProg *p, int x) {
    const double *c = LOG_POLY;
    LogParts o;
    o.k = b32r(p);
    o.hi = f64r(p);
    o.lo = f64r(p);
    int sub = predr(p), xm = f64r(p), xs = f64r(p), adj = b32r(p);
    setp(p, MC_LT, 0, sub, x, kd(p, 0x1p-1022));
    put2(p, MO_MUL, xm, x, kd(p, 0x1p54));
    selp(p, xs, xm, x, sub);
    put(p, MO_SELP, MI_S, adj, kdec(p, -54), kdec(p, 0), sub);
    /* subtracting sqrt(1/2)'s high word moves the exponent step to m = sqrt(1/2) */
    int lo = b32r(p), hi = b32r(p), t = b32r(p), k0 = b32r(p), step = b32r(p), mhi = b32r(p), mm = f64r(p);
    put(p, MO_SPLIT, 0, lo, xs, 0, hi);
    put2(p, MO_ISUB, t, hi, kdec(p, 1072079006));       /* 0x3FE6A09E */
    put2(p, MO_SHRS, k0, t, kdec(p, 20));
    put2(p, MO_IADD, o.k, k0, adj);
    put2(p, MO_AND, step, t, khex(p, 0xFFF00000u));
    put2(p, MO_ISUB, mhi, hi, step);
    put2(p, MO_PACK, mm, lo, mhi);
    int f = f64r(p), den = f64r(p), s = f64r(p), z = f64r(p);
    put2(p, MO_ADD, f, mm, kd(p, -1.0));
    put2(p, MO_ADD, den, f, kd(p, 2.0));
    put2(p, MO_DIV, s, f, den);
    put2(p, MO_MUL, z, s, s);
    int h = horner(p, z, c, 7);
    int r = f64r(p), hf = f64r(p), hfsq = f64r(p), sum = f64r(p), corr = f64r(p);
    put2(p, MO_MUL, r, z, h);
    put2(p, MO_MUL, hf, f, kd(p, 0.5));
    put2(p, MO_MUL, hfsq, hf, f);
    put2(p, MO_ADD, sum, hfsq, r);
    put2(p, MO_MUL, corr, s, sum);                      /* s (f^2/2 + R) */
    /* f - f^2/2 exactly as hi + l: the product's error by fma, then Fast2Sum */
    int nhf = f64r(p), sq = f64r(p), nsq = f64r(p), sql = f64r(p), l = f64r(p), small = f64r(p);
    put2(p, MO_MUL, nhf, f, kd(p, -0.5));
    put2(p, MO_MUL, sq, nhf, f);
    put2(p, MO_NEG, nsq, sq, 0);
    put(p, MO_FMA, 0, sql, nhf, f, nsq);
    fast_two_sum(p, o.hi, l, f, sq);                    /* |f^2/2| < |f| or f == 0 */
    put2(p, MO_ADD, small, sql, corr);
    put2(p, MO_ADD, o.lo, l, small);
    return o;
}

/* y, except log(+inf) = +inf, log(+-0) = -inf, log(x < 0 or NaN) = NaN */
static int log_special(MathProg *p, int x, int y) {
    int pinf = predr(p), pzero = predr(p), pbad = predr(p), y1 = f64r(p), y2 = f64r(p);
    setp(p, MC_EQ, 0, pinf, x, kd(p, INFINITY));
    selp(p, y1, kd(p, INFINITY), y, pinf);
    setp(p, MC_EQ, 0, pzero, x, kd(p, 0.0));
    selp(p, y2, kd(p, -INFINITY), y1, pzero);
    setp(p, MC_LTU, 0, pbad, x, kd(p, 0.0));
    int d = f64r(p);
    selp(p, d, imm(p, MT_F64, UINT64_C(0x7FFFFFFFFFFFFFFF), MIM_HEX), y2, pbad);
    return d;
}

/* log(x) = k ln2 + hi + lo: k ln2_hi42 is exact and at least ln2 > |hi|
 * when k != 0, so their sum is exact as s + err; the small terms go
 * together, and one rounding ends it. */
static int log64(MathProg *p, int a) {
    LogParts l = log_parts(p, a);
    int kdr = f64r(p), kh = f64r(p), s = f64r(p), err = f64r(p), t0 = f64r(p), t = f64r(p), y = f64r(p);
    put2(p, MO_CVT, kdr, l.k, 0);
    put2(p, MO_MUL, kh, kdr, kd(p, LN2_HI42));
    fast_two_sum(p, s, err, kh, l.hi);
    put(p, MO_FMA, 0, t0, kdr, kd(p, LN2_LO42), err);
    put2(p, MO_ADD, t, t0, l.lo);
    put2(p, MO_ADD, y, s, t);
    return log_special(p, a, y);
}

/* log2(x) = k + (hi + lo) log2 e, the product as ph + pl (its rounding
 * error from an fma), then k + ph exactly as s + err. */
static int log2_64(MathProg *p, int a) {
    LogParts l = log_parts(p, a);
    int kdr = f64r(p), ph = f64r(p), nph = f64r(p), pl0 = f64r(p), pl1 = f64r(p), pl = f64r(p);
    int s = f64r(p), err = f64r(p), t = f64r(p), y = f64r(p);
    put2(p, MO_CVT, kdr, l.k, 0);
    put2(p, MO_MUL, ph, l.hi, kd(p, L2E));
    put2(p, MO_NEG, nph, ph, 0);
    put(p, MO_FMA, 0, pl0, l.hi, kd(p, L2E), nph);      /* exact */
    put(p, MO_FMA, 0, pl1, l.hi, kd(p, L2E_LO), pl0);
    put(p, MO_FMA, 0, pl, l.lo, kd(p, L2E), pl1);
    fast_two_sum(p, s, err, kdr, ph);                   /* |ph| < 1 <= |k| or k == 0 */
    put2(p, MO_ADD, t, err, pl);
    put2(p, MO_ADD, y, s, t);
    return log_special(p, a, y);
}

/* ---- fp32 log, log2 ---- */

typedef struct LogfParts {
    int k;      /* f32: x = 2^k m */
    int f;      /* m - 1, exact */
    int f2;     /* f^2, rounded */
    int hf;     /* -f/2, exact */
    int p;      /* the polynomial at f */
} LogfParts;

/* The first half of log2. Meaningless for x <= 0, inf and NaN, which
 * logf_special replaces. */
static LogfParts logf_parts(MathProg *p, int x, const float *c) {
    LogfParts o;
    o.k = f32r(p);
    o.f = f32r(p);
    o.f2 = f32r(p);
    o.hf = f32r(p);
    int sub = predr(p), xm = f32r(p), xs = f32r(p), base = b32r(p);
    setp(p, MC_LT, 0, sub, x, kf(p, 0x1p-126f));
    put2(p, MO_MUL, xm, x, kf(p, 0x1p23f));
    selp(p, xs, xm, x, sub);
    /* subtracting 2/3's bits moves the exponent step to m = 2/3; a scaled
     * subnormal also takes its 23 back from the exponent field */
    selp(p, base, khex(p, LOGF_TWO_THIRDS + (23u << 23)), khex(p, LOGF_TWO_THIRDS), sub);
    int bits = b32r(p), t = b32r(p), k = b32r(p), low = b32r(p), mbits = b32r(p), m = f32r(p);
    put2(p, MO_MOVB, bits, xs, 0);
    put2(p, MO_ISUB, t, bits, base);
    put2(p, MO_SHRS, k, t, kdec(p, 23));
    put2(p, MO_AND, low, t, imm(p, MT_B32, 0x007FFFFFu, MIM_HEX8));
    put2(p, MO_IADD, mbits, low, khex(p, LOGF_TWO_THIRDS));
    put2(p, MO_MOVB, m, mbits, 0);
    put2(p, MO_CVT, o.k, k, 0);
    put2(p, MO_ADD, o.f, m, kf(p, -1.0f));
    put2(p, MO_MUL, o.f2, o.f, o.f);
    put2(p, MO_MUL, o.hf, o.f, kf(p, -0.5f));
    int P = f32r(p);
    put(p, MO_FMA, 0, P, o.f, kf(p, c[9]), kf(p, c[8]));
    for (int i = 7; i >= 0; i--) {
        int n = f32r(p);
        put(p, MO_FMA, 0, n, P, o.f, kf(p, c[i]));
        P = n;
    }
    o.p = P;
    return o;
}

/* y, except log(+inf) = +inf, log(+-0) = -inf, log(x < 0 or NaN) = NaN */
static int logf_special(MathProg *p, int x, int y) {
    int pfinite = predr(p), pzero = predr(p), pnonpos = predr(p), y1 = f32r(p), z = f32r(p);
    setp(p, MC_LT, 0, pfinite, x, kf(p, INFINITY));     /* false for +inf and NaN */
    selp(p, y1, y, x, pfinite);
    setp(p, MC_EQ, 0, pzero, x, kf(p, 0.0f));
    selp(p, z, kf(p, -INFINITY), kfbits(p, 0x7FFFFFFFu), pzero);
    setp(p, MC_LE, 0, pnonpos, x, kf(p, 0.0f));
    int d = f32r(p);
    selp(p, d, z, y1, pnonpos);
    return d;
}

/* log2(x) = k + f log2(e) + (f^2 p(f) - f^2/2) with p fitted to log2: the
 * product as ph + pl, k + ph exactly as hi + err (|ph| < 1 <= |k| or k == 0) */
static int log2_32(MathProg *p, int a) {
    LogfParts l = logf_parts(p, a, LOG2F_POLY);
    int ph = f32r(p), npl = f32r(p), hi = f32r(p), err = f32r(p), t = f32r(p), lo = f32r(p), y = f32r(p);
    put2(p, MO_MUL, ph, l.f, kf(p, L2E_F));
    put(p, MO_FMA, 0, npl, l.f, kf(p, -L2E_F), ph);     /* ph - f l2e_f, exact */
    fast_two_sum(p, hi, err, l.k, ph);
    put2(p, MO_SUB, t, err, npl);
    put(p, MO_FMA, 0, lo, l.f, kf(p, L2E_F_LO), t);
    /* the small terms (f^2 p(f) - f^2/2 + lo) with one rounding each */
    int st = f32r(p), small = f32r(p);
    put(p, MO_FMA, 0, st, l.f2, l.p, lo);
    put(p, MO_FMA, 0, small, l.hf, l.f, st);            /* the product is exact */
    put2(p, MO_ADD, y, hi, small);
    return logf_special(p, a, y);
}

/* log(x) as libdevice's logf: e ln2 + f + f^2 P(f), the special cases by
 * selects where logf branches */
static int log32(MathProg *p, int a) {
    int sub = predr(p), xm = f32r(p), xs = f32r(p), e0 = f32r(p);
    setp(p, MC_LT, 0, sub, a, kf(p, 0x1p-126f));
    put2(p, MO_MUL, xm, a, kf(p, 0x1p23f));
    selp(p, xs, xm, a, sub);
    selp(p, e0, kf(p, -23.0f), kf(p, 0.0f), sub);
    int u = b32r(p), t = b32r(p), k = b32r(p), mb = b32r(p), kfl = f32r(p), e = f32r(p), m = f32r(p), f = f32r(p);
    put2(p, MO_MOVB, u, xs, 0);
    put2(p, MO_ISUB, t, u, khex(p, LOGF_TWO_THIRDS));
    put2(p, MO_AND, k, t, khex(p, 0xFF800000u));
    put2(p, MO_ISUB, mb, u, k);
    put2(p, MO_CVT, kfl, k, 0);
    put(p, MO_FMA, MI_FTZ, e, kfl, kf(p, 0x1p-23f), e0);
    put2(p, MO_MOVB, m, mb, 0);
    put2(p, MO_ADD, f, m, kf(p, -1.0f));
    int P = f32r(p);
    put(p, MO_FMA, MI_FTZ, P, kf(p, LOGF_POLY[0]), f, kf(p, LOGF_POLY[1]));
    for (int i = 2; i < 9; i++) {
        int n = f32r(p);
        put(p, MO_FMA, MI_FTZ, n, P, f, kf(p, LOGF_POLY[i]));
        P = n;
    }
    int q = f32r(p), r = f32r(p), y = f32r(p), ys = f32r(p), y2 = f32r(p), fin = predr(p), zero = predr(p);
    put2(p, MO_MUL, q, f, P);
    put(p, MO_FMA, MI_FTZ, r, q, f, f);
    put(p, MO_FMA, MI_FTZ, y, e, kf(p, LOGF_LN2), r);
    /* +inf, NaN and everything negative (-0 included): x inf + inf */
    setp(p, MC_LT, MI_U, fin, u, khex(p, 0x7F800000u));
    put(p, MO_FMA, MI_FTZ, ys, xs, kf(p, INFINITY), kf(p, INFINITY));
    selp(p, y2, y, ys, fin);
    setp(p, MC_EQ, 0, zero, xs, kf(p, 0.0f));
    int d = f32r(p);
    selp(p, d, kf(p, -INFINITY), y2, zero);
    return d;
}

/* ---- fp32 sin, cos ---- */

/* d = c ? a : b for b32 registers */
static int sel32(MathProg *p, int a, int b, int c) {
    int d = b32r(p);
    selp(p, d, a, b, c);
    return d;
}

/* The top 32 bits of hi:lo shifted left by s (0..31) */
static int shl_hi(MathProg *p, int hi, int lo, int s) {
    int w = b64r(p), t = b64r(p), h = b64r(p), d = b32r(p);
    put2(p, MO_PACK, w, lo, hi);
    put2(p, MO_SHL, t, w, s);
    put2(p, MO_SHRU, h, t, kdec(p, 32));
    put2(p, MO_CVT, d, h, 0);
    return d;
}

/* Payne-Hanek (meaningful for finite |x| >= TRIG_FAST_LIMIT): the
 * quadrant q and the remainder r in radians, from x's bits u */
static void reduce_slow(MathProg *p, int u, int q, int r) {
    int m = b32r(p), w[7], carry = 0;
    put2(p, MO_SHL, m, u, kdec(p, 8));
    put2(p, MO_OR, m, m, khex(p, 0x80000000u));
    for (int k = 0; k < 6; k++) {   /* w = m * 2/pi, 32 bits at a time */
        int pr = b64r(p);
        if (k == 0) put2(p, MO_MULWIDE, pr, m, khex(p, TRIG_TWO_OVER_PI[k]));
        else put(p, MO_MADWIDE, 0, pr, m, khex(p, TRIG_TWO_OVER_PI[k]), carry);
        w[k] = b32r(p);
        put2(p, MO_CVT, w[k], pr, 0);
        carry = b64r(p);
        put2(p, MO_SHRU, carry, pr, kdec(p, 32));
    }
    w[6] = b32r(p);
    put2(p, MO_CVT, w[6], carry, 0);
    /* the window: words 6-j, 5-j, 4-j for j = (exponent >> 5) - 4 in 0..3 */
    int e = b32r(p), j = b32r(p), s = b32r(p), is[4];
    put2(p, MO_SHRU, e, u, kdec(p, 23));
    put(p, MO_BFE, 0, j, e, kdec(p, 5), kdec(p, 2));
    put2(p, MO_AND, s, e, kdec(p, 31));
    for (int i = 1; i < 4; i++) {
        is[i] = predr(p);
        setp(p, MC_EQ, MI_U, is[i], j, kdec(p, i));
    }
    int win[3];
    for (int k = 0; k < 3; k++) {
        int v = w[6 - k];
        for (int i = 1; i < 4; i++) v = sel32(p, w[6 - k - i], v, is[i]);
        win[k] = v;
    }
    int hi = shl_hi(p, win[0], win[1], s), mid = shl_hi(p, win[1], win[2], s);
    int two = kreg(p, 2);
    int t = shl_hi(p, hi, mid, two), lo = b32r(p), q0 = b32r(p), up = b32r(p), qa = b32r(p), nq = b32r(p);
    int neg = predr(p);
    put2(p, MO_SHL, lo, mid, kdec(p, 2));
    put2(p, MO_SHRU, q0, hi, kdec(p, 30));
    put2(p, MO_SHRU, up, t, kdec(p, 31));
    put2(p, MO_IADD, qa, up, q0);
    put2(p, MO_NEG, nq, qa, 0);
    setp(p, MC_LT, 0, neg, u, kdec(p, 0));
    selp(p, q, nq, qa, neg);
    /* the fraction as a signed 64-bit number (one's complement when negative) */
    int sg = b32r(p), ah = b32r(p), al = b32r(p), v = b64r(p), dv = f64r(p), dm = f64r(p), rf = f32r(p);
    int nrf = f32r(p), xs = b32r(p), flip = predr(p);
    put2(p, MO_SHRS, sg, t, kdec(p, 31));
    put2(p, MO_XOR, ah, sg, t);
    put2(p, MO_XOR, al, sg, lo);
    put2(p, MO_PACK, v, al, ah);
    put2(p, MO_CVT, dv, v, 0);
    put2(p, MO_MUL, dm, dv, kd(p, TRIG_QUARTER_TURN));
    put2(p, MO_CVT, rf, dm, 0);
    put2(p, MO_NEG, nrf, rf, 0);
    put2(p, MO_XOR, xs, t, u);
    setp(p, MC_LT, 0, flip, xs, kdec(p, 0));
    selp(p, r, nrf, rf, flip);
}

static int trig32(MathProg *p, bool is_cos, int a) {
    /* fast path: i = rint(x 2/pi), r = x - i pi/2 */
    int xq = f32r(p), i = b32r(p), fi = f32r(p), r1 = f32r(p), r2 = f32r(p), r3 = f32r(p);
    put2(p, MO_MUL, xq, a, kf(p, TRIG_TWO_OVER_PI_F));
    put(p, MO_CVT, MI_FTZ, i, xq, 0, 0);
    put2(p, MO_CVT, fi, i, 0);
    put(p, MO_FMA, MI_FTZ, r1, fi, kf(p, TRIG_PIO2[0]), a);
    put(p, MO_FMA, MI_FTZ, r2, fi, kf(p, TRIG_PIO2[1]), r1);
    put(p, MO_FMA, MI_FTZ, r3, fi, kf(p, TRIG_PIO2[2]), r2);
    /* slow path, and inf (NaN stays on the fast path) */
    int u = b32r(p), qs = b32r(p), rs = f32r(p), ax = f32r(p), big = predr(p), inf = predr(p);
    put2(p, MO_MOVB, u, a, 0);
    reduce_slow(p, u, qs, rs);
    put2(p, MO_ABS, ax, a, 0);
    setp(p, MC_GE, 0, big, ax, kf(p, TRIG_FAST_LIMIT));
    setp(p, MC_EQ, 0, inf, ax, kf(p, INFINITY));
    int qb = b32r(p), rb = f32r(p), q = b32r(p), r = f32r(p);
    selp(p, qb, kdec(p, 0), qs, inf);
    selp(p, rb, kfbits(p, 0x7FFFFFFFu), rs, inf);
    selp(p, q, qb, i, big);
    selp(p, r, rb, r3, big);
    /* n = q (+1 for cos): odd takes the cos polynomial, bit 1 negates */
    int n = q, odd = b32r(p), bit1 = b32r(p), po = predr(p), pn = predr(p);
    if (is_cos) {
        n = b32r(p);
        put2(p, MO_IADD, n, q, kdec(p, 1));
    }
    put2(p, MO_AND, odd, n, kdec(p, 1));
    put2(p, MO_AND, bit1, n, kdec(p, 2));
    setp(p, MC_NE, MI_B, po, odd, kdec(p, 0));
    setp(p, MC_NE, MI_B, pn, bit1, kdec(p, 0));
    int z2 = f32r(p), P = f32r(p), z = f32r(p), ct = f32r(p), c0 = f32r(p), c1 = f32r(p), c2 = f32r(p);
    put(p, MO_MUL, MI_FTZ, z2, r, r, 0);
    selp(p, P, kf(p, 1.0f), r, po);
    put(p, MO_FMA, MI_FTZ, z, z2, P, kf(p, 0.0f));
    put(p, MO_FMA, MI_FTZ, ct, kf(p, TRIG_COS_TOP[0]), z2, kf(p, TRIG_COS_TOP[1]));
    selp(p, c0, ct, kf(p, TRIG_SIN_POLY[0]), po);
    selp(p, c1, kf(p, TRIG_COS_POLY[0]), kf(p, TRIG_SIN_POLY[1]), po);
    selp(p, c2, kf(p, TRIG_COS_POLY[1]), kf(p, TRIG_SIN_POLY[2]), po);
    int t1 = f32r(p), t2 = f32r(p), y = f32r(p), ny = f32r(p);
    put(p, MO_FMA, MI_FTZ, t1, c0, z2, c1);
    put(p, MO_FMA, MI_FTZ, t2, t1, z2, c2);
    put(p, MO_FMA, MI_FTZ, y, t2, z, P);
    /* an fma, not neg: -(+0) is +0 here, as in libdevice */
    put(p, MO_FMA, MI_FTZ, ny, y, kf(p, -1.0f), kf(p, 0.0f));
    int d = f32r(p);
    selp(p, d, ny, y, pn);
    return d;
}

bool mathfn_build_op(MathProg *p, Opcode op, ElemType e) {
    p->n_ins = p->n_regs = 0;
    p->n_in = 1;
    int x = mathfn_reg(p, e == ET_F64 ? MT_F64 : MT_F32);
    if (e == ET_F64) {
        switch (op) {
        case OP_EXP: p->out = exp64(p, x); return true;
        case OP_EXP2: p->out = exp2_64(p, x); return true;
        case OP_LOG: p->out = log64(p, x); return true;
        case OP_LOG2: p->out = log2_64(p, x); return true;
        default: return false;
        }
    }
    if (e != ET_F32) return false;
    switch (op) {
    case OP_LOG: p->out = log32(p, x); return true;
    case OP_LOG2: p->out = log2_32(p, x); return true;
    case OP_SIN: p->out = trig32(p, false, x); return true;
    case OP_COS: p->out = trig32(p, true, x); return true;
    default: return false;
    }
}
