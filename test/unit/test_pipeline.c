/* Software pipelining (opt/pipeline.c, the cp.async code of ptxgen/convert.c)
 * on the tutorial matmul of kernels/pipeline_matmul.py, at num_stages 1 to 4:
 *   - the PTX assembles for sm_80 and sm_90a, issues cp.async (16-byte,
 *     zero-filled by src-size) and waits for S - 2 groups in the loop when
 *     S >= 2, and has no cp.async at all for S = 1;
 *   - in the loop the copies come between the first k-step's mmas and the
 *     last mma (the reads of the slot start right after the barrier, the
 *     copies leave almost an iteration ahead); on sm_90a, where the dot is a
 *     wgmma, after its wgmmas and the wait that leaves them in flight; and
 *     where both operands are
 *     copied the mmas take ldmatrix's registers as they are (no 16-bit
 *     halves split and packed again: ptxas then shuffles registers);
 *   - the interpreter's results on the pipelined IR are the same bits at
 *     every S (test_interp compares every pass stage at the default S);
 *   - shared memory: the epilogue's conversion reuses the ring's space (the
 *     kernel needs the larger of the two, not their sum);
 *   - the PTX on the simulator (cp.async performed only when its group is
 *     waited for) leaves the interpreter's results at every S.
 * The same on strided_matmul_kernel: column-major operands (slots stored
 * transposed), `other` not 0, fp8 tiles widened after the copy: no load
 * left synchronous.
 * And on the persistent softmax of kernels/softmax.py, whose tl.range has
 * its own num_stages and no dot (every load pipelined, S - 1 slots):
 *   - S - 1 slots of the row in shared memory, S commits, wait S-2 in the
 *     loop, no ld.global left in it, the copies right after the shared
 *     read; where every thread reads only its own copies, no bar.sync
 *     before them; where two threads hold an element (a block smaller than
 *     the threads), one copies it (@owner cp.async) and bar.syncs guard
 *     the slot;
 *   - the interpreter and the simulated PTX give S = 1's results at every S
 *     (rows shorter than the block: `other` put back after the read). */
#include "base/base.h"
#include "runtime/rt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ptxas.h"

static const char *const kfile = "kernels/pipeline_matmul.py";

typedef struct Config {
    const char *sig, *args, *grid;
    int warps;
    int ring;              /* bytes of one stage of both rings: (BM + BN) x BK x 2 */
    const char *kernel;    /* NULL: matmul_kernel */
    bool sm90_only;        /* fp8 conversions: not on sm_80 */
    bool splits;           /* the loop splits ldmatrix's pairs (a select of `other`, a cast) */
} Config;

static const Config configs[] = {
    {"*fp16:16, *fp16:16, *fp16:16, i32, i32:16, i32:16, i32:16, i32:16, i32:16, 64, 64, 32, 2, 0",
     "a = rand((M, K), fp16); b = rand((K, N), fp16); c = empty((M, N), fp16); M = 100; N = 80; K = 160; "
     "stride_am = K; stride_bk = N; stride_cm = N",
     "(cdiv(M, 64) * cdiv(N, 64), 1, 1)", 4, (64 + 64) * 32 * 2, NULL, false, false},
    /* K tail: only b is pipelined */
    {"*fp16:16, *fp16:16, *fp16:16, i32, i32:16, i32, i32, i32:16, i32:16, 64, 64, 32, 2, 0",
     "a = rand((M, K), fp16); b = rand((K, N), fp16); c = empty((M, N), fp16); M = 70; N = 48; K = 75; "
     "stride_am = K; stride_bk = N; stride_cm = N",
     "(cdiv(M, 64) * cdiv(N, 64), 1, 1)", 4, 64 * 32 * 2, NULL, false, false},
    /* fewer iterations than stages */
    {"*fp16:16, *fp16:16, *fp16:16, i32, i32:16, i32:16, i32:16, i32:16, i32:16, 64, 64, 32, 1, 1",
     "a = rand((M, K), fp16); b = rand((K, N), fp16); c = empty((M, N), fp16); M = 64; N = 64; K = 32; "
     "stride_am = K; stride_bk = N; stride_cm = N",
     "(cdiv(M, 64) * cdiv(N, 64), 1, 1)", 4, (64 + 64) * 32 * 2, NULL, false, false},
    {"*fp16:16, *fp16:16, *fp16:16, i32, i32:16, i32:16, i32:16, i32:16, i32:16, 128, 128, 32, 8, 0", NULL, NULL, 4,
     (128 + 128) * 32 * 2, NULL, false, false},
    {"*fp16:16, *fp16:16, *fp16:16, i32, i32:16, i32:16, i32:16, i32:16, i32:16, 128, 256, 64, 8, 0", NULL, NULL, 8,
     (128 + 256) * 64 * 2, NULL, false, false},
    /* strided_matmul_kernel: column-major a and b (loads down dim 0, slots
     * stored transposed: a read with ldmatrix.trans, b without) */
    {"*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:16, 64, 64, 32, 0.0, 0.0, 0",
     "a = rand((K, M), fp16); b = rand((N, K), fp16); c = empty((M, N), fp16); M = 128; N = 64; K = 96; s_ak = M; "
     "s_bn = K; s_cm = N",
     "(cdiv(M, 64), cdiv(N, 64), 1)", 4, (64 + 64) * 32 * 2, "strided_matmul_kernel", false, false},
    /* other not 0: the copies fill zeros and a select puts `other` back */
    {"*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, 64, 64, 32, 1.5, 2.0, 0",
     "a = rand((M, K), fp16); b = rand((K, N), fp16); c = empty((M, N), fp16); M = 64; N = 128; K = 80; s_am = K; "
     "s_bk = N; s_cm = N",
     "(cdiv(M, 64), cdiv(N, 64), 1)", 4, (64 + 64) * 32 * 2, "strided_matmul_kernel", false, true},
    /* fp8 tiles copied, then .to(tl.float16) */
    {"*fp8e5:16, *fp8e5:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, 64, 64, 32, 0.0, 0.0, 1",
     "a = randn((M, K), fp8e5); b = randn((K, N), fp8e5); c = empty((M, N), fp16); M = 64; N = 64; K = 96; s_am = K; "
     "s_bk = N; s_cm = N",
     "(cdiv(M, 64), cdiv(N, 64), 1)", 4, (64 + 64) * 32, "strided_matmul_kernel", true, true},
};

static const char *kernel_of(const Config *c) { return c->kernel ? c->kernel : "matmul_kernel"; }

static int count_str(const char *s, const char *what) {
    int n = 0;
    for (const char *p = strstr(s, what); p; p = strstr(p + 1, what)) n++;
    return n;
}

static bool starts(const char *p, const char *s) {
    return strncmp(p, s, strlen(s)) == 0;
}

/* The K loop's body: with a ring of S - 1 slots (reuse: mma.sync dots on
 * sm_80) the copies come after its last mma and a barrier (they refill
 * the slot the mmas' ldmatrix read); with S slots (a dot in wgmma's
 * layout on sm_90a that stays mma.sync: B from registers) between its
 * first mma and its last. Without synchronous loads in it (both operands
 * copied) and with an f32 accumulator (an f16 one is packed in pairs for
 * each dot), no mov.b32 packing or splitting. */
static void check_loop_order(const char *ptx, bool f32_acc, bool reuse, const char *what) {
    const char *body = strstr(ptx, "$L_for_0:"), *end = body ? strstr(body, "$L_end_0:") : NULL;
    CHECK_MSG(body && end, "%s: no loop", what);
    if (!body || !end) return;
    const char *wg = strstr(body, "wgmma.mma_async");
    if (wg && wg < end) {   /* sm_90a: the copies after the wait that leaves this iteration's group pending */
        const char *wait = strstr(body, "wgmma.wait_group.sync.aligned 1;"), *copy = strstr(body, "cp.async.cg");
        const char *last = wg;
        for (const char *p = wg; p && p < end; p = strstr(p + 1, "wgmma.mma_async")) last = p;
        CHECK_MSG(wait && copy && last < wait && wait < copy && copy < end && !strstr(body, "mma.sync"),
                  "%s: wgmma loop: not wgmma, wait_group 1, then the copies", what);
        return;
    }
    const char *first_mma = NULL, *last_mma = NULL, *first_copy = NULL, *ld_global = NULL, *packing = NULL;
    const char *barrier = NULL;   /* the last bar.sync before the first copy */
    for (const char *p = body; p < end; p = strchr(p, '\n') + 1) {
        if (starts(p, "\tmma.sync")) last_mma = p, first_mma = first_mma ? first_mma : p;
        if (!first_copy && starts(p, "\tbar.sync")) barrier = p;
        if (!first_copy && starts(p, "\tcp.async.cg")) first_copy = p;
        if (!ld_global && strstr(p, "ld.global") && strstr(p, "ld.global") < strchr(p, '\n')) ld_global = p;
        if (!packing && starts(p, "\tmov.b32") && strchr(p, '{') && strchr(p, '{') < strchr(p, '\n')) packing = p;
    }
    if (reuse)
        CHECK_MSG(first_mma && first_copy && barrier && last_mma < barrier && barrier < first_copy,
                  "%s: the copies not after the loop's last mma and a barrier", what);
    else
        CHECK_MSG(first_mma && first_copy && first_mma < first_copy && first_copy < last_mma,
                  "%s: the copies not between the loop's first and last mma", what);
    if (!ld_global && f32_acc) CHECK_MSG(!packing, "%s: operand registers packed in the loop: %.60s", what, packing);
}

/* rt_compile, a failure reported as a failed check */
static bool compiles(const RtRequest *rq, RtResult *r, const char *what) {
    bool ok = rt_compile(rq, r);
    CHECK_MSG(ok, "%s: %s", what, r->diag);
    if (!ok) rt_result_free(r);
    return ok;
}

static void check_ptx(const Config *c, const char *arch, int stages) {
    RtRequest rq = {.path = kfile, .kernel = kernel_of(c), .signature = c->sig, .emit = RT_EMIT_PTX};
    rt_default_target(&rq.target);
    CHECK(rt_parse_arch(arch, &rq.target));
    rq.target.num_warps = c->warps;
    rq.target.num_stages = stages;
    char what[256];
    snprintf(what, sizeof what, "%s [%s] %s S=%d", kfile, c->sig, arch, stages);
    RtResult r = {0};
    if (!compiles(&rq, &r, what)) return;
    /* the ring's slots, from the IR (local_alloc {smem = ..} : tile<SLOTSx...>):
     * S - 1 where the copies refill the slot just read (mma.sync, whose
     * ldmatrix reads are done with the dot), S where a wgmma may still read it */
    const char *alloc = r.ir ? strstr(r.ir, "= local_alloc") : NULL;
    const char *tile = alloc ? strstr(alloc, ": tile<") : NULL;
    int slots = tile ? atoi(tile + strlen(": tile<")) : 0;
    bool reuse = slots == stages - 1;
    if (stages >= 2) {
        CHECK_MSG(rq.target.arch_a || reuse, "%s: an mma.sync loop on %s with %d slots", what, arch, slots);
        CHECK_MSG(!strstr(r.text, "wgmma.mma_async") || slots == stages, "%s: a wgmma loop with %d slots", what, slots);
    }
    int copies = count_str(r.text, "cp.async.cg.shared.global");
    if (stages < 2) {
        CHECK_MSG(copies == 0 && !strstr(r.text, "cp.async"), "%s: cp.async without pipelining", what);
    } else {
        char wait[64];
        snprintf(wait, sizeof wait, "cp.async.wait_group %d;", stages - 2);
        CHECK_MSG(copies > 0, "%s: no 16-byte cp.async", what);
        CHECK_MSG(!strstr(r.text, "cp.async.ca"), "%s: a cp.async under 16 bytes", what);
        CHECK_MSG(!c->kernel || !strstr(r.text, "ld.global"), "%s: a load left synchronous", what);
        CHECK_MSG(strstr(r.text, wait) && strstr(r.text, "cp.async.wait_group 0;"), "%s: no %s or wait 0", what, wait);
        /* one commit per prologue stage and one in the loop */
        CHECK_MSG(count_str(r.text, "cp.async.commit_group;") == stages, "%s: %d commits", what,
                  count_str(r.text, "cp.async.commit_group;"));
        /* the ring holds S stages where the dot takes wgmma's layout
         * (sm_90a), S - 1 for mma.sync; the epilogue's conversion of the f32
         * accumulator (BM x BN x 4 bytes) reuses it */
        int ring = (reuse ? stages - 1 : stages) * c->ring;
        CHECK_MSG(r.shared_bytes >= ring && r.shared_bytes < ring + 128 * 256 * 4,
                  "%s: %d bytes of shared memory for a ring of %d", what, r.shared_bytes, ring);
    }
    size_t n = strlen(c->sig);
    if (stages >= 2) check_loop_order(r.text, n > 3 && !strcmp(c->sig + n - 3, ", 0") && !c->splits, reuse, what);
    CHECK(ptxas_accepts(r.text, arch, what));
    rt_result_free(&r);
}

/* The interpreter's printout (every buffer, checksums) at S must equal
 * S = 1's, and so must the simulated PTX's. */
static void check_interp(const Config *c, int stages, const char *ref, bool simulate) {
    RtRequest rq = {.path = kfile, .kernel = kernel_of(c), .signature = c->sig, .emit = RT_EMIT_PTX};
    rt_default_target(&rq.target);
    if (c->sm90_only) CHECK(rt_parse_arch("sm_90a", &rq.target));
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

/* ---- plain loops: the persistent softmax ---- */

static const char *const softmax_file = "kernels/softmax.py";

typedef struct Plain {
    const char *sig;   /* without the trailing num_stages */
    const char *args, *grid;
    int row_bytes;
    bool private_;     /* each element read by the thread that copies it */
} Plain;

static const Plain plains[] = {
    {"*fp32:16, *fp32:16, i32:16, i32:16, i32, i32:16, 1024",
     "out = empty((n_rows, 1024), fp32); x = randn((n_rows, 1024), fp32); s_in = 1024; s_out = 1024; "
     "n_rows = 11; n_cols = 1008",
     "3", 4096, true},
    {"*fp32:16, *fp32:16, i32, i32, i32, i32, 64",
     "out = empty((n_rows, n_cols), fp32); x = randn((n_rows, n_cols), fp32); s_in = n_cols; s_out = n_cols; "
     "n_rows = 10; n_cols = 50",
     "3", 256, false},
};

static RtRequest plain_request(const Plain *c, int stages, char *sig, size_t cap) {
    snprintf(sig, cap, "%s, %d", c->sig, stages);
    RtRequest rq = {.path = softmax_file, .kernel = "softmax_persistent_kernel", .signature = sig, .emit = RT_EMIT_PTX};
    rt_default_target(&rq.target);
    rq.target.num_warps = 8;
    return rq;
}

/* every cp.async copy's line starts with a predicate */
static bool copies_guarded(const char *ptx) {
    int n = 0;
    for (const char *p = strstr(ptx, ".shared.global ["); p; p = strstr(p + 1, ".shared.global ["), n++) {
        const char *line = p;
        while (line > ptx && line[-1] != '\n') line--;
        if (strncmp(line, "\t@", 2) != 0) return false;
    }
    return n > 0;
}

static void check_plain_ptx(const Plain *c, const char *arch, int stages) {
    char sig[256], what[320];
    RtRequest rq = plain_request(c, stages, sig, sizeof sig);
    CHECK(rt_parse_arch(arch, &rq.target));
    snprintf(what, sizeof what, "%s [%s] %s", softmax_file, sig, arch);
    RtResult r = {0};
    if (!compiles(&rq, &r, what)) return;
    const char *body = strstr(r.text, "$L_for_0:"), *end = body ? strstr(body, "$L_end_0:") : NULL;
    CHECK_MSG(body && end, "%s: no loop", what);
    if (stages < 2) {
        CHECK_MSG(!strstr(r.text, "cp.async"), "%s: cp.async without pipelining", what);
    } else if (body && end) {
        char wait[64];
        snprintf(wait, sizeof wait, "cp.async.wait_group %d;", stages - 2);
        const char *w = strstr(body, wait), *rd = strstr(body, "ld.shared"), *cp = strstr(body, ".shared.global [");
        const char *ldg = strstr(body, "ld.global"), *bar = strstr(body, "bar.sync");
        CHECK_MSG(w && w < end && rd && cp && w < rd && rd < cp && cp < end, "%s: not wait, read, copy in the loop", what);
        CHECK_MSG(!ldg || ldg > end, "%s: a global load left in the loop", what);
        CHECK_MSG(count_str(r.text, "cp.async.commit_group;") == stages, "%s: %d commits", what,
                  count_str(r.text, "cp.async.commit_group;"));
        int ring = (stages - 1) * c->row_bytes;
        CHECK_MSG(r.shared_bytes >= ring && r.shared_bytes < ring + 1024, "%s: %d bytes of shared memory for %d",
                  what, r.shared_bytes, ring);
        if (c->private_) {
            CHECK_MSG(!bar || bar > cp, "%s: bar.sync before the copies of private slots", what);
        } else {
            CHECK_MSG(bar && bar < rd && strstr(bar + 1, "bar.sync") < cp, "%s: no bar.sync around the read", what);
            CHECK_MSG(copies_guarded(r.text), "%s: copies not guarded by their owner", what);
        }
    }
    CHECK(ptxas_accepts(r.text, arch, what));
    rt_result_free(&r);
}

static void check_plain_interp(const Plain *c) {
    char *ref = NULL;
    for (int s = 1; s <= 4; s++)
        for (int simulate = 0; simulate <= 1; simulate++) {
            char sig[256];
            RtRequest rq = plain_request(c, s, sig, sizeof sig);
            RtInterpRequest irq = {.args = c->args, .grid = c->grid, .seed = 7, .simulate = simulate};
            RtResult r = {0};
            bool ok = rt_interpret(&rq, &irq, &r);
            CHECK_MSG(ok, "%s [%s]%s: %s", softmax_file, sig, simulate ? " simulated" : "", r.diag);
            if (ok && !ref) ref = strdup(r.text);
            else if (ok)
                CHECK_MSG(strcmp(r.text, ref) == 0, "%s [%s]%s:\n%s\nexpected (S=1, interpreter):\n%s", softmax_file,
                          sig, simulate ? " simulated" : "", r.text, ref);
            rt_result_free(&r);
        }
    free(ref);
}

int main(void) {
    static const char *const archs[] = {"sm_80", "sm_90a"};
    for (size_t i = 0; i < ARRAY_LEN(plains); i++) {
        for (int s = 1; s <= 4; s++)
            for (size_t a = 0; a < ARRAY_LEN(archs); a++) check_plain_ptx(&plains[i], archs[a], s);
        check_plain_interp(&plains[i]);
    }
    for (size_t i = 0; i < ARRAY_LEN(configs); i++) {
        const Config *c = &configs[i];
        for (int s = 1; s <= 4; s++)
            for (size_t a = c->sm90_only; a < ARRAY_LEN(archs); a++) check_ptx(c, archs[a], s);
        if (!c->args) continue;
        RtRequest rq = {.path = kfile, .kernel = kernel_of(c), .signature = c->sig, .emit = RT_EMIT_PTX};
        rt_default_target(&rq.target);
        if (c->sm90_only) CHECK(rt_parse_arch("sm_90a", &rq.target));
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
