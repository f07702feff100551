/* Units texts (frontend/units.c), what the Python package compiles a kernel
 * from: a kernel and a helper with every kind of binding lowered through
 * the public API, locations and lines reported as the user's file has them
 * (first line and indentation put back), and every malformed text an error
 * with its position, never a crash (prefixes and random byte changes). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/tric.h"

#include "check.h"

/* Units text of a kernel (10 lines into /u/k.py, nested 4 deep) calling a
 * helper in another unit; the lines binding SCALE and h are given. */
static char *units_text(const char *scale, const char *h) {
    static const char kernel[] =
        "@triton.jit\n"
        "def kern(x_ptr, y_ptr, BLOCK: tl.constexpr):\n"
        "    offs = tl.arange(0, BLOCK)\n"
        "    x = tl.load(x_ptr + offs)\n"
        "    tl.store(y_ptr + offs, h.twice(rsqrt(x)) * SCALE + PAIR[1])\n";
    static const char helper[] =
        "@jit\n"
        "def twice(v):\n"
        "    return v * 2\n";
    size_t cap = 4096 + strlen(scale) + strlen(h);
    char *s = malloc(cap);
    snprintf(s, cap,
             "tric-units 1\n"
             "function kern 10 %zu \"    \" \"/u/k.py\"\n%s"
             "bind tl import tric.language\n"
             "bind rsqrt import triton.language.extra.libdevice.rsqrt\n"
             "bind PAIR value (1, 7.0)\n"
             "%s%s"
             "module \"helpers\"\n"
             "bind twice function 2\n"
             "function twice 3 %zu \"\" \"/u/helpers.py\"\n%s",
             strlen(kernel), kernel, scale, h, strlen(helper), helper);
    return s;
}

#define SCALE_OK "bind SCALE value 2.5\n"
#define H_OK "bind h module 1\n"

static const tric_options opts = {.arch = "sm_80"};

static char *compile_err(const char *text, tric_kernel **k) {
    char *err = NULL;
    *k = NULL;
    tric_compile_source("<units>", text, "kern", "*fp32, *fp32, 64", &opts, k, &err);
    return err;
}

static void test_lowers(void) {
    char *text = units_text(SCALE_OK, H_OK);
    tric_kernel *k;
    char *err = compile_err(text, &k);
    CHECK_MSG(k != NULL, "%s", err ? err : "");
    if (k) {
        const char *ir = tric_kernel_ir(k);
        CHECK(strstr(ir, "rsqrt") != NULL);
        CHECK(strstr(ir, "const 2.5") != NULL && strstr(ir, "const 7.0") != NULL);
        /* the PTX's line info is the user's file */
        CHECK(strstr(tric_kernel_ptx(k), ".file 1 \"/u/k.py\"") != NULL);
        CHECK(strstr(tric_kernel_ptx(k), ".loc 1 14") != NULL);
    }
    tric_kernel_free(k);
    free(err);
    free(text);
}

static void expect(const char *text, const char *want) {
    tric_kernel *k;
    char *err = compile_err(text, &k);
    CHECK_MSG(k == NULL && err && strstr(err, want), "want\n%s\ngot\n%s", want, err ? err : "(compiled)");
    tric_kernel_free(k);
    free(err);
}

static void expect_with(const char *scale, const char *h, const char *want) {
    char *text = units_text(scale, h);
    expect(text, want);
    free(text);
}

static void test_errors(void) {
    /* bindings the program gave that a kernel cannot use */
    expect_with("bind SCALE opaque \"the Python function 'f' (not a @jit function)\"\n", H_OK,
                "/u/k.py:14:52: error: Cannot access global variable SCALE from within @jit'ed function: it is the "
                "Python function 'f' (not a @jit function)");
    /* the line as the file has it: indentation put back, caret under the use */
    expect_with("bind SCALE opaque \"x\"\n", H_OK,
                "        tl.store(y_ptr + offs, h.twice(rsqrt(x)) * SCALE + PAIR[1])\n"
                "                                                   ^\n");
    expect_with(SCALE_OK, "bind h opaque \"the module 'numpy'\"\n",
                "global variable h from within @jit'ed function: it is the module 'numpy'");
    expect_with(SCALE_OK, "bind h import numpy\n", "/u/k.py:14:32: error: no module named 'numpy'");
    expect_with(SCALE_OK, "bind h module 7\n", "<units>:12:6: error: units text: there is no unit 7");
    expect_with(SCALE_OK, "bind h function 1\n", "units text: unit 1 is not a function");
    expect_with(SCALE_OK, "bind h module 2\n", "units text: unit 2 is not a module");
    expect_with(SCALE_OK, "bind h module 1\nbind h value 3\n", "<units>:13:6: error: units text: 'h' is bound twice");
    expect_with("bind SCALE value *fp32\n", H_OK, "units text: a value is one constexpr of a signature");
    expect_with("bind SCALE frob 1\n", H_OK, "units text: expected value, import, function, module or opaque");
    expect_with("bind SCALE value\n", H_OK, "units text: expected a value");
    expect_with("bind SCALE opaque \"a\\qb\"\n", H_OK, "units text: bad escape in a string");
    expect_with("bind SCALE opaque \"unterminated\n", H_OK, "units text: unterminated string");
    expect_with("bind SCALE import\n", H_OK, "units text: expected a dotted path");
    expect_with("bind SCALE value 1 2\n", H_OK, "expected ',' between signature entries");
    expect_with("frob\n", H_OK, "<units>:11:1: error: units text: expected function, module or bind");
    expect("tric-units 1\nbind x value 1\n", "<units>:2:1: error: units text: a bind line before the first unit");
    expect("tric-units 1\nmodule \"m\"\n", "units text: the first unit must be the kernel's function");
    expect("tric-units 1\n", "units text: the first unit must be the kernel's function");
    expect("tric-units 1\nfunction kern 1 500 \"\" \"/u/k.py\"\n@jit\ndef kern(x):\n    pass\n",
           "<units>:2:1: error: units text: the source is shorter than the length given");
    expect("tric-units 1\nfunction kern 1 27 \"\" \"/u/k.py\"\n@jit\ndef other(x):\n    pass\n",
           "/u/k.py:2:1: error: units text: this is the source of 'other', not of 'kern'");
    expect("tric-units 1\nfunction kern 3 27 \"  \" \"/u/k.py\"\n@jit\ndef kern(x):\n    x = )\n",
           "/u/k.py:5:11: error: unmatched ')'\n      x = )\n          ^");
    expect("tric-units 1\nfunction kern 1 x \"\" \"/u/k.py\"\n", "units text: expected the length of its source");
    expect("tric-units 1\nfunction kern 1 4 \"\" \"/u/k.py\"\ndef \nx", "expected a name");
    expect("tric-units 1\nfunction kern 1 8 \"\\u0000\" \"/u/k.py\"\n", "units text: unsupported \\u escape");
}

/* Every prefix and random byte changes of a good text: an error or a kernel,
 * never a crash (ASan and UBSan watch the test build). */
static void test_mutations(void) {
    char *good = units_text(SCALE_OK, H_OK);
    size_t n = strlen(good);
    char *t = malloc(n + 1);
    int compiled = 0;
    for (size_t len = 0; len < n; len += 3) {
        memcpy(t, good, len);
        t[len] = 0;
        tric_kernel *k;
        free(compile_err(t, &k));
        tric_kernel_free(k);
    }
    static const char bytes[] = "\"\\\n 0123456789abcdefz._()@:,-";
    unsigned seed = 12345;
    for (int i = 0; i < 300; i++) {
        memcpy(t, good, n + 1);
        for (int j = 0; j < 1 + i % 3; j++) {
            seed = seed * 1103515245u + 12345u;
            size_t at = (seed >> 8) % n;
            seed = seed * 1103515245u + 12345u;
            t[at] = bytes[(seed >> 8) % (sizeof bytes - 1)];
        }
        tric_kernel *k;
        free(compile_err(t, &k));
        compiled += k != NULL;
        tric_kernel_free(k);
    }
    CHECK(compiled > 0);   /* changes in names and numbers still compile */
    free(t);
    free(good);
}

int main(void) {
    setenv("TRIC_CACHE_DIR", "off", 1);
    test_lowers();
    test_errors();
    test_mutations();
    if (failures) fprintf(stderr, "%d failure(s)\n", failures);
    return failures != 0;
}
