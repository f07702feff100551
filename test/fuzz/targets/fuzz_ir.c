/* Fuzz target: IR text through ir_parse, the verifier, the passes and
 * ptxgen (rt_compile with an IR input).
 *
 * The input is a .tir file. Its "// RUN:" line, if any, gives --passes,
 * --arch and --num-warps as in test/ir; the text is compiled twice: with
 * those passes to IR, and with the standard pipeline ("all") to PTX. The
 * text form must also round-trip: printing what was parsed, parsing that
 * and printing it again gives the same text, or the target traps (a
 * finding, like a crash). */
#include "fuzz.h"
#include "runtime/rt.h"

#include <stdio.h>

#define FUZZ_PATH "/nonexistent/fuzz/input.tir"

/* the word after `opt ` in the RUN line (heap), or NULL */
static char *run_option(const char *run, const char *opt) {
    const char *p = run ? strstr(run, opt) : NULL;
    if (!p) return NULL;
    p += strlen(opt);
    p += strspn(p, " =");
    size_t n = strcspn(p, " \t\r\n");
    char *s = malloc(n + 1);
    if (!s) abort();
    memcpy(s, p, n);
    s[n] = 0;
    return s;
}

static bool compile(const char *source, const char *passes, RtEmit emit, const char *arch, int warps,
                    RtResult *res) {
    RtRequest rq = {.path = FUZZ_PATH, .source = source, .is_ir = true, .emit = emit, .passes = passes};
    rt_default_target(&rq.target);
    if (arch) rt_parse_arch(arch, &rq.target);
    if (warps > 0 && warps <= 32) rq.target.num_warps = warps;
    bool ok = rt_compile(&rq, res);
    fuzz_report(passes ? passes : "parse", res->diag);
    return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *source = fuzz_text(data, size);
    const char *run = strncmp(source, "// RUN:", 7) ? NULL : source;
    char *line_end = run ? strchr(run, '\n') : NULL;
    char *run_line = NULL;
    if (run) {
        size_t n = line_end ? (size_t)(line_end - run) : strlen(run);
        run_line = malloc(n + 1);
        if (!run_line) abort();
        memcpy(run_line, run, n);
        run_line[n] = 0;
    }
    char *passes = run_option(run_line, "--passes");
    char *arch = run_option(run_line, "--arch");
    char *warps = run_option(run_line, "--num-warps");
    int nw = warps ? atoi(warps) : 0;

    /* the round trip, on the text as parsed (no passes) */
    RtResult once, twice, res;
    if (compile(source, NULL, RT_EMIT_IR, arch, nw, &once)) {
        if (!compile(once.text, NULL, RT_EMIT_IR, arch, nw, &twice) || strcmp(once.text, twice.text)) {
            fprintf(stderr, "fuzz_ir: the IR text does not round-trip:\n--- printed\n%s--- printed again\n%s%s",
                    once.text, twice.text ? twice.text : "", twice.diag);
            __builtin_trap();
        }
        rt_result_free(&twice);
    }
    rt_result_free(&once);
    if (passes) {
        compile(source, passes, RT_EMIT_IR, arch, nw, &res);
        rt_result_free(&res);
    }
    compile(source, "all", RT_EMIT_PTX, arch, nw, &res);
    rt_result_free(&res);

    free(passes);
    free(arch);
    free(warps);
    free(run_line);
    free(source);
    return 0;
}
