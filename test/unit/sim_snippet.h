/* Straight-line PTX from one of ptxgen's emitters (mathprog.c's programs,
 * divconst.c's division by a constant), run on the PTX simulator (sim/):
 * snip_build wraps the code into a small .entry kernel, in which thread i
 * loads its inputs from in[i * n_in ...] (one 8-byte slot each, the
 * register's low bits), runs the snippet and stores its outputs to
 * out[i * n_out ...]; snip_run runs it over n inputs, CTAs of up to 1024
 * threads. So the tests of those emitters run the exact text the GPU gets,
 * with the simulator's instruction semantics (doc/sim.md). */
#ifndef TRIC_TEST_SIM_SNIPPET_H
#define TRIC_TEST_SIM_SNIPPET_H

#include "base/base.h"
#include "interp/interp.h"
#include "ptxgen/ptx.h"
#include "sim/sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline uint64_t sn_bits64(double v) {
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}
static inline double sn_f64(uint64_t u) {
    double v;
    memcpy(&v, &u, sizeof v);
    return v;
}
static inline uint32_t sn_bits32(float v) {
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}
static inline float sn_f32(uint64_t u) {
    uint32_t w = (uint32_t)u;
    float v;
    memcpy(&v, &w, sizeof v);
    return v;
}

typedef struct Snippet {
    char *ptx;        /* the kernel (heap) */
    char *text;       /* the snippet alone, prologue then body (heap) */
    int n_ins;        /* its instructions */
    int n_in, n_out;
} Snippet;

/* Writes out[k] = f(in[...]) with ptx_ins into P. */
typedef void (*SnipEmitFn)(Ptx *P, const Reg *out, const Reg *in, void *ud);

static const char *const sn_class_type[RC_COUNT] = {"pred", "b16", "b32", "f32", "b64", "f64"};
static const char *const sn_class_prefix[RC_COUNT] = {"p", "h", "r", "f", "rd", "fd"};

/* The kernel around emit's code: inputs of classes in_cls[n_in], outputs
 * of out_cls[n_out] (no predicates). */
static inline void snip_build(Snippet *s, const RegClass *in_cls, int n_in, const RegClass *out_cls, int n_out,
                              SnipEmitFn emit, void *ud) {
    Target target = {.sm = 80, .num_warps = 4, .num_stages = 2};
    Ctx *ctx = ctx_new(&target);
    Ptx P = {0};
    P.ctx = ctx;
    P.arena = ctx->arena;
    P.out = &P.body;
    Reg in[8], out[8];
    for (int k = 0; k < n_in; k++) in[k] = ptx_reg(&P, in_cls[k]);
    for (int k = 0; k < n_out; k++) out[k] = ptx_reg(&P, out_cls[k]);
    emit(&P, out, in, ud);
    Buf t = {0}, b = {0};
    buf_puts(&t, P.prologue.data ? P.prologue.data : "");
    buf_puts(&t, P.body.data ? P.body.data : "");
    s->n_ins = 0;
    for (const char *c = buf_str(&t); *c; c++) s->n_ins += *c == '\n';
    buf_puts(&b, ".version 7.0\n.target sm_80\n.address_size 64\n\n"
                 ".visible .entry snippet(\n\t.param .u64 in,\n\t.param .u64 out\n)\n{\n");
    for (int c = 0; c < RC_COUNT; c++)
        if (P.n_regs[c]) buf_printf(&b, "\t.reg .%s %%%s<%u>;\n", sn_class_type[c], sn_class_prefix[c], P.n_regs[c] + 1);
    /* the kernel's own registers, named apart from ptxgen's */
    buf_printf(&b, "\t.reg .b32 %%snt, %%snc;\n\t.reg .b64 %%sna<4>;\n"
                   "\tld.param.u64 %%sna0, [in];\n\tld.param.u64 %%sna1, [out];\n\tmov.u32 %%snt, %%tid.x;\n"
                   "\tmov.u32 %%snc, %%ctaid.x;\n");
    /* the global thread index */
    buf_printf(&b, "\tmad.lo.s32 %%snt, %%snc, %%ntid.x, %%snt;\n\tmad.wide.u32 %%sna2, %%snt, %d, %%sna0;\n",
               8 * n_in);
    for (int k = 0; k < n_in; k++) {
        buf_printf(&b, "\tld.global.%s ", sn_class_type[in_cls[k]]);
        ptx_put_reg(&b, in[k]);
        buf_printf(&b, ", [%%sna2+%d];\n", 8 * k);
    }
    buf_puts(&b, buf_str(&t));
    buf_printf(&b, "\tmad.wide.u32 %%sna3, %%snt, %d, %%sna1;\n", 8 * n_out);
    for (int k = 0; k < n_out; k++) {
        buf_printf(&b, "\tst.global.%s [%%sna3+%d], ", sn_class_type[out_cls[k]], 8 * k);
        ptx_put_reg(&b, out[k]);
        buf_puts(&b, ";\n");
    }
    buf_puts(&b, "\tret;\n}\n");
    s->ptx = buf_take(&b);
    s->text = buf_take(&t);
    s->n_in = n_in;
    s->n_out = n_out;
    buf_free(&P.body);
    buf_free(&P.prologue);
    buf_free(&P.locals);
    buf_free(&P.globals);
    ctx_free(ctx);
}

/* Runs the kernel on n inputs (in: n * n_in slots) into out (n * n_out
 * slots): CTAs of up to 1024 threads, the last one's spare threads on
 * padding. false with the simulator's message in *err. */
static inline bool snip_run(const Snippet *s, const uint64_t *in, uint64_t *out, size_t n, Buf *err) {
    uint32_t threads = n < 1024 ? (uint32_t)(n ? n : 1) : 1024;
    size_t ctas = (n + threads - 1) / threads, padded = ctas * threads;
    uint64_t *pin = calloc(padded * (size_t)s->n_in + 1, sizeof *pin);
    uint64_t *pout = calloc(padded * (size_t)s->n_out + 1, sizeof *pout);
    memcpy(pin, in, n * (size_t)s->n_in * sizeof *pin);
    InterpBuffer bufs[2] = {{pin, padded * (size_t)s->n_in * 8, "in", ET_U64, false, false},
                            {pout, padded * (size_t)s->n_out * 8, "out", ET_U64, false, false}};
    uint64_t args[2] = {(uint64_t)(uintptr_t)pin, (uint64_t)(uintptr_t)pout};
    InterpLaunch l = {.grid = {(uint32_t)ctas, 1, 1}, .args = args, .n_args = 2, .buffers = bufs, .n_buffers = 2};
    SimLaunch sl = {.ptx = s->ptx, .threads = threads, .data = &l};
    bool ok = sim_run(&sl, err);
    memcpy(out, pout, n * (size_t)s->n_out * sizeof *pout);
    free(pin);
    free(pout);
    return ok;
}

/* A unary emitter d = f(a), for snip_build */
typedef struct SnipUnary {
    void (*fn)(Ptx *P, Reg d, Reg a);
} SnipUnary;

static inline void snip_emit_unary(Ptx *P, const Reg *out, const Reg *in, void *ud) {
    ((const SnipUnary *)ud)->fn(P, out[0], in[0]);
}

static inline void snip_free(Snippet *s) {
    free(s->ptx);
    free(s->text);
    memset(s, 0, sizeof *s);
}

/* Runs the f32 unary emitter on the specials and on every step-th f32 bit
 * pattern, and compares each output with model(x) bit for bit: with
 * any_nan a NaN matches any NaN, without it the PTX must give the GPU's
 * canonical NaN (0x7FFFFFFF). Prints the instruction count, the first five
 * differences and a summary (and the PTX when the environment variable
 * dump_env is set); true when every output agrees. */
static inline bool snip_check_f32_unary(const char *name, void (*emit)(Ptx *P, Reg d, Reg a), float (*model)(float),
                                        bool any_nan, const float *specials, size_t n_special, uint64_t step,
                                        const char *dump_env) {
    size_t n = n_special + (size_t)((UINT64_C(1) << 32) / step);
    uint64_t *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out);
    for (size_t i = 0; i < n; i++) in[i] = i < n_special ? sn_bits32(specials[i]) : (i - n_special) * step;
    Snippet sn;
    SnipUnary u = {emit};
    snip_build(&sn, (RegClass[]){RC_F32}, 1, (RegClass[]){RC_F32}, 1, snip_emit_unary, &u);
    if (getenv(dump_env)) printf("%s", sn.ptx);
    printf("%-5s PTX: %d instructions\n", name, sn.n_ins);
    Buf err = {0};
    bool ok = snip_run(&sn, in, out, n, &err);
    if (!ok) printf("%s: the simulator cannot run the PTX:\n%s", name, buf_str(&err));
    long bad = 0;
    for (size_t i = 0; ok && i < n; i++) {
        float x = sn_f32(in[i]), got = sn_f32(out[i]), want = model(x);
        uint32_t want_bits = isnan(want) && !any_nan ? 0x7FFFFFFFu : sn_bits32(want);
        if (sn_bits32(got) == want_bits || (any_nan && isnan(got) && isnan(want))) continue;
        if (bad++ < 5) printf("%s PTX(%a) = %a, C gives %a\n", name, x, got, want);
    }
    if (!ok || bad) printf("%s: PTX and C differ on %ld of %zu inputs\n", name, bad, n);
    buf_free(&err);
    snip_free(&sn);
    free(in);
    free(out);
    return ok && bad == 0;
}

#endif
