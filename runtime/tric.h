/* tric: compile Triton kernels (@triton.jit Python source) to PTX and launch
 * them through the CUDA driver. The public C API.
 *
 *   tric_kernel *k; char *err;
 *   if (tric_compile_file("add.py", "add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, 1024",
 *                         NULL, &k, &err)) { fputs(err, stderr); free(err); return 1; }
 *   void *args[] = {&x, &y, &out, &n};            // pointers to each parameter's value
 *   tric_launch(k, (n + 1023) / 1024, 1, 1, args, NULL, &err);
 *   tric_kernel_free(k);
 *
 * Conventions: every function that can fail returns a tric_status (0 =
 * TRIC_OK). Where it takes `char **errors`, a failure stores a malloc'd,
 * NUL-terminated message there (the caller frees it); success stores NULL.
 * Passing errors = NULL drops the message. The library never exits, and
 * prints only what a kernel run by tric_interpret prints (to stdout, as a
 * GPU kernel's printf does; tric_interpret_print takes a callback instead).
 * Compiling needs no GPU; launching and the memory helpers load libcuda.so.1
 * at first use and work in the calling thread's current CUDA context, as
 * the CUDA runtime and PyTorch leave it (cudaSetDevice, torch.cuda.device),
 * so device pointers and streams from them can be passed directly; a
 * thread with no current context gets device 0's primary context, as the
 * runtime would. tric_set_device picks another device for the thread,
 * tric_launch_on for one launch. A kernel is loaded once into each context
 * it is launched in.
 * All functions may be called from several threads.
 */
#ifndef TRIC_H
#define TRIC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What libtric exports: these functions only (it is built with hidden
 * visibility, so its internals cannot clash with a program's names). */
#if defined(__GNUC__) && !defined(TRIC_API)
#define TRIC_API __attribute__((visibility("default")))
#elif !defined(TRIC_API)
#define TRIC_API
#endif

/* (the headers `tric --emit c` writes define the same enum, under the same guard) */
#ifndef TRIC_STATUS_DEFINED
#define TRIC_STATUS_DEFINED
typedef enum tric_status {
    TRIC_OK = 0,
    TRIC_ERR_COMPILE = 1,    /* the kernel or signature has a mistake (messages say where) */
    TRIC_ERR_ARG = 2,        /* a bad argument to this API (NULL, unknown arch, ...) */
    TRIC_ERR_NO_DRIVER = 3,  /* libcuda.so.1 missing, or no CUDA device */
    TRIC_ERR_CUDA = 4,       /* a CUDA driver call failed (message names it) */
    TRIC_ERR_INTERPRET = 5,  /* tric_interpret: the kernel went wrong on the CPU (an
                                out-of-bounds access, a division by zero, ...; the
                                message says where in the source) */
    TRIC_ERR_RESOURCES = 6,  /* the kernel needs more of the device than it has (shared
                                memory per block): "kernel 'K' needs N bytes of shared
                                memory; device D allows M per block" */
    TRIC_ERR_INTERNAL = 7    /* a bug in tric: an internal check failed ("tric: internal
                                error at FILE:LINE: ..."); the process goes on */
} tric_status;
#endif

typedef struct tric_options {
    const char *arch;   /* "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"; NULL: the
                           device's own (sm_90a on Hopper) when a driver and device
                           are present, else "sm_80" */
    int num_warps;      /* threads per program = 32 * num_warps; power of two 1..32;
                           0 = 4 */
    int num_stages;     /* software pipelining depth; 0 = 3 */
    int debug;          /* nonzero: device assertions (tl.device_assert, the assert
                           statement) are compiled into the PTX, as Triton's
                           debug=True / TRITON_DEBUG=1; a failing one stops the
                           kernel with CUDA's "Assertion `msg` failed" message and
                           the next synchronizing call fails. 0: they cost nothing
                           on the GPU. tric_interpret checks them either way. */
    /* Fields are only ever appended here: zero-initialize the struct
     * (`tric_options o = {0};` or designated initializers) so that a field
     * added later reads as its default when the program is rebuilt. */
    const char *const *search_path;   /* where `import pkg.mod` / `from pkg import f`
                           look for the user's modules after the kernel file's
                           directory, in order: a NULL-terminated array of
                           directories (the CLI's -I; Python's sys.path). NULL:
                           the kernel file's directory only. */
    int maxnreg;        /* nonzero: the most registers per thread (16..255), the
                           entry's .maxnreg (Triton's maxnreg); 0: ptxas decides */
    int disable_fp_fusion;   /* nonzero: float multiplies and adds are rounded one
                           by one, never contracted into fma (Triton's
                           enable_fp_fusion=False) */
    const char *entry_name;  /* the PTX .entry's name (letters, digits, '_' and
                           '$'; Triton's jit(repr=...)); NULL: the kernel's */
    int launch_cooperative_grid;  /* nonzero: launches are cooperative (every
                           program resident at once, so programs may wait on
                           each other; the driver refuses a grid larger than
                           the device holds): Triton's launch_cooperative_grid */
} tric_options;

typedef struct tric_kernel tric_kernel;

typedef enum tric_param_kind {
    TRIC_PARAM_POINTER = 0, TRIC_PARAM_INT = 1, TRIC_PARAM_FLOAT = 2,
    TRIC_PARAM_TENSORMAP = 3   /* 128 bytes (tric_encode_tensor_map), passed by value */
} tric_param_kind;

/* What part of its argument a parameter carries. A tensor descriptor
 * argument ("tensordesc<fp16[64, 64]>" in the signature) is passed as
 * several parameters, all named after it: its base pointer, each dim of its
 * shape (i32), each stride but the last (i64; the last is 1) and, compiled
 * for sm_90 or later where TMA can move its blocks, its tensor map
 * (TRIC_PARAM_TENSORMAP: tric_encode_tensor_map). A tuple argument
 * ("(i32:16, i32, 64)") passes each pointer or scalar item not baked in as
 * a parameter named after the tuple, part TRIC_PARAM_TUPLE_ITEM, part_index
 * the item's place in the tuple flattened depth first (values and None
 * counted, so the leaves of the tuple the caller holds line up). */
typedef enum tric_param_part {
    TRIC_PARAM_WHOLE = 0, TRIC_PARAM_DESC_BASE = 1, TRIC_PARAM_DESC_SHAPE = 2, TRIC_PARAM_DESC_STRIDE = 3,
    TRIC_PARAM_DESC_TMAP = 4,
    TRIC_PARAM_SCRATCH = 5,  /* the global scratch (tric_kernel_scratch_bytes) */
    TRIC_PARAM_TUPLE_ITEM = 6
} tric_param_part;

/* One launch parameter. Constexpr arguments and scalars specialized by the
 * signature (":1") are not parameters. */
typedef struct tric_param {
    const char *name;   /* the Python parameter name */
    int kind;           /* tric_param_kind */
    const char *type;   /* signature spelling: "*fp32", "i32", "u64", "fp16", ... */
    int bytes;          /* size of the value args[i] points at: 8 for pointers, 128 for a tensor map */
    int part;           /* tric_param_part */
    int part_index;     /* the dim of a DESC_SHAPE or DESC_STRIDE part; a TUPLE_ITEM's leaf */
} tric_param;

/* Compile kernel `kernel` of a Python file, specialized by a Triton-style
 * signature ("*fp32:16, i32, 1024"; README.md, "A tour of the command",
 * gives the format). opt may be NULL.
 * A constexpr parameter whose value is a dtype is written dtype(fp16); a
 * value for a parameter that is not tl.constexpr bakes it in.
 * The text may also be a units text (it starts "tric-units 1"): the
 * kernel's and its helpers' sources with what each name is bound to in a
 * running Python program, which is how the Python package compiles
 * (frontend/units.c has the format); names then resolve only through it.
 *
 * Both compile functions keep compiled kernels in a disk cache, keyed by a
 * SHA-256 of (the whole source text, kernel, signature, arch, num_warps,
 * num_stages, debug, the import directories, tric version and build):
 * $TRIC_CACHE_DIR, default ~/.cache/tric; TRIC_CACHE_DIR=off turns it off
 * (read at each compile). An entry also records the text (a SHA-256) of
 * every module the kernel imported: one edited since is a miss, and so is
 * a damaged entry; both are rewritten. tric_kernel_cache_hit tells. The
 * same directory keeps the cubin the driver's JIT makes of a kernel's PTX
 * at its first launch on a device (jit-HASH-smXY-DRIVER.cubin, named by
 * the device's arch and the driver's version, checksummed), so a later
 * process loads that and skips the JIT. The directories made for the cache
 * are 0700, and one that is not the user's (or root's) or that group or
 * others can write is not used, nor is such an entry: its code would run
 * as the user's. tric then compiles without it and says so in one line on
 * stderr. Only regular files of at most 64 MiB are read, never through a
 * symbolic link. */
TRIC_API int tric_compile_file(const char *path, const char *kernel, const char *signature,
                      const tric_options *opt, tric_kernel **out, char **errors);
/* The same from source text in memory; path_for_messages names it in errors. */
TRIC_API int tric_compile_source(const char *path_for_messages, const char *source, const char *kernel,
                        const char *signature, const tric_options *opt, tric_kernel **out,
                        char **errors);
TRIC_API void tric_kernel_free(tric_kernel *k);   /* NULL is fine; unloads the module */

TRIC_API const char *tric_kernel_ptx(const tric_kernel *k);       /* the PTX module text */
TRIC_API const char *tric_kernel_name(const tric_kernel *k);      /* the .entry name */
TRIC_API const char *tric_kernel_arch(const tric_kernel *k);      /* "sm_90a" */
TRIC_API int tric_kernel_num_params(const tric_kernel *k);
TRIC_API const tric_param *tric_kernel_param(const tric_kernel *k, int i);   /* NULL if out of range */
TRIC_API int tric_kernel_num_warps(const tric_kernel *k);         /* block = 32 * num_warps threads */
TRIC_API int tric_kernel_shared_bytes(const tric_kernel *k);      /* dynamic shared memory per launch */
/* Global scratch memory per program (0: none): a kernel that makes tensor
 * descriptors (tl.make_tensor_descriptor) writes their tensor maps there.
 * Its last parameter (part TRIC_PARAM_SCRATCH) is then a device buffer of
 * this many bytes times the grid's programs, 128-byte aligned, that no
 * other launch in flight uses (Triton's set_allocator memory). */
TRIC_API int tric_kernel_scratch_bytes(const tric_kernel *k);
/* tric's estimate of the 32-bit registers per thread ptxas will use, made
 * before ptxas (opt/regs.c); above 255 the kernel would spill. Needs no
 * driver; kept in the disk cache. */
TRIC_API int tric_kernel_estimated_registers(const tric_kernel *k);
TRIC_API const char *tric_kernel_ir(const tric_kernel *k);        /* the IR after all passes */
TRIC_API int tric_kernel_cache_hit(const tric_kernel *k);         /* 1: read from the disk cache */
/* The notes the compilation wrote (tl.static_print's output, formatted as
 * "file:line:col: note: ..." with the source line); "" when none, and for
 * a kernel read from the disk cache, which was not compiled now. */
TRIC_API const char *tric_kernel_log(const tric_kernel *k);
/* cuFuncGetAttribute NUM_REGS and LOCAL_SIZE_BYTES (spilled bytes per
 * thread); loads the module, so it needs the driver. */
TRIC_API int tric_kernel_attributes(tric_kernel *k, int *num_regs, int *local_bytes, char **errors);

/* Launch on a grid of gx*gy*gz programs, in the calling thread's current
 * context. args[i] points at the value of parameter i (a uint64_t device
 * address for pointers). stream is a CUstream of that context (NULL = the
 * legacy default stream). The module is loaded (driver JIT) on the first
 * launch in each context. Returns once queued: errors inside the kernel
 * surface at the next synchronizing call. */
TRIC_API int tric_launch(tric_kernel *k, unsigned gx, unsigned gy, unsigned gz, void **args, void *stream,
                char **errors);
/* The same on device `device` (-1: the current context, as tric_launch):
 * in the current context where that is on the device, else in the
 * device's primary context, made current for this launch only (the
 * thread's own is left as it was). stream must belong to that context. */
TRIC_API int tric_launch_on(tric_kernel *k, int device, unsigned gx, unsigned gy, unsigned gz, void **args, void *stream,
                   char **errors);
/* The value of tensor-map parameter i of k (kind TRIC_PARAM_TENSORMAP): the
 * CUtensorMap, 128 bytes into out (64-byte aligned), of the tensor at
 * device address base (16-byte aligned) with rank dims shape[] and strides[]
 * in elements (strides[rank - 1] == 1, the others 16-byte multiples), as
 * Triton's TensorDescriptor gives them; the element type, block and padding
 * are the parameter's (its type: "tensordesc<fp16[64, 64]>"). Encoded by
 * the driver (cuTensorMapEncodeTiled), or with for_interpreter set, in the
 * form tric_interpret reads (no driver needed; base a host address). */
TRIC_API int tric_encode_tensor_map(const tric_kernel *k, int i, uint64_t base, int rank, const int64_t *shape,
                           const int64_t *strides, int for_interpreter, void *out, char **errors);
/* tric_launch with the arguments packed: slots[i] holds parameter i's value
 * in its low bytes (a pointer or i64 whole, an i32 or the bits of an fp32
 * in the low 4 bytes; for a tensor map, the address of its 128 bytes). One
 * array instead of n pointers: the fast path of the Python package. */
TRIC_API int tric_launch_packed(tric_kernel *k, unsigned gx, unsigned gy, unsigned gz, void *stream,
                       const uint64_t *slots, char **errors);
TRIC_API int tric_launch_packed_on(tric_kernel *k, int device, unsigned gx, unsigned gy, unsigned gz, void *stream,
                          const uint64_t *slots, char **errors);   /* on a device, as tric_launch_on */
/* Median milliseconds of `iters` launches after one warm-up, timed with CUDA
 * events on stream. */
TRIC_API int tric_time_ms(tric_kernel *k, unsigned gx, unsigned gy, unsigned gz, void **args, void *stream,
                 int iters, float *ms, char **errors);

/* Kernels compiled ahead of time: a module of PTX text (`tric --emit ptx`)
 * or a cubin (ptxas), copied in, loaded like a compiled kernel: lazily,
 * once into each context a kernel of it is launched in (PTX through the
 * driver's JIT, whose cubin the disk cache keeps, as for compiled
 * kernels). tric_module_function makes kernel `entry` of it a tric_kernel
 * (its own copy: the module may be freed first) for tric_launch,
 * tric_launch_on, tric_time_ms and tric_kernel_attributes, args as
 * cuLaunchKernel's; blocks of 32 * num_warps threads (0: the PTX's
 * .maxntid) and shared_bytes of dynamic shared memory (what
 * tric_kernel_shared_bytes or `tric --stats` said). From PTX its
 * parameters are the .entry's (name, PTX type such as ".u64", size), so
 * tric_launch_packed works too; a cubin's are unknown (none listed). */
typedef struct tric_module tric_module;
TRIC_API int tric_module_load_ptx(const char *ptx, tric_module **out, char **errors);
TRIC_API int tric_module_load_cubin(const void *image, size_t bytes, tric_module **out, char **errors);
TRIC_API void tric_module_free(tric_module *m);   /* NULL is fine */
TRIC_API int tric_module_function(const tric_module *m, const char *entry, int num_warps, int shared_bytes,
                                  tric_kernel **out, char **errors);

/* A host buffer the CPU interpreter lets a kernel touch. */
typedef struct tric_host_buffer {
    void *base;
    size_t bytes;
    const char *name;   /* in messages ("buffer 'x'"); NULL: "buffer<i>" */
    int read_only;      /* nonzero: a store or atomic into it is an error (a
                           read-only array or mapping), not a write */
} tric_host_buffer;

/* Runs the kernel on the CPU interpreter (interp/, see doc/interp.md)
 * instead of the GPU, program by program over the grid (x fastest); a
 * dimension of 0 runs nothing. slots[i] holds parameter i's value as in
 * tric_launch_packed, a host address for pointers (and for a tensor map's
 * bytes, tric_encode_tensor_map's for_interpreter form, which must lie in
 * one of bufs too). Every load and store
 * must fall inside one of bufs[0..n_buffers), else TRIC_ERR_INTERPRET with
 * the message "file:line:col: error: out-of-bounds store: ..." plus the
 * source line and a caret. Needs no GPU or driver: the kernel is lowered
 * again from the source text it was compiled from (kept in the kernel, also
 * for disk cache hits), so messages point into that source. Results are
 * written in place. */
TRIC_API int tric_interpret(tric_kernel *k, unsigned gx, unsigned gy, unsigned gz, const uint64_t *slots,
                   int n_buffers, const tric_host_buffer *bufs, char **errors);

/* What the kernel prints (print, tl.device_print) under the interpreter:
 * one line per element, in Triton's device_print format
 *     pid (0, 0, 0) idx (3) x: 1.500000
 *     pid (1, 0, 0) idx (0, 12) y: 0x3c00          (hex=True: the bits)
 *     pid (0, 0, 0) hello                          (no values)
 * operand by operand, elements in row-major order, programs in grid order
 * (x fastest); floats with %f, integers in decimal, bool as 0/1, pointers as
 * 0x... A failed device assertion (checked always, debug or not) ends the
 * run with TRIC_ERR_INTERPRET and "file:line:col: error: device assertion
 * failed: MSG: element (3) in program (1, 0, 0)" plus the source line and
 * a caret. tric_interpret writes the lines to stdout (and flushes it);
 * tric_interpret_print hands them to print(text, len, user) instead
 * (text NUL-terminated, whole lines, len bytes; called once at the end of
 * the run, also when it failed, and not at all when nothing was printed;
 * print NULL drops them). */
typedef void (*tric_print_fn)(const char *text, size_t len, void *user);
TRIC_API int tric_interpret_print(tric_kernel *k, unsigned gx, unsigned gy, unsigned gz, const uint64_t *slots,
                         int n_buffers, const tric_host_buffer *bufs, tric_print_fn print, void *user,
                         char **errors);

/* Small device helpers for C programs (PyTorch users do not need them). */
TRIC_API int tric_mem_alloc(uint64_t *dptr, size_t bytes, char **errors);
TRIC_API int tric_mem_free(uint64_t dptr, char **errors);
TRIC_API int tric_memcpy_htod(uint64_t dst, const void *src, size_t bytes, char **errors);
TRIC_API int tric_memcpy_dtoh(void *dst, uint64_t src, size_t bytes, char **errors);
TRIC_API int tric_synchronize(char **errors);
TRIC_API int tric_memset_d8(uint64_t dptr, unsigned char value, size_t bytes, void *stream, char **errors);
/* CUDA events (a CUevent as void *), to time any work queued on a stream. */
TRIC_API int tric_event_create(void **event, char **errors);
TRIC_API int tric_event_destroy(void *event, char **errors);
TRIC_API int tric_event_record(void *event, void *stream, char **errors);
TRIC_API int tric_event_synchronize(void *event, char **errors);
TRIC_API int tric_event_elapsed_ms(void *start, void *end, float *ms, char **errors);
/* The arch of the current context's device (device 0 where the thread has
 * no context), as "sm_90a", into buf; TRIC_ERR_NO_DRIVER without one. */
TRIC_API int tric_device_arch(char *buf, size_t size, char **errors);
/* The number of CUDA devices; TRIC_ERR_NO_DRIVER without a driver or any. */
TRIC_API int tric_device_count(int *count, char **errors);
/* cuDeviceGetAttribute of device `device`: attribute is a CUdevice_attribute
 * (cuda.h's numbering; 16 = multiprocessor count, 97 = shared memory per
 * block opted in, ...). Needs no context. */
TRIC_API int tric_device_attribute(int device, int attribute, int *value, char **errors);
/* Makes device `device`'s primary context (PyTorch's and the CUDA
 * runtime's) current on the calling thread, as cudaSetDevice does: later
 * launches, memory and synchronize calls on this thread go to it. */
TRIC_API int tric_set_device(int device, char **errors);
/* The current context's device (made device 0's primary context first if
 * the thread has none). */
TRIC_API int tric_get_device(int *device, char **errors);

TRIC_API const char *tric_version(void);   /* "0.1.0" */
TRIC_API void tric_free(void *p);          /* frees an errors string (for callers without free) */

#ifdef __cplusplus
}
#endif
#endif
