/* The public C API without a GPU: compiling, the parameter list, errors as
 * status codes plus messages, and launches failing cleanly where there is
 * no driver. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/tric.h"

#include "check.h"

static const char add_src[] =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "@triton.jit\n"
    "def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
    "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
    "    mask = offs < n\n"
    "    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)\n";

static void test_compile_ok(void) {
    tric_options opt = {.arch = "sm_90a", .num_warps = 8, .num_stages = 0};
    tric_kernel *k = NULL;
    char *err = (char *)1;
    int st = tric_compile_source("add.py", add_src, "add_kernel", "*fp32:16, *fp32:16, *fp16, i32, 256", &opt, &k, &err);
    if (st != TRIC_OK) fprintf(stderr, "compile failed:\n%s", err ? err : "(no message)");
    CHECK(st == TRIC_OK);
    CHECK(err == NULL);
    tric_free(err);
    if (!k) return;
    CHECK(strcmp(tric_kernel_name(k), "add_kernel") == 0);
    CHECK(strcmp(tric_kernel_arch(k), "sm_90a") == 0);
    CHECK(strstr(tric_kernel_ptx(k), ".entry add_kernel") != NULL);
    CHECK(strstr(tric_kernel_ptx(k), "sm_90a") != NULL);
    CHECK(tric_kernel_num_warps(k) == 8);
    CHECK(tric_kernel_num_params(k) == 4);   /* BLOCK is a constexpr */
    static const char *names[] = {"x_ptr", "y_ptr", "out_ptr", "n"};
    static const char *types[] = {"*fp32", "*fp32", "*fp16", "i32"};
    for (int i = 0; i < 4 && i < tric_kernel_num_params(k); i++) {
        const tric_param *p = tric_kernel_param(k, i);
        CHECK(strcmp(p->name, names[i]) == 0);
        CHECK(strcmp(p->type, types[i]) == 0);
        CHECK(p->kind == (i < 3 ? TRIC_PARAM_POINTER : TRIC_PARAM_INT));
        CHECK(p->bytes == (i < 3 ? 8 : 4));
    }
    CHECK(tric_kernel_param(k, 4) == NULL);
    CHECK(tric_kernel_param(k, -1) == NULL);
    tric_kernel_free(k);
}

/* A user mistake comes back as TRIC_ERR_COMPILE and a positioned message. */
static void test_compile_errors(void) {
    tric_kernel *k = (tric_kernel *)1;
    char *err = NULL;
    int st = tric_compile_source("add.py", add_src, "no_such_kernel", "i32", NULL, &k, &err);
    CHECK(st == TRIC_ERR_COMPILE);
    CHECK(k == NULL);
    CHECK(err && strstr(err, "add.py: error: no @jit function named 'no_such_kernel'"));
    tric_free(err);

    st = tric_compile_source("bad.py", "@triton.jit\ndef k(x):\n    y = (x +\n", "k", "i32", NULL, &k, &err);
    CHECK(st == TRIC_ERR_COMPILE);
    CHECK(err && strncmp(err, "bad.py:", 7) == 0);
    tric_free(err);

    st = tric_compile_file("/nonexistent/k.py", "k", "i32", NULL, &k, &err);
    CHECK(st == TRIC_ERR_COMPILE);
    CHECK(err && strstr(err, "/nonexistent/k.py: error: cannot read file"));
    tric_free(err);
}

static void test_bad_arguments(void) {
    tric_kernel *k = NULL;
    char *err = NULL;
    tric_options bad_arch = {.arch = "sm_75", .num_warps = 0, .num_stages = 0};
    CHECK(tric_compile_source("a.py", add_src, "add_kernel", "*fp32, *fp32, *fp32, i32, 64", &bad_arch, &k, &err) == TRIC_ERR_ARG);
    CHECK(err && strstr(err, "sm_75"));
    tric_free(err);
    tric_options bad_warps = {.arch = "sm_80", .num_warps = 3, .num_stages = 0};
    CHECK(tric_compile_source("a.py", add_src, "add_kernel", "*fp32, *fp32, *fp32, i32, 64", &bad_warps, &k, &err) == TRIC_ERR_ARG);
    tric_free(err);
    CHECK(tric_compile_source("a.py", NULL, "add_kernel", "i32", NULL, &k, &err) == TRIC_ERR_ARG);
    tric_free(err);
    CHECK(tric_compile_file("a.py", NULL, "i32", NULL, &k, NULL) == TRIC_ERR_ARG);
    CHECK(tric_launch(NULL, 1, 1, 1, NULL, NULL, NULL) == TRIC_ERR_ARG);
    tric_kernel_free(NULL);
    CHECK(strcmp(tric_version(), "0.1.0") == 0);
}

/* Without a driver every device call says so; with one, a launch of a
 * small kernel must work end to end. */
static void test_launch(void) {
    char arch[16], *err = NULL;
    int st = tric_device_arch(arch, sizeof arch, &err);
    tric_kernel *k = NULL;
    tric_options opt = {.arch = NULL, .num_warps = 4, .num_stages = 0};
    CHECK(tric_compile_source("add.py", add_src, "add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, 128", &opt, &k, NULL) == TRIC_OK);
    CHECK(st == TRIC_OK || (err && err[0]));
    tric_free(err);
    err = NULL;
    if (!k) return;
    if (st == TRIC_ERR_NO_DRIVER) {
        CHECK(strcmp(tric_kernel_arch(k), "sm_80") == 0);   /* no device: the default */
        uint64_t p = 0;
        CHECK(tric_mem_alloc(&p, 16, &err) == TRIC_ERR_NO_DRIVER);
        tric_free(err);
        void *args[] = {&p, &p, &p, &p};
        CHECK(tric_launch(k, 1, 1, 1, args, NULL, &err) == TRIC_ERR_NO_DRIVER);
        tric_free(err);
        tric_kernel_free(k);
        return;
    }
    CHECK(st == TRIC_OK);
    CHECK(strcmp(tric_kernel_arch(k), arch) == 0);
    enum { N = 1000 };
    static float x[N], y[N], out[N];
    for (int i = 0; i < N; i++) x[i] = (float)i, y[i] = 0.5f * (float)i;
    uint64_t dx, dy, dout;
    int n = N;
    CHECK(tric_mem_alloc(&dx, sizeof x, NULL) == 0 && tric_mem_alloc(&dy, sizeof y, NULL) == 0 &&
          tric_mem_alloc(&dout, sizeof out, NULL) == 0);
    CHECK(tric_memcpy_htod(dx, x, sizeof x, NULL) == 0 && tric_memcpy_htod(dy, y, sizeof y, NULL) == 0);
    void *args[] = {&dx, &dy, &dout, &n};
    st = tric_launch(k, (N + 127) / 128, 1, 1, args, NULL, &err);
    if (st) fprintf(stderr, "launch: %s\n", err);
    tric_free(err);
    CHECK(st == 0 && tric_synchronize(NULL) == 0);
    CHECK(tric_memcpy_dtoh(out, dout, sizeof out, NULL) == 0);
    for (int i = 0; i < N; i++) CHECK(out[i] == 1.5f * (float)i);
    tric_mem_free(dx, NULL);
    tric_mem_free(dy, NULL);
    tric_mem_free(dout, NULL);
    tric_kernel_free(k);
}

int main(void) {
    test_compile_ok();
    test_compile_errors();
    test_bad_arguments();
    test_launch();
    if (failures) fprintf(stderr, "api: %d checks failed\n", failures);
    return failures != 0;
}
