/* Axis analysis (opt/axisinfo.c) on functions built with the IR builder:
 * contiguity, divisibility and constancy of the index math that kernels
 * use, including the cases where nothing may be claimed. */
#include "base/base.h"
#include "ir/ir.h"
#include "opt/opt.h"

#include <stdio.h>

#include "check.h"

#define CHECK_AXIS(info, d, contig, div, konst)                                    \
    do {                                                                           \
        const AxisInfo *ai_ = (info);                                              \
        if (ai_->contiguity[d] != (contig) || ai_->divisibility[d] != (div) ||     \
            ai_->constancy[d] != (konst)) {                                        \
            printf("%s:%d: dim %d: got contiguity %lld divisibility %lld "         \
                   "constancy %lld, want %lld %lld %lld\n",                         \
                   __FILE__, __LINE__, d, (long long)ai_->contiguity[d],           \
                   (long long)ai_->divisibility[d], (long long)ai_->constancy[d],  \
                   (long long)(contig), (long long)(div), (long long)(konst));     \
            failures++;                                                            \
        }                                                                          \
    } while (0)

#define BIG ((int64_t)1 << 30)

#define I32 ir_scalar(ET_I32)

static IrType tile1(ElemType e, int32_t n) {
    int32_t shape[1] = {n};
    return ir_tile(ir_scalar(e), 1, shape);
}

static IrType tile2(IrType scalar, int32_t m, int32_t n) {
    int32_t shape[2] = {m, n};
    return ir_tile(scalar, 2, shape);
}

static ValId arange(IrBuilder *b, int64_t start, int64_t end) {
    IrType t = tile1(ET_I32, (int32_t)(end - start));
    IrOp *op = ir_build(b, OP_ARANGE, NULL, 0, &t, 1, 0);
    op->attr.i = start;
    op->attr.i2 = end;
    return op->results[0];
}

static ValId program_id(IrBuilder *b) {
    IrType t = I32;
    IrOp *op = ir_build(b, OP_PROGRAM_ID, NULL, 0, &t, 1, 0);
    return op->results[0];
}

static ValId splat(IrBuilder *b, ValId s, IrType t) {
    return ir_build1(b, OP_SPLAT, ir_tile(ir_type(b->fn, s), t.rank, t.shape), s);
}

static ValId expand(IrBuilder *b, ValId x, int axis) {
    IrType t = ir_type(b->fn, x), r = t;
    r.rank++;
    for (int d = r.rank - 1; d > axis; d--) r.shape[d] = t.shape[d - 1];
    r.shape[axis] = 1;
    IrOp *op = ir_build(b, OP_EXPAND_DIMS, &x, 1, &r, 1, 0);
    op->attr.i = axis;
    return op->results[0];
}

static ValId bcast(IrBuilder *b, ValId x, int32_t m, int32_t n) {
    return ir_build1(b, OP_BROADCAST, tile2(ir_elem_of(ir_type(b->fn, x)), m, n), x);
}

static ValId binop(IrBuilder *b, Opcode opc, ValId x, ValId y) {
    return ir_build2(b, opc, ir_type(b->fn, x), x, y);
}

static ValId hint(IrBuilder *b, Opcode opc, ValId x, int32_t v) {
    IrType t = ir_type(b->fn, x);
    IrOp *op = ir_build(b, opc, &x, 1, &t, 1, 0);
    op->attr.n_ints = (uint8_t)(t.rank ? t.rank : 1);
    for (int d = 0; d < op->attr.n_ints; d++) op->attr.ints[d] = v;
    return op->results[0];
}

static IrFunc *new_func(Ctx **c, IrBuilder *b) {
    Target t = {.sm = 80, .num_warps = 4, .num_stages = 3};
    *c = ctx_new(&t);
    IrFunc *fn = ir_func_new(*c, "k");
    IrBuilder init = {fn, fn->body, NULL, {0}};
    *b = init;
    return fn;
}

/* offs = pid * 1024 + arange(0, 1024); pointers and masks built on it */
static void test_vector_offsets(void) {
    Ctx *c;
    IrBuilder b;
    IrFunc *fn = new_func(&c, &b);
    ValId x16 = ir_param_add(fn, "x", ir_ptr(ET_F32), 16);
    ValId x1 = ir_param_add(fn, "y", ir_ptr(ET_F16), 1);
    ValId n16 = ir_param_add(fn, "n", I32, 16);
    ValId n1 = ir_param_add(fn, "m", I32, 1);
    ValId stride = ir_param_add(fn, "stride", I32, 1);
    IrType t = tile1(ET_I32, 1024);
    ValId base = binop(&b, OP_MUL, program_id(&b), ir_const_int(&b, I32, 1024));
    ValId offs = binop(&b, OP_ADD, splat(&b, base, t), arange(&b, 0, 1024));
    ValId p16 = ir_build2(&b, OP_ADDPTR, ir_tile(ir_ptr(ET_F32), 1, t.shape), splat(&b, x16, t), offs);
    IrType hp = ir_tile(ir_ptr(ET_F16), 1, t.shape);
    ValId p1 = ir_build2(&b, OP_ADDPTR, hp, splat(&b, x1, t), offs);
    IrType mt = tile1(ET_I1, 1024);
    ValId m16 = ir_build2(&b, OP_CMP, mt, offs, splat(&b, n16, t));
    ValId m1 = ir_build2(&b, OP_CMP, mt, offs, splat(&b, n1, t));
    fn->vals[m16].def->attr.i = CMP_LT;
    fn->vals[m1].def->attr.i = CMP_LT;
    ValId strided = binop(&b, OP_MUL, offs, splat(&b, stride, t));
    ValId rem = binop(&b, OP_REM, offs, ir_const_int(&b, t, 64));
    ValId quo = binop(&b, OP_DIV, offs, ir_const_int(&b, t, 64));
    ValId masked = binop(&b, OP_AND, offs, ir_const_int(&b, t, 255));
    ValId shifted = binop(&b, OP_SHR, offs, ir_const_int(&b, t, 3));
    /* a start nothing is known about: runs remain, alignment does not */
    ValId s_offs = binop(&b, OP_ADD, splat(&b, stride, t), arange(&b, 0, 1024));
    ValId s_quo = binop(&b, OP_DIV, s_offs, ir_const_int(&b, t, 4));
    ValId hinted = hint(&b, OP_MULTIPLE_OF, s_offs, 1024);
    ValId contig = hint(&b, OP_MAX_CONTIGUOUS, strided, 8);
    ValId back = binop(&b, OP_SUB, offs, arange(&b, 0, 1024));
    /* the tutorial matmul's (pid * BLOCK + arange) % N with N:16 (and N
     * unhinted); a dividend that may be negative keeps nothing (runs break
     * after negative multiples of N) */
    ValId rem_n16 = binop(&b, OP_REM, offs, splat(&b, n16, t));
    ValId rem_n1 = binop(&b, OP_REM, offs, splat(&b, n1, t));
    ValId rem_neg = binop(&b, OP_REM, s_offs, splat(&b, n16, t));
    ValId quo_n = binop(&b, OP_DIV, program_id(&b), n16);

    AxisInfo *ai = axisinfo_compute(fn);
    CHECK_AXIS(&ai[base], 0, 1, 1024, 1);
    CHECK_AXIS(&ai[offs], 0, 1024, 1024, 1);
    CHECK_AXIS(&ai[p16], 0, 1024, 16, 1);         /* bytes: the pointer's hint */
    CHECK_AXIS(&ai[p1], 0, 1024, 2, 1);           /* unhinted f16 pointer: 2-byte aligned */
    CHECK_AXIS(&ai[m16], 0, 1, 1, 16);            /* offs < n flips only at multiples of 16 */
    CHECK_AXIS(&ai[m1], 0, 1, 1, 1);
    CHECK_AXIS(&ai[strided], 0, 1, 1, 1);         /* x * stride: no runs */
    CHECK_AXIS(&ai[rem], 0, 64, 64, 1);
    CHECK_AXIS(&ai[quo], 0, 1, 1, 64);
    CHECK_AXIS(&ai[masked], 0, 256, 256, 1);
    CHECK_AXIS(&ai[shifted], 0, 1, 1, 8);
    CHECK_AXIS(&ai[s_offs], 0, 1024, 1, 1);
    CHECK_AXIS(&ai[s_quo], 0, 1, 1, 1);           /* stride may be negative: C division */
    CHECK_AXIS(&ai[hinted], 0, 1024, 1024, 1);
    CHECK_AXIS(&ai[contig], 0, 8, 1, 1);
    CHECK_AXIS(&ai[back], 0, 1, 1, 1);            /* pid * 1024, but not provably */
    CHECK_AXIS(&ai[rem_n16], 0, 16, 16, 1);
    CHECK_AXIS(&ai[rem_n1], 0, 1, 1, 1);
    CHECK_AXIS(&ai[rem_neg], 0, 1, 1, 1);
    CHECK_AXIS(&ai[quo_n], 0, 1, 1, 1);
    ctx_free(c);
}

/* 2-D: x + rows[:, None] * stride + cols[None, :] and its transpose */
static void test_2d(void) {
    Ctx *c;
    IrBuilder b;
    IrFunc *fn = new_func(&c, &b);
    ValId x = ir_param_add(fn, "x", ir_ptr(ET_F32), 16);
    ValId stride = ir_param_add(fn, "stride", I32, 16);
    ValId odd = ir_param_add(fn, "odd", I32, 1);
    ValId rows = binop(&b, OP_ADD, splat(&b, binop(&b, OP_MUL, program_id(&b), ir_const_int(&b, I32, 32)),
                                         tile1(ET_I32, 32)),
                       arange(&b, 0, 32));
    ValId cols = arange(&b, 0, 64);
    ValId r2 = expand(&b, rows, 1);                     /* 32x1 */
    ValId rs = binop(&b, OP_MUL, r2, splat(&b, stride, ir_type(fn, r2)));
    ValId c2 = expand(&b, cols, 0);                     /* 1x64 */
    ValId offs = binop(&b, OP_ADD, bcast(&b, rs, 32, 64), bcast(&b, c2, 32, 64));
    IrType pt = tile2(ir_ptr(ET_F32), 32, 64);
    ValId ptrs = ir_build2(&b, OP_ADDPTR, pt, splat(&b, x, pt), offs);
    /* column-major: rows + cols * odd_stride */
    ValId cs = binop(&b, OP_MUL, c2, splat(&b, odd, ir_type(fn, c2)));
    ValId offs_t = binop(&b, OP_ADD, bcast(&b, r2, 32, 64), bcast(&b, cs, 32, 64));
    ValId ptrs_t = ir_build2(&b, OP_ADDPTR, pt, splat(&b, x, pt), offs_t);

    AxisInfo *ai = axisinfo_compute(fn);
    CHECK_AXIS(&ai[r2], 0, 32, 32, 1);
    CHECK_AXIS(&ai[r2], 1, 1, 1, 1);    /* every element is its own run along the new dim */
    CHECK_AXIS(&ai[c2], 0, 1, 1, 1);    /* 0, 1, 2, ...: only 1 divides them all */
    CHECK_AXIS(&ai[c2], 1, 64, BIG, 1);
    CHECK_AXIS(&ai[rs], 0, 1, 16, 1);
    CHECK_AXIS(&ai[offs], 0, 1, 1, 1);
    CHECK_AXIS(&ai[offs], 1, 64, 16, 1);
    CHECK_AXIS(&ai[ptrs], 1, 64, 16, 1);
    CHECK_AXIS(&ai[ptrs], 0, 1, 4, 1);
    CHECK_AXIS(&ai[ptrs_t], 0, 32, 4, 1);   /* contiguous down the columns, 4-byte aligned */
    CHECK_AXIS(&ai[ptrs_t], 1, 1, 4, 1);
    ctx_free(c);
}

/* Loop-carried pointers: p = x + arange(64); for ...: p += step */
static void test_loop(void) {
    Ctx *c;
    IrBuilder b;
    IrFunc *fn = new_func(&c, &b);
    ValId x = ir_param_add(fn, "x", ir_ptr(ET_F32), 16);
    ValId k = ir_param_add(fn, "k", I32, 1);
    IrType pt = ir_tile(ir_ptr(ET_F32), 1, (int32_t[]){64});
    ValId p0 = ir_build2(&b, OP_ADDPTR, pt, splat(&b, x, pt), arange(&b, 0, 64));
    ValId lb = ir_const_int(&b, I32, 0), step = ir_const_int(&b, I32, 32);
    ValId outs[2];
    for (int variant = 0; variant < 2; variant++) {
        ValId ops[4] = {lb, k, step, p0};
        IrOp *loop = ir_build(&b, OP_FOR, ops, 4, &pt, 1, 1);
        IrBlock *body = loop->regions[0];
        ValId iv = ir_block_add_arg(fn, body, I32);
        ValId arg = ir_block_add_arg(fn, body, pt);
        IrBuilder in = {fn, body, NULL, {0}};
        ValId inc = ir_const_int(&in, I32, variant ? 3 : 64);
        ValId next = ir_build2(&in, OP_ADDPTR, pt, arg, splat(&in, inc, pt));
        ir_build(&in, OP_YIELD, &next, 1, NULL, 0, 0);
        outs[variant] = loop->results[0];
        if (!variant) {
            AxisInfo *ai = axisinfo_compute(fn);
            CHECK_AXIS(&ai[iv], 0, 1, 32, 1);     /* 0 + i * 32 */
            CHECK_AXIS(&ai[arg], 0, 64, 16, 1);
            CHECK_AXIS(&ai[next], 0, 64, 16, 1);
        }
    }
    AxisInfo *ai = axisinfo_compute(fn);
    CHECK_AXIS(&ai[outs[0]], 0, 64, 16, 1);
    CHECK_AXIS(&ai[outs[1]], 0, 64, 4, 1);        /* += 3 elements: only 4-byte aligned */
    ctx_free(c);
}

/* if results keep only what both branches prove */
static void test_if(void) {
    Ctx *c;
    IrBuilder b;
    IrFunc *fn = new_func(&c, &b);
    ValId flag = ir_param_add(fn, "flag", ir_scalar(ET_I1), 1);
    IrType t = tile1(ET_I32, 128);
    IrOp *op = ir_build(&b, OP_IF, &flag, 1, &t, 1, 2);
    IrBuilder th = {fn, op->regions[0], NULL, {0}}, el = {fn, op->regions[1], NULL, {0}};
    ValId a = arange(&th, 0, 128);
    ir_build(&th, OP_YIELD, &a, 1, NULL, 0, 0);
    ValId e = binop(&el, OP_ADD, arange(&el, 0, 128), ir_const_int(&el, t, 8));
    ir_build(&el, OP_YIELD, &e, 1, NULL, 0, 0);
    AxisInfo *ai = axisinfo_compute(fn);
    CHECK_AXIS(&ai[op->results[0]], 0, 128, 8, 1);
    ctx_free(c);
}

/* Triton's rules for % and / where x's sign is unknown but x is consecutive
 * along the whole dim and y constant along it; tl.assume(x >= 0) where
 * they do not reach. */
static void test_assume_and_triton_rules(void) {
    Ctx *c;
    IrBuilder b;
    IrFunc *fn = new_func(&c, &b);
    ValId n16 = ir_param_add(fn, "n", I32, 16);
    IrType t = tile1(ET_I32, 1024);
    /* q = pid / n: pid >= 0 but n may be negative, so q may be */
    ValId q = binop(&b, OP_DIV, program_id(&b), n16);
    ValId offs = binop(&b, OP_ADD, splat(&b, binop(&b, OP_MUL, q, ir_const_int(&b, I32, 1024)), t),
                       arange(&b, 0, 1024));
    ValId rem = binop(&b, OP_REM, offs, splat(&b, n16, t));           /* the tutorial's % N */
    ValId quo = binop(&b, OP_DIV, offs, splat(&b, n16, t));
    ValId quo8 = binop(&b, OP_DIV, offs, ir_const_int(&b, t, 8));
    /* runs of 64 that are not the whole dim: only x >= 0 keeps them */
    ValId r64 = binop(&b, OP_REM, offs, ir_const_int(&b, t, 64));
    ValId r64_n = binop(&b, OP_REM, r64, splat(&b, n16, t));
    /* the same from d = pid - n, which tl.assume(d >= 0) says is non-negative */
    ValId d = binop(&b, OP_SUB, program_id(&b), n16);
    ValId zero = ir_const_int(&b, I32, 0);
    ValId ge = ir_build2(&b, OP_CMP, ir_scalar(ET_I1), zero, d);
    fn->vals[ge].def->attr.i = CMP_LE;                                  /* 0 <= d */
    ir_build(&b, OP_ASSUME, &ge, 1, NULL, 0, 0);
    ValId offs_d = binop(&b, OP_ADD, splat(&b, binop(&b, OP_MUL, d, ir_const_int(&b, I32, 1024)), t),
                         arange(&b, 0, 1024));
    ValId r64_d = binop(&b, OP_REM, binop(&b, OP_REM, offs_d, ir_const_int(&b, t, 64)), splat(&b, n16, t));

    AxisInfo *ai = axisinfo_compute(fn);
    CHECK_AXIS(&ai[rem], 0, 16, 16, 1);
    CHECK_AXIS(&ai[quo], 0, 1, 1, 16);
    CHECK_AXIS(&ai[quo8], 0, 1, 1, 8);
    CHECK_AXIS(&ai[r64], 0, 64, 64, 1);
    CHECK_AXIS(&ai[r64_n], 0, 1, 1, 1);      /* r64 may be negative: nothing */
    CHECK_AXIS(&ai[r64_d], 0, 16, 16, 1);    /* d >= 0 by tl.assume */
    ctx_free(c);
}

int main(void) {
    test_assume_and_triton_rules();
    test_vector_offsets();
    test_2d();
    test_loop();
    test_if();
    if (failures) {
        printf("test_axisinfo: %d checks failed\n", failures);
        return 1;
    }
    return 0;
}
