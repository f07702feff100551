/* Expressions: compile-time folding in Python semantics, Triton's type
 * promotion for tensors (semantic.py's computation type, reproduced rule
 * for rule), numpy broadcasting, casts, subscripts, attributes and calls. */
#include "lower.h"
#include "../ir/mathfn.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- element type properties as Triton sees them ---- */

/* Triton's dtype kinds: bool < integral < floating. A constant operand of a
 * kind not above the tensor's does not take part in promotion. */
static int elem_kind(ElemType e) {
    if (e == ET_I1) return 0;
    return elem_is_float(e) ? 2 : 1;
}

/* int1 counts as signed, as in Triton (its dtype name starts with "int"). */
static bool int_signed(ElemType e) { return e == ET_I1 || elem_is_signed(e); }

static bool is_fp8(ElemType e) { return e == ET_F8E4M3 || e == ET_F8E5M2; }

/* C's usual arithmetic conversions on (bit width, signedness). */
static ElemType int_promote(ElemType a, ElemType b) {
    int wa = elem_bits(a), wb = elem_bits(b);
    bool sa = int_signed(a), sb = int_signed(b);
    if (sa == sb) return wa > wb ? a : b;
    if (!sa) return wa >= wb ? a : b;
    return wb >= wa ? b : a;
}

ElemType literal_type(const LVal *v) {
    if (v->kind == LV_BOOL) return ET_I1;
    if (v->kind == LV_INT) {
        if (v->i >= INT32_MIN && v->i <= INT32_MAX) return ET_I32;
        if (v->i > INT32_MAX && v->i <= (int64_t)UINT32_MAX) return ET_U32;
        return ET_I64;
    }
    double a = fabs(v->f);
    if (isinf(a) || a == 0 || isnan(a) || (a >= 0x1p-126 && a <= 0x1.fffffep127)) return ET_F32;
    return ET_F64;
}

static int64_t int_min_of(ElemType e) {
    if (e == ET_I1) return -1;   /* Triton's int1 range is [-1, 0]... but it accepts True */
    if (!int_signed(e)) return 0;
    return e == ET_I64 ? INT64_MIN : -((int64_t)1 << (elem_bits(e) - 1));
}

static int64_t int_max_of(ElemType e) {
    if (e == ET_I1) return 1;
    int bits = elem_bits(e) - (int_signed(e) ? 1 : 0);
    return bits >= 63 ? INT64_MAX : ((int64_t)1 << bits) - 1;
}

/* ---- tensors ---- */

static IrType ttype(Lower *L, const LVal *v) { return lower_type(L, v); }

void lower_check_shape(Lower *L, SrcLoc loc, int rank, const int32_t *shape) {
    if (rank > IR_MAX_RANK)
        diag_error(L->ctx, loc, "tensors of rank %d are not supported (at most %d)", rank, IR_MAX_RANK);
    double numel = 1;   /* exact: a product of powers of two, never wraps */
    for (int i = 0; i < rank; i++) {
        if (shape[i] <= 0 || (shape[i] & (shape[i] - 1)))
            diag_error(L->ctx, loc, "Shape element %d must be a power of 2, got %d", i, shape[i]);
        numel *= shape[i];
    }
    if (numel > IR_MAX_NUMEL)
        diag_error(L->ctx, loc, "numel (%.0f) exceeds triton maximum tensor numel (%d)", numel, IR_MAX_NUMEL);
}

/* v converted to the integer type e as a cast would (two's complement
 * truncation; int1 is "v != 0"). */
static int64_t wrap_int(int64_t v, ElemType e) {
    if (e == ET_I1) return v != 0;
    int bits = elem_bits(e);
    if (bits >= 64) return v;
    uint64_t m = ((uint64_t)1 << bits) - 1, u = (uint64_t)v & m;
    if (int_signed(e) && (u >> (bits - 1))) return (int64_t)(u | ~m);
    return (int64_t)u;
}

LVal lower_const_tensor(Lower *L, SrcLoc loc, const LVal *num, IrType t) {
    L->b.loc = loc;
    if (elem_is_float(t.elem)) {
        double f = num->kind == LV_FLOAT ? num->f : (double)num->i;
        return lval_tensor(L, ir_const_float(&L->b, t, f));
    }
    int64_t i = num->i;
    if (num->kind == LV_FLOAT) {
        /* float -> int conversion of a constant: truncation; what the
         * hardware gives for NaN/out-of-range values is not C's business */
        double f = num->f;
        i = f != f ? 0 : f >= 9.2e18 ? INT64_MAX : f <= -9.2e18 ? INT64_MIN : (int64_t)f;
        if (t.elem == ET_I1) i = f != 0;
    }
    i = wrap_int(i, (ElemType)t.elem);
    return lval_tensor(L, ir_const_int(&L->b, t, i));
}

LVal lval_to_tensor(Lower *L, SrcLoc loc, LVal v) {
    if (v.kind == LV_TENSOR) return v;
    if (!lval_is_number(&v)) diag_error(L->ctx, loc, "a %s cannot be used as a tensor value", lval_kind_name(&v));
    return lower_const_tensor(L, loc, &v, ir_scalar(literal_type(&v)));
}

static LVal with_id(LVal like, ValId id) {
    LVal r = like;
    r.id = id;
    r.has_origin = false;
    return r;
}

/* The shape both a and b broadcast to (numpy rules); elem from a. */
static IrType broadcast_shape(Lower *L, SrcLoc loc, IrType a, IrType b) {
    if (a.rank == 0) return ir_with_elem(b, a);
    if (b.rank == 0) return a;
    IrType r = a;
    int rank = a.rank > b.rank ? a.rank : b.rank;
    r.rank = (uint8_t)rank;
    for (int i = 0; i < rank; i++) {
        int ia = i - (rank - a.rank), ib = i - (rank - b.rank);
        int32_t da = ia >= 0 ? a.shape[ia] : 1, db = ib >= 0 ? b.shape[ib] : 1;
        if (da != db && da != 1 && db != 1)
            diag_error(L->ctx, loc, "incompatible shapes %s and %s", shape_str(L, a), shape_str(L, b));
        r.shape[i] = da == 1 ? db : da;
    }
    lower_check_shape(L, loc, r.rank, r.shape);
    return r;
}

IrType lower_broadcast_shape(Lower *L, SrcLoc loc, IrType a, IrType b) { return broadcast_shape(L, loc, a, b); }

/* v (a scalar or a tile) with a dim of size 1 inserted at axis */
ValId lower_expand_dim(Lower *L, SrcLoc loc, ValId v, int axis) {
    IrType t = ir_type(L->fn, v);
    L->b.loc = loc;
    if (t.rank == 0) {
        int32_t one = 1;
        return ir_build1(&L->b, OP_SPLAT, ir_tile(t, 1, &one), v);
    }
    if (t.rank >= IR_MAX_RANK) diag_error(L->ctx, loc, "tensors of rank above %d are not supported", IR_MAX_RANK);
    IrType e = t;
    e.rank++;
    memmove(e.shape + axis + 1, t.shape + axis, sizeof(int32_t) * (size_t)(t.rank - axis));
    e.shape[axis] = 1;
    IrOp *op = ir_build(&L->b, OP_EXPAND_DIMS, &v, 1, &e, 1, 0);
    op->attr.i = axis;
    return op->results[0];
}

/* v (scalar or tile) broadcast to the shape of `shape_of` (its elem is ignored). */
LVal lower_broadcast_to(Lower *L, SrcLoc loc, LVal v, IrType shape_of) {
    IrType t = ttype(L, &v);
    IrType target = ir_with_elem(shape_of, ir_elem_of(t));
    if (ir_type_eq(t, target)) return v;
    L->b.loc = loc;
    if (t.rank == 0) return with_id(v, ir_build1(&L->b, OP_SPLAT, target, v.id));
    ValId id = v.id;
    while (t.rank < target.rank) {
        id = lower_expand_dim(L, loc, id, 0);
        t = ir_type(L->fn, id);
    }
    if (!ir_type_eq(t, target)) id = ir_build1(&L->b, OP_BROADCAST, target, id);
    return with_id(v, id);
}

/* ---- casts ---- */

/* One IR cast (rounding: the attribute of a float narrowing). */
static LVal cast_op(Lower *L, SrcLoc loc, LVal v, ElemType dst, int rounding) {
    IrType t = ttype(L, &v);
    L->b.loc = loc;
    IrOp *op = ir_build(&L->b, OP_CAST, &v.id, 1, (IrType[]){ir_with_elem(t, ir_scalar(dst))}, 1, 0);
    if (elem_is_float(t.elem) && elem_is_float(dst) && elem_bits(dst) < elem_bits(t.elem)) op->attr.i = rounding;
    return with_id(v, op->results[0]);
}

/* Casts with an fp8 side, as Triton's NVIDIA backend converts: the IR cast
 * to fp8 rounds once (to nearest even, saturating to the largest finite
 * value, NaN to NaN: cvt.rn.satfinite), so the steps Triton takes are
 * spelled out here and every later stage (fold, interpreter, ptxgen) sees
 * the same ops. fp32 -> fp8 before sm_90 goes through fp16 rounded toward
 * zero (pass legalize, which lowering ends with, adds that step); rtz
 * exists only for fp32 -> fp8e5 (truncation through fp16);
 * integers and fp8 <-> fp8 go through fp32 / fp16; fp64 has no fp8
 * conversion in Triton. */
static LVal lower_fp8_cast(Lower *L, SrcLoc loc, LVal v, ElemType src, ElemType dst, int rounding) {
    ElemType f8 = is_fp8(dst) ? dst : src;
    const char *sn = dtype_name(ir_scalar(src)), *dn = dtype_name(ir_scalar(dst));
    if (src == ET_F64 || dst == ET_F64)
        diag_error(L->ctx, loc, "cannot cast %s to %s: Triton has no fp64 <-> fp8 conversion (cast through fp32)",
                   sn, dn);
    if (!target_info(&L->ctx->target)->fp8)
        diag_error(L->ctx, loc, "%s conversions need sm_89 or newer; the target is sm_%d",
                   dtype_name(ir_scalar(f8)), L->ctx->target.sm);
    if (rounding == ROUND_RTZ && !(src == ET_F32 && dst == ET_F8E5M2))
        diag_error(L->ctx, loc, "fp_downcast_rounding='rtz' is not supported for %s to %s (only fp32 to fp8e5)",
                   sn, dn);
    if (!elem_is_float(src)) return lower_fp8_cast(L, loc, cast_op(L, loc, v, ET_F32, 0), ET_F32, dst, rounding);
    if (!elem_is_float(dst)) {
        LVal f = cast_op(L, loc, v, ET_F32, 0);
        return lower_cast(L, loc, f, ir_scalar(dst), false, ROUND_DEFAULT);
    }
    if (is_fp8(src) && is_fp8(dst)) {   /* fp8 -> fp16 is exact */
        LVal h = cast_op(L, loc, v, ET_F16, 0);
        return cast_op(L, loc, h, dst, ROUND_DEFAULT);
    }
    if (src == ET_F32 && is_fp8(dst) && rounding == ROUND_RTZ) return cast_op(L, loc, v, dst, ROUND_RTZ);
    return cast_op(L, loc, v, dst, ROUND_DEFAULT);   /* before sm_90 through f16: pass legalize */
}

static LVal cmp_zero(Lower *L, SrcLoc loc, LVal v, CmpPred pred) {
    IrType t = ttype(L, &v);
    LVal zero = lval_int(0);
    LVal z = lower_const_tensor(L, loc, &zero, t);
    L->b.loc = loc;
    IrOp *op = ir_build(&L->b, OP_CMP, (ValId[]){v.id, z.id}, 2, (IrType[]){ir_with_elem(t, ir_scalar(ET_I1))}, 1, 0);
    op->attr.i = pred;
    return lval_tensor(L, op->results[0]);
}

LVal lower_to_bool(Lower *L, SrcLoc loc, LVal v) {
    v = lval_to_tensor(L, loc, v);
    if (ttype(L, &v).elem == ET_I1) return v;
    return cmp_zero(L, loc, v, CMP_NE);
}

/* Triton's cast: `to` is a scalar type; the shape is v's. */
LVal lower_cast(Lower *L, SrcLoc loc, LVal v, IrType to, bool bitcast, int rounding) {
    v = lval_to_tensor(L, loc, v);
    IrType t = ttype(L, &v);
    ElemType src = t.elem, dst = to.elem;
    IrType res = ir_with_elem(t, to);
    if (ir_type_eq(t, res)) return v;
    L->b.loc = loc;
    if (bitcast && src != ET_PTR && dst != ET_PTR) {
        if (elem_bits(src) != elem_bits(dst))
            diag_error(L->ctx, loc, "Cannot bitcast data-type of size %d to data-type of size %d", elem_bits(src),
                       elem_bits(dst));
        return with_id(v, ir_build1(&L->b, OP_BITCAST, res, v.id));
    }
    bool float_narrowing = elem_is_float(src) && elem_is_float(dst) && elem_bits(dst) < elem_bits(src);
    if (rounding != ROUND_DEFAULT && !float_narrowing)
        diag_error(L->ctx, loc, "fp_downcast_rounding should be set only for truncating fp conversions");
    if ((src == ET_PTR && elem_is_float(dst)) || (elem_is_float(src) && dst == ET_PTR))
        diag_error(L->ctx, loc, "cannot cast %s to %s", dtype_name(ir_elem_of(t)), dtype_name(to));
    if (src == ET_PTR && dst != ET_PTR && dst != ET_I1 && dst != ET_I64 && dst != ET_U64)
        diag_error(L->ctx, loc, "a pointer can only be cast to a 64-bit integer, not %s", dtype_name(to));
    if ((is_fp8(src) || is_fp8(dst)) && src != ET_PTR && dst != ET_PTR)
        return lower_fp8_cast(L, loc, v, src, dst, rounding);
    if (dst == ET_I1 && src != ET_I1) return cmp_zero(L, loc, v, CMP_NE);
    IrOp *op = ir_build(&L->b, src == ET_PTR && dst == ET_PTR ? OP_BITCAST : OP_CAST, &v.id, 1, &res, 1, 0);
    if (float_narrowing) op->attr.i = rounding;
    LVal r = with_id(v, op->results[0]);
    r.const_ptr = dst == ET_PTR && v.const_ptr;
    return r;
}

/* ---- compile-time arithmetic (Python semantics) ---- */

static const char *py_type(const LVal *v) {
    switch (v->kind) {
    case LV_NONE: return "NoneType";
    case LV_TENSOR: return "tensor";
    default: return lval_kind_name(v);
    }
}

static const char *const binop_spelling[] = {"+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^", "@"};

static _Noreturn void bad_operands(Lower *L, SrcLoc loc, int op, const LVal *a, const LVal *b) {
    diag_error(L->ctx, loc, "unsupported operand type(s) for %s: '%s' and '%s'", binop_spelling[op], py_type(a),
               py_type(b));
}

static double py_floor_div(double a, double b) { return floor(a / b); }

static double py_fmod(double a, double b) {
    double r = fmod(a, b);
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}

static LVal const_float_binop(Lower *L, SrcLoc loc, int op, double a, double b) {
    switch (op) {
    case BIN_ADD: return lval_float(a + b);
    case BIN_SUB: return lval_float(a - b);
    case BIN_MUL: return lval_float(a * b);
    case BIN_DIV:
        if (b == 0) diag_error(L->ctx, loc, "float division by zero");
        return lval_float(a / b);
    case BIN_FLOORDIV:
        if (b == 0) diag_error(L->ctx, loc, "float floor division by zero");
        return lval_float(py_floor_div(a, b));
    case BIN_MOD:
        if (b == 0) diag_error(L->ctx, loc, "float modulo by zero");
        return lval_float(py_fmod(a, b));
    case BIN_POW:
        if (a == 0 && b < 0) diag_error(L->ctx, loc, "0.0 cannot be raised to a negative power");
        return lval_float(pow(a, b));
    default: return lval_none();   /* caller reports */
    }
}

static LVal const_int_binop(Lower *L, SrcLoc loc, int op, int64_t a, int64_t b, bool both_bool) {
    int64_t r = 0;
    bool ovf = false;
    switch (op) {
    case BIN_ADD: ovf = __builtin_add_overflow(a, b, &r); break;
    case BIN_SUB: ovf = __builtin_sub_overflow(a, b, &r); break;
    case BIN_MUL: ovf = __builtin_mul_overflow(a, b, &r); break;
    case BIN_DIV:
        if (b == 0) diag_error(L->ctx, loc, "division by zero");
        return lval_float((double)a / (double)b);
    case BIN_FLOORDIV:
    case BIN_MOD:
        if (b == 0) diag_error(L->ctx, loc, "integer division or modulo by zero");
        if (a == INT64_MIN && b == -1) ovf = true;
        else {
            int64_t q = a / b, m = a % b;
            if (m != 0 && ((m < 0) != (b < 0))) {
                q--;
                m += b;
            }
            r = op == BIN_FLOORDIV ? q : m;
        }
        break;
    case BIN_POW:
        if (b < 0) return lval_float(pow((double)a, (double)b));
        r = 1;
        for (int64_t i = 0; i < b && !ovf; i++) ovf = __builtin_mul_overflow(r, a, &r);
        break;
    case BIN_LSHIFT:
        if (b < 0) diag_error(L->ctx, loc, "negative shift count");
        if (b >= 63 || (a != 0 && (a > (INT64_MAX >> b) || a < (INT64_MIN >> b)))) ovf = a != 0;
        else r = (int64_t)((uint64_t)a << b);
        break;
    case BIN_RSHIFT:
        if (b < 0) diag_error(L->ctx, loc, "negative shift count");
        r = b >= 63 ? (a < 0 ? -1 : 0) : a >> b;
        break;
    case BIN_BITAND: r = a & b; break;
    case BIN_BITOR: r = a | b; break;
    case BIN_BITXOR: r = a ^ b; break;
    default: return lval_none();
    }
    if (ovf) diag_error(L->ctx, loc, "integer overflow in a constant expression (values are 64-bit in tric)");
    if (both_bool && (op == BIN_BITAND || op == BIN_BITOR || op == BIN_BITXOR)) return lval_bool(r != 0);
    return lval_int(r);
}

static LVal tuple_concat(Lower *L, const LVal *a, const LVal *b) {
    LVal t = {0};
    t.kind = LV_TUPLE;
    t.n = a->n + b->n;
    t.items = arena_alloc(L->ctx->arena, sizeof(LVal) * (t.n + 1));
    memcpy(t.items, a->items, sizeof(LVal) * a->n);
    memcpy(t.items + a->n, b->items, sizeof(LVal) * b->n);
    return t;
}

/* t * n, n * t: the tuple repeated (none for n <= 0), as in Python */
static LVal tuple_repeat(Lower *L, SrcLoc loc, const LVal *t, int64_t n) {
    if (n < 0) n = 0;
    if (t->n && (uint64_t)n > (uint64_t)(1 << 20) / t->n) diag_error(L->ctx, loc, "a tuple of over 2^20 items");
    LVal r = {0};
    r.kind = LV_TUPLE;
    r.n = t->n * (size_t)n;
    r.items = arena_alloc(L->ctx->arena, sizeof(LVal) * (r.n + 1));
    for (int64_t k = 0; t->n && k < n; k++) memcpy(r.items + (size_t)k * t->n, t->items, sizeof(LVal) * t->n);
    return r;
}

static LVal const_binop(Lower *L, SrcLoc loc, int op, LVal a, LVal b) {
    if (op == BIN_MATMUL) diag_error(L->ctx, loc, "the '@' operator is not supported; use tl.dot");
    if (op == BIN_ADD && a.kind == LV_STR && b.kind == LV_STR) {
        char *s = arena_alloc(L->ctx->arena, a.n + b.n + 1);
        memcpy(s, a.s, a.n);
        memcpy(s + a.n, b.s, b.n);
        return lval_str(s, a.n + b.n);
    }
    if (op == BIN_ADD && a.kind == LV_TUPLE && b.kind == LV_TUPLE) return tuple_concat(L, &a, &b);
    if (op == BIN_MUL && a.kind == LV_TUPLE && (b.kind == LV_INT || b.kind == LV_BOOL)) return tuple_repeat(L, loc, &a, b.i);
    if (op == BIN_MUL && b.kind == LV_TUPLE && (a.kind == LV_INT || a.kind == LV_BOOL)) return tuple_repeat(L, loc, &b, a.i);
    if (!lval_is_number(&a) || !lval_is_number(&b)) bad_operands(L, loc, op, &a, &b);
    LVal r;
    if (a.kind == LV_FLOAT || b.kind == LV_FLOAT) {
        double x = a.kind == LV_FLOAT ? a.f : (double)a.i, y = b.kind == LV_FLOAT ? b.f : (double)b.i;
        r = const_float_binop(L, loc, op, x, y);
    } else {
        r = const_int_binop(L, loc, op, a.i, b.i, a.kind == LV_BOOL && b.kind == LV_BOOL);
    }
    if (r.kind == LV_NONE) bad_operands(L, loc, op, &a, &b);
    return r;
}

/* ---- tensor binary operations: Triton's binary_op_type_checking ---- */

typedef struct Opnd {
    LVal v;
    bool lit;        /* a compile-time number exempt from promotion when weaker */
    ElemType et;     /* tensor element type, or the number's literal type */
    IrType t;        /* tensor type (rank 0 for numbers) */
} Opnd;

static Opnd make_opnd(Lower *L, SrcLoc loc, int op, LVal v, const LVal *other, bool lit_as_tensor) {
    Opnd o = {v, false, ET_COUNT, {0}};
    if (v.kind == LV_TENSOR) {
        o.t = ttype(L, &v);
        o.et = o.t.elem;
    } else if (lval_is_number(&v)) {
        o.lit = !lit_as_tensor;
        o.et = literal_type(&v);
        o.t = ir_scalar(o.et);
    } else if (op >= 0) {
        bad_operands(L, loc, op, &v, other);
    } else {
        diag_error(L->ctx, loc, "a %s cannot be used as a tensor value", lval_kind_name(&v));
    }
    return o;
}

static _Noreturn void incompatible(Lower *L, SrcLoc loc, const Opnd *a, const Opnd *b) {
    diag_error(L->ctx, loc, "invalid operands of type %s and %s", dtype_name(ir_elem_of(a->t)),
               dtype_name(ir_elem_of(b->t)));
}

static void check_ptr(Lower *L, SrcLoc loc, const Opnd *a, const Opnd *b, bool allow) {
    if (a->et != ET_PTR) return;
    if (!allow || b->et == ET_PTR || elem_is_float(b->et)) incompatible(L, loc, a, b);
}

static ElemType computation_type(Lower *L, SrcLoc loc, const Opnd *a, const Opnd *b, bool div_or_mod) {
    ElemType x = a->et, y = b->et;
    if (a->lit != b->lit) {
        const Opnd *s = a->lit ? a : b, *t = a->lit ? b : a;
        if (elem_kind(s->et) <= elem_kind(t->et)) {
            if (div_or_mod && (t->et == ET_F16 || t->et == ET_BF16)) return ET_F32;
            return t->et;
        }
    }
    if (x == ET_F64 || y == ET_F64) return ET_F64;
    if (x == ET_F32 || y == ET_F32) return ET_F32;
    if (x == ET_F16 || y == ET_F16) return div_or_mod ? ET_F32 : ET_F16;
    if (x == ET_BF16 && y == ET_BF16) return div_or_mod ? ET_F32 : ET_BF16;
    if (x == ET_BF16 || y == ET_BF16) return ET_F32;
    if (is_fp8(x) && is_fp8(y)) return x == y ? x : ET_F16;
    if (!elem_is_int(x) || !elem_is_int(y))
        diag_error(L->ctx, loc, "unexpected type %s and %s", dtype_name(ir_scalar(x)), dtype_name(ir_scalar(y)));
    if (div_or_mod && int_signed(x) != int_signed(y))
        diag_error(L->ctx, loc,
                   "Cannot use /, //, or %% with %s and %s because they have different signedness; this is "
                   "unlikely to result in a useful answer. Cast them to the same signedness.",
                   dtype_name(ir_scalar(x)), dtype_name(ir_scalar(y)));
    return int_promote(x, y);
}

static void check_literal_fits(Lower *L, SrcLoc loc, const Opnd *o, ElemType ret) {
    if (!o->lit || !elem_is_int(ret) || o->v.kind == LV_FLOAT) return;
    int64_t v = o->v.i;
    if (v < 0 && !int_signed(ret))
        diag_error(L->ctx, loc, "Cannot perform a binary operation between an unsigned tensor and a negative scalar. "
                                "Perform a explicit cast on one of them.");
    if (o->v.kind == LV_INT && (v < int_min_of(ret) || v > int_max_of(ret)))
        diag_error(L->ctx, loc, "Scalar %lld is out of range for type %s", (long long)v, dtype_name(ir_scalar(ret)));
}

/* Casts (arith: to the computation type) and broadcasts both operands. */
static void prepare(Lower *L, SrcLoc loc, int op, LVal *pa, LVal *pb, bool allow_lhs_ptr, bool allow_rhs_ptr,
                    bool arith, bool div_or_mod, bool lit_as_tensor) {
    Opnd a = make_opnd(L, loc, op, *pa, pb, lit_as_tensor), b = make_opnd(L, loc, op, *pb, pa, lit_as_tensor);
    check_ptr(L, loc, &a, &b, allow_lhs_ptr);
    check_ptr(L, loc, &b, &a, allow_rhs_ptr);
    ElemType ta = a.et, tb = b.et;
    if (arith && a.et != ET_PTR && b.et != ET_PTR) {
        ElemType ret = computation_type(L, loc, &a, &b, div_or_mod);
        check_literal_fits(L, loc, &a, ret);
        check_literal_fits(L, loc, &b, ret);
        ta = tb = ret;
    }
    IrType shape = broadcast_shape(L, loc, a.t, b.t);
    Opnd *ops[2] = {&a, &b};
    ElemType tys[2] = {ta, tb};
    LVal *outs[2] = {pa, pb};
    for (int k = 0; k < 2; k++) {
        Opnd *o = ops[k];
        if (o->v.kind != LV_TENSOR) {
            *outs[k] = lower_const_tensor(L, loc, &o->v, ir_with_elem(shape, ir_scalar(tys[k])));
            continue;
        }
        LVal v = o->v;
        if (o->et != ET_PTR) v = lower_cast(L, loc, v, ir_scalar(tys[k]), false, 0);
        *outs[k] = lower_broadcast_to(L, loc, v, shape);
    }
}

static LVal build2(Lower *L, SrcLoc loc, Opcode opc, IrType t, LVal a, LVal b) {
    L->b.loc = loc;
    return lval_tensor(L, ir_build2(&L->b, opc, t, a.id, b.id));
}

static LVal tensor_add_sub(Lower *L, SrcLoc loc, bool sub, LVal a, LVal b) {
    prepare(L, loc, sub ? BIN_SUB : BIN_ADD, &a, &b, true, !sub, true, false, false);
    IrType ta = ttype(L, &a), tb = ttype(L, &b);
    if (tb.elem == ET_PTR) {   /* int + ptr */
        LVal t = a;
        a = b;
        b = t;
        IrType tt = ta;
        ta = tb;
        tb = tt;
    }
    if (ta.elem == ET_PTR) {
        if (tb.elem == ET_I1) {   /* a bool offset counts 0 or 1 elements */
            b = lower_cast(L, loc, b, ir_scalar(ET_I32), false, 0);
            tb = ttype(L, &b);
        }
        if (sub) {
            L->b.loc = loc;
            b = lval_tensor(L, ir_build1(&L->b, OP_NEG, tb, b.id));
        }
        LVal r = build2(L, loc, OP_ADDPTR, ta, a, b);
        r.const_ptr = a.const_ptr;
        return r;
    }
    return build2(L, loc, sub ? OP_SUB : OP_ADD, ta, a, b);
}

static LVal tensor_truediv(Lower *L, SrcLoc loc, LVal a, LVal b) {
    prepare(L, loc, BIN_DIV, &a, &b, false, false, true, true, false);
    IrType t = ttype(L, &a);
    if (elem_is_int(t.elem)) {   /* int / int divides in fp32 */
        a = lower_cast(L, loc, a, ir_scalar(ET_F32), false, 0);
        b = lower_cast(L, loc, b, ir_scalar(ET_F32), false, 0);
        t = ttype(L, &a);
    }
    return build2(L, loc, OP_DIV, t, a, b);
}

static LVal tensor_int_op(Lower *L, SrcLoc loc, int op, Opcode opc, LVal a, LVal b, bool div_or_mod) {
    /* x >> y: Triton shifts arithmetically when x's own type is signed,
     * whatever type the operands then promote to (int8 >> uint8 is a uint8
     * shifted as signed bits) */
    bool arith = opc == OP_SHR && elem_is_signed(lval_is_const(&a) ? literal_type(&a) : ttype(L, &a).elem);
    prepare(L, loc, op, &a, &b, false, false, true, div_or_mod, false);
    IrType t = ttype(L, &a), tb = ttype(L, &b);
    if (!elem_is_int(t.elem)) {
        if (op == BIN_FLOORDIV) diag_error(L->ctx, loc, "unexpected type %s", dtype_name(ir_elem_of(t)));
        diag_error(L->ctx, loc, "invalid operands of type %s and %s", dtype_name(ir_elem_of(t)),
                   dtype_name(ir_elem_of(tb)));
    }
    if (arith && !elem_is_signed(t.elem)) {
        static const ElemType signed_of[ET_COUNT] = {[ET_U8] = ET_I8, [ET_U16] = ET_I16, [ET_U32] = ET_I32,
                                                     [ET_U64] = ET_I64};
        IrType s = ir_scalar(signed_of[t.elem]);
        a = lower_cast(L, loc, a, s, true, 0);
        b = lower_cast(L, loc, b, s, true, 0);
        return lower_cast(L, loc, build2(L, loc, opc, ir_with_elem(t, s), a, b), ir_scalar(t.elem), true, 0);
    }
    return build2(L, loc, opc, t, a, b);
}

LVal lower_binop(Lower *L, SrcLoc loc, int op, LVal a, LVal b) {
    if (lval_is_const(&a) && lval_is_const(&b)) return const_binop(L, loc, op, a, b);
    switch (op) {
    case BIN_ADD: return tensor_add_sub(L, loc, false, a, b);
    case BIN_SUB: return tensor_add_sub(L, loc, true, a, b);
    case BIN_MUL:
        prepare(L, loc, op, &a, &b, false, false, true, false, false);
        return build2(L, loc, OP_MUL, ttype(L, &a), a, b);
    case BIN_DIV: return tensor_truediv(L, loc, a, b);
    case BIN_FLOORDIV: return tensor_int_op(L, loc, op, OP_DIV, a, b, true);
    case BIN_MOD:
        prepare(L, loc, op, &a, &b, false, false, true, true, false);
        return build2(L, loc, OP_REM, ttype(L, &a), a, b);
    case BIN_LSHIFT: return tensor_int_op(L, loc, op, OP_SHL, a, b, false);
    case BIN_RSHIFT: return tensor_int_op(L, loc, op, OP_SHR, a, b, false);
    case BIN_BITAND: return tensor_int_op(L, loc, op, OP_AND, a, b, false);
    case BIN_BITOR: return tensor_int_op(L, loc, op, OP_OR, a, b, false);
    case BIN_BITXOR: return tensor_int_op(L, loc, op, OP_XOR, a, b, false);
    case BIN_POW: diag_error(L->ctx, loc, "the '**' operator is only supported on constexpr values, not on tensors");
    case BIN_MATMUL:
        diag_error(L->ctx, loc, "AST binary operator 'MatMult' is not (currently) implemented; use tl.dot");
    }
    tric_unreachable();
}

LVal lower_minmax(Lower *L, SrcLoc loc, bool is_max, LVal a, LVal b, bool propagate_nan) {
    a = lval_to_tensor(L, loc, a);
    b = lval_to_tensor(L, loc, b);
    /* Triton computes bf16 minimum/maximum in fp32 */
    if (ttype(L, &a).elem == ET_BF16) a = lower_cast(L, loc, a, ir_scalar(ET_F32), false, 0);
    if (ttype(L, &b).elem == ET_BF16) b = lower_cast(L, loc, b, ir_scalar(ET_F32), false, 0);
    prepare(L, loc, -1, &a, &b, false, false, true, false, true);
    LVal r = build2(L, loc, is_max ? OP_MAX : OP_MIN, ttype(L, &a), a, b);
    L->fn->vals[r.id].def->attr.i = propagate_nan;
    return r;
}

/* tl.umulhi(x, y): both promoted to one integer type as for x * y (Triton's
 * binary legalization; numbers typed as to_tensor types them), then the
 * high half of their unsigned product. */
LVal lower_umulhi(Lower *L, SrcLoc loc, LVal a, LVal b) {
    prepare(L, loc, -1, &a, &b, false, false, true, false, true);
    IrType t = ttype(L, &a);
    if (!elem_is_int(t.elem) || t.elem == ET_I1 || elem_bits(t.elem) < 32)
        diag_error(L->ctx, loc, "Expected dtype ['int32', 'int64', 'uint32', 'uint64'] but got %s",
                   dtype_name(ir_elem_of(t)));
    return build2(L, loc, OP_MULHI, t, a, b);
}

/* A `math` op (ir/mathfn.def): the operands promoted to one type and
 * shape as for a binary op, then checked against the function's types;
 * what names the function in the error ("tl.erf", "libdevice.tanh"). */
LVal lower_math(Lower *L, SrcLoc loc, int fn, LVal *args, int n, const char *what) {
    MathFn f = (MathFn)fn;
    TRIC_ASSERT(n == mathfn_info[f].n_args && n >= 1 && n <= 3);
    LVal v[3];
    for (int i = 0; i < n; i++) v[i] = lval_to_tensor(L, loc, args[i]);
    if (n >= 2) prepare(L, loc, -1, &v[0], &v[1], false, false, true, false, true);
    if (n == 3) {
        prepare(L, loc, -1, &v[0], &v[2], false, false, true, false, true);
        prepare(L, loc, -1, &v[1], &v[2], false, false, true, false, true);
    }
    IrType t = ttype(L, &v[0]);
    ElemType e = (ElemType)t.elem;
    if (!mathfn_accepts(f, e)) {
        MathKind k = mathfn_info[f].kind;
        const char *want = k == MK_F32 ? "['fp32']" : k == MK_INT || k == MK_COUNT ? "['int32', 'int64']"
                                                                                  : "['fp32', 'fp64']";
        diag_error(L->ctx, loc, "%s: expected dtype %s but got %s", what, want, dtype_name(ir_elem_of(t)));
    }
    ValId ids[3];
    for (int i = 0; i < n; i++) ids[i] = v[i].id;
    IrType rt = ir_with_elem(t, ir_scalar(mathfn_result(f, e)));
    L->b.loc = loc;
    IrOp *op = ir_build(&L->b, OP_MATH, ids, (uint32_t)n, &rt, 1, 0);
    op->attr.i = fn;
    return lval_tensor(L, op->results[0]);
}

LVal lower_where(Lower *L, SrcLoc loc, LVal c, LVal a, LVal b) {
    c = lower_to_bool(L, loc, lval_to_tensor(L, loc, c));
    if (a.kind == LV_TENSOR && b.kind == LV_TENSOR && ttype(L, &a).elem == ET_PTR && ttype(L, &b).elem == ET_PTR) {
        /* two pointers of one type, as Triton's type check lets through */
        IrType ta = ttype(L, &a), tb = ttype(L, &b);
        if (!ir_type_eq(ir_elem_of(ta), ir_elem_of(tb)))
            diag_error(L->ctx, loc, "invalid operands of type %s and %s", dtype_name(ir_elem_of(ta)),
                       dtype_name(ir_elem_of(tb)));
        IrType both = broadcast_shape(L, loc, ta, tb);
        a = lower_broadcast_to(L, loc, a, both);
        b = lower_broadcast_to(L, loc, b, both);
    } else {
        prepare(L, loc, -1, &a, &b, true, true, true, false, false);
    }
    IrType shape = broadcast_shape(L, loc, ttype(L, &c), ttype(L, &a));
    c = lower_broadcast_to(L, loc, c, shape);
    a = lower_broadcast_to(L, loc, a, shape);
    b = lower_broadcast_to(L, loc, b, shape);
    L->b.loc = loc;
    LVal r = lval_tensor(L, ir_build3(&L->b, OP_SELECT, ttype(L, &a), c.id, a.id, b.id));
    r.const_ptr = a.const_ptr && b.const_ptr;
    return r;
}

/* ---- comparisons ---- */

static const CmpPred cmp_preds[] = {[ACMP_EQ] = CMP_EQ, [ACMP_NE] = CMP_NE, [ACMP_LT] = CMP_LT,
                                    [ACMP_LE] = CMP_LE, [ACMP_GT] = CMP_GT, [ACMP_GE] = CMP_GE};
static const char *const cmp_spelling[] = {"==", "!=", "<", "<=", ">", ">=", "is", "is not", "in", "not in"};

static bool cmp_result(int op, int sign) {
    switch (op) {
    case ACMP_EQ: return sign == 0;
    case ACMP_NE: return sign != 0;
    case ACMP_LT: return sign < 0;
    case ACMP_LE: return sign <= 0;
    case ACMP_GT: return sign > 0;
    default: return sign >= 0;
    }
}

/* Python identity on unwrapped values: None is None, a tensor is itself. */
static bool lval_is(const LVal *a, const LVal *b) {
    if (a->kind != b->kind) return false;
    switch (a->kind) {
    case LV_NONE: return true;
    case LV_TENSOR: return a->id == b->id;
    case LV_BOOL:
    case LV_INT: return a->i == b->i;
    case LV_DTYPE: return ir_type_eq(a->dtype, b->dtype);
    case LV_STR: return a->n == b->n && !memcmp(a->s, b->s, a->n);
    case LV_FUNC: return a->func == b->func;
    case LV_BUILTIN: return a->builtin == b->builtin;
    case LV_MODULE: return !strcmp(a->s, b->s);
    default: return a == b;
    }
}

static bool const_equal(const LVal *a, const LVal *b) {
    if (lval_is_number(a) && lval_is_number(b)) {
        if (a->kind == LV_FLOAT || b->kind == LV_FLOAT)
            return (a->kind == LV_FLOAT ? a->f : (double)a->i) == (b->kind == LV_FLOAT ? b->f : (double)b->i);
        return a->i == b->i;
    }
    if (a->kind == LV_TUPLE && b->kind == LV_TUPLE) {
        if (a->n != b->n) return false;
        for (size_t i = 0; i < a->n; i++)
            if (!const_equal(&a->items[i], &b->items[i])) return false;
        return true;
    }
    return lval_is(a, b);
}

static LVal const_compare(Lower *L, SrcLoc loc, int op, LVal a, LVal b) {
    if (op == ACMP_IN || op == ACMP_NOT_IN) {
        if (b.kind != LV_TUPLE && b.kind != LV_STR)
            diag_error(L->ctx, loc, "argument of type '%s' is not iterable", py_type(&b));
        bool found = false;
        if (b.kind == LV_STR)
            found = a.kind == LV_STR && (a.n == 0 || memmem(b.s, b.n, a.s, a.n) != NULL);
        for (size_t i = 0; b.kind == LV_TUPLE && i < b.n && !found; i++)
            found = b.items[i].kind != LV_TENSOR && const_equal(&a, &b.items[i]);
        return lval_bool(found == (op == ACMP_IN));
    }
    if (op == ACMP_EQ || op == ACMP_NE) return lval_bool(const_equal(&a, &b) == (op == ACMP_EQ));
    int sign;
    if (lval_is_number(&a) && lval_is_number(&b)) {
        if (a.kind == LV_FLOAT || b.kind == LV_FLOAT) {
            double x = a.kind == LV_FLOAT ? a.f : (double)a.i, y = b.kind == LV_FLOAT ? b.f : (double)b.i;
            if (x != x || y != y) return lval_bool(false);
            sign = (x > y) - (x < y);
        } else {
            sign = (a.i > b.i) - (a.i < b.i);
        }
    } else if (a.kind == LV_STR && b.kind == LV_STR) {
        size_t n = a.n < b.n ? a.n : b.n;
        int c = memcmp(a.s, b.s, n);
        sign = c ? (c > 0 ? 1 : -1) : (a.n > b.n) - (a.n < b.n);
    } else {
        diag_error(L->ctx, loc, "'%s' not supported between instances of '%s' and '%s'", cmp_spelling[op], py_type(&a),
                   py_type(&b));
    }
    return lval_bool(cmp_result(op, sign));
}

LVal lower_compare(Lower *L, SrcLoc loc, int op, LVal a, LVal b) {
    if (op == ACMP_IS || op == ACMP_IS_NOT) return lval_bool(lval_is(&a, &b) == (op == ACMP_IS));
    if (lval_is_const(&a) && lval_is_const(&b)) return const_compare(L, loc, op, a, b);
    if (op == ACMP_IN || op == ACMP_NOT_IN)
        diag_error(L->ctx, loc, "the '%s' operator is not supported on tensors", cmp_spelling[op]);
    prepare(L, loc, -1, &a, &b, false, false, true, false, false);
    IrType t = ir_with_elem(ttype(L, &a), ir_scalar(ET_I1));
    L->b.loc = loc;
    IrOp *cmp = ir_build(&L->b, OP_CMP, (ValId[]){a.id, b.id}, 2, &t, 1, 0);
    cmp->attr.i = cmp_preds[op];
    return lval_tensor(L, cmp->results[0]);
}

/* ---- unary ---- */

LVal lower_unary(Lower *L, SrcLoc loc, int op, LVal v) {
    static const char *const spelling[] = {"-", "+", "~", "not"};
    if (op == UN_NOT) {
        if (lval_is_const(&v)) return lval_bool(!lower_truth(L, loc, &v));
        LVal b = lower_to_bool(L, loc, v);
        L->b.loc = loc;
        return lval_tensor(L, ir_build1(&L->b, OP_NOT, ttype(L, &b), b.id));
    }
    if (lval_is_const(&v)) {
        if (!lval_is_number(&v) || (op == UN_INVERT && v.kind == LV_FLOAT))
            diag_error(L->ctx, loc, "bad operand type for unary %s: '%s'", spelling[op], py_type(&v));
        if (op == UN_POS) return v.kind == LV_BOOL ? lval_int(v.i) : v;
        if (op == UN_INVERT) return lval_int(~v.i);
        if (v.kind == LV_FLOAT) return lval_float(-v.f);
        if (v.i == INT64_MIN) diag_error(L->ctx, loc, "integer overflow in a constant expression");
        return lval_int(-v.i);
    }
    IrType t = ttype(L, &v);
    bool bad = t.elem == ET_PTR || (op == UN_INVERT && elem_is_float(t.elem));
    if (bad)
        diag_error(L->ctx, loc, "wrong type argument to unary %s (%s)", op == UN_INVERT ? "invert" : "minus",
                   dtype_name(ir_elem_of(t)));
    if (op == UN_POS) return v;
    L->b.loc = loc;
    return lval_tensor(L, ir_build1(&L->b, op == UN_NEG ? OP_NEG : OP_NOT, t, v.id));
}

/* ---- attributes ---- */

static LVal shape_tuple(Lower *L, IrType t) {
    LVal r = {0};
    r.kind = LV_TUPLE;
    r.n = t.rank;
    r.items = arena_alloc(L->ctx->arena, sizeof(LVal) * (r.n + 1));
    for (int i = 0; i < t.rank; i++) r.items[i] = lval_int(t.shape[i]);
    return r;
}

static LVal bound_method(const Builtin *bi, Lower *L, LVal self) {
    LVal r = {0};
    r.kind = LV_BUILTIN;
    r.builtin = bi;
    r.self = arena_alloc(L->ctx->arena, sizeof(LVal));
    *r.self = self;
    return r;
}

bool lower_has_attr(Lower *L, SrcLoc loc, LVal obj, const char *name) {
    static const char *const tensor_attrs[] = {"dtype", "shape", "numel", "ndim", "T"};
    static const char *const dtype_attrs[] = {"primitive_bitwidth", "name"};
    static const char *const desc_attrs[] = {"dtype", "shape", "strides", "block_shape"};
    LVal r;
    switch (obj.kind) {
    case LV_MODULE:
        return obj.umod ? lower_module_has(L, loc, obj.umod, name) : builtin_module_attr(L, obj.s, name, &r);
    case LV_TENSOR:
        for (size_t i = 0; i < ARRAY_LEN(tensor_attrs); i++)
            if (!strcmp(name, tensor_attrs[i])) return true;
        return builtin_find(name, BM_METHOD) != NULL;
    case LV_DTYPE:
        if (!strcmp(name, "element_ty")) return obj.dtype.elem == ET_PTR;
        for (size_t i = 0; i < ARRAY_LEN(dtype_attrs); i++)
            if (!strcmp(name, dtype_attrs[i])) return true;
        return builtin_find(name, BM_DTYPE) != NULL;
    case LV_TENSOR_DESC:
        for (size_t i = 0; i < ARRAY_LEN(desc_attrs); i++)
            if (!strcmp(name, desc_attrs[i])) return true;
        return builtin_find(name, BM_DESC) != NULL;
    default: return false;
    }
}

LVal lower_attr(Lower *L, SrcLoc loc, LVal obj, const char *name) {
    const Builtin *bi;
    switch (obj.kind) {
    case LV_MODULE: {
        LVal r;
        if (obj.umod) return lower_module_attr(L, loc, obj.umod, name);
        if (builtin_module_attr(L, obj.s, name, &r)) return r;
        if (strncmp(obj.s, "triton", 6) || (obj.s[6] && obj.s[6] != '.')) module_not_found(L, loc, obj.s);
        if (!builtin_is_module(obj.s))
            diag_error(L->ctx, loc, "'%s.%s' cannot be used inside a @jit function (only triton and triton.language "
                                    "can)", obj.s, name);
        if (strstr(obj.s, "libdevice")) diag_error(L->ctx, loc, "libdevice.%s is not supported yet", name);
        /* Triton's other fp8 formats: AMD's (fnuz) and the software e4b15 */
        if (!strncmp(name, "float8e4b", 9) || !strcmp(name, "float8e5b16"))
            diag_error(L->ctx, loc, "tl.%s is not supported on NVIDIA GPUs (fp8 is tl.float8e4nv or tl.float8e5)",
                       name);
        diag_error(L->ctx, loc, "module '%s' has no attribute '%s'", obj.s, name);
    }
    case LV_TENSOR: {
        IrType t = ttype(L, &obj);
        if (!strcmp(name, "dtype")) return lval_dtype(ir_elem_of(t));
        if (!strcmp(name, "shape")) return shape_tuple(L, t);
        if (!strcmp(name, "numel")) return lval_int(ir_numel(t));
        if (!strcmp(name, "ndim")) return lval_int(t.rank);
        if (!strcmp(name, "T")) return lower_transpose_attr(L, loc, obj);
        if ((bi = builtin_find(name, BM_METHOD))) return bound_method(bi, L, obj);
        diag_error(L->ctx, loc, "'tensor' object has no attribute '%s'", name);
    }
    case LV_DTYPE:
        if (!strcmp(name, "element_ty")) {
            if (obj.dtype.elem != ET_PTR)
                diag_error(L->ctx, loc, "'%s' is not a pointer type and has no element_ty", dtype_name(obj.dtype));
            return lval_dtype(ir_scalar(obj.dtype.pointee));
        }
        if (!strcmp(name, "primitive_bitwidth")) return lval_int(elem_bits(obj.dtype.elem));
        if (!strcmp(name, "name")) {
            const char *s = dtype_name(obj.dtype);
            return lval_str(s, strlen(s));
        }
        if ((bi = builtin_find(name, BM_DTYPE))) return bound_method(bi, L, obj);
        diag_error(L->ctx, loc, "'dtype' object has no attribute '%s'", name);
    case LV_TENSOR_DESC:
        if ((bi = builtin_find(name, BM_DESC))) return bound_method(bi, L, obj);
        return lower_desc_attr(L, loc, obj, name);
    default: diag_error(L->ctx, loc, "'%s' object has no attribute '%s'", py_type(&obj), name);
    }
}

/* ---- subscripts ---- */

static int64_t index_value(Lower *L, SrcLoc loc, const LVal *v) {
    if (v->kind == LV_INT || v->kind == LV_BOOL) return v->i;
    if (v->kind == LV_TENSOR && v->has_origin) return v->origin_i;
    diag_error(L->ctx, loc, "tuple indices must be compile-time integers, not %s", lval_kind_name(v));
}

static LVal tuple_index(Lower *L, AstNode *idx, LVal t) {
    if (idx->kind == A_SLICE) {
        int64_t n = (int64_t)t.n, lo = 0, hi = n, st = 1;
        LVal bound;
        if (idx->third) st = index_value(L, idx->loc, (bound = lower_expr(L, idx->third), &bound));
        if (st == 0) diag_error(L->ctx, idx->loc, "slice step cannot be zero");
        if (st < 0) {
            lo = n - 1;
            hi = -n - 1;
        }
        if (idx->lhs) lo = index_value(L, idx->loc, (bound = lower_expr(L, idx->lhs), &bound));
        if (idx->rhs) hi = index_value(L, idx->loc, (bound = lower_expr(L, idx->rhs), &bound));
        if (lo < 0) lo += n;
        if (hi < 0) hi += n;
        LVal r = {0};
        r.kind = LV_TUPLE;
        r.items = arena_alloc(L->ctx->arena, sizeof(LVal) * (t.n + 1));
        for (int64_t i = lo; st > 0 ? i < hi : i > hi; i += st)
            if (i >= 0 && i < n) r.items[r.n++] = t.items[i];
        return r;
    }
    LVal iv = lower_expr(L, idx);
    int64_t i = index_value(L, idx->loc, &iv);
    if (i < 0) i += (int64_t)t.n;
    if (i < 0 || i >= (int64_t)t.n) diag_error(L->ctx, idx->loc, "tuple index out of range");
    return t.items[i];
}

/* a bound of a slice that is None: left out, or an expression of None */
static bool none_bound(Lower *L, AstNode *b) {
    if (!b || b->kind == A_NONE) return true;
    return lower_expr(L, b).kind == LV_NONE;
}

/* ':', and as in Triton any slice whose start, stop and step are None
 * (`None:`, `::None`) */
static bool is_full_slice(Lower *L, AstNode *n) {
    return n->kind == A_SLICE && none_bound(L, n->lhs) && none_bound(L, n->rhs) && none_bound(L, n->third);
}

/* x[:, None], x[None, :]: only None (a new dim of size 1 at that position)
 * and ':' (keep; as in Triton, one past the rank is fine too: a scalar
 * pointer's p[None, None, :] is a 1 x 1 tile). */
static LVal tensor_index(Lower *L, AstNode *idx, LVal v) {
    AstNode **items = idx->kind == A_TUPLE ? idx->args.items : &idx;
    int n = idx->kind == A_TUPLE ? idx->args.n : 1;
    for (int i = 0; i < n; i++) {
        AstNode *it = items[i];
        if (is_full_slice(L, it)) continue;
        if (it->kind != A_NONE)
            diag_error(L->ctx, it->loc, "unsupported tensor index: only None and ':' can index a tensor");
        int ndim = ttype(L, &v).rank + 1;   /* None at i: expand_dims(x, i), as Triton's */
        if (i >= ndim) diag_error(L->ctx, it->loc, "invalid axis %d. Expected %d <= axis < %d", i, -ndim, ndim);
        v = with_id(v, lower_expand_dim(L, it->loc, v.id, i));
    }
    return v;
}

static LVal lower_subscript(Lower *L, AstNode *e) {
    LVal obj = lower_expr(L, e->lhs);
    if (obj.kind == LV_TUPLE) return tuple_index(L, e->rhs, obj);
    if (obj.kind == LV_TENSOR) return tensor_index(L, e->rhs, obj);
    if (obj.kind == LV_STR) {
        LVal iv = lower_expr(L, e->rhs);
        int64_t i = index_value(L, e->rhs->loc, &iv);
        if (i < 0) i += (int64_t)obj.n;
        if (i < 0 || i >= (int64_t)obj.n) diag_error(L->ctx, e->rhs->loc, "string index out of range");
        return lval_str(obj.s + i, 1);
    }
    diag_error(L->ctx, e->loc, "'%s' object is not subscriptable", py_type(&obj));
}

/* ---- boolean operators, ternaries ---- */

/* Constants short-circuit as in Python; tensors become logical and/or
 * (both sides evaluated). */
static LVal lower_boolop(Lower *L, AstNode *e) {
    bool is_and = e->op == BOOL_AND;
    LVal acc = {0}, last = {0};
    bool have = false;
    for (int i = 0; i < e->args.n; i++) {
        LVal v = lower_expr(L, e->args.items[i]);
        last = v;
        if (lval_is_const(&v)) {
            bool t = lower_truth(L, e->args.items[i]->loc, &v);
            if (is_and != t) return v;
            continue;
        }
        v = lower_to_bool(L, e->args.items[i]->loc, v);
        if (!have) {
            acc = v;
            have = true;
            continue;
        }
        LVal a = acc;
        prepare(L, e->loc, -1, &a, &v, false, false, true, false, false);
        acc = build2(L, e->loc, is_and ? OP_AND : OP_OR, ttype(L, &a), a, v);
    }
    return have ? acc : last;
}

static LVal lower_ifexp(Lower *L, AstNode *e) {
    LVal c = lower_expr(L, e->cond);
    if (lval_is_const(&c)) return lower_expr(L, lower_truth(L, e->cond->loc, &c) ? e->lhs : e->rhs);
    IrType ct = ttype(L, &c);
    if (ct.rank > 0)
        diag_error(L->ctx, e->cond->loc, "the condition of a conditional expression must be a scalar; use tl.where "
                                         "for tensors");
    c = lower_to_bool(L, e->cond->loc, c);
    IrBlock *parent = L->b.block, *blk[2];
    ValId res[2];
    IrType types[2];
    bool none[2];   /* an arm of None: both are, or it is an error (arms run for their effects) */
    for (int k = 0; k < 2; k++) {
        blk[k] = ir_block_new(L->fn);
        L->b.block = blk[k];
        LVal v = lower_expr(L, k ? e->rhs : e->lhs);
        none[k] = v.kind == LV_NONE;
        if (!none[k]) {
            v = lval_to_tensor(L, e->loc, v);
            res[k] = v.id;
            types[k] = ttype(L, &v);
        }
        L->b.loc = e->loc;
        ir_build(&L->b, OP_YIELD, &res[k], none[k] ? 0 : 1, NULL, 0, 0);
    }
    L->b.block = parent;
    if (none[0] != none[1] || (!none[0] && !ir_type_eq(types[0], types[1])))
        diag_error(L->ctx, e->loc, "Ternary expression with dynamic condition has inconsistent types %s and %s",
                   none[0] ? "None" : type_str(L, types[0]), none[1] ? "None" : type_str(L, types[1]));
    L->b.loc = e->loc;
    IrOp *op = ir_build(&L->b, OP_IF, &c.id, 1, types, none[0] ? 0 : 1, 2);
    for (int k = 0; k < 2; k++) {
        op->regions[k] = blk[k];
        blk[k]->parent = op;
    }
    return none[0] ? lval_none() : lval_tensor(L, op->results[0]);
}

/* ---- calls ---- */

void lower_call_args(Lower *L, AstNode *call, CallArgs *out) {
    Arena *a = L->ctx->arena;
    /* sized for the call as written (a starred tuple grows them), not
     * VEC_PUSH's first 8: a long kernel makes tens of thousands of calls */
    int cap = call->args.n, cap_l = cap, n_l = 0, cap_k = call->args2.n, cap_kv = cap_k, cap_kl = cap_k;
    int n_kv = 0, n_kl = 0;
    *out = (CallArgs){0};
    if (cap) {
        out->args = arena_alloc(a, sizeof(LVal) * (size_t)cap);
        out->locs = arena_alloc(a, sizeof(SrcLoc) * (size_t)cap);
    }
    if (cap_k) {
        out->kw_names = arena_alloc(a, sizeof(const char *) * (size_t)cap_k);
        out->kw_vals = arena_alloc(a, sizeof(LVal) * (size_t)cap_k);
        out->kw_locs = arena_alloc(a, sizeof(SrcLoc) * (size_t)cap_k);
    }
    for (int i = 0; i < call->args.n; i++) {
        AstNode *arg = call->args.items[i];
        if (arg->kind == A_STARRED) {
            LVal t = lower_expr(L, arg->lhs);
            if (t.kind != LV_TUPLE) diag_error(L->ctx, arg->loc, "only a tuple can be unpacked with '*' in a call");
            for (size_t k = 0; k < t.n; k++) {
                VEC_PUSH(a, out->args, out->n, cap, t.items[k]);
                VEC_PUSH(a, out->locs, n_l, cap_l, arg->loc);
            }
            continue;
        }
        LVal v = lower_expr(L, arg);
        VEC_PUSH(a, out->args, out->n, cap, v);
        VEC_PUSH(a, out->locs, n_l, cap_l, arg->loc);
    }
    for (int i = 0; i < call->args2.n; i++) {
        AstNode *kw = call->args2.items[i];
        if (!kw->str) diag_error(L->ctx, kw->loc, "'**' arguments are not supported in calls inside a @jit function");
        for (int j = 0; j < out->n_kw; j++)
            if (!strcmp(out->kw_names[j], kw->str))
                diag_error(L->ctx, kw->loc, "keyword argument repeated: %s", kw->str);
        LVal v = lower_expr(L, kw->lhs);
        VEC_PUSH(a, out->kw_names, out->n_kw, cap_k, kw->str);
        VEC_PUSH(a, out->kw_vals, n_kv, cap_kv, v);
        VEC_PUSH(a, out->kw_locs, n_kl, cap_kl, kw->loc);
    }
}

static LVal lower_call(Lower *L, AstNode *e) {
    LVal callee = lower_expr(L, e->lhs);
    CallArgs ca;
    lower_call_args(L, e, &ca);
    L->b.loc = e->loc;
    if (callee.kind == LV_FUNC) return lower_call_jit(L, e->loc, callee.func, &ca);
    if (callee.kind == LV_BUILTIN) return builtin_call(L, e->loc, callee.builtin, callee.self, &ca);
    diag_error(L->ctx, e->lhs->loc, "'%s' object is not callable", py_type(&callee));
}

/* ---- literals ---- */

/* f"..." with {name} or {name.attr} fields holding compile-time values
 * (what static_assert/static_print messages use). */
static LVal lower_fstring(Lower *L, AstNode *e) {
    const char *s = e->str;
    while (*s && *s != '\'' && *s != '"') s++;
    size_t q = (s[0] && s[1] == s[0] && s[2] == s[0]) ? 3 : 1;
    const char *body = s + q, *end = e->str + strlen(e->str) - q;
    if (end < body) end = body;
    Buf out = {.arena = L->ctx->arena};   /* lookups below may unwind */
    for (const char *p = body; p < end; p++) {
        if ((*p == '{' || *p == '}') && p + 1 < end && p[1] == *p) {
            buf_putc(&out, *p++);
            continue;
        }
        if (*p != '{') {
            buf_putc(&out, *p);
            continue;
        }
        const char *f = ++p;
        while (p < end && *p != '}' && *p != '!' && *p != ':') p++;
        char *expr = arena_strndup(L->ctx->arena, f, (size_t)(p - f));
        while (p < end && *p != '}') p++;
        char *dot = strchr(expr, '.');
        if (dot) *dot = 0;
        for (char *c = expr; *c; c++)
            if (!(*c == '_' || (*c >= '0' && *c <= '9') || ((*c | 32) >= 'a' && (*c | 32) <= 'z')))
                diag_error(L->ctx, e->loc, "only names can be interpolated in f-strings inside a @jit function");
        LVal v = lower_resolve_name(L, e->loc, expr);
        while (dot) {
            char *next = strchr(dot + 1, '.');
            if (next) *next = 0;
            v = lower_attr(L, e->loc, v, dot + 1);
            dot = next;
        }
        lval_repr(L, &out, &v);
    }
    return lval_str(buf_str(&out), out.len);
}

static LVal lower_tuple(Lower *L, AstNode *e) {
    LVal t = {0};
    t.kind = LV_TUPLE;
    int n = 0, cap = 0;
    for (int i = 0; i < e->args.n; i++) {
        AstNode *it = e->args.items[i];
        if (it->kind != A_STARRED) {
            LVal v = lower_expr(L, it);
            VEC_PUSH(L->ctx->arena, t.items, n, cap, v);
            continue;
        }
        LVal inner = lower_expr(L, it->lhs);
        if (inner.kind != LV_TUPLE) diag_error(L->ctx, it->loc, "only a tuple can be unpacked with '*'");
        for (size_t k = 0; k < inner.n; k++) VEC_PUSH(L->ctx->arena, t.items, n, cap, inner.items[k]);
    }
    t.n = (size_t)n;
    return t;
}

static _Noreturn void unsupported_expr(Lower *L, AstNode *e, const char *what) {
    diag_error(L->ctx, e->loc, "unsupported expression: %s", what);
}

static LVal lower_expr_inner(Lower *L, AstNode *e) {
    switch (e->kind) {
    case A_NAME: return lower_resolve_name(L, e->loc, e->str);
    case A_INT:
        if (e->big)
            diag_error(L->ctx, e->loc, "integer literal %s is too large (tric supports 64-bit integers)", e->str);
        return lval_int(e->ival);
    case A_FLOAT: return lval_float(e->fval);
    case A_STR: return e->is_fstring ? lower_fstring(L, e) : lval_str(e->str, e->str_len);
    case A_TRUE: return lval_bool(true);
    case A_FALSE: return lval_bool(false);
    case A_NONE: return lval_none();
    case A_ATTR: return lower_attr(L, e->loc, lower_expr(L, e->lhs), e->str);
    case A_CALL: return lower_call(L, e);
    case A_SUBSCRIPT: return lower_subscript(L, e);
    case A_SLICE: {
        if (!is_full_slice(L, e)) unsupported_expr(L, e, "slice outside of a subscript");
        LVal s = {0};
        s.kind = LV_SLICE;
        return s;
    }
    case A_TUPLE:
    case A_LIST: return lower_tuple(L, e);
    case A_BINOP: {
        LVal a = lower_expr(L, e->lhs);
        LVal b = lower_expr(L, e->rhs), r;
        if (e->op == BIN_ADD && ((e->rhs->kind == A_CALL && lower_dot_accumulate(L, a, b, &r)) ||
                                 (e->lhs->kind == A_CALL && lower_dot_accumulate(L, b, a, &r))))
            return r;
        return lower_binop(L, e->loc, e->op, a, b);
    }
    case A_UNARY: return lower_unary(L, e->loc, e->op, lower_expr(L, e->lhs));
    case A_BOOLOP: return lower_boolop(L, e);
    case A_COMPARE: {
        if (e->args.n != 1) diag_error(L->ctx, e->loc, "simultaneous multiple comparison is not supported");
        LVal a = lower_expr(L, e->lhs);
        LVal b = lower_expr(L, e->args.items[0]);
        return lower_compare(L, e->loc, e->cmp_ops[0], a, b);
    }
    case A_IFEXP: return lower_ifexp(L, e);
    case A_LAMBDA: unsupported_expr(L, e, "lambda (use a @triton.jit function)");
    case A_DICT: unsupported_expr(L, e, "dict");
    case A_SET: unsupported_expr(L, e, "set");
    case A_COMPREHENSION: unsupported_expr(L, e, "comprehension");
    case A_STARRED: unsupported_expr(L, e, "starred expression");
    case A_NAMEDEXPR: unsupported_expr(L, e, "assignment expression ':='");
    case A_YIELD: unsupported_expr(L, e, "yield");
    case A_AWAIT: unsupported_expr(L, e, "await");
    case A_IMAG: unsupported_expr(L, e, "complex number");
    case A_ELLIPSIS: unsupported_expr(L, e, "Ellipsis");
    default: unsupported_expr(L, e, "this kind of expression");
    }
}

LVal lower_expr(Lower *L, AstNode *e) {
    if (++L->depth > 200) diag_error(L->ctx, e->loc, "expression is nested too deeply");
    SrcLoc saved = L->b.loc;
    L->b.loc = e->loc;
    LVal v = lower_expr_inner(L, e);
    L->b.loc = saved;
    L->depth--;
    return v;
}
