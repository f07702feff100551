/* PTX generation from laid-out IR.
 *
 *   emit.c      ptx_emit       module skeleton, params, walk over ops
 *   optab.c     op x type -> PTX templates, type suffix tables
 *   memory.c    loads and stores (vectorized, masked, cache modifiers)
 *   convert.c   convert_layout through shared memory
 *   reduce.c    reduce: registers, warp shuffles, shared memory across warps
 *   mathprog.c  math functions as ir/mathfn programs: the `math` op, f64
 *               exp, exp2, log, log2, f32 log, log2, sin, cos
 *   dot.c       dot: mma.sync (f16, bf16, tf32, i8, fp8) or FMAs
 */
#ifndef TRIC_PTXGEN_H
#define TRIC_PTXGEN_H

#include "../ir/ir.h"

/* The whole PTX module (one .entry named fn->name) as a heap string. Every
 * tile value must have a layout (pass_layout ran) and shared memory must
 * be placed (pass_smem ran); fn->shared_bytes is what the kernel uses
 * (dynamic; the launch passes it). */
char *ptx_emit(IrFunc *fn);

#endif
