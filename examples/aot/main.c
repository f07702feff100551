/* A C program that runs a Triton kernel compiled ahead of time: no Python,
 * no libtric, only the CUDA driver. The launcher add_kernel() comes from
 * add.tric.h/.c, which `make` writes from add.py (see the Makefile).
 *
 *   make run            build and run it (on the first GPU)
 *   ./vector_add N      N elements (default 1000000) */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>

#include "add.tric.h"

#define CHECK(call)                                                      \
    do {                                                                 \
        CUresult r_ = (call);                                            \
        if (r_ != CUDA_SUCCESS) {                                        \
            const char *s_ = "?";                                        \
            cuGetErrorString(r_, &s_);                                   \
            fprintf(stderr, "vector_add: %s: %s\n", #call, s_);          \
            return 1;                                                    \
        }                                                                \
    } while (0)

/* out = x + y over n elements starting `skip` elements into each buffer
 * (skip 1: pointers not 16-byte aligned, so the general specialization). */
static int add_and_check(CUdeviceptr x, CUdeviceptr y, CUdeviceptr out, const float *hx, const float *hy, float *hout,
                         int n, int skip) {
    CUdeviceptr dx = x + 4u * (unsigned)skip, dy = y + 4u * (unsigned)skip, dout = out + 4u * (unsigned)skip;
    int m = n - skip;
    if (add_kernel(NULL, (unsigned)(m + 1023) / 1024, 1, 1, dx, dy, dout, m) != TRIC_OK) {
        fprintf(stderr, "vector_add: %s\n", add_kernel_last_error());
        return 1;
    }
    CHECK(cuCtxSynchronize());
    CHECK(cuMemcpyDtoH(hout, out, sizeof(float) * (size_t)n));
    for (int i = skip; i < n; i++)
        if (hout[i] != hx[i] + hy[i]) {
            fprintf(stderr, "vector_add: out[%d] = %g, expected %g\n", i, hout[i], hx[i] + hy[i]);
            return 1;
        }
    return 0;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1000000;
    if (n < 2) n = 2;
    size_t bytes = sizeof(float) * (size_t)n;
    float *hx = malloc(bytes), *hy = malloc(bytes), *hout = malloc(bytes);
    if (!hx || !hy || !hout) return 1;
    for (int i = 0; i < n; i++) hx[i] = (float)i, hy[i] = 0.5f * (float)(n - i);

    CUdevice dev;
    CUcontext ctx;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    CUdeviceptr x, y, out;
    CHECK(cuMemAlloc(&x, bytes));
    CHECK(cuMemAlloc(&y, bytes));
    CHECK(cuMemAlloc(&out, bytes));
    CHECK(cuMemcpyHtoD(x, hx, bytes));
    CHECK(cuMemcpyHtoD(y, hy, bytes));
    if (add_and_check(x, y, out, hx, hy, hout, n, 0) || add_and_check(x, y, out, hx, hy, hout, n, 1)) return 1;
    printf("add_kernel: %d elements correct, aligned and not\n", n);
    CHECK(cuMemFree(x));
    CHECK(cuMemFree(y));
    CHECK(cuMemFree(out));
    CHECK(cuDevicePrimaryCtxRelease(dev));
    free(hx);
    free(hy);
    free(hout);
    return 0;
}
