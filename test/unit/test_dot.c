/* dot through the layout pass and ptxgen, for the matmul kernels of
 * test/ir/dot_*.tir (a K loop carrying the accumulator; every type pair,
 * batched, small shapes, 64x64 to 128x256 accumulators): each compiled
 * with 4 and 8 warps for sm_80 and sm_90a (fp8: sm_89 and sm_90a) must
 * have no convert of the accumulator inside its loop (only a's and b's,
 * into their operand layouts), issue exactly the mma.sync the mma path
 * needs (a thread's accumulator fragments x k-steps, three each for
 * tf32x3; none on the FMA path), and be accepted by ptxas. On sm_90a a
 * dot whose operands the pipeline copies into slots becomes a wgmma: then
 * no mma.sync, and a wgmma.mma_async per k-step, 64-row repeat and
 * N-instruction of a warpgroup. */
#include "base/base.h"
#include "ir/ir.h"
#include "opt/opt.h"
#include "ptxgen/ptxgen.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ptxas.h"

static IrOp *find_op(IrBlock *b, Opcode opc) {
    for (IrOp *op = b->first; op; op = op->next) {
        if (op->opc == opc) return op;
        for (uint32_t r = 0; r < op->n_regions; r++) {
            IrOp *in = find_op(op->regions[r], opc);
            if (in) return in;
        }
    }
    return NULL;
}

static int count_str(const char *s, const char *what) {
    int n = 0;
    for (const char *p = strstr(s, what); p; p = strstr(p + 1, what)) n++;
    return n;
}

static void check_wgmma(IrFunc *fn, IrOp *wg, int sm, bool arch_a, const char *what) {
    CHECK_MSG(sm == 90 && arch_a, "%s: wgmma below sm_90a", what);
    IrType ct = ir_type(fn, wg->results[0]), bt = ir_type(fn, wg->operands[wg->n_operands == 5 ? 2 : 1]);
    int32_t warps[2];
    layout_wgmma_warps(ct.shape, fn->ctx->target.num_warps, warps);
    int32_t slice = ct.shape[1] / warps[1], in = slice < 256 ? slice : 256;
    int bits = elem_bits((ElemType)bt.elem);
    int expect = (bt.shape[1] / layout_mma_kstep(bits)) * (ct.shape[0] / (16 * warps[0])) * (slice / in);
    char *ptx = ptx_emit(fn);
    CHECK_MSG(count_str(ptx, "wgmma.mma_async") == expect && !strstr(ptx, "mma.sync"),
              "%s: %d wgmma.mma_async, expected %d (and no mma.sync)", what, count_str(ptx, "wgmma.mma_async"), expect);
    CHECK(ptxas_accepts(ptx, "sm_90a", what));
    free(ptx);
}

static void check_one(const char *path, const char *text, int sm, bool arch_a, int warps) {
    Target t = {.sm = sm, .arch_a = arch_a, .num_warps = warps, .num_stages = 3};
    Ctx *ctx = ctx_new(&t);
    jmp_buf bail;
    ctx->bail = &bail;
    ctx->verify_each = true;
    char what[256];
    snprintf(what, sizeof what, "%s sm_%d%s %d warps", path, sm, arch_a ? "a" : "", warps);
    if (setjmp(bail)) {
        CHECK_MSG(false, "%s: %s", what, ctx->diag.data);
        ctx_free(ctx);
        return;
    }
    IrFunc *fn = ir_parse(ctx, srcfile_from_string(ctx, path, text));
    opt_run_pipeline(fn);
    IrOp *dot = find_op(fn->body, OP_DOT), *wg = find_op(fn->body, OP_WGMMA);
    CHECK_MSG(dot || wg, "%s: no dot", what);
    if (wg) {
        check_wgmma(fn, wg, sm, arch_a, what);
        ctx_free(ctx);
        return;
    }
    if (!dot) {
        ctx_free(ctx);
        return;
    }
    /* in the loop: converts only for a and b */
    for (IrOp *op = dot->parent->first; op; op = op->next)
        CHECK_MSG(op->opc != OP_CONVERT_LAYOUT || op->results[0] == dot->operands[0] ||
                      op->results[0] == dot->operands[1],
                  "%s: a convert_layout in the loop other than the operands'", what);
    Layout la, lb;
    const Layout *acc = ir_layout(fn, dot->results[0]);
    bool mma = layout_dot_operands(fn, dot, acc, &la, &lb);
    IrType at = ir_type(fn, dot->operands[0]);
    int bits = elem_bits((ElemType)at.elem), expect = 0;
    if (mma) {
        int per = dot->attr.i == DOT_TF32X3 && at.elem == ET_F32 ? 3 : 1;
        expect = layout_n_regs(acc) / 4 * (at.shape[at.rank - 1] / layout_mma_kstep(bits)) * per;
    }
    char *ptx = ptx_emit(fn);
    CHECK_MSG(count_str(ptx, "mma.sync") == expect, "%s: %d mma.sync, expected %d", what, count_str(ptx, "mma.sync"),
              expect);
    char arch[16];
    snprintf(arch, sizeof arch, "sm_%d%s", sm, arch_a ? "a" : "");
    CHECK(ptxas_accepts(ptx, arch, what));
    free(ptx);
    ctx_free(ctx);
}

static char *read_all(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = 0;
    fclose(f);
    return s;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(void) {
    DIR *d = opendir("test/ir");
    CHECK_MSG(d != NULL, "run from the repository root");
    if (!d) return 1;
    char *names[64];
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) && n < 64;) {
        size_t len = strlen(e->d_name);
        if (!strncmp(e->d_name, "dot_", 4) && len > 4 && !strcmp(e->d_name + len - 4, ".tir"))
            names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], by_name);
    CHECK(n >= 10);
    for (int i = 0; i < n; i++) {
        char path[512];
        snprintf(path, sizeof path, "test/ir/%s", names[i]);
        char *text = read_all(path);
        bool fp8 = strstr(text, "f8e") != NULL;
        for (int w = 4; w <= 8; w *= 2) {
            check_one(path, text, fp8 ? 89 : 80, false, w);
            check_one(path, text, 90, true, w);
        }
        free(text);
        free(names[i]);
    }
    if (failures) {
        printf("test_dot: %d checks failed\n", failures);
        return 1;
    }
    return 0;
}
