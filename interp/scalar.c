/* Conversions between slots and numbers: rounding a double to f16, bf16
 * and f32 (to nearest even or toward zero), and integer wrap-around. The
 * GPU's canonical NaNs are used for every NaN an operation produces, so
 * results compare bit for bit whatever path made them. */
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

/* A binary float format with p significant bits and exponents emin..emax. */
typedef struct Fmt {
    int p, emin, emax;
} Fmt;

static Fmt fmt_of(ElemType e) {
    switch (e) {
    case ET_F16: return (Fmt){11, -14, 15};
    case ET_BF16: return (Fmt){8, -126, 127};
    default: return (Fmt){24, -126, 127};   /* f32 */
    }
}

/* v rounded to the format (a double holding the exact result), or +-inf. */
static double round_fmt(double v, Fmt f, bool rz) {
    if (isnan(v) || isinf(v) || v == 0) return v;
    double a = fabs(v);
    int ex;
    frexp(a, &ex);                                  /* a in [2^(ex-1), 2^ex) */
    int e = ex - 1 < f.emin ? f.emin : ex - 1;      /* subnormals share emin's quantum */
    double quantum = ldexp(1.0, e - f.p + 1);
    double q = a / quantum;                         /* exact: a power of two */
    q = rz ? trunc(q) : nearbyint(q);               /* the default mode rounds to even */
    double r = q * quantum;
    double max = ldexp(2.0 - ldexp(1.0, 1 - f.p), f.emax);
    if (r > max) r = rz ? max : INFINITY;
    return copysign(r, v);
}

static uint16_t f16_encode(double r) {   /* r exactly representable (or inf) */
    uint16_t sign = signbit(r) ? 0x8000 : 0;
    double a = fabs(r);
    if (isinf(a)) return sign | 0x7C00;
    if (a < 0x1p-14) return sign | (uint16_t)(a * 0x1p24);
    int ex;
    double m = frexp(a, &ex);
    return sign | (uint16_t)((ex - 1 + 15) << 10) | (uint16_t)(m * 2048.0 - 1024.0);
}

uint64_t scalar_round_bits(ElemType e, double v, bool rz) {
    switch (e) {
    case ET_F64: return scalar_f64_bits(v);
    case ET_F32:
        if (isnan(v)) return 0x7FFFFFFFu;
        return scalar_f32_bits((float)round_fmt(v, fmt_of(e), rz));
    case ET_F16:
        if (isnan(v)) return 0x7FFF;
        return f16_encode(round_fmt(v, fmt_of(e), rz));
    case ET_BF16: {
        if (isnan(v)) return 0x7FFF;
        float f = (float)round_fmt(v, fmt_of(e), rz);   /* exact in f32 */
        uint32_t u;
        memcpy(&u, &f, 4);
        return u >> 16;
    }
    default: tric_unreachable();
    }
}

double scalar_float(ElemType e, uint64_t slot) {
    switch (e) {
    case ET_F64: return scalar_f64(slot);
    case ET_F32: return scalar_f32(slot);
    case ET_BF16: {
        uint32_t u = (uint32_t)(slot & 0xFFFF) << 16;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    case ET_F16: {
        unsigned h = (unsigned)(slot & 0xFFFF);
        double sign = h & 0x8000 ? -1.0 : 1.0;
        unsigned ex = (h >> 10) & 0x1F, man = h & 0x3FF;
        if (ex == 0x1F) return man ? NAN : sign * INFINITY;
        if (ex == 0) return sign * ldexp(man, -24);
        return sign * ldexp(man + 1024, (int)ex - 25);
    }
    default: tric_unreachable();
    }
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
