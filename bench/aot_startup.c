/* The cold start of a kernel in a C program, one way per build (bench/aot_startup.sh):
 *
 *   -DWAY_TRIC      the launcher `tric --emit c` wrote (aot.tric.h: KERNEL_FN)
 *   -DWAY_TRITON    the C that Triton's AOT tool wrote (TT_FN, TT_FUNC its CUfunction)
 *   -DWAY_JIT       libtric: tric_compile_file + tric_launch (PY, KERNEL, SIG)
 *
 * KIND_ADD: a vector add of N floats; KIND_MM: an fp16 matmul M = N = K = 512.
 * Prints "init_ms A first_ms B" (A: main to a context with inputs; B: from
 * then to the first launch finished) and, with a second argument COUNT,
 * "launch_us X direct_us Y": host time per launch of COUNT launches through
 * the way's launcher, and through cuLaunchKernel on the same kernel (tric:
 * the PTX file named by argv[1], loaded directly; Triton: its CUfunction). */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if defined(WAY_TRIC)
#include "aot.tric.h"
#elif defined(WAY_TRITON)
#include TT_HEADER
extern CUfunction TT_FUNC;
#elif defined(WAY_JIT)
#include "tric.h"
#endif

#define CHECK(call)                                                      \
    do {                                                                 \
        CUresult r_ = (call);                                            \
        if (r_ != CUDA_SUCCESS) {                                        \
            const char *s_ = "?";                                        \
            cuGetErrorString(r_, &s_);                                   \
            fprintf(stderr, "aot_startup: %s: %s\n", #call, s_);         \
            exit(1);                                                     \
        }                                                                \
    } while (0)

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

#ifdef KIND_MM
enum { M = 512, SIZE = M * M };
#define GRID ((M / 128) * (M / 128))
#else
enum { SIZE = 1024 };
#define GRID 1   /* one program: the cost is the launch, not the kernel */
#endif

static CUdeviceptr a, b, c;

/* one launch of the way under test */
static void launch(unsigned grid) {
#if defined(WAY_TRIC)
#ifdef KIND_MM
    tric_status st = matmul_kernel(NULL, grid, 1, 1, a, b, c, M, M, M, M, M, M);   /* unit strides baked */
#else
    tric_status st = add_kernel(NULL, grid, 1, 1, a, b, c, SIZE);
#endif
    if (st) {
        fprintf(stderr, "aot_startup: %s\n", KERNEL_ERROR());
        exit(1);
    }
#elif defined(WAY_TRITON)
    (void)grid;
    CHECK(TT_FN(NULL, a, b, c, SIZE));
#elif defined(WAY_JIT)
    static tric_kernel *k;
    char *err = NULL;
    if (!k && tric_compile_file(PY, KERNEL, SIG, NULL, &k, &err)) {
        fprintf(stderr, "aot_startup: %s\n", err);
        exit(1);
    }
#ifdef KIND_MM
    int mm[] = {M, M, M, M, 1, M, 1, M, 1};
    void *args[] = {&a, &b, &c, &mm[0], &mm[1], &mm[2], &mm[3], &mm[5], &mm[7]};   /* unit strides baked */
#else
    int n = SIZE;
    void *args[] = {&a, &b, &c, &n};
#endif
    if (tric_launch(k, grid, 1, 1, args, NULL, &err)) {
        fprintf(stderr, "aot_startup: %s\n", err);
        exit(1);
    }
#endif
}

int main(int argc, char **argv) {
    double t0 = now_ms();
    CUdevice dev;
    CUcontext ctx;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    CHECK(cuMemAlloc(&a, 4 * (size_t)SIZE));
    CHECK(cuMemAlloc(&b, 4 * (size_t)SIZE));
    CHECK(cuMemAlloc(&c, 4 * (size_t)SIZE));
    CHECK(cuMemsetD8(a, 0, 4 * (size_t)SIZE));
    CHECK(cuMemsetD8(b, 0, 4 * (size_t)SIZE));
    CHECK(cuCtxSynchronize());
    double t1 = now_ms();
    launch(GRID);
    CHECK(cuCtxSynchronize());
    double t2 = now_ms();
    printf("init_ms %.3f first_ms %.3f\n", t1 - t0, t2 - t1);
    if (argc < 3) return 0;
    int count = atoi(argv[2]);
    double s = now_ms();
    for (int i = 0; i < count; i++) launch(1);
    double e = now_ms();
    CHECK(cuCtxSynchronize());
    double direct = 0;
#if defined(WAY_TRIC) || defined(WAY_TRITON)
    CUfunction f;
#if defined(WAY_TRIC)
    FILE *fp = fopen(argv[1], "rb");
    static char ptx[1 << 20];
    size_t got = fp ? fread(ptx, 1, sizeof ptx - 1, fp) : 0;
    if (fp) fclose(fp);
    ptx[got] = 0;
    CUmodule mod;
    CHECK(cuModuleLoadData(&mod, ptx));
    CHECK(cuModuleGetFunction(&f, mod, "add_kernel"));
    unsigned threads = 128;
    int n = SIZE;
    void *args[] = {&a, &b, &c, &n};
#else
    f = TT_FUNC;
    unsigned threads = 128;
    int n = SIZE;
    CUdeviceptr gs = 0, ps = 0;
    void *args[] = {&a, &b, &c, &n, &gs, &ps};
#endif
    double ds = now_ms();
    for (int i = 0; i < count; i++) CHECK(cuLaunchKernel(f, 1, 1, 1, threads, 1, 1, 0, NULL, args, NULL));
    double de = now_ms();
    CHECK(cuCtxSynchronize());
    direct = (de - ds) * 1e3 / count;
#endif
    printf("launch_us %.3f direct_us %.3f\n", (e - s) * 1e3 / count, direct);
    return 0;
}
