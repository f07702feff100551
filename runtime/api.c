/* The public C API (tric.h): compile through rt_compile (or take the
 * kernel from the disk cache, cache.c), launch through the driver table. A
 * tric_kernel owns its PTX and parameter list and loads its module lazily,
 * once per CUDA context it is launched in, under its own lock. */
#include "rt.h"

#include <ctype.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../frontend/frontend.h"
#include "../interp/interp.h"
#include "../opt/opt.h"
#include "../sim/sim.h"

struct tric_kernel {
    RtResult res;            /* owns the PTX, the name and the parameter strings */
    tric_param *params;      /* views into res.params */
    char arch[16];
    pthread_mutex_t lock;    /* guards modules */
    RtModule *modules;       /* one per context launched in (rt_module_get) */
    bool cache_hit;          /* read from the disk cache, not compiled */
    bool cooperative;        /* launched with cuLaunchCooperativeKernel (tric_options) */
    void *cubin;             /* tric_module_function of a cubin: its image (res.text is NULL) */
    size_t cubin_bytes;
    /* What it was compiled from, so tric_interpret can lower it again with
     * the source locations its messages need (the IR text has none). */
    Target target;
    char *path, *source, *kernel, *signature;
    char **search_path;      /* the options' search path, copied */
    int n_search_path;
};

/* Hands the message in msg to the caller (or drops it) and returns st. */
static int finish(int st, Buf *msg, char **errors) {
    if (errors) *errors = st ? buf_take(msg) : NULL;
    buf_free(msg);
    return st;
}

static void arch_name(const Target *t, char *buf, size_t size) {
    snprintf(buf, size, "sm_%d%s", t->sm, t->arch_a ? "a" : "");
}

/* Options to a Target; a NULL arch asks the device, falling back to sm_80
 * where there is none (compiling needs no GPU). */
static int options_target(const tric_options *opt, Target *t, Buf *err) {
    rt_default_target(t);
    const char *arch = opt ? opt->arch : NULL;
    if (arch && !rt_parse_arch(arch, t)) {
        buf_printf(err, "tric: unknown arch '%s' (use ", arch);
        target_names(err, " or ");
        buf_puts(err, ")");
        return TRIC_ERR_ARG;
    }
    if (!arch) {
        Target dev = *t;
        if (rt_device_arch(&dev, NULL) == TRIC_OK) *t = dev;
    }
    if (opt && opt->num_warps) {
        int w = opt->num_warps;
        if (w < 1 || w > 32 || (w & (w - 1))) {
            buf_printf(err, "tric: num_warps must be a power of two from 1 to 32, not %d", w);
            return TRIC_ERR_ARG;
        }
        t->num_warps = w;
    }
    t->debug = opt && opt->debug;
    if (opt && opt->maxnreg) {
        if (opt->maxnreg < 16 || opt->maxnreg > 255) {
            buf_printf(err, "tric: maxnreg must be from 16 to 255 registers per thread, not %d", opt->maxnreg);
            return TRIC_ERR_ARG;
        }
        t->maxnreg = opt->maxnreg;
    }
    t->no_fp_fusion = opt && opt->disable_fp_fusion;
    if (opt && opt->num_stages) {
        if (opt->num_stages < 1) {
            buf_printf(err, "tric: num_stages must be at least 1, not %d", opt->num_stages);
            return TRIC_ERR_ARG;
        }
        t->num_stages = opt->num_stages;
    }
    return TRIC_OK;
}

static char *api_strdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (!d) tric_internal_error(__FILE__, __LINE__, "out of memory");
    return memcpy(d, s, n);
}

/* "sm_90a" from a PTX module's .target line ("" if it has none) */
static const char *ptx_target(const char *ptx) {
    static const char *const archs[] = {"sm_90a", "sm_90", "sm_89", "sm_86", "sm_80"};
    const char *t = strstr(ptx, ".target ");
    for (size_t i = 0; t && i < ARRAY_LEN(archs); i++)
        if (strncmp(t + 8, archs[i], strlen(archs[i])) == 0) return archs[i];
    return "";
}

static tric_kernel *kernel_new(RtResult *res, const RtRequest *rq) {
    const Target *t = &rq->target;
    tric_kernel *k = calloc(1, sizeof *k);
    if (!k) tric_internal_error(__FILE__, __LINE__, "out of memory");
    k->res = *res;
    k->params = calloc(res->n_params ? (size_t)res->n_params : 1, sizeof *k->params);
    if (!k->params) tric_internal_error(__FILE__, __LINE__, "out of memory");
    for (int i = 0; i < res->n_params; i++) {
        RtParam *p = &res->params[i];
        k->params[i] = (tric_param){p->name, (int)p->kind, p->type, p->bytes, p->part, p->part_index};
    }
    arch_name(t, k->arch, sizeof k->arch);
    k->target = *t;
    k->path = api_strdup(rq->path);
    k->source = rq->source ? api_strdup(rq->source) : NULL;   /* NULL: read by rt_compile */
    k->kernel = api_strdup(rq->kernel);
    k->signature = api_strdup(rq->signature);
    k->n_search_path = rq->n_search_path;
    k->search_path = calloc((size_t)rq->n_search_path + 1, sizeof *k->search_path);
    if (!k->search_path) tric_internal_error(__FILE__, __LINE__, "out of memory");
    for (int i = 0; i < rq->n_search_path; i++) k->search_path[i] = api_strdup(rq->search_path[i]);
    pthread_mutex_init(&k->lock, NULL);
    return k;
}

/* A whole file, or NULL if it cannot be read (rt_compile then says why). */
static char *read_source(const char *path) {
    Buf b = {0};
    if (!buf_read_file(&b, path)) {
        buf_free(&b);
        return NULL;
    }
    return buf_take(&b);
}

/* A whole file for the kernel to keep, or NULL if it cannot be read or
 * holds a NUL byte (rt_compile then reads it and says what is wrong). */
static char *read_source_text(const char *path) {
    Buf b = {0};
    if (!buf_read_file(&b, path) || memchr(buf_str(&b), 0, b.len)) {
        buf_free(&b);
        return NULL;
    }
    return buf_take(&b);
}

/* Compiles rq, through the disk cache when it is on: the key hashes the
 * very text that is compiled (read once here), so a file edited meanwhile
 * cannot be stored under the old text's key. *hit says where it came from. */
static bool compile_cached(RtRequest *rq, RtResult *res, bool *hit) {
    RtCache cache;
    char *text = NULL;
    *hit = false;
    bool use_cache = rt_cache_open(&cache);
    if (use_cache && !rq->source) rq->source = text = read_source(rq->path);
    use_cache = use_cache && rq->source;
    char key[65];
    if (use_cache) {
        rt_cache_key(rq, rq->source, key);
        *hit = rt_cache_load(&cache, key, rq, res);
    }
    bool ok = *hit || rt_compile(rq, res);
    if (ok && use_cache && !*hit) rt_cache_store(&cache, key, res);
    free(text);
    rt_cache_close(&cache);
    return ok;
}

static int compile_common(const char *path, const char *source, const char *kernel,
                          const char *signature, const tric_options *opt, tric_kernel **out,
                          char **errors) {
    Buf msg = {0};
    if (out) *out = NULL;
    if (!path || !kernel || !signature || !out) {
        buf_puts(&msg, "tric_compile: path, kernel, signature and out must not be NULL");
        return finish(TRIC_ERR_ARG, &msg, errors);
    }
    RtRequest rq = {.path = path, .source = source, .kernel = kernel, .signature = signature,
                    .emit = RT_EMIT_PTX};
    if (opt && opt->search_path) {
        rq.search_path = (const char **)opt->search_path;
        while (rq.search_path[rq.n_search_path]) rq.n_search_path++;
    }
    int st = options_target(opt, &rq.target, &msg);
    if (st) return finish(st, &msg, errors);
    if (opt && opt->entry_name) {
        const char *e = opt->entry_name;
        bool ok = *e && !isdigit((unsigned char)*e);
        for (; *e; e++) ok = ok && (isalnum((unsigned char)*e) || *e == '_' || *e == '$');
        if (!ok) {
            buf_printf(&msg, "tric: entry_name '%s' is not a PTX identifier (letters, digits, '_' and '$', "
                       "not starting with a digit)", opt->entry_name);
            return finish(TRIC_ERR_ARG, &msg, errors);
        }
        rq.entry_name = opt->entry_name;
    }
    /* read here, not in compile_cached, so the kernel can keep the text */
    char *text = source ? NULL : read_source_text(path);
    if (text) rq.source = text;
    RtResult res;
    bool hit;
    if (!compile_cached(&rq, &res, &hit)) {
        buf_puts(&msg, res.diag);
        rt_result_free(&res);
        free(text);
        return finish(res.internal ? TRIC_ERR_INTERNAL : TRIC_ERR_COMPILE, &msg, errors);
    }
    *out = kernel_new(&res, &rq);
    (*out)->cache_hit = hit;
    (*out)->cooperative = opt && opt->launch_cooperative_grid;
    free(text);
    return finish(TRIC_OK, &msg, errors);
}

int tric_compile_file(const char *path, const char *kernel, const char *signature,
                      const tric_options *opt, tric_kernel **out, char **errors) {
    return compile_common(path, NULL, kernel, signature, opt, out, errors);
}

int tric_compile_source(const char *path_for_messages, const char *source, const char *kernel,
                        const char *signature, const tric_options *opt, tric_kernel **out,
                        char **errors) {
    if (!source) {
        Buf msg = {0};
        buf_puts(&msg, "tric_compile_source: source must not be NULL");
        if (out) *out = NULL;
        return finish(TRIC_ERR_ARG, &msg, errors);
    }
    return compile_common(path_for_messages ? path_for_messages : "<source>", source, kernel,
                          signature, opt, out, errors);
}

void tric_kernel_free(tric_kernel *k) {
    if (!k) return;
    rt_module_unload_all(k->modules);
    pthread_mutex_destroy(&k->lock);
    free(k->params);
    rt_result_free(&k->res);
    free(k->path);
    free(k->source);
    free(k->kernel);
    for (int i = 0; i < k->n_search_path; i++) free(k->search_path[i]);
    free(k->search_path);
    free(k->signature);
    free(k->cubin);
    free(k);
}

const char *tric_kernel_ptx(const tric_kernel *k) { return k ? k->res.text : NULL; }
const char *tric_kernel_name(const tric_kernel *k) { return k ? k->res.kernel_name : NULL; }
const char *tric_kernel_arch(const tric_kernel *k) { return k ? k->arch : NULL; }
int tric_kernel_num_params(const tric_kernel *k) { return k ? k->res.n_params : 0; }
int tric_kernel_num_warps(const tric_kernel *k) { return k ? k->res.num_warps : 0; }
int tric_kernel_shared_bytes(const tric_kernel *k) { return k ? k->res.shared_bytes : 0; }
int tric_kernel_scratch_bytes(const tric_kernel *k) { return k ? k->res.scratch_bytes : 0; }
int tric_kernel_estimated_registers(const tric_kernel *k) { return k ? k->res.est_regs : 0; }
const char *tric_kernel_ir(const tric_kernel *k) { return k ? k->res.ir : NULL; }
int tric_kernel_cache_hit(const tric_kernel *k) { return k ? k->cache_hit : 0; }
const char *tric_kernel_log(const tric_kernel *k) { return k ? (k->res.diag ? k->res.diag : "") : NULL; }

const tric_param *tric_kernel_param(const tric_kernel *k, int i) {
    if (!k || i < 0 || i >= k->res.n_params) return NULL;
    return &k->params[i];
}

/* The module in the calling thread's current context, loaded by whichever
 * thread launches there first. */
static int kernel_module(tric_kernel *k, RtModule **m, Buf *msg) {
    pthread_mutex_lock(&k->lock);
    int st = rt_module_get(&k->modules, k->cubin ? k->cubin : k->res.text, k->cubin_bytes, k->res.kernel_name,
                           k->res.shared_bytes, k->res.num_warps * 32, m, msg);
    pthread_mutex_unlock(&k->lock);
    return st;
}

static int check_launch(const tric_kernel *k, void **args, Buf *msg) {
    if (!k) {
        buf_puts(msg, "tric_launch: kernel is NULL");
        return TRIC_ERR_ARG;
    }
    if (!args && k->res.n_params > 0) {
        buf_printf(msg, "tric_launch: kernel '%s' takes %d parameters but args is NULL",
                   k->res.kernel_name, k->res.n_params);
        return TRIC_ERR_ARG;
    }
    return TRIC_OK;
}

/* The launch itself, on `device` (-1: the current context). */
static int launch_on(tric_kernel *k, int device, unsigned gx, unsigned gy, unsigned gz, void **args, void *stream,
                     Buf *msg) {
    bool pushed = false;
    int st = device >= 0 ? rt_enter_device(device, &pushed, msg) : TRIC_OK;
    RtModule *m = NULL;
    if (!st) st = kernel_module(k, &m, msg);
    if (!st)
        st = rt_module_launch(m, gx, gy, gz, 32u * (unsigned)k->res.num_warps, args, stream, k->cooperative, msg);
    rt_leave_device(pushed);
    return st;
}

int tric_launch_on(tric_kernel *k, int device, unsigned gx, unsigned gy, unsigned gz, void **args, void *stream,
                   char **errors) {
    Buf msg = {0};
    int st = check_launch(k, args, &msg);
    if (!st) st = launch_on(k, device, gx, gy, gz, args, stream, &msg);
    return finish(st, &msg, errors);
}

int tric_launch(tric_kernel *k, unsigned gx, unsigned gy, unsigned gz, void **args, void *stream,
                char **errors) {
    return tric_launch_on(k, -1, gx, gy, gz, args, stream, errors);
}

/* The packed form: parameter i's value is in the low bytes of slots[i]
 * (little-endian, as the GPU and the host agree), so the caller fills one
 * array instead of building a pointer per argument. */
int tric_launch_packed_on(tric_kernel *k, int device, unsigned gx, unsigned gy, unsigned gz, void *stream,
                          const uint64_t *slots, char **errors) {
    enum { INLINE = 64 };
    void *inline_args[INLINE];
    Buf msg = {0};
    int st = TRIC_OK;
    if (!k) {
        buf_puts(&msg, "tric_launch_packed: kernel is NULL");
        st = TRIC_ERR_ARG;
    } else if (!slots && k->res.n_params > 0) {
        buf_printf(&msg, "tric_launch_packed: kernel '%s' takes %d parameters but slots is NULL", k->res.kernel_name,
                   k->res.n_params);
        st = TRIC_ERR_ARG;
    } else if (k->cubin) {
        buf_printf(&msg, "tric_launch_packed: kernel '%s' comes from a cubin, whose parameters tric cannot see: "
                   "launch it with tric_launch", k->res.kernel_name);
        st = TRIC_ERR_ARG;
    }
    if (st) return finish(st, &msg, errors);
    int n = k->res.n_params;
    void **args = n <= INLINE ? inline_args : malloc(sizeof(void *) * (size_t)n);
    if (!args) tric_internal_error(__FILE__, __LINE__, "out of memory");
    for (int i = 0; i < n; i++)   /* a tensor map's slot holds the address of its bytes */
        args[i] = k->params[i].kind == TRIC_PARAM_TENSORMAP ? (void *)(uintptr_t)slots[i] : (void *)(uintptr_t)&slots[i];
    st = launch_on(k, device, gx, gy, gz, args, stream, &msg);
    if (args != inline_args) free(args);
    return finish(st, &msg, errors);
}

int tric_launch_packed(tric_kernel *k, unsigned gx, unsigned gy, unsigned gz, void *stream, const uint64_t *slots,
                       char **errors) {
    return tric_launch_packed_on(k, -1, gx, gy, gz, stream, slots, errors);
}

/* ---- tensor maps ---- */

/* "tensordesc<fp16[64, 32]>" or "...,nan>": the element type, the block,
 * the padding; false if s is not one */
static bool parse_desc_type(const char *s, ElemType *e, int *rank, int32_t *block, bool *nan) {
    const char *lt = strchr(s, '<'), *lb = lt ? strchr(lt, '[') : NULL;
    if (!lb) return false;
    *e = ET_COUNT;
    for (int t = 0; t < ET_COUNT; t++) {
        const char *name = elem_triton_name((ElemType)t);
        if (t != ET_PTR && strlen(name) == (size_t)(lb - lt - 1) && !strncmp(lt + 1, name, strlen(name))) *e = (ElemType)t;
    }
    *rank = 0;
    for (const char *p = lb + 1; *e != ET_COUNT && *rank < TMAP_MAX_RANK;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 1) return false;
        block[(*rank)++] = (int32_t)v;
        p = end;
        if (*p == ']') break;
        if (*p++ != ',') return false;
    }
    *nan = strstr(lb, ",nan>") != NULL;
    return *e != ET_COUNT && *rank > 0;
}

int tric_encode_tensor_map(const tric_kernel *k, int i, uint64_t base, int rank, const int64_t *shape,
                           const int64_t *strides, int for_interpreter, void *out, char **errors) {
    Buf msg = {0};
    const tric_param *p = tric_kernel_param(k, i);
    ElemType e;
    int brank;
    int32_t block[TMAP_MAX_RANK];
    bool nan;
    TmapBox box;
    if (!p || p->kind != TRIC_PARAM_TENSORMAP || !parse_desc_type(p->type, &e, &brank, block, &nan) ||
        !tmap_box(e, brank, block, &box)) {
        buf_printf(&msg, "tric_encode_tensor_map: parameter %d of the kernel is not a tensor map", i);
        return finish(TRIC_ERR_ARG, &msg, errors);
    }
    int eb = elem_bytes(e);
    const char *bad = !shape || !strides || !out || rank != brank ? "rank and block differ (or NULL arrays)"
                      : base % 16                                   ? "base must be 16-byte aligned"
                      : strides[rank - 1] != 1                      ? "Last dimension must be contiguous"
                      : (uintptr_t)out % 64                         ? "out must be 64-byte aligned"
                                                                    : NULL;
    TmapFields f = {.address = base, .rank = rank, .dtype = tmap_dtype(e), .swizzle = box.swizzle, .fill_nan = nan};
    for (int d = 0; d < rank && !bad; d++) {
        int dim = rank - 1 - d;   /* innermost first */
        if (shape[dim] < 1 || shape[dim] > ((int64_t)1 << 32)) bad = "shape must be positive (and under 2^32)";
        if (dim < rank - 1 && (strides[dim] < 1 || (strides[dim] * eb) % 16 || strides[dim] * eb >= ((int64_t)1 << 40)))
            bad = "strides must be 16-byte aligned (and under 2^40 bytes)";
        f.dims[d] = (uint32_t)shape[dim];
        f.box[d] = d ? (uint32_t)block[dim] : (uint32_t)box.inner;
        if (d) f.strides[d - 1] = (uint64_t)strides[dim] * (uint64_t)eb;
    }
    if (bad) {
        buf_printf(&msg, "tric_encode_tensor_map: parameter %d (%s): %s", i, p->name, bad);
        return finish(TRIC_ERR_ARG, &msg, errors);
    }
    if (for_interpreter) {
        tmap_encode(&f, out);
        return finish(TRIC_OK, &msg, errors);
    }
    return finish(rt_tensor_map_encode(&f, out, &msg), &msg, errors);
}

/* ---- the CPU interpreter ---- */

/* A parameter slot in the interpreter's canonical form: integers sign- or
 * zero-extended from their width, floats in their low bits only, since
 * callers fill just the low bytes (tric_launch_packed's convention). */
static uint64_t interp_slot(ElemType e, uint64_t v) {
    if (e == ET_PTR) return v;
    if (elem_is_int(e)) return interp_int_norm(e, v);
    int bits = elem_bits(e);
    return bits >= 64 ? v : v & ((UINT64_C(1) << bits) - 1);
}

/* The kernel's IR after all passes, lowered again in c from the kept
 * source: the same IR the PTX came from, with its source locations. */
static IrFunc *interp_ir(Ctx *c, const tric_kernel *k) {
    c->search_path = (const char **)k->search_path;
    c->n_search_path = k->n_search_path;
    const SrcFile *f = srcfile_from_string(c, k->path, k->source);
    AstModule *m = parse_program(c, f);
    IrFunc *fn = lower_kernel(c, m, k->kernel, sig_parse(c, k->signature));
    opt_run_pipeline(fn);
    return fn;
}

static void interpret_kernel(Ctx *c, const tric_kernel *k, const uint32_t grid[3], const uint64_t *slots,
                             int n_buffers, const tric_host_buffer *bufs, Buf *prints, Buf *err, int *st) {
    IrFunc *fn = interp_ir(c, k);
    /* the caller's slots follow k's parameters, which a disk cache entry
     * gave: one not written for this source (edited by hand) must not make
     * the interpreter read past them */
    if ((int)fn->n_params != k->res.n_params) {
        buf_printf(err, "tric_interpret: kernel '%s' has %u parameters, but the compiled kernel lists %d (a damaged "
                   "disk cache entry? delete it from $TRIC_CACHE_DIR)", k->kernel, fn->n_params, k->res.n_params);
        *st = TRIC_ERR_INTERPRET;
        return;
    }
    uint64_t *args = arena_alloc(c->arena, sizeof *args * (fn->n_params ? fn->n_params : 1));
    for (uint32_t i = 0; i < fn->n_params; i++)
        args[i] = interp_slot(ir_type(fn, fn->params[i].val).elem, slots[i]);
    InterpBuffer *ib = arena_alloc(c->arena, sizeof *ib * (n_buffers ? (size_t)n_buffers : 1));
    for (int i = 0; i < n_buffers; i++) {
        const char *name = bufs[i].name ? bufs[i].name : arena_printf(c->arena, "buffer%d", i);
        ib[i] = (InterpBuffer){bufs[i].base, bufs[i].bytes, name, ET_COUNT, false, bufs[i].read_only != 0};
    }
    InterpLaunch l = {.grid = {grid[0], grid[1], grid[2]}, .args = args, .n_args = fn->n_params,
                      .buffers = ib, .n_buffers = (uint32_t)n_buffers, .print_out = prints,
                      .run_asm = sim_inline_asm};
    if (!interp_run(fn, &l, err)) *st = TRIC_ERR_INTERPRET;
}

static int check_interpret(const tric_kernel *k, const uint64_t *slots, int n_buffers,
                           const tric_host_buffer *bufs, Buf *msg) {
    if (!k) {
        buf_puts(msg, "tric_interpret: kernel is NULL");
        return TRIC_ERR_ARG;
    }
    if (!slots && k->res.n_params > 0) {
        buf_printf(msg, "tric_interpret: kernel '%s' takes %d parameters but slots is NULL", k->res.kernel_name,
                   k->res.n_params);
        return TRIC_ERR_ARG;
    }
    if (!k->source) {
        buf_printf(msg, "tric_interpret: kernel '%s' kept no source text to interpret (it came from "
                   "tric_module_function, or its file could not be read again); compile it with "
                   "tric_compile_source", k->res.kernel_name);
        return TRIC_ERR_ARG;
    }
    if (n_buffers < 0 || (n_buffers > 0 && !bufs)) {
        buf_printf(msg, "tric_interpret: %d buffers but bufs is %s", n_buffers, bufs ? "set" : "NULL");
        return TRIC_ERR_ARG;
    }
    return TRIC_OK;
}

int tric_interpret_print(tric_kernel *k, unsigned gx, unsigned gy, unsigned gz, const uint64_t *slots,
                         int n_buffers, const tric_host_buffer *bufs, tric_print_fn print, void *user,
                         char **errors) {
    Buf msg = {0};
    int st = check_interpret(k, slots, n_buffers, bufs, &msg);
    if (st || !gx || !gy || !gz) return finish(st, &msg, errors);
    const uint32_t grid[3] = {gx, gy, gz};
    Ctx *c = ctx_new(&k->target);
    jmp_buf bail;
    c->bail = &bail;
    Ctx *outer = ctx_guard(c);
    /* in the arena, not locals: both are written between setjmp and longjmp */
    Buf *err = arena_alloc(c->arena, sizeof *err);
    Buf *prints = arena_alloc(c->arena, sizeof *prints);
    int *result = arena_alloc(c->arena, sizeof *result);
    *err = *prints = (Buf){0};
    *result = TRIC_OK;
    if (setjmp(bail) == 0) {
        interpret_kernel(c, k, grid, slots, n_buffers, bufs, print ? prints : NULL, err, result);
        buf_puts(&msg, buf_str(err));
    } else {
        /* it compiled before, so only a changed build could get here */
        buf_puts(&msg, buf_str(&c->diag));
        *result = c->internal ? TRIC_ERR_INTERNAL : TRIC_ERR_COMPILE;
    }
    ctx_guard(outer);
    st = *result;
    if (print && prints->len) print(prints->data, prints->len, user);
    buf_free(prints);
    buf_free(err);
    ctx_free(c);
    return finish(st, &msg, errors);
}

/* What a kernel prints under tric_interpret goes where a GPU kernel's
 * printf output goes: the process's stdout. */
static void print_to_stdout(const char *text, size_t len, void *user) {
    (void)user;
    fwrite(text, 1, len, stdout);
    fflush(stdout);
}

int tric_interpret(tric_kernel *k, unsigned gx, unsigned gy, unsigned gz, const uint64_t *slots,
                   int n_buffers, const tric_host_buffer *bufs, char **errors) {
    return tric_interpret_print(k, gx, gy, gz, slots, n_buffers, bufs, print_to_stdout, NULL, errors);
}

int tric_kernel_attributes(tric_kernel *k, int *num_regs, int *local_bytes, char **errors) {
    Buf msg = {0};
    int regs = 0, local = 0;
    int st = TRIC_OK;
    if (!k) {
        buf_puts(&msg, "tric_kernel_attributes: kernel is NULL");
        st = TRIC_ERR_ARG;
    }
    RtModule *m = NULL;
    if (!st) st = kernel_module(k, &m, &msg);
    if (!st) st = rt_module_attrs(m, &regs, &local, &msg);
    if (num_regs) *num_regs = regs;
    if (local_bytes) *local_bytes = local;
    return finish(st, &msg, errors);
}

int tric_time_ms(tric_kernel *k, unsigned gx, unsigned gy, unsigned gz, void **args, void *stream,
                 int iters, float *ms, char **errors) {
    Buf msg = {0};
    int st = check_launch(k, args, &msg);
    if (!st && !ms) {
        buf_puts(&msg, "tric_time_ms: ms must not be NULL");
        st = TRIC_ERR_ARG;
    }
    RtModule *m = NULL;
    if (!st) st = kernel_module(k, &m, &msg);
    if (!st)
        st = rt_module_time(m, gx, gy, gz, 32u * (unsigned)k->res.num_warps, args, stream, iters,
                            ms, &msg);
    return finish(st, &msg, errors);
}

int tric_mem_alloc(uint64_t *dptr, size_t bytes, char **errors) {
    Buf msg = {0};
    return finish(rt_mem_alloc(dptr, bytes, &msg), &msg, errors);
}

int tric_mem_free(uint64_t dptr, char **errors) {
    Buf msg = {0};
    return finish(rt_mem_free(dptr, &msg), &msg, errors);
}

int tric_memcpy_htod(uint64_t dst, const void *src, size_t bytes, char **errors) {
    Buf msg = {0};
    return finish(rt_memcpy_htod(dst, src, bytes, &msg), &msg, errors);
}

int tric_memcpy_dtoh(void *dst, uint64_t src, size_t bytes, char **errors) {
    Buf msg = {0};
    return finish(rt_memcpy_dtoh(dst, src, bytes, &msg), &msg, errors);
}

int tric_memset_d8(uint64_t dptr, unsigned char value, size_t bytes, void *stream, char **errors) {
    Buf msg = {0};
    return finish(rt_memset_d8(dptr, value, bytes, stream, &msg), &msg, errors);
}

int tric_event_create(void **event, char **errors) {
    Buf msg = {0};
    if (!event) {
        buf_puts(&msg, "tric_event_create: event must not be NULL");
        return finish(TRIC_ERR_ARG, &msg, errors);
    }
    return finish(rt_event_create(event, &msg), &msg, errors);
}

int tric_event_destroy(void *event, char **errors) {
    Buf msg = {0};
    return finish(rt_event_destroy(event, &msg), &msg, errors);
}

int tric_event_record(void *event, void *stream, char **errors) {
    Buf msg = {0};
    return finish(rt_event_record(event, stream, &msg), &msg, errors);
}

int tric_event_synchronize(void *event, char **errors) {
    Buf msg = {0};
    return finish(rt_event_synchronize(event, &msg), &msg, errors);
}

int tric_event_elapsed_ms(void *start, void *end, float *ms, char **errors) {
    Buf msg = {0};
    if (!ms) {
        buf_puts(&msg, "tric_event_elapsed_ms: ms must not be NULL");
        return finish(TRIC_ERR_ARG, &msg, errors);
    }
    return finish(rt_event_elapsed_ms(start, end, ms, &msg), &msg, errors);
}

int tric_synchronize(char **errors) {
    Buf msg = {0};
    return finish(rt_synchronize(&msg), &msg, errors);
}

int tric_device_arch(char *buf, size_t size, char **errors) {
    Buf msg = {0};
    Target t;
    rt_default_target(&t);
    int st = rt_device_arch(&t, &msg);
    if (!st && buf && size) arch_name(&t, buf, size);
    return finish(st, &msg, errors);
}

int tric_device_count(int *count, char **errors) {
    Buf msg = {0};
    int n = 0;
    int st = rt_device_count(&n, &msg);
    if (count) *count = n;
    return finish(st, &msg, errors);
}

int tric_device_attribute(int device, int attribute, int *value, char **errors) {
    Buf msg = {0};
    int v = 0;
    int st = rt_device_attribute(device, attribute, &v, &msg);
    if (value) *value = v;
    return finish(st, &msg, errors);
}

int tric_set_device(int device, char **errors) {
    Buf msg = {0};
    return finish(rt_set_device(device, &msg), &msg, errors);
}

int tric_get_device(int *device, char **errors) {
    Buf msg = {0};
    int d = -1;
    int st = rt_get_device(&d, &msg);
    if (device) *device = d;
    return finish(st, &msg, errors);
}

const char *tric_version(void) { return TRIC_VERSION; }

void tric_free(void *p) { free(p); }

/* ---- modules compiled ahead of time ---- */

struct tric_module {
    char *ptx;         /* PTX text, or NULL */
    void *cubin;       /* a cubin, or NULL */
    size_t cubin_bytes;
};

int tric_module_load_ptx(const char *ptx, tric_module **out, char **errors) {
    Buf msg = {0};
    if (out) *out = NULL;
    if (!ptx || !out) {
        buf_puts(&msg, "tric_module_load_ptx: ptx and out must not be NULL");
        return finish(TRIC_ERR_ARG, &msg, errors);
    }
    if (!strstr(ptx, ".entry")) {
        buf_puts(&msg, "tric_module_load_ptx: the text has no .entry: it is not a PTX module");
        return finish(TRIC_ERR_ARG, &msg, errors);
    }
    tric_module *m = calloc(1, sizeof *m);
    if (!m || !(m->ptx = api_strdup(ptx))) tric_internal_error(__FILE__, __LINE__, "out of memory");
    *out = m;
    return TRIC_OK;
}

int tric_module_load_cubin(const void *image, size_t bytes, tric_module **out, char **errors) {
    Buf msg = {0};
    if (out) *out = NULL;
    if (!image || !out) {
        buf_puts(&msg, "tric_module_load_cubin: image and out must not be NULL");
        return finish(TRIC_ERR_ARG, &msg, errors);
    }
    if (bytes < 64 || memcmp(image, "\177ELF", 4) != 0) {
        buf_printf(&msg, "tric_module_load_cubin: %zu bytes that are not an ELF image (a cubin from ptxas)", bytes);
        return finish(TRIC_ERR_ARG, &msg, errors);
    }
    tric_module *m = calloc(1, sizeof *m);
    if (!m || !(m->cubin = malloc(bytes))) tric_internal_error(__FILE__, __LINE__, "out of memory");
    memcpy(m->cubin, image, bytes);
    m->cubin_bytes = bytes;
    *out = m;
    return TRIC_OK;
}

void tric_module_free(tric_module *m) {
    if (!m) return;
    free(m->ptx);
    free(m->cubin);
    free(m);
}

/* The .entry's parameters, in order, as tric_params (PTX types: ".u64"). */
static bool ptx_entry_params(const char *ptx, const char *entry, RtResult *res) {
    Buf pat = {0};
    buf_printf(&pat, ".entry %s(", entry);
    const char *p = strstr(ptx, pat.data);
    buf_free(&pat);
    if (!p) return false;
    const char *end = strchr(p, ')');
    int n = 0;
    for (const char *q = strstr(p, ".param "); q && end && q < end; q = strstr(q + 1, ".param ")) n++;
    res->params = calloc(n ? (size_t)n : 1, sizeof *res->params);
    if (!res->params) tric_internal_error(__FILE__, __LINE__, "out of memory");
    for (const char *q = strstr(p, ".param "); q && end && q < end; q = strstr(q + 1, ".param ")) {
        RtParam *rp = &res->params[res->n_params++];
        const char *t = q + 7;
        bool map = strncmp(t, ".align", 6) == 0;
        if (map) t = strstr(t, " .b8") ? strstr(t, " .b8") + 1 : t;
        size_t tn = strcspn(t, " \t");
        rp->type = rt_strndup(t, tn);
        const char *name = t + tn + strspn(t + tn, " \t");
        rp->name = rt_strndup(name, strcspn(name, " \t,[)\n"));
        int bits = atoi(t + 2);
        rp->bytes = map ? TMAP_BYTES : bits >= 8 ? bits / 8 : 1;
        rp->kind = map ? RT_PARAM_TENSORMAP : t[1] == 'f' ? RT_PARAM_FLOAT : RT_PARAM_INT;
    }
    return true;
}

int tric_module_function(const tric_module *m, const char *entry, int num_warps, int shared_bytes,
                         tric_kernel **out, char **errors) {
    Buf msg = {0};
    if (out) *out = NULL;
    if (!m || !entry || !out) {
        buf_puts(&msg, "tric_module_function: module, entry and out must not be NULL");
        return finish(TRIC_ERR_ARG, &msg, errors);
    }
    if (m->ptx && num_warps == 0) {   /* tric's PTX says it: .maxntid 32 * num_warps */
        const char *t = strstr(m->ptx, ".maxntid ");
        num_warps = t ? atoi(t + 9) / 32 : 0;
    }
    if (num_warps < 1 || num_warps > 32 || (num_warps & (num_warps - 1)) || shared_bytes < 0) {
        buf_printf(&msg, "tric_module_function: '%s' needs num_warps a power of two from 1 to 32 (0: from the "
                   "PTX's .maxntid) and shared_bytes >= 0, not %d and %d", entry, num_warps, shared_bytes);
        return finish(TRIC_ERR_ARG, &msg, errors);
    }
    RtResult res = {0};
    res.ok = true;
    res.kernel_name = api_strdup(entry);
    res.num_warps = num_warps;
    res.shared_bytes = shared_bytes;
    if (m->ptx) {
        if (!ptx_entry_params(m->ptx, entry, &res)) {
            buf_printf(&msg, "tric_module_function: the PTX has no .entry %s", entry);
            rt_result_free(&res);
            return finish(TRIC_ERR_ARG, &msg, errors);
        }
        res.text = api_strdup(m->ptx);
    }
    RtRequest rq = {.path = "<module>", .kernel = entry, .signature = ""};
    rt_default_target(&rq.target);
    rq.target.num_warps = num_warps;
    tric_kernel *k = kernel_new(&res, &rq);
    free(k->source);   /* nothing to interpret: the kernel came as PTX or a cubin */
    k->source = NULL;
    snprintf(k->arch, sizeof k->arch, "%s", m->ptx ? ptx_target(m->ptx) : "cubin");
    if (m->cubin) {
        if (!(k->cubin = malloc(m->cubin_bytes))) tric_internal_error(__FILE__, __LINE__, "out of memory");
        memcpy(k->cubin, m->cubin, m->cubin_bytes);
        k->cubin_bytes = m->cubin_bytes;
    }
    *out = k;
    return TRIC_OK;
}
