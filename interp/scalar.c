/* Conversions between slots and numbers: rounding a double to f16, bf16
 * and f32 (to nearest even or toward zero: ir/ir.c's elem_round_toward),
 * and integer wrap-around. The GPU's canonical NaNs are used for every NaN
 * an operation produces, so results compare bit for bit whatever path made
 * them. */
#include "interp.h"
#include "scalar.h"

#include <math.h>
#include <string.h>

uint64_t interp_int_norm(ElemType e, uint64_t v) {
    int bits = elem_bits(e);
    if (e == ET_PTR || bits >= 64) return v;
    uint64_t mask = (UINT64_C(1) << bits) - 1;
    v &= mask;
    if (elem_is_signed(e) && (v >> (bits - 1)) & 1) v |= ~mask;
    return v;
}

uint64_t scalar_f32_bits(float f) {
    uint32_t u;
    if (isnan(f)) return 0x7FFFFFFFu;
    memcpy(&u, &f, 4);
    return u;
}

float scalar_f32(uint64_t slot) {
    uint32_t u = (uint32_t)slot;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

uint64_t scalar_f64_bits(double d) {
    uint64_t u;
    if (isnan(d)) return UINT64_C(0x7FFFFFFFFFFFFFFF);
    memcpy(&u, &d, 8);
    return u;
}

double scalar_f64(uint64_t slot) {
    double d;
    memcpy(&d, &slot, 8);
    return d;
}

/* NaN as the GPU's canonical one; otherwise the shared rounding of ir/ir.c */
uint64_t scalar_round_bits(ElemType e, double v, bool rz) {
    if (isnan(v)) {
        if (elem_bits(e) == 8) return 0x7F;   /* cvt.rn.satfinite's NaN, both fp8 formats */
        return e == ET_F64 ? UINT64_C(0x7FFFFFFFFFFFFFFF) : e == ET_F32 ? 0x7FFFFFFFu : 0x7FFF;
    }
    if (e == ET_F64) return scalar_f64_bits(v);
    double r = elem_round_toward(e, v, rz);
    if (isinf(r) && e == ET_F8E5M2) return signbit(r) ? 0xFC : 0x7C;   /* rz keeps e5m2's inf */
    return elem_float_bits(e, r);
}

double scalar_float(ElemType e, uint64_t slot) {
    if (e == ET_F64) return scalar_f64(slot);
    if (e == ET_F32) return scalar_f32(slot);   /* the common cases without ldexp */
    return elem_float_from_bits(e, slot);
}

uint64_t interp_slot_from_double(ElemType e, double v) {
    if (elem_is_float(e)) return scalar_round_bits(e, v, false);
    if (e == ET_I1) return v != 0;
    if (isnan(v)) return 0;
    double t = trunc(v);
    /* wrap like a cast through a 64-bit integer */
    uint64_t u;
    if (t >= 0x1p64 || t <= -0x1p64) u = 0;
    else if (t >= 0x1p63) u = (uint64_t)t;
    else u = (uint64_t)(int64_t)t;
    return interp_int_norm(e, u);
}

double interp_slot_to_double(ElemType e, uint64_t slot) {
    if (elem_is_float(e)) return scalar_float(e, slot);
    if (e == ET_PTR || elem_class(e) == EC_UINT || e == ET_I1) return (double)slot;
    return (double)(int64_t)slot;
}

double scalar_int_double(uint64_t v, bool is_signed, bool rz) {
    bool neg = is_signed && (int64_t)v < 0;
    uint64_t m = neg ? (uint64_t)0 - v : v;
    int shift = 0;
    while (m >> 53) {   /* rz drops the bits; else the sticky bit stays in bit 0 */
        m = rz ? m >> 1 : (m >> 1) | (m & 1);
        shift++;
    }
    double d = ldexp((double)m, shift);
    return neg ? -d : d;
}
