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
 * kept: axis analysis reads them. */
#include "opt.h"
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
    switch (opc) {
    case OP_NEG: r = -x; break;
    case OP_ABS: r = fabs(x); break;
    /* below f64, exp is ex2(x * log2(e)) with the product rounded to f32, as the GPU and interpreter do it */
    case OP_EXP: r = e == ET_F64 ? exp(x) : exp2((double)((float)x * 0x1.715476p+0f)); break;
    case OP_EXP2: r = exp2(x); break;
    /* below f64, log and sqrt as the GPU computes them (interp/trig.c) */
    case OP_LOG: r = e == ET_F64 ? log(x) : interp_log_f32((float)x); break;
    case OP_LOG2: r = log2(x); break;
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

/* All operands constant: compute the result. */
static bool fold_constants(IrFunc *fn, IrOp *op) {
    Konst k[3], r = {0, 0};
    for (uint32_t i = 0; i < op->n_operands; i++)
        if (!konst(fn, op->operands[i], &k[i])) return false;
    ElemType re = (ElemType)ir_type(fn, op->results[0]).elem;
    ElemType oe = op->n_operands ? (ElemType)ir_type(fn, op->operands[0]).elem : re;
    bool ok;
    switch (op->opc) {
    case OP_SPLAT: case OP_BROADCAST: case OP_EXPAND_DIMS: case OP_CONVERT_LAYOUT:
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
 * select(c, a, b) with c constant or a == b, addptr(p, 0). */
static ValId identity_of(IrFunc *fn, IrOp *op) {
    if (op->n_operands == 3 && op->opc == OP_SELECT) {
        Konst c;
        if (op->operands[1] == op->operands[2]) return op->operands[1];
        if (konst(fn, op->operands[0], &c)) return c.i ? op->operands[1] : op->operands[2];
        return VAL_NONE;
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
                            opc == OP_CONVERT_LAYOUT);
}

static void fold_op(IrFunc *fn, IrOp *op, void *ud) {
    bool *changed = ud;
    if (!foldable(op->opc) || op->n_results != 1) return;
    if (fold_constants(fn, op)) {
        *changed = true;
        return;
    }
    ValId x = identity_of(fn, op), r = op->results[0];
    if (x == VAL_NONE || !ir_type_eq(ir_type(fn, x), ir_type(fn, r)) || fn->vals[x].layout != fn->vals[r].layout) return;
    ir_replace_uses(fn, r, x);
    ir_op_unlink(op);
    *changed = true;
}

void pass_fold(IrFunc *fn) {
    bool changed = true;
    while (changed) {
        changed = false;
        ir_walk(fn, fn->body, fold_op, &changed);
    }
}
