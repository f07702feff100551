/* ldmatrix and swizzled shared memory in convert_layout (ptxgen/convert.c)
 * and the simulator's ldmatrix (sim/ldmatrix.c).
 *
 * 1. The simulator's ldmatrix against doc/ptx.md, "ldmatrix and
 *    stmatrix" (verified on an H100): a 16x16 f16 tile whose element (r, c)
 *    holds 16 r + c, read with lane l at row l % 16, column 8 (l / 16):
 *    lane 0 gets 0x00010000, 0x00810080, 0x00090008, 0x00890088, and every
 *    lane the mma A fragment; .x2.trans from rows 0..15 gives the B
 *    fragment; .x1 with the shared::cta spelling; and the misuses it must
 *    refuse. stmatrix (sm_90) stores what ldmatrix read back exactly.
 * 2. smem_plan's counts (ptx_smem_plan_info) for mma-like layouts written
 *    by hand: the plan reads with ldmatrix (.trans where the pairs run down
 *    the rows) over a swizzled buffer, every matrix and every 16-byte store
 *    conflict-free, fewer wavefronts than the plans before ldmatrix; layouts
 *    without the pattern keep those plans.
 * 3. Kernels that convert a blocked tile into those layouts and store it:
 *    the PTX holds the expected ldmatrix, ptxas (sm_80, sm_90a) accepts it,
 *    and the simulated PTX writes exactly what the interpreter does, for
 *    random inputs; the same for the two test/ir/ldmatrix_*.tir goldens. */
#include "base/base.h"
#include "ptxgen/ptx.h"
#include "sim/sim.h"

#include "check.h"
#include "differential.h"
#include "ptxas.h"

/* ---- 1. the simulator ---- */

/* A 32-thread kernel: the 16x16 f16 tile (r, c) = 16 r + c in shared
 * memory (each thread stores 16 bytes), then `addr` (PTX computing %r20
 * from the lane %r1 and the tile's address %r10) and `ldm` (results in
 * %r30..%r33), stored to out[4 lane + j]. */
static char *sim_module(const char *addr, const char *ldm) {
    Buf b = {0};
    buf_printf(&b,
               ".version 8.0\n.target sm_80\n.address_size 64\n"
               ".visible .entry t(.param .u64 out)\n{\n"
               "\t.reg .b32 %%r<40>;\n\t.reg .b64 %%rd<8>;\n\t.reg .pred %%p<4>;\n"
               "\t.shared .align 16 .b8 tile[512];\n"
               "\tld.param.u64 %%rd1, [out];\n"
               "\tmov.u32 %%r1, %%tid.x;\n"
               "\tmov.u32 %%r10, tile;\n"
               /* word w = 4 t + j holds elements 2w, 2w + 1: 2w * 0x10001 + 0x10000 */
               "\tshl.b32 %%r2, %%r1, 2;\n"
               "\tmad.lo.u32 %%r3, %%r2, 0x20002, 0x10000;\n"
               "\tadd.u32 %%r4, %%r3, 0x20002;\n"
               "\tadd.u32 %%r5, %%r4, 0x20002;\n"
               "\tadd.u32 %%r6, %%r5, 0x20002;\n"
               "\tshl.b32 %%r7, %%r1, 4;\n"
               "\tadd.u32 %%r8, %%r10, %%r7;\n"
               "\tst.shared.v4.b32 [%%r8], {%%r3, %%r4, %%r5, %%r6};\n"
               "\tbar.sync 0;\n"
               "%s\n\t%s\n"
               "\tmul.wide.u32 %%rd2, %%r1, 16;\n"
               "\tadd.u64 %%rd3, %%rd1, %%rd2;\n"
               "\tst.global.v4.b32 [%%rd3], {%%r30, %%r31, %%r32, %%r33};\n"
               "\tret;\n}\n",
               addr, ldm);
    return buf_take(&b);
}

/* Runs it; out gets 4 words per lane (0xEEEEEEEE where nothing was loaded).
 * false with the simulator's message in *err. */
static bool sim_ldm(const char *addr, const char *ldm, uint32_t out[32][4], Buf *err) {
    char *ptx = sim_module(addr, ldm);
    memset(out, 0xEE, sizeof(uint32_t) * 32 * 4);
    InterpBuffer buf = {out, sizeof(uint32_t) * 32 * 4, "out", ET_U32, false, false};
    uint64_t arg = (uint64_t)(uintptr_t)out;
    InterpLaunch l = {.grid = {1, 1, 1}, .args = &arg, .n_args = 1, .buffers = &buf, .n_buffers = 1};
    SimLaunch sl = {.ptx = ptx, .threads = 32, .data = &l};
    bool ok = sim_run(&sl, err);
    free(ptx);
    return ok;
}

static uint32_t pair(int r0, int c0, int r1, int c1) {
    return (uint32_t)(16 * r0 + c0) | (uint32_t)(16 * r1 + c1) << 16;
}

/* lane l: row l % 16, column 8 (l / 16), row pitch 32 bytes */
static const char addr_a[] =
    "\tand.b32 %r11, %r1, 15;\n\tshr.u32 %r12, %r1, 4;\n\tshl.b32 %r13, %r11, 5;\n"
    "\tshl.b32 %r14, %r12, 4;\n\tadd.u32 %r15, %r13, %r14;\n\tadd.u32 %r20, %r10, %r15;";
/* lane l: row l % 16, column 0 */
static const char addr_rows[] = "\tand.b32 %r11, %r1, 15;\n\tshl.b32 %r13, %r11, 5;\n\tadd.u32 %r20, %r10, %r13;";

static void test_sim_ldmatrix(void) {
    uint32_t out[32][4];
    Buf err = {0};
    /* x4: the mma A fragment of m16n8k16 */
    bool ok = sim_ldm(addr_a, "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r30, %r31, %r32, %r33}, [%r20];", out, &err);
    CHECK_MSG(ok, "ldmatrix .x4: %s", buf_str(&err));
    CHECK(out[0][0] == 0x00010000 && out[0][1] == 0x00810080 && out[0][2] == 0x00090008 && out[0][3] == 0x00890088);
    for (int l = 0; ok && l < 32; l++) {
        int g = l / 4, t = l % 4;
        CHECK_MSG(out[l][0] == pair(g, 2 * t, g, 2 * t + 1) && out[l][1] == pair(g + 8, 2 * t, g + 8, 2 * t + 1) &&
                      out[l][2] == pair(g, 2 * t + 8, g, 2 * t + 9) &&
                      out[l][3] == pair(g + 8, 2 * t + 8, g + 8, 2 * t + 9),
                  "ldmatrix .x4: lane %d got %08x %08x %08x %08x", l, out[l][0], out[l][1], out[l][2], out[l][3]);
    }
    /* x2.trans from a row-major K x N tile: the B fragment (2t, g), (2t+1, g) | (2t+8, g), (2t+9, g) */
    buf_free(&err);
    ok = sim_ldm(addr_rows, "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r30, %r31}, [%r20];", out, &err);
    CHECK_MSG(ok, "ldmatrix .x2.trans: %s", buf_str(&err));
    for (int l = 0; ok && l < 32; l++) {
        int g = l / 4, t = l % 4;
        CHECK_MSG(out[l][0] == pair(2 * t, g, 2 * t + 1, g) && out[l][1] == pair(2 * t + 8, g, 2 * t + 9, g),
                  "ldmatrix .x2.trans: lane %d got %08x %08x", l, out[l][0], out[l][1]);
    }
    /* x1, the .shared::cta spelling and a register (not a vector) result */
    buf_free(&err);
    ok = sim_ldm(addr_rows, "ldmatrix.sync.aligned.m8n8.x1.shared::cta.b16 {%r30}, [%r20+16];", out, &err);
    CHECK_MSG(ok, "ldmatrix .x1: %s", buf_str(&err));
    for (int l = 0; ok && l < 32; l++)
        CHECK_MSG(out[l][0] == pair(l / 4, 8 + 2 * (l % 4), l / 4, 9 + 2 * (l % 4)),
                  "ldmatrix .x1: lane %d got %08x", l, out[l][0]);
    buf_free(&err);
    ok = sim_ldm(addr_rows, "ldmatrix.sync.aligned.x1.m8n8.trans.shared.b16 %r30, [%r20];", out, &err);
    CHECK_MSG(ok, "ldmatrix .x1.trans: %s", buf_str(&err));
    for (int l = 0; ok && l < 32; l++)
        CHECK(out[l][0] == pair(2 * (l % 4), l / 4, 2 * (l % 4) + 1, l / 4));
    /* what it must refuse */
    static const struct { const char *addr, *ldm, *msg; } bad[] = {
        {addr_rows, "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r30, %r31, %r32, %r33}, [%r20+2];",
         "not 16-byte aligned"},
        {addr_rows, "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r30, %r31, %r32, %r33}, [%r20+4096];",
         "outside the shared memory"},
        {addr_rows, "ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%r30, %r31, %r32, %r33}, [%r20];",
         "one register per matrix"},
        {addr_rows, "ldmatrix.sync.aligned.m8n8.x4.shared.b32 {%r30, %r31, %r32, %r33}, [%r20];", "is modelled"},
        {addr_rows, "ldmatrix.sync.aligned.m8n8.x3.shared.b16 {%r30, %r31, %r32}, [%r20];", "modifier '.x3'"},
        {addr_rows, "ldmatrix.sync.m8n8.x1.shared.b16 {%r30}, [%r20];", "is modelled"},
        {addr_rows, "ldmatrix.sync.aligned.m8n8.x1.global.b16 {%r30}, [%r20];", "is modelled"},
        {"\tand.b32 %r11, %r1, 15;\n\tshl.b32 %r13, %r11, 5;\n\tadd.u32 %r20, %r10, %r13;\n"
         "\tsetp.lt.u32 %p1, %r1, 16;",
         "@%p1 ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r30}, [%r20];", "not every lane of the warp"},
    };
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        buf_free(&err);
        ok = sim_ldm(bad[i].addr, bad[i].ldm, out, &err);
        CHECK_MSG(!ok && strstr(buf_str(&err), bad[i].msg), "'%s' should fail with '%s', got: %s", bad[i].ldm,
                  bad[i].msg, ok ? "(ran)" : buf_str(&err));
    }
    buf_free(&err);
}

/* stmatrix (sm_90) is ldmatrix the other way: the fragments ldmatrix read
 * (.x4, and .x2.trans), stored back by stmatrix into the tile cleared in
 * between, give the tile back exactly (each thread reads its 16 bytes) */
static void test_sim_stmatrix(void) {
    static const struct { const char *addr, *ld, *st; } cases[] = {
        {addr_a, "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r30, %r31, %r32, %r33}, [%r20];",
         "stmatrix.sync.aligned.m8n8.x4.shared.b16 [%r20], {%r30, %r31, %r32, %r33};"},
        {addr_rows, "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r30, %r31}, [%r20];",
         "stmatrix.sync.aligned.m8n8.x2.trans.shared::cta.b16 [%r20], {%r30, %r31};"},
        {addr_rows, "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r30}, [%r20+16];",
         "stmatrix.sync.aligned.m8n8.x1.shared.b16 [%r20+16], %r30;"},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        Buf round = {0};
        buf_printf(&round, "%s\n\tbar.sync 0;\n\tmov.b32 %%r9, 0;\n\tst.shared.v4.b32 [%%r8], {%%r9, %%r9, %%r9, %%r9};\n\tbar.sync 0;\n"
                           "\t%s\n\tbar.sync 0;\n\tld.shared.v4.b32 {%%r30, %%r31, %%r32, %%r33}, [%%r8];",
                   cases[i].ld, cases[i].st);
        uint32_t out[32][4];
        Buf err = {0};
        bool ok = sim_ldm(cases[i].addr, buf_str(&round), out, &err);
        CHECK_MSG(ok, "%s: %s", cases[i].st, buf_str(&err));
        /* the matrices .x2 and .x1 cover: rows 0..15, column bytes 0..15 (.x2), rows 0..7 bytes 16..31 (.x1) */
        for (int l = 0; ok && l < 32; l++)
            for (int j = 0; j < 4; j++) {
                int w = 4 * l + j, row = w / 8, byte = 4 * (w % 8);
                bool covered = i == 0 || (i == 1 ? byte < 16 : row < 8 && byte >= 16);
                uint32_t want = covered ? (uint32_t)(2 * w) * 0x10001u + 0x10000u : 0;
                CHECK_MSG(out[l][j] == want, "%s: word %d is %08x, expected %08x", cases[i].st, w, out[l][j], want);
            }
        buf_free(&err);
        buf_free(&round);
    }
    uint32_t out[32][4];
    Buf err = {0};
    bool ok = sim_ldm(addr_rows, "stmatrix.sync.aligned.m8n8.x1.shared.b16 [%r20+2], %r30;", out, &err);
    CHECK_MSG(!ok && strstr(buf_str(&err), "not 16-byte aligned"), "misaligned stmatrix: %s",
              ok ? "(ran)" : buf_str(&err));
    buf_free(&err);
}

/* ---- 2. the plans ---- */

/* A 2-D layout from its bases; then reg bits stepping dim d from `from`
 * up to its size (the fragment repeated over the tile) */
typedef struct LB {
    Layout l;
} LB;

static LB lb_new(int32_t rows, int32_t cols) {
    LB b;
    memset(&b, 0, sizeof b);
    b.l.rank = 2;
    b.l.shape[0] = rows, b.l.shape[1] = cols;
    return b;
}

static void lb_add(LB *b, int kind, int32_t r, int32_t c) {
    int k = b->l.n_bits[kind]++;
    b->l.basis[kind][k][0] = r, b->l.basis[kind][k][1] = c;
}

static void lb_repeat(LB *b, int d, int32_t from) {
    for (int32_t s = from; s < b->l.shape[d]; s *= 2) lb_add(b, LL_REG, d == 0 ? s : 0, d == 1 ? s : 0);
}

/* m16n8k16 A (f16/bf16) of an M x K tile, 4 warps along M */
static Layout mma_a16(int32_t m, int32_t k) {
    LB b = lb_new(m, k);
    lb_add(&b, LL_REG, 0, 1), lb_add(&b, LL_REG, 8, 0), lb_add(&b, LL_REG, 0, 8);
    lb_add(&b, LL_LANE, 0, 2), lb_add(&b, LL_LANE, 0, 4);
    lb_add(&b, LL_LANE, 1, 0), lb_add(&b, LL_LANE, 2, 0), lb_add(&b, LL_LANE, 4, 0);
    lb_add(&b, LL_WARP, m >= 32 ? 16 : 0, 0), lb_add(&b, LL_WARP, m >= 64 ? 32 : 0, 0);
    lb_repeat(&b, 1, 16), lb_repeat(&b, 0, 64);
    return b.l;
}

/* m16n8k16 B of a K x N tile (b-reg = (2t, g), (2t+1, g)), every warp all of it */
static Layout mma_b16(int32_t k, int32_t n) {
    LB b = lb_new(k, n);
    lb_add(&b, LL_REG, 1, 0);
    if (k >= 16) lb_add(&b, LL_REG, 8, 0);
    lb_add(&b, LL_LANE, 2, 0), lb_add(&b, LL_LANE, 4, 0);
    lb_add(&b, LL_LANE, 0, 1), lb_add(&b, LL_LANE, 0, 2), lb_add(&b, LL_LANE, 0, 4);
    lb_add(&b, LL_WARP, 0, 0), lb_add(&b, LL_WARP, 0, 0);
    lb_repeat(&b, 0, 16), lb_repeat(&b, 1, 8);
    return b.l;
}

/* the same B held as its transpose, an N x K tile (K contiguous) */
static Layout mma_b16t(int32_t n, int32_t k) {
    LB b = lb_new(n, k);
    lb_add(&b, LL_REG, 0, 1), lb_add(&b, LL_REG, 0, 8);
    lb_add(&b, LL_LANE, 0, 2), lb_add(&b, LL_LANE, 0, 4);
    lb_add(&b, LL_LANE, 1, 0), lb_add(&b, LL_LANE, 2, 0), lb_add(&b, LL_LANE, 4, 0);
    lb_add(&b, LL_WARP, 0, 0), lb_add(&b, LL_WARP, 0, 0);
    lb_repeat(&b, 1, 16), lb_repeat(&b, 0, 8);
    return b.l;
}

/* m16n8k8 tf32 A: (g, t), (g+8, t), (g, t+4), (g+8, t+4) */
static Layout mma_a32(int32_t m, int32_t k) {
    LB b = lb_new(m, k);
    lb_add(&b, LL_REG, 8, 0), lb_add(&b, LL_REG, 0, 4);
    lb_add(&b, LL_LANE, 0, 1), lb_add(&b, LL_LANE, 0, 2);
    lb_add(&b, LL_LANE, 1, 0), lb_add(&b, LL_LANE, 2, 0), lb_add(&b, LL_LANE, 4, 0);
    lb_add(&b, LL_WARP, 16, 0), lb_add(&b, LL_WARP, 32, 0);
    lb_repeat(&b, 1, 8), lb_repeat(&b, 0, 64);
    return b.l;
}

/* m16n8k8 tf32 B, (t, g), (t+4, g), held as an N x K tile */
static Layout mma_b32t(int32_t n, int32_t k) {
    LB b = lb_new(n, k);
    lb_add(&b, LL_REG, 0, 4);
    lb_add(&b, LL_LANE, 0, 1), lb_add(&b, LL_LANE, 0, 2);
    lb_add(&b, LL_LANE, 1, 0), lb_add(&b, LL_LANE, 2, 0), lb_add(&b, LL_LANE, 4, 0);
    lb_add(&b, LL_WARP, 0, 0), lb_add(&b, LL_WARP, 0, 0);
    lb_repeat(&b, 1, 8), lb_repeat(&b, 0, 8);
    return b.l;
}

typedef struct Case {
    const char *name;
    ElemType e;
    int32_t rows, cols;
    Layout dst;
    int ldm, x;            /* the plan's: 0 none, 1 ldmatrix, 2 .trans; matrices per instruction */
    const char *ptx;       /* what the PTX must hold */
} Case;

static Layout writer(const Case *c) {
    int32_t shape[2] = {c->rows, c->cols};
    return layout_default(2, shape, 16 / elem_bytes(c->e), 4);
}

/* warp 0's wavefronts for writing w's registers with 16-byte vectors and
 * reading n_ldm matrices, when nothing conflicts */
static int ideal(const Layout *w, int elem_bytes_, int n_ldm) {
    int regs = layout_n_regs(w), per_store = 16 / elem_bytes_;
    return regs / per_store * 4 + n_ldm;
}

static void test_plan(const Case *c) {
    IrType ty = ir_tile(ir_scalar(c->e), 2, (int32_t[]){c->rows, c->cols});
    Layout w = writer(c);
    SmemPlanInfo now, before;
    smem_plan_info(&ty, &w, 0, &c->dst, false, &now);
    smem_plan_info(&ty, &w, 0, &c->dst, true, &before);
    int tn = now.write_wavefronts + now.read_wavefronts, tb = before.write_wavefronts + before.read_wavefronts;
    char buffer[64];
    if (now.swizzle_max_phase)
        snprintf(buffer, sizeof buffer, "swizzle per_phase %d max_phase %d", now.swizzle_per_phase,
                 now.swizzle_max_phase);
    else
        snprintf(buffer, sizeof buffer, "pad %d", (int)now.pad);
    printf("%s: wavefronts before %d (write %d + read %d, vectors %d/%d, pad %d), now %d (write %d + read %d, "
           "%s x%d, %s)\n",
           c->name, tb, before.write_wavefronts, before.read_wavefronts, before.vec_w, before.vec_r,
           (int)before.pad, tn, now.write_wavefronts, now.read_wavefronts,
           now.ldmatrix == 2 ? "ldmatrix.trans" : now.ldmatrix ? "ldmatrix" : "no ldmatrix", now.ldmatrix_x, buffer);
    CHECK_MSG(now.ldmatrix == c->ldm && now.ldmatrix_x == c->x, "%s: plan ldmatrix %d x%d, want %d x%d", c->name,
              now.ldmatrix, now.ldmatrix_x, c->ldm, c->x);
    CHECK_MSG(tn <= tb, "%s: the plan costs %d wavefronts, more than before (%d)", c->name, tn, tb);
    if (c->ldm) {
        /* each matrix one phase, each 16-byte store a quarter warp at a time */
        int mats = layout_n_regs(&c->dst) / (elem_bytes(c->e) == 2 ? 2 : 1);
        CHECK_MSG(tn == ideal(&w, elem_bytes(c->e), mats), "%s: %d wavefronts, conflict-free is %d", c->name, tn,
                  ideal(&w, elem_bytes(c->e), mats));
    } else {
        CHECK_MSG(tn == tb, "%s: a layout without the pattern changed plans (%d -> %d)", c->name, tb, tn);
    }
}

/* m16n8k8 tf32 B of a K x N tile: (t, g), (t+4, g) */
static Layout mma_b32(int32_t k, int32_t n) {
    LB b = lb_new(k, n);
    lb_add(&b, LL_REG, 4, 0);
    lb_add(&b, LL_LANE, 1, 0), lb_add(&b, LL_LANE, 2, 0);
    lb_add(&b, LL_LANE, 0, 1), lb_add(&b, LL_LANE, 0, 2), lb_add(&b, LL_LANE, 0, 4);
    lb_add(&b, LL_WARP, 0, 0), lb_add(&b, LL_WARP, 0, 0);
    lb_repeat(&b, 0, 8), lb_repeat(&b, 1, 8);
    return b.l;
}

/* ---- 3. kernels ---- */

static void put_layout(Buf *b, const char *name, const Layout *l) {
    buf_printf(b, "#%s = ", name);
    layout_print(b, l);
    buf_putc(b, '\n');
}

/* x (blocked, as loads make it) converted to the case's layout and stored
 * at its own offsets, which are converted the same way */
static char *case_tir(const Case *c) {
    Layout w = writer(c);
    int32_t r = c->rows, k = c->cols;
    Layout w0 = layout_project(&w, (int32_t[]){r, 1}), w1 = layout_project(&w, (int32_t[]){1, k});
    Layout rr = layout_drop_dim(&w0, 1), cc = layout_drop_dim(&w1, 0);
    const char *t = elem_name(c->e);
    Buf b = {0};
    put_layout(&b, "W", &w), put_layout(&b, "W0", &w0), put_layout(&b, "W1", &w1);
    put_layout(&b, "R", &rr), put_layout(&b, "C", &cc), put_layout(&b, "D", &c->dst);
    buf_printf(&b, "func @k(%%x: ptr<%s> {div = 16}, %%o: ptr<%s> {div = 16}) {\n", t, t);
    buf_printf(&b, "  %%0 = arange 0, %d : tile<%dxi32, #R>\n", r, r);
    buf_printf(&b, "  %%1 = arange 0, %d : tile<%dxi32, #C>\n", k, k);
    buf_printf(&b, "  %%2 = expand_dims %%0 {axis = 1} : tile<%dx1xi32, #W0>\n", r);
    buf_printf(&b, "  %%3 = const %d : tile<%dx1xi32, #W0>\n", k, r);
    buf_printf(&b, "  %%4 = mul %%2, %%3 : tile<%dx1xi32, #W0>\n", r);
    buf_printf(&b, "  %%5 = expand_dims %%1 {axis = 0} : tile<1x%dxi32, #W1>\n", k);
    buf_printf(&b, "  %%6 = broadcast %%4 : tile<%dx%dxi32, #W>\n", r, k);
    buf_printf(&b, "  %%7 = broadcast %%5 : tile<%dx%dxi32, #W>\n", r, k);
    buf_printf(&b, "  %%8 = add %%6, %%7 : tile<%dx%dxi32, #W>\n", r, k);
    buf_printf(&b, "  %%9 = splat %%x : tile<%dx%dxptr<%s>, #W>\n", r, k, t);
    buf_printf(&b, "  %%10 = addptr %%9, %%8 : tile<%dx%dxptr<%s>, #W>\n", r, k, t);
    buf_printf(&b, "  %%11 = load %%10 : tile<%dx%dx%s, #W>\n", r, k, t);
    buf_printf(&b, "  %%12 = convert_layout %%11 : tile<%dx%dx%s, #D>\n", r, k, t);
    buf_printf(&b, "  %%13 = convert_layout %%8 : tile<%dx%dxi32, #D>\n", r, k);
    buf_printf(&b, "  %%14 = splat %%o : tile<%dx%dxptr<%s>, #D>\n", r, k, t);
    buf_printf(&b, "  %%15 = addptr %%14, %%13 : tile<%dx%dxptr<%s>, #D>\n", r, k, t);
    buf_printf(&b, "  store %%15, %%12\n  ret\n}\n");
    return buf_take(&b);
}

/* The interpreter and the simulated PTX on random inputs, for one arch;
 * the PTX holds `want` and ptxas takes it. */
static void run_tir(const char *where, const char *tir, const char *args, const char *arch, const char *want) {
    RtRequest rq = {.path = where, .source = tir, .is_ir = true, .passes = ""};
    rt_default_target(&rq.target);
    rt_parse_arch(arch, &rq.target);
    rq.target.num_warps = 4;
    Diff d = {.where = where, .args = args, .grid = "1", .seed = 99};
    char *diag = NULL;
    bool ok = rt_each_stage(&rq, diff_on_stage, &d, &diag);
    CHECK_MSG(ok && !d.unsupported && !d.failed && d.stages > 0, "%s [%s]: does not run:\n%s%s", where, arch,
              diag ? diag : "", d.unsupported_why ? d.unsupported_why : "");
    if (ok) CHECK_MSG(diff_simulate(&d, &rq), "%s [%s]: the simulated PTX differs from the interpreter", where, arch);
    diff_free(&d);
    free(diag);
    rq.emit = RT_EMIT_PTX;
    RtResult res;
    if (rt_compile(&rq, &res)) {
        CHECK_MSG(!want || strstr(res.text, want), "%s [%s]: the PTX has no '%s'", where, arch, want);
        char what[256];
        snprintf(what, sizeof what, "%s [%s]", where, arch);
        CHECK(ptxas_accepts(res.text, arch, what));
    } else {
        CHECK_MSG(false, "%s [%s]: does not compile: %s", where, arch, res.diag);
    }
    rt_result_free(&res);
}

static void test_kernel(const Case *c) {
    char *tir = case_tir(c);
    char args[256];
    const char *tn = elem_triton_name(c->e);
    snprintf(args, sizeof args, "x = rand((%d, %d), %s); o = zeros((%d, %d), %s)", c->rows, c->cols, tn, c->rows,
             c->cols, tn);
    run_tir(c->name, tir, args, "sm_80", c->ptx);
    run_tir(c->name, tir, args, "sm_90a", c->ptx);
    free(tir);
}

/* a test/ir golden's kernel, on the simulator too */
static void test_golden(const char *path, const char *args, const char *want) {
    Buf b = {0};
    bool read = buf_read_file(&b, path);
    CHECK_MSG(read, "cannot read %s", path);
    if (!read) return;
    run_tir(path, buf_str(&b), args, "sm_80", want);
    run_tir(path, buf_str(&b), args, "sm_90a", want);
    buf_free(&b);
}

int main(void) {
    test_sim_ldmatrix();
    test_sim_stmatrix();
    Case cases[] = {
        {"A f16 128x32", ET_F16, 128, 32, mma_a16(128, 32), 1, 4, "ldmatrix.sync.aligned.m8n8.x4.shared.b16"},
        {"A bf16 64x64", ET_BF16, 64, 64, mma_a16(64, 64), 1, 4, "ldmatrix.sync.aligned.m8n8.x4.shared.b16"},
        {"B f16 32x128 (.trans)", ET_F16, 32, 128, mma_b16(32, 128), 2, 4,
         "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"},
        {"B f16 64x64 (.trans)", ET_F16, 64, 64, mma_b16(64, 64), 2, 4,
         "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"},
        {"B f16 16x8 (.x2.trans)", ET_F16, 16, 8, mma_b16(16, 8), 2, 2,
         "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16"},
        {"B f16 8x8 (.x1.trans)", ET_F16, 8, 8, mma_b16(8, 8), 2, 1, "ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16"},
        {"B^T f16 128x32 (K contiguous)", ET_F16, 128, 32, mma_b16t(128, 32), 1, 4,
         "ldmatrix.sync.aligned.m8n8.x4.shared.b16"},
        {"A tf32 128x32", ET_F32, 128, 32, mma_a32(128, 32), 1, 4, "ldmatrix.sync.aligned.m8n8.x4.shared.b16"},
        {"B^T tf32 64x32", ET_F32, 64, 32, mma_b32t(64, 32), 1, 4, "ldmatrix.sync.aligned.m8n8.x4.shared.b16"},
        /* no pattern: i32 in the f16 A layout (a thread's pair is 8 bytes), f32 B untransposed */
        {"A layout of i32", ET_I32, 128, 32, mma_a16(128, 32), 0, 0, NULL},
        {"B tf32 32x64 (no 32-bit .trans)", ET_F32, 32, 64, mma_b32(32, 64), 0, 0, NULL},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        test_plan(&cases[i]);
        test_kernel(&cases[i]);
    }
    test_golden("test/ir/ldmatrix_a.tir", "x = rand((128, 32), fp16); o = zeros((128, 32), fp16)",
                "ldmatrix.sync.aligned.m8n8.x4.shared.b16");
    test_golden("test/ir/ldmatrix_b_trans.tir", "x = rand((32, 128), fp16); o = zeros((32, 128), fp16)",
                "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16");
    if (failures) printf("test_ldmatrix: %d failures\n", failures);
    return failures != 0;
}
