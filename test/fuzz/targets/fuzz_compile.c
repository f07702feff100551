/* Fuzz target: Python kernel source through the whole compile path to PTX
 * (rt_compile: lex, parse, lower, passes, ptxgen).
 *
 * The input is the source. Its first line may name what to compile, as a
 * Python comment (so it stays part of the source and lines keep their
 * numbers):
 *     # KERNEL|SIGNATURE[|ARCH][|NUM_WARPS]
 * e.g. "# add_kernel|*fp32, *fp32, i32, 1024|sm_90a|8". Without it, each of
 * the first few `def NAME(...)` lines is compiled with a signature made from
 * its parameters: "16" for a tl.constexpr one, "*fp32" for a name with
 * "ptr" in it, else "i32". */
#include "fuzz.h"
#include "runtime/rt.h"

#include <ctype.h>
#include <stdio.h>

/* imports look next to the file: nowhere, so no input reads the tree */
#define FUZZ_PATH "/nonexistent/fuzz/kernel.py"

static void compile_one(const char *source, const char *kernel, const char *signature, const char *arch, int warps) {
    RtRequest rq = {.path = FUZZ_PATH, .source = source, .kernel = kernel, .signature = signature,
                    .emit = RT_EMIT_PTX};
    rt_default_target(&rq.target);
    if (arch && *arch) rt_parse_arch(arch, &rq.target);
    if (warps) rq.target.num_warps = warps;
    RtResult res;
    rt_compile(&rq, &res);
    fuzz_report(kernel, res.diag);
    rt_result_free(&res);
}

/* "# KERNEL|SIGNATURE[|ARCH][|NUM_WARPS]": true with the fields cut in place */
static bool read_header(char *line, char **kernel, char **sig, char **arch, int *warps) {
    char *bar = strchr(line, '|');
    if (line[0] != '#' || !bar) return false;
    *bar = 0;
    *kernel = line + 1 + strspn(line + 1, " ");
    *sig = bar + 1;
    *arch = NULL;
    *warps = 0;
    /* optional trailing fields, peeled from the end: a signature may hold '|' in a string */
    for (int i = 0; i < 2; i++) {
        char *last = strrchr(*sig, '|');
        if (!last) break;
        char *f = last + 1;
        if (!*f) ;   /* an empty field: absent */
        else if (!*arch && !strncmp(f, "sm_", 3) && strlen(f) < 8) *arch = f;
        else if (!*warps && *f && strlen(f) <= 2 && strspn(f, "0123456789") == strlen(f)) *warps = atoi(f);
        else break;
        *last = 0;
    }
    return true;
}

/* The signature for `def NAME(params):` at p (just past "def "), guessed
 * from the parameters; false if the line does not look like one. */
static bool guess_signature(const char *p, char *name, size_t name_cap, Buf *sig) {
    size_t n = 0;
    while (isalnum((unsigned char)p[n]) || p[n] == '_') n++;
    if (!n || n >= name_cap || p[n] != '(') return false;
    memcpy(name, p, n);
    name[n] = 0;
    const char *q = p + n + 1, *end = strchr(q, ')');
    if (!end) return false;
    while (q < end) {
        size_t len = strcspn(q, ",)");
        if (q + len > end) len = (size_t)(end - q);
        char item[256];
        snprintf(item, sizeof item, "%.*s", (int)len, q);
        q += len + 1;
        const char *t = item + strspn(item, " \t\n");
        if (!*t || *t == '*') continue;
        if (sig->len) buf_puts(sig, ", ");
        buf_puts(sig, strstr(item, "constexpr") ? "16" : strstr(item, "ptr") ? "*fp32" : "i32");
    }
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *source = fuzz_text(data, size);
    char *header = fuzz_text(data, size), *rest = header;
    char *line = fuzz_line(&rest);
    char *kernel, *sig, *arch;
    int warps;
    if (read_header(line, &kernel, &sig, &arch, &warps)) {
        compile_one(source, kernel, sig, arch, warps);
    } else {
        int tried = 0;
        for (const char *p = source; p && tried < 3; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
            if (strncmp(p, "def ", 4)) continue;
            char name[128];
            Buf s = {0};
            if (guess_signature(p + 4, name, sizeof name, &s)) {
                compile_one(source, name, buf_str(&s), NULL, 0);
                tried++;
            }
            buf_free(&s);
        }
    }
    free(header);
    free(source);
    return 0;
}
