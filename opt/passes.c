/* The pass table and the pass manager.
 *
 * Every pass is a row {name, function, requires}: `requires` names a pass
 * that must have run earlier in a pipeline. The standard pipeline is a list
 * of names, checked against the table before anything runs, so a wrong
 * order is caught as a bug in tric, not as odd IR. After each pass the
 * manager verifies (ctx->verify_each) and dumps (ctx->dump_after). */
#include "opt.h"

#include <string.h>

const PassInfo opt_passes[] = {
    {"legalize", pass_legalize, NULL},
    {"fold", pass_fold, NULL},
    {"cse", pass_cse, NULL},
    {"dce", pass_dce, NULL},
    {"contract", pass_contract, NULL},
    {"flatten", pass_flatten, NULL},
    {"ptrcarry", pass_ptrcarry, NULL},
    {"layout", pass_layout, NULL},
    {"pipeline", pass_pipeline, "layout"},
    {"wgmma", pass_wgmma, "layout"},
    {"regs", pass_regs, NULL},
    {"smem", pass_smem, "layout"},
};
const int opt_n_passes = (int)ARRAY_LEN(opt_passes);

/* fold first so cse sees canonical operands; flatten before ptrcarry and
 * layout, which then see the flat loop; ptrcarry before dce, which
 * drops the carried pointer tiles it leaves unused; dce removes what they left;
 * after layout assignment, cse and dce again: convert insertion and
 * rematerialization can leave duplicates and dead ops behind, and so can
 * pipelining (it clones address computations and orphans the originals)
 * and wgmma (the slots' local_loads it reads around); regs over the IR
 * ptxgen will see; smem last, placing what is left. */
const char *const opt_standard_pipeline[] = {"fold",   "cse",      "flatten", "ptrcarry", "dce", "contract",
                                              "layout", "pipeline", "wgmma",   "cse",      "dce", "regs",
                                              "smem"};
const int opt_n_standard_pipeline = (int)ARRAY_LEN(opt_standard_pipeline);

const PassInfo *opt_find_pass(const char *name) {
    for (int i = 0; i < opt_n_passes; i++)
        if (strcmp(opt_passes[i].name, name) == 0) return &opt_passes[i];
    return NULL;
}

/* Every name is a pass and every pass's requirement ran before it. */
static void check_pipeline(const char *const *names, int n) {
    for (int i = 0; i < n; i++) {
        const PassInfo *p = opt_find_pass(names[i]);
        TRIC_ASSERT(p != NULL);
        if (!p->requires) continue;
        bool seen = false;
        for (int j = 0; j < i && !seen; j++) seen = strcmp(names[j], p->requires) == 0;
        TRIC_ASSERT(seen && "a pass runs before the pass it requires");
    }
}

static bool dump_wanted(Ctx *c, const char *name) {
    return c->dump_after && c->dump_out && (strcmp(c->dump_after, "all") == 0 || strcmp(c->dump_after, name) == 0);
}

/* Verification failing after a pass is a bug in that pass; it unwinds like
 * a user error so the caller can still print the IR. */
static void verify_after(IrFunc *fn, const char *name) {
    ir_verify_or_fail(fn, arena_printf(fn->ctx->arena, "internal error: IR verification failed after pass %s", name));
}

static void run(IrFunc *fn, const PassInfo *p) {
    Ctx *c = fn->ctx;
    p->fn(fn);
    if (c->verify_each) verify_after(fn, p->name);
    if (dump_wanted(c, p->name)) {
        buf_printf(c->dump_out, "// -----// IR after %s //----- //\n", p->name);
        ir_print(c->dump_out, fn);
    }
}

void opt_run_pipeline(IrFunc *fn) {
    check_pipeline(opt_standard_pipeline, opt_n_standard_pipeline);
    for (int i = 0; i < opt_n_standard_pipeline; i++) run(fn, opt_find_pass(opt_standard_pipeline[i]));
}

bool opt_run_pass(IrFunc *fn, const char *name) {
    const PassInfo *p = opt_find_pass(name);
    if (!p) return false;
    run(fn, p);
    return true;
}
