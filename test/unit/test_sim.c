/* The PTX simulator (sim/).
 *
 * 1. Hand-written PTX: decoding (immediates, vectors, predicates, labels,
 *    special registers), element semantics at their edges, and the exact
 *    messages for an out-of-bounds access, a divergent branch and an
 *    unknown instruction; vprintf's formatting from .global strings and
 *    .local argument buffers, and a failing __assertfail's message;
 *    every mma.sync form on every element of D against a sequential C
 *    reference (fragments packed by the ISA's tables; doc/ptx.md's global
 *    memory example), cvt.rna.tf32.f32, cp.async's zero fill, groups and
 *    late completion, and the exact messages for what is refused; a TMA
 *    box (swizzled, NaN-filled past the tensor, negative coordinates) on
 *    an mbarrier's two phases, and what would hang or is undefined; a
 *    tensor map built in the kernel (tensormap.replace, cp_fenceproxy to
 *    global memory, both stride conventions) and used by a TMA copy, and
 *    what no map can hold.
 * 2. Every kernel test block of kernels/NAME.py, compiled for sm_80 and
 *    sm_90a (the first block also with 1 and 8 warps, kernels/block_ptr.py's
 *    also for sm_90, whose mma.sync reads TMA's boxes): the simulated PTX
 *    must leave every buffer as the IR interpreter does on the IR after all
 *    passes, from the same inputs (diff_simulate in differential.h), and
 *    print the same lines; kernels with print/assert also with debug on
 *    (device assertions compiled in).
 * 3. --simulate prints what --interpret prints.
 * 4. diff_simulate's bounds: which buffers approximate math reaches and the
 *    ulp in its type; where a float rem leaves ptxgen's exact range. */
#include "base/base.h"
#include "interp/interp.h"
#include "interp/scalar.h"
#include "ir/tmap.h"
#include "runtime/rt.h"
#include "sim/sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blocks.h"
#include "differential.h"
#include "check.h"



/* ---- 1. hand-written PTX ---- */

#define HEAD                                                                       \
    ".version 7.0\n.target sm_80\n.address_size 64\n\n.file 1 \"k.py\"\n"            \
    ".visible .entry k(\n\t.param .u64 out,\n\t.param .u32 n\n)\n.maxntid 64, 1, 1\n{\n" \
    "\t.reg .pred %p<8>;\n\t.reg .b16 %h<8>;\n\t.reg .b32 %r<40>;\n\t.reg .f32 %f<16>;\n"  \
    "\t.reg .b64 %rd<8>;\n\t.reg .f64 %fd<4>;\n"                                    \
    "\tld.param.u64 %rd1, [out];\n\tcvta.to.global.u64 %rd2, %rd1;\n"               \
    "\tld.param.u32 %r1, [n];\n\tmov.u32 %r2, %tid.x;\n"                            \
    "\tmad.wide.u32 %rd3, %r2, 4, %rd2;\n"
/* HEAD is 22 lines: the body's first line is PTX line 23 */

typedef struct PtxRun {
    bool ok;
    Buf err;
    Buf prints;     /* what vprintf wrote */
} PtxRun;

static void run_ptx(PtxRun *r, const char *ptx, void *out, size_t bytes, uint64_t n, uint32_t threads,
                    uint32_t grid) {
    InterpBuffer buf = {out, bytes, "out", ET_U32, false, false};
    uint64_t args[2] = {(uint64_t)(uintptr_t)out, n};
    r->err = (Buf){0};
    r->prints = (Buf){0};
    InterpLaunch l = {.grid = {grid, 1, 1}, .args = args, .n_args = 2, .buffers = &buf, .n_buffers = 1,
                      .print_out = &r->prints};
    SimLaunch sl = {.ptx = ptx, .threads = threads, .data = &l, .max_steps = 100000};
    r->ok = sim_run(&sl, &r->err);
}

/* Element semantics: one thread computes, out[k] = result k. */
static const char semantics_ptx[] = HEAD
    "\tmov.b32 %r3, -8;\n"
    "\tshr.s32 %r4, %r3, 40;\n"                      /* 0: arithmetic shr by >= 32: -1 */
    "\tst.global.b32 [%rd2], %r4;\n"
    "\tshl.b32 %r5, %r1, 32;\n"                      /* 1: shl by 32: 0 */
    "\tst.global.b32 [%rd2+4], %r5;\n"
    "\tmov.b32 %r6, 0x44332211;\n\tmov.b32 %r7, 0x88776655;\n"
    "\tprmt.b32 %r8, %r6, %r7, 0x0040;\n"            /* 2: selectors 0,4,0,0: bytes a0 b0 a0 a0 */
    "\tst.global.b32 [%rd2+8], %r8;\n"
    "\tbfe.s32 %r9, %r7, 28, 8;\n"                   /* 3: bits 28..35 of 0x8877.., sign-filled: -8 */
    "\tst.global.b32 [%rd2+12], %r9;\n"
    "\tmov.f32 %f1, 0f43960000;\n"                   /* 300.0 */
    "\tcvt.rzi.s8.f32 %h1, %f1;\n"                   /* saturates to 127 */
    "\tcvt.s32.s8 %r10, %h1;\n"
    "\tst.global.b32 [%rd2+16], %r10;\n"             /* 4: 127 */
    "\tmov.f32 %f2, 0f7FC00001;\n"                   /* a NaN with a payload */
    "\tmin.f32 %f3, %f2, %f1;\n"                     /* 5: the other operand: 300.0 */
    "\tst.global.f32 [%rd2+20], %f3;\n"
    "\tmax.NaN.f32 %f4, %f1, %f2;\n"                 /* 6: canonical NaN 0x7FFFFFFF */
    "\tst.global.f32 [%rd2+24], %f4;\n"
    "\tsetp.neu.f32 %p1, %f2, %f2;\n\tselp.b32 %r11, 1, 0, %p1;\n"
    "\tst.global.b32 [%rd2+28], %r11;\n"             /* 7: NaN != NaN */
    "\tmov.b32 {%h2, %h3}, %r6;\n\tmov.b32 %r12, {%h3, %h2};\n"
    "\tst.global.b32 [%rd2+32], %r12;\n"             /* 8: halves swapped: 0x22114433 */
    "\tmov.b32 %r13, -7;\n\tdiv.s32 %r14, %r13, 2;\n\trem.s32 %r15, %r13, 2;\n"
    "\tst.global.v2.b32 [%rd2+40], {%r14, %r15};\n"  /* 10, 11: -3, -1 */
    "\tmul.hi.s32 %r16, %r13, 0x40000000;\n"
    "\tst.global.b32 [%rd2+48], %r16;\n"             /* 12: -7 * 2^30 >> 32 = -2 */
    "\tmov.f32 %f5, 0f3F801001;\n\tcvt.rn.f16.f32 %h4, %f5;\n\tcvt.u32.u16 %r17, %h4;\n"
    "\tst.global.b32 [%rd2+52], %r17;\n"             /* 13: 1 + 2^-11 + 2^-23: just above the tie, 0x3C01 */
    "\tmov.b32 %r18, 0;\n\tmov.b32 %r19, 0;\n"
    "$L_loop:\n"
    "\tadd.s32 %r19, %r19, 1;\n\tadd.s32 %r18, %r18, %r19;\n"
    "\tsetp.lt.s32 %p2, %r19, 10;\n\t@%p2 bra $L_loop;\n"
    "\tst.global.b32 [%rd2+56], %r18;\n"             /* 14: 1 + ... + 10 = 55 */
    "\tld.global.v2.b32 {%r20, %r21}, [%rd2+40];\n\tadd.s32 %r22, %r20, %r21;\n"
    "\tst.global.b32 [%rd2+60], %r22;\n"             /* 15: -4 */
    "\tmov.f64 %fd1, 0d4000000000000000;\n\tcvt.rni.s32.f64 %r23, %fd1;\n"
    "\tcvt.rn.f32.f64 %f6, %fd1;\n\tst.global.f32 [%rd2+64], %f6;\n"       /* 16: 2.0f */
    "\tsetp.ge.u32 %p3, %r13, 1;\n\t@!%p3 st.global.b32 [%rd2+68], %r23;\n" /* 17: not written */
    "\t@%p3 st.global.b32 [%rd2+72], %r23;\n"      /* 18: 2 */
    "\tret;\n}\n";

static void test_semantics(void) {
    uint32_t out[20];
    memset(out, 0xEE, sizeof out);
    PtxRun r;
    run_ptx(&r, semantics_ptx, out, sizeof out, 5, 1, 1);
    CHECK_MSG(r.ok, "%s", buf_str(&r.err));
    static const uint32_t want[19] = {0xFFFFFFFF, 0, 0x11115511, 0xFFFFFFF8, 127, 0x43960000, 0x7FFFFFFF, 1,
                                      0x22114433, 0xEEEEEEEE, (uint32_t)-3, (uint32_t)-1, (uint32_t)-2, 0x3C01, 55,
                                      (uint32_t)-4, 0x40000000, 0xEEEEEEEE, 2};
    for (int k = 0; r.ok && k < 19; k++) CHECK_MSG(out[k] == want[k], "out[%d] = 0x%x, expected 0x%x", k, out[k], want[k]);
    buf_free(&r.err);
}

/* Exact messages: a store past the buffer, a divergent branch, an unknown
 * instruction, a misaligned vector. */
static void expect_error(const char *ptx, uint32_t threads, uint32_t grid, const char *want) {
    _Alignas(16) uint32_t out[40] = {0};
    PtxRun r;
    run_ptx(&r, ptx, out, sizeof out, 40, threads, grid);
    CHECK_MSG(!r.ok && strcmp(buf_str(&r.err), want) == 0, "got:\n%s", buf_str(&r.err));
    buf_free(&r.err);
    buf_free(&r.prints);
}

static void test_errors(void) {
    /* 64 threads, 2 CTAs, out has 40 elements: CTA 0's thread 40 is first past the end */
    expect_error(HEAD "\t.loc 1 7 5\n\tst.global.b32 [%rd3], %r2;\n\tret;\n}\n", 64, 2,
                 "sim: k.py:7: st.global.b32 at PTX line 24 writes 4 bytes at offset +160 of buffer 'out' "
                 "(160 bytes), outside every buffer (thread 40 of CTA (0, 0, 0))\n");
    expect_error(HEAD "\t.loc 1 9 1\n\tmov.u32 %r3, %ctaid.x;\n\tadd.s32 %r4, %r3, %r2;\n"
                 "\tsetp.lt.u32 %p1, %r4, 37;\n\t@%p1 bra $L_x;\n$L_x:\n\tret;\n}\n", 64, 1,
                 "sim: k.py:9: bra at PTX line 27 is divergent: thread 0 takes it, thread 37 does not "
                 "(thread 37 of CTA (0, 0, 0))\n");
    expect_error(HEAD "\tfrob.b32 %r3, %r2;\n\tret;\n}\n", 32, 1,
                 "sim: PTX line 23: unknown instruction 'frob.b32'\n");
    expect_error(HEAD "\tadd.rm.f32 %f1, %f2, %f3;\n\tret;\n}\n", 32, 1,
                 "sim: PTX line 23: 'add.rm.f32': only .rn rounding is modelled\n");
    expect_error(HEAD "\t.loc 1 3 2\n\tld.global.v2.b32 {%r4, %r5}, [%rd3];\n\tret;\n}\n", 32, 1,
                 "sim: k.py:3: ld.global.v2.b32 at PTX line 24 reads 8 bytes at offset +4 of buffer 'out', "
                 "not 8-byte aligned (thread 1 of CTA (0, 0, 0))\n");
    expect_error(HEAD "$L_spin:\n\tbra $L_spin;\n\tret;\n}\n", 32, 1,
                 "sim: bra at PTX line 24: more than 100000 instructions in one CTA, a runaway loop? "
                 "(thread 0 of CTA (0, 0, 0))\n");
}

/* ---- warp shuffles ---- */

/* 64 threads, value 3 t + 1 in %r3; each result to out[k * 64 + t] */
static const char shfl_ptx[] = HEAD
    "\tmad.lo.s32 %r3, %r2, 3, 1;\n"
    "\tshfl.sync.bfly.b32 %r4, %r3, 5, 0x1f, -1;\n"               /* 0: xor 5 */
    "\tst.global.b32 [%rd3], %r4;\n"
    "\tshfl.sync.up.b32 %r5|%p1, %r3, 3, 0x1000, 0xffffffff;\n"   /* 1, 2: up 3 in groups of 16 */
    "\tselp.b32 %r6, 1, 0, %p1;\n"
    "\tst.global.b32 [%rd3+256], %r5;\n\tst.global.b32 [%rd3+512], %r6;\n"
    "\tshfl.sync.down.b32 %r7, %r3, 2, 0x101f, -1;\n"              /* 3: down 2 in groups of 16 */
    "\tst.global.b32 [%rd3+768], %r7;\n"
    "\tmul.lo.s32 %r8, %r2, 7;\n"
    "\tshfl.sync.idx.b32 %r9, %r3, %r8, 0x181f, -1;\n"             /* 4: lane 7t % 8 of its group of 8 */
    "\tst.global.b32 [%rd3+1024], %r9;\n"
    "\tshfl.sync.bfly.b32 %r10, %r3, 16, 0x101f, -1;\n"            /* 5: groups of 16 read earlier groups only */
    "\tst.global.b32 [%rd3+1280], %r10;\n"
    "\tand.b32 %r11, %r2, 31;\n\tsetp.lt.u32 %p2, %r11, 16;\n"
    "\t@%p2 shfl.sync.bfly.b32 %r3, %r3, 1, 0x1f, 0xffff;\n"       /* 6: half warps, d = a */
    "\t@%p2 st.global.b32 [%rd3+1536], %r3;\n"
    "\tret;\n}\n";

static void test_shfl(void) {
    enum { T = 64, K = 7 };
    uint32_t out[K * T];
    memset(out, 0xEE, sizeof out);
    PtxRun r;
    run_ptx(&r, shfl_ptx, out, sizeof out, T, T, 1);
    CHECK_MSG(r.ok, "%s", buf_str(&r.err));
    /* what CUDA's __shfl_*_sync(mask, v, b, width) documents */
    for (uint32_t t = 0; r.ok && t < T; t++) {
        uint32_t v = 3 * t + 1, lane = t % 32, w = t - lane, g16 = lane % 16;
        uint32_t want[K] = {
            3 * (w + (lane ^ 5)) + 1,
            g16 >= 3 ? v - 9 : v, g16 >= 3,
            g16 < 14 ? v + 6 : v,
            3 * (w + (lane & ~7u) + (7 * t) % 8) + 1,
            lane >= 16 ? v - 48 : v,
            lane < 16 ? 3 * (t ^ 1) + 1 : 0xEEEEEEEE,
        };
        for (int k = 0; k < K; k++)
            CHECK_MSG(out[k * T + t] == want[k], "shfl %d, thread %u: 0x%x, expected 0x%x", k, t, out[k * T + t], want[k]);
    }
    buf_free(&r.err);
    buf_free(&r.prints);
    /* what PTX leaves undefined is an error */
    expect_error(HEAD "\tsetp.ne.u32 %p1, %r2, 3;\n\t@%p1 shfl.sync.bfly.b32 %r4, %r2, 1, 0x1f, -1;\n\tret;\n}\n",
                 64, 1, "sim: shfl.sync.bfly.b32 at PTX line 24 has member mask 0xffffffff, but lane 3 does not "
                 "execute it (its guard is false) (thread 0 of CTA (0, 0, 0))\n");
    expect_error(HEAD "\tshfl.sync.bfly.b32 %r4, %r2, 1, 0x1f, 0xffff;\n\tret;\n}\n", 64, 1,
                 "sim: shfl.sync.bfly.b32 at PTX line 23 runs in lane 16, outside its member mask 0x0000ffff "
                 "(undefined) (thread 16 of CTA (0, 0, 0))\n");
    expect_error(HEAD "\tsetp.lt.u32 %p1, %r2, 16;\n\t@%p1 shfl.sync.idx.b32 %r4, %r2, 20, 0x1f, 0xffff;\n"
                 "\tret;\n}\n", 32, 1,
                 "sim: shfl.sync.idx.b32 at PTX line 24 reads lane 20, outside the member mask 0x0000ffff "
                 "(undefined) (thread 0 of CTA (0, 0, 0))\n");
    expect_error(HEAD "\tshfl.sync.down.b32 %r4, %r2, 1, 0x1f, -1;\n\tret;\n}\n", 48, 1,
                 "sim: shfl.sync.down.b32 at PTX line 23 has member mask 0xffffffff, but lane 16 does not exist "
                 "(the CTA has fewer threads) (thread 32 of CTA (0, 0, 0))\n");
    expect_error(HEAD "\tsetp.lt.u32 %p1, %r2, 16;\n\tselp.b32 %r5, 0xffff, 0xffff0000, %p1;\n"
                 "\tshfl.sync.bfly.b32 %r4, %r2, 1, 0x1f, %r5;\n\tshfl.sync.bfly.b32 %r4, %r2, 1, 0x1f, 0xff;\n"
                 "\tret;\n}\n", 32, 1,
                 "sim: shfl.sync.bfly.b32 at PTX line 26 runs in lane 8, outside its member mask 0x000000ff "
                 "(undefined) (thread 8 of CTA (0, 0, 0))\n");
    expect_error(HEAD "\tshfl.bfly.b32 %r4, %r2, 1, 0x1f;\n\tret;\n}\n", 32, 1,
                 "sim: PTX line 23: 'shfl.bfly.b32' takes 5 operands, not 4\n");
    expect_error(HEAD "\tshfl.sync.bfly.b32 %r4, %r2, 1, 0x1f, -1, 3;\n\tret;\n}\n", 32, 1,
                 "sim: PTX line 23: too many operands for 'shfl.sync.bfly.b32'\n");
    expect_error(HEAD "\tshfl.sync.b32 %r4, %r2, 1, 0x1f, -1;\n\tret;\n}\n", 32, 1,
                 "sim: PTX line 23: unknown instruction 'shfl.sync.b32' (shfl.sync.{bfly,up,down,idx}.b32 is "
                 "modelled)\n");
    expect_error(HEAD "\tadd.up.s32 %r4, %r2, 1;\n\tret;\n}\n", 32, 1,
                 "sim: PTX line 23: unknown instruction 'add.up.s32' (modifier '.up')\n");
}

/* ---- atomics ---- */

/* atom/red at their edges, one thread: f32 add flushes subnormals (the old
 * value comes back as memory held it), signed vs unsigned max, a 16-bit cas
 * leaves the other half alone, red, exch of 64 bits; then 8 threads draw
 * tickets from one counter in ascending thread order. */
static const char atomics_ptx[] = HEAD
    "\tmov.b32 %r3, 1;\n\tst.global.b32 [%rd2], %r3;\n"               /* out[0]: the smallest subnormal */
    "\tmov.b32 %f1, 1;\n\tatom.global.add.f32 %f2, [%rd2], %f1;\n"     /* sub + sub = +0 with ftz */
    "\tst.global.f32 [%rd2+4], %f2;\n"                                 /* out[1]: old, unflushed: 1 */
    "\tmov.b32 %r4, -5;\n\tst.global.v2.b32 [%rd2+8], {%r4, %r4};\n"
    "\tatom.relaxed.cta.global.max.s32 %r5, [%rd2+8], 3;\n"            /* out[2]: 3 */
    "\tatom.acquire.sys.global.max.u32 %r6, [%rd2+12], 3;\n"           /* out[3]: 0xFFFFFFFB */
    "\tmov.b32 %r7, 0xAAAA1234;\n\tst.global.b32 [%rd2+16], %r7;\n"
    "\tmov.b16 %h1, 0x1234;\n\tmov.b16 %h2, 0x5678;\n"
    "\tatom.acq_rel.gpu.global.cas.b16 %h3, [%rd2+16], %h1, %h2;\n"  /* out[4]: 0xAAAA5678 */
    "\tatom.global.cas.b16 %h4, [%rd2+18], %h1, %h2;\n"              /* no match: unchanged */
    "\tmov.b32 %r8, 10;\n\tst.global.b32 [%rd2+20], %r8;\n"
    "\tred.release.gpu.global.add.u32 [%rd2+20], 7;\n"                /* out[5]: 17 */
    "\tmov.b64 %rd4, 0x0123456789ABCDEF;\n"
    "\tatom.global.exch.b64 %rd5, [%rd2+24], %rd4;\n"                 /* out[6..7] */
    "\tst.global.b32 [%rd2+32], %r5;\n\tst.global.b32 [%rd2+36], %r6;\n"  /* out[8..9]: old -5, -5 */
    "\tcvt.u32.u16 %r9, %h3;\n\tst.global.b32 [%rd2+40], %r9;\n"    /* out[10]: 0x1234 */
    "\tcvt.u32.u16 %r10, %h4;\n\tst.global.b32 [%rd2+44], %r10;\n"  /* out[11]: 0xAAAA */
    "\tret;\n}\n";

static const char tickets_ptx[] = HEAD
    "\tatom.global.add.u32 %r3, [%rd2+60], 1;\n"
    "\tst.global.b32 [%rd3], %r3;\n"
    "\tret;\n}\n";

static void test_atomics(void) {
    _Alignas(16) uint32_t out[16];
    memset(out, 0xEE, sizeof out);
    PtxRun r;
    run_ptx(&r, atomics_ptx, out, sizeof out, 0, 1, 1);
    CHECK_MSG(r.ok, "%s", buf_str(&r.err));
    static const uint32_t want[12] = {0, 1, 3, 0xFFFFFFFB, 0xAAAA5678, 17, 0x89ABCDEF, 0x01234567,
                                      0xFFFFFFFB, 0xFFFFFFFB, 0x1234, 0xAAAA};
    for (int k = 0; r.ok && k < 12; k++) CHECK_MSG(out[k] == want[k], "out[%d] = 0x%x, expected 0x%x", k, out[k], want[k]);
    buf_free(&r.err);
    buf_free(&r.prints);
    memset(out, 0, sizeof out);
    run_ptx(&r, tickets_ptx, out, sizeof out, 0, 8, 1);
    CHECK_MSG(r.ok, "%s", buf_str(&r.err));
    for (uint32_t t = 0; r.ok && t < 8; t++) CHECK_MSG(out[t] == t, "thread %u drew ticket %u", t, out[t]);
    CHECK_MSG(out[15] == 8, "the counter is %u", out[15]);
    buf_free(&r.err);
    buf_free(&r.prints);
    /* what PTX does not have is refused when loading */
    expect_error(HEAD "\tred.acquire.gpu.global.add.u32 [%rd2], 1;\n\tret;\n}\n", 32, 1,
                 "sim: PTX line 23: unknown instruction 'red.acquire.gpu.global.add.u32' (red has no acquire "
                 "ordering)\n");
    expect_error(HEAD "\tatom.global.add.s64 %rd4, [%rd2], %rd4;\n\tret;\n}\n", 32, 1,
                 "sim: PTX line 23: unknown instruction 'atom.global.add.s64' (not modelled)\n");
    expect_error(HEAD "\tred.global.exch.b32 [%rd2], %r2;\n\tret;\n}\n", 32, 1,
                 "sim: PTX line 23: unknown instruction 'red.global.exch.b32' (red has no cas or exch)\n");
    expect_error(HEAD "\tatom.global.add.f16 %h1, [%rd2], %h1;\n\tret;\n}\n", 32, 1,
                 "sim: PTX line 23: unknown instruction 'atom.global.add.f16' (not modelled)\n");
}

/* ---- vprintf and __assertfail ---- */

/* A module with the system calls declared and two strings: "%s" and "hi". */
#define SYSCALL_HEAD                                                                \
    ".version 7.0\n.target sm_80\n.address_size 64\n\n.file 1 \"k.py\"\n"              \
    ".extern .func (.param .b32 retval) vprintf (.param .b64 fmt, .param .b64 args);\n"  \
    ".extern .func __assertfail (.param .b64 message, .param .b64 file, .param .b32 line, " \
    ".param .b64 function, .param .b64 char_size);\n"
#define SYSCALL_ENTRY                                                               \
    ".visible .entry k(\n\t.param .u64 out,\n\t.param .u32 n\n)\n{\n"                  \
    "\t.reg .pred %p<8>;\n\t.reg .b32 %r<40>;\n\t.reg .f64 %fd<4>;\n\t.reg .b64 %rd<16>;\n" \
    "\tld.param.u64 %rd1, [out];\n\tcvta.to.global.u64 %rd2, %rd1;\n"                  \
    "\tmov.u32 %r2, %tid.x;\n\tmul.wide.u32 %rd3, %r2, 4;\n\tadd.s64 %rd3, %rd2, %rd3;\n"

/* "t=%d|%5u|%-4x|%llx|%lld|%8.3f|%s|%c|%%|%08X|%hd\n": every conversion
 * ptxgen writes and a few more, 10 arguments packed as C varargs (the
 * 8-byte ones at offsets 16, 24, 32, 40), by the threads t < 3 of each
 * CTA; each stores vprintf's result. */
static const char printf_ptx[] = SYSCALL_HEAD
    ".global .align 1 .b8 fmt[50] = {116, 61, 37, 100, 124, 37, 53, 117, 124, 37, 45, 52, 120, 124, 37, 108, "
    "108, 120, 124, 37, 108, 108, 100, 124, 37, 56, 46, 51, 102, 124, 37, 115, 124, 37, 99, 124, 37, 37, 124, "
    "37, 48, 56, 88, 124, 37, 104, 100, 10, 0};\n"
    ".global .align 1 .b8 word[3] = {104, 105};\n"
    SYSCALL_ENTRY
    "\t.local .align 8 .b8 args[64];\n"
    "\tsetp.lt.u32 %p1, %r2, 3;\n"
    "\tmov.u64 %rd4, args;\n\tcvta.local.u64 %rd5, %rd4;\n"
    "\tmov.u64 %rd6, fmt;\n\tcvta.global.u64 %rd7, %rd6;\n"
    "\tmov.u64 %rd8, word;\n\tcvta.global.u64 %rd9, %rd8;\n"
    "\tmov.u32 %r3, %ctaid.x;\n\tmul.lo.s32 %r4, %r3, 10;\n\tsub.s32 %r4, %r2, %r4;\n"   /* tid - 10 ctaid */
    "\t@%p1 st.local.b32 [%rd4+0], %r4;\n"
    "\tmad.lo.s32 %r5, %r2, 1000, 7;\n\t@%p1 st.local.b32 [%rd4+4], %r5;\n"         /* 1000 t + 7 */
    "\tadd.s32 %r6, %r2, 250;\n\t@%p1 st.local.b32 [%rd4+8], %r6;\n"                /* 250 + t: hex */
    "\tmov.b64 %rd10, 0x123456789A;\n\t@%p1 st.local.b64 [%rd4+16], %rd10;\n"
    "\tcvt.s64.s32 %rd11, %r4;\n\tmul.lo.s64 %rd11, %rd11, 10000000000;\n"
    "\t@%p1 st.local.b64 [%rd4+24], %rd11;\n"                                       /* (t - 10 c) * 1e10 */
    "\tcvt.rn.f64.s32 %fd1, %r4;\n\tmul.f64 %fd1, %fd1, 0d3FF4000000000000;\n"     /* 1.25 (t - 10 c) */
    "\t@%p1 st.local.f64 [%rd4+32], %fd1;\n"
    "\t@%p1 st.local.b64 [%rd4+40], %rd9;\n"
    "\tadd.s32 %r7, %r2, 65;\n\t@%p1 st.local.b32 [%rd4+48], %r7;\n"               /* 'A' + t */
    "\tmov.b32 %r8, 0xBEEF;\n\t@%p1 st.local.b32 [%rd4+52], %r8;\n"
    "\tmov.b32 %r9, 0x18000;\n\t@%p1 st.local.b32 [%rd4+56], %r9;\n"               /* %hd: -32768 */
    "\t{\n\t.param .b64 fmt_arg;\n\tst.param.b64 [fmt_arg], %rd7;\n"
    "\t.param .b64 args_arg;\n\tst.param.b64 [args_arg], %rd5;\n\t.param .b32 ret_arg;\n"
    "\t@%p1 call (ret_arg), vprintf, (fmt_arg, args_arg);\n"
    "\tld.param.b32 %r10, [ret_arg];\n\t}\n"
    "\t@%p1 st.global.b32 [%rd3], %r10;\n"
    "\tret;\n}\n";

static void test_vprintf(void) {
    uint32_t out[4];
    memset(out, 0xEE, sizeof out);
    PtxRun r;
    run_ptx(&r, printf_ptx, out, sizeof out, 4, 4, 2);
    CHECK_MSG(r.ok, "%s", buf_str(&r.err));
    /* CTAs in grid order, threads in ascending order */
    char want[1024] = "";
    for (int c = 0; c < 2; c++)
        for (int t = 0; t < 3; t++) {
            int v = t - 10 * c;
            char line[128];
            snprintf(line, sizeof line, "t=%d|%5u|%-4x|%llx|%lld|%8.3f|%s|%c|%%|%08X|%hd\n", v, 1000u * t + 7,
                     250u + t, 0x123456789AULL, v * 10000000000LL, 1.25 * v, "hi", 'A' + t, 0xBEEFu, (short)-32768);
            strcat(want, line);
        }
    CHECK_MSG(strcmp(buf_str(&r.prints), want) == 0, "vprintf wrote:\n%s\nexpected:\n%s", buf_str(&r.prints), want);
    for (int t = 0; r.ok && t < 4; t++)
        CHECK_MSG(out[t] == (t < 3 ? 10u : 0xEEEEEEEEu), "out[%d] = 0x%x: vprintf returns its argument count", t, out[t]);
    buf_free(&r.err);
    buf_free(&r.prints);
    /* a format that wants more than the buffer holds */
    static const char short_ptx[] = SYSCALL_HEAD
        ".global .align 1 .b8 fmt[9] = {37, 100, 32, 37, 108, 108, 100, 10, 0};\n"   /* "%d %lld\n" */
        SYSCALL_ENTRY
        "\t.local .align 8 .b8 args[12];\n"
        "\tmov.u64 %rd4, args;\n\tcvta.local.u64 %rd5, %rd4;\n"
        "\tmov.u64 %rd6, fmt;\n\tcvta.global.u64 %rd7, %rd6;\n"
        "\tst.local.b32 [%rd4+0], %r2;\n"
        "\t.loc 1 4 2\n"
        "\t{\n\t.param .b64 f;\n\tst.param.b64 [f], %rd7;\n\t.param .b64 a;\n\tst.param.b64 [a], %rd5;\n"
        "\t.param .b32 r;\n\tcall (r), vprintf, (f, a);\n\t}\n"
        "\tret;\n}\n";
    expect_error(short_ptx, 2, 1,
                 "sim: k.py:4: call at PTX line 36 (vprintf \"%d %lld\\n\"): argument at byte 8 (8 bytes) is past "
                 "the 12 bytes of the argument buffer (thread 0 of CTA (0, 0, 0))\n");
    expect_error(".version 7.0\n.target sm_80\n.address_size 64\n"
                 ".extern .func (.param .b32 r) puts (.param .b64 s);\n", 1, 1,
                 "sim: PTX line 4: calls to 'puts' are not modelled (only vprintf and __assertfail)\n");
}

/* Thread 5 of CTA 1 fails: the GPU's message, after the lines printed before it. */
static const char assert_ptx[] = SYSCALL_HEAD
    ".global .align 1 .b8 msg[6] = {120, 32, 62, 32, 48, 0};\n"           /* "x > 0" */
    ".global .align 1 .b8 file[5] = {107, 46, 112, 121, 0};\n"            /* "k.py" */
    ".global .align 1 .b8 func[5] = {107, 101, 114, 110, 0};\n"           /* "kern" */
    SYSCALL_ENTRY
    "\tmov.u32 %r3, %ctaid.x;\n\tmad.lo.s32 %r4, %r3, 8, %r2;\n"          /* 8 ctaid + tid */
    "\tsetp.ne.s32 %p1, %r4, 13;\n"
    "\tmov.u64 %rd4, msg;\n\tcvta.global.u64 %rd5, %rd4;\n\tmov.u64 %rd6, file;\n\tcvta.global.u64 %rd7, %rd6;\n"
    "\tmov.u64 %rd8, func;\n\tcvta.global.u64 %rd9, %rd8;\n\tmov.b32 %r5, 12;\n\tmov.b64 %rd10, 1;\n"
    "\t.loc 1 12 5\n"
    "\t{\n\t.param .b64 m;\n\tst.param.b64 [m], %rd5;\n\t.param .b64 f;\n\tst.param.b64 [f], %rd7;\n"
    "\t.param .b32 l;\n\tst.param.b32 [l], %r5;\n\t.param .b64 fn;\n\tst.param.b64 [fn], %rd9;\n"
    "\t.param .b64 cs;\n\tst.param.b64 [cs], %rd10;\n"
    "\t@!%p1 call __assertfail, (m, f, l, fn, cs);\n\t}\n"
    "\tst.global.b32 [%rd3], %r4;\n"
    "\tret;\n}\n";

static void test_assertfail(void) {
    uint32_t out[8];
    memset(out, 0xEE, sizeof out);
    PtxRun r;
    run_ptx(&r, assert_ptx, out, sizeof out, 8, 8, 2);
    CHECK_MSG(!r.ok && !strcmp(buf_str(&r.err), "sim: k.py:12: kern: block: [1,0,0], thread: [5,0,0] Assertion `x > 0` "
                                             "failed.\n"), "got:\n%s", buf_str(&r.err));
    CHECK_MSG(out[7] == 7, "CTA 0 ran to the end before CTA 1 failed: out[7] = 0x%x", out[7]);
    buf_free(&r.err);
    buf_free(&r.prints);
    /* no thread fails: the call is never made */
    run_ptx(&r, assert_ptx, out, sizeof out, 8, 8, 1);
    CHECK_MSG(r.ok, "%s", buf_str(&r.err));
    buf_free(&r.err);
    buf_free(&r.prints);
}

/* ---- mma.sync ---- */

/* One warp runs one mma.sync: lane l loads its a, b and c registers from
 * words 16 l + (0..3, 4..5, 8..11) of out and stores d at 16 l + 12..15.
 * The host packs the fragments by the PTX ISA's per-shape tables (written
 * out here as the ISA gives them, independently of sim/mma.c's formulas)
 * and checks every element of D against a sequential C reference. */
typedef enum MmaClass { MC_F16_K16, MC_F16_K8, MC_TF32_K8, MC_I8_K32, MC_I8_K16 } MmaClass;

typedef struct MmaCase {
    const char *types;          /* "f32.f16.f16.f32": d a b c */
    int k;
    ElemType a, b;              /* operand element types (ET_F32 for tf32; ET_I8/ET_U8 for s8/u8) */
    bool f16_acc, int_acc, satfinite;
} MmaCase;

static MmaClass mma_class(const MmaCase *mc) {
    int bits = elem_bits(mc->a);
    if (bits == 8) return mc->k == 32 ? MC_I8_K32 : MC_I8_K16;
    if (bits == 32) return MC_TF32_K8;
    return mc->k == 16 ? MC_F16_K16 : MC_F16_K8;
}

/* The ISA's tables: A element i of lane (g, t) -> (row, col); B element i
 * -> row (its col is g); C/D element i -> (row, col). Register r holds
 * the elements i = r * e .. r * e + e - 1, the first in the low bits. */
static void isa_a(MmaClass c, int g, int t, int i, int *row, int *col) {
    switch (c) {
    case MC_F16_K16:
        *row = (i == 0 || i == 1 || i == 4 || i == 5) ? g : g + 8;
        *col = 2 * t + (i & 1) + (i >= 4 ? 8 : 0);
        break;
    case MC_F16_K8: *row = i < 2 ? g : g + 8, *col = 2 * t + (i & 1); break;
    case MC_TF32_K8: *row = (i == 0 || i == 2) ? g : g + 8, *col = i < 2 ? t : t + 4; break;
    case MC_I8_K32:
        *row = (i < 4 || (i >= 8 && i < 12)) ? g : g + 8;
        *col = 4 * t + (i & 3) + (i >= 8 ? 16 : 0);
        break;
    case MC_I8_K16: *row = i < 4 ? g : g + 8, *col = 4 * t + (i & 3); break;
    }
}

static int isa_b_row(MmaClass c, int t, int i) {
    switch (c) {
    case MC_F16_K16: return 2 * t + (i & 1) + (i >= 2 ? 8 : 0);
    case MC_F16_K8: return 2 * t + i;
    case MC_TF32_K8: return t + 4 * i;
    case MC_I8_K32: return 4 * t + (i & 3) + (i >= 4 ? 16 : 0);
    default: return 4 * t + i;
    }
}

static void isa_cd(int g, int t, int i, int *row, int *col) {
    *row = i < 2 ? g : g + 8;
    *col = 2 * t + (i & 1);
}

/* non-trivial values of each type, as bits: random magnitudes over a few
 * binades, both signs, every mantissa bit */
static uint32_t mma_rand(uint64_t *s, ElemType e) {
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    uint32_t r = (uint32_t)(*s >> 33);
    if (e == ET_I8 || e == ET_U8) return r & 0xFF;
    if (e == ET_I32) return r;
    double x = ldexp((double)(r & 0xFFFFFF) / 0x1000000 + 0.5, (int)(r >> 24) % 7 - 3) * ((r >> 31) ? -1 : 1);
    if (e == ET_F32) return (uint32_t)scalar_f32_bits((float)x);
    return (uint32_t)scalar_round_bits(e, x, false);
}

static double mma_val(ElemType e, uint32_t bits) {
    if (e == ET_I8) return (int8_t)bits;
    if (e == ET_U8) return (uint8_t)bits;
    if (e == ET_I32) return (int32_t)bits;
    return scalar_float(e, bits);
}

static const char mma_head[] =
    ".version 8.7\n.target sm_90a\n.address_size 64\n\n.file 1 \"k.py\"\n"
    ".visible .entry k(\n\t.param .u64 out,\n\t.param .u32 n\n)\n{\n"
    "\t.reg .pred %p<4>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<8>;\n"
    "\t.reg .b32 %a<4>;\n\t.reg .b32 %b<2>;\n\t.reg .b32 %c<4>;\n\t.reg .b32 %d<4>;\n"
    "\tld.param.u64 %rd1, [out];\n\tcvta.to.global.u64 %rd2, %rd1;\n"
    "\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd3, %r1, 64;\n\tadd.s64 %rd3, %rd2, %rd3;\n";

static void mma_ptx(Buf *b, const MmaCase *mc, int na, int nb, int nc) {
    buf_puts(b, mma_head);
    for (int i = 0; i < na; i++) buf_printf(b, "\tld.global.b32 %%a%d, [%%rd3+%d];\n", i, 4 * i);
    for (int i = 0; i < nb; i++) buf_printf(b, "\tld.global.b32 %%b%d, [%%rd3+%d];\n", i, 16 + 4 * i);
    for (int i = 0; i < nc; i++) buf_printf(b, "\tld.global.b32 %%c%d, [%%rd3+%d];\n", i, 32 + 4 * i);
    buf_printf(b, "\tmma.sync.aligned.m16n8k%d.row.col%s.%s ", mc->k, mc->satfinite ? ".satfinite" : "", mc->types);
    const char *names = "dabc";
    int counts[4] = {nc, na, nb, nc};
    for (int o = 0; o < 4; o++) {
        buf_puts(b, o ? ", {" : "{");
        for (int i = 0; i < counts[o]; i++) buf_printf(b, "%s%%%c%d", i ? ", " : "", names[o], i);
        buf_puts(b, "}");
    }
    buf_puts(b, ";\n");
    for (int i = 0; i < nc; i++) buf_printf(b, "\tst.global.b32 [%%rd3+%d], %%d%d;\n", 48 + 4 * i, i);
    buf_puts(b, "\tret;\n}\n");
}

/* D = C, then for k ascending D = round(D + A[m][k] B[k][n]): products
 * exact, each sum rounded to the accumulator (fmaf: one rounding to f32;
 * f16: the exact double sum rounded once); integers wrap (or saturate). */
static uint32_t mma_ref(const MmaCase *mc, double A[16][32], double B[32][8], uint32_t cbits, int m, int n) {
    if (mc->int_acc) {
        int64_t s = (int32_t)cbits;
        for (int k = 0; k < mc->k; k++) s += (int64_t)A[m][k] * (int64_t)B[k][n];
        if (mc->satfinite) s = s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s;
        return (uint32_t)s;
    }
    if (mc->f16_acc) {
        uint32_t d = cbits;
        for (int k = 0; k < mc->k; k++)
            d = (uint32_t)scalar_round_bits(ET_F16, scalar_float(ET_F16, d) + A[m][k] * B[k][n], false);
        return d;
    }
    float d = scalar_f32(cbits);
    for (int k = 0; k < mc->k; k++) d = fmaf((float)A[m][k], (float)B[k][n], d);
    return (uint32_t)scalar_f32_bits(d);
}

/* Runs one case on random data from seed; fill (or NULL) then changes
 * some of A, B and C's bits; pins (n_pins of them) are results the
 * reference must give too, worked out by hand. */
typedef void (*MmaFill)(uint32_t A[16][32], uint32_t B[32][8], uint32_t C[16][8]);
typedef struct MmaPin {
    int row, col;
    uint32_t want;
} MmaPin;

static void mma_case(const MmaCase *mc, uint64_t seed, MmaFill fill, const MmaPin *pins, int n_pins) {
    MmaClass cls = mma_class(mc);
    int e = 32 / elem_bits(mc->a), na = mc->k / 2 / e, nb = mc->k / 4 / e, nc = mc->f16_acc ? 2 : 4;
    ElemType ce = mc->int_acc ? ET_I32 : mc->f16_acc ? ET_F16 : ET_F32;
    uint32_t A[16][32] = {{0}}, B[32][8] = {{0}}, C[16][8] = {{0}};
    for (int m = 0; m < 16; m++)
        for (int k = 0; k < mc->k; k++) A[m][k] = mma_rand(&seed, mc->a);
    for (int k = 0; k < mc->k; k++)
        for (int n = 0; n < 8; n++) B[k][n] = mma_rand(&seed, mc->b);
    for (int m = 0; m < 16; m++)
        for (int n = 0; n < 8; n++) C[m][n] = mma_rand(&seed, ce);
    if (fill) fill(A, B, C);
    _Alignas(16) uint32_t out[32 * 16];
    memset(out, 0, sizeof out);
    for (int l = 0; l < 32; l++) {
        int g = l / 4, t = l % 4, row, col, bits = 32 / e;
        for (int i = 0; i < na * e; i++) {
            isa_a(cls, g, t, i, &row, &col);
            out[16 * l + i / e] |= (A[row][col] & (bits == 32 ? UINT32_MAX : (1u << bits) - 1)) << (bits * (i % e));
        }
        for (int i = 0; i < nb * e; i++)
            out[16 * l + 4 + i / e] |= (B[isa_b_row(cls, t, i)][g] & (bits == 32 ? UINT32_MAX : (1u << bits) - 1))
                                       << (bits * (i % e));
        for (int i = 0; i < 4; i++) {
            isa_cd(g, t, i, &row, &col);
            if (mc->f16_acc) out[16 * l + 8 + i / 2] |= (C[row][col] & 0xFFFF) << (16 * (i % 2));
            else out[16 * l + 8 + i] = C[row][col];
        }
    }
    double Av[16][32], Bv[32][8];
    for (int m = 0; m < 16; m++)
        for (int k = 0; k < mc->k; k++)   /* tf32: mma reads the upper 19 bits */
            Av[m][k] = mma_val(mc->a, cls == MC_TF32_K8 ? A[m][k] & ~0x1FFFu : A[m][k]);
    for (int k = 0; k < mc->k; k++)
        for (int n = 0; n < 8; n++) Bv[k][n] = mma_val(mc->b, cls == MC_TF32_K8 ? B[k][n] & ~0x1FFFu : B[k][n]);
    for (int i = 0; i < n_pins; i++) {
        uint32_t want = mma_ref(mc, Av, Bv, C[pins[i].row][pins[i].col], pins[i].row, pins[i].col);
        CHECK_MSG(want == pins[i].want, "%s: the reference gives D[%d][%d] = 0x%x, not 0x%x", mc->types, pins[i].row,
                  pins[i].col, want, pins[i].want);
    }
    Buf ptx = {0};
    mma_ptx(&ptx, mc, na, nb, nc);
    PtxRun r;
    run_ptx(&r, buf_str(&ptx), out, sizeof out, 0, 32, 1);
    CHECK_MSG(r.ok, "%s: %s", mc->types, buf_str(&r.err));
    int bad = 0;
    for (int l = 0; r.ok && l < 32; l++)
        for (int i = 0; i < 4; i++) {
            int g = l / 4, t = l % 4, row, col;
            isa_cd(g, t, i, &row, &col);
            uint32_t got = mc->f16_acc ? (out[16 * l + 12 + i / 2] >> (16 * (i % 2))) & 0xFFFF : out[16 * l + 12 + i];
            uint32_t want = mma_ref(mc, Av, Bv, C[row][col], row, col);
            if (got != want && bad++ < 3)
                CHECK_MSG(0, "m16n8k%d %s: D[%d][%d] = 0x%x, expected 0x%x", mc->k, mc->types, row, col, got, want);
        }
    buf_free(&ptx);
    buf_free(&r.err);
    buf_free(&r.prints);
}

/* tf32 operands as cvt.rna.tf32.f32 leaves them: low 13 bits zero */
static void fill_tf32(uint32_t A[16][32], uint32_t B[32][8], uint32_t C[16][8]) {
    (void)C;
    for (int m = 0; m < 16; m++)
        for (int k = 0; k < 8; k++) A[m][k] &= ~0x1FFFu;
    for (int k = 0; k < 8; k++)
        for (int n = 0; n < 8; n++) B[k][n] &= ~0x1FFFu;
}

/* f16 accumulator: C = 2048 (ulp 2), all 16 products 1: each 2048 + 1 is
 * a tie that rounds to even, so D stays 2048 (the sum rounded once would
 * be 2064); from 2050, 2051 rounds up to 2052, then 2053 down to 2052 */
static void fill_f16_ties(uint32_t A[16][32], uint32_t B[32][8], uint32_t C[16][8]) {
    for (int m = 0; m < 2; m++)
        for (int k = 0; k < 16; k++) A[m][k] = 0x3C00;   /* 1.0 */
    for (int k = 0; k < 16; k++) B[k][0] = 0x3C00;
    C[0][0] = 0x6800;   /* 2048 */
    C[1][0] = 0x6801;   /* 2050 */
}

/* int8: accumulators near the ends of the s32 range, so the sums wrap
 * (or, .satfinite, clamp) */
static void fill_int_edges(uint32_t A[16][32], uint32_t B[32][8], uint32_t C[16][8]) {
    for (int k = 0; k < 32; k++) A[0][k] = 0x7F, A[1][k] = 0x80, B[k][0] = 0x7F;   /* 127, -128 (s8) or 128 (u8) */
    C[0][0] = 0x7FFFFF00;
    C[1][0] = 0x80000100;
}

static const MmaPin f16_ties[] = {{0, 0, 0x6800}, {1, 0, 0x6802}};
/* s8 x s8: 0x7FFFFF00 + 32 * 127 * 127 wraps to 0x8007DF20, 0x80000100 -
 * 32 * 128 * 127 to 0x7FF81100; s8 x u8 .satfinite clamps both */
static const MmaPin s8_wraps[] = {{0, 0, 0x8007DF20}, {1, 0, 0x7FF81100}};
static const MmaPin s8u8_saturates[] = {{0, 0, 0x7FFFFFFF}, {1, 0, 0x80000000}};

static void test_mma(void) {
    static const MmaCase cases[] = {
        {"f32.f16.f16.f32", 16, ET_F16, ET_F16, false, false, false},
        {"f32.bf16.bf16.f32", 16, ET_BF16, ET_BF16, false, false, false},
        {"f16.f16.f16.f16", 16, ET_F16, ET_F16, true, false, false},
        {"f32.tf32.tf32.f32", 8, ET_F32, ET_F32, false, false, false},
        {"f32.f16.f16.f32", 8, ET_F16, ET_F16, false, false, false},
        {"f32.bf16.bf16.f32", 8, ET_BF16, ET_BF16, false, false, false},
        {"f16.f16.f16.f16", 8, ET_F16, ET_F16, true, false, false},
        {"s32.s8.s8.s32", 32, ET_I8, ET_I8, false, true, false},
        {"s32.u8.s8.s32", 32, ET_U8, ET_I8, false, true, false},
        {"s32.s8.u8.s32", 32, ET_I8, ET_U8, false, true, true},
        {"s32.u8.u8.s32", 16, ET_U8, ET_U8, false, true, false},
        {"s32.s8.s8.s32", 16, ET_I8, ET_I8, false, true, true},
        {"f32.e4m3.e4m3.f32", 32, ET_F8E4M3, ET_F8E4M3, false, false, false},
        {"f32.e4m3.e5m2.f32", 32, ET_F8E4M3, ET_F8E5M2, false, false, false},
        {"f32.e5m2.e4m3.f32", 32, ET_F8E5M2, ET_F8E4M3, false, false, false},
        {"f32.e5m2.e5m2.f32", 32, ET_F8E5M2, ET_F8E5M2, false, false, false},
        {"f16.e4m3.e5m2.f16", 32, ET_F8E4M3, ET_F8E5M2, true, false, false},
        {"f32.e4m3.e4m3.f32", 16, ET_F8E4M3, ET_F8E4M3, false, false, false},
        {"f16.e5m2.e5m2.f16", 16, ET_F8E5M2, ET_F8E5M2, true, false, false},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        const MmaCase *mc = &cases[i];
        mma_case(mc, 1000 + i, NULL, NULL, 0);   /* tf32: f32 patterns, truncated */
        if (mma_class(mc) == MC_TF32_K8) mma_case(mc, 2000 + i, fill_tf32, NULL, 0);
        if (mc->f16_acc && mc->a == ET_F16 && mc->k == 16) mma_case(mc, 77, fill_f16_ties, f16_ties, 2);
        if (mc->int_acc && mc->k == 32) mma_case(mc, 78, fill_int_edges, NULL, 0);
        if (!strcmp(mc->types, "s32.s8.s8.s32") && mc->k == 32) mma_case(mc, 79, fill_int_edges, s8_wraps, 2);
        if (mc->satfinite && mc->k == 32) mma_case(mc, 80, fill_int_edges, s8u8_saturates, 2);
    }
}

/* The global-memory example of doc/ptx.md, "mma.sync fragments", the
 * addresses computed in PTX: A row-major 16 x 16 f16 at byte 0 (a-reg0 =
 * the word at (16 g + 2 t) 2, a-reg1 at +256, a-reg2 at +16, a-reg3 at
 * +272), B stored transposed (Bt[n][k]) at 512 (b-reg0 at (16 g + 2 t) 2,
 * b-reg1 at +16), D row-major 16 x 8 f32 at 768, holding C before: {d0, d1}
 * at (8 g + 2 t) 4, {d2, d3} at +256. d is c's registers. */
static const char mma_global_ptx[] =
    ".version 7.0\n.target sm_80\n.address_size 64\n\n"
    ".visible .entry k(\n\t.param .u64 out,\n\t.param .u32 n\n)\n{\n"
    "\t.reg .b32 %r<10>;\n\t.reg .b64 %rd<8>;\n\t.reg .b32 %a<4>;\n\t.reg .b32 %b<2>;\n\t.reg .f32 %c<4>;\n"
    "\tld.param.u64 %rd1, [out];\n\tcvta.to.global.u64 %rd2, %rd1;\n"
    "\tmov.u32 %r1, %laneid;\n\tshr.u32 %r2, %r1, 2;\n\tand.b32 %r3, %r1, 3;\n"
    "\tshl.b32 %r4, %r2, 4;\n\tshl.b32 %r5, %r3, 1;\n\tadd.s32 %r6, %r4, %r5;\n\tshl.b32 %r6, %r6, 1;\n"
    "\tcvt.u64.u32 %rd3, %r6;\n\tadd.s64 %rd4, %rd2, %rd3;\n"
    "\tld.global.b32 %a0, [%rd4];\n\tld.global.b32 %a1, [%rd4+256];\n"
    "\tld.global.b32 %a2, [%rd4+16];\n\tld.global.b32 %a3, [%rd4+272];\n"
    "\tld.global.b32 %b0, [%rd4+512];\n\tld.global.b32 %b1, [%rd4+528];\n"
    "\tshl.b32 %r7, %r2, 3;\n\tadd.s32 %r7, %r7, %r5;\n\tshl.b32 %r7, %r7, 2;\n"
    "\tcvt.u64.u32 %rd5, %r7;\n\tadd.s64 %rd6, %rd2, %rd5;\n"
    "\tld.global.v2.f32 {%c0, %c1}, [%rd6+768];\n\tld.global.v2.f32 {%c2, %c3}, [%rd6+1024];\n"
    "\tmma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%c0, %c1, %c2, %c3}, {%a0, %a1, %a2, %a3}, {%b0, %b1}, "
    "{%c0, %c1, %c2, %c3};\n"
    "\tst.global.v2.f32 [%rd6+768], {%c0, %c1};\n\tst.global.v2.f32 [%rd6+1024], {%c2, %c3};\n"
    "\tret;\n}\n";

static void test_mma_global(void) {
    _Alignas(16) uint16_t buf[640];   /* A: halves 0..255, Bt: 256..383, D: 384..639 (as f32) */
    uint64_t seed = 5;
    for (int i = 0; i < 384; i++) buf[i] = (uint16_t)mma_rand(&seed, ET_F16);
    uint32_t *D = (uint32_t *)(buf + 384), C[128];
    for (int i = 0; i < 128; i++) D[i] = C[i] = mma_rand(&seed, ET_F32);
    PtxRun r;
    run_ptx(&r, mma_global_ptx, buf, sizeof buf, 0, 32, 1);
    CHECK_MSG(r.ok, "%s", buf_str(&r.err));
    for (int m = 0; r.ok && m < 16; m++)
        for (int n = 0; n < 8; n++) {
            float d = scalar_f32(C[8 * m + n]);
            for (int k = 0; k < 16; k++)
                d = fmaf((float)scalar_float(ET_F16, buf[16 * m + k]), (float)scalar_float(ET_F16, buf[256 + 16 * n + k]), d);
            CHECK_MSG(D[8 * m + n] == scalar_f32_bits(d), "D[%d][%d] = 0x%x, expected 0x%x", m, n, D[8 * m + n],
                      (uint32_t)scalar_f32_bits(d));
        }
    buf_free(&r.err);
    buf_free(&r.prints);
}

/* cvt.rna{.satfinite}.tf32.f32: thread t converts word t into words 16 + t
 * and 32 + t */
static const char tf32_ptx[] = HEAD
    "\tld.global.b32 %r3, [%rd3];\n"
    "\tmov.b32 %f1, %r3;\n"
    "\tcvt.rna.tf32.f32 %r4, %f1;\n\tst.global.b32 [%rd3+64], %r4;\n"
    "\tcvt.rna.satfinite.tf32.f32 %r5, %f1;\n\tst.global.b32 [%rd3+128], %r5;\n"
    "\tret;\n}\n";

static void test_cvt_tf32(void) {
    static const uint32_t cases[][3] = {   /* input, .rna, .rna.satfinite */
        {0x3F801000, 0x3F802000, 0x3F802000},   /* 1 + 2^-11: a tie, away from zero (even would give 1) */
        {0xBF801000, 0xBF802000, 0xBF802000},
        {0x3F800FFF, 0x3F800000, 0x3F800000},   /* just below the tie */
        {0x3F803000, 0x3F804000, 0x3F804000},
        {0x7F7FFFFF, 0x7F800000, 0x7F7FE000},   /* past the largest tf32: infinity, or the largest */
        {0x7F800000, 0x7F800000, 0x7F7FE000},
        {0x7FC00001, 0x7FFFFFFF, 0x7FFFFFFF},   /* NaN: canonical */
        {0x00001000, 0x00002000, 0x00002000},   /* a subnormal tie */
        {0x80000FFF, 0x80000000, 0x80000000},
        {0x3FFFF000, 0x40000000, 0x40000000},   /* carries into the exponent */
        {0xFF7FF000, 0xFF800000, 0xFF7FE000},
        {0x12345678, 0x12346000, 0x12346000},
    };
    enum { N = ARRAY_LEN(cases) };
    uint32_t out[48];
    memset(out, 0xEE, sizeof out);
    for (int i = 0; i < N; i++) out[i] = cases[i][0];
    PtxRun r;
    run_ptx(&r, tf32_ptx, out, sizeof out, 0, N, 1);
    CHECK_MSG(r.ok, "%s", buf_str(&r.err));
    for (int i = 0; r.ok && i < N; i++)
        for (int j = 0; j < 2; j++)
            CHECK_MSG(out[16 * (j + 1) + i] == cases[i][j + 1], "cvt.rna%s.tf32.f32 of 0x%08x = 0x%08x, expected 0x%08x",
                      j ? ".satfinite" : "", cases[i][0], out[16 * (j + 1) + i], cases[i][j + 1]);
    buf_free(&r.err);
    buf_free(&r.prints);
}

/* A warp-collective mma needs all 32 lanes; forms ptxas refuses are refused. */
#define MMA_TF32 "\tmma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%f1, %f2, %f3, %f4}, {%r4, %r5, %r6, %r7}, " \
                 "{%r8, %r9}, {%f1, %f2, %f3, %f4};\n"

static void test_mma_errors(void) {
    expect_error(HEAD "\tsetp.ne.u32 %p1, %r2, 37;\n\t.loc 1 6 1\n\t@%p1" MMA_TF32 "\tret;\n}\n", 64, 1,
                 "sim: k.py:6: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 at PTX line 25 is warp-collective, "
                 "but lane 5 does not execute it (its guard is false) (thread 32 of CTA (0, 0, 0))\n");
    expect_error(HEAD MMA_TF32 "\tret;\n}\n", 48, 1,
                 "sim: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 at PTX line 23 is warp-collective, but "
                 "lane 16 does not exist (the CTA has fewer threads) (thread 32 of CTA (0, 0, 0))\n");
    /* a warp whose guards are all false skips it */
    PtxRun r;
    uint32_t out[40];
    run_ptx(&r, HEAD "\tsetp.lt.u32 %p1, %r2, 32;\n\t@%p1" MMA_TF32 "\tret;\n}\n", out, sizeof out, 0, 48, 1);
    CHECK_MSG(r.ok, "%s", buf_str(&r.err));
    buf_free(&r.err);
    buf_free(&r.prints);
    expect_error(HEAD "\tmma.sync.aligned.m16n8k16.row.row.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r4, %r5, %r6, %r7}, "
                 "{%r8, %r9}, {%f1, %f2, %f3, %f4};\n\tret;\n}\n", 32, 1,
                 "sim: PTX line 23: unknown instruction 'mma.sync.aligned.m16n8k16.row.row.f32.f16.f16.f32' (mma takes "
                 ".row.col only)\n");
    expect_error(HEAD "\tmma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%f1, %f2, %f3, %f4}, {%r4, %r5}, {%r8}, "
                 "{%f1, %f2, %f3, %f4};\n\tret;\n}\n", 32, 1,
                 "sim: PTX line 23: unknown instruction 'mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32' "
                 "(mma.sync.aligned.{m16n8k8,m16n8k16,m16n8k32}.row.col.D.A.B.C is modelled)\n");
    expect_error(HEAD "\tmma.sync.m16n8k8.row.col.f32.tf32.tf32.f32 {%f1, %f2, %f3, %f4}, {%r4, %r5, %r6, %r7}, "
                 "{%r8, %r9}, {%f1, %f2, %f3, %f4};\n\tret;\n}\n", 32, 1,
                 "sim: PTX line 23: unknown instruction 'mma.sync.m16n8k8.row.col.f32.tf32.tf32.f32' "
                 "(mma.sync.aligned.{m16n8k8,m16n8k16,m16n8k32}.row.col.D.A.B.C is modelled)\n");
    expect_error(HEAD "\tmma.sync.aligned.m16n8k16.row.col.f16.bf16.bf16.f16 {%r1, %r2}, {%r4, %r5, %r6, %r7}, "
                 "{%r8, %r9}, {%r1, %r2};\n\tret;\n}\n", 32, 1,
                 "sim: PTX line 23: unknown instruction 'mma.sync.aligned.m16n8k16.row.col.f16.bf16.bf16.f16' (the "
                 "forms are s8/u8 -> s32{.satfinite} at k16/k32, e4m3/e5m2 -> f32/f16 at k16/k32, f16 -> f32/f16 and "
                 "bf16 -> f32 at k8/k16, tf32 -> f32 at k8)\n");
    expect_error(HEAD "\tmma.sync.aligned.m16n8k32.row.col.satfinite.f32.e4m3.e4m3.f32 {%f1, %f2, %f3, %f4}, "
                 "{%r4, %r5, %r6, %r7}, {%r8, %r9}, {%f1, %f2, %f3, %f4};\n\tret;\n}\n", 32, 1,
                 "sim: PTX line 23: unknown instruction 'mma.sync.aligned.m16n8k32.row.col.satfinite.f32.e4m3.e4m3.f32' "
                 "(the forms are s8/u8 -> s32{.satfinite} at k16/k32, e4m3/e5m2 -> f32/f16 at k16/k32, f16 -> f32/f16 "
                 "and bf16 -> f32 at k8/k16, tf32 -> f32 at k8)\n");
    expect_error(HEAD "\tmma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2}, {%r4, %r5, %r6, %r7}, "
                 "{%r8, %r9}, {%f1, %f2, %f3, %f4};\n\tret;\n}\n", 32, 1,
                 "sim: PTX line 23: 'mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32': d must be a vector of 4 "
                 "registers\n");
    expect_error(HEAD "\tmma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r4, %r5}, %r8, "
                 "{%f1, %f2, %f3, %f4};\n\tret;\n}\n", 32, 1,
                 "sim: PTX line 23: 'mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32': b must be a vector of 1 "
                 "registers\n");
    expect_error(HEAD "\tmma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%h1, %h2}, {%r8}, "
                 "{%f1, %f2, %f3, %f4};\n\tret;\n}\n", 32, 1,
                 "sim: PTX line 23: 'mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32': the registers of a must be 32 "
                 "bits wide\n");
    /* .satfinite after the types, as ptxas also takes it; not among them */
    run_ptx(&r, HEAD "\tmma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32.satfinite {%r10, %r11, %r12, %r13}, "
            "{%r4, %r5, %r6, %r7}, {%r8, %r9}, {%r10, %r11, %r12, %r13};\n\tret;\n}\n", out, sizeof out, 0, 32, 1);
    CHECK_MSG(r.ok, "%s", buf_str(&r.err));
    buf_free(&r.err);
    buf_free(&r.prints);
    expect_error(HEAD "\tmma.sync.aligned.m16n8k32.row.col.s32.satfinite.s8.s8.s32 {%r10, %r11, %r12, %r13}, "
                 "{%r4, %r5, %r6, %r7}, {%r8, %r9}, {%r10, %r11, %r12, %r13};\n\tret;\n}\n", 32, 1,
                 "sim: PTX line 23: unknown instruction 'mma.sync.aligned.m16n8k32.row.col.s32.satfinite.s8.s8.s32' "
                 "(mma.sync.aligned.{m16n8k8,m16n8k16,m16n8k32}.row.col.D.A.B.C is modelled)\n");
    expect_error(HEAD "\tcvt.rn.tf32.f32 %r3, %f1;\n\tret;\n}\n", 32, 1,
                 "sim: PTX line 23: unknown instruction 'cvt.rn.tf32.f32' (not modelled)\n");
    expect_error(HEAD "\tcvt.rna.f16.f32 %h1, %f1;\n\tret;\n}\n", 32, 1,
                 "sim: PTX line 23: unknown instruction 'cvt.rna.f16.f32' (not modelled)\n");
    expect_error(HEAD "\tadd.rna.f32 %f1, %f1, %f2;\n\tret;\n}\n", 32, 1,
                 "sim: PTX line 23: 'add.rna.f32': only .rn rounding is modelled\n");
    expect_error(HEAD "\tmov.tf32 %r1, %r2;\n\tret;\n}\n", 32, 1,
                 "sim: PTX line 23: unknown instruction 'mov.tf32' (packed types are modelled in cvt only)\n");
}

/* ---- cp.async ---- */

/* 4 threads; words 0..15 of out are the sources, thread t's 16 bytes at
 * word 4 t. Group 0: 16 bytes with src-size 16, 8, 4, 0 (by t) to smem +
 * 16 t, and an ignore-src copy (odd t) to smem + 64 + 16 t; group 1: 4
 * bytes of word 16 + t to smem + 128 + 4 t, whose source changes after the
 * copy is issued: the copy reads it when it completes. wait_group 1
 * completes group 0 only; wait_all the rest. */
static const char cp_ptx[] = HEAD
    "\t.shared .align 16 .b8 smem[256];\n"
    "\tmov.u32 %r3, smem;\n\tshl.b32 %r4, %r2, 4;\n\tadd.s32 %r5, %r3, %r4;\n"   /* smem + 16 t */
    "\tmad.wide.u32 %rd4, %r2, 16, %rd2;\n"                                       /* out + 16 t */
    "\tmov.b32 %r6, 16;\n\tshr.u32 %r6, %r6, %r2;\n\tsetp.eq.u32 %p1, %r2, 3;\n\tselp.b32 %r6, 0, %r6, %p1;\n"
    "\tcp.async.cg.shared.global [%r5], [%rd4], 16, %r6;\n"
    "\tand.b32 %r7, %r2, 1;\n\tsetp.eq.u32 %p2, %r7, 1;\n"
    "\tcp.async.ca.shared.global.L2::128B [%r5+64], [%rd4], 16, %p2;\n"
    "\tcp.async.commit_group;\n"
    "\tshl.b32 %r8, %r2, 2;\n\tadd.s32 %r9, %r3, %r8;\n"                          /* smem + 4 t */
    "\tadd.s64 %rd5, %rd3, 64;\n"                                                 /* word 16 + t */
    "\tcp.async.ca.shared::cta.global [%r9+128], [%rd5], 4;\n"
    "\tcp.async.commit_group;\n"
    "\tadd.s32 %r10, %r2, 0x5550;\n\tst.global.b32 [%rd5], %r10;\n"
    "\tcp.async.wait_group 1;\n"
    "\tld.shared.v4.b32 {%r11, %r12, %r13, %r14}, [%r5];\n"
    "\tst.global.v4.b32 [%rd4+128], {%r11, %r12, %r13, %r14};\n"                 /* words 32 + 4 t */
    "\tld.shared.v4.b32 {%r11, %r12, %r13, %r14}, [%r5+64];\n"
    "\tst.global.v4.b32 [%rd4+192], {%r11, %r12, %r13, %r14};\n"                 /* words 48 + 4 t */
    "\tcp.async.wait_all;\n"
    "\tbar.sync 0;\n"
    "\tld.shared.b32 %r15, [%r9+128];\n\tst.global.b32 [%rd3+256], %r15;\n"      /* word 64 + t */
    "\tret;\n}\n";

static void test_cp_async(void) {
    _Alignas(16) uint32_t out[72];
    memset(out, 0xEE, sizeof out);
    for (int i = 0; i < 20; i++) out[i] = 0x1000 + i;
    PtxRun r;
    run_ptx(&r, cp_ptx, out, sizeof out, 0, 4, 1);
    CHECK_MSG(r.ok, "%s", buf_str(&r.err));
    for (uint32_t t = 0; r.ok && t < 4; t++)
        for (uint32_t w = 0; w < 4; w++) {
            uint32_t src = 0x1000 + 4 * t + w, kept = t == 3 ? 0 : 4 >> t;   /* words src-size keeps */
            CHECK_MSG(out[32 + 4 * t + w] == (w < kept ? src : 0), "thread %u, src-size %u: word %u = 0x%x", t,
                      4 * kept, w, out[32 + 4 * t + w]);
            CHECK_MSG(out[48 + 4 * t + w] == (t & 1 ? 0 : src), "thread %u, ignore-src %u: word %u = 0x%x", t, t & 1,
                      w, out[48 + 4 * t + w]);
        }
    for (uint32_t t = 0; r.ok && t < 4; t++)
        CHECK_MSG(out[64 + t] == 0x5550 + t, "thread %u: the late copy gave 0x%x", t, out[64 + t]);
    buf_free(&r.err);
    buf_free(&r.prints);
}

#define CP_SMEM "\t.shared .align 16 .b8 smem[64];\n\tmov.u32 %r3, smem;\n\tmad.lo.s32 %r4, %r2, 4, %r3;\n"
/* HEAD + CP_SMEM is 25 lines: the next is PTX line 26 */

static void test_cp_async_errors(void) {
    /* reading a pending copy's target: no wait at all; a wait_group that
     * leaves the newest group; a wait_group 0 before the commit */
    expect_error(HEAD CP_SMEM "\tcp.async.ca.shared.global [%r4], [%rd3], 4;\n\tcp.async.commit_group;\n"
                 "\t.loc 1 8 3\n\tld.shared.b32 %r5, [%r4];\n\tcp.async.wait_all;\n\tret;\n}\n", 4, 1,
                 "sim: k.py:8: ld.shared.b32 at PTX line 29 reads 4 bytes at shared offset 0, which the cp.async at "
                 "PTX line 26 of thread 0 still writes (no cp.async.wait_group has completed it) (thread 0 of CTA "
                 "(0, 0, 0))\n");
    expect_error(HEAD CP_SMEM "\tcp.async.ca.shared.global [%r4], [%rd3], 4;\n\tcp.async.commit_group;\n"
                 "\tcp.async.ca.shared.global [%r4+16], [%rd3], 4;\n\tcp.async.commit_group;\n"
                 "\tcp.async.wait_group 1;\n\tld.shared.b32 %r5, [%r4];\n\tld.shared.b32 %r5, [%r4+16];\n"
                 "\tcp.async.wait_all;\n\tret;\n}\n", 4, 1,
                 "sim: ld.shared.b32 at PTX line 32 reads 4 bytes at shared offset 16, which the cp.async at PTX line "
                 "28 of thread 0 still writes (no cp.async.wait_group has completed it) (thread 0 of CTA (0, 0, 0))\n");
    expect_error(HEAD CP_SMEM "\tcp.async.ca.shared.global [%r4], [%rd3], 4;\n\tcp.async.wait_group 0;\n"
                 "\tst.shared.b32 [%r4], %r2;\n\tret;\n}\n", 4, 1,
                 "sim: st.shared.b32 at PTX line 28 writes 4 bytes at shared offset 0, which the cp.async at PTX line "
                 "26 of thread 0 still writes (no cp.async.wait_group has completed it) (thread 0 of CTA (0, 0, 0))\n");
    /* another thread's pending copy: thread 1 reads what thread 0 copies */
    expect_error(HEAD CP_SMEM "\tsetp.eq.u32 %p1, %r2, 0;\n\t@%p1 cp.async.ca.shared.global [%r3+4], [%rd3], 4;\n"
                 "\tcp.async.commit_group;\n\tld.shared.b32 %r5, [%r4];\n\tcp.async.wait_all;\n\tret;\n}\n", 4, 1,
                 "sim: ld.shared.b32 at PTX line 29 reads 4 bytes at shared offset 4, which the cp.async at PTX line "
                 "27 of thread 0 still writes (no cp.async.wait_group has completed it) (thread 1 of CTA (0, 0, 0))\n");
    expect_error(HEAD CP_SMEM "\tcp.async.cg.shared.global [%r3], [%rd2], 16;\n\tcp.async.commit_group;\n\tret;\n}\n",
                 1, 1,
                 "sim: ret at PTX line 28 ends the kernel while the cp.async at PTX line 26 is pending (no "
                 "cp.async.wait_group or wait_all completes it) (thread 0 of CTA (0, 0, 0))\n");
    /* two copies to the same bytes in flight */
    expect_error(HEAD CP_SMEM "\tcp.async.ca.shared.global [%r3], [%rd2], 8;\n"
                 "\tcp.async.ca.shared.global [%r3+4], [%rd2], 4;\n\tcp.async.wait_all;\n\tret;\n}\n", 1, 1,
                 "sim: cp.async.ca.shared.global at PTX line 27 writes 4 bytes at shared offset 4, which the cp.async "
                 "at PTX line 26 of thread 0 still writes (no cp.async.wait_group has completed it) (thread 0 of CTA "
                 "(0, 0, 0))\n");
    /* bounds and alignment, as ld and st check theirs; src-size past cp-size */
    expect_error(HEAD CP_SMEM "\tcp.async.ca.shared.global [%r4], [%rd3+140], 4;\n\tcp.async.wait_all;\n\tret;\n}\n",
                 8, 1,
                 "sim: cp.async.ca.shared.global at PTX line 26 reads 4 bytes at offset +160 of buffer 'out' (160 "
                 "bytes), outside every buffer (thread 5 of CTA (0, 0, 0))\n");
    expect_error(HEAD CP_SMEM "\tcp.async.cg.shared.global [%r3+8], [%rd2], 16;\n\tcp.async.wait_all;\n\tret;\n}\n",
                 1, 1,
                 "sim: cp.async.cg.shared.global at PTX line 26 writes 16 bytes at shared offset 8, not 16-byte "
                 "aligned (thread 0 of CTA (0, 0, 0))\n");
    expect_error(HEAD CP_SMEM "\tcp.async.cg.shared.global [%r3+64], [%rd2], 16;\n\tcp.async.wait_all;\n\tret;\n}\n",
                 1, 1,
                 "sim: cp.async.cg.shared.global at PTX line 26 writes 16 bytes at shared offset 64, outside the 64 "
                 "bytes of shared memory (thread 0 of CTA (0, 0, 0))\n");
    expect_error(HEAD CP_SMEM "\tcp.async.cg.shared.global [%r3], [%rd2+8], 16, 8;\n\tcp.async.wait_all;\n\tret;\n}\n",
                 1, 1,
                 "sim: cp.async.cg.shared.global at PTX line 26 reads 8 bytes at offset +8 of buffer 'out', not "
                 "16-byte aligned (thread 0 of CTA (0, 0, 0))\n");
    expect_error(HEAD CP_SMEM "\tmov.b32 %r5, 20;\n\tcp.async.cg.shared.global [%r3], [%rd2], 16, %r5;\n"
                 "\tcp.async.wait_all;\n\tret;\n}\n", 1, 1,
                 "sim: cp.async.cg.shared.global at PTX line 27 has src-size 20, more than its cp-size 16 (undefined) "
                 "(thread 0 of CTA (0, 0, 0))\n");
    /* src-size 0 reads nothing: the source address is not checked */
    PtxRun r;
    _Alignas(16) uint32_t out[40];
    run_ptx(&r, HEAD CP_SMEM "\tcp.async.cg.shared.global [%r3], [%rd2+4000], 16, 0;\n\tcp.async.wait_all;\n"
            "\tld.shared.b32 %r5, [%r3+12];\n\tst.global.b32 [%rd2], %r5;\n\tret;\n}\n", out, sizeof out, 0, 1, 1);
    CHECK_MSG(r.ok && out[0] == 0, "%s out[0] = 0x%x", buf_str(&r.err), out[0]);
    buf_free(&r.err);
    buf_free(&r.prints);
    /* what the loader refuses */
    expect_error(HEAD "\tcp.async.cg.shared.global [%r3], [%rd2], 8;\n\tret;\n}\n", 1, 1,
                 "sim: PTX line 23: 'cp.async.cg.shared.global': .cg copies 16 bytes, not 8\n");
    expect_error(HEAD "\tcp.async.ca.shared.global [%r3], [%rd2], 2;\n\tret;\n}\n", 1, 1,
                 "sim: PTX line 23: 'cp.async.ca.shared.global': cp-size 2 is not 4, 8 or 16\n");
    expect_error(HEAD "\tcp.async.ca.shared.global [%r3], [%rd2], 8, 9;\n\tret;\n}\n", 1, 1,
                 "sim: PTX line 23: 'cp.async.ca.shared.global': src-size 9 is not in [0, 8]\n");
    expect_error(HEAD "\tcp.async.wait_group %r1;\n\tret;\n}\n", 1, 1,
                 "sim: PTX line 23: 'cp.async.wait_group' takes one immediate: the groups that may stay pending\n");
    expect_error(HEAD "\tcp.async.ca.shared.global.L2::cache_hint [%r3], [%rd2], 8, %rd4;\n\tret;\n}\n", 1, 1,
                 "sim: PTX line 23: unknown instruction 'cp.async.ca.shared.global.L2::cache_hint' (cache policies are "
                 "not modelled)\n");
    expect_error(HEAD "\tcp.async.bulk.shared::cluster.global [%r3], [%rd2], 16;\n\tret;\n}\n", 1, 1,
                 "sim: PTX line 23: unknown instruction 'cp.async.bulk.shared::cluster.global' (the bulk copy "
                 "modelled is cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes)\n");
    expect_error(HEAD "\tcp.async.ca.global.shared [%r3], [%rd2], 8;\n\tret;\n}\n", 1, 1,
                 "sim: PTX line 23: unknown instruction 'cp.async.ca.global.shared' (cp.async.{ca,cg}.shared{::cta}."
                 "global, cp.async.commit_group, cp.async.wait_group and cp.async.wait_all are modelled)\n");
    expect_error(HEAD "\tcp.async.commit_group.ca;\n\tret;\n}\n", 1, 1,
                 "sim: PTX line 23: unknown instruction 'cp.async.commit_group.ca' (cp.async.{ca,cg}.shared{::cta}."
                 "global, cp.async.commit_group, cp.async.wait_group and cp.async.wait_all are modelled)\n");
}

/* ---- TMA and mbarriers ---- */

/* 128 threads; a tensor map passed by value (its launch slot: the map's
 * host address); smem: two 512-byte boxes at 0 and 512, the mbarrier at
 * 1024, initialized by thread 0 */
#define TMA_HEAD                                                                       \
    ".version 8.0\n.target sm_90a\n.address_size 64\n\n.file 1 \"k.py\"\n"                \
    ".visible .entry k(\n\t.param .u64 out,\n\t.param .align 64 .b8 map[128],\n"          \
    "\t.param .u32 x,\n\t.param .u32 y\n)\n{\n"                                           \
    "\t.reg .pred %p<8>;\n\t.reg .b32 %r<40>;\n\t.reg .b64 %rd<8>;\n"                   \
    "\t.shared .align 1024 .b8 smem[1032];\n"                                            \
    "\tld.param.u64 %rd1, [out];\n\tcvta.to.global.u64 %rd2, %rd1;\n"                   \
    "\tmov.b64 %rd3, map;\n\tcvta.param.u64 %rd3, %rd3;\n"                              \
    "\tld.param.u32 %r1, [x];\n\tld.param.u32 %r2, [y];\n"                               \
    "\tmov.u32 %r3, %tid.x;\n\tsetp.eq.u32 %p1, %r3, 0;\n"                               \
    "\tmov.u32 %r4, smem;\n\tadd.u32 %r5, %r4, 1024;\n"                                  \
    "\t@%p1 mbarrier.init.shared::cta.b64 [%r5], 1;\n"                                  \
    "\tfence.mbarrier_init.release.cluster;\n\tbar.sync 0;\n"
/* TMA_HEAD is 29 lines: the body's first line is PTX line 30 */

#define TMA_COPY(dst, xy) \
    "\t@%p1 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [" dst "], [%rd3, " xy "], [%r5];\n"

/* Thread 0 loads the box at (x, y) into smem (expect_tx, then the copy),
 * waits for phase 0, then the box at (x - 24, y - 5) into smem + 512 (the
 * copy first: the transaction count goes below 0 until the expect_tx),
 * waits for phase 1; every thread copies words t and 128 + t of smem out. */
static const char tma_ptx[] = TMA_HEAD
    "\t@%p1 fence.proxy.async.shared::cta;\n"
    "\t@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r5], 512;\n"
    TMA_COPY("%r4", "{%r1, %r2}")
    "\tmov.b32 %r6, 0;\n"
    "$L_w0:\n\tmbarrier.try_wait.parity.shared::cta.b64 %p2, [%r5], %r6;\n\t@!%p2 bra $L_w0;\n"
    "\tsub.s32 %r7, %r1, 24;\n\tsub.s32 %r8, %r2, 5;\n"
    TMA_COPY("%r4+512", "{%r7, %r8}")
    "\t@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r5], 512;\n"
    "$L_w1:\n\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [%r5], 1;\n\t@!%p3 bra $L_w1;\n"
    "\tbar.sync 0;\n\t@%p1 mbarrier.inval.shared::cta.b64 [%r5];\n"
    "\tshl.b32 %r9, %r3, 2;\n\tadd.u32 %r10, %r4, %r9;\n"
    "\tld.shared.b32 %r11, [%r10];\n\tld.shared.b32 %r12, [%r10+512];\n"
    "\tmul.wide.u32 %rd4, %r3, 4;\n\tadd.s64 %rd5, %rd2, %rd4;\n"
    "\tst.global.b32 [%rd5], %r11;\n\tst.global.b32 [%rd5+512], %r12;\n"
    "\tret;\n}\n";

enum { TMA_ROWS = 6, TMA_COLS = 40 };

/* The f32 tensor's map: `rows` rows (more than it has: reads past it) of
 * TMA_COLS, boxes of 4 rows of 32 (128 bytes) with the 128-byte swizzle,
 * NaN past the tensor */
static void tma_encode_map(uint8_t map[TMAP_BYTES], const uint32_t *tensor, uint32_t rows) {
    TmapFields f = {.address = (uint64_t)(uintptr_t)tensor, .rank = 2, .dtype = TMAP_F32,
                    .dims = {TMA_COLS, rows}, .strides = {4 * TMA_COLS}, .box = {32, 4}, .swizzle = 128,
                    .fill_nan = true};
    tmap_encode(&f, map);
}

static bool run_tma(const char *ptx, uint32_t out[256], const uint32_t *tensor, const uint8_t *map, int32_t x,
                    int32_t y, Buf *err) {
    InterpBuffer bufs[3] = {{out, 1024, "out", ET_U32, false, false},
                            {(void *)tensor, 4 * TMA_ROWS * TMA_COLS, "tensor", ET_U32, false, false},
                            {(void *)map, TMAP_BYTES, "map", ET_U8, true, false}};
    uint64_t args[4] = {(uint64_t)(uintptr_t)out, (uint64_t)(uintptr_t)map, (uint32_t)x, (uint32_t)y};
    InterpLaunch l = {.grid = {1, 1, 1}, .args = args, .n_args = 4, .buffers = bufs, .n_buffers = 3};
    SimLaunch sl = {.ptx = ptx, .threads = 128, .data = &l, .max_steps = 100000};
    *err = (Buf){0};
    return sim_run(&sl, err);
}

/* err contains every string of want (NULL-terminated) */
static void expect_tma_error(const char *ptx, uint32_t rows, const char *const *want) {
    _Alignas(16) uint32_t tensor[TMA_ROWS * TMA_COLS] = {0}, out[256];
    _Alignas(64) uint8_t map[TMAP_BYTES];
    tma_encode_map(map, tensor, rows);
    Buf err;
    bool ok = run_tma(ptx, out, tensor, map, 16, 4, &err);
    bool has = !ok;
    for (int i = 0; has && want[i]; i++) has = strstr(buf_str(&err), want[i]) != NULL;
    CHECK_MSG(has, "expected an error with '%s'; got:\n%s", want[0], buf_str(&err));
    buf_free(&err);
}

static void test_tma(void) {
    _Alignas(16) uint32_t tensor[TMA_ROWS * TMA_COLS], out[256];
    _Alignas(64) uint8_t map[TMAP_BYTES];
    for (uint32_t r = 0; r < TMA_ROWS; r++)
        for (uint32_t c = 0; c < TMA_COLS; c++) tensor[r * TMA_COLS + c] = 0x1000u * r + c + 1;
    tma_encode_map(map, tensor, TMA_ROWS);
    memset(out, 0xEE, sizeof out);
    Buf err;
    bool ok = run_tma(tma_ptx, out, tensor, map, 16, 4, &err);
    CHECK_MSG(ok, "%s", buf_str(&err));
    buf_free(&err);
    uint32_t nan = (uint32_t)interp_slot_from_double(ET_F32, NAN);
    static const int32_t at[2][2] = {{16, 4}, {-8, -1}};   /* (x, y) of each box */
    for (uint32_t b = 0; ok && b < 2; b++)
        for (uint32_t r = 0; r < 4; r++)
            for (uint32_t c = 0; c < 32; c++) {
                int32_t row = at[b][1] + (int32_t)r, col = at[b][0] + (int32_t)c;
                bool in = row >= 0 && row < TMA_ROWS && col >= 0 && col < TMA_COLS;
                uint32_t want = in ? tensor[row * TMA_COLS + col] : nan;
                /* the swizzle of the absolute address: smem is 1024-aligned, the second box is not */
                uint32_t a = 512 * b + 128 * r + 4 * c, pos = a ^ (((a >> 7) & 7) << 4);
                CHECK_MSG(out[pos / 4] == want, "box %u element (%u, %u) at smem word %u: 0x%x, expected 0x%x", b, r,
                          c, pos / 4, out[pos / 4], want);
            }
    /* a wait that nothing can end; a live barrier's bytes read; init on a live barrier; an arrival too many */
    expect_tma_error(TMA_HEAD "\tmbarrier.try_wait.parity.shared::cta.b64 %p2, [%r5], 0;\n\tret;\n}\n", TMA_ROWS,
                     (const char *const[]){"sim: mbarrier.try_wait.parity.shared::cta.b64 at PTX line 30 waits for "
                                           "the phase of parity 0 of the mbarrier at shared offset 1024, which is its "
                                           "current phase 0 (1 of 1 arrivals and 0 transaction bytes pending): in lock "
                                           "step nothing can complete it, so the wait would never end (thread 0 of "
                                           "CTA (0, 0, 0))\n", NULL});
    expect_tma_error(TMA_HEAD "\tld.shared.b32 %r6, [%r5+4];\n\tret;\n}\n", TMA_ROWS,
                     (const char *const[]){"sim: ld.shared.b32 at PTX line 30 reads 4 bytes at shared offset 1028, "
                                           "which hold the mbarrier at shared offset 1024 (initialized at PTX line 27, "
                                           "not invalidated) (thread 0 of CTA (0, 0, 0))\n", NULL});
    expect_tma_error(TMA_HEAD "\t@%p1 mbarrier.init.shared::cta.b64 [%r5], 1;\n\tret;\n}\n", TMA_ROWS,
                     (const char *const[]){"sim: mbarrier.init.shared::cta.b64 at PTX line 30 initializes the "
                                           "mbarrier at shared offset 1024, which is live (initialized at PTX line 27; "
                                           "mbarrier.inval first) (thread 0 of CTA (0, 0, 0))\n", NULL});
    expect_tma_error(TMA_HEAD "\t@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r5], 16;\n"
                     "\t@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r5], 16;\n\tret;\n}\n", TMA_ROWS,
                     (const char *const[]){"sim: mbarrier.arrive.expect_tx.shared::cta.b64 at PTX line 31 on the "
                                           "mbarrier at shared offset 1024 arrives when its current phase expects no "
                                           "more arrivals (undefined) (thread 0 of CTA (0, 0, 0))\n", NULL});
    /* a map whose rows go past the tensor's buffer: row 6 is read from outside it */
    expect_tma_error(TMA_HEAD "\t@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r5], 512;\n"
                     TMA_COPY("%r4", "{%r1, %r2}") "\tret;\n}\n", 8,
                     (const char *const[]){"sim: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::"
                                           "bytes at PTX line 31 reads 96 bytes at offset ", "outside every buffer", NULL});
    /* what the loader refuses */
    expect_tma_error(TMA_HEAD "\tld.param.u64 %rd4, [map];\n\tret;\n}\n", TMA_ROWS,
                     (const char *const[]){"sim: PTX line 30: 'ld.param.u64' reads the aggregate parameter 'map': only "
                                           "its address (mov) is modelled\n", NULL});
    expect_tma_error(TMA_HEAD "\tmbarrier.arrive.shared::cta.b64 _, [%r5];\n\tret;\n}\n", TMA_ROWS,
                     (const char *const[]){"sim: PTX line 30: unknown instruction 'mbarrier.arrive.shared::cta.b64' "
                                           "(mbarrier.init, inval, arrive.expect_tx and try_wait.parity, each "
                                           ".shared{::cta}.b64, are modelled)\n", NULL});
}

/* A tensor map built in the kernel, as ptxgen builds one (ptxgen/tma.c):
 * warp 0 zeroes 128 bytes of smem (at 512), thread 0 sets the fields of
 * the f32 map tma_encode_map describes (the stride in bytes, PTX 8.6),
 * warp 0 copies it to the scratch buffer; then one box through it, at
 * (16, 4), into smem (mbarrier at 640), and thread t copies word t out.
 * 128 threads. */
#define TMAP_HEAD(ver)                                                                  \
    ".version " ver "\n.target sm_90a\n.address_size 64\n\n.file 1 \"k.py\"\n"              \
    ".visible .entry k(\n\t.param .u64 out,\n\t.param .u64 tensor,\n\t.param .u64 scratch,\n" \
    "\t.param .u32 rows\n)\n{\n"                                                         \
    "\t.reg .pred %p<8>;\n\t.reg .b32 %r<40>;\n\t.reg .b64 %rd<8>;\n"                    \
    "\t.shared .align 1024 .b8 smem[648];\n"                                              \
    "\tld.param.u64 %rd1, [out];\n\tld.param.u64 %rd2, [tensor];\n"                      \
    "\tld.param.u64 %rd3, [scratch];\n\tld.param.u32 %r1, [rows];\n"                      \
    "\tmov.u32 %r3, %tid.x;\n\tsetp.eq.u32 %p1, %r3, 0;\n\tsetp.lt.u32 %p2, %r3, 32;\n"    \
    "\tmov.u32 %r4, smem;\n\tadd.u32 %r5, %r4, 640;\n\tadd.u32 %r6, %r4, 512;\n"         \
    "\tand.b32 %r7, %r3, 31;\n\tshl.b32 %r7, %r7, 2;\n\tadd.u32 %r8, %r6, %r7;\n"
/* TMAP_HEAD is 29 lines: the body's first line is PTX line 30 */

#define TMAP_ZERO "\t@%p2 st.shared.b32 [%r8], 0;\n\tbar.warp.sync -1;\n"
#define TMAP_REPLACE(field, b, ops) "\t@%p1 tensormap.replace.tile." field ".shared::cta.b1024.b" b " [%r6], " ops ";\n"
#define TMAP_FIELDS(stride)                                                             \
    TMAP_REPLACE("global_address", "64", "%rd2") TMAP_REPLACE("rank", "32", "1")            \
    TMAP_REPLACE("box_dim", "32", "0, 32") TMAP_REPLACE("global_dim", "32", "0, 40")         \
    TMAP_REPLACE("element_stride", "32", "0, 1") TMAP_REPLACE("box_dim", "32", "1, 4")        \
    TMAP_REPLACE("global_dim", "32", "1, %r1") TMAP_REPLACE("element_stride", "32", "1, 1")    \
    TMAP_REPLACE("global_stride", "64", "0, " stride) TMAP_REPLACE("elemtype", "32", "7")     \
    TMAP_REPLACE("swizzle_mode", "32", "3") TMAP_REPLACE("fill_mode", "32", "1")
#define TMAP_PUBLISH                                                                    \
    "\tbar.warp.sync -1;\n"                                                              \
    "\t@%p2 tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd3], " \
    "[%r6], 128;\n"                                                                       \
    "\t@%p2 fence.proxy.tensormap::generic.acquire.gpu [%rd3], 128;\n"                  \
    "\t@%p2 cp.async.bulk.commit_group;\n\t@%p2 cp.async.bulk.wait_group.read 0;\n\tbar.sync 0;\n"
#define TMAP_USE                                                                        \
    "\t@%p1 mbarrier.init.shared::cta.b64 [%r5], 1;\n"                                  \
    "\tfence.mbarrier_init.release.cluster;\n\tbar.sync 0;\n"                            \
    "\t@%p1 fence.proxy.async.shared::cta;\n"                                            \
    "\t@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r5], 512;\n"                 \
    "\tmov.b32 %r9, 16;\n\tmov.b32 %r10, 4;\n"                                           \
    "\t@%p1 cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r4], [%rd3, {%r9, %r10}], " \
    "[%r5];\n"                                                                            \
    "$L_w0:\n\tmbarrier.try_wait.parity.shared::cta.b64 %p3, [%r5], 0;\n\t@!%p3 bra $L_w0;\n" \
    "\tbar.sync 0;\n\t@%p1 mbarrier.inval.shared::cta.b64 [%r5];\n"                       \
    "\tshl.b32 %r11, %r3, 2;\n\tadd.u32 %r12, %r4, %r11;\n\tld.shared.b32 %r13, [%r12];\n" \
    "\tmul.wide.u32 %rd4, %r3, 4;\n\tadd.s64 %rd5, %rd1, %rd4;\n\tst.global.b32 [%rd5], %r13;\n"
#define TMAP_END "\tret;\n}\n"

static bool run_tmap(const char *ptx, uint32_t out[128], const uint32_t *tensor, uint8_t *scratch, Buf *err) {
    InterpBuffer bufs[3] = {{out, 512, "out", ET_U32, false, false},
                            {(void *)tensor, 4 * TMA_ROWS * TMA_COLS, "tensor", ET_U32, false, false},
                            {scratch, TMAP_BYTES, "scratch", ET_U8, false, false}};
    uint64_t args[4] = {(uint64_t)(uintptr_t)out, (uint64_t)(uintptr_t)tensor, (uint64_t)(uintptr_t)scratch, TMA_ROWS};
    InterpLaunch l = {.grid = {1, 1, 1}, .args = args, .n_args = 4, .buffers = bufs, .n_buffers = 3};
    SimLaunch sl = {.ptx = ptx, .threads = 128, .data = &l, .max_steps = 100000};
    *err = (Buf){0};
    return sim_run(&sl, err);
}

static void expect_tmap_error(const char *ptx, const char *want) {
    _Alignas(16) uint32_t tensor[TMA_ROWS * TMA_COLS] = {0}, out[128];
    _Alignas(128) uint8_t scratch[TMAP_BYTES];
    Buf err;
    bool ok = run_tmap(ptx, out, tensor, scratch, &err);
    CHECK_MSG(!ok && !strcmp(buf_str(&err), want), "expected the error\n%sgot:\n%s", want, buf_str(&err));
    buf_free(&err);
}

static void test_tmap_build(void) {
    static const char *const ptx = TMAP_HEAD("8.6") TMAP_ZERO TMAP_FIELDS("160") TMAP_PUBLISH TMAP_USE TMAP_END;
    _Alignas(16) uint32_t tensor[TMA_ROWS * TMA_COLS], out[128];
    _Alignas(128) uint8_t scratch[TMAP_BYTES], want_map[TMAP_BYTES];
    for (uint32_t r = 0; r < TMA_ROWS; r++)
        for (uint32_t c = 0; c < TMA_COLS; c++) tensor[r * TMA_COLS + c] = 0x1000u * r + c + 1;
    tma_encode_map(want_map, tensor, TMA_ROWS);
    uint32_t nan = (uint32_t)interp_slot_from_double(ET_F32, NAN);
    memset(out, 0xEE, sizeof out);
    memset(scratch, 0xEE, sizeof scratch);
    Buf err;
    bool ok = run_tmap(ptx, out, tensor, scratch, &err);
    CHECK_MSG(ok, "%s", buf_str(&err));
    buf_free(&err);
    CHECK_MSG(!memcmp(scratch, want_map, TMAP_BYTES), "the map in global memory is not tric's encoding of the fields set");
    for (uint32_t r = 0; ok && r < 4; r++)
        for (uint32_t c = 0; c < 32; c++) {
            int32_t row = 4 + (int32_t)r, col = 16 + (int32_t)c;
            uint32_t want = row < TMA_ROWS && col < TMA_COLS ? tensor[row * TMA_COLS + col] : nan;
            uint32_t a = 128 * r + 4 * c, pos = a ^ (((a >> 7) & 7) << 4);
            CHECK_MSG(out[pos / 4] == want, "element (%u, %u) at smem word %u: 0x%x, expected 0x%x", r, c, pos / 4,
                      out[pos / 4], want);
        }
    /* a value no map holds; a map copied out unfinished; a replace on bytes nobody zeroed; half a warp's copy */
    expect_tmap_error(TMAP_HEAD("8.3") TMAP_ZERO TMAP_REPLACE("box_dim", "32", "1, 300") TMAP_END,
                      "sim: tensormap.replace.tile.box_dim.shared::cta.b1024.b32 at PTX line 32 sets box_dim 1 of the "
                      "map at shared offset 512 to 300: box dims are 1 to 256 (thread 0 of CTA (0, 0, 0))\n");
    expect_tmap_error(TMAP_HEAD("8.3") TMAP_ZERO TMAP_REPLACE("global_address", "64", "%rd2") TMAP_PUBLISH TMAP_END,
                      "sim: tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned at "
                      "PTX line 34 copies the 128 bytes at shared offset 512, which are not a finished tensor map: a "
                      "tensor map's rank out of range (TMA would fault on it) (thread 0 of CTA (0, 0, 0))\n");
    expect_tmap_error(TMAP_HEAD("8.3") TMAP_REPLACE("rank", "32", "1") TMAP_END,
                      "sim: tensormap.replace.tile.rank.shared::cta.b1024.b32 at PTX line 30 edits the 128 bytes at "
                      "shared offset 512, which are neither zeroed nor a tensor map (the fields no replace sets would be "
                      "garbage) (thread 0 of CTA (0, 0, 0))\n");
    expect_tmap_error(TMAP_HEAD("8.6") TMAP_ZERO TMAP_REPLACE("global_stride", "64", "0, 10") TMAP_END,
                      "sim: tensormap.replace.tile.global_stride.shared::cta.b1024.b64 at PTX line 32 sets "
                      "global_stride 0 of the map at shared offset 512 to 10: a stride is a multiple of 16 bytes below "
                      "2^40 (thread 0 of CTA (0, 0, 0))\n");
    expect_tmap_error(TMAP_HEAD("8.3") TMAP_ZERO "\tsetp.lt.u32 %p4, %r3, 16;\n"
                      "\t@%p4 tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned "
                      "[%rd3], [%r6], 128;\n" TMAP_END,
                      "sim: tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned at "
                      "PTX line 33 is warp-collective, but lane 16 does not execute it (its guard is false) (thread 0 "
                      "of CTA (0, 0, 0))\n");
    /* what the loader refuses */
    expect_tmap_error(TMAP_HEAD("8.3") TMAP_REPLACE("global_dim", "32", "5, 1") TMAP_END,
                      "sim: PTX line 30: 'tensormap.replace.tile.global_dim.shared::cta.b1024.b32': ord must be an "
                      "immediate 0 to 4\n");
    expect_tmap_error(TMAP_HEAD("8.5") TMAP_ZERO TMAP_FIELDS("10") TMAP_END,
                      "sim: PTX line 40: 'tensormap.replace.tile.global_stride.shared::cta.b1024.b64' under .version "
                      "8.5: what the value means depends on the compiler (bytes / 16 before PTX 8.6, bytes since); say "
                      ".version 8.6 or later\n");
    expect_tmap_error(TMAP_HEAD("8.3") "\tbar.warp.sync %rd1;\n" TMAP_END,
                      "sim: PTX line 30: 'bar.warp.sync' takes a member mask (a 32-bit register or an immediate)\n");
}

/* ---- 2. kernels ---- */

/* One block on one target: the interpreter's stages, then the PTX. */
static bool run_block(const TestBlock *tb, const char *arch, int num_warps, bool debug, int *skipped,
                      size_t *print_lines) {
    char where[768];
    snprintf(where, sizeof where, "%s:%d %s%s", tb->path, tb->line, tb->kernel, debug ? " (debug)" : "");
    RtRequest rq = {.path = tb->path, .kernel = tb->kernel, .signature = tb->signature};
    rt_default_target(&rq.target);
    rt_parse_arch(arch, &rq.target);
    rq.target.num_warps = num_warps;
    rq.target.debug = debug;
    Diff d = {.where = where, .args = tb->args, .grid = tb->grid, .seed = 12345};
    char *diag = NULL;
    bool ok = rt_each_stage(&rq, diff_on_stage, &d, &diag);
    CHECK_MSG(ok, "%s does not compile:\n%s", where, diag);
    if (d.unsupported) {
        printf("note: %s: skipped: %s", where, d.unsupported_why);
        (*skipped)++;
    }
    ok = ok && !d.failed && diff_simulate(&d, &rq);
    *print_lines += d.print_lines;
    diff_free(&d);
    free(diag);
    return ok;
}

/* Does the kernel's PTX call vprintf and (with debug) __assertfail? */
static void check_debug_ptx(const TestBlock *tb, const char *arch, bool debug) {
    RtRequest rq = {.path = tb->path, .kernel = tb->kernel, .signature = tb->signature, .emit = RT_EMIT_PTX};
    rt_default_target(&rq.target);
    rt_parse_arch(arch, &rq.target);
    rq.target.debug = debug;
    RtResult res;
    if (!rt_compile(&rq, &res)) {
        CHECK_MSG(false, "%s does not compile:\n%s", tb->path, res.diag);
    } else {
        CHECK_MSG(strstr(res.text, "call (ret_arg), vprintf"), "%s [%s]: no vprintf call", tb->path, arch);
        CHECK_MSG(!strstr(res.text, "__assertfail") == !debug, "%s [%s]: __assertfail %s with debug %s", tb->path, arch,
              debug ? "missing" : "present", debug ? "on" : "off");
    }
    rt_result_free(&res);
}

static void test_kernels(Shard shard) {
    int n_blocks = 0, ran = 0, skipped = 0;
    size_t print_lines = 0, debug_lines = 0;
    TestBlock *blocks = blocks_read_dir("kernels", &n_blocks);
    CHECK_MSG(n_blocks > 0, "no kernel test blocks (run from the repository root)");
    static const char *const archs[] = {"sm_80", "sm_90a"};
    bool saw_debug = false;
    bool debug_here = false;   /* kernels/debug.py has a block in this shard */
    for (int b = 0; b < n_blocks; b++) {
        int warps = blocks[b].num_warps[0] ? atoi(blocks[b].num_warps) : 4;
        /* kernels/debug.py (print and assert) also with device assertions compiled in */
        bool has_debug = strstr(blocks[b].path, "kernels/debug.py") != NULL;
        saw_debug |= has_debug;
        if (!shard_has(shard, b)) continue;
        debug_here |= has_debug;
        char targets[4][16];   /* sm_80 and sm_90a, or the block's "# arch:" (fp8 needs sm_89+) */
        int n_targets = blocks_archs(&blocks[b], archs, 2, targets, 4);
        for (int a = 0; a < n_targets; a++)
            for (int dbg = 0; dbg <= has_debug; dbg++) {
                if (has_debug) check_debug_ptx(&blocks[b], targets[a], dbg);
                if (run_block(&blocks[b], targets[a], warps, dbg, &skipped, has_debug ? &debug_lines : &print_lines))
                    ran++;
                else
                    failures++;
            }
    }
    /* the first block also with one warp and with eight */
    for (int w = 1; n_blocks && shard_has(shard, 0) && w <= 8; w *= 8) {
        if (run_block(&blocks[0], "sm_90a", w, false, &skipped, &print_lines)) ran++;
        else failures++;
    }
    /* tensor descriptors also for sm_90: TMA's boxes read by mma.sync and ld.shared, not wgmma */
    for (int b = 0; b < n_blocks; b++) {
        if (!strstr(blocks[b].path, "kernels/block_ptr.py") || !shard_has(shard, b)) continue;
        int warps = blocks[b].num_warps[0] ? atoi(blocks[b].num_warps) : 4;
        if (run_block(&blocks[b], "sm_90", warps, false, &skipped, &print_lines)) ran++;
        else failures++;
    }
    printf("kernels: %d test blocks, %d runs of the simulated PTX agree with the interpreter (%zu printed lines "
           "compared), %d skipped\n", n_blocks, ran, print_lines + debug_lines, skipped);
    CHECK_MSG(skipped == 0, "every block must run");
    CHECK_MSG(saw_debug, "no kernels/debug.py blocks");
    CHECK_MSG(!debug_here || debug_lines > 0, "kernels/debug.py printed nothing to compare");
    free(blocks);
}


/* ---- 4. diff_simulate's bounds ---- */

/* Runs `each` on the IR of the last stage of kern in src. */
typedef struct LastStage {
    int n, last;
    void (*each)(IrFunc *fn, void *ud);
    void *ud;
} LastStage;

static void count_stage(IrFunc *fn, const char *stage, int index, void *ud) {
    (void)fn, (void)stage;
    ((LastStage *)ud)->n = index + 1;
}

static void at_last_stage(IrFunc *fn, const char *stage, int index, void *ud) {
    LastStage *ls = ud;
    (void)stage;
    if (index == ls->last) ls->each(fn, ls->ud);
}

static void with_last_stage(const char *src, const char *sig, void (*each)(IrFunc *, void *), void *ud) {
    RtRequest rq = {.path = "bounds.py", .source = src, .kernel = "kern", .signature = sig};
    rt_default_target(&rq.target);
    LastStage ls = {.each = each, .ud = ud};
    char *diag = NULL;
    bool ok = rt_each_stage(&rq, count_stage, &ls, &diag);
    CHECK_MSG(ok, "%s", diag);
    free(diag);
    diag = NULL;
    ls.last = ls.n - 1;
    if (ok) CHECK_MSG(rt_each_stage(&rq, at_last_stage, &ls, &diag), "%s", diag);
    free(diag);
}

static const char approx_src[] =
    "import triton\nimport triton.language as tl\n\n\n@triton.jit\n"
    "def kern(x_ptr, wide, plain, acc_out, n, BLOCK: tl.constexpr):\n"
    "    offs = tl.arange(0, BLOCK)\n"
    "    x = tl.load(x_ptr + offs)\n"
    "    tl.store(wide + offs, tl.exp(-tl.abs(x)))\n"
    "    tl.store(plain + offs, x * 2)\n"
    "    acc = tl.zeros((BLOCK,), tl.float32)\n"
    "    for i in range(n):\n"
    "        acc = acc + x\n"
    "        acc = tl.where(acc > 10.0, tl.sqrt(acc), acc)\n"
    "    tl.store(acc_out + offs, acc)\n";

static void approx_of_params(IrFunc *fn, void *ud) {
    ElemType *a = diff_approx_buffers(fn);
    memcpy(ud, a, sizeof(ElemType) * fn->n_params);
    free(a);
}

static void test_ulp_bounds(void) {
    /* which buffers approximate results reach, and in which type */
    ElemType got[5] = {ET_I1, ET_I1, ET_I1, ET_I1, ET_I1};
    with_last_stage(approx_src, "*fp32, *fp64, *fp32, *fp32, i32, 64", approx_of_params, got);
    static const ElemType want[5] = {ET_COUNT, ET_F32, ET_COUNT, ET_F32, ET_COUNT};
    for (int k = 0; k < 5; k++)
        CHECK_MSG(got[k] == want[k], "parameter %d: approximate type %d, expected %d", k, got[k], want[k]);
    /* the bound in that type: an f32 exp 1 f32 ulp apart, stored as f64 */
    uint64_t u = 0x3fc1daf5e0000000, v = 0x3fc1daf600000000, v3 = 0x3fc1daf640000000;
    CHECK_MSG(diff_within_ulps(ET_F64, ET_F32, u, v), "1 f32 ulp in an f64 buffer");
    CHECK_MSG(!diff_within_ulps(ET_F64, ET_F32, u, v3), "3 f32 ulps in an f64 buffer");
    CHECK_MSG(!diff_within_ulps(ET_F64, ET_F64, u, v), "2^29 f64 ulps of an f64 approximation");
    CHECK_MSG(!diff_within_ulps(ET_F64, ET_COUNT, u, u + 1), "no approximation: exact");
    CHECK_MSG(diff_within_ulps(ET_F32, ET_F32, 0x3f800000, 0x3f800002), "2 f32 ulps");
    CHECK_MSG(!diff_within_ulps(ET_F32, ET_F32, 0x3f800000, 0x3f800003), "3 f32 ulps");
    CHECK_MSG(diff_within_ulps(ET_F32, ET_F64, 0x3f800000, 0x3f7fffff), "f64 math into f32: f32 ulps");
    CHECK_MSG(diff_within_ulps(ET_F64, ET_F32, 0x1, 0x0), "a subnormal f64 next to 0: below f32's ulp there");
    CHECK_MSG(!diff_within_ulps(ET_F64, ET_F32, 0x7ff0000000000000, 0x7fefffffffffffff), "inf against finite");
}

/* a float rem outside its exact range is found; inside it is not */
static const char rem_src[] =
    "import triton\nimport triton.language as tl\n\n\n@triton.jit\n"
    "def kern(a_ptr, b_ptr, out, BLOCK: tl.constexpr):\n"
    "    offs = tl.arange(0, BLOCK)\n"
    "    tl.store(out + offs, tl.load(a_ptr + offs) % tl.load(b_ptr + offs))\n";

typedef struct RemCase {
    const char *args;
    char *why;
} RemCase;

static void rem_outside(IrFunc *fn, void *ud) {
    RemCase *rc = ud;
    Diff d = {.where = "rem", .args = rc->args, .grid = "1", .seed = 3};
    rc->why = diff_rem_outside(&d, fn);
}

static void test_rem_range(void) {
    static const struct { const char *sig, *args, *want; } cases[] = {
        {"*fp32, *fp32, *fp32, 64", "a = randn(64, fp32) * 1000; b = full(64, 0.37, fp32); out = zeros(64, fp32)", NULL},
        {"*fp32, *fp32, *fp32, 64", "a = arange(64, fp32) * 1e7; b = full(64, 0.5, fp32); out = zeros(64, fp32)",
         "element (1) in program (0, 0, 0)"},   /* 2e7 / 0.5 = 4e7 >= 2^24 */
        {"*fp32, *fp32, *fp32, 64", "a = arange(64, fp32) - 1e38 * 1e38; b = full(64, 1e38 * 1e38, fp32); "
         "out = zeros(64, fp32)", "element (0) in program (0, 0, 0)"},   /* -inf % inf */
        {"*fp32, *fp32, *fp32, 64", "a = arange(64, fp32); b = full(64, 1e38 * 1e38, fp32); out = zeros(64, fp32)",
         NULL},   /* finite % inf is a, as fmod says */
        {"*fp64, *fp64, *fp64, 64", "a = arange(64, fp64) * 1e14; b = full(64, 3.0, fp64); out = zeros(64, fp64)",
         NULL},   /* below 2^53 */
        {"*fp64, *fp64, *fp64, 64", "a = arange(64, fp64) * 1e17; b = full(64, 3.0, fp64); out = zeros(64, fp64)",
         "element (1) in program (0, 0, 0)"},
        {"*fp16, *fp16, *fp16, 64", "a = full(64, 60000, fp16); b = full(64, 0.001, fp16); out = zeros(64, fp16)",
         "element (0) in program (0, 0, 0)"},   /* in f32: 6e7 >= 2^24 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        RemCase rc = {cases[i].args, NULL};
        with_last_stage(rem_src, cases[i].sig, rem_outside, &rc);
        if (cases[i].want)
            CHECK_MSG(rc.why && strstr(rc.why, DIFF_REM_MESSAGE) && strstr(rc.why, cases[i].want),
                  "case %zu: %s", i, rc.why ? rc.why : "(in range)");
        else
            CHECK_MSG(!rc.why, "case %zu: %s", i, rc.why);
        free(rc.why);
    }
}


/* ---- 3. --simulate prints what --interpret prints ---- */

static void test_cli_modes(void) {
    RtRequest rq = {.path = "kernels/vector_add.py", .kernel = "add_kernel",
                    .signature = "*fp32:16, *fp32:16, *fp32:16, i32, 1024"};
    rt_default_target(&rq.target);
    RtInterpRequest irq = {.args = "x = rand(n, fp32); y = rand(n, fp32); out = zeros(n, fp32); n = 3000",
                           .grid = "cdiv(n, 1024)", .print = "out", .seed = 7};
    RtResult a, b;
    bool ok_a = rt_interpret(&rq, &irq, &a);
    irq.simulate = true;
    bool ok_b = rt_interpret(&rq, &irq, &b);
    CHECK_MSG(ok_a && ok_b, "%s%s", a.diag, b.diag);
    if (ok_a && ok_b) CHECK_MSG(strcmp(a.text, b.text) == 0, "--interpret:\n%s--simulate:\n%s", a.text, b.text);
    rt_result_free(&a);
    rt_result_free(&b);
    /* a run-time error of the simulated PTX comes back as the result's message */
    irq.args = "x = rand(n, fp32); y = rand(n, fp32); out = zeros(3000, fp32); n = 3001";
    ok_b = rt_interpret(&rq, &irq, &b);
    CHECK_MSG(!ok_b && strstr(b.diag, "sim: kernels/vector_add.py:") && strstr(b.diag, "outside every buffer"),
          "%s", b.diag);
    rt_result_free(&b);
}

int main(int argc, char **argv) {
    Shard shard = blocks_shard(argc, argv);
    if (shard.i == 0) {
        test_semantics();
        test_errors();
        test_shfl();
        test_atomics();
        test_vprintf();
        test_assertfail();
        test_mma();
        test_mma_global();
        test_cvt_tf32();
        test_mma_errors();
        test_cp_async();
        test_cp_async_errors();
        test_tma();
        test_tmap_build();
        test_cli_modes();
        test_ulp_bounds();
        test_rem_range();
    }
    test_kernels(shard);
    if (failures) printf("%d failures\n", failures);
    return failures != 0;
}
