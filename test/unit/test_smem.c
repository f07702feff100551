/* Pass smem's records (ir.h IrSmem) are what ptxgen prints.
 *
 * 1. Round trip: the IR of a kernel after the whole pipeline, printed and
 *    parsed back, gives the same PTX as the kernel compiled at once.
 * 2. A shape or an offset written by hand is honoured: the transpose's
 *    convert_layout and the pipelined matmul's buffers (sm_80) moved and
 *    given other rows (unpadded, padded otherwise, swizzled) still compute
 *    what the interpreter does, bit for bit on the simulator, at the
 *    written offset.
 * 3. Records that cannot serve are errors, not wrong code: a convert
 *    without a place, one past the kernel's shared memory, misaligned, a
 *    swizzle over padded rows, rows of another length, a wgmma buffer with
 *    a shape wgmma cannot read. */
#include "base/base.h"
#include "interp/interp.h"
#include "runtime/rt.h"
#include "sim/sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "differential.h"
#include "check.h"

typedef struct Kernel {
    const char *path, *kernel, *signature, *arch;
    int num_warps;
    const char *args, *grid;
} Kernel;

static const Kernel transpose = {"kernels/transpose.py", "transpose_kernel", "*fp32:16, *fp32:16, i32:16, i32:16, 32",
                                 "sm_80", 4, "x = rand((M, N), fp32); out = empty((N, M), fp32); M = 64; N = 96",
                                 "(cdiv(M, 32), cdiv(N, 32), 1)"};
static const Kernel matmul = {"kernels/pipeline_matmul.py", "matmul_kernel",
                              "*fp16:16, *fp16:16, *fp16:16, i32, i32:16, i32:16, i32:16, i32:16, i32:16, 64, 64, 32, 2, 0",
                              "sm_80", 4,
                              "a = rand((M, K), fp16); b = rand((K, N), fp16); c = empty((M, N), fp16); "
                              "M = 100; N = 80; K = 160; stride_am = K; stride_bk = N; stride_cm = N",
                              "(cdiv(M, 64) * cdiv(N, 64), 1, 1)"};

static bool compile(RtRequest *rq, const char *arch, int num_warps, RtResult *res) {
    rt_default_target(&rq->target);
    rt_parse_arch(arch, &rq->target);
    rq->target.num_warps = num_warps;
    rq->emit = RT_EMIT_PTX;
    return rt_compile(rq, res);
}

/* the PTX without its comments and debug lines (they name the source) */
static char *code_of(const char *ptx) {
    Buf b = {0};
    for (const char *p = ptx; *p;) {
        const char *eol = strchr(p, '\n');
        size_t n = eol ? (size_t)(eol - p) + 1 : strlen(p);
        const char *s = p;
        while (*s == '\t' || *s == ' ') s++;
        if (strncmp(s, "//", 2) && strncmp(s, ".loc", 4) && strncmp(s, ".file", 5)) buf_putn(&b, p, n);
        p += n;
    }
    return buf_take(&b);
}

/* the IR ptxgen received for k (heap), and its PTX in *ptx */
static char *final_ir(const Kernel *k, char **ptx) {
    RtRequest rq = {.path = k->path, .kernel = k->kernel, .signature = k->signature};
    RtResult res;
    char *ir = NULL;
    *ptx = NULL;
    if (compile(&rq, k->arch, k->num_warps, &res)) {
        ir = strdup(res.ir);
        *ptx = code_of(res.text);
    } else {
        printf("FAIL: %s does not compile:\n%s", k->path, res.diag);
        failures++;
    }
    rt_result_free(&res);
    return ir;
}

/* text with its one `old` replaced by `new` (heap), or NULL after a FAIL */
static char *replace(const char *text, const char *old, const char *new) {
    const char *at = strstr(text, old);
    CHECK_MSG(at && !strstr(at + 1, old), "'%s' is not in the IR once", old);
    if (!at || strstr(at + 1, old)) return NULL;
    Buf b = {0};
    buf_putn(&b, text, (size_t)(at - text));
    buf_puts(&b, new);
    buf_puts(&b, at + strlen(old));
    return buf_take(&b);
}

/* ---- 1. round trip ---- */

static void round_trip(const Kernel *k) {
    char *ptx, *ir = final_ir(k, &ptx);
    if (!ir) return;
    RtRequest rq = {.path = "final.tir", .source = ir, .is_ir = true};
    RtResult res;
    if (compile(&rq, k->arch, k->num_warps, &res)) {
        char *again = code_of(res.text);
        CHECK_MSG(!strcmp(again, ptx), "%s: the printed IR gives other PTX", k->path);
        free(again);
    } else {
        CHECK_MSG(false, "%s: the printed IR does not compile:\n%s", k->path, res.diag);
    }
    rt_result_free(&res);
    free(ir);
    free(ptx);
}

/* ---- 2. records written by hand ---- */

static void run_edited(const Kernel *k, const char *what, const char *ir, const char *want) {
    char where[160];
    snprintf(where, sizeof where, "%s: %s", k->path, what);
    RtRequest rq = {.path = "edited.tir", .source = ir, .is_ir = true};
    RtResult res;
    if (!compile(&rq, k->arch, k->num_warps, &res)) {
        CHECK_MSG(false, "%s: does not compile:\n%s", where, res.diag);
        rt_result_free(&res);
        return;
    }
    CHECK_MSG(strstr(res.text, want), "%s: no '%s' in the PTX", where, want);
    rt_result_free(&res);
    Diff d = {.where = where, .args = k->args, .grid = k->grid, .seed = 4242};
    char *diag = NULL;
    rq.emit = RT_EMIT_IR;
    bool ok = rt_each_stage(&rq, diff_on_stage, &d, &diag);
    CHECK_MSG(ok && d.stages > 0, "%s: %s", where, diag ? diag : "");
    CHECK_MSG(ok && !d.failed && diff_simulate(&d, &rq), "%s: the simulated PTX differs from the interpreter", where);
    diff_free(&d);
    free(diag);
}

static void edit_and_run(const Kernel *k, const char *ir, const char *what, const char *old_hdr, const char *new_hdr,
                         const char *old_rec, const char *new_rec, const char *want) {
    char *a = replace(ir, old_hdr, new_hdr), *b = a ? replace(a, old_rec, new_rec) : NULL;
    if (b) run_edited(k, what, b, want);
    free(a);
    free(b);
}

static void hand_written(void) {
    char *ptx, *ir = final_ir(&transpose, &ptx);
    if (ir) {
        /* the pass's choice first: rows padded by one word, at 0 */
        CHECK(strstr(ir, "shared 4224") && strstr(ir, "{smem = 0, row = 32, pad = 1}"));
        edit_and_run(&transpose, ir, "unpadded at 256", "shared 4224", "shared 8192", "{smem = 0, row = 32, pad = 1}",
                     "{smem = 256, row = 32}", "256;");
        edit_and_run(&transpose, ir, "pad 4 at 1024", "shared 4224", "shared 8192", "{smem = 0, row = 32, pad = 1}",
                     "{smem = 1024, row = 32, pad = 4}", "1024;");
        edit_and_run(&transpose, ir, "swizzled at 0", "shared 4224", "shared 4224", "{smem = 0, row = 32, pad = 1}",
                     "{smem = 0, row = 32, swizzle = [1, 4]}", "xor.b32");
    }
    free(ir);
    free(ptx);
    ir = final_ir(&matmul, &ptx);
    if (ir) {
        /* the buffers padded instead of swizzled, B after a gap; the
         * epilogue's convert swizzled instead of padded */
        const char *a0 = "{smem = 0, slot = 4096, row = 32, swizzle = [2, 4]}";
        const char *b0 = "{smem = 8192, slot = 4096, row = 64, swizzle = [1, 8]}";
        CHECK_MSG(strstr(ir, a0) && strstr(ir, b0) && strstr(ir, "shared 16384 {"), "the matmul's buffers moved:\n%s",
                  ir);
        char *e1 = replace(ir, a0, "{smem = 0, slot = 5120, row = 32, pad = 8}");
        char *e2 = e1 ? replace(e1, b0, "{smem = 12288, slot = 4608, row = 64, pad = 8}") : NULL;
        if (e2)
            edit_and_run(&matmul, e2, "padded buffers, swizzled epilogue", "shared 16384", "shared 32768",
                         "{smem = 0, row = 64, pad = 8}", "{smem = 21504, row = 64, swizzle = [1, 8]}", "21504;");
        free(e1);
        free(e2);
    }
    free(ir);
    free(ptx);
}

/* ---- 3. records that cannot serve ---- */

static void refused(const Kernel *k, const char *old_rec, const char *new_rec, const char *msg) {
    char *ptx, *ir = final_ir(k, &ptx);
    char *bad = ir ? replace(ir, old_rec, new_rec) : NULL;
    if (bad) {
        RtRequest rq = {.path = "bad.tir", .source = bad, .is_ir = true};
        RtResult res;
        bool ok = compile(&rq, k->arch, k->num_warps, &res);
        CHECK_MSG(!ok && res.diag && strstr(res.diag, msg), "%s -> %s: want '%s', got:\n%s", old_rec, new_rec, msg,
                  ok ? "(compiled)" : res.diag);
        rt_result_free(&res);
    }
    free(bad);
    free(ir);
    free(ptx);
}

static void refusals(void) {
    const char *rec = "{smem = 0, row = 32, pad = 1}";
    refused(&transpose, rec, "", "needs 4224 bytes of shared memory but has no place");
    refused(&transpose, rec, "{smem = 128, row = 32, pad = 1}", "its 4224 bytes of shared memory at 128 end past the kernel's 4224");
    refused(&transpose, rec, "{smem = 64, row = 32}", "its shared memory at 64 is not 128-aligned");
    refused(&transpose, rec, "{smem = 0, row = 32, pad = 1, swizzle = [1, 4]}",
            "a swizzle of 4 phases needs unpadded rows of at least 64 bytes (these: 128, pad 1)");
    refused(&transpose, rec, "{smem = 0, row = 16}", "its shared-memory rows have 16 elements, the tile's 32");
    refused(&transpose, rec, "{smem = 0, row = 32, pad = 1, sync}", "only a reduce or a scan waits first (sync)");
    refused(&transpose, "shared 4224 ", "", "has a shared-memory place but the function has no 'shared' size");
    Kernel wg = matmul;
    wg.arch = "sm_90a";
    refused(&wg, "{smem = 0, slot = 4096, row = 32, swizzle = [2, 4]}", "{smem = 0, slot = 4096, row = 32, pad = 8}",
            "wgmma and TMA read this buffer with its canonical shape only (pad = 0, swizzle = [2, 4])");
    refused(&matmul, "{smem = 0, slot = 4096, row = 32, swizzle = [2, 4]}", "{smem = 0, slot = 2048, row = 32, swizzle = [2, 4]}",
            "buffer slots of 2048 bytes at offset 0 (shared memory aligned to 16): they need 4096 bytes, 128-aligned");
}

int main(void) {
    round_trip(&transpose);
    round_trip(&matmul);
    Kernel m90 = matmul;
    m90.arch = "sm_90a";
    round_trip(&m90);
    hand_written();
    refusals();
    if (failures) printf("test_smem: %d failed\n", failures);
    return failures != 0;
}
