/* One op on one element, as the PTX that ptxgen/optab.c emits computes it:
 *
 *   integers   wrap at the element width; 8-bit types live in 16-bit
 *              registers (so shifts clamp at 16, float->i8 saturates to
 *              16 bits before the low byte is kept); shift amounts are the
 *              operand's register read as u32, and amounts >= the register
 *              width give 0 (shl, logical shr) or the sign (arithmetic shr)
 *   f16, bf16  add/sub/mul rounded once to the type; div, rem and the math
 *              functions run in f32 and round back
 *   f32, f64   C float / double; the .approx instructions are libm in
 *              double rounded to float (see doc/interp.md for the bounds);
 *              the ops whose PTX is a program (ir/mathfn_op.c) run it
 */
#include "scalar.h"
#include "../ir/mathfn.h"

#include <math.h>
#include <string.h>

static int reg_bits(ElemType e) {
    int b = elem_bits(e);
    return b == 8 ? 16 : b;
}

static uint64_t shift_amount(ElemType e, uint64_t b) {
    if (reg_bits(e) == 16) return (uint16_t)b;
    return (uint32_t)b;   /* b32 as is; b64 through cvt.u32.u64 */
}

static uint64_t int_shift(Opcode opc, ElemType e, uint64_t a, uint64_t b) {
    uint64_t amt = shift_amount(e, b);
    int width = reg_bits(e);
    if (opc == OP_SHL) return interp_int_norm(e, amt >= (uint64_t)width ? 0 : a << amt);
    if (elem_is_signed(e)) {
        int64_t s = (int64_t)a;
        return interp_int_norm(e, (uint64_t)(amt >= (uint64_t)width ? (s < 0 ? -1 : 0) : s >> amt));
    }
    return amt >= (uint64_t)width ? 0 : a >> amt;   /* a is zero-extended */
}

static bool int_less(ElemType e, uint64_t a, uint64_t b) {
    return elem_is_signed(e) ? (int64_t)a < (int64_t)b : a < b;
}

static uint64_t int_divrem(Opcode opc, ElemType e, uint64_t a, uint64_t b, bool *div_zero) {
    if (b == 0) {
        *div_zero = true;
        return 0;
    }
    if (!elem_is_signed(e)) return opc == OP_DIV ? a / b : a % b;
    int64_t x = (int64_t)a, y = (int64_t)b;
    if (x == INT64_MIN && y == -1) return opc == OP_DIV ? a : 0;   /* wraps, as the GPU */
    return interp_int_norm(e, (uint64_t)(opc == OP_DIV ? x / y : x % y));
}

/* high half of the unsigned product of two 32- or 64-bit values */
static uint64_t mulhi(int bits, uint64_t a, uint64_t b) {
    if (bits == 32) return ((a & 0xFFFFFFFF) * (b & 0xFFFFFFFF)) >> 32;
    return (uint64_t)(((unsigned __int128)a * b) >> 64);
}

static uint64_t int_binary(Opcode opc, ElemType e, uint64_t a, uint64_t b, bool *div_zero) {
    switch (opc) {
    case OP_ADD: return interp_int_norm(e, a + b);
    case OP_SUB: return interp_int_norm(e, a - b);
    case OP_MUL: return interp_int_norm(e, a * b);
    case OP_DIV:
    case OP_REM: return int_divrem(opc, e, a, b, div_zero);
    case OP_MULHI: return interp_int_norm(e, mulhi(elem_bits(e), a, b));
    case OP_AND: return a & b;
    case OP_OR: return a | b;
    case OP_XOR: return interp_int_norm(e, a ^ b);
    case OP_SHL:
    case OP_SHR: return int_shift(opc, e, a, b);
    case OP_MIN: return int_less(e, b, a) ? b : a;
    case OP_MAX: return int_less(e, a, b) ? b : a;
    default: tric_unreachable();
    }
}

/* min/max of two floats given as doubles with their slots: without NaN
 * propagation a NaN operand loses (PTX min/max); -0 is below +0. */
static uint64_t float_minmax(Opcode opc, ElemType e, bool nan_prop, uint64_t a, uint64_t b) {
    double x = scalar_float(e, a), y = scalar_float(e, b);
    if (isnan(x) || isnan(y)) {
        if (nan_prop || (isnan(x) && isnan(y))) return scalar_round_bits(e, NAN, false);
        return isnan(x) ? b : a;
    }
    if (x == y && x == 0) {
        bool want_neg = opc == OP_MIN;
        return (signbit(x) == want_neg) ? a : b;
    }
    bool a_first = opc == OP_MIN ? x < y : x > y;
    return a_first ? a : b;
}

static uint64_t f32_binary(Opcode opc, float x, float y) {
    switch (opc) {
    case OP_ADD: return scalar_f32_bits(x + y);
    case OP_SUB: return scalar_f32_bits(x - y);
    case OP_MUL: return scalar_f32_bits(x * y);
    case OP_DIV: return scalar_f32_bits(x / y);          /* div.full: within 2 ulp */
    case OP_REM: return scalar_f32_bits((float)elem_frem(x, y));   /* exact in double */
    default: tric_unreachable();
    }
}

static uint64_t f64_binary(Opcode opc, double x, double y) {
    switch (opc) {
    case OP_ADD: return scalar_f64_bits(x + y);
    case OP_SUB: return scalar_f64_bits(x - y);
    case OP_MUL: return scalar_f64_bits(x * y);
    case OP_DIV: return scalar_f64_bits(x / y);
    case OP_REM: return scalar_f64_bits(elem_frem(x, y));
    default: tric_unreachable();
    }
}

static uint64_t float_binary(Opcode opc, ElemType e, int64_t attr_i, uint64_t a, uint64_t b) {
    if (opc == OP_MIN || opc == OP_MAX) return float_minmax(opc, e, attr_i == 1, a, b);
    double x = scalar_float(e, a), y = scalar_float(e, b);
    switch (e) {
    case ET_F32: return f32_binary(opc, (float)x, (float)y);
    case ET_F64: return f64_binary(opc, x, y);
    default: break;
    }
    /* f16/bf16: +,-,* of two halves are exact in double, so one rounding
     * gives the native (or fma) result; the rest goes through f32 */
    switch (opc) {
    case OP_ADD: return scalar_round_bits(e, x + y, false);
    case OP_SUB: return scalar_round_bits(e, x - y, false);
    case OP_MUL: return scalar_round_bits(e, x * y, false);
    default: return scalar_round_bits(e, scalar_f32(f32_binary(opc, (float)x, (float)y)), false);
    }
}

uint64_t interp_elem_binary(Opcode opc, ElemType e, int64_t attr_i, uint64_t a, uint64_t b, bool *div_zero) {
    if (elem_is_float(e)) return float_binary(opc, e, attr_i, a, b);
    return int_binary(opc, e, a, b, div_zero);
}

/* An f32 subnormal as the signed zero atom.add.f32 flushes it to. */
static uint64_t f32_ftz(uint64_t bits) {
    return (bits & 0x7F800000u) == 0 ? bits & 0x80000000u : bits;
}

/* max/min of floats as Triton lowers them to integer atomics on the bit
 * pattern: a value with the sign bit clear goes through a signed max (min)
 * of the bits, one with it set through an unsigned min (max). For ordered
 * non-NaN values this is the float max (min), -0.0 below +0.0. */
static uint64_t float_bits_minmax(bool is_max, int bits, uint64_t old, uint64_t val) {
    uint64_t mask = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    old &= mask;
    val &= mask;
    if (!(val >> (bits - 1) & 1)) {
        int64_t so = bits == 64 ? (int64_t)old : (int64_t)(int32_t)(uint32_t)old;
        int64_t sv = bits == 64 ? (int64_t)val : (int64_t)(int32_t)(uint32_t)val;
        return (is_max ? so > sv : so < sv) ? old : val;
    }
    return (is_max ? old < val : old > val) ? old : val;   /* unsigned */
}

uint64_t interp_elem_atomic(AtomicKind kind, ElemType e, uint64_t old, uint64_t val) {
    bool dz = false;
    switch (kind) {
    case ATOM_ADD:
        if (e == ET_F32) return f32_ftz(float_binary(OP_ADD, e, 0, f32_ftz(old), f32_ftz(val)));
        return interp_elem_binary(OP_ADD, e, 0, old, val, &dz);
    case ATOM_MAX:
    case ATOM_MIN:
        if (elem_is_float(e)) return float_bits_minmax(kind == ATOM_MAX, elem_bits(e), old, val);
        return interp_elem_binary(kind == ATOM_MAX ? OP_MAX : OP_MIN, e, 0, old, val, &dz);
    case ATOM_AND: return interp_int_norm(e, old & val);
    case ATOM_OR: return interp_int_norm(e, old | val);
    case ATOM_XOR: return interp_int_norm(e, old ^ val);
    case ATOM_XCHG: return val;
    default: tric_unreachable();
    }
}

/* sqrt.approx.ftz.f32: a subnormal input is its signed zero */
float interp_sqrt_f32(float x) { return sqrtf(x != 0 && fabsf(x) < 0x1p-126f ? copysignf(0.0f, x) : x); }

/* exp as Triton lowers it (an f32 multiply, then ex2); sqrt as the GPU
 * computes it; log, log2, cos and sin are ir/mathfn_op.c's programs */
static float f32_math(Opcode opc, float x) {
    switch (opc) {
    case OP_EXP: return (float)exp2((double)(x * 0x1.715476p+0f));
    case OP_EXP2: return (float)exp2((double)x);
    case OP_SQRT: return interp_sqrt_f32(x);
    case OP_RSQRT: return (float)(1.0 / sqrt((double)x));
    default: tric_unreachable();
    }
}

/* exp, exp2, log and log2 are ir/mathfn_op.c's programs */
static double f64_math(Opcode opc, double x) {
    switch (opc) {
    case OP_SQRT: return sqrt(x);
    case OP_RSQRT: return 1.0 / sqrt(x);
    default: tric_unreachable();
    }
}

/* Below f64 the programs are the f32 ones (f16, bf16 widen and round back) */
static ElemType prog_type(ElemType e) { return e == ET_F64 ? ET_F64 : ET_F32; }

bool interp_math_prog(MathProg *p, Opcode opc, ElemType e) {
    return elem_is_float(e) && mathfn_build_op(p, opc, prog_type(e));
}

uint64_t interp_elem_math(const MathProg *p, ElemType e, uint64_t a) {
    if (e == ET_F32 || e == ET_F64) return mathfn_run(p, &a);
    uint64_t x = scalar_f32_bits((float)scalar_float(e, a));
    uint32_t w = (uint32_t)mathfn_run(p, &x);
    float r;
    memcpy(&r, &w, 4);
    return scalar_round_bits(e, r, false);
}

static uint64_t float_unary(Opcode opc, ElemType e, uint64_t a) {
    uint64_t sign = UINT64_C(1) << (elem_bits(e) - 1);
    if (opc == OP_NEG) return a ^ sign;
    if (opc == OP_ABS) return a & ~sign;
    MathProg p;
    if (interp_math_prog(&p, opc, e)) return interp_elem_math(&p, e, a);
    double x = scalar_float(e, a);
    if (e == ET_F64) return scalar_f64_bits(f64_math(opc, x));
    float r = f32_math(opc, (float)x);
    return e == ET_F32 ? scalar_f32_bits(r) : scalar_round_bits(e, r, false);
}

uint64_t interp_elem_unary(Opcode opc, ElemType e, uint64_t a) {
    if (elem_is_float(e)) return float_unary(opc, e, a);
    switch (opc) {
    case OP_NEG: return interp_int_norm(e, (uint64_t)0 - a);
    case OP_NOT: return e == ET_I1 ? !a : interp_int_norm(e, ~a);
    case OP_ABS: return elem_is_signed(e) && (int64_t)a < 0 ? interp_int_norm(e, (uint64_t)0 - a) : a;
    default: tric_unreachable();
    }
}

uint64_t interp_elem_cmp(CmpPred p, ElemType e, uint64_t a, uint64_t b) {
    if (elem_is_float(e)) {
        double x = scalar_float(e, a), y = scalar_float(e, b);
        switch (p) {
        case CMP_EQ: return x == y;
        case CMP_NE: return !(x == y);   /* unordered: NaN != anything */
        case CMP_LT: return x < y;
        case CMP_LE: return x <= y;
        case CMP_GT: return x > y;
        case CMP_GE: return x >= y;
        }
        tric_unreachable();
    }
    switch (p) {
    case CMP_EQ: return a == b;
    case CMP_NE: return a != b;
    case CMP_LT: return int_less(e, a, b);
    case CMP_LE: return !int_less(e, b, a);
    case CMP_GT: return int_less(e, b, a);
    case CMP_GE: return !int_less(e, a, b);
    }
    tric_unreachable();
}

static double int_value(ElemType s, uint64_t a) {
    return elem_is_signed(s) ? (double)(int64_t)a : (double)a;
}

/* one rounding, as cvt.rn from an integer does */
static uint64_t int_to_float(ElemType s, ElemType t, uint64_t a) {
    if (t == ET_F32) return scalar_f32_bits(elem_is_signed(s) ? (float)(int64_t)a : (float)a);
    if (t == ET_F64) return scalar_round_bits(t, int_value(s, a), false);
    return scalar_round_bits(t, scalar_int_double(a, elem_is_signed(s), false), false);
}

/* cvt.rzi: toward zero, saturating to the register type (s16/u16 for the
 * 8-bit types, whose low byte is then kept), NaN -> 0 */
static uint64_t float_to_int(ElemType s, ElemType t, uint64_t a) {
    double d = trunc(scalar_float(s, a));
    if (isnan(d)) return 0;
    int bits = reg_bits(t);
    double lo = elem_is_signed(t) ? -ldexp(1.0, bits - 1) : 0;
    double hi = elem_is_signed(t) ? ldexp(1.0, bits - 1) - 1 : ldexp(1.0, bits) - 1;
    if (d <= lo) d = lo;
    if (d >= hi) return interp_int_norm(t, elem_is_signed(t) ? (UINT64_MAX >> (65 - bits)) : (UINT64_MAX >> (64 - bits)));
    uint64_t u = d < 0 ? (uint64_t)(int64_t)d : (uint64_t)d;
    return interp_int_norm(t, u);
}

uint64_t interp_elem_cast(ElemType s, ElemType t, bool rz, uint64_t a) {
    if (s == t) return a;
    if (s == ET_PTR || t == ET_PTR) return a;   /* only to and from 64-bit integers */
    if (t == ET_I1) return elem_is_float(s) ? !(scalar_float(s, a) == 0) : a != 0;
    if (s == ET_I1) return elem_is_float(t) ? scalar_round_bits(t, a ? 1.0 : 0.0, false) : a;
    bool sf = elem_is_float(s), tf = elem_is_float(t);
    if (!sf && !tf) return interp_int_norm(t, a);
    if (!sf) return int_to_float(s, t, a);
    if (!tf) return float_to_int(s, t, a);
    return scalar_round_bits(t, scalar_float(s, a), rz);   /* widening is exact; narrowing rounds once */
}

uint64_t interp_elem_bitcast(ElemType s, ElemType t, uint64_t a) {
    int bits = elem_bits(s);
    uint64_t raw = bits >= 64 ? a : a & ((UINT64_C(1) << bits) - 1);
    return elem_is_float(t) ? raw : interp_int_norm(t, raw);
}

/* ---- dot ---- */

static float tf32(float x) {
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    u = elem_tf32_bits(u);
    memcpy(&x, &u, sizeof u);
    return x;
}

/* f32 operands: a tf32 product or one f32 fma (tf32x3: x3_step). Products
 * of tf32 values are exact in double. */
static uint64_t dot_step_f32(DotPrecision prec, uint64_t acc, float x, float y) {
    float c = scalar_f32(acc);
    if (prec == DOT_IEEE) return scalar_f32_bits(fmaf(x, y, c));
    return scalar_round_bits(ET_F32, elem_round_sum(ET_F32, c, (double)tf32(x) * tf32(y)), false);
}

/* One product of tf32x3's pass p (0: hi*lo, 1: lo*hi, 2: hi*hi; lo =
 * tf32(x - hi), the subtraction in f32) added to acc. */
static uint64_t x3_step(int p, uint64_t acc, float x, float y) {
    float xh = tf32(x), yh = tf32(y);
    float xs = p == 1 ? tf32(x - xh) : xh, ys = p == 0 ? tf32(y - yh) : yh;
    return scalar_round_bits(ET_F32, elem_round_sum(ET_F32, scalar_f32(acc), (double)xs * ys), false);
}

uint64_t interp_elem_dot_step(ElemType ae, ElemType be, ElemType acc_e, DotPrecision prec, uint64_t acc,
                              uint64_t a, uint64_t b) {
    if (ae == ET_I8) return interp_int_norm(acc_e, acc + (uint64_t)((int64_t)a * (int64_t)b));
    TRIC_ASSERT(ae != ET_F32 || prec != DOT_TF32X3);   /* not one step per k: interp_dot */
    if (ae == ET_F32) return dot_step_f32(prec, acc, scalar_f32(a), scalar_f32(b));
    if (ae == ET_F64) return scalar_round_bits(ET_F64, fma(scalar_float(ET_F64, a), scalar_float(ET_F64, b),
                                                           scalar_float(ET_F64, acc)), false);   /* fma.rn.f64 */
    double p = scalar_float(ae, a) * scalar_float(be, b);   /* f16, bf16, fp8: exact */
    return scalar_round_bits(acc_e, elem_round_sum(acc_e, scalar_float(acc_e, acc), p), false);
}

/* tf32x3 over k = 0..K-1: per group of 8 k (the m16n8k8 k-step), the
 * group's hi*lo, then its lo*hi, then its hi*hi (doc/ir.md). */
static uint64_t dot_x3(uint64_t acc, const uint64_t *a, const uint64_t *b, int64_t bstride, int64_t K) {
    for (int64_t k0 = 0; k0 < K; k0 += 8)
        for (int p = 0; p < 3; p++)
            for (int64_t k = k0; k < K && k < k0 + 8; k++)
                acc = x3_step(p, acc, scalar_f32(a[k]), scalar_f32(b[k * bstride]));
    return acc;
}

void interp_dot(ElemType ae, ElemType be, ElemType ce, DotPrecision prec, InterpDotShape sh, const uint64_t *a,
                const uint64_t *b, const uint64_t *c, uint64_t *d) {
    int64_t M = sh.m, N = sh.n, K = sh.k;
    for (int64_t bi = 0; bi < sh.batches; bi++) {
        const uint64_t *ab = a + bi * M * K, *bb = b + bi * K * N;
        for (int64_t m = 0; m < M; m++)
            for (int64_t j = 0; j < N; j++) {
                int64_t o = (bi * M + m) * N + j;
                uint64_t acc = c[o];
                if (ae == ET_F32 && prec == DOT_TF32X3) acc = dot_x3(acc, ab + m * K, bb + j, N, K);
                else
                    for (int64_t k = 0; k < K; k++)
                        acc = interp_elem_dot_step(ae, be, ce, prec, acc, ab[m * K + k], bb[k * N + j]);
                d[o] = acc;
            }
    }
}
