/* What the libFuzzer targets of test/fuzz/targets share (see test/fuzz/README).
 * Each target defines LLVMFuzzerTestOneInput; built with clang and
 * -fsanitize=fuzzer it runs under libFuzzer (make fuzz-lib), built with gcc
 * and replay.c it replays saved inputs (make test). An input must never
 * make a target abort or leak: the library reports every mistake as an
 * error, and each run frees all it allocated. */
#ifndef TRIC_FUZZ_H
#define TRIC_FUZZ_H

#include "base/base.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* TRIC_FUZZ_VERBOSE=1 in the environment: the targets print the library's
 * messages (to see what an input reaches when reproducing it). */
static inline void fuzz_report(const char *what, const char *diag) {
    const char *v = getenv("TRIC_FUZZ_VERBOSE");
    if (v && *v && *v != '0' && diag && *diag) fprintf(stderr, "-- %s:\n%s", what, diag);
}

/* The input as a C string (heap): the library takes C strings, so an
 * embedded NUL ends the text there. */
static inline char *fuzz_text(const uint8_t *data, size_t size) {
    char *s = malloc(size + 1);
    if (!s) abort();
    memcpy(s, data, size);
    s[size] = 0;
    return s;
}

/* Splits the line at *p off (NUL-terminated in place, without its "\n" or
 * "\r\n"); *p moves past it. NULL at the end of the text. */
static inline char *fuzz_line(char **p) {
    if (!*p) return NULL;
    char *line = *p, *nl = strchr(line, '\n');
    if (nl) {
        *nl = 0;
        *p = nl + 1;
        if (nl > line && nl[-1] == '\r') nl[-1] = 0;
    } else {
        *p = NULL;
    }
    return line;
}

/* A kernel `k` with n parameters (p0, p1, ...) and an empty body, for the
 * targets that fuzz what binds a kernel's parameters (signatures, --args). */
static inline char *fuzz_stub_kernel(int n) {
    Buf b = {0};
    buf_puts(&b, "import triton\nimport triton.language as tl\n\n@triton.jit\ndef k(");
    for (int i = 0; i < n; i++) buf_printf(&b, "%sp%d", i ? ", " : "", i);
    buf_puts(&b, "):\n    pass\n");
    return buf_take(&b);
}

#endif
