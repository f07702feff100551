/* Tile values that are affine in their coordinates with compile-time
 * coefficients: v[c] = u + sum_d k[d] * c[d], u uniform across the program
 * (a scalar, a splat). `arange`, constants, splats and +, -, * by constants,
 * shifts by constants, widening casts, expand_dims, broadcast and addptr
 * keep that form.
 *
 * Where a pointer tile has it and the layout's register bits are disjoint
 * from its thread bits (blocked layouts: a register's coordinate adds to the
 * thread's), every register's address is register 0's plus a constant, so
 * loads and stores address each vector as [ptr0+imm]: one 64-bit register
 * instead of one address computation per vector (ptxas drops the unused
 * ones), which saves instructions and registers. Offsets that wrap around
 * 32 bits are as out of bounds either way.
 */
#include "ptx.h"
#include "../opt/opt.h"

struct Affine {
    bool known;
    int64_t k[IR_MAX_RANK];
};
typedef struct Affine Affine;

static Affine unknown(void) { return (Affine){0}; }

static Affine uniform(void) {
    Affine a = {0};
    a.known = true;
    return a;
}

static bool const_int(IrFunc *fn, ValId v, int64_t *out) {
    IrOp *d = fn->vals[v].def;
    if (!d || d->opc != OP_CONST || !elem_is_int(fn->vals[v].type.elem)) return false;
    *out = d->attr.i;
    return true;
}

static Affine affine_of(Ptx *P, ValId v, int depth);

static Affine combine(Ptx *P, IrOp *op, int depth) {
    IrFunc *fn = P->fn;
    int rank = fn->vals[op->results[0]].type.rank;
    Affine a = affine_of(P, op->operands[0], depth + 1), r = uniform();
    int64_t c;
    switch (op->opc) {
    case OP_ADD: case OP_SUB: {
        Affine b = affine_of(P, op->operands[1], depth + 1);
        if (!a.known || !b.known) return unknown();
        for (int d = 0; d < rank; d++) r.k[d] = op->opc == OP_ADD ? a.k[d] + b.k[d] : a.k[d] - b.k[d];
        return r;
    }
    case OP_MUL: {
        Affine b = affine_of(P, op->operands[1], depth + 1);
        if (const_int(fn, op->operands[1], &c)) b = a;
        else if (const_int(fn, op->operands[0], &c)) a = b;
        else return unknown();
        if (!a.known) return unknown();
        for (int d = 0; d < rank; d++) r.k[d] = a.k[d] * c;
        return r;
    }
    case OP_SHL:
        if (!a.known || !const_int(fn, op->operands[1], &c) || c < 0 || c > 31) return unknown();
        for (int d = 0; d < rank; d++) r.k[d] = a.k[d] * ((int64_t)1 << c);
        return r;
    case OP_ADDPTR: {
        Affine b = affine_of(P, op->operands[1], depth + 1);
        if (!a.known || !b.known) return unknown();
        int bytes = elem_bytes((ElemType)fn->vals[op->operands[0]].type.pointee);
        for (int d = 0; d < rank; d++) r.k[d] = a.k[d] + b.k[d] * bytes;
        return r;
    }
    case OP_CAST: {   /* integer widening keeps the differences */
        ElemType s = (ElemType)fn->vals[op->operands[0]].type.elem;
        ElemType t = (ElemType)fn->vals[op->results[0]].type.elem;
        if (!elem_is_int(s) || !elem_is_int(t) || elem_bits(t) < elem_bits(s) || s == ET_I1) return unknown();
        return a;
    }
    case OP_EXPAND_DIMS: {
        if (!a.known) return unknown();
        int axis = (int)op->attr.i;
        for (int d = 0, s = 0; d < rank; d++) r.k[d] = d == axis ? 0 : a.k[s++];
        return r;
    }
    case OP_BROADCAST: {   /* dims of size 1 in the operand do not vary */
        if (!a.known) return unknown();
        const IrType *src = &fn->vals[op->operands[0]].type;
        for (int d = 0; d < rank; d++) r.k[d] = src->shape[d] == 1 ? 0 : a.k[d];
        return r;
    }
    case OP_CONVERT_LAYOUT: case OP_MULTIPLE_OF: case OP_MAX_CONTIGUOUS: return a;
    default: return unknown();
    }
}

/* Memoized per value: operands are shared (offsets feed masks, several
 * pointers, loads and stores), so without it a chain of n adds of a value
 * to itself would be walked 2^n times. */
static Affine affine_of(Ptx *P, ValId v, int depth) {
    IrFunc *fn = P->fn;
    IrValue *iv = &fn->vals[v];
    if (iv->type.rank == 0) return uniform();   /* a scalar is the same in every thread */
    IrOp *op = iv->def;
    if (!op || depth > 32) return unknown();    /* loop-carried tiles, and chains deeper than the stack should go */
    if (!P->affine) {
        P->affine = arena_alloc(P->arena, sizeof(Affine) * fn->n_vals);
        P->affine_done = arena_alloc(P->arena, sizeof(bool) * fn->n_vals);
    }
    if (P->affine_done[v]) return P->affine[v];
    Affine a;
    switch (op->opc) {
    case OP_CONST: case OP_SPLAT: a = uniform(); break;
    case OP_ARANGE:
        a = uniform();
        a.k[0] = 1;
        break;
    default: a = combine(P, op, depth); break;
    }
    P->affine[v] = a;
    P->affine_done[v] = true;
    return a;
}

bool ptx_affine_deltas(Ptx *P, IrOp *op, ValId v, int64_t *delta, int n) {
    Affine a = affine_of(P, v, 0);
    if (!a.known) return false;
    const Layout *l = &P->fn->layouts[ptx_layout_index(P, op, v)];
    int32_t support = ptx_ll_thread_support(l);
    for (int r = 0; r < n; r++) {
        if (ptx_ll_reg_flat(l, r) & support) return false;
        int32_t c[IR_MAX_RANK];
        ptx_ll_reg_coord(l, r, c);
        int64_t s = 0;
        for (int d = 0; d < l->rank; d++) s += a.k[d] * c[d];
        if (s < INT32_MIN || s > INT32_MAX) return false;
        delta[r] = s;
    }
    return true;
}

/* ---- constancy: registers that hold the same value ----
 * Where axis analysis (opt/axisinfo.c) proves a value constant along aligned
 * runs of c[d] elements per dim, the runs' parts whose coordinate bits are
 * register bits of the layout (not lane or warp bits) lie in one thread, and
 * every register there equals the one holding the start of its part: an elementwise op
 * computes only those (a mask like offs < n, constant in groups of 8, is one
 * compare per 8 elements). */
void ptx_constancy_reps(Ptx *P, IrOp *op, ValId v, int *rep, int n) {
    for (int r = 0; r < n; r++) rep[r] = r;
    IrFunc *fn = P->fn;
    if (fn->vals[v].type.rank == 0) return;
    if (!P->axis) P->axis = axisinfo_compute(fn);
    const AxisInfo *ai = &P->axis[v];
    const Layout *l = &fn->layouts[ptx_layout_index(P, op, v)];
    /* per dim, the longest run (a power of two, at most the constancy)
     * whose coordinate bits are all register bits */
    int32_t support = ptx_ll_thread_support(l), low[IR_MAX_RANK] = {0};
    bool any = false;
    for (int d = 0; d < l->rank; d++) {
        int64_t c = ai->constancy[d] < l->shape[d] ? ai->constancy[d] : l->shape[d];
        for (; c > 1; c /= 2) {
            int32_t one[IR_MAX_RANK] = {0};
            one[d] = (int32_t)c - 1;
            if (!(ptx_ll_flat(l, one) & support)) break;
        }
        low[d] = (int32_t)c - 1;
        any = any || c > 1;
    }
    if (!any) return;
    int32_t *flat = arena_alloc(P->arena, sizeof(int32_t) * (size_t)n);
    for (int r = 0; r < n; r++) {
        int32_t c[IR_MAX_RANK];
        ptx_ll_reg_coord(l, r, c);
        flat[r] = ptx_ll_flat(l, c);
        for (int d = 0; d < l->rank; d++) c[d] &= ~low[d];
        int32_t start = ptx_ll_flat(l, c);
        for (int q = 0; q < r; q++)
            if (flat[q] == start) {
                rep[r] = q;
                break;
            }
    }
}

static void mark_other_uses(IrFunc *fn, IrOp *op, void *ud) {
    (void)fn;
    bool *other = ud;
    for (uint32_t i = 0; i < op->n_operands; i++)
        if (!((op->opc == OP_LOAD || op->opc == OP_STORE) && i == 0) && !(op->opc == OP_ASYNC_COPY && i == 2))
            other[op->operands[i]] = true;
}

/* A pointer tile used only as the address of loads and stores, which then
 * address every vector from register 0 (ptx_affine_deltas): its other
 * registers would be dead code in the PTX. */
bool ptx_only_base_needed(Ptx *P, IrOp *op, ValId v, int n) {
    IrFunc *fn = P->fn;
    if (fn->vals[v].type.elem != ET_PTR || fn->vals[v].type.rank == 0) return false;
    if (!P->other_use) {
        P->other_use = arena_alloc(P->arena, sizeof(bool) * fn->n_vals);
        ir_walk(fn, fn->body, mark_other_uses, P->other_use);
    }
    int64_t *delta = arena_alloc(P->arena, sizeof(int64_t) * (size_t)n);
    return !P->other_use[v] && ptx_affine_deltas(P, op, v, delta, n);
}
