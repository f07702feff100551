/* mma.sync's arithmetic and fragment layouts, and cvt to tf32.
 *
 * One mma.sync.aligned.m16n8K.row.col is D = A * B + C for one warp, A
 * 16 x K, B K x 8, C and D 16 x 8, each spread over the 32 lanes' registers
 * as doc/ptx.md, "mma.sync fragments", gives them (the 16-bit and tf32
 * ones verified on an H100). The arithmetic is the contract of doc/ir.md's
 * dot, which the IR interpreter shares: each D[m][n] starts as C[m][n];
 * then for k ascending it becomes round(D + A[m][k] * B[k][n]), the
 * product exact, the sum rounded once to the accumulator type (f32, or
 * f16). Integers add exactly with 32-bit wrap-around (.satfinite clamps
 * the exact total instead). The real tensor cores sum in their own order
 * and width; this order makes code that chains its mma instructions in
 * ascending k bit-identical to the interpreter. */
#include "simops.h"
#include "../interp/scalar.h"

#include <math.h>
#include <string.h>

static const struct { const char *name; int bits; } mma_tys[SMT_COUNT] = {
    [SMT_F16] = {"f16", 16}, [SMT_BF16] = {"bf16", 16}, [SMT_TF32] = {"tf32", 32},
    [SMT_F32] = {"f32", 32}, [SMT_S8] = {"s8", 8}, [SMT_U8] = {"u8", 8},
    [SMT_S32] = {"s32", 32}, [SMT_E4M3] = {"e4m3", 8}, [SMT_E5M2] = {"e5m2", 8},
};

SimMmaTy sim_mma_type(const char *name) {
    for (int t = 1; t < SMT_COUNT; t++)
        if (!strcmp(mma_tys[t].name, name)) return (SimMmaTy)t;
    return SMT_NONE;
}

const char *sim_mma_type_name(SimMmaTy t) { return mma_tys[t].name; }

static bool is_int8(int t) { return t == SMT_S8 || t == SMT_U8; }
static bool is_fp8(int t) { return t == SMT_E4M3 || t == SMT_E5M2; }

/* The forms ptxas (CUDA 13.0) accepts, K in {8, 16, 32}, types d a b c:
 *   int8 x int8 (s8/u8, any pair) -> s32, K 16 or 32, .satfinite allowed
 *   fp8 x fp8 (e4m3/e5m2, any pair) -> f32 or f16, K 16 or 32 (sm_89+)
 *   f16 x f16 -> f32 or f16, bf16 x bf16 -> f32, K 8 or 16
 *   tf32 x tf32 -> f32, K 8
 * d and c always have one type. */
bool sim_mma_form_ok(int k, const uint8_t ty[4], bool satfinite) {
    int d = ty[0], a = ty[1], b = ty[2], c = ty[3];
    if (d != c) return false;
    if (is_int8(a) && is_int8(b)) return d == SMT_S32 && (k == 16 || k == 32);
    if (satfinite) return false;
    if (is_fp8(a) && is_fp8(b)) return (d == SMT_F32 || d == SMT_F16) && (k == 16 || k == 32);
    if (a != b) return false;
    if (a == SMT_F16) return (d == SMT_F32 || d == SMT_F16) && (k == 8 || k == 16);
    if (a == SMT_BF16) return d == SMT_F32 && (k == 8 || k == 16);
    if (a == SMT_TF32) return d == SMT_F32 && k == 8;
    return false;
}

/* elements of an operand type per 32-bit register */
static int per_reg(int t) { return 32 / mma_tys[t].bits; }

int sim_mma_regs(const SimIns *in, int i) {
    int k = in->mma_k, e = per_reg(in->mma_ty[1]);
    switch (i) {
    case 1: return k / 2 / e;   /* A: 16 x K over 32 lanes */
    case 2: return k / 4 / e;   /* B: K x 8 */
    default: return in->mma_ty[i] == SMT_F16 ? 2 : 4;   /* C, D: 16 x 8, f16 two per register */
    }
}

/* Element j of an operand register as an exact double (integers too: they
 * are small). tf32: the hardware reads the upper 19 bits of the f32 pattern
 * (truncation; cvt.rna.tf32.f32 leaves the low 13 bits zero). */
static double element(int t, uint32_t reg, int j) {
    int bits = mma_tys[t].bits;
    uint32_t v = bits == 32 ? reg : (reg >> (bits * j)) & ((1u << bits) - 1);
    switch (t) {
    case SMT_F16: return scalar_float(ET_F16, v);
    case SMT_BF16: return scalar_float(ET_BF16, v);
    case SMT_E4M3: return scalar_float(ET_F8E4M3, v);
    case SMT_E5M2: return scalar_float(ET_F8E5M2, v);
    case SMT_S8: return (int8_t)v;
    case SMT_U8: return v;
    case SMT_S32: return (int32_t)v;
    case SMT_TF32: {
        double x = scalar_float(ET_F32, v);
        return isnan(x) ? x : scalar_float(ET_F32, v & ~0x1FFFu);
    }
    default: return scalar_float(ET_F32, v);
    }
}

/* Where register r of lane l holds its element j of each operand
 * (doc/ptx.md, "mma.sync fragments", with g = l / 4, t = l % 4, e
 * elements per register):
 *   A: row g + 8 (r % 2), col (r / 2) 4e + t e + j
 *   B: row r 4e + t e + j, col g
 *   C, D: element q = 2 r + j (f16) or q = r: row g + 8 (q / 2), col 2 t + q % 2 */
static void a_pos(int e, int l, int r, int j, int *row, int *col) {
    *row = l / 4 + 8 * (r % 2);
    *col = (r / 2) * 4 * e + (l % 4) * e + j;
}

static void b_pos(int e, int l, int r, int j, int *row, int *col) {
    *row = r * 4 * e + (l % 4) * e + j;
    *col = l / 4;
}

static void cd_pos(int q, int l, int *row, int *col) {
    *row = l / 4 + 8 * (q / 2);
    *col = 2 * (l % 4) + q % 2;
}

/* acc + p rounded once to the accumulator type. p has at most 22
 * significant bits (products of f16, bf16, tf32 and fp8 values), so the
 * sum rounded to double and then to f32 or f16 is the sum rounded once:
 * double's rounding cannot land on a midpoint of the narrower type. */
static double accumulate(int t, double acc, double p) {
    double s = acc + p;
    if (t == SMT_F16) return scalar_float(ET_F16, scalar_round_bits(ET_F16, s, false));
    return (double)(float)s;
}

static uint32_t acc_bits(int t, double v) {
    if (t == SMT_F16) return (uint32_t)scalar_round_bits(ET_F16, v, false);
    return (uint32_t)scalar_round_bits(ET_F32, v, false);   /* exact; NaN canonical */
}

void sim_mma(const SimIns *in, uint32_t frag[4][32][4]) {
    int k_dim = in->mma_k, ta = in->mma_ty[1], tb = in->mma_ty[2], tc = in->mma_ty[3], e = per_reg(ta);
    double a[16][32], b[32][8], d[16][8];
    int row, col;
    for (int l = 0; l < 32; l++) {
        for (int r = 0; r < sim_mma_regs(in, 1); r++)
            for (int j = 0; j < e; j++) a_pos(e, l, r, j, &row, &col), a[row][col] = element(ta, frag[1][l][r], j);
        for (int r = 0; r < sim_mma_regs(in, 2); r++)
            for (int j = 0; j < e; j++) b_pos(e, l, r, j, &row, &col), b[row][col] = element(tb, frag[2][l][r], j);
        for (int q = 0; q < 4; q++) {
            cd_pos(q, l, &row, &col);
            d[row][col] = tc == SMT_F16 ? element(tc, frag[3][l][q / 2], q % 2) : element(tc, frag[3][l][q], 0);
        }
    }
    for (int m = 0; m < 16; m++)
        for (int n = 0; n < 8; n++) {
            if (tc == SMT_S32) {   /* exact: |sum| < 2^31 + 32 * 2^16 */
                int64_t s = (int64_t)d[m][n];
                for (int k = 0; k < k_dim; k++) s += (int64_t)a[m][k] * (int64_t)b[k][n];
                if (in->mods & SM_SATFINITE) s = s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s;
                d[m][n] = (double)(int32_t)(uint32_t)s;   /* wraps */
                continue;
            }
            for (int k = 0; k < k_dim; k++) d[m][n] = accumulate(tc, d[m][n], a[m][k] * b[k][n]);
        }
    for (int l = 0; l < 32; l++) {
        memset(frag[0][l], 0, sizeof frag[0][l]);
        for (int q = 0; q < 4; q++) {
            cd_pos(q, l, &row, &col);
            if (tc == SMT_F16) frag[0][l][q / 2] |= acc_bits(tc, d[row][col]) << (16 * (q % 2));
            else frag[0][l][q] = tc == SMT_S32 ? (uint32_t)(int32_t)d[row][col] : acc_bits(tc, d[row][col]);
        }
    }
}

/* cvt.rna{.satfinite}.tf32.f32: to 10 mantissa bits, to nearest with ties
 * away from zero, the low 13 bits zero: adding half of the dropped unit to
 * the magnitude carries into the exponent where it must (up to infinity
 * past the largest tf32). .satfinite gives the largest finite tf32 instead
 * of infinity (for infinite inputs too). A NaN gives the canonical NaN. */
SimStatus sim_cvt_tf32(const SimIns *in, uint64_t a, uint64_t *r) {
    if (in->ty[1] != ST_F32 || (in->mods & ~SM_SATFINITE) != SM_RNA) return SIM_BAD;
    uint32_t x = (uint32_t)a, sign = x & 0x80000000u, mag = x & 0x7FFFFFFFu;
    if (mag > 0x7F800000u) {
        *r = 0x7FFFFFFF;
        return SIM_OK;
    }
    if (mag < 0x7F800000u) mag = (mag + 0x1000u) & ~0x1FFFu;
    if (mag == 0x7F800000u && (in->mods & SM_SATFINITE)) mag = 0x7F7FE000u;
    *r = sign | mag;
    return SIM_OK;
}
