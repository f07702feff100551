/* interp's internal header: the element semantics shared by interp.c,
 * ops.c and args.c (scalar.c: conversions; ops.c: one op on one element). */
#ifndef TRIC_INTERP_SCALAR_H
#define TRIC_INTERP_SCALAR_H

#include "interp.h"

/* ---- scalar.c ---- */
uint64_t scalar_f32_bits(float f);          /* NaN -> 0x7FFFFFFF */
float scalar_f32(uint64_t slot);
uint64_t scalar_f64_bits(double d);         /* NaN -> 0x7FFFFFFFFFFFFFFF */
double scalar_f64(uint64_t slot);
/* d rounded to float type e (nearest even, or toward zero when rz), as bits */
uint64_t scalar_round_bits(ElemType e, double d, bool rz);
double scalar_float(ElemType e, uint64_t slot);   /* exact */
/* A 64-bit integer as a double that a second rounding of the same kind
 * (to a narrower float) leaves rounded once: exact below 2^53, above it
 * truncated (rz) or rounded to odd (the dropped bits as a sticky last bit) */
double scalar_int_double(uint64_t v, bool is_signed, bool rz);

/* ---- ops.c ---- one op on one element, e = the operand type; the same
 * on every target. */
uint64_t interp_elem_unary(Opcode opc, ElemType e, uint64_t a);
/* *div_zero set (and 0 returned) for an integer division by zero */
uint64_t interp_elem_binary(Opcode opc, ElemType e, int64_t attr_i, uint64_t a, uint64_t b, bool *div_zero);
uint64_t interp_elem_cmp(CmpPred p, ElemType e, uint64_t a, uint64_t b);
/* one rounding (toward zero where rz), on every target: where Triton
 * rounds in steps, pass legalize made the steps ops of their own */
uint64_t interp_elem_cast(ElemType s, ElemType t, bool rz, uint64_t a);
uint64_t interp_elem_bitcast(ElemType s, ElemType t, uint64_t a);
/* What memory holds after atomic `kind` of val on old (e the element type;
 * doc/interp.md): f32 add flushes subnormals as atom.add.f32 does, float
 * max/min compare bit patterns as Triton's lowering does. */
uint64_t interp_elem_atomic(AtomicKind kind, ElemType e, uint64_t old, uint64_t val);
/* One k step of dot (doc/ir.md): acc + a * b for operands of types ae, be
 * and an accumulator of type acc_e; prec applies to f32 operands. */
uint64_t interp_elem_dot_step(ElemType ae, ElemType be, ElemType acc_e, DotPrecision prec, uint64_t acc,
                              uint64_t a, uint64_t b);
/* d = c + a @ b over slots, row-major: a batches x m x k, b batches x k x n,
 * c and d batches x m x n (any sizes; c and d may be the same array); every
 * element adds its k products in ascending k (interp_elem_dot_step). */
typedef struct InterpDotShape {
    int64_t batches, m, n, k;
} InterpDotShape;
void interp_dot(ElemType ae, ElemType be, ElemType ce, DotPrecision prec, InterpDotShape sh, const uint64_t *a,
                const uint64_t *b, const uint64_t *c, uint64_t *d);

#endif
