/* The CUDA driver, opened with dlopen so that tric builds and compiles on
 * machines without one. Functions come from cuGetProcAddress_v2 by base
 * name and CUDA version (the driver picks the ABI variant), with dlsym of
 * the suffixed names as a fallback for drivers older than CUDA 12.
 *
 * The driver table below is the library's only mutable global state: it is
 * filled once (pthread_once), and afterwards only the devices' primary
 * contexts are retained into it, each once, under its lock. Every call works
 * in the calling thread's current context, as the CUDA runtime and PyTorch
 * leave it (so memory and streams are shared with them); a thread with none
 * gets device 0's primary context made current, as the runtime would. */
#include "rt.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_min.h"

/* X(name, fallback dlsym symbol, parameter list) */
#define RT_CU_FUNCS(X)                                                                    \
    X(cuGetErrorName, "cuGetErrorName", (CUresult, const char **))                          \
    X(cuGetErrorString, "cuGetErrorString", (CUresult, const char **))                      \
    X(cuInit, "cuInit", (unsigned))                                                         \
    X(cuDeviceGet, "cuDeviceGet", (CUdevice *, int))                                        \
    X(cuDeviceGetCount, "cuDeviceGetCount", (int *))                                        \
    X(cuDeviceGetAttribute, "cuDeviceGetAttribute", (int *, CUdevice_attribute, CUdevice))  \
    X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", (CUcontext *, CUdevice))        \
    X(cuCtxSetCurrent, "cuCtxSetCurrent", (CUcontext))                                      \
    X(cuCtxGetCurrent, "cuCtxGetCurrent", (CUcontext *))                                    \
    X(cuCtxGetDevice, "cuCtxGetDevice", (CUdevice *))                                       \
    X(cuCtxGetId, "cuCtxGetId", (CUcontext, unsigned long long *))                          \
    X(cuCtxPushCurrent, "cuCtxPushCurrent_v2", (CUcontext))                                 \
    X(cuCtxPopCurrent, "cuCtxPopCurrent_v2", (CUcontext *))                                 \
    X(cuCtxSynchronize, "cuCtxSynchronize", (void))                                         \
    X(cuModuleLoadDataEx, "cuModuleLoadDataEx",                                             \
      (CUmodule *, const void *, unsigned, CUjit_option *, void **))                        \
    X(cuModuleGetFunction, "cuModuleGetFunction", (CUfunction *, CUmodule, const char *))   \
    X(cuLinkCreate, "cuLinkCreate_v2", (unsigned, CUjit_option *, void **, CUlinkState *))  \
    X(cuLinkAddData, "cuLinkAddData_v2",                                                    \
      (CUlinkState, int, void *, size_t, const char *, unsigned, CUjit_option *, void **))  \
    X(cuLinkComplete, "cuLinkComplete", (CUlinkState, void **, size_t *))                   \
    X(cuLinkDestroy, "cuLinkDestroy", (CUlinkState))                                        \
    X(cuDriverGetVersion, "cuDriverGetVersion", (int *))                                    \
    X(cuModuleUnload, "cuModuleUnload", (CUmodule))                                         \
    X(cuFuncSetAttribute, "cuFuncSetAttribute", (CUfunction, CUfunction_attribute, int))    \
    X(cuFuncGetAttribute, "cuFuncGetAttribute", (int *, CUfunction_attribute, CUfunction))  \
    X(cuOccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor", \
      (int *, CUfunction, int, size_t))                                                     \
    X(cuMemsetD8Async, "cuMemsetD8Async", (CUdeviceptr, unsigned char, size_t, CUstream))   \
    X(cuLaunchKernel, "cuLaunchKernel",                                                     \
      (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,    \
       CUstream, void **, void **))                                                         \
    X(cuLaunchCooperativeKernel, "cuLaunchCooperativeKernel",                               \
      (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,    \
       CUstream, void **))                                                                  \
    X(cuMemAlloc, "cuMemAlloc_v2", (CUdeviceptr *, size_t))                                 \
    X(cuMemFree, "cuMemFree_v2", (CUdeviceptr))                                             \
    X(cuMemcpyHtoD, "cuMemcpyHtoD_v2", (CUdeviceptr, const void *, size_t))                 \
    X(cuMemcpyDtoH, "cuMemcpyDtoH_v2", (void *, CUdeviceptr, size_t))                       \
    X(cuEventCreate, "cuEventCreate", (CUevent *, unsigned))                                \
    X(cuEventRecord, "cuEventRecord", (CUevent, CUstream))                                  \
    X(cuEventSynchronize, "cuEventSynchronize", (CUevent))                                  \
    X(cuEventElapsedTime, "cuEventElapsedTime", (float *, CUevent, CUevent))                \
    X(cuEventDestroy, "cuEventDestroy_v2", (CUevent))                                       \
    X(cuTensorMapEncodeTiled, "cuTensorMapEncodeTiled",                                     \
      (CUtensorMap *, int, cuuint32_t, void *, const cuuint64_t *, const cuuint64_t *,      \
       const cuuint32_t *, const cuuint32_t *, int, int, int, int))

/* the CUDA version whose ABI variants the table's signatures describe */
#define RT_CUDA_ABI_VERSION 12000

typedef CUresult (*RtGetProcAddressFn)(const char *, void **, int, cuuint64_t,
                                       CUdriverProcAddressQueryResult *);

typedef struct RtDevice {
    CUdevice dev;
    int cc_major, cc_minor;
    int smem_optin;        /* max dynamic shared memory per block, opted in */
    RtSmLimits sm;         /* per-SM limits (zero where the driver did not say) */
    CUcontext primary;     /* retained on first need, under RtDriver.lock */
} RtDevice;

typedef struct RtDriver {
    int status;            /* TRIC_OK once initialized, else the failure */
    char error[512];       /* the failure's message */
    void *lib;
    int n_devices;
    int version;           /* cuDriverGetVersion: 13000 for CUDA 13.0 (names JIT cache files) */
    RtDevice *devices;     /* by ordinal */
    pthread_mutex_t lock;  /* guards the devices' primary contexts */
#define X(name, sym, params) CUresult (*name) params;
    RT_CU_FUNCS(X)
#undef X
} RtDriver;

static RtDriver rt_drv = {.lock = PTHREAD_MUTEX_INITIALIZER};
static pthread_once_t rt_drv_once = PTHREAD_ONCE_INIT;

/* A module lives in the context it was loaded into (RtModule.context). */
struct RtModule {
    CUcontext ctx;
    uint64_t context;      /* cuCtxGetId: unique for the process's lifetime */
    const RtDevice *device;
    CUmodule mod;
    CUfunction fn;
    int shared_bytes;
    int register_cap;    /* the JIT's register cap (occupancy.c), 0 = none */
    RtModule *next;        /* the same kernel's module in another context */
};

static void put_err(Buf *err, const char *msg) {
    if (err) buf_puts(err, msg);
}

/* "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)" */
static int cu_check(CUresult r, const char *call, Buf *err) {
    if (r == CUDA_SUCCESS) return TRIC_OK;
    if (err) {
        const char *name = NULL, *text = NULL;
        if (rt_drv.cuGetErrorName) rt_drv.cuGetErrorName(r, &name);
        if (rt_drv.cuGetErrorString) rt_drv.cuGetErrorString(r, &text);
        buf_printf(err, "%s failed: %s (%s)", call, name ? name : "unknown CUresult",
                   text ? text : "no description");
        if (!name) buf_printf(err, " [%d]", r);
    }
    return TRIC_ERR_CUDA;
}

static void init_fail(int status, const char *msg, const char *detail) {
    rt_drv.status = status;
    snprintf(rt_drv.error, sizeof rt_drv.error, "%s%s%s", msg, detail ? ": " : "", detail ? detail : "");
}

static bool resolve_functions(void) {
    RtGetProcAddressFn get_proc = (RtGetProcAddressFn)dlsym(rt_drv.lib, "cuGetProcAddress_v2");
    void *p;
#define X(name, sym, params)                                                                   \
    p = NULL;                                                                                  \
    if (get_proc) {                                                                            \
        CUdriverProcAddressQueryResult st = 0;                                                 \
        if (get_proc(#name, &p, RT_CUDA_ABI_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &st) != 0 || \
            st != CU_GET_PROC_ADDRESS_SUCCESS)                                                 \
            p = NULL;                                                                          \
    }                                                                                          \
    if (!p) p = dlsym(rt_drv.lib, sym);                                                        \
    if (!p) {                                                                                  \
        init_fail(TRIC_ERR_NO_DRIVER, "libcuda.so.1 has no " #name " (driver too old?)", NULL); \
        return false;                                                                          \
    }                                                                                          \
    memcpy(&rt_drv.name, &p, sizeof p);
    RT_CU_FUNCS(X)
#undef X
    return true;
}

static int device_attr(const RtDevice *d, int *v, CUdevice_attribute a, Buf *err) {
    return cu_check(rt_drv.cuDeviceGetAttribute(v, a, d->dev), "cuDeviceGetAttribute", err);
}

/* Only for the register cap: a driver that does not answer leaves it off. */
static void sm_limits(RtDevice *d) {
    RtSmLimits *sm = &d->sm;
    const struct { int *v; CUdevice_attribute a; } q[] = {
        {&sm->regs, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR},
        {&sm->threads, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR},
        {&sm->blocks, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR},
        {&sm->smem, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR},
        {&sm->smem_reserved, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK},
    };
    for (size_t i = 0; i < ARRAY_LEN(q); i++)
        if (rt_drv.cuDeviceGetAttribute(q[i].v, q[i].a, d->dev) != CUDA_SUCCESS) *q[i].v = 0;
}

/* Every device's attributes; contexts are left for first use (retaining one
 * takes memory on its GPU). */
static bool open_devices(void) {
    Buf err = {0};
    CUresult r = rt_drv.cuInit(0);
    const char *call = "cuInit";
    int n = 0;
    if (r == CUDA_SUCCESS) r = rt_drv.cuDeviceGetCount(&n), call = "cuDeviceGetCount";
    if (r == CUDA_SUCCESS) r = rt_drv.cuDriverGetVersion(&rt_drv.version), call = "cuDriverGetVersion";
    if (r == CUDA_ERROR_NO_DEVICE || (r == CUDA_SUCCESS && n == 0)) {
        init_fail(TRIC_ERR_NO_DRIVER, "no CUDA device", "CUDA_ERROR_NO_DEVICE");
        return false;
    }
    int st = cu_check(r, call, &err);
    if (!st) {
        rt_drv.devices = calloc((size_t)n, sizeof *rt_drv.devices);
        if (!rt_drv.devices) tric_internal_error(__FILE__, __LINE__, "out of memory");
        rt_drv.n_devices = n;
    }
    for (int i = 0; i < rt_drv.n_devices && !st; i++) {
        RtDevice *d = &rt_drv.devices[i];
        st = cu_check(rt_drv.cuDeviceGet(&d->dev, i), "cuDeviceGet", &err);
        if (!st) st = device_attr(d, &d->cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &err);
        if (!st) st = device_attr(d, &d->cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &err);
        if (!st) st = device_attr(d, &d->smem_optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, &err);
        if (!st) sm_limits(d);
    }
    if (st) init_fail(st, err.data, NULL);
    buf_free(&err);
    return st == TRIC_OK;
}

static void driver_init_once(void) {
    rt_drv.lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!rt_drv.lib) {
        const char *why = dlerror();
        init_fail(TRIC_ERR_NO_DRIVER, "cannot load libcuda.so.1 (no NVIDIA driver here?)", why);
        return;
    }
    if (!resolve_functions() || !open_devices()) return;
    rt_drv.status = TRIC_OK;
}

static int driver_ready(Buf *err) {
    pthread_once(&rt_drv_once, driver_init_once);
    if (rt_drv.status != TRIC_OK) put_err(err, rt_drv.error);
    return rt_drv.status;
}

static int check_ordinal(int device, Buf *err) {
    if (device >= 0 && device < rt_drv.n_devices) return TRIC_OK;
    if (err) buf_printf(err, "no CUDA device %d (this machine has %d)", device, rt_drv.n_devices);
    return TRIC_ERR_ARG;
}

int rt_device_count(int *n, Buf *err) {
    int st = driver_ready(err);
    *n = st ? 0 : rt_drv.n_devices;
    return st;
}

/* The device's primary context, retained on first need. */
static int primary_context(RtDevice *d, CUcontext *ctx, Buf *err) {
    int st = TRIC_OK;
    pthread_mutex_lock(&rt_drv.lock);
    if (!d->primary)
        st = cu_check(rt_drv.cuDevicePrimaryCtxRetain(&d->primary, d->dev), "cuDevicePrimaryCtxRetain", err);
    *ctx = d->primary;
    pthread_mutex_unlock(&rt_drv.lock);
    return st;
}

/* Device `device`'s primary context, made current on the calling thread
 * (cudaSetDevice's effect). */
int rt_set_device(int device, Buf *err) {
    int st = driver_ready(err);
    if (!st) st = check_ordinal(device, err);
    if (st) return st;
    CUcontext ctx = NULL;
    st = primary_context(&rt_drv.devices[device], &ctx, err);
    if (!st) st = cu_check(rt_drv.cuCtxSetCurrent(ctx), "cuCtxSetCurrent", err);
    return st;
}

/* The table's entry for the device of the current context, NULL (and a
 * message) for one the table does not know. */
static const RtDevice *current_device(Buf *err) {
    CUdevice dev;
    if (cu_check(rt_drv.cuCtxGetDevice(&dev), "cuCtxGetDevice", err)) return NULL;
    for (int i = 0; i < rt_drv.n_devices; i++)
        if (rt_drv.devices[i].dev == dev) return &rt_drv.devices[i];
    if (err) buf_printf(err, "the current CUDA context's device (%d) is not one cuDeviceGet listed", (int)dev);
    return NULL;
}

int rt_device_attribute(int device, int attribute, int *value, Buf *err) {
    *value = 0;
    int st = driver_ready(err);
    if (!st) st = check_ordinal(device, err);
    if (!st)
        st = cu_check(rt_drv.cuDeviceGetAttribute(value, (CUdevice_attribute)attribute, rt_drv.devices[device].dev),
                      "cuDeviceGetAttribute", err);
    return st;
}

int rt_get_device(int *device, Buf *err) {
    *device = -1;
    int st = rt_driver_init(err);
    if (st) return st;
    const RtDevice *d = current_device(err);
    if (!d) return TRIC_ERR_CUDA;
    *device = (int)(d - rt_drv.devices);
    return TRIC_OK;
}

int rt_enter_device(int device, bool *pushed, Buf *err) {
    *pushed = false;
    int st = driver_ready(err);
    if (!st) st = check_ordinal(device, err);
    if (st) return st;
    RtDevice *d = &rt_drv.devices[device];
    CUcontext ctx = NULL;
    CUdevice cur;
    st = cu_check(rt_drv.cuCtxGetCurrent(&ctx), "cuCtxGetCurrent", err);
    if (st || (ctx && rt_drv.cuCtxGetDevice(&cur) == CUDA_SUCCESS && cur == d->dev)) return st;
    st = primary_context(d, &ctx, err);
    if (!st) st = cu_check(rt_drv.cuCtxPushCurrent(ctx), "cuCtxPushCurrent", err);
    *pushed = st == TRIC_OK;
    return st;
}

void rt_leave_device(bool pushed) {
    CUcontext ctx;
    if (pushed) rt_drv.cuCtxPopCurrent(&ctx);
}

/* The calling thread's current context; where it has none, device 0's
 * primary context, made current. */
static int current_context(CUcontext *ctx, Buf *err) {
    *ctx = NULL;
    int st = driver_ready(err);
    if (!st) st = cu_check(rt_drv.cuCtxGetCurrent(ctx), "cuCtxGetCurrent", err);
    if (!st && !*ctx) st = rt_set_device(0, err);
    if (!st && !*ctx) *ctx = rt_drv.devices[0].primary;
    return st;
}

int rt_driver_init(Buf *err) {
    CUcontext ctx;
    return current_context(&ctx, err);
}

/* The current context's device (device 0 where the thread has none: that
 * is where a launch would go), without making any context current. */
int rt_device_arch(Target *t, Buf *err) {
    int st = driver_ready(err);
    if (st) return st;
    CUcontext ctx = NULL;
    st = cu_check(rt_drv.cuCtxGetCurrent(&ctx), "cuCtxGetCurrent", err);
    const RtDevice *d = st ? NULL : ctx ? current_device(err) : &rt_drv.devices[0];
    if (!d) return st ? st : TRIC_ERR_CUDA;
    int major = d->cc_major, minor = d->cc_minor;
    if (major < 8) {
        if (err) buf_printf(err, "device %d is sm_%d%d; tric needs sm_80 or newer", (int)(d - rt_drv.devices), major, minor);
        return TRIC_ERR_NO_DRIVER;
    }
    t->arch_a = false;
    if (major == 8) t->sm = minor >= 9 ? 89 : minor >= 6 ? 86 : 80;
    else if (major == 9) t->sm = 90, t->arch_a = true;
    else t->sm = 90;   /* newer GPUs JIT sm_90 PTX; sm_90a PTX runs only on sm_90 */
    return TRIC_OK;
}

/* The PTX through the driver's linker: the same JIT as cuModuleLoadDataEx,
 * but the cubin comes back (appended to *cubin) to be kept. */
static int link_ptx(const char *ptx, CUjit_option *opts, void **vals, unsigned n_opts, Buf *cubin, Buf *err) {
    CUlinkState state;
    int st = cu_check(rt_drv.cuLinkCreate(n_opts, opts, vals, &state), "cuLinkCreate", err);
    if (st) return st;
    st = cu_check(rt_drv.cuLinkAddData(state, CU_JIT_INPUT_PTX, (void *)ptx, strlen(ptx) + 1, "kernel.ptx", 0, NULL,
                                       NULL), "cuLinkAddData", err);
    void *image = NULL;
    size_t size = 0;
    if (!st) st = cu_check(rt_drv.cuLinkComplete(state, &image, &size), "cuLinkComplete", err);
    if (!st) buf_putn(cubin, image, size);
    rt_drv.cuLinkDestroy(state);
    return st;
}

/* The JIT logs make a PTX failure readable: ptxas' own message and line.
 * With cubin, the module is made through the linker and its cubin kept. */
static int jit(const char *ptx, const char *entry, CUmodule *mod, CUfunction *fn, Buf *cubin, Buf *err) {
    enum { LOG = 16384 };
    char *error_log = calloc(1, LOG), *info_log = calloc(1, LOG);
    if (!error_log || !info_log) tric_internal_error(__FILE__, __LINE__, "out of memory");
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                           CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_LOG_VERBOSE};
    void *vals[] = {error_log, (void *)(uintptr_t)LOG, info_log, (void *)(uintptr_t)LOG, (void *)(uintptr_t)1};
    *mod = NULL;
    int st;
    if (cubin) {
        cubin->len = 0;
        st = link_ptx(ptx, opts, vals, ARRAY_LEN(opts), cubin, err);
        if (!st) st = cu_check(rt_drv.cuModuleLoadDataEx(mod, cubin->data, 0, NULL, NULL), "cuModuleLoadDataEx", err);
    } else {
        st = cu_check(rt_drv.cuModuleLoadDataEx(mod, ptx, ARRAY_LEN(opts), opts, vals), "cuModuleLoadDataEx", err);
    }
    if (st && err && error_log[0]) buf_printf(err, "\nJIT error log:\n%s", error_log);
    free(error_log);
    free(info_log);
    if (!st) st = cu_check(rt_drv.cuModuleGetFunction(fn, *mod, entry), "cuModuleGetFunction", err);
    if (st && *mod) {
        rt_drv.cuModuleUnload(*mod);
        *mod = NULL;
    }
    return st;
}

static int fn_attr(CUfunction fn, CUfunction_attribute a) {
    int v = -1;
    return rt_drv.cuFuncGetAttribute(&v, a, fn) == CUDA_SUCCESS ? v : -1;
}

static int resident_ctas(CUfunction fn, int threads, int shared_bytes) {
    int n = 0;
    return rt_drv.cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, fn, threads, (size_t)shared_bytes) == CUDA_SUCCESS
               ? n : 0;
}

/* The PTX with ".maxnreg cap" after the entry's ".maxntid" line (the JIT
 * option CU_JIT_MAX_REGISTERS does not apply to kernels with .maxntid, as
 * every tric kernel has); NULL if there is none. Heap. */
static char *with_maxnreg(const char *ptx, int cap) {
    const char *at = strstr(ptx, "\n.maxntid ");
    if (!at || !(at = strchr(at + 1, '\n'))) return NULL;
    Buf b = {0};
    buf_putn(&b, ptx, (size_t)(at + 1 - ptx));
    buf_printf(&b, ".maxnreg %d\n%s", cap, at + 1);
    return b.data;
}

/* A second JIT under the register cap of occupancy.c, kept where the driver
 * reports more resident CTAs and nothing spilled (any failure keeps the
 * first). Kernels above 48 KB of shared memory are left alone. */
static void apply_register_cap(RtModule *m, const char *ptx, const char *entry, int threads, Buf *cubin) {
    const RtSmLimits *sm = &m->device->sm;
    if (!sm->regs || threads <= 0 || m->shared_bytes > 48 * 1024) return;
    int regs = fn_attr(m->fn, CU_FUNC_ATTRIBUTE_NUM_REGS);
    if (regs <= 0 || fn_attr(m->fn, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES) != 0) return;
    int cap = rt_register_cap(sm, regs, threads, m->shared_bytes);
    if (!cap) return;
    char *capped = with_maxnreg(ptx, cap);
    if (!capped) return;
    CUmodule mod;
    CUfunction fn;
    Buf capped_cubin = {0};
    int st = jit(capped, entry, &mod, &fn, cubin ? &capped_cubin : NULL, NULL);
    free(capped);
    if (!st && fn_attr(fn, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES) == 0 &&
        resident_ctas(fn, threads, m->shared_bytes) > resident_ctas(m->fn, threads, m->shared_bytes)) {
        rt_drv.cuModuleUnload(m->mod);
        m->mod = mod;
        m->fn = fn;
        m->register_cap = cap;
        if (cubin) {
            buf_free(cubin);
            *cubin = capped_cubin;
            capped_cubin = (Buf){0};
        }
    } else if (!st) {
        rt_drv.cuModuleUnload(mod);
    }
    buf_free(&capped_cubin);
}

/* ---- the JIT cache ----
 * The driver's JIT of a PTX module runs again in every process: most of a
 * dot kernel's cold start (0.2-0.6 s, against 2-9 ms for tric's compile).
 * With the disk cache on (rt_cache_open), a module is made through the
 * driver's linker, which hands back the cubin, and the cubin (after the
 * register cap's choice) is kept as jit-<sha256>-sm<cc>-<driver>.cubin; the
 * hash covers the PTX, the entry, the block size and the shared memory
 * (what the cap depends on), the name the device's arch and the driver's
 * version (whose JIT made it). A later process loads that cubin. */
static char *jit_cache_name(const RtDevice *d, const char *ptx, const char *entry, int threads, int shared_bytes) {
    Buf key = {0};
    buf_printf(&key, "tric-jit 1\n%s\n%d %d\n%s", entry, threads, shared_bytes, ptx);
    uint8_t digest[32];
    rt_sha256(key.data, key.len, digest);
    buf_free(&key);
    Buf name = {0};
    buf_puts(&name, "jit-");
    for (int i = 0; i < 32; i++) buf_printf(&name, "%02x", digest[i]);
    buf_printf(&name, "-sm%d%d-%d.cubin", d->cc_major, d->cc_minor, rt_drv.version);
    return buf_take(&name);
}

/* The cached cubin loaded into m; false when there is none (or the driver refuses it). */
static bool jit_cache_load(RtModule *m, const RtCache *cache, const char *name, const char *entry) {
    Buf cubin = {0};
    bool ok = rt_cache_load_blob(cache, name, &cubin) &&
              rt_drv.cuModuleLoadDataEx(&m->mod, cubin.data, 0, NULL, NULL) == CUDA_SUCCESS;
    if (ok && rt_drv.cuModuleGetFunction(&m->fn, m->mod, entry) != CUDA_SUCCESS) {
        rt_drv.cuModuleUnload(m->mod);
        m->mod = NULL;
        ok = false;
    }
    buf_free(&cubin);
    return ok;
}

/* Loads the module into the current context (made current by the caller). */
static int module_load(CUcontext ctx, uint64_t context, const void *image, size_t cubin_bytes, const char *entry,
                       int shared_bytes, int threads, RtModule **out, Buf *err) {
    *out = NULL;
    const RtDevice *d = current_device(err);
    if (!d) return TRIC_ERR_CUDA;
    RtModule *m = calloc(1, sizeof *m);
    if (!m) tric_internal_error(__FILE__, __LINE__, "out of memory");
    m->ctx = ctx;
    m->context = context;
    m->device = d;
    m->shared_bytes = shared_bytes;
    const char *ptx = image;
    RtCache cache = {.fd = -1};
    Buf cubin = {0};
    char *name = !cubin_bytes && rt_cache_open(&cache) ? jit_cache_name(d, ptx, entry, threads, shared_bytes) : NULL;
    int st = TRIC_OK;
    if (cubin_bytes) {   /* made ahead of time: no JIT */
        st = cu_check(rt_drv.cuModuleLoadDataEx(&m->mod, image, 0, NULL, NULL), "cuModuleLoadDataEx (cubin)", err);
        if (!st) st = cu_check(rt_drv.cuModuleGetFunction(&m->fn, m->mod, entry), "cuModuleGetFunction", err);
        if (st && m->mod) rt_drv.cuModuleUnload(m->mod);
    } else if (!name || !jit_cache_load(m, &cache, name, entry)) {
        st = jit(ptx, entry, &m->mod, &m->fn, name ? &cubin : NULL, err);
        if (!st) apply_register_cap(m, ptx, entry, threads, name ? &cubin : NULL);
        if (!st && name && cubin.len) rt_cache_store_blob(&cache, name, cubin.data, cubin.len);
    }
    free(name);
    rt_cache_close(&cache);
    buf_free(&cubin);
    if (st) {
        free(m);
        return st;
    }
    if (shared_bytes > 48 * 1024) {
        if (shared_bytes > d->smem_optin) {
            if (err) buf_printf(err, "kernel '%s' needs %d bytes of shared memory; device %d allows %d per block",
                                entry, shared_bytes, (int)(d - rt_drv.devices), d->smem_optin);
            st = TRIC_ERR_RESOURCES;
        } else {
            st = cu_check(rt_drv.cuFuncSetAttribute(m->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, shared_bytes),
                          "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)", err);
        }
    }
    if (st) {
        rt_drv.cuModuleUnload(m->mod);
        free(m);
        return st;
    }
    *out = m;
    return TRIC_OK;
}

int rt_module_get(RtModule **loaded, const void *image, size_t cubin_bytes, const char *entry, int shared_bytes,
                  int threads, RtModule **out, Buf *err) {
    *out = NULL;
    CUcontext ctx;
    unsigned long long id = 0;
    int st = current_context(&ctx, err);
    if (!st) st = cu_check(rt_drv.cuCtxGetId(ctx, &id), "cuCtxGetId", err);
    if (st) return st;
    for (RtModule *m = *loaded; m; m = m->next)
        if (m->context == id) {
            *out = m;
            return TRIC_OK;
        }
    st = module_load(ctx, id, image, cubin_bytes, entry, shared_bytes, threads, out, err);
    if (!st) {
        (*out)->next = *loaded;
        *loaded = *out;
    }
    return st;
}

/* Each module is unloaded in its own context, the caller's left current. */
void rt_module_unload_all(RtModule *loaded) {
    while (loaded) {
        RtModule *m = loaded;
        loaded = m->next;
        CUcontext prev;
        if (rt_drv.status == TRIC_OK && rt_drv.cuCtxPushCurrent(m->ctx) == CUDA_SUCCESS) {
            rt_drv.cuModuleUnload(m->mod);
            rt_drv.cuCtxPopCurrent(&prev);
        }
        free(m);
    }
}

int rt_module_launch(RtModule *m, unsigned gx, unsigned gy, unsigned gz, unsigned block_x, void **args,
                     void *stream, bool cooperative, Buf *err) {
    if ((uint64_t)gx * gy * gz == 0) return TRIC_OK;   /* an empty grid runs nothing (as in Triton) */
    if (cooperative)   /* every program resident at once, or the driver refuses the launch */
        return cu_check(rt_drv.cuLaunchCooperativeKernel(m->fn, gx, gy, gz, block_x, 1, 1,
                                                         (unsigned)m->shared_bytes, (CUstream)stream, args),
                        "cuLaunchCooperativeKernel", err);
    return cu_check(rt_drv.cuLaunchKernel(m->fn, gx, gy, gz, block_x, 1, 1, (unsigned)m->shared_bytes,
                                          (CUstream)stream, args, NULL),
                    "cuLaunchKernel", err);
}

static int cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

static int time_loop(RtModule *m, unsigned gx, unsigned gy, unsigned gz, unsigned block_x, void **args,
                     CUstream stream, int iters, float *times, CUevent e0, CUevent e1, Buf *err) {
    int st = rt_module_launch(m, gx, gy, gz, block_x, args, stream, false, err);   /* warm-up */
    for (int i = 0; i < iters && !st; i++) {
        st = cu_check(rt_drv.cuEventRecord(e0, stream), "cuEventRecord", err);
        if (!st) st = rt_module_launch(m, gx, gy, gz, block_x, args, stream, false, err);
        if (!st) st = cu_check(rt_drv.cuEventRecord(e1, stream), "cuEventRecord", err);
        if (!st) st = cu_check(rt_drv.cuEventSynchronize(e1), "cuEventSynchronize", err);
        if (!st) st = cu_check(rt_drv.cuEventElapsedTime(&times[i], e0, e1), "cuEventElapsedTime", err);
    }
    return st;
}

int rt_module_time(RtModule *m, unsigned gx, unsigned gy, unsigned gz, unsigned block_x, void **args,
                   void *stream, int iters, float *ms, Buf *err) {
    int st = rt_driver_init(err);
    if (st) return st;
    if (iters < 1) {
        put_err(err, "tric_time_ms: iters must be at least 1");
        return TRIC_ERR_ARG;
    }
    CUevent e0 = NULL, e1 = NULL;
    float *times = calloc((size_t)iters, sizeof *times);
    if (!times) tric_internal_error(__FILE__, __LINE__, "out of memory");
    st = cu_check(rt_drv.cuEventCreate(&e0, CU_EVENT_DEFAULT), "cuEventCreate", err);
    if (!st) st = cu_check(rt_drv.cuEventCreate(&e1, CU_EVENT_DEFAULT), "cuEventCreate", err);
    if (!st) st = time_loop(m, gx, gy, gz, block_x, args, (CUstream)stream, iters, times, e0, e1, err);
    if (!st) {
        qsort(times, (size_t)iters, sizeof *times, cmp_float);
        *ms = times[iters / 2];
    }
    if (e0) rt_drv.cuEventDestroy(e0);
    if (e1) rt_drv.cuEventDestroy(e1);
    free(times);
    return st;
}

int rt_tensor_map_encode(const TmapFields *f, void *out, Buf *err) {
    int st = rt_driver_init(err);
    if (st) return st;
    cuuint64_t dims[TMAP_MAX_RANK], strides[TMAP_MAX_RANK];
    cuuint32_t box[TMAP_MAX_RANK], ones[TMAP_MAX_RANK];
    for (int d = 0; d < f->rank; d++) {
        dims[d] = f->dims[d];
        box[d] = f->box[d];
        ones[d] = 1;
        if (d + 1 < f->rank) strides[d] = f->strides[d];
    }
    int swizzle = f->swizzle == 128 ? CU_TENSOR_MAP_SWIZZLE_128B : f->swizzle == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                  : f->swizzle == 32 ? CU_TENSOR_MAP_SWIZZLE_32B : CU_TENSOR_MAP_SWIZZLE_NONE;
    CUtensorMap map;
    st = cu_check(rt_drv.cuTensorMapEncodeTiled(&map, f->dtype, (cuuint32_t)f->rank, (void *)(uintptr_t)f->address, dims,
                                                strides, box, ones, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
                                                CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                                                f->fill_nan ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
                                                            : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
                  "cuTensorMapEncodeTiled", err);
    if (!st) memcpy(out, &map, sizeof map);
    return st;
}

int rt_mem_alloc(uint64_t *dptr, size_t bytes, Buf *err) {
    int st = rt_driver_init(err);
    if (st) return st;
    CUdeviceptr p = 0;
    st = cu_check(rt_drv.cuMemAlloc(&p, bytes), "cuMemAlloc", err);
    *dptr = st ? 0 : (uint64_t)p;
    return st;
}

int rt_mem_free(uint64_t dptr, Buf *err) {
    int st = rt_driver_init(err);
    if (st) return st;
    return cu_check(rt_drv.cuMemFree((CUdeviceptr)dptr), "cuMemFree", err);
}

int rt_memcpy_htod(uint64_t dst, const void *src, size_t bytes, Buf *err) {
    int st = rt_driver_init(err);
    if (st) return st;
    return cu_check(rt_drv.cuMemcpyHtoD((CUdeviceptr)dst, src, bytes), "cuMemcpyHtoD", err);
}

int rt_memcpy_dtoh(void *dst, uint64_t src, size_t bytes, Buf *err) {
    int st = rt_driver_init(err);
    if (st) return st;
    return cu_check(rt_drv.cuMemcpyDtoH(dst, (CUdeviceptr)src, bytes), "cuMemcpyDtoH", err);
}

int rt_synchronize(Buf *err) {
    int st = rt_driver_init(err);
    if (st) return st;
    return cu_check(rt_drv.cuCtxSynchronize(), "cuCtxSynchronize", err);
}

int rt_module_attrs(RtModule *m, int *num_regs, int *local_bytes, Buf *err) {
    int st = rt_driver_init(err);
    if (!st)
        st = cu_check(rt_drv.cuFuncGetAttribute(num_regs, CU_FUNC_ATTRIBUTE_NUM_REGS, m->fn),
                      "cuFuncGetAttribute(NUM_REGS)", err);
    if (!st)
        st = cu_check(rt_drv.cuFuncGetAttribute(local_bytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, m->fn),
                      "cuFuncGetAttribute(LOCAL_SIZE_BYTES)", err);
    return st;
}

int rt_memset_d8(uint64_t dptr, unsigned char value, size_t bytes, void *stream, Buf *err) {
    int st = rt_driver_init(err);
    if (st) return st;
    return cu_check(rt_drv.cuMemsetD8Async((CUdeviceptr)dptr, value, bytes, (CUstream)stream), "cuMemsetD8Async", err);
}

/* Events for timing arbitrary work from Python (tric.testing.do_bench
 * without torch): an RtEvent is a CUevent. */
int rt_event_create(void **event, Buf *err) {
    *event = NULL;
    int st = rt_driver_init(err);
    if (st) return st;
    CUevent e = NULL;
    st = cu_check(rt_drv.cuEventCreate(&e, CU_EVENT_DEFAULT), "cuEventCreate", err);
    if (!st) *event = e;
    return st;
}

int rt_event_destroy(void *event, Buf *err) {
    int st = rt_driver_init(err);
    if (st || !event) return st;
    return cu_check(rt_drv.cuEventDestroy((CUevent)event), "cuEventDestroy", err);
}

int rt_event_record(void *event, void *stream, Buf *err) {
    int st = rt_driver_init(err);
    if (st) return st;
    return cu_check(rt_drv.cuEventRecord((CUevent)event, (CUstream)stream), "cuEventRecord", err);
}

int rt_event_synchronize(void *event, Buf *err) {
    int st = rt_driver_init(err);
    if (st) return st;
    return cu_check(rt_drv.cuEventSynchronize((CUevent)event), "cuEventSynchronize", err);
}

int rt_event_elapsed_ms(void *start, void *end, float *ms, Buf *err) {
    int st = rt_driver_init(err);
    if (st) return st;
    return cu_check(rt_drv.cuEventElapsedTime(ms, (CUevent)start, (CUevent)end), "cuEventElapsedTime", err);
}
