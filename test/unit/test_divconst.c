/* Division and remainder by constants (ptxgen/divconst.c).
 *
 * 1. The magic numbers: a C model that runs the same steps as the emitted
 *    sequence (mul.hi, shifts, fix-ups, mad) from ptx_div_magic's numbers,
 *    against C's truncating division (MIN / -1 wrapping to MIN, as div.s
 *    and the interpreter do), for every 16-bit dividend and edge plus random
 *    32/64-bit ones, over a few hundred divisors per width, signed and not.
 * 2. The emitted PTX itself, run on the PTX simulator (sim/, one thread
 *    per dividend: sim_snippet.h) for every element type (8-bit ones in
 *    their extended 16-bit registers), so the text matches the model bit
 *    for bit. (test_ptxgen.c assembles kernels using it with ptxas.)
 */
#include "base/base.h"
#include "check.h"
#include "sim_snippet.h"

static uint64_t mask_of(int w) { return w == 64 ? ~(uint64_t)0 : ((uint64_t)1 << w) - 1; }

/* x as a signed w-bit number (w <= 64) */
static int64_t sext_w(uint64_t x, int w) {
    uint64_t sign = (uint64_t)1 << (w - 1), mask = mask_of(w);
    return (int64_t)(((x & mask) ^ sign) - sign);
}

/* mul.hi: the high w bits of the 2w-bit product, through 32-bit halves
 * for w == 64 */
static uint64_t mulhi_w(uint64_t a, uint64_t b, int w, bool sgn) {
    if (w < 64) {
        uint64_t mask = mask_of(w);
        if (sgn) return (uint64_t)(sext_w(a, w) * sext_w(b, w)) >> w & mask;
        return (a & mask) * (b & mask) >> w;
    }
    uint64_t al = a & 0xFFFFFFFFu, ah = a >> 32, bl = b & 0xFFFFFFFFu, bh = b >> 32;
    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    uint64_t mid = (ll >> 32) + (lh & 0xFFFFFFFFu) + (hl & 0xFFFFFFFFu);
    uint64_t hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
    if (sgn) {   /* two's complement: a*b - 2^64 (a<0 ? b : 0) - 2^64 (b<0 ? a : 0) */
        if ((int64_t)a < 0) hi -= b;
        if ((int64_t)b < 0) hi -= a;
    }
    return hi;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15u;
static uint64_t rnd(void) {   /* xorshift64* */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Du;
}

/* C's answer at width w: truncating, MIN / -1 wraps, MIN % -1 is 0 */
static void reference(uint64_t x, uint64_t d, int w, bool sgn, uint64_t *q, uint64_t *r) {
    uint64_t m = mask_of(w);
    if (!sgn) {
        *q = (x & m) / (d & m);
        *r = (x & m) % (d & m);
        return;
    }
    int64_t sx = sext_w(x, w), sd = sext_w(d, w);
    if (sd == -1) {
        *q = (0 - x) & m;
        *r = 0;
        return;
    }
    *q = (uint64_t)(sx / sd) & m;
    *r = (uint64_t)(sx % sd) & m;
}

/* arithmetic shift right at width w */
static uint64_t sar(uint64_t x, int k, int w) {
    int64_t s = sext_w(x, w);
    return (s < 0 ? ~(~(uint64_t)s >> k) : (uint64_t)s >> k) & mask_of(w);
}

/* The emitted sequence's meaning, step for step (ptxgen/divconst.c emit_divrem). */
static void model(const DivMagic *mg, uint64_t x, uint64_t *q, uint64_t *r) {
    int w = mg->bits;
    uint64_t m = mask_of(w), d = mg->d;
    x &= m;
    switch (mg->kind) {
    case DIVK_ONE: *q = x, *r = 0; return;
    case DIVK_NEG_ONE: *q = (0 - x) & m, *r = 0; return;
    case DIVK_MIN:
    case DIVK_BIG: {
        bool p = mg->kind == DIVK_MIN ? x == d : x >= d;
        *q = p;
        *r = p ? (x - d) & m : x;
        return;
    }
    case DIVK_POW2:
    case DIVK_NEG_POW2: {
        int k = mg->shift;
        uint64_t low = ((uint64_t)1 << k) - 1;
        if (!mg->sgn) {
            *q = x >> k, *r = x & low;
            return;
        }
        uint64_t bias = k == 1 ? x >> (w - 1) : sar(x, w - 1, w) >> (w - k);
        uint64_t t = (x + bias) & m;
        *q = sar(t, k, w);
        if (mg->kind == DIVK_NEG_POW2) *q = (0 - *q) & m;
        *r = (x - (t & ~low)) & m;
        return;
    }
    case DIVK_MUL: {
        uint64_t t = mulhi_w(x, mg->magic, w, mg->sgn);
        if (!mg->sgn) {
            if (mg->add) t = ((((x - t) & m) >> 1) + t) >> (mg->shift - 1);
            else t >>= mg->shift;
        } else {
            if (mg->fix > 0) t = (t + x) & m;
            if (mg->fix < 0) t = (t - x) & m;
            t = sar(t, mg->shift, w);
            t = (t + (t >> (w - 1))) & m;
        }
        *q = t & m;
        *r = (*q * (0 - d) + x) & m;
        return;
    }
    case DIVK_NONE: break;
    }
    *q = *r = ~(uint64_t)0;   /* never equal to a w < 64 answer; NONE is not asked for */
}

static void add_div(uint64_t *out, int *n, int cap, int w, uint64_t v) {
    v &= mask_of(w);
    if (v && *n < cap) out[(*n)++] = v;
}

/* Divisors to try at width w (as w-bit patterns, nonzero). */
static int divisors(int w, uint64_t *out, int cap) {
    int n = 0;
    uint64_t m = mask_of(w);
    for (int64_t i = 1; i <= 130; i++) {
        add_div(out, &n, cap, w, (uint64_t)i);
        add_div(out, &n, cap, w, (uint64_t)-i);
    }
    static const int64_t misc[] = {641, 1000, 1001, 6700417, 1000000, 1000000007, 274177, 0x55555555,
                                   0x5555, 365, 3600, 86400, 123456789, 999999937};
    for (size_t i = 0; i < ARRAY_LEN(misc); i++) {
        add_div(out, &n, cap, w, (uint64_t)misc[i]);
        add_div(out, &n, cap, w, (uint64_t)-misc[i]);
    }
    for (int k = 1; k < w; k++) {
        uint64_t p = (uint64_t)1 << k;
        uint64_t near[] = {p, p - 1, p + 1, 0 - p, 0 - p - 1, 0 - p + 1};
        for (size_t i = 0; i < ARRAY_LEN(near); i++) add_div(out, &n, cap, w, near[i]);
    }
    uint64_t edges[] = {m, m >> 1, (m >> 1) + 1, (m >> 1) + 2, (m >> 1) - 1};   /* -1, MAX, MIN, MIN+1 */
    for (size_t i = 0; i < ARRAY_LEN(edges); i++) add_div(out, &n, cap, w, edges[i]);
    for (int i = 0; i < 40; i++) add_div(out, &n, cap, w, rnd());
    for (int i = 0; i < 20; i++) add_div(out, &n, cap, w, rnd() >> (64 - w / 2));   /* small */
    return n;
}

static int reported;

static void check_one(const DivMagic *mg, uint64_t x) {
    uint64_t q, r, wq, wr;
    model(mg, x, &q, &r);
    reference(x, mg->d, mg->bits, mg->sgn, &wq, &wr);
    if (q != wq || r != wr) {
        failures++;
        if (reported++ < 10)
            printf("%c%d: %#llx / %#llx: model %#llx rem %#llx, C %#llx rem %#llx (kind %d magic %#llx shift %d)\n",
                   mg->sgn ? 'i' : 'u', mg->bits, (unsigned long long)x, (unsigned long long)mg->d,
                   (unsigned long long)q, (unsigned long long)r, (unsigned long long)wq,
                   (unsigned long long)wr, mg->kind, (unsigned long long)mg->magic, mg->shift);
    }
}

/* Dividends near the edges and around multiples of d. */
static int edge_dividends(uint64_t d, int w, uint64_t *out) {
    uint64_t m = mask_of(w), min = (m >> 1) + 1;
    uint64_t base[] = {0, 1, 2, m, m - 1, min, min + 1, min - 1, min - 2, d, 0 - d, d * 2, d * 3, d >> 1};
    int n = 0;
    for (size_t i = 0; i < ARRAY_LEN(base); i++)
        for (int k = -2; k <= 2; k++) out[n++] = (base[i] + (uint64_t)(int64_t)k) & m;
    for (int i = 0; i < 20; i++) {   /* big multiples of d, +-1 */
        uint64_t mul = (rnd() & m) / (d ? d : 1) * d;
        out[n++] = mul & m, out[n++] = (mul - 1) & m, out[n++] = (mul + 1) & m;
    }
    return n;
}

static void test_magic(void) {
    static const int widths[] = {16, 32, 64};
    uint64_t ds[1024], xs[256];
    int total = 0;
    for (size_t wi = 0; wi < ARRAY_LEN(widths); wi++) {
        int w = widths[wi];
        int nd = divisors(w, ds, (int)ARRAY_LEN(ds));
        for (int s = 0; s < 2; s++) {
            for (int i = 0; i < nd; i++) {
                DivMagic mg = ptx_div_magic(ds[i], w, s);
                CHECK(mg.kind != DIVK_NONE);
                CHECK(mg.kind != DIVK_MUL || (mg.shift >= 0 && mg.shift < w));
                total++;
                if (w == 16) {
                    for (uint32_t x = 0; x < 65536; x++) check_one(&mg, x);
                    continue;
                }
                int ne = edge_dividends(ds[i], w, xs);
                for (int j = 0; j < ne; j++) check_one(&mg, xs[j]);
                for (int j = 0; j < 3000; j++) check_one(&mg, rnd() >> (j % 3 == 2 ? (int)(rnd() % 64) : 0));
            }
        }
    }
    CHECK(total > 600);
    /* a few magic numbers everyone knows */
    DivMagic m3 = ptx_div_magic(3, 32, true), u3 = ptx_div_magic(3, 32, false), u7 = ptx_div_magic(7, 32, false);
    CHECK(m3.kind == DIVK_MUL && m3.magic == 0x55555556u && m3.shift == 0 && m3.fix == 0);
    CHECK(u3.kind == DIVK_MUL && u3.magic == 0xAAAAAAABu && u3.shift == 1 && !u3.add);
    CHECK(u7.kind == DIVK_MUL && u7.magic == 0x24924925u && u7.shift == 3 && u7.add);
    CHECK(ptx_div_magic(0, 32, true).kind == DIVK_NONE);
    CHECK(ptx_div_magic(8, 32, true).kind == DIVK_POW2 && ptx_div_magic(8, 32, true).shift == 3);
    CHECK(ptx_div_magic((uint64_t)-8, 64, true).kind == DIVK_NEG_POW2);
    CHECK(ptx_div_magic(0x80000000u, 32, true).kind == DIVK_MIN);
    CHECK(ptx_div_magic(0x80000001u, 32, false).kind == DIVK_BIG);
}

/* ---- the emitted PTX, simulated ---- */

typedef struct DivSpec {
    ElemType e;
    uint64_t d_bits;
} DivSpec;

/* out[0] = a / d, out[1] = a % d at type e */
static void emit_divrem(Ptx *P, const Reg *out, const Reg *in, void *ud) {
    const DivSpec *ds = ud;
    ptx_divrem_const(P, true, ds->e, out[0], in[0], ds->d_bits);
    ptx_divrem_const(P, false, ds->e, out[1], in[0], ds->d_bits);
}

/* v (an e value's bits) as its register holds it: 8-bit ones extended */
static uint64_t reg_bits(ElemType e, uint64_t v) {
    switch (e) {
    case ET_I8: return (uint16_t)(int16_t)(int8_t)v;
    case ET_U8: return (uint8_t)v;
    default: return v & mask_of(elem_bits(e));
    }
}

static void run_type(ElemType e) {
    int eb = elem_bits(e), w = eb < 16 ? 16 : eb;
    bool sgn = elem_is_signed(e);
    uint64_t ds[1024], xs[256], in[2256], out[2 * 2256];
    int nd = divisors(eb, ds, (int)ARRAY_LEN(ds));
    for (int i = 0; i < nd; i += (eb == 8 ? 1 : 3)) {   /* a third of them beyond 8 bits: the model covered all */
        uint64_t dreg = reg_bits(e, ds[i]);
        DivSpec spec = {e, dreg};
        RegClass cls = ptx_class_of(e);
        Snippet sn;
        snip_build(&sn, &cls, 1, (RegClass[]){cls, cls}, 2, emit_divrem, &spec);
        CHECK(!strstr(sn.text, "div.") && !strstr(sn.text, "rem."));
        int nx = eb == 8 ? 256 : 2000;
        int ne = edge_dividends(ds[i], eb, xs), n = 0;
        for (int j = 0; j < nx + ne; j++) {
            uint64_t x = eb == 8 ? (uint64_t)j : j < ne ? xs[j] : rnd() >> (j % 3 == 2 ? (int)(rnd() % 64) : 0);
            if (eb == 8 && j >= 256) break;
            in[n++] = reg_bits(e, x & mask_of(eb));
        }
        Buf err = {0};
        if (!snip_run(&sn, in, out, (size_t)n, &err)) {
            failures++;
            printf("%s / %#llx: the simulator cannot run the PTX:\n%s%s", elem_name(e), (unsigned long long)ds[i],
                   buf_str(&err), sn.ptx);
            buf_free(&err);
            snip_free(&sn);
            return;
        }
        for (int j = 0; j < n; j++) {
            uint64_t xv = in[j] & mask_of(eb), wq, wr;
            reference(xv, ds[i], eb, sgn, &wq, &wr);
            uint64_t gq = out[2 * j] & mask_of(w), gr = out[2 * j + 1] & mask_of(w);
            if (gq != reg_bits(e, wq) || gr != reg_bits(e, wr)) {
                failures++;
                if (reported++ < 10)
                    printf("%s PTX: %#llx / %#llx = %#llx rem %#llx, want %#llx rem %#llx (w %d)\n%s", elem_name(e),
                           (unsigned long long)xv, (unsigned long long)ds[i], (unsigned long long)gq,
                           (unsigned long long)gr, (unsigned long long)reg_bits(e, wq),
                           (unsigned long long)reg_bits(e, wr), w, sn.text);
                break;
            }
        }
        buf_free(&err);
        snip_free(&sn);
    }
}

/* The instructions of a / d (is_div) or a % d alone at type e. */
static int count_insts(ElemType e, bool is_div, uint64_t d_bits) {
    Target target = {.sm = 80, .num_warps = 4, .num_stages = 2};
    Ctx *ctx = ctx_new(&target);
    Ptx P = {0};
    P.ctx = ctx;
    P.arena = ctx->arena;
    P.out = &P.body;
    Reg a = ptx_reg(&P, ptx_class_of(e)), d = ptx_reg(&P, ptx_class_of(e));
    ptx_divrem_const(&P, is_div, e, d, a, d_bits);
    int n = 0;
    for (const char *s = P.body.data; s && *s; s++) n += *s == '\n';
    buf_free(&P.body);
    buf_free(&P.prologue);
    ctx_free(ctx);
    return n;
}

/* What the sequences cost (PTX instructions; ptxas keeps them one to one
 * but for 64-bit mul.hi, and folds the final mov of a quotient). */
static void test_counts(void) {
    CHECK(count_insts(ET_I32, false, 3) == 4);    /* mul.hi.s32, shr.u32, add, mad.lo */
    CHECK(count_insts(ET_I32, true, 3) == 4);     /* mul.hi.s32, shr.u32, add, mov */
    CHECK(count_insts(ET_U32, true, 10) == 3);    /* mul.hi.u32, shr.u32, mov */
    CHECK(count_insts(ET_I32, true, 2) == 3);     /* shr.u32 (bias), add, shr.s32 */
    CHECK(count_insts(ET_I32, false, 2) == 4);    /* shr.u32, add, and, sub */
    CHECK(count_insts(ET_U32, false, 64) == 1);   /* and */
    CHECK(count_insts(ET_I32, true, 0xFFFFFFFFu) == 1);   /* neg */
}

int main(void) {
    test_magic();
    static const ElemType types[] = {ET_I8, ET_U8, ET_I16, ET_U16, ET_I32, ET_U32, ET_I64, ET_U64};
    for (size_t i = 0; i < ARRAY_LEN(types); i++) run_type(types[i]);
    test_counts();
    if (failures) printf("test_divconst: %d failures\n", failures);
    return failures != 0;
}
