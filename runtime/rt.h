/* The runtime's internals: the compile pipeline behind tric_compile_* and
 * the CLI, and the CUDA driver behind tric_launch.
 *
 *   compile.c   rt_compile      source or IR text -> requested stage, errors captured
 *   driver.c    rt_driver_*     libcuda via dlopen, primary context, modules, launches
 *   api.c       tric_*          the public API (tric.h) over both
 */
#ifndef TRIC_RT_H
#define TRIC_RT_H

#include <sys/types.h>

#include "../base/base.h"
#include "../ir/ir.h"
#include "../ir/tmap.h"
#include "tric.h"

/* ---- compile.c ---- */
typedef enum RtEmit { RT_EMIT_TOKENS, RT_EMIT_AST, RT_EMIT_IR, RT_EMIT_PTX } RtEmit;

typedef struct RtRequest {
    const char *path;        /* the input file; its name is used in messages */
    const char *source;      /* the text, or NULL to read `path` */
    bool is_ir;              /* IR text (.tir) instead of Python */
    const char *kernel;      /* Python input: the @jit function (NULL: tokens/ast only) */
    const char *signature;   /* Python input, for ir/ptx */
    Target target;
    RtEmit emit;
    /* IR input: comma-separated pass names, "all" (the standard pipeline),
     * or NULL/"" for none. Python input always runs the standard pipeline
     * before emitting PTX. */
    const char *passes;
    const char *dump_after;  /* pass name, "all", or NULL */
    bool verify_each;        /* always on in the test build */
    const char **search_path;   /* where imported modules are looked for, after the input's directory */
    int n_search_path;
    const char *entry_name;  /* Python input: the .entry's name, if not the kernel's */
} RtRequest;

typedef enum RtParamKind { RT_PARAM_POINTER, RT_PARAM_INT, RT_PARAM_FLOAT, RT_PARAM_TENSORMAP } RtParamKind;

typedef struct RtParam {
    char *name;
    RtParamKind kind;
    char *type;              /* signature spelling: "*fp32", "i32", "fp16"; a tensor map: its
                                descriptor's, "tensordesc<fp16[64, 64]>" */
    int bytes;               /* size of the value passed at launch */
    int part, part_index;    /* tric_param_part of a tensor descriptor argument */
    int divisibility;        /* 16 from a ":16" hint, else 1 (rt_compile only; not cached) */
} RtParam;

/* A plain parameter the signature baked in (IrFunc.baked): not passed */
typedef struct RtBaked {
    char *name;
    char *text;              /* the value as the signature writes it */
    bool is_constexpr;
    bool is_int;             /* an integer or bool value, in int_value */
    int64_t int_value;
} RtBaked;

/* Everything a compilation leaves behind; all heap, freed by rt_result_free. */
typedef struct RtResult {
    bool ok;
    bool internal;           /* not ok because of a bug in tric (an internal error) */
    char *text;              /* the requested stage (PTX, IR, tokens, AST) */
    char *dumps;             /* --dump-after output, possibly empty */
    char *diag;              /* every message, formatted; empty when none */
    char *kernel_name;       /* the .entry name (PTX and IR only) */
    RtParam *params;         /* launch parameters in order (PTX only) */
    int n_params;
    int num_warps;
    int shared_bytes;        /* dynamic shared memory the launch passes */
    int scratch_bytes;       /* global scratch per program (tric_kernel_scratch_bytes) */
    /* pass_regs's estimate (PTX, and IR after the regs pass): 32-bit
     * registers per thread (0 = none), predicates, and where the peak is
     * ("file:line op", heap; NULL when none) */
    int est_regs, est_preds;
    char *est_peak;
    char *loads;             /* ir_load_report's lines (PTX; heap, NULL when none) */
    char *ir;                /* Python input emitting PTX: the IR after all passes */
    /* Python input emitting PTX: the user's modules it imported
     * (rt_cache_imports); "" when none. A disk cache entry is valid only
     * while they match. */
    char *imports;
    RtBaked *baked;          /* Python input emitting PTX (rt_compile only; not cached) */
    int n_baked;
} RtResult;

bool rt_compile(const RtRequest *rq, RtResult *out);
void rt_result_free(RtResult *r);

/* ---- compile.c: the CPU interpreter (interp/) over the same pipeline ----
 * rt_each_stage lowers a Python kernel (or parses IR text) as rt_compile
 * does and calls each(fn, stage, index, ud) with the IR after lowering
 * (stage "lowering"; "parsing" for IR text) and then after every pass of the
 * standard pipeline (Python, or IR with --passes all) or of rq->passes, in
 * order; index counts from 0. The pass order is opt/passes.c's own list
 * (opt_standard_pipeline), so it never drifts from the pipeline. On a
 * compile error: false, with the messages in *diag (heap; always set). */
typedef void (*RtStageFn)(IrFunc *fn, const char *stage, int index, void *ud);
bool rt_each_stage(const RtRequest *rq, RtStageFn each, void *ud, char **diag);

/* Runs the kernel on the CPU: the IR after all passes (Python) or after
 * rq->passes (IR text), with buffers and scalars from `args` (the
 * interp_setup language), over `grid` ("4" or "(cdiv(n, 256), 1, 1)"),
 * random data from `seed`. out->text: the buffers named in `print` (comma
 * separated; NULL = every buffer), first 16 elements and checksums.
 * With irq->simulate, the IR after all passes goes on to PTX, which runs on
 * the simulator with num_warps * 32 threads per CTA. */
typedef struct RtInterpRequest {
    const char *args, *grid, *print;
    uint64_t seed;
    /* compile to PTX and run the PTX on the simulator (sim/) instead of the
     * IR on the interpreter; same inputs, same printout */
    bool simulate;
} RtInterpRequest;
bool rt_interpret(const RtRequest *rq, const RtInterpRequest *irq, RtResult *out);

/* "sm_80", "sm_90a", ... -> t->sm and t->arch_a only (start from
 * rt_default_target); false if not a supported arch. rt_compile and
 * rt_each_stage reject an incomplete Target with a message. */
bool rt_parse_arch(const char *s, Target *t);
/* name is a pass of the pass table (what --passes and --dump-after take) */
bool rt_is_pass(const char *name);
/* the pass names, ", "-separated, into out */
void rt_pass_names(Buf *out);
void rt_default_target(Target *t);   /* sm_80, 4 warps, 3 stages */

/* ---- aot.c: C launchers ahead of time (tric --emit c) ----
 * Compiles every specialization (kernel, signature, num_warps) for every
 * arch and writes a header and a source: per kernel one typed launcher
 * that picks the specialization from the arguments, the PTX of each and,
 * with use_ptxas and a ptxas found (rt_find_ptxas), its cubin. Messages
 * (compile errors, a note when there is no ptxas) go to out->diag. */
typedef struct RtAotSpec {
    const char *kernel, *signature;
    int num_warps;           /* 0: the base request's */
} RtAotSpec;
typedef struct RtAotRequest {
    const RtRequest *base;   /* path, source, search path and target options */
    const RtAotSpec *specs;
    int n_specs;
    const char *const *archs;   /* "sm_80", "sm_90a", ... (checked with rt_parse_arch) */
    int n_archs;
    const char *name;        /* the output's path without .h/.c: names the include and the guard */
    bool use_ptxas;
} RtAotRequest;
typedef struct RtAotResult {
    bool ok;
    char *header, *source, *diag;   /* heap */
} RtAotResult;
bool rt_emit_c(const RtAotRequest *rq, RtAotResult *out);
void rt_aot_result_free(RtAotResult *r);
/* The "# kernel:" / "# signature:" / "# num_warps:" lines of a kernel file's
 * test blocks as specs (heap; rt_aot_specs_free); false if there are none. */
bool rt_aot_specs_from_blocks(const char *text, RtAotSpec **specs, int *n_specs);
void rt_aot_specs_free(RtAotSpec *specs, int n);

/* ---- ptxas.c ---- */
char *rt_find_ptxas(void);   /* $TRIC_PTXAS ("none": NULL), PATH, $CUDA_HOME/bin, /usr/local/cuda/bin */
bool rt_ptxas(const char *ptxas, const char *ptx, const char *arch, Buf *cubin, Buf *err);

/* ---- driver.c ----
 * Every function returns 0 on success, or a TRIC_ERR_* code (tric.h) after
 * appending a message naming the failed call to *err (NULL: no message). */
typedef struct RtModule RtModule;    /* a loaded module and its one kernel */

/* dlopen and cuInit (once), then a current context on the calling thread:
 * its own, else device 0's primary context made current. Every call
 * below works in the context this leaves current. */
int rt_driver_init(Buf *err);
int rt_device_count(int *n, Buf *err);
int rt_set_device(int device, Buf *err);   /* its primary context made current (cudaSetDevice) */
int rt_get_device(int *device, Buf *err);  /* the current context's device */
int rt_device_attribute(int device, int attribute, int *value, Buf *err);   /* cuDeviceGetAttribute */
/* For one launch on device `device`: the current context where it is on
 * that device, else the device's primary context pushed (*pushed), which
 * rt_leave_device pops. */
int rt_enter_device(int device, bool *pushed, Buf *err);
void rt_leave_device(bool pushed);
int rt_device_arch(Target *t, Buf *err);   /* the current device's sm, e.g. 90 + arch_a */
/* The kernel's module in the current context: from *loaded (a chain with
 * one module per context the kernel was launched in), else loaded there
 * and added to it: image is PTX text (JIT-compiled, through the JIT cache
 * when the disk cache is on), or a cubin of cubin_bytes bytes. threads: the block size the kernel is launched
 * with (its num_warps * 32), for the register cap (occupancy.c). The
 * caller serializes calls on one chain. */
int rt_module_get(RtModule **loaded, const void *image, size_t cubin_bytes, const char *entry, int shared_bytes,
                  int threads, RtModule **out, Buf *err);
void rt_module_unload_all(RtModule *loaded);   /* each in its own context */
/* cooperative: cuLaunchCooperativeKernel (all programs resident at once,
 * Triton's launch_cooperative_grid), else cuLaunchKernel */
int rt_module_launch(RtModule *m, unsigned gx, unsigned gy, unsigned gz, unsigned block_x,
                     void **args, void *stream, bool cooperative, Buf *err);
/* the driver's CUtensorMap of f (128 bytes into out) */
int rt_tensor_map_encode(const TmapFields *f, void *out, Buf *err);
int rt_mem_alloc(uint64_t *dptr, size_t bytes, Buf *err);
int rt_mem_free(uint64_t dptr, Buf *err);
int rt_memcpy_htod(uint64_t dst, const void *src, size_t bytes, Buf *err);
int rt_memcpy_dtoh(void *dst, uint64_t src, size_t bytes, Buf *err);
int rt_synchronize(Buf *err);
/* Median time of `iters` launches (after one warm-up), by CUDA events on stream. */
int rt_module_time(RtModule *m, unsigned gx, unsigned gy, unsigned gz, unsigned block_x,
                   void **args, void *stream, int iters, float *ms, Buf *err);
/* cuFuncGetAttribute NUM_REGS and LOCAL_SIZE_BYTES of the module's kernel. */
int rt_module_attrs(RtModule *m, int *num_regs, int *local_bytes, Buf *err);

/* ---- occupancy.c ---- */
typedef struct RtSmLimits {
    int regs, threads, blocks;      /* per SM */
    int smem, smem_reserved;        /* shared memory per SM, and what the driver reserves per CTA */
} RtSmLimits;
/* CTAs of `threads` threads, regs_per_thread registers and smem_bytes of
 * shared memory that one SM holds. */
int rt_ctas_per_sm(const RtSmLimits *sm, int regs_per_thread, int threads, int smem_bytes);
/* The largest register count below regs_per_thread (by at most 8) at which
 * an SM holds more such CTAs; 0 if none. */
int rt_register_cap(const RtSmLimits *sm, int regs_per_thread, int threads, int smem_bytes);
int rt_memset_d8(uint64_t dptr, unsigned char value, size_t bytes, void *stream, Buf *err);
/* CUevents behind void * (tric_event_*). */
int rt_event_create(void **event, Buf *err);
int rt_event_destroy(void *event, Buf *err);
int rt_event_record(void *event, void *stream, Buf *err);
int rt_event_synchronize(void *event, Buf *err);
int rt_event_elapsed_ms(void *start, void *end, float *ms, Buf *err);

/* ---- cache.c ----
 * The disk cache of compiled kernels: one file per (source text, kernel,
 * signature, target, options, tric version, build of tric) under
 * $TRIC_CACHE_DIR (default ~/.cache/tric; "off" disables it). Only a
 * directory of the user's alone is used (rt_cache_untrusted), and only
 * regular files of at most RT_CACHE_MAX_BYTES are read from it: a bound
 * far above any kernel's PTX and IR (a few MiB for the largest), so that a
 * file planted there cannot make a compile read without end. */
#define RT_CACHE_MAX_BYTES (64 << 20)
#define RT_CACHE_MAX_TEXT "64 MiB"
void rt_sha256(const void *data, size_t n, uint8_t digest[32]);
typedef struct RtCache {
    int fd;     /* the directory, opened once and checked; -1 when not in use */
    Buf path;   /* its path, for notes */
} RtCache;
/* Opens the cache directory, making it (and the directories above it that
 * are missing) 0700 when there is none. False, with fd -1, when the cache
 * is off, there is no HOME to put it under, it cannot be made or opened,
 * or it is not trusted: then a one-line note on stderr says why, and the
 * compile goes on without reading or writing it. rt_cache_close ends
 * either (c is then ready for another open). */
bool rt_cache_open(RtCache *c);
void rt_cache_close(RtCache *c);
/* Why a file or directory of the cache, with this owner and mode, is not
 * to be trusted by the user `user` (a static phrase: "it is owned by
 * another user", "it is writable by group or others"); NULL when it is:
 * owned by the user or root, and writable by nobody else. */
const char *rt_cache_untrusted(uid_t owner, mode_t mode, uid_t user);
char *rt_strndup(const char *s, size_t n);   /* heap; out of memory is an internal error */
/* The entry's key: 64 hex digits and a NUL into hex. */
void rt_cache_key(const RtRequest *rq, const char *source, char hex[65]);
/* RtResult.imports for files, the modules rq's kernel imported (their
 * text as lowered, not as on disk now), into out: when there are any, a
 * line "dirs <sha256 of the directories searched>", then one line
 * "<sha256 of the text> <absolute path>" per file. */
void rt_cache_imports(Buf *out, const RtRequest *rq, const SrcFile *const *files, int n);
/* Fills out (ok, PTX, name, params, IR, warps, shared, imports) from the
 * entry; false if there is none or it is unreadable, truncated or corrupt,
 * or a module it imported no longer holds the text it was compiled from
 * (or is no longer a regular file, or is now a symbolic link). An entry
 * that is not a regular file, is too big, or is not trusted is skipped
 * with a note on stderr. */
bool rt_cache_load(const RtCache *c, const char *hex, const RtRequest *rq, RtResult *out);
/* Writes the entry atomically (a new 0600 temporary file + rename); false
 * on failure, which only costs a later recompilation. */
bool rt_cache_store(const RtCache *c, const char *hex, const RtResult *res);
/* A file of bytes under the directory (written atomically, with their
 * checksum); load appends them to *out, false if the file is missing or
 * damaged (or refused as rt_cache_load refuses an entry). */
bool rt_cache_load_blob(const RtCache *c, const char *name, Buf *out);
bool rt_cache_store_blob(const RtCache *c, const char *name, const void *data, size_t n);

#endif
