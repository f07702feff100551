/* Software pipelining (opt/pipeline.c, the cp.async code of ptxgen/convert.c)
 * on the tutorial matmul of kernels/pipeline_matmul.py, at num_stages 1 to 4:
 *   - the PTX assembles for sm_80 and sm_90a, issues cp.async (16-byte,
 *     zero-filled by src-size) and waits for S - 2 groups in the loop when
 *     S >= 2, and has no cp.async at all for S = 1;
 *   - in the loop the copies come between the first k-step's mmas and the
 *     last mma (the reads of the slot start right after the barrier, the
 *     copies leave almost an iteration ahead), and where both operands are
 *     copied the mmas take ldmatrix's registers as they are (no 16-bit
 *     halves split and packed again: ptxas then shuffles registers);
 *   - the interpreter's results on the pipelined IR are the same bits at
 *     every S (test_interp compares every pass stage at the default S);
 *   - shared memory: the epilogue's conversion reuses the ring's space (the
 *     kernel needs the larger of the two, not their sum);
 *   - the PTX on the simulator (cp.async performed only when its group is
 *     waited for) leaves the interpreter's results at every S. */
#include "base/base.h"
#include "runtime/rt.h"

#include <stdio.h>
#include <string.h>

#include "check.h"
#include "ptxas.h"

static const char *const kfile = "kernels/pipeline_matmul.py";

typedef struct Config {
    const char *sig, *args, *grid;
    int warps;
    int ring;   /* bytes of one stage of both rings: (BM + BN) x BK x 2 */
} Config;

static const Config configs[] = {
    {"*fp16:16, *fp16:16, *fp16:16, i32, i32:16, i32:16, i32:16, i32:16, i32:16, 64, 64, 32, 2, 0",
     "a = rand((M, K), fp16); b = rand((K, N), fp16); c = empty((M, N), fp16); M = 100; N = 80; K = 160; "
     "stride_am = K; stride_bk = N; stride_cm = N",
     "(cdiv(M, 64) * cdiv(N, 64), 1, 1)", 4, (64 + 64) * 32 * 2},
    /* K tail: only b is pipelined */
    {"*fp16:16, *fp16:16, *fp16:16, i32, i32:16, i32, i32, i32:16, i32:16, 64, 64, 32, 2, 0",
     "a = rand((M, K), fp16); b = rand((K, N), fp16); c = empty((M, N), fp16); M = 70; N = 48; K = 75; "
     "stride_am = K; stride_bk = N; stride_cm = N",
     "(cdiv(M, 64) * cdiv(N, 64), 1, 1)", 4, 64 * 32 * 2},
    /* fewer iterations than stages */
    {"*fp16:16, *fp16:16, *fp16:16, i32, i32:16, i32:16, i32:16, i32:16, i32:16, 64, 64, 32, 1, 1",
     "a = rand((M, K), fp16); b = rand((K, N), fp16); c = empty((M, N), fp16); M = 64; N = 64; K = 32; "
     "stride_am = K; stride_bk = N; stride_cm = N",
     "(cdiv(M, 64) * cdiv(N, 64), 1, 1)", 4, (64 + 64) * 32 * 2},
    {"*fp16:16, *fp16:16, *fp16:16, i32, i32:16, i32:16, i32:16, i32:16, i32:16, 128, 128, 32, 8, 0", NULL, NULL, 4,
     (128 + 128) * 32 * 2},
    {"*fp16:16, *fp16:16, *fp16:16, i32, i32:16, i32:16, i32:16, i32:16, i32:16, 128, 256, 64, 8, 0", NULL, NULL, 8,
     (128 + 256) * 64 * 2},
};

static int count_str(const char *s, const char *what) {
    int n = 0;
    for (const char *p = strstr(s, what); p; p = strstr(p + 1, what)) n++;
    return n;
}

static bool starts(const char *p, const char *s) {
    return strncmp(p, s, strlen(s)) == 0;
}

/* The K loop's body: its copies after its first mma and before its last
 * (the test configs have two k-steps or more); without synchronous
 * loads in it (both operands copied) and with an f32 accumulator (an f16
 * one is packed in pairs for each dot), no mov.b32 packing or splitting. */
static void check_loop_order(const char *ptx, bool f32_acc, const char *what) {
    const char *body = strstr(ptx, "$L_for_0:"), *end = body ? strstr(body, "$L_end_0:") : NULL;
    CHECK_MSG(body && end, "%s: no loop", what);
    if (!body || !end) return;
    const char *first_mma = NULL, *last_mma = NULL, *first_copy = NULL, *ld_global = NULL, *packing = NULL;
    for (const char *p = body; p < end; p = strchr(p, '\n') + 1) {
        if (starts(p, "\tmma.sync")) last_mma = p, first_mma = first_mma ? first_mma : p;
        if (!first_copy && starts(p, "\tcp.async.cg")) first_copy = p;
        if (!ld_global && strstr(p, "ld.global") && strstr(p, "ld.global") < strchr(p, '\n')) ld_global = p;
        if (!packing && starts(p, "\tmov.b32") && strchr(p, '{') && strchr(p, '{') < strchr(p, '\n')) packing = p;
    }
    CHECK_MSG(first_mma && first_copy && first_mma < first_copy && first_copy < last_mma,
              "%s: the copies not between the loop's first and last mma", what);
    if (!ld_global && f32_acc) CHECK_MSG(!packing, "%s: operand registers packed in the loop: %.60s", what, packing);
}

static void check_ptx(const Config *c, const char *arch, int stages) {
    RtRequest rq = {.path = kfile, .kernel = "matmul_kernel", .signature = c->sig, .emit = RT_EMIT_PTX};
    rt_default_target(&rq.target);
    CHECK(rt_parse_arch(arch, &rq.target));
    rq.target.num_warps = c->warps;
    rq.target.num_stages = stages;
    char what[256];
    snprintf(what, sizeof what, "%s [%s] %s S=%d", kfile, c->sig, arch, stages);
    RtResult r = {0};
    bool ok = rt_compile(&rq, &r);
    CHECK_MSG(ok, "%s: %s", what, r.diag);
    if (!ok) {
        rt_result_free(&r);
        return;
    }
    int copies = count_str(r.text, "cp.async.cg.shared.global");
    if (stages < 2) {
        CHECK_MSG(copies == 0 && !strstr(r.text, "cp.async"), "%s: cp.async without pipelining", what);
    } else {
        char wait[64];
        snprintf(wait, sizeof wait, "cp.async.wait_group %d;", stages - 2);
        CHECK_MSG(copies > 0, "%s: no 16-byte cp.async", what);
        CHECK_MSG(!strstr(r.text, "cp.async.ca"), "%s: a cp.async under 16 bytes", what);
        CHECK_MSG(strstr(r.text, wait) && strstr(r.text, "cp.async.wait_group 0;"), "%s: no %s or wait 0", what, wait);
        /* one commit per prologue stage and one in the loop */
        CHECK_MSG(count_str(r.text, "cp.async.commit_group;") == stages, "%s: %d commits", what,
                  count_str(r.text, "cp.async.commit_group;"));
        /* the ring holds S stages; the epilogue's conversion of the f32
         * accumulator (BM x BN x 4 bytes) reuses it */
        int ring = stages * c->ring;
        CHECK_MSG(r.shared_bytes >= ring && r.shared_bytes < ring + 128 * 256 * 4,
                  "%s: %d bytes of shared memory for a ring of %d", what, r.shared_bytes, ring);
    }
    size_t n = strlen(c->sig);
    if (stages >= 2) check_loop_order(r.text, n > 3 && !strcmp(c->sig + n - 3, ", 0"), what);
    CHECK(ptxas_accepts(r.text, arch, what));
    rt_result_free(&r);
}

/* The interpreter's printout (every buffer, checksums) at S must equal
 * S = 1's, and so must the simulated PTX's. */
static void check_interp(const Config *c, int stages, const char *ref, bool simulate) {
    RtRequest rq = {.path = kfile, .kernel = "matmul_kernel", .signature = c->sig, .emit = RT_EMIT_PTX};
    rt_default_target(&rq.target);
    rq.target.num_warps = c->warps;
    rq.target.num_stages = stages;
    RtInterpRequest irq = {.args = c->args, .grid = c->grid, .seed = 7, .simulate = simulate};
    RtResult r = {0};
    bool ok = rt_interpret(&rq, &irq, &r);
    CHECK_MSG(ok, "%s [%s] S=%d%s: %s", kfile, c->sig, stages, simulate ? " simulated" : "", r.diag);
    if (ok)
        CHECK_MSG(strcmp(r.text, ref) == 0, "%s [%s] S=%d%s:\n%s\nexpected (S=1, interpreter):\n%s", kfile, c->sig,
                  stages, simulate ? " simulated" : "", r.text, ref);
    rt_result_free(&r);
}

int main(void) {
    static const char *const archs[] = {"sm_80", "sm_90a"};
    for (size_t i = 0; i < ARRAY_LEN(configs); i++) {
        const Config *c = &configs[i];
        for (int s = 1; s <= 4; s++)
            for (size_t a = 0; a < ARRAY_LEN(archs); a++) check_ptx(c, archs[a], s);
        if (!c->args) continue;
        RtRequest rq = {.path = kfile, .kernel = "matmul_kernel", .signature = c->sig, .emit = RT_EMIT_PTX};
        rt_default_target(&rq.target);
        rq.target.num_warps = c->warps;
        rq.target.num_stages = 1;
        RtInterpRequest irq = {.args = c->args, .grid = c->grid, .seed = 7};
        RtResult ref = {0};
        bool ok = rt_interpret(&rq, &irq, &ref);
        CHECK_MSG(ok, "%s [%s] S=1: %s", kfile, c->sig, ref.diag);
        if (ok)
            for (int s = 2; s <= 4; s++) {
                check_interp(c, s, ref.text, false);
                check_interp(c, s, ref.text, true);
            }
        rt_result_free(&ref);
    }
    if (failures) printf("test_pipeline: %d checks failed\n", failures);
    return failures != 0;
}
