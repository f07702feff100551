/* The PTX simulator (sim/).
 *
 * 1. Hand-written PTX: decoding (immediates, vectors, predicates, labels,
 *    special registers), element semantics at their edges, and the exact
 *    messages for an out-of-bounds access, a divergent branch and an
 *    unknown instruction.
 * 2. Every kernel test block of kernels/NAME.py, compiled for sm_80 and
 *    sm_90a (the first block also with 1 and 8 warps): the simulated PTX
 *    must leave every buffer as the IR interpreter does on the IR after all
 *    passes, from the same inputs (diff_simulate in differential.h).
 * 3. --simulate prints what --interpret prints. */
#include "base/base.h"
#include "interp/interp.h"
#include "runtime/rt.h"
#include "sim/sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blocks.h"
#include "differential.h"

static int failures;

#define CHECK(cond, ...)                                                           \
    do {                                                                           \
        if (!(cond)) {                                                             \
            failures++;                                                            \
            printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                 \
            printf(__VA_ARGS__);                                                   \
            printf("\n");                                                          \
        }                                                                          \
    } while (0)


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
} PtxRun;

static void run_ptx(PtxRun *r, const char *ptx, void *out, size_t bytes, uint64_t n, uint32_t threads,
                    uint32_t grid) {
    InterpBuffer buf = {out, bytes, "out", ET_U32};
    uint64_t args[2] = {(uint64_t)(uintptr_t)out, n};
    InterpLaunch l = {.grid = {grid, 1, 1}, .args = args, .n_args = 2, .buffers = &buf, .n_buffers = 1};
    SimLaunch sl = {.ptx = ptx, .threads = threads, .data = &l, .max_steps = 100000};
    r->err = (Buf){0};
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
    CHECK(r.ok, "%s", buf_str(&r.err));
    static const uint32_t want[19] = {0xFFFFFFFF, 0, 0x11115511, 0xFFFFFFF8, 127, 0x43960000, 0x7FFFFFFF, 1,
                                      0x22114433, 0xEEEEEEEE, (uint32_t)-3, (uint32_t)-1, (uint32_t)-2, 0x3C01, 55,
                                      (uint32_t)-4, 0x40000000, 0xEEEEEEEE, 2};
    for (int k = 0; r.ok && k < 19; k++) CHECK(out[k] == want[k], "out[%d] = 0x%x, expected 0x%x", k, out[k], want[k]);
    buf_free(&r.err);
}

/* Exact messages: a store past the buffer, a divergent branch, an unknown
 * instruction, a misaligned vector. */
static void expect_error(const char *ptx, uint32_t threads, uint32_t grid, const char *want) {
    uint32_t out[40] = {0};
    PtxRun r;
    run_ptx(&r, ptx, out, sizeof out, 40, threads, grid);
    CHECK(!r.ok && strcmp(buf_str(&r.err), want) == 0, "got:\n%s", buf_str(&r.err));
    buf_free(&r.err);
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

/* ---- 2. kernels ---- */

/* One block on one target: the interpreter's stages, then the PTX. */
static bool run_block(const TestBlock *tb, const char *arch, int num_warps, int *skipped) {
    char where[768];
    snprintf(where, sizeof where, "%s:%d %s", tb->path, tb->line, tb->kernel);
    RtRequest rq = {.path = tb->path, .kernel = tb->kernel, .signature = tb->signature};
    rt_default_target(&rq.target);
    rt_parse_arch(arch, &rq.target);
    rq.target.num_warps = num_warps;
    Diff d = {.where = where, .args = tb->args, .grid = tb->grid, .seed = 12345};
    char *diag = NULL;
    bool ok = rt_each_stage(&rq, diff_on_stage, &d, &diag);
    CHECK(ok, "%s does not compile:\n%s", where, diag);
    if (d.unsupported) {
        printf("note: %s: skipped: %s", where, d.unsupported_why);
        (*skipped)++;
    }
    ok = ok && !d.failed && diff_simulate(&d, &rq);
    diff_free(&d);
    free(diag);
    return ok;
}

static void test_kernels(void) {
    int n_blocks = 0, ran = 0, skipped = 0;
    TestBlock *blocks = blocks_read_dir("kernels", &n_blocks);
    CHECK(n_blocks > 0, "no kernel test blocks (run from the repository root)");
    static const char *const archs[] = {"sm_80", "sm_90a"};
    for (int b = 0; b < n_blocks; b++) {
        int warps = blocks[b].num_warps[0] ? atoi(blocks[b].num_warps) : 4;
        for (int a = 0; a < 2; a++) {
            if (run_block(&blocks[b], archs[a], warps, &skipped)) ran++;
            else failures++;
        }
    }
    /* the first block also with one warp and with eight */
    for (int w = 1; n_blocks && w <= 8; w *= 8) {
        if (run_block(&blocks[0], "sm_90a", w, &skipped)) ran++;
        else failures++;
    }
    printf("kernels: %d test blocks, %d runs of the simulated PTX agree with the interpreter, %d skipped\n",
           n_blocks, ran, skipped);
    CHECK(skipped == 0, "every block must run");
    free(blocks);
}


/* ---- 3. --simulate prints what --interpret prints ---- */

static void test_cli_modes(void) {
    RtRequest rq = {.path = "kernels/vector_add.py", .kernel = "add_kernel",
                    .signature = "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024"};
    rt_default_target(&rq.target);
    RtInterpRequest irq = {.args = "x = rand(n, fp32); y = rand(n, fp32); out = zeros(n, fp32); n = 3000",
                           .grid = "cdiv(n, 1024)", .print = "out", .seed = 7};
    RtResult a, b;
    bool ok_a = rt_interpret(&rq, &irq, &a);
    irq.simulate = true;
    bool ok_b = rt_interpret(&rq, &irq, &b);
    CHECK(ok_a && ok_b, "%s%s", a.diag, b.diag);
    if (ok_a && ok_b) CHECK(strcmp(a.text, b.text) == 0, "--interpret:\n%s--simulate:\n%s", a.text, b.text);
    rt_result_free(&a);
    rt_result_free(&b);
    /* a run-time error of the simulated PTX comes back as the result's message */
    irq.args = "x = rand(n, fp32); y = rand(n, fp32); out = zeros(3000, fp32); n = 3001";
    ok_b = rt_interpret(&rq, &irq, &b);
    CHECK(!ok_b && strstr(b.diag, "sim: kernels/vector_add.py:") && strstr(b.diag, "outside every buffer"),
          "%s", b.diag);
    rt_result_free(&b);
}

int main(void) {
    test_semantics();
    test_errors();
    test_cli_modes();
    test_kernels();
    if (failures) printf("%d failures\n", failures);
    return failures != 0;
}
