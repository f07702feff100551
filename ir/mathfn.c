/* The `math` op's functions as straight-line programs (see mathfn.h), and
 * the C executor of those programs.
 *
 * Method. fp32 functions widen to f64, compute there and round once, so
 * their error is the final rounding plus a few f64 ulps (nearly always
 * correctly rounded); fp64 functions run the same f64 steps, within a few
 * ulps (the bounds: doc/math.md, measured by test/unit/test_mathlib.c).
 * fp32 tanh and erf (GELU) run in f32 only (tanh32, erf32). One table (the
 * bits of 2/pi, for sin/cos/tan) and no fitted coefficients: Taylor
 * series on small reduced ranges, coefficients computed in long double
 * and rounded once.
 *   exp:   x = k ln2 + r, |r| <= ln2/2 (ln2 in two parts, the first
 *          exact times k), e^r by Taylor to r^13, times 2^k1 2^k2.
 *   expm1: |x| < 1/2: Taylor to x^19; else exp(x) - 1.
 *   log:   x = 2^k m, m in [sqrt(1/2), sqrt 2), s = (m-1)/(m+1),
 *          log m = 2 atanh s (Taylor to s^23), plus k ln2.
 *   log1p: log(u) - ((u - 1) - x)/u, u = 1 + x (the rounding of u undone).
 *   atan:  |x| > 1 by atan(1/x); t -> t/(1 + sqrt(1 + t^2)) once (|t| <=
 *          tan(pi/8), computed as a small correction to t/2), Taylor to
 *          t^43, doubled.
 *   erf:   (fp64) 2/sqrt(pi) e^(-x^2) sum 2^n x^(2n+1)/(2n+1)!!, all
 *          terms positive (no cancellation), x^2 carried as hi + lo into
 *          exp, below 2; from 2 on 1 - erfc by a continued fraction.
 *   sin, cos, tan, erfc, erfinv, fp64 pow and hypot: at their functions.
 *   tanh, sinh, cosh, asinh, acosh, atanh, pow, cbrt, asin, acos, atan2,
 *   exp10, log10, hypot: from those by the usual identities (below).
 * Special inputs (inf, NaN, zeros, out of domain) are selects at the end. */
#include "mathfn_priv.h"

#include <math.h>
#include <string.h>

const MathFnInfo mathfn_info[MF_COUNT] = {
#define X(e, s, n, k) {s, n, k},
#include "mathfn.def"
#undef X
};

int mathfn_find(const char *name) {
    for (int i = 0; i < MF_COUNT; i++)
        if (!strcmp(mathfn_info[i].name, name)) return i;
    return -1;
}

static bool is_int3264(ElemType e) {
    return e == ET_I32 || e == ET_U32 || e == ET_I64 || e == ET_U64;
}

bool mathfn_accepts(MathFn f, ElemType e) {
    switch (mathfn_info[f].kind) {
    case MK_FLOAT: case MK_TEST: return e == ET_F32 || e == ET_F64;
    case MK_F32: return e == ET_F32;
    case MK_INT: case MK_COUNT: return is_int3264(e);
    }
    return false;
}

ElemType mathfn_result(MathFn f, ElemType e) {
    MathKind k = mathfn_info[f].kind;
    return k == MK_TEST || k == MK_COUNT ? ET_I32 : e;
}

/* ---- the builder ---- */

int mathfn_reg(MathProg *p, MType t) {
    TRIC_ASSERT(p->n_regs < MP_MAX_REGS);
    p->rty[p->n_regs] = (uint8_t)t;
    return p->n_regs++;
}

void mathfn_put(MathProg *p, int d, MOp op, int a, int b, int c, uint64_t imm, int cmp, int fl) {
    TRIC_ASSERT(p->n_ins < MP_MAX_INS);
    p->ins[p->n_ins++] = (MIns){(uint8_t)op, (uint8_t)cmp, (uint8_t)fl, (uint16_t)d, (uint16_t)a, (uint16_t)b, (uint16_t)c, imm};
}

static int reg(MathProg *p, MType t) { return mathfn_reg(p, t); }

#define TY(r) ((MType)p->rty[r])

static int ins(MathProg *p, MOp op, MType t, int a, int b, int c, uint64_t imm, MathCmp cmp) {
    int d = reg(p, t);
    mathfn_put(p, d, op, a, b, c, imm, cmp, 0);
    return d;
}

static int kf(MathProg *p, MType t, double v) {
    return ins(p, MO_CONST, t, 0, 0, 0, elem_float_bits(t == MT_F32 ? ET_F32 : ET_F64, v), MC_EQ);
}

static int kb(MathProg *p, uint32_t v) { return ins(p, MO_CONST, MT_B32, 0, 0, 0, v, MC_EQ); }

static int op1(MathProg *p, MOp o, int a) { return ins(p, o, TY(a), a, 0, 0, 0, MC_EQ); }
static int op2(MathProg *p, MOp o, int a, int b) { return ins(p, o, TY(a), a, b, 0, 0, MC_EQ); }
static int add(MathProg *p, int a, int b) { return op2(p, MO_ADD, a, b); }
static int sub(MathProg *p, int a, int b) { return op2(p, MO_SUB, a, b); }
static int mul(MathProg *p, int a, int b) { return op2(p, MO_MUL, a, b); }
static int dvd(MathProg *p, int a, int b) { return op2(p, MO_DIV, a, b); }
static int fma3(MathProg *p, int a, int b, int c) { return ins(p, MO_FMA, TY(a), a, b, c, 0, MC_EQ); }
static int addk(MathProg *p, int a, double k) { return add(p, a, kf(p, TY(a), k)); }
static int mulk(MathProg *p, int a, double k) { return mul(p, a, kf(p, TY(a), k)); }
static int fmak(MathProg *p, int a, int b, double k) { return fma3(p, a, b, kf(p, TY(a), k)); }
static int ksub(MathProg *p, double k, int a) { return sub(p, kf(p, TY(a), k), a); }
static int kdiv(MathProg *p, double k, int a) { return dvd(p, kf(p, TY(a), k), a); }
static int neg(MathProg *p, int a) { return op1(p, MO_NEG, a); }
static int fabs_(MathProg *p, int a) { return op1(p, MO_ABS, a); }
static int sqrt_(MathProg *p, int a) { return op1(p, MO_SQRT, a); }
/* magnitude of mag, sign of sgn */
static int csign(MathProg *p, int sgn, int mag) { return op2(p, MO_COPYSIGN, sgn, mag); }
static int cvt(MathProg *p, MType t, int a) { return ins(p, MO_CVT, t, a, 0, 0, 0, MC_EQ); }
static int setp(MathProg *p, MathCmp c, int a, int b) { return ins(p, MO_SETP, MT_PRED, a, b, 0, 0, c); }
static int setpk(MathProg *p, MathCmp c, int a, double k) { return setp(p, c, a, kf(p, TY(a), k)); }
static int testp(MathProg *p, MathCmp c, int a) { return ins(p, MO_TESTP, MT_PRED, a, 0, 0, 0, c); }
static int selp(MathProg *p, int c, int a, int b) { return ins(p, MO_SELP, TY(a), a, b, c, 0, MC_EQ); }
static int selpk(MathProg *p, int c, double k, int b) { return selp(p, c, kf(p, TY(b), k), b); }
static int pand(MathProg *p, int a, int b) { return op2(p, MO_AND, a, b); }
static int por(MathProg *p, int a, int b) { return op2(p, MO_OR, a, b); }
static int hi(MathProg *p, int a) { return ins(p, MO_HI, MT_B32, a, 0, 0, 0, MC_EQ); }
static int lo(MathProg *p, int a) { return ins(p, MO_LO, MT_B32, a, 0, 0, 0, MC_EQ); }
static int pack(MathProg *p, int l, int h) { return ins(p, MO_PACK, MT_F64, l, h, 0, 0, MC_EQ); }
static int kq(MathProg *p, uint64_t v) { return ins(p, MO_CONST, MT_B64, 0, 0, 0, v, MC_EQ); }
/* integer steps of a's width (b32 or b64); shift amounts are b32 */
static int iop(MathProg *p, MOp o, int a, int b) { return ins(p, o, TY(a), a, b, 0, 0, MC_EQ); }
static int ik(MathProg *p, MOp o, int a, uint64_t k) { return iop(p, o, a, TY(a) == MT_B64 ? kq(p, k) : kb(p, (uint32_t)k)); }
static int shk(MathProg *p, MOp o, int a, int k) { return iop(p, o, a, kb(p, (uint32_t)k)); }

/* min(max(x, lo), hi) that lets NaN through */
static int clamp(MathProg *p, int x, double lo, double hi) {
    int t = selpk(p, setpk(p, MC_GT, x, hi), hi, x);
    return selpk(p, setpk(p, MC_LT, t, lo), lo, t);
}

/* p(z) = c[0] + c[1] z + ... + c[n-1] z^(n-1), by Horner with fma */
static int poly(MathProg *p, int z, const double *c, int n) {
    int r = kf(p, TY(z), c[n - 1]);
    for (int i = n - 2; i >= 0; i--) r = fmak(p, r, z, c[i]);
    return r;
}

/* the sign bit of an f64 as a predicate (true for -0 and negative NaN) */
static int sign_pred(MathProg *p, int x) { return setp(p, MC_LT, hi(p, x), kb(p, 0)); }

static const double LN2_HI42 = 0x1.62e42fefa3800p-1, LN2_LO42 = 0x1.ef35793c76730p-45;
static const double LN2 = 0x1.62e42fefa39efp-1, L2E = 0x1.71547652b82fep+0;
static const double PI2_HI = 0x1.921fb54442d18p+0, PI2_LO = 0x1.1a62633145c07p-54;
static const double PI_HI = 0x1.921fb54442d18p+1, PI_LO = 0x1.1a62633145c07p-53;
static const double LN10_HI = 0x1.26bb1bbb55516p+1, LN10_LO = -0x1.f48ad494ea3e9p-53;
static const double ILN10_HI = 0x1.bcb7b1526e50ep-2, ILN10_LO = 0x1.95355baaafad3p-57;
static const double TWO_OVER_SQRTPI = 0x1.20dd750429b6dp+0;

/* 2^e for e a b32 within the normal exponents */
static int pow2(MathProg *p, int e) {
    int h = ins(p, MO_SHL, MT_B32, ins(p, MO_IADD, MT_B32, e, kb(p, 1023), 0, 0, MC_EQ), kb(p, 20), 0, 0, MC_EQ);
    return pack(p, kb(p, 0), h);
}

/* 2^kadj e^(x + xlo), x in [-760, 720] (or NaN), |xlo| <= ulp(x) or xlo < 0 */
static int exp_core(MathProg *p, int x, int xlo, int kadj) {
    double c[14];
    long double f = 1;
    for (int i = 0; i < 14; i++) {
        if (i) f /= i;
        c[i] = (double)f;
    }
    int t = mulk(p, x, L2E);
    int kd = op1(p, MO_RNI, t), k = cvt(p, MT_B32, t);
    /* r = x - kd ln2_hi42 (exact), then - kd ln2_lo42 */
    int r = fma3(p, kd, kf(p, MT_F64, -LN2_HI42), x);
    int rr = fma3(p, kd, kf(p, MT_F64, -LN2_LO42), r);
    if (xlo >= 0) rr = add(p, rr, xlo);
    int e = fmak(p, poly(p, rr, c + 1, 13), rr, 1.0);
    int kk = kadj ? ins(p, MO_IADD, MT_B32, k, kb(p, (uint32_t)kadj), 0, 0, MC_EQ) : k;
    int k1 = ins(p, MO_SHRS, MT_B32, kk, kb(p, 1), 0, 0, MC_EQ);
    int k2 = ins(p, MO_ISUB, MT_B32, kk, k1, 0, 0, MC_EQ);
    return mul(p, mul(p, e, pow2(p, k1)), pow2(p, k2));
}

static int exp_full(MathProg *p, int x) { return exp_core(p, clamp(p, x, -760, 720), -1, 0); }

/* e^x - 1 */
static int expm1_core(MathProg *p, int x) {
    double c[18];   /* 1/k! for k = 2 .. 19 */
    long double f = 1;
    for (int k = 1; k <= 19; k++) {
        f /= k;
        if (k >= 2) c[k - 2] = (double)f;
    }
    int small = fma3(p, mul(p, x, x), poly(p, x, c, 18), x);
    int big = addk(p, exp_full(p, x), -1.0);
    return selp(p, setpk(p, MC_LT, fabs_(p, x), 0.5), small, big);
}

/* x = 2^k (1 + f) for finite x > 0 with 1 + f in [sqrt(1/2), sqrt(2));
 * f exact (subnormals scaled by 2^54 first). k: b32, f: f64. */
static void log_reduce(MathProg *p, int x, int *k, int *f) {
    int sub_ = setpk(p, MC_LT, x, 0x1p-1022);
    int xs = selp(p, sub_, mulk(p, x, 0x1p54), x);
    int adj = selp(p, sub_, kb(p, (uint32_t)-54), kb(p, 0));
    /* subtracting sqrt(1/2)'s high word moves the exponent step there */
    int h = hi(p, xs), l = lo(p, xs);
    int t = ins(p, MO_ISUB, MT_B32, h, kb(p, 0x3FE6A09E), 0, 0, MC_EQ);
    *k = ins(p, MO_IADD, MT_B32, ins(p, MO_SHRS, MT_B32, t, kb(p, 20), 0, 0, MC_EQ), adj, 0, 0, MC_EQ);
    int step = ins(p, MO_AND, MT_B32, t, kb(p, 0xFFF00000u), 0, 0, MC_EQ);
    int m = pack(p, l, ins(p, MO_ISUB, MT_B32, h, step, 0, 0, MC_EQ));
    *f = addk(p, m, -1.0);
}

/* log x for finite x > 0 (log_special replaces the others) */
static int log_core(MathProg *p, int x) {
    double c[11];   /* 2/(2n+1), n = 1 .. 11 */
    for (int n = 1; n <= 11; n++) c[n - 1] = (double)(2.0L / (2 * n + 1));
    int k, f;
    log_reduce(p, x, &k, &f);
    int s = dvd(p, f, addk(p, f, 2.0));
    int z = mul(p, s, s);
    int s2 = mulk(p, s, 2.0);
    int logm = fma3(p, mul(p, s, z), poly(p, z, c, 11), s2);
    int kd = cvt(p, MT_F64, k);
    return fma3(p, kd, kf(p, MT_F64, LN2_HI42), fma3(p, kd, kf(p, MT_F64, LN2_LO42), logm));
}

/* y, except: log(+inf) = +inf, log(+-0) = -inf, log(x < 0 or NaN) = NaN */
static int log_special(MathProg *p, int x, int y) {
    y = selpk(p, setpk(p, MC_EQ, x, INFINITY), INFINITY, y);
    y = selpk(p, setpk(p, MC_EQ, x, 0.0), -INFINITY, y);
    return selpk(p, setpk(p, MC_LTU, x, 0.0), NAN, y);
}

static int log_full(MathProg *p, int x) { return log_special(p, x, log_core(p, x)); }

static int log1p_full(MathProg *p, int x) {
    int u = addk(p, x, 1.0);
    int c = dvd(p, sub(p, addk(p, u, -1.0), x), u);
    return log_special(p, u, sub(p, log_core(p, u), c));
}

/* atan t for t in [0, 1] (NaN passes) */
static int atan01(MathProg *p, int t) {
    double c[21];   /* (-1)^n / (2n+1), n = 1 .. 21 */
    for (int n = 1; n <= 21; n++) c[n - 1] = (double)((n & 1 ? -1.0L : 1.0L) / (2 * n + 1));
    /* t1 = t / (1 + sqrt(1 + t^2)) as h - h w, h = t/2 (exact), w = u / (2 + u),
     * u = t^2 / (1 + sqrt(1 + t^2)): the rounding of 2 + u would cost an ulp */
    int h = mulk(p, t, 0.5);
    int u = dvd(p, mul(p, t, t), addk(p, sqrt_(p, fmak(p, t, t, 1.0)), 1.0));
    int w = dvd(p, u, addk(p, u, 2.0));
    int t1 = fma3(p, neg(p, h), w, h);
    int z = mul(p, t1, t1);
    return mulk(p, fma3(p, mul(p, t1, z), poly(p, z, c, 21), t1), 2.0);
}

/* hi + lo - r, for the constant hi + lo */
static int k2sub(MathProg *p, double h, double l, int r) { return addk(p, ksub(p, h, r), l); }

static int atan_full(MathProg *p, int x) {
    int a = fabs_(p, x);
    int inv = setpk(p, MC_GT, a, 1.0);
    int r = atan01(p, selp(p, inv, kdiv(p, 1.0, a), a));
    return csign(p, x, selp(p, inv, k2sub(p, PI2_HI, PI2_LO, r), r));
}

static int atan2_full(MathProg *p, int y, int x) {
    int ax = fabs_(p, x), ay = fabs_(p, y);
    int mx = op2(p, MO_MAX, ax, ay), mn = op2(p, MO_MIN, ax, ay);
    int t = dvd(p, mn, mx);
    t = selpk(p, setpk(p, MC_EQ, mx, 0.0), 0.0, t);          /* 0/0 */
    t = selpk(p, setpk(p, MC_EQ, mn, INFINITY), 1.0, t);     /* inf/inf */
    int r = atan01(p, t);
    r = selp(p, setp(p, MC_GT, ay, ax), k2sub(p, PI2_HI, PI2_LO, r), r);
    r = selp(p, sign_pred(p, x), k2sub(p, PI_HI, PI_LO, r), r);
    r = csign(p, y, r);
    return selpk(p, por(p, testp(p, MC_NAN, x), testp(p, MC_NAN, y)), NAN, r);
}

/* e^(-a^2), a^2 carried into exp as hi + lo; a <= 27.5 */
static int exp_negsq(MathProg *p, int a) {
    int z = mul(p, a, a), zl = fma3(p, a, a, neg(p, z));
    return exp_core(p, neg(p, z), neg(p, zl), 0);
}

/* erf a by the series (see the top), n terms, e = e^(-a^2) */
static int erf_sum(MathProg *p, int a, int e, int n) {
    double c[64];   /* 2^k / (2k+1)!! */
    long double d = 1;
    TRIC_ASSERT(n < 64);
    for (int k = 0; k <= n; k++) {
        if (k) d *= 2.0L / (2 * k + 1);
        c[k] = (double)d;
    }
    int s = poly(p, mul(p, a, a), c, n + 1);
    return mul(p, mul(p, e, s), mulk(p, a, TWO_OVER_SQRTPI));
}

/* erf by the series for |x| <= lim, n terms */
static int erf_series(MathProg *p, int a, double lim, int n) {
    int ac = selpk(p, setpk(p, MC_GT, a, lim), lim, a);
    return erf_sum(p, ac, exp_negsq(p, ac), n);
}

/* fp64 erf for |x| >= 2: 1 - erfc, erfc = e^(-x^2) / (sqrt(pi) K) with
 * the continued fraction K = x + (1/2)/(x + (2/2)/(x + (3/2)/(...))), 60
 * levels (relative error below 2e-16 from 2 on, and erfc(2) < 0.005, so
 * 1 - erfc is within an ulp). The series' Horner sum loses ulps as the
 * terms' peak moves out (~30 near 6). */
static int erf_cf(MathProg *p, int a) {
    int ac = selpk(p, setpk(p, MC_GT, a, 6.0), 6.0, selpk(p, setpk(p, MC_LT, a, 2.0), 2.0, a));
    int t = ac;
    for (int k = 60; k >= 1; k--) t = add(p, ac, kdiv(p, k / 2.0, t));
    int z = mul(p, ac, ac), zl = fma3(p, ac, ac, neg(p, z));
    int e = exp_core(p, neg(p, z), neg(p, zl), 0);
    int erfc = dvd(p, mulk(p, e, 0x1.20dd750429b6dp-1), t);   /* 1/sqrt(pi) */
    return ksub(p, 1.0, erfc);
}

/* fp64 erf (fp32: erf32) */
static int erf_full(MathProg *p, int x) {
    int a = fabs_(p, x);
    int r = selp(p, setpk(p, MC_GE, a, 2.0), erf_cf(p, a), erf_series(p, a, 2.0, 32));
    return csign(p, x, selpk(p, testp(p, MC_NAN, a), NAN, r));
}

/* s + e = a + b exactly (TwoSum) */
static void two_sum(MathProg *p, int a, int b, int *s, int *e) {
    int t = add(p, a, b), bb = sub(p, t, a);
    *s = t;
    *e = add(p, sub(p, a, sub(p, t, bb)), sub(p, b, bb));
}

/* ---- pure fp32 ---- */

/* e^y in f32 for y in [0, 20] (or NaN): y = k ln2 + r (ln2's high part has
 * 16 bits, so k times it is exact), e^r by Taylor to r^8, 2^k added to the
 * exponent bits */
static int exp32(MathProg *p, int y) {
    double c[9];
    long double f = 1;
    for (int i = 0; i < 9; i++) {
        if (i) f /= i;
        c[i] = (double)f;
    }
    int kd = op1(p, MO_RNI, mulk(p, y, 0x1.715476p+0));
    int r = fma3(p, kd, kf(p, MT_F32, -0x1.62e4p-1), y);
    r = fma3(p, kd, kf(p, MT_F32, -0x1.7f7d1cp-20), r);
    int e = poly(p, r, c, 9);
    int k = cvt(p, MT_B32, kd);
    int bits = ins(p, MO_IADD, MT_B32, ins(p, MO_MOVB, MT_B32, e, 0, 0, 0, MC_EQ), shk(p, MO_SHL, k, 23), 0, 0, MC_EQ);
    return ins(p, MO_MOVB, MT_F32, bits, 0, 0, 0, MC_EQ);
}

/* fp32 tanh without f64 (f64 is slow on most GPUs): |x| < 0.55 the odd
 * Taylor series to x^23 (coefficients from the Bernoulli numbers); beyond,
 * 1 - 2/(e^(2|x|) + 1), where the quotient is below 1/2 (no cancellation) */
static int tanh32(MathProg *p, int x) {
    /* tanh x = sum c_n x^(2n-1), c_n = 2^(2n) (2^(2n) - 1) B_2n / (2n)! */
    static const long double bern[] = {1.0L / 6, -1.0L / 30, 1.0L / 42, -1.0L / 30, 5.0L / 66, -691.0L / 2730,
                                       7.0L / 6, -3617.0L / 510, 43867.0L / 798, -174611.0L / 330, 854513.0L / 138,
                                       -236364091.0L / 2730, 8553103.0L / 6, -23749461029.0L / 870};
    double c[14];
    long double fact = 1;
    for (int n = 1; n <= 14; n++) {
        fact *= (2 * n - 1) * (2 * n);
        long double p2 = ldexpl(1.0L, 2 * n);
        c[n - 1] = (double)(p2 * (p2 - 1) * bern[n - 1] / fact);
    }
    int a = fabs_(p, x), z = mul(p, a, a);
    int small = fma3(p, mul(p, a, z), poly(p, z, c + 1, 13), a);
    int e = exp32(p, clamp(p, mulk(p, a, 2.0), 0.0, 20.0));
    int big = ksub(p, 1.0, kdiv(p, 2.0, addk(p, e, 1.0)));
    return csign(p, x, selp(p, setpk(p, MC_LT, a, 0.8), small, big));
}

/* fp32 erf without f64: |x| < 7/8 the Taylor series (to x^25) times
 * 2/sqrt(pi) in two parts; from 7/8 on, 1 - erfc, where erfc needs only
 * ~2^-26 absolute: Matta and Reid's sum with step 5/8 (error e^(-pi^2 64/25)
 * ~ 2^-36), 7 terms, and its pole term (clamped to 2.5, where it is ~2^-35); e^(-x^2) with x^2 as
 * hi + lo. erf rounds to 1 from 3.92 on */
static int erf32(MathProg *p, int x) {
    const long double H = 0.625L, PI = 3.14159265358979323846264338327950288L;
    const long double TSP = 1.12837916709551257389615890312154517L;   /* 2/sqrt(pi) */
    double c[12];   /* (-1)^n / (n! (2n+1)), n = 1 .. 12 */
    long double f = 1;
    for (int n = 1; n <= 12; n++) {
        f /= n;
        c[n - 1] = (double)((n & 1 ? -f : f) / (2 * n + 1));
    }
    int a = fabs_(p, x), z = mul(p, a, a);
    /* a (1 + z P(z)) (hi + lo) = a hi + a (lo + hi z P(z)) */
    const double TSP_HI = (double)(float)TSP, TSP_LO = (double)(TSP - (long double)(float)TSP);
    int zp = mul(p, z, poly(p, z, c, 12));
    int small = fma3(p, a, kf(p, MT_F32, TSP_HI), mul(p, a, fmak(p, zp, kf(p, MT_F32, TSP_HI), TSP_LO)));
    int ac = clamp(p, a, 0.875, 4.0);
    int zh = mul(p, ac, ac), zl = fma3(p, ac, ac, neg(p, zh));
    int e = mul(p, exp32(p, neg(p, zh)), ksub(p, 1.0, zl));   /* e^(-x^2) */
    int s = kdiv(p, (double)(H / PI), zh);
    for (int k = 7; k >= 1; k--) {
        long double kh2 = (long double)k * k * H * H;
        s = add(p, kdiv(p, (double)(2 * expl(-kh2) * H / PI), addk(p, zh, (double)kh2)), s);
    }
    int erfc = mul(p, mul(p, e, ac), s);
    int pole = kdiv(p, -2.0, addk(p, exp32(p, mulk(p, clamp(p, ac, 0.875, 2.5), (double)(2 * PI / H))), -1.0));
    int big = ksub(p, 1.0, add(p, erfc, pole));
    int r = selp(p, setpk(p, MC_LT, a, 0.875), small, big);
    return csign(p, x, selpk(p, testp(p, MC_NAN, a), NAN, r));
}

/* ---- fp64 sin, cos, tan ---- */

/* 2/pi: its bits 1 .. 1280 after the point, 64 to a word (computed with
 * integers, pi by Machin's formula) */
static const uint64_t TWO_OVER_PI[20] = {
    0xA2F9836E4E441529ULL, 0xFC2757D1F534DDC0ULL, 0xDB6295993C439041ULL, 0xFE5163ABDEBBC561ULL,
    0xB7246E3A424DD2E0ULL, 0x06492EEA09D1921CULL, 0xFE1DEB1CB129A73EULL, 0xE88235F52EBB4484ULL,
    0xE99C7026B45F7E41ULL, 0x3991D639835339F4ULL, 0x9C845F8BBDF9283BULL, 0x1FF897FFDE05980FULL,
    0xEF2F118B5A0A6D1FULL, 0x6D367ECF27CB09B7ULL, 0x4F463F669E5FEA2DULL, 0x7527BAC7EBE5F17BULL,
    0x3D0739F78A5292EAULL, 0x6BFB5FB11F8D5D08ULL, 0x56033046FC7B6BABULL, 0xF0CFBC209AF4361DULL,
};

/* word j of 2/pi behind three zero words (bit g of the sequence is the
 * bit 2^-(g-191) of 2/pi) */
static uint64_t two_over_pi_word(int j) { return j < 3 ? 0 : TWO_OVER_PI[j - 3]; }

/* Payne-Hanek, exact for every finite a >= 1/2: a 2/pi = n + f, f in
 * [-1/2, 1/2); *q = n mod 4 (b32) and *yh + *yl = f pi/2 (~2^-100
 * relative, also for the closest cases, |f| ~ 2^-61). a = m 2^(E-63), m a
 * 64-bit integer, and W = the 192 bits of 2/pi from 2^-(E-66) to
 * 2^-(E+125), so m W has its point at bit 188: the bits of 2/pi above W
 * give multiples of 4, those below it less than 2^-124. The table's words
 * are picked by selects on the word index (1 .. 17). */
static void reduce_ph(MathProg *p, int a, int *q, int *yh, int *yl) {
    int h = hi(p, a), l = lo(p, a);
    int e = ik(p, MO_ISUB, shk(p, MO_SHRU, h, 20), 1023);
    e = selp(p, setp(p, MC_LT, e, kb(p, (uint32_t)-1)), kb(p, (uint32_t)-1), e);
    int mh = ik(p, MO_OR, ik(p, MO_AND, h, 0xFFFFF), 0x100000);
    int m = shk(p, MO_SHL, ins(p, MO_PACK, MT_B64, l, mh, 0, 0, MC_EQ), 11);
    int s = ik(p, MO_IADD, e, 125);
    int i = shk(p, MO_SHRS, s, 6), sh = ik(p, MO_AND, s, 63), rsh = iop(p, MO_ISUB, kb(p, 64), sh);
    int t[4];
    for (int k = 0; k < 4; k++) t[k] = kq(p, two_over_pi_word(1 + k));
    for (int j = 2; j <= 17; j++) {
        int pj = setp(p, MC_EQ, i, kb(p, (uint32_t)j));
        for (int k = 0; k < 4; k++) t[k] = selp(p, pj, kq(p, two_over_pi_word(j + k)), t[k]);
    }
    int w[3];   /* shr by 64 gives 0 (PTX clamps the amount) */
    for (int k = 0; k < 3; k++) w[k] = iop(p, MO_OR, iop(p, MO_SHL, t[k], sh), iop(p, MO_SHRU, t[k + 1], rsh));
    /* the low 192 bits of m W: words p0, p1, p2 */
    int p0 = iop(p, MO_MULLO, m, w[2]), h2 = ins(p, MO_MULHI, MT_B64, m, w[2], 0, 0, MC_EQ);
    int l1 = iop(p, MO_MULLO, m, w[1]), h1 = ins(p, MO_MULHI, MT_B64, m, w[1], 0, 0, MC_EQ);
    int l0 = iop(p, MO_MULLO, m, w[0]);
    int p1 = iop(p, MO_IADD, h2, l1);
    int carry = selp(p, setp(p, MC_LT, p1, h2), kq(p, 1), kq(p, 0));
    int p2 = iop(p, MO_IADD, iop(p, MO_IADD, h1, l0), carry);
    /* g2:g1 = the fraction in units of 2^-128; as a signed number it is
     * the fraction rounded to the nearest integer's remainder */
    int g2 = iop(p, MO_OR, shk(p, MO_SHL, p2, 4), shk(p, MO_SHRU, p1, 60));
    int g1 = iop(p, MO_OR, shk(p, MO_SHL, p1, 4), shk(p, MO_SHRU, p0, 60));
    int n = ik(p, MO_AND, iop(p, MO_IADD, shk(p, MO_SHRU, p2, 60), shk(p, MO_SHRU, g2, 63)), 3);
    *q = lo(p, n);
    /* to f64 in 32-bit pieces (each exact); their sum as fh + fl */
    int a1 = mulk(p, cvt(p, MT_F64, shk(p, MO_SHRS, g2, 32)), 0x1p32);
    int b1 = cvt(p, MT_F64, ik(p, MO_AND, g2, 0xFFFFFFFFu));
    int c1 = mulk(p, cvt(p, MT_F64, shk(p, MO_SHRU, g1, 32)), 0x1p-32);
    int d1 = mulk(p, cvt(p, MT_F64, ik(p, MO_AND, g1, 0xFFFFFFFFu)), 0x1p-64);
    int fh, fe;
    two_sum(p, a1, b1, &fh, &fe);
    int fl = mulk(p, add(p, add(p, fe, c1), d1), 0x1p-64);
    fh = mulk(p, fh, 0x1p-64);
    /* times pi/2 (hi + lo) */
    int rh = mulk(p, fh, PI2_HI);
    int rl = add(p, fma3(p, fh, kf(p, MT_F64, PI2_HI), neg(p, rh)),
                 fma3(p, fl, kf(p, MT_F64, PI2_HI), mulk(p, fh, PI2_LO)));
    *yh = add(p, rh, rl);
    *yl = sub(p, rl, sub(p, *yh, rh));
}

/* hi + lo = a + b for |a| >= |b| (Fast2Sum); returns hi */
static int fast_two_sum(MathProg *p, int a, int b, int *lo_) {
    int s = add(p, a, b);
    *lo_ = sub(p, b, sub(p, s, a));
    return s;
}

/* sin(yh + yl), |yh| <= pi/4, z = yh^2: Taylor to r^21; the result as
 * the returned hi + *lo_ */
static int sin_kernel(MathProg *p, int yh, int yl, int z, int *lo_) {
    double c[10];   /* (-1)^n / (2n+1)!, n = 1 .. 10 */
    long double f = 1;
    for (int n = 1; n <= 10; n++) {
        f /= (2 * n) * (2 * n + 1);
        c[n - 1] = (double)(n & 1 ? -f : f);
    }
    int tl = mul(p, yl, fmak(p, z, kf(p, MT_F64, -0.5), 1.0));   /* yl cos yh */
    return fast_two_sum(p, yh, fma3(p, mul(p, yh, z), poly(p, z, c, 10), tl), lo_);
}

/* cos(yh + yl): 1 - z/2 rounded, then its error and the rest */
static int cos_kernel(MathProg *p, int yh, int yl, int z, int *lo_) {
    double c[9];   /* (-1)^n / (2n)!, n = 2 .. 10 */
    long double f = 0.5L;
    for (int n = 2; n <= 10; n++) {
        f /= (2 * n - 1) * (2 * n);
        c[n - 2] = (double)(n & 1 ? -f : f);
    }
    int zl = fma3(p, yh, yh, neg(p, z));
    int hz = mulk(p, z, 0.5), w = ksub(p, 1.0, hz);
    int tail = fma3(p, zl, kf(p, MT_F64, -0.5), sub(p, ksub(p, 1.0, w), hz));
    tail = add(p, tail, fma3(p, mul(p, z, z), poly(p, z, c, 9), neg(p, mul(p, yh, yl))));
    return fast_two_sum(p, w, tail, lo_);
}

/* (nh + nl) / (dh + dl): the quotient, corrected by its residual */
static int div_dd(MathProg *p, int nh, int nl, int dh, int dl) {
    int t = dvd(p, nh, dh);
    int r = fma3(p, neg(p, t), dl, add(p, fma3(p, neg(p, t), dh, nh), nl));
    return add(p, t, dvd(p, r, dh));
}

static int trig_full(MathProg *p, MathFn f, int x) {
    int a = fabs_(p, x), q, yh, yl;
    reduce_ph(p, a, &q, &yh, &yl);
    int small = setpk(p, MC_LE, a, 0x1.921fb54442d18p-1);   /* pi/4 */
    yh = selp(p, small, a, yh);
    yl = selpk(p, small, 0.0, yl);
    q = selp(p, small, kb(p, 0), q);
    int z = mul(p, yh, yh);
    int sl, cl, s = sin_kernel(p, yh, yl, z, &sl), c = cos_kernel(p, yh, yl, z, &cl);
    int odd = setp(p, MC_NE, ik(p, MO_AND, q, 1), kb(p, 0));
    int r, flip;
    switch (f) {
    case MF_SIN:
        r = selp(p, odd, c, s);
        flip = setp(p, MC_NE, ik(p, MO_AND, q, 2), kb(p, 0));
        r = selp(p, flip, neg(p, r), r);
        break;
    case MF_COS:
        r = selp(p, odd, s, c);
        flip = setp(p, MC_NE, ik(p, MO_AND, ik(p, MO_IADD, q, 1), 2), kb(p, 0));
        r = selp(p, flip, neg(p, r), r);
        break;
    default: r = selp(p, odd, neg(p, div_dd(p, c, cl, s, sl)), div_dd(p, s, sl, c, cl)); break;
    }
    if (f != MF_COS) r = selp(p, sign_pred(p, x), neg(p, r), r);
    return selp(p, testp(p, MC_FINITE, x), r, kf(p, MT_F64, NAN));
}

/* ---- fp64 pow and hypot ---- */

/* log x as *rh + *rl (relative error ~2^-65) for finite x > 0: log_core's
 * reduction; s = (m-1)/(m+1) as s + sl, the s^3 term in two parts (it is
 * up to 1% of the result), the rest (below 2^-12 of it) in one */
static void log_dd(MathProg *p, int x, int *rh, int *rl) {
    double c[10];   /* 2/(2n+1), n = 2 .. 11 */
    for (int n = 2; n <= 11; n++) c[n - 2] = (double)(2.0L / (2 * n + 1));
    const double TT_HI = 2.0 / 3, TT_LO = (double)(2.0L / 3 - (long double)(2.0 / 3));
    int k, f;
    log_reduce(p, x, &k, &f);
    int d = addk(p, f, 2.0), dl = add(p, ksub(p, 2.0, d), f);   /* d + dl = f + 2 */
    int s = dvd(p, f, d);
    int sl = dvd(p, sub(p, fma3(p, neg(p, s), d, f), mul(p, s, dl)), d);
    int z = mul(p, s, s), zl = fma3(p, s, s, neg(p, z));
    int ch = mul(p, z, s);   /* s^3 = ch + cl */
    int cl = add(p, fma3(p, z, s, neg(p, ch)), fma3(p, zl, s, mul(p, mulk(p, z, 3.0), sl)));
    int th = mulk(p, ch, TT_HI);   /* 2 s^3 / 3 = th + tl */
    int tl = add(p, fma3(p, ch, kf(p, MT_F64, TT_HI), neg(p, th)), fma3(p, cl, kf(p, MT_F64, TT_HI), mulk(p, ch, TT_LO)));
    int rest = mul(p, mul(p, ch, z), poly(p, z, c, 10));
    int kd = cvt(p, MT_F64, k);
    int a, ae, b, be;
    two_sum(p, mulk(p, kd, LN2_HI42), mulk(p, s, 2.0), &a, &ae);
    two_sum(p, a, th, &b, &be);
    int lo_ = add(p, add(p, ae, be), fma3(p, sl, kf(p, MT_F64, 2.0), tl));
    lo_ = add(p, lo_, fma3(p, kd, kf(p, MT_F64, LN2_LO42), rest));
    *rh = add(p, b, lo_);
    *rl = sub(p, lo_, sub(p, *rh, b));
}

/* C99's special cases of pow around r = |x|^y */
static int pow_fix(MathProg *p, int x, int y, int r) {
    int yr = op1(p, MO_RZI, y), h = mulk(p, y, 0.5);
    int yint = setp(p, MC_EQ, yr, y), ynot = setp(p, MC_NE, yr, y);
    int yodd = pand(p, yint, setp(p, MC_NE, op1(p, MO_RZI, h), h));
    r = selp(p, pand(p, sign_pred(p, x), yodd), neg(p, r), r);
    int finite_neg = pand(p, setpk(p, MC_LT, x, 0.0), setpk(p, MC_GT, x, -INFINITY));
    r = selpk(p, pand(p, finite_neg, ynot), NAN, r);
    int one = por(p, setpk(p, MC_EQ, y, 0.0), setpk(p, MC_EQ, x, 1.0));
    one = por(p, one, pand(p, setpk(p, MC_EQ, x, -1.0), testp(p, MC_INF, y)));
    return selpk(p, one, 1.0, r);
}

/* fp64 pow: e^(y log|x|) with log|x| and the product in two parts */
static int pow64(MathProg *p, int x, int y) {
    int ax = fabs_(p, x), lh, ll;
    log_dd(p, ax, &lh, &ll);
    lh = log_special(p, ax, lh);
    int ph = mul(p, y, lh);
    int pl = fma3(p, y, ll, fma3(p, y, lh, neg(p, ph)));
    int pc = clamp(p, ph, -760, 720);
    int ok = pand(p, setp(p, MC_EQ, pc, ph), testp(p, MC_FINITE, pl));
    return pow_fix(p, x, y, exp_core(p, pc, selp(p, ok, pl, kf(p, MT_F64, 0.0)), 0));
}

/* fp64 hypot: scaled by 2^-600 or 2^600 beyond 2^+-500 (exact), x^2 + y^2
 * in two parts, its square root with one correction step */
static int hypot64(MathProg *p, int x, int y) {
    int ax = fabs_(p, x), ay = fabs_(p, y);
    int a = op2(p, MO_MAX, ax, ay), b = op2(p, MO_MIN, ax, ay);
    int big = setpk(p, MC_GT, a, 0x1p500), tiny = setpk(p, MC_LT, a, 0x1p-500);
    int sc = selpk(p, big, 0x1p-600, selpk(p, tiny, 0x1p600, kf(p, MT_F64, 1.0)));
    int un = selpk(p, big, 0x1p600, selpk(p, tiny, 0x1p-600, kf(p, MT_F64, 1.0)));
    int A = mul(p, a, sc), B = mul(p, b, sc);
    int a2 = mul(p, A, A), b2 = mul(p, B, B), sh, se;
    two_sum(p, a2, b2, &sh, &se);
    int sl = add(p, se, add(p, fma3(p, A, A, neg(p, a2)), fma3(p, B, B, neg(p, b2))));
    int h = sqrt_(p, sh);
    int r = add(p, fma3(p, neg(p, h), h, sh), sl);
    int res = mul(p, add(p, h, dvd(p, r, mulk(p, h, 2.0))), un);
    res = selpk(p, setpk(p, MC_EQ, a, 0.0), 0.0, res);
    res = selpk(p, por(p, testp(p, MC_NAN, x), testp(p, MC_NAN, y)), NAN, res);
    return selpk(p, por(p, testp(p, MC_INF, x), testp(p, MC_INF, y)), INFINITY, res);
}

/* ---- erfc, erfinv ---- */

/* erfc a for a >= 0.3, e = e^(-a^2) (a <= 27.5): the trapezoid sum of
 * Matta and Reid, step H (its error e^(-pi^2/H^2) ~ 2^-74), 16 terms,
 * plus the pole term 2/(1 - e^(2 pi a/H)) while it matters (a < 6) */
static int erfc_mr(MathProg *p, int a, int e) {
    const long double H = 0.4375L, PI = 3.14159265358979323846264338327950288L;
    int z = mul(p, a, a);
    int s = kf(p, MT_F64, 0.0);   /* the sum times H/pi */
    for (int k = 16; k >= 1; k--) {
        long double kh2 = (long double)k * k * H * H;
        s = add(p, s, kdiv(p, (double)(2 * expl(-kh2) * H / PI), addk(p, z, (double)kh2)));
    }
    s = add(p, s, kdiv(p, (double)(H / PI), z));
    int v = mul(p, mul(p, e, a), s);
    int ac = selpk(p, setpk(p, MC_GT, a, 6.0), 6.0, a);
    int pole = kdiv(p, -2.0, addk(p, exp_core(p, mulk(p, ac, (double)(2 * PI / H)), -1, 0), -1.0));
    return add(p, v, selpk(p, setpk(p, MC_GT, a, 6.0), 0.0, pole));
}

/* erfc: 1 - erf below 1/2 (erf < 0.53), Matta-Reid from there; erfc(-x)
 * = 2 - erfc(x) */
static int erfc_full(MathProg *p, int x) {
    int a = fabs_(p, x);
    int ac = selpk(p, setpk(p, MC_GT, a, 27.5), 27.5, a);
    int big = erfc_mr(p, ac, exp_negsq(p, ac));
    int r = selp(p, setpk(p, MC_LT, a, 0.5), ksub(p, 1.0, erf_series(p, a, 0.5, 20)), big);
    return selp(p, sign_pred(p, x), ksub(p, 2.0, r), r);
}

/* erfinv: Winitzki's closed form (about 2e-3 relative) then two Halley
 * steps x -= d/(1 + x d), d = (erf x - y)/erf'(x) (three at fp64: two
 * leave ~12 ulps at |y| = 1 - 2^-53); the residual is
 * (1 - |y|) - erfc x beyond 3/4, where 1 - |y| is exact */
static int erfinv_full(MathProg *p, int y, bool is64) {
    const double A = 0.147, TWO_PI_A = (double)(2 / (3.14159265358979323846264338327950288L * 0.147L));
    int a = fabs_(p, y);
    int om = ksub(p, 1.0, a);
    int w = log_full(p, mul(p, om, addk(p, a, 1.0)));   /* log(1 - a^2) */
    int b = fmak(p, w, kf(p, MT_F64, 0.5), TWO_PI_A);
    int x = sqrt_(p, sub(p, sqrt_(p, sub(p, mul(p, b, b), mulk(p, w, 1 / A))), b));
    int tail = setpk(p, MC_GT, a, 0.75);
    for (int it = 0; it < (is64 ? 3 : 2); it++) {
        int xc = clamp(p, x, 0.0, 27.5);
        int e = exp_negsq(p, xc);
        int fc = sub(p, erf_sum(p, selpk(p, setpk(p, MC_GT, xc, 0.9), 0.9, xc), e, 30), a);
        int ft = sub(p, om, erfc_mr(p, selpk(p, setpk(p, MC_LT, xc, 0.3), 0.3, xc), e));
        int d = dvd(p, selp(p, tail, ft, fc), mulk(p, e, TWO_OVER_SQRTPI));
        x = sub(p, x, dvd(p, d, fmak(p, x, d, 1.0)));
    }
    x = selpk(p, setpk(p, MC_EQ, a, 1.0), INFINITY, x);
    x = selpk(p, por(p, setpk(p, MC_GT, a, 1.0), testp(p, MC_NAN, a)), NAN, x);
    x = selpk(p, setpk(p, MC_EQ, a, 0.0), 0.0, x);
    return csign(p, y, x);
}

static int pow_full(MathProg *p, int x, int y) {
    int lg = log_full(p, fabs_(p, x));
    return pow_fix(p, x, y, exp_core(p, clamp(p, mul(p, y, lg), -760, 720), -1, 0));
}

static int cbrt_full(MathProg *p, int x) {
    /* subnormals scaled by 2^54 (the result by 2^-18): Newton's residual
     * must not be subnormal */
    int a0 = fabs_(p, x), sub_ = setpk(p, MC_LT, a0, 0x1p-1000);
    int a = selp(p, sub_, mulk(p, a0, 0x1p54), a0);
    int y0 = exp_core(p, mulk(p, log_core(p, a), 1.0 / 3), -1, 0);
    int y2 = mul(p, y0, y0);
    int r = fma3(p, y2, y0, neg(p, a));
    int y = sub(p, y0, dvd(p, r, mulk(p, y2, 3.0)));
    y = selp(p, sub_, mulk(p, y, 0x1p-18), y);
    y = selp(p, por(p, setpk(p, MC_EQ, a, 0.0), setpk(p, MC_EQ, a, INFINITY)), a, y);
    y = selpk(p, testp(p, MC_NAN, a), NAN, y);
    return csign(p, x, y);
}

/* the f64 functions of the f64 operands x, y */
static int f64_fn(MathProg *p, MathFn f, int x, int y) {
    switch (f) {
    case MF_EXP: return exp_full(p, x);
    case MF_EXP10: {
        int c = clamp(p, x, -330, 315);
        int h = mulk(p, c, LN10_HI);
        int l = fma3(p, c, kf(p, MT_F64, LN10_LO), fma3(p, c, kf(p, MT_F64, LN10_HI), neg(p, h)));
        return exp_core(p, h, l, 0);
    }
    case MF_EXPM1: return expm1_core(p, x);
    case MF_LOG1P: return log1p_full(p, x);
    case MF_LOG10: {
        int l = log_full(p, x);
        return fma3(p, l, kf(p, MT_F64, ILN10_HI), mulk(p, l, ILN10_LO));
    }
    case MF_TANH: {
        int a = fabs_(p, x), em = expm1_core(p, mulk(p, a, 2.0));
        int t = dvd(p, em, addk(p, em, 2.0));
        return csign(p, x, selpk(p, setpk(p, MC_GT, a, 22.0), 1.0, t));
    }
    case MF_SINH: {
        int a = fabs_(p, x), em = expm1_core(p, a);
        int s1 = mulk(p, add(p, em, dvd(p, em, addk(p, em, 1.0))), 0.5);
        int h = exp_core(p, clamp(p, a, 0, 720), -1, -1);
        int s2 = sub(p, h, kdiv(p, 0.25, h));
        return csign(p, x, selp(p, setpk(p, MC_GE, a, 1.0), s2, s1));
    }
    case MF_COSH: {
        int h = exp_core(p, clamp(p, fabs_(p, x), 0, 720), -1, -1);
        return add(p, h, kdiv(p, 0.25, h));
    }
    case MF_ASINH: {
        int a = fabs_(p, x), a2 = mul(p, a, a);
        int t = add(p, a, dvd(p, a2, addk(p, sqrt_(p, addk(p, a2, 1.0)), 1.0)));
        int big = addk(p, log_full(p, a), LN2);
        return csign(p, x, selp(p, setpk(p, MC_GT, a, 0x1p28), big, log1p_full(p, t)));
    }
    case MF_ACOSH: {
        int t = addk(p, x, -1.0);
        int s = sqrt_(p, fma3(p, t, t, mulk(p, t, 2.0)));
        int big = addk(p, log_full(p, x), LN2);
        int r = selp(p, setpk(p, MC_GT, x, 0x1p28), big, log1p_full(p, add(p, t, s)));
        return selpk(p, setpk(p, MC_LTU, x, 1.0), NAN, r);
    }
    case MF_ATANH: {
        int a = fabs_(p, x);
        int l = log1p_full(p, dvd(p, mulk(p, a, 2.0), ksub(p, 1.0, a)));
        return csign(p, x, mulk(p, l, 0.5));
    }
    case MF_ATAN: return atan_full(p, x);
    case MF_ATAN2: return atan2_full(p, x, y);
    case MF_ASIN: case MF_ACOS: {
        /* 1 - x^2: one rounding (fma) for |x| < 1/2, else (1 - x)(1 + x), where 1 - |x| is exact */
        int big = mul(p, ksub(p, 1.0, x), addk(p, x, 1.0)), small = fma3(p, neg(p, x), x, kf(p, MT_F64, 1.0));
        int s = sqrt_(p, selp(p, setpk(p, MC_LT, fabs_(p, x), 0.5), small, big));
        return f == MF_ASIN ? atan2_full(p, x, s) : atan2_full(p, s, x);
    }
    case MF_CBRT: return cbrt_full(p, x);
    case MF_POW: return pow_full(p, x, y);
    case MF_HYPOT: {
        int s = sqrt_(p, fma3(p, x, x, mul(p, y, y)));
        return selpk(p, por(p, testp(p, MC_INF, x), testp(p, MC_INF, y)), INFINITY, s);
    }
    default: tric_unreachable();
    }
}

/* fp32 operands widened, or fp64 ones (is64): some fp64 functions take
 * more care than the fp32 ones need */
static int erf_or_f64(MathProg *p, MathFn f, int x, int y, bool is64) {
    switch (f) {
    case MF_ERF: return erf_full(p, x);
    case MF_POW: return is64 ? pow64(p, x, y) : pow_full(p, x, y);
    case MF_HYPOT: return is64 ? hypot64(p, x, y) : f64_fn(p, f, x, y);
    case MF_SIN: case MF_COS: case MF_TAN: return trig_full(p, f, x);
    case MF_ERFC: return erfc_full(p, x);
    case MF_ERFINV: return erfinv_full(p, x, is64);
    default: return f64_fn(p, f, x, y);
    }
}

/* round half away from zero: the truncation, plus 1 if the rest >= 1/2 */
static int round_away(MathProg *p, int x) {
    int a = fabs_(p, x), t = op1(p, MO_RZI, a);
    int r = selp(p, setpk(p, MC_GE, sub(p, a, t), 0.5), addk(p, t, 1.0), t);
    return csign(p, x, r);
}

static int one_zero(MathProg *p, int pred) { return selp(p, pred, kb(p, 1), kb(p, 0)); }

static int fast_fn(MathProg *p, MathFn f, int x, int y) {
    switch (f) {
    case MF_FAST_EXP: return op1(p, MO_EX2A, mulk(p, x, 0x1.715476p+0));
    case MF_FAST_EXP10: return op1(p, MO_EX2A, mulk(p, x, 0x1.a934f0p+1));
    case MF_FAST_LOG: return mulk(p, op1(p, MO_LG2A, x), 0x1.62e430p-1);
    case MF_FAST_LOG2: return op1(p, MO_LG2A, x);
    case MF_FAST_LOG10: return mulk(p, op1(p, MO_LG2A, x), 0x1.344136p-2);
    case MF_FAST_SIN: return op1(p, MO_SINA, x);
    case MF_FAST_COS: return op1(p, MO_COSA, x);
    case MF_FAST_TAN: return op2(p, MO_DIVF, op1(p, MO_SINA, x), op1(p, MO_COSA, x));
    case MF_FAST_POW: return op1(p, MO_EX2A, mul(p, y, op1(p, MO_LG2A, x)));
    case MF_FAST_DIV: return op2(p, MO_DIVF, x, y);
    default: tric_unreachable();
    }
}

static MType mtype_of(ElemType e) {
    switch (e) {
    case ET_F32: return MT_F32;
    case ET_F64: return MT_F64;
    case ET_I32: case ET_U32: return MT_B32;
    case ET_I64: case ET_U64: return MT_B64;
    default: tric_unreachable();
    }
}

static int body(MathProg *p, MathFn f, ElemType e, const int *in) {
    int x = in[0], y = in[1], z = in[2];
    switch (f) {
    case MF_FLOOR: return op1(p, MO_RMI, x);
    case MF_CEIL: return op1(p, MO_RPI, x);
    case MF_TRUNC: return op1(p, MO_RZI, x);
    case MF_RINT: return op1(p, MO_RNI, x);
    case MF_ROUND: return round_away(p, x);
    case MF_FMA: return fma3(p, x, y, z);
    case MF_DIV_RN: return dvd(p, x, y);
    case MF_SQRT_RN: return sqrt_(p, x);
    case MF_COPYSIGN: return csign(p, y, x);
    case MF_ISNAN: return one_zero(p, testp(p, MC_NAN, x));
    case MF_ISINF: return one_zero(p, testp(p, MC_INF, x));
    case MF_ISFINITE: return one_zero(p, testp(p, MC_FINITE, x));
    case MF_SIGNBIT: {
        int w = e == ET_F64 ? hi(p, x) : ins(p, MO_MOVB, MT_B32, x, 0, 0, 0, MC_EQ);
        return ins(p, MO_SHRU, MT_B32, w, kb(p, 31), 0, 0, MC_EQ);
    }
    case MF_POPC: case MF_CLZ: return ins(p, f == MF_POPC ? MO_POPC : MO_CLZ, MT_B32, x, 0, 0, 0, MC_EQ);
    case MF_BREV: return op1(p, MO_BREV, x);
    case MF_MULHI: return ins(p, MO_MULHI, TY(x), x, y, 0, elem_is_signed(e), MC_EQ);
    case MF_FAST_EXP: case MF_FAST_EXP10: case MF_FAST_LOG: case MF_FAST_LOG2: case MF_FAST_LOG10:
    case MF_FAST_SIN: case MF_FAST_COS: case MF_FAST_TAN: case MF_FAST_POW: case MF_FAST_DIV:
        return fast_fn(p, f, x, y);
    default: break;
    }
    /* the f64 algorithms: fp32 operands widen (exactly) and round once */
    if (e == ET_F64) return erf_or_f64(p, f, x, y, true);
    if (f == MF_TANH) return tanh32(p, x);
    if (f == MF_ERF) return erf32(p, x);
    int wx = cvt(p, MT_F64, x), wy = mathfn_info[f].n_args > 1 ? cvt(p, MT_F64, y) : -1;
    return cvt(p, MT_F32, erf_or_f64(p, f, wx, wy, false));
}

void mathfn_build(MathProg *p, MathFn f, ElemType e) {
    TRIC_ASSERT(mathfn_accepts(f, e));
    p->n_ins = p->n_regs = 0;
    p->n_in = mathfn_info[f].n_args;
    int in[3] = {-1, -1, -1};
    for (int i = 0; i < p->n_in; i++) in[i] = reg(p, mtype_of(e));
    p->out = body(p, f, e, in);
}

/* ---- the executor: PTX's semantics (doc/sim.md), NaNs canonical ---- */

static float f32_of(uint64_t v) {
    uint32_t w = (uint32_t)v;
    float f;
    memcpy(&f, &w, 4);
    return f;
}

static double f64_of(uint64_t v) {
    double d;
    memcpy(&d, &v, 8);
    return d;
}

static uint64_t bits_f32(float f) {
    uint32_t w;
    if (isnan(f)) return 0x7FFFFFFFu;
    memcpy(&w, &f, 4);
    return w;
}

static uint64_t bits_f64(double d) {
    uint64_t u;
    if (isnan(d)) return UINT64_C(0x7FFFFFFFFFFFFFFF);
    memcpy(&u, &d, 8);
    return u;
}

static double fval(MType t, uint64_t v) { return t == MT_F32 ? (double)f32_of(v) : f64_of(v); }
static uint64_t fbits(MType t, double d) { return t == MT_F32 ? bits_f32((float)d) : bits_f64(d); }

static bool cmp_float(MathCmp c, double x, double y) {
    bool un = isnan(x) || isnan(y);
    switch (c) {
    case MC_EQ: return !un && x == y;
    case MC_NE: return !un && x != y;
    case MC_LT: return !un && x < y;
    case MC_LE: return !un && x <= y;
    case MC_GT: return !un && x > y;
    case MC_GE: return !un && x >= y;
    case MC_LTU: return un || x < y;
    case MC_GEU: return un || x >= y;
    default: tric_unreachable();
    }
}

/* integer compares by the sign of x - y: order < 0, 0 or > 0 */
static bool cmp_order(MathCmp c, int order) {
    switch (c) {
    case MC_EQ: return order == 0;
    case MC_NE: return order != 0;
    case MC_LT: return order < 0;
    case MC_LE: return order <= 0;
    case MC_GT: return order > 0;
    case MC_GE: return order >= 0;
    default: tric_unreachable();
    }
}

/* min/max: a NaN operand loses; both NaN give the canonical one; -0 < +0 */
static uint64_t fminmax(MType t, bool is_min, uint64_t a, uint64_t b) {
    double x = fval(t, a), y = fval(t, b);
    if (isnan(x) && isnan(y)) return fbits(t, NAN);
    if (isnan(x)) return b;
    if (isnan(y)) return a;
    if (x == y && x == 0) return signbit(x) == is_min ? a : b;
    return (is_min ? x < y : x > y) ? a : b;
}

/* f32 arithmetic in float (one rounding to f32), f64 in double */
static uint64_t farith(MOp op, MType t, uint64_t a, uint64_t b, uint64_t c) {
    if (t == MT_F32) {
        float x = f32_of(a), y = f32_of(b), z = f32_of(c);
        switch (op) {
        case MO_ADD: return bits_f32(x + y);
        case MO_SUB: return bits_f32(x - y);
        case MO_MUL: return bits_f32(x * y);
        case MO_FMA: return bits_f32(fmaf(x, y, z));
        case MO_DIV: case MO_DIVF: return bits_f32(x / y);
        case MO_SQRT: return bits_f32(sqrtf(x));
        default: tric_unreachable();
        }
    }
    double x = f64_of(a), y = f64_of(b), z = f64_of(c);
    switch (op) {
    case MO_ADD: return bits_f64(x + y);
    case MO_SUB: return bits_f64(x - y);
    case MO_MUL: return bits_f64(x * y);
    case MO_FMA: return bits_f64(fma(x, y, z));
    case MO_DIV: return bits_f64(x / y);
    case MO_SQRT: return bits_f64(sqrt(x));
    default: tric_unreachable();
    }
}

static uint64_t round_integral(MOp op, MType t, uint64_t a) {
    double x = fval(t, a), r;
    switch (op) {
    case MO_RNI: r = nearbyint(x); break;
    case MO_RMI: r = floor(x); break;
    case MO_RPI: r = ceil(x); break;
    default: r = trunc(x); break;
    }
    return fbits(t, r);
}

/* cvt between the classes (see MO_CVT) */
static uint64_t convert(MType to, MType from, uint64_t a) {
    if (from == MT_B64 && to == MT_B32) return a & 0xFFFFFFFFu;   /* cvt.u32.u64 */
    if (from == MT_B32) return fbits(to, (double)(int32_t)(uint32_t)a);
    if (from == MT_B64) return fbits(to, (double)(int64_t)a);
    double x = fval(from, a);
    if (to != MT_B32) return fbits(to, x);
    if (isnan(x)) return 0;
    double r = nearbyint(x);
    if (r <= -0x1p31) return 0x80000000u;
    if (r >= 0x1p31 - 1) return 0x7FFFFFFFu;
    return (uint32_t)(int32_t)r;
}

static int clz64(uint64_t v, int bits) {
    int n = 0;
    for (int i = bits - 1; i >= 0 && !((v >> i) & 1); i--) n++;
    return n;
}

static uint64_t brev(uint64_t v, int bits) {
    uint64_t r = 0;
    for (int i = 0; i < bits; i++) r |= ((v >> i) & 1) << (bits - 1 - i);
    return r;
}

static uint64_t mulhi(uint64_t a, uint64_t b, int bits, bool s) {
    if (bits == 32) {
        if (s) return (uint32_t)(((int64_t)(int32_t)a * (int32_t)b) >> 32);
        return (uint32_t)(((uint64_t)(uint32_t)a * (uint32_t)b) >> 32);
    }
    if (s) return (uint64_t)(((__int128)(int64_t)a * (int64_t)b) >> 64);
    return (uint64_t)(((unsigned __int128)a * b) >> 64);
}

static uint64_t approx(MOp op, uint64_t a) {
    double x = f32_of(a);
    switch (op) {
    case MO_EX2A: return bits_f32((float)exp2(x));
    case MO_LG2A: return bits_f32((float)log2(x));
    case MO_SINA: return bits_f32((float)sin(x));
    default: return bits_f32((float)cos(x));
    }
}

static bool testp_class(MathCmp c, double x) {
    switch (c) {
    case MC_NAN: return isnan(x);
    case MC_INF: return isinf(x);
    default: return isfinite(x);
    }
}

/* an f32 subnormal as the zero of its sign, as .ftz reads and writes it */
static uint64_t ftz32(uint64_t v) { return (v & 0x7F800000u) == 0 ? v & 0x80000000u : v; }

/* bfe.u32: len bits of a from bit pos (PTX takes both from 0 .. 255) */
static uint64_t bfe32(uint64_t a, uint64_t pos, uint64_t len) {
    pos &= 0xFF;
    len &= 0xFF;
    uint64_t v = pos >= 32 ? 0 : (uint32_t)a >> pos;
    return len >= 32 ? v : v & ((UINT64_C(1) << len) - 1);
}

static uint64_t run_step(const MathProg *p, const MIns *in, MType t, MType ta, uint64_t a, uint64_t b, uint64_t c);

static uint64_t run_one(const MathProg *p, const MIns *in, const uint64_t *r) {
    MType t = (MType)p->rty[in->d], ta = (MType)p->rty[in->a];
    uint64_t a = r[in->a], b = r[in->b], c = r[in->c];
    if (!(in->fl & MI_FTZ)) return run_step(p, in, t, ta, a, b, c);
    if (ta == MT_F32) a = ftz32(a);
    if (p->rty[in->b] == MT_F32) b = ftz32(b);
    if (p->rty[in->c] == MT_F32) c = ftz32(c);
    uint64_t v = run_step(p, in, t, ta, a, b, c);
    return t == MT_F32 ? ftz32(v) : v;
}

static uint64_t run_step(const MathProg *p, const MIns *in, MType t, MType ta, uint64_t a, uint64_t b, uint64_t c) {
    int w = t == MT_B64 || t == MT_F64 ? 64 : 32;
    uint64_t mask = w == 64 ? ~UINT64_C(0) : 0xFFFFFFFFu, sign = UINT64_C(1) << (w - 1);
    switch ((MOp)in->op) {
    case MO_CONST: case MO_IMM: return in->imm;
    case MO_ADD: case MO_SUB: case MO_MUL: case MO_FMA: case MO_DIV: case MO_SQRT: case MO_DIVF:
        return farith((MOp)in->op, t, a, b, c);
    case MO_NEG: return t == MT_B32 || t == MT_B64 ? (0 - a) & mask : (a ^ sign) & mask;
    case MO_ABS: return a & ~sign & mask;
    case MO_MIN: case MO_MAX: return fminmax(t, in->op == MO_MIN, a, b);
    case MO_COPYSIGN: return (b & ~sign) | (a & sign);
    case MO_RNI: case MO_RMI: case MO_RPI: case MO_RZI: return round_integral((MOp)in->op, t, a);
    case MO_CVT: return convert(t, ta, a);
    case MO_SETP:
        if (ta == MT_B32 && !(in->fl & MI_U)) {   /* b32 compares signed, b64 unsigned */
            int32_t x = (int32_t)(uint32_t)a, y = (int32_t)(uint32_t)b;
            return cmp_order((MathCmp)in->cmp, (x > y) - (x < y));
        }
        if (ta == MT_B32 || ta == MT_B64) return cmp_order((MathCmp)in->cmp, (a > b) - (a < b));
        return cmp_float((MathCmp)in->cmp, fval(ta, a), fval(ta, b));
    case MO_TESTP: return testp_class((MathCmp)in->cmp, fval(ta, a));
    case MO_SELP: return c ? a : b;
    case MO_IADD: return (a + b) & mask;
    case MO_ISUB: return (a - b) & mask;
    case MO_AND: return t == MT_PRED ? (a && b) : a & b;
    case MO_OR: return t == MT_PRED ? (a || b) : a | b;
    case MO_SHL: return (uint32_t)b >= (uint32_t)w ? 0 : (a << b) & mask;
    case MO_SHRU: return (uint32_t)b >= (uint32_t)w ? 0 : a >> b;
    case MO_SHRS: {
        int64_t s = w == 64 ? (int64_t)a : (int64_t)(int32_t)(uint32_t)a;
        s = (uint32_t)b >= (uint32_t)w ? (s < 0 ? -1 : 0) : s >> b;
        return (uint64_t)s & mask;
    }
    case MO_HI: return a >> 32;
    case MO_LO: return a & 0xFFFFFFFFu;
    case MO_PACK: return (b << 32) | (a & 0xFFFFFFFFu);
    case MO_MOVB: return a & 0xFFFFFFFFu;
    case MO_POPC: return (uint64_t)__builtin_popcountll(a);
    case MO_CLZ: return (uint64_t)clz64(a, ta == MT_B64 ? 64 : 32);
    case MO_BREV: return brev(a, w);
    case MO_MULHI: return mulhi(a, b, w, in->imm != 0) & mask;
    case MO_MULLO: return (a * b) & mask;
    case MO_MAD: return (a * b + c) & mask;
    case MO_MULWIDE: return (a & 0xFFFFFFFFu) * (b & 0xFFFFFFFFu);
    case MO_MADWIDE: return (a & 0xFFFFFFFFu) * (b & 0xFFFFFFFFu) + c;
    case MO_BFE: return bfe32(a, b, c);
    case MO_XOR: return a ^ b;
    case MO_SPLIT: return a & 0xFFFFFFFFu;   /* the high word: mathfn_run */
    case MO_EX2A: case MO_LG2A: case MO_SINA: case MO_COSA: return approx((MOp)in->op, a);
    }
    tric_unreachable();
}

uint64_t mathfn_run(const MathProg *p, const uint64_t *args) {
    uint64_t r[MP_MAX_REGS];
    for (int i = 0; i < p->n_in; i++) {
        MType t = (MType)p->rty[i];
        r[i] = t == MT_B64 || t == MT_F64 ? args[i] : args[i] & 0xFFFFFFFFu;
    }
    for (int i = 0; i < p->n_ins; i++) {
        const MIns *in = &p->ins[i];
        if (in->op == MO_SPLIT) r[in->c] = r[in->a] >> 32;   /* before d: a may be d */
        r[in->d] = run_one(p, in, r);
    }
    return r[p->out];
}
