/* The tric C API end to end: compile a vector-add kernel from its Python
 * file, run it on the GPU, check the result, and time it.
 *
 *   cc -I runtime examples/vector_add.c build/libtric.a -ldl -lm -lpthread
 *   ./a.out kernels/vector_add.py add_kernel '*fp32:16, *fp32:16, *fp32:16, i32, 1024' 1024
 *
 * The kernel must take (x, y, out, n) and compute out = x + y, each program
 * handling BLOCK elements. Without a GPU it compiles and says so. */
#include <stdio.h>
#include <stdlib.h>

#include "tric.h"

static int fail(const char *what, char *err) {
    fprintf(stderr, "vector_add: %s: %s\n", what, err ? err : "");
    tric_free(err);
    return 1;
}

/* out = x + y on the GPU, checked against the host; returns the time per launch. */
static int run(tric_kernel *k, int n, unsigned block, float *ms) {
    char *err = NULL;
    size_t bytes = (size_t)n * sizeof(float);
    float *x = malloc(bytes), *y = malloc(bytes), *out = malloc(bytes);
    if (!x || !y || !out) return fail("malloc", NULL);
    srand(1);
    for (int i = 0; i < n; i++) x[i] = (float)rand() / RAND_MAX, y[i] = (float)rand() / RAND_MAX;
    uint64_t dx = 0, dy = 0, dout = 0;
    if (tric_mem_alloc(&dx, bytes, &err) || tric_mem_alloc(&dy, bytes, &err) || tric_mem_alloc(&dout, bytes, &err) ||
        tric_memcpy_htod(dx, x, bytes, &err) || tric_memcpy_htod(dy, y, bytes, &err))
        return fail("device memory", err);
    void *args[] = {&dx, &dy, &dout, &n};
    unsigned grid = (unsigned)((n + (int)block - 1) / (int)block);
    if (tric_launch(k, grid, 1, 1, args, NULL, &err) || tric_synchronize(&err)) return fail("launch", err);
    if (tric_memcpy_dtoh(out, dout, bytes, &err)) return fail("copy back", err);
    int bad = 0;
    for (int i = 0; i < n; i++)
        if (out[i] != x[i] + y[i] && bad++ < 5) fprintf(stderr, "out[%d] = %g, expected %g\n", i, out[i], x[i] + y[i]);
    if (bad) return fail("wrong result", NULL);
    if (tric_time_ms(k, grid, 1, 1, args, NULL, 20, ms, &err)) return fail("timing", err);
    tric_mem_free(dx, NULL);
    tric_mem_free(dy, NULL);
    tric_mem_free(dout, NULL);
    free(x);
    free(y);
    free(out);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: %s FILE.py KERNEL SIGNATURE BLOCK [N]\n", argv[0]);
        return 1;
    }
    unsigned block = (unsigned)atoi(argv[4]);
    int n = argc > 5 ? atoi(argv[5]) : 1 << 24;
    char *err = NULL, arch[16];
    if (tric_device_arch(arch, sizeof arch, &err) == TRIC_ERR_NO_DRIVER) {
        printf("no GPU here (%s): compiled only, not run\n", err);
        tric_free(err);
        return 0;
    }
    tric_free(err);
    tric_kernel *k;
    if (tric_compile_file(argv[1], argv[2], argv[3], NULL, &k, &err)) return fail("compile", err);
    if (tric_kernel_num_params(k) != 4 || tric_kernel_param(k, 0)->kind != TRIC_PARAM_POINTER ||
        tric_kernel_param(k, 3)->kind != TRIC_PARAM_INT)
        return fail("kernel", "expected parameters (x, y, out, n)");
    float ms = 0;
    if (run(k, n, block, &ms)) return 1;
    printf("%s on %s: %d elements correct; %.3f ms per launch, %.1f GB/s\n", tric_kernel_name(k), arch, n, ms,
           3.0 * 4.0 * n / (ms * 1e6));
    tric_kernel_free(k);
    return 0;
}
