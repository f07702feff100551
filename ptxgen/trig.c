/* f32 cos and sin (tl.cos, tl.sin; Box-Muller in tl.randn), which Triton
 * takes from libdevice and PTX has only as .approx (absolute error 2^-21 on
 * [-pi, pi], far worse beyond). Straight-line code, every rounding explicit:
 *
 *   |x| < 1/2:  r = |x| (no reduction), quadrant 0.
 *   otherwise   Payne-Hanek: |x| = m 2^(E-23), m the 24-bit integer
 *               mantissa. The bits of 2/pi of weight above 2^(E-25) make
 *               multiples of 4 (whole turns) and are skipped; the next 96
 *               bits V (a window of base/trig.h's table, picked by selects
 *               and funnelled by 64-bit shifts) give (m V mod 2^96) 2^-94 =
 *               |x| 2/pi mod 4 with an error below 2^-70: its top 2 bits are
 *               the quadrant, the next 64 the fraction, rounded to the
 *               nearest quadrant so the remainder is in [-1/2, 1/2) quarter
 *               turns, then r = remainder * pi/2 in f64 (relative error
 *               2^-52; f32 arguments come no closer to a multiple of pi/2
 *               than ~2^-30 relative, so nothing is lost to cancellation).
 *   sin r = r + r z S(z), cos r = 1 + z C(z) (z = r^2, Taylor to r^13 and
 *   r^14, all in f64 with fma), picked and negated by the quadrant (cos x
 *   is sin of quadrant + 1), the sign of x applied to sin, rounded once to
 *   f32: correctly rounded except where the f64 value lies within ~2^-25 ulp
 *   of a rounding boundary. inf and NaN give the canonical NaN.
 * interp/trig.c is the same computation in C (bit-identical results);
 * test/unit/test_trig.c compares both with libm and runs this text on the
 * PTX simulator. */
#include "ptx.h"
#include "../base/trig.h"

static Reg b32(Ptx *P) { return ptx_reg(P, RC_B32); }
static Reg b64(Ptx *P) { return ptx_reg(P, RC_B64); }
static Reg f64(Ptx *P) { return ptx_reg(P, RC_F64); }
static Reg pred(Ptx *P) { return ptx_reg(P, RC_PRED); }

/* Word k of the table at index w + k, for w in [0, 4] (a b32 register) */
static Reg table_word(Ptx *P, const Reg *is_w, int k) {
    Reg v = b32(P);
    ptx_ins(P, "mov.b32 %R, %x;", v, trig_two_over_pi[k]);
    for (int i = 1; i <= 4; i++) {
        Reg n = b32(P);
        ptx_ins(P, "selp.b32 %R, %x, %R, %R;", n, trig_two_over_pi[k + i], v, is_w[i]);
        v = n;
    }
    return v;
}

/* The 32 bits of hi:lo starting s bits below hi's top; sh = 32 - s */
static Reg funnel(Ptx *P, Reg hi, Reg lo, Reg sh) {
    Reg w = b64(P), t = b64(P), d = b32(P);
    ptx_ins(P, "mov.b64 %R, {%R, %R};", w, lo, hi);
    ptx_ins(P, "shr.b64 %R, %R, %R;", t, w, sh);
    ptx_ins(P, "cvt.u32.u64 %R, %R;", d, t);
    return d;
}

/* Payne-Hanek for biased exponent be (clamped to <= 254 by the caller):
 * the quadrant q and the remainder r in radians */
static void reduce_large(Ptx *P, Reg ax, Reg be, Reg q, Reg r) {
    Reg b = b32(P), w = b32(P), s = b32(P), sh = b32(P), m = b32(P);
    ptx_ins(P, "sub.u32 %R, %R, 120;", b, be);
    ptx_ins(P, "shr.u32 %R, %R, 5;", w, b);
    ptx_ins(P, "and.b32 %R, %R, 31;", s, b);
    ptx_ins(P, "neg.s32 %R, %R;", sh, s);
    ptx_ins(P, "add.u32 %R, %R, 32;", sh, sh);
    ptx_ins(P, "and.b32 %R, %R, 8388607;", m, ax);
    ptx_ins(P, "or.b32 %R, %R, 8388608;", m, m);
    Reg is_w[5] = {0};
    for (int i = 1; i <= 4; i++) {
        is_w[i] = pred(P);
        ptx_ins(P, "setp.eq.u32 %R, %R, %d;", is_w[i], w, i);
    }
    Reg t[4];
    for (int k = 0; k < 4; k++) t[k] = table_word(P, is_w, k);
    Reg w0 = funnel(P, t[0], t[1], sh), w1 = funnel(P, t[1], t[2], sh), w2 = funnel(P, t[2], t[3], sh);
    /* m V mod 2^96 as a2:a1:a0 */
    Reg p0 = b64(P), c0 = b64(P), p1 = b64(P), c1 = b64(P), p2 = b64(P);
    ptx_ins(P, "mul.wide.u32 %R, %R, %R;", p0, m, w2);
    ptx_ins(P, "shr.u64 %R, %R, 32;", c0, p0);
    ptx_ins(P, "mad.wide.u32 %R, %R, %R, %R;", p1, m, w1, c0);
    ptx_ins(P, "shr.u64 %R, %R, 32;", c1, p1);
    ptx_ins(P, "mad.wide.u32 %R, %R, %R, %R;", p2, m, w0, c1);
    Reg a0 = b32(P), a1 = b32(P), a2 = b32(P);
    ptx_ins(P, "cvt.u32.u64 %R, %R;", a0, p0);
    ptx_ins(P, "cvt.u32.u64 %R, %R;", a1, p1);
    ptx_ins(P, "cvt.u32.u64 %R, %R;", a2, p2);
    /* g: the 64 fraction bits after the quadrant's two */
    Reg f2 = b32(P), g2 = b64(P), g1 = b64(P), g0 = b64(P), a0s = b32(P), g = b64(P), g12 = b64(P);
    ptx_ins(P, "and.b32 %R, %R, 1073741823;", f2, a2);
    ptx_ins(P, "cvt.u64.u32 %R, %R;", g2, f2);
    ptx_ins(P, "shl.b64 %R, %R, 34;", g2, g2);
    ptx_ins(P, "cvt.u64.u32 %R, %R;", g1, a1);
    ptx_ins(P, "shl.b64 %R, %R, 2;", g1, g1);
    ptx_ins(P, "shr.u32 %R, %R, 30;", a0s, a0);
    ptx_ins(P, "cvt.u64.u32 %R, %R;", g0, a0s);
    ptx_ins(P, "or.b64 %R, %R, %R;", g12, g2, g1);
    ptx_ins(P, "or.b64 %R, %R, %R;", g, g12, g0);
    /* a fraction >= 1/2 rounds up to the next quadrant: g as signed */
    Reg qh = b32(P), up64 = b64(P), up = b32(P), fd = f64(P);
    ptx_ins(P, "shr.u32 %R, %R, 30;", qh, a2);
    ptx_ins(P, "shr.u64 %R, %R, 63;", up64, g);
    ptx_ins(P, "cvt.u32.u64 %R, %R;", up, up64);
    ptx_ins(P, "add.u32 %R, %R, %R;", q, qh, up);
    ptx_ins(P, "cvt.rn.f64.s64 %R, %R;", fd, g);
    ptx_ins(P, "mul.rn.f64 %R, %R, %D;", r, fd, TRIG_QUARTER_TURN);
}

/* p(z) by Horner with fma, c[0] the constant term */
static Reg poly(Ptx *P, const double *c, int n, Reg z) {
    Reg p = f64(P);
    ptx_ins(P, "mov.f64 %R, %D;", p, c[n - 1]);
    for (int i = n - 2; i >= 0; i--) {
        Reg t = f64(P);
        ptx_ins(P, "fma.rn.f64 %R, %R, %R, %D;", t, p, z, c[i]);
        p = t;
    }
    return p;
}

static void trig_f32(Ptx *P, bool is_cos, Reg d, Reg a) {
    Reg u = b32(P), ax = b32(P), be = b32(P), bec = b32(P), fa = ptx_reg(P, RC_F32);
    ptx_ins(P, "mov.b32 %R, %R;", u, a);
    ptx_ins(P, "and.b32 %R, %R, 2147483647;", ax, u);
    ptx_ins(P, "shr.u32 %R, %R, 23;", be, ax);
    ptx_ins(P, "min.u32 %R, %R, 254;", bec, be);
    ptx_ins(P, "mov.b32 %R, %R;", fa, ax);
    Reg rs = f64(P), rl = f64(P), ql = b32(P), large = pred(P), r = f64(P), q = b32(P);
    ptx_ins(P, "cvt.f64.f32 %R, %R;", rs, fa);
    reduce_large(P, ax, bec, ql, rl);
    ptx_ins(P, "setp.ge.u32 %R, %R, 126;", large, be);
    ptx_ins(P, "selp.f64 %R, %R, %R, %R;", r, rl, rs, large);
    ptx_ins(P, "selp.b32 %R, %R, 0, %R;", q, ql, large);
    Reg z = f64(P), rz = f64(P), s = f64(P), c = f64(P);
    ptx_ins(P, "mul.rn.f64 %R, %R, %R;", z, r, r);
    ptx_ins(P, "mul.rn.f64 %R, %R, %R;", rz, r, z);
    ptx_ins(P, "fma.rn.f64 %R, %R, %R, %R;", s, rz, poly(P, trig_sin_poly, 6, z), r);
    ptx_ins(P, "fma.rn.f64 %R, %R, %R, 0d3FF0000000000000;", c, z, poly(P, trig_cos_poly, 7, z));
    /* n = q (+1 for cos): odd takes cos r, bit 1 negates */
    Reg n = b32(P), odd = b32(P), neg = b32(P), po = pred(P), pn = pred(P), v = f64(P), nv = f64(P), v2 = f64(P);
    ptx_ins(P, "add.u32 %R, %R, %d;", n, q, is_cos ? 1 : 0);
    ptx_ins(P, "and.b32 %R, %R, 1;", odd, n);
    ptx_ins(P, "and.b32 %R, %R, 2;", neg, n);
    ptx_ins(P, "setp.ne.u32 %R, %R, 0;", po, odd);
    ptx_ins(P, "setp.ne.u32 %R, %R, 0;", pn, neg);
    ptx_ins(P, "selp.f64 %R, %R, %R, %R;", v, c, s, po);
    ptx_ins(P, "neg.f64 %R, %R;", nv, v);
    ptx_ins(P, "selp.f64 %R, %R, %R, %R;", v2, nv, v, pn);
    if (!is_cos) {   /* sin(-x) = -sin(x) */
        Reg px = pred(P), nv2 = f64(P), v3 = f64(P);
        ptx_ins(P, "setp.lt.s32 %R, %R, 0;", px, u);
        ptx_ins(P, "neg.f64 %R, %R;", nv2, v2);
        ptx_ins(P, "selp.f64 %R, %R, %R, %R;", v3, nv2, v2, px);
        v2 = v3;
    }
    Reg res = ptx_reg(P, RC_F32), special = pred(P);
    ptx_ins(P, "cvt.rn.f32.f64 %R, %R;", res, v2);
    ptx_ins(P, "setp.eq.u32 %R, %R, 255;", special, be);
    ptx_ins(P, "selp.f32 %R, 0f7FFFFFFF, %R, %R;", d, res, special);
}

void ptx_math_cos_f32(Ptx *P, Reg d, Reg a) { trig_f32(P, true, d, a); }
void ptx_math_sin_f32(Ptx *P, Reg d, Reg a) { trig_f32(P, false, d, a); }
