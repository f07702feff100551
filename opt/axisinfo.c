/* Axis analysis: per value and per dimension, contiguity (length of runs of
 * consecutive values), divisibility (largest power of two dividing the first
 * element of every run; in bytes for pointers) and constancy (length of runs
 * of equal values). pass_layout reads it to pick vector widths, so every rule
 * here must under-estimate: claiming a run or an alignment that is not there
 * gives a misaligned or wrong vector access on the GPU.
 *
 * Conventions kept by every rule, and relied on by the others:
 *  - all three numbers are powers of two; contiguity and constancy are at
 *    most the dim's size (1 for scalars, which use dim 0);
 *  - runs are aligned: along dim d, runs of contiguity c start at positions
 *    that are multiples of c, and likewise for constancy;
 *  - divisibility along d holds for the elements that start a run along d, so
 *    where contiguity is 1 it holds for every element.
 * Besides the public AxisInfo the analysis tracks, per value, a known
 * constant (scalars and splats) and whether the value is provably
 * non-negative, which makes division and remainder precise. */
#include "opt.h"

#include <string.h>

#define AXIS_DIV_MAX ((int64_t)1 << 30)
#define AXIS_FIX_ROUNDS 64

typedef struct AxisState {
    IrFunc *fn;
    AxisInfo *info;
    bool *nonneg;
    bool *assumed_nonneg;   /* tl.assume says so (note_assumption) */
    bool *has_const;
    int64_t *cval;
} AxisState;

/* ---- small arithmetic on powers of two ---- */
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

static int64_t pow2_floor(int64_t x) {
    if (x < 1) return 1;
    int64_t p = 1;
    while (p <= x / 2) p *= 2;
    return p;
}

/* largest power of two dividing v (0 is divisible by everything) */
static int64_t pow2_div(int64_t v) {
    uint64_t u = (uint64_t)v, low = u & (~u + 1);
    return !u || low >= (uint64_t)AXIS_DIV_MAX ? AXIS_DIV_MAX : (int64_t)low;
}

static int64_t div_mul(int64_t a, int64_t b) { return a >= AXIS_DIV_MAX / b ? AXIS_DIV_MAX : a * b; }

static int n_dims(IrType t) { return t.rank ? t.rank : 1; }
static int64_t dim_size(IrType t, int d) { return t.rank ? t.shape[d] : 1; }

/* Divisibility of the elements at positions that are multiples of c along d,
 * for a value whose runs (of its own contiguity) are aligned: the run starts
 * keep the value's divisibility, positions inside a run are run start + k*c. */
static int64_t run_div(const AxisInfo *a, int d, int64_t c) {
    return a->contiguity[d] <= c ? a->divisibility[d] : min64(a->divisibility[d], c);
}

static AxisInfo info_top(void) {
    AxisInfo a;
    for (int d = 0; d < IR_MAX_RANK; d++) a.contiguity[d] = a.divisibility[d] = a.constancy[d] = 1;
    return a;
}

/* Normalizes a freshly computed result: clamps to the shape, rounds to
 * powers of two, and keeps contiguity/divisibility only where they mean
 * something (integers and pointers; booleans and floats only carry constancy). */
static void finish(AxisState *s, ValId v, AxisInfo a) {
    IrType t = ir_type(s->fn, v);
    bool numeric = t.elem == ET_PTR || (elem_is_int((ElemType)t.elem) && t.elem != ET_I1);
    for (int d = 0; d < IR_MAX_RANK; d++) {
        int64_t n = d < n_dims(t) ? dim_size(t, d) : 1;
        a.contiguity[d] = min64(pow2_floor(a.contiguity[d]), n);
        a.constancy[d] = min64(pow2_floor(a.constancy[d]), n);
        a.divisibility[d] = min64(pow2_floor(a.divisibility[d]), AXIS_DIV_MAX);
        if (!numeric) a.contiguity[d] = a.divisibility[d] = 1;
    }
    s->info[v] = a;
    if (elem_class((ElemType)t.elem) == EC_UINT || s->assumed_nonneg[v]) s->nonneg[v] = true;
}

static void set_const(AxisState *s, ValId v, int64_t c) {
    s->has_const[v] = true;
    s->cval[v] = c;
}

static bool is_const(AxisState *s, ValId v, int64_t c) { return s->has_const[v] && s->cval[v] == c; }

/* An operand as seen by an op with result type t: a scalar operand of a tile
 * op acts like its splat. */
static AxisInfo operand(AxisState *s, ValId v, IrType t) {
    AxisInfo a = s->info[v];
    if (ir_type(s->fn, v).rank == 0 && t.rank > 0)
        for (int d = 0; d < t.rank; d++) {
            a.contiguity[d] = 1;
            a.divisibility[d] = s->info[v].divisibility[0];
            a.constancy[d] = t.shape[d];
        }
    return a;
}

/* Truncates a folded constant to the result's width, as the GPU would. */
static int64_t wrap_to(IrType t, uint64_t u) {
    int bits = elem_bits((ElemType)t.elem);
    if (bits >= 64) return (int64_t)u;
    u &= (1ULL << bits) - 1;
    if (elem_is_signed((ElemType)t.elem) && (u >> (bits - 1) & 1)) u |= ~0ULL << bits;
    return (int64_t)u;
}

/* ---- sources ---- */
static void visit_const(AxisState *s, IrOp *op) {
    ValId r = op->results[0];
    IrType t = ir_type(s->fn, r);
    AxisInfo a = info_top();
    bool integer = elem_is_int((ElemType)t.elem);
    for (int d = 0; d < n_dims(t); d++) {
        a.constancy[d] = dim_size(t, d);
        a.divisibility[d] = integer ? pow2_div(op->attr.i) : 1;
    }
    if (integer) {
        set_const(s, r, op->attr.i);
        s->nonneg[r] = op->attr.i >= 0;
    }
    finish(s, r, a);
}

static void visit_arange(AxisState *s, IrOp *op) {
    ValId r = op->results[0];
    AxisInfo a = info_top();
    a.contiguity[0] = op->attr.i2 - op->attr.i;
    a.divisibility[0] = pow2_div(op->attr.i);
    s->nonneg[r] = op->attr.i >= 0;
    finish(s, r, a);
}

static void visit_params(AxisState *s) {
    IrFunc *fn = s->fn;
    for (uint32_t i = 0; i < fn->n_params; i++) {
        ValId v = fn->params[i].val;
        IrType t = ir_type(fn, v);
        AxisInfo a = info_top();
        int64_t hint = fn->params[i].divisibility > 1 ? pow2_div(fn->params[i].divisibility) : 1;
        /* an unhinted pointer is still aligned to its element: a scalar
         * access through it would fault otherwise */
        if (t.elem == ET_PTR) a.divisibility[0] = max64(hint, elem_bytes((ElemType)t.pointee));
        else if (elem_is_int((ElemType)t.elem)) a.divisibility[0] = hint;
        finish(s, v, a);
    }
}

/* ---- shape ops ---- */
static void visit_splat(AxisState *s, IrOp *op) {
    ValId r = op->results[0], x = op->operands[0];
    IrType t = ir_type(s->fn, r);
    AxisInfo a = operand(s, x, t);
    s->nonneg[r] = s->nonneg[x];
    if (s->has_const[x]) set_const(s, r, s->cval[x]);
    finish(s, r, a);
}

static void visit_broadcast(AxisState *s, IrOp *op) {
    ValId r = op->results[0], x = op->operands[0];
    IrType t = ir_type(s->fn, r), xt = ir_type(s->fn, x);
    AxisInfo a = operand(s, x, t);
    for (int d = 0; d < t.rank && xt.rank; d++)
        if (xt.shape[d] == 1 && t.shape[d] > 1) {
            /* every element is a copy of an element of x, and along a size-1
             * dim x's divisibility holds for all its elements */
            a.contiguity[d] = 1;
            a.constancy[d] = t.shape[d];
        }
    s->nonneg[r] = s->nonneg[x];
    if (s->has_const[x]) set_const(s, r, s->cval[x]);
    finish(s, r, a);
}

static void visit_expand_dims(AxisState *s, IrOp *op) {
    ValId r = op->results[0], x = op->operands[0];
    IrType xt = ir_type(s->fn, x);
    int axis = (int)op->attr.i;
    const AxisInfo *in = &s->info[x];
    /* along the new size-1 dim every element starts a run, so its
     * divisibility must hold for all elements of x */
    int64_t all = AXIS_DIV_MAX;
    for (int d = 0; d < n_dims(xt); d++) all = min64(all, run_div(in, d, 1));
    if (s->has_const[x]) all = pow2_div(s->cval[x]);
    AxisInfo a = info_top();
    for (int d = 0, k = 0; d < n_dims(xt) + 1 && d < IR_MAX_RANK; d++) {
        if (d == axis) {
            a.divisibility[d] = all;
            continue;
        }
        a.contiguity[d] = in->contiguity[k];
        a.divisibility[d] = in->divisibility[k];
        a.constancy[d] = in->constancy[k];
        k++;
    }
    s->nonneg[r] = s->nonneg[x];
    if (s->has_const[x]) set_const(s, r, s->cval[x]);
    finish(s, r, a);
}

/* multiple_of / max_contiguous: the user's word, per dim (one value for a
 * scalar or for all dims when fewer are given). */
static void visit_hint(AxisState *s, IrOp *op) {
    ValId r = op->results[0], x = op->operands[0];
    IrType t = ir_type(s->fn, r);
    AxisInfo a = s->info[x];
    for (int d = 0; d < n_dims(t) && op->attr.n_ints; d++) {
        int64_t h = op->attr.ints[d < op->attr.n_ints ? d : op->attr.n_ints - 1];
        if (h < 1) continue;
        if (op->opc == OP_MULTIPLE_OF) a.divisibility[d] = pow2_div(h);
        else a.contiguity[d] = pow2_floor(h);
    }
    s->nonneg[r] = s->nonneg[x];
    if (s->has_const[x]) set_const(s, r, s->cval[x]);
    finish(s, r, a);
}

/* ---- arithmetic ---- */
static void visit_add_sub(AxisState *s, IrOp *op) {
    ValId r = op->results[0], x = op->operands[0], y = op->operands[1];
    IrType t = ir_type(s->fn, r);
    AxisInfo l = operand(s, x, t), rr = operand(s, y, t), a = info_top();
    bool add = op->opc == OP_ADD;
    for (int d = 0; d < n_dims(t); d++) {
        /* x + y is consecutive where one side is and the other is constant;
         * x - y only where x is (y consecutive makes it decrease) */
        int64_t c = min64(l.contiguity[d], rr.constancy[d]);
        if (add) c = max64(c, min64(rr.contiguity[d], l.constancy[d]));
        a.contiguity[d] = c;
        a.divisibility[d] = min64(run_div(&l, d, c), run_div(&rr, d, c));
        a.constancy[d] = min64(l.constancy[d], rr.constancy[d]);
    }
    s->nonneg[r] = add && s->nonneg[x] && s->nonneg[y];
    if (s->has_const[x] && s->has_const[y]) {
        uint64_t u = add ? (uint64_t)s->cval[x] + (uint64_t)s->cval[y]
                         : (uint64_t)s->cval[x] - (uint64_t)s->cval[y];
        set_const(s, r, wrap_to(t, u));
        for (int d = 0; d < n_dims(t); d++) a.divisibility[d] = pow2_div(s->cval[r]);
    }
    finish(s, r, a);
}

static void copy_value(AxisState *s, ValId r, ValId x) {
    IrType t = ir_type(s->fn, r);
    s->nonneg[r] = s->nonneg[x];
    if (s->has_const[x]) set_const(s, r, s->cval[x]);
    finish(s, r, operand(s, x, t));
}

/* The divisibility that holds for every element of x. */
static int64_t all_div(AxisState *s, ValId x) {
    int64_t all = AXIS_DIV_MAX;
    for (int d = 0; d < n_dims(ir_type(s->fn, x)); d++) all = min64(all, run_div(&s->info[x], d, 1));
    return s->has_const[x] ? pow2_div(s->cval[x]) : all;
}

static void keep_value_facts(AxisState *s, ValId r, ValId x) {
    s->nonneg[r] = s->nonneg[x];
    if (s->has_const[x]) set_const(s, r, s->cval[x]);
}

/* trans: each dim keeps its runs, at its new place */
static void visit_trans(AxisState *s, IrOp *op) {
    ValId r = op->results[0], x = op->operands[0];
    const AxisInfo *in = &s->info[x];
    AxisInfo a = info_top();
    for (int i = 0; i < op->attr.n_ints && i < IR_MAX_RANK; i++) {
        int d = op->attr.ints[i];
        a.contiguity[i] = in->contiguity[d];
        a.divisibility[i] = in->divisibility[d];
        a.constancy[i] = in->constancy[d];
    }
    keep_value_facts(s, r, x);
    finish(s, r, a);
}

/* reshape keeps the row-major order. Runs along the operand's last dim are
 * aligned and within a row, so they stay runs along the result's last dim
 * (cut to its size); the other dims are assumed to have none. */
static void visit_reshape(AxisState *s, IrOp *op) {
    ValId r = op->results[0], x = op->operands[0];
    IrType t = ir_type(s->fn, r), xt = ir_type(s->fn, x);
    const AxisInfo *in = &s->info[x];
    AxisInfo a = info_top();
    int last = n_dims(t) - 1, xlast = n_dims(xt) - 1;
    int64_t all = all_div(s, x);
    for (int d = 0; d < last; d++) a.divisibility[d] = all;
    if (t.rank == 0) {
        a.divisibility[0] = all;
    } else {
        int64_t c = min64(in->contiguity[xlast], t.shape[last]);
        a.contiguity[last] = c;
        a.divisibility[last] = run_div(in, xlast, c);
        a.constancy[last] = min64(in->constancy[xlast], t.shape[last]);
    }
    keep_value_facts(s, r, x);
    finish(s, r, a);
}

/* join: along the old dims a's and b's runs (the shorter); the new dim of
 * two has none */
static void visit_join(AxisState *s, IrOp *op) {
    ValId r = op->results[0], x = op->operands[0], y = op->operands[1];
    IrType xt = ir_type(s->fn, x);
    const AxisInfo *p = &s->info[x], *q = &s->info[y];
    AxisInfo a = info_top();
    for (int d = 0; d < xt.rank; d++) {
        a.contiguity[d] = min64(p->contiguity[d], q->contiguity[d]);
        a.divisibility[d] = min64(p->divisibility[d], q->divisibility[d]);
        a.constancy[d] = min64(p->constancy[d], q->constancy[d]);
    }
    if (xt.rank < IR_MAX_RANK) a.divisibility[xt.rank] = min64(all_div(s, x), all_div(s, y));
    s->nonneg[r] = s->nonneg[x] && s->nonneg[y];
    if (s->has_const[x] && s->has_const[y] && s->cval[x] == s->cval[y]) set_const(s, r, s->cval[x]);
    finish(s, r, a);
}

/* split: each half has the operand's runs along the remaining dims */
static void visit_split(AxisState *s, IrOp *op) {
    ValId x = op->operands[0];
    for (uint32_t i = 0; i < op->n_results; i++) {
        ValId r = op->results[i];
        keep_value_facts(s, r, x);
        finish(s, r, s->info[x]);
    }
}

static void set_zero(AxisState *s, ValId r) {
    IrType t = ir_type(s->fn, r);
    AxisInfo a = info_top();
    for (int d = 0; d < n_dims(t); d++) {
        a.divisibility[d] = AXIS_DIV_MAX;
        a.constancy[d] = dim_size(t, d);
    }
    set_const(s, r, 0);
    s->nonneg[r] = true;
    finish(s, r, a);
}

/* x * y: x * 1 is x; otherwise every element is a product, so the element
 * divisibilities multiply and runs of consecutive values are gone. */
static void visit_mul(AxisState *s, IrOp *op) {
    ValId r = op->results[0], x = op->operands[0], y = op->operands[1];
    IrType t = ir_type(s->fn, r);
    if (is_const(s, y, 1)) {
        copy_value(s, r, x);
        return;
    }
    if (is_const(s, x, 1)) {
        copy_value(s, r, y);
        return;
    }
    if (is_const(s, x, 0) || is_const(s, y, 0)) {
        set_zero(s, r);
        return;
    }
    AxisInfo l = operand(s, x, t), rr = operand(s, y, t), a = info_top();
    for (int d = 0; d < n_dims(t); d++) {
        a.divisibility[d] = div_mul(run_div(&l, d, 1), run_div(&rr, d, 1));
        a.constancy[d] = min64(l.constancy[d], rr.constancy[d]);
    }
    s->nonneg[r] = s->nonneg[x] && s->nonneg[y];
    if (s->has_const[x] && s->has_const[y]) {
        set_const(s, r, wrap_to(t, (uint64_t)s->cval[x] * (uint64_t)s->cval[y]));
        for (int d = 0; d < n_dims(t); d++) a.divisibility[d] = pow2_div(s->cval[r]);
    }
    finish(s, r, a);
}

/* floor(x / c) for a positive constant c (x non-negative for C division;
 * any x for an arithmetic shift). Within an aligned group of g consecutive
 * values, g dividing c and the group start, the quotient is constant. */
static AxisInfo floor_div_info(const AxisInfo *l, IrType t, int64_t c) {
    AxisInfo a = info_top();
    for (int d = 0; d < n_dims(t); d++) {
        int64_t g = min64(min64(l->contiguity[d], pow2_div(c)), l->divisibility[d]);
        a.constancy[d] = max64(l->constancy[d], g);
        /* an exact quotient of a multiple of c keeps what is left */
        int64_t e = run_div(l, d, 1);
        a.divisibility[d] = (c & (c - 1)) == 0 && e >= c ? e / c : 1;
    }
    return a;
}

/* x mod c for c a power of two, with floor semantics (x & (c-1), or x % c
 * for non-negative x): runs survive up to the next multiple of c. */
static AxisInfo floor_mod_info(const AxisInfo *l, IrType t, int64_t c) {
    AxisInfo a = info_top();
    for (int d = 0; d < n_dims(t); d++) {
        int64_t g = min64(min64(l->contiguity[d], c), l->divisibility[d]);
        a.contiguity[d] = g;
        a.divisibility[d] = min64(run_div(l, d, g), c);
        a.constancy[d] = l->constancy[d];
    }
    return a;
}

static AxisInfo constancy_only(AxisState *s, IrOp *op, IrType t) {
    AxisInfo a = info_top();
    for (int d = 0; d < n_dims(t); d++) {
        int64_t k = dim_size(t, d);
        for (uint32_t i = 0; i < op->n_operands; i++)
            k = min64(k, operand(s, op->operands[i], t).constancy[d]);
        a.constancy[d] = k;
    }
    return a;
}

/* Triton's rules for x / y and x % y (its AxisInfo) take x's runs at face
 * value when x is consecutive along the whole dim and y constant along it,
 * whatever the signs. Where tric cannot prove x >= 0 it follows them, so
 * that kernels as written (the tutorial matmul's `(pid_n * BLOCK_N +
 * arange) % N`, with pid_n from a division by a `min`) get the vectors
 * Triton gives them: a negative x there would index before the tensor. */
static bool runs_trusted(AxisState *s, ValId x, const AxisInfo *l, const AxisInfo *yi, IrType t, int d) {
    return s->nonneg[x] || (l->contiguity[d] == dim_size(t, d) && yi->constancy[d] == dim_size(t, d));
}

/* x % y and x / y, y not a known constant but a multiple of m along d (its
 * divisibility) and equal over runs of its constancy: |y| is a multiple of
 * m, so a window of x's run that starts at a multiple of g (g | m) holds no
 * multiple of |y| past its start. So x % y stays consecutive there, its
 * start x0 - q*y keeping the divisibility both share (as x % m,
 * floor_mod_info, but with runs also cut where y changes), and x / y stays
 * constant. */
static void by_multiple(AxisState *s, AxisInfo *a, IrOp *op, IrType t) {
    ValId x = op->operands[0], y = op->operands[1];
    AxisInfo l = operand(s, x, t), yi = operand(s, y, t);
    for (int d = 0; d < n_dims(t); d++) {
        if (!runs_trusted(s, x, &l, &yi, t, d)) continue;
        int64_t m = yi.divisibility[d];
        int64_t g = min64(min64(l.contiguity[d], m), min64(l.divisibility[d], yi.constancy[d]));
        if (op->opc == OP_DIV) {
            a->constancy[d] = max64(a->constancy[d], g);
            continue;
        }
        a->contiguity[d] = g;
        a->divisibility[d] = min64(run_div(&l, d, g), m);
    }
}

static void visit_div_rem(AxisState *s, IrOp *op) {
    ValId r = op->results[0], x = op->operands[0], y = op->operands[1];
    IrType t = ir_type(s->fn, r);
    AxisInfo a = constancy_only(s, op, t);
    int64_t c = s->has_const[y] ? s->cval[y] : 0;
    bool integer = elem_is_int((ElemType)t.elem), rem = op->opc == OP_REM;
    if (integer && c == 1 && !rem) {
        copy_value(s, r, x);
        return;
    }
    AxisInfo l = operand(s, x, t), yi = operand(s, y, t);
    if (integer && c > 0) {
        bool pow2 = (c & (c - 1)) == 0;
        if (!rem && s->nonneg[x]) a = floor_div_info(&l, t, c);
        else if (!rem)   /* truncation of a possibly negative exact multiple */
            for (int d = 0; d < n_dims(t); d++) {
                int64_t e = run_div(&l, d, 1);
                a.divisibility[d] = pow2 && e >= c ? e / c : 1;
                if (runs_trusted(s, x, &l, &yi, t, d))
                    a.constancy[d] = max64(a.constancy[d],
                                           min64(min64(l.contiguity[d], l.divisibility[d]), pow2_div(c)));
            }
        else if (pow2) {
            AxisInfo m = floor_mod_info(&l, t, c);
            for (int d = 0; d < n_dims(t); d++)
                if (runs_trusted(s, x, &l, &yi, t, d)) {
                    a.contiguity[d] = m.contiguity[d];
                    a.divisibility[d] = m.divisibility[d];
                }
        }
        s->nonneg[r] = s->nonneg[x];
    } else if (integer && !s->has_const[y]) {
        by_multiple(s, &a, op, t);
        /* C's remainder has the sign of x; a quotient of non-negatives is one */
        s->nonneg[r] = s->nonneg[x] && (rem || s->nonneg[y]);
    } else if (integer && rem && c < 0) {
        s->nonneg[r] = s->nonneg[x];
    }
    if (integer && s->has_const[x] && c != 0 && !(c == -1 && s->cval[x] == INT64_MIN)) {
        set_const(s, r, wrap_to(t, (uint64_t)(rem ? s->cval[x] % c : s->cval[x] / c)));
        for (int d = 0; d < n_dims(t); d++) a.divisibility[d] = pow2_div(s->cval[r]);
    }
    finish(s, r, a);
}

static void visit_shift(AxisState *s, IrOp *op) {
    ValId r = op->results[0], x = op->operands[0], y = op->operands[1];
    IrType t = ir_type(s->fn, r);
    int64_t k = s->has_const[y] ? s->cval[y] : -1;
    int bits = elem_bits((ElemType)t.elem);
    if (k == 0) {
        copy_value(s, r, x);
        return;
    }
    AxisInfo a = constancy_only(s, op, t);
    if (k > 0 && k < bits && k < 30) {
        AxisInfo l = operand(s, x, t);
        if (op->opc == OP_SHR) {
            a = floor_div_info(&l, t, (int64_t)1 << k);
            s->nonneg[r] = s->nonneg[x];
        } else {
            for (int d = 0; d < n_dims(t); d++)
                a.divisibility[d] = div_mul(run_div(&l, d, 1), (int64_t)1 << k);
        }
    }
    finish(s, r, a);
}

static void visit_bitwise(AxisState *s, IrOp *op) {
    ValId r = op->results[0], x = op->operands[0], y = op->operands[1];
    IrType t = ir_type(s->fn, r);
    AxisInfo l = operand(s, x, t), rr = operand(s, y, t);
    AxisInfo a = constancy_only(s, op, t);
    /* x & (2^k - 1) is x mod 2^k (floor), whatever the sign of x */
    for (int side = 0; side < 2 && op->opc == OP_AND && t.elem != ET_I1; side++) {
        ValId m = side ? x : y;
        int64_t mv = s->has_const[m] ? s->cval[m] : -1;
        if (mv > 0 && ((mv + 1) & mv) == 0 && mv < AXIS_DIV_MAX) {
            a = floor_mod_info(side ? &rr : &l, t, mv + 1);
            s->nonneg[r] = true;
            finish(s, r, a);
            return;
        }
    }
    for (int d = 0; d < n_dims(t); d++) {
        int64_t el = run_div(&l, d, 1), er = run_div(&rr, d, 1);
        a.divisibility[d] = op->opc == OP_AND ? max64(el, er) : min64(el, er);
    }
    s->nonneg[r] = op->opc == OP_AND ? (s->nonneg[x] || s->nonneg[y]) : (s->nonneg[x] && s->nonneg[y]);
    if (s->has_const[x] && s->has_const[y]) {
        uint64_t u = (uint64_t)s->cval[x], v = (uint64_t)s->cval[y];
        set_const(s, r, wrap_to(t, op->opc == OP_AND ? u & v : op->opc == OP_OR ? u | v : u ^ v));
    }
    finish(s, r, a);
}

static void visit_min_max(AxisState *s, IrOp *op) {
    ValId r = op->results[0], x = op->operands[0], y = op->operands[1];
    IrType t = ir_type(s->fn, r);
    AxisInfo l = operand(s, x, t), rr = operand(s, y, t);
    AxisInfo a = constancy_only(s, op, t);
    for (int d = 0; d < n_dims(t); d++) a.divisibility[d] = min64(run_div(&l, d, 1), run_div(&rr, d, 1));
    s->nonneg[r] = op->opc == OP_MAX ? (s->nonneg[x] || s->nonneg[y]) : (s->nonneg[x] && s->nonneg[y]);
    if (s->has_const[x] && s->has_const[y] && elem_is_int((ElemType)t.elem)) {
        int64_t u = s->cval[x], v = s->cval[y];
        set_const(s, r, op->opc == OP_MIN ? min64(u, v) : max64(u, v));
    }
    finish(s, r, a);
}

/* x < n over a run of consecutive x that starts at a multiple of g flips at
 * most at a multiple of g when n is one: the mask is constant over aligned
 * groups of g. Masks like offs < n_elements get their constancy this way. */
static int64_t cmp_group(const AxisInfo *run, const AxisInfo *bound, int d) {
    return min64(min64(run->contiguity[d], run->divisibility[d]),
                 min64(run_div(bound, d, 1), bound->constancy[d]));
}

static void visit_cmp(AxisState *s, IrOp *op) {
    ValId r = op->results[0], x = op->operands[0], y = op->operands[1];
    IrType t = ir_type(s->fn, r);
    AxisInfo l = operand(s, x, t), rr = operand(s, y, t);
    AxisInfo a = constancy_only(s, op, t);
    CmpPred p = (CmpPred)op->attr.i;
    /* integers only: a pointer's divisibility is in bytes, its runs in elements */
    bool ints = elem_is_int((ElemType)ir_type(s->fn, x).elem);
    for (int d = 0; d < n_dims(t) && ints; d++) {
        if (p == CMP_LT || p == CMP_GE) a.constancy[d] = max64(a.constancy[d], cmp_group(&l, &rr, d));
        if (p == CMP_GT || p == CMP_LE) a.constancy[d] = max64(a.constancy[d], cmp_group(&rr, &l, d));
    }
    finish(s, r, a);
}

static void visit_select(AxisState *s, IrOp *op) {
    ValId r = op->results[0];
    IrType t = ir_type(s->fn, r);
    AxisInfo c = operand(s, op->operands[0], t), x = operand(s, op->operands[1], t);
    AxisInfo y = operand(s, op->operands[2], t), a = info_top();
    for (int d = 0; d < n_dims(t); d++) {
        /* where the condition is constant the result is a run of x or of y */
        int64_t g = min64(c.constancy[d], min64(x.contiguity[d], y.contiguity[d]));
        a.contiguity[d] = g;
        a.divisibility[d] = min64(run_div(&x, d, g), run_div(&y, d, g));
        a.constancy[d] = min64(c.constancy[d], min64(x.constancy[d], y.constancy[d]));
    }
    s->nonneg[r] = s->nonneg[op->operands[1]] && s->nonneg[op->operands[2]];
    finish(s, r, a);
}

/* ptr + off (off in elements): contiguity in elements as for add;
 * divisibility in bytes, the offset's scaled by the element size. */
static void visit_addptr(AxisState *s, IrOp *op) {
    ValId r = op->results[0], p = op->operands[0], o = op->operands[1];
    IrType t = ir_type(s->fn, r);
    int64_t eb = elem_bytes((ElemType)t.pointee);
    AxisInfo l = operand(s, p, t), rr = operand(s, o, t), a = info_top();
    for (int d = 0; d < n_dims(t); d++) {
        int64_t c = max64(min64(l.contiguity[d], rr.constancy[d]), min64(rr.contiguity[d], l.constancy[d]));
        a.contiguity[d] = c;
        a.divisibility[d] = min64(run_div(&l, d, c), div_mul(run_div(&rr, d, c), eb));
        a.constancy[d] = min64(l.constancy[d], rr.constancy[d]);
    }
    finish(s, r, a);
}

/* Elementwise ops without better rules: equal inputs give equal outputs;
 * neg and abs keep every element's divisibility. */
static void visit_unary(AxisState *s, IrOp *op) {
    ValId r = op->results[0];
    IrType t = ir_type(s->fn, r);
    AxisInfo a = constancy_only(s, op, t);
    if (op->opc == OP_NEG || op->opc == OP_ABS) {
        AxisInfo l = operand(s, op->operands[0], t);
        for (int d = 0; d < n_dims(t); d++) a.divisibility[d] = run_div(&l, d, 1);
        s->nonneg[r] = op->opc == OP_ABS && elem_is_int((ElemType)t.elem) && s->nonneg[op->operands[0]];
    }
    finish(s, r, a);
}

/* cast/bitcast: integer widening keeps everything; narrowing and changes of
 * signedness keep runs that cannot cross a wrap-around (no longer than
 * their start's alignment); pointer <-> integer keeps bytes, and runs only
 * for 1-byte elements. */
static void visit_cast(AxisState *s, IrOp *op) {
    ValId r = op->results[0], x = op->operands[0];
    IrType t = ir_type(s->fn, r), xt = ir_type(s->fn, x);
    AxisInfo l = operand(s, x, t), a = constancy_only(s, op, t);
    ElemType to = (ElemType)t.elem, from = (ElemType)xt.elem;
    bool int_to = elem_is_int(to) && to != ET_I1, int_from = elem_is_int(from) && from != ET_I1;
    bool bit = op->opc == OP_BITCAST;
    /* 1: runs survive; -1: only runs that cannot cross a wrap-around (narrowing,
     * or a change of signedness at 0); 2: no runs; 0: constancy only */
    int64_t keep_run = 0;
    bool same_sign = elem_is_signed(to) == elem_is_signed(from);
    if (int_to && int_from && same_sign && (elem_bits(to) >= elem_bits(from) || bit)) keep_run = 1;
    else if (int_to && int_from) keep_run = -1;
    else if (to == ET_PTR && from == ET_PTR &&
             elem_bytes((ElemType)t.pointee) == elem_bytes((ElemType)xt.pointee))
        keep_run = 1;
    else if (to == ET_PTR && int_from) keep_run = elem_bytes((ElemType)t.pointee) == 1 ? 1 : 2;
    else if (int_to && from == ET_PTR) keep_run = elem_bytes((ElemType)xt.pointee) == 1 ? 1 : 2;
    else if (to == ET_PTR && from == ET_PTR) keep_run = 2;
    if (keep_run) {
        for (int d = 0; d < n_dims(t); d++) {
            int64_t c = keep_run == 1 ? l.contiguity[d]
                      : keep_run == -1 ? min64(l.contiguity[d], l.divisibility[d]) : 1;
            a.contiguity[d] = c;
            a.divisibility[d] = run_div(&l, d, c);
        }
        bool value_kept = int_to && int_from && elem_bits(to) >= elem_bits(from) && !bit &&
                          (same_sign || s->nonneg[x]);
        if (value_kept) {
            s->nonneg[r] = s->nonneg[x];
            if (s->has_const[x]) set_const(s, r, s->cval[x]);
        }
    }
    finish(s, r, a);
}

/* ---- control flow ---- */
static void visit_block(AxisState *s, IrBlock *b);

/* The weakest facts true of both a and b (a value that is one or the other). */
static void meet_into(AxisState *s, ValId dst, ValId x, ValId y) {
    IrType t = ir_type(s->fn, dst);
    AxisInfo l = operand(s, x, t), rr = operand(s, y, t), a = info_top();
    for (int d = 0; d < n_dims(t); d++) {
        int64_t c = min64(l.contiguity[d], rr.contiguity[d]);
        a.contiguity[d] = c;
        a.divisibility[d] = min64(run_div(&l, d, c), run_div(&rr, d, c));
        a.constancy[d] = min64(l.constancy[d], rr.constancy[d]);
    }
    bool nn = s->nonneg[x] && s->nonneg[y];
    bool same_const = s->has_const[x] && s->has_const[y] && s->cval[x] == s->cval[y];
    int64_t cv = s->cval[x];
    s->has_const[dst] = false;
    s->nonneg[dst] = nn;
    if (same_const) set_const(s, dst, cv);
    finish(s, dst, a);
}

static void assign_from(AxisState *s, ValId dst, ValId src) {
    s->has_const[dst] = false;
    copy_value(s, dst, src);
}

static void set_top(AxisState *s, ValId v) {
    s->has_const[v] = false;
    s->nonneg[v] = false;
    finish(s, v, info_top());
}

/* Loop-carried values: start from what holds on entry, run the body, weaken
 * by what the back edge brings, until nothing changes (every step only
 * weakens, so this ends); if it does not settle quickly, assume nothing. */
typedef void (*LoopBodyFn)(AxisState *s, IrOp *loop);

static bool weaken_by(AxisState *s, ValId arg, ValId back) {
    AxisInfo before = s->info[arg];
    bool nn = s->nonneg[arg], hc = s->has_const[arg];
    int64_t cv = s->cval[arg];
    meet_into(s, arg, arg, back);
    return memcmp(&before, &s->info[arg], sizeof before) || nn != s->nonneg[arg] ||
           hc != s->has_const[arg] || (hc && cv != s->cval[arg]);
}

static void solve_loop(AxisState *s, IrOp *loop, const ValId *args, const ValId *init,
                       uint32_t n, LoopBodyFn run, IrBlock *back_block) {
    for (uint32_t i = 0; i < n; i++) assign_from(s, args[i], init[i]);
    if (!n) {
        run(s, loop);
        return;
    }
    for (int round = 0; round < AXIS_FIX_ROUNDS; round++) {
        run(s, loop);
        IrOp *term = back_block->last;
        TRIC_ASSERT(term && term->opc == OP_YIELD && term->n_operands == n);
        bool changed = false;
        for (uint32_t i = 0; i < n; i++) changed |= weaken_by(s, args[i], term->operands[i]);
        if (!changed) return;
    }
    for (uint32_t i = 0; i < n; i++) set_top(s, args[i]);
    run(s, loop);
}

static void for_body(AxisState *s, IrOp *op) { visit_block(s, op->regions[0]); }

/* the induction variable lb + i*step is divisible by whatever divides both */
static void visit_for(AxisState *s, IrOp *op) {
    IrBlock *body = op->regions[0];
    ValId lb = op->operands[0], step = op->operands[2], iv = body->args[0];
    AxisInfo a = info_top();
    a.divisibility[0] = min64(s->info[lb].divisibility[0], s->info[step].divisibility[0]);
    s->has_const[iv] = false;
    s->nonneg[iv] = s->nonneg[lb] && s->nonneg[step];
    finish(s, iv, a);
    uint32_t n = op->n_operands - 3;
    TRIC_ASSERT(body->n_args == n + 1 && op->n_results == n);
    solve_loop(s, op, body->args + 1, op->operands + 3, n, for_body, body);
    for (uint32_t i = 0; i < n; i++) assign_from(s, op->results[i], body->args[1 + i]);
}

/* before region (args = carried) ends in condition(cond, forwarded...), which
 * become the after region's args and the loop's results */
static void while_body(AxisState *s, IrOp *op) {
    IrBlock *before = op->regions[0], *after = op->regions[1];
    visit_block(s, before);
    IrOp *cond = before->last;
    TRIC_ASSERT(cond && cond->opc == OP_CONDITION && cond->n_operands == after->n_args + 1);
    for (uint32_t i = 0; i < after->n_args; i++) assign_from(s, after->args[i], cond->operands[1 + i]);
    visit_block(s, after);
}

static void visit_while(AxisState *s, IrOp *op) {
    IrBlock *before = op->regions[0], *after = op->regions[1];
    TRIC_ASSERT(before->n_args == op->n_operands && after->n_args == op->n_results);
    solve_loop(s, op, before->args, op->operands, op->n_operands, while_body, after);
    for (uint32_t i = 0; i < op->n_results; i++) assign_from(s, op->results[i], after->args[i]);
}

static void visit_if(AxisState *s, IrOp *op) {
    visit_block(s, op->regions[0]);
    visit_block(s, op->regions[1]);
    if (!op->n_results) return;
    IrOp *then_y = op->regions[0]->last, *else_y = op->regions[1]->last;
    TRIC_ASSERT(then_y && else_y && then_y->n_operands == op->n_results &&
                else_y->n_operands == op->n_results);
    for (uint32_t i = 0; i < op->n_results; i++)
        meet_into(s, op->results[i], then_y->operands[i], else_y->operands[i]);
}

static void visit_op(AxisState *s, IrOp *op) {
    switch (op->opc) {
    case OP_CONST: visit_const(s, op); break;
    case OP_ARANGE: visit_arange(s, op); break;
    case OP_PROGRAM_ID:
    case OP_NUM_PROGRAMS:
        set_top(s, op->results[0]);
        s->nonneg[op->results[0]] = true;
        break;
    case OP_SPLAT: visit_splat(s, op); break;
    case OP_BROADCAST: visit_broadcast(s, op); break;
    case OP_EXPAND_DIMS: visit_expand_dims(s, op); break;
    case OP_TRANS: visit_trans(s, op); break;
    case OP_RESHAPE: visit_reshape(s, op); break;
    case OP_JOIN: visit_join(s, op); break;
    case OP_SPLIT: visit_split(s, op); break;
    case OP_CONVERT_LAYOUT: copy_value(s, op->results[0], op->operands[0]); break;
    case OP_MULTIPLE_OF:
    case OP_MAX_CONTIGUOUS: visit_hint(s, op); break;
    case OP_ADD:
    case OP_SUB: visit_add_sub(s, op); break;
    case OP_MUL: visit_mul(s, op); break;
    case OP_DIV:
    case OP_REM: visit_div_rem(s, op); break;
    case OP_SHL:
    case OP_SHR: visit_shift(s, op); break;
    case OP_AND:
    case OP_OR:
    case OP_XOR: visit_bitwise(s, op); break;
    case OP_MIN:
    case OP_MAX: visit_min_max(s, op); break;
    case OP_CMP: visit_cmp(s, op); break;
    case OP_SELECT: visit_select(s, op); break;
    case OP_ADDPTR: visit_addptr(s, op); break;
    case OP_CAST:
    case OP_BITCAST: visit_cast(s, op); break;
    case OP_FOR: visit_for(s, op); break;
    case OP_WHILE: visit_while(s, op); break;
    case OP_IF: visit_if(s, op); break;
    default:
        /* loads (memory may change under us), and everything else with results */
        if (ir_info(op->opc)->flags & F_ELEMWISE) visit_unary(s, op);
        else
            for (uint32_t i = 0; i < op->n_results; i++) set_top(s, op->results[i]);
        break;
    }
}

static void visit_block(AxisState *s, IrBlock *b) {
    for (IrOp *op = b->first; op; op = op->next) {
        for (uint32_t i = 0; i < op->n_results; i++) s->has_const[op->results[i]] = false;
        for (uint32_t i = 0; i < op->n_results; i++) s->nonneg[op->results[i]] = false;
        visit_op(s, op);
    }
}

/* ---- tl.assume ---- */

/* v's value when it is a constant, or a splat or broadcast of one */
static bool const_source(IrFunc *fn, ValId v, int64_t *c) {
    IrOp *d = fn->vals[v].def;
    while (d && (d->opc == OP_SPLAT || d->opc == OP_BROADCAST || d->opc == OP_EXPAND_DIMS)) d = fn->vals[d->operands[0]].def;
    if (!d || d->opc != OP_CONST || !elem_is_int((ElemType)fn->vals[d->results[0]].type.elem)) return false;
    *c = d->attr.i;
    return true;
}

/* assume(x >= c) with c >= 0, x > c with c >= -1, and the same written
 * the other way round (c <= x, c < x): x is non-negative everywhere (an
 * SSA value has one value, so the promise holds before the assume too). */
static void note_assumption(IrFunc *fn, IrOp *op, void *ud) {
    bool *assumed_nonneg = ud;
    if (op->opc != OP_ASSUME) return;
    IrOp *cmp = fn->vals[op->operands[0]].def;
    if (!cmp || cmp->opc != OP_CMP || !elem_is_signed((ElemType)fn->vals[cmp->operands[0]].type.elem)) return;
    CmpPred p = (CmpPred)cmp->attr.i;
    int64_t c;
    for (int side = 0; side < 2; side++) {
        ValId x = cmp->operands[side];
        if (!const_source(fn, cmp->operands[1 - side], &c)) continue;
        /* x p c (side 0) or c p x (side 1), as x >= c or x > c */
        bool ge = side == 0 ? p == CMP_GE : p == CMP_LE, gt = side == 0 ? p == CMP_GT : p == CMP_LT;
        if ((ge && c >= 0) || (gt && c >= -1)) assumed_nonneg[x] = true;
    }
}

AxisInfo *axisinfo_compute(IrFunc *fn) {
    Arena *a = fn->ctx->arena;
    AxisState s = {fn, NULL, NULL, NULL, NULL, NULL};
    s.info = arena_alloc(a, sizeof(AxisInfo) * fn->n_vals);
    s.nonneg = arena_alloc(a, sizeof(bool) * fn->n_vals);
    s.assumed_nonneg = arena_alloc(a, sizeof(bool) * fn->n_vals);
    ir_walk(fn, fn->body, note_assumption, s.assumed_nonneg);
    s.has_const = arena_alloc(a, sizeof(bool) * fn->n_vals);
    s.cval = arena_alloc(a, sizeof(int64_t) * fn->n_vals);
    for (uint32_t v = 0; v < fn->n_vals; v++) s.info[v] = info_top();
    visit_params(&s);
    visit_block(&s, fn->body);
    return s.info;
}
