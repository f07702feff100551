/* sim: a CPU simulator of the PTX that ptxgen writes, every thread of every
 * CTA, so the emitted code itself (layouts' index math, shared-memory
 * conversions, predicated vector accesses, the math routines) is checked
 * without a GPU against the IR interpreter (interp/).
 *
 *   load.c   sim_load    PTX text -> decoded instructions, registers, labels
 *   exec.c   sim_run     runs a grid: CTAs one after another, the threads of
 *                        a CTA in lock step, one instruction at a time
 *
 * The launch data are the interpreter's (interp/interp.h): the same host
 * buffers, pointer parameters as host addresses, scalars as 64-bit slots,
 * so one setup runs through both and the buffers can be compared.
 */
#ifndef TRIC_SIM_H
#define TRIC_SIM_H

#include "../base/base.h"
#include "../interp/interp.h"

typedef struct SimLaunch {
    const char *ptx;            /* a module as ptxgen writes it */
    const char *entry;          /* the .entry to run; NULL: the module's only one */
    uint32_t threads;           /* per CTA: num_warps * 32 */
    uint32_t shared_bytes;      /* dynamic shared memory */
    const InterpLaunch *data;   /* grid, one slot per .param in order, buffers */
    uint64_t max_steps;         /* instructions per CTA before giving up; 0 = 1 << 28 */
} SimLaunch;

/* Runs every CTA of data->grid. Returns true on success; otherwise appends
 * one error to *err (an unknown instruction, a global access outside every
 * buffer or misaligned, a shared access outside the allocation, a branch
 * the threads of a CTA disagree on, a runaway loop), naming the PTX line,
 * the thread and the CTA, and the kernel source line from the nearest .loc
 * when there is one; or a failed device assertion (__assertfail), with
 * the GPU's message. What vprintf prints goes to data->print_out. */
bool sim_run(const SimLaunch *l, Buf *err);

/* The interpreter's inline assembly (interp.h's InterpAsmFn), run here:
 * set InterpLaunch.run_asm to it. */
bool sim_inline_asm(const char *text, const char *letters, uint32_t n_out, uint32_t n_in, const uint64_t *in,
                    uint64_t *out, uint32_t n, const InterpLaunch *l, Buf *err);

#endif
