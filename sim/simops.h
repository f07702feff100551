/* sim's value semantics (ops.c), used by exec.c. */
#ifndef TRIC_SIM_OPS_H
#define TRIC_SIM_OPS_H

#include "simint.h"

typedef enum SimStatus { SIM_OK, SIM_BAD, SIM_DIV_ZERO } SimStatus;

uint64_t sim_trunc(uint64_t v, int bits);
uint64_t sim_sext(uint64_t v, int bits);
uint64_t sim_extend(SimTy t, uint64_t v);        /* low bits of t, extended by its kind */
double sim_float(SimTy t, uint64_t v);
uint64_t sim_round(SimTy t, double d, bool rz);
SimStatus sim_setp(const SimIns *in, uint64_t a, uint64_t b, uint64_t *r);
SimStatus sim_cvt(const SimIns *in, uint64_t a, uint64_t *r);
/* every op that computes a value from v[1..3] (v[0] unused): SIM_BAD for
 * an op x type x modifier combination that is not modelled */
SimStatus sim_alu(const SimIns *in, const uint64_t *v, uint64_t *r);
/* atom/red: what memory holds after the operation on `old` with operand b
 * (cas: compare with b, swap in c); SIM_BAD for a combination PTX lacks */
SimStatus sim_atom(const SimIns *in, uint64_t old, uint64_t b, uint64_t c, uint64_t *r);

#endif
