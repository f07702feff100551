/* A stand-in libcuda.so.1 for the Python tests on machines without a GPU:
 * every driver call tric makes succeeds, and launches are recorded instead
 * of run, so a test can check what the Python package passed (grid, block,
 * stream, each parameter's bytes) and time the launch path without a GPU.
 *
 *   cc -shared -fPIC -o DIR/libcuda.so.1 test/python/fake_cuda.c
 *   LD_LIBRARY_PATH=DIR python3 ...      (tric dlopens "libcuda.so.1")
 *
 * There are $TRIC_FAKE_DEVICES devices (default 2), each reporting compute
 * capability 9.0, with a primary context each and a current context per
 * thread, as the real driver keeps them: a module belongs to the context
 * current when it was loaded, and launching or unloading it from another
 * is an error (CUDA_ERROR_INVALID_HANDLE). Device d's memory lies at
 * (d + 1) << 40. A tensor map is encoded as words: the address, dims 0 and
 * 1, stride 1, box dims 0 and 1, then the swizzle, OOB fill and data type
 * (a parameter of more than 8 bytes is recorded by its first 8).
 * fake_last_launch(), fake_last_device(), fake_last_cooperative() and
 * fake_launch_count() read the record (through ctypes). Not thread-safe
 * beyond the current context: the tests launch from one thread at a time. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;

enum { MAX_PARAMS = 64 };

/* the last launch */
static struct {
    unsigned grid[3], block[3], shared;
    void *stream;
    int n_params;
    uint64_t params[MAX_PARAMS];
} last;
static long launches;
static int param_bytes[MAX_PARAMS];   /* the byte size of each parameter, set by the test */
enum { MAX_DEVICES = 8, MAX_MODULES = 4096, CUDA_ERROR_INVALID_CONTEXT = 201, CUDA_ERROR_INVALID_HANDLE = 400 };
static int fake_modules;
static int module_device[MAX_MODULES];   /* by handle: the device of the context it was loaded into */
static int last_device = -1;             /* the current context's device at the last launch */
static char primary[MAX_DEVICES];        /* device d's primary context is &primary[d] */
static __thread char *current;           /* this thread's current context */
static __thread char *pushed[16];        /* cuCtxPushCurrent's stack */
static __thread int n_pushed;

static int n_devices(void) {
    const char *s = getenv("TRIC_FAKE_DEVICES");
    int n = s ? atoi(s) : 2;
    return n < 0 ? 0 : n > MAX_DEVICES ? MAX_DEVICES : n;
}

/* the current context's device, -1 when none */
static int current_device(void) { return current ? (int)(current - primary) : -1; }

int fake_launch_count(void);
int fake_last_device(void);
int fake_last_device(void) { return last_device; }
static int last_cooperative;   /* the last launch was cuLaunchCooperativeKernel's */

int fake_last_launch(unsigned *grid, unsigned *block, void **stream, uint64_t *params, int max_params);
void fake_set_param_bytes(const int *bytes, int n);

int fake_launch_count(void) { return (int)launches; }

/* Copies the record out; returns the number of parameters recorded. */
int fake_last_launch(unsigned *grid, unsigned *block, void **stream, uint64_t *params, int max_params) {
    memcpy(grid, last.grid, sizeof last.grid);
    memcpy(block, last.block, sizeof last.block);
    *stream = last.stream;
    int n = last.n_params < max_params ? last.n_params : max_params;
    memcpy(params, last.params, sizeof(uint64_t) * (size_t)n);
    return last.n_params;
}

/* cuLaunchKernel does not say how many parameters there are or their
 * sizes (the real driver reads them from the cubin): the test says. */
void fake_set_param_bytes(const int *bytes, int n) {
    memset(param_bytes, 0, sizeof param_bytes);
    for (int i = 0; i < n && i < MAX_PARAMS; i++) param_bytes[i] = bytes[i];
    last.n_params = 0;
}

CUresult cuGetErrorName(CUresult r, const char **s);
CUresult cuGetErrorString(CUresult r, const char **s);
CUresult cuInit(unsigned flags);
CUresult cuDeviceGet(int *dev, int ordinal);
CUresult cuDeviceGetAttribute(int *v, int attr, int dev);
CUresult cuDevicePrimaryCtxRetain(void **ctx, int dev);
CUresult cuCtxSetCurrent(void *ctx);
CUresult cuCtxGetCurrent(void **ctx);
CUresult cuCtxGetDevice(int *dev);
CUresult cuCtxGetId(void *ctx, unsigned long long *id);
CUresult cuCtxPushCurrent_v2(void *ctx);
CUresult cuCtxPopCurrent_v2(void **ctx);
CUresult cuDeviceGetCount(int *n);
CUresult cuCtxSynchronize(void);
CUresult cuModuleLoadDataEx(void **mod, const void *image, unsigned n, int *opts, void **vals);
CUresult cuModuleGetFunction(void **fn, void *mod, const char *name);
CUresult cuModuleUnload(void *mod);
CUresult cuFuncSetAttribute(void *fn, int attr, int v);
CUresult cuFuncGetAttribute(int *v, int attr, void *fn);
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, void *fn, int threads, size_t smem);
CUresult cuMemsetD8Async(uint64_t p, unsigned char v, size_t n, void *stream);
CUresult cuLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, void *stream, void **params, void **extra);
CUresult cuLaunchCooperativeKernel(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                   unsigned bz, unsigned shared, void *stream, void **params);
int fake_last_cooperative(void);
CUresult cuMemAlloc_v2(uint64_t *p, size_t n);
CUresult cuMemFree_v2(uint64_t p);
CUresult cuMemcpyHtoD_v2(uint64_t dst, const void *src, size_t n);
CUresult cuMemcpyDtoH_v2(void *dst, uint64_t src, size_t n);
CUresult cuEventCreate(void **ev, unsigned flags);
CUresult cuEventRecord(void *ev, void *stream);
CUresult cuEventSynchronize(void *ev);
CUresult cuEventElapsedTime(float *ms, void *a, void *b);
CUresult cuEventDestroy_v2(void *ev);
CUresult cuTensorMapEncodeTiled(uint64_t *map, int dtype, unsigned rank, void *addr, const uint64_t *dims,
                                const uint64_t *strides, const unsigned *box, const unsigned *estrides, int interleave,
                                int swizzle, int l2, int fill);

CUresult cuGetErrorName(CUresult r, const char **s) {
    *s = r ? "CUDA_ERROR_FAKE" : "CUDA_SUCCESS";
    return 0;
}
CUresult cuGetErrorString(CUresult r, const char **s) {
    *s = r ? "fake failure" : "no error";
    return 0;
}
CUresult cuInit(unsigned flags) { return (CUresult)flags; }
CUresult cuDeviceGetCount(int *n) {
    *n = n_devices();
    return *n ? 0 : 100;   /* CUDA_ERROR_NO_DEVICE */
}
CUresult cuDeviceGet(int *dev, int ordinal) {
    if (ordinal < 0 || ordinal >= n_devices()) return 101;   /* CUDA_ERROR_INVALID_DEVICE */
    *dev = ordinal;
    return 0;
}
CUresult cuDeviceGetAttribute(int *v, int attr, int dev) {
    (void)dev;
    *v = attr == 75 ? 9 : attr == 76 ? 0 : attr == 97 ? 232448 : 132;
    return 0;
}
CUresult cuDevicePrimaryCtxRetain(void **ctx, int dev) {
    if (dev < 0 || dev >= n_devices()) return 101;
    *ctx = &primary[dev];
    return 0;
}
static int is_context(const void *ctx) {
    return (const char *)ctx >= primary && (const char *)ctx < primary + n_devices();
}
CUresult cuCtxSetCurrent(void *ctx) {
    if (ctx && !is_context(ctx)) return CUDA_ERROR_INVALID_CONTEXT;
    current = ctx;
    return 0;
}
CUresult cuCtxGetCurrent(void **ctx) {
    *ctx = current;
    return 0;
}
CUresult cuCtxGetDevice(int *dev) {
    if (!current) return CUDA_ERROR_INVALID_CONTEXT;
    *dev = current_device();
    return 0;
}
CUresult cuCtxGetId(void *ctx, unsigned long long *id) {
    if (!is_context(ctx)) return CUDA_ERROR_INVALID_CONTEXT;
    *id = 1000 + (unsigned long long)((char *)ctx - primary);
    return 0;
}
CUresult cuCtxPushCurrent_v2(void *ctx) {
    if (!is_context(ctx) || n_pushed == 16) return CUDA_ERROR_INVALID_CONTEXT;
    pushed[n_pushed++] = current;
    current = ctx;
    return 0;
}
CUresult cuCtxPopCurrent_v2(void **ctx) {
    if (!n_pushed) return CUDA_ERROR_INVALID_CONTEXT;
    *ctx = current;
    current = pushed[--n_pushed];
    return 0;
}
CUresult cuCtxSynchronize(void) { return current ? 0 : CUDA_ERROR_INVALID_CONTEXT; }
/* the linker (tric's JIT cache): the "cubin" is the PTX behind a line */
static long links;
int fake_link_count(void);
int fake_link_count(void) { return (int)links; }
typedef struct FakeLink {
    char *ptx, *cubin;
} FakeLink;
CUresult cuDriverGetVersion(int *v);
CUresult cuDriverGetVersion(int *v) {
    *v = 13000;
    return 0;
}
CUresult cuLinkCreate_v2(unsigned n, int *opts, void **vals, void **state);
CUresult cuLinkCreate_v2(unsigned n, int *opts, void **vals, void **state) {
    (void)n, (void)opts, (void)vals;
    *state = calloc(1, sizeof(FakeLink));
    return *state ? 0 : 2;
}
CUresult cuLinkAddData_v2(void *state, int type, void *data, size_t size, const char *name, unsigned n, int *opts,
                          void **vals);
CUresult cuLinkAddData_v2(void *state, int type, void *data, size_t size, const char *name, unsigned n, int *opts,
                          void **vals) {
    (void)size, (void)name, (void)n, (void)opts, (void)vals;
    FakeLink *l = state;
    if (type != 1 || l->ptx) return 1;   /* PTX, once */
    l->ptx = strdup(data);
    return 0;
}
CUresult cuLinkComplete(void *state, void **cubin, size_t *size);
CUresult cuLinkComplete(void *state, void **cubin, size_t *size) {
    FakeLink *l = state;
    if (!l->ptx || !strstr(l->ptx, ".entry")) return 218;   /* CUDA_ERROR_INVALID_PTX */
    links++;
    size_t n = strlen(l->ptx) + 32;
    l->cubin = malloc(n);
    snprintf(l->cubin, n, "fake cubin of\n%s", l->ptx);
    *cubin = l->cubin;
    *size = strlen(l->cubin) + 1;
    return 0;
}
CUresult cuLinkDestroy(void *state);
CUresult cuLinkDestroy(void *state) {
    FakeLink *l = state;
    free(l->ptx);
    free(l->cubin);
    free(l);
    return 0;
}

CUresult cuModuleLoadDataEx(void **mod, const void *image, unsigned n, int *opts, void **vals) {
    (void)n, (void)opts, (void)vals;
    if (!current) return CUDA_ERROR_INVALID_CONTEXT;
    if (!strstr((const char *)image, ".entry")) return 218;   /* CUDA_ERROR_INVALID_PTX */
    if (fake_modules + 1 >= MAX_MODULES) return 2;           /* CUDA_ERROR_OUT_OF_MEMORY */
    fake_modules++;
    module_device[fake_modules] = current_device();
    *mod = (void *)(intptr_t)fake_modules;
    return 0;
}
CUresult cuModuleGetFunction(void **fn, void *mod, const char *name) {
    (void)name;
    *fn = mod;
    return 0;
}
CUresult cuModuleUnload(void *mod) {
    intptr_t i = (intptr_t)mod;
    if (i <= 0 || i > fake_modules || module_device[i] != current_device()) return CUDA_ERROR_INVALID_HANDLE;
    module_device[i] = -1;
    return 0;
}
CUresult cuFuncSetAttribute(void *fn, int attr, int v) {
    (void)fn, (void)attr, (void)v;
    return 0;
}
/* NUM_REGS 40, LOCAL_SIZE_BYTES 8 */
CUresult cuFuncGetAttribute(int *v, int attr, void *fn) {
    (void)fn;
    *v = attr == 4 ? 40 : attr == 3 ? 8 : 0;
    return 0;
}
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, void *fn, int threads, size_t smem) {
    (void)fn, (void)smem;
    *n = threads > 0 ? 2048 / threads : 0;
    return 0;
}
CUresult cuMemsetD8Async(uint64_t p, unsigned char v, size_t n, void *stream) {
    (void)p, (void)v, (void)n, (void)stream;
    return 0;
}
CUresult cuLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, void *stream, void **params, void **extra) {
    (void)extra;
    intptr_t f = (intptr_t)fn;
    if (f <= 0 || f > fake_modules || module_device[f] != current_device()) return CUDA_ERROR_INVALID_HANDLE;
    launches++;
    last_device = current_device();
    last.grid[0] = gx, last.grid[1] = gy, last.grid[2] = gz;
    last.block[0] = bx, last.block[1] = by, last.block[2] = bz;
    last.shared = shared;
    last.stream = stream;
    last.n_params = 0;
    for (int i = 0; i < MAX_PARAMS && param_bytes[i]; i++) {
        uint64_t v = 0;
        memcpy(&v, params[i], param_bytes[i] < 8 ? (size_t)param_bytes[i] : 8);
        last.params[last.n_params++] = v;
    }
    last_cooperative = 0;
    return 0;
}
CUresult cuLaunchCooperativeKernel(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                   unsigned bz, unsigned shared, void *stream, void **params) {
    CUresult r = cuLaunchKernel(fn, gx, gy, gz, bx, by, bz, shared, stream, params, NULL);
    last_cooperative = r == 0;
    return r;
}
int fake_last_cooperative(void) { return last_cooperative; }
static uint64_t next_address[MAX_DEVICES];
CUresult cuMemAlloc_v2(uint64_t *p, size_t n) {
    int d = current_device();
    if (d < 0) return CUDA_ERROR_INVALID_CONTEXT;
    *p = ((uint64_t)(d + 1) << 40) + 0x10000 + next_address[d];
    next_address[d] += (n + 255) / 256 * 256;
    return 0;
}
CUresult cuMemFree_v2(uint64_t p) {
    (void)p;
    return 0;
}
CUresult cuMemcpyHtoD_v2(uint64_t dst, const void *src, size_t n) {
    (void)dst, (void)src, (void)n;
    return 0;
}
CUresult cuMemcpyDtoH_v2(void *dst, uint64_t src, size_t n) {
    (void)src;
    memset(dst, 0, n);
    return 0;
}
static int fake_events;
CUresult cuEventCreate(void **ev, unsigned flags) {
    (void)flags;
    *ev = (void *)(intptr_t)++fake_events;
    return 0;
}
/* each event records the launch count at the time: elapsed = 0.5 ms per launch between */
static long event_stamp[1 << 20];
CUresult cuEventRecord(void *ev, void *stream) {
    (void)stream;
    intptr_t i = (intptr_t)ev;
    if (i > 0 && i < (1 << 20)) event_stamp[i] = launches;
    return 0;
}
CUresult cuEventSynchronize(void *ev) {
    (void)ev;
    return 0;
}
CUresult cuEventElapsedTime(float *ms, void *a, void *b) {
    intptr_t i = (intptr_t)a, j = (intptr_t)b;
    if (i <= 0 || j <= 0 || i >= (1 << 20) || j >= (1 << 20)) return 400;   /* CUDA_ERROR_INVALID_HANDLE */
    *ms = 0.5f * (float)(event_stamp[j] - event_stamp[i]);
    return 0;
}
CUresult cuEventDestroy_v2(void *ev) {
    (void)ev;
    return 0;
}
CUresult cuTensorMapEncodeTiled(uint64_t *map, int dtype, unsigned rank, void *addr, const uint64_t *dims,
                                const uint64_t *strides, const unsigned *box, const unsigned *estrides, int interleave,
                                int swizzle, int l2, int fill) {
    (void)estrides, (void)interleave, (void)l2;
    if (rank != 2 || (uintptr_t)map % 64) return 1;   /* CUDA_ERROR_INVALID_VALUE */
    memset(map, 0, 128);
    map[0] = (uint64_t)(uintptr_t)addr;
    map[1] = dims[0] | dims[1] << 32;
    map[2] = strides[0];
    map[3] = box[0] | (uint64_t)box[1] << 32;
    map[4] = (uint64_t)swizzle | (uint64_t)fill << 8 | (uint64_t)dtype << 16;
    return 0;
}
