/* Differential testing of the pipeline's stages with the CPU interpreter:
 * rt_each_stage(rq, diff_on_stage, &d, ...) runs the IR after lowering and
 * after every pass on the same inputs (d.args, d.grid, d.seed in the
 * interp_setup language) and requires bit-identical buffers from one stage
 * to the next; the first difference is printed as a FAIL line naming the
 * pass, the buffer and the element. Afterwards d.prev holds the outputs of
 * the last stage (the IR ptxgen receives), for comparisons with the
 * simulated PTX or a reference. Free with diff_free.
 *
 * One exception: a float reduce combines in an order its operand's layout
 * defines (doc/ir.md), so across the `layout` pass, and only there and only
 * for kernels whose IR holds a reduce of floats, float buffers may differ by
 * a relative error ||after - before||_2 / ||before||_2 of at most
 * diff_float_tol (1e-5 for f32 and f64, 2e-2 for f16 and bf16, 0.25 for
 * fp8); integer buffers and everything elsewhere stay bit-identical. */
#ifndef TRIC_TEST_DIFFERENTIAL_H
#define TRIC_TEST_DIFFERENTIAL_H

#include "base/base.h"
#include "interp/interp.h"
#include "runtime/rt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The outputs of one stage: every buffer's bytes, or the error. */
typedef struct Snapshot {
    bool ran, ok;
    char *error;
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
} Diff;

static void snapshot_free(Snapshot *s) {
    for (uint32_t i = 0; i < s->n; i++) free(s->bufs[i].base);
    free(s->error);
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
    InterpLaunch l = {{setup.grid[0], setup.grid[1], setup.grid[2]}, setup.args, setup.n_args,
                      setup.buffers, setup.n_buffers, 0};
    s->ok = interp_run(fn, &l, &err);
    s->error = buf_take(&err);
    for (uint32_t i = 0; i < setup.n_buffers && i < 32; i++) {
        InterpBuffer b = setup.buffers[i];
        void *copy = malloc(b.bytes ? b.bytes : 1);
        memcpy(copy, b.base, b.bytes);
        snprintf(s->names[i], sizeof s->names[i], "%s", b.name);
        s->bufs[i] = (InterpBuffer){copy, b.bytes, s->names[i], b.elem};
        s->n = i + 1;
    }
    arena_free_all(a);
}

static void report_first_difference(Diff *d, const char *stage) {
    Snapshot *p = &d->prev, *c = &d->cur;
    for (uint32_t i = 0; i < c->n && i < p->n; i++) {
        const InterpBuffer *x = &p->bufs[i], *y = &c->bufs[i];
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

static double diff_float_tol(ElemType e) {
    switch (e) {
    case ET_F16: case ET_BF16: return 2e-2;
    case ET_F8E4M3: case ET_F8E5M2: return 0.25;
    default: return 1e-5;
    }
}

/* ||y - x|| / ||x|| of a float buffer within its tolerance, NaN where NaN */
static bool floats_close(const InterpBuffer *x, const InterpBuffer *y) {
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
    return num <= diff_float_tol(y->elem) * diff_float_tol(y->elem) * den;
}

static bool same_outputs(const Snapshot *p, const Snapshot *c, bool float_tol) {
    if (p->ok != c->ok || p->n != c->n) return false;
    if (!p->ok) return strcmp(p->error, c->error) == 0;
    for (uint32_t i = 0; i < c->n; i++) {
        if (p->bufs[i].bytes != c->bufs[i].bytes) return false;
        if (!memcmp(p->bufs[i].base, c->bufs[i].base, c->bufs[i].bytes)) continue;
        if (!float_tol || !elem_is_float(c->bufs[i].elem) || !floats_close(&p->bufs[i], &c->bufs[i])) return false;
    }
    return true;
}

static void find_float_reduce(IrFunc *fn, IrOp *op, void *ud) {
    if (op->opc != OP_REDUCE) return;
    for (uint32_t i = 0; i < op->n_operands; i++)
        if (elem_is_float((ElemType)ir_type(fn, op->operands[i]).elem)) *(bool *)ud = true;
}

/* The one place results may legitimately change: see the top of the file. */
static bool float_tol_stage(IrFunc *fn, const char *stage) {
    bool found = false;
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
            report_first_difference(d, stage);
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

#endif
