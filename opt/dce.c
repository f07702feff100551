/* pass_dce: dead code elimination.
 *
 * Mark and sweep over values rather than use counts, so that dead cycles
 * through loops go too: an accumulator `acc = acc + x` carried by a `for`
 * whose result nobody reads is live only through itself.
 *
 * Live roots are the operands of ops with effects (store, volatile load,
 * ret) and the bounds of loops that stay. A pure op or a non-volatile load
 * is live when one of its results is. Carried value k of a `for` is live
 * when its result or its block argument is; then its init operand and its
 * yield operand are live. Result k of an `if` makes both yield operands k
 * live. A reduce with a live result keeps its operands and its whole
 * combine function; one with none is deleted. `while` keeps everything (it decides its own trip count).
 *
 * The sweep deletes dead ops, removes dead carried values from `for`
 * (init operand, block argument, yield operand and result together) and dead
 * results from `if` (with both yield operands), and deletes a `for` or `if`
 * left with no results and no effects inside. It repeats until nothing
 * changes. */
#include "opt.h"

#include <string.h>

typedef struct Dce {
    IrFunc *fn;
    bool *live;      /* per ValId */
    bool changed;    /* marking: something became live; sweeping: IR changed */
} Dce;

static void mark(Dce *D, ValId v) {
    if (!D->live[v]) {
        D->live[v] = true;
        D->changed = true;
    }
}

static bool removable(IrOp *op) {
    if (op->opc == OP_LOAD) return !(op->attr.flags & LOADF_VOLATILE);
    /* a buffer nobody reads, a read nobody uses (async copies stay: effects) */
    if (op->opc == OP_LOCAL_ALLOC || op->opc == OP_MBAR_ALLOC || op->opc == OP_LOCAL_LOAD) return true;
    /* a tensor map nobody reads: its scratch is its own */
    if (op->opc == OP_TMAP_CREATE) return true;
    return (ir_opinfo[op->opc].flags & F_PURE) && (op->n_regions == 0 || op->opc == OP_REDUCE || op->opc == OP_SCAN);
}

static bool any_result_live(Dce *D, IrOp *op) {
    for (uint32_t i = 0; i < op->n_results; i++)
        if (D->live[op->results[i]]) return true;
    return false;
}

static void mark_for(Dce *D, IrOp *op) {
    IrBlock *body = op->regions[0];
    IrOp *y = body->last;
    for (uint32_t i = 0; i < 3; i++) mark(D, op->operands[i]);
    for (uint32_t k = 0; k < op->n_results; k++) {
        if (!D->live[op->results[k]] && !D->live[body->args[k + 1]]) continue;
        mark(D, op->results[k]);
        mark(D, body->args[k + 1]);
        mark(D, op->operands[3 + k]);
        if (y && y->opc == OP_YIELD && k < y->n_operands) mark(D, y->operands[k]);
    }
}

static void mark_if(Dce *D, IrOp *op) {
    mark(D, op->operands[0]);
    for (uint32_t k = 0; k < op->n_results; k++) {
        if (!D->live[op->results[k]]) continue;
        for (int r = 0; r < 2; r++) {
            IrOp *y = op->regions[r]->last;
            if (y && y->opc == OP_YIELD && k < y->n_operands) mark(D, y->operands[k]);
        }
    }
}

/* A reduce (or scan) computes all its results at once: one live result keeps every
 * operand and the whole combine function. */
static void mark_reduce(Dce *D, IrOp *op) {
    if (!any_result_live(D, op)) return;
    for (uint32_t i = 0; i < op->n_operands; i++) mark(D, op->operands[i]);
    IrOp *y = op->regions[0]->last;
    if (y && y->opc == OP_YIELD)
        for (uint32_t i = 0; i < y->n_operands; i++) mark(D, y->operands[i]);
}

static void mark_op(IrFunc *fn, IrOp *op, void *ud) {
    (void)fn;
    Dce *D = ud;
    switch (op->opc) {
    case OP_REDUCE:
    case OP_SCAN: mark_reduce(D, op); return;
    case OP_FOR: mark_for(D, op); return;
    case OP_IF: mark_if(D, op); return;
    case OP_YIELD:
        /* yields of for/if are marked by their parent; a while's are kept */
        if (op->parent->parent && op->parent->parent->opc == OP_WHILE)
            for (uint32_t i = 0; i < op->n_operands; i++) mark(D, op->operands[i]);
        return;
    case OP_WHILE:
        for (uint32_t i = 0; i < op->n_operands; i++) mark(D, op->operands[i]);
        for (uint32_t i = 0; i < op->n_results; i++) mark(D, op->results[i]);
        return;
    default: break;
    }
    if (removable(op) && !any_result_live(D, op)) return;
    for (uint32_t i = 0; i < op->n_operands; i++) mark(D, op->operands[i]);
}

/* ---- sweep ---- */

/* Does the block hold an op that must run (a store, a volatile load, a
 * while, or a for/if that holds one)? */
static bool has_effects(IrBlock *b) {
    for (IrOp *op = b->first; op; op = op->next) {
        if (op->opc == OP_YIELD || op->opc == OP_CONDITION || removable(op)) continue;
        if (op->opc == OP_FOR || op->opc == OP_IF) {
            for (uint32_t r = 0; r < op->n_regions; r++)
                if (has_effects(op->regions[r])) return true;
            continue;
        }
        return true;
    }
    return false;
}

/* Keeps entries of vals[0..n) whose keep flag is set; returns the new n. */
static uint32_t compact(ValId *vals, uint32_t n, const bool *keep) {
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++)
        if (keep[i]) vals[m++] = vals[i];
    return m;
}

static void drop_yield_operands(IrOp *y, const bool *keep, uint32_t n) {
    if (y && y->opc == OP_YIELD && y->n_operands == n) y->n_operands = compact(y->operands, n, keep);
}

static void sweep_for(Dce *D, IrOp *op) {
    uint32_t n = op->n_results;
    IrBlock *body = op->regions[0];
    bool *keep = arena_alloc(D->fn->ctx->arena, n ? n : 1);
    bool all = true;
    for (uint32_t k = 0; k < n; k++) all &= keep[k] = D->live[op->results[k]];
    if (all) return;
    drop_yield_operands(body->last, keep, n);
    bool *keep_args = arena_alloc(D->fn->ctx->arena, n + 1), *keep_ops = arena_alloc(D->fn->ctx->arena, n + 3);
    keep_args[0] = keep_ops[0] = keep_ops[1] = keep_ops[2] = true;
    for (uint32_t k = 0; k < n; k++) keep_args[k + 1] = keep_ops[k + 3] = keep[k];
    body->n_args = compact(body->args, n + 1, keep_args);
    op->n_operands = compact(op->operands, n + 3, keep_ops);
    op->n_results = compact(op->results, n, keep);
    D->changed = true;
}

static void sweep_if(Dce *D, IrOp *op) {
    uint32_t n = op->n_results;
    bool *keep = arena_alloc(D->fn->ctx->arena, n ? n : 1);
    bool all = true;
    for (uint32_t k = 0; k < n; k++) all &= keep[k] = D->live[op->results[k]];
    if (all) return;
    drop_yield_operands(op->regions[0]->last, keep, n);
    drop_yield_operands(op->regions[1]->last, keep, n);
    op->n_results = compact(op->results, n, keep);
    D->changed = true;
}

static void sweep_block(Dce *D, IrBlock *b) {
    for (IrOp *op = b->first, *next; op; op = next) {
        next = op->next;
        if (removable(op) && !any_result_live(D, op)) {
            ir_op_unlink(op);
            D->changed = true;
            continue;
        }
        if (op->opc == OP_FOR) sweep_for(D, op);
        if (op->opc == OP_IF) sweep_if(D, op);
        for (uint32_t r = 0; r < op->n_regions; r++) sweep_block(D, op->regions[r]);
        if ((op->opc == OP_FOR || op->opc == OP_IF) && op->n_results == 0) {
            bool effects = false;
            for (uint32_t r = 0; r < op->n_regions; r++) effects |= has_effects(op->regions[r]);
            if (!effects) {
                ir_op_unlink(op);
                D->changed = true;
            }
        }
    }
}

/* One mark-and-sweep round; true if the IR changed. */
static bool dce_round(IrFunc *fn) {
    Dce D = {fn, arena_alloc(fn->ctx->arena, fn->n_vals), true};
    while (D.changed) {
        D.changed = false;
        ir_walk(fn, fn->body, mark_op, &D);
    }
    sweep_block(&D, fn->body);
    return D.changed;
}

void pass_dce(IrFunc *fn) {
    while (dce_round(fn)) {
    }
}
