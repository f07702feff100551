/* The public C API (tric.h): compile through rt_compile, launch through the
 * driver table. A tric_kernel owns its PTX and parameter list and loads its
 * module lazily, once, under its own lock. */
#include "rt.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tric_kernel {
    RtResult res;            /* owns the PTX, the name and the parameter strings */
    tric_param *params;      /* views into res.params */
    char arch[16];
    pthread_mutex_t lock;    /* guards module */
    RtModule *module;        /* loaded on the first launch */
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
        buf_printf(err, "tric: unknown arch '%s' (use sm_80, sm_86, sm_89, sm_90 or sm_90a)", arch);
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
    if (opt && opt->num_stages) {
        if (opt->num_stages < 1) {
            buf_printf(err, "tric: num_stages must be at least 1, not %d", opt->num_stages);
            return TRIC_ERR_ARG;
        }
        t->num_stages = opt->num_stages;
    }
    return TRIC_OK;
}

static tric_kernel *kernel_new(RtResult *res, const Target *t) {
    tric_kernel *k = calloc(1, sizeof *k);
    if (!k) tric_internal_error(__FILE__, __LINE__, "out of memory");
    k->res = *res;
    k->params = calloc(res->n_params ? (size_t)res->n_params : 1, sizeof *k->params);
    if (!k->params) tric_internal_error(__FILE__, __LINE__, "out of memory");
    for (int i = 0; i < res->n_params; i++) {
        RtParam *p = &res->params[i];
        k->params[i] = (tric_param){p->name, (int)p->kind, p->type, p->bytes};
    }
    arch_name(t, k->arch, sizeof k->arch);
    pthread_mutex_init(&k->lock, NULL);
    return k;
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
    int st = options_target(opt, &rq.target, &msg);
    if (st) return finish(st, &msg, errors);
    RtResult res;
    if (!rt_compile(&rq, &res)) {
        buf_puts(&msg, res.diag);
        rt_result_free(&res);
        return finish(TRIC_ERR_COMPILE, &msg, errors);
    }
    *out = kernel_new(&res, &rq.target);
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
    rt_module_unload(k->module);
    pthread_mutex_destroy(&k->lock);
    free(k->params);
    rt_result_free(&k->res);
    free(k);
}

const char *tric_kernel_ptx(const tric_kernel *k) { return k ? k->res.text : NULL; }
const char *tric_kernel_name(const tric_kernel *k) { return k ? k->res.kernel_name : NULL; }
const char *tric_kernel_arch(const tric_kernel *k) { return k ? k->arch : NULL; }
int tric_kernel_num_params(const tric_kernel *k) { return k ? k->res.n_params : 0; }
int tric_kernel_num_warps(const tric_kernel *k) { return k ? k->res.num_warps : 0; }
int tric_kernel_shared_bytes(const tric_kernel *k) { return k ? k->res.shared_bytes : 0; }

const tric_param *tric_kernel_param(const tric_kernel *k, int i) {
    if (!k || i < 0 || i >= k->res.n_params) return NULL;
    return &k->params[i];
}

/* The module, loaded by whichever thread launches first. */
static int kernel_module(tric_kernel *k, Buf *msg) {
    int st = TRIC_OK;
    pthread_mutex_lock(&k->lock);
    if (!k->module)
        st = rt_module_load(k->res.text, k->res.kernel_name, k->res.shared_bytes, &k->module, msg);
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

int tric_launch(tric_kernel *k, unsigned gx, unsigned gy, unsigned gz, void **args, void *stream,
                char **errors) {
    Buf msg = {0};
    int st = check_launch(k, args, &msg);
    if (!st) st = kernel_module(k, &msg);
    if (!st) st = rt_module_launch(k->module, gx, gy, gz, 32u * (unsigned)k->res.num_warps, args, stream, &msg);
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
    if (!st) st = kernel_module(k, &msg);
    if (!st)
        st = rt_module_time(k->module, gx, gy, gz, 32u * (unsigned)k->res.num_warps, args, stream, iters,
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

const char *tric_version(void) { return TRIC_VERSION; }

void tric_free(void *p) { free(p); }
