/* A Target filled by rt_parse_arch alone (sm and arch_a; num_warps and
 * num_stages left 0) must be rejected by the pipeline with a message, not
 * reach the layout pass and trip an assertion there; every entry point
 * (rt_compile, rt_each_stage, rt_interpret) checks it. A complete Target
 * still compiles. */
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "runtime/rt.h"

#include "check.h"

static const char src[] =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "@triton.jit\n"
    "def k(x_ptr, BLOCK: tl.constexpr):\n"
    "    offs = tl.arange(0, BLOCK)\n"
    "    tl.store(x_ptr + offs, tl.load(x_ptr + offs) + 1.0)\n";

static RtRequest request(const Target *t) {
    RtRequest rq = {.path = "k.py", .source = src, .kernel = "k", .signature = "*fp32, 128", .emit = RT_EMIT_PTX};
    rq.target = *t;
    return rq;
}

static void each_noop(IrFunc *fn, const char *stage, int index, void *ud) {
    (void)fn, (void)stage, (void)index;
    (*(int *)ud)++;
}

static void expect_rejected(const Target *t, const char *want) {
    RtRequest rq = request(t);
    RtResult res;
    bool ok = rt_compile(&rq, &res);
    CHECK_MSG(!ok && res.diag && strstr(res.diag, want), "rt_compile: want an error with '%s', got %s", want,
              ok ? "success" : res.diag);
    rt_result_free(&res);
    int stages = 0;
    char *diag = NULL;
    ok = rt_each_stage(&rq, each_noop, &stages, &diag);
    CHECK_MSG(!ok && stages == 0 && diag && strstr(diag, want), "rt_each_stage: want '%s', got %s", want,
              ok ? "success" : diag);
    free(diag);
    RtInterpRequest irq = {.grid = "1", .args = "x = zeros(128, fp32)"};
    ok = rt_interpret(&rq, &irq, &res);
    CHECK_MSG(!ok && res.diag && strstr(res.diag, want), "rt_interpret: want '%s', got %s", want,
              ok ? "success" : res.diag);
    rt_result_free(&res);
}

int main(void) {
    Target t = {0};
    CHECK(rt_parse_arch("sm_90a", &t));
    CHECK(t.sm == 90 && t.arch_a && t.num_warps == 0);   /* only the arch */
    expect_rejected(&t, "invalid target: num_warps is 0");
    t.num_warps = 6;
    expect_rejected(&t, "invalid target: num_warps is 6");
    t.num_warps = 4;
    expect_rejected(&t, "invalid target: num_stages is 0");
    Target bad = {.sm = 75, .num_warps = 4, .num_stages = 3};
    expect_rejected(&bad, "invalid target: sm_75");

    Target good;
    rt_default_target(&good);
    CHECK(rt_parse_arch("sm_90a", &good));
    RtRequest rq = request(&good);
    RtResult res;
    CHECK_MSG(rt_compile(&rq, &res), "a complete Target compiles: %s", res.diag ? res.diag : "");
    rt_result_free(&res);
    return failures != 0;
}
