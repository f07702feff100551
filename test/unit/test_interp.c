/* The CPU interpreter (interp/) and differential testing of every pass.
 *
 * 1. Element semantics: integer wrap-around, division and shifts as PTX does
 *    them, f16/bf16 rounding, casts, NaN compares and min/max.
 * 2. Whole IR: masked loads with `other`, a loop with carried values, the
 *    exact messages for an out-of-bounds access and a division by zero,
 *    the order of a reduce with a layout (Triton's).
 * 3. Every kernel test block of kernels/NAME.py: the IR after lowering and
 *    after each pass of the standard pipeline runs on the same fresh random
 *    inputs (seed from TRIC_TEST_SEED, else the clock; printed); every
 *    buffer must come out bit-identical from one stage to the next, or the
 *    test names the pass and the first differing element. Then the last
 *    stage's outputs must match the block's `# check:` reference within its
 *    `# tol:` (interp_check, numpy-free).
 * 4. The reference language and interp_check themselves: numpy's semantics
 *    on small expressions, and the exact messages of failing comparisons. */
#include "base/base.h"
#include "interp/interp.h"
#include "interp/scalar.h"
#include "opt/opt.h"
#include "runtime/rt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "blocks.h"
#include "differential.h"
#include "check.h"


/* ---- 1. elements ---- */

static uint64_t bin(Opcode opc, ElemType e, int64_t a, int64_t b) {
    bool dz = false;
    uint64_t r = interp_elem_binary(opc, e, 0, interp_int_norm(e, (uint64_t)a), interp_int_norm(e, (uint64_t)b), &dz);
    CHECK_MSG(!dz, "unexpected division by zero");
    return r;
}

static int64_t sbin(Opcode opc, ElemType e, int64_t a, int64_t b) { return (int64_t)bin(opc, e, a, b); }

static void test_integers(void) {
    CHECK_MSG(sbin(OP_ADD, ET_I32, INT32_MAX, 1) == INT32_MIN, "i32 add wraps");
    CHECK_MSG(sbin(OP_MUL, ET_I8, 100, 3) == 44, "i8 mul wraps: %lld", (long long)sbin(OP_MUL, ET_I8, 100, 3));
    CHECK_MSG(bin(OP_SUB, ET_U8, 3, 5) == 254, "u8 sub wraps");
    CHECK_MSG(bin(OP_SUB, ET_U32, 0, 1) == UINT32_MAX, "u32 sub wraps");
    CHECK_MSG(sbin(OP_DIV, ET_I32, -7, 2) == -3, "division truncates");
    CHECK_MSG(sbin(OP_REM, ET_I32, -7, 2) == -1, "remainder has the dividend's sign");
    CHECK_MSG(sbin(OP_DIV, ET_I32, INT32_MIN, -1) == INT32_MIN, "INT_MIN / -1 wraps");
    CHECK_MSG(sbin(OP_DIV, ET_I8, -128, -1) == -128, "i8 -128 / -1 wraps");
    CHECK_MSG(sbin(OP_DIV, ET_I64, INT64_MIN, -1) == INT64_MIN, "i64 INT_MIN / -1");
    CHECK_MSG(bin(OP_DIV, ET_U32, 0xFFFFFFFE, 2) == 0x7FFFFFFF, "u32 division is unsigned");
    bool dz = false;
    interp_elem_binary(OP_DIV, ET_I32, 0, 5, 0, &dz);
    CHECK_MSG(dz, "division by zero is reported");
    /* shifts: amounts >= the register width give 0 or the sign */
    CHECK_MSG(sbin(OP_SHL, ET_I32, 1, 31) == INT32_MIN, "1 << 31");
    CHECK_MSG(sbin(OP_SHL, ET_I32, 1, 32) == 0, "shl by 32");
    CHECK_MSG(sbin(OP_SHR, ET_I32, -8, 1) == -4, "arithmetic shr");
    CHECK_MSG(sbin(OP_SHR, ET_I32, -8, 40) == -1, "arithmetic shr by 40 fills the sign");
    CHECK_MSG(sbin(OP_SHR, ET_I32, 8, -1) == 0, "negative amounts are huge unsigned");
    CHECK_MSG(bin(OP_SHR, ET_U32, 0x80000000u, 31) == 1, "logical shr");
    CHECK_MSG(bin(OP_SHR, ET_U32, 0x80000000u, 32) == 0, "logical shr by 32");
    CHECK_MSG(sbin(OP_SHL, ET_I8, 1, 7) == -128, "i8 1 << 7");
    CHECK_MSG(sbin(OP_SHL, ET_I8, 1, 9) == 0, "i8 shl by 9");
    CHECK_MSG(sbin(OP_SHR, ET_I8, -128, 10) == -1, "i8 shr by 10");
    CHECK_MSG(bin(OP_SHR, ET_U8, 200, 3) == 25, "u8 shr");
    CHECK_MSG(sbin(OP_SHL, ET_I64, 1, (INT64_C(1) << 32) + 1) == 2, "i64 amounts keep their low 32 bits");
    CHECK_MSG(sbin(OP_SHL, ET_I64, 1, 63) == INT64_MIN, "i64 1 << 63");
    CHECK_MSG(sbin(OP_MIN, ET_I32, -1, 1) == -1 && bin(OP_MIN, ET_U32, 0xFFFFFFFF, 1) == 1, "min signedness");
    CHECK_MSG(interp_elem_unary(OP_NEG, ET_I32, interp_int_norm(ET_I32, (uint64_t)INT32_MIN)) ==
              interp_int_norm(ET_I32, (uint64_t)INT32_MIN), "neg INT_MIN wraps");
    CHECK_MSG(interp_elem_unary(OP_ABS, ET_I8, interp_int_norm(ET_I8, (uint64_t)-128)) ==
              interp_int_norm(ET_I8, (uint64_t)-128), "abs -128 wraps");
    CHECK_MSG(interp_elem_cmp(CMP_LT, ET_U32, 1, 0xFFFFFFFF) && !interp_elem_cmp(CMP_LT, ET_I32, 1, interp_int_norm(ET_I32, 0xFFFFFFFF)),
          "cmp signedness");
}

static uint64_t f16(double v) { return interp_slot_from_double(ET_F16, v); }
static uint64_t bf16(double v) { return interp_slot_from_double(ET_BF16, v); }
static uint64_t f32(float v) { return scalar_f32_bits(v); }

static void test_floats(void) {
    CHECK_MSG(f16(1.0) == 0x3C00 && f16(65504) == 0x7BFF && f16(65520) == 0x7C00, "f16 encodings");
    CHECK_MSG(f16(1.0 + 0x1p-11) == 0x3C00, "f16 tie rounds to even (down)");
    CHECK_MSG(f16(1.0 + 3 * 0x1p-11) == 0x3C02, "f16 tie rounds to even (up)");
    CHECK_MSG(f16(0x1p-24) == 0x0001 && f16(0x1p-25) == 0 && f16(0x1.8p-25) == 0x0001, "f16 subnormals");
    CHECK_MSG(bf16(1.0 + 0x1p-8) == 0x3F80 && bf16(1.0 + 3 * 0x1p-8) == 0x3F82, "bf16 ties to even");
    bool dz = false;
    /* f16: 2049 is not representable: 2048 + 1 rounds to 2048 after the add */
    CHECK_MSG(interp_elem_binary(OP_ADD, ET_F16, 0, f16(2048), f16(1), &dz) == f16(2048), "f16 add rounds");
    CHECK_MSG(interp_elem_binary(OP_ADD, ET_F16, 0, f16(2048), f16(3), &dz) == f16(2052), "f16 add ties to even");
    CHECK_MSG(interp_elem_binary(OP_MUL, ET_BF16, 0, bf16(1.0 + 0x1p-7), bf16(1.0 + 0x1p-7), &dz) == bf16(1.0 + 0x1p-6),
          "bf16 mul rounds");
    CHECK_MSG(interp_elem_binary(OP_ADD, ET_F32, 0, f32(16777216.0f), f32(1.0f), &dz) == f32(16777216.0f), "f32 add");
    /* NaN: != is unordered, the others ordered */
    uint64_t nan = f32(NAN), one = f32(1.0f);
    CHECK_MSG(interp_elem_cmp(CMP_NE, ET_F32, nan, nan) == 1 && interp_elem_cmp(CMP_EQ, ET_F32, nan, nan) == 0 &&
          interp_elem_cmp(CMP_LT, ET_F32, nan, one) == 0 && interp_elem_cmp(CMP_GE, ET_F32, nan, one) == 0, "NaN compares");
    CHECK_MSG(interp_elem_binary(OP_MIN, ET_F32, 0, nan, one, &dz) == one, "min without NaN propagation");
    CHECK_MSG(interp_elem_binary(OP_MAX, ET_F32, 1, one, nan, &dz) == 0x7FFFFFFF, "max propagating NaN");
    CHECK_MSG(interp_elem_binary(OP_MAX, ET_F64, 1, scalar_f64_bits(1.0), scalar_f64_bits(NAN), &dz) ==
              UINT64_C(0x7FFFFFFFFFFFFFFF), "f64 max propagating NaN");
    CHECK_MSG(interp_elem_binary(OP_MIN, ET_F32, 0, f32(0.0f), f32(-0.0f), &dz) == f32(-0.0f), "min(+0, -0) = -0");
    /* casts: float -> int truncates and saturates, NaN -> 0 */
    CHECK_MSG(interp_elem_cast(ET_F32, ET_I32, false, f32(-2.75f)) == interp_int_norm(ET_I32, (uint64_t)-2), "trunc");
    CHECK_MSG(interp_elem_cast(ET_F32, ET_I32, false, f32(3e9f)) == INT32_MAX, "saturates");
    CHECK_MSG(interp_elem_cast(ET_F32, ET_U32, false, f32(-5.0f)) == 0, "saturates at 0");
    CHECK_MSG(interp_elem_cast(ET_F32, ET_I32, false, nan) == 0, "NaN -> 0");
    CHECK_MSG(interp_elem_cast(ET_F32, ET_I8, false, f32(300.0f)) == 44, "f32 -> i8 saturates to 16 bits, keeps the low byte");
    CHECK_MSG(interp_elem_cast(ET_I32, ET_I8, false, 200) == interp_int_norm(ET_I8, (uint64_t)-56), "narrowing truncates");
    CHECK_MSG(interp_elem_cast(ET_I8, ET_U32, false, interp_int_norm(ET_I8, (uint64_t)-1)) == 0xFFFFFFFF,
          "widening follows the source's sign");
    CHECK_MSG(interp_elem_cast(ET_F32, ET_F16, true, f32(1.0f + 0x1p-10f + 0x1p-12f)) == 0x3C01, "rtz narrowing");
    CHECK_MSG(interp_elem_cast(ET_F32, ET_F16, false, f32(1.0f + 0x1p-10f + 0x1p-11f)) == 0x3C02, "rn narrowing");
    CHECK_MSG(interp_elem_cast(ET_F32, ET_I1, false, nan) == 1, "NaN is true");
    CHECK_MSG(interp_elem_bitcast(ET_F32, ET_I32, f32(-1.0f)) == interp_int_norm(ET_I32, 0xBF800000u), "bitcast");
    /* int -> bf16 rounds once (pass legalize spells out Triton's two
     * roundings), 64-bit integers beyond 2^53 too */
    uint64_t big = (UINT64_C(1) << 24) + (UINT64_C(1) << 16) + 1;   /* f32 would drop the 1, then a tie */
    CHECK_MSG(interp_elem_cast(ET_I32, ET_BF16, false, big) == 0x4B81, "int -> bf16 rounds once");
    uint64_t huge = (UINT64_C(1) << 60) + (UINT64_C(1) << 52) + 1;   /* f64 would drop the 1, then a tie */
    CHECK_MSG(interp_elem_cast(ET_I64, ET_BF16, false, huge) == 0x5D81, "i64 -> bf16 rounds once");
}

/* ---- dot (doc/ir.md "Matrix multiplication") ---- */

/* The plain C reference: operands decoded to double, each product exact in
 * double, each sum in double (exact for these data) then rounded by a C
 * cast (to float, or to _Float16 for an f16 accumulator); tf32 by frexp:
 * 11 significant bits, ties away from zero. */
static double ref_tf32(double x) {
    if (x == 0 || !isfinite(x)) return x;
    int e;
    double m = frexp(fabs(x), &e);                 /* [0.5, 1) */
    double r = floor(ldexp(m, 11) + 0.5);          /* ties away: magnitude rounds up */
    return copysign(ldexp(r, e - 11), x);
}

static double ref_round_acc(ElemType ce, double v) {
    return ce == ET_F16 ? (double)(_Float16)v : (double)(float)v;
}

static uint64_t ref_dot_elem(ElemType ae, ElemType be, ElemType ce, DotPrecision prec, uint64_t acc,
                             const uint64_t *a, const uint64_t *b, int64_t K, int64_t bstride) {
    if (ae == ET_I8) {
        int64_t s = (int32_t)acc;
        for (int64_t k = 0; k < K; k++) s = (int32_t)(uint32_t)(s + (int64_t)a[k] * (int64_t)b[k * bstride]);
        return interp_int_norm(ET_I32, (uint64_t)s);
    }
    double c = scalar_float(ce, acc);
    for (int64_t k = 0; k < K; k++) {
        double x = scalar_float(ae, a[k]), y = scalar_float(be, b[k * bstride]);
        if (ae != ET_F32) {
            c = ref_round_acc(ce, c + x * y);
        } else if (prec == DOT_IEEE) {
            c = (double)fmaf((float)x, (float)y, (float)c);
        } else if (prec == DOT_TF32) {
            c = (float)(c + ref_tf32(x) * ref_tf32(y));
        } else if (k % 8 == 0) {   /* tf32x3: the group k..k+7, pass by pass */
            for (int pass = 0; pass < 3; pass++)
                for (int64_t g = k; g < K && g < k + 8; g++) {
                    double xg = scalar_float(ae, a[g]), yg = scalar_float(be, b[g * bstride]);
                    double xh = ref_tf32(xg), yh = ref_tf32(yg);
                    double xl = ref_tf32((float)(xg - xh)), yl = ref_tf32((float)(yg - yh));
                    c = (float)(c + (pass == 0 ? xh * yl : pass == 1 ? xl * yh : xh * yh));
                }
        }
    }
    return scalar_round_bits(ce, c, false);
}

static uint64_t lcg(uint64_t *st) {
    *st = *st * 6364136223846793005u + 1442695040888963407u;
    return *st >> 33;
}

/* a random operand or accumulator value of type e (uniform in [-2, 2),
 * integers in [-128, 128) or anywhere in i32 for accumulators) */
static uint64_t random_slot(ElemType e, uint64_t *st) {
    if (e == ET_I8) return interp_int_norm(e, lcg(st));
    if (e == ET_I32) return interp_int_norm(e, lcg(st) << 1 ^ lcg(st));
    return interp_slot_from_double(e, (double)(int64_t)(lcg(st) % 4096) / 1024.0 - 2.0 + (double)(lcg(st) % 1000) * 1e-7);
}

static void dot_case(ElemType ae, ElemType be, ElemType ce, DotPrecision prec, InterpDotShape sh, uint64_t *st) {
    int64_t na = sh.batches * sh.m * sh.k, nb = sh.batches * sh.k * sh.n, nc = sh.batches * sh.m * sh.n;
    uint64_t *a = malloc(sizeof(uint64_t) * (size_t)na), *b = malloc(sizeof(uint64_t) * (size_t)nb);
    uint64_t *c = malloc(sizeof(uint64_t) * (size_t)nc), *d = malloc(sizeof(uint64_t) * (size_t)nc);
    for (int64_t i = 0; i < na; i++) a[i] = random_slot(ae, st);
    for (int64_t i = 0; i < nb; i++) b[i] = random_slot(be, st);
    for (int64_t i = 0; i < nc; i++) c[i] = random_slot(ce, st);
    interp_dot(ae, be, ce, prec, sh, a, b, c, d);
    int bad = 0;
    for (int64_t bi = 0; bi < sh.batches; bi++)
        for (int64_t m = 0; m < sh.m; m++)
            for (int64_t n = 0; n < sh.n; n++) {
                int64_t o = (bi * sh.m + m) * sh.n + n;
                uint64_t want = ref_dot_elem(ae, be, ce, prec, c[o], a + (bi * sh.m + m) * sh.k,
                                             b + bi * sh.k * sh.n + n, sh.k, sh.n);
                if (want != d[o] && bad++ == 0)
                    printf("FAIL dot %s x %s -> %s (%s) %lldx%lldx%lldx%lld: element (%lld, %lld, %lld) is 0x%llx, "
                           "expected 0x%llx\n",
                           elem_name(ae), elem_name(be), elem_name(ce), dot_precision_names[prec],
                           (long long)sh.batches, (long long)sh.m, (long long)sh.n, (long long)sh.k, (long long)bi,
                           (long long)m, (long long)n, (unsigned long long)d[o], (unsigned long long)want);
            }
    if (bad) failures++;
    interp_dot(ae, be, ce, prec, sh, a, b, c, c);   /* in place: the same result */
    CHECK_MSG(!memcmp(c, d, sizeof(uint64_t) * (size_t)nc), "dot into its own accumulator differs");
    free(a), free(b), free(c), free(d);
}

static void test_dot_reference(void) {
    static const struct {
        ElemType a, b, c;
        DotPrecision p;
    } kinds[] = {
        {ET_F16, ET_F16, ET_F32, DOT_TF32},     {ET_F16, ET_F16, ET_F16, DOT_TF32},
        {ET_BF16, ET_BF16, ET_F32, DOT_TF32},   {ET_F8E4M3, ET_F8E5M2, ET_F32, DOT_TF32},
        {ET_F8E5M2, ET_F8E5M2, ET_F16, DOT_TF32}, {ET_F8E4M3, ET_F8E4M3, ET_F16, DOT_TF32},
        {ET_F32, ET_F32, ET_F32, DOT_TF32},     {ET_F32, ET_F32, ET_F32, DOT_TF32X3},
        {ET_F32, ET_F32, ET_F32, DOT_IEEE},     {ET_I8, ET_I8, ET_I32, DOT_TF32},
    };
    static const InterpDotShape shapes[] = {{1, 1, 1, 1}, {1, 15, 17, 3}, {1, 32, 32, 64}, {3, 15, 17, 3}, {2, 8, 4, 16}};
    uint64_t st = 12345;
    for (size_t i = 0; i < ARRAY_LEN(kinds); i++)
        for (size_t j = 0; j < ARRAY_LEN(shapes); j++) dot_case(kinds[i].a, kinds[i].b, kinds[i].c, kinds[i].p, shapes[j], &st);
}

/* The rules the reference above cannot tell apart on random data. */
static void test_dot_rules(void) {
    /* tf32: ties away from zero, both signs; a carry into the exponent */
    CHECK(elem_tf32_bits(0x3F801000u) == 0x3F802000u);   /* 1 + 2^-11 -> 1 + 2^-10 (ties-to-even gives 1) */
    CHECK(elem_tf32_bits(0xBF801000u) == 0xBF802000u);
    CHECK(elem_tf32_bits(0x3F800FFFu) == 0x3F800000u);
    CHECK(elem_tf32_bits(0x3FFFF000u) == 0x40000000u);
    CHECK(elem_tf32_bits(0x7F7FF000u) == 0x7F800000u);   /* the largest f32s round to inf */
    /* one rounding of the exact sum: 1 + 2^-23 + 2^-24 - 2^-60 is just below a tie; through a
     * double sum it would become the tie and round to even (1 + 2^-22) */
    CHECK(elem_round_sum(ET_F32, 1 + 0x1p-22, -(0x1p-24 + 0x1p-60)) == 1 + 0x1p-23);
    CHECK(elem_round_sum(ET_F16, 1.0, 0x1p-11) == 1.0);   /* a tie: to even */
    /* f32 accumulator, f16 products 2^-24: rounded at every k, x + dot(0) != dot(x)
     * (why fold leaves float adds of a dot alone) */
    uint64_t h = interp_slot_from_double(ET_F16, 0x1p-12), one = scalar_f32_bits(1.0f), zero = scalar_f32_bits(0.0f);
    uint64_t in_place = one, apart = zero;
    for (int k = 0; k < 2; k++) {
        in_place = interp_elem_dot_step(ET_F16, ET_F16, ET_F32, DOT_TF32, in_place, h, h);
        apart = interp_elem_dot_step(ET_F16, ET_F16, ET_F32, DOT_TF32, apart, h, h);
    }
    CHECK(in_place == one);
    CHECK(scalar_f32(apart) + 1.0f == 1.0f + 0x1p-23f);
    /* f16 accumulator: each sum rounded to f16, overflow to inf */
    uint64_t big = interp_slot_from_double(ET_F16, 256.0);
    uint64_t acc16 = interp_slot_from_double(ET_F16, 65280.0);
    CHECK(interp_elem_dot_step(ET_F16, ET_F16, ET_F16, DOT_TF32, acc16, big, big) == 0x7C00);
    /* ieee is one fma: the product is not rounded first */
    float x = 1 + 0x1p-12f, y = 1 - 0x1p-12f;   /* x * y = 1 - 2^-24 exactly */
    CHECK(scalar_f32(interp_elem_dot_step(ET_F32, ET_F32, ET_F32, DOT_IEEE, scalar_f32_bits(-1.0f), scalar_f32_bits(x),
                                          scalar_f32_bits(y))) == -0x1p-24f);
    /* i8: exact products, i32 wrap-around */
    uint64_t m = interp_int_norm(ET_I8, (uint64_t)-128);
    CHECK(interp_elem_dot_step(ET_I8, ET_I8, ET_I32, DOT_TF32, 0x7FFFFFFF - 16383, m, m) ==
          interp_int_norm(ET_I32, (uint64_t)INT32_MIN));
    /* NaN products give the canonical NaN */
    uint64_t nan16 = 0x7E01;
    CHECK(interp_elem_dot_step(ET_F16, ET_F16, ET_F32, DOT_TF32, zero, nan16, h) == 0x7FFFFFFF);
}

/* ---- 2. whole IR ---- */

typedef struct Run {
    Ctx *ctx;
    IrFunc *fn;
    Buf err;
    bool ok;
} Run;

/* Parses `text` (test.tir) and runs it with these buffers and args. */
static void run_ir(Run *r, const char *text, InterpBuffer *bufs, uint32_t nb, const uint64_t *args,
                   uint32_t na, uint32_t grid) {
    Target t;
    rt_default_target(&t);
    r->ctx = ctx_new(&t);
    jmp_buf bail;
    r->ctx->bail = &bail;
    r->err = (Buf){0};
    r->ok = false;
    if (setjmp(bail) != 0) {
        printf("FAIL: IR does not parse:\n%s", buf_str(&r->ctx->diag));
        failures++;
        return;
    }
    r->fn = ir_parse(r->ctx, srcfile_from_string(r->ctx, "test.tir", text));
    InterpLaunch l = {.grid = {grid, 1, 1}, .args = args, .n_args = na, .buffers = bufs, .n_buffers = nb,
                      .max_loop_iters = 1000};
    r->ok = interp_run(r->fn, &l, &r->err);
}

static void run_free(Run *r) {
    buf_free(&r->err);
    ctx_free(r->ctx);
}

static const char masked_tir[] =
    "func @k(%x: ptr<i32>, %out: ptr<i32>, %n: i32) {\n"
    "  %0 = arange 0, 8 : tile<8xi32>\n"
    "  %1 = splat %n : tile<8xi32>\n"
    "  %2 = cmp lt %0, %1 : tile<8xi1>\n"
    "  %3 = splat %x : tile<8xptr<i32>>\n"
    "  %4 = addptr %3, %0 : tile<8xptr<i32>>\n"
    "  %5 = const -7 : tile<8xi32>\n"
    "  %6 = load %4, %2, %5 : tile<8xi32>\n"
    "  %7 = const 0 : i32\n"
    "  %8 = const 3 : i32\n"
    "  %9 = const 1 : i32\n"
    "  %10 = for %i = %7 to %8 step %9 iter(%acc = %6) -> (tile<8xi32>) {\n"
    "    %11 = add %acc, %acc : tile<8xi32>\n"
    "    yield %11\n"
    "  }\n"
    "  %12 = splat %out : tile<8xptr<i32>>\n"
    "  %13 = addptr %12, %0 : tile<8xptr<i32>>\n"
    "  store %13, %10\n"
    "  ret\n"
    "}\n";

static void test_masked_and_loop(void) {
    int32_t x[5] = {1, 2, 3, 4, 5}, out[8] = {0};
    InterpBuffer bufs[] = {{x, sizeof x, "x", ET_I32, false, false}, {out, sizeof out, "out", ET_I32, false, false}};
    uint64_t args[] = {(uint64_t)(uintptr_t)x, (uint64_t)(uintptr_t)out, 5};
    Run r;
    run_ir(&r, masked_tir, bufs, 2, args, 3, 1);
    CHECK_MSG(r.ok, "masked run failed: %s", buf_str(&r.err));
    for (int i = 0; i < 8; i++) CHECK_MSG(out[i] == (i < 5 ? x[i] : -7) * 8, "out[%d] = %d", i, out[i]);
    run_free(&r);
}

static void test_out_of_bounds(void) {
    int32_t x[5] = {0}, out[8] = {0};
    InterpBuffer bufs[] = {{x, sizeof x, "x", ET_I32, false, false}, {out, sizeof out, "out", ET_I32, false, false}};
    uint64_t args[] = {(uint64_t)(uintptr_t)x, (uint64_t)(uintptr_t)out, 7};   /* n too large */
    Run r;
    run_ir(&r, masked_tir, bufs, 2, args, 3, 2);
    const char *want = "test.tir:8:3: error: out-of-bounds load: element (5) reads 4 bytes at offset +20 "
                       "of buffer 'x' (20 bytes) in program (0, 0, 0)\n"
                       "  %6 = load %4, %2, %5 : tile<8xi32>\n"
                       "  ^\n";
    CHECK_MSG(!r.ok && strcmp(buf_str(&r.err), want) == 0, "got:\n%s", buf_str(&r.err));
    run_free(&r);
}

static void test_div_zero(void) {
    const char *tir =
        "func @k(%out: ptr<i32>, %d: i32) {\n"
        "  %0 = program_id 0 : i32\n"
        "  %1 = sub %d, %0 : i32\n"
        "  %2 = const 100 : i32\n"
        "  %3 = div %2, %1 : i32\n"
        "  %4 = addptr %out, %0 : ptr<i32>\n"
        "  store %4, %3\n"
        "  ret\n"
        "}\n";
    int32_t out[4] = {0};
    InterpBuffer bufs[] = {{out, sizeof out, "out", ET_I32, false, false}};
    uint64_t args[] = {(uint64_t)(uintptr_t)out, 2};
    Run r;
    run_ir(&r, tir, bufs, 1, args, 2, 4);
    const char *want = "test.tir:5:3: error: integer division by zero in program (2, 0, 0)\n"
                       "  %3 = div %2, %1 : i32\n"
                       "  ^\n";
    CHECK_MSG(!r.ok && strcmp(buf_str(&r.err), want) == 0, "got:\n%s", buf_str(&r.err));
    CHECK_MSG(out[0] == 50 && out[1] == 100, "programs before the failing one ran: %d %d", out[0], out[1]);
    run_free(&r);
}

/* The order of reduce with a layout is Triton's (doc/ir.md, "reduce"): each
 * thread folds its registers left to right, then the lane levels go from the
 * highest bit down, then the warp levels. The combine 3 * (a ^ K) + b is
 * neither commutative nor associative, so only that order gives the value
 * the test works out by hand.
 * Here a thread holds 4 consecutive elements; lanes hold steps 4, 8, 16 and
 * warps step 32. */
static const char reduce_order_tir[] =
    "#L0 = linear<[64] reg=[[1],[2]] lane=[[4],[8],[16],[0],[0]] warp=[[32],[0]]>\n"
    "func @k(%x: ptr<i32>, %out: ptr<i32>) {\n"
    "  %0 = arange 0, 64 : tile<64xi32, #L0>\n"
    "  %1 = splat %x : tile<64xptr<i32>, #L0>\n"
    "  %2 = addptr %1, %0 : tile<64xptr<i32>, #L0>\n"
    "  %3 = load %2 : tile<64xi32, #L0>\n"
    "  %4 = reduce %3 {axis = 0} -> (i32) combine(%a: i32, %b: i32) {\n"
    "    %k = const 1540483477 : i32\n"
    "    %t = const 3 : i32\n"
    "    %u = xor %a, %k : i32\n"
    "    %v = mul %u, %t : i32\n"
    "    %w = add %v, %b : i32\n"
    "    yield %w\n"
    "  }\n"
    "  store %out, %4\n"
    "  ret\n"
    "}\n";

static int32_t order_combine(int32_t a, int32_t b) { return (int32_t)(3u * ((uint32_t)a ^ 1540483477u) + (uint32_t)b); }

static void test_reduce_order(void) {
    int32_t x[64], out[1] = {0}, part[64];
    for (int i = 0; i < 64; i++) x[i] = (int32_t)(i * 2654435761u >> 7);
    for (int b = 0; b < 64; b += 4)   /* registers, left to right */
        part[b] = order_combine(order_combine(order_combine(x[b], x[b + 1]), x[b + 2]), x[b + 3]);
    int steps[] = {16, 8, 4, 32};     /* lanes from the highest bit down, then the warp */
    for (int s = 0, done = 3; s < 4; done |= steps[s], s++)
        for (int b = 0; b < 64; b++)
            if (!(b & (done | steps[s]))) part[b] = order_combine(part[b], part[b | steps[s]]);
    InterpBuffer bufs[] = {{x, sizeof x, "x", ET_I32, false, false}, {out, sizeof out, "out", ET_I32, false, false}};
    uint64_t args[] = {(uint64_t)(uintptr_t)x, (uint64_t)(uintptr_t)out};
    Run r;
    run_ir(&r, reduce_order_tir, bufs, 2, args, 2, 1);
    CHECK_MSG(r.ok, "reduce order run failed: %s", buf_str(&r.err));
    CHECK_MSG(out[0] == part[0], "reduce order: %d, want %d", out[0], part[0]);
    run_free(&r);
}

/* ---- 3. differential testing over kernels/NAME.py ---- */

/* Hand-written IR that the kernels do not contain (their constexprs are
 * folded by the front end): constant integer arithmetic for fold, and
 * compares differing only in their predicate for cse. */
static const char fold_cse_tir[] =
    "func @fold_cse(%x: ptr<i32>, %out: ptr<i32>) {\n"
    "  %0 = arange 0, 8 : tile<8xi32>\n"
    "  %1 = splat %x : tile<8xptr<i32>>\n"
    "  %2 = addptr %1, %0 : tile<8xptr<i32>>\n"
    "  %3 = load %2 : tile<8xi32>\n"
    "  %c5 = const 5 : i32\n"
    "  %c7 = const -7 : i32\n"
    "  %c3 = const 3 : i32\n"
    "  %a = add %c5, %c7 : i32\n"
    "  %b = mul %a, %c7 : i32\n"
    "  %c = div %c7, %c3 : i32\n"
    "  %d = rem %c7, %c3 : i32\n"
    "  %e = shl %c5, %c3 : i32\n"
    "  %f = shr %c7, %c3 : i32\n"
    "  %g = sub %b, %c : i32\n"
    "  %h = xor %d, %e : i32\n"
    "  %i = or %f, %h : i32\n"
    "  %j = add %g, %i : i32\n"
    "  %4 = splat %j : tile<8xi32>\n"
    "  %5 = splat %c3 : tile<8xi32>\n"
    "  %lt = cmp lt %3, %5 : tile<8xi1>\n"
    "  %gt = cmp gt %3, %5 : tile<8xi1>\n"
    "  %ge = cmp ge %3, %5 : tile<8xi1>\n"
    "  %6 = select %lt, %4, %3 : tile<8xi32>\n"
    "  %7 = select %gt, %6, %0 : tile<8xi32>\n"
    "  %8 = select %ge, %7, %5 : tile<8xi32>\n"
    "  %9 = add %8, %6 : tile<8xi32>\n"
    "  %10 = splat %out : tile<8xptr<i32>>\n"
    "  %11 = addptr %10, %0 : tile<8xptr<i32>>\n"
    "  store %11, %9\n"
    "  ret\n"
    "}\n";

static void test_fold_cse_ir(void) {
    RtRequest rq = {.path = "fold_cse.tir", .source = fold_cse_tir, .is_ir = true, .passes = "all"};
    rt_default_target(&rq.target);
    Diff d = {.where = "fold_cse.tir", .args = "x = arange(8, i32) - 1; out = zeros(8, i32)", .grid = "1", .seed = 12345};
    char *diag = NULL;
    bool ok = rt_each_stage(&rq, diff_on_stage, &d, &diag);
    CHECK_MSG(ok && !d.unsupported && !d.failed && d.stages == 1 + opt_n_standard_pipeline, "fold_cse.tir: %s%s", diag, d.unsupported_why ? d.unsupported_why : "");
    if (d.failed) failures++;
    /* and the values are right: j = (-2 * -7 - -7 / 3) + ((-7 >> 3) | (-7 % 3 ^ 5 << 3)) = 15 */
    if (d.prev.ok && d.prev.n == 2) {
        const int32_t *out = d.prev.bufs[1].base;
        for (int i = 0; i < 8; i++) {
            int32_t x = i - 1, v6 = x < 3 ? 15 : x, v7 = x > 3 ? v6 : i, v8 = x >= 3 ? v7 : 3;
            CHECK_MSG(out[i] == v8 + v6, "fold_cse out[%d] = %d, expected %d", i, out[i], v8 + v6);
        }
    }
    diff_free(&d);
    free(diag);
}

/* The stage-by-stage comparison plus what the reference needs: a setup of
 * the same inputs (same args, grid and seed), made from the lowered IR. */
typedef struct RefRun {
    Diff d;
    Arena *arena;
    InterpSetup setup;
    bool have_setup;
} RefRun;

static void ref_on_stage(IrFunc *fn, const char *stage, int index, void *ud) {
    RefRun *r = ud;
    if (index == 0) {
        Buf err = {0};
        r->have_setup = interp_setup(r->arena, fn, r->d.args, r->d.grid, r->d.seed, &r->setup, &err);
        buf_free(&err);
    }
    diff_on_stage(fn, stage, index, &r->d);
}

/* The last stage's outputs (r->d.prev) against the block's `# check:`. */
static bool matches_reference(RefRun *r, const TestBlock *tb, const char *where, uint64_t seed) {
    if (!tb->check[0]) {
        printf("FAIL %s: the block has no '# check:' line\n", where);
        return false;
    }
    if (!r->have_setup || !r->d.prev.ok || r->d.prev.n != r->setup.n_buffers) {
        printf("FAIL %s: no outputs to compare with the reference\n", where);
        return false;
    }
    for (uint32_t i = 0; i < r->setup.n_buffers; i++) {
        const InterpBuffer *got = &r->d.prev.bufs[i];
        if (got->bytes != r->setup.buffers[i].bytes) {
            printf("FAIL %s: buffer '%s' changed size\n", where, got->name);
            return false;
        }
        memcpy(r->setup.buffers[i].base, got->base, got->bytes);
    }
    Buf err = {0};
    bool ok = interp_check(r->arena, &r->setup, tb->check, tb->tol, &err);
    if (!ok)
        printf("FAIL %s: the outputs differ from '# check: %s' (TRIC_TEST_SEED=%llu repeats this run):\n%s", where,
               tb->check, (unsigned long long)seed, buf_str(&err));
    buf_free(&err);
    return ok;
}

/* More constants for fold: float arithmetic (NaN, inf, -0.0, minnum,
 * the constant NaN itself), casts of constants (truncation, saturation, NaN,
 * rtz, i32 -> f32 rounding, narrowing and widening), compares (NaN,
 * unsigned order), selects with a constant condition, shifts by amounts at
 * or past the width (or negative), and i8 / u16 wrap-around. Ops whose
 * result is NaN (inf * 0, max {propagate_nan} of a NaN) must stay unfolded:
 * a `const nan` would be 0x7FC00000 where the op gives the GPU's 0x7FFFFFFF. */
static const char fold_more_tir[] =
    "func @fold_consts(%oi: ptr<i32>, %of: ptr<f32>, %oh: ptr<f16>) {\n"
    "  %f1 = const 1.5 : f32\n"
    "  %f2 = const -0.1 : f32\n"
    "  %f0 = const 0.0 : f32\n"
    "  %fnz = const -0.0 : f32\n"
    "  %fnan = const nan : f32\n"
    "  %finf = const inf : f32\n"
    "  %fbig = const 3000000000.0 : f32\n"
    "  %fodd = const 1.0009765625 : f32\n"
    "  %fa = add %f1, %f2 : f32\n"
    "  %fm = mul %fa, %f2 : f32\n"
    "  %fd = div %f1, %f2 : f32\n"
    "  %fr = rem %f1, %f2 : f32\n"
    "  %fn = neg %fd : f32\n"
    "  %fz = add %fnz, %f0 : f32\n"
    "  %fmx = max %fnan, %f1 : f32\n"
    "  %fmn = min %f0, %fnz : f32\n"
    "  %fsq = sqrt %f1 : f32\n"
    "  %fab = abs %f2 : f32\n"
    "  %ci = cast %fd : i32\n"
    "  %cs = cast %fbig : i32\n"
    "  %cn = cast %fnan : i32\n"
    "  %cu = cast %fn : u32\n"
    "  %cu2 = cast %cu : i32\n"
    "  %ch = cast %fodd : f16\n"
    "  %chz = cast %fodd {rounding = rtz} : f16\n"
    "  %chd = cast %fd : f16\n"
    "  %i17 = const 16777217 : i32\n"
    "  %cf = cast %i17 : f32\n"
    "  %i300 = const 300 : i32\n"
    "  %c8 = cast %i300 : i8\n"
    "  %c8b = cast %c8 : i32\n"
    "  %im1 = const -1 : i8\n"
    "  %c8u = cast %im1 : u32\n"
    "  %c8ub = cast %c8u : i32\n"
    "  %cb = cast %f2 : i1\n"
    "  %cbi = cast %cb : i32\n"
    "  %q1 = cmp lt %fnan, %f1 : i1\n"
    "  %q1i = cast %q1 : i32\n"
    "  %q2 = cmp ne %fnan, %fnan : i1\n"
    "  %q2i = cast %q2 : i32\n"
    "  %umax = const 4294967295 : u32\n"
    "  %u1 = const 1 : u32\n"
    "  %q3 = cmp lt %u1, %umax : i1\n"
    "  %q3i = cast %q3 : i32\n"
    "  %sm1 = const -1 : i32\n"
    "  %s1 = const 1 : i32\n"
    "  %q4 = cmp lt %s1, %sm1 : i1\n"
    "  %q4i = cast %q4 : i32\n"
    "  %sel = select %q2, %fd, %f1 : f32\n"
    "  %sel2 = select %q1, %s1, %sm1 : i32\n"
    "  %s32 = const 32 : i32\n"
    "  %s40 = const 40 : i32\n"
    "  %sm8 = const -8 : i32\n"
    "  %s31 = const 31 : i32\n"
    "  %sh1 = shl %s1, %s32 : i32\n"
    "  %sh2 = shr %sm8, %s40 : i32\n"
    "  %sh3 = shl %s1, %s31 : i32\n"
    "  %sh4 = shr %sm8, %sm1 : i32\n"
    "  %uhi = const 2147483648 : u32\n"
    "  %u32c = const 32 : u32\n"
    "  %u31 = const 31 : u32\n"
    "  %sh5 = shr %uhi, %u32c : u32\n"
    "  %sh5i = cast %sh5 : i32\n"
    "  %sh6 = shr %uhi, %u31 : u32\n"
    "  %sh6i = cast %sh6 : i32\n"
    "  %b1 = const 1 : i8\n"
    "  %b9 = const 9 : i8\n"
    "  %b7 = const 7 : i8\n"
    "  %sh7 = shl %b1, %b9 : i8\n"
    "  %sh7i = cast %sh7 : i32\n"
    "  %sh8 = shl %b1, %b7 : i8\n"
    "  %sh8i = cast %sh8 : i32\n"
    "  %b100 = const 100 : i8\n"
    "  %b3 = const 3 : i8\n"
    "  %w1 = add %b100, %b100 : i8\n"
    "  %w1i = cast %w1 : i32\n"
    "  %w2 = mul %b100, %b3 : i8\n"
    "  %w2i = cast %w2 : i32\n"
    "  %bmin = const -128 : i8\n"
    "  %bm1 = const -1 : i8\n"
    "  %w3 = div %bmin, %bm1 : i8\n"
    "  %w3i = cast %w3 : i32\n"
    "  %w4 = neg %bmin : i8\n"
    "  %w4i = cast %w4 : i32\n"
    "  %h3 = const 3 : u16\n"
    "  %h5 = const 5 : u16\n"
    "  %h300 = const 300 : u16\n"
    "  %w5 = sub %h3, %h5 : u16\n"
    "  %w5i = cast %w5 : i32\n"
    "  %w6 = mul %h300, %h300 : u16\n"
    "  %w6i = cast %w6 : i32\n"
    "  %w7 = div %w5, %h3 : u16\n"
    "  %w7i = cast %w7 : i32\n"
    "  %imin = const -2147483648 : i32\n"
    "  %w8 = div %imin, %sm1 : i32\n"
    "  %w9 = rem %sm8, %s1 : i32\n"
    "  %oik0 = const 0 : i32\n"
    "  %oip0 = addptr %oi, %oik0 : ptr<i32>\n"
    "  store %oip0, %ci\n"
    "  %oik1 = const 1 : i32\n"
    "  %oip1 = addptr %oi, %oik1 : ptr<i32>\n"
    "  store %oip1, %cs\n"
    "  %oik2 = const 2 : i32\n"
    "  %oip2 = addptr %oi, %oik2 : ptr<i32>\n"
    "  store %oip2, %cn\n"
    "  %oik3 = const 3 : i32\n"
    "  %oip3 = addptr %oi, %oik3 : ptr<i32>\n"
    "  store %oip3, %cu2\n"
    "  %oik4 = const 4 : i32\n"
    "  %oip4 = addptr %oi, %oik4 : ptr<i32>\n"
    "  store %oip4, %c8b\n"
    "  %oik5 = const 5 : i32\n"
    "  %oip5 = addptr %oi, %oik5 : ptr<i32>\n"
    "  store %oip5, %c8ub\n"
    "  %oik6 = const 6 : i32\n"
    "  %oip6 = addptr %oi, %oik6 : ptr<i32>\n"
    "  store %oip6, %cbi\n"
    "  %oik7 = const 7 : i32\n"
    "  %oip7 = addptr %oi, %oik7 : ptr<i32>\n"
    "  store %oip7, %q1i\n"
    "  %oik8 = const 8 : i32\n"
    "  %oip8 = addptr %oi, %oik8 : ptr<i32>\n"
    "  store %oip8, %q2i\n"
    "  %oik9 = const 9 : i32\n"
    "  %oip9 = addptr %oi, %oik9 : ptr<i32>\n"
    "  store %oip9, %q3i\n"
    "  %oik10 = const 10 : i32\n"
    "  %oip10 = addptr %oi, %oik10 : ptr<i32>\n"
    "  store %oip10, %q4i\n"
    "  %oik11 = const 11 : i32\n"
    "  %oip11 = addptr %oi, %oik11 : ptr<i32>\n"
    "  store %oip11, %sel2\n"
    "  %oik12 = const 12 : i32\n"
    "  %oip12 = addptr %oi, %oik12 : ptr<i32>\n"
    "  store %oip12, %sh1\n"
    "  %oik13 = const 13 : i32\n"
    "  %oip13 = addptr %oi, %oik13 : ptr<i32>\n"
    "  store %oip13, %sh2\n"
    "  %oik14 = const 14 : i32\n"
    "  %oip14 = addptr %oi, %oik14 : ptr<i32>\n"
    "  store %oip14, %sh3\n"
    "  %oik15 = const 15 : i32\n"
    "  %oip15 = addptr %oi, %oik15 : ptr<i32>\n"
    "  store %oip15, %sh4\n"
    "  %oik16 = const 16 : i32\n"
    "  %oip16 = addptr %oi, %oik16 : ptr<i32>\n"
    "  store %oip16, %sh5i\n"
    "  %oik17 = const 17 : i32\n"
    "  %oip17 = addptr %oi, %oik17 : ptr<i32>\n"
    "  store %oip17, %sh6i\n"
    "  %oik18 = const 18 : i32\n"
    "  %oip18 = addptr %oi, %oik18 : ptr<i32>\n"
    "  store %oip18, %sh7i\n"
    "  %oik19 = const 19 : i32\n"
    "  %oip19 = addptr %oi, %oik19 : ptr<i32>\n"
    "  store %oip19, %sh8i\n"
    "  %oik20 = const 20 : i32\n"
    "  %oip20 = addptr %oi, %oik20 : ptr<i32>\n"
    "  store %oip20, %w1i\n"
    "  %oik21 = const 21 : i32\n"
    "  %oip21 = addptr %oi, %oik21 : ptr<i32>\n"
    "  store %oip21, %w2i\n"
    "  %oik22 = const 22 : i32\n"
    "  %oip22 = addptr %oi, %oik22 : ptr<i32>\n"
    "  store %oip22, %w3i\n"
    "  %oik23 = const 23 : i32\n"
    "  %oip23 = addptr %oi, %oik23 : ptr<i32>\n"
    "  store %oip23, %w4i\n"
    "  %oik24 = const 24 : i32\n"
    "  %oip24 = addptr %oi, %oik24 : ptr<i32>\n"
    "  store %oip24, %w5i\n"
    "  %oik25 = const 25 : i32\n"
    "  %oip25 = addptr %oi, %oik25 : ptr<i32>\n"
    "  store %oip25, %w6i\n"
    "  %oik26 = const 26 : i32\n"
    "  %oip26 = addptr %oi, %oik26 : ptr<i32>\n"
    "  store %oip26, %w7i\n"
    "  %oik27 = const 27 : i32\n"
    "  %oip27 = addptr %oi, %oik27 : ptr<i32>\n"
    "  store %oip27, %w8\n"
    "  %oik28 = const 28 : i32\n"
    "  %oip28 = addptr %oi, %oik28 : ptr<i32>\n"
    "  store %oip28, %w9\n"
    "  %ofk0 = const 0 : i32\n"
    "  %ofp0 = addptr %of, %ofk0 : ptr<f32>\n"
    "  store %ofp0, %fa\n"
    "  %ofk1 = const 1 : i32\n"
    "  %ofp1 = addptr %of, %ofk1 : ptr<f32>\n"
    "  store %ofp1, %fm\n"
    "  %ofk2 = const 2 : i32\n"
    "  %ofp2 = addptr %of, %ofk2 : ptr<f32>\n"
    "  store %ofp2, %fd\n"
    "  %ofk3 = const 3 : i32\n"
    "  %ofp3 = addptr %of, %ofk3 : ptr<f32>\n"
    "  store %ofp3, %fr\n"
    "  %ofk4 = const 4 : i32\n"
    "  %ofp4 = addptr %of, %ofk4 : ptr<f32>\n"
    "  store %ofp4, %fn\n"
    "  %ofk5 = const 5 : i32\n"
    "  %ofp5 = addptr %of, %ofk5 : ptr<f32>\n"
    "  store %ofp5, %fz\n"
    "  %ofk6 = const 6 : i32\n"
    "  %ofp6 = addptr %of, %ofk6 : ptr<f32>\n"
    "  store %ofp6, %finf\n"
    "  %ofk7 = const 7 : i32\n"
    "  %ofp7 = addptr %of, %ofk7 : ptr<f32>\n"
    "  store %ofp7, %fmx\n"
    "  %ofk8 = const 8 : i32\n"
    "  %ofp8 = addptr %of, %ofk8 : ptr<f32>\n"
    "  store %ofp8, %fnan\n"
    "  %ofk9 = const 9 : i32\n"
    "  %ofp9 = addptr %of, %ofk9 : ptr<f32>\n"
    "  store %ofp9, %fmn\n"
    "  %ofk10 = const 10 : i32\n"
    "  %ofp10 = addptr %of, %ofk10 : ptr<f32>\n"
    "  store %ofp10, %fsq\n"
    "  %ofk11 = const 11 : i32\n"
    "  %ofp11 = addptr %of, %ofk11 : ptr<f32>\n"
    "  store %ofp11, %fab\n"
    "  %ofk12 = const 12 : i32\n"
    "  %ofp12 = addptr %of, %ofk12 : ptr<f32>\n"
    "  store %ofp12, %cf\n"
    "  %ofk13 = const 13 : i32\n"
    "  %ofp13 = addptr %of, %ofk13 : ptr<f32>\n"
    "  store %ofp13, %sel\n"
    "  %fin0 = mul %finf, %f0 : f32\n"
    "  %ofk14 = const 14 : i32\n"
    "  %ofp14 = addptr %of, %ofk14 : ptr<f32>\n"
    "  store %ofp14, %fin0\n"
    "  %fpn = max %fnan, %f1 {propagate_nan} : f32\n"
    "  %ofk15 = const 15 : i32\n"
    "  %ofp15 = addptr %of, %ofk15 : ptr<f32>\n"
    "  store %ofp15, %fpn\n"
    "  %ohk0 = const 0 : i32\n"
    "  %ohp0 = addptr %oh, %ohk0 : ptr<f16>\n"
    "  store %ohp0, %ch\n"
    "  %ohk1 = const 1 : i32\n"
    "  %ohp1 = addptr %oh, %ohk1 : ptr<f16>\n"
    "  store %ohp1, %chz\n"
    "  %ohk2 = const 2 : i32\n"
    "  %ohp2 = addptr %oh, %ohk2 : ptr<f16>\n"
    "  store %ohp2, %chd\n"
    "  ret\n"
    "}\n";

/* For cse: ops that differ only in an attribute must stay apart: loads
 * with another `other` or cache / eviction hint, max with and without
 * propagate_nan, compares of every predicate on the same operands, casts
 * rounding to nearest and toward zero, and aranges of different bounds
 * (used as store offsets: merged, the stores would overlap). */
static const char cse_more_tir[] =
    "func @cse_attrs(%x: ptr<f32>, %out: ptr<f32>, %h: ptr<f16>, %c: ptr<i32>) {\n"
    "  %0 = arange 0, 8 : tile<8xi32>\n"
    "  %1 = arange 8, 16 : tile<8xi32>\n"
    "  %2 = splat %x : tile<8xptr<f32>>\n"
    "  %3 = addptr %2, %0 : tile<8xptr<f32>>\n"
    "  %n = const 5 : i32\n"
    "  %ns = splat %n : tile<8xi32>\n"
    "  %m = cmp lt %0, %ns : tile<8xi1>\n"
    "  %o1 = const 1.0 : tile<8xf32>\n"
    "  %o2 = const 2.0 : tile<8xf32>\n"
    "  %a = load %3, %m, %o1 : tile<8xf32>\n"
    "  %b = load %3, %m, %o2 : tile<8xf32>\n"
    "  %b2 = load %3, %m, %o2 {cache = cg} : tile<8xf32>\n"
    "  %b3 = load %3 {evict = evict_last} : tile<8xf32>\n"
    "  %s1 = add %a, %b : tile<8xf32>\n"
    "  %s2 = mul %b2, %b3 : tile<8xf32>\n"
    "  %s3 = add %s1, %s2 : tile<8xf32>\n"
    "  %mx = max %a, %o1 : tile<8xf32>\n"
    "  %mxp = max %a, %o1 {propagate_nan} : tile<8xf32>\n"
    "  %eq = cmp eq %a, %b3 : tile<8xi1>\n"
    "  %ne = cmp ne %a, %b3 : tile<8xi1>\n"
    "  %lt = cmp lt %a, %b3 : tile<8xi1>\n"
    "  %le = cmp le %a, %b3 : tile<8xi1>\n"
    "  %v1 = select %eq, %mx, %mxp : tile<8xf32>\n"
    "  %v2 = select %ne, %v1, %s3 : tile<8xf32>\n"
    "  %op = splat %out : tile<8xptr<f32>>\n"
    "  %op0 = addptr %op, %0 : tile<8xptr<f32>>\n"
    "  %op1 = addptr %op, %1 : tile<8xptr<f32>>\n"
    "  store %op0, %v2\n"
    "  store %op1, %mxp\n"
    "  %r1 = cast %s3 : tile<8xf16>\n"
    "  %r2 = cast %s3 {rounding = rtz} : tile<8xf16>\n"
    "  %hp = splat %h : tile<8xptr<f16>>\n"
    "  %hp0 = addptr %hp, %0 : tile<8xptr<f16>>\n"
    "  %hp1 = addptr %hp, %1 : tile<8xptr<f16>>\n"
    "  store %hp0, %r1\n"
    "  store %hp1, %r2\n"
    "  %lti = cast %lt : tile<8xi32>\n"
    "  %lei = cast %le : tile<8xi32>\n"
    "  %k = const 2 : tile<8xi32>\n"
    "  %lek = mul %lei, %k : tile<8xi32>\n"
    "  %flags = add %lti, %lek : tile<8xi32>\n"
    "  %cp = splat %c : tile<8xptr<i32>>\n"
    "  %cp0 = addptr %cp, %0 : tile<8xptr<i32>>\n"
    "  store %cp0, %flags\n"
    "  ret\n"
    "}\n";

/* dots of every kind: fold turns the i32 add into an accumulating dot,
 * the layout pass gives them layouts; the bits must not change */
static const char dot_stages_tir[] =
    "func @dots(%A: ptr<i8>, %X: ptr<i32>, %H: ptr<f16>, %F: ptr<f32>, %O: ptr<i32>, %OF: ptr<f32>) {\n"
    "  %i = arange 0, 64 : tile<64xi32>\n"
    "  %pa = splat %A : tile<64xptr<i8>>\n"
    "  %qa = addptr %pa, %i : tile<64xptr<i8>>\n"
    "  %la = load %qa : tile<64xi8>\n"
    "  %a = reshape %la : tile<8x8xi8>\n"
    "  %at = trans %a {perm = [1, 0]} : tile<8x8xi8>\n"
    "  %px = splat %X : tile<64xptr<i32>>\n"
    "  %qx = addptr %px, %i : tile<64xptr<i32>>\n"
    "  %lx = load %qx : tile<64xi32>\n"
    "  %x = reshape %lx : tile<8x8xi32>\n"
    "  %z = const 0 : tile<8x8xi32>\n"
    "  %d = dot %a, %at, %z : tile<8x8xi32>\n"
    "  %s = add %x, %d : tile<8x8xi32>\n"
    "  %so = reshape %s : tile<64xi32>\n"
    "  %po = splat %O : tile<64xptr<i32>>\n"
    "  %qo = addptr %po, %i : tile<64xptr<i32>>\n"
    "  store %qo, %so\n"
    "  %ph = splat %H : tile<64xptr<f16>>\n"
    "  %qh = addptr %ph, %i : tile<64xptr<f16>>\n"
    "  %lh = load %qh : tile<64xf16>\n"
    "  %h = reshape %lh : tile<8x8xf16>\n"
    "  %fz = const 0.0 : tile<8x8xf32>\n"
    "  %fd = dot %h, %h, %fz : tile<8x8xf32>\n"
    "  %pf = splat %F : tile<64xptr<f32>>\n"
    "  %qf = addptr %pf, %i : tile<64xptr<f32>>\n"
    "  %lf = load %qf : tile<64xf32>\n"
    "  %f = reshape %lf : tile<8x8xf32>\n"
    "  %t3 = dot %f, %f, %fd {precision = tf32x3} : tile<8x8xf32>\n"
    "  %ie = dot %f, %f, %t3 {precision = ieee} : tile<8x8xf32>\n"
    "  %tf = dot %f, %f, %ie : tile<8x8xf32>\n"
    "  %sf = add %fd, %tf : tile<8x8xf32>\n"
    "  %sfo = reshape %sf : tile<64xf32>\n"
    "  %pof = splat %OF : tile<64xptr<f32>>\n"
    "  %qof = addptr %pof, %i : tile<64xptr<f32>>\n"
    "  store %qof, %sfo\n"
    "  %ha = reshape %lh : tile<2x4x8xf16>\n"
    "  %hb = reshape %lh : tile<2x8x4xf16>\n"
    "  %hz = const 0.0 : tile<2x4x4xf16>\n"
    "  %hd = dot %ha, %hb, %hz : tile<2x4x4xf16>\n"
    "  %hf = cast %hd : tile<2x4x4xf32>\n"
    "  %hfo = reshape %hf : tile<32xf32>\n"
    "  %j = arange 64, 96 : tile<32xi32>\n"
    "  %pof2 = splat %OF : tile<32xptr<f32>>\n"
    "  %qof2 = addptr %pof2, %j : tile<32xptr<f32>>\n"
    "  store %qof2, %hfo\n"
    "  ret\n"
    "}\n";

/* Each runs after lowering-equivalent parsing and after every pass of the
 * standard pipeline; the buffers must be bit-identical at every stage. */
static void test_fold_cse_more(uint64_t seed) {
    static const struct { const char *name, *tir, *args; } cases[] = {
        {"fold_consts.tir", fold_more_tir, "oi = zeros(40, i32); of = zeros(16, fp32); oh = zeros(4, fp16)"},
        {"cse_attrs.tir", cse_more_tir,
         "x = np.array([1.0, -2.5, 1.0009765625, np.nan, 65519.0, -0.0, 3.3, 7.7]); out = empty(16, fp32); "
         "h = empty(16, fp16); c = empty(8, i32)"},
        {"cse_attrs.tir (random)", cse_more_tir, "x = randn(8, fp32) * 1000; out = empty(16, fp32); h = empty(16, fp16); "
                                                 "c = empty(8, i32)"},
        {"dot_stages.tir", dot_stages_tir,
         "a = randint(-128, 128, 64, i8); x = randint(-2147483648, 2147483647, 64, i32); h = rand(64, fp16); "
         "f = randn(64, fp32); o = empty(64, i32); of = empty(96, fp32)"},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        RtRequest rq = {.path = cases[i].name, .source = cases[i].tir, .is_ir = true, .passes = "all"};
        rt_default_target(&rq.target);
        Diff d = {.where = cases[i].name, .args = cases[i].args, .grid = "1", .seed = seed};
        char *diag = NULL;
        bool ok = rt_each_stage(&rq, diff_on_stage, &d, &diag);
        CHECK_MSG(ok && !d.unsupported && !d.failed && d.stages == 1 + opt_n_standard_pipeline, "%s: %s%s", cases[i].name, diag ? diag : "",
              d.unsupported_why ? d.unsupported_why : "");
        if (d.failed) failures++;
        diff_free(&d);
        free(diag);
    }
}

static void test_kernels(uint64_t seed, Shard shard) {
    int n_blocks = 0, in_shard = 0;
    TestBlock *blocks = blocks_read_dir("kernels", &n_blocks);
    CHECK_MSG(n_blocks > 0, "no kernel test blocks (run from the repository root)");
    int ran = 0, skipped = 0, stages = 0, matched = 0;
    for (int b = 0; b < n_blocks; b++) {
        if (!shard_has(shard, b)) continue;
        in_shard++;
        const TestBlock *tb = &blocks[b];
        char where[768];
        snprintf(where, sizeof where, "%s:%d %s", tb->path, tb->line, tb->kernel);
        RtRequest rq = {.path = tb->path, .kernel = tb->kernel, .signature = tb->signature};
        rt_default_target(&rq.target);
        if (tb->num_warps[0]) rq.target.num_warps = atoi(tb->num_warps);
        char targets[4][16];   /* a block limited to some targets ("# arch:") runs on its first */
        if (tb->arch[0] && blocks_archs(tb, NULL, 0, targets, 4))
            CHECK_MSG(rt_parse_arch(targets[0], &rq.target), "%s: unknown arch '%s'", where, targets[0]);
        /* fresh inputs per block, all from the one printed seed */
        uint64_t block_seed = seed ^ ((uint64_t)(b + 1) * UINT64_C(0x9E3779B97F4A7C15));
        RefRun r = {.d = {.where = where, .args = tb->args, .grid = tb->grid, .seed = block_seed},
                    .arena = arena_new()};
        char *diag = NULL;
        bool ok = rt_each_stage(&rq, ref_on_stage, &r, &diag);
        CHECK_MSG(ok, "%s does not compile:\n%s", where, diag);
        if (r.d.unsupported) {
            printf("note: %s: skipped: %s", where, r.d.unsupported_why);
            skipped++;
        } else if (r.d.failed) {
            failures++;
        } else {
            ran++;
            stages += r.d.stages;
            if (matches_reference(&r, tb, where, seed)) matched++;
            else failures++;
        }
        diff_free(&r.d);
        arena_free_all(r.arena);
        free(diag);
    }
    free(blocks);
    printf("kernels: %d test blocks, %d ran through %d stages bit-identically, %d matched their reference (seed %llu)\n",
           n_blocks, ran, stages, matched, (unsigned long long)seed);
    if (skipped) printf("kernels: %d skipped\n", skipped);
    CHECK_MSG(n_blocks > 0 && matched == in_shard, "only %d of %d blocks matched their reference", matched, in_shard);
}

/* ---- 4. the reference language and interp_check ---- */

static const char add_f32_tir[] =
    "func @add(%x: ptr<f32>, %y: ptr<f32>, %out: ptr<f32>, %n: i32) {\n"
    "  %0 = arange 0, 8 : tile<8xi32>\n"
    "  %1 = splat %n : tile<8xi32>\n"
    "  %2 = cmp lt %0, %1 : tile<8xi1>\n"
    "  %3 = splat %x : tile<8xptr<f32>>\n"
    "  %4 = addptr %3, %0 : tile<8xptr<f32>>\n"
    "  %5 = load %4, %2 : tile<8xf32>\n"
    "  %6 = splat %y : tile<8xptr<f32>>\n"
    "  %7 = addptr %6, %0 : tile<8xptr<f32>>\n"
    "  %8 = load %7, %2 : tile<8xf32>\n"
    "  %9 = add %5, %8 : tile<8xf32>\n"
    "  %10 = splat %out : tile<8xptr<f32>>\n"
    "  %11 = addptr %10, %0 : tile<8xptr<f32>>\n"
    "  store %11, %9, %2\n"
    "  ret\n"
    "}\n";

/* A parsed kernel and a setup of its inputs (grid 1), run when `run`. */
typedef struct RefCase {
    Ctx *ctx;
    Arena *arena;
    InterpSetup setup;
    bool ok;
} RefCase;

static void ref_case_open(RefCase *rc, const char *tir, const char *args, bool run) {
    Target t;
    rt_default_target(&t);
    rc->ctx = ctx_new(&t);
    rc->arena = arena_new();
    rc->ok = false;
    jmp_buf bail;
    rc->ctx->bail = &bail;
    if (setjmp(bail) != 0) {
        printf("FAIL: IR does not parse:\n%s", buf_str(&rc->ctx->diag));
        failures++;
        return;
    }
    IrFunc *fn = ir_parse(rc->ctx, srcfile_from_string(rc->ctx, "ref.tir", tir));
    Buf err = {0};
    rc->ok = interp_setup(rc->arena, fn, args, "1", 7, &rc->setup, &err);
    CHECK_MSG(rc->ok, "setup of '%s': %s", args, buf_str(&err));
    if (rc->ok && run) {
        InterpLaunch l = {.grid = {1, 1, 1}, .args = rc->setup.args, .n_args = rc->setup.n_args,
                          .buffers = rc->setup.buffers, .n_buffers = rc->setup.n_buffers};
        rc->ok = interp_run(fn, &l, &err);
        CHECK_MSG(rc->ok, "run: %s", buf_str(&err));
    }
    buf_free(&err);
}

static void ref_case_close(RefCase *rc) {
    arena_free_all(rc->arena);
    ctx_free(rc->ctx);
}

/* interp_check of `check` after running tir on args: passes when want is
 * "", else fails with exactly the message want. */
static void expect_check(const char *tir, const char *args, const char *check, const char *tol, const char *want) {
    RefCase rc;
    ref_case_open(&rc, tir, args, true);
    if (rc.ok) {
        Buf err = {0};
        bool ok = interp_check(rc.arena, &rc.setup, check, tol, &err);
        CHECK_MSG(ok == !*want && strcmp(buf_str(&err), want) == 0, "check '%s' on '%s':\ngot:  %s\nwant: %s", check, args,
              buf_str(&err), want);
        buf_free(&err);
    }
    ref_case_close(&rc);
}

/* The value of text over rc's names, printed as "i(2, 3): 0 1 2 3 4 5"
 * (i/f/b: int64, float64, bool; the shape; the elements), or the error. */
static void expect_eval(RefCase *rc, const char *text, const char *want) {
    InterpArray v;
    Buf got = {0};
    if (interp_eval(rc->arena, &rc->setup, text, &v, &got)) {
        buf_printf(&got, "%c(", v.is_float ? 'f' : v.is_bool ? 'b' : 'i');
        for (int d = 0; d < v.ndim; d++) buf_printf(&got, d ? ", %lld" : "%lld", (long long)v.shape[d]);
        buf_puts(&got, v.ndim == 1 ? ",):" : "):");
        for (int64_t k = 0; k < v.n; k++) {
            if (v.is_float) buf_printf(&got, " %.17g", v.f[k]);
            else buf_printf(&got, " %lld", (long long)v.i[k]);
        }
    }
    CHECK_MSG(strcmp(buf_str(&got), want) == 0, "'%s':\ngot:  %s\nwant: %s", text, buf_str(&got), want);
    buf_free(&got);
}

/* numpy's semantics, which the references of the test blocks rely on */
static void test_reference_language(void) {
    RefCase rc;
    ref_case_open(&rc, add_f32_tir, "x = arange(8, fp32) - 2.5; y = full(8, 0.5, fp16); out = empty(8, fp32); n = 8",
                  false);
    if (!rc.ok) {
        ref_case_close(&rc);
        return;
    }
    /* the names: buffers as the kernel saw them (empty() as zeros), scalars as written */
    expect_eval(&rc, "x", "f(8,): -2.5 -1.5 -0.5 0.5 1.5 2.5 3.5 4.5");
    expect_eval(&rc, "out + n", "f(8,): 8 8 8 8 8 8 8 8");
    /* Python's floor division and modulo, C's fmod, exact int64 */
    expect_eval(&rc, "-7 // 2", "i(): -4");
    expect_eval(&rc, "np.array([-7, 7, -7, 7]) // np.array([2, -2, 3, -3])", "i(4,): -4 -4 -3 -3");
    expect_eval(&rc, "np.array([-7, 7]) % np.array([3, -3])", "i(2,): 2 -2");
    expect_eval(&rc, "np.fmod(np.array([-7, 7]), 3)", "i(2,): -1 1");
    expect_eval(&rc, "np.array([-7.5, 7.5]) // 2", "f(2,): -4 3");
    expect_eval(&rc, "np.array([-7.5, 7.5]) % -2", "f(2,): -1.5 -0.5");
    expect_eval(&rc, "2**62 + 1", "i(): 4611686018427387905");
    expect_eval(&rc, "(2**62 + 1) % 10", "i(): 5");
    expect_eval(&rc, "2**63", "i(): -9223372036854775808");   /* int64 wraps */
    expect_eval(&rc, "2 ** -1", "f(): 0.5");
    expect_eval(&rc, "np.array([-8, 8]) >> 1", "i(2,): -4 4");
    expect_eval(&rc, "1 << 3 | 1", "i(): 9");
    expect_eval(&rc, "5 & 3 ^ 1", "i(): 0");                  /* & binds tighter than ^ */
    expect_eval(&rc, "6 | 1 ^ 3", "i(): 6");
    expect_eval(&rc, "wrap(np.array([300, -1, 128]), i8)", "i(3,): 44 -1 -128");
    expect_eval(&rc, "wrap(-1, u16)", "i(): 65535");
    expect_eval(&rc, "np.array([2.7, -2.7]).astype(np.int32)", "i(2,): 2 -2");
    expect_eval(&rc, "np.trunc(-7 / 2)", "f(): -3");
    expect_eval(&rc, "-x[:2]", "f(2,): 2.5 1.5");
    /* shapes: broadcasting, indexing, .T, .sum, .reshape */
    expect_eval(&rc, "np.arange(3)[:, None] * 10 + np.arange(2)[None, :]", "i(3, 2): 0 1 10 11 20 21");
    expect_eval(&rc, "np.arange(6).reshape(2, 3).T", "i(3, 2): 0 3 1 4 2 5");
    expect_eval(&rc, "np.arange(6).reshape(2, 3) @ np.arange(6).reshape(3, 2)", "i(2, 2): 10 13 28 40");
    expect_eval(&rc, "1 + np.arange(4).reshape(2, 2) @ np.arange(4).reshape(2, 2).T * 2", "i(2, 2): 3 7 7 27");
    expect_eval(&rc, "np.matmul(np.arange(8).reshape(2, 2, 2), np.arange(2).reshape(1, 2, 1) * 1.0)", "f(2, 2, 1): 1 3 5 7");
    expect_eval(&rc, "np.dot(x[:2][None, :] * 2, x[:2][:, None])", "f(1, 1): 17");
    expect_eval(&rc, "np.arange(6).reshape((2, 3)).sum(axis=0)", "i(3,): 3 5 7");
    expect_eval(&rc, "np.arange(6).reshape(2, 3).sum(axis=-1)", "i(2,): 3 12");
    expect_eval(&rc, "np.arange(6).reshape(2, 3).sum()", "i(): 15");
    expect_eval(&rc, "np.arange(6).reshape(2, 3)[1]", "i(3,): 3 4 5");
    expect_eval(&rc, "np.arange(6).reshape(2, 3)[:, :2]", "i(2, 2): 0 1 3 4");
    expect_eval(&rc, "np.arange(6).reshape(2, 3)[-1, ::-2]", "i(2,): 5 3");
    expect_eval(&rc, "np.arange(10)[2:8:3]", "i(2,): 2 5");
    expect_eval(&rc, "np.arange(10)[-3:]", "i(3,): 7 8 9");
    /* bools: comparisons, + is or, where, isnan, isposinf */
    expect_eval(&rc, "(np.arange(4) > 1) + (np.arange(4) > 2)", "b(4,): 0 0 1 1");
    expect_eval(&rc, "(np.arange(4) > 1) + 1", "i(4,): 1 1 2 2");
    expect_eval(&rc, "np.where(np.arange(4) % 2, 1, -1)", "i(4,): -1 1 -1 1");
    expect_eval(&rc, "np.where(x > 0, x, 0.0)", "f(8,): 0 0 0 0.5 1.5 2.5 3.5 4.5");
    expect_eval(&rc, "np.clip(np.arange(5) * 2 - 3, 0, 4)", "i(5,): 0 0 1 3 4");
    expect_eval(&rc, "np.maximum(np.arange(3), 1.5)", "f(3,): 1.5 1.5 2");
    expect_eval(&rc, "np.maximum(np.array([1.0, np.nan]), 0)", "f(2,): 1 nan");
    expect_eval(&rc, "np.isnan(np.array([1.0, np.nan]))", "b(2,): 0 1");
    expect_eval(&rc, "np.isposinf(np.array([np.inf, -np.inf, 1.0]))", "b(3,): 1 0 0");
    expect_eval(&rc, "np.isneginf(np.array([np.inf, -np.inf, 1.0]))", "b(3,): 0 1 0");
    expect_eval(&rc, "np.ldexp(1.0, np.array([-1074, 1023]))",
                "f(2,): 4.9406564584124654e-324 8.9884656743115795e+307");
    expect_eval(&rc, "np.ceil(np.log2(np.arange(5) + 1))", "f(5,): 0 1 2 2 3");
    expect_eval(&rc, "np.abs(np.array([-3, 4]))", "i(2,): 3 4");
    /* what numpy or Python refuses is refused */
    expect_eval(&rc, "np.arange(3) + np.arange(4)",
                "tric: error: check: operator '+': shapes (3,) and (4,) do not broadcast\n");
    expect_eval(&rc, "1 < 2 < 3", "tric: error: check: a chain of comparisons is not supported: use parentheses\n");
    expect_eval(&rc, "1 / 0", "tric: error: check: division by zero\n");
    expect_eval(&rc, "np.arange(3) ** -1", "tric: error: check: integers to negative integer powers are not allowed\n");
    expect_eval(&rc, "x & 1", "tric: error: check: operator '&' needs integers or bools\n");
    expect_eval(&rc, "(x > 0) - (x > 1)", "tric: error: check: operator '-' on two bools (numpy refuses it)\n");
    expect_eval(&rc, "x[8]", "tric: error: check: index 8 is out of bounds for a dimension of size 8\n");
    expect_eval(&rc, "x[0, 0]", "tric: error: check: too many indices for an array of shape (8,)\n");
    expect_eval(&rc, "x.sum(axis=1)", "tric: error: check: axis 1 is out of bounds for an array of shape (8,)\n");
    expect_eval(&rc, "np.frexp(x)", "tric: error: check: unknown function 'np.frexp'\n");
    ref_case_close(&rc);
}

/* numpy's reductions, scans, reshape(-1), flip, concatenate and stack:
 * every value below is what numpy 2.4 computes for the same expression */
static void test_reference_reductions(void) {
    RefCase rc;
    ref_case_open(&rc, add_f32_tir, "x = arange(8, fp32) - 2.5; y = full(8, 0.5, fp16); out = empty(8, fp32); n = 8",
                  false);
    if (!rc.ok) {
        ref_case_close(&rc);
        return;
    }
    expect_eval(&rc, "np.arange(6).reshape(2, 3).max(axis=1)", "i(2,): 2 5");
    expect_eval(&rc, "np.arange(6).reshape(2, 3).max(axis=0)", "i(3,): 3 4 5");
    expect_eval(&rc, "np.arange(6).reshape(2, 3).max()", "i(): 5");
    expect_eval(&rc, "np.arange(6).reshape(2, 3).min(axis=-1)", "i(2,): 0 3");
    expect_eval(&rc, "np.arange(6).reshape(2, 3).max(1)", "i(2,): 2 5");
    expect_eval(&rc, "np.max(np.arange(6).reshape(2, 3), axis=0)", "i(3,): 3 4 5");
    expect_eval(&rc, "np.max(np.arange(6).reshape(2, 3), 1)", "i(2,): 2 5");
    expect_eval(&rc, "np.amin(np.arange(6).reshape(2, 3), axis=0)", "i(3,): 0 1 2");
    expect_eval(&rc, "np.amax(x)", "f(): 4.5");
    expect_eval(&rc, "np.arange(6).reshape(2, 3).max(axis=1, keepdims=True)", "i(2, 1): 2 5");
    expect_eval(&rc, "np.arange(6).reshape(2, 3).sum(axis=0, keepdims=True)", "i(1, 3): 3 5 7");
    expect_eval(&rc, "np.arange(6).reshape(2, 3).max(keepdims=True)", "i(1, 1): 5");
    expect_eval(&rc, "np.arange(6).reshape(2, 3).sum(axis=None)", "i(): 15");
    expect_eval(&rc, "(np.arange(4) > 1).max()", "b(): 1");
    expect_eval(&rc, "(np.arange(4) > 1).sum()", "i(): 2");
    expect_eval(&rc, "(np.arange(4) > 1).sum(axis=0)", "i(): 2");
    expect_eval(&rc, "np.array([[1, 5, 5], [7, 2, 7]]).argmax(axis=1)", "i(2,): 1 0");
    expect_eval(&rc, "np.array([[1, 5, 5], [7, 2, 7]]).argmax()", "i(): 3");
    expect_eval(&rc, "np.array([[1, 5, 5], [7, 2, 1]]).argmin(axis=0)", "i(3,): 0 1 1");
    expect_eval(&rc, "np.argmax(np.array([[1, 5, 5], [7, 2, 7]]), axis=0)", "i(3,): 1 0 1");
    expect_eval(&rc, "np.argmin(np.array([[1, 5, 5], [7, 2, 7]]), axis=1, keepdims=True)", "i(2, 1): 0 1");
    expect_eval(&rc, "np.array([[3.0, 1.0, 3.0], [np.nan, 2.0, np.nan]]).max(axis=1)", "f(2,): 3 nan");
    expect_eval(&rc, "np.array([[3.0, 1.0, 3.0], [np.nan, 2.0, np.nan]]).min(axis=1)", "f(2,): 1 nan");
    expect_eval(&rc, "np.array([[3.0, 1.0, 3.0], [np.nan, 2.0, np.nan]]).argmax(axis=1)", "i(2,): 0 0");
    expect_eval(&rc, "np.array([[3.0, 1.0, 3.0], [np.nan, 2.0, np.nan]]).argmin(axis=1)", "i(2,): 1 0");
    expect_eval(&rc, "np.array([[3.0, 1.0, 3.0], [np.nan, 2.0, np.nan]]).argmax(axis=0)", "i(3,): 1 1 1");
    expect_eval(&rc, "np.array([[3.0, 1.0, 3.0], [np.nan, 2.0, np.nan]]).argmin()", "i(): 3");
    expect_eval(&rc, "np.array([[3.0, 1.0, 3.0], [np.nan, 2.0, np.nan]]).max()", "f(): nan");
    expect_eval(&rc, "x.argmax()", "i(): 7");
    expect_eval(&rc, "x.argmin()", "i(): 0");
    expect_eval(&rc, "np.array([2.0, -np.inf, 5.0, np.inf]).argmax()", "i(): 3");
    expect_eval(&rc, "np.arange(6).reshape(2, 3).prod(axis=1)", "i(2,): 0 60");
    expect_eval(&rc, "np.prod(x)", "f(): -55.37109375");
    expect_eval(&rc, "np.prod(np.array([2**40, 2**40]))", "i(): 0");
    expect_eval(&rc, "np.array([2**62, 2**62]).sum()", "i(): -9223372036854775808");
    expect_eval(&rc, "np.arange(6).reshape(2, 3).mean(axis=0)", "f(3,): 1.5 2.5 3.5");
    expect_eval(&rc, "np.arange(6).reshape(2, 3).mean()", "f(): 2.5");
    expect_eval(&rc, "np.mean(x)", "f(): 1");
    expect_eval(&rc, "x.mean(axis=0, keepdims=True)", "f(1,): 1");
    expect_eval(&rc, "np.arange(6).reshape(2, 3).cumsum()", "i(6,): 0 1 3 6 10 15");
    expect_eval(&rc, "np.arange(6).reshape(2, 3).cumsum(axis=0)", "i(2, 3): 0 1 2 3 5 7");
    expect_eval(&rc, "np.arange(6).reshape(2, 3).cumsum(axis=1)", "i(2, 3): 0 1 3 3 7 12");
    expect_eval(&rc, "np.cumsum(x)", "f(8,): -2.5 -4 -4.5 -4 -2.5 0 3.5 8");
    expect_eval(&rc, "np.cumprod(np.arange(6).reshape(2, 3) + 1, axis=1)", "i(2, 3): 1 2 6 4 20 120");
    expect_eval(&rc, "(np.arange(4) > 1).cumsum()", "i(4,): 0 0 1 2");
    expect_eval(&rc, "np.cumsum(np.array([1.0, np.nan, 2.0]))", "f(3,): 1 nan nan");
    expect_eval(&rc, "np.cumprod(3)", "i(1,): 3");
    expect_eval(&rc, "(np.arange(6).reshape(2, 3) > 2).all(axis=1)", "b(2,): 0 1");
    expect_eval(&rc, "(np.arange(6).reshape(2, 3) > 2).any(axis=1)", "b(2,): 0 1");
    expect_eval(&rc, "np.array([0.0, np.nan]).all()", "b(): 0");
    expect_eval(&rc, "np.array([0.0, np.nan]).any(axis=0)", "b(): 1");
    expect_eval(&rc, "np.arange(3).all()", "b(): 0");
    expect_eval(&rc, "np.bitwise_xor.reduce(np.array([[5, 3, 1], [6, 6, 9]]), axis=1)", "i(2,): 7 9");
    expect_eval(&rc, "np.bitwise_xor.reduce(np.array([[5, 3, 1], [6, 6, 9]]))", "i(3,): 3 5 8");
    expect_eval(&rc, "np.bitwise_xor.reduce(np.array([[5, 3, 1], [6, 6, 9]]), axis=None)", "i(): 14");
    expect_eval(&rc, "np.bitwise_and.reduce(np.array([7, -2, 15]))", "i(): 6");
    expect_eval(&rc, "np.bitwise_or.reduce(np.array([[1, 2], [4, 8]]), 1)", "i(2,): 3 12");
    expect_eval(&rc, "np.bitwise_xor.reduce(np.array([True, True, True]))", "b(): 1");
    expect_eval(&rc, "np.bitwise_and.reduce(np.arange(0))", "i(): -1");
    expect_eval(&rc, "np.arange(0).reshape(2, 0).max(axis=0)", "i(0,):");
    expect_eval(&rc, "np.arange(0).sum()", "i(): 0");
    expect_eval(&rc, "np.arange(0).reshape(0, 3).prod(axis=0)", "i(3,): 1 1 1");
    expect_eval(&rc, "np.arange(0).mean()", "f(): nan");
    expect_eval(&rc, "np.maximum.reduce(np.array([1.0, np.nan, 3.0]))", "f(): nan");
    expect_eval(&rc, "np.minimum.reduce(np.arange(6).reshape(2, 3), axis=1)", "i(2,): 0 3");
    expect_eval(&rc, "np.add.reduce(np.arange(4) > 1)", "i(): 2");
    expect_eval(&rc, "np.add.reduce(np.arange(6).reshape(2, 3))", "i(3,): 3 5 7");
    expect_eval(&rc, "np.multiply.reduce(np.arange(6).reshape(2, 3) + 1, axis=1, keepdims=True)", "i(2, 1): 6 120");
    expect_eval(&rc, "np.logical_and.reduce(np.array([1, 2, 0]))", "b(): 0");
    expect_eval(&rc, "np.logical_or.reduce(np.array([0, 0, 3]))", "b(): 1");
    expect_eval(&rc, "np.bitwise_xor(np.arange(4), 3)", "i(4,): 3 2 1 0");
    expect_eval(&rc, "np.add(np.arange(3), 0.5)", "f(3,): 0.5 1.5 2.5");
    expect_eval(&rc, "np.arange(12).reshape(3, -1)", "i(3, 4): 0 1 2 3 4 5 6 7 8 9 10 11");
    expect_eval(&rc, "np.arange(12).reshape((-1, 2, 3))", "i(2, 2, 3): 0 1 2 3 4 5 6 7 8 9 10 11");
    expect_eval(&rc, "np.arange(6).reshape(2, 3).reshape(-1)", "i(6,): 0 1 2 3 4 5");
    expect_eval(&rc, "np.arange(6).reshape(2, 3).flatten()", "i(6,): 0 1 2 3 4 5");
    expect_eval(&rc, "np.arange(6).reshape(2, 3).ravel()", "i(6,): 0 1 2 3 4 5");
    expect_eval(&rc, "x.sum().reshape(1)", "f(1,): 8");
    expect_eval(&rc, "x.max().reshape(-1)", "f(1,): 4.5");
    expect_eval(&rc, "np.flip(np.arange(6).reshape(2, 3))", "i(2, 3): 5 4 3 2 1 0");
    expect_eval(&rc, "np.flip(np.arange(6).reshape(2, 3), axis=1)", "i(2, 3): 2 1 0 5 4 3");
    expect_eval(&rc, "np.flip(np.arange(6).reshape(2, 3), 0)", "i(2, 3): 3 4 5 0 1 2");
    expect_eval(&rc, "np.arange(6).reshape(2, 3)[::-1]", "i(2, 3): 3 4 5 0 1 2");
    expect_eval(&rc, "np.concatenate((np.arange(3), np.arange(2) * 1.5))", "f(5,): 0 1 2 0 1.5");
    expect_eval(&rc, "np.concatenate([np.arange(4).reshape(2, 2), np.arange(2).reshape(2, 1)], axis=1)",
                "i(2, 3): 0 1 0 2 3 1");
    expect_eval(&rc, "np.concatenate((np.arange(4).reshape(2, 2), np.arange(2).reshape(1, 2)), axis=None)",
                "i(6,): 0 1 2 3 0 1");
    expect_eval(&rc, "np.stack((np.arange(3), np.arange(3) + 10))", "i(2, 3): 0 1 2 10 11 12");
    expect_eval(&rc, "np.stack((np.arange(3), np.arange(3) + 10), axis=1)", "i(3, 2): 0 10 1 11 2 12");
    expect_eval(&rc, "np.stack([np.arange(3), np.arange(3)], axis=-1)", "i(3, 2): 0 0 1 1 2 2");
    expect_eval(&rc, "np.array([x.argmin()])", "i(1,): 0");
    expect_eval(&rc, "np.array([x.max(), 1])", "f(2,): 4.5 1");
    expect_eval(&rc, "np.array([[1, 2], [3, 4]])", "i(2, 2): 1 2 3 4");
    expect_eval(&rc, "np.array([True, False])", "b(2,): 1 0");
    expect_eval(&rc, "(x - x.max(axis=0, keepdims=True)) / x.sum(axis=0, keepdims=True)",
                "f(8,): -0.875 -0.75 -0.625 -0.5 -0.375 -0.25 -0.125 0");
    expect_eval(&rc, "(np.arange(200) * 0.1).sum()", "f(): 1990");
    expect_eval(&rc, "(np.arange(200) * 0.1).reshape(2, 100).sum(axis=1)", "f(2,): 495 1495");
    expect_eval(&rc, "(np.arange(200) * 0.1).reshape(100, 2).sum(axis=0)", "f(2,): 990 1000");
    expect_eval(&rc, "(np.arange(200) * 0.1).mean()", "f(): 9.9499999999999993");
    expect_eval(&rc, "(np.arange(200) * 0.1).reshape(100, 2, 1).sum(axis=0)", "f(2, 1): 990 1000");
    /* where numpy raises */
    expect_eval(&rc, "x.max(axis=1)",
                "tric: error: check: axis 1 is out of bounds for an array of shape (8,)\n");
    expect_eval(&rc, "x.argmax(axis=-2)",
                "tric: error: check: axis -2 is out of bounds for an array of shape (8,)\n");
    expect_eval(&rc, "np.arange(6).reshape(2, 3).cumsum(axis=2)",
                "tric: error: check: axis 2 is out of bounds for an array of shape (2, 3)\n");
    expect_eval(&rc, "np.flip(x, axis=1)",
                "tric: error: check: axis 1 is out of bounds for an array of shape (8,)\n");
    expect_eval(&rc, "np.arange(0).max()",
                "tric: error: check: zero-size array to reduction operation maximum which has no identity\n");
    expect_eval(&rc, "np.arange(0).reshape(2, 0).max(axis=1)",
                "tric: error: check: zero-size array to reduction operation maximum which has no identity\n");
    expect_eval(&rc, "np.arange(0).argmin()",
                "tric: error: check: attempt to get argmin of an empty sequence\n");
    expect_eval(&rc, "np.bitwise_xor.reduce(x)",
                "tric: error: check: np.bitwise_xor.reduce needs integers or bools\n");
    expect_eval(&rc, "x.cumsum(keepdims=True)",
                "tric: error: check: cumsum takes no keepdims= argument\n");
    expect_eval(&rc, "np.exp(x, axis=0)",
                "tric: error: check: np.exp takes no axis= argument\n");
    expect_eval(&rc, "x.max(0, 1)",
                "tric: error: check: max takes at most 1 positional argument\n");
    expect_eval(&rc, "x.max(0, axis=0)",
                "tric: error: check: max got axis twice\n");
    expect_eval(&rc, "x.sum(axis=(0, 1))",
                "tric: error: check: a tuple of axes is not supported: reduce one axis at a time\n");
    expect_eval(&rc, "np.arange(6).reshape(4, -1)",
                "tric: error: check: cannot reshape an array of shape (6,) into (4, -1)\n");
    expect_eval(&rc, "np.arange(6).reshape(-1, -1)",
                "tric: error: check: can only specify one unknown dimension\n");
    expect_eval(&rc, "np.concatenate((np.arange(3), np.arange(4).reshape(2, 2)))",
                "tric: error: check: np.concatenate: shapes (3,) and (2, 2) differ outside axis 0\n");
    expect_eval(&rc, "np.stack((np.arange(3), np.arange(4)))",
                "tric: error: check: np.stack: the arrays have different shapes, (3,) and (4,)\n");
    expect_eval(&rc, "x.max(keepdim=True)",
                "tric: error: check: unknown keyword argument 'keepdim'\n");
    expect_eval(&rc, "np.foo.reduce(x)",
                "tric: error: check: unknown function 'np.foo.reduce'\n");
    expect_eval(&rc, "np.sum()",
                "tric: error: check: np.sum needs an array\n");
    expect_eval(&rc, "x.astype(i32, axis=0)",
                "tric: error: check: astype takes no axis= argument\n");
    expect_eval(&rc, "np.where(x > 0, x, 0, keepdims=True)",
                "tric: error: check: np.where takes no keepdims= argument\n");
    expect_eval(&rc, "np.concatenate(x)",
                "tric: error: check: np.concatenate needs a list or tuple of arrays\n");
    expect_eval(&rc, "np.stack((x, x), axis=None)",
                "tric: error: check: np.stack needs an integer axis\n");
    /* np.bincount (the atomics' histograms) */
    expect_eval(&rc, "np.bincount(np.array([1, 3, 1, 0]))", "i(4,): 1 2 0 1");
    expect_eval(&rc, "np.bincount(np.array([1, 3, 1]), minlength=6)", "i(6,): 0 2 0 1 0 0");
    expect_eval(&rc, "np.bincount(np.array([4, 1]), minlength=2)", "i(5,): 0 1 0 0 1");
    expect_eval(&rc, "np.bincount(np.arange(0), minlength=2)", "i(2,): 0 0");
    expect_eval(&rc, "np.bincount(x)",
                "tric: error: check: np.bincount needs a 1-d array of integers\n");
    expect_eval(&rc, "np.bincount(np.array([1, -1]))",
                "tric: error: check: np.bincount: the values must not be negative\n");
    expect_eval(&rc, "np.bincount(np.array([1]), axis=0)",
                "tric: error: check: np.bincount takes no axis= argument\n");
    expect_eval(&rc, "np.sum(x, minlength=2)",
                "tric: error: check: np.sum takes no minlength= argument\n");
    expect_eval(&rc, "x.max(minlength=2)",
                "tric: error: check: max takes no minlength= argument\n");
    ref_case_close(&rc);
}

static void test_check_messages(void) {
    const char *f32 = "x = arange(8, fp32); y = full(8, 0.5, fp32); out = empty(8, fp32); n = 8";
    expect_check(add_f32_tir, f32, "out == x + y", "0", "");
    expect_check(add_f32_tir, f32, "out == x - y", "1e-5",
                 "out: relative error 0.265 > 1e-05; worst at (0,): got 0.5, expected -0.5\n");
    expect_check(add_f32_tir, f32, "out == x - y", "out: 0.3", "");                   /* per-output tol */
    expect_check(add_f32_tir, f32, "out == x + y * 1.000001", "", "");                 /* fp32's default 1e-5 */
    expect_check(add_f32_tir, f32, "out == x + y * 1.001", "",
                 "out: relative error 0.000108 > 1e-05; worst at (0,): got 0.5, expected 0.50049999999999994\n");
    /* n = 6: the last two elements are never written and keep empty()'s NaN */
    expect_check(add_f32_tir, "x = arange(8, fp32); y = full(8, 0.5, fp32); out = empty(8, fp32); n = 6",
                 "out == x + y", "", "out: 2 NaN in the output (first at (6,): not written?)\n");
    expect_check(add_f32_tir, "x = arange(8, fp32); y = full(8, 0.5, fp32); out = empty(8, fp32); n = 6",
                 "out == np.where(np.arange(8) < n, x + y, np.nan)", "", "");
    expect_check(add_f32_tir, f32, "out == x + y + np.where(np.arange(8) == 2, np.inf, 0)", "",
                 "out: 1 differ where the reference is infinite; first at (2,): got 2.5, expected inf\n");
    expect_check(add_f32_tir, f32, "out == x[:4]", "", "out: reference shape (4,) != output shape (8,)\n");
    expect_check(add_f32_tir, f32, "out == z", "", "tric: error: check: unknown name 'z'\n");
    expect_check(add_f32_tir, f32, "out = x + y", "", "tric: error: check: 'out = x + y' is not 'name == expression'\n");
    expect_check(add_f32_tir, f32, "n == x + y", "",
                 "tric: error: check: 'n == x + y' names 'n', which is not a pointer argument\n");
    expect_check(add_f32_tir, f32, "", "", "tric: error: check: no 'name == expression' to check\n");
    /* integers: exact, after wrapping the reference to the output type */
    const char *i32 = "x = arange(8, i32); out = empty(8, i32); n = 5";
    const char *ref = "out == np.where(np.arange(8) < n, x, -7) * 8";
    expect_check(masked_tir, i32, ref, "", "");
    expect_check(masked_tir, i32, "out == np.where(np.arange(8) < n, x, -7) * 8 + (np.arange(8) == 3)", "",
                 "out: 1 of 8 differ; first at (3,): got 24, expected 25\n");
    expect_check(masked_tir, i32, "out == np.where(np.arange(8) < n, x, -7) * 8 + 2**32", "", "");   /* wraps */
    /* a float reference truncates toward zero: 8.9 -> 8, 17.8 -> 17, -62.3 -> -62 */
    expect_check(masked_tir, i32, "out == np.where(np.arange(8) < n, x, -7) * 8.9", "",
                 "out: 6 of 8 differ; first at (2,): got 16, expected 17\n");
}

int main(int argc, char **argv) {
    Shard shard = blocks_shard(argc, argv);
    const char *env = getenv("TRIC_TEST_SEED");
    uint64_t seed = env && *env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL) * 1000003u + (uint64_t)clock();
    printf("test_interp: seed %llu (TRIC_TEST_SEED=%llu repeats this run)\n", (unsigned long long)seed,
           (unsigned long long)seed);
    if (shard.i == 0) {
        test_integers();
        test_floats();
        test_dot_reference();
        test_dot_rules();
        test_masked_and_loop();
        test_out_of_bounds();
        test_div_zero();
        test_reduce_order();
        test_fold_cse_ir();
        test_fold_cse_more(seed);
        test_reference_language();
        test_reference_reductions();
        test_check_messages();
    }
    test_kernels(seed, shard);
    if (failures) printf("%d failures\n", failures);
    return failures != 0;
}
