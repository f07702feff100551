/* `tric --emit c` on the GPU: kernels/matmul.py's matmul_kernel, 128x128x64
 * tiles in 3 stages (96 KB of shared memory: the launcher opts in), as a
 * launcher over two specializations (16-byte aligned pointers, :16 sizes
 * and unit strides; and the general one) for sm_80 and sm_90a, compared
 * with a CPU product. The Makefile's gpu-test writes aot_matmul.tric.[ch]
 * and builds this with the CUDA driver API for the memory calls.
 *
 *   aot_matmul          M = N = K = 512 (aligned) and 200 x 136 x 72 (not), on every device */
#include <cuda.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aot_matmul.tric.h"

#define CHECK(call)                                                      \
    do {                                                                 \
        CUresult r_ = (call);                                            \
        if (r_ != CUDA_SUCCESS) {                                        \
            const char *s_ = "?";                                        \
            cuGetErrorString(r_, &s_);                                   \
            fprintf(stderr, "aot_matmul: %s: %s\n", #call, s_);          \
            exit(1);                                                     \
        }                                                                \
    } while (0)

/* fp16 <-> fp32 for the values used here (normal numbers, no rounding needed going in) */
static uint16_t to_half(float f) {
    uint32_t b;
    memcpy(&b, &f, 4);
    if (!(b & 0x7fffffff)) return (uint16_t)(b >> 16);
    int e = (int)((b >> 23) & 0xff) - 127 + 15;
    return (uint16_t)(((b >> 16) & 0x8000) | (uint32_t)(e << 10) | ((b >> 13) & 0x3ff));
}

static float from_half(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;
    float f = e ? ldexpf((float)(m | 0x400), (int)e - 25) : ldexpf((float)m, -24);
    uint32_t b;
    memcpy(&b, &f, 4);
    b |= sign;
    memcpy(&f, &b, 4);
    return f;
}

static int run(int M, int N, int K) {
    size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
    uint16_t *a = malloc(2 * na), *b = malloc(2 * nb), *c = malloc(2 * nc);
    float *fa = malloc(4 * na), *fb = malloc(4 * nb);
    srand(M * 7 + N);
    for (size_t i = 0; i < na; i++) fa[i] = (float)(rand() % 17 - 8) / 8.0f, a[i] = to_half(fa[i]);
    for (size_t i = 0; i < nb; i++) fb[i] = (float)(rand() % 17 - 8) / 8.0f, b[i] = to_half(fb[i]);
    CUdeviceptr da, db, dc;
    CHECK(cuMemAlloc(&da, 2 * na));
    CHECK(cuMemAlloc(&db, 2 * nb));
    CHECK(cuMemAlloc(&dc, 2 * nc));
    CHECK(cuMemcpyHtoD(da, a, 2 * na));
    CHECK(cuMemcpyHtoD(db, b, 2 * nb));
    CHECK(cuMemsetD8(dc, 0xff, 2 * nc));   /* poisoned: NaN where nothing is written */
    unsigned grid = (unsigned)(((M + 127) / 128) * ((N + 127) / 128));
    if (matmul_kernel(NULL, grid, 1, 1, da, db, dc, M, N, K, K, 1, N, 1, N, 1) != TRIC_OK) {
        fprintf(stderr, "aot_matmul: %s\n", matmul_kernel_last_error());
        return 1;
    }
    CHECK(cuCtxSynchronize());
    CHECK(cuMemcpyDtoH(c, dc, 2 * nc));
    int bad = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float want = 0;
            for (int k = 0; k < K; k++) want += fa[(size_t)i * K + k] * fb[(size_t)k * N + j];
            float got = from_half(c[(size_t)i * N + j]);
            if (!(fabsf(got - want) <= 1e-2f * fabsf(want) + 1e-2f) && bad++ < 3)
                fprintf(stderr, "aot_matmul %dx%dx%d: c[%d][%d] = %g, want %g\n", M, N, K, i, j, got, want);
        }
    printf("aot_matmul %dx%dx%d: %s\n", M, N, K, bad ? "WRONG" : "ok");
    CHECK(cuMemFree(da));
    CHECK(cuMemFree(db));
    CHECK(cuMemFree(dc));
    free(a), free(b), free(c), free(fa), free(fb);
    return bad != 0;
}

/* every device in turn, each in its primary context: the launcher loads
 * the module into each context at its first launch there */
int main(void) {
    int n = 0, failed = 0;
    CHECK(cuInit(0));
    CHECK(cuDeviceGetCount(&n));
    for (int d = 0; d < n; d++) {
        CUdevice dev;
        CUcontext ctx;
        CHECK(cuDeviceGet(&dev, d));
        CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
        CHECK(cuCtxSetCurrent(ctx));
        printf("device %d:\n", d);
        failed |= run(512, 512, 512) | run(200, 136, 72);
        CHECK(cuCtxSetCurrent(NULL));
        CHECK(cuDevicePrimaryCtxRelease(dev));
    }
    return failed;
}
