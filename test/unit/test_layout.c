/* Linear layouts (ir/layout.c) and layout assignment (opt/layout.c):
 * coordinates of blocked layouts for known configurations, projections and
 * their round trips, the inverse map, and pass_layout on small functions
 * built with the IR builder. */
#include "base/base.h"
#include "ir/ir.h"
#include "opt/opt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static void print_layout(const char *what, const Layout *l) {
    Buf b = {0};
    layout_print(&b, l);
    printf("  %s: %s\n", what, b.data);
    buf_free(&b);
}

/* Every element held by (reg, lane, warp) is found again by layout_find at
 * an input that maps to the same coordinate, and every coordinate of the
 * tile has a holder. */
static void check_inverse(const Layout *l) {
    int nw = 1 << l->n_bits[LL_WARP];
    int64_t numel = 1;
    for (int d = 0; d < l->rank; d++) numel *= l->shape[d];
    for (int w = 0; w < nw; w++)
        for (int t = 0; t < 32; t++)
            for (int r = 0; r < layout_n_regs(l); r++) {
                int32_t c[IR_MAX_RANK], c2[IR_MAX_RANK];
                int fr, ft, fw;
                layout_coord(l, r, t, w, c);
                bool found = layout_find(l, c, &fr, &ft, &fw);
                CHECK(found);
                if (!found) return;
                layout_coord(l, fr, ft, fw, c2);
                CHECK(!memcmp(c, c2, sizeof(int32_t) * l->rank));
                /* first holder: never later than this one */
                CHECK(fw < w || (fw == w && (ft < t || (ft == t && fr <= r))));
            }
    for (int64_t i = 0; i < numel; i++) {
        int32_t c[IR_MAX_RANK];
        int64_t rest = i;
        for (int d = l->rank - 1; d >= 0; d--) {
            c[d] = (int32_t)(rest % l->shape[d]);
            rest /= l->shape[d];
        }
        int fr, ft, fw;
        CHECK(layout_find(l, c, &fr, &ft, &fw));
    }
}

/* 1024 f32 over 4 warps, 4 per thread: thread t holds 4t..4t+3 in regs 0..3
 * and 512+4t.. in regs 4..7 (the tile wraps around once). */
static void test_blocked_1d(void) {
    int32_t shape[1] = {1024}, spt[1] = {4}, tpw[1] = {32}, wpc[1] = {4}, order[1] = {0};
    Layout l = layout_blocked(1, shape, spt, tpw, wpc, order, 4);
    CHECK(layout_n_regs(&l) == 8);
    CHECK(l.n_bits[LL_LANE] == 5 && l.n_bits[LL_WARP] == 2);
    for (int w = 0; w < 4; w++)
        for (int lane = 0; lane < 32; lane++)
            for (int r = 0; r < 8; r++) {
                int32_t c;
                int t = w * 32 + lane;
                layout_coord(&l, r, lane, w, &c);
                CHECK(c == (r < 4 ? 4 * t + r : 512 + 4 * t + (r - 4)));
            }
    CHECK(layout_contig_regs(&l, 0) == 4);
    Layout d = layout_default(1, shape, 4, 4);
    CHECK(layout_eq(&d, &l));
    check_inverse(&l);
    Buf b = {0};
    layout_print(&b, &l);
    CHECK(!strcmp(b.data, "linear<[1024] reg=[[1],[2],[512]] lane=[[4],[8],[16],[32],[64]] "
                          "warp=[[128],[256]]>"));
    buf_free(&b);
}

/* A 64x64 tile, 4 per thread along dim 1, lanes 2x16, warps 4x1, order
 * [1, 0]: lane l holds row (l/16) + 2*warp, columns 4*(l%16).. ; the tile
 * wraps around 8 times along dim 0 (rows + 8k). */
static void test_blocked_2d(void) {
    int32_t shape[2] = {64, 64}, spt[2] = {1, 4}, tpw[2] = {2, 16}, wpc[2] = {4, 1};
    int32_t order[2] = {1, 0};
    Layout l = layout_blocked(2, shape, spt, tpw, wpc, order, 4);
    CHECK(layout_n_regs(&l) == 32);
    for (int w = 0; w < 4; w++)
        for (int lane = 0; lane < 32; lane++)
            for (int r = 0; r < 32; r++) {
                int32_t c[2];
                layout_coord(&l, r, lane, w, c);
                int row = lane / 16 + 2 * w + 8 * (r / 4), col = 4 * (lane % 16) + r % 4;
                CHECK(c[0] == row && c[1] == col);
            }
    CHECK(layout_contig_regs(&l, 1) == 4);
    CHECK(layout_contig_regs(&l, 0) == 1);
    check_inverse(&l);

    /* the default layout of the same shape with vec 4 is the same blocked layout */
    Layout d = layout_default(2, shape, 4, 4);
    CHECK(layout_eq(&d, &l));

    /* column-major: fastest dim 0 */
    int32_t spt_c[2] = {4, 1}, tpw_c[2] = {16, 2}, wpc_c[2] = {1, 4}, order_c[2] = {0, 1};
    Layout c = layout_blocked(2, shape, spt_c, tpw_c, wpc_c, order_c, 4);
    CHECK(layout_contig_regs(&c, 0) == 4 && layout_contig_regs(&c, 1) == 1);
    int32_t xy[2];
    layout_coord(&c, 2, 17, 1, xy);   /* lane 17: row 4*1+2, col 1 + 2*warp 1 */
    CHECK(xy[0] == 6 && xy[1] == 3);
    check_inverse(&c);
}

/* A tile smaller than what the threads cover: surplus lanes/warps replicate. */
static void test_replication(void) {
    int32_t shape[2] = {4, 8};
    Layout l = layout_default(2, shape, 1, 4);
    CHECK(layout_n_regs(&l) == 1);
    int zero_lanes = 0, zero_warps = 0;
    for (int k = 0; k < 5; k++)
        if (!l.basis[LL_LANE][k][0] && !l.basis[LL_LANE][k][1]) zero_lanes++;
    for (int k = 0; k < 2; k++)
        if (!l.basis[LL_WARP][k][0] && !l.basis[LL_WARP][k][1]) zero_warps++;
    CHECK(zero_lanes == 0 && zero_warps == 2);   /* 32 lanes cover 4x8 exactly */
    int32_t c[2];
    layout_coord(&l, 0, 9, 0, c);   /* lanes fill dim 1 first */
    CHECK(c[0] == 1 && c[1] == 1);
    layout_coord(&l, 0, 9, 3, c);   /* warps 1..3 hold copies */
    CHECK(c[0] == 1 && c[1] == 1);
    check_inverse(&l);
    int r, lane, w;
    CHECK(layout_find(&l, c, &r, &lane, &w) && r == 0 && lane == 9 && w == 0);

    int32_t tiny[1] = {16};
    Layout t = layout_default(1, tiny, 4, 2);
    CHECK(layout_n_regs(&t) == 4 && layout_contig_regs(&t, 0) == 4);
    check_inverse(&t);
    int32_t out_of_range[1] = {16};
    CHECK(!layout_find(&t, out_of_range, &r, &lane, &w));
}

/* project/drop/add: a broadcast operand's layout is the projection; an
 * expand_dims operand's layout is drop_dim, and add_dim undoes it. */
static void test_project_drop_add(void) {
    int32_t shape[2] = {64, 64};
    Layout l = layout_default(2, shape, 4, 4);
    int32_t col_shape[2] = {64, 1};
    Layout p = layout_project(&l, col_shape);
    CHECK(p.shape[0] == 64 && p.shape[1] == 1);
    CHECK(layout_n_regs(&p) == 8);   /* the 4 registers along dim 1 are gone */
    for (int k = 0; k < 5; k++) CHECK(p.basis[LL_LANE][k][1] == 0);
    /* each thread still holds its rows */
    for (int w = 0; w < 4; w++)
        for (int lane = 0; lane < 32; lane++)
            for (int r = 0; r < 8; r++) {
                int32_t a[2], b[2];
                layout_coord(&p, r, lane, w, a);
                layout_coord(&l, r * 4, lane, w, b);
                CHECK(a[0] == b[0] && a[1] == 0);
            }
    Layout dropped = layout_drop_dim(&p, 1);
    CHECK(dropped.rank == 1 && dropped.shape[0] == 64 && layout_n_regs(&dropped) == 8);
    Layout back = layout_add_dim(&dropped, 1);
    CHECK(layout_eq(&back, &p));
    check_inverse(&dropped);

    int32_t row_shape[2] = {1, 64};
    Layout q = layout_project(&l, row_shape);
    CHECK(layout_n_regs(&q) == 4 && layout_contig_regs(&q, 1) == 4);
    Layout qd = layout_drop_dim(&q, 0);
    Layout qb = layout_add_dim(&qd, 0);
    CHECK(layout_eq(&qb, &q));
    CHECK(!layout_eq(&q, &p));
    /* a 1-D default layout is the projection of nothing special: add_dim then
     * drop_dim is the identity */
    int32_t s1[1] = {128};
    Layout one = layout_default(1, s1, 2, 4);
    Layout ad = layout_add_dim(&one, 0);
    Layout da = layout_drop_dim(&ad, 0);
    CHECK(layout_eq(&da, &one));
    CHECK(ad.rank == 2 && ad.shape[0] == 1 && ad.shape[1] == 128);
}

static void test_contig_regs(void) {
    int32_t shape[1] = {256}, spt[1] = {8}, tpw[1] = {32}, wpc[1] = {1}, order[1] = {0};
    Layout l = layout_blocked(1, shape, spt, tpw, wpc, order, 1);
    CHECK(layout_contig_regs(&l, 0) == 8);
    int32_t spt1[1] = {1};
    Layout s = layout_blocked(1, shape, spt1, tpw, wpc, order, 1);
    CHECK(layout_n_regs(&s) == 8 && layout_contig_regs(&s, 0) == 1);
    /* a register bit mapping to a non-unit vector stops the run */
    Layout m = l;
    m.basis[LL_REG][2][0] = 12;
    CHECK(layout_contig_regs(&m, 0) == 4);
    /* ... and one with low bits breaks the runs below it too: registers 2, 3
     * hold elements 3, 2, so even pairs are not in order */
    m.basis[LL_REG][1][0] = 3;
    CHECK(layout_contig_regs(&m, 0) == 1);
    /* a lane bit that duplicates a register bit: lane 1 holds 1, 0 */
    Layout dup = l;
    dup.basis[LL_LANE][0][0] = 1;
    CHECK(layout_contig_regs(&dup, 0) == 1);
}


/* ---- pass_layout on functions built with the IR builder ---- */

#define I32 ir_scalar(ET_I32)

static IrType tile_of(IrType scalar, int rank, int32_t m, int32_t n) {
    int32_t shape[2] = {m, n};
    if (rank == 1) shape[0] = n;
    return ir_tile(scalar, rank, shape);
}

static ValId arange(IrBuilder *b, int32_t n) {
    IrType t = tile_of(I32, 1, 1, n);
    IrOp *op = ir_build(b, OP_ARANGE, NULL, 0, &t, 1, 0);
    op->attr.i2 = n;
    return op->results[0];
}

static ValId program_id(IrBuilder *b, int axis) {
    IrType t = I32;
    IrOp *op = ir_build(b, OP_PROGRAM_ID, NULL, 0, &t, 1, 0);
    op->attr.i = axis;
    return op->results[0];
}

static ValId splat_to(IrBuilder *b, ValId s, IrType like) {
    return ir_build1(b, OP_SPLAT, ir_with_elem(like, ir_type(b->fn, s)), s);
}

static ValId expand(IrBuilder *b, ValId x, int axis) {
    IrType t = ir_type(b->fn, x);
    IrType r = axis ? tile_of(ir_elem_of(t), 2, t.shape[0], 1) : tile_of(ir_elem_of(t), 2, 1, t.shape[0]);
    IrOp *op = ir_build(b, OP_EXPAND_DIMS, &x, 1, &r, 1, 0);
    op->attr.i = axis;
    return op->results[0];
}

static ValId bcast(IrBuilder *b, ValId x, int32_t m, int32_t n) {
    return ir_build1(b, OP_BROADCAST, tile_of(ir_elem_of(ir_type(b->fn, x)), 2, m, n), x);
}

static ValId binop(IrBuilder *b, Opcode opc, ValId x, ValId y) {
    return ir_build2(b, opc, ir_type(b->fn, x), x, y);
}

static ValId less(IrBuilder *b, ValId x, ValId y) {
    ValId r = ir_build2(b, OP_CMP, ir_with_elem(ir_type(b->fn, x), ir_scalar(ET_I1)), x, y);
    b->fn->vals[r].def->attr.i = CMP_LT;
    return r;
}

/* base pointer + offsets (a tile of i32) */
static ValId ptrs(IrBuilder *b, ValId base, ValId offs) {
    IrType t = ir_with_elem(ir_type(b->fn, offs), ir_type(b->fn, base));
    return ir_build2(b, OP_ADDPTR, t, splat_to(b, base, t), offs);
}

static ValId load(IrBuilder *b, ValId p, ValId mask) {
    IrType pt = ir_type(b->fn, p);
    IrType t = ir_with_elem(pt, ir_scalar((ElemType)pt.pointee));
    ValId ops[2] = {p, mask};
    return ir_build(b, OP_LOAD, ops, mask ? 2 : 1, &t, 1, 0)->results[0];
}

static IrOp *store(IrBuilder *b, ValId p, ValId v, ValId mask) {
    ValId ops[3] = {p, v, mask};
    return ir_build(b, OP_STORE, ops, mask ? 3 : 2, NULL, 0, 0);
}

static IrFunc *new_func(Ctx **c, IrBuilder *b, int num_warps) {
    Target t = {.sm = 80, .num_warps = num_warps, .num_stages = 3};
    *c = ctx_new(&t);
    IrFunc *fn = ir_func_new(*c, "k");
    IrBuilder init = {fn, fn->body, NULL, {0}};
    *b = init;
    return fn;
}

typedef struct Census {
    int converts, tiles, tiles_without_layout;
} Census;

static void census_op(IrFunc *fn, IrOp *op, void *ud) {
    Census *c = ud;
    if (op->opc == OP_CONVERT_LAYOUT) c->converts++;
    for (uint32_t i = 0; i < op->n_results; i++) {
        ValId v = op->results[i];
        if (!ir_type(fn, v).rank) continue;
        c->tiles++;
        if (fn->vals[v].layout < 0) c->tiles_without_layout++;
    }
    for (uint32_t r = 0; r < op->n_regions; r++)
        for (uint32_t i = 0; i < op->regions[r]->n_args; i++) {
            ValId v = op->regions[r]->args[i];
            if (ir_type(fn, v).rank && fn->vals[v].layout < 0) c->tiles_without_layout++;
        }
}

/* Runs pass_layout and the verifier; returns the number of converts. */
static int run_layout(IrFunc *fn) {
    pass_layout(fn);
    Buf why = {0};
    if (!ir_verify(fn, &why)) {
        printf("verify after pass_layout failed:\n%s", why.data);
        failures++;
    }
    buf_free(&why);
    Census c = {0, 0, 0};
    ir_walk(fn, fn->body, census_op, &c);
    CHECK(c.tiles > 0 && c.tiles_without_layout == 0);
    return c.converts;
}

static void dump_on_failure(IrFunc *fn, int failures_before) {
    if (failures == failures_before) return;
    Buf b = {0};
    ir_print(&b, fn);
    printf("%s", b.data);
    buf_free(&b);
}

/* out[i] = x[i] + y[i] over BLOCK elements per program, masked by i < n. */
typedef struct VecAdd {
    ValId x, y;
    IrOp *st;
} VecAdd;

static VecAdd build_vector_add(IrFunc *fn, IrBuilder *b, int32_t block, int32_t n_div, int32_t x_div) {
    IrType pf = ir_ptr(ET_F32);
    ValId xp = ir_param_add(fn, "x", pf, x_div), yp = ir_param_add(fn, "y", pf, 16);
    ValId op = ir_param_add(fn, "out", pf, 16), n = ir_param_add(fn, "n", I32, n_div);
    ValId base = binop(b, OP_MUL, program_id(b, 0), ir_const_int(b, I32, block));
    ValId ar = arange(b, block);
    ValId offs = binop(b, OP_ADD, splat_to(b, base, ir_type(fn, ar)), ar);
    ValId mask = less(b, offs, splat_to(b, n, ir_type(fn, offs)));
    VecAdd v;
    v.x = load(b, ptrs(b, xp, offs), mask);
    v.y = load(b, ptrs(b, yp, offs), mask);
    ValId sum = binop(b, OP_ADD, v.x, v.y);
    v.st = store(b, ptrs(b, op, offs), sum, mask);
    ir_build(b, OP_RET, NULL, 0, NULL, 0, 0);
    return v;
}

/* 1024 f32, n divisible by 16: 16-byte accesses, thread t holds 4t..4t+3,
 * and nothing to convert. */
static void test_pass_vector_add(void) {
    int before = failures;
    Ctx *c;
    IrBuilder b;
    IrFunc *fn = new_func(&c, &b, 4);
    VecAdd v = build_vector_add(fn, &b, 1024, 16, 16);
    CHECK(run_layout(fn) == 0);
    const Layout *lx = ir_layout(fn, v.x);
    CHECK(lx && layout_contig_regs(lx, 0) == 4);
    int32_t shape[1] = {1024};
    Layout want = layout_default(1, shape, 4, 4);
    CHECK(lx && layout_eq(lx, &want));
    CHECK(fn->vals[v.x].def->attr.vec == 4 && fn->vals[v.y].def->attr.vec == 4);
    CHECK(v.st->attr.vec == 4);
    CHECK(fn->vals[v.st->operands[1]].layout == fn->vals[v.x].layout);
    dump_on_failure(fn, before);
    ctx_free(c);

    /* n without the hint: the mask may change inside any group of 4 */
    before = failures;
    fn = new_func(&c, &b, 4);
    v = build_vector_add(fn, &b, 1024, 1, 16);
    CHECK(run_layout(fn) == 0);
    CHECK(fn->vals[v.x].def->attr.vec == 1 && v.st->attr.vec == 1);
    CHECK(layout_contig_regs(ir_layout(fn, v.x), 0) == 1);
    dump_on_failure(fn, before);
    ctx_free(c);

    /* 128 elements over 2 warps: 2 per thread */
    before = failures;
    fn = new_func(&c, &b, 2);
    v = build_vector_add(fn, &b, 128, 16, 16);
    CHECK(run_layout(fn) == 0);
    CHECK(fn->vals[v.x].def->attr.vec == 2 && layout_n_regs(ir_layout(fn, v.x)) == 2);
    dump_on_failure(fn, before);
    ctx_free(c);

    /* x without the alignment hint: x's accesses are 4 bytes, y's and out's
     * stay 16. x's load takes the sum's layout (4 consecutive elements per
     * thread, as coalesced) rather than needing a convert after it. */
    before = failures;
    fn = new_func(&c, &b, 4);
    v = build_vector_add(fn, &b, 1024, 16, 1);
    CHECK(run_layout(fn) == 0);
    CHECK(fn->vals[v.x].def->attr.vec == 1 && fn->vals[v.y].def->attr.vec == 4 && v.st->attr.vec == 4);
    CHECK(fn->vals[v.x].layout == fn->vals[v.y].layout);
    dump_on_failure(fn, before);
    ctx_free(c);
}

/* out[m, n] = x[m, n] * scale[m] + bias[n] on a 32x64 tile: x[:, None] and
 * y[None, :] broadcasting, a 2-D mask; nothing to convert. */
static void test_pass_broadcast_2d(void) {
    int before = failures;
    Ctx *c;
    IrBuilder b;
    IrFunc *fn = new_func(&c, &b, 4);
    IrType pf = ir_ptr(ET_F32);
    ValId xp = ir_param_add(fn, "x", pf, 16), sp = ir_param_add(fn, "scale", pf, 16);
    ValId bp = ir_param_add(fn, "bias", pf, 16), op = ir_param_add(fn, "out", pf, 16);
    ValId M = ir_param_add(fn, "M", I32, 16), N = ir_param_add(fn, "N", I32, 16);
    ValId sx = ir_param_add(fn, "stride_x", I32, 16), so = ir_param_add(fn, "stride_o", I32, 16);
    ValId am = arange(&b, 32), an = arange(&b, 64);
    ValId bm = binop(&b, OP_MUL, program_id(&b, 0), ir_const_int(&b, I32, 32));
    ValId bn = binop(&b, OP_MUL, program_id(&b, 1), ir_const_int(&b, I32, 64));
    ValId offs_m = binop(&b, OP_ADD, splat_to(&b, bm, ir_type(fn, am)), am);
    ValId offs_n = binop(&b, OP_ADD, splat_to(&b, bn, ir_type(fn, an)), an);
    ValId mask_m = less(&b, offs_m, splat_to(&b, M, ir_type(fn, am)));
    ValId mask_n = less(&b, offs_n, splat_to(&b, N, ir_type(fn, an)));
    ValId mask = binop(&b, OP_AND, bcast(&b, expand(&b, mask_m, 1), 32, 64),
                       bcast(&b, expand(&b, mask_n, 0), 32, 64));
    ValId em = expand(&b, offs_m, 1), en = bcast(&b, expand(&b, offs_n, 0), 32, 64);
    ValId xrow = binop(&b, OP_MUL, em, splat_to(&b, sx, ir_type(fn, em)));
    ValId orow = binop(&b, OP_MUL, em, splat_to(&b, so, ir_type(fn, em)));
    ValId xo = binop(&b, OP_ADD, bcast(&b, xrow, 32, 64), en);
    ValId oo = binop(&b, OP_ADD, bcast(&b, orow, 32, 64), en);
    ValId x = load(&b, ptrs(&b, xp, xo), mask);
    ValId scale = load(&b, ptrs(&b, sp, offs_m), mask_m);
    ValId bias = load(&b, ptrs(&b, bp, offs_n), mask_n);
    ValId out = binop(&b, OP_ADD, binop(&b, OP_MUL, x, bcast(&b, expand(&b, scale, 1), 32, 64)),
                      bcast(&b, expand(&b, bias, 0), 32, 64));
    IrOp *st = store(&b, ptrs(&b, op, oo), out, mask);
    ir_build(&b, OP_RET, NULL, 0, NULL, 0, 0);

    CHECK(run_layout(fn) == 0);
    const Layout *lx = ir_layout(fn, x);
    CHECK(layout_contig_regs(lx, 1) == 4 && fn->vals[x].def->attr.vec == 4 && st->attr.vec == 4);
    /* the 32x64 tile: 16 lanes along a row (4 each), 2 rows per warp */
    int32_t xy[2];
    layout_coord(lx, 0, 17, 1, xy);
    CHECK(xy[0] == 3 && xy[1] == 4);
    /* the 1-D loads produce the broadcast operands' layouts directly */
    int32_t col[2] = {32, 1};
    Layout want_s = layout_project(lx, col);
    want_s = layout_drop_dim(&want_s, 1);
    CHECK(layout_eq(ir_layout(fn, scale), &want_s));
    CHECK(layout_contig_regs(ir_layout(fn, bias), 0) == 4 && fn->vals[bias].def->attr.vec == 4);
    dump_on_failure(fn, before);
    ctx_free(c);
}

/* Transpose: the load runs along rows, the store along columns. The data
 * must move between threads (one convert); the mask, index math only, is
 * computed again in the other layout. */
static void test_pass_transpose(void) {
    int before = failures;
    Ctx *c;
    IrBuilder b;
    IrFunc *fn = new_func(&c, &b, 4);
    IrType pf = ir_ptr(ET_F32);
    ValId xp = ir_param_add(fn, "x", pf, 16), op = ir_param_add(fn, "out", pf, 16);
    ValId M = ir_param_add(fn, "M", I32, 16), N = ir_param_add(fn, "N", I32, 16);
    ValId ar = arange(&b, 32);
    ValId rm = binop(&b, OP_ADD, splat_to(&b, binop(&b, OP_MUL, program_id(&b, 0), ir_const_int(&b, I32, 32)),
                                          ir_type(fn, ar)), ar);
    ValId rn = binop(&b, OP_ADD, splat_to(&b, binop(&b, OP_MUL, program_id(&b, 1), ir_const_int(&b, I32, 32)),
                                          ir_type(fn, ar)), ar);
    ValId rm2 = expand(&b, rm, 1), rn2 = expand(&b, rn, 0);
    ValId mask = binop(&b, OP_AND, bcast(&b, less(&b, rm2, splat_to(&b, M, ir_type(fn, rm2))), 32, 32),
                       bcast(&b, less(&b, rn2, splat_to(&b, N, ir_type(fn, rn2))), 32, 32));
    ValId xo = binop(&b, OP_ADD, bcast(&b, binop(&b, OP_MUL, rm2, splat_to(&b, N, ir_type(fn, rm2))), 32, 32),
                     bcast(&b, rn2, 32, 32));
    ValId oo = binop(&b, OP_ADD, bcast(&b, binop(&b, OP_MUL, rn2, splat_to(&b, M, ir_type(fn, rn2))), 32, 32),
                     bcast(&b, rm2, 32, 32));
    ValId tile = load(&b, ptrs(&b, xp, xo), mask);
    IrOp *st = store(&b, ptrs(&b, op, oo), tile, mask);
    ir_build(&b, OP_RET, NULL, 0, NULL, 0, 0);

    CHECK(run_layout(fn) == 1);
    const Layout *ll = ir_layout(fn, tile), *ls = ir_layout(fn, st->operands[1]);
    CHECK(layout_contig_regs(ll, 1) == 4 && layout_contig_regs(ll, 0) == 1);
    CHECK(layout_contig_regs(ls, 0) == 4 && layout_contig_regs(ls, 1) == 1);
    CHECK(fn->vals[tile].def->attr.vec == 4 && st->attr.vec == 4);
    IrOp *conv = fn->vals[st->operands[1]].def;
    CHECK(conv && conv->opc == OP_CONVERT_LAYOUT && conv->operands[0] == tile);
    dump_on_failure(fn, before);
    ctx_free(c);
}

/* acc = 0; for i: acc += x[p]; p += 512 ... ; out = acc: the loop carries
 * the loaded layout, and the zero is created in it. */
static void test_pass_loop(void) {
    int before = failures;
    Ctx *c;
    IrBuilder b;
    IrFunc *fn = new_func(&c, &b, 4);
    IrType pf = ir_ptr(ET_F32);
    ValId xp = ir_param_add(fn, "x", pf, 16), op = ir_param_add(fn, "out", pf, 16);
    ValId k = ir_param_add(fn, "k", I32, 1);
    ValId ar = arange(&b, 512);
    IrType ft = tile_of(ir_scalar(ET_F32), 1, 1, 512);
    ValId zero = ir_const_float(&b, ft, 0.0);
    ValId p0 = ptrs(&b, xp, ar);
    ValId init[5] = {ir_const_int(&b, I32, 0), k, ir_const_int(&b, I32, 1), zero, p0};
    IrType rt[2] = {ft, ir_type(fn, p0)};
    IrOp *loop = ir_build(&b, OP_FOR, init, 5, rt, 2, 1);
    IrBlock *body = loop->regions[0];
    ir_block_add_arg(fn, body, I32);
    ValId acc = ir_block_add_arg(fn, body, ft), p = ir_block_add_arg(fn, body, rt[1]);
    IrBuilder in = {fn, body, NULL, {0}};
    ValId x = load(&in, p, VAL_NONE);
    ValId step = splat_to(&in, ir_const_int(&in, I32, 512), ir_type(fn, ar));
    ValId next[2] = {binop(&in, OP_ADD, acc, x), ir_build2(&in, OP_ADDPTR, rt[1], p, step)};
    ir_build(&in, OP_YIELD, next, 2, NULL, 0, 0);
    ValId out_offs = binop(&b, OP_ADD, ar, ar);    /* stride 2: not contiguous */
    IrOp *st = store(&b, ptrs(&b, op, out_offs), loop->results[0], VAL_NONE);
    ir_build(&b, OP_RET, NULL, 0, NULL, 0, 0);

    int converts = run_layout(fn);
    /* the loaded layout is 4 wide; the strided store wants 1 per access;
     * the convert belongs after the loop, not in it */
    CHECK(fn->vals[x].def->attr.vec == 4 && st->attr.vec == 1);
    CHECK(converts <= 1);
    Census in_body = {0, 0, 0};
    ir_walk(fn, body, census_op, &in_body);
    CHECK(in_body.converts == 0);
    CHECK(fn->vals[acc].layout == fn->vals[x].layout);
    dump_on_failure(fn, before);
    ctx_free(c);
}

/* The shape ops' layouts: every element keeps its holder (thread and
 * register), only its coordinates change as the op says. */
static void test_shape_layouts(void) {
    int32_t shape[2] = {16, 64}, perm[2] = {1, 0}, flat[1] = {1024}, three[3] = {4, 4, 64};
    Layout l = layout_default(2, shape, 4, 4);
    Layout t = layout_permute(&l, perm), r = layout_reshape(&l, 1, flat), r3 = layout_reshape(&l, 3, three);
    Layout j = layout_join(&l), s;
    CHECK(layout_n_regs(&t) == layout_n_regs(&l) && layout_n_regs(&j) == 2 * layout_n_regs(&l));
    CHECK(layout_contig_regs(&r, 0) == 4 && layout_contig_regs(&t, 0) == 4 && layout_contig_regs(&t, 1) == 1);
    CHECK(layout_contig_regs(&j, 2) == 2);
    for (int w = 0; w < 4; w++)
        for (int ln = 0; ln < 32; ln++)
            for (int reg = 0; reg < layout_n_regs(&l); reg++) {
                int32_t c[IR_MAX_RANK], ct[IR_MAX_RANK], cr[IR_MAX_RANK], c3[IR_MAX_RANK], cj[IR_MAX_RANK];
                layout_coord(&l, reg, ln, w, c);
                layout_coord(&t, reg, ln, w, ct);
                layout_coord(&r, reg, ln, w, cr);
                layout_coord(&r3, reg, ln, w, c3);
                CHECK(ct[0] == c[1] && ct[1] == c[0]);
                CHECK(cr[0] == c[0] * 64 + c[1]);
                CHECK(c3[0] * 256 + c3[1] * 64 + c3[2] == cr[0]);
                for (int k = 0; k < 2; k++) {   /* register bit 0 picks the half */
                    layout_coord(&j, 2 * reg + k, ln, w, cj);
                    CHECK(cj[0] == c[0] && cj[1] == c[1] && cj[2] == k);
                }
            }
    CHECK(layout_split(&j, &s) && layout_eq(&s, &l));
    CHECK(!layout_split(&l, &s));                   /* last dim 64, not 2 */
    int32_t pair[2] = {128, 2};
    Layout lanes = layout_default(2, pair, 1, 4);   /* the pair split across lanes */
    CHECK(!layout_split(&lanes, &s));
}


/* ---- dot: mma.sync layouts against the fragment tables of doc/ptx.md ---- */

/* Element (row, col) of fragment element e in lane l, by the PTX tables: A
 * (M x K) and B (K x N) for p = 32 / bits elements per 32-bit register
 * (element e is register e / p, part e % p), C for the accumulator. */
static void frag_a(int p, int l, int e, int32_t *rc) {
    int g = l / 4, t = l % 4, reg = e / p, part = e % p;
    if (p == 1) {   /* tf32: (g, t), (g+8, t), (g, t+4), (g+8, t+4) */
        rc[0] = g + 8 * (reg & 1);
        rc[1] = t + 4 * (reg >> 1);
        return;
    }
    rc[0] = g + 8 * (reg & 1);
    rc[1] = p * t + part + 4 * p * (reg >> 1);   /* 16-bit: 2t + 8; 8-bit: 4t + 16 */
}

static void frag_b(int p, int l, int e, int32_t *rc) {
    int g = l / 4, t = l % 4, reg = e / p, part = e % p;
    rc[0] = p * t + part + 4 * p * reg;
    rc[1] = g;
}

static void frag_c(int l, int e, int32_t *rc) {
    rc[0] = l / 4 + 8 * (e >> 1);
    rc[1] = 2 * (l % 4) + (e & 1);
}

/* Every element of the tile is held exactly once per distinct thread set:
 * counts[flat] over all (reg, lane, warp) equals the replication factor. */
static void check_each_once(const Layout *l, int expect) {
    int64_t numel = 1;
    for (int d = 0; d < l->rank; d++) numel *= l->shape[d];
    int *count = calloc((size_t)numel, sizeof(int));
    for (int w = 0; w < 1 << l->n_bits[LL_WARP]; w++)
        for (int t = 0; t < 32; t++)
            for (int r = 0; r < layout_n_regs(l); r++) {
                int32_t c[IR_MAX_RANK];
                layout_coord(l, r, t, w, c);
                count[layout_flat_index(l->rank, l->shape, c)]++;
            }
    bool ok = true;
    for (int64_t i = 0; i < numel; i++) ok &= count[i] == expect;
    CHECK_MSG(ok, "a layout of %lld elements does not hold each %d times", (long long)numel, expect);
    free(count);
}

/* One dot configuration: the accumulator and operands' registers, at the
 * indices layout.c documents, hold the fragments of one mma per (batch
 * entry, m16 tile, n8 tile, k-step), in every lane of every warp. */
static void check_mma_config(int rank, int32_t bsz, int32_t m, int32_t n, int32_t k, int bits, int warps) {
    int32_t cs[3], *cp = cs + (3 - rank);
    cs[0] = bsz, cs[1] = m, cs[2] = n;
    Layout acc = layout_mma_acc(rank, cp, warps);
    Layout la = layout_mma_operand(&acc, 0, bits, k), lb = layout_mma_operand(&acc, 1, bits, k);
    int32_t wpc[3];
    layout_mma_warps(rank, cp, warps, wpc);
    int p = 32 / bits, ks = 8 * p, mi = rank - 2;
    int nr = n / (8 * wpc[mi + 1]), mr = m / (16 * wpc[mi]), br = rank == 3 ? bsz / wpc[0] : 1, kc = k / ks;
    nr = nr < 1 ? 1 : nr, mr = mr < 1 ? 1 : mr, br = br < 1 ? 1 : br;
    CHECK(layout_n_regs(&acc) == 4 * nr * mr * br);
    CHECK(layout_n_regs(&la) == 4 * p * kc * mr * br);
    CHECK(layout_n_regs(&lb) == 2 * p * kc * nr * br);
    int64_t tile = (int64_t)m * n * (rank == 3 ? bsz : 1), threads = 32LL * warps;
    int rep = (int)(threads * layout_n_regs(&acc) / tile);
    check_each_once(&acc, rep);
    check_inverse(&acc);
    check_inverse(&la);
    check_inverse(&lb);
    int bad = 0;
    for (int w = 0; w < warps; w++)
        for (int b = 0; b < br; b++)
            for (int i = 0; i < mr; i++)
                for (int j = 0; j < nr; j++)
                    for (int c = 0; c < kc; c++) {
                        int ra = 4 * p * (c + kc * (i + mr * b)), rb = 2 * p * (c + kc * (j + nr * b));
                        int rc = 4 * (j + nr * (i + mr * b));
                        int32_t oa[3], ob[3], oc[3];   /* lane 0's first elements: the tile origins */
                        layout_coord(&la, ra, 0, w, oa);
                        layout_coord(&lb, rb, 0, w, ob);
                        layout_coord(&acc, rc, 0, w, oc);
                        int x = rank - 2;
                        bad += oa[x] != oc[x] || ob[x + 1] != oc[x + 1] || oa[x + 1] != ob[x] || oa[x + 1] != c * ks;
                        if (rank == 3) bad += oa[0] != oc[0] || ob[0] != oc[0];
                        for (int l = 0; l < 32; l++) {
                            int32_t got[3], rcw[2];
                            for (int e = 0; e < 4 * p; e++) {
                                layout_coord(&la, ra + e, l, w, got);
                                frag_a(p, l, e, rcw);
                                bad += got[x] != oa[x] + rcw[0] || got[x + 1] != oa[x + 1] + rcw[1];
                            }
                            for (int e = 0; e < 2 * p; e++) {
                                layout_coord(&lb, rb + e, l, w, got);
                                frag_b(p, l, e, rcw);
                                bad += got[x] != ob[x] + rcw[0] || got[x + 1] != ob[x + 1] + rcw[1];
                            }
                            for (int e = 0; e < 4; e++) {
                                layout_coord(&acc, rc + e, l, w, got);
                                frag_c(l, e, rcw);
                                bad += got[x] != oc[x] + rcw[0] || got[x + 1] != oc[x + 1] + rcw[1];
                            }
                        }
                    }
    CHECK_MSG(!bad, "mma %dx%dx%dx%d (%d-bit, %d warps): %d fragment elements misplaced", bsz, m, n, k, bits,
              warps, bad);
}

static void test_mma_layouts(void) {
    int32_t wpc[3], s[3] = {128, 128, 0};
    layout_mma_warps(2, s, 8, wpc);
    CHECK(wpc[0] == 4 && wpc[1] == 2);   /* Triton's warpsPerTileV2 for 128x128, 8 warps */
    s[0] = 64, s[1] = 64;
    layout_mma_warps(2, s, 4, wpc);
    CHECK(wpc[0] == 2 && wpc[1] == 2);
    s[0] = 16, s[1] = 64;
    layout_mma_warps(2, s, 4, wpc);
    CHECK(wpc[0] == 1 && wpc[1] == 4);
    s[0] = 2, s[1] = 32, s[2] = 32;
    layout_mma_warps(3, s, 8, wpc);
    CHECK(wpc[0] == 2 && wpc[1] * wpc[2] == 4);
    /* 64x64 f32 accumulator over 4 warps: each element exactly once; lane
     * 5 (g 1, t 1) of warp 0 holds (1, 2), (1, 3), (9, 2), (9, 3) */
    int32_t shape[2] = {64, 64};
    Layout acc = layout_mma_acc(2, shape, 4);
    check_each_once(&acc, 1);
    CHECK(layout_n_regs(&acc) == 32);
    int32_t c[IR_MAX_RANK];
    layout_coord(&acc, 3, 5, 0, c);
    CHECK(c[0] == 9 && c[1] == 3);
    layout_coord(&acc, 4, 5, 0, c);   /* the next n8 tile of warp 0: warps 0, 1 split N at 8 */
    CHECK(c[0] == 1 && c[1] == 18);
    layout_coord(&acc, 0, 0, 2, c);   /* warp 2: the second m16 tile */
    CHECK(c[0] == 16 && c[1] == 0);
    /* a, 16-bit: lane 6 (g 1, t 2) register 5 = a-reg2's high half = (1, 2t+9) */
    Layout la = layout_mma_operand(&acc, 0, 16, 32);
    layout_coord(&la, 5, 6, 0, c);
    CHECK(c[0] == 1 && c[1] == 13);
    /* b, 8-bit: lane 9 (g 2, t 1) register 6 = b-reg1's byte 2 = (4t+18, g) */
    Layout lb = layout_mma_operand(&acc, 1, 8, 64);
    layout_coord(&lb, 6, 9, 0, c);
    CHECK(c[0] == 22 && c[1] == 2);
    /* warps that split N replicate a; those that split M replicate b */
    int32_t c1[IR_MAX_RANK];
    layout_coord(&la, 0, 0, 1, c1);
    CHECK(c1[0] == 0 && c1[1] == 0);
    layout_coord(&lb, 0, 0, 2, c1);
    CHECK(c1[0] == 0 && c1[1] == 0);
    int bits[3] = {16, 32, 8};
    for (int t = 0; t < 3; t++) {
        int ks = 256 / bits[t];
        check_mma_config(2, 1, 64, 64, 2 * ks, bits[t], 4);
        check_mma_config(2, 1, 128, 128, ks, bits[t], 8);
        check_mma_config(2, 1, 16, 8, ks, bits[t], 4);   /* warps beyond the tile replicate */
        check_mma_config(2, 1, 128, 256, 2 * ks, bits[t], 8);
        check_mma_config(3, 2, 32, 16, ks, bits[t], 4);
        check_mma_config(3, 8, 16, 8, ks, bits[t], 4);
    }
    /* the FMA path's operands: K whole in every thread, acc's rows (a) */
    int32_t small[2] = {4, 2};
    Layout fa = layout_default(2, small, 1, 4);
    Layout a = layout_fma_operand(&fa, 0, 8);
    CHECK(a.shape[0] == 4 && a.shape[1] == 8 && layout_contig_regs(&a, 1) == 8);
    for (int w = 0; w < 4; w++)
        for (int l = 0; l < 32; l++) {
            int32_t ca[IR_MAX_RANK], cc[IR_MAX_RANK];
            layout_coord(&fa, 0, l, w, cc);
            for (int r = 0; r < 8; r++) {
                layout_coord(&a, r, l, w, ca);
                CHECK(ca[0] == cc[0] && ca[1] == r);
            }
        }
}

int main(void) {
    test_mma_layouts();
    test_shape_layouts();
    test_blocked_1d();
    test_blocked_2d();
    test_replication();
    test_project_drop_add();
    test_contig_regs();
    test_pass_vector_add();
    test_pass_broadcast_2d();
    test_pass_transpose();
    test_pass_loop();
    if (failures) {
        printf("test_layout: %d checks failed\n", failures);
        return 1;
    }
    (void)print_layout;
    return 0;
}
