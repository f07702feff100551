/* dot: acc + a @ b (doc/ir.md "Matrix multiplication").
 *
 * On the mma.sync path (layout_dot_operands says so) the operands are in
 * the mma operand layouts and the accumulator in the mma accumulator
 * layout (ir/layout.c), so every mma's registers are found in place: each
 * operand register is packed (16-, 8-bit) or rounded to tf32 once, then
 * for each k-step in ascending order, each m16 x n8 tile gets one mma (three
 * for tf32x3) whose C is the tile's accumulator so far. The simulator and
 * the interpreter sum one k at a time in that order, so they agree bit for
 * bit.
 *
 * Otherwise (precision ieee, fp8 before sm_89, tiles below 16 x 8 x k-step)
 * the FMA path: each thread holds whole rows of a and columns of b
 * (layout_fma_operand), widens each operand register once to the type the
 * products are exact in, and for each accumulator element runs k = 0..K-1
 * in order with fma (rounding to the accumulator type each step) or mad.lo
 * for integers. */
#include "ptx.h"

#include <string.h>

/* Per register of l, lane 0 / warp 0's coordinates as a row-major flat
 * index -> register (the first one holding it), -1 where none does. Every
 * thread's registers are these coordinates XOR one (lane, warp) offset,
 * and an operand's offset is the accumulator's with the other dim dropped,
 * so looking up lane 0's coordinates finds the right register in every
 * thread. */
int32_t *ptx_reg_table(Ptx *P, const Layout *l) {
    int64_t numel = 1;
    for (int d = 0; d < l->rank; d++) numel *= l->shape[d];
    int32_t *t = arena_alloc(P->arena, sizeof(int32_t) * (size_t)numel);
    for (int64_t i = 0; i < numel; i++) t[i] = -1;
    for (int r = layout_n_regs(l) - 1; r >= 0; r--) {
        int32_t c[IR_MAX_RANK];
        layout_coord(l, r, 0, 0, c);
        t[layout_flat(l, c)] = r;
    }
    return t;
}

/* The register of operand layout l (a: dims [B,] M, K; b: [B,] K, N) that
 * holds (batch, row, col) in this thread. */
static int table_reg(const Layout *l, const int32_t *table, int32_t batch, int32_t row, int32_t col) {
    int32_t c[IR_MAX_RANK] = {0};
    int n = l->rank;
    if (n == 3) c[0] = batch;
    c[n - 2] = row;
    c[n - 1] = col;
    int32_t r = table[layout_flat(l, c)];
    TRIC_ASSERT(r >= 0);
    return r;
}

static void put_regs(Buf *b, const Reg *r, int n) {
    buf_putc(b, '{');
    for (int i = 0; i < n; i++) {
        if (i) buf_puts(b, ", ");
        ptx_put_reg(b, r[i]);
    }
    buf_putc(b, '}');
}

/* ---- the mma.sync path ---- */

static const char *mma_type(ElemType e, bool tf32) {
    switch (e) {
    case ET_F16: return "f16";
    case ET_BF16: return "bf16";
    case ET_F32: return tf32 ? "tf32" : "f32";
    case ET_I8: return "s8";
    case ET_I32: return "s32";
    case ET_F8E4M3: return "e4m3";
    case ET_F8E5M2: return "e5m2";
    default: tric_unreachable();
    }
}

/* Operand register j packed into the b32 register mma takes: p
 * consecutive layout registers (along K, low part first) per b32. 16-bit:
 * one mov (ptxas removes it); 8-bit (bytes in b16 registers): two movs and
 * a prmt taking bytes 0, 2, 4, 6; tf32: cvt.rna.tf32.f32, and for tf32x3
 * `lo` gets the tf32 of what is left (x - hi is exact in f32). Each once,
 * when the first mma needs it: a local_load's ldmatrix deferred into the
 * dot is emitted here, next to its k-step's mmas, and its 16-bit pairs are
 * taken as the ldmatrix packed them (ptx_need_word). */
PtxPacked ptx_packed_new(Ptx *P, ValId v, const Reg *x, int n, int p, bool x3) {
    PtxPacked k = {v, x, p, arena_alloc(P->arena, sizeof(Reg) * (size_t)(n / p)), NULL};   /* zeroed */
    if (x3) k.lo = arena_alloc(P->arena, sizeof(Reg) * (size_t)(n / p));
    return k;
}

Reg ptx_pack(Ptx *P, PtxPacked *k, int j, bool lo) {
    if (!k->hi[j] && k->p == 2) k->hi[j] = ptx_need_word(P, k->v, j);
    if (!k->hi[j]) {
        int p = k->p;
        for (int i = 0; i < p; i++) ptx_need_reg(P, k->v, j * p + i);
        const Reg *s = k->x + j * p;
        Reg out = k->hi[j] = ptx_reg(P, RC_B32);
        if (p == 2) ptx_ins(P, "mov.b32 %R, {%R, %R};", out, s[0], s[1]);
        else if (p == 4) {
            Reg t0 = ptx_reg(P, RC_B32), t1 = ptx_reg(P, RC_B32);
            ptx_ins(P, "mov.b32 %R, {%R, %R};", t0, s[0], s[1]);
            ptx_ins(P, "mov.b32 %R, {%R, %R};", t1, s[2], s[3]);
            ptx_ins(P, "prmt.b32 %R, %R, %R, 0x6420;", out, t0, t1);
        } else {
            ptx_ins(P, "cvt.rna.tf32.f32 %R, %R;", out, s[0]);
            if (k->lo) {
                Reg rest = ptx_reg(P, RC_F32);
                k->lo[j] = ptx_reg(P, RC_B32);
                ptx_ins(P, "sub.rn.f32 %R, %R, %R;", rest, s[0], out);
                ptx_ins(P, "cvt.rna.tf32.f32 %R, %R;", k->lo[j], rest);
            }
        }
    }
    return lo ? k->lo[j] : k->hi[j];
}

typedef struct MmaShape {
    const char *text;   /* "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" */
    int p;              /* operand elements per b32 register */
    int nc;             /* C/D registers: 4, or 2 packed f16 pairs */
} MmaShape;

static MmaShape mma_shape(Ptx *P, IrOp *op, ElemType ea, ElemType eb, ElemType ec) {
    int bits = layout_dot_mma_bits(ea, eb, ec, (int)op->attr.i, P->ti->fp8);
    TRIC_ASSERT(bits);
    bool fp8 = ea == ET_F8E4M3 || ea == ET_F8E5M2;
    if (fp8) {   /* ptxas 13: f32 accumulation needs PTX 8.4, f16 8.7 */
        int v = ec == ET_F16 ? 87 : 84;
        if (P->version < v) P->version = v;
    }
    MmaShape s;
    s.p = 32 / bits;
    s.nc = ec == ET_F16 ? 2 : 4;
    s.text = arena_printf(P->arena, "mma.sync.aligned.m16n8k%d.row.col.%s.%s.%s.%s", 8 * s.p, mma_type(ec, false),
                          mma_type(ea, true), mma_type(eb, true), mma_type(ec, false));
    return s;
}

static void put_mma(Ptx *P, const MmaShape *s, const Reg *d, const Reg *a, const Reg *b, const Reg *c) {
    Buf *o = P->out;
    buf_printf(o, "\t%s ", s->text);
    put_regs(o, d, s->nc);
    buf_puts(o, ", ");
    put_regs(o, a, 4);
    buf_puts(o, ", ");
    put_regs(o, b, 2);
    buf_puts(o, ", ");
    put_regs(o, c, s->nc);
    buf_puts(o, ";\n");
    P->n_insts++;
}

typedef struct DotRegs {
    const Layout *la, *lb, *lc;
    const Reg *a, *b, *c;   /* the operands' registers */
    Reg *d;                 /* the result's */
    int na, nb, nc;
} DotRegs;

/* Packed index of fragment element j of operand layout l (table t) for
 * the tile whose rows start at r0 and columns at c0: element j sits at lane
 * 0's coordinate of register j * p (the layouts start with the fragment
 * bits), moved to the tile. */
int ptx_frag_reg(const Layout *l, const int32_t *t, int j, int p, int32_t batch, int32_t r0, int32_t c0) {
    int n = l->rank;
    int32_t f[IR_MAX_RANK];
    layout_coord(l, j * p, 0, 0, f);
    int r = table_reg(l, t, batch, r0 ^ f[n - 2], c0 ^ f[n - 1]);
    TRIC_ASSERT(r % p == 0);
    return r / p;
}

/* The 4 b32 registers of a's fragment (b's 2) for the tile whose
 * accumulator fragment starts at lane 0's coordinate oc, k-step at k0, as
 * packed indices. */
static void frag_regs(const DotRegs *R, const int32_t *ta, const int32_t *tb, const int32_t *oc, int32_t k0,
                      int p, int *ia, int *ib) {
    int n = R->lc->rank;
    int32_t batch = n == 3 ? oc[0] : 0, m0 = oc[n - 2], n0 = oc[n - 1];
    for (int j = 0; j < 4; j++) ia[j] = ptx_frag_reg(R->la, ta, j, p, batch, m0, k0);
    for (int j = 0; j < 2; j++) ib[j] = ptx_frag_reg(R->lb, tb, j, p, batch, k0, n0);
}

static void emit_mma(Ptx *P, IrOp *op, const DotRegs *R) {
    IrFunc *fn = P->fn;
    ElemType ea = (ElemType)ir_type(fn, op->operands[0]).elem, eb = (ElemType)ir_type(fn, op->operands[1]).elem;
    ElemType ec = (ElemType)ir_type(fn, op->operands[2]).elem;
    MmaShape s = mma_shape(P, op, ea, eb, ec);
    bool x3 = ea == ET_F32 && op->attr.i == DOT_TF32X3;
    int p = s.p, n = R->lc->rank;
    int32_t k = R->la->shape[n - 1], ks = 8 * p;
    PtxPacked pa = ptx_packed_new(P, op->operands[0], R->a, R->na, p, x3);
    PtxPacked pb = ptx_packed_new(P, op->operands[1], R->b, R->nb, p, x3);
    int32_t *ta = ptx_reg_table(P, R->la), *tb = ptx_reg_table(P, R->lb);
    int tiles = R->nc / 4;
    /* C/D per tile: the registers themselves, or f16 pairs packed in b32 */
    Reg *cin = arena_alloc(P->arena, sizeof(Reg) * (size_t)R->nc), *dout = cin;
    if (s.nc == 2) {
        dout = arena_alloc(P->arena, sizeof(Reg) * (size_t)R->nc);
        for (int i = 0; i < R->nc / 2; i++) {
            cin[i] = ptx_reg(P, RC_B32);
            dout[i] = ptx_reg(P, RC_B32);
            ptx_ins(P, "mov.b32 %R, {%R, %R};", cin[i], R->c[2 * i], R->c[2 * i + 1]);
        }
    } else {
        memcpy(cin, R->c, sizeof(Reg) * (size_t)R->nc);
        dout = R->d;
    }
    for (int32_t k0 = 0; k0 < k; k0 += ks)
        for (int t = 0; t < tiles; t++) {
            int32_t oc[IR_MAX_RANK];
            layout_coord(R->lc, 4 * t, 0, 0, oc);
            int ia[4], ib[2];
            frag_regs(R, ta, tb, oc, k0, p, ia, ib);
            Reg fa[4], fb[2], flo_a[4], flo_b[2];
            for (int j = 0; j < 4; j++) fa[j] = ptx_pack(P, &pa, ia[j], false), flo_a[j] = x3 ? ptx_pack(P, &pa, ia[j], true) : 0;
            for (int j = 0; j < 2; j++) fb[j] = ptx_pack(P, &pb, ib[j], false), flo_b[j] = x3 ? ptx_pack(P, &pb, ib[j], true) : 0;
            Reg *d = dout + t * s.nc;
            const Reg *c = k0 == 0 ? cin + t * s.nc : d;
            if (x3) {   /* hi*lo, lo*hi, hi*hi (doc/ir.md) */
                put_mma(P, &s, d, fa, flo_b, c);
                put_mma(P, &s, d, flo_a, fb, d);
                put_mma(P, &s, d, fa, fb, d);
            } else put_mma(P, &s, d, fa, fb, c);
            if (k0 == 0 && t == tiles - 1) ptx_emit_copies_after(P, op);   /* a pipelined loop's copies */
        }
    if (s.nc == 2)
        for (int i = 0; i < R->nc / 2; i++) ptx_ins(P, "mov.b32 {%R, %R}, %R;", R->d[2 * i], R->d[2 * i + 1], dout[i]);
}

/* ---- the FMA path ---- */

typedef enum FmaKind { FMA_F32, FMA_F16, FMA_S32, FMA_F64 } FmaKind;

/* x's registers in the type the products are computed in, each once:
 * exact widenings (f16/bf16/fp8 -> f32, fp8 -> f16, i8 -> s32), tf32
 * rounding (and for tf32x3 the tf32 of the rest into lo). */
static Reg *fma_operand(Ptx *P, IrOp *op, ElemType e, FmaKind kind, const Reg *x, int n, Reg **lo) {
    Reg *out = arena_alloc(P->arena, sizeof(Reg) * (size_t)n);
    bool tf32 = e == ET_F32 && op->attr.i != DOT_IEEE, fp8 = e == ET_F8E4M3 || e == ET_F8E5M2;
    if (fp8 && !P->ti->fp8)
        diag_error(P->ctx, op->loc, "dot of %s operands needs sm_89 or newer; the target is sm_%d", elem_triton_name(e),
                   P->ctx->target.sm);
    for (int i = 0; i < n; i++) {
        if (tf32) {
            out[i] = ptx_reg(P, RC_B32);
            ptx_ins(P, "cvt.rna.tf32.f32 %R, %R;", out[i], x[i]);
            if (lo) {
                Reg rest = ptx_reg(P, RC_F32);
                (*lo)[i] = ptx_reg(P, RC_B32);
                ptx_ins(P, "sub.rn.f32 %R, %R, %R;", rest, x[i], out[i]);
                ptx_ins(P, "cvt.rna.tf32.f32 %R, %R;", (*lo)[i], rest);
            }
        } else if (kind == FMA_S32) {
            out[i] = ptx_reg(P, RC_B32);
            ptx_ins(P, "cvt.s32.s16 %R, %R;", out[i], x[i]);   /* i8 is kept sign-extended in 16 bits */
        } else if (fp8) {
            Reg h = ptx_f8_to_f16(P, e, x[i]);
            out[i] = kind == FMA_F16 ? h : ptx_to_f32(P, ET_F16, h);
        } else if (kind == FMA_F32 && e != ET_F32) out[i] = ptx_to_f32(P, e, x[i]);
        else out[i] = x[i];
    }
    return out;
}

static void emit_fma(Ptx *P, IrOp *op, const DotRegs *R) {
    IrFunc *fn = P->fn;
    ElemType ea = (ElemType)ir_type(fn, op->operands[0]).elem, eb = (ElemType)ir_type(fn, op->operands[1]).elem;
    ElemType ec = (ElemType)ir_type(fn, op->operands[2]).elem;
    FmaKind kind = ec == ET_I32 ? FMA_S32 : ec == ET_F16 ? FMA_F16 : ec == ET_F64 ? FMA_F64 : FMA_F32;
    bool x3 = ea == ET_F32 && op->attr.i == DOT_TF32X3;
    Reg *alo = x3 ? arena_alloc(P->arena, sizeof(Reg) * (size_t)R->na) : NULL;
    Reg *blo = x3 ? arena_alloc(P->arena, sizeof(Reg) * (size_t)R->nb) : NULL;
    Reg *xa = fma_operand(P, op, ea, kind, R->a, R->na, x3 ? &alo : NULL);
    Reg *xb = fma_operand(P, op, eb, kind, R->b, R->nb, x3 ? &blo : NULL);
    int32_t *ta = ptx_reg_table(P, R->la), *tb = ptx_reg_table(P, R->lb);
    static const char *const ins[] = {"fma.rn.f32 %R, %R, %R, %R;", "fma.rn.f16 %R, %R, %R, %R;",
                                      "mad.lo.s32 %R, %R, %R, %R;", "fma.rn.f64 %R, %R, %R, %R;"};
    int n = R->lc->rank;
    int32_t k = R->la->shape[n - 1];
    for (int r = 0; r < R->nc; r++) {
        int32_t oc[IR_MAX_RANK];
        layout_coord(R->lc, r, 0, 0, oc);
        int32_t batch = n == 3 ? oc[0] : 0;
        Reg acc = R->c[r];
        /* tf32x3 (doc/ir.md): per group of 8 k, hi*lo over the group, then
         * lo*hi, then hi*hi, as the mma path's three m16n8k8 per k-step */
        for (int32_t k0 = 0; k0 < k; k0 += x3 ? 8 : k) {
            int32_t k1 = x3 && k0 + 8 < k ? k0 + 8 : k;
            for (int pass = 0; pass < (x3 ? 3 : 1); pass++) {
                for (int32_t kk = k0; kk < k1; kk++) {
                    int ia = table_reg(R->la, ta, batch, oc[n - 2], kk), ib = table_reg(R->lb, tb, batch, kk, oc[n - 1]);
                    Reg ra = x3 && pass == 1 ? alo[ia] : xa[ia], rb = x3 && pass == 0 ? blo[ib] : xb[ib];
                    ptx_ins(P, ins[kind], R->d[r], ra, rb, acc);
                    acc = R->d[r];
                }
            }
        }
        if (k == 0) ptx_mov(P, R->d[r], acc);
    }
}

/* The result may take the accumulator's registers when nothing else reads
 * them: a loop-carried accumulator (a block argument) or a chained dot's
 * result used only here. Then the mmas of a K loop update the carried
 * registers themselves, and the yield's moves vanish (a constant or splat
 * accumulator may share registers with other values: never in place). */
static bool accumulates_in_place(Ptx *P, IrOp *op) {
    ValId c = op->operands[2];
    IrOp *def = P->fn->vals[c].def;
    if (def && def->opc != OP_DOT) return false;
    return ptx_uses(P, c) == 1;
}

void ptx_dot(Ptx *P, IrOp *op) {
    IrFunc *fn = P->fn;
    DotRegs R;
    R.la = &fn->layouts[ptx_layout_index(P, op, op->operands[0])];
    R.lb = &fn->layouts[ptx_layout_index(P, op, op->operands[1])];
    R.lc = &fn->layouts[ptx_layout_index(P, op, op->operands[2])];
    Layout need_a, need_b;
    bool mma = layout_dot_operands(fn, op, R.lc, &need_a, &need_b);
    TRIC_ASSERT(layout_eq(R.la, &need_a) && layout_eq(R.lb, &need_b));
    R.a = ptx_regs(P, op->operands[0], &R.na);
    R.b = ptx_regs(P, op->operands[1], &R.nb);
    R.c = ptx_regs(P, op->operands[2], &R.nc);
    R.d = accumulates_in_place(P, op) ? (ptx_alias(P, op->results[0], (Reg *)R.c, R.nc), (Reg *)R.c)
                                      : ptx_def(P, op, op->results[0]);
    if (mma) {
        emit_mma(P, op, &R);
    } else {   /* every register at once */
        for (int i = 0; i < R.na; i++) ptx_need_reg(P, op->operands[0], i);
        for (int i = 0; i < R.nb; i++) ptx_need_reg(P, op->operands[1], i);
        emit_fma(P, op, &R);
    }
}
