/* The value semantics of one instruction on one thread's operands: integer
 * wrap-around, PTX's shifts and compares, float arithmetic rounded once to
 * the type with canonical NaNs, conversions, and the .approx math modelled
 * with the same C functions interp/ops.c uses, so both agree bit for bit
 * where the IR interpreter does the same steps. */
#include "simops.h"
#include "../interp/scalar.h"

#include <math.h>
#include <string.h>

uint64_t sim_trunc(uint64_t v, int bits) { return bits >= 64 ? v : v & ((UINT64_C(1) << bits) - 1); }

uint64_t sim_sext(uint64_t v, int bits) {
    if (bits >= 64) return v;
    v = sim_trunc(v, bits);
    return (v >> (bits - 1)) & 1 ? v | ~((UINT64_C(1) << bits) - 1) : v;
}

/* the operand's value as the type reads it: low bits, extended by kind */
uint64_t sim_extend(SimTy t, uint64_t v) {
    int bits = sim_ty_bits(t);
    if (sim_ty_kind(t) == SK_PRED) return v != 0;
    return sim_ty_kind(t) == SK_SINT ? sim_sext(v, bits) : sim_trunc(v, bits);
}

static ElemType elem_of(SimTy t) {
    switch (t) {
    case ST_F16: return ET_F16;
    case ST_BF16: return ET_BF16;
    case ST_F32: return ET_F32;
    default: return ET_F64;
    }
}

double sim_float(SimTy t, uint64_t v) { return scalar_float(elem_of(t), v); }

/* d rounded once to t (nearest even, or toward zero); NaN canonical */
uint64_t sim_round(SimTy t, double d, bool rz) { return scalar_round_bits(elem_of(t), d, rz); }

static bool is_subnormal32(float f) { return f != 0 && fabsf(f) < 0x1p-126f; }

static float ftz32(float f) { return is_subnormal32(f) ? copysignf(0.0f, f) : f; }

/* f32 results: .ftz flushes, .sat clamps to [0, 1] (NaN -> 0) */
static uint64_t f32_result(uint32_t mods, float r) {
    if (mods & SM_FTZ) r = ftz32(r);
    if (mods & SM_SAT) r = isnan(r) ? 0.0f : r < 0 ? 0.0f : r > 1 ? 1.0f : r;
    return scalar_f32_bits(r);
}

static float f32_in(uint32_t mods, uint64_t v) {
    float f = scalar_f32(v);
    return (mods & SM_FTZ) ? ftz32(f) : f;
}

/* min/max: a NaN operand loses unless .NaN; both NaN -> canonical; -0 < +0 */
static uint64_t float_minmax(const SimIns *in, uint64_t a, uint64_t b) {
    SimTy t = in->ty[0];
    double x = sim_float(t, a), y = sim_float(t, b);
    if (isnan(x) || isnan(y)) {
        if ((in->mods & SM_NAN) || (isnan(x) && isnan(y))) return sim_round(t, NAN, false);
        return isnan(x) ? b : a;
    }
    bool is_min = in->op == SO_MIN;
    if (x == y && x == 0) return (signbit(x) == is_min) ? a : b;
    return (is_min ? x < y : x > y) ? a : b;
}

/* float add/sub/mul/fma/div in the type: f32 and f64 natively, the halves
 * exactly in double then rounded once (add, sub and mul of halves, and an
 * fma whose one input is 1 or -0, are exact in double) */
static uint64_t float_arith(const SimIns *in, uint64_t a, uint64_t b, uint64_t c) {
    SimTy t = in->ty[0];
    if (t == ST_F32) {
        float x = f32_in(in->mods, a), y = f32_in(in->mods, b), z = f32_in(in->mods, c);
        switch (in->op) {
        case SO_ADD: return f32_result(in->mods, x + y);
        case SO_SUB: return f32_result(in->mods, x - y);
        case SO_MUL: return f32_result(in->mods, x * y);
        case SO_FMA: case SO_MAD: return f32_result(in->mods, fmaf(x, y, z));
        case SO_DIV: return f32_result(in->mods, x / y);   /* .full/.approx: within 2 ulp on the GPU */
        default: break;
        }
    } else {
        double x = sim_float(t, a), y = sim_float(t, b), z = sim_float(t, c);
        double r;
        switch (in->op) {
        case SO_ADD: r = x + y; break;
        case SO_SUB: r = x - y; break;
        case SO_MUL: r = x * y; break;
        case SO_FMA: case SO_MAD: r = fma(x, y, z); break;
        case SO_DIV: r = x / y; break;
        default: return 0;
        }
        return t == ST_F64 ? scalar_f64_bits(r) : sim_round(t, r, false);
    }
    return 0;
}

static uint64_t mul_hi(SimTy t, uint64_t a, uint64_t b) {
    int bits = sim_ty_bits(t);
    bool s = sim_ty_kind(t) == SK_SINT;
    if (bits < 64) return sim_trunc((s ? (uint64_t)((int64_t)a * (int64_t)b) : a * b) >> bits, bits);
    if (s) return (uint64_t)(((__int128)(int64_t)a * (int64_t)b) >> 64);
    return (uint64_t)(((unsigned __int128)a * b) >> 64);
}

static uint64_t int_shift(const SimIns *in, uint64_t a, uint64_t b) {
    int bits = sim_ty_bits(in->ty[0]);
    uint64_t amt = (uint32_t)b;
    if (in->op == SO_SHL) return amt >= (uint64_t)bits ? 0 : a << amt;
    if (sim_ty_kind(in->ty[0]) == SK_SINT) {
        int64_t s = (int64_t)a;
        return (uint64_t)(amt >= (uint64_t)bits ? (s < 0 ? -1 : 0) : s >> amt);
    }
    return amt >= (uint64_t)bits ? 0 : a >> amt;
}

static bool int_less(SimTy t, uint64_t a, uint64_t b) {
    return sim_ty_kind(t) == SK_SINT ? (int64_t)a < (int64_t)b : a < b;
}

static bool int_divrem(const SimIns *in, uint64_t a, uint64_t b, uint64_t *r) {
    if (b == 0) return false;
    if (sim_ty_kind(in->ty[0]) != SK_SINT) {
        *r = in->op == SO_DIV ? a / b : a % b;
        return true;
    }
    int64_t x = (int64_t)a, y = (int64_t)b;
    int bits = sim_ty_bits(in->ty[0]);
    if (y == -1) *r = in->op == SO_DIV ? (uint64_t)0 - a : 0;   /* MIN / -1 wraps */
    else *r = (uint64_t)(in->op == SO_DIV ? x / y : x % y);
    *r = sim_sext(*r, bits);
    return true;
}

/* Integer and bit ops; a, b, c already extended by the type. */
static SimStatus int_op(const SimIns *in, uint64_t a, uint64_t b, uint64_t c, uint64_t *r) {
    SimTy t = in->ty[0];
    int bits = sim_ty_bits(t);
    bool wide = in->mods & SM_WIDE;
    switch (in->op) {
    case SO_ADD: *r = a + b; return SIM_OK;
    case SO_SUB: *r = a - b; return SIM_OK;
    case SO_MUL:
    case SO_MAD: {
        uint64_t p = (in->mods & SM_HI) ? mul_hi(t, a, b) : a * b;   /* .lo, .wide: the product's low bits */
        if (wide && bits == 64) return SIM_BAD;
        if (in->op == SO_MAD) p += c;
        *r = p;
        return SIM_OK;
    }
    case SO_DIV:
    case SO_REM: return int_divrem(in, a, b, r) ? SIM_OK : SIM_DIV_ZERO;
    case SO_AND: *r = a & b; return SIM_OK;
    case SO_OR: *r = a | b; return SIM_OK;
    case SO_XOR: *r = a ^ b; return SIM_OK;
    case SO_NOT: *r = ~a; return SIM_OK;
    case SO_SHL: case SO_SHR: *r = int_shift(in, a, b); return SIM_OK;
    case SO_MIN: *r = int_less(t, b, a) ? b : a; return SIM_OK;
    case SO_MAX: *r = int_less(t, a, b) ? b : a; return SIM_OK;
    case SO_NEG: *r = (uint64_t)0 - a; return SIM_OK;
    case SO_ABS: *r = (int64_t)a < 0 && sim_ty_kind(t) == SK_SINT ? (uint64_t)0 - a : a; return SIM_OK;
    default: return SIM_BAD;
    }
}

static bool cmp_float(SimCmp c, double x, double y) {
    bool un = isnan(x) || isnan(y);
    switch (c) {
    case SC_EQ: return !un && x == y;
    case SC_NE: return !un && x != y;
    case SC_LT: return !un && x < y;
    case SC_LE: return !un && x <= y;
    case SC_GT: return !un && x > y;
    case SC_GE: return !un && x >= y;
    case SC_EQU: return un || x == y;
    case SC_NEU: return un || x != y;
    case SC_LTU: return un || x < y;
    case SC_LEU: return un || x <= y;
    case SC_GTU: return un || x > y;
    case SC_GEU: return un || x >= y;
    case SC_NUM: return !un;
    case SC_NAN: return un;
    default: return false;
    }
}

SimStatus sim_setp(const SimIns *in, uint64_t a, uint64_t b, uint64_t *r) {
    SimTy t = in->ty[0];
    SimKind k = sim_ty_kind(t);
    if (k == SK_FLOAT) {
        float fx = 0, fy = 0;
        if (t == ST_F32 && (in->mods & SM_FTZ)) fx = f32_in(in->mods, a), fy = f32_in(in->mods, b);
        double x = t == ST_F32 && (in->mods & SM_FTZ) ? fx : sim_float(t, a);
        double y = t == ST_F32 && (in->mods & SM_FTZ) ? fy : sim_float(t, b);
        if (in->cmp < SC_EQU && in->cmp > SC_GE) return SIM_BAD;   /* lo/ls/hi/hs */
        *r = cmp_float(in->cmp, x, y);
        return SIM_OK;
    }
    a = sim_extend(t, a), b = sim_extend(t, b);
    if (k == SK_BITS && in->cmp != SC_EQ && in->cmp != SC_NE) return SIM_BAD;
    switch (in->cmp) {
    case SC_EQ: *r = a == b; break;
    case SC_NE: *r = a != b; break;
    case SC_LT: *r = int_less(t, a, b); break;
    case SC_LE: *r = !int_less(t, b, a); break;
    case SC_GT: *r = int_less(t, b, a); break;
    case SC_GE: *r = !int_less(t, a, b); break;
    case SC_LO: *r = a < b; break;
    case SC_LS: *r = a <= b; break;
    case SC_HI: *r = a > b; break;
    case SC_HS: *r = a >= b; break;
    default: return SIM_BAD;
    }
    return SIM_OK;
}

/* ---- cvt ---- */

static double round_int(uint32_t mods, double x) {
    if (mods & SM_RNI) return nearbyint(x);
    if (mods & SM_RMI) return floor(x);
    if (mods & SM_RPI) return ceil(x);
    return trunc(x);   /* .rzi */
}

/* float -> integer: rounded by the mode, saturated to the type, NaN -> 0 */
static uint64_t float_to_int(SimTy t, uint32_t mods, double x) {
    if (isnan(x)) return 0;
    double d = round_int(mods, x);
    int bits = sim_ty_bits(t);
    bool s = sim_ty_kind(t) == SK_SINT;
    double lo = s ? -ldexp(1.0, bits - 1) : 0, hi = s ? ldexp(1.0, bits - 1) - 1 : ldexp(1.0, bits) - 1;
    if (d <= lo) return s ? (uint64_t)(int64_t)lo : 0;
    if (d >= hi) return s ? (UINT64_MAX >> (65 - bits)) : (UINT64_MAX >> (64 - bits));
    return d < 0 ? (uint64_t)(int64_t)d : (uint64_t)d;
}

static uint64_t int_to_float(SimTy t, SimTy s, bool rz, uint64_t v) {
    bool sg = sim_ty_kind(s) == SK_SINT;
    if (t == ST_F32 && !rz) return scalar_f32_bits(sg ? (float)(int64_t)v : (float)v);
    if (t == ST_F64 && !rz) return scalar_f64_bits(sg ? (double)(int64_t)v : (double)v);
    /* halves and rz: from a double that rounds once in effect */
    return sim_round(t, scalar_int_double(v, sg, rz), rz);
}

SimStatus sim_cvt(const SimIns *in, uint64_t a, uint64_t *r) {
    SimTy t = in->ty[0], s = in->ty[1];
    bool tf = sim_ty_kind(t) == SK_FLOAT, sf = sim_ty_kind(s) == SK_FLOAT;
    uint32_t m = in->mods;
    bool int_round = m & (SM_RNI | SM_RZI | SM_RMI | SM_RPI), rz = m & SM_RZ;
    if ((m & (SM_RM | SM_RP)) || (m & (SM_SAT | SM_SATFINITE))) return SIM_BAD;
    if (m & SM_RNA) return SIM_BAD;   /* to tf32 only */
    if (sim_ty_kind(t) == SK_PRED || sim_ty_kind(s) == SK_PRED) return SIM_BAD;
    if (!tf && !sf) {
        if (int_round || (m & (SM_RN | SM_RZ))) return SIM_BAD;
        *r = sim_extend(s, a);
        return SIM_OK;
    }
    if (!sf) {
        if (int_round) return SIM_BAD;
        *r = int_to_float(t, s, rz, sim_extend(s, a));
        return SIM_OK;
    }
    double x = sim_float(s, a);
    if ((m & SM_FTZ) && s == ST_F32) x = ftz32((float)x);
    if (!tf) {
        if (!int_round) return SIM_BAD;   /* PTX requires an integer rounding */
        *r = float_to_int(t, m, x);
        return SIM_OK;
    }
    if (int_round) {   /* round to an integral value in the same type */
        if (s != t) return SIM_BAD;
        *r = isnan(x) ? sim_round(t, NAN, false) : t == ST_F64 ? scalar_f64_bits(round_int(m, x))
                                                                 : sim_round(t, round_int(m, x), false);
        return SIM_OK;
    }
    if (sim_ty_bits(t) > sim_ty_bits(s) || (s == ST_BF16 && t == ST_F32)) {
        if (m & (SM_RN | SM_RZ)) return SIM_BAD;   /* widening takes no rounding */
        *r = t == ST_F64 ? scalar_f64_bits(x) : sim_round(t, x, false);
        return SIM_OK;
    }
    if (!(m & (SM_RN | SM_RZ))) return SIM_BAD;   /* narrowing needs one */
    *r = sim_round(t, x, rz);
    if ((m & SM_FTZ) && t == ST_F32) *r = scalar_f32_bits(ftz32(scalar_f32(*r)));
    return SIM_OK;
}

/* ---- cvt of packed fp8 ----
 * The fp8 pairs as sm_89+ convert them: byte 1 holds the first (upper)
 * value; to fp8 rounds to nearest even with .satfinite (out-of-range and
 * infinite values give the largest finite one, NaN gives 0x7F: the shared
 * rounding of ir/ir.c); to f16x2 is exact. */

static ElemType f8_elem(SimTy t) { return t == ST_E4M3X2 ? ET_F8E4M3 : ET_F8E5M2; }

static uint64_t f8_of(SimTy f8, double x) { return scalar_round_bits(f8_elem(f8), x, false); }

static SimStatus cvt_packed(const SimIns *in, uint64_t a, uint64_t b, uint64_t *r) {
    SimTy t = in->ty[0], s = in->ty[1];
    bool to8 = t == ST_E4M3X2 || t == ST_E5M2X2, from8 = s == ST_E4M3X2 || s == ST_E5M2X2;
    if (to8 && (s == ST_F32 || s == ST_F16X2)) {
        if (in->mods != (SM_RN | SM_SATFINITE)) return SIM_BAD;   /* .rn.satfinite is mandatory */
        if (s == ST_F32) {
            if (in->n_opd != 3) return SIM_BAD;
            *r = f8_of(t, sim_float(ST_F32, a)) << 8 | f8_of(t, sim_float(ST_F32, b));
            return SIM_OK;
        }
        if (in->n_opd != 2) return SIM_BAD;
        *r = f8_of(t, sim_float(ST_F16, (a >> 16) & 0xFFFF)) << 8 | f8_of(t, sim_float(ST_F16, a & 0xFFFF));
        return SIM_OK;
    }
    if (t == ST_F16X2 && from8) {
        if (in->mods != SM_RN || in->n_opd != 2) return SIM_BAD;
        double hi = scalar_float(f8_elem(s), (a >> 8) & 0xFF), lo = scalar_float(f8_elem(s), a & 0xFF);
        *r = sim_round(ST_F16, hi, false) << 16 | sim_round(ST_F16, lo, false);
        return SIM_OK;
    }
    return SIM_BAD;
}

/* ---- the rest ---- */

static uint64_t prmt(uint32_t a, uint32_t b, uint32_t sel) {
    uint64_t bytes = (uint64_t)b << 32 | a;
    uint32_t r = 0;
    for (int i = 0; i < 4; i++) {
        unsigned s = (sel >> (4 * i)) & 0xF;
        uint32_t byte = (uint32_t)(bytes >> (8 * (s & 7))) & 0xFF;
        if (s & 8) byte = (byte & 0x80) ? 0xFF : 0;   /* replicate the sign */
        r |= byte << (8 * i);
    }
    return r;
}

static uint64_t bfe(SimTy t, uint64_t a, uint64_t pos, uint64_t len) {
    int w = sim_ty_bits(t);
    bool s = sim_ty_kind(t) == SK_SINT;
    pos &= 0xFF, len &= 0xFF;
    if (len == 0) return 0;
    uint64_t top = (a >> (w - 1)) & 1;
    uint64_t sbit = !s ? 0 : pos + len - 1 < (uint64_t)w ? (a >> (pos + len - 1)) & 1 : top;
    uint64_t r = 0;
    for (int i = 0; i < w; i++) {
        uint64_t bit = (uint64_t)i < len ? (pos + (uint64_t)i < (uint64_t)w ? (a >> (pos + i)) & 1 : (s ? top : 0))
                                         : sbit;
        r |= bit << i;
    }
    return r;
}

static bool testp(SimCmp c, SimTy t, uint64_t a) {
    double x = sim_float(t, a);
    switch (c) {
    case SC_FINITE: return isfinite(x);
    case SC_INFINITE: return isinf(x);
    case SC_NUMBER: return !isnan(x);
    case SC_NOTANUMBER: return isnan(x);
    case SC_NORMAL: return isnormal(x) && (t != ST_F32 || fabs(x) >= 0x1p-126);
    case SC_SUBNORMAL: return x != 0 && isfinite(x) && !isnormal(x);
    default: return false;
    }
}

/* ex2/lg2/sqrt/rsqrt/rcp: the .approx forms as interp/ops.c computes them
 * (libm in double, rounded once); .rn forms correctly rounded */
static SimStatus math(const SimIns *in, uint64_t a, uint64_t *r) {
    SimTy t = in->ty[0];
    bool approx = in->mods & SM_APPROX;
    if (t == ST_F64) {
        double x = sim_float(t, a);
        switch (in->op) {
        case SO_SQRT: *r = scalar_f64_bits(sqrt(x)); return SIM_OK;
        case SO_RCP: *r = scalar_f64_bits(1.0 / x); return SIM_OK;
        case SO_RSQRT: if (!approx) return SIM_BAD; *r = scalar_f64_bits(1.0 / sqrt(x)); return SIM_OK;
        default: return SIM_BAD;
        }
    }
    if (t != ST_F32) return SIM_BAD;
    float x = f32_in(in->mods, a), y;
    switch (in->op) {
    case SO_EX2: if (!approx) return SIM_BAD; y = (float)exp2((double)x); break;
    case SO_SIN: if (!approx) return SIM_BAD; y = (float)sin((double)x); break;
    case SO_COS: if (!approx) return SIM_BAD; y = (float)cos((double)x); break;
    case SO_LG2: if (!approx) return SIM_BAD; y = (float)log2((double)x); break;
    case SO_SQRT: y = sqrtf(x); break;
    case SO_RSQRT: if (!approx) return SIM_BAD; y = (float)(1.0 / sqrt((double)x)); break;
    case SO_RCP: y = 1.0f / x; break;
    default: return SIM_BAD;
    }
    *r = f32_result(in->mods, y);
    return SIM_OK;
}

/* popc and clz (a .u32 count of a .b32/.b64 operand), brev (the bits
 * reversed in the type's width) */
static SimStatus bit_count(const SimIns *in, uint64_t a, uint64_t *r) {
    SimTy t = in->ty[0];
    if (t != ST_B32 && t != ST_B64) return SIM_BAD;
    int w = sim_ty_bits(t);
    a = sim_trunc(a, w);
    uint64_t n = 0;
    switch (in->op) {
    case SO_POPC: for (int i = 0; i < w; i++) n += (a >> i) & 1; break;
    case SO_CLZ: for (int i = w - 1; i >= 0 && !((a >> i) & 1); i--) n++; break;
    default: for (int i = 0; i < w; i++) n |= ((a >> i) & 1) << (w - 1 - i); break;
    }
    *r = n;
    return SIM_OK;
}

/* The arithmetic ops: v[] holds the raw operand registers or immediates. */
SimStatus sim_alu(const SimIns *in, const uint64_t *v, uint64_t *r) {
    SimTy t = in->ty[0];
    SimKind k = sim_ty_kind(t);
    switch (in->op) {
    case SO_SETP: return sim_setp(in, v[1], v[2], r);
    case SO_CVT:
        if (t == ST_TF32) return sim_cvt_tf32(in, v[1], r);
        if (k == SK_PACKED || sim_ty_kind(in->ty[1]) == SK_PACKED) return cvt_packed(in, v[1], v[2], r);
        return sim_cvt(in, v[1], r);
    case SO_SELP: *r = v[3] ? v[1] : v[2]; return SIM_OK;
    case SO_PRMT: *r = prmt((uint32_t)v[1], (uint32_t)v[2], (uint32_t)v[3]); return k == SK_BITS ? SIM_OK : SIM_BAD;
    case SO_BFE: *r = bfe(t, v[1], v[2], v[3]); return SIM_OK;
    case SO_SHF: {   /* funnel shift of b:a (b the high word) by c */
        uint64_t ab = (uint64_t)(uint32_t)v[2] << 32 | (uint32_t)v[1], n = (uint32_t)v[3];
        n = in->shf & SHF_CLAMP ? (n > 32 ? 32 : n) : n & 31;
        *r = (uint32_t)(in->shf & SHF_R ? ab >> n : (ab << n) >> 32);
        return SIM_OK;
    }
    case SO_TESTP: *r = testp(in->cmp, t, v[1]); return k == SK_FLOAT ? SIM_OK : SIM_BAD;
    case SO_COPYSIGN: {
        if (t != ST_F32 && t != ST_F64) return SIM_BAD;
        uint64_t sign = UINT64_C(1) << (sim_ty_bits(t) - 1);
        *r = (v[2] & ~sign) | (v[1] & sign);
        return SIM_OK;
    }
    case SO_EX2: case SO_LG2: case SO_SQRT: case SO_RSQRT: case SO_RCP: case SO_SIN: case SO_COS:
        return math(in, v[1], r);
    case SO_POPC: case SO_CLZ: case SO_BREV: return bit_count(in, v[1], r);
    default: break;
    }
    if (k == SK_PRED) {
        switch (in->op) {
        case SO_AND: *r = v[1] && v[2]; return SIM_OK;
        case SO_OR: *r = v[1] || v[2]; return SIM_OK;
        case SO_XOR: *r = !v[1] != !v[2]; return SIM_OK;
        case SO_NOT: *r = !v[1]; return SIM_OK;
        default: return SIM_BAD;
        }
    }
    if (k == SK_FLOAT) {
        uint64_t sign = UINT64_C(1) << (sim_ty_bits(t) - 1);
        switch (in->op) {
        case SO_NEG: *r = sim_trunc(v[1] ^ sign, sim_ty_bits(t)); return SIM_OK;
        case SO_ABS: *r = sim_trunc(v[1] & ~sign, sim_ty_bits(t)); return SIM_OK;
        case SO_MIN: case SO_MAX: *r = float_minmax(in, v[1], v[2]); return SIM_OK;
        case SO_ADD: case SO_SUB: case SO_MUL: case SO_FMA: case SO_DIV:
            if (in->op == SO_DIV && t == ST_F32 && !(in->mods & (SM_FULL | SM_APPROX | SM_RN))) return SIM_BAD;
            *r = float_arith(in, v[1], v[2], v[3]);
            return SIM_OK;
        default: return SIM_BAD;
        }
    }
    if (in->op == SO_FMA) return SIM_BAD;
    /* integers: mul.wide/mad.wide read their inputs at the type's width */
    uint64_t a = sim_extend(t, v[1]), b = sim_extend(t, v[2]), c = v[3];
    if (in->op == SO_SHL || in->op == SO_SHR) b = v[2];   /* the amount is .u32 */
    if (in->op == SO_MAD && !(in->mods & SM_WIDE)) c = sim_extend(t, v[3]);
    return int_op(in, a, b, c, r);
}

/* The PTX types each atomic operation takes: add on u32 s32 u64 f32 f64
 * (f16 and bf16 with .noftz), min/max on 32- and 64-bit integers, the
 * bitwise ones and exch on b32/b64, cas on b16/b32/b64. */
static bool atom_type_ok(const SimIns *in) {
    SimTy t = in->ty[0];
    bool noftz = (in->mods & SM_NOFTZ) != 0;
    switch ((SimAtom)in->atom) {
    case SA_ADD:
        if (t == ST_F16 || t == ST_BF16) return noftz;
        return !noftz && (t == ST_U32 || t == ST_S32 || t == ST_U64 || t == ST_F32 || t == ST_F64);
    case SA_MIN: case SA_MAX: return !noftz && (t == ST_U32 || t == ST_S32 || t == ST_U64 || t == ST_S64);
    case SA_AND: case SA_OR: case SA_XOR: case SA_EXCH: return !noftz && (t == ST_B32 || t == ST_B64);
    case SA_CAS: return !noftz && (t == ST_B16 || t == ST_B32 || t == ST_B64);
    default: return false;
    }
}

/* Each operation as the arithmetic op it performs: add.f32 with the flush
 * of subnormals atom.add.f32 does, the rest as sim_alu computes them. */
SimStatus sim_atom(const SimIns *in, uint64_t old, uint64_t b, uint64_t c, uint64_t *r) {
    if (!atom_type_ok(in)) return SIM_BAD;
    int bits = sim_ty_bits(in->ty[0]);
    SimIns alu = *in;
    alu.mods = in->ty[0] == ST_F32 ? SM_FTZ : 0;
    switch ((SimAtom)in->atom) {
    case SA_EXCH: *r = sim_trunc(b, bits); return SIM_OK;
    case SA_CAS: *r = sim_trunc(old, bits) == sim_trunc(b, bits) ? sim_trunc(c, bits) : sim_trunc(old, bits); return SIM_OK;
    case SA_ADD: alu.op = SO_ADD; break;
    case SA_MIN: alu.op = SO_MIN; break;
    case SA_MAX: alu.op = SO_MAX; break;
    case SA_AND: alu.op = SO_AND; break;
    case SA_OR: alu.op = SO_OR; break;
    case SA_XOR: alu.op = SO_XOR; break;
    default: return SIM_BAD;
    }
    uint64_t v[4] = {0, sim_extend(in->ty[0], old), sim_extend(in->ty[0], b), 0};
    SimStatus st = sim_alu(&alu, v, r);
    *r = sim_trunc(*r, bits);
    return st;
}
