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
    if (is_fp8(ae) && L->ctx->target.sm < 89)
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
