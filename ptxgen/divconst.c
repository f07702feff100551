/* Integer division and remainder by a constant.
 *
 * div.s32/rem.s32 with a register divisor become a ~20-instruction
 * reciprocal sequence in SASS (64-bit: a call-sized one). When the divisor
 * is a known constant the quotient is a multiply-high by a "magic" number
 * plus shifts (Granlund & Montgomery 1994; Warren, Hacker's Delight ch. 10),
 * and powers of two are shifts and masks. The result is bit-identical to the
 * plain div/rem for every dividend, including MIN / -1 which wraps to MIN.
 *
 * Widths: the register's, 16, 32 or 64. 8-bit values live sign- (i8) or
 * zero- (u8) extended in 16-bit registers, so dividing the 16-bit register
 * by the (equally extended) divisor gives the 8-bit quotient; only -128 / -1
 * leaves 8 bits, and is re-extended as the table's R_NORM8 rows do.
 *
 * ptx_div_magic is shared with test/unit/test_divconst.c, whose C model runs
 * the same steps for every 16-bit dividend and many 32/64-bit ones.
 */
#include "ptx.h"

#include <stdio.h>

static uint64_t width_mask(int w) { return w == 64 ? ~(uint64_t)0 : ((uint64_t)1 << w) - 1; }

/* bits as a signed w-bit number */
static int64_t sext(uint64_t bits, int w) {
    uint64_t sign = (uint64_t)1 << (w - 1);
    bits &= width_mask(w);
    return (int64_t)((bits ^ sign) - sign);   /* no shift of negatives, no overflow */
}

/* k if x == 2^k, else -1 */
static int log2_exact(uint64_t x) {
    if (!x || (x & (x - 1))) return -1;
    int k = 0;
    while (x >> k != 1) k++;
    return k;
}

/* Unsigned magic (Hacker's Delight magicu2, at width w): the least p >= w
 * with 2^p / d rounded up close enough that mulhi(x, M) >> (p - w) is exact
 * for every x < 2^w. M may need w + 1 bits; then `add` is set and the top bit
 * is put back by the (x - t) / 2 + t step. */
static void magic_unsigned(DivMagic *m, uint64_t d, int w) {
    uint64_t mask = width_mask(w), top = (uint64_t)1 << (w - 1);
    uint64_t nc = mask - ((0 - d) & mask) % d;   /* largest nc with nc mod d == d - 1 */
    uint64_t q1 = top / nc, r1 = top - q1 * nc;
    uint64_t q2 = (top - 1) / d, r2 = (top - 1) - q2 * d;
    uint64_t delta;
    int p = w - 1;
    bool add = false;
    do {
        p++;
        if (r1 >= nc - r1) {
            q1 = (2 * q1 + 1) & mask;
            r1 = (2 * r1 - nc) & mask;
        } else {
            q1 = (2 * q1) & mask;
            r1 = (2 * r1) & mask;
        }
        if (r2 + 1 >= d - r2) {
            if (q2 >= top - 1) add = true;
            q2 = (2 * q2 + 1) & mask;
            r2 = (2 * r2 + 1 - d) & mask;
        } else {
            if (q2 >= top) add = true;
            q2 = (2 * q2) & mask;
            r2 = (2 * r2 + 1) & mask;
        }
        delta = d - 1 - r2;
    } while (p < 2 * w && (q1 < delta || (q1 == delta && r1 == 0)));
    m->magic = (q2 + 1) & mask;
    m->shift = p - w;
    m->add = add;
}

/* Signed magic (Hacker's Delight magic, at width w), 2 <= |d| < 2^(w-1). */
static void magic_signed(DivMagic *m, int64_t d, int w) {
    uint64_t mask = width_mask(w), top = (uint64_t)1 << (w - 1);
    uint64_t ad = d < 0 ? 0 - (uint64_t)d : (uint64_t)d;
    uint64_t t = top + (d < 0);
    uint64_t anc = t - 1 - t % ad;   /* |nc|: the largest |n| with n mod |d| == |d| - 1 */
    uint64_t q1 = top / anc, r1 = top - q1 * anc;
    uint64_t q2 = top / ad, r2 = top - q2 * ad;
    uint64_t delta;
    int p = w - 1;
    do {
        p++;
        q1 = (2 * q1) & mask;
        r1 = (2 * r1) & mask;
        if (r1 >= anc) {
            q1 = (q1 + 1) & mask;
            r1 = (r1 - anc) & mask;
        }
        q2 = (2 * q2) & mask;
        r2 = (2 * r2) & mask;
        if (r2 >= ad) {
            q2 = (q2 + 1) & mask;
            r2 = (r2 - ad) & mask;
        }
        delta = ad - r2;
    } while (q1 < delta || (q1 == delta && r1 == 0));
    uint64_t mag = (q2 + 1) & mask;
    if (d < 0) mag = (0 - mag) & mask;
    m->magic = mag;
    m->shift = p - w;
    /* the product wanted is x * (M as a w+1-bit number); when M's w-bit
     * sign disagrees with d's, x is added back (or taken off) */
    int64_t ms = sext(mag, w);
    m->fix = d > 0 && ms < 0 ? 1 : d < 0 && ms > 0 ? -1 : 0;
}

DivMagic ptx_div_magic(uint64_t d_bits, int w, bool sgn) {
    TRIC_ASSERT(w == 16 || w == 32 || w == 64);
    DivMagic m = {DIVK_NONE, w, sgn, d_bits & width_mask(w), 0, 0, false, 0};
    uint64_t d = m.d;
    if (!d) return m;   /* division by zero stays the plain div */
    if (!sgn) {
        int k = log2_exact(d);
        if (k == 0) m.kind = DIVK_ONE;
        else if (k > 0) m.kind = DIVK_POW2, m.shift = k;
        else if (d >> (w - 1)) m.kind = DIVK_BIG;   /* the quotient is 0 or 1 */
        else m.kind = DIVK_MUL, magic_unsigned(&m, d, w);
        return m;
    }
    int64_t ds = sext(d, w);
    uint64_t ad = ds < 0 ? (0 - d) & width_mask(w) : d;
    int k = log2_exact(ad);
    if (ds == 1) m.kind = DIVK_ONE;
    else if (ds == -1) m.kind = DIVK_NEG_ONE;
    else if (k == w - 1) m.kind = DIVK_MIN;   /* d == MIN: the quotient is 0 or 1 */
    else if (k > 0) m.kind = ds < 0 ? DIVK_NEG_POW2 : DIVK_POW2, m.shift = k;
    else m.kind = DIVK_MUL, magic_signed(&m, ds, w);
    return m;
}

/* ---- emission ---- */

/* The constant a divisor operand holds: through splats and views to its
 * const op; false if it is not one. */
static bool const_divisor(Ptx *P, ValId v, ElemType e, uint64_t *bits) {
    for (;;) {
        IrOp *def = P->fn->vals[v].def;
        if (!def) return false;
        switch (def->opc) {
        case OP_CONST:
            if (P->fn->vals[v].type.elem != e) return false;
            *bits = ptx_const_bits(P, def, e);
            return true;
        case OP_SPLAT:
        case OP_BROADCAST:
        case OP_EXPAND_DIMS:
        case OP_CONVERT_LAYOUT:
        case OP_MULTIPLE_OF:
        case OP_MAX_CONTIGUOUS:
            v = def->operands[0];
            break;
        default: return false;
        }
    }
}

/* The immediate for bits at width w: signed decimal for .s instructions,
 * hex for the others (PTX reads both as the same w-bit pattern). */
static const char *imm(Ptx *P, uint64_t bits, int w, bool as_signed) {
    char s[32];
    if (as_signed) snprintf(s, sizeof s, "%lld", (long long)sext(bits, w));
    else snprintf(s, sizeof s, "0x%llx", (unsigned long long)(bits & width_mask(w)));
    return arena_strdup(P->arena, s);
}

/* Signed x / 2^k (1 <= k <= w-2) truncates: x + (x < 0 ? 2^k - 1 : 0) is
 * the biased x whose arithmetic shift by k is the quotient and whose low k
 * bits cleared are the quotient times 2^k. */
static Reg sdiv_pow2_biased(Ptx *P, int w, Reg x, int k) {
    RegClass rc = REG_CLASS(x);
    Reg bias = ptx_reg(P, rc), t = ptx_reg(P, rc);
    if (k == 1) {
        ptx_ins(P, "shr.u%d %R, %R, %d;", w, bias, x, w - 1);
    } else {
        Reg sign = ptx_reg(P, rc);
        ptx_ins(P, "shr.s%d %R, %R, %d;", w, sign, x, w - 1);
        ptx_ins(P, "shr.u%d %R, %R, %d;", w, bias, sign, w - k);
    }
    ptx_ins(P, "add.s%d %R, %R, %R;", w, t, x, bias);
    return t;
}

/* The quotient of the multiply-high forms. */
static Reg div_mul(Ptx *P, const DivMagic *m, Reg x) {
    RegClass rc = REG_CLASS(x);
    int w = m->bits;
    Reg t = ptx_reg(P, rc);
    if (!m->sgn) {
        ptx_ins(P, "mul.hi.u%d %R, %R, %s;", w, t, x, imm(P, m->magic, w, false));
        if (m->add) {   /* ((x - t) / 2 + t) >> (s - 1) is x * M >> (w + s) with M's bit w */
            Reg u = ptx_reg(P, rc), h = ptx_reg(P, rc), v = ptx_reg(P, rc);
            ptx_ins(P, "sub.s%d %R, %R, %R;", w, u, x, t);
            ptx_ins(P, "shr.u%d %R, %R, 1;", w, h, u);
            ptx_ins(P, "add.s%d %R, %R, %R;", w, v, h, t);
            t = v;
            if (m->shift > 1) {
                Reg q = ptx_reg(P, rc);
                ptx_ins(P, "shr.u%d %R, %R, %d;", w, q, v, m->shift - 1);
                t = q;
            }
        } else if (m->shift) {
            Reg q = ptx_reg(P, rc);
            ptx_ins(P, "shr.u%d %R, %R, %d;", w, q, t, m->shift);
            t = q;
        }
        return t;
    }
    ptx_ins(P, "mul.hi.s%d %R, %R, %s;", w, t, x, imm(P, m->magic, w, true));
    if (m->fix) {
        Reg u = ptx_reg(P, rc);
        ptx_ins(P, "%s.s%d %R, %R, %R;", m->fix > 0 ? "add" : "sub", w, u, t, x);
        t = u;
    }
    if (m->shift) {
        Reg u = ptx_reg(P, rc);
        ptx_ins(P, "shr.s%d %R, %R, %d;", w, u, t, m->shift);
        t = u;
    }
    /* truncation toward zero: a negative quotient is one short */
    Reg sign = ptx_reg(P, rc), q = ptx_reg(P, rc);
    ptx_ins(P, "shr.u%d %R, %R, %d;", w, sign, t, w - 1);
    ptx_ins(P, "add.s%d %R, %R, %R;", w, q, t, sign);
    return q;
}

/* d = a / c or a % c for the divisor magic m (kind != DIVK_NONE). */
static void emit_divrem(Ptx *P, bool is_div, const DivMagic *m, Reg d, Reg x) {
    int w = m->bits;
    RegClass rc = REG_CLASS(x);
    switch (m->kind) {
    case DIVK_ONE:
        if (is_div) ptx_mov(P, d, x);
        else ptx_ins(P, "mov.b%d %R, 0;", w, d);
        return;
    case DIVK_NEG_ONE:   /* MIN / -1 wraps to MIN, as neg does */
        if (is_div) ptx_ins(P, "neg.s%d %R, %R;", w, d, x);
        else ptx_ins(P, "mov.b%d %R, 0;", w, d);
        return;
    case DIVK_MIN:
    case DIVK_BIG: {   /* the quotient is x >= d (unsigned) or x == MIN */
        Reg p = ptx_reg(P, RC_PRED);
        if (m->kind == DIVK_MIN) ptx_ins(P, "setp.eq.b%d %R, %R, %s;", w, p, x, imm(P, m->d, w, false));
        else ptx_ins(P, "setp.ge.u%d %R, %R, %s;", w, p, x, imm(P, m->d, w, false));
        if (is_div) {
            ptx_ins(P, "selp.b%d %R, 1, 0, %R;", w, d, p);
        } else {
            Reg t = ptx_reg(P, rc);
            ptx_ins(P, "sub.s%d %R, %R, %s;", w, t, x, imm(P, m->d, w, true));
            ptx_ins(P, "selp.b%d %R, %R, %R, %R;", w, d, t, x, p);
        }
        return;
    }
    case DIVK_POW2:
    case DIVK_NEG_POW2: {
        int k = m->shift;
        uint64_t low = ((uint64_t)1 << k) - 1;
        if (!m->sgn) {
            if (is_div) ptx_ins(P, "shr.u%d %R, %R, %d;", w, d, x, k);
            else ptx_ins(P, "and.b%d %R, %R, %s;", w, d, x, imm(P, low, w, false));
            return;
        }
        Reg biased = sdiv_pow2_biased(P, w, x, k);
        if (is_div && m->kind == DIVK_NEG_POW2) {
            Reg q = ptx_reg(P, rc);
            ptx_ins(P, "shr.s%d %R, %R, %d;", w, q, biased, k);
            ptx_ins(P, "neg.s%d %R, %R;", w, d, q);
        } else if (is_div) {
            ptx_ins(P, "shr.s%d %R, %R, %d;", w, d, biased, k);
        } else {   /* x - trunc(x / 2^k) * 2^k */
            Reg t = ptx_reg(P, rc);
            ptx_ins(P, "and.b%d %R, %R, %s;", w, t, biased, imm(P, ~low, w, false));
            ptx_ins(P, "sub.s%d %R, %R, %R;", w, d, x, t);
        }
        return;
    }
    case DIVK_MUL: {
        Reg q = div_mul(P, m, x);
        if (is_div) ptx_mov(P, d, q);
        else ptx_ins(P, "mad.lo.s%d %R, %R, %s, %R;", w, d, q, imm(P, 0 - m->d, w, true), x);
        return;
    }
    case DIVK_NONE: break;
    }
    tric_unreachable();
}

void ptx_divrem_const(Ptx *P, bool is_div, ElemType e, Reg d, Reg a, uint64_t divisor_bits) {
    DivMagic m = ptx_div_magic(divisor_bits, elem_bits(e) < 16 ? 16 : elem_bits(e), elem_is_signed(e));
    TRIC_ASSERT(m.kind != DIVK_NONE);
    if (is_div && e == ET_I8 && m.kind == DIVK_NEG_ONE) {   /* -128 / -1 leaves 8 bits */
        Reg t = ptx_reg(P, RC_B16);
        emit_divrem(P, is_div, &m, t, a);
        ptx_norm8(P, e, d, t);
        return;
    }
    emit_divrem(P, is_div, &m, d, a);
}

bool ptx_try_divrem_const(Ptx *P, IrOp *op, ElemType e, Reg d, Reg a) {
    if ((op->opc != OP_DIV && op->opc != OP_REM) || !elem_is_int(e) || e == ET_I1) return false;
    uint64_t bits;
    if (!const_divisor(P, op->operands[1], e, &bits)) return false;
    int w = elem_bits(e) < 16 ? 16 : elem_bits(e);
    if (!(bits & width_mask(w))) return false;   /* by zero: what div does today */
    ptx_divrem_const(P, op->opc == OP_DIV, e, d, a, bits);
    return true;
}
