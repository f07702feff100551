/* The CPU interpreter (interp/) and differential testing of every pass.
 *
 * 1. Element semantics: integer wrap-around, division and shifts as PTX does
 *    them, f16/bf16 rounding, casts, NaN compares and min/max.
 * 2. Whole IR: masked loads with `other`, a loop with carried values, the
 *    exact messages for an out-of-bounds access and a division by zero.
 * 3. Every kernel test block of kernels/NAME.py: the IR after lowering and
 *    after each pass of the standard pipeline runs on the same inputs (fixed
 *    seed); every buffer must come out bit-identical from one stage to the
 *    next, or the test names the pass and the first differing element. */
#include "base/base.h"
#include "interp/interp.h"
#include "interp/scalar.h"
#include "runtime/rt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blocks.h"
#include "differential.h"

static int failures;

#define CHECK(cond, ...)                                                           \
    do {                                                                           \
        if (!(cond)) {                                                             \
            failures++;                                                            \
            printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                 \
            printf(__VA_ARGS__);                                                   \
            printf("\n");                                                          \
        }                                                                          \
    } while (0)

/* ---- 1. elements ---- */

static uint64_t bin(Opcode opc, ElemType e, int64_t a, int64_t b) {
    bool dz = false;
    uint64_t r = interp_elem_binary(opc, e, 0, interp_int_norm(e, (uint64_t)a), interp_int_norm(e, (uint64_t)b), &dz);
    CHECK(!dz, "unexpected division by zero");
    return r;
}

static int64_t sbin(Opcode opc, ElemType e, int64_t a, int64_t b) { return (int64_t)bin(opc, e, a, b); }

static void test_integers(void) {
    CHECK(sbin(OP_ADD, ET_I32, INT32_MAX, 1) == INT32_MIN, "i32 add wraps");
    CHECK(sbin(OP_MUL, ET_I8, 100, 3) == 44, "i8 mul wraps: %lld", (long long)sbin(OP_MUL, ET_I8, 100, 3));
    CHECK(bin(OP_SUB, ET_U8, 3, 5) == 254, "u8 sub wraps");
    CHECK(bin(OP_SUB, ET_U32, 0, 1) == UINT32_MAX, "u32 sub wraps");
    CHECK(sbin(OP_DIV, ET_I32, -7, 2) == -3, "division truncates");
    CHECK(sbin(OP_REM, ET_I32, -7, 2) == -1, "remainder has the dividend's sign");
    CHECK(sbin(OP_DIV, ET_I32, INT32_MIN, -1) == INT32_MIN, "INT_MIN / -1 wraps");
    CHECK(sbin(OP_DIV, ET_I8, -128, -1) == -128, "i8 -128 / -1 wraps");
    CHECK(sbin(OP_DIV, ET_I64, INT64_MIN, -1) == INT64_MIN, "i64 INT_MIN / -1");
    CHECK(bin(OP_DIV, ET_U32, 0xFFFFFFFE, 2) == 0x7FFFFFFF, "u32 division is unsigned");
    bool dz = false;
    interp_elem_binary(OP_DIV, ET_I32, 0, 5, 0, &dz);
    CHECK(dz, "division by zero is reported");
    /* shifts: amounts >= the register width give 0 or the sign */
    CHECK(sbin(OP_SHL, ET_I32, 1, 31) == INT32_MIN, "1 << 31");
    CHECK(sbin(OP_SHL, ET_I32, 1, 32) == 0, "shl by 32");
    CHECK(sbin(OP_SHR, ET_I32, -8, 1) == -4, "arithmetic shr");
    CHECK(sbin(OP_SHR, ET_I32, -8, 40) == -1, "arithmetic shr by 40 fills the sign");
    CHECK(sbin(OP_SHR, ET_I32, 8, -1) == 0, "negative amounts are huge unsigned");
    CHECK(bin(OP_SHR, ET_U32, 0x80000000u, 31) == 1, "logical shr");
    CHECK(bin(OP_SHR, ET_U32, 0x80000000u, 32) == 0, "logical shr by 32");
    CHECK(sbin(OP_SHL, ET_I8, 1, 7) == -128, "i8 1 << 7");
    CHECK(sbin(OP_SHL, ET_I8, 1, 9) == 0, "i8 shl by 9");
    CHECK(sbin(OP_SHR, ET_I8, -128, 10) == -1, "i8 shr by 10");
    CHECK(bin(OP_SHR, ET_U8, 200, 3) == 25, "u8 shr");
    CHECK(sbin(OP_SHL, ET_I64, 1, (INT64_C(1) << 32) + 1) == 2, "i64 amounts keep their low 32 bits");
    CHECK(sbin(OP_SHL, ET_I64, 1, 63) == INT64_MIN, "i64 1 << 63");
    CHECK(sbin(OP_MIN, ET_I32, -1, 1) == -1 && bin(OP_MIN, ET_U32, 0xFFFFFFFF, 1) == 1, "min signedness");
    CHECK(interp_elem_unary(OP_NEG, ET_I32, interp_int_norm(ET_I32, (uint64_t)INT32_MIN)) ==
              interp_int_norm(ET_I32, (uint64_t)INT32_MIN), "neg INT_MIN wraps");
    CHECK(interp_elem_unary(OP_ABS, ET_I8, interp_int_norm(ET_I8, (uint64_t)-128)) ==
              interp_int_norm(ET_I8, (uint64_t)-128), "abs -128 wraps");
    CHECK(interp_elem_cmp(CMP_LT, ET_U32, 1, 0xFFFFFFFF) && !interp_elem_cmp(CMP_LT, ET_I32, 1, interp_int_norm(ET_I32, 0xFFFFFFFF)),
          "cmp signedness");
}

static uint64_t f16(double v) { return interp_slot_from_double(ET_F16, v); }
static uint64_t bf16(double v) { return interp_slot_from_double(ET_BF16, v); }
static uint64_t f32(float v) { return scalar_f32_bits(v); }

static void test_floats(void) {
    CHECK(f16(1.0) == 0x3C00 && f16(65504) == 0x7BFF && f16(65520) == 0x7C00, "f16 encodings");
    CHECK(f16(1.0 + 0x1p-11) == 0x3C00, "f16 tie rounds to even (down)");
    CHECK(f16(1.0 + 3 * 0x1p-11) == 0x3C02, "f16 tie rounds to even (up)");
    CHECK(f16(0x1p-24) == 0x0001 && f16(0x1p-25) == 0 && f16(0x1.8p-25) == 0x0001, "f16 subnormals");
    CHECK(bf16(1.0 + 0x1p-8) == 0x3F80 && bf16(1.0 + 3 * 0x1p-8) == 0x3F82, "bf16 ties to even");
    bool dz = false;
    /* f16: 2049 is not representable: 2048 + 1 rounds to 2048 after the add */
    CHECK(interp_elem_binary(OP_ADD, ET_F16, 0, f16(2048), f16(1), &dz) == f16(2048), "f16 add rounds");
    CHECK(interp_elem_binary(OP_ADD, ET_F16, 0, f16(2048), f16(3), &dz) == f16(2052), "f16 add ties to even");
    CHECK(interp_elem_binary(OP_MUL, ET_BF16, 0, bf16(1.0 + 0x1p-7), bf16(1.0 + 0x1p-7), &dz) == bf16(1.0 + 0x1p-6),
          "bf16 mul rounds");
    CHECK(interp_elem_binary(OP_ADD, ET_F32, 0, f32(16777216.0f), f32(1.0f), &dz) == f32(16777216.0f), "f32 add");
    /* NaN: != is unordered, the others ordered */
    uint64_t nan = f32(NAN), one = f32(1.0f);
    CHECK(interp_elem_cmp(CMP_NE, ET_F32, nan, nan) == 1 && interp_elem_cmp(CMP_EQ, ET_F32, nan, nan) == 0 &&
          interp_elem_cmp(CMP_LT, ET_F32, nan, one) == 0 && interp_elem_cmp(CMP_GE, ET_F32, nan, one) == 0, "NaN compares");
    CHECK(interp_elem_binary(OP_MIN, ET_F32, 0, nan, one, &dz) == one, "min without NaN propagation");
    CHECK(interp_elem_binary(OP_MAX, ET_F32, 1, one, nan, &dz) == 0x7FFFFFFF, "max propagating NaN");
    CHECK(interp_elem_binary(OP_MAX, ET_F64, 1, scalar_f64_bits(1.0), scalar_f64_bits(NAN), &dz) ==
              UINT64_C(0x7FFFFFFFFFFFFFFF), "f64 max propagating NaN");
    CHECK(interp_elem_binary(OP_MIN, ET_F32, 0, f32(0.0f), f32(-0.0f), &dz) == f32(-0.0f), "min(+0, -0) = -0");
    /* casts: float -> int truncates and saturates, NaN -> 0 */
    CHECK(interp_elem_cast(ET_F32, ET_I32, false, 80, f32(-2.75f)) == interp_int_norm(ET_I32, (uint64_t)-2), "trunc");
    CHECK(interp_elem_cast(ET_F32, ET_I32, false, 80, f32(3e9f)) == INT32_MAX, "saturates");
    CHECK(interp_elem_cast(ET_F32, ET_U32, false, 80, f32(-5.0f)) == 0, "saturates at 0");
    CHECK(interp_elem_cast(ET_F32, ET_I32, false, 80, nan) == 0, "NaN -> 0");
    CHECK(interp_elem_cast(ET_F32, ET_I8, false, 80, f32(300.0f)) == 44, "f32 -> i8 saturates to 16 bits, keeps the low byte");
    CHECK(interp_elem_cast(ET_I32, ET_I8, false, 80, 200) == interp_int_norm(ET_I8, (uint64_t)-56), "narrowing truncates");
    CHECK(interp_elem_cast(ET_I8, ET_U32, false, 80, interp_int_norm(ET_I8, (uint64_t)-1)) == 0xFFFFFFFF,
          "widening follows the source's sign");
    CHECK(interp_elem_cast(ET_F32, ET_F16, true, 80, f32(1.0f + 0x1p-10f + 0x1p-12f)) == 0x3C01, "rtz narrowing");
    CHECK(interp_elem_cast(ET_F32, ET_F16, false, 80, f32(1.0f + 0x1p-10f + 0x1p-11f)) == 0x3C02, "rn narrowing");
    CHECK(interp_elem_cast(ET_F32, ET_I1, false, 80, nan) == 1, "NaN is true");
    CHECK(interp_elem_bitcast(ET_F32, ET_I32, f32(-1.0f)) == interp_int_norm(ET_I32, 0xBF800000u), "bitcast");
    /* int -> bf16 before sm_90 rounds twice, through f32 */
    uint64_t big = (UINT64_C(1) << 24) + (UINT64_C(1) << 16) + 1;   /* f32 drops the 1, then a tie */
    CHECK(interp_elem_cast(ET_I32, ET_BF16, false, 80, big) != interp_elem_cast(ET_I32, ET_BF16, false, 90, big),
          "int -> bf16: two roundings before sm_90, one after");
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
    InterpLaunch l = {{grid, 1, 1}, args, na, bufs, nb, 1000};
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
    InterpBuffer bufs[] = {{x, sizeof x, "x", ET_I32}, {out, sizeof out, "out", ET_I32}};
    uint64_t args[] = {(uint64_t)(uintptr_t)x, (uint64_t)(uintptr_t)out, 5};
    Run r;
    run_ir(&r, masked_tir, bufs, 2, args, 3, 1);
    CHECK(r.ok, "masked run failed: %s", buf_str(&r.err));
    for (int i = 0; i < 8; i++) CHECK(out[i] == (i < 5 ? x[i] : -7) * 8, "out[%d] = %d", i, out[i]);
    run_free(&r);
}

static void test_out_of_bounds(void) {
    int32_t x[5] = {0}, out[8] = {0};
    InterpBuffer bufs[] = {{x, sizeof x, "x", ET_I32}, {out, sizeof out, "out", ET_I32}};
    uint64_t args[] = {(uint64_t)(uintptr_t)x, (uint64_t)(uintptr_t)out, 7};   /* n too large */
    Run r;
    run_ir(&r, masked_tir, bufs, 2, args, 3, 2);
    const char *want = "test.tir:8:3: error: out-of-bounds load: element (5) reads 4 bytes at offset +20 "
                       "of buffer 'x' (20 bytes) in program (0, 0, 0)\n"
                       "  %6 = load %4, %2, %5 : tile<8xi32>\n"
                       "  ^\n";
    CHECK(!r.ok && strcmp(buf_str(&r.err), want) == 0, "got:\n%s", buf_str(&r.err));
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
    InterpBuffer bufs[] = {{out, sizeof out, "out", ET_I32}};
    uint64_t args[] = {(uint64_t)(uintptr_t)out, 2};
    Run r;
    run_ir(&r, tir, bufs, 1, args, 2, 4);
    const char *want = "test.tir:5:3: error: integer division by zero in program (2, 0, 0)\n"
                       "  %3 = div %2, %1 : i32\n"
                       "  ^\n";
    CHECK(!r.ok && strcmp(buf_str(&r.err), want) == 0, "got:\n%s", buf_str(&r.err));
    CHECK(out[0] == 50 && out[1] == 100, "programs before the failing one ran: %d %d", out[0], out[1]);
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
    CHECK(ok && !d.unsupported && !d.failed && d.stages == 7, "fold_cse.tir: %s%s", diag, d.unsupported_why ? d.unsupported_why : "");
    if (d.failed) failures++;
    /* and the values are right: j = (-2 * -7 - -7 / 3) + ((-7 >> 3) | (-7 % 3 ^ 5 << 3)) = 15 */
    if (d.prev.ok && d.prev.n == 2) {
        const int32_t *out = d.prev.bufs[1].base;
        for (int i = 0; i < 8; i++) {
            int32_t x = i - 1, v6 = x < 3 ? 15 : x, v7 = x > 3 ? v6 : i, v8 = x >= 3 ? v7 : 3;
            CHECK(out[i] == v8 + v6, "fold_cse out[%d] = %d, expected %d", i, out[i], v8 + v6);
        }
    }
    diff_free(&d);
    free(diag);
}

static void test_kernels(void) {
    int n_blocks = 0;
    TestBlock *blocks = blocks_read_dir("kernels", &n_blocks);
    CHECK(n_blocks > 0, "no kernel test blocks (run from the repository root)");
    int ran = 0, skipped = 0, stages = 0;
    for (int b = 0; b < n_blocks; b++) {
        const TestBlock *tb = &blocks[b];
        char where[768];
        snprintf(where, sizeof where, "%s:%d %s", tb->path, tb->line, tb->kernel);
        RtRequest rq = {.path = tb->path, .kernel = tb->kernel, .signature = tb->signature};
        rt_default_target(&rq.target);
        if (tb->num_warps[0]) rq.target.num_warps = atoi(tb->num_warps);
        Diff d = {.where = where, .args = tb->args, .grid = tb->grid, .seed = 12345};
        char *diag = NULL;
        bool ok = rt_each_stage(&rq, diff_on_stage, &d, &diag);
        CHECK(ok, "%s does not compile:\n%s", where, diag);
        if (d.unsupported) {
            printf("note: %s: skipped: %s", where, d.unsupported_why);
            skipped++;
        } else if (d.failed) {
            failures++;
        } else {
            ran++;
            stages += d.stages;
        }
        diff_free(&d);
        free(diag);
    }
    free(blocks);
    printf("kernels: %d test blocks, %d ran through %d stages bit-identically, %d skipped\n", n_blocks, ran, stages,
           skipped);
    CHECK(n_blocks > 0 && ran * 10 >= n_blocks * 8, "fewer than 80%% of the blocks ran (%d of %d)", ran, n_blocks);
}

int main(void) {
    test_integers();
    test_floats();
    test_masked_and_loop();
    test_out_of_bounds();
    test_div_zero();
    test_fold_cse_ir();
    test_kernels();
    if (failures) printf("%d failures\n", failures);
    return failures != 0;
}
