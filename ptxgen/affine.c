/* Affine tiles in the PTX (the analysis is ir/affine.c's): loads and
 * stores address every vector of an affine pointer tile from register 0. */
#include "ptx.h"
#include "../opt/opt.h"

bool ptx_affine_deltas(Ptx *P, IrOp *op, ValId v, int64_t *delta, int n) {
    IrAffine a = ir_affine(P->fn, &P->affine, v);
    return ir_affine_deltas(&a, &P->fn->layouts[ptx_layout_index(P, op, v)], delta, n);
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
    int32_t support = layout_thread_support(l), low[IR_MAX_RANK] = {0};
    bool any = false;
    for (int d = 0; d < l->rank; d++) {
        int64_t c = ai->constancy[d] < l->shape[d] ? ai->constancy[d] : l->shape[d];
        for (; c > 1; c /= 2) {
            int32_t one[IR_MAX_RANK] = {0};
            one[d] = (int32_t)c - 1;
            if (!(layout_flat(l, one) & support)) break;
        }
        low[d] = (int32_t)c - 1;
        any = any || c > 1;
    }
    if (!any) return;
    int32_t *flat = arena_alloc(P->arena, sizeof(int32_t) * (size_t)n);
    for (int r = 0; r < n; r++) {
        int32_t c[IR_MAX_RANK];
        layout_coord(l, r, 0, 0, c);
        flat[r] = layout_flat(l, c);
        for (int d = 0; d < l->rank; d++) c[d] &= ~low[d];
        int32_t start = layout_flat(l, c);
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
