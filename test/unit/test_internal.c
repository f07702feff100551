/* Internal errors (TRIC_ASSERT, out of memory) inside a guarded context
 * unwind to its entry point with the message recorded, so a process that
 * embeds the library survives a bug in it; guards nest and restore. */
#include "base/base.h"

#include <string.h>

#include "check.h"

static int broken_invariant(int x) {
    TRIC_ASSERT(x == 2);
    return x;
}

/* runs broken_invariant(x) under c's guard; true when it unwound */
static bool unwinds(Ctx *c, int x) {
    jmp_buf jb;
    c->bail = &jb;
    Ctx *outer = ctx_guard(c);
    volatile bool unwound = false;
    if (setjmp(jb) == 0) broken_invariant(x);
    else unwound = true;
    CHECK(ctx_guard(outer) == c);
    c->bail = NULL;
    return unwound;
}

int main(void) {
    Target t = {.sm = 80, .num_warps = 4, .num_stages = 3};
    Ctx *c = ctx_new(&t);
    CHECK(!unwinds(c, 2));
    CHECK(!c->internal && c->n_errors == 0);
    CHECK(unwinds(c, 3));
    CHECK(c->internal && c->n_errors == 1);
    const char *want = "tric: internal error at test/unit/test_internal.c:11: x == 2 (a bug in tric; please report it)\n";
    CHECK_MSG(c->diag.data && !strcmp(c->diag.data, want), "diag: %s", c->diag.data ? c->diag.data : "(none)");

    /* nested: the inner context catches, the outer one is back after */
    Ctx *inner = ctx_new(&t);
    jmp_buf jb;
    c->bail = &jb;
    Ctx *none = ctx_guard(c);
    CHECK(none == NULL);
    CHECK(unwinds(inner, 5));
    CHECK(inner->internal && !strstr(buf_str(&c->diag), ": 5"));
    CHECK(ctx_guard(none) == c);
    c->bail = NULL;
    ctx_free(inner);
    ctx_free(c);
    return failures != 0;
}
