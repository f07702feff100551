/* The program builder's two primitives, shared by ir/mathfn.c (the `math`
 * op's functions) and ir/mathfn_op.c (the Triton ops' programs). */
#ifndef TRIC_IR_MATHFN_PRIV_H
#define TRIC_IR_MATHFN_PRIV_H

#include "mathfn.h"

/* a new register of type t (not yet written) */
int mathfn_reg(MathProg *p, MType t);
/* appends the step d = op(a, b, c) (imm, cmp and fl as MIns has them) */
void mathfn_put(MathProg *p, int d, MOp op, int a, int b, int c, uint64_t imm, int cmp, int fl);

#endif
