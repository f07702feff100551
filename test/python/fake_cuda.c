/* A stand-in libcuda.so.1 for the Python tests on machines without a GPU:
 * every driver call tric makes succeeds, and launches are recorded instead
 * of run, so a test can check what the Python package passed (grid, block,
 * stream, each parameter's bytes) and time the launch path without a GPU.
 *
 *   cc -shared -fPIC -o DIR/libcuda.so.1 test/python/fake_cuda.c
 *   LD_LIBRARY_PATH=DIR python3 ...      (tric dlopens "libcuda.so.1")
 *
 * The device reports compute capability 9.0. A tensor map is encoded as
 * words: the address, dims 0 and 1, stride 1, box dims 0 and 1, then the
 * swizzle, OOB fill and data type (a parameter of more than 8 bytes is
 * recorded by its first 8). fake_last_launch() and
 * fake_launch_count() read the record (through ctypes). Not thread-safe:
 * the tests launch from one thread. */
#include <stdint.h>
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
static int fake_modules;

int fake_launch_count(void);
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
CUresult cuDeviceGet(int *dev, int ordinal) {
    *dev = ordinal;
    return 0;
}
CUresult cuDeviceGetAttribute(int *v, int attr, int dev) {
    (void)dev;
    *v = attr == 75 ? 9 : attr == 76 ? 0 : attr == 97 ? 232448 : 132;
    return 0;
}
CUresult cuDevicePrimaryCtxRetain(void **ctx, int dev) {
    (void)dev;
    *ctx = (void *)&last;
    return 0;
}
CUresult cuCtxSetCurrent(void *ctx) { return ctx == (void *)&last ? 0 : 201; }
CUresult cuCtxSynchronize(void) { return 0; }
CUresult cuModuleLoadDataEx(void **mod, const void *image, unsigned n, int *opts, void **vals) {
    (void)n, (void)opts, (void)vals;
    if (!strstr((const char *)image, ".entry")) return 218;   /* CUDA_ERROR_INVALID_PTX */
    fake_modules++;
    *mod = (void *)(intptr_t)fake_modules;
    return 0;
}
CUresult cuModuleGetFunction(void **fn, void *mod, const char *name) {
    (void)name;
    *fn = mod;
    return 0;
}
CUresult cuModuleUnload(void *mod) {
    (void)mod;
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
    (void)fn, (void)extra;
    launches++;
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
    return 0;
}
static uint64_t next_address = 0x10000;
CUresult cuMemAlloc_v2(uint64_t *p, size_t n) {
    *p = next_address;
    next_address += (n + 255) / 256 * 256;
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
