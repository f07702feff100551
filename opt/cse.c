/* pass_cse: common subexpression elimination of pure ops.
 *
 * Two pure ops with the same opcode, attributes, operands, result types and
 * result layouts compute the same value; the later one is replaced by the
 * earlier one where the earlier dominates it. In structured IR that means:
 * earlier in the same block or in an enclosing block. A scoped hash table
 * follows the region tree: entries made inside a region are dropped when
 * the walk leaves it. Commutative ops are keyed with their operands sorted.
 * Loads are not pure (memory may change between them) and are never merged. */
#include "opt.h"

#include <string.h>

/* An entry per available op; entries chain per bucket and form a stack, so
 * leaving a region pops them (LIFO keeps each at the head of its bucket). */
typedef struct CseEntry {
    IrOp *op;
    uint32_t hash;
    uint32_t next;    /* previous bucket head, +1; 0 = end */
} CseEntry;

typedef struct Cse {
    IrFunc *fn;
    CseEntry *entries;
    uint32_t n, cap;
    uint32_t *buckets;
    uint32_t n_buckets;   /* a power of two */
    IrFwd fwd;            /* the replacements, resolved as the walk reaches each op */
} Cse;

static uint32_t mix(uint32_t h, uint64_t x) {
    h ^= (uint32_t)x + 0x9e3779b9u + (h << 6) + (h >> 2);
    h ^= (uint32_t)(x >> 32) + 0x9e3779b9u + (h << 6) + (h >> 2);
    return h;
}

/* Operand i as seen by the key: a commutative op's two operands in order. */
static ValId key_operand(IrOp *op, uint32_t i) {
    if ((ir_opinfo[op->opc].flags & F_COMMUTES) && op->n_operands == 2) {
        ValId a = op->operands[0], b = op->operands[1];
        ValId lo = a < b ? a : b, hi = a < b ? b : a;
        return i == 0 ? lo : hi;
    }
    return op->operands[i];
}

/* A const's value lives in attr.i (integers, pointers) or attr.f (floats);
 * producers may leave the other field as they like, so only the one that
 * counts is compared. */
static bool const_eq(IrFunc *fn, IrOp *a, IrOp *b) {
    if (elem_is_float((ElemType)fn->vals[a->results[0]].type.elem))
        return memcmp(&a->attr.f, &b->attr.f, sizeof a->attr.f) == 0;   /* bits: -0.0 and nan are distinct keys */
    return a->attr.i == b->attr.i;
}

static bool attr_eq(const IrAttr *a, const IrAttr *b) {
    if (a->i != b->i || a->i2 != b->i2 || a->n_ints != b->n_ints || a->flags != b->flags || a->vec != b->vec) return false;
    if (memcmp(&a->f, &b->f, sizeof a->f) != 0) return false;   /* bits: -0.0 and nan are distinct keys */
    for (int i = 0; i < a->n_ints && i < IR_MAX_RANK; i++)
        if (a->ints[i] != b->ints[i]) return false;
    return true;
}

static uint32_t op_hash(IrFunc *fn, IrOp *op) {
    uint32_t h = mix(0, (uint64_t)op->opc);
    uint64_t fbits;
    memcpy(&fbits, &op->attr.f, sizeof fbits);
    bool is_const = op->opc == OP_CONST && op->n_results == 1;
    if (!is_const || !elem_is_float((ElemType)fn->vals[op->results[0]].type.elem)) h = mix(h, (uint64_t)op->attr.i);
    if (!is_const || elem_is_float((ElemType)fn->vals[op->results[0]].type.elem)) h = mix(h, fbits);
    h = mix(h, (uint64_t)op->attr.i2);
    for (uint32_t i = 0; i < op->n_operands; i++) h = mix(h, key_operand(op, i));
    for (uint32_t i = 0; i < op->n_results; i++) {
        IrValue *v = &fn->vals[op->results[i]];
        h = mix(h, (uint64_t)v->type.elem << 16 | (uint64_t)v->type.pointee << 8 | v->type.rank);
        for (int d = 0; d < v->type.rank; d++) h = mix(h, (uint64_t)v->type.shape[d]);
        h = mix(h, (uint64_t)(int64_t)v->layout);
    }
    return h;
}

static bool op_equal(IrFunc *fn, IrOp *a, IrOp *b) {
    if (a->opc != b->opc || a->n_operands != b->n_operands || a->n_results != b->n_results) return false;
    if (a->opc == OP_CONST && a->n_results == 1 ? !const_eq(fn, a, b) : !attr_eq(&a->attr, &b->attr)) return false;
    for (uint32_t i = 0; i < a->n_operands; i++)
        if (key_operand(a, i) != key_operand(b, i)) return false;
    for (uint32_t i = 0; i < a->n_results; i++) {
        IrValue *va = &fn->vals[a->results[i]], *vb = &fn->vals[b->results[i]];
        if (!ir_type_eq(va->type, vb->type) || va->layout != vb->layout) return false;
    }
    return true;
}

static bool cse_candidate(IrOp *op) {
    return (ir_opinfo[op->opc].flags & F_PURE) && op->n_regions == 0 && op->n_results > 0;
}

static void cse_block(Cse *S, IrBlock *b);

/* Replaces op by an equal available op, or makes it available. */
static void cse_op(Cse *S, IrOp *op) {
    IrFunc *fn = S->fn;
    uint32_t h = op_hash(fn, op), bucket = h & (S->n_buckets - 1);
    for (uint32_t i = S->buckets[bucket]; i; i = S->entries[i - 1].next) {
        CseEntry *e = &S->entries[i - 1];
        if (e->hash != h || !op_equal(fn, e->op, op)) continue;
        for (uint32_t r = 0; r < op->n_results; r++) ir_fwd_set(&S->fwd, op->results[r], e->op->results[r]);
        ir_op_unlink(op);
        return;
    }
    CseEntry e = {op, h, S->buckets[bucket]};
    VEC_PUSH(fn->ctx->arena, S->entries, S->n, S->cap, e);
    S->buckets[bucket] = S->n;
}

static void cse_block(Cse *S, IrBlock *b) {
    uint32_t mark = S->n;
    for (IrOp *op = b->first, *next; op; op = next) {
        next = op->next;
        ir_fwd_op(&S->fwd, op);
        if (cse_candidate(op)) {
            cse_op(S, op);
            continue;
        }
        for (uint32_t r = 0; r < op->n_regions; r++) cse_block(S, op->regions[r]);
    }
    while (S->n > mark) {
        CseEntry *e = &S->entries[--S->n];
        S->buckets[e->hash & (S->n_buckets - 1)] = e->next;
    }
}

static void count_op(IrFunc *fn, IrOp *op, void *ud) {
    (void)fn;
    (void)op;
    (*(uint32_t *)ud)++;
}

void pass_cse(IrFunc *fn) {
    Cse S = {0};
    S.fn = fn;
    S.fwd.fn = fn;
    uint32_t n_ops = 0;
    ir_walk(fn, fn->body, count_op, &n_ops);
    S.n_buckets = 64;
    while (S.n_buckets < 2 * n_ops) S.n_buckets *= 2;
    S.buckets = arena_alloc(fn->ctx->arena, sizeof(uint32_t) * S.n_buckets);
    cse_block(&S, fn->body);
    ir_fwd_apply(&S.fwd);
}
