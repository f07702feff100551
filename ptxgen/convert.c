/* convert_layout: move a tile between two layouts.
 *
 * When the two layouts put every element in the same thread and only the
 * register order differs, registers are renamed (no code). Otherwise the
 * tile goes through shared memory: every thread writes its registers at the
 * row-major index of their elements (rows padded where that avoids bank
 * conflicts, registers consecutive along the last dim as vectors where that
 * pays: see smem_plan), a barrier, every thread reads the elements of its
 * new registers, and a second barrier so the next user of the buffer cannot
 * overwrite it before everyone has read.
 *
 * The row-major index of a linear layout is itself linear in (register,
 * lane, warp), so an address is "thread base + compile-time offset" when the
 * register's index bits cannot overlap the thread's, which is the case for
 * blocked layouts; otherwise one xor and the (padded) address per register.
 */
#include "ptx.h"

Reg ptx_smem_base(Ptx *P) {
    if (P->smem_base) return P->smem_base;
    Buf *saved = P->out;
    int n_insts = P->n_insts;
    P->out = &P->prologue;
    P->smem_base = ptx_reg(P, RC_B32);
    ptx_ins(P, "mov.u32 %R, tric_smem;", P->smem_base);
    P->out = saved;
    P->n_insts = n_insts;
    P->uses_smem = true;
    return P->smem_base;
}

/* ---- the buffer's shape ----
 *
 * The tile is stored row-major with each row (the last dim) padded, so a
 * thread's element at row-major index i lives at i + (i >> lb) * pad (lb =
 * log2 of the last dim). Without padding a warp that walks down a column
 * (a transpose: rows written, columns read) finds every element 64 x 4 B =
 * 256 B apart, all in one of the 32 four-byte banks: a 32-way conflict.
 * With one 4-byte word of padding a column walk steps 33 (mod 32: 1) banks
 * per row, so 32 rows hit 32 distinct banks.
 *
 * A side whose consecutive registers are consecutive along the last dim can
 * use ld/st.shared.v2/v4 (up to 16 bytes), but a vector must stay aligned
 * in every row, so the pad must then be a multiple of the vector (16 B for
 * v4.b32), and a column walk steps 4 banks per row: only partial relief.
 * (An XOR swizzle would remove the rest but puts a run-time xor on every
 * register's address where the row comes from the register and the column
 * from the thread; padding keeps those offsets compile-time constants.)
 *
 * Which is better depends on both layouts, so smem_plan counts it: for each
 * candidate (scalar or vector accesses, no pad or the smallest pad that
 * keeps the accesses aligned) it computes the shared-memory wavefronts of
 * warp 0's writes and reads exactly (32 banks of 4 bytes; 8-byte accesses
 * are served a half warp, 16-byte a quarter warp per wavefront; the same
 * word read twice is one access) and keeps the cheapest, then the one with
 * fewer instructions, then less padding.
 */
typedef struct SmemShape {
    int bytes;      /* per element */
    int lb;         /* log2 of the last dim */
    int32_t pad;    /* elements added after every row */
} SmemShape;

/* the row-major index i's slot in the padded buffer */
static int32_t smem_slot(const SmemShape *s, int32_t i) { return i + (i >> s->lb) * s->pad; }

/* How many registers of layout l go into one ld/st.shared: the first
 * register bits must step 1, 2, 4.. along the last dim, and no other bit
 * (thread or register) may touch those index bits, so every group starts
 * at a multiple of the width. Not for i1 (stored through selp/setp as
 * bytes) and 8-bit ints (their registers are 16 bits wide). */
static int smem_vec(const Layout *l, ElemType e) {
    int bytes = elem_bytes(e);
    if (l->rank < 1 || bytes < 2 || e == ET_I1) return 1;
    int max = 16 / bytes > 4 ? 4 : 16 / bytes;   /* no .v8.b16 */
    int last = l->rank - 1, k = 0;
    while ((1 << (k + 1)) <= max && k < l->n_bits[LL_REG]) {
        const int32_t *b = l->basis[LL_REG][k];
        bool unit = b[last] == 1 << k;
        for (int d = 0; d < last; d++) unit = unit && b[d] == 0;
        if (!unit) break;
        k++;
    }
    int32_t low = (1 << k) - 1;
    int32_t others = ptx_ll_thread_support(l);
    for (int j = k; j < l->n_bits[LL_REG]; j++) others |= ptx_ll_flat(l, l->basis[LL_REG][j]);
    while (k > 0 && (others & low)) {
        low >>= 1;
        k--;
    }
    return 1 << k;
}

static int log2_dim(int32_t x) {   /* dims are powers of two */
    int k = 0;
    while ((1 << k) < x) k++;
    return k;
}

/* Shared-memory wavefronts warp 0 needs to access every register of l
 * (groups of vec; write: registers in dup are not written) with shape s. */
static int smem_wavefronts(const Layout *l, const SmemShape *s, int vec, uint32_t dup) {
    int32_t lane_flat[32];
    for (int lane = 0; lane < 32; lane++) {
        lane_flat[lane] = 0;
        for (int k = 0; k < l->n_bits[LL_LANE]; k++)
            if (lane >> k & 1) lane_flat[lane] ^= ptx_ll_flat(l, l->basis[LL_LANE][k]);
    }
    int size = s->bytes * vec;
    int per_phase = size <= 4 ? 32 : 128 / size;
    int words_per = size <= 4 ? 1 : size / 4;
    int total = 0;
    for (int r = 0; r < ptx_ll_nregs(l); r += vec) {
        if ((uint32_t)r & dup) continue;
        int32_t c = ptx_ll_reg_flat(l, r);
        for (int p0 = 0; p0 < 32; p0 += per_phase) {
            int64_t words[32 * 4];
            int n_words = 0, per_bank[32] = {0}, worst = 0;
            for (int lane = p0; lane < p0 + per_phase; lane++) {
                int64_t byte = (int64_t)smem_slot(s, lane_flat[lane] ^ c) * s->bytes;
                for (int w = 0; w < words_per; w++) {
                    int64_t word = byte / 4 + w;
                    bool seen = false;
                    for (int i = 0; i < n_words && !seen; i++) seen = words[i] == word;
                    if (seen) continue;
                    words[n_words++] = word;
                    int b = (int)(word % 32);
                    if (++per_bank[b] > worst) worst = per_bank[b];
                }
            }
            total += worst;
        }
    }
    return total;
}

typedef struct SmemPlan {
    SmemShape shape;
    int vec_w, vec_r;
} SmemPlan;

/* The cheapest way through shared memory for a tile of type ty from layout
 * lw (dup: its registers that need no write) to layout lr. */
static SmemPlan smem_plan(const IrType *ty, const Layout *lw, uint32_t dup, const Layout *lr) {
    ElemType e = (ElemType)ty->elem;
    int32_t last = ty->shape[ty->rank - 1];
    SmemShape base = {elem_bytes(e), log2_dim(last), 0};
    int vw = smem_vec(lw, e), vr = smem_vec(lr, e);
    if (dup & (uint32_t)(vw - 1)) vw = 1;   /* vector lanes must be distinct elements */
    int32_t word = base.bytes >= 4 ? 1 : 4 / base.bytes;
    bool can_pad = ty->rank >= 2 && ir_numel(*ty) > last;
    SmemPlan best = {base, 1, 1};
    int best_cost = -1, best_ins = 0;
    for (int vector = 0; vector < 2; vector++) {
        int cw = vector ? vw : 1, cr = vector ? vr : 1;
        if (vector && cw == 1 && cr == 1) continue;
        int32_t pad = cw > cr ? cw : cr;
        if (pad < word) pad = word;
        for (int padded = 0; padded < 1 + can_pad; padded++) {
            SmemPlan c = {base, cw, cr};
            c.shape.pad = padded ? pad : 0;
            int cost = smem_wavefronts(lw, &c.shape, cw, dup) + smem_wavefronts(lr, &c.shape, cr, 0);
            int ins = ptx_ll_nregs(lw) / cw + ptx_ll_nregs(lr) / cr;
            if (best_cost < 0 || cost < best_cost || (cost == best_cost && ins < best_ins)) {
                best = c;
                best_cost = cost;
                best_ins = ins;
            }
        }
    }
    return best;
}

typedef struct SmemTile {
    const Layout *l;
    const SmemShape *shape;
    Reg flat;       /* row-major index of the thread's part */
    Reg base;       /* smem + slot(flat) * bytes */
    int32_t support;
    int vec;
} SmemTile;

/* Where convert_layout's buffer starts: after the reductions' (reduce.c),
 * so that a convert never overwrites partials another thread still reads. */
static Reg convert_base(Ptx *P) {
    if (!P->red_bytes) return ptx_smem_base(P);
    if (P->conv_base) return P->conv_base;
    Reg base = ptx_smem_base(P);
    Buf *saved = P->out;
    int n_insts = P->n_insts;
    P->out = &P->prologue;
    P->conv_base = ptx_reg(P, RC_B32);
    ptx_ins(P, "add.u32 %R, %R, %d;", P->conv_base, base, (int)P->red_bytes);
    P->out = saved;
    P->n_insts = n_insts;
    return P->conv_base;
}

/* smem + slot(i) * bytes for a run-time index i */
static Reg smem_slot_addr(Ptx *P, const SmemShape *s, Reg i) {
    Reg a = ptx_reg(P, RC_B32);
    if (s->pad) {
        Reg row = ptx_reg(P, RC_B32), slot = ptx_reg(P, RC_B32);
        ptx_ins(P, "shr.u32 %R, %R, %d;", row, i, s->lb);
        ptx_ins(P, "mad.lo.u32 %R, %R, %d, %R;", slot, row, (int)s->pad, i);
        i = slot;
    }
    ptx_ins(P, "mad.lo.u32 %R, %R, %d, %R;", a, i, s->bytes, convert_base(P));
    return a;
}

static SmemTile smem_tile(Ptx *P, int32_t li, const SmemShape *shape, int vec) {
    SmemTile t = {&P->fn->layouts[li], shape, REG_NONE, REG_NONE, 0, vec};
    t.support = ptx_ll_thread_support(t.l);
    t.flat = ptx_layout_flat(P, li);
    t.base = smem_slot_addr(P, shape, t.flat);
    return t;
}

/* "[%r7+24]" for register r of the tile. When the register's index bits
 * and the thread's are disjoint, index = thread | reg = thread + reg and
 * the padded slot splits the same way (the row and column parts of the two
 * are disjoint too), so the offset is a compile-time constant. */
static const char *smem_addr(Ptx *P, const SmemTile *t, int r) {
    int32_t c = ptx_ll_reg_flat(t->l, r);
    Buf b = {0};
    buf_putc(&b, '[');
    if (c & t->support) {
        Reg x = ptx_reg(P, RC_B32);
        ptx_ins(P, "xor.b32 %R, %R, %d;", x, t->flat, (int)c);
        ptx_put_reg(&b, smem_slot_addr(P, t->shape, x));
    } else {
        ptx_put_reg(&b, t->base);
        int32_t off = smem_slot(t->shape, c) * t->shape->bytes;
        if (off) buf_printf(&b, "+%d", (int)off);
    }
    buf_putc(&b, ']');
    const char *s = arena_strdup(P->arena, b.data);
    buf_free(&b);
    return s;
}

static const char *smem_type(ElemType e, bool is_load) {
    switch (elem_bytes(e)) {
    case 1: return e == ET_I8 && is_load ? "s8" : "u8";
    case 2: return "b16";
    case 4: return "b32";
    default: return "b64";
    }
}

/* "{%f1, %f2}" or "%f1": registers r .. r+vec-1 */
static const char *vec_regs(Ptx *P, const Reg *regs, int r, int vec) {
    Buf b = {0};
    if (vec > 1) buf_putc(&b, '{');
    for (int i = 0; i < vec; i++) {
        if (i) buf_puts(&b, ", ");
        ptx_put_reg(&b, regs[r + i]);
    }
    if (vec > 1) buf_putc(&b, '}');
    const char *s = arena_strdup(P->arena, b.data);
    buf_free(&b);
    return s;
}

static const char *vec_sfx(int vec) { return vec == 4 ? ".v4" : vec == 2 ? ".v2" : ""; }

/* v's elements (held in regs, in v's layout) into the buffer; only where
 * `guard` holds when it is not REG_NONE */
static void write_tile(Ptx *P, IrOp *op, ValId v, const Reg *regs, Reg guard, ElemType e, const SmemShape *shape,
                       int vec) {
    int32_t li = ptx_layout_index(P, op, v);
    SmemTile t = smem_tile(P, li, shape, vec);
    uint32_t dup_regs;
    ptx_layout_owner(P, li, &dup_regs);   /* registers that repeat another need no write */
    TRIC_ASSERT(!(dup_regs & (uint32_t)(vec - 1)));   /* vector lanes are distinct elements */
    int n = ptx_value_nregs(P, op, v);
    const char *g = "";
    if (guard) {
        Buf gb = {0};
        buf_putc(&gb, '@');
        ptx_put_reg(&gb, guard);
        buf_putc(&gb, ' ');
        g = arena_strdup(P->arena, gb.data);
        buf_free(&gb);
    }
    for (int r = 0; r < n; r += vec) {
        if ((uint32_t)r & dup_regs) continue;
        if (e == ET_I1) {
            Reg x = ptx_reg(P, RC_B16);
            ptx_ins(P, "selp.u16 %R, 1, 0, %R;", x, regs[r]);
            ptx_ins(P, "%sst.shared.u8 %s, %R;", g, smem_addr(P, &t, r), x);
            continue;
        }
        ptx_ins(P, "%sst.shared%s.%s %s, %s;", g, vec_sfx(vec), smem_type(e, false), smem_addr(P, &t, r),
                vec_regs(P, regs, r, vec));
    }
}

static void read_tile(Ptx *P, IrOp *op, ValId v, ElemType e, const SmemShape *shape, int vec) {
    int32_t li = ptx_layout_index(P, op, v);
    SmemTile t = smem_tile(P, li, shape, vec);
    int n = ptx_value_nregs(P, op, v);
    Reg *regs = ptx_def(P, op, v);
    for (int r = 0; r < n; r += vec) {
        if (e == ET_I1) {
            Reg x = ptx_reg(P, RC_B16);
            ptx_ins(P, "ld.shared.u8 %R, %s;", x, smem_addr(P, &t, r));
            ptx_ins(P, "setp.ne.b16 %R, %R, 0;", regs[r], x);
        } else {
            ptx_ins(P, "ld.shared%s.%s %s, %s;", vec_sfx(vec), smem_type(e, true), vec_regs(P, regs, r, vec),
                    smem_addr(P, &t, r));
        }
    }
}

void ptx_convert_layout(Ptx *P, IrOp *op) {
    ValId src = op->operands[0], res = op->results[0];
    IrType ty = P->fn->vals[res].type;
    if (ty.rank == 0) {   /* scalars have no layout */
        ptx_alias(P, res, ptx_regs(P, src, NULL), 1);
        return;
    }
    if (ptx_try_alias_convert(P, op)) return;
    ElemType e = (ElemType)ty.elem;
    int32_t lw = ptx_layout_index(P, op, src), lr = ptx_layout_index(P, op, res);
    uint32_t dup;
    ptx_layout_owner(P, lw, &dup);
    SmemPlan plan = smem_plan(&ty, &P->fn->layouts[lw], dup, &P->fn->layouts[lr]);
    int64_t rows = ir_numel(ty) >> plan.shape.lb;
    int64_t size = rows * (((int64_t)1 << plan.shape.lb) + plan.shape.pad) * plan.shape.bytes;
    size += P->red_bytes;
    TRIC_ASSERT(size <= INT32_MAX);
    if (size > P->fn->shared_bytes) P->fn->shared_bytes = (int32_t)size;
    write_tile(P, op, src, ptx_regs(P, src, NULL), REG_NONE, e, &plan.shape, plan.vec_w);
    ptx_ins(P, "bar.sync 0;");
    read_tile(P, op, res, e, &plan.shape, plan.vec_r);
    ptx_ins(P, "bar.sync 0;");
}

/* The result v of an op that only the canonical holders computed (into
 * regs, in v's layout; `owner` their predicate): they write it to shared
 * memory, and after a barrier every holder reads its registers' elements
 * into v's registers; a second barrier lets the next user of the buffer
 * write. A scalar goes through one slot. Atomics use it (atomic.c): each
 * element's read-modify-write happens once, and every replica gets the
 * old value. */
void ptx_smem_share(Ptx *P, IrOp *op, ValId v, const Reg *regs, Reg owner) {
    IrType ty = P->fn->vals[v].type;
    ElemType e = (ElemType)ty.elem;
    int64_t size;
    if (ty.rank == 0) {
        size = elem_bytes(e) + P->red_bytes;
        if (size > P->fn->shared_bytes) P->fn->shared_bytes = (int32_t)size;
        Reg base = convert_base(P), *d = ptx_def(P, op, v);
        ptx_ins(P, "@%R st.shared.%s [%R], %R;", owner, smem_type(e, false), base, regs[0]);
        ptx_ins(P, "bar.sync 0;");
        ptx_ins(P, "ld.shared.%s %R, [%R];", smem_type(e, true), d[0], base);
        ptx_ins(P, "bar.sync 0;");
        return;
    }
    int32_t li = ptx_layout_index(P, op, v);
    const Layout *l = &P->fn->layouts[li];
    uint32_t dup;
    ptx_layout_owner(P, li, &dup);
    SmemPlan plan = smem_plan(&ty, l, dup, l);
    int64_t rows = ir_numel(ty) >> plan.shape.lb;
    size = rows * (((int64_t)1 << plan.shape.lb) + plan.shape.pad) * plan.shape.bytes + P->red_bytes;
    TRIC_ASSERT(size <= INT32_MAX);
    if (size > P->fn->shared_bytes) P->fn->shared_bytes = (int32_t)size;
    write_tile(P, op, v, regs, owner, e, &plan.shape, plan.vec_w);
    ptx_ins(P, "bar.sync 0;");
    read_tile(P, op, v, e, &plan.shape, plan.vec_r);
    ptx_ins(P, "bar.sync 0;");
}
