/* tl.dot(input, other, acc=None, input_precision=None, allow_tf32=None,
 * max_num_imprecise_acc=None, out_dtype=tl.float32): one `dot` op (doc/ir.md
 * "Matrix multiplication"). The checks and their messages follow Triton's,
 * in Triton's order (operand dtypes, precision, shapes, result type), except
 * that tric accepts any M, N and K (Triton wants K >= 16 for 16-bit types):
 * the code generator pads small tiles. The accumulator type is acc's dtype
 * when acc is given (any the IR allows), otherwise Triton's result type. */
#include "lower.h"

#include <math.h>
#include <string.h>
#include <strings.h>


static bool is_fp8(ElemType e) { return e == ET_F8E4M3 || e == ET_F8E5M2; }

/* The dtypes Triton lets into a dot besides fp8 pairs (i1 aside); fp64 and
 * uint8 pass this check and fail later, as in Triton. */
static bool dot_operand_dtype(ElemType e) {
    return e == ET_I8 || e == ET_U8 || e == ET_F16 || e == ET_BF16 || e == ET_F32 || e == ET_F64;
}

static LVal dot_operand(Lower *L, const LArg *a, const char *side) {
    LVal v = lval_to_tensor(L, a->loc, a->v);
    ElemType e = (ElemType)lower_type(L, &v).elem;
    if (!is_fp8(e) && !dot_operand_dtype(e))
        diag_error(L->ctx, a->loc, "Unsupported %s dtype %s", side, dtype_name(ir_scalar(e)));
    return v;
}

/* input_precision bf16x3 / bf16x6: not a precision of the dot op but dots
 * of bf16 parts (bi_dot) */
enum { DOT_BF16X3 = DOT_PRECISION_COUNT, DOT_BF16X6 };

/* input_precision / allow_tf32 -> DotPrecision (or DOT_BF16X3/X6). Only
 * f32 operands use it; for the others the op keeps the default (its text
 * omits it). */
static int dot_precision(Lower *L, const LArg *prec, const LArg *allow, bool f32) {
    if (!larg_absent(prec) && !larg_absent(allow))
        diag_error(L->ctx, allow->loc, "Only one of input_precision and allow_tf32 can be specified");
    int p = DOT_TF32;
    if (!larg_absent(prec)) {
        if (prec->v.kind != LV_STR)
            diag_error(L->ctx, prec->loc, "input_precision must be a string, got a %s", lval_kind_name(&prec->v));
        p = -1;
        static const char *const split[] = {"bf16x3", "bf16x6"};
        for (int i = 0; i < DOT_PRECISION_COUNT; i++)
            if (strlen(dot_precision_names[i]) == prec->v.n &&
                !strncasecmp(dot_precision_names[i], prec->v.s, prec->v.n))
                p = i;
        for (int i = 0; i < 2; i++)
            if (strlen(split[i]) == prec->v.n && !strncasecmp(split[i], prec->v.s, prec->v.n)) p = DOT_BF16X3 + i;
        if (p < 0)
            diag_error(L->ctx, prec->loc,
                       "input_precision must be one of 'tf32', 'tf32x3', 'ieee', 'bf16x3' or 'bf16x6', got '%.*s'",
                       (int)prec->v.n, prec->v.s);
    } else if (!larg_absent(allow)) {
        if (allow->v.kind == LV_TENSOR) diag_error(L->ctx, allow->loc, "allow_tf32 must be a compile-time value");
        p = lower_truth(L, allow->loc, &allow->v) ? DOT_TF32 : DOT_IEEE;
    }
    return f32 ? p : DOT_TF32;
}

/* The shapes: rank 2 or more alike (the dims before the last two are
 * batch dims), K equal, batch dims equal. */
static void dot_check_shapes(Lower *L, SrcLoc loc, IrType at, IrType bt) {
    if (at.rank < 2 || at.rank != bt.rank)
        diag_error(L->ctx, loc, "input and other must have equal ranks >= 2; (lhs: %s vs rhs: %s)",
                   shape_str(L, at), shape_str(L, bt));
    int n = at.rank;
    if (at.shape[n - 1] != bt.shape[n - 2])
        diag_error(L->ctx, loc,
                   "First input shape (%s) and second input shape %s are not compatible for matmul (second index of "
                   "first shape (%d) must be equal to first index of second shape (%d))",
                   shape_str(L, at), shape_str(L, bt), at.shape[n - 1], bt.shape[n - 2]);
    for (int d = 0; d + 2 < n; d++)
        if (at.shape[d] != bt.shape[d])
            diag_error(L->ctx, loc, "input and other must have equal batch shapes; (lhs: %s vs rhs: %s)",
                       shape_str(L, at), shape_str(L, bt));
}

/* The accumulator element type without acc (Triton's rules): int32 for
 * int8; fp32 for fp32 and bf16; out_dtype (fp32 or fp16) for fp16 and fp8. */
static ElemType dot_result_elem(Lower *L, SrcLoc loc, ElemType in, const LArg *out) {
    IrType od = ir_scalar(ET_F32);
    if (!larg_absent(out)) {
        if (out->v.kind != LV_DTYPE)
            diag_error(L->ctx, out->loc, "out_dtype must be a dtype such as tl.float32, got a %s",
                       lval_kind_name(&out->v));
        od = out->v.dtype;
    }
    if (elem_is_int(in)) {
        if (in != ET_I8) diag_error(L->ctx, loc, "only int8 supported!");
        return ET_I32;
    }
    if (od.elem == ET_BF16)
        diag_error(L->ctx, out->loc, "out_dtype=bfloat16 is unsupported. Please use out_dtype=float32/float16 and "
                                     "cast with `.to(tl.bfloat16)`");
    if (in == ET_F64) return ET_F64;   /* no tensor-core path: FMAs in fp64 */
    if (in == ET_F32 || in == ET_BF16) return ET_F32;
    if (od.elem != ET_F32 && od.elem != ET_F16)
        diag_error(L->ctx, out->loc, "out_dtype must be tl.float32 or tl.float16 for %s operands, got %s",
                   dtype_name(ir_scalar(in)), dtype_name(od));
    return (ElemType)od.elem;
}

/* The accumulators the IR allows for operands of type `in` (doc/ir.md). */
static bool dot_acc_ok(ElemType in, ElemType acc) {
    if (in == ET_I8) return acc == ET_I32;
    if (in == ET_F16 || is_fp8(in)) return acc == ET_F32 || acc == ET_F16;
    if (in == ET_F64) return acc == ET_F64;
    return acc == ET_F32;
}

static const char *dot_acc_allowed(ElemType in) {
    if (in == ET_I8) return "int32";
    if (in == ET_F16 || is_fp8(in)) return "fp32 or fp16";
    if (in == ET_F64) return "fp64";
    return "fp32";
}

/* acc: a tensor of the result's shape and an element type the operands
 * allow; it decides the accumulator type. */
static LVal dot_acc(Lower *L, const LArg *a, IrType want, ElemType in) {
    if (a->v.kind != LV_TENSOR)
        diag_error(L->ctx, a->loc, "acc must be a tensor, got a %s", lval_kind_name(&a->v));
    LVal acc = a->v;
    IrType t = lower_type(L, &acc);
    bool same_shape = t.rank == want.rank;
    for (int i = 0; same_shape && i < t.rank; i++) same_shape = t.shape[i] == want.shape[i];
    if (!same_shape)
        diag_error(L->ctx, a->loc, "acc has shape %s, expected %s (the shape of the product)", shape_str(L, t),
                   shape_str(L, want));
    if (!dot_acc_ok(in, (ElemType)t.elem))
        diag_error(L->ctx, a->loc, "acc has dtype %s, but a product of %s operands accumulates in %s",
                   dtype_name(ir_elem_of(t)), dtype_name(ir_scalar(in)), dot_acc_allowed(in));
    return acc;
}

/* bf16x3 / bf16x6, Triton's fp32 products on bf16 tensor cores: each fp32
 * operand is split into bf16 parts (p0 = bf16(x), then each next part the
 * bf16 of what the parts so far leave out), and the products of parts i and
 * j with i + j <= 1 (3 dots) or <= 2 (6 dots) accumulate in fp32, smallest
 * first. */
static ValId bf16_parts(Lower *L, ValId x, IrType t, int n, ValId *parts) {
    IrType bt = t, ft = t;
    bt.elem = ET_BF16;
    ft.elem = ET_F32;
    ValId rest = x;
    for (int i = 0; i < n; i++) {
        IrOp *c = ir_build(&L->b, OP_CAST, &rest, 1, &bt, 1, 0);
        c->attr.i = ROUND_RTNE;
        parts[i] = c->results[0];
        if (i + 1 < n) rest = ir_build2(&L->b, OP_SUB, ft, rest, ir_build1(&L->b, OP_CAST, ft, parts[i]));
    }
    return rest;
}

static ValId split_dots(Lower *L, int prec, ValId x, ValId y, ValId acc, IrType at, IrType bt, IrType rt) {
    int n = prec == DOT_BF16X3 ? 2 : 3;
    ValId xp[3], yp[3];
    bf16_parts(L, x, at, n, xp);
    bf16_parts(L, y, bt, n, yp);
    for (int s = n - 1; s >= 0; s--)   /* i + j = s: the smallest terms first */
        for (int i = s; i >= 0; i--) {
            ValId ops[3] = {xp[i], yp[s - i], acc};
            acc = ir_build(&L->b, OP_DOT, ops, 3, &rt, 1, 0)->results[0];
        }
    return acc;
}

LVal bi_dot(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    LVal x = dot_operand(L, &a[0], "lhs"), y = dot_operand(L, &a[1], "rhs");
    IrType at = lower_type(L, &x), bt = lower_type(L, &y);
    ElemType ae = (ElemType)at.elem, be = (ElemType)bt.elem;
    if (!(is_fp8(ae) && is_fp8(be)) && ae != be)
        diag_error(L->ctx, loc, "Both operands must be same dtype. Got %s and %s", dtype_name(ir_scalar(ae)),
                   dtype_name(ir_scalar(be)));
    int prec = dot_precision(L, &a[3], &a[4], ae == ET_F32);
    if (!larg_absent(&a[5]) && a[5].v.kind != LV_INT)
        diag_error(L->ctx, a[5].loc, "max_num_imprecise_acc must be a compile-time integer, got a %s",
                   lval_kind_name(&a[5].v));
    dot_check_shapes(L, loc, at, bt);
    ElemType re = dot_result_elem(L, loc, ae, &a[6]);
    if (is_fp8(ae) && !target_info(&L->ctx->target)->fp8)
        diag_error(L->ctx, loc, "tl.dot of fp8 operands needs sm_89 or newer; the target is sm_%d",
                   L->ctx->target.sm);
    int n = at.rank;
    IrType rt = at;
    rt.elem = (uint8_t)re;
    rt.shape[n - 1] = bt.shape[n - 1];
    LVal acc;
    if (larg_absent(&a[2])) {
        LVal zero = lval_int(0);
        acc = lower_const_tensor(L, loc, &zero, rt);
    } else {
        acc = dot_acc(L, &a[2], rt, ae);
        rt = lower_type(L, &acc);
    }
    /* more than one batch dim: the dot sees them merged into one, the
     * result gets them back (row-major, so the elements keep their order) */
    IrType full = rt;
    if (n > 3) {
        int32_t batch = 1;
        for (int d = 0; d + 2 < n; d++) batch *= at.shape[d];
        int32_t shape[3] = {batch, at.shape[n - 2], at.shape[n - 1]};
        x = lower_reshape(L, loc, x, ir_tile(ir_elem_of(at), 3, shape));
        shape[1] = bt.shape[n - 2], shape[2] = bt.shape[n - 1];
        y = lower_reshape(L, loc, y, ir_tile(ir_elem_of(bt), 3, shape));
        shape[1] = rt.shape[n - 2], shape[2] = rt.shape[n - 1];
        rt = ir_tile(ir_elem_of(rt), 3, shape);
        acc = lower_reshape(L, loc, acc, rt);
    }
    ValId ops[3] = {x.id, y.id, acc.id};
    L->b.loc = loc;
    LVal r;
    if (prec >= DOT_PRECISION_COUNT) {
        r = lval_tensor(L, split_dots(L, prec, x.id, y.id, acc.id, lower_type(L, &x), lower_type(L, &y), rt));
    } else {
        IrOp *op = ir_build(&L->b, OP_DOT, ops, 3, &rt, 1, 0);
        op->attr.i = prec;
        r = lval_tensor(L, op->results[0]);
    }
    return n > 3 ? lower_reshape(L, loc, r, full) : r;
}

/* `acc + tl.dot(a, b)` (and `acc += tl.dot(a, b)`, `tl.dot(a, b) + acc`)
 * where the dot was just made by that very call: the dot accumulates into
 * acc, as Triton compiles it, instead of summing from zero and adding acc
 * after (which would hold a second accumulator's registers and add once
 * more per element). This defines what the expression means in tric, so no
 * later pass changes a result. d is fresh (the caller saw a call in the
 * source), so the dot has no other use; acc must have exactly the dot's
 * type and exist before the dot (a variable, or an operand lowered first). */
bool lower_dot_accumulate(Lower *L, LVal acc, LVal d, LVal *out) {
    if (acc.kind != LV_TENSOR || d.kind != LV_TENSOR) return false;
    IrFunc *fn = L->b.fn;
    IrOp *dot = fn->vals[d.id].def;
    if (!dot || dot->opc != OP_DOT || acc.id >= d.id) return false;
    if (!ir_type_eq(ir_type(fn, acc.id), ir_type(fn, d.id))) return false;
    IrOp *zero = fn->vals[dot->operands[2]].def;
    if (!zero || zero->opc != OP_CONST) return false;
    bool is_float = elem_is_float((ElemType)ir_type(fn, d.id).elem);
    if (is_float ? zero->attr.f != 0.0 || signbit(zero->attr.f) : zero->attr.i != 0) return false;
    ValId ops[3] = {dot->operands[0], dot->operands[1], acc.id};
    ir_op_set_operands(fn, dot, ops, 3);
    *out = d;
    return true;
}

/* ---- tl.dot_scaled ----
 *
 * On targets without scaled tensor-core instructions (sm_80, sm_90) Triton
 * upcasts the operands and runs a plain dot, and so does tric, the same
 * way: an operand in a microscaling format (e2m1: two 4-bit values a byte
 * along K, low nibble first; e4m3, e5m2: a byte each) with a scale (one
 * e8m0 byte per 32 elements along K: 2^(s - 127), 0xFF is NaN) becomes
 * bf16 (fp16 where the other operand is fp16): its elements converted
 * exactly, the scale made the same type (bf16: s << 7 as bits, so s = 0
 * gives 0; fp16: f32 s << 23 rounded to fp16), their product in that type,
 * NaN where s is 0xFF. e5m2 keeps infinities and NaNs through bf16. An
 * operand without a scale is converted to the compute type. Then
 * tl.dot(lhs, rhs, acc) with fp32 accumulation. rhs is K x N, packed and
 * scaled along K (its scale is N x K/32): it is upcast transposed. */

static LVal mx_unary_cast(Lower *L, SrcLoc loc, LVal v, ElemType e, bool bitcast) {
    IrType t = lower_type(L, &v);
    return lower_cast(L, loc, v, ir_with_elem(t, ir_scalar(e)), bitcast, 0);
}

static LVal mx_bits(Lower *L, SrcLoc loc, int op, LVal a, int64_t k) { return lower_binop(L, loc, op, a, lval_int(k)); }

/* v's bytes (u8) in format fmt as values of type comp, one row per row of v
 * (e2m1: twice as many columns) */
static LVal mx_elements(Lower *L, SrcLoc loc, LVal v, const char *fmt, ElemType comp) {
    bool bf = comp == ET_BF16;
    if (!strcmp(fmt, "e4m3")) return mx_unary_cast(L, loc, mx_unary_cast(L, loc, v, ET_F8E4M3, true), comp, false);
    if (!strcmp(fmt, "e5m2")) {
        LVal up = mx_unary_cast(L, loc, mx_unary_cast(L, loc, v, ET_F8E5M2, true), comp, false);
        int64_t nonfinite = 0x1f << 2, nonfinite16 = bf ? 0xff << 7 : 0x1f << 10;
        LVal is_nf = lower_compare(L, loc, ACMP_EQ, mx_bits(L, loc, BIN_BITAND, v, nonfinite), lval_int(nonfinite));
        LVal kept = mx_unary_cast(L, loc, mx_bits(L, loc, BIN_BITOR, mx_unary_cast(L, loc, up, ET_U16, true), nonfinite16),
                                  comp, true);
        return lower_where(L, loc, is_nf, kept, up);
    }
    /* e2m1: sign, 2 exponent bits (bias 1), 1 mantissa bit, in each nibble */
    int to_m = bf ? 7 : 10, to_bias = bf ? 127 : 15;
    int64_t point5 = bf ? 16128 : 0x3800;
    LVal em0 = mx_bits(L, loc, BIN_BITAND, v, 0x7), em1 = mx_bits(L, loc, BIN_BITAND, v, 0x70);
    LVal x0 = lower_binop(L, loc, BIN_BITOR, mx_bits(L, loc, BIN_LSHIFT, mx_unary_cast(L, loc, em0, ET_U16, false), to_m - 1),
                          mx_bits(L, loc, BIN_LSHIFT, mx_unary_cast(L, loc, mx_bits(L, loc, BIN_BITAND, v, 0x8), ET_U16, false), 12));
    LVal x1 = lower_binop(L, loc, BIN_BITOR, mx_bits(L, loc, BIN_LSHIFT, mx_unary_cast(L, loc, em1, ET_U16, false), to_m - 5),
                          mx_bits(L, loc, BIN_LSHIFT, mx_unary_cast(L, loc, mx_bits(L, loc, BIN_BITAND, v, 0x80), ET_U16, false), 8));
    int64_t bias = (int64_t)(to_bias - 1) << to_m;
    x0 = lower_where(L, loc, lower_compare(L, loc, ACMP_NE, mx_bits(L, loc, BIN_BITAND, em0, 0x6), lval_int(0)),
                     mx_bits(L, loc, BIN_ADD, x0, bias), x0);
    x1 = lower_where(L, loc, lower_compare(L, loc, ACMP_NE, mx_bits(L, loc, BIN_BITAND, em1, 0x60), lval_int(0)),
                     mx_bits(L, loc, BIN_ADD, x1, bias), x1);
    x0 = lower_where(L, loc, lower_compare(L, loc, ACMP_EQ, em0, lval_int(0x1)),
                     mx_bits(L, loc, BIN_BITOR, mx_bits(L, loc, BIN_BITAND, x0, 0x8000), point5), x0);
    x1 = lower_where(L, loc, lower_compare(L, loc, ACMP_EQ, em1, lval_int(0x10)),
                     mx_bits(L, loc, BIN_BITOR, mx_bits(L, loc, BIN_BITAND, x1, 0x8000), point5), x1);
    x0 = mx_unary_cast(L, loc, x0, ET_U16, false);
    x1 = mx_unary_cast(L, loc, x1, ET_U16, false);
    LArg ia[2] = {{true, x0, loc}, {true, x1, loc}};
    return mx_unary_cast(L, loc, bi_interleave(L, loc, ia, NULL, 0), comp, true);
}

/* scale s (rows x K/32, u8) repeated 32 times along its last dim */
static LVal mx_spread(Lower *L, SrcLoc loc, LVal s) {
    IrType t = lower_type(L, &s);
    IrType e = t, b = t, r = t;
    e.rank = 3, e.shape[2] = 1;
    b.rank = 3, b.shape[2] = 32;
    r.shape[1] = t.shape[1] * 32;
    return lower_reshape(L, loc, lower_broadcast_to(L, loc, lower_reshape(L, loc, s, e), b), r);
}

static LVal mx_upcast(Lower *L, SrcLoc loc, const LArg *v, const LArg *scale, const char *fmt, ElemType comp,
                      bool transposed, const char *side) {
    LVal x = lval_to_tensor(L, v->loc, v->v);
    IrType t = lower_type(L, &x);
    if (t.rank != 2) diag_error(L->ctx, v->loc, "dot_scaled's %s must be 2-D, got %s", side, type_str(L, t));
    bool mx = strcmp(fmt, "bf16") && strcmp(fmt, "fp16");
    ElemType want = !strcmp(fmt, "bf16") ? ET_BF16 : !strcmp(fmt, "fp16") ? ET_F16 : ET_U8;
    if (t.elem != want && !(mx && t.elem == ET_I8))
        diag_error(L->ctx, v->loc, "dot_scaled's %s in format %s must be %s, got %s", side, fmt,
                   mx ? "uint8" : fmt, dtype_name(ir_elem_of(t)));
    if (larg_absent(scale)) {
        if (!strcmp(fmt, "e2m1")) diag_error(L->ctx, v->loc, "dot_scaled: an e2m1 %s needs a scale", side);
        if (mx) x = mx_unary_cast(L, loc, x, !strcmp(fmt, "e4m3") ? ET_F8E4M3 : ET_F8E5M2, true);
        return mx_unary_cast(L, loc, x, comp, false);
    }
    if (!mx) diag_error(L->ctx, scale->loc, "dot_scaled: a %s %s takes no scale", fmt, side);
    LVal s = lval_to_tensor(L, scale->loc, scale->v);
    IrType st = lower_type(L, &s);
    if (transposed) x = lower_transpose_attr(L, loc, x);
    IrType xt = lower_type(L, &x);
    int32_t k = xt.shape[1] * (!strcmp(fmt, "e2m1") ? 2 : 1);
    if (st.elem != ET_U8 || st.rank != 2 || st.shape[0] != xt.shape[0] || st.shape[1] * 32 != k)
        diag_error(L->ctx, scale->loc, "dot_scaled's %s scale must be uint8 of shape [%d, %d], got %s", side,
                   (int)xt.shape[0], (int)(k / 32), type_str(L, st));
    x = mx_unary_cast(L, loc, x, ET_U8, true);
    LVal up = mx_elements(L, loc, x, fmt, comp);
    LVal sp = mx_spread(L, loc, s);
    LVal su = comp == ET_BF16
                  ? mx_unary_cast(L, loc, mx_bits(L, loc, BIN_LSHIFT, mx_unary_cast(L, loc, sp, ET_U16, false), 7), ET_BF16, true)
                  : mx_unary_cast(L, loc,
                                  mx_unary_cast(L, loc, mx_bits(L, loc, BIN_LSHIFT, mx_unary_cast(L, loc, sp, ET_U32, false), 23),
                                                ET_F32, true),
                                  ET_F16, false);
    LVal r = lower_binop(L, loc, BIN_MUL, up, su);
    r = lower_where(L, loc, lower_compare(L, loc, ACMP_EQ, sp, lval_int(0xff)), lval_float(NAN), r);
    return transposed ? lower_transpose_attr(L, loc, r) : r;
}

static const char *mx_format(Lower *L, const LArg *a) {
    static const char *const formats[] = {"e2m1", "e4m3", "e5m2", "bf16", "fp16"};
    const char *f = larg_str(L, a, "dot_scaled's format");
    for (size_t i = 0; i < ARRAY_LEN(formats); i++)
        if (!strcmp(f, formats[i])) return formats[i];
    diag_error(L->ctx, a->loc, "dot_scaled: unsupported format '%s' (e2m1, e4m3, e5m2, bf16 or fp16)", f);
}

LVal bi_dot_scaled(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    (void)rest, (void)n_rest;
    const char *lf = mx_format(L, &a[2]), *rf = mx_format(L, &a[5]);
    for (int i = 8; i <= 9; i++)
        if (!larg_absent(&a[i]) && !lower_truth(L, a[i].loc, &a[i].v))
            diag_error(L->ctx, a[i].loc, "dot_scaled: only operands packed along K are supported (k_pack=True)");
    ElemType comp = !strcmp(lf, "fp16") || !strcmp(rf, "fp16") ? ET_F16 : ET_BF16;
    LArg d[7] = {{0}};
    d[0] = (LArg){true, mx_upcast(L, loc, &a[0], &a[1], lf, comp, false, "lhs"), a[0].loc};
    d[1] = (LArg){true, mx_upcast(L, loc, &a[3], &a[4], rf, comp, true, "rhs"), a[3].loc};
    d[2] = a[6];
    d[6] = a[10];
    return bi_dot(L, loc, d, NULL, 0);
}
