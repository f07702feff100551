/* A stand-in libcuda.so.1 for testing the C that `tric --emit c` writes,
 * without a GPU: the driver calls the launchers make, over one fake device
 * whose compute capability and current context the test sets. A PTX
 * module's kernels run on tric's PTX simulator (sim/) over host memory the
 * test registers; a cubin is accepted (and its launches only logged) or
 * refused, as the test asks. Every load and launch is logged, so the test
 * sees which image and which specialization ran. The memory calls a C
 * program makes (cuMemAlloc, cuMemcpyHtoD, ...) work on host memory, so
 * examples/aot runs here too. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"

typedef struct FakeModule {
    char *ptx;          /* NULL for a cubin */
} FakeModule;

typedef struct FakeFunction {
    FakeModule *mod;
    char *entry;
    int max_dynamic_shared;
} FakeFunction;

static struct {
    long cc, context, context_ids, reject_cubin, refuse_init;
    InterpBuffer buffers[64];
    int n_buffers;
    Buf log;
} fake = {.cc = 90, .context = 1, .context_ids = 1};

/* launches and the log, one thread at a time */
static pthread_mutex_t fake_lock = PTHREAD_MUTEX_INITIALIZER;

static void fake_log(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    pthread_mutex_lock(&fake_lock);
    buf_vprintf(&fake.log, fmt, ap);
    buf_putc(&fake.log, '\n');
    pthread_mutex_unlock(&fake_lock);
    va_end(ap);
}

/* ---- what the test calls (through dlsym) ---- */
void fake_cuda_set(const char *key, long value);
void fake_cuda_set(const char *key, long value) {
    if (!strcmp(key, "cc")) fake.cc = value;
    else if (!strcmp(key, "context")) fake.context = value;   /* 0: none current */
    else if (!strcmp(key, "context_ids")) fake.context_ids = value;
    else if (!strcmp(key, "reject_cubin")) fake.reject_cubin = value;
    else if (!strcmp(key, "refuse_init")) fake.refuse_init = value;
}

void fake_cuda_buffer(void *base, size_t bytes);
void fake_cuda_buffer(void *base, size_t bytes) {
    if (fake.n_buffers < 64) fake.buffers[fake.n_buffers++] = (InterpBuffer){.base = base, .bytes = bytes, .elem = ET_COUNT};
}

/* The log so far, then cleared (the caller frees it). */
char *fake_cuda_take_log(void);
char *fake_cuda_take_log(void) {
    pthread_mutex_lock(&fake_lock);
    char *log = buf_take(&fake.log);
    pthread_mutex_unlock(&fake_lock);
    return log;
}

/* ---- the driver API ---- */
typedef int CUresult;
#define CUDA_ERROR_INVALID_VALUE 1
#define CUDA_ERROR_NO_DEVICE 100
#define CUDA_ERROR_NO_BINARY_FOR_GPU 209
#define CUDA_ERROR_NOT_FOUND 500
#define CUDA_ERROR_LAUNCH_FAILED 719

CUresult cuInit(unsigned flags);
CUresult cuInit(unsigned flags) {
    (void)flags;
    if (getenv("FAKE_CUDA_REJECT_CUBIN")) fake.reject_cubin = 1;   /* for programs that cannot ask */
    return fake.refuse_init ? CUDA_ERROR_NO_DEVICE : 0;
}

CUresult cuCtxGetCurrent(void **ctx);
CUresult cuCtxGetCurrent(void **ctx) {
    *ctx = fake.context ? (void *)(0x1000 * fake.context) : NULL;
    return 0;
}

CUresult cuCtxGetDevice(int *dev);
CUresult cuCtxGetDevice(int *dev) {
    *dev = 0;
    return 0;
}

CUresult cuCtxGetId(void *ctx, unsigned long long *id);
CUresult cuCtxGetId(void *ctx, unsigned long long *id) {
    if (!fake.context_ids) return CUDA_ERROR_INVALID_VALUE;
    *id = 7000 + (unsigned long long)ctx / 0x1000;
    return 0;
}

CUresult cuDeviceGetAttribute(int *v, int attr, int dev);
CUresult cuDeviceGetAttribute(int *v, int attr, int dev) {
    (void)dev;
    if (attr == 75) *v = (int)fake.cc / 10;
    else if (attr == 76) *v = (int)fake.cc % 10;
    else return CUDA_ERROR_INVALID_VALUE;
    return 0;
}

CUresult cuModuleLoadDataEx(FakeModule **mod, const void *image, unsigned n, int *opts, void **vals);
CUresult cuModuleLoadDataEx(FakeModule **mod, const void *image, unsigned n, int *opts, void **vals) {
    const unsigned char *b = image;
    bool cubin = b[0] == 0x7f && b[1] == 'E' && b[2] == 'L' && b[3] == 'F';
    if (cubin && fake.reject_cubin) {
        fake_log("refuse cubin");
        return CUDA_ERROR_NO_BINARY_FOR_GPU;
    }
    const char *target = cubin ? NULL : strstr(image, ".target ");
    if (!cubin && (!target || n != 2 || opts[0] != 5 || !vals[0])) return CUDA_ERROR_INVALID_VALUE;
    FakeModule *m = calloc(1, sizeof *m);
    if (!cubin) m->ptx = strdup(image);
    fake_log("load %s%.*s", cubin ? "cubin" : "ptx ", cubin ? 0 : (int)strcspn(target + 8, "\n"), cubin ? "" : target + 8);
    *mod = m;
    return 0;
}

CUresult cuModuleUnload(FakeModule *m);
CUresult cuModuleUnload(FakeModule *m) {
    free(m->ptx);
    free(m);
    return 0;
}

CUresult cuModuleGetFunction(FakeFunction **f, FakeModule *m, const char *name);
CUresult cuModuleGetFunction(FakeFunction **f, FakeModule *m, const char *name) {
    if (m->ptx) {
        char pat[256];
        snprintf(pat, sizeof pat, ".entry %s(", name);
        if (!strstr(m->ptx, pat)) return CUDA_ERROR_NOT_FOUND;
    }
    *f = calloc(1, sizeof **f);
    (*f)->mod = m;
    (*f)->entry = strdup(name);
    return 0;
}

CUresult cuFuncSetAttribute(FakeFunction *f, int attr, int value);
CUresult cuFuncSetAttribute(FakeFunction *f, int attr, int value) {
    if (attr != 8) return CUDA_ERROR_INVALID_VALUE;
    f->max_dynamic_shared = value;
    fake_log("opt in %d B shared", value);
    return value > 227 * 1024 ? CUDA_ERROR_INVALID_VALUE : 0;
}

/* The byte size of each .param of the entry, in order. */
static int param_sizes(const char *ptx, const char *entry, int *sizes, int max) {
    char pat[256];
    snprintf(pat, sizeof pat, ".entry %s(", entry);
    const char *p = strstr(ptx, pat), *end = p ? strchr(p, ')') : NULL;
    int n = 0;
    for (p = p ? strstr(p, ".param ") : NULL; p && p < end && n < max; p = strstr(p + 1, ".param ")) {
        const char *t = p + 7;
        if (!strncmp(t, ".align", 6)) sizes[n++] = 128;   /* a tensor map */
        else if (!strncmp(t, ".u64", 4) || !strncmp(t, ".b64", 4) || !strncmp(t, ".f64", 4)) sizes[n++] = 8;
        else if (!strncmp(t, ".u32", 4) || !strncmp(t, ".b32", 4) || !strncmp(t, ".f32", 4)) sizes[n++] = 4;
        else if (!strncmp(t, ".u16", 4) || !strncmp(t, ".b16", 4)) sizes[n++] = 2;
        else sizes[n++] = 1;
    }
    return n;
}

CUresult cuLaunchKernel(FakeFunction *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned shared, void *stream, void **params, void **extra);
CUresult cuLaunchKernel(FakeFunction *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned shared, void *stream, void **params, void **extra) {
    (void)stream;
    fake_log("launch %s %s grid %u,%u,%u block %u,%u,%u shared %u", f->mod->ptx ? "ptx" : "cubin", f->entry, gx, gy,
             gz, bx, by, bz, shared);
    if (extra || by != 1 || bz != 1) return CUDA_ERROR_INVALID_VALUE;
    if (shared > 48 * 1024 && (int)shared > f->max_dynamic_shared) return CUDA_ERROR_INVALID_VALUE;
    if (!f->mod->ptx) return 0;   /* a cubin does not run here */
    int sizes[64];
    int n = param_sizes(f->mod->ptx, f->entry, sizes, 64);
    uint64_t slots[64] = {0};
    for (int i = 0; i < n; i++) memcpy(&slots[i], params[i], (size_t)(sizes[i] < 8 ? sizes[i] : 8));
    InterpLaunch data = {.grid = {gx, gy, gz}, .args = slots, .n_args = (uint32_t)n, .buffers = fake.buffers,
                         .n_buffers = (uint32_t)fake.n_buffers};
    SimLaunch sl = {.ptx = f->mod->ptx, .entry = f->entry, .threads = bx, .shared_bytes = shared, .data = &data};
    Buf err = {0};
    pthread_mutex_lock(&fake_lock);
    bool ok = sim_run(&sl, &err);
    pthread_mutex_unlock(&fake_lock);
    if (!ok) fake_log("simulator: %s", buf_str(&err));
    buf_free(&err);
    return ok ? 0 : CUDA_ERROR_LAUNCH_FAILED;
}

CUresult cuGetErrorName(CUresult r, const char **s);
CUresult cuGetErrorName(CUresult r, const char **s) {
    *s = r == CUDA_ERROR_NO_BINARY_FOR_GPU ? "CUDA_ERROR_NO_BINARY_FOR_GPU"
         : r == CUDA_ERROR_INVALID_VALUE   ? "CUDA_ERROR_INVALID_VALUE"
         : r == CUDA_ERROR_NO_DEVICE       ? "CUDA_ERROR_NO_DEVICE"
         : r == CUDA_ERROR_LAUNCH_FAILED   ? "CUDA_ERROR_LAUNCH_FAILED"
                                           : "CUDA_ERROR_UNKNOWN";
    return 0;
}

CUresult cuGetErrorString(CUresult r, const char **s) ;
CUresult cuGetErrorString(CUresult r, const char **s) {
    *s = r == CUDA_ERROR_NO_BINARY_FOR_GPU ? "no kernel image is available for execution on the device" : "fake";
    return 0;
}

/* ---- a program's own calls: contexts and memory (host memory here) ---- */
CUresult cuDeviceGet(int *dev, int ordinal);
CUresult cuDeviceGet(int *dev, int ordinal) {
    *dev = ordinal;
    return ordinal == 0 ? 0 : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuDevicePrimaryCtxRetain(void **ctx, int dev);
CUresult cuDevicePrimaryCtxRetain(void **ctx, int dev) {
    (void)dev;
    *ctx = (void *)0x1000;
    return 0;
}

CUresult cuDevicePrimaryCtxRelease_v2(int dev);
CUresult cuDevicePrimaryCtxRelease_v2(int dev) {
    (void)dev;
    return 0;
}

CUresult cuCtxSetCurrent(void *ctx);
CUresult cuCtxSetCurrent(void *ctx) {
    fake.context = (long)((uintptr_t)ctx / 0x1000);
    return 0;
}

CUresult cuCtxSynchronize(void);
CUresult cuCtxSynchronize(void) { return 0; }

CUresult cuMemAlloc_v2(unsigned long long *dptr, size_t bytes);
CUresult cuMemAlloc_v2(unsigned long long *dptr, size_t bytes) {
    void *p = calloc(1, bytes ? bytes : 1);
    if (!p || fake.n_buffers == 64) return CUDA_ERROR_INVALID_VALUE;
    fake_cuda_buffer(p, bytes);
    *dptr = (unsigned long long)(uintptr_t)p;
    return 0;
}

CUresult cuMemFree_v2(unsigned long long dptr);
CUresult cuMemFree_v2(unsigned long long dptr) {
    for (int i = 0; i < fake.n_buffers; i++)
        if ((uintptr_t)fake.buffers[i].base == dptr) {
            free(fake.buffers[i].base);
            fake.buffers[i] = fake.buffers[--fake.n_buffers];
            return 0;
        }
    return CUDA_ERROR_INVALID_VALUE;
}

CUresult cuMemcpyHtoD_v2(unsigned long long dst, const void *src, size_t bytes);
CUresult cuMemcpyHtoD_v2(unsigned long long dst, const void *src, size_t bytes) {
    memcpy((void *)(uintptr_t)dst, src, bytes);
    return 0;
}

CUresult cuMemcpyDtoH_v2(void *dst, unsigned long long src, size_t bytes);
CUresult cuMemcpyDtoH_v2(void *dst, unsigned long long src, size_t bytes) {
    memcpy(dst, (const void *)(uintptr_t)src, bytes);
    return 0;
}
