/* Occupancy: how many CTAs of a kernel one SM holds, and the register cap
 * that would let it hold more.
 *
 * ptxas picks a kernel's registers for its own schedule, not for occupancy:
 * a memory-bound kernel that lands a few registers above a step (36 for 256
 * threads: 6 CTAs, 75% of the warps; 32: 8 CTAs, 100%) loses latency hiding
 * for nothing. rt_module_load JITs the PTX again with this cap as a
 * .maxnreg directive and keeps the result only if the driver reports more
 * resident CTAs and nothing spilled. The model is the CUDA occupancy calculator's: registers
 * are allocated per warp in units of 256. */
#include "rt.h"

enum { REG_UNIT = 256, MAX_CAP_DROP = 8 };

static int warp_regs(int regs_per_thread) {
    int r = regs_per_thread * 32;
    return (r + REG_UNIT - 1) / REG_UNIT * REG_UNIT;
}

int rt_ctas_per_sm(const RtSmLimits *sm, int regs_per_thread, int threads, int smem_bytes) {
    if (threads <= 0 || regs_per_thread <= 0) return 0;
    int warps = (threads + 31) / 32;
    int by_regs = sm->regs / warp_regs(regs_per_thread) / warps;
    int n = sm->threads / (warps * 32);
    if (by_regs < n) n = by_regs;
    if (sm->blocks < n) n = sm->blocks;
    if (smem_bytes > 0) {
        int by_smem = sm->smem / (smem_bytes + sm->smem_reserved);
        if (by_smem < n) n = by_smem;
    }
    return n;
}

int rt_register_cap(const RtSmLimits *sm, int regs_per_thread, int threads, int smem_bytes) {
    int now = rt_ctas_per_sm(sm, regs_per_thread, threads, smem_bytes);
    for (int cap = regs_per_thread - 1; cap >= regs_per_thread - MAX_CAP_DROP && cap >= 16; cap--)
        if (rt_ctas_per_sm(sm, cap, threads, smem_bytes) > now) {
            /* the largest such cap: the same occupancy down to the step */
            while (cap + 1 < regs_per_thread && rt_ctas_per_sm(sm, cap + 1, threads, smem_bytes) > now) cap++;
            return cap;
        }
    return 0;
}
