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
 * Marking is a worklist: one walk marks the roots, then each value that
 * becomes live marks what it needs, once, so a long chain costs its
 * length (a walk per step back would make it quadratic).
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
    ValId *work;     /* marked values whose consequences are not yet marked */
    uint32_t n_work;
    bool changed;    /* sweeping: IR changed */
} Dce;

/* Each value is pushed once, when it becomes live, so the worklist never
 * holds more than fn->n_vals entries and marking is linear in the IR. */
static void mark(Dce *D, ValId v) {
    if (!D->live[v]) {
        D->live[v] = true;
        D->work[D->n_work++] = v;
    }
}

static bool removable(IrOp *op) {
    if (op->opc == OP_LOAD) return !(op->attr.flags & LOADF_VOLATILE);
    /* a buffer nobody reads, a read nobody uses (async copies stay: effects) */
    if (op->opc == OP_LOCAL_ALLOC || op->opc == OP_MBAR_ALLOC || op->opc == OP_LOCAL_LOAD) return true;
    /* a tensor map nobody reads: its scratch is its own */
    if (op->opc == OP_TMAP_CREATE) return true;
    /* inline assembly the user said has no side effects (is_pure) */
    if (op->opc == OP_INLINE_ASM) return (op->attr.flags & ASM_PURE) != 0;
    return (ir_opinfo[op->opc].flags & F_PURE) &&
           (op->n_regions == 0 || op->opc == OP_REDUCE || op->opc == OP_SCAN || op->opc == OP_MAP_ELEM);
}

/* Carried value k of `for` op is live: so are its result, its block
 * argument, its init operand and its yield operand. */
static void mark_carried(Dce *D, IrOp *op, uint32_t k) {
    IrBlock *body = op->regions[0];
    IrOp *y = body->last;
    mark(D, op->results[k]);
    mark(D, body->args[k + 1]);
    mark(D, op->operands[3 + k]);
    if (y && y->opc == OP_YIELD && k < y->n_operands) mark(D, y->operands[k]);
}

/* Result k of an if is live: both yield operands k are. */
static void mark_if_result(Dce *D, IrOp *op, uint32_t k) {
    for (int r = 0; r < 2; r++) {
        IrOp *y = op->regions[r]->last;
        if (y && y->opc == OP_YIELD && k < y->n_operands) mark(D, y->operands[k]);
    }
}

/* A reduce (or scan) computes all its results at once: one live result keeps every
 * operand and the whole combine function. */
static void mark_reduce(Dce *D, IrOp *op) {
    for (uint32_t i = 0; i < op->n_operands; i++) mark(D, op->operands[i]);
    IrOp *y = op->regions[0]->last;
    if (y && y->opc == OP_YIELD)
        for (uint32_t i = 0; i < y->n_operands; i++) mark(D, y->operands[i]);
}

static uint32_t index_of(const ValId *vals, uint32_t n, ValId v) {
    uint32_t i = 0;
    while (i < n && vals[i] != v) i++;
    return i;
}

/* The roots: what is live whatever else is, one walk. */
static void mark_roots(IrFunc *fn, IrOp *op, void *ud) {
    (void)fn;
    Dce *D = ud;
    switch (op->opc) {
    case OP_REDUCE:
    case OP_SCAN:
    case OP_MAP_ELEM: return;
    case OP_FOR:
        for (uint32_t i = 0; i < 3; i++) mark(D, op->operands[i]);
        return;
    case OP_IF: mark(D, op->operands[0]); return;
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
    if (removable(op)) return;
    for (uint32_t i = 0; i < op->n_operands; i++) mark(D, op->operands[i]);
}

/* Value v has become live: what that makes live. */
static void mark_consequences(Dce *D, ValId v) {
    IrValue *val = &D->fn->vals[v];
    IrOp *op = val->def;
    if (!op) {   /* a block argument: a for body's carried value */
        IrOp *owner = val->block ? val->block->parent : NULL;
        if (!owner || owner->opc != OP_FOR || val->block != owner->regions[0]) return;
        uint32_t p = index_of(val->block->args, val->block->n_args, v);
        if (p >= 1 && p - 1 < owner->n_results) mark_carried(D, owner, p - 1);
        return;
    }
    switch (op->opc) {
    case OP_REDUCE:
    case OP_SCAN:
    case OP_MAP_ELEM: mark_reduce(D, op); return;
    case OP_FOR:
    case OP_IF: {
        uint32_t k = index_of(op->results, op->n_results, v);
        if (k < op->n_results) (op->opc == OP_FOR ? mark_carried : mark_if_result)(D, op, k);
        return;
    }
    case OP_WHILE: return;   /* a root: all marked */
    default: break;
    }
    for (uint32_t i = 0; i < op->n_operands; i++) mark(D, op->operands[i]);
}

static bool any_result_live(Dce *D, IrOp *op) {
    for (uint32_t i = 0; i < op->n_results; i++)
        if (D->live[op->results[i]]) return true;
    return false;
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

/* One mark-and-sweep round; true if the IR changed. Marking is a
 * worklist: the roots, then what each live value makes live, each value
 * once; liveness flows from uses back to definitions in one sweep of the
 * worklist however long the chains are. */
static bool dce_round(IrFunc *fn) {
    Arena *a = fn->ctx->arena;
    Dce D = {fn, arena_alloc(a, fn->n_vals), arena_alloc(a, sizeof(ValId) * fn->n_vals), 0, false};
    ir_walk(fn, fn->body, mark_roots, &D);
    while (D.n_work) mark_consequences(&D, D.work[--D.n_work]);
    sweep_block(&D, fn->body);
    return D.changed;
}

void pass_dce(IrFunc *fn) {
    while (dce_round(fn)) {
    }
}
