/* Fuzz target: the --args language (interp/args.c: what `tric --interpret
 * --args` and the kernels' test blocks read), with the grid and the
 * `# check:` references of the same language.
 *
 * The input is up to five lines:
 *     SIGNATURE            of a kernel k(p0, p1, ...) with an empty body
 *     ARGS                 x = rand(n, fp32); out = zeros(n, fp32); n = 100
 *     GRID                 (cdiv(n, 64), 1, 1)        (optional)
 *     CHECK                out == x * 2                (optional)
 *     TOL                  1e-5                        (optional)
 * The kernel is lowered with the signature, interp_setup binds the args to
 * its parameters and evaluates the grid, the buffers are printed, and the
 * check runs on them as they are (the kernel does nothing). */
#include "fuzz.h"
#include "frontend/frontend.h"
#include "interp/interp.h"
#include "runtime/rt.h"

static const char *or_null(const char *s) { return s && *s ? s : NULL; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = fuzz_text(data, size), *rest = text;
    const char *sig_text = fuzz_line(&rest), *args = fuzz_line(&rest);
    const char *grid = or_null(fuzz_line(&rest)), *check = or_null(fuzz_line(&rest));
    const char *tol = or_null(fuzz_line(&rest));
    Target t;
    rt_default_target(&t);
    Ctx *c = ctx_new(&t);
    jmp_buf bail;
    c->bail = &bail;
    /* in the arena: set between setjmp and longjmp */
    IrFunc **fn = arena_alloc(c->arena, sizeof *fn);
    if (setjmp(bail) == 0) {
        Signature *sig = sig_parse(c, sig_text);
        if (sig->n <= 1024) {
            Buf stub = {.arena = c->arena};
            char *source = fuzz_stub_kernel(sig->n);
            buf_puts(&stub, source);
            free(source);
            AstModule *m = parse_program(c, srcfile_from_string(c, "<fuzz>", buf_str(&stub)));
            *fn = lower_kernel(c, m, "k", sig);
        }
    }
    if (*fn) {
        Buf err = {.arena = c->arena};
        InterpSetup setup;
        if (interp_setup(c->arena, *fn, args ? args : "", grid, 1, &setup, &err)) {
            Buf out = {.arena = c->arena};
            for (uint32_t i = 0; i < setup.n_buffers; i++)
                if (!setup.buffers[i].opaque) interp_print_buffer(&out, &setup.buffers[i]);
            if (check) interp_check(c->arena, &setup, check, tol, &err);
        }
    }
    ctx_free(c);
    free(text);
    return 0;
}
