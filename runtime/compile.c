/* The compile pipeline behind tric_compile_* and the CLI: one entry point
 * that owns the Ctx, catches every user error at its setjmp, and hands back
 * heap strings only, so the caller never sees the arena and nothing leaks.
 *
 *   Python: srcfile_read -> (lex_file) -> parse_module -> sig_parse ->
 *           lower_kernel -> opt_run_pipeline -> ptx_emit
 *   IR:     srcfile_read -> ir_parse -> the requested passes -> ptx_emit
 */
#include "rt.h"

#include <stdlib.h>
#include <string.h>

#include "../frontend/frontend.h"
#include "../interp/interp.h"
#include "../opt/opt.h"
#include "../ptxgen/ptxgen.h"
#include "../sim/sim.h"

static char *rt_strdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (!d) tric_internal_error(__FILE__, __LINE__, "out of memory");
    return memcpy(d, s, n);
}

void rt_default_target(Target *t) {
    t->sm = 80;
    t->arch_a = false;
    t->num_warps = 4;
    t->num_stages = 3;
}

bool rt_parse_arch(const char *s, Target *t) {
    const TargetInfo *ti = target_find(s);
    if (!ti) return false;
    t->sm = ti->sm;
    t->arch_a = ti->arch_a;
    return true;
}

/* A Target the pipeline can compile for, or an error that says what is
 * wrong: a Target filled by hand (or by rt_parse_arch alone, which sets
 * only sm and arch_a) would otherwise reach the layout pass with 0 warps. */
static void check_target(Ctx *c, const Target *t) {
    if (!target_info(t)->name) {
        Buf names = {.arena = c->arena};
        target_names(&names, ", ");
        diag_fatal(c, NULL, "invalid target: sm_%d%s (supported: %s)", t->sm, t->arch_a ? "a" : "", names.data);
    }
    int w = t->num_warps;
    if (w < 1 || w > 32 || (w & (w - 1)))
        diag_fatal(c, NULL, "invalid target: num_warps is %d (a power of two from 1 to 32; rt_default_target "
                   "sets 4)", w);
    if (t->num_stages < 1) diag_fatal(c, NULL, "invalid target: num_stages is %d (at least 1)", t->num_stages);
}

static const SrcFile *load_source(Ctx *c, const RtRequest *rq) {
    if (rq->source) return srcfile_from_string(c, rq->path, rq->source);
    return srcfile_read(c, rq->path);
}

/* The test build verifies after every stage whatever the user asked for. */
static bool want_verify(const RtRequest *rq) {
#ifdef TRIC_TEST
    (void)rq;
    return true;
#else
    return rq->verify_each;
#endif
}

/* A verifier failure after a stage of tric itself is a bug in that stage,
 * but it is reported as an error (not an abort) so the IR can be inspected. */
static void verify_after(Ctx *c, IrFunc *fn, const char *stage) {
    ir_verify_or_fail(fn, arena_printf(c->arena, "IR verification failed after %s", stage));
}

static char *print_ir(IrFunc *fn) {
    Buf b = {0};
    ir_print(&b, fn);
    return buf_take(&b);
}

/* The @jit function `name`, or an error that lists the ones there are. */
static AstFunc *find_kernel(Ctx *c, AstModule *m, const char *name) {
    AstFunc *f = module_find_func(m, name);
    if (f && f->parsed) return f;
    const char *path = m->file->path;
    if (f) diag_fatal(c, path, "'%s' is not a @jit function (decorate it with @triton.jit)", name);
    const char *list = NULL;
    for (int i = 0; i < m->n_funcs; i++) {
        if (!m->funcs[i].parsed) continue;
        const char *fname = m->funcs[i].node->str;
        list = list ? arena_printf(c->arena, "%s, %s", list, fname) : fname;
    }
    if (!list) diag_fatal(c, path, "no @jit function named '%s' (the file defines none)", name);
    diag_fatal(c, path, "no @jit function named '%s' (@jit functions here: %s)", name, list);
}

static void collect_params(IrFunc *fn, RtResult *out) {
    out->n_params = (int)fn->n_params;
    out->params = calloc(fn->n_params ? fn->n_params : 1, sizeof *out->params);
    if (!out->params) tric_internal_error(__FILE__, __LINE__, "out of memory");
    for (uint32_t i = 0; i < fn->n_params; i++) {
        RtParam *p = &out->params[i];
        IrType t = ir_type(fn, fn->params[i].val);
        const IrParam *ip = &fn->params[i];
        if (ip->scratch_bytes) out->scratch_bytes = ip->scratch_bytes;
        p->name = rt_strdup(ip->arg ? ip->arg : ip->name ? ip->name : "");
        p->part = ip->part, p->part_index = ip->part_index;
        p->divisibility = ip->divisibility;
        if (ip->tensormap) {   /* by value; its type says how the runtime encodes it */
            p->type = rt_strdup(ip->desc_sig ? ip->desc_sig : "tensordesc");
            p->kind = RT_PARAM_TENSORMAP;
            p->bytes = TMAP_BYTES;
        } else if (t.elem == ET_PTR) {
            Buf b = {0};
            buf_printf(&b, "*%s", elem_triton_name((ElemType)t.pointee));
            p->type = buf_take(&b);
            p->kind = RT_PARAM_POINTER;
            p->bytes = 8;
        } else {
            p->type = rt_strdup(elem_triton_name((ElemType)t.elem));
            p->kind = elem_is_float((ElemType)t.elem) ? RT_PARAM_FLOAT : RT_PARAM_INT;
            p->bytes = elem_bytes((ElemType)t.elem);
        }
    }
    out->n_baked = (int)fn->n_baked;
    out->baked = calloc(fn->n_baked ? fn->n_baked : 1, sizeof *out->baked);
    if (!out->baked) tric_internal_error(__FILE__, __LINE__, "out of memory");
    for (uint32_t i = 0; i < fn->n_baked; i++) {
        out->baked[i].name = rt_strdup(fn->baked[i].name);
        out->baked[i].text = rt_strdup(fn->baked[i].text);
        out->baked[i].is_constexpr = fn->baked[i].is_constexpr;
        out->baked[i].is_int = fn->baked[i].is_int;
        out->baked[i].int_value = fn->baked[i].int_value;
    }
}

/* ptx_emit needs a layout on every tile value; say so instead of letting
 * ptxgen trip an assertion on hand-written IR run without the layout pass. */
static void check_laid_out_op(IrFunc *fn, IrOp *op, void *ud) {
    bool *missing = ud;
    for (uint32_t i = 0; i < op->n_results; i++) {
        IrValue *v = ir_val(fn, op->results[i]);
        if (v->type.rank > 0 && v->layout < 0 && op->opc != OP_LOCAL_ALLOC && op->opc != OP_MBAR_ALLOC)
            *missing = true;   /* buffers have none */
    }
}

/* pass_regs's estimate and where its peak is, for --stats and the API. */
static void collect_estimate(IrFunc *fn, RtResult *out) {
    out->est_regs = fn->est_regs;
    out->est_preds = fn->est_preds;
    IrOp *op = fn->est_regs_op;
    if (!fn->est_regs || !op) return;
    Buf b = {0};
    if (op->loc.file) buf_printf(&b, "%s:%d ", op->loc.file->path, (int)op->loc.line);
    buf_printf(&b, "%s", ir_info(op->opc)->name);
    out->est_peak = buf_take(&b);
}

static void emit_ptx(Ctx *c, IrFunc *fn, RtResult *out) {
    bool missing = false;
    ir_walk(fn, fn->body, check_laid_out_op, &missing);
    if (missing)
        diag_fatal(c, NULL, "cannot emit PTX: some tiles have no layout (run the layout pass, or --passes all)");
    if (!fn->smem_planned) opt_run_pass(fn, "smem");   /* IR text after some passes: place what it uses */
    out->text = ptx_emit(fn);
    out->kernel_name = rt_strdup(fn->name);
    out->shared_bytes = fn->shared_bytes;
    collect_estimate(fn, out);
    Buf loads = {0};
    ir_load_report(fn, &loads, "  ");
    if (loads.len) out->loads = buf_take(&loads);
    collect_params(fn, out);
}

bool rt_is_pass(const char *name) { return opt_find_pass(name) != NULL; }

void rt_pass_names(Buf *out) {
    for (int i = 0; i < opt_n_passes; i++) buf_printf(out, "%s%s", i ? ", " : "", opt_passes[i].name);
}

/* One named pass with tric's own dump and verification, so the result is
 * the same whether or not opt_run_pass dumps by itself. */
static void run_one_pass(Ctx *c, IrFunc *fn, const char *name) {
    const char *dump_after = c->dump_after;
    c->dump_after = NULL;
    bool known = opt_run_pass(fn, name);
    c->dump_after = dump_after;
    if (!known) {
        Buf list = {.arena = c->arena};
        rt_pass_names(&list);
        diag_fatal(c, NULL, "unknown pass '%s' (passes: all, %s)", name, list.data);
    }
    if (c->verify_each) verify_after(c, fn, arena_printf(c->arena, "pass '%s'", name));
    if (dump_after && c->dump_out && (strcmp(dump_after, "all") == 0 || strcmp(dump_after, name) == 0)) {
        buf_printf(c->dump_out, "// -----// IR after %s //----- //\n", name);
        ir_print(c->dump_out, fn);
    }
}

static void run_pass_list(Ctx *c, IrFunc *fn, const char *passes) {
    if (!passes) return;
    const char *p = passes;
    while (*p) {
        size_t n = strcspn(p, ",");
        char *name = arena_strndup(c->arena, p, n);
        if (n == 0) diag_fatal(c, NULL, "empty pass name in '%s'", passes);
        if (strcmp(name, "all") == 0) opt_run_pipeline(fn);
        else run_one_pass(c, fn, name);
        p += n;
        if (*p == ',') p++;
    }
}

static void compile_ir(Ctx *c, const RtRequest *rq, RtResult *out) {
    if (rq->emit == RT_EMIT_TOKENS || rq->emit == RT_EMIT_AST)
        diag_fatal(c, rq->path, "--emit tokens and --emit ast need a Python (.py) input");
    const SrcFile *f = load_source(c, rq);
    IrFunc *fn = ir_parse(c, f);
    verify_after(c, fn, "parsing");   /* always: hand-written IR is user input */
    run_pass_list(c, fn, rq->passes);
    if (rq->emit == RT_EMIT_IR) {
        out->text = print_ir(fn);
        out->kernel_name = rt_strdup(fn->name);
        out->shared_bytes = fn->shared_bytes;
        collect_estimate(fn, out);
        return;
    }
    emit_ptx(c, fn, out);
}

static void compile_python(Ctx *c, const RtRequest *rq, RtResult *out) {
    const SrcFile *f = load_source(c, rq);
    if (rq->emit == RT_EMIT_TOKENS) {
        if (units_is_text(f)) f = units_parse(c, f)->file;   /* the kernel's own source */
        int n;
        Token *toks = lex_file(c, f, &n);
        Buf b = {0};
        lex_print(&b, toks, n);
        out->text = buf_take(&b);
        return;
    }
    AstModule *m = parse_program(c, f);
    if (rq->emit == RT_EMIT_AST) {
        Buf b = {0};
        if (rq->kernel) {
            AstFunc *k = find_kernel(c, m, rq->kernel);
            ast_print_func(&b, k);
        } else {
            ast_print_module(&b, m);
        }
        out->text = buf_take(&b);
        return;
    }
    if (!rq->kernel) diag_fatal(c, NULL, "no kernel named: which @jit function of %s? (-k NAME)", rq->path);
    if (!rq->signature) diag_fatal(c, NULL, "kernel '%s' needs a signature (-s '*fp32, i32, 1024')", rq->kernel);
    find_kernel(c, m, rq->kernel);
    Signature *sig = sig_parse(c, rq->signature);
    IrFunc *fn = lower_kernel(c, m, rq->kernel, sig);   /* verified there with --verify-each */
    if (rq->entry_name) fn->name = arena_strdup(c->arena, rq->entry_name);
    Buf imports = {0};
    rt_cache_imports(&imports, rq, c->imported, c->n_imported);
    out->imports = buf_take(&imports);
    if (rq->emit == RT_EMIT_IR) {
        out->text = print_ir(fn);
        out->kernel_name = rt_strdup(fn->name);
        return;
    }
    opt_run_pipeline(fn);
    out->ir = print_ir(fn);   /* kept for tools (asm['ir'] in Python) and the disk cache */
    emit_ptx(c, fn, out);
}

static void free_params(RtResult *r) {
    for (int i = 0; i < r->n_params; i++) {
        free(r->params[i].name);
        free(r->params[i].type);
    }
    free(r->params);
    r->params = NULL;
    r->n_params = 0;
    for (int i = 0; i < r->n_baked; i++) {
        free(r->baked[i].name);
        free(r->baked[i].text);
    }
    free(r->baked);
    r->baked = NULL;
    r->n_baked = 0;
}

bool rt_compile(const RtRequest *rq, RtResult *out) {
    memset(out, 0, sizeof *out);
    Ctx *c = ctx_new(&rq->target);
    /* in the arena, not a local: it is written between setjmp and longjmp */
    Buf *dumps = arena_alloc(c->arena, sizeof *dumps);
    jmp_buf bail;
    c->bail = &bail;
    c->dump_after = rq->dump_after;
    c->dump_out = dumps;
    c->verify_each = want_verify(rq);
    c->search_path = rq->search_path;
    c->n_search_path = rq->n_search_path;
    Ctx *outer = ctx_guard(c);
    if (setjmp(bail) == 0) {
        check_target(c, &rq->target);
        if (rq->is_ir) compile_ir(c, rq, out);
        else compile_python(c, rq, out);
        out->ok = true;
    } else {
        /* a stage failed: drop whatever the earlier stages handed back */
        free(out->text);
        free(out->kernel_name);
        free(out->ir);
        free(out->imports);
        free(out->est_peak);
        free(out->loads);
        free_params(out);
        out->text = out->kernel_name = out->ir = out->imports = out->est_peak = out->loads = NULL;
        out->est_regs = out->est_preds = 0;
        out->ok = false;
    }
    ctx_guard(outer);
    out->internal = c->internal;
    out->num_warps = rq->target.num_warps;
    out->diag = buf_take(&c->diag);
    out->dumps = buf_take(dumps);
    ctx_free(c);
    return out->ok;
}

void rt_result_free(RtResult *r) {
    if (!r) return;
    free(r->text);
    free(r->dumps);
    free(r->diag);
    free(r->kernel_name);
    free(r->ir);
    free(r->imports);
    free(r->est_peak);
    free(r->loads);
    free_params(r);
    memset(r, 0, sizeof *r);
}

/* ---- the interpreter's view of the pipeline ---- */

/* The IR the request starts from: lowered Python, or parsed (and verified) IR. */
static IrFunc *first_stage(Ctx *c, const RtRequest *rq, const char **stage) {
    const SrcFile *f = load_source(c, rq);
    if (rq->is_ir) {
        IrFunc *fn = ir_parse(c, f);
        verify_after(c, fn, "parsing");
        *stage = "parsing";
        return fn;
    }
    if (!rq->kernel) diag_fatal(c, NULL, "no kernel named: which @jit function of %s? (-k NAME)", rq->path);
    if (!rq->signature) diag_fatal(c, NULL, "kernel '%s' needs a signature (-s '*fp32, i32, 1024')", rq->kernel);
    AstModule *m = parse_program(c, f);
    find_kernel(c, m, rq->kernel);
    IrFunc *fn = lower_kernel(c, m, rq->kernel, sig_parse(c, rq->signature));   /* verified there */
    *stage = "lowering";
    return fn;
}

/* The passes a request runs after its first stage, as a list of names. */
static int stage_passes(Ctx *c, const RtRequest *rq, const char ***names) {
    if (!rq->is_ir) {   /* Python input: the standard pipeline */
        *names = (const char **)opt_standard_pipeline;
        return opt_n_standard_pipeline;
    }
    const char **v = NULL;
    int n = 0, cap = 0;
    for (const char *p = rq->passes ? rq->passes : ""; *p;) {
        size_t len = strcspn(p, ",");
        char *name = arena_strndup(c->arena, p, len);
        if (len == 0) diag_fatal(c, NULL, "empty pass name in '%s'", rq->passes);
        if (strcmp(name, "all") == 0) {
            for (int i = 0; i < opt_n_standard_pipeline; i++) VEC_PUSH(c->arena, v, n, cap, opt_standard_pipeline[i]);
        } else {
            VEC_PUSH(c->arena, v, n, cap, name);
        }
        p += len;
        if (*p == ',') p++;
    }
    *names = v;
    return n;
}

/* Everything rt_each_stage and rt_interpret share: a context whose errors
 * unwind to the caller's setjmp. */
static Ctx *stage_ctx(const RtRequest *rq, jmp_buf *bail) {
    Ctx *c = ctx_new(&rq->target);
    c->bail = bail;
    c->dump_after = NULL;
    c->dump_out = NULL;
    c->verify_each = want_verify(rq);
    c->search_path = rq->search_path;
    c->n_search_path = rq->n_search_path;
    return c;
}

bool rt_each_stage(const RtRequest *rq, RtStageFn each, void *ud, char **diag) {
    jmp_buf bail;
    Ctx *c = stage_ctx(rq, &bail);
    Ctx *outer = ctx_guard(c);
    bool ok = false;
    if (setjmp(bail) == 0) {
        check_target(c, &rq->target);
        const char **names;
        int n = stage_passes(c, rq, &names);
        const char *stage;
        IrFunc *fn = first_stage(c, rq, &stage);
        each(fn, stage, 0, ud);
        for (int i = 0; i < n; i++) {
            run_one_pass(c, fn, names[i]);
            each(fn, names[i], i + 1, ud);
        }
        ok = true;
    }
    ctx_guard(outer);
    *diag = buf_take(&c->diag);
    ctx_free(c);
    return ok;
}

static bool wanted(const char *list, const char *name) {
    if (!list) return true;
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        if (len == n && strncmp(p, name, n) == 0) return true;
        p += len;
        if (*p == ',') p++;
    }
    return false;
}

/* --simulate: the PTX of fn on the simulator, over the interpreter's inputs */
static bool simulate(Ctx *c, IrFunc *fn, const InterpLaunch *launch, Buf *err) {
    RtResult res = {0};
    emit_ptx(c, fn, &res);
    SimLaunch sl = {.ptx = res.text, .entry = res.kernel_name, .threads = 32u * (uint32_t)c->target.num_warps,
                    .shared_bytes = (uint32_t)res.shared_bytes, .data = launch};
    bool ok = sim_run(&sl, err);
    rt_result_free(&res);
    return ok;
}

static void interpret(Ctx *c, const RtRequest *rq, const RtInterpRequest *irq, RtResult *out) {
    const char **names;
    int n = stage_passes(c, rq, &names);
    const char *stage;
    IrFunc *fn = first_stage(c, rq, &stage);
    for (int i = 0; i < n; i++) run_one_pass(c, fn, names[i]);
    Buf *err = arena_alloc(c->arena, sizeof *err), *prints = arena_alloc(c->arena, sizeof *prints);
    err->arena = prints->arena = c->arena;
    InterpSetup setup;
    bool ok = interp_setup(c->arena, fn, irq->args, irq->grid ? irq->grid : "1", irq->seed, &setup, err);
    InterpLaunch launch = {.grid = {setup.grid[0], setup.grid[1], setup.grid[2]}, .args = setup.args,
                           .n_args = setup.n_args, .buffers = setup.buffers, .n_buffers = setup.n_buffers,
                           .print_out = prints, .run_asm = sim_inline_asm};
    if (ok && irq->simulate) ok = simulate(c, fn, &launch, err);
    else if (ok) ok = interp_run(fn, &launch, err);
    if (!ok) {
        out->text = rt_strdup(buf_str(prints));   /* what the kernel printed before it stopped */
        buf_puts(&c->diag, buf_str(err));
        c->n_errors++;
        longjmp(*c->bail, 1);
    }
    for (const char *p = irq->print; p && *p;) {   /* every name in --print must be a buffer */
        size_t len = strcspn(p, ",");
        bool found = false;
        for (uint32_t i = 0; i < setup.n_buffers; i++)
            found |= strlen(setup.buffers[i].name) == len && strncmp(setup.buffers[i].name, p, len) == 0;
        if (!found) diag_fatal(c, NULL, "--print: no buffer named '%.*s'", (int)len, p);
        p += len;
        if (*p == ',') p++;
    }
    Buf text = {0};
    buf_puts(&text, buf_str(prints));
    for (uint32_t i = 0; i < setup.n_buffers; i++)
        if (!setup.buffers[i].opaque && wanted(irq->print, setup.buffers[i].name))
            interp_print_buffer(&text, &setup.buffers[i]);
    out->text = buf_take(&text);
    out->kernel_name = rt_strdup(fn->name);
}

bool rt_interpret(const RtRequest *rq, const RtInterpRequest *irq, RtResult *out) {
    memset(out, 0, sizeof *out);
    jmp_buf bail;
    Ctx *c = stage_ctx(rq, &bail);
    Ctx *outer = ctx_guard(c);
    if (setjmp(bail) == 0) {
        check_target(c, &rq->target);
        interpret(c, rq, irq, out);
        out->ok = true;
    } else {
        free(out->kernel_name);   /* out->text keeps the kernel's prints, if any */
        out->kernel_name = NULL;
        out->ok = false;
    }
    ctx_guard(outer);
    out->internal = c->internal;
    out->num_warps = rq->target.num_warps;
    out->diag = buf_take(&c->diag);
    out->dumps = rt_strdup("");
    ctx_free(c);
    return out->ok;
}
