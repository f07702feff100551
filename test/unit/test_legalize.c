/* Pass legalize: where Triton converts in steps on an older target, the IR
 * spells the steps out, and every stage after it computes one rounding per
 * cast on every target.
 *
 * 1. An integer to bf16 where the two roundings through f32 differ from
 *    one (16842753 = 2^24 + 2^16 + 1: bf16 of it is 2^24 + 2^17, through f32
 *    it is 2^24): sm_80 gives Triton's 2^24, sm_90a 2^24 + 2^17, computed
 *    in the kernel and folded from constants alike; the interpreter at
 *    every stage and the simulated PTX agree on each target. Before the pass
 *    the interpreter knew the target and constant folding did not (it
 *    folded one rounding on sm_80, where ptxgen rounded twice).
 * 2. IR written by hand keeps its meaning: `cast i64 -> bf16` and
 *    `cast i32 -> bf16` on sm_80, where PTX has no such instruction, round
 *    once (ptxgen goes through f64, rounding to odd); simulated against the
 *    interpreter over values near bf16's ties.
 * 3. The rewrite itself is golden-tested (test/ir/legalize_sm80.tir,
 *    legalize_sm90.tir). */
#include "base/base.h"
#include "interp/interp.h"
#include "runtime/rt.h"
#include "sim/sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "differential.h"
#include "check.h"

static const char *const kernel_py =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "@triton.jit\n"
    "def k(x_ptr, out_ptr, c_ptr, BIG: tl.constexpr):\n"
    "    i = tl.arange(0, 16)\n"
    "    x = tl.load(x_ptr + i)\n"
    "    tl.store(out_ptr + i, (x + BIG).to(tl.bfloat16))\n"
    "    tl.store(c_ptr + i, tl.full([16], BIG, tl.int32).to(tl.bfloat16))\n";

static void set_target(RtRequest *rq, const char *arch) {
    rt_default_target(&rq->target);
    rt_parse_arch(arch, &rq->target);
    rq->target.num_warps = 1;
}

/* every stage on the interpreter, then the PTX on the simulator: d.prev
 * holds the outputs; false after a FAIL line */
static bool run(RtRequest *rq, Diff *d) {
    char *diag = NULL;
    rq->emit = RT_EMIT_IR;
    bool ok = rt_each_stage(rq, diff_on_stage, d, &diag);
    CHECK_MSG(ok && d->stages > 0, "%s: %s", d->where, diag ? diag : "");
    free(diag);
    if (!ok || d->failed) return false;
    bool sim = diff_simulate(d, rq);
    CHECK_MSG(sim, "%s: the simulated PTX differs from the interpreter", d->where);
    return sim;
}

static uint16_t bits_at(const Diff *d, const char *name, int i) {
    for (uint32_t b = 0; b < d->prev.n; b++)
        if (!strcmp(d->prev.names[b], name)) return ((const uint16_t *)d->prev.bufs[b].base)[i];
    CHECK_MSG(false, "%s: no buffer %s", d->where, name);
    return 0;
}

static void two_roundings(const char *arch, uint16_t want) {
    char where[64];
    snprintf(where, sizeof where, "int -> bf16 [%s]", arch);
    RtRequest rq = {.path = "legalize.py", .source = kernel_py, .kernel = "k", .signature = "*i32, *bf16, *bf16, 16842753"};
    set_target(&rq, arch);
    Diff d = {.where = where, .args = "x = zeros(16, i32); out = empty(16, bf16); c = empty(16, bf16)", .grid = "1", .seed = 5};
    if (run(&rq, &d)) {
        uint16_t got = bits_at(&d, "out", 0), folded = bits_at(&d, "c", 0);
        CHECK_MSG(got == want, "%s: computed bf16 bits %#x, want %#x", where, got, want);
        CHECK_MSG(folded == want, "%s: folded bf16 bits %#x, want %#x", where, folded, want);
    }
    diff_free(&d);
}

/* out[i] = bf16(base + x[i]) for a hand-written cast from `ity` */
static void hand_written(const char *ity, const char *base) {
    char ir[1200], where[96];
    snprintf(ir, sizeof ir,
             "#L0 = linear<[64] reg=[[1]] lane=[[2],[4],[8],[16],[32]] warp=[]>\n"
             "func @k(%%x: ptr<%s> {div = 16}, %%out: ptr<bf16> {div = 16}) {\n"
             "  %%0 = arange 0, 64 : tile<64xi32, #L0>\n"
             "  %%1 = splat %%x : tile<64xptr<%s>, #L0>\n"
             "  %%2 = addptr %%1, %%0 : tile<64xptr<%s>, #L0>\n"
             "  %%3 = load %%2 : tile<64x%s, #L0>\n"
             "  %%b = const %s : tile<64x%s, #L0>\n"
             "  %%v = add %%3, %%b : tile<64x%s, #L0>\n"
             "  %%4 = cast %%v : tile<64xbf16, #L0>\n"
             "  %%5 = splat %%out : tile<64xptr<bf16>, #L0>\n"
             "  %%6 = addptr %%5, %%0 : tile<64xptr<bf16>, #L0>\n"
             "  store %%6, %%4\n"
             "  ret\n"
             "}\n",
             ity, ity, ity, ity, base, ity, ity);
    char args[96];
    snprintf(args, sizeof args, "x = randint(-24, 24, 64, %s); out = empty(64, bf16)", ity);
    snprintf(where, sizeof where, "hand-written cast %s -> bf16 near %s [sm_80]", ity, base);
    RtRequest rq = {.path = "cast.tir", .source = ir, .is_ir = true};
    set_target(&rq, "sm_80");
    Diff d = {.where = where, .args = args, .grid = "1", .seed = 9};
    run(&rq, &d);
    diff_free(&d);
}

int main(void) {
    two_roundings("sm_80", 0x4B80);    /* 2^24: through f32 */
    two_roundings("sm_90a", 0x4B81);   /* 2^24 + 2^17: one rounding */
    /* bf16's tie at 2^24 + 2^16 (i32: exact in f64) and at 2^60 + 2^52,
     * where f64's rounding would make the next integers ties too: both
     * signs, a few integers either side */
    hand_written("i32", "16842752");
    hand_written("i32", "-16842752");
    hand_written("i64", "1157425104234217472");
    hand_written("i64", "-1157425104234217472");
    if (failures) printf("test_legalize: %d failed\n", failures);
    return failures != 0;
}
