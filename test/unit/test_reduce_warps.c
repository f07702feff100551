/* The cross-warp step of reduce (ptxgen/reduce.c).
 *
 * 1. Its PTX shape: the fused softmax with 16 warps per row takes the
 *    shuffle strategy (after the one barrier per reduction each lane loads
 *    one partial with one ld.shared.b32, then 4 butterflies; no vector
 *    loads of all 16 partials, and the write slot is %warp itself, no bfe
 *    chain); with 4 warps it keeps the tree (one ld.shared.v4.b32).
 * 2. Layouts written by hand whose axis bits are out of order and whose
 *    warp bits along the axis are not consecutive (the general write slot,
 *    bit by bit), reduced with a combine that is neither commutative nor
 *    associative (3 * (a ^ K) + b on i32), so the result depends on the
 *    exact tree: the simulated PTX must equal the interpreter bit for bit,
 *    for sm_80 and sm_90a. Cases: the shuffle strategy (W = 8 of 16 warps),
 *    the tree (W = 4), and W = 8 whose results depend on the lane (so the
 *    tree, with the slot = %warp). */
#include "base/base.h"
#include "interp/interp.h"
#include "runtime/rt.h"
#include "sim/sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "differential.h"
#include "check.h"

static int count(const char *text, const char *s) {
    int n = 0;
    for (const char *p = text; (p = strstr(p, s)); p += strlen(s)) n++;
    return n;
}

/* rq's PTX for arch with num_warps warps (heap), or NULL after a FAIL line */
static char *compile_ptx(RtRequest *rq, const char *arch, int num_warps) {
    rt_default_target(&rq->target);
    rt_parse_arch(arch, &rq->target);
    rq->target.num_warps = num_warps;
    rq->emit = RT_EMIT_PTX;
    RtResult res;
    char *ptx = NULL;
    if (rt_compile(rq, &res)) ptx = strdup(res.text);
    else printf("FAIL: %s does not compile:\n%s", rq->path, res.diag);
    rt_result_free(&res);
    if (!ptx) failures++;
    return ptx;
}

/* In the lines after each barrier, up to the next barrier or the first
 * line starting with one of stop[] (NULL-terminated): how many contain
 * `what` (summed over the barriers). */
static int after_barriers(const char *ptx, const char *what, const char *const *stop) {
    int n = 0;
    for (const char *p = ptx; (p = strstr(p, "bar.sync 0;")); p++) {
        for (const char *line = strchr(p, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
            const char *s = line + 1, *eol = strchr(s, '\n'), *hit;
            while (*s == '\t' || *s == ' ') s++;
            bool end = !strncmp(s, "bar.sync", 8);
            for (int i = 0; stop[i]; i++) end = end || !strncmp(s, stop[i], strlen(stop[i]));
            if (end) break;
            hit = strstr(s, what);
            n += hit && (!eol || hit < eol);
        }
    }
    return n;
}

/* ---- 1. the softmax's PTX ---- */

static void softmax_shape(void) {
    RtRequest rq = {.path = "kernels/softmax.py", .kernel = "softmax_kernel",
                    .signature = "*fp32:16, *fp32:16, i32:16, i32:16, i32, i32:16, 16384"};
    char *ptx = compile_ptx(&rq, "sm_90a", 16);
    if (!ptx) return;
    /* max, then sum: one barrier each, no other */
    CHECK_MSG(count(ptx, "bar.sync") == 2, "%d barriers", count(ptx, "bar.sync"));
    CHECK_MSG(count(ptx, "ld.shared") == 2, "%d shared loads", count(ptx, "ld.shared"));
    CHECK(count(ptx, "ld.shared.b32") == 2);
    CHECK(!strstr(ptx, "ld.shared.v"));
    CHECK_MSG(!strstr(ptx, "bfe.u32"), "the write slot is gathered bit by bit");
    /* each reduction: 5 in-warp butterflies, then 4 over the 16 partials */
    CHECK_MSG(count(ptx, "shfl.sync.bfly") == 2 * (5 + 4), "%d shuffles", count(ptx, "shfl.sync.bfly"));
    /* from each barrier to the reduction's use (x - max, x / sum): one
     * scalar load and 4 butterflies */
    static const char *const use[] = {"sub.f32", "div.", NULL};
    CHECK(after_barriers(ptx, "ld.shared.b32", use) == 2);
    int n = after_barriers(ptx, "shfl.sync.bfly", use);
    CHECK_MSG(n == 2 * 4, "%d shuffles between the barriers and the results' uses", n);
    free(ptx);

    /* 4 warps per row: 4 partials, the tree (one vector load each) */
    rq.signature = "*fp32:16, *fp32:16, i32:16, i32:16, i32, i32:16, 1024";
    ptx = compile_ptx(&rq, "sm_90a", 4);
    if (!ptx) return;
    CHECK(count(ptx, "ld.shared.v4.b32") == 2);
    CHECK(count(ptx, "shfl.sync.bfly") == 2 * 5);
    CHECK(!strstr(ptx, "bfe.u32"));
    free(ptx);
}

/* ---- 2. hand-written layouts, a combine whose order shows ---- */

typedef struct Case {
    const char *name;
    int rows, num_warps;
    const char *layouts;    /* #L0..#L7: #L6 the reduced operand's, #L7 the result's */
    int bfe;                /* bfe.u32 in the PTX: the slot's bits */
    int shfl;               /* shfl.sync.bfly: lane levels (+ log2 W with shuffles) x registers */
} Case;

static const Case cases[] = {
    /* axis levels 8; 2, 4; 32, 1, 16 (warp bits 0, 2, 3): W = 8, shuffles */
    {"w8-shuffle", 2, 16,
     "#L0 = linear<[2,64] reg=[] lane=[[0,1],[0,2],[0,4],[0,8],[0,16]] warp=[[0,32],[1,0],[0,0],[0,0]]>\n"
     "#L1 = linear<[2] reg=[] lane=[[1],[0],[0],[0],[0]] warp=[[0],[0],[0],[0]]>\n"
     "#L2 = linear<[1,64] reg=[] lane=[[0,1],[0,2],[0,4],[0,8],[0,16]] warp=[[0,32],[0,0],[0,0],[0,0]]>\n"
     "#L3 = linear<[64] reg=[] lane=[[1],[2],[4],[8],[16]] warp=[[32],[0],[0],[0]]>\n"
     "#L4 = linear<[2,1] reg=[] lane=[[0,0],[0,0],[0,0],[0,0],[0,0]] warp=[[0,0],[1,0],[0,0],[0,0]]>\n"
     "#L5 = linear<[2] reg=[] lane=[[0],[0],[0],[0],[0]] warp=[[0],[1],[0],[0]]>\n"
     "#L6 = linear<[2,64] reg=[[0,8]] lane=[[0,2],[0,4],[0,0],[0,0],[0,0]] warp=[[0,32],[1,0],[0,1],[0,16]]>\n"
     "#L7 = linear<[2] reg=[] lane=[[0],[0],[0],[0],[0]] warp=[[0],[1],[0],[0]]>\n",
     3, 2 + 3},
    /* axis levels 16; 32, 4, 8; 1, 2 (warp bits 0, 2), results per lane: W = 4, the tree */
    {"w4-tree", 8, 8,
     "#L0 = linear<[8,64] reg=[[0,1]] lane=[[0,2],[0,4],[0,8],[0,16],[0,32]] warp=[[1,0],[2,0],[4,0]]>\n"
     "#L1 = linear<[8] reg=[] lane=[[1],[2],[4],[0],[0]] warp=[[0],[0],[0]]>\n"
     "#L2 = linear<[1,64] reg=[[0,1]] lane=[[0,2],[0,4],[0,8],[0,16],[0,32]] warp=[[0,0],[0,0],[0,0]]>\n"
     "#L3 = linear<[64] reg=[[1]] lane=[[2],[4],[8],[16],[32]] warp=[[0],[0],[0]]>\n"
     "#L4 = linear<[8,1] reg=[] lane=[[0,0],[0,0],[0,0],[0,0],[0,0]] warp=[[1,0],[2,0],[4,0]]>\n"
     "#L5 = linear<[8] reg=[] lane=[[0],[0],[0],[0],[0]] warp=[[1],[2],[4]]>\n"
     "#L6 = linear<[8,64] reg=[[0,16],[2,0]] lane=[[0,32],[0,4],[0,8],[4,0],[0,0]] warp=[[0,1],[1,0],[0,2]]>\n"
     "#L7 = linear<[8] reg=[[2]] lane=[[0],[0],[0],[4],[0]] warp=[[0],[1],[0]]>\n",
     2, 3 * 2},
    /* axis levels 8, 2, 32; 16, 1, 4 (every warp bit): W = 8 but results per lane, the tree */
    {"w8-lanes-tree", 8, 8,
     "#L0 = linear<[8,64] reg=[[0,1]] lane=[[0,2],[0,4],[0,8],[0,16],[0,32]] warp=[[1,0],[2,0],[4,0]]>\n"
     "#L1 = linear<[8] reg=[] lane=[[1],[2],[4],[0],[0]] warp=[[0],[0],[0]]>\n"
     "#L2 = linear<[1,64] reg=[[0,1]] lane=[[0,2],[0,4],[0,8],[0,16],[0,32]] warp=[[0,0],[0,0],[0,0]]>\n"
     "#L3 = linear<[64] reg=[[1]] lane=[[2],[4],[8],[16],[32]] warp=[[0],[0],[0]]>\n"
     "#L4 = linear<[8,1] reg=[] lane=[[0,0],[0,0],[0,0],[0,0],[0,0]] warp=[[1,0],[2,0],[4,0]]>\n"
     "#L5 = linear<[8] reg=[] lane=[[0],[0],[0],[0],[0]] warp=[[1],[2],[4]]>\n"
     "#L6 = linear<[8,64] reg=[[4,0]] lane=[[0,8],[0,2],[0,32],[1,0],[2,0]] warp=[[0,16],[0,1],[0,4]]>\n"
     "#L7 = linear<[8] reg=[[4]] lane=[[0],[0],[0],[1],[2]] warp=[[0],[0],[0]]>\n",
     0, 3 * 2},
};

/* out[r] = the row's 64 elements reduced with 3 * (a ^ K) + b: the layout
 * pass's layouts for the pointers, the operand converted to #L6 */
static char *case_ir(const Case *c) {
    Buf b = {0};
    int R = c->rows;
    buf_puts(&b, c->layouts);
    buf_printf(&b,
               "func @k(%%x: ptr<i32> {div = 16}, %%out: ptr<i32> {div = 16}) {\n"
               "  %%0 = arange 0, %d : tile<%dxi32, #L1>\n"
               "  %%1 = arange 0, 64 : tile<64xi32, #L3>\n"
               "  %%2 = arange 0, %d : tile<%dxi32, #L5>\n"
               "  %%3 = expand_dims %%2 {axis = 1} : tile<%dx1xi32, #L4>\n"
               "  %%4 = const 64 : tile<%dx1xi32, #L4>\n"
               "  %%5 = mul %%3, %%4 : tile<%dx1xi32, #L4>\n"
               "  %%6 = broadcast %%5 : tile<%dx64xi32, #L0>\n"
               "  %%7 = expand_dims %%1 {axis = 0} : tile<1x64xi32, #L2>\n"
               "  %%8 = broadcast %%7 : tile<%dx64xi32, #L0>\n"
               "  %%9 = add %%6, %%8 : tile<%dx64xi32, #L0>\n"
               "  %%10 = splat %%x : tile<%dx64xptr<i32>, #L0>\n"
               "  %%11 = addptr %%10, %%9 : tile<%dx64xptr<i32>, #L0>\n"
               "  %%12 = load %%11 : tile<%dx64xi32, #L0>\n"
               "  %%13 = convert_layout %%12 : tile<%dx64xi32, #L6>\n"
               "  %%14 = reduce %%13 {axis = 1} -> (tile<%dxi32, #L7>) combine(%%a: i32, %%b: i32) {\n"
               "    %%k = const 1540483477 : i32\n"
               "    %%t = const 3 : i32\n"
               "    %%u = xor %%a, %%k : i32\n"
               "    %%v = mul %%u, %%t : i32\n"
               "    %%w = add %%v, %%b : i32\n"
               "    yield %%w\n"
               "  }\n"
               "  %%15 = splat %%out : tile<%dxptr<i32>, #L1>\n"
               "  %%16 = addptr %%15, %%0 : tile<%dxptr<i32>, #L1>\n"
               "  %%17 = convert_layout %%14 : tile<%dxi32, #L1>\n"
               "  store %%16, %%17\n"
               "  ret\n"
               "}\n",
               R, R, R, R, R, R, R, R, R, R, R, R, R, R, R, R, R, R);
    char *s = strdup(b.data);
    buf_free(&b);
    return s;
}

static void run_case(const Case *c, const char *arch) {
    char *ir = case_ir(c), where[128], args[160];
    snprintf(where, sizeof where, "%s [%s]", c->name, arch);
    snprintf(args, sizeof args, "x = randint(-1000, 1000, (%d, 64), i32); out = empty(%d, i32)", c->rows, c->rows);
    RtRequest rq = {.path = "reduce_warps.tir", .source = ir, .is_ir = true};
    char *ptx = compile_ptx(&rq, arch, c->num_warps);
    if (ptx) {
        CHECK_MSG(count(ptx, "bfe.u32") == c->bfe, "%s: %d bfe.u32, want %d", where, count(ptx, "bfe.u32"), c->bfe);
        int n = count(ptx, "shfl.sync.bfly");
        CHECK_MSG(n == c->shfl, "%s: %d butterflies, want %d", where, n, c->shfl);
    }
    free(ptx);
    rq.emit = RT_EMIT_IR;
    Diff d = {.where = where, .args = args, .grid = "1", .seed = 777};
    char *diag = NULL;
    bool ok = rt_each_stage(&rq, diff_on_stage, &d, &diag);
    CHECK_MSG(ok, "%s: %s", where, diag ? diag : "");
    CHECK_MSG(!d.unsupported && d.stages > 0, "%s: nothing was run", where);
    CHECK_MSG(ok && !d.failed && diff_simulate(&d, &rq), "%s: the simulated PTX differs from the interpreter", where);
    diff_free(&d);
    free(diag);
    free(ir);
}

int main(void) {
    softmax_shape();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run_case(&cases[i], "sm_80");
        run_case(&cases[i], "sm_90a");
    }
    if (failures) printf("test_reduce_warps: %d failed\n", failures);
    return failures != 0;
}
