/* f32 cos and sin (tl.cos, tl.sin; Box-Muller in tl.randn) as libdevice's
 * cosf and sinf, which Triton calls: the same operations in the same order
 * (constants and method in base/trig.h), so the results are Triton's bit
 * for bit. Where libdevice branches (the Payne-Hanek slow path for
 * |x| >= 105615, infinities, the quadrant's choice of polynomial and sign)
 * this is straight-line code: the slow path is computed for every lane
 * (its loop over the 2/pi table unrolled, the table words immediates, the
 * window picked by selects instead of local memory) and selected.
 * interp/trig.c is the same computation in C; test/unit/test_trig.c
 * compares both with libm and runs this text on the PTX simulator. */
#include "ptx.h"
#include "../base/trig.h"

static Reg b32(Ptx *P) { return ptx_reg(P, RC_B32); }
static Reg b64(Ptx *P) { return ptx_reg(P, RC_B64); }
static Reg f32(Ptx *P) { return ptx_reg(P, RC_F32); }
static Reg f64(Ptx *P) { return ptx_reg(P, RC_F64); }
static Reg pred(Ptx *P) { return ptx_reg(P, RC_PRED); }

/* d = c ? a : b for b32 registers */
static Reg sel(Ptx *P, Reg a, Reg b, Reg c) {
    Reg d = b32(P);
    ptx_ins(P, "selp.b32 %R, %R, %R, %R;", d, a, b, c);
    return d;
}

/* The top 32 bits of hi:lo shifted left by s (0..31) */
static Reg shl_hi(Ptx *P, Reg hi, Reg lo, Reg s) {
    Reg w = b64(P), t = b64(P), h = b64(P), d = b32(P);
    ptx_ins(P, "mov.b64 %R, {%R, %R};", w, lo, hi);
    ptx_ins(P, "shl.b64 %R, %R, %R;", t, w, s);
    ptx_ins(P, "shr.u64 %R, %R, 32;", h, t);
    ptx_ins(P, "cvt.u32.u64 %R, %R;", d, h);
    return d;
}

/* Payne-Hanek (meaningful for finite |x| >= TRIG_FAST_LIMIT): the
 * quadrant q and the remainder r in radians, from x's bits u */
static void reduce_slow(Ptx *P, Reg u, Reg q, Reg r) {
    Reg m = b32(P), w[7], carry = REG_NONE;
    ptx_ins(P, "shl.b32 %R, %R, 8;", m, u);
    ptx_ins(P, "or.b32 %R, %R, 0x80000000;", m, m);
    for (int k = 0; k < 6; k++) {   /* w = m * 2/pi, 32 bits at a time */
        Reg p = b64(P);
        if (k == 0) ptx_ins(P, "mul.wide.u32 %R, %R, %x;", p, m, trig_two_over_pi[k]);
        else ptx_ins(P, "mad.wide.u32 %R, %R, %x, %R;", p, m, trig_two_over_pi[k], carry);
        w[k] = b32(P);
        ptx_ins(P, "cvt.u32.u64 %R, %R;", w[k], p);
        carry = b64(P);
        ptx_ins(P, "shr.u64 %R, %R, 32;", carry, p);
    }
    w[6] = b32(P);
    ptx_ins(P, "cvt.u32.u64 %R, %R;", w[6], carry);
    /* the window: words 6-j, 5-j, 4-j for j = (exponent >> 5) - 4 in 0..3 */
    Reg e = b32(P), j = b32(P), s = b32(P), is[4];
    ptx_ins(P, "shr.u32 %R, %R, 23;", e, u);
    ptx_ins(P, "bfe.u32 %R, %R, 5, 2;", j, e);
    ptx_ins(P, "and.b32 %R, %R, 31;", s, e);
    for (int i = 1; i < 4; i++) {
        is[i] = pred(P);
        ptx_ins(P, "setp.eq.u32 %R, %R, %d;", is[i], j, i);
    }
    Reg win[3];
    for (int k = 0; k < 3; k++) {
        Reg v = w[6 - k];
        for (int i = 1; i < 4; i++) v = sel(P, w[6 - k - i], v, is[i]);
        win[k] = v;
    }
    Reg hi = shl_hi(P, win[0], win[1], s), mid = shl_hi(P, win[1], win[2], s);
    Reg two = ptx_const_reg(P, RC_B32, 2);
    Reg t = shl_hi(P, hi, mid, two), lo = b32(P), q0 = b32(P), up = b32(P), qa = b32(P), nq = b32(P), neg = pred(P);
    ptx_ins(P, "shl.b32 %R, %R, 2;", lo, mid);
    ptx_ins(P, "shr.u32 %R, %R, 30;", q0, hi);
    ptx_ins(P, "shr.u32 %R, %R, 31;", up, t);
    ptx_ins(P, "add.s32 %R, %R, %R;", qa, up, q0);
    ptx_ins(P, "neg.s32 %R, %R;", nq, qa);
    ptx_ins(P, "setp.lt.s32 %R, %R, 0;", neg, u);
    ptx_ins(P, "selp.b32 %R, %R, %R, %R;", q, nq, qa, neg);
    /* the fraction as a signed 64-bit number (one's complement when negative) */
    Reg sg = b32(P), ah = b32(P), al = b32(P), v = b64(P), dv = f64(P), dm = f64(P), rf = f32(P), nrf = f32(P);
    Reg xs = b32(P), flip = pred(P);
    ptx_ins(P, "shr.s32 %R, %R, 31;", sg, t);
    ptx_ins(P, "xor.b32 %R, %R, %R;", ah, sg, t);
    ptx_ins(P, "xor.b32 %R, %R, %R;", al, sg, lo);
    ptx_ins(P, "mov.b64 %R, {%R, %R};", v, al, ah);
    ptx_ins(P, "cvt.rn.f64.s64 %R, %R;", dv, v);
    ptx_ins(P, "mul.rn.f64 %R, %R, %D;", dm, dv, TRIG_QUARTER_TURN);
    ptx_ins(P, "cvt.rn.f32.f64 %R, %R;", rf, dm);
    ptx_ins(P, "neg.f32 %R, %R;", nrf, rf);
    ptx_ins(P, "xor.b32 %R, %R, %R;", xs, t, u);
    ptx_ins(P, "setp.lt.s32 %R, %R, 0;", flip, xs);
    ptx_ins(P, "selp.f32 %R, %R, %R, %R;", r, nrf, rf, flip);
}

static void trig_f32(Ptx *P, bool is_cos, Reg d, Reg a) {
    /* fast path: i = rint(x 2/pi), r = x - i pi/2 */
    Reg xq = f32(P), i = b32(P), fi = f32(P), r1 = f32(P), r2 = f32(P), r3 = f32(P);
    ptx_ins(P, "mul.rn.f32 %R, %R, %F;", xq, a, TRIG_TWO_OVER_PI_F);
    ptx_ins(P, "cvt.rni.ftz.s32.f32 %R, %R;", i, xq);
    ptx_ins(P, "cvt.rn.f32.s32 %R, %R;", fi, i);
    ptx_ins(P, "fma.rn.ftz.f32 %R, %R, %F, %R;", r1, fi, trig_pio2[0], a);
    ptx_ins(P, "fma.rn.ftz.f32 %R, %R, %F, %R;", r2, fi, trig_pio2[1], r1);
    ptx_ins(P, "fma.rn.ftz.f32 %R, %R, %F, %R;", r3, fi, trig_pio2[2], r2);
    /* slow path, and inf (NaN stays on the fast path) */
    Reg u = b32(P), qs = b32(P), rs = f32(P), ax = f32(P), big = pred(P), inf = pred(P);
    ptx_ins(P, "mov.b32 %R, %R;", u, a);
    reduce_slow(P, u, qs, rs);
    ptx_ins(P, "abs.f32 %R, %R;", ax, a);
    ptx_ins(P, "setp.ge.f32 %R, %R, %F;", big, ax, TRIG_FAST_LIMIT);
    ptx_ins(P, "setp.eq.f32 %R, %R, 0f7F800000;", inf, ax);
    Reg qb = b32(P), rb = f32(P), q = b32(P), r = f32(P);
    ptx_ins(P, "selp.b32 %R, 0, %R, %R;", qb, qs, inf);
    ptx_ins(P, "selp.f32 %R, 0f7FFFFFFF, %R, %R;", rb, rs, inf);
    ptx_ins(P, "selp.b32 %R, %R, %R, %R;", q, qb, i, big);
    ptx_ins(P, "selp.f32 %R, %R, %R, %R;", r, rb, r3, big);
    /* n = q (+1 for cos): odd takes the cos polynomial, bit 1 negates */
    Reg n = q, odd = b32(P), bit1 = b32(P), po = pred(P), pn = pred(P);
    if (is_cos) {
        n = b32(P);
        ptx_ins(P, "add.s32 %R, %R, 1;", n, q);
    }
    ptx_ins(P, "and.b32 %R, %R, 1;", odd, n);
    ptx_ins(P, "and.b32 %R, %R, 2;", bit1, n);
    ptx_ins(P, "setp.ne.b32 %R, %R, 0;", po, odd);
    ptx_ins(P, "setp.ne.b32 %R, %R, 0;", pn, bit1);
    Reg z2 = f32(P), p = f32(P), z = f32(P), ct = f32(P), c0 = f32(P), c1 = f32(P), c2 = f32(P);
    ptx_ins(P, "mul.rn.ftz.f32 %R, %R, %R;", z2, r, r);
    ptx_ins(P, "selp.f32 %R, 0f3F800000, %R, %R;", p, r, po);
    ptx_ins(P, "fma.rn.ftz.f32 %R, %R, %R, 0f00000000;", z, z2, p);
    ptx_ins(P, "fma.rn.ftz.f32 %R, %F, %R, %F;", ct, trig_cos_top[0], z2, trig_cos_top[1]);
    ptx_ins(P, "selp.f32 %R, %R, %F, %R;", c0, ct, trig_sin_poly[0], po);
    ptx_ins(P, "selp.f32 %R, %F, %F, %R;", c1, trig_cos_poly[0], trig_sin_poly[1], po);
    ptx_ins(P, "selp.f32 %R, %F, %F, %R;", c2, trig_cos_poly[1], trig_sin_poly[2], po);
    Reg t1 = f32(P), t2 = f32(P), y = f32(P), ny = f32(P);
    ptx_ins(P, "fma.rn.ftz.f32 %R, %R, %R, %R;", t1, c0, z2, c1);
    ptx_ins(P, "fma.rn.ftz.f32 %R, %R, %R, %R;", t2, t1, z2, c2);
    ptx_ins(P, "fma.rn.ftz.f32 %R, %R, %R, %R;", y, t2, z, p);
    /* an fma, not neg: -(+0) is +0 here, as in libdevice */
    ptx_ins(P, "fma.rn.ftz.f32 %R, %R, 0fBF800000, 0f00000000;", ny, y);
    ptx_ins(P, "selp.f32 %R, %R, %R, %R;", d, ny, y, pn);
}

void ptx_math_cos_f32(Ptx *P, Reg d, Reg a) { trig_f32(P, true, d, a); }
void ptx_math_sin_f32(Ptx *P, Reg d, Reg a) { trig_f32(P, false, d, a); }
