/* pass_fold: constant folding and algebraic identities.
 *
 * A const op whose result is a tile means every element equals it, so an
 * elementwise op over constants folds to one constant of the result type.
 * Integer arithmetic follows C at the element width: wrap-around, signed or
 * unsigned, truncating division; a division by zero (or MIN / -1) is left
 * for the hardware. Floats compute in double (exact for + - * of narrower
 * types, and correctly rounded once more) and round to the element type;
 * f16/bf16/fp8 with round-to-nearest-even by elem_round (ir.c), the same
 * rounding ptxgen gives constants.
 *
 * A folded op is turned into a const in place, so its result keeps its
 * ValId, type, layout and source location. multiple_of/max_contiguous are
 * kept: axis analysis reads them.
 *
 * An if result that both arms yield alike (one value from outside the if,
 * or equal constants), or an i1 that is just the condition or its negation
 * (then true / else false), is replaced by that value; dce then drops the
 * result.
 *
 * An integer add of a dot with a zero accumulator becomes that dot
 * accumulating into the other operand (fold_dot_add; not for floats). */
#include "opt.h"
#include "../ir/mathfn.h"
#include "../interp/interp.h"

#include <math.h>
#include <string.h>

/* ---- element values ---- */

static int64_t int_wrap(ElemType e, uint64_t v) {
    int bits = elem_bits(e);
    if (bits >= 64) return (int64_t)v;
    uint64_t mask = (UINT64_C(1) << bits) - 1, u = v & mask;
    if (elem_is_signed(e) && (u >> (bits - 1)) & 1) u |= ~mask;
    return (int64_t)u;
}

static int64_t int_min(ElemType e) { return elem_is_signed(e) ? int_wrap(e, UINT64_C(1) << (elem_bits(e) - 1)) : 0; }

/* A constant operand, read at its type: ints normalized, floats rounded. */
typedef struct Konst {
    int64_t i;
    double f;
} Konst;

static bool konst(IrFunc *fn, ValId v, Konst *k) {
    IrOp *d = fn->vals[v].def;
    if (!d || d->opc != OP_CONST) return false;
    ElemType e = (ElemType)fn->vals[v].type.elem;
    if (elem_is_float(e)) {
        k->f = elem_round(e, d->attr.f);
        k->i = 0;
    } else {
        k->i = elem_bits(e) >= 64 ? d->attr.i : int_wrap(e, (uint64_t)d->attr.i);
        k->f = (double)k->i;
    }
    return true;
}

/* ---- folding one op ---- */

static int cmp_result(CmpPred p, int c) {   /* c: <0, 0, >0 */
    switch (p) {
    case CMP_EQ: return c == 0;
    case CMP_NE: return c != 0;
    case CMP_LT: return c < 0;
    case CMP_LE: return c <= 0;
    case CMP_GT: return c > 0;
    case CMP_GE: return c >= 0;
    }
    return 0;
}

static int int_compare(ElemType e, int64_t a, int64_t b) {
    if (elem_is_signed(e)) return (a > b) - (a < b);
    return ((uint64_t)a > (uint64_t)b) - ((uint64_t)a < (uint64_t)b);
}

/* Binary integer op at type e; false when C leaves it undefined (division
 * by zero, MIN / -1, shifts by the width or more). */
static bool fold_int2(Opcode opc, ElemType e, int64_t a, int64_t b, int64_t *out) {
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
    bool sgn = elem_is_signed(e);
    int bits = elem_bits(e);
    uint64_t r;
    switch (opc) {
    case OP_ADD: r = ua + ub; break;
    case OP_SUB: r = ua - ub; break;
    case OP_MUL: r = ua * ub; break;
    case OP_DIV:
    case OP_REM:
        if (b == 0 || (sgn && a == int_min(e) && b == -1)) return false;
        if (sgn) r = (uint64_t)(opc == OP_DIV ? a / b : a % b);
        else r = opc == OP_DIV ? ua / ub : ua % ub;
        break;
    case OP_AND: r = ua & ub; break;
    case OP_OR: r = ua | ub; break;
    case OP_XOR: r = ua ^ ub; break;
    case OP_MULHI:   /* unsigned, whatever the signedness of e */
        if (bits == 32) r = ((ua & 0xFFFFFFFF) * (ub & 0xFFFFFFFF)) >> 32;
        else r = (uint64_t)(((unsigned __int128)ua * ub) >> 64);
        break;
    case OP_SHL:
    case OP_SHR:
        if ((sgn && b < 0) || ub >= (uint64_t)bits) return false;
        if (opc == OP_SHL) r = ua << ub;
        else if (sgn && a < 0) r = ~(~ua >> ub);   /* arithmetic, without relying on >> of negatives */
        else r = ua >> ub;
        break;
    case OP_MIN: r = int_compare(e, a, b) <= 0 ? ua : ub; break;
    case OP_MAX: r = int_compare(e, a, b) >= 0 ? ua : ub; break;
    default: return false;
    }
    *out = int_wrap(e, r);
    return true;
}

/* minnum/maxnum (NaN loses) or, with propagate, NaN wins; -0 < +0. */
static double float_minmax(bool is_max, bool propagate, double a, double b) {
    if (isnan(a) || isnan(b)) {
        if (propagate || (isnan(a) && isnan(b))) return NAN;
        return isnan(a) ? b : a;
    }
    if (a == b) return (signbit(a) != is_max) ? a : b;
    return (a < b) != is_max ? a : b;
}

/* f16 and bf16 divide, take remainders and run math functions in f32 on
 * the GPU, then round to their own type: two roundings, as folded here. */
static double through_f32(ElemType e, double r) {
    return e == ET_F16 || e == ET_BF16 ? elem_round(ET_F32, r) : r;
}

static bool fold_float2(Opcode opc, ElemType e, bool propagate, double a, double b, double *out) {
    double r;
    switch (opc) {
    case OP_ADD: r = a + b; break;
    case OP_SUB: r = a - b; break;
    case OP_MUL: r = a * b; break;
    case OP_DIV: r = a / b; break;
    case OP_REM: r = elem_frem(a, b); break;
    case OP_MIN: r = float_minmax(false, propagate, a, b); break;
    case OP_MAX: r = float_minmax(true, propagate, a, b); break;
    default: return false;
    }
    if (isnan(r)) return false;   /* the GPU's NaN is 0x7FFFFFFF, not the constant's canonical one */
    if (opc == OP_DIV || opc == OP_REM) r = through_f32(e, r);
    *out = elem_round(e, r);
    return true;
}

static bool fold_unary(Opcode opc, ElemType e, Konst a, Konst *out) {
    if (!elem_is_float(e)) {
        uint64_t u = (uint64_t)a.i;
        switch (opc) {
        case OP_NEG: out->i = int_wrap(e, 0 - u); break;
        case OP_NOT: out->i = int_wrap(e, ~u); break;
        case OP_ABS: out->i = int_wrap(e, elem_is_signed(e) && a.i < 0 ? 0 - u : u); break;
        default: return false;
        }
        out->f = (double)out->i;
        return true;
    }
    double x = a.f, r;
    MathProg prog;
    if ((opc == OP_EXP || opc == OP_EXP2 || opc == OP_LOG || opc == OP_LOG2) && interp_math_prog(&prog, opc, e)) {
        /* the GPU's program (ir/mathfn_op.c), as the interpreter runs it */
        r = elem_float_from_bits(e, interp_elem_math(&prog, e, elem_float_bits(e, x)));
        if (isnan(r)) return false;
        out->f = r;
        out->i = 0;
        return true;
    }
    switch (opc) {
    case OP_NEG: r = -x; break;
    case OP_ABS: r = fabs(x); break;
    /* below f64, exp is ex2(x * log2(e)) with the product rounded to f32, as the GPU and interpreter do it */
    case OP_EXP: r = exp2((double)((float)x * 0x1.715476p+0f)); break;
    case OP_EXP2: r = exp2(x); break;
    /* below f64, sqrt as the GPU computes it */
    case OP_SQRT: r = e == ET_F64 ? sqrt(x) : interp_sqrt_f32((float)x); break;
    case OP_RSQRT: r = 1.0 / sqrt(x); break;
    default: return false;
    }
    if (isnan(r)) return false;
    out->f = elem_round(e, through_f32(e, r));
    out->i = 0;
    return true;
}

/* Value conversion of constant a from type from to type to. */
static bool fold_cast(ElemType from, ElemType to, int rounding, Konst a, Konst *out) {
    if (from == ET_PTR || to == ET_PTR) return false;
    bool from_int = !elem_is_float(from), to_int = !elem_is_float(to);
    if (to == ET_I1) {   /* to bool: x != 0 */
        out->i = from_int ? a.i != 0 : a.f != 0;
        out->f = (double)out->i;
        return true;
    }
    if (from_int && to_int) {
        out->i = int_wrap(to, (uint64_t)a.i);
        out->f = (double)out->i;
        return true;
    }
    if (from_int) {
        bool uns = !elem_is_signed(from);
        uint64_t mag = uns || a.i >= 0 ? (uint64_t)a.i : 0 - (uint64_t)a.i;
        if (to == ET_F32) out->f = uns ? (double)(float)(uint64_t)a.i : (double)(float)a.i;
        else if (to == ET_F64) out->f = uns ? (double)(uint64_t)a.i : (double)a.i;
        else if (mag <= (UINT64_C(1) << 53)) out->f = elem_round(to, uns ? (double)(uint64_t)a.i : (double)a.i);
        else return false;   /* two roundings could differ from one */
        out->i = 0;
        return true;
    }
    if (to_int) {
        if (isnan(a.f)) return false;
        double t = trunc(a.f);
        bool sgn = elem_is_signed(to);
        int bits = elem_bits(to);
        double lo = sgn ? -ldexp(1, bits - 1) : 0, hi_excl = sgn ? ldexp(1, bits - 1) : ldexp(1, bits);
        if (t < lo || t >= hi_excl) return false;   /* out of range: left to the hardware's saturation */
        out->i = sgn ? (int64_t)t : int_wrap(to, (uint64_t)t);
        out->f = (double)out->i;
        return true;
    }
    double r = elem_round(to, a.f);
    if (rounding == ROUND_RTZ && r != a.f && !isnan(a.f)) return false;   /* only the exact case */
    out->f = r;
    out->i = 0;
    return true;
}

/* Reinterpretation. NaNs are not folded: a double cannot keep their payload. */
static bool fold_bitcast(ElemType from, ElemType to, Konst a, Konst *out) {
    if (from == ET_PTR || to == ET_PTR) return false;
    uint64_t bits;
    if (elem_is_float(from)) {
        if (isnan(a.f)) return false;
        bits = elem_float_bits(from, a.f);
    } else {
        int w = elem_bits(from);
        bits = w >= 64 ? (uint64_t)a.i : (uint64_t)a.i & ((UINT64_C(1) << w) - 1);
    }
    if (elem_is_float(to)) {
        out->f = elem_float_from_bits(to, bits);
        if (isnan(out->f)) return false;
        out->i = 0;
    } else {
        out->i = int_wrap(to, bits);
        out->f = (double)out->i;
    }
    return true;
}

/* The op becomes `const` with value k (of its result type). */
static void make_const(IrOp *op, Konst k, bool is_float) {
    op->opc = OP_CONST;
    op->n_operands = 0;
    memset(&op->attr, 0, sizeof op->attr);
    if (is_float) op->attr.f = k.f;
    else {
        op->attr.i = k.i;
        op->attr.f = (double)k.i;
    }
}

/* math FN of constants: the function's own program (ir/mathfn.c), so the
 * folded value is the bits the GPU computes; a NaN is left to it */
static bool fold_math(IrOp *op, ElemType oe, ElemType re, const Konst *k, Konst *out) {
    uint64_t args[3] = {0};
    for (uint32_t i = 0; i < op->n_operands && i < 3; i++) {
        if (oe == ET_F32) {
            float f = (float)k[i].f;
            uint32_t w;
            memcpy(&w, &f, 4);
            args[i] = w;
        } else if (oe == ET_F64) {
            memcpy(&args[i], &k[i].f, 8);
        } else {
            args[i] = (uint64_t)k[i].i;
        }
    }
    MathProg p;
    mathfn_build(&p, (MathFn)op->attr.i, oe);
    uint64_t bits = mathfn_run(&p, args);
    if (re == ET_F32 || re == ET_F64) {
        double v = elem_float_from_bits(re, bits);
        if (isnan(v)) return false;
        out->f = v;
        out->i = 0;
        return true;
    }
    out->i = int_wrap(re, bits);
    out->f = (double)out->i;
    return true;
}

/* All operands constant: compute the result. */
static bool fold_constants(IrFunc *fn, IrOp *op) {
    Konst k[3], r = {0, 0};
    for (uint32_t i = 0; i < op->n_operands; i++)
        if (!konst(fn, op->operands[i], &k[i])) return false;
    ElemType re = (ElemType)ir_type(fn, op->results[0]).elem;
    ElemType oe = op->n_operands ? (ElemType)ir_type(fn, op->operands[0]).elem : re;
    bool ok;
    switch (op->opc) {
    case OP_SPLAT: case OP_BROADCAST: case OP_EXPAND_DIMS: case OP_CONVERT_LAYOUT: case OP_TRANS: case OP_RESHAPE:
        r = k[0];
        ok = true;
        break;
    case OP_CMP: {
        int c;
        if (elem_is_float(oe)) {
            if (isnan(k[0].f) || isnan(k[1].f)) c = 2;   /* unordered: only ne holds */
            else c = (k[0].f > k[1].f) - (k[0].f < k[1].f);
        } else {
            c = int_compare(oe == ET_PTR ? ET_U64 : oe, k[0].i, k[1].i);
        }
        r.i = c == 2 ? op->attr.i == CMP_NE : cmp_result((CmpPred)op->attr.i, c);
        r.f = (double)r.i;
        ok = true;
        break;
    }
    case OP_SELECT: r = k[0].i ? k[1] : k[2]; ok = true; break;
    case OP_CAST: ok = fold_cast(oe, re, (int)op->attr.i, k[0], &r); break;
    case OP_BITCAST: ok = fold_bitcast(oe, re, k[0], &r); break;
    case OP_ADDPTR: ok = false; break;
    case OP_MATH: ok = fold_math(op, oe, re, k, &r); break;
    default:
        if (op->n_operands == 1) ok = fold_unary(op->opc, re, k[0], &r);
        else if (elem_is_float(re)) ok = fold_float2(op->opc, re, op->attr.i != 0, k[0].f, k[1].f, &r.f);
        else ok = fold_int2(op->opc, re, k[0].i, k[1].i, &r.i), r.f = (double)r.i;
        break;
    }
    if (ok) make_const(op, r, elem_is_float(re));
    return ok;
}

/* ---- identities ---- */

static bool is_const_int(IrFunc *fn, ValId v, int64_t want) {
    Konst k;
    return !elem_is_float((ElemType)ir_type(fn, v).elem) && konst(fn, v, &k) && k.i == want;
}

/* a float constant equal to want, with want's sign (so -0.0 is not +0.0) */
static bool is_const_float(IrFunc *fn, ValId v, double want) {
    Konst k;
    return elem_is_float((ElemType)ir_type(fn, v).elem) && konst(fn, v, &k) && k.f == want &&
           signbit(k.f) == signbit(want);
}

static bool is_zero(IrFunc *fn, ValId v) { return is_const_int(fn, v, 0); }
static bool is_one(IrFunc *fn, ValId v) { return is_const_int(fn, v, 1) || is_const_float(fn, v, 1.0); }
static bool is_all_ones(IrFunc *fn, ValId v) {
    ElemType e = (ElemType)ir_type(fn, v).elem;
    return is_const_int(fn, v, elem_is_signed(e) ? -1 : int_wrap(e, UINT64_MAX));
}

/* The operand that the op's result equals, or VAL_NONE:
 * x+0, 0+x, x+(-0.0), x-0, x*1, 1*x, x/1, x|0, x^0, x&~0, x<<0, x>>0,
 * select(c, a, b) with c constant or a == b, addptr(p, 0), not (not x). */
static ValId identity_of(IrFunc *fn, IrOp *op) {
    if (op->opc == OP_RESHAPE) return op->operands[0];   /* kept if the type differs */
    if (op->opc == OP_TRANS) {
        for (int i = 0; i < op->attr.n_ints; i++)
            if (op->attr.ints[i] != i) return VAL_NONE;
        return op->operands[0];
    }
    if (op->n_operands == 3 && op->opc == OP_SELECT) {
        Konst c;
        if (op->operands[1] == op->operands[2]) return op->operands[1];
        if (konst(fn, op->operands[0], &c)) return c.i ? op->operands[1] : op->operands[2];
        return VAL_NONE;
    }
    if (op->opc == OP_NOT) {   /* not (not x) */
        IrOp *d = fn->vals[op->operands[0]].def;
        return d && d->opc == OP_NOT ? d->operands[0] : VAL_NONE;
    }
    if (op->n_operands != 2) return VAL_NONE;
    ValId a = op->operands[0], b = op->operands[1];
    switch (op->opc) {
    case OP_ADD:
        if (is_zero(fn, b) || is_const_float(fn, b, -0.0)) return a;
        if (is_zero(fn, a) || is_const_float(fn, a, -0.0)) return b;
        break;
    case OP_MUL:
        if (is_one(fn, b)) return a;
        if (is_one(fn, a)) return b;
        break;
    case OP_OR:
    case OP_XOR:
        if (is_zero(fn, b)) return a;
        if (is_zero(fn, a)) return b;
        break;
    case OP_AND:
        if (is_all_ones(fn, b)) return a;
        if (is_all_ones(fn, a)) return b;
        break;
    case OP_SUB:
        if (is_zero(fn, b) || is_const_float(fn, b, 0.0)) return a;
        break;
    case OP_DIV:
        if (is_one(fn, b)) return a;
        break;
    case OP_SHL:
    case OP_SHR:
    case OP_ADDPTR:
        if (is_zero(fn, b)) return a;
        break;
    default: break;
    }
    return VAL_NONE;
}

static bool foldable(Opcode opc) {
    if (opc == OP_CONST || opc == OP_MULTIPLE_OF || opc == OP_MAX_CONTIGUOUS) return false;
    unsigned f = ir_opinfo[opc].flags;
    return (f & F_PURE) && ((f & F_ELEMWISE) || opc == OP_SPLAT || opc == OP_BROADCAST || opc == OP_EXPAND_DIMS ||
                            opc == OP_CONVERT_LAYOUT || opc == OP_TRANS || opc == OP_RESHAPE);
}

/* Before layouts: reshape(reshape(x)) is reshape(x), trans(trans(x)) one
 * trans with the composed permutation (identity_of then drops it if it
 * is the identity). */
static bool fold_chain(IrFunc *fn, IrOp *op) {
    if (op->opc != OP_RESHAPE && op->opc != OP_TRANS) return false;
    IrOp *def = fn->vals[op->operands[0]].def;
    if (!def || def->opc != op->opc || fn->vals[op->results[0]].layout >= 0) return false;
    if (op->opc == OP_TRANS)
        for (int i = 0; i < op->attr.n_ints; i++) op->attr.ints[i] = def->attr.ints[op->attr.ints[i]];
    ir_op_set_operands(fn, op, def->operands, 1);
    return true;
}

/* A walk's state: whether it changed anything, and the replacements it
 * made (resolved as the walk reaches each op). */
typedef struct FoldWalk {
    bool changed;
    IrFwd *fwd;
} FoldWalk;

static void fold_op(IrFunc *fn, IrOp *op, void *ud) {
    FoldWalk *w = ud;
    bool *changed = &w->changed;
    Konst k;
    ir_fwd_op(w->fwd, op);
    if (op->opc == OP_ASSUME && konst(fn, op->operands[0], &k) && k.i) {   /* promises nothing */
        ir_op_unlink(op);
        *changed = true;
        return;
    }
    if (!foldable(op->opc) || op->n_results != 1) return;
    if (fold_constants(fn, op)) {
        *changed = true;
        return;
    }
    if (fold_chain(fn, op)) *changed = true;
    ValId x = identity_of(fn, op), r = op->results[0];
    if (x == VAL_NONE || !ir_type_eq(ir_type(fn, x), ir_type(fn, r)) || fn->vals[x].layout != fn->vals[r].layout) return;
    ir_fwd_set(w->fwd, r, x);
    ir_op_unlink(op);
    *changed = true;
}

/* ---- if results ---- */

/* Whether v is defined inside op's regions (it cannot be used after op). */
static bool defined_inside(IrFunc *fn, ValId v, IrOp *op) {
    IrBlock *b = fn->vals[v].def ? fn->vals[v].def->parent : fn->vals[v].block;
    for (; b && b->parent; b = b->parent->parent)
        if (b->parent == op) return true;
    return false;
}

/* What result i of an if equals, or VAL_NONE: the value both arms yield
 * when it is defined outside the if; a constant both arms yield (a new
 * const in front of the if); for an i1 scalar, the condition where the
 * then arm yields true and the else arm false, its negation for the
 * reverse (the `if c: flag = True else: flag = False` that the lowering of
 * break, continue and return leaves). */
static ValId if_result_value(IrFunc *fn, IrOp *op, uint32_t i) {
    ValId t = op->regions[0]->last->operands[i], e = op->regions[1]->last->operands[i];
    ValId r = op->results[i], c = op->operands[0];
    if (t == e && !defined_inside(fn, t, op)) return t;
    Konst kt, ke;
    if (!konst(fn, t, &kt) || !konst(fn, e, &ke)) return VAL_NONE;
    IrType rt = ir_type(fn, r);
    bool is_float = elem_is_float((ElemType)rt.elem);
    IrOp *nop;
    if (is_float ? kt.f == ke.f && signbit(kt.f) == signbit(ke.f) : kt.i == ke.i) {
        nop = ir_op_new(fn, OP_CONST, op->loc, NULL, 0, &rt, 1, 0);
        make_const(nop, kt, is_float);
    } else if (rt.rank == 0 && rt.elem == ET_I1 && ir_type_eq(ir_type(fn, c), rt)) {
        if (kt.i && !ke.i) return c;
        nop = ir_op_new(fn, OP_NOT, op->loc, &c, 1, &rt, 1, 0);
    } else {
        return VAL_NONE;
    }
    fn->vals[nop->results[0]].layout = fn->vals[r].layout;
    ir_insert_before(op, nop);
    return nop->results[0];
}

typedef struct FoldIf {
    bool changed;
    uint32_t *uses;   /* counted at the start of the round */
    IrFwd *fwd;
} FoldIf;

static void fold_if(IrFunc *fn, IrOp *op, void *ud) {
    FoldIf *f = ud;
    ir_fwd_op(f->fwd, op);
    if (op->opc != OP_IF) return;
    /* the yields are read before the walk reaches them */
    for (uint32_t r = 0; r < 2; r++)
        if (op->regions[r]->last) ir_fwd_op(f->fwd, op->regions[r]->last);
    for (uint32_t i = 0; i < op->n_results; i++) {
        ValId r = op->results[i];
        if (!f->uses[r]) continue;   /* dce drops it */
        ValId x = if_result_value(fn, op, i);
        if (x == VAL_NONE || fn->vals[x].layout != fn->vals[r].layout || !ir_type_eq(ir_type(fn, x), ir_type(fn, r)))
            continue;
        ir_fwd_set(f->fwd, r, x);
        f->uses[r] = 0;
        f->changed = true;
    }
}

/* ---- dot accumulation ----
 *
 * add(x, dot(a, b, 0)) -> dot(a, b, x), so that `acc += tl.dot(a, b)`
 * accumulates in place (Triton's combine pass does the same). Only for
 * integer accumulators: i32 wrap-around addition is associative, so the
 * sum is the same bits in any order. For floats the rewrite changes the
 * rounding, because dot rounds after every k (doc/ir.md): with x = 1 and
 * two products 2^-24 (f16 operands 2^-12 * 2^-12, f32 accumulator), x +
 * dot(a, b, 0) is 1 + 2^-23 while dot(a, b, x) is 1 (each 1 + 2^-24 ties to
 * even). fold keeps every pass bit-identical, so floats are left alone.
 *
 * The dot must have no other use and sit in the add's block; it moves to
 * the add's place, where x is defined (a and b already were). */
typedef struct FoldUses {
    bool changed;
    uint32_t *uses;   /* counted at the start of the round, kept up to date */
    IrFwd *fwd;
} FoldUses;

static bool zero_acc_dot(IrFunc *fn, ValId v, IrOp *add, const uint32_t *uses) {
    IrOp *d = fn->vals[v].def;
    return d && d->opc == OP_DOT && uses[v] == 1 && d->parent == add->parent && is_zero(fn, d->operands[2]);
}

static void fold_dot_add(IrFunc *fn, IrOp *op, void *ud) {
    FoldUses *f = ud;
    ir_fwd_op(f->fwd, op);
    if (op->opc != OP_ADD) return;
    ValId r = op->results[0];
    if (elem_is_float((ElemType)ir_type(fn, r).elem)) return;
    for (int side = 0; side < 2; side++) {
        ValId dv = op->operands[side], x = op->operands[1 - side];
        if (!zero_acc_dot(fn, dv, op, f->uses) || !ir_type_eq(ir_type(fn, x), ir_type(fn, dv)) ||
            fn->vals[x].layout != fn->vals[dv].layout || fn->vals[r].layout != fn->vals[dv].layout)
            continue;
        IrOp *d = fn->vals[dv].def;
        ValId ops[3] = {d->operands[0], d->operands[1], x};
        ir_op_set_operands(fn, d, ops, 3);
        ir_op_unlink(d);
        ir_insert_before(op, d);
        ir_fwd_set(f->fwd, r, dv);
        ir_op_unlink(op);
        f->uses[dv] = f->uses[r];
        f->changed = true;
        return;
    }
}

/* Each walk resolves every op it reaches, so the use counts taken
 * between walks see every replacement. */
void pass_fold(IrFunc *fn) {
    IrFwd fwd = {fn, NULL, 0, false};
    bool changed = true;
    while (changed) {
        FoldWalk w = {false, &fwd};
        ir_walk(fn, fn->body, fold_op, &w);
        changed = w.changed;
        FoldIf f = {false, ir_count_uses(fn), &fwd};
        ir_walk(fn, fn->body, fold_if, &f);
        changed |= f.changed;
        FoldUses u = {false, ir_count_uses(fn), &fwd};
        ir_walk(fn, fn->body, fold_dot_add, &u);
        changed |= u.changed;
    }
    ir_fwd_apply(&fwd);
}
