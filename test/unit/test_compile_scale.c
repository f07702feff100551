/* Compile time grows linearly with kernel length. Straight-line kernels of
 * N and 4N lines, in shapes that each lean on what used to walk the whole
 * kernel once per op or search every name or constant so far, are compiled
 * to PTX (rt_compile: lowering, every pass, ptxgen); the CPU time of the
 * longer must stay well under the 16 times a quadratic compiler takes: at
 * most RATIO_MAX times (linear: about 4). CPU time, the best of a few runs,
 * and a second measurement before a failure, so that a loaded machine and
 * the sanitizers do not make it flaky; N is small enough for the test
 * build to take a few seconds.
 *
 *   chain     x = x * 1.5 + 0.25: cse merges each line's constants, contract
 *             fuses each mul and add, dce marks a chain N ops long
 *   identity  x = x * 1.0 - 0.0 + y: fold drops two ops per line
 *   loadstore a load and a store per pair of lines, a name and a constant
 *             each: the lowering's scope, pass_layout's anchors, ptxgen's
 *             constant registers
 *   loops     a loop per pair of lines, each adding a load to one carried
 *             accumulator: the lowering's loop memos, pass_pipeline's use
 *             counts */
#include "runtime/rt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"

#define N_LINES 1500
#define RATIO_MAX 8.0

static const char header[] = "import triton\nimport triton.language as tl\n\n@triton.jit\n";

static void chain(Buf *b, int n) {
    buf_puts(b, "def k(x_ptr, y_ptr, n, BLOCK: tl.constexpr):\n"
                "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                "    x = tl.load(x_ptr + offs, mask=offs < n)\n");
    for (int i = 0; i < n; i++) buf_puts(b, "    x = x * 1.5 + 0.25\n");
    buf_puts(b, "    tl.store(y_ptr + offs, x, mask=offs < n)\n");
}

static void identity(Buf *b, int n) {
    buf_puts(b, "def k(x_ptr, y_ptr, n, BLOCK: tl.constexpr):\n"
                "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                "    x = tl.load(x_ptr + offs, mask=offs < n)\n"
                "    y = tl.load(y_ptr + offs, mask=offs < n)\n");
    for (int i = 0; i < n; i++) buf_puts(b, "    x = x * 1.0 - 0.0 + y\n");
    buf_puts(b, "    tl.store(y_ptr + offs, x, mask=offs < n)\n");
}

static void loadstore(Buf *b, int n) {
    buf_puts(b, "def k(x_ptr, y_ptr, n, BLOCK: tl.constexpr):\n"
                "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                "    mask = offs < n\n");
    for (int i = 0; i < n / 2; i++)
        buf_printf(b,
                   "    v%d = tl.load(x_ptr + offs + %d, mask=mask, other=0.0)\n"
                   "    tl.store(y_ptr + offs + %d, v%d * %d.0, mask=mask)\n",
                   i, 7 * i, 7 * i, i, i + 2);
}

static void loops(Buf *b, int n) {
    buf_puts(b, "def k(x_ptr, y_ptr, n, BLOCK: tl.constexpr):\n"
                "    offs = tl.arange(0, BLOCK)\n"
                "    acc = tl.zeros([BLOCK], dtype=tl.float32)\n");
    for (int i = 0; i < n / 2; i++)
        buf_printf(b,
                   "    for j in range(0, n):\n"
                   "        acc += tl.load(x_ptr + offs + j * %d)\n",
                   i + 1);
    buf_puts(b, "    tl.store(y_ptr + offs, acc)\n");
}

static const struct {
    const char *name;
    void (*gen)(Buf *b, int n);
} shapes[] = {{"chain", chain}, {"identity", identity}, {"loadstore", loadstore}, {"loops", loops}};

static double cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The best CPU time of `runs` compiles of shape at n lines; -1 if one fails. */
static double compile_time(int shape, int n, int runs) {
    Buf src = {0};
    buf_puts(&src, header);
    shapes[shape].gen(&src, n);
    RtRequest rq = {0};
    rq.path = "scale.py";
    rq.source = src.data;
    rq.kernel = "k";
    rq.signature = "*fp32:16, *fp32:16, i32, 256";
    rq.emit = RT_EMIT_PTX;
    rt_default_target(&rq.target);
    rt_parse_arch("sm_90a", &rq.target);
    double best = -1;
    for (int r = 0; r < runs; r++) {
        RtResult res;
        double t0 = cpu_seconds();
        bool ok = rt_compile(&rq, &res);
        double t = cpu_seconds() - t0;
        if (!ok) printf("FAIL %s, %d lines: compile failed:\n%s", shapes[shape].name, n, res.diag);
        rt_result_free(&res);
        if (!ok) {
            best = -1;
            break;
        }
        if (best < 0 || t < best) best = t;
    }
    buf_free(&src);
    return best;
}

int main(void) {
    for (int s = 0; s < (int)ARRAY_LEN(shapes); s++) {
        double ratio = 0, t1 = 0, t4 = 0;
        for (int attempt = 0; attempt < 2; attempt++) {
            t1 = compile_time(s, N_LINES, 3);
            t4 = compile_time(s, 4 * N_LINES, 2);
            if (t1 <= 0 || t4 < 0) break;
            ratio = t4 / t1;
            if (ratio <= RATIO_MAX) break;
        }
        printf("%-10s %5d lines %.3f s, %5d lines %.3f s: x%.1f\n", shapes[s].name, N_LINES, t1, 4 * N_LINES, t4,
               ratio);
        CHECK_MSG(t1 > 0 && t4 >= 0, "%s: compile failed", shapes[s].name);
        CHECK_MSG(ratio <= RATIO_MAX, "%s: 4 times the lines took %.1f times the CPU time (at most %.0f)",
                  shapes[s].name, ratio, RATIO_MAX);
    }
    return failures != 0;
}
