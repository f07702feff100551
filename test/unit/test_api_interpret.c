/* tric_interpret: compiled kernels run on the CPU interpreter over host
 * buffers, without a GPU: results in place, scalars in tric_launch_packed's
 * low-bytes convention, located errors for out-of-bounds accesses and
 * division by zero, and kernels that came from the disk cache. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/tric.h"

#include "check.h"

static const char src[] =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "@triton.jit\n"
    "def axpb(x_ptr, out_ptr, n, a, b, BLOCK: tl.constexpr):\n"
    "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
    "    mask = offs < n\n"
    "    x = tl.load(x_ptr + offs, mask=mask, other=-7.0)\n"
    "    tl.store(out_ptr + offs, x * a + b)\n"
    "\n"
    "@triton.jit\n"
    "def idiv(x_ptr, d):\n"
    "    tl.store(x_ptr, tl.load(x_ptr) // d)\n";

static tric_kernel *compile(const char *kernel, const char *sig) {
    tric_options opt = {.arch = "sm_80", .num_warps = 0, .num_stages = 0};
    tric_kernel *k = NULL;
    char *err = NULL;
    int st = tric_compile_source("kern.py", src, kernel, sig, &opt, &k, &err);
    if (st) fprintf(stderr, "compile %s failed:\n%s", kernel, err ? err : "(no message)");
    CHECK(st == TRIC_OK);
    tric_free(err);
    return k;
}

static uint64_t f32_slot(float f) {
    uint32_t bits;
    memcpy(&bits, &f, 4);
    return bits;   /* low 4 bytes only, as tric_launch_packed takes it */
}

/* 3 programs of 16 over n = 40: the last program's masked lanes load
 * `other` and store past n, inside the 48-element out buffer. b is -1 as an
 * i32 in the low 4 bytes: the interpreter must sign-extend it. */
static void test_masked_axpb(void) {
    tric_kernel *k = compile("axpb", "*fp32, *fp32, i32, fp32, i32, 16");
    if (!k) return;
    float x[40], out[48];
    for (int i = 0; i < 40; i++) x[i] = (float)i * 0.5f;
    memset(out, 0, sizeof out);
    uint64_t slots[5] = {(uint64_t)(uintptr_t)x, (uint64_t)(uintptr_t)out, 40, f32_slot(2.0f), 0xFFFFFFFFu};
    tric_host_buffer bufs[2] = {{x, sizeof x, "x_ptr", 0}, {out, sizeof out, "out_ptr", 0}};
    char *err = NULL;
    int st = tric_interpret(k, 3, 1, 1, slots, 2, bufs, &err);
    if (st) fprintf(stderr, "interpret failed:\n%s", err ? err : "(no message)");
    CHECK(st == TRIC_OK);
    CHECK(err == NULL);
    tric_free(err);
    int bad = 0;
    for (int i = 0; i < 48; i++) {
        float want = i < 40 ? (float)i * 0.5f * 2.0f - 1.0f : -7.0f * 2.0f - 1.0f;
        bad += out[i] != want;
    }
    CHECK(bad == 0);
    tric_kernel_free(k);
}

/* The same kernel on a 40-element out buffer: program 2 stores out[40..47]. */
static void test_out_of_bounds(void) {
    tric_kernel *k = compile("axpb", "*fp32, *fp32, i32, fp32, i32, 16");
    if (!k) return;
    float x[40] = {0}, out[40];
    uint64_t slots[5] = {(uint64_t)(uintptr_t)x, (uint64_t)(uintptr_t)out, 40, f32_slot(1.0f), 0};
    tric_host_buffer bufs[2] = {{x, sizeof x, "x", 0}, {out, sizeof out, NULL, 0}};
    char *err = NULL;
    int st = tric_interpret(k, 3, 1, 1, slots, 2, bufs, &err);
    CHECK(st == TRIC_ERR_INTERPRET);
    const char *want = "kern.py:9:5: error: out-of-bounds store: element (8) writes 4 bytes at offset +160 of "
                       "buffer 'buffer1' (160 bytes) in program (2, 0, 0)\n"
                       "    tl.store(out_ptr + offs, x * a + b)\n"
                       "    ^\n";
    if (!err || strcmp(err, want) != 0) fprintf(stderr, "got:\n%s\nwant:\n%s", err ? err : "(null)", want);
    CHECK(err && strcmp(err, want) == 0);
    tric_free(err);
    /* a grid with a zero dimension runs nothing */
    CHECK(tric_interpret(k, 0, 1, 1, slots, 2, bufs, NULL) == TRIC_OK);
    tric_kernel_free(k);
}

static void test_division_by_zero(void) {
    tric_kernel *k = compile("idiv", "*i32, i32");
    if (!k) return;
    int32_t v = -9;
    uint64_t slots[2] = {(uint64_t)(uintptr_t)&v, 2};
    tric_host_buffer buf = {&v, sizeof v, "x", 0};
    CHECK(tric_interpret(k, 1, 1, 1, slots, 1, &buf, NULL) == TRIC_OK);
    CHECK(v == -4);   /* // truncates toward zero, as on the GPU */
    slots[1] = 0;
    char *err = NULL;
    CHECK(tric_interpret(k, 1, 1, 1, slots, 1, &buf, &err) == TRIC_ERR_INTERPRET);
    CHECK(err && strstr(err, "kern.py:13:") == err && strstr(err, "integer division by zero"));
    tric_free(err);
    tric_kernel_free(k);
}

static void test_bad_arguments(void) {
    char *err = NULL;
    CHECK(tric_interpret(NULL, 1, 1, 1, NULL, 0, NULL, &err) == TRIC_ERR_ARG);
    CHECK(err && strstr(err, "kernel is NULL"));
    tric_free(err);
    tric_kernel *k = compile("idiv", "*i32, i32");
    if (!k) return;
    CHECK(tric_interpret(k, 1, 1, 1, NULL, 0, NULL, &err) == TRIC_ERR_ARG);
    CHECK(err && strstr(err, "slots is NULL"));
    tric_free(err);
    uint64_t slots[2] = {0, 1};
    CHECK(tric_interpret(k, 1, 1, 1, slots, 2, NULL, &err) == TRIC_ERR_ARG);
    CHECK(err && strstr(err, "bufs is NULL"));
    tric_free(err);
    /* no buffers at all: the load is out of bounds of everything */
    CHECK(tric_interpret(k, 1, 1, 1, slots, 0, NULL, &err) == TRIC_ERR_INTERPRET);
    CHECK(err && strstr(err, "kern.py:13:"));
    tric_free(err);
    tric_kernel_free(k);
}

/* A kernel compiled from a file and then read back from the disk cache
 * still interprets, with messages pointing into that file. */
static void test_from_file_and_cache(void) {
    char dir[] = "/tmp/tric-interp-XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(!"mkdtemp");
        return;
    }
    char path[64], cache[64];
    snprintf(path, sizeof path, "%s/k.py", dir);
    snprintf(cache, sizeof cache, "%s/cache", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs(src, f);
    fclose(f);
    setenv("TRIC_CACHE_DIR", cache, 1);
    for (int round = 0; round < 2; round++) {
        tric_options opt = {.arch = "sm_80", .num_warps = 0, .num_stages = 0};
        tric_kernel *k = NULL;
        CHECK(tric_compile_file(path, "idiv", "*i32, i32", &opt, &k, NULL) == TRIC_OK);
        if (!k) break;
        CHECK(tric_kernel_cache_hit(k) == round);
        int32_t v = 21;
        uint64_t slots[2] = {(uint64_t)(uintptr_t)&v, 0};
        tric_host_buffer buf = {&v, sizeof v, "x", 0};
        char *err = NULL;
        CHECK(tric_interpret(k, 1, 1, 1, slots, 1, &buf, &err) == TRIC_ERR_INTERPRET);
        CHECK(err && strncmp(err, path, strlen(path)) == 0 && strstr(err, "    tl.store(x_ptr, tl.load(x_ptr) // d)\n"));
        tric_free(err);
        slots[1] = 4;
        CHECK(tric_interpret(k, 1, 1, 1, slots, 1, &buf, NULL) == TRIC_OK && v == 5);
        tric_kernel_free(k);
    }
    unsetenv("TRIC_CACHE_DIR");
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
}

int main(void) {
    test_masked_axpb();
    test_out_of_bounds();
    test_division_by_zero();
    test_bad_arguments();
    test_from_file_and_cache();
    return failures != 0;
}
