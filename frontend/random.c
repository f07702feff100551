/* tl.umulhi, tl.cos, tl.sin, and Triton's counter-based random numbers
 * (triton/language/random.py), lowered inline into ordinary IR ops so that
 * the same seed and offsets give the same bits as Triton's:
 *
 *   philox_impl  n_rounds (default 10) Philox-4x32 (or 4x64) rounds on the
 *                counter (c0..c3) and key (k0, k1): per round
 *                c0' = umulhi(B, c2) ^ c1 ^ k0, c2' = umulhi(A, c0) ^ c3 ^ k1,
 *                c1' = B c2, c3' = A c0, then k0 += KEY_A, k1 += KEY_B
 *   philox       the seed made uint64 and split into k0 = low and k1 = high
 *                32 bits (64-bit counters: k0 = seed, k1 = 0), counters
 *                bitcast to uint32 (uint64)
 *   randint4x    counter (offset low 32 bits, offset high 32 bits for a
 *                64-bit offset else 0, 0, 0), four uint32 blocks
 *   randint      the first of them
 *   uint_to_uniform_float  x as signed, x < 0 ? -x - 1 : x, times
 *                4.6566127342e-10 (in f32: a float in [0, 1))
 *   rand, rand4x randint(4x) through uint_to_uniform_float
 *   pair_uniform_to_normal  Box-Muller: u1 = max(1e-7, u1), th = 2 pi u2,
 *                r = sqrt(-2 log u1): (r cos th, r sin th)
 *   randn        the first normal of randint4x's first two uniforms
 *   randn4x      rand4x's uniforms paired (1, 2) and (3, 4)
 * Every step uses the lowering of the Python operator Triton's code uses, so
 * the promotions are the same. */
#include "lower.h"
#include "../ir/mathfn.h"

#include <string.h>

enum { N_ROUNDS_DEFAULT = 10 };

static LVal tuple_of(Lower *L, const LVal *items, int n) {
    LVal t = {0};
    t.kind = LV_TUPLE;
    t.n = (size_t)n;
    t.items = arena_alloc(L->ctx->arena, sizeof(LVal) * (size_t)(n + 1));
    memcpy(t.items, items, sizeof(LVal) * (size_t)n);
    return t;
}

static LVal tensor_arg(Lower *L, const LArg *a) { return lval_to_tensor(L, a->loc, a->v); }

/* n_rounds: a compile-time int, 10 when absent */
static int n_rounds_arg(Lower *L, const LArg *a) {
    if (!a->present || a->v.kind == LV_NONE) return N_ROUNDS_DEFAULT;
    int64_t n;
    if (a->v.kind == LV_INT) n = a->v.i;
    else if (a->v.kind == LV_TENSOR && a->v.has_origin) n = a->v.origin_i;
    else diag_error(L->ctx, a->loc, "n_rounds must be a compile-time integer (tl.constexpr), got a %s",
                    lval_kind_name(&a->v));
    if (n < 0 || n > 64) diag_error(L->ctx, a->loc, "n_rounds must be between 0 and 64, got %lld", (long long)n);
    return (int)n;
}

/* A Python int constant of Triton's random.py. Those above INT64_MAX (the
 * 64-bit Philox constants) are uint64 for Triton's to_tensor: made so here. */
static LVal pyint(Lower *L, SrcLoc loc, uint64_t v) {
    if (v <= (uint64_t)INT64_MAX) return lval_int((int64_t)v);
    LVal num = lval_int((int64_t)v);
    return lower_const_tensor(L, loc, &num, ir_scalar(ET_U64));
}

static LVal binop(Lower *L, SrcLoc loc, int op, LVal a, LVal b) { return lower_binop(L, loc, op, a, b); }

/* ---- elementwise math ---- */

LVal bi_umulhi(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    return lower_umulhi(L, loc, a[0].v, a[1].v);
}

/* log, sqrt, cos, sin as tl.* does them: fp32 and fp64 only (fp64 cos and
 * sin: the math op's functions, ir/mathfn.c) */
static LVal math_fn(Lower *L, SrcLoc loc, LVal x, SrcLoc xloc, Opcode opc) {
    x = lval_to_tensor(L, xloc, x);
    IrType t = lower_type(L, &x);
    if (t.elem != ET_F32 && t.elem != ET_F64)
        diag_error(L->ctx, xloc, "Expected dtype ['fp32', 'fp64'] but got %s", dtype_name(ir_elem_of(t)));
    if ((opc == OP_COS || opc == OP_SIN) && t.elem == ET_F64)
        return lower_math(L, loc, opc == OP_COS ? MF_COS : MF_SIN, &x, 1, opc == OP_COS ? "tl.cos" : "tl.sin");
    L->b.loc = loc;
    return lval_tensor(L, ir_build1(&L->b, opc, t, x.id));
}

LVal bi_cos(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    return math_fn(L, loc, a[0].v, a[0].loc, OP_COS);
}

LVal bi_sin(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    return math_fn(L, loc, a[0].v, a[0].loc, OP_SIN);
}

/* ---- Philox ---- */

typedef struct Philox {
    LVal c[4];
} Philox;

static const struct {
    uint64_t key_a, key_b, round_a, round_b;
} philox_consts[2] = {
    {0x9E3779B9, 0xBB67AE85, 0xD2511F53, 0xCD9E8D57},
    {UINT64_C(0x9E3779B97F4A7C15), UINT64_C(0xBB67AE8584CAA73B), UINT64_C(0xD2E7470EE14C6C93),
     UINT64_C(0xCA5A826395121157)},
};

static Philox philox_rounds(Lower *L, SrcLoc loc, SrcLoc cloc, LVal c[4], LVal k0, LVal k1, int n) {
    IrType t = lower_type(L, &c[0]);
    if (t.elem != ET_U32 && t.elem != ET_U64)
        diag_error(L->ctx, cloc, "dtype not supported in philox_impl: the counters must be uint32 or uint64, got %s",
                   dtype_name(ir_elem_of(t)));
    int w = t.elem == ET_U64;
    LVal A = pyint(L, loc, philox_consts[w].round_a), B = pyint(L, loc, philox_consts[w].round_b);
    LVal ka = pyint(L, loc, philox_consts[w].key_a), kb = pyint(L, loc, philox_consts[w].key_b);
    Philox p = {{c[0], c[1], c[2], c[3]}};
    for (int i = 0; i < n; i++) {
        LVal c0 = p.c[0], c2 = p.c[2];
        p.c[0] = binop(L, loc, BIN_BITXOR, binop(L, loc, BIN_BITXOR, lower_umulhi(L, loc, B, c2), p.c[1]), k0);
        p.c[2] = binop(L, loc, BIN_BITXOR, binop(L, loc, BIN_BITXOR, lower_umulhi(L, loc, A, c0), p.c[3]), k1);
        p.c[1] = binop(L, loc, BIN_MUL, B, c2);
        p.c[3] = binop(L, loc, BIN_MUL, A, c0);
        k0 = binop(L, loc, BIN_ADD, k0, ka);
        k1 = binop(L, loc, BIN_ADD, k1, kb);
    }
    return p;
}

static LVal philox_tuple(Lower *L, const Philox *p) { return tuple_of(L, p->c, 4); }

/* tl.philox_impl(c0, c1, c2, c3, k0, k1, n_rounds=10) */
LVal bi_philox_impl(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    LVal c[4];
    for (int i = 0; i < 4; i++) c[i] = tensor_arg(L, &a[i]);
    Philox p = philox_rounds(L, loc, a[0].loc, c, a[4].v, a[5].v, n_rounds_arg(L, &a[6]));
    return philox_tuple(L, &p);
}

static Philox philox(Lower *L, SrcLoc loc, LVal seed, SrcLoc seed_loc, LVal c[4], SrcLoc cloc, int n) {
    seed = lval_to_tensor(L, seed_loc, seed);
    IrType st = lower_type(L, &seed);
    if (!elem_is_int(st.elem) || st.elem == ET_I1)
        diag_error(L->ctx, seed_loc, "the seed must be an integer, got %s", dtype_name(ir_elem_of(st)));
    seed = lower_cast(L, seed_loc, seed, ir_scalar(ET_U64), false, 0);
    int bits = elem_bits(lower_type(L, &c[0]).elem);
    ElemType ct;
    LVal k0, k1;
    if (bits == 32) {
        ct = ET_U32;
        LVal mask = lval_int(0xFFFFFFFF);
        k1 = binop(L, loc, BIN_BITAND, binop(L, loc, BIN_RSHIFT, seed, lval_int(32)), mask);
        k1 = lower_cast(L, loc, k1, ir_scalar(ET_U32), false, 0);
        k0 = lower_cast(L, loc, binop(L, loc, BIN_BITAND, seed, mask), ir_scalar(ET_U32), false, 0);
    } else if (bits == 64) {
        ct = ET_U64;
        int32_t one = 1;
        LVal zero = lval_int(0);
        k1 = lower_const_tensor(L, loc, &zero, ir_tile(ir_scalar(ET_U64), 1, &one));   /* tl.full((1,), 0) */
        k0 = seed;
    } else {
        diag_error(L->ctx, cloc, "bitwidth not supported in philox: the counters must be 32- or 64-bit, got %s",
                   dtype_name(ir_elem_of(lower_type(L, &c[0]))));
    }
    LVal cc[4];
    for (int i = 0; i < 4; i++) cc[i] = lower_cast(L, cloc, c[i], ir_scalar(ct), true, 0);
    return philox_rounds(L, loc, cloc, cc, k0, k1, n);
}

/* tl.philox(seed, c0, c1, c2, c3, n_rounds=10) */
LVal bi_philox(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    LVal c[4];
    for (int i = 0; i < 4; i++) c[i] = tensor_arg(L, &a[1 + i]);
    Philox p = philox(L, loc, a[0].v, a[0].loc, c, a[1].loc, n_rounds_arg(L, &a[5]));
    return philox_tuple(L, &p);
}

static Philox randint4x(Lower *L, SrcLoc loc, const LArg *a) {
    LVal off = tensor_arg(L, &a[1]);
    IrType ot = lower_type(L, &off);
    LVal lo = lower_cast(L, a[1].loc, off, ir_scalar(ET_U32), false, 0);
    LVal zero = binop(L, loc, BIN_MUL, lo, lval_int(0));
    LVal hi = zero;
    if (elem_bits(ot.elem) > 32)
        hi = lower_cast(L, loc, binop(L, loc, BIN_RSHIFT, off, lval_int(32)), ir_scalar(ET_U32), false, 0);
    LVal c[4] = {lo, hi, zero, zero};
    return philox(L, loc, a[0].v, a[0].loc, c, a[1].loc, n_rounds_arg(L, &a[2]));
}

/* tl.randint4x(seed, offset, n_rounds=10): four blocks of uint32 */
LVal bi_randint4x(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    Philox p = randint4x(L, loc, a);
    return philox_tuple(L, &p);
}

LVal bi_randint(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) { return randint4x(L, loc, a).c[0]; }

/* ---- uniform and normal floats ---- */

static LVal to_uniform(Lower *L, SrcLoc loc, LVal x, SrcLoc xloc) {
    x = lval_to_tensor(L, xloc, x);
    ElemType e = lower_type(L, &x).elem;
    double scale;
    if (e == ET_U32 || e == ET_I32) {
        x = lower_cast(L, loc, x, ir_scalar(ET_I32), true, 0);
        scale = 4.6566127342e-10;   /* the largest with INT32_MAX * scale < 1 in f32 */
    } else if (e == ET_U64 || e == ET_I64) {
        x = lower_cast(L, loc, x, ir_scalar(ET_I64), true, 0);
        scale = 1.0842020432385337e-19;
    } else {
        diag_error(L->ctx, xloc, "uint_to_uniform_float expects 32- or 64-bit integers, got %s",
                   dtype_name(ir_elem_of(lower_type(L, &x))));
    }
    LVal neg = lower_compare(L, loc, ACMP_LT, x, lval_int(0));
    LVal flipped = binop(L, loc, BIN_SUB, lower_unary(L, loc, UN_NEG, x), lval_int(1));
    x = lower_where(L, loc, neg, flipped, x);
    return binop(L, loc, BIN_MUL, x, lval_float(scale));
}

LVal bi_uint_to_uniform_float(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    return to_uniform(L, loc, a[0].v, a[0].loc);
}

/* tl.rand(seed, offset, n_rounds=10): float32 in [0, 1) */
LVal bi_rand(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    return to_uniform(L, loc, randint4x(L, loc, a).c[0], loc);
}

static Philox rand4x(Lower *L, SrcLoc loc, const LArg *a) {
    Philox p = randint4x(L, loc, a);
    for (int i = 0; i < 4; i++) p.c[i] = to_uniform(L, loc, p.c[i], loc);
    return p;
}

LVal bi_rand4x(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    Philox p = rand4x(L, loc, a);
    return philox_tuple(L, &p);
}

/* Box-Muller: the pair (r cos th, r sin th) */
static void box_muller(Lower *L, SrcLoc loc, LVal u1, LVal u2, LVal out[2]) {
    u1 = lower_minmax(L, loc, true, lval_float(1.0e-7), u1, false);
    LVal th = binop(L, loc, BIN_MUL, lval_float(6.283185307179586), u2);
    LVal r = math_fn(L, loc, binop(L, loc, BIN_MUL, lval_float(-2.0), math_fn(L, loc, u1, loc, OP_LOG)), loc, OP_SQRT);
    out[0] = binop(L, loc, BIN_MUL, r, math_fn(L, loc, th, loc, OP_COS));
    out[1] = binop(L, loc, BIN_MUL, r, math_fn(L, loc, th, loc, OP_SIN));
}

LVal bi_pair_uniform_to_normal(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    LVal n[2];
    box_muller(L, loc, a[0].v, a[1].v, n);
    return tuple_of(L, n, 2);
}

/* tl.randn(seed, offset, n_rounds=10): the cosine half of Box-Muller (the
 * sine half is computed and dropped, as in Triton; dce removes it) */
LVal bi_randn(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    Philox p = randint4x(L, loc, a);
    LVal n[2];
    box_muller(L, loc, to_uniform(L, loc, p.c[0], loc), to_uniform(L, loc, p.c[1], loc), n);
    return n[0];
}

LVal bi_randn4x(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    Philox u = rand4x(L, loc, a);
    LVal n[4];
    box_muller(L, loc, u.c[0], u.c[1], n);
    box_muller(L, loc, u.c[2], u.c[3], n + 2);
    return tuple_of(L, n, 4);
}
