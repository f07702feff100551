/* fp64 exp, exp2, log and log2 and fp32 log and log2, which Triton takes
 * from libdevice and PTX lacks (its ex2/lg2 are f32 approximations, lg2's
 * error absolute: ~1e-3 relative near x = 1). Each is straight-line code:
 * no branches, no tables, every rounding an explicit .rn (so ptxas contracts
 * nothing), special inputs handled by clamps and selects.
 *
 * exp(x):  x = k ln2 + r, |r| <= ln2/2, k = rint(x log2 e). ln2 is split in
 *          two (ln2 + ln2_lo): fma(k, -ln2, x) is exact, so the reduced
 *          argument is the pair r + dr. e^r - 1 = r + q, q = r^2 p(r)
 *          + dr (1 + r), p a degree-10 minimax fit of (e^r - 1 - r)/r^2;
 *          1 + r + q is summed exactly (Fast2Sum twice) and rounded once,
 *          then scaled by 2^k1 * 2^k2 (k1 + k2 = k, each a normal power), so
 *          2^1024 overflows to inf and subnormal results round only there.
 * exp2(x): k = rint(x), r = x - k (exact); r ln2 as the exact pair rh + rl
 *          (fma gives the product's rounding error); then as exp.
 * log(x):  x = 2^k m, m in [sqrt(1/2), sqrt 2) (subnormals scaled by 2^54
 *          first), f = m - 1 (exact), s = f / (2 + f); log m = 2 atanh s
 *          = f - f^2/2 + s (f^2/2 + R), R = z h(z), z = s^2, h a degree-7
 *          minimax fit. f - f^2/2 is kept exact as hi + lo, k ln2 + hi is
 *          summed exactly, and one rounding ends it.
 * log2(x): (hi + lo) log2 e with the product's error from an fma, plus k.
 *
 * Errors (max over 8 million inputs per range, in ulps): exp 0.60, exp2
 * 0.60, log 0.66, log2 0.77; exp and exp2 results below 2^-1022 round
 * twice: 0.76.
 * test/unit/test_f64_math.c holds the same algorithm in C, operation for
 * operation, measures it against long double, and executes the PTX text
 * written here to check it agrees bit for bit. The polynomial coefficients
 * are minimax (Remez exchange in mpmath, relative error) rounded to
 * double: exp's fit is within 2^-57 on |r| <= 0.3466, log's within 2^-54
 * (the rounding of 2/3) on z <= 0.02944.
 *
 * fp32 log is libdevice's logf, operation for operation (Triton's tl.log,
 * so tric's results are Triton's bit for bit; constants and method in
 * base/trig.h, the C mirror in interp/trig.c): within 1 ulp (measured in
 * test/unit/test_f32_math.c).
 * fp32 log2 (Triton's is not known here, so it stays tric's own) uses f32
 * arithmetic only (fp64 is slow on most GPUs):
 *   x = 2^k m, m in [2/3, 4/3) (subnormals scaled by 2^23 first), found by
 *   subtracting 2/3's bits; f = m - 1 (exact), |f| <= 1/3.
 *   log2(1+f) = f log2(e) - f^2/2 + f^2 p(f), p a degree-9 minimax fit;
 *   -f^2/2 comes from an fma of the exact -f/2 and f, so only the small
 *   f^2 p(f) carries rounding errors of size.
 *   f log2(e) is split exactly (the product's error from an fma),
 *   k + f log2(e) is summed exactly, its error and the small terms go
 *   together, one rounding ends it.
 * Errors over all 2^32 inputs (test/unit/test_f32_math.c, F32MATH_ALL=1):
 * log2 0.78 ulp; special inputs exact, log2(2^k) = k. The fit is minimax in
 * mpmath weighted to the error relative to log2(1+f), rounded to f32:
 * within 2^-28 on f in [-1/3, 1/3].
 */
#include "ptx.h"
#include "../base/trig.h"

const PtxMathConsts ptx_math_consts = {
    .l2e = 0x1.71547652b82fep+0,
    .l2e_lo = 0x1.777d0ffda0d24p-56,
    .ln2 = 0x1.62e42fefa39efp-1,
    .ln2_lo = 0x1.abc9e3b39803fp-56,
    .ln2_hi42 = 0x1.62e42fefa3800p-1,
    .ln2_lo42 = 0x1.ef35793c76730p-45,
    .exp_poly = {
        0x1.0000000000000p-1,  0x1.5555555555557p-3,  0x1.555555555554ep-5,
        0x1.11111111100ecp-7,  0x1.6c16c16c1a07dp-10, 0x1.a01a01abe05fbp-13,
        0x1.a01a0190600aap-16, 0x1.71de0246e7afcp-19, 0x1.27e510dd0ccd0p-22,
        0x1.af4dc1b946f59p-26, 0x1.1f19f47b8e302p-29,
    },
    .log_poly = {
        0x1.5555555555555p-1, 0x1.9999999999a38p-2, 0x1.2492492476b5cp-2,
        0x1.c71c72017e710p-3, 0x1.745cf8f61bdd5p-3, 0x1.3b1c3838546bep-3,
        0x1.0fbe4dadbd262p-3, 0x1.0c0665b00771cp-3,
    },
    .l2e_f = 0x1.715476p+0f,
    .l2e_f_lo = 0x1.4ae0c0p-26f,
    .log2f_poly = {
        -0x1.c551dap-3f, 0x1.ec70a0p-2f, -0x1.7153a4p-2f, 0x1.277574p-2f, -0x1.ecdb04p-3f,
        0x1.a69b38p-3f,  -0x1.67ee20p-3f, 0x1.3e1af2p-3f, -0x1.7d30aep-3f, 0x1.61a724p-3f,
    },
};

#define INF_BITS "0d7FF0000000000000"

static Reg f64(Ptx *P) { return ptx_reg(P, RC_F64); }
static Reg f32(Ptx *P) { return ptx_reg(P, RC_F32); }
static Reg b32(Ptx *P) { return ptx_reg(P, RC_B32); }
static Reg pred(Ptx *P) { return ptx_reg(P, RC_PRED); }

/* min(max(x, lo), hi) that lets NaN through (min.f64 would drop it) */
static Reg clamp(Ptx *P, Reg x, double lo, double hi) {
    Reg p = pred(P), q = pred(P), t = f64(P), c = f64(P);
    ptx_ins(P, "setp.gt.f64 %R, %R, %D;", p, x, hi);
    ptx_ins(P, "selp.f64 %R, %D, %R, %R;", t, hi, x, p);
    ptx_ins(P, "setp.lt.f64 %R, %R, %D;", q, t, lo);
    ptx_ins(P, "selp.f64 %R, %D, %R, %R;", c, lo, t, q);
    return c;
}

/* The f64 2^e, for a normal exponent e (a b32 register). */
static Reg pow2(Ptx *P, Reg e) {
    Reg hi = b32(P), d = f64(P);
    ptx_ins(P, "mad.lo.s32 %R, %R, 1048576, 1072693248;", hi, e);   /* (e + 1023) << 20 */
    ptx_ins(P, "mov.b64 %R, {%R, %R};", d, ptx_const_reg(P, RC_B32, 0), hi);
    return d;
}

/* Fast2Sum: s + err = a + b exactly, when |a| >= |b| or a == 0 (f64 or f32). */
static void fast_two_sum(Ptx *P, Reg s, Reg err, Reg a, Reg b) {
    const char *ty = REG_CLASS(s) == RC_F32 ? "f32" : "f64";
    Reg u = ptx_reg(P, REG_CLASS(s));
    ptx_ins(P, "add.rn.%s %R, %R, %R;", ty, s, a, b);
    ptx_ins(P, "sub.rn.%s %R, %R, %R;", ty, u, s, a);
    ptx_ins(P, "sub.rn.%s %R, %R, %R;", ty, err, b, u);
}

/* d = 2^k e^(rh + rl): the shared second half of exp and exp2 (see the top). */
static void exp_finish(Ptx *P, Reg d, Reg k, Reg rh, Reg rl) {
    const double *c = ptx_math_consts.exp_poly;
    Reg r = f64(P), dr = f64(P), lin = f64(P), r2 = f64(P), q = f64(P);
    fast_two_sum(P, r, dr, rh, rl);                                  /* r + dr = rh + rl */
    ptx_ins(P, "fma.rn.f64 %R, %R, %R, %R;", lin, dr, r, dr);       /* e^(r + dr) ~ e^r + dr (1 + r) */
    ptx_ins(P, "mul.rn.f64 %R, %R, %R;", r2, r, r);
    Reg p = f64(P);
    ptx_ins(P, "fma.rn.f64 %R, %R, %D, %D;", p, r, c[10], c[9]);
    for (int i = 8; i >= 0; i--) {
        Reg n = f64(P);
        ptx_ins(P, "fma.rn.f64 %R, %R, %R, %D;", n, p, r, c[i]);
        p = n;
    }
    ptx_ins(P, "fma.rn.f64 %R, %R, %R, %R;", q, r2, p, lin);
    /* 1 + r + q with one rounding: h + l = r + q, then 1 + h = t + tl exactly */
    Reg h = f64(P), l = f64(P), t = f64(P), u = f64(P), tl = f64(P), lo = f64(P), z = f64(P), y = f64(P);
    fast_two_sum(P, h, l, r, q);                                     /* |q| < |r| or r == q == 0 */
    ptx_ins(P, "add.rn.f64 %R, %R, 0d3FF0000000000000;", t, h);
    ptx_ins(P, "sub.rn.f64 %R, %R, 0d3FF0000000000000;", u, t);
    ptx_ins(P, "sub.rn.f64 %R, %R, %R;", tl, h, u);
    ptx_ins(P, "add.rn.f64 %R, %R, %R;", lo, tl, l);
    ptx_ins(P, "add.rn.f64 %R, %R, %R;", z, t, lo);                  /* e^r, rounded once */
    /* k = k1 + k2, both within the normal exponents for |k| <= 1080 */
    Reg k1 = b32(P), k2 = b32(P);
    ptx_ins(P, "shr.s32 %R, %R, 1;", k1, k);
    ptx_ins(P, "sub.s32 %R, %R, %R;", k2, k, k1);
    Reg s1 = pow2(P, k1), s2 = pow2(P, k2);
    ptx_ins(P, "mul.rn.f64 %R, %R, %R;", y, z, s1);                  /* exact */
    ptx_ins(P, "mul.rn.f64 %R, %R, %R;", d, y, s2);
}

/* exp(x). Beyond the clamp the result is already inf (> 709.79) or 0
 * (< -745.14); NaN passes the clamp and the arithmetic. */
void ptx_math_exp(Ptx *P, Reg d, Reg a) {
    const PtxMathConsts *m = &ptx_math_consts;
    Reg x = clamp(P, a, -746.0, 710.0);
    Reg t = f64(P), kd = f64(P), k = b32(P), rh = f64(P), rl = f64(P);
    ptx_ins(P, "mul.rn.f64 %R, %R, %D;", t, x, m->l2e);
    ptx_ins(P, "cvt.rni.f64.f64 %R, %R;", kd, t);
    ptx_ins(P, "cvt.rni.s32.f64 %R, %R;", k, t);                    /* NaN -> 0 */
    ptx_ins(P, "fma.rn.f64 %R, %R, %D, %R;", rh, kd, -m->ln2, x);   /* exact */
    ptx_ins(P, "mul.rn.f64 %R, %R, %D;", rl, kd, -m->ln2_lo);
    exp_finish(P, d, k, rh, rl);
}

/* exp2(x): inf from 1024 on, 0 below -1075. */
void ptx_math_exp2(Ptx *P, Reg d, Reg a) {
    const PtxMathConsts *m = &ptx_math_consts;
    Reg x = clamp(P, a, -1080.0, 1025.0);
    Reg kd = f64(P), k = b32(P), r = f64(P), rh = f64(P), nrh = f64(P), err = f64(P), rl = f64(P);
    ptx_ins(P, "cvt.rni.f64.f64 %R, %R;", kd, x);
    ptx_ins(P, "cvt.rni.s32.f64 %R, %R;", k, x);
    ptx_ins(P, "sub.rn.f64 %R, %R, %R;", r, x, kd);                 /* exact */
    ptx_ins(P, "mul.rn.f64 %R, %R, %D;", rh, r, m->ln2);
    ptx_ins(P, "neg.f64 %R, %R;", nrh, rh);
    ptx_ins(P, "fma.rn.f64 %R, %R, %D, %R;", err, r, m->ln2, nrh);  /* r ln2 - rh, exact */
    ptx_ins(P, "fma.rn.f64 %R, %R, %D, %R;", rl, r, m->ln2_lo, err);
    exp_finish(P, d, k, rh, rl);
}

typedef struct LogParts {
    Reg k;      /* b32: x = 2^k m */
    Reg hi;     /* log m = hi + lo, rounded about once, where lo is */
    Reg lo;     /* small against hi (|lo| < 2^-5 |hi|) */
} LogParts;

/* The shared first half of log and log2 (see the top). Meaningless for
 * x <= 0, inf and NaN, which log_special replaces. */
static LogParts log_parts(Ptx *P, Reg x) {
    const double *c = ptx_math_consts.log_poly;
    LogParts o = {b32(P), f64(P), f64(P)};
    Reg sub = pred(P), xm = f64(P), xs = f64(P), adj = b32(P);
    ptx_ins(P, "setp.lt.f64 %R, %R, %D;", sub, x, 0x1p-1022);
    ptx_ins(P, "mul.rn.f64 %R, %R, %D;", xm, x, 0x1p54);
    ptx_ins(P, "selp.f64 %R, %R, %R, %R;", xs, xm, x, sub);
    ptx_ins(P, "selp.s32 %R, -54, 0, %R;", adj, sub);
    /* subtracting sqrt(1/2)'s high word moves the exponent step to m = sqrt(1/2) */
    Reg lo = b32(P), hi = b32(P), t = b32(P), k0 = b32(P), step = b32(P), mhi = b32(P), mm = f64(P);
    ptx_ins(P, "mov.b64 {%R, %R}, %R;", lo, hi, xs);
    ptx_ins(P, "sub.s32 %R, %R, 1072079006;", t, hi);                /* 0x3FE6A09E */
    ptx_ins(P, "shr.s32 %R, %R, 20;", k0, t);
    ptx_ins(P, "add.s32 %R, %R, %R;", o.k, k0, adj);
    ptx_ins(P, "and.b32 %R, %R, 0xFFF00000;", step, t);
    ptx_ins(P, "sub.s32 %R, %R, %R;", mhi, hi, step);
    ptx_ins(P, "mov.b64 %R, {%R, %R};", mm, lo, mhi);
    Reg f = f64(P), den = f64(P), s = f64(P), z = f64(P);
    ptx_ins(P, "add.rn.f64 %R, %R, %D;", f, mm, -1.0);
    ptx_ins(P, "add.rn.f64 %R, %R, %D;", den, f, 2.0);
    ptx_ins(P, "div.rn.f64 %R, %R, %R;", s, f, den);
    ptx_ins(P, "mul.rn.f64 %R, %R, %R;", z, s, s);
    Reg h = f64(P);
    ptx_ins(P, "fma.rn.f64 %R, %R, %D, %D;", h, z, c[7], c[6]);
    for (int i = 5; i >= 0; i--) {
        Reg n = f64(P);
        ptx_ins(P, "fma.rn.f64 %R, %R, %R, %D;", n, h, z, c[i]);
        h = n;
    }
    Reg r = f64(P), hf = f64(P), hfsq = f64(P), sum = f64(P), corr = f64(P);
    ptx_ins(P, "mul.rn.f64 %R, %R, %R;", r, z, h);
    ptx_ins(P, "mul.rn.f64 %R, %R, %D;", hf, f, 0.5);
    ptx_ins(P, "mul.rn.f64 %R, %R, %R;", hfsq, hf, f);
    ptx_ins(P, "add.rn.f64 %R, %R, %R;", sum, hfsq, r);
    ptx_ins(P, "mul.rn.f64 %R, %R, %R;", corr, s, sum);             /* s (f^2/2 + R) */
    /* f - f^2/2 exactly as hi + l: the product's error by fma, then Fast2Sum */
    Reg nhf = f64(P), sq = f64(P), nsq = f64(P), sql = f64(P), l = f64(P), small = f64(P);
    ptx_ins(P, "mul.rn.f64 %R, %R, %D;", nhf, f, -0.5);
    ptx_ins(P, "mul.rn.f64 %R, %R, %R;", sq, nhf, f);
    ptx_ins(P, "neg.f64 %R, %R;", nsq, sq);
    ptx_ins(P, "fma.rn.f64 %R, %R, %R, %R;", sql, nhf, f, nsq);
    fast_two_sum(P, o.hi, l, f, sq);                                 /* |f^2/2| < |f| or f == 0 */
    ptx_ins(P, "add.rn.f64 %R, %R, %R;", small, sql, corr);
    ptx_ins(P, "add.rn.f64 %R, %R, %R;", o.lo, l, small);
    return o;
}

/* d = y, except log(+inf) = +inf, log(+-0) = -inf, log(x < 0 or NaN) = NaN */
static void log_special(Ptx *P, Reg d, Reg x, Reg y) {
    Reg pinf = pred(P), pzero = pred(P), pbad = pred(P), y1 = f64(P), y2 = f64(P);
    ptx_ins(P, "setp.eq.f64 %R, %R, " INF_BITS ";", pinf, x);
    ptx_ins(P, "selp.f64 %R, " INF_BITS ", %R, %R;", y1, y, pinf);
    ptx_ins(P, "setp.eq.f64 %R, %R, 0d0000000000000000;", pzero, x);
    ptx_ins(P, "selp.f64 %R, 0dFFF0000000000000, %R, %R;", y2, y1, pzero);
    ptx_ins(P, "setp.ltu.f64 %R, %R, 0d0000000000000000;", pbad, x);
    ptx_ins(P, "selp.f64 %R, 0d7FFFFFFFFFFFFFFF, %R, %R;", d, y2, pbad);
}

/* log(x) = k ln2 + hi + lo: k ln2_hi42 is exact and at least ln2 > |hi|
 * when k != 0, so their sum is exact as s + err; the small terms go
 * together, and one rounding ends it. */
void ptx_math_log(Ptx *P, Reg d, Reg a) {
    const PtxMathConsts *m = &ptx_math_consts;
    LogParts l = log_parts(P, a);
    Reg kd = f64(P), kh = f64(P), s = f64(P), err = f64(P), t0 = f64(P), t = f64(P), y = f64(P);
    ptx_ins(P, "cvt.rn.f64.s32 %R, %R;", kd, l.k);
    ptx_ins(P, "mul.rn.f64 %R, %R, %D;", kh, kd, m->ln2_hi42);
    fast_two_sum(P, s, err, kh, l.hi);
    ptx_ins(P, "fma.rn.f64 %R, %R, %D, %R;", t0, kd, m->ln2_lo42, err);
    ptx_ins(P, "add.rn.f64 %R, %R, %R;", t, t0, l.lo);
    ptx_ins(P, "add.rn.f64 %R, %R, %R;", y, s, t);
    log_special(P, d, a, y);
}

/* log2(x) = k + (hi + lo) log2 e, the product as ph + pl (its rounding
 * error from an fma), then k + ph exactly as s + err. */
void ptx_math_log2(Ptx *P, Reg d, Reg a) {
    const PtxMathConsts *m = &ptx_math_consts;
    LogParts l = log_parts(P, a);
    Reg kd = f64(P), ph = f64(P), nph = f64(P), pl0 = f64(P), pl1 = f64(P), pl = f64(P);
    Reg s = f64(P), err = f64(P), t = f64(P), y = f64(P);
    ptx_ins(P, "cvt.rn.f64.s32 %R, %R;", kd, l.k);
    ptx_ins(P, "mul.rn.f64 %R, %R, %D;", ph, l.hi, m->l2e);
    ptx_ins(P, "neg.f64 %R, %R;", nph, ph);
    ptx_ins(P, "fma.rn.f64 %R, %R, %D, %R;", pl0, l.hi, m->l2e, nph);   /* exact */
    ptx_ins(P, "fma.rn.f64 %R, %R, %D, %R;", pl1, l.hi, m->l2e_lo, pl0);
    ptx_ins(P, "fma.rn.f64 %R, %R, %D, %R;", pl, l.lo, m->l2e, pl1);
    fast_two_sum(P, s, err, kd, ph);                                    /* |ph| < 1 <= |k| or k == 0 */
    ptx_ins(P, "add.rn.f64 %R, %R, %R;", t, err, pl);
    ptx_ins(P, "add.rn.f64 %R, %R, %R;", y, s, t);
    log_special(P, d, a, y);
}

/* ---- fp32 log and log2 (see the top) ---- */

#define TWO_THIRDS_BITS 0x3F2AAAABu   /* 2/3 rounded up */

typedef struct LogfParts {
    Reg k;      /* f32: x = 2^k m */
    Reg f;      /* m - 1, exact */
    Reg f2;     /* f^2, rounded */
    Reg hf;     /* -f/2, exact */
    Reg p;      /* the polynomial at f */
} LogfParts;

/* The first half of log2. Meaningless for x <= 0, inf and
 * NaN, which logf_special replaces. */
static LogfParts logf_parts(Ptx *P, Reg x, const float *c) {
    LogfParts o = {f32(P), f32(P), f32(P), f32(P), REG_NONE};
    Reg sub = pred(P), xm = f32(P), xs = f32(P), base = b32(P);
    ptx_ins(P, "setp.lt.f32 %R, %R, %F;", sub, x, 0x1p-126);
    ptx_ins(P, "mul.rn.f32 %R, %R, %F;", xm, x, 0x1p23);
    ptx_ins(P, "selp.f32 %R, %R, %R, %R;", xs, xm, x, sub);
    /* subtracting 2/3's bits moves the exponent step to m = 2/3; a scaled
     * subnormal also takes its 23 back from the exponent field */
    ptx_ins(P, "selp.b32 %R, %x, %x, %R;", base, TWO_THIRDS_BITS + (23u << 23), TWO_THIRDS_BITS, sub);
    Reg bits = b32(P), t = b32(P), k = b32(P), low = b32(P), mbits = b32(P), m = f32(P);
    ptx_ins(P, "mov.b32 %R, %R;", bits, xs);
    ptx_ins(P, "sub.s32 %R, %R, %R;", t, bits, base);
    ptx_ins(P, "shr.s32 %R, %R, 23;", k, t);
    ptx_ins(P, "and.b32 %R, %R, 0x007FFFFF;", low, t);
    ptx_ins(P, "add.s32 %R, %R, %x;", mbits, low, TWO_THIRDS_BITS);
    ptx_ins(P, "mov.b32 %R, %R;", m, mbits);
    ptx_ins(P, "cvt.rn.f32.s32 %R, %R;", o.k, k);
    ptx_ins(P, "add.rn.f32 %R, %R, %F;", o.f, m, -1.0);
    ptx_ins(P, "mul.rn.f32 %R, %R, %R;", o.f2, o.f, o.f);
    ptx_ins(P, "mul.rn.f32 %R, %R, %F;", o.hf, o.f, -0.5);
    Reg p = f32(P);
    ptx_ins(P, "fma.rn.f32 %R, %R, %F, %F;", p, o.f, c[9], c[8]);
    for (int i = 7; i >= 0; i--) {
        Reg n = f32(P);
        ptx_ins(P, "fma.rn.f32 %R, %R, %R, %F;", n, p, o.f, c[i]);
        p = n;
    }
    o.p = p;
    return o;
}

/* d = y, except log(+inf) = +inf, log(+-0) = -inf, log(x < 0 or NaN) = NaN */
static void logf_special(Ptx *P, Reg d, Reg x, Reg y) {
    Reg pfinite = pred(P), pzero = pred(P), pnonpos = pred(P), y1 = f32(P), z = f32(P);
    ptx_ins(P, "setp.lt.f32 %R, %R, 0f7F800000;", pfinite, x);     /* false for +inf and NaN */
    ptx_ins(P, "selp.f32 %R, %R, %R, %R;", y1, y, x, pfinite);
    ptx_ins(P, "setp.eq.f32 %R, %R, 0f00000000;", pzero, x);
    ptx_ins(P, "selp.f32 %R, 0fFF800000, 0f7FFFFFFF, %R;", z, pzero);
    ptx_ins(P, "setp.le.f32 %R, %R, 0f00000000;", pnonpos, x);
    ptx_ins(P, "selp.f32 %R, %R, %R, %R;", d, z, y1, pnonpos);
}

/* The small terms (f^2 p(f) - f^2/2 + lo) with one rounding each. */
static Reg logf_small(Ptx *P, LogfParts l, Reg lo) {
    Reg t = f32(P), s = f32(P);
    ptx_ins(P, "fma.rn.f32 %R, %R, %R, %R;", t, l.f2, l.p, lo);
    ptx_ins(P, "fma.rn.f32 %R, %R, %R, %R;", s, l.hf, l.f, t);     /* the product is exact */
    return s;
}

/* log(x) as libdevice's logf (Triton's tl.log; base/trig.h): e ln2 + f +
 * f^2 P(f), the special cases by selects where logf branches. */
void ptx_math_log_f32(Ptx *P, Reg d, Reg a) {
    Reg sub = pred(P), xm = f32(P), xs = f32(P), e0 = f32(P);
    ptx_ins(P, "setp.lt.f32 %R, %R, %F;", sub, a, 0x1p-126);
    ptx_ins(P, "mul.rn.f32 %R, %R, %F;", xm, a, 0x1p23);
    ptx_ins(P, "selp.f32 %R, %R, %R, %R;", xs, xm, a, sub);
    ptx_ins(P, "selp.f32 %R, %F, %F, %R;", e0, -23.0, 0.0, sub);
    Reg u = b32(P), t = b32(P), k = b32(P), mb = b32(P), kf = f32(P), e = f32(P), m = f32(P), f = f32(P);
    ptx_ins(P, "mov.b32 %R, %R;", u, xs);
    ptx_ins(P, "sub.s32 %R, %R, %x;", t, u, LOGF_TWO_THIRDS);
    ptx_ins(P, "and.b32 %R, %R, 0xFF800000;", k, t);
    ptx_ins(P, "sub.s32 %R, %R, %R;", mb, u, k);
    ptx_ins(P, "cvt.rn.f32.s32 %R, %R;", kf, k);
    ptx_ins(P, "fma.rn.ftz.f32 %R, %R, %F, %R;", e, kf, 0x1p-23, e0);
    ptx_ins(P, "mov.b32 %R, %R;", m, mb);
    ptx_ins(P, "add.rn.f32 %R, %R, %F;", f, m, -1.0);
    Reg p = f32(P);
    ptx_ins(P, "fma.rn.ftz.f32 %R, %F, %R, %F;", p, logf_poly[0], f, logf_poly[1]);
    for (int i = 2; i < 9; i++) {
        Reg n = f32(P);
        ptx_ins(P, "fma.rn.ftz.f32 %R, %R, %R, %F;", n, p, f, logf_poly[i]);
        p = n;
    }
    Reg q = f32(P), r = f32(P), y = f32(P), ys = f32(P), y2 = f32(P), fin = pred(P), zero = pred(P);
    ptx_ins(P, "mul.rn.f32 %R, %R, %R;", q, f, p);
    ptx_ins(P, "fma.rn.ftz.f32 %R, %R, %R, %R;", r, q, f, f);
    ptx_ins(P, "fma.rn.ftz.f32 %R, %R, %F, %R;", y, e, LOGF_LN2, r);
    /* +inf, NaN and everything negative (-0 included): x inf + inf */
    ptx_ins(P, "setp.lt.u32 %R, %R, 0x7F800000;", fin, u);
    ptx_ins(P, "fma.rn.ftz.f32 %R, %R, 0f7F800000, 0f7F800000;", ys, xs);
    ptx_ins(P, "selp.f32 %R, %R, %R, %R;", y2, y, ys, fin);
    ptx_ins(P, "setp.eq.f32 %R, %R, 0f00000000;", zero, xs);
    ptx_ins(P, "selp.f32 %R, 0fFF800000, %R, %R;", d, y2, zero);
}

/* log2(x) = k + f log2(e) + (f^2 p(f) - f^2/2) with p fitted to log2: the
 * product as ph + pl, k + ph exactly as hi + err (|ph| < 1 <= |k| or k == 0). */
void ptx_math_log2_f32(Ptx *P, Reg d, Reg a) {
    const PtxMathConsts *m = &ptx_math_consts;
    LogfParts l = logf_parts(P, a, m->log2f_poly);
    Reg ph = f32(P), npl = f32(P), hi = f32(P), err = f32(P), t = f32(P), lo = f32(P), y = f32(P);
    ptx_ins(P, "mul.rn.f32 %R, %R, %F;", ph, l.f, m->l2e_f);
    ptx_ins(P, "fma.rn.f32 %R, %R, %F, %R;", npl, l.f, -m->l2e_f, ph);   /* ph - f l2e_f, exact */
    fast_two_sum(P, hi, err, l.k, ph);
    ptx_ins(P, "sub.rn.f32 %R, %R, %R;", t, err, npl);
    ptx_ins(P, "fma.rn.f32 %R, %R, %F, %R;", lo, l.f, m->l2e_f_lo, t);
    Reg small = logf_small(P, l, lo);
    ptx_ins(P, "add.rn.f32 %R, %R, %R;", y, hi, small);
    logf_special(P, d, a, y);
}
