/* Passes over one IrFunc, one file each, and the table that runs them.
 *
 *   passes.c     opt_run_pipeline, the pass table and ordering checks
 *   legalize.c   pass_legalize    Triton's stepwise conversions on older targets (run by lowering)
 *   fold.c       pass_fold        constant folding and canonicalization
 *   cse.c        pass_cse         common subexpression elimination (pure ops)
 *   dce.c        pass_dce         dead code elimination
 *   contract.c   pass_contract    x * y + z into one fma (Triton's fp fusion)
 *   flatten.c    pass_flatten     a loop and the loop in it as one (tl.range(flatten=True))
 *   ptrcarry.c   pass_ptrcarry    carried pointer tiles: fixed start + carried offset
 *   axisinfo.c   axisinfo_*       analysis: contiguity/divisibility/constancy
 *   layout.c     pass_layout      layout assignment + convert insertion
 *   pipeline.c   pass_pipeline    software pipelining of dot loops (cp.async)
 *   wgmma.c      pass_wgmma       dots on sm_90a read their tiles from slots (wgmma)
 *   regs.c       pass_regs        estimated registers per thread (before ptxas)
 *   smem.c       pass_smem        shared-memory allocation: offsets and buffer shapes
 */
#ifndef TRIC_OPT_H
#define TRIC_OPT_H

#include "../ir/ir.h"

/* requires: nothing. changes: replaces ops whose operands are constants by
 * constants, x+0, x*1, ... by x. */
/* changes: casts Triton's NVIDIA backend does in steps on this target
 * (f32 -> fp8 through f16 before sm_90, integers -> bf16 through f32
 * before sm_90) become those steps. Lowering ends with it. */
void pass_legalize(IrFunc *fn);
void pass_fold(IrFunc *fn);
/* requires: nothing. changes: merges identical pure ops (same opcode,
 * operands, attributes, types) where one dominates the other. */
void pass_cse(IrFunc *fn);
/* requires: nothing. changes: deletes pure ops (and non-volatile loads) whose
 * results are unused, and unused loop-carried values. */
void pass_dce(IrFunc *fn);
/* requires: nothing. changes: an f32/f64 mul whose only use is an add in the
 * same block becomes, with the add, one math fma; nothing under
 * target.no_fp_fusion. */
void pass_contract(IrFunc *fn);
/* requires: nothing; before layout. changes: a `for` marked flatten whose
 * body is pure ops, one loop, then anything becomes one loop over both
 * (flatten.c), under an if on the inner trip count being positive. */
void pass_flatten(IrFunc *fn);
/* requires: nothing; before layout. changes: a `for`-carried pointer tile
 * advanced by a uniform step becomes addptr(start, splat(offset)) with an
 * i64 offset carried instead; the old carried value is left to dce. */
void pass_ptrcarry(IrFunc *fn);
/* requires: nothing (runs axis analysis itself). changes: gives every tile
 * value a layout; loads/stores get layouts whose per-thread runs are as wide
 * as contiguity and alignment allow (up to 16 bytes); inserts convert_layout
 * where two choices meet. After it every tile value has a layout. */
void pass_layout(IrFunc *fn);
/* v > 0: a positive constant or num_programs (a persistent kernel's step) */
bool opt_known_positive(IrFunc *fn, ValId v);
/* v is a constant +0 (floats: not -0), scalar or tile */
bool opt_is_zero_const(IrFunc *fn, ValId v);
/* requires: layout. changes: loops whose loads feed dot operands (through a
 * convert_layout) load them target.num_stages - 1 iterations ahead into
 * rings of shared-memory slots by async copies (pipeline.c); layouts kept. */
void pass_pipeline(IrFunc *fn);
/* requires: layout. changes: a dot in the wgmma layout whose B is read from
 * a slot (pipeline) becomes wgmma (A from its slot or registers) and a
 * wgmma_wait; the slot reads it replaces are left to dce. */
void pass_wgmma(IrFunc *fn);
/* requires: layout (without layouts each tile counts as spread evenly over
 * the threads). changes: nothing in the IR; sets fn->est_regs (estimated
 * peak 32-bit registers per thread), fn->est_preds and fn->est_regs_op
 * (the op at the peak) from liveness over the structured IR. */
void pass_regs(IrFunc *fn);
/* requires: layout (the shapes come from the layouts). changes: every op
 * that uses shared memory gets attr.smem (its offset; buffers and
 * conversions their shape, reductions whether to wait first); sets
 * fn->shared_bytes, fn->smem_align and fn->smem_planned. Last: ptxgen
 * prints what it decided. */
void pass_smem(IrFunc *fn);

/* ---- axisinfo.c ----
 * Per dimension of an integer or pointer value: contiguity (length of runs
 * of consecutive values), divisibility (largest power of two dividing the
 * first element of each run; for pointers in bytes), constancy (length of
 * runs of equal values). Scalars have rank 0 and use dim 0. */
typedef struct AxisInfo {
    int64_t contiguity[IR_MAX_RANK];
    int64_t divisibility[IR_MAX_RANK];
    int64_t constancy[IR_MAX_RANK];
} AxisInfo;
AxisInfo *axisinfo_compute(IrFunc *fn);   /* arena array indexed by ValId */

/* ---- passes.c ---- */
typedef void (*PassFn)(IrFunc *fn);
typedef struct PassInfo {
    const char *name;
    PassFn fn;
    const char *requires;    /* a pass that must have run before, or NULL */
} PassInfo;
extern const PassInfo opt_passes[];
extern const int opt_n_passes;
/* The standard pipeline's pass names, in order (what opt_run_pipeline runs). */
extern const char *const opt_standard_pipeline[];
extern const int opt_n_standard_pipeline;

/* Runs the standard pipeline. After each pass: verifies if ctx->verify_each,
 * and prints the IR to ctx->dump_out if ctx->dump_after names the pass or
 * is "all" (header line "// -----// IR after NAME //----- //"). */
void opt_run_pipeline(IrFunc *fn);
/* Runs one pass by name (tests). Returns false if no such pass. */
bool opt_run_pass(IrFunc *fn, const char *name);
/* the table's row of pass `name`, NULL if none */
const PassInfo *opt_find_pass(const char *name);

#endif
