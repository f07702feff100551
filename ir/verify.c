/* The IR verifier: SSA dominance, operand/result/region counts, the types
 * each op accepts (ops.def), terminators of regions, and layouts. It runs
 * after parsing text and, with --verify-each (always in the test build),
 * after every pass, so a pass that breaks the IR is caught where it ran.
 *
 * Dominance in structured IR is scoping: a use must see a value defined
 * earlier in its own block or in an enclosing one (block arguments of
 * enclosing regions included). We walk the region tree keeping a state per
 * ValId (unseen, visible, out of scope). */
#include "ir.h"
#include "smem.h"
#include "tmap.h"
#include "mathfn.h"

#include <stdio.h>
#include <string.h>

enum { VS_UNSEEN, VS_VISIBLE, VS_GONE };
enum { MAX_MESSAGES = 20 };

typedef struct Verifier {
    IrFunc *fn;
    Buf *why;            /* every message, or NULL */
    int n_errors;
    SrcLoc first_loc;    /* the first problem, for ir_verify_first */
    Buf *first_msg;
    uint8_t *state;      /* per ValId: VS_* */
    bool layouts;        /* some value has a layout: then every tile must */
    uint32_t *uses;      /* check_smem: uses of each value */
} Verifier;

static void verr(Verifier *V, IrOp *op, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void verr(Verifier *V, IrOp *op, const char *fmt, ...) {
    if (V->n_errors++ >= MAX_MESSAGES) return;
    Buf msg = {0};
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&msg, fmt, ap);
    va_end(ap);
    if (V->why) {
        if (!op) buf_printf(V->why, "verify: function @%s: %s\n", V->fn->name, msg.data);
        else if (op->loc.file)
            buf_printf(V->why, "verify: op '%s' at %s:%d:%d: %s\n", ir_opinfo[op->opc].name, op->loc.file->path,
                       op->loc.line, op->loc.col, msg.data);
        else buf_printf(V->why, "verify: op '%s' (no location): %s\n", ir_opinfo[op->opc].name, msg.data);
    }
    if (V->n_errors == 1 && V->first_msg) {
        if (op) {
            V->first_loc = op->loc;
            buf_printf(V->first_msg, "invalid IR: op '%s': %s", ir_opinfo[op->opc].name, msg.data);
        } else {
            buf_printf(V->first_msg, "invalid IR: %s", msg.data);
        }
    }
    buf_free(&msg);
}

/* a type (with its layout) as arena text, for messages */
static const char *tstr(Verifier *V, IrType t) {
    Buf b = {.arena = V->fn->ctx->arena};
    ir_type_print(&b, t);
    return b.data;
}

static IrType vtype(Verifier *V, ValId v) { return V->fn->vals[v].type; }

static bool same_shape(IrType a, IrType b) {
    if (a.rank != b.rank) return false;
    for (int i = 0; i < a.rank; i++)
        if (a.shape[i] != b.shape[i]) return false;
    return true;
}

static bool layout_same(const Layout *a, const Layout *b) {
    if (a->rank != b->rank) return false;
    for (int d = 0; d < a->rank; d++)
        if (a->shape[d] != b->shape[d]) return false;
    for (int k = 0; k < LL_KINDS; k++) {
        if (a->n_bits[k] != b->n_bits[k]) return false;
        for (int i = 0; i < a->n_bits[k]; i++)
            for (int d = 0; d < a->rank; d++)
                if (a->basis[k][i][d] != b->basis[k][i][d]) return false;
    }
    return true;
}

static bool same_layout(Verifier *V, ValId a, ValId b) {
    int32_t la = V->fn->vals[a].layout, lb = V->fn->vals[b].layout;
    if (la == lb) return true;
    if (la < 0 || lb < 0) return false;
    return layout_same(&V->fn->layouts[la], &V->fn->layouts[lb]);
}

/* `what` (value v) must have exactly type `want`. */
static bool want_type(Verifier *V, IrOp *op, const char *what, ValId v, IrType want) {
    if (ir_type_eq(vtype(V, v), want)) return true;
    verr(V, op, "%s has type %s, expected %s", what, tstr(V, vtype(V, v)), tstr(V, want));
    return false;
}

/* `what` must have the type and layout of value `ref` (described by ref_what). */
static void want_like(Verifier *V, IrOp *op, const char *what, ValId v, ValId ref, const char *ref_what) {
    if (!want_type(V, op, what, v, vtype(V, ref))) return;
    if (V->layouts && !same_layout(V, v, ref))
        verr(V, op, "%s has layout #L%d, expected #L%d (%s's)", what, V->fn->vals[v].layout, V->fn->vals[ref].layout,
             ref_what);
}

static void want_layout_of(Verifier *V, IrOp *op, const char *what, ValId v, ValId ref, const char *ref_what) {
    if (V->layouts && !same_layout(V, v, ref))
        verr(V, op, "%s has layout #L%d, but %s has #L%d (only convert_layout changes layouts)", what,
             V->fn->vals[v].layout, ref_what, V->fn->vals[ref].layout);
}

static void want_layout(Verifier *V, IrOp *op, const char *what, ValId v, ValId ref) {
    want_layout_of(V, op, what, v, ref, "the result");
}

static const char *operand_name(Verifier *V, uint32_t i) { return arena_printf(V->fn->ctx->arena, "operand %u", i); }

/* ---- values ---- */

/* A value's own type and layout are well formed. */
static void check_value(Verifier *V, IrOp *op, ValId v, const char *what) {
    IrValue *val = &V->fn->vals[v];
    IrType t = val->type;
    if (t.elem >= ET_COUNT || (t.elem == ET_PTR && (t.pointee >= ET_COUNT || t.pointee == ET_PTR)) || t.rank > IR_MAX_RANK) {
        verr(V, op, "%s has a malformed type", what);
        return;
    }
    /* shared memory: no layout, any slot count */
    bool buffer = val->def && (val->def->opc == OP_LOCAL_ALLOC || val->def->opc == OP_MBAR_ALLOC);
    for (int d = 0; d < t.rank; d++)
        if (t.shape[d] <= 0 || ((t.shape[d] & (t.shape[d] - 1)) && !(buffer && d == 0)))
            verr(V, op, "%s has type %s: tile dimensions must be powers of two", what, tstr(V, t));
    if (val->layout >= 0 && (uint32_t)val->layout >= V->fn->n_layouts) {
        verr(V, op, "%s refers to layout #L%d, but the function has %u layouts", what, val->layout, V->fn->n_layouts);
        return;
    }
    if (t.rank == 0 && val->layout >= 0) verr(V, op, "%s is a scalar but has layout #L%d", what, val->layout);
    if (buffer && val->layout >= 0) verr(V, op, "%s is a shared-memory buffer but has layout #L%d", what, val->layout);
    if (t.rank > 0 && V->layouts && val->layout < 0 && !buffer) verr(V, op, "%s (%s) has no layout, but other tiles do", what, tstr(V, t));
    if (t.rank > 0 && val->layout >= 0) {
        const Layout *l = &V->fn->layouts[val->layout];
        IrType lt = t;
        lt.rank = l->rank;
        for (int d = 0; d < l->rank && d < IR_MAX_RANK; d++) lt.shape[d] = l->shape[d];
        if (!same_shape(t, lt)) verr(V, op, "%s has type %s but its layout #L%d has another shape", what, tstr(V, t), val->layout);
    }
}

static void define(Verifier *V, IrOp *op, ValId v, const char *what) {
    if (v == VAL_NONE || v >= V->fn->n_vals) {
        verr(V, op, "%s is not a value (id %u)", what, v);
        return;
    }
    if (V->state[v] != VS_UNSEEN) verr(V, op, "%s (value id %u) is defined more than once", what, v);
    V->state[v] = VS_VISIBLE;
    check_value(V, op, v, what);
}

/* ---- op types ---- */

static bool is_int_nobool(ElemType e) { return elem_class(e) == EC_SINT || elem_class(e) == EC_UINT; }

/* Elementwise ops: every operand's shape is the result's, and so is its
 * layout (cmp, select, cast, bitcast change the element type only). */
static void check_elementwise(Verifier *V, IrOp *op) {
    ValId r = op->results[0];
    for (uint32_t i = 0; i < op->n_operands; i++) {
        const char *what = operand_name(V, i);
        if (!same_shape(vtype(V, op->operands[i]), vtype(V, r)))
            verr(V, op, "%s has type %s, whose shape differs from the result's %s", what, tstr(V, vtype(V, op->operands[i])),
                 tstr(V, vtype(V, r)));
        else want_layout(V, op, what, op->operands[i], r);
    }
}

/* Which element types an arithmetic op accepts. */
static bool elem_ok(Opcode opc, ElemType e) {
    switch (opc) {
    case OP_ADD: case OP_SUB: case OP_MUL: return elem_is_int(e) || elem_is_float(e);   /* i1: modulo 2 */
    case OP_DIV: case OP_REM: case OP_MIN: case OP_MAX: case OP_NEG: case OP_ABS:
        return is_int_nobool(e) || elem_is_float(e);
    case OP_AND: case OP_OR: case OP_XOR: case OP_NOT: return elem_is_int(e);
    case OP_SHL: case OP_SHR: return is_int_nobool(e);
    case OP_EXP: case OP_EXP2: case OP_LOG: case OP_LOG2: case OP_SQRT: case OP_RSQRT: return elem_is_float(e);
    case OP_MULHI: return is_int_nobool(e) && elem_bits(e) >= 32;
    case OP_COS: case OP_SIN: return e == ET_F32;
    default: return true;
    }
}

/* add, neg, exp, ...: operands and result of one type */
static void check_arith(Verifier *V, IrOp *op) {
    ValId r = op->results[0];
    IrType rt = vtype(V, r);
    if (!elem_ok(op->opc, (ElemType)rt.elem)) verr(V, op, "does not apply to %s", tstr(V, rt));
    for (uint32_t i = 0; i < op->n_operands; i++) want_like(V, op, operand_name(V, i), op->operands[i], r, "the result");
}

/* math FN: operands of one type the function takes (mathfn.def), the
 * result of the type it gives, the operand count its own */
static void check_math(Verifier *V, IrOp *op) {
    if (op->attr.i < 0 || op->attr.i >= MF_COUNT) {
        verr(V, op, "unknown math function %lld", (long long)op->attr.i);
        return;
    }
    MathFn f = (MathFn)op->attr.i;
    if (op->n_operands != (uint32_t)mathfn_info[f].n_args) {
        verr(V, op, "math %s takes %d operands, not %u", mathfn_info[f].name, mathfn_info[f].n_args, op->n_operands);
        return;
    }
    IrType a = vtype(V, op->operands[0]), rt = vtype(V, op->results[0]);
    if (!mathfn_accepts(f, (ElemType)a.elem)) verr(V, op, "math %s does not apply to %s", mathfn_info[f].name, tstr(V, a));
    else if (rt.elem != mathfn_result(f, (ElemType)a.elem))
        verr(V, op, "math %s of %s gives %s elements, not %s", mathfn_info[f].name, tstr(V, a),
             elem_name(mathfn_result(f, (ElemType)a.elem)), tstr(V, rt));
    for (uint32_t i = 1; i < op->n_operands; i++) want_like(V, op, operand_name(V, i), op->operands[i], op->operands[0], "operand 0");
    check_elementwise(V, op);
}

static void check_cmp(Verifier *V, IrOp *op) {
    IrType a = vtype(V, op->operands[0]), rt = vtype(V, op->results[0]);
    if (op->attr.i < CMP_EQ || op->attr.i > CMP_GE) verr(V, op, "unknown predicate %lld", (long long)op->attr.i);
    want_like(V, op, "operand 1", op->operands[1], op->operands[0], "operand 0");
    if (rt.elem != ET_I1) verr(V, op, "result has type %s, expected i1 elements", tstr(V, rt));
    if (!same_shape(a, rt)) verr(V, op, "result has type %s, whose shape differs from the operands' %s", tstr(V, rt), tstr(V, a));
    check_elementwise(V, op);
}

static void check_select(Verifier *V, IrOp *op) {
    ValId r = op->results[0];
    want_type(V, op, "operand 0 (the condition)", op->operands[0], ir_with_elem(vtype(V, r), ir_scalar(ET_I1)));
    want_like(V, op, "operand 1", op->operands[1], r, "the result");
    want_like(V, op, "operand 2", op->operands[2], r, "the result");
    check_elementwise(V, op);
}

static void check_addptr(Verifier *V, IrOp *op) {
    ValId r = op->results[0];
    IrType off = vtype(V, op->operands[1]);
    if (vtype(V, r).elem != ET_PTR) verr(V, op, "result has type %s, expected pointers", tstr(V, vtype(V, r)));
    want_like(V, op, "operand 0", op->operands[0], r, "the result");
    if (!is_int_nobool((ElemType)off.elem)) verr(V, op, "operand 1 (the offset) has type %s, expected integers", tstr(V, off));
    check_elementwise(V, op);
}

static void check_cast(Verifier *V, IrOp *op) {
    IrType a = vtype(V, op->operands[0]), rt = vtype(V, op->results[0]);
    if (op->opc == OP_BITCAST) {
        if (elem_bits((ElemType)a.elem) != elem_bits((ElemType)rt.elem))
            verr(V, op, "bitcast from %s to %s changes the bit width", tstr(V, a), tstr(V, rt));
    } else {
        bool ap = a.elem == ET_PTR, rp = rt.elem == ET_PTR;
        if (ap != rp && elem_bits(ap ? (ElemType)rt.elem : (ElemType)a.elem) != 64)
            verr(V, op, "cast between %s and %s: pointers convert only to and from 64-bit integers", tstr(V, a), tstr(V, rt));
        if (op->attr.i < ROUND_DEFAULT || op->attr.i > ROUND_RTZ) verr(V, op, "unknown rounding mode %lld", (long long)op->attr.i);
    }
    check_elementwise(V, op);
}

static void check_hint(Verifier *V, IrOp *op) {
    ValId r = op->results[0];
    IrType rt = vtype(V, r);
    want_like(V, op, "operand 0", op->operands[0], r, "the result");
    if (!elem_is_int((ElemType)rt.elem) && rt.elem != ET_PTR) verr(V, op, "applies to integers and pointers, not %s", tstr(V, rt));
    int want = rt.rank ? rt.rank : 1;
    if (op->attr.n_ints != want) verr(V, op, "has %d hint values, expected %d (one per dimension)", op->attr.n_ints, want);
    for (int i = 0; i < op->attr.n_ints && i < IR_MAX_RANK; i++)
        if (op->attr.ints[i] <= 0) verr(V, op, "hint value %d is not positive", op->attr.ints[i]);
}

static void check_shape_ops(Verifier *V, IrOp *op) {
    IrType a = vtype(V, op->operands[0]), rt = vtype(V, op->results[0]);
    if (!ir_type_eq(ir_elem_of(a), ir_elem_of(rt))) {
        verr(V, op, "operand has type %s, whose elements differ from the result's %s", tstr(V, a), tstr(V, rt));
        return;
    }
    if (op->opc == OP_SPLAT) {
        if (a.rank != 0 || rt.rank == 0) verr(V, op, "splats a scalar to a tile, not %s to %s", tstr(V, a), tstr(V, rt));
    } else if (op->opc == OP_BROADCAST) {
        bool ok = a.rank == rt.rank && a.rank > 0;
        for (int d = 0; ok && d < a.rank; d++) ok = a.shape[d] == rt.shape[d] || a.shape[d] == 1;
        if (!ok) verr(V, op, "cannot broadcast %s to %s (only dims of size 1 grow)", tstr(V, a), tstr(V, rt));
    } else if (op->opc == OP_EXPAND_DIMS) {
        int64_t axis = op->attr.i;
        bool ok = axis >= 0 && axis <= a.rank && rt.rank == a.rank + 1;
        for (int d = 0, s = 0; ok && d < rt.rank; d++)
            ok = d == axis ? rt.shape[d] == 1 : rt.shape[d] == a.shape[s++];
        if (!ok) verr(V, op, "expand_dims of %s at axis %lld cannot give %s", tstr(V, a), (long long)axis, tstr(V, rt));
    } else if (op->opc == OP_CONVERT_LAYOUT) {
        want_type(V, op, "operand 0", op->operands[0], rt);
    }
}

/* Layouts equal up to the order of their register bits: ptxgen renames
 * registers for the shape ops, so only where the threads are must match. */
static bool layout_same_threads(const Layout *a, const Layout *b) {
    if (a->rank != b->rank || a->n_bits[LL_REG] != b->n_bits[LL_REG]) return false;
    for (int d = 0; d < a->rank; d++)
        if (a->shape[d] != b->shape[d]) return false;
    for (int k = LL_LANE; k < LL_KINDS; k++) {
        if (a->n_bits[k] != b->n_bits[k]) return false;
        for (int i = 0; i < a->n_bits[k]; i++)
            if (memcmp(a->basis[k][i], b->basis[k][i], sizeof(int32_t) * (size_t)a->rank)) return false;
    }
    for (int i = 0; i < a->n_bits[LL_REG]; i++) {
        bool found = false;
        for (int j = 0; j < b->n_bits[LL_REG] && !found; j++)
            found = !memcmp(a->basis[LL_REG][i], b->basis[LL_REG][j], sizeof(int32_t) * (size_t)a->rank);
        if (!found) return false;
    }
    return true;
}

/* A shape op's result r must have the layout derived from its operand's
 * (ir.h: layout_permute, _reshape, _join, _split). */
static void want_derived(Verifier *V, IrOp *op, ValId r, const Layout *derived) {
    const Layout *rl = ir_layout(V->fn, r);
    if (!V->layouts || !rl) return;
    if (!derived) verr(V, op, "the operand's layout does not hold the last dim in one register bit (convert it first)");
    else if (!layout_same_threads(rl, derived))
        verr(V, op, "result has layout #L%d, not the one derived from the operand's layout", V->fn->vals[r].layout);
}

static bool is_perm(const IrAttr *a, int rank) {
    unsigned seen = 0;
    if (a->n_ints != rank) return false;
    for (int i = 0; i < rank; i++) {
        if (a->ints[i] < 0 || a->ints[i] >= rank || (seen >> a->ints[i] & 1)) return false;
        seen |= 1u << a->ints[i];
    }
    return true;
}

/* trans, reshape, join, split: element types kept, shapes as ops.def says */
static void check_reshape_ops(Verifier *V, IrOp *op) {
    ValId x = op->operands[0], r = op->results[0];
    IrType a = vtype(V, x), rt = vtype(V, r);
    const Layout *xl = ir_layout(V->fn, x);
    if (!ir_type_eq(ir_elem_of(a), ir_elem_of(rt))) {
        verr(V, op, "operand has type %s, whose elements differ from the result's %s", tstr(V, a), tstr(V, rt));
        return;
    }
    if (a.rank == 0) {
        verr(V, op, "operand is the scalar %s, expected a tile", tstr(V, a));
        return;
    }
    Layout d;
    if (op->opc == OP_TRANS) {
        IrType want = a;
        if (!is_perm(&op->attr, a.rank)) {
            verr(V, op, "perm is not a permutation of the %d dims", a.rank);
            return;
        }
        for (int i = 0; i < a.rank; i++) want.shape[i] = a.shape[op->attr.ints[i]];
        if (want_type(V, op, "result", r, want) && xl) d = layout_permute(xl, op->attr.ints), want_derived(V, op, r, &d);
    } else if (op->opc == OP_RESHAPE) {
        if (ir_numel(a) != ir_numel(rt))
            verr(V, op, "cannot reshape %s (%lld elements) to %s", tstr(V, a), (long long)ir_numel(a), tstr(V, rt));
        else if (xl && rt.rank) d = layout_reshape(xl, rt.rank, rt.shape), want_derived(V, op, r, &d);
    } else if (op->opc == OP_JOIN) {
        IrType want = a;
        want_like(V, op, "operand 1", op->operands[1], x, "operand 0");
        if (a.rank >= IR_MAX_RANK) {
            verr(V, op, "joins tiles of rank %d (the result would exceed rank %d)", a.rank, IR_MAX_RANK);
            return;
        }
        want.shape[want.rank++] = 2;
        if (want_type(V, op, "result", r, want) && xl) d = layout_join(xl), want_derived(V, op, r, &d);
    } else {
        IrType want = a;
        want.rank--;
        if (a.shape[a.rank - 1] != 2 || a.rank < 2) {
            verr(V, op, "splits %s, whose last dim is not 2 (or which is 1-D)", tstr(V, a));
            return;
        }
        bool ok = xl && layout_split(xl, &d);
        for (uint32_t i = 0; i < 2; i++)
            if (want_type(V, op, i ? "result 1" : "result 0", op->results[i], want) && xl)
                want_derived(V, op, op->results[i], ok ? &d : NULL);
    }
}

/* The type a load gives from pointer type p: pointee elements, p's shape. */
static IrType pointee_type(IrType p) { return ir_with_elem(p, ir_scalar((ElemType)p.pointee)); }

/* A vector access of attr.vec elements reads registers r..r+vec-1 as one
 * run of consecutive elements: the pointer's layout must hold such runs
 * along some dim (code generation trusts this; a wrong vec is wrong PTX). */
static void check_vec(Verifier *V, IrOp *op, ValId p) {
    int32_t vec = op->attr.vec;
    if (vec <= 1) return;
    if (vec & (vec - 1)) {
        verr(V, op, "vec = %d is not a power of two", vec);
        return;
    }
    const Layout *l = ir_layout(V->fn, p);
    if (!l) return;
    for (int d = 0; d < l->rank; d++)
        if (layout_contig_regs(l, d) >= vec) return;
    verr(V, op, "vec = %d, but the pointer's layout has no run of %d consecutive registers", vec, vec);
}

/* i32 scalars from operand `from` on (coordinates) */
static void want_coords(Verifier *V, IrOp *op, uint32_t from) {
    for (uint32_t i = from; i < op->n_operands; i++) {
        char what[48];
        snprintf(what, sizeof what, "operand %u (a coordinate)", (unsigned)i);
        want_type(V, op, what, op->operands[i], ir_scalar(ET_I32));
    }
}

static void check_memory(Verifier *V, IrOp *op) {
    ValId p = op->operands[0];
    IrType pt = vtype(V, p);
    if (pt.elem != ET_PTR) {
        verr(V, op, "operand 0 has type %s, expected pointers", tstr(V, pt));
        return;
    }
    IrType mask = ir_with_elem(pt, ir_scalar(ET_I1));
    if (op->opc == OP_LOAD) {
        ValId r = op->results[0];
        if (want_type(V, op, "result", r, pointee_type(pt))) want_layout(V, op, "operand 0", p, r);
        if (op->n_operands > 1 && want_type(V, op, "operand 1 (the mask)", op->operands[1], mask))
            want_layout(V, op, "operand 1", op->operands[1], r);
        if (op->n_operands > 2) want_like(V, op, "operand 2 (other)", op->operands[2], r, "the result");
        if (op->attr.flags & LOADF_TMA) {   /* the tensor map, one coordinate per dim */
            if (op->n_operands != 4u + vtype(V, r).rank) {
                verr(V, op, "a tma load has ptrs, mask, other, the tensor map and %d coordinates, got %u operands",
                     vtype(V, r).rank, op->n_operands);
                return;
            }
            want_type(V, op, "operand 3 (the tensor map)", op->operands[3], ir_ptr(ET_I8));
            want_coords(V, op, 4);
        }
    } else {
        if (want_type(V, op, "operand 1 (the value)", op->operands[1], pointee_type(pt)))
            want_layout_of(V, op, "operand 1", op->operands[1], p, "the pointer");
        if (op->n_operands > 2 && want_type(V, op, "operand 2 (the mask)", op->operands[2], mask))
            want_layout_of(V, op, "operand 2", op->operands[2], p, "the pointer");
    }
    check_vec(V, op, p);
    if (op->attr.i < CACHE_NONE || op->attr.i > CACHE_WT) verr(V, op, "unknown cache modifier %lld", (long long)op->attr.i);
    if (op->attr.i2 < EVICT_NONE || op->attr.i2 > EVICT_LAST) verr(V, op, "unknown eviction policy %lld", (long long)op->attr.i2);
}

/* ---- shared-memory buffers and async copies ---- */

/* The element types cp.async moves: whole bytes, not pointers or i1. */
static bool buffer_elem_ok(ElemType e) { return e != ET_PTR && e != ET_I1 && elem_bytes(e) <= 8; }

/* local_alloc: S slots of a tile, S x d1 x ...: rank 2 or more */
static void check_local_alloc(Verifier *V, IrOp *op) {
    IrType t = vtype(V, op->results[0]);
    if (t.rank < 2 || !buffer_elem_ok((ElemType)t.elem))
        verr(V, op, "result has type %s, expected slots of a tile (rank 2 or more) of numbers", tstr(V, t));
}

/* operands i, i + 1 are a buffer and an i32 slot: the slot's type */
static bool check_buffer_slot_at(Verifier *V, IrOp *op, uint32_t i, IrType *slot) {
    ValId b = op->operands[i], s = op->operands[i + 1];
    IrOp *def = V->fn->vals[b].def;
    if (!def || def->opc != OP_LOCAL_ALLOC) {
        verr(V, op, "operand %u is not a shared-memory buffer (a local_alloc result)", (unsigned)i);
        return false;
    }
    IrType bt = vtype(V, b);
    char what[48];
    snprintf(what, sizeof what, "operand %u (the slot)", (unsigned)i + 1);
    want_type(V, op, what, s, ir_scalar(ET_I32));
    *slot = bt;
    slot->rank = (uint8_t)(bt.rank - 1);
    for (int d = 0; d < slot->rank; d++) slot->shape[d] = bt.shape[d + 1];
    return true;
}

static bool check_buffer_slot(Verifier *V, IrOp *op, IrType *slot) { return check_buffer_slot_at(V, op, 0, slot); }

/* local_load buf, slot: one slot's tile */
static void check_local_load(Verifier *V, IrOp *op) {
    IrType slot;
    if (check_buffer_slot(V, op, &slot)) want_type(V, op, "result", op->results[0], slot);
}

/* operand i is an mbarrier_alloc's barriers */
static bool check_bars_at(Verifier *V, IrOp *op, uint32_t i) {
    IrOp *def = V->fn->vals[op->operands[i]].def;
    if (def && def->opc == OP_MBAR_ALLOC) return true;
    verr(V, op, "operand %u is not a ring of mbarriers (an mbarrier_alloc result)", (unsigned)i);
    return false;
}

/* mbarrier_alloc: S barriers, tile<S x i64> */
static void check_mbar_alloc(Verifier *V, IrOp *op) {
    IrType t = vtype(V, op->results[0]);
    if (t.rank != 1 || t.elem != ET_I64) verr(V, op, "result has type %s, expected tile<S x i64>", tstr(V, t));
}

/* mbarrier_wait bars, slot, phase */
static void check_mbar_wait(Verifier *V, IrOp *op) {
    check_bars_at(V, op, 0);
    want_type(V, op, "operand 1 (the slot)", op->operands[1], ir_scalar(ET_I32));
    want_type(V, op, "operand 2 (the phase)", op->operands[2], ir_scalar(ET_I32));
}

/* tma_copy buf, slot, bars, tmap, pred, coords (one per dim of the slot),
 * bars with one barrier per slot */
static void check_tma_copy(Verifier *V, IrOp *op) {
    IrType slot;
    if (op->n_operands < 6 || !check_buffer_slot(V, op, &slot) || !check_bars_at(V, op, 2)) return;
    if (vtype(V, op->operands[2]).shape[0] != vtype(V, op->operands[0]).shape[0])
        verr(V, op, "has %d barriers for %d slots", (int)vtype(V, op->operands[2]).shape[0],
             (int)vtype(V, op->operands[0]).shape[0]);
    want_type(V, op, "operand 3 (the tensor map)", op->operands[3], ir_ptr(ET_I8));
    want_type(V, op, "operand 4 (the predicate)", op->operands[4], ir_scalar(ET_I1));
    if (op->n_operands - 5 != slot.rank) verr(V, op, "has %u coordinates for a rank-%d tile", op->n_operands - 5, slot.rank);
    TmapBox box;
    if (!tmap_box((ElemType)slot.elem, slot.rank, slot.shape, &box))
        verr(V, op, "TMA cannot move tiles of this shape and element type (ir/tmap.h)");
    want_coords(V, op, 5);
}

/* tensormap_create dst, base, shape (i32) x rank, strides (i64) x rank-1
 * -> dst's type, with the block (attr.ints) of rank dims */
static void check_tmap_create(Verifier *V, IrOp *op) {
    int rank = op->attr.n_ints;
    if (rank < 1 || op->n_operands != 2u + 2u * (uint32_t)rank - 1u) {
        verr(V, op, "has %u operands for a block of %d dims (dst, base, %d shape dims, %d strides)", op->n_operands,
             rank, rank, rank - 1);
        return;
    }
    want_type(V, op, "operand 0 (the destination)", op->operands[0], ir_ptr(ET_I8));
    want_type(V, op, "the result", op->results[0], ir_ptr(ET_I8));
    IrType bt = vtype(V, op->operands[1]);
    TmapBox box;
    if (bt.rank || bt.elem != ET_PTR) verr(V, op, "operand 1 (the base) has type %s, expected a pointer", tstr(V, bt));
    else if (!tmap_box((ElemType)bt.pointee, rank, op->attr.ints, &box))
        verr(V, op, "TMA cannot move blocks of this shape and element type (ir/tmap.h)");
    for (int d = 0; d < rank; d++) {
        want_type(V, op, "a shape dim", op->operands[2 + d], ir_scalar(ET_I32));
        if (d + 1 < rank) want_type(V, op, "a stride", op->operands[2 + rank + d], ir_scalar(ET_I64));
        if (op->attr.ints[d] < 1) verr(V, op, "block dim %d is %d", d, (int)op->attr.ints[d]);
    }
}

/* async_copy buf, slot, ptrs [, mask]: pointers to the slot's elements,
 * the mask in the pointers' shape and layout */
static void check_async_copy(Verifier *V, IrOp *op) {
    IrType slot;
    if (!check_buffer_slot(V, op, &slot)) return;
    ValId p = op->operands[2];
    IrType want = ir_with_elem(slot, ir_ptr((ElemType)slot.elem));
    if (!want_type(V, op, "operand 2 (the pointers)", p, want)) return;
    if (op->n_operands > 3 && want_type(V, op, "operand 3 (the mask)", op->operands[3], ir_with_elem(slot, ir_scalar(ET_I1))))
        want_layout_of(V, op, "operand 3", op->operands[3], p, "the pointers");
    check_vec(V, op, p);
}

/* The element types PTX's atom takes for each operation (32- and 64-bit
 * integers everywhere; floats for add, for max/min through their bit
 * patterns, for xchg; f16 and bf16 for add only; cas at 16, 32, 64 bits). */
static bool atomic_elem_ok(Opcode opc, int64_t kind, ElemType e) {
    int bits = elem_bits(e);
    if (opc == OP_ATOMIC_CAS) return e != ET_PTR && (bits == 16 || bits == 32 || bits == 64);
    bool wide_int = elem_is_int(e) && (bits == 32 || bits == 64);
    switch (kind) {
    case ATOM_ADD: return wide_int || e == ET_F16 || e == ET_BF16 || e == ET_F32 || e == ET_F64;
    case ATOM_MAX: case ATOM_MIN: case ATOM_XCHG: return wide_int || e == ET_F32 || e == ET_F64;
    default: return wide_int;
    }
}

/* atomic ptr, val [, mask] and atomic_cas ptr, cmp, val: the values and
 * the result are the pointee type in the pointer's shape and layout. */
static void check_atomic(Verifier *V, IrOp *op) {
    ValId p = op->operands[0], r = op->results[0];
    IrType pt = vtype(V, p);
    if (pt.elem != ET_PTR) {
        verr(V, op, "operand 0 has type %s, expected pointers", tstr(V, pt));
        return;
    }
    if (!want_type(V, op, "result", r, pointee_type(pt))) return;
    want_layout(V, op, "operand 0", p, r);
    if (op->opc == OP_ATOMIC) {
        want_like(V, op, "operand 1 (the value)", op->operands[1], r, "the result");
    } else {
        want_like(V, op, "operand 1 (cmp)", op->operands[1], r, "the result");
        want_like(V, op, "operand 2 (the value)", op->operands[2], r, "the result");
    }
    if (op->opc == OP_ATOMIC && op->n_operands > 2 &&
        want_type(V, op, "operand 2 (the mask)", op->operands[2], ir_with_elem(pt, ir_scalar(ET_I1))))
        want_layout(V, op, "operand 2", op->operands[2], r);
    if (op->opc == OP_ATOMIC && (op->attr.i < 0 || op->attr.i >= ATOM_COUNT))
        verr(V, op, "unknown atomic operation %lld", (long long)op->attr.i);
    else if (!atomic_elem_ok(op->opc, op->attr.i, (ElemType)pt.pointee))
        verr(V, op, "%s%s%s of %s is not an atomic the GPU has", ir_opinfo[op->opc].name,
             op->opc == OP_ATOMIC ? " " : "", op->opc == OP_ATOMIC ? atomic_kind_names[op->attr.i] : "",
             elem_name((ElemType)pt.pointee));
    if (op->attr.i2 < 0 || op->attr.i2 >= SEM_COUNT) verr(V, op, "unknown memory ordering %lld", (long long)op->attr.i2);
    if (op->attr.flags >= SCOPE_COUNT) verr(V, op, "unknown memory scope %d", op->attr.flags);
}

static void check_leaf(Verifier *V, IrOp *op) {
    IrType rt = vtype(V, op->results[0]);
    switch (op->opc) {
    case OP_PROGRAM_ID:
    case OP_NUM_PROGRAMS:
        want_type(V, op, "result", op->results[0], ir_scalar(ET_I32));
        if (op->attr.i < 0 || op->attr.i > 2) verr(V, op, "axis %lld is not 0, 1 or 2", (long long)op->attr.i);
        break;
    case OP_SREG:
        if (op->attr.i < 0 || op->attr.i >= SREG_COUNT) {
            verr(V, op, "unknown special register %lld", (long long)op->attr.i);
            break;
        }
        want_type(V, op, "result", op->results[0], ir_scalar(op->attr.i == SREG_SMID ? ET_I32 : ET_I64));
        break;
    case OP_ARANGE: {
        int64_t n = op->attr.i2 - op->attr.i;
        if (rt.rank != 1 || rt.elem != ET_I32 || n <= 0 || rt.shape[0] != n)
            verr(V, op, "arange %lld, %lld gives tile<%lldxi32>, not %s", (long long)op->attr.i, (long long)op->attr.i2,
                 (long long)n, tstr(V, rt));
        break;
    }
    default: break;
    }
}

/* ---- regions ---- */

/* Region b of op ends in terminator `term` whose operands (from index
 * `skip` on) match, in type and layout, the values `want`. */
static void check_terminator(Verifier *V, IrOp *op, IrBlock *b, Opcode term, uint32_t skip, const ValId *want, uint32_t n,
                             const char *region) {
    IrOp *t = b->last;
    if (!t || t->opc != term) {
        verr(V, op, "the %s region does not end in '%s'", region, ir_opinfo[term].name);
        return;
    }
    if (t->n_operands != skip + n) {
        verr(V, op, "the %s region's '%s' passes %u values, expected %u", region, ir_opinfo[term].name, t->n_operands - (skip <= t->n_operands ? skip : 0), n);
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        ValId v = t->operands[skip + i];
        if (v == VAL_NONE || v >= V->fn->n_vals) continue;   /* reported at the terminator */
        const char *what = arena_printf(V->fn->ctx->arena, "the %s region's %s value %u", region, ir_opinfo[term].name, i);
        want_like(V, op, what, v, want[i], arena_printf(V->fn->ctx->arena, "the matching value %u", i));
    }
}

static void check_for(Verifier *V, IrOp *op) {
    IrBlock *body = op->regions[0];
    IrType it = vtype(V, op->operands[0]);
    uint32_t n_carried = op->n_operands - 3;
    if (!is_int_nobool((ElemType)it.elem) || it.rank != 0) verr(V, op, "bounds have type %s, expected a scalar integer", tstr(V, it));
    want_type(V, op, "operand 1 (upper bound)", op->operands[1], it);
    want_type(V, op, "operand 2 (step)", op->operands[2], it);
    if (op->n_results != n_carried) verr(V, op, "has %u results but %u loop-carried values", op->n_results, n_carried);
    if (body->n_args != n_carried + 1) {
        verr(V, op, "body has %u arguments, expected %u (induction variable and carried values)", body->n_args, n_carried + 1);
        return;
    }
    want_type(V, op, "the induction variable", body->args[0], it);
    for (uint32_t k = 0; k < n_carried && k < op->n_results; k++) {
        want_like(V, op, arena_printf(V->fn->ctx->arena, "carried init operand %u", k), op->operands[3 + k], op->results[k],
                  "the result");
        want_like(V, op, arena_printf(V->fn->ctx->arena, "body argument %u", k + 1), body->args[k + 1], op->results[k],
                  "the result");
    }
    if (op->n_results == n_carried) check_terminator(V, op, body, OP_YIELD, 0, op->results, op->n_results, "body");
}

static void check_if(Verifier *V, IrOp *op) {
    want_type(V, op, "operand 0 (the condition)", op->operands[0], ir_scalar(ET_I1));
    for (int r = 0; r < 2; r++) {
        const char *region = r ? "else" : "then";
        if (op->regions[r]->n_args) verr(V, op, "the %s region has arguments", region);
        check_terminator(V, op, op->regions[r], OP_YIELD, 0, op->results, op->n_results, region);
    }
}

static void check_while(Verifier *V, IrOp *op) {
    IrBlock *before = op->regions[0], *after = op->regions[1];
    if (before->n_args != op->n_operands) {
        verr(V, op, "the before region has %u arguments, expected %u (one per init value)", before->n_args, op->n_operands);
        return;
    }
    for (uint32_t k = 0; k < op->n_operands; k++)
        want_like(V, op, arena_printf(V->fn->ctx->arena, "init operand %u", k), op->operands[k], before->args[k],
                  "the before region's argument");
    if (after->n_args != op->n_results) {
        verr(V, op, "the do region has %u arguments, expected %u (one per result)", after->n_args, op->n_results);
        return;
    }
    for (uint32_t k = 0; k < op->n_results; k++)
        want_like(V, op, arena_printf(V->fn->ctx->arena, "result %u", k), op->results[k], after->args[k],
                  "the do region's argument");
    IrOp *c = before->last;
    if (c && c->opc == OP_CONDITION && c->n_operands >= 1 && c->operands[0] != VAL_NONE && c->operands[0] < V->fn->n_vals)
        want_type(V, op, "the condition", c->operands[0], ir_scalar(ET_I1));
    check_terminator(V, op, before, OP_CONDITION, 1, after->args, after->n_args, "before");
    check_terminator(V, op, after, OP_YIELD, 0, before->args, before->n_args, "do");
}

/* reduce: N operands of one shape (and layout), the results that shape
 * without dim `axis` (scalars from 1-D operands) in the operand's layout
 * with that dim dropped; the combine region takes 2N scalars of the
 * operands' element types and yields N of them. scan: the same, but the
 * results have the operands' types and layout, and that layout must split
 * the axis as scan needs (layout_scan_parts). */
static void check_reduce(Verifier *V, IrOp *op) {
    bool scan = op->opc == OP_SCAN;
    Arena *a = V->fn->ctx->arena;
    uint32_t n = op->n_operands;
    IrType t0 = vtype(V, op->operands[0]);
    int64_t axis = op->attr.i;
    if (n == 0 || op->n_results != n) {
        verr(V, op, "has %u operands and %u results, expected as many of each (at least one)", n, op->n_results);
        return;
    }
    if (t0.rank == 0 || axis < 0 || axis >= t0.rank) {
        verr(V, op, "axis %lld is out of range for operand 0 of type %s", (long long)axis, tstr(V, t0));
        return;
    }
    IrType rs = t0;
    if (!scan) rs.rank--;
    for (int d = (int)axis; d < rs.rank && !scan; d++) rs.shape[d] = t0.shape[d + 1];
    if (!scan) rs.shape[rs.rank] = 0;
    for (uint32_t i = 0; i < n; i++) {
        IrType ti = vtype(V, op->operands[i]);
        if (!same_shape(ti, t0)) verr(V, op, "operand %u has type %s, whose shape differs from operand 0's %s", i, tstr(V, ti), tstr(V, t0));
        else if (i) want_layout_of(V, op, operand_name(V, i), op->operands[i], op->operands[0], "operand 0");
        want_type(V, op, arena_printf(a, "result %u", i), op->results[i], ir_with_elem(rs, ir_elem_of(ti)));
    }
    int32_t l0 = V->fn->vals[op->operands[0]].layout;
    if (V->layouts && rs.rank > 0 && l0 >= 0 && (uint32_t)l0 < V->fn->n_layouts) {
        Layout want = scan ? V->fn->layouts[l0] : layout_drop_dim(&V->fn->layouts[l0], (int)axis);
        for (uint32_t i = 0; i < n; i++) {
            int32_t lr = V->fn->vals[op->results[i]].layout;
            if (lr >= 0 && (uint32_t)lr < V->fn->n_layouts && !layout_same(&V->fn->layouts[lr], &want))
                verr(V, op, scan ? "result %u has layout #L%d, expected operand 0's" :
                     "result %u has layout #L%d, expected operand 0's layout with dim %lld dropped", i, lr,
                     (long long)axis);
        }
        int parts[4];
        if (scan && !layout_scan_parts(&V->fn->layouts[l0], (int)axis, t0.shape[axis], parts, NULL, NULL))
            verr(V, op, "operand 0's layout #L%d does not hold the axis as registers, then consecutive lanes, then "
                 "warps, then registers (doc/ir.md, scan)", l0);
    }
    IrBlock *b = op->regions[0];
    if (b->n_args != 2 * n) {
        verr(V, op, "the combine region has %u arguments, expected %u", b->n_args, 2 * n);
        return;
    }
    ValId *scalars = arena_alloc(a, sizeof(ValId) * n);
    for (uint32_t k = 0; k < 2 * n; k++) {
        IrType e = ir_elem_of(vtype(V, op->operands[k % n]));
        want_type(V, op, arena_printf(a, "combine argument %u", k), b->args[k], e);
        if (k < n) scalars[k] = b->args[k];
    }
    check_terminator(V, op, b, OP_YIELD, 0, scalars, n, "combine");
}

/* inline_asm and map_elementwise: operands and results of one shape and
 * layout (the registers of a thread line up); inline_asm's constraints
 * and text fit its types (ir/asm.c); map_elementwise's region takes pack
 * scalars per operand and yields pack per result. */
static void check_elementwise_multi(Verifier *V, IrOp *op) {
    Arena *a = V->fn->ctx->arena;
    if (op->n_results == 0) {
        verr(V, op, "has no results, expected at least one");
        return;
    }
    if (op->attr.i < 1 || op->attr.i > 1 << 16) {
        verr(V, op, "pack = %lld, expected 1 to 65536", (long long)op->attr.i);
        return;
    }
    int pack = (int)op->attr.i;
    ValId ref = op->n_operands ? op->operands[0] : op->results[0];
    IrType t0 = vtype(V, ref);
    for (uint32_t i = 0; i < op->n_operands + op->n_results; i++) {
        bool is_res = i >= op->n_operands;
        ValId v = is_res ? op->results[i - op->n_operands] : op->operands[i];
        const char *what = is_res ? arena_printf(a, "result %u", i - op->n_operands) : operand_name(V, i);
        if (!same_shape(vtype(V, v), t0))
            verr(V, op, "%s has type %s, whose shape differs from %s", what, tstr(V, vtype(V, v)), tstr(V, t0));
        else if (v != ref && t0.rank) want_layout_of(V, op, what, v, ref, op->n_operands ? "operand 0" : "result 0");
    }
    ElemType *in = arena_alloc(a, sizeof(ElemType) * (op->n_operands + 1));
    ElemType *out = arena_alloc(a, sizeof(ElemType) * op->n_results);
    for (uint32_t i = 0; i < op->n_operands; i++) in[i] = (ElemType)vtype(V, op->operands[i]).elem;
    for (uint32_t i = 0; i < op->n_results; i++) out[i] = (ElemType)vtype(V, op->results[i]).elem;
    if (op->opc == OP_INLINE_ASM) {
        Buf why = {.arena = a};
        if (!ir_asm_check(a, op->attr.str2 ? op->attr.str2 : "", op->attr.str ? op->attr.str : "", pack, in,
                          op->n_operands, out, op->n_results, &why))
            verr(V, op, "%s", why.data);
        return;
    }
    IrBlock *b = op->regions[0];
    if (op->n_operands == 0) verr(V, op, "has no operands, expected at least one");
    if (b->n_args != op->n_operands * (uint32_t)pack) {
        verr(V, op, "the apply region has %u arguments, expected %u", b->n_args, op->n_operands * (uint32_t)pack);
        return;
    }
    for (uint32_t k = 0; k < b->n_args; k++)
        want_type(V, op, arena_printf(a, "apply argument %u", k), b->args[k],
                  ir_elem_of(vtype(V, op->operands[k / (uint32_t)pack])));
    IrOp *t = b->last;
    if (!t || t->opc != OP_YIELD) {
        verr(V, op, "the apply region does not end in 'yield'");
        return;
    }
    if (t->n_operands != op->n_results * (uint32_t)pack) {
        verr(V, op, "the apply region's 'yield' passes %u values, expected %u", t->n_operands,
             op->n_results * (uint32_t)pack);
        return;
    }
    for (uint32_t k = 0; k < t->n_operands; k++)
        if (t->operands[k] != VAL_NONE && t->operands[k] < V->fn->n_vals)
            want_type(V, op, arena_printf(a, "the apply region's yield value %u", k), t->operands[k],
                      ir_elem_of(vtype(V, op->results[k / (uint32_t)pack])));
}

/* Where a terminator may stand: yield ends for/if/while-do regions,
 * condition ends while-before regions, ret ends the function body. */
static void check_term_place(Verifier *V, IrOp *op) {
    IrBlock *b = op->parent;
    IrOp *owner = b ? b->parent : NULL;
    if (b && b->last != op) verr(V, op, "is a terminator but is not the last op of its block");
    bool ok;
    switch (op->opc) {
    case OP_YIELD:
        ok = owner && (owner->opc == OP_FOR || owner->opc == OP_IF || owner->opc == OP_REDUCE || owner->opc == OP_SCAN ||
                       owner->opc == OP_MAP_ELEM ||
                       (owner->opc == OP_WHILE && owner->regions[1] == b));
        break;
    case OP_CONDITION: ok = owner && owner->opc == OP_WHILE && owner->regions[0] == b; break;
    default: ok = b == V->fn->body; break;
    }
    if (!ok) verr(V, op, "is not allowed here");
    if (op->opc == OP_CONDITION && op->n_operands < 1) verr(V, op, "needs the condition as operand 0");
}

/* Operand, result and region counts from ops.def; false if the rest of the
 * checks cannot run. */
static bool check_counts(Verifier *V, IrOp *op) {
    const OpInfo *in = &ir_opinfo[op->opc];
    bool ok = true;
    if (in->n_operands >= 0 && op->n_operands != (uint32_t)in->n_operands) {
        verr(V, op, "has %u operands, expected %d", op->n_operands, in->n_operands);
        ok = false;
    }
    if (in->n_results >= 0 && op->n_results != (uint32_t)in->n_results) {
        verr(V, op, "has %u results, expected %d", op->n_results, in->n_results);
        ok = false;
    }
    if (op->n_regions != (uint32_t)in->n_regions) {
        verr(V, op, "has %u regions, expected %d", op->n_regions, in->n_regions);
        ok = false;
    }
    uint32_t lo = 0, hi = UINT32_MAX;
    if (op->opc == OP_LOAD) lo = 1, hi = op->attr.flags & LOADF_TMA ? 4 + IR_MAX_RANK : 3;
    if (op->opc == OP_STORE) lo = 2, hi = 3;
    if (op->opc == OP_ATOMIC) lo = 2, hi = 3;
    if (op->opc == OP_FOR) lo = 3;
    if (op->opc == OP_ASYNC_COPY) lo = 3, hi = 4;
    if (op->opc == OP_REDUCE || op->opc == OP_SCAN || op->opc == OP_MAP_ELEM) lo = 1;
    if (op->n_operands < lo || op->n_operands > hi) {
        verr(V, op, "has %u operands, expected %u to %u", op->n_operands, lo, hi == UINT32_MAX ? op->n_operands : hi);
        ok = false;
    }
    return ok;
}

/* assert's condition is i1 (a scalar or a tile of any layout); print takes
 * any values; a print of pointers or a barrier has nothing more to check. */
static void check_assert(Verifier *V, IrOp *op) {
    IrType t = vtype(V, op->operands[0]);
    if (t.elem != ET_I1) verr(V, op, "the condition has type %s, expected i1 or a tile of i1", tstr(V, t));
}

/* The accumulator type for an operand type: f16 -> f32 or f16, bf16 and
 * fp8 -> f32 (fp8 also f16), f32 -> f32, i8 -> i32. */
static bool dot_types_ok(ElemType a, ElemType b, ElemType acc) {
    bool fp8 = (a == ET_F8E4M3 || a == ET_F8E5M2) && (b == ET_F8E4M3 || b == ET_F8E5M2);
    if (fp8) return acc == ET_F32 || acc == ET_F16;
    if (a != b) return false;
    switch (a) {
    case ET_F16: return acc == ET_F32 || acc == ET_F16;
    case ET_BF16: case ET_F32: return acc == ET_F32;
    case ET_I8: return acc == ET_I32;
    case ET_F64: return acc == ET_F64;
    default: return false;
    }
}

/* With layouts, a and b must have the layouts the accumulator's implies
 * (layout_dot_operands: mma.sync operands, or the FMA path's). Only when
 * the shapes chain and every layout is in range (checked before). */
static void check_dot_operand_layouts(Verifier *V, IrOp *op) {
    IrFunc *fn = V->fn;
    int32_t lc = fn->vals[op->operands[2]].layout;
    if (!V->layouts || lc < 0 || (uint32_t)lc >= fn->n_layouts) return;
    Layout need[2];
    bool mma = layout_dot_operands(fn, op, &fn->layouts[lc], &need[0], &need[1]);
    for (int i = 0; i < 2; i++) {
        int32_t l = fn->vals[op->operands[i]].layout;
        if (l >= 0 && (uint32_t)l < fn->n_layouts && layout_same(&fn->layouts[l], &need[i])) continue;
        Buf b = {.arena = fn->ctx->arena};
        layout_print(&b, &need[i]);
        verr(V, op, "operand %d (%s) has layout #L%d, but an accumulator in #L%d needs %s (the %s operand layout)", i,
             i ? "b" : "a", l, lc, b.data, mma ? "mma.sync" : "FMA path's");
    }
}

/* dot: a [B x] M x K, b [B x] K x N, acc and result [B x] M x N */
static void check_dot(Verifier *V, IrOp *op) {
    ValId a = op->operands[0], b = op->operands[1], c = op->operands[2], r = op->results[0];
    IrType at = vtype(V, a), bt = vtype(V, b), ct = vtype(V, c);
    int before = V->n_errors;
    if (op->attr.i < 0 || op->attr.i >= DOT_PRECISION_COUNT) verr(V, op, "unknown precision %lld", (long long)op->attr.i);
    if (at.rank < 2 || at.rank > 3 || bt.rank != at.rank || ct.rank != at.rank) {
        verr(V, op, "multiplies %s by %s into %s: expected tiles of rank 2 (or 3, batched) alike", tstr(V, at),
             tstr(V, bt), tstr(V, ct));
        return;
    }
    int n = at.rank;
    bool batch_ok = n == 2 || (at.shape[0] == bt.shape[0] && at.shape[0] == ct.shape[0]);
    if (!batch_ok || at.shape[n - 1] != bt.shape[n - 2] || at.shape[n - 2] != ct.shape[n - 2] ||
        bt.shape[n - 1] != ct.shape[n - 1])
        verr(V, op, "shapes do not chain: %s @ %s into %s", tstr(V, at), tstr(V, bt), tstr(V, ct));
    if (!dot_types_ok(at.elem, bt.elem, ct.elem))
        verr(V, op, "cannot multiply %s by %s into %s", tstr(V, at), tstr(V, bt), tstr(V, ct));
    if (want_type(V, op, "result", r, ct)) want_layout_of(V, op, "the accumulator", c, r, "the result");
    if (V->n_errors == before) check_dot_operand_layouts(V, op);
}

/* wgmma [abuf, aslot | a], bbuf, bslot, acc: as dot, with A from a slot
 * or registers and B from a slot; the accumulator in the wgmma layout (and
 * A in registers in the operand layout derived from it) */
static void check_gather(Verifier *V, IrOp *op) {
    IrType s = vtype(V, op->operands[0]), x = vtype(V, op->operands[1]), r = vtype(V, op->results[0]);
    bool ok = s.rank > 0 && s.rank == x.rank && op->attr.i >= 0 && op->attr.i < s.rank && is_int_nobool((ElemType)x.elem);
    for (int d = 0; ok && d < s.rank; d++) ok = d == op->attr.i || s.shape[d] == x.shape[d];
    if (!ok) verr(V, op, "src %s and index %s must have one rank, integer indices and equal sizes but along axis %lld",
                  tstr(V, s), tstr(V, x), (long long)op->attr.i);
    if (!ir_type_eq(r, ir_with_elem(x, ir_elem_of(s)))) verr(V, op, "result has type %s, expected index's shape of src's type", tstr(V, r));
}

static void check_histogram(Verifier *V, IrOp *op) {
    IrType x = vtype(V, op->operands[0]), r = vtype(V, op->results[0]);
    if (x.rank != 1 || (x.elem != ET_I32 && x.elem != ET_U32 && x.elem != ET_I64 && x.elem != ET_U64))
        verr(V, op, "operand 0 has type %s, expected a 1-D tile of 32- or 64-bit integers", tstr(V, x));
    if (op->n_operands > 2) verr(V, op, "has %u operands, expected 1 or 2 (x, mask)", op->n_operands);
    if (op->n_operands == 2) want_type(V, op, "operand 1 (the mask)", op->operands[1], ir_with_elem(x, ir_scalar(ET_I1)));
    if (r.rank != 1 || r.elem != ET_I32 || r.shape[0] != op->attr.i)
        verr(V, op, "result has type %s, expected tile<%lldxi32>", tstr(V, r), (long long)op->attr.i);
}

static void check_wgmma(Verifier *V, IrOp *op) {
    IrFunc *fn = V->fn;
    uint32_t n = ir_wgmma_n_main(op);
    if (n < 4 || n > 5) {
        verr(V, op, "has %u operands before use_acc, expected 4 or 5", n);
        return;
    }
    bool ss = n == 5;
    ValId c = op->operands[n - 1], r = op->results[0];
    IrType at, bt, ct = vtype(V, c);
    if (op->attr.flags & WGMMA_USE_ACC) want_type(V, op, "use_acc", op->operands[n], ir_scalar(ET_I1));
    if (ss ? !check_buffer_slot_at(V, op, 0, &at) : false) return;
    if (!ss) at = vtype(V, op->operands[0]);
    if (!check_buffer_slot_at(V, op, ss ? 2 : 1, &bt)) return;
    if ((op->attr.flags & WGMMA_A_T) && !ss) verr(V, op, "a_t with A in registers");
    for (int i = 0; i < 2; i++) {   /* a slot holding its operand transposed */
        IrType *t = i ? &bt : &at;
        if ((op->attr.flags & (i ? WGMMA_B_T : WGMMA_A_T)) && t->rank == 2) {
            int32_t d0 = t->shape[0];
            t->shape[0] = t->shape[1];
            t->shape[1] = d0;
        }
    }
    if (op->attr.i < 0 || op->attr.i >= DOT_PRECISION_COUNT) verr(V, op, "unknown precision %lld", (long long)op->attr.i);
    if (at.rank != 2 || bt.rank != 2 || ct.rank != 2 || at.shape[1] != bt.shape[0] || at.shape[0] != ct.shape[0] ||
        bt.shape[1] != ct.shape[1]) {
        verr(V, op, "shapes do not chain: %s @ %s into %s", tstr(V, at), tstr(V, bt), tstr(V, ct));
        return;
    }
    int bits = layout_dot_mma_bits((ElemType)at.elem, (ElemType)bt.elem, (ElemType)ct.elem, (int)op->attr.i, true);
    if (!dot_types_ok(at.elem, bt.elem, ct.elem) || !bits || bits == 32 || ct.elem == ET_F16) {
        verr(V, op, "wgmma does not multiply %s by %s into %s (f16, bf16, fp8, i8 into f32 or i32)", tstr(V, at),
             tstr(V, bt), tstr(V, ct));
        return;
    }
    if (at.shape[1] % layout_mma_kstep(bits) || fn->ctx->target.num_warps % 4) {
        verr(V, op, "K = %d is not a multiple of wgmma's k-step %d, or num_warps %d not of whole warpgroups",
             (int)at.shape[1], layout_mma_kstep(bits), fn->ctx->target.num_warps);
        return;
    }
    if (!want_type(V, op, "result", r, ct)) return;
    want_layout_of(V, op, "the accumulator", c, r, "the result");
    int32_t lc = fn->vals[c].layout;
    if (!V->layouts || lc < 0 || (uint32_t)lc >= fn->n_layouts) return;
    Layout want = layout_wgmma_acc(ct.shape, fn->ctx->target.num_warps);
    if (!layout_same(&fn->layouts[lc], &want)) verr(V, op, "the accumulator's layout #L%d is not wgmma's", lc);
    int32_t la = ss ? -1 : fn->vals[op->operands[0]].layout;
    Layout need = layout_mma_operand(&want, 0, elem_bits((ElemType)at.elem), at.shape[1]);
    if (!ss && (la < 0 || (uint32_t)la >= fn->n_layouts || !layout_same(&fn->layouts[la], &need)))
        verr(V, op, "operand 0 (a, in registers) has layout #L%d, not the wgmma A fragments'", la);
}

/* SASS's DEPBAR counts up to 63 pending groups */
static void check_pending(Verifier *V, IrOp *op) {
    if (op->attr.i < 0 || op->attr.i > 63) verr(V, op, "pending = %lld, expected 0 to 63", (long long)op->attr.i);
}

static void check_op_types(Verifier *V, IrOp *op) {
    unsigned flags = ir_opinfo[op->opc].flags;
    switch (op->opc) {
    case OP_CONST: break;
    case OP_PROGRAM_ID: case OP_NUM_PROGRAMS: case OP_SREG: case OP_ARANGE: check_leaf(V, op); break;
    case OP_SPLAT: case OP_BROADCAST: case OP_EXPAND_DIMS: case OP_CONVERT_LAYOUT: check_shape_ops(V, op); break;
    case OP_CMP: check_cmp(V, op); break;
    case OP_MATH: check_math(V, op); break;
    case OP_SELECT: check_select(V, op); break;
    case OP_ADDPTR: check_addptr(V, op); break;
    case OP_CAST: case OP_BITCAST: check_cast(V, op); break;
    case OP_MULTIPLE_OF: case OP_MAX_CONTIGUOUS: check_hint(V, op); break;
    case OP_LOAD: case OP_STORE: check_memory(V, op); break;
    case OP_ATOMIC: case OP_ATOMIC_CAS: check_atomic(V, op); break;
    case OP_FOR: check_for(V, op); break;
    case OP_IF: check_if(V, op); break;
    case OP_WHILE: check_while(V, op); break;
    case OP_REDUCE:
    case OP_SCAN: check_reduce(V, op); break;
    case OP_YIELD: case OP_CONDITION: case OP_RET: break;
    case OP_TRANS: case OP_RESHAPE: case OP_JOIN: case OP_SPLIT: check_reshape_ops(V, op); break;
    case OP_ASSERT:
    case OP_ASSUME: check_assert(V, op); break;
    case OP_DOT: check_dot(V, op); break;
    case OP_PRINT: case OP_BARRIER: break;
    case OP_LOCAL_ALLOC: check_local_alloc(V, op); break;
    case OP_LOCAL_LOAD: check_local_load(V, op); break;
    case OP_ASYNC_COPY: check_async_copy(V, op); break;
    case OP_ASYNC_COMMIT: case OP_FENCE_ASYNC: break;
    case OP_WGMMA: check_wgmma(V, op); break;
    case OP_HISTOGRAM: check_histogram(V, op); break;
    case OP_GATHER: check_gather(V, op); break;
    case OP_WGMMA_WAIT:
        if (want_type(V, op, "result", op->results[0], vtype(V, op->operands[0])))
            want_layout_of(V, op, "the result", op->results[0], op->operands[0], "the operand");
        check_pending(V, op);
        break;
    case OP_ASYNC_WAIT: check_pending(V, op); break;
    case OP_MBAR_ALLOC: check_mbar_alloc(V, op); break;
    case OP_MBAR_INIT: case OP_MBAR_INVAL: check_bars_at(V, op, 0); break;
    case OP_MBAR_WAIT: check_mbar_wait(V, op); break;
    case OP_TMA_COPY: check_tma_copy(V, op); break;
    case OP_TMAP_CREATE: check_tmap_create(V, op); break;
    case OP_INLINE_ASM:
    case OP_MAP_ELEM: check_elementwise_multi(V, op); break;
    default:
        if (flags & F_ELEMWISE) check_arith(V, op);
        break;
    }
    if (flags & F_TERM) check_term_place(V, op);
}

static void verify_block(Verifier *V, IrBlock *b);

static void verify_op(Verifier *V, IrOp *op, IrBlock *b) {
    if ((unsigned)op->opc >= OP_COUNT) {
        verr(V, NULL, "an op has the unknown opcode %d", (int)op->opc);
        return;
    }
    if (op->parent != b) verr(V, op, "its parent pointer does not name the block it is in");
    bool operands_ok = true;
    for (uint32_t i = 0; i < op->n_operands; i++) {
        ValId v = op->operands[i];
        if (v == VAL_NONE || v >= V->fn->n_vals) {
            verr(V, op, "operand %u is not a value (id %u)", i, v);
            operands_ok = false;
        } else if (V->state[v] != VS_VISIBLE) {
            verr(V, op, "operand %u (value id %u) is %s", i, v,
                 V->state[v] == VS_GONE ? "used outside the region that defines it" : "used before it is defined");
            operands_ok = false;
        }
    }
    for (uint32_t i = 0; i < op->n_results; i++)
        if (op->results[i] != VAL_NONE && op->results[i] < V->fn->n_vals && V->fn->vals[op->results[i]].def != op)
            verr(V, op, "result %u (value id %u) names another defining op", i, op->results[i]);
    for (uint32_t r = 0; r < op->n_regions; r++) {
        if (op->regions[r]->parent != op) verr(V, op, "region %u's parent pointer does not name this op", r);
        verify_block(V, op->regions[r]);
    }
    for (uint32_t i = 0; i < op->n_results; i++) define(V, op, op->results[i], arena_printf(V->fn->ctx->arena, "result %u", i));
    bool results_ok = true;
    for (uint32_t i = 0; i < op->n_results; i++)
        if (op->results[i] == VAL_NONE || op->results[i] >= V->fn->n_vals) results_ok = false;
    if (check_counts(V, op) && operands_ok && results_ok) check_op_types(V, op);
}

/* Values of a block are visible from their definition to the block's end. */
static void verify_block(Verifier *V, IrBlock *b) {
    for (uint32_t i = 0; i < b->n_args; i++) {
        ValId a = b->args[i];
        define(V, b->parent, a, arena_printf(V->fn->ctx->arena, "block argument %u", i));
        if (a != VAL_NONE && a < V->fn->n_vals && (V->fn->vals[a].def || V->fn->vals[a].block != b))
            verr(V, b->parent, "block argument %u (value id %u) does not point back to its block", i, a);
    }
    for (IrOp *op = b->first; op; op = op->next) verify_op(V, op, b);
    for (uint32_t i = 0; i < b->n_args; i++)
        if (b->args[i] < V->fn->n_vals) V->state[b->args[i]] = VS_GONE;
    for (IrOp *op = b->first; op; op = op->next)
        for (uint32_t i = 0; i < op->n_results; i++)
            if (op->results[i] < V->fn->n_vals) V->state[op->results[i]] = VS_GONE;
}

/* ---- shared memory (pass smem's records, ir.h IrSmem) ---- */

/* the bytes op needs at its offset, or -1 for none */
static int64_t smem_need(Verifier *V, IrOp *op) {
    IrFunc *fn = V->fn;
    const IrSmem *s = &op->attr.smem;
    int64_t bytes = 0;
    switch (op->opc) {
    case OP_LOCAL_ALLOC:
    case OP_MBAR_ALLOC: return (int64_t)s->slot * fn->vals[op->results[0]].type.shape[0];
    case OP_REDUCE:
    case OP_SCAN:
        for (uint32_t k = 0; k < op->n_operands; k++)
            bytes += op->opc == OP_SCAN ? smem_scan_bytes(fn, op, k) : smem_reduce_bytes(fn, op, k);
        return bytes ? bytes : -1;
    case OP_CONVERT_LAYOUT: {
        IrType rt = fn->vals[op->results[0]].type;
        SmemPlan p;
        if (!smem_convert_plan(fn, op, &p)) return -1;
        if (!s->shaped) return smem_shape_bytes(&rt, &p.shape);
        if (s->lb != p.shape.lb) verr(V, op, "its shared-memory rows have %d elements, the tile's %d", 1 << s->lb, 1 << p.shape.lb);
        SmemShape rec = smem_recorded_shape(s, p.shape.bytes);
        return smem_shape_bytes(&rt, &rec);
    }
    default:
        if (!V->uses) V->uses = ir_count_uses(fn);
        bytes = smem_scratch_bytes(fn, op, V->uses, NULL);
        return bytes ? bytes : -1;
    }
}

static void check_smem_op(Verifier *V, IrOp *op) {
    const IrSmem *s = &op->attr.smem;
    bool buffer = op->opc == OP_LOCAL_ALLOC || op->opc == OP_MBAR_ALLOC;
    bool shapes = op->opc == OP_LOCAL_ALLOC || op->opc == OP_CONVERT_LAYOUT;
    if (s->sync && op->opc != OP_REDUCE && op->opc != OP_SCAN) verr(V, op, "only a reduce or a scan waits first (sync)");
    if (s->slot && !buffer) verr(V, op, "only a buffer has slots");
    if (s->shaped && !shapes) verr(V, op, "only a buffer or a convert_layout has a shared-memory row shape");
    if (buffer && !s->slot && s->set) verr(V, op, "a buffer needs its slot size (slot = bytes)");
    if (s->shaped) {
        int32_t row_bytes = elem_bytes((ElemType)V->fn->vals[op->results[0]].type.elem) << s->lb;
        if (s->mp && (s->pad || (16 << s->mp) > row_bytes))
            verr(V, op, "a swizzle of %d phases needs unpadded rows of at least %d bytes (these: %d, pad %d)", 1 << s->mp,
                 16 << s->mp, (int)row_bytes, (int)s->pad);
    }
    int64_t need = smem_need(V, op);
    if (!V->fn->smem_planned) {
        if (s->set) verr(V, op, "has a shared-memory place but the function has no 'shared' size");
        return;
    }
    if (need >= 0 && !s->set) verr(V, op, "needs %lld bytes of shared memory but has no place (smem = offset)", (long long)need);
    if (need < 0 && s->set) verr(V, op, "uses no shared memory but has a place (smem = %d)", (int)s->off);
    if (!s->set || need < 0) return;
    int32_t align = op->opc == OP_MBAR_ALLOC ? 8 : op->opc == OP_REDUCE || op->opc == OP_SCAN ? 16 : 128;
    if (s->off % align) verr(V, op, "its shared memory at %d is not %d-aligned", (int)s->off, (int)align);
    if (s->off + need > V->fn->shared_bytes)
        verr(V, op, "its %lld bytes of shared memory at %d end past the kernel's %d", (long long)need, (int)s->off,
             (int)V->fn->shared_bytes);
}

static void check_smem(Verifier *V, IrBlock *b) {
    for (IrOp *op = b->first; op; op = op->next) {
        check_smem_op(V, op);
        for (uint32_t r = 0; r < op->n_regions; r++) check_smem(V, op->regions[r]);
    }
}

/* Does any value in the function carry a layout? */
static bool any_layout(IrFunc *fn, IrBlock *b) {
    for (uint32_t i = 0; i < b->n_args; i++)
        if (b->args[i] < fn->n_vals && fn->vals[b->args[i]].layout >= 0) return true;
    for (IrOp *op = b->first; op; op = op->next) {
        for (uint32_t i = 0; i < op->n_results; i++)
            if (op->results[i] < fn->n_vals && fn->vals[op->results[i]].layout >= 0) return true;
        for (uint32_t r = 0; r < op->n_regions; r++)
            if (any_layout(fn, op->regions[r])) return true;
    }
    return false;
}

static void check_params(Verifier *V) {
    IrFunc *fn = V->fn;
    if (fn->n_params != fn->body->n_args) verr(V, NULL, "%u parameters but the body has %u arguments", fn->n_params, fn->body->n_args);
    for (uint32_t i = 0; i < fn->n_params && i < fn->body->n_args; i++) {
        if (fn->params[i].val != fn->body->args[i]) verr(V, NULL, "parameter %u is not body argument %u", i, i);
        if (fn->params[i].divisibility < 1) verr(V, NULL, "parameter %u has divisibility %d", i, fn->params[i].divisibility);
    }
}

static int run_verifier(IrFunc *fn, Buf *why, Buf *first_msg, SrcLoc *first_loc) {
    Verifier V = {0};
    V.fn = fn;
    V.why = why;
    V.first_msg = first_msg;
    V.state = arena_alloc(fn->ctx->arena, fn->n_vals ? fn->n_vals : 1);
    V.layouts = any_layout(fn, fn->body);
    check_params(&V);
    if (fn->body->parent) verr(&V, NULL, "the body has a parent op");
    verify_block(&V, fn->body);
    if (!V.n_errors) check_smem(&V, fn->body);   /* sizes come from valid types and layouts */
    if (V.n_errors > MAX_MESSAGES && why) buf_printf(why, "verify: ... and %d more problems\n", V.n_errors - MAX_MESSAGES);
    if (first_loc) *first_loc = V.first_loc;
    return V.n_errors;
}

bool ir_verify(IrFunc *fn, Buf *why) { return run_verifier(fn, why, NULL, NULL) == 0; }

void ir_verify_or_fail(IrFunc *fn, const char *lead) {
    Buf why = {.arena = fn->ctx->arena};
    if (ir_verify(fn, &why)) return;
    if (why.len && why.data[why.len - 1] == '\n') why.data[--why.len] = 0;
    diag_fatal(fn->ctx, NULL, "%s:\n%s", lead, buf_str(&why));
}

bool ir_verify_first(IrFunc *fn, SrcLoc *loc, Buf *msg) {
    SrcLoc none = {0};
    *loc = none;
    return run_verifier(fn, NULL, msg, loc) == 0;
}
