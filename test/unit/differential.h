/* Differential testing of the pipeline's stages with the CPU interpreter:
 * rt_each_stage(rq, diff_on_stage, &d, ...) runs the IR after lowering and
 * after every pass on the same inputs (d.args, d.grid, d.seed in the
 * interp_setup language) and requires bit-identical buffers from one stage
 * to the next; the first difference is printed as a FAIL line naming the
 * pass, the buffer and the element. Afterwards d.prev holds the outputs of
 * the last stage (the IR ptxgen receives), for comparisons with the
 * simulated PTX or a reference. Free with diff_free.
 *
 * Two exceptions: a float reduce or scan combines in an order its operand's
 * layout defines (doc/ir.md), so across the `layout` pass, for kernels whose
 * IR holds a reduce or scan of floats; and the `contract` pass rounds a
 * multiply-add once where it was rounded twice. Across those, and only
 * there, float buffers may differ by a relative error
 * ||after - before||_2 / ||before||_2 of at most diff_float_tol (1e-5 for f32
 * and f64, 2e-2 for f16 and bf16, 0.25 for fp8); integer buffers and
 * everything elsewhere stay bit-identical.
 *
 * diff_simulate(&d, rq) then compiles rq to PTX, runs the PTX on the
 * simulator (sim/) over fresh inputs from the same d.args/d.grid/d.seed,
 * and compares every buffer with d.prev: bit-identical, except float
 * buffers that results of approximate math reach (exp, exp2, f64 log, log2,
 * sqrt, rsqrt, non-f64 div: see doc/sim.md), which may differ by up to
 * DIFF_SIM_ULPS units in the last place of the type that math computed in,
 * differences where a float rem left the range in which ptxgen's fmod
 * is exact (a note, not a failure), and float buffers of kernels with a
 * float atomic add, whose sums round in the order the atomics run (the
 * interpreter's and the simulator's differ, as two GPU runs may): within
 * diff_atomic_tol (1e-4, 2e-2 for f16/bf16) as a relative L2 error. The
 * lines the kernel prints
 * (print / tl.device_print) must be the same as well, in program order,
 * and within one program as a multiset: the interpreter prints operand by
 * operand in row-major order, the simulator thread by thread per vprintf
 * call (doc/sim.md). One FAIL line names the first difference. */
#ifndef TRIC_TEST_DIFFERENTIAL_H
#define TRIC_TEST_DIFFERENTIAL_H

#include "base/base.h"
#include "interp/interp.h"
#include "runtime/rt.h"
#include "sim/sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The outputs of one stage: every buffer's bytes, or the error. */
typedef struct Snapshot {
    bool ran, ok;
    char *error;
    char *prints;               /* what print ops wrote */
    uint32_t n;
    InterpBuffer bufs[32];
    char names[32][64];
} Snapshot;

typedef struct Diff {
    const char *where;          /* "kernels/x.py:57 add_kernel" */
    const char *args, *grid;
    uint64_t seed;              /* of the inputs, the same at every stage */
    Snapshot prev, cur;         /* after the run: prev = the last stage's outputs */
    const char *prev_stage;
    bool unsupported;
    char *unsupported_why;
    int stages;
    bool failed;
    size_t print_lines;         /* lines diff_simulate compared */
} Diff;

static void snapshot_free(Snapshot *s) {
    for (uint32_t i = 0; i < s->n; i++) free(s->bufs[i].base);
    free(s->error);
    free(s->prints);
    memset(s, 0, sizeof *s);
}

/* Runs fn on fresh inputs (the same every stage) into *s. */
static void run_stage(Diff *d, IrFunc *fn, Snapshot *s) {
    Arena *a = arena_new();
    Buf err = {0};
    InterpSetup setup;
    s->ran = true;
    if (!interp_setup(a, fn, d->args, d->grid, d->seed, &setup, &err)) {
        d->unsupported = true;
        d->unsupported_why = buf_take(&err);
        arena_free_all(a);
        return;
    }
    Buf prints = {0};
    InterpLaunch l = {.grid = {setup.grid[0], setup.grid[1], setup.grid[2]}, .args = setup.args,
                      .n_args = setup.n_args, .buffers = setup.buffers, .n_buffers = setup.n_buffers,
                      .print_out = &prints, .run_asm = sim_inline_asm};
    s->ok = interp_run(fn, &l, &err);
    s->error = buf_take(&err);
    s->prints = buf_take(&prints);
    for (uint32_t i = 0; i < setup.n_buffers && i < 32; i++) {
        InterpBuffer b = setup.buffers[i];
        void *copy = malloc(b.bytes ? b.bytes : 1);
        memcpy(copy, b.base, b.bytes);
        snprintf(s->names[i], sizeof s->names[i], "%s", b.name);
        s->bufs[i] = (InterpBuffer){copy, b.bytes, s->names[i], b.elem, b.opaque, false};
        s->n = i + 1;
    }
    arena_free_all(a);
}

static double diff_float_tol(ElemType e) {
    switch (e) {
    case ET_F16: case ET_BF16: return 2e-2;
    case ET_F8E4M3: case ET_F8E5M2: return 0.25;
    default: return 1e-5;
    }
}

/* ||y - x|| / ||x|| of a float buffer within tol, NaN where NaN */
static inline bool floats_close_tol(const InterpBuffer *x, const InterpBuffer *y, double tol) {
    size_t eb = (size_t)elem_bytes(y->elem);
    double num = 0, den = 0;
    for (size_t k = 0; k + eb <= y->bytes; k += eb) {
        uint64_t u = 0, v = 0;
        memcpy(&u, (char *)x->base + k, eb);
        memcpy(&v, (char *)y->base + k, eb);
        double a = interp_slot_to_double(y->elem, u), b = interp_slot_to_double(y->elem, v);
        if (a != a || b != b) {
            if ((a != a) != (b != b)) return false;
            continue;
        }
        if (a == b) {
            den += a * a;
            continue;
        }
        num += (b - a) * (b - a);
        den += a * a;
    }
    return num <= tol * tol * den;
}

/* within the buffer's type's tolerance */
static bool floats_close(const InterpBuffer *x, const InterpBuffer *y) {
    return floats_close_tol(x, y, diff_float_tol(y->elem));
}

/* Float atomic sums in two orders: n roundings each, so a looser bound
 * (n eps is the worst case; a random walk of roundings is sqrt(n) eps). */
static inline double diff_atomic_tol(ElemType e) { return e == ET_F16 || e == ET_BF16 ? 2e-2 : 1e-4; }

/* the same bytes, or (float_tol) float buffers within diff_float_tol */
static bool buffers_agree(const InterpBuffer *x, const InterpBuffer *y, bool float_tol) {
    if (x->bytes != y->bytes) return false;
    if (y->opaque) return true;
    if (!memcmp(x->base, y->base, y->bytes)) return true;
    return float_tol && elem_is_float(y->elem) && floats_close(x, y);
}

/* The first element of the first buffer that does not agree. */
static void report_first_difference(Diff *d, const char *stage, bool float_tol) {
    Snapshot *p = &d->prev, *c = &d->cur;
    for (uint32_t i = 0; i < c->n && i < p->n; i++) {
        const InterpBuffer *x = &p->bufs[i], *y = &c->bufs[i];
        if (buffers_agree(x, y, float_tol)) continue;
        size_t eb = (size_t)elem_bytes(y->elem);
        for (size_t k = 0; k < y->bytes; k += eb) {
            if (memcmp((char *)x->base + k, (char *)y->base + k, eb) == 0) continue;
            uint64_t u = 0, v = 0;
            memcpy(&u, (char *)x->base + k, eb);
            memcpy(&v, (char *)y->base + k, eb);
            printf("FAIL %s: pass '%s' changed the result: buffer '%s' element %zu is 0x%llx (%.9g) after '%s', "
                   "0x%llx (%.9g) after '%s'\n", d->where, stage, y->name, k / eb, (unsigned long long)u,
                   interp_slot_to_double(y->elem, elem_is_float(y->elem) ? u : interp_int_norm(y->elem, u)),
                   d->prev_stage, (unsigned long long)v,
                   interp_slot_to_double(y->elem, elem_is_float(y->elem) ? v : interp_int_norm(y->elem, v)), stage);
            return;
        }
    }
}

static bool same_outputs(const Snapshot *p, const Snapshot *c, bool float_tol) {
    if (p->ok != c->ok || p->n != c->n) return false;
    if (!p->ok) return strcmp(p->error, c->error) == 0;
    for (uint32_t i = 0; i < c->n; i++)
        if (!buffers_agree(&p->bufs[i], &c->bufs[i], float_tol)) return false;
    return true;
}

static void find_float_reduce(IrFunc *fn, IrOp *op, void *ud) {
    if (op->opc != OP_REDUCE && op->opc != OP_SCAN) return;
    for (uint32_t i = 0; i < op->n_operands; i++)
        if (elem_is_float((ElemType)ir_type(fn, op->operands[i]).elem)) *(bool *)ud = true;
}

/* The places results may legitimately change: see the top of the file. */
static bool float_tol_stage(IrFunc *fn, const char *stage) {
    bool found = strcmp(stage, "contract") == 0;
    if (strcmp(stage, "layout") == 0) ir_walk(fn, fn->body, find_float_reduce, &found);
    return found;
}

static void diff_on_stage(IrFunc *fn, const char *stage, int index, void *ud) {
    Diff *d = ud;
    if (d->unsupported || d->failed) return;
    run_stage(d, fn, &d->cur);
    if (d->unsupported) return;
    d->stages++;
    if (index == 0 && !d->cur.ok) {
        printf("FAIL %s: the lowered IR does not run:\n%s", d->where, d->cur.error);
        d->failed = true;
    } else if (index > 0 && !same_outputs(&d->prev, &d->cur, float_tol_stage(fn, stage))) {
        d->failed = true;
        if (d->prev.ok != d->cur.ok || !d->cur.ok)
            printf("FAIL %s: pass '%s' changed how the kernel runs:\nafter '%s': %s\nafter '%s': %s\n", d->where,
                   stage, d->prev_stage, d->prev.ok ? "ok\n" : d->prev.error, stage, d->cur.ok ? "ok\n" : d->cur.error);
        else
            report_first_difference(d, stage, float_tol_stage(fn, stage));
    }
    snapshot_free(&d->prev);
    d->prev = d->cur;
    memset(&d->cur, 0, sizeof d->cur);
    d->prev_stage = stage;
}

static void diff_free(Diff *d) {
    snapshot_free(&d->prev);
    snapshot_free(&d->cur);
    free(d->unsupported_why);
    d->unsupported_why = NULL;
}


/* ---- the simulated PTX against the interpreter ---- */

/* GPU math the simulator models by the interpreter's own C functions agrees
 * bit for bit, and so do ir/mathfn_op.c's programs (f32 log, log2, cos,
 * sin, f64 exp/exp2/log/log2), which both run; what differs is the
 * .approx instructions against libm: 2 ulp apart at most, counted in the
 * type the approximate op computes in (below). */
#ifndef DIFF_SIM_ULPS
#define DIFF_SIM_ULPS 2
#endif

/* ---- which approximate results reach which buffer ----
 * An approximate op (exp, exp2, f64 log, log2, sqrt, rsqrt, f32/f16/bf16 div:
 * doc/interp.md) rounds its result to its own type, so the two sides'
 * results are DIFF_SIM_ULPS apart in that type: in a wider buffer (an f32
 * log stored as f64) that is 2^29 times as many of the buffer's ulps. So
 * every value carries the narrowest float type of the approximate ops it
 * depends on (through operands, and through the regions of for/if/while/
 * reduce as a whole), found by iterating to a fixed point; every store
 * gives that type to the buffers its pointer derives from (by parameter).
 * A float buffer no approximate value reaches must be bit-identical. */

/* bits of precision (with the implicit one) */
static inline int diff_precision(ElemType e) {
    switch (e) {
    case ET_F64: return 53;
    case ET_F32: return 24;
    case ET_F16: return 11;
    case ET_BF16: return 8;
    case ET_F8E4M3: return 4;
    case ET_F8E5M2: return 3;
    default: return 0;
    }
}

/* the coarser of two float types (ET_COUNT: none) */
static inline ElemType diff_coarser(ElemType a, ElemType b) {
    if (a == ET_COUNT) return b;
    if (b == ET_COUNT) return a;
    return diff_precision(b) < diff_precision(a) ? b : a;
}

static inline bool diff_op_is_approx(IrFunc *fn, const IrOp *op) {
    if (op->n_results != 1 || !elem_is_float((ElemType)ir_type(fn, op->results[0]).elem)) return false;
    switch (op->opc) {
    case OP_EXP: case OP_EXP2: case OP_LOG2: case OP_SQRT: case OP_RSQRT: return true;
    case OP_LOG: return ir_type(fn, op->results[0]).elem == ET_F64;   /* below: libdevice's logf in both */
    case OP_DIV: return ir_type(fn, op->results[0]).elem != ET_F64;   /* f64 div is div.rn: exact */
    default: return false;
    }
}

typedef struct DiffFlow {
    ElemType *approx;      /* per value: the coarsest approximate type it depends on */
    uint64_t *params;      /* per value: the parameters (bit i: fn->params[i]) it derives from */
    ElemType *buf_approx;  /* per parameter: what its stores write */
    bool changed;
} DiffFlow;

static inline void diff_flow_into(DiffFlow *f, ValId v, ElemType a, uint64_t p) {
    ElemType na = diff_coarser(f->approx[v], a);
    if (na != f->approx[v] || (f->params[v] | p) != f->params[v]) f->changed = true;
    f->approx[v] = na;
    f->params[v] |= p;
}

static inline void diff_flow_op(IrFunc *fn, IrOp *op, void *ud) {
    DiffFlow *f = ud;
    ElemType a = ET_COUNT;
    uint64_t p = 0;
    for (uint32_t i = 0; i < op->n_operands; i++) {
        a = diff_coarser(a, f->approx[op->operands[i]]);
        p |= f->params[op->operands[i]];
    }
    if (diff_op_is_approx(fn, op)) a = diff_coarser(a, (ElemType)ir_type(fn, op->results[0]).elem);
    /* a region's values depend on the op's operands, its results on what
     * the regions' terminators pass on; loops feed their terminators back
     * into their arguments */
    for (uint32_t r = 0; r < op->n_regions; r++) {
        IrBlock *b = op->regions[r];
        if (b->last && (ir_info(b->last->opc)->flags & F_TERM))
            for (uint32_t i = 0; i < b->last->n_operands; i++) {
                a = diff_coarser(a, f->approx[b->last->operands[i]]);
                p |= f->params[b->last->operands[i]];
            }
    }
    for (uint32_t r = 0; r < op->n_regions; r++)
        for (uint32_t i = 0; i < op->regions[r]->n_args; i++) diff_flow_into(f, op->regions[r]->args[i], a, p);
    for (uint32_t i = 0; i < op->n_results; i++) diff_flow_into(f, op->results[i], a, p);
    if (op->opc == OP_STORE && op->n_operands >= 2) {
        ElemType v = f->approx[op->operands[1]];
        for (uint32_t k = 0; k < fn->n_params && k < 64; k++)
            if (f->params[op->operands[0]] >> k & 1) {
                ElemType nb = diff_coarser(f->buf_approx[k], v);
                if (nb != f->buf_approx[k]) f->changed = true;
                f->buf_approx[k] = nb;
            }
    }
}

/* per parameter (malloc'd, fn->n_params entries): the coarsest type of
 * an approximate op whose result reaches a store through it, or ET_COUNT */
static inline ElemType *diff_approx_buffers(IrFunc *fn) {
    DiffFlow f = {calloc(fn->n_vals + 1, sizeof(ElemType)), calloc(fn->n_vals + 1, sizeof(uint64_t)),
                  malloc((fn->n_params + 1) * sizeof(ElemType)), true};
    for (uint32_t v = 0; v < fn->n_vals; v++) f.approx[v] = ET_COUNT;
    for (uint32_t k = 0; k < fn->n_params; k++) {
        f.buf_approx[k] = ET_COUNT;
        if (k < 64) f.params[fn->params[k].val] = UINT64_C(1) << k;
    }
    for (int round = 0; f.changed && round < 1000; round++) {
        f.changed = false;
        ir_walk(fn, fn->body, diff_flow_op, &f);
    }
    free(f.approx);
    free(f.params);
    return f.buf_approx;
}

/* Are x and y (float slots of type e, not bit-equal) within DIFF_SIM_ULPS
 * units in the last place of the coarser of e and the approximate type a?
 * In e itself: counted on the line of its values; in a coarser a, the
 * values need not be a's (an f32 log plus 1.0 in f64), so by magnitude:
 * a's ulp at the larger one, at least a's smallest subnormal. */
static inline int64_t diff_ordered(ElemType e, uint64_t bits);
static inline bool diff_within_ulps(ElemType e, ElemType a, uint64_t x, uint64_t y) {
    if (a == ET_COUNT) return false;
    if (diff_precision(a) >= diff_precision(e)) {
        int64_t d = diff_ordered(e, x) - diff_ordered(e, y);
        return d >= -DIFF_SIM_ULPS && d <= DIFF_SIM_ULPS;
    }
    double u = interp_slot_to_double(e, x), v = interp_slot_to_double(e, y);
    if (!isfinite(u) || !isfinite(v)) return false;
    static const struct { ElemType e; int min_exp; } tiny[] = {
        {ET_F32, -149}, {ET_F16, -24}, {ET_BF16, -133}, {ET_F8E4M3, -9}, {ET_F8E5M2, -16},
    };
    int ex, min_exp = -1074;
    for (size_t i = 0; i < sizeof tiny / sizeof tiny[0]; i++)
        if (tiny[i].e == a) min_exp = tiny[i].min_exp;
    frexp(fabs(u) > fabs(v) ? u : v, &ex);   /* |m| = f * 2^ex, f in [0.5, 1): ulp 2^(ex - p) */
    int ulp_exp = ex - diff_precision(a) > min_exp ? ex - diff_precision(a) : min_exp;
    return fabs(u - v) <= DIFF_SIM_ULPS * ldexp(1.0, ulp_exp);
}

/* Does the IR text hold a float atomic add? Its sums round in the order
 * the atomics reach memory: the interpreter's (programs, then elements
 * row-major) and the simulator's (programs, then registers, each thread by
 * thread) differ, as any two GPU runs may. */
static inline bool diff_ir_has_float_atomic_add(const char *ir) {
    for (const char *line = ir; line && (line = strstr(line, "= atomic add ")); line++) {
        const char *end = strchr(line, '\n'), *colon = strstr(line, " : ");
        if (!colon || (end && colon > end)) continue;
        size_t n = end ? (size_t)(end - colon) : strlen(colon);
        char buf[256];
        snprintf(buf, sizeof buf, "%.*s", (int)n, colon);
        if (strstr(buf, "f16") || strstr(buf, "f32") || strstr(buf, "f64")) return true;
    }
    return false;
}

/* Does fn hold a float atomic add? Its sums round in the order the
 * atomics reach memory: the interpreter's (programs, then elements
 * row-major) and the simulator's (programs, then registers, each thread by
 * thread) differ, as any two GPU runs may. */
static inline void diff_find_float_atomic_add(IrFunc *fn, IrOp *op, void *ud) {
    if (op->opc == OP_ATOMIC && op->attr.i == ATOM_ADD && elem_is_float((ElemType)ir_type(fn, op->results[0]).elem))
        *(bool *)ud = true;
}

static inline bool diff_has_float_atomic_add(IrFunc *fn) {
    bool found = false;
    ir_walk(fn, fn->body, diff_find_float_atomic_add, &found);
    return found;
}

/* A float's bits as a point on a line where neighbours differ by 1. */
static inline int64_t diff_ordered(ElemType e, uint64_t bits) {
    int w = elem_bits(e);
    uint64_t sign = UINT64_C(1) << (w - 1);
    int64_t mag = (int64_t)(bits & (sign - 1));
    return bits & sign ? -mag : mag;
}

/* ---- float rem ----
 * ptxgen's fmod (ptxgen/optab.c) is q = div.rn(a, b), t = trunc(q),
 * r = fma(-t, b, a), plus b once more when r and a differ in sign, and a
 * itself when b is infinite. For finite a and b != 0 with |q| < 2^p (p the
 * precision of f32, or f64; f16/bf16 compute in f32): |q - a/b| <= 1/2, so
 * t is the true quotient T or T + 1 in magnitude, a - t*b is representable
 * (|a - t*b| <= |b|, on the grid of b's ulp), the fma exact and the fix-up
 * too: elem_frem (ir/ir.c) exactly, as the interpreter. Otherwise it may
 * differ: |q| >= 2^p (t off by more than one; rem124's -6006242816 % 54),
 * or b infinite with a NaN (the PTX keeps a's payload).
 * A difference between the simulated PTX and the interpreter is excused
 * when such a rem happened: the kernel is run once more on the
 * interpreter with an assert after every float rem that fails in exactly
 * these cases (the IR of the last stage, changed in place: nothing uses it
 * afterwards). */
#define DIFF_REM_MESSAGE "rem outside the range where ptxgen's fmod is exact"

static inline ValId diff_cmp(IrBuilder *b, IrType t, CmpPred pr, ValId x, ValId y) {
    ValId xy[2] = {x, y};
    IrOp *op = ir_build(b, OP_CMP, xy, 2, &t, 1, 0);
    op->attr.i = pr;
    return op->results[0];
}

static inline void diff_guard_rem(IrFunc *fn, IrOp *op, void *ud) {
    if (op->opc != OP_REM || !elem_is_float((ElemType)ir_type(fn, op->results[0]).elem)) return;
    if (op->parent && op->parent->parent && op->parent->parent->opc == OP_REDUCE) return;   /* no asserts there */
    IrType t = ir_type(fn, op->results[0]);
    ElemType ce = t.elem == ET_F64 ? ET_F64 : ET_F32;
    IrType ct = ir_with_elem(t, ir_scalar(ce)), bt = ir_with_elem(t, ir_scalar(ET_I1));
    IrBuilder b = {fn, op->parent, op->next, op->loc};
    ValId x = op->operands[0], y = op->operands[1];
    if (t.elem != ce) x = ir_build1(&b, OP_CAST, ct, x), y = ir_build1(&b, OP_CAST, ct, y);
    ValId ax = ir_build1(&b, OP_ABS, ct, x), ay = ir_build1(&b, OP_ABS, ct, y);
    ValId aq = ir_build1(&b, OP_ABS, ct, ir_build2(&b, OP_DIV, ct, x, y));
    ValId inf = ir_const_float(&b, ct, INFINITY), zero = ir_const_float(&b, ct, 0.0);
    ValId big = ir_const_float(&b, ct, ldexp(1.0, diff_precision(ce)));
    /* finite a, finite nonzero b, |q| >= 2^p */
    ValId v1 = diff_cmp(&b, bt, CMP_GE, aq, big);
    v1 = ir_build2(&b, OP_AND, bt, v1, diff_cmp(&b, bt, CMP_LT, ax, inf));
    v1 = ir_build2(&b, OP_AND, bt, v1, diff_cmp(&b, bt, CMP_LT, ay, inf));
    v1 = ir_build2(&b, OP_AND, bt, v1, diff_cmp(&b, bt, CMP_GT, ay, zero));
    /* b infinite, a not finite (cmp lt is false for NaN) */
    ValId v2 = ir_build1(&b, OP_NOT, bt, diff_cmp(&b, bt, CMP_LT, ax, inf));
    v2 = ir_build2(&b, OP_AND, bt, v2, diff_cmp(&b, bt, CMP_EQ, ay, inf));
    ValId ok = ir_build1(&b, OP_NOT, bt, ir_build2(&b, OP_OR, bt, v1, v2));
    IrOp *as = ir_build(&b, OP_ASSERT, &ok, 1, NULL, 0, 0);
    as->attr.str = DIFF_REM_MESSAGE;
    (*(int *)ud)++;
}

/* The interpreter's message when a float rem of the kernel leaves its
 * exact range on d's inputs (malloc'd), or NULL. */
static inline char *diff_rem_outside(Diff *d, IrFunc *fn) {
    int n = 0;
    ir_walk(fn, fn->body, diff_guard_rem, &n);
    if (!n) return NULL;
    Arena *a = arena_new();
    InterpSetup setup;
    Buf err = {0};
    char *why = NULL;
    if (interp_setup(a, fn, d->args, d->grid, d->seed, &setup, &err)) {
        InterpLaunch l = {.grid = {setup.grid[0], setup.grid[1], setup.grid[2]}, .args = setup.args,
                          .n_args = setup.n_args, .buffers = setup.buffers, .n_buffers = setup.n_buffers,
                          .run_asm = sim_inline_asm};
        if (!interp_run(fn, &l, &err) && strstr(buf_str(&err), DIFF_REM_MESSAGE)) {
            size_t k = strcspn(buf_str(&err), "\n");
            why = malloc(k + 1);
            memcpy(why, buf_str(&err), k);
            why[k] = 0;
        }
    }
    buf_free(&err);
    arena_free_all(a);
    return why;
}

/* The lines of text (copies, in a heap array) */
static inline char **diff_lines(const char *text, size_t *n) {
    size_t cap = 16;
    char **v = malloc(cap * sizeof *v);
    *n = 0;
    for (const char *p = text; p && *p;) {
        const char *e = strchr(p, '\n');
        size_t k = e ? (size_t)(e - p) : strlen(p);
        if (*n == cap) v = realloc(v, (cap *= 2) * sizeof *v);
        v[*n] = malloc(k + 1);
        memcpy(v[*n], p, k);
        v[(*n)++][k] = 0;
        p = e ? e + 1 : NULL;
    }
    return v;
}

static inline int diff_cmp_lines(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The program a device_print line belongs to: its "pid (x, y, z)" prefix;
 * a line without one belongs to the line before. */
static inline size_t diff_pid_len(const char *line) {
    const char *close = strncmp(line, "pid (", 5) ? NULL : strchr(line, ')');
    return close ? (size_t)(close - line + 1) : 0;
}

/* Sorts each run of lines of one program. Programs run one after another
 * in both the interpreter and the simulator, so each program's lines are
 * one run; within it the order is each side's own (operand by operand and
 * row-major; thread by thread per vprintf), which a GPU does not fix
 * either. After this, equal arrays mean: the same programs in the same
 * order, each with the same multiset of lines. */
static inline void diff_sort_programs(char **v, size_t n) {
    for (size_t i = 0; i < n;) {
        size_t k = diff_pid_len(v[i]), j = i + 1;
        while (j < n && (diff_pid_len(v[j]) == 0 || (diff_pid_len(v[j]) == k && !strncmp(v[i], v[j], k)))) j++;
        qsort(v + i, j - i, sizeof *v, diff_cmp_lines);
        i = j;
    }
}

/* Compares the print output of the interpreter (want) with the simulated
 * PTX's (got); prints one FAIL line at the first difference. */
static inline bool diff_prints(const Diff *d, const char *arch, const char *want, const char *got, size_t *n_lines) {
    size_t nw, ng;
    char **w = diff_lines(want, &nw), **g = diff_lines(got, &ng);
    diff_sort_programs(w, nw);
    diff_sort_programs(g, ng);
    bool ok = true;
    for (size_t i = 0; ok && (i < nw || i < ng); i++) {
        if (i < nw && i < ng && !strcmp(w[i], g[i])) continue;
        printf("FAIL %s [%s]: the printed lines differ (%zu from the interpreter, %zu from the simulated PTX; "
               "each program's sorted): line %zu is '%s' from the interpreter, '%s' from the simulated PTX\n",
               d->where, arch, nw, ng, i + 1, i < nw ? w[i] : "(none)", i < ng ? g[i] : "(none)");
        ok = false;
    }
    *n_lines = nw;
    for (size_t i = 0; i < nw; i++) free(w[i]);
    for (size_t i = 0; i < ng; i++) free(g[i]);
    free(w);
    free(g);
    return ok;
}

/* The simulator's side of diff_simulate, run on the IR of the last stage
 * (the IR ptx_emit receives; no reparse of its text). */
typedef struct DiffSim {
    Diff *d;
    const RtResult *res;
    const char *arch;
    int last;
    bool ok;
} DiffSim;

static inline void diff_sim_stage(IrFunc *fn, const char *stage, int index, void *ud) {
    DiffSim *ds = ud;
    Diff *d = ds->d;
    if (index != ds->last) return;
    Arena *a = arena_new();
    InterpSetup setup;
    Buf err = {0}, prints = {0};
    if (!interp_setup(a, fn, d->args, d->grid, d->seed, &setup, &err)) {
        printf("FAIL %s [%s]: inputs: %s", d->where, ds->arch, buf_str(&err));
        goto done;
    }
    InterpLaunch l = {.grid = {setup.grid[0], setup.grid[1], setup.grid[2]}, .args = setup.args,
                      .n_args = setup.n_args, .buffers = setup.buffers, .n_buffers = setup.n_buffers,
                      .print_out = &prints};
    SimLaunch sl = {.ptx = ds->res->text, .entry = ds->res->kernel_name,
                    .threads = 32u * (uint32_t)ds->res->num_warps, .shared_bytes = (uint32_t)ds->res->shared_bytes,
                    .data = &l};
    bool ran = sim_run(&sl, &err);
    if (ran != d->prev.ok) {
        if (ran) printf("FAIL %s [%s]: the interpreter fails, the simulated PTX runs:\n%s", d->where, ds->arch,
                        d->prev.error);
        else printf("FAIL %s [%s]: the simulated PTX fails:\n%s", d->where, ds->arch, buf_str(&err));
        goto done;
    }
    ds->ok = diff_prints(d, ds->arch, d->prev.prints, buf_str(&prints), &d->print_lines);
    ElemType *approx = diff_approx_buffers(fn);
    bool atomic_sums = diff_has_float_atomic_add(fn);
    char first[512] = "";
    for (uint32_t i = 0; ran && ds->ok && i < setup.n_buffers && i < d->prev.n; i++) {
        const InterpBuffer *x = &d->prev.bufs[i], *y = &setup.buffers[i];
        if (y->opaque) continue;   /* host addresses of this setup, not results */
        size_t eb = y->elem == ET_COUNT ? 1 : (size_t)elem_bytes(y->elem);
        bool is_float = y->elem != ET_COUNT && elem_is_float(y->elem);
        if (atomic_sums && is_float && x->bytes == y->bytes && floats_close_tol(x, y, diff_atomic_tol(y->elem)))
            continue;
        ElemType ax = ET_COUNT;   /* the approximate results stored into this buffer */
        for (uint32_t k = 0; k < setup.n_args && k < fn->n_params; k++)
            if (setup.args[k] == (uint64_t)(uintptr_t)y->base) ax = diff_coarser(ax, approx[k]);
        for (size_t k = 0; k + eb <= y->bytes; k += eb) {
            uint64_t u = 0, v = 0;
            memcpy(&u, (char *)x->base + k, eb);
            memcpy(&v, (char *)y->base + k, eb);
            if (u == v || (is_float && diff_within_ulps(y->elem, ax, u, v))) continue;
            double du = y->elem == ET_COUNT ? (double)u
                        : interp_slot_to_double(y->elem, is_float ? u : interp_int_norm(y->elem, u));
            double dv = y->elem == ET_COUNT ? (double)v
                        : interp_slot_to_double(y->elem, is_float ? v : interp_int_norm(y->elem, v));
            char bound[64] = "";
            if (is_float && ax != ET_COUNT)
                snprintf(bound, sizeof bound, " (beyond %d ulp of %s)", DIFF_SIM_ULPS,
                         elem_name(diff_precision(ax) < diff_precision(y->elem) ? ax : y->elem));
            snprintf(first, sizeof first, "buffer '%s' element %zu is 0x%llx (%.9g) from the interpreter, 0x%llx "
                     "(%.9g) from the simulated PTX%s", y->name, k / eb, (unsigned long long)u, du,
                     (unsigned long long)v, dv, bound);
            ds->ok = false;
            break;
        }
    }
    free(approx);
    if (!ds->ok && *first) {
        char *why = diff_rem_outside(d, fn);
        if (why) {
            printf("note: %s [%s]: %s, but %s\n", d->where, ds->arch, first, why);
            ds->ok = true;
        } else {
            printf("FAIL %s [%s]: %s\n", d->where, ds->arch, first);
        }
        free(why);
    }
done:
    buf_free(&prints);
    buf_free(&err);
    arena_free_all(a);
}

/* Compiles rq (its target picks sm and num_warps; emit is forced to PTX),
 * simulates the PTX on d's inputs and compares with d->prev. Call it after
 * rt_each_stage(rq, diff_on_stage, d, ...) with the same rq. Returns true
 * when they agree (or d has nothing to compare: d->unsupported, or a
 * failed stage); false after printing one FAIL line. */
static inline bool diff_simulate(Diff *d, const RtRequest *rq) {
    if (d->unsupported || d->failed || !d->prev.ran || d->stages == 0) return true;
    RtRequest prq = *rq;
    prq.emit = RT_EMIT_PTX;
    RtResult res;
    char arch[32];
    snprintf(arch, sizeof arch, "sm_%d%s/%dw", prq.target.sm, prq.target.arch_a ? "a" : "", prq.target.num_warps);
    if (!rt_compile(&prq, &res)) {
        printf("FAIL %s [%s]: does not compile to PTX:\n%s", d->where, arch, res.diag);
        rt_result_free(&res);
        return false;
    }
    DiffSim ds = {.d = d, .res = &res, .arch = arch, .last = d->stages - 1};
    char *diag = NULL;
    if (!rt_each_stage(rq, diff_sim_stage, &ds, &diag)) printf("FAIL %s [%s]:\n%s", d->where, arch, diag);
    free(diag);
    rt_result_free(&res);
    return ds.ok;
}

#endif
