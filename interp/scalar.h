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

/* ---- ops.c ---- one op on one element, e = the operand type. sm is the
 * target (some conversions differ before sm_90). */
uint64_t interp_elem_unary(Opcode opc, ElemType e, uint64_t a);
/* *div_zero set (and 0 returned) for an integer division by zero */
uint64_t interp_elem_binary(Opcode opc, ElemType e, int64_t attr_i, uint64_t a, uint64_t b, bool *div_zero);
uint64_t interp_elem_cmp(CmpPred p, ElemType e, uint64_t a, uint64_t b);
uint64_t interp_elem_cast(ElemType s, ElemType t, bool rz, int sm, uint64_t a);
uint64_t interp_elem_bitcast(ElemType s, ElemType t, uint64_t a);
/* What memory holds after atomic `kind` of val on old (e the element type;
 * doc/interp.md): f32 add flushes subnormals as atom.add.f32 does, float
 * max/min compare bit patterns as Triton's lowering does. */
uint64_t interp_elem_atomic(AtomicKind kind, ElemType e, uint64_t old, uint64_t val);

#endif
