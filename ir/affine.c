/* Tile values that are affine in their coordinates with compile-time
 * coefficients: v[c] = u + sum_d k[d] * c[d], u uniform across the program
 * (a scalar, a splat). `arange`, constants, splats and +, -, * by constants,
 * shifts by constants, widening casts, expand_dims, broadcast and addptr
 * keep that form. Any other elementwise op of such values makes them
 * arbitrary (`any`) along the dims where its operands vary and keeps them
 * constant along the others: the tutorial's `(pid_n * BN + arange(BN)) % N`
 * varies arbitrarily along n, but its pointer tile `k * stride_bk + offs_n`
 * is still affine along k, and a thread whose vectors differ only in k
 * addresses them all from one register.
 *
 * Where a pointer tile has it and the layout's register bits are disjoint
 * from its thread bits (blocked layouts: a register's coordinate adds to the
 * thread's), every register's address is register 0's plus a constant, so
 * ptxgen addresses each vector of loads and stores as [ptr0+imm]: one
 * 64-bit register instead of one address computation per vector (ptxas
 * drops the unused ones), which saves instructions and registers; the
 * register estimate (opt/regs.c) counts the same. Offsets that wrap around
 * 32 bits are as out of bounds either way.
 */
#include "ir.h"

static IrAffine unknown(void) { return (IrAffine){0}; }

static IrAffine uniform(void) {
    IrAffine a = {0};
    a.known = true;
    return a;
}

static bool const_int(IrFunc *fn, ValId v, int64_t *out) {
    IrOp *d = fn->vals[v].def;
    if (!d || d->opc != OP_CONST || !elem_is_int(fn->vals[v].type.elem)) return false;
    *out = d->attr.i;
    return true;
}

static IrAffine affine_of(IrFunc *fn, IrAffineMemo *m, ValId v, int depth);

static IrAffine combine(IrFunc *fn, IrAffineMemo *m, IrOp *op, int depth) {
    int rank = fn->vals[op->results[0]].type.rank;
    IrAffine a = affine_of(fn, m, op->operands[0], depth + 1), r = uniform();
    int64_t c;
    switch (op->opc) {
    case OP_ADD: case OP_SUB: {
        IrAffine b = affine_of(fn, m, op->operands[1], depth + 1);
        if (!a.known || !b.known) return unknown();
        for (int d = 0; d < rank; d++) {
            r.k[d] = op->opc == OP_ADD ? a.k[d] + b.k[d] : a.k[d] - b.k[d];
            r.any[d] = a.any[d] || b.any[d];
        }
        return r;
    }
    case OP_MUL: {
        IrAffine b = affine_of(fn, m, op->operands[1], depth + 1);
        if (const_int(fn, op->operands[1], &c)) b = a;
        else if (const_int(fn, op->operands[0], &c)) a = b;
        else break;
        if (!a.known) return unknown();
        for (int d = 0; d < rank; d++) r.k[d] = a.k[d] * c, r.any[d] = a.any[d];
        return r;
    }
    case OP_SHL:
        if (!const_int(fn, op->operands[1], &c) || c < 0 || c > 31) break;
        if (!a.known) return unknown();
        for (int d = 0; d < rank; d++) r.k[d] = a.k[d] * ((int64_t)1 << c), r.any[d] = a.any[d];
        return r;
    case OP_ADDPTR: {
        IrAffine b = affine_of(fn, m, op->operands[1], depth + 1);
        if (!a.known || !b.known) return unknown();
        int bytes = elem_bytes((ElemType)fn->vals[op->operands[0]].type.pointee);
        for (int d = 0; d < rank; d++) r.k[d] = a.k[d] + b.k[d] * bytes, r.any[d] = a.any[d] || b.any[d];
        return r;
    }
    case OP_CAST: {   /* integer widening keeps the differences */
        ElemType s = (ElemType)fn->vals[op->operands[0]].type.elem;
        ElemType t = (ElemType)fn->vals[op->results[0]].type.elem;
        if (!elem_is_int(s) || !elem_is_int(t) || elem_bits(t) < elem_bits(s) || s == ET_I1) break;
        return a;
    }
    case OP_EXPAND_DIMS: {
        if (!a.known) return unknown();
        int axis = (int)op->attr.i;
        for (int d = 0, s = 0; d < rank; d++) {
            r.k[d] = d == axis ? 0 : a.k[s];
            r.any[d] = d == axis ? false : a.any[s++];
        }
        return r;
    }
    case OP_BROADCAST: {   /* dims of size 1 in the operand do not vary */
        if (!a.known) return unknown();
        const IrType *src = &fn->vals[op->operands[0]].type;
        for (int d = 0; d < rank; d++) r.k[d] = src->shape[d] == 1 ? 0 : a.k[d], r.any[d] = src->shape[d] != 1 && a.any[d];
        return r;
    }
    case OP_CONVERT_LAYOUT: case OP_MULTIPLE_OF: case OP_MAX_CONTIGUOUS: return a;
    default: break;
    }
    /* another elementwise op: arbitrary wherever an operand varies */
    unsigned f = ir_opinfo[op->opc].flags;
    if (!(f & F_ELEMWISE) || !(f & F_PURE) || op->n_results != 1) return unknown();
    for (uint32_t i = 0; i < op->n_operands; i++) {
        IrAffine o = i ? affine_of(fn, m, op->operands[i], depth + 1) : a;
        if (!o.known) return unknown();
        for (int d = 0; d < rank; d++) r.any[d] |= o.any[d] || o.k[d] != 0;
    }
    return r;
}

/* Memoized per value: operands are shared (offsets feed masks, several
 * pointers, loads and stores), so without it a chain of n adds of a value
 * to itself would be walked 2^n times. */
static IrAffine affine_of(IrFunc *fn, IrAffineMemo *m, ValId v, int depth) {
    IrValue *iv = &fn->vals[v];
    if (iv->type.rank == 0) return uniform();   /* a scalar is the same in every thread */
    IrOp *op = iv->def;
    if (!op || depth > 32) return unknown();    /* loop-carried tiles, and chains deeper than the stack should go */
    if (!m->val) {
        m->val = arena_alloc(fn->ctx->arena, sizeof(IrAffine) * fn->n_vals);
        m->done = arena_alloc(fn->ctx->arena, sizeof(bool) * fn->n_vals);
    }
    if (m->done[v]) return m->val[v];
    IrAffine a;
    switch (op->opc) {
    case OP_CONST: case OP_SPLAT: a = uniform(); break;
    case OP_ARANGE:
        a = uniform();
        a.k[0] = 1;
        break;
    default: a = combine(fn, m, op, depth); break;
    }
    m->val[v] = a;
    m->done[v] = true;
    return a;
}

IrAffine ir_affine(IrFunc *fn, IrAffineMemo *m, ValId v) { return affine_of(fn, m, v, 0); }

bool ir_affine_deltas(const IrAffine *a, const Layout *l, int64_t *delta, int n) {
    if (!a->known) return false;
    int64_t support = 0;
    for (int k = LL_LANE; k <= LL_WARP; k++)
        for (int b = 0; b < l->n_bits[k]; b++) support |= layout_flat_index(l->rank, l->shape, l->basis[k][b]);
    for (int r = 0; r < n; r++) {
        int32_t c[IR_MAX_RANK] = {0};
        for (int b = 0; b < l->n_bits[LL_REG]; b++)
            if (r >> b & 1)
                for (int d = 0; d < l->rank; d++) c[d] ^= l->basis[LL_REG][b][d];
        if (layout_flat_index(l->rank, l->shape, c) & support) return false;
        int64_t s = 0;
        for (int d = 0; d < l->rank; d++) {
            if (a->any[d] && c[d]) return false;   /* registers apart along an arbitrary dim */
            s += a->k[d] * c[d];
        }
        if (s < INT32_MIN || s > INT32_MAX) return false;
        if (delta) delta[r] = s;
    }
    return true;
}
