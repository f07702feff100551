/* Fuzz target: signature strings ("*fp32:16, i32, 1024, tensordesc<...>")
 * through sig_parse and sig_entry_text, then a kernel with as many
 * parameters as the signature has entries compiled with it to PTX (for
 * sm_90a, where tensor descriptors become tensor maps), so what lowering
 * makes of each entry is fuzzed too. The input is the signature. */
#include "fuzz.h"
#include "frontend/frontend.h"
#include "runtime/rt.h"

/* sig_parse on text: its entry count (-1 on an error); prints every entry */
static int parse(const char *text) {
    Target t;
    rt_default_target(&t);
    Ctx *c = ctx_new(&t);
    jmp_buf bail;
    c->bail = &bail;
    int *n = arena_alloc(c->arena, sizeof *n);   /* in the arena: set between setjmp and longjmp */
    *n = -1;
    if (setjmp(bail) == 0) {
        Signature *sig = sig_parse(c, text);
        for (int i = 0; i < sig->n; i++) sig_entry_text(c->arena, &sig->entries[i]);
        *n = sig->n;
    }
    int result = *n;
    ctx_free(c);
    return result;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = fuzz_text(data, size);
    int n = parse(text);
    if (n >= 0 && n <= 1024) {
        char *source = fuzz_stub_kernel(n);
        RtRequest rq = {.path = "<fuzz>", .source = source, .kernel = "k", .signature = text, .emit = RT_EMIT_PTX};
        rt_default_target(&rq.target);
        rt_parse_arch("sm_90a", &rq.target);
        RtResult res;
        rt_compile(&rq, &res);
        fuzz_report("stub kernel", res.diag);
        rt_result_free(&res);
        free(source);
    }
    free(text);
    return 0;
}
