/* The C that `tric --emit c` writes for test/aot/kernels.py, built and run
 * against test/aot/fake_cuda.c (a libcuda.so.1 whose PTX launches run on
 * tric's simulator): which specialization each call picks, which image is
 * loaded for which device, one load per context (also when threads race),
 * argument passing, and the errors: no driver, no context, no image for
 * the device. test/run.sh generates kernels.h/.c, builds this with them
 * and runs it with the fake first on LD_LIBRARY_PATH.
 *
 *   aot_test noinit       the driver's cuInit fails: TRIC_ERR_NO_DRIVER
 *   aot_test              everything else (HAVE_CUBIN: the file has cubins) */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"

static void (*fake_set)(const char *, long);
static void (*fake_buffer)(void *, size_t);
static char *(*fake_take_log)(void);
static int failures;

#define CHECK(cond, ...)                                          \
    do {                                                          \
        if (!(cond)) {                                            \
            fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);       \
            fprintf(stderr, __VA_ARGS__);                         \
            fputc('\n', stderr);                                  \
            failures++;                                           \
        }                                                         \
    } while (0)

/* the log since the last call, which must contain each of want's lines, in order */
static void expect_log(const char *what, const char *const *want, int n) {
    char *log = fake_take_log();
    const char *at = log;
    for (int i = 0; i < n; i++) {
        const char *p = strstr(at, want[i]);
        CHECK(p, "%s: the driver log lacks '%s' (after what came before):\n%s", what, want[i], log);
        if (p) at = p + strlen(want[i]);
    }
    free(log);
}

static int count_in_log(const char *s) {
    char *log = fake_take_log();
    int n = 0;
    for (const char *p = log; (p = strstr(p, s)); p++) n++;
    free(log);
    return n;
}

#define N 1024
static float x[N + 4], y[N], out[N];

static void fill(void) {
    for (int i = 0; i < N; i++) x[i] = (float)i * 0.5f, y[i] = (float)(N - i), out[i] = -1.0f;
    x[N] = 7.0f;
}

static void check_add(const float *xs, int n) {
    int bad = 0;
    for (int i = 0; i < N; i++) {
        float want = i < n ? xs[i] + y[i] : -1.0f;
        if (out[i] != want && bad++ < 3) CHECK(0, "add n=%d: out[%d] = %g, want %g", n, i, out[i], want);
    }
}

static CUdeviceptr dev(const void *p) { return (CUdeviceptr)(uintptr_t)p; }

static void test_add(void) {
    const char *load90[] = {
#if HAVE_CUBIN
        "refuse cubin",
#endif
        "load ptx sm_90a", "launch ptx add_kernel_0 grid 4,1,1 block 128,1,1 shared 0"};
    fill();
    CHECK(add_kernel(NULL, 4, 1, 1, dev(x), dev(y), dev(out), N) == TRIC_OK, "%s", add_kernel_last_error());
    check_add(x, N);
    expect_log("aligned, n % 16 == 0", load90, 3 - !HAVE_CUBIN);

    fill();   /* n = 1000: the general specialization, loaded now */
    CHECK(add_kernel(NULL, 4, 1, 1, dev(x), dev(y), dev(out), 1000) == TRIC_OK, "%s", add_kernel_last_error());
    check_add(x, 1000);
    const char *general[] = {"load ptx sm_90a", "launch ptx add_kernel_1 grid 4,1,1"};
    expect_log("n = 1000", general, 2);

    fill();   /* x misaligned: the general one again, already loaded */
    CHECK(add_kernel(NULL, 4, 1, 1, dev(x + 1), dev(y), dev(out), N) == TRIC_OK, "%s", add_kernel_last_error());
    check_add(x + 1, N);
    const char *again[] = {"launch ptx add_kernel_1 grid 4,1,1"};
    expect_log("misaligned x", again, 1);

    fill();   /* n == 1: the ":1" specialization, which takes no n */
    CHECK(add_kernel(NULL, 1, 1, 1, dev(x), dev(y), dev(out), 1) == TRIC_OK, "%s", add_kernel_last_error());
    check_add(x, 1);
    const char *one[] = {"launch ptx add_kernel_2 grid 1,1,1"};
    expect_log("n = 1", one, 1);

    CHECK(add_kernel(NULL, 0, 1, 1, dev(x), dev(y), dev(out), N) == TRIC_OK, "an empty grid");
    CHECK(count_in_log("launch") == 0, "an empty grid launched something");
}

static void test_scale(void) {
    fill();
    CHECK(scale_kernel(NULL, 4, 2, 1, dev(x), dev(out), 2.5f, 500, true, 0.25) == TRIC_OK, "%s",
          scale_kernel_last_error());
    int bad = 0;
    for (int i = 0; i < N; i++) {
        float want = i < 500 ? -(2.5f * x[i] + 0.25f) : -1.0f;
        if (out[i] != want && bad++ < 3) CHECK(0, "scale: out[%d] = %g, want %g", i, out[i], want);
    }
    const char *log[] = {"launch ptx scale_kernel grid 4,2,1 block 64,1,1"};
    expect_log("scale", log, 1);
}

static void *race(void *arg) {
    (void)arg;
    for (int i = 0; i < 4; i++)
        if (add_kernel(NULL, 1, 1, 1, dev(x), dev(y), dev(out), 16) != TRIC_OK) return (void *)1;
    return NULL;
}

int main(int argc, char **argv) {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib || !(*(void **)&fake_set = dlsym(lib, "fake_cuda_set")) ||
        !(*(void **)&fake_buffer = dlsym(lib, "fake_cuda_buffer")) ||
        !(*(void **)&fake_take_log = dlsym(lib, "fake_cuda_take_log"))) {
        fprintf(stderr, "aot_test: the fake libcuda.so.1 is not first on LD_LIBRARY_PATH\n");
        return 1;
    }
    fake_buffer(x, sizeof x);
    fake_buffer(y, sizeof y);
    fake_buffer(out, sizeof out);
    if (argc > 1 && !strcmp(argv[1], "noinit")) {
        fake_set("refuse_init", 1);
        CHECK(add_kernel(NULL, 1, 1, 1, dev(x), dev(y), dev(out), N) == TRIC_ERR_NO_DRIVER, "no device");
        CHECK(!strcmp(add_kernel_last_error(), "add_kernel: cuInit: CUDA_ERROR_NO_DEVICE"), "message: %s",
              add_kernel_last_error());
        return failures != 0;
    }
    fake_set("reject_cubin", 1);

    fake_set("context", 0);
    CHECK(add_kernel(NULL, 1, 1, 1, dev(x), dev(y), dev(out), N) == TRIC_ERR_CUDA, "no context");
    CHECK(strstr(add_kernel_last_error(), "add_kernel: the calling thread has no current CUDA context"), "message: %s",
          add_kernel_last_error());

    fake_set("context", 1);
    fake_set("cc", 90);
    test_add();
    test_scale();
    CHECK(!strcmp(add_kernel_last_error(), ""), "a success leaves the message empty: %s", add_kernel_last_error());

    /* another context on an sm_80 device: loaded again, the sm_80 image */
    fake_set("context", 2);
    fake_set("cc", 86);
    fill();
    CHECK(add_kernel(NULL, 4, 1, 1, dev(x), dev(y), dev(out), N) == TRIC_OK, "%s", add_kernel_last_error());
    check_add(x, N);
    const char *sm80[] = {"load ptx sm_80", "launch ptx add_kernel_0 grid 4,1,1"};
    expect_log("sm_86 device", sm80, 2);

    /* a device no image runs on */
    fake_set("context", 3);
    fake_set("cc", 75);
    CHECK(add_kernel(NULL, 4, 1, 1, dev(x), dev(y), dev(out), N) == TRIC_ERR_CUDA, "sm_75");
    CHECK(strstr(add_kernel_last_error(), "compiled for sm_90a, sm_80, which device 0 (sm_75) cannot run"),
          "message: %s", add_kernel_last_error());
    free(fake_take_log());

#if HAVE_CUBIN
    /* a driver that takes the cubin: it is loaded, not the PTX */
    fake_set("context", 4);
    fake_set("cc", 90);
    fake_set("reject_cubin", 0);
    CHECK(add_kernel(NULL, 4, 1, 1, dev(x), dev(y), dev(out), N) == TRIC_OK, "%s", add_kernel_last_error());
    const char *cubin[] = {"load cubin", "launch cubin add_kernel_0"};
    expect_log("cubin", cubin, 2);
    fake_set("reject_cubin", 1);
#endif

    /* eight threads race to the first launch in a new context: one load */
    fake_set("context", 5);
    fake_set("context_ids", 0);   /* a driver without cuCtxGetId: the handle keys it */
    fill();
    pthread_t t[8];
    for (int i = 0; i < 8; i++) pthread_create(&t[i], NULL, race, NULL);
    int failed = 0;
    for (int i = 0; i < 8; i++) {
        void *r;
        pthread_join(t[i], &r);
        failed += r != NULL;
    }
    CHECK(!failed, "%d threads failed to launch", failed);
    CHECK(count_in_log("load ptx") == 1, "racing threads loaded the module more than once");
    check_add(x, 16);

    if (failures) fprintf(stderr, "aot_test: %d failures\n", failures);
    return failures != 0;
}
