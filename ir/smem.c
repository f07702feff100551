/* Shared-memory layouts of tiles (smem.h): the vector widths, the
 * ldmatrix patterns and the wavefront count that chooses among them. */
#include "smem.h"
#include "tmap.h"

#include <string.h>

/* How many registers of layout l go into one ld/st.shared: the first
 * register bits must step 1, 2, 4.. along the last dim, and no other bit
 * (thread or register) may touch those index bits, so every group starts
 * at a multiple of the width. Up to 16 bytes: 16-bit elements go 8 at a
 * time as four packed b32 (there is no .v8.b16), 8-bit ones (a byte in a
 * 16-bit register each) packed two to a b16 or four to a b32; not i1
 * (stored through selp/setp as bytes). */
static int smem_vec(const Layout *l, ElemType e) {
    int bytes = elem_bytes(e);
    if (l->rank < 1 || e == ET_I1) return 1;
    int max = bytes <= 2 ? 16 / bytes : 16 / bytes > 4 ? 4 : 16 / bytes;
    int last = l->rank - 1, k = 0;
    while ((1 << (k + 1)) <= max && k < l->n_bits[LL_REG]) {
        const int32_t *b = l->basis[LL_REG][k];
        bool unit = b[last] == 1 << k;
        for (int d = 0; d < last; d++) unit = unit && b[d] == 0;
        if (!unit) break;
        k++;
    }
    int32_t low = (1 << k) - 1;
    int32_t others = layout_thread_support(l);
    for (int j = k; j < l->n_bits[LL_REG]; j++) others |= layout_flat(l, l->basis[LL_REG][j]);
    while (k > 0 && (others & low)) {
        low >>= 1;
        k--;
    }
    return 1 << k;
}

/* b is a unit step of `step` along the last dim of l */
static bool ll_unit_last(const Layout *l, const int32_t *b, int32_t step) {
    int last = l->rank - 1;
    for (int d = 0; d < last; d++)
        if (b[d]) return false;
    return b[last] == step;
}

static bool ldm_match(const Layout *l, ElemType e, bool trans, LdmPat *p) {
    int s = elem_bytes(e), last = l->rank - 1;
    if (e == ET_I1 || l->rank < 2 || l->n_bits[LL_LANE] != 5 || !(s == 2 || (s == 4 && !trans))) return false;
    int nlow = trans || s == 2 ? 1 : 0;
    if (l->n_bits[LL_REG] < nlow) return false;
    /* which input bits are the row's 16 bytes (in order) and which the row */
    const int32_t *seg[3], *row[3];
    int n_seg = 0;
    if (trans) {
        for (int k = 0; k < 3; k++) seg[n_seg++] = l->basis[LL_LANE][2 + k];
        row[0] = l->basis[LL_REG][0], row[1] = l->basis[LL_LANE][0], row[2] = l->basis[LL_LANE][1];
    } else {
        for (int k = 0; k < nlow; k++) seg[n_seg++] = l->basis[LL_REG][k];
        seg[n_seg++] = l->basis[LL_LANE][0];
        seg[n_seg++] = l->basis[LL_LANE][1];
        for (int k = 0; k < 3; k++) row[k] = l->basis[LL_LANE][2 + k];
    }
    for (int k = 0; k < n_seg; k++)
        if (!ll_unit_last(l, seg[k], 1 << k)) return false;
    int32_t low = (1 << n_seg) - 1;   /* 16 bytes of elements */
    for (int k = 0; k < 3; k++)
        if (row[k][last] & low) return false;
    for (int k = nlow; k < l->n_bits[LL_REG]; k++)
        if (l->basis[LL_REG][k][last] & low) return false;
    for (int k = 0; k < l->n_bits[LL_WARP]; k++)
        if (l->basis[LL_WARP][k][last] & low) return false;
    p->trans = trans;
    p->nlow = nlow;
    p->n_mat_bits = l->n_bits[LL_REG] - nlow;
    p->n_mat = 1 << p->n_mat_bits;
    for (int k = 0; k < 3; k++) p->row[k] = layout_flat(l, row[k]);
    for (int k = 0; k < p->n_mat_bits; k++) p->mat[k] = layout_flat(l, l->basis[LL_REG][nlow + k]);
    p->n_warp = l->n_bits[LL_WARP];
    for (int k = 0; k < p->n_warp; k++) p->warp[k] = layout_flat(l, l->basis[LL_WARP][k]);
    return true;
}

void ldm_lane_vals(const LdmPat *p, int32_t *vals) {
    int x = ldm_x(p);
    for (int k = 0; k < 3; k++) vals[k] = p->row[k];
    vals[3] = x >= 2 ? p->mat[0] : 0;
    vals[4] = x >= 4 ? p->mat[1] : 0;
}

int32_t ldm_inst_flat(const LdmPat *p, int q) {
    int32_t c = 0;
    int m = q * ldm_x(p);
    for (int k = 0; k < p->n_mat_bits; k++)
        if (m >> k & 1) c ^= p->mat[k];
    return c;
}

/* ---- wavefronts ---- */

/* Wavefronts of one shared-memory instruction: lane i (of n) accesses
 * `size` bytes at byte[i]. 16-byte accesses go 8 lanes per phase (an
 * ldmatrix matrix: its 8 row addresses), 8-byte ones 16, smaller ones
 * 32; within a phase the most distinct words one bank holds. */
static int access_wavefronts(const int32_t *byte, int n, int size) {
    int per_phase = size <= 4 ? 32 : 128 / size;
    int words_per = size <= 4 ? 1 : size / 4;
    int total = 0;
    for (int p0 = 0; p0 < n; p0 += per_phase) {
        int32_t words[32 * 4];
        int n_words = 0, per_bank[32] = {0}, worst = 0;
        for (int lane = p0; lane < p0 + per_phase && lane < n; lane++) {
            for (int w = 0; w < words_per; w++) {
                int32_t word = byte[lane] / 4 + w;
                bool seen = false;
                for (int i = 0; i < n_words && !seen; i++) seen = words[i] == word;
                if (seen) continue;
                words[n_words++] = word;
                int b = word % 32;
                if (++per_bank[b] > worst) worst = per_bank[b];
            }
        }
        total += worst;
    }
    return total;
}

static void lane_flats(const int32_t *vals, int n, int32_t *flat) {
    for (int lane = 0; lane < 32; lane++) {
        flat[lane] = 0;
        for (int k = 0; k < n; k++)
            if (lane >> k & 1) flat[lane] ^= vals[k];
    }
}

/* Shared-memory wavefronts warp 0 needs to access every register of l
 * (groups of vec; write: registers in dup are not written) with shape s. */
static int smem_wavefronts(const Layout *l, const SmemShape *s, int vec, uint32_t dup) {
    int32_t vals[5], flat[32], byte[32];
    for (int k = 0; k < l->n_bits[LL_LANE]; k++) vals[k] = layout_flat(l, l->basis[LL_LANE][k]);
    lane_flats(vals, l->n_bits[LL_LANE], flat);
    int total = 0;
    for (int r = 0; r < layout_n_regs(l); r += vec) {
        if ((uint32_t)r & dup) continue;
        int32_t c = layout_reg_flat(l, r);
        for (int lane = 0; lane < 32; lane++) byte[lane] = smem_byte(s, flat[lane] ^ c);
        total += access_wavefronts(byte, 32, s->bytes * vec);
    }
    return total;
}

/* The same for warp 0's ldmatrix reads of pattern p */
static int ldm_wavefronts(const LdmPat *p, const SmemShape *s) {
    int32_t vals[5], flat[32], byte[32];
    ldm_lane_vals(p, vals);
    lane_flats(vals, 5, flat);
    int x = ldm_x(p), total = 0;
    for (int q = 0; q < p->n_mat / x; q++) {
        int32_t c = ldm_inst_flat(p, q);
        for (int lane = 0; lane < 8 * x; lane++) byte[lane] = smem_byte(s, flat[lane] ^ c);
        total += access_wavefronts(byte, 8 * x, 16);
    }
    return total;
}

/* ---- the plan ---- */

/* fixed: only that shape (the accesses it keeps aligned), else every
 * candidate shape */
static SmemPlan plan(const IrType *ty, const Layout *lw, uint32_t dup, const Layout *lr, bool legacy, bool stm,
                     const SmemShape *fixed) {
    ElemType e = (ElemType)ty->elem;
    int32_t last = ty->shape[ty->rank - 1];
    SmemShape base = {elem_bytes(e), log2_ceil(last), 0, 0, 0};
    int vw = smem_vec(lw, e), vr = smem_vec(lr, e);
    if (legacy && vw > 4) vw = 4;
    if (legacy && vr > 4) vr = 4;
    if (dup & (uint32_t)(vw - 1)) vw = 1;   /* vector lanes must be distinct elements */
    int32_t word = base.bytes >= 4 ? 1 : 4 / base.bytes;
    bool can_pad = ty->rank >= 2 && ir_numel(*ty) > last;
    SmemPlan best = {0};
    int best_cost = -1, best_ins = 0;
    int32_t best_pad = 0;
    /* kind 0: scalars, 1: vectors, 2: ldmatrix with scalar writes, 3: with
     * vector writes, 4: stmatrix writes with vector reads, 5: with ldmatrix */
    bool stm_fits = stm && !dup && base.bytes == 2 && e != ET_I1;
    for (int kind = 0; kind < 6; kind++) {
        SmemPlan c = {0};
        c.shape = base;
        c.vec_w = kind == 1 || kind == 3 ? vw : 1;
        c.vec_r = kind == 1 || kind == 4 ? vr : 1;
        if (kind == 1 && c.vec_w == 1 && c.vec_r == 1) continue;
        if (kind == 3 && c.vec_w == 1) continue;
        if (kind >= 2) {
            if (legacy || !can_pad) continue;
            if (kind >= 4) {
                c.stm = stm_fits && (ldm_match(lw, e, false, &c.wpat) || ldm_match(lw, e, true, &c.wpat));
                if (!c.stm) continue;
            }
            if (kind != 4) {
                c.ldm = ldm_match(lr, e, false, &c.pat) || ldm_match(lr, e, true, &c.pat);
                if (!c.ldm) continue;
            }
        }
        int32_t pad = c.ldm || c.stm ? 16 / base.bytes : c.vec_w > c.vec_r ? c.vec_w : c.vec_r;
        if (pad < word) pad = word;
        int row_bytes = base.bytes << base.lb;
        /* shapes: 0 plain, 1 padded, then the swizzles (mp, pp) */
        for (int sh = 0; sh < 2 + 3 * 4; sh++) {
            c.shape = base;
            if (fixed) {   /* one round, if the accesses stay aligned in every row */
                c.shape = *fixed;
                int32_t v = c.vec_w > c.vec_r ? c.vec_w : c.vec_r;
                if (sh || c.shape.pad % v || ((c.ldm || c.stm) && c.shape.pad * c.shape.bytes % 16)) continue;
            } else if (sh == 1) {
                if (!can_pad) continue;
                c.shape.pad = pad;
            } else if (sh >= 2) {
                c.shape.swz_mp = 1 + (sh - 2) / 4;
                c.shape.swz_pp = (sh - 2) % 4;
                if (!(c.ldm || c.stm) || (16 << c.shape.swz_mp) > row_bytes) continue;
            }
            c.wave_w = c.stm ? ldm_wavefronts(&c.wpat, &c.shape) : smem_wavefronts(lw, &c.shape, c.vec_w, dup);
            c.wave_r = c.ldm ? ldm_wavefronts(&c.pat, &c.shape) : smem_wavefronts(lr, &c.shape, c.vec_r, 0);
            int cost = c.wave_w + c.wave_r;
            int ins = (c.stm ? c.wpat.n_mat / ldm_x(&c.wpat) : layout_n_regs(lw) / c.vec_w) +
                      (c.ldm ? c.pat.n_mat / ldm_x(&c.pat) : layout_n_regs(lr) / c.vec_r);
            if (best_cost < 0 || cost < best_cost || (cost == best_cost && ins < best_ins) ||
                (cost == best_cost && ins == best_ins && c.shape.pad < best_pad)) {
                best = c;
                best_cost = cost;
                best_ins = ins;
                best_pad = c.shape.pad;
            }
        }
    }
    return best;
}

SmemPlan smem_plan(const IrType *ty, const Layout *lw, uint32_t dup, const Layout *lr, bool legacy, bool stm) {
    return plan(ty, lw, dup, lr, legacy, stm, NULL);
}

SmemPlan smem_plan_shape(const IrType *ty, const Layout *lw, uint32_t dup, const Layout *lr, bool stm,
                         const SmemShape *shape) {
    return plan(ty, lw, dup, lr, false, stm, shape);
}

void smem_plan_info(const IrType *ty, const Layout *lw, uint32_t dup, const Layout *lr, bool legacy, SmemPlanInfo *out) {
    SmemPlan p = smem_plan(ty, lw, dup, lr, legacy, false);
    out->write_wavefronts = p.wave_w;
    out->read_wavefronts = p.wave_r;
    out->vec_w = p.vec_w;
    out->vec_r = p.vec_r;
    out->ldmatrix = p.ldm ? (p.pat.trans ? 2 : 1) : 0;
    out->ldmatrix_x = p.ldm ? ldm_x(&p.pat) : 0;
    out->pad = p.shape.pad;
    out->swizzle_per_phase = p.shape.swz_mp ? 1 << p.shape.swz_pp : 0;
    out->swizzle_max_phase = p.shape.swz_mp ? 1 << p.shape.swz_mp : 0;
}


/* ---- pipeline buffers ---- */

typedef struct BufList {
    SmemBuf *bufs;
    uint32_t n, cap;
    Arena *arena;
} BufList;

static void collect_buffer(IrFunc *fn, IrOp *op, void *ud) {
    BufList *L = ud;
    (void)fn;
    if (op->opc != OP_LOCAL_ALLOC && op->opc != OP_MBAR_ALLOC) return;
    SmemBuf sb = {0};
    sb.mbar = op->opc == OP_MBAR_ALLOC;
    sb.v = op->results[0];
    sb.lw = sb.lr = -1;
    VEC_PUSH(L->arena, L->bufs, L->n, L->cap, sb);
}

SmemBuf *smem_find_buf(SmemBuf *bufs, uint32_t n, ValId v) {
    for (uint32_t i = 0; i < n; i++)
        if (bufs[i].v == v) return &bufs[i];
    TRIC_ASSERT(!"a buffer without its local_alloc");
    return NULL;
}

/* what a use needs of its buffer: the writer's and reader's layouts, the
 * readers that fix its layout (wgmma, TMA) */
static void note_use(IrFunc *fn, IrOp *op, void *ud) {
    BufList *L = ud;
    if (op->opc == OP_WGMMA) {
        bool ss = ir_wgmma_n_main(op) == 5;
        SmemBuf *b = smem_find_buf(L->bufs, L->n, op->operands[ss ? 2 : 1]);
        b->wgmma = 2;
        b->wg_t = (op->attr.flags & WGMMA_B_T) != 0;
        if (ss) {
            b = smem_find_buf(L->bufs, L->n, op->operands[0]);
            b->wgmma = 1;
            b->wg_t = (op->attr.flags & WGMMA_A_T) != 0;
        }
        return;
    }
    if (op->opc == OP_TMA_COPY) {
        smem_find_buf(L->bufs, L->n, op->operands[0])->tma = true;
        return;
    }
    if (op->opc != OP_ASYNC_COPY && op->opc != OP_LOCAL_LOAD) return;
    SmemBuf *sb = smem_find_buf(L->bufs, L->n, op->operands[0]);
    if (op->opc == OP_LOCAL_LOAD && sb->lr < 0) sb->lr = fn->vals[op->results[0]].layout;
    if (op->opc == OP_ASYNC_COPY && sb->lw < 0) {
        sb->lw = fn->vals[op->operands[2]].layout;
        sb->copy_vec = op->attr.vec > 0 ? op->attr.vec : 1;
    }
}

int32_t smem_view_layout(IrFunc *fn, const SmemBuf *sb, int32_t li) {
    if (!sb->viewed) return li;
    Layout v = layout_reshape(&fn->layouts[li], sb->vrank, sb->vshape);
    v = layout_permute(&v, sb->perm);
    return ir_layout_intern(fn, &v);
}

/* The view (type *ty becomes the view's): the dim the writer's vectors run
 * along goes last; for wgmma, split into blocks of the swizzle span. */
static void choose_view(IrFunc *fn, SmemBuf *sb, IrType *ty) {
    int last = ty->rank - 1, vd = sb->tma ? last : layout_vector_dim(&fn->layouts[sb->lw], sb->copy_vec);
    int bytes = elem_bytes((ElemType)ty->elem);
    TRIC_ASSERT(vd >= 0);
    sb->cdim = vd;
    sb->vrank = ty->rank;
    memcpy(sb->vshape, ty->shape, sizeof sb->vshape);
    for (int d = 0, k = 0; d < ty->rank; d++)
        if (d != vd) sb->perm[k++] = d;
    sb->perm[last] = vd;
    sb->viewed = vd != last;
    if (sb->wgmma || sb->tma) {
        TRIC_ASSERT(ty->rank == 2);
        int32_t ec = ty->shape[vd], e;
        sb->swz_bytes = ec * bytes >= 128 ? 128 : ec * bytes;
        TRIC_ASSERT(sb->swz_bytes >= 32);
        e = sb->swz_bytes / bytes;
        if (ec > e) {   /* (blocks, e) in place of the dim, then (blocks, other, e) */
            int other = 1 - vd;
            sb->vrank = 3;
            int32_t shape3[3] = {ty->shape[0], ty->shape[1], 0};
            if (vd == 1) shape3[1] = ec / e, shape3[2] = e, shape3[0] = ty->shape[other];
            else shape3[0] = ec / e, shape3[1] = e, shape3[2] = ty->shape[other];
            memcpy(sb->vshape, shape3, sizeof shape3);
            int32_t perm3[3] = {vd == 1 ? 1 : 0, vd == 1 ? 0 : 2, vd == 1 ? 2 : 1};
            memcpy(sb->perm, perm3, sizeof perm3);
            sb->viewed = true;
        }
    }
    IrType t = *ty;
    t.rank = (uint8_t)sb->vrank;
    for (int d = 0; d < sb->vrank; d++) t.shape[d] = sb->vshape[sb->perm[d]];
    *ty = t;
}

static void plan_buffer(IrFunc *fn, SmemBuf *sb) {
    IrType bt = fn->vals[sb->v].type, ty = bt;
    ty.rank = (uint8_t)(bt.rank - 1);
    for (int d = 0; d < ty.rank; d++) ty.shape[d] = bt.shape[d + 1];
    int32_t lw = sb->lw >= 0 ? sb->lw : sb->lr;
    int32_t lr = sb->lr >= 0 ? sb->lr : lw;
    if (sb->tma && lw < 0) {   /* read by wgmma only: a layout for the plan, which the canonical one replaces */
        Layout any = layout_default(ty.rank, ty.shape, 16 / elem_bytes((ElemType)ty.elem), fn->ctx->target.num_warps);
        lw = lr = ir_layout_intern(fn, &any);
    }
    if (lw < 0) {   /* neither written nor read: plain rows */
        sb->plan.shape = (SmemShape){elem_bytes((ElemType)ty.elem), log2_ceil(ty.shape[ty.rank - 1]), 0, 0, 0};
    } else {
        if (sb->lw >= 0 || sb->tma) choose_view(fn, sb, &ty);
        sb->vw = smem_view_layout(fn, sb, lw);
        sb->vr = smem_view_layout(fn, sb, lr);
        sb->plan = smem_plan(&ty, &fn->layouts[sb->vw], 0, &fn->layouts[sb->vr], false, false);
        if (sb->wgmma || sb->tma) {   /* the canonical swizzle, whatever the count says */
            SmemShape w = {elem_bytes((ElemType)ty.elem), log2_ceil(ty.shape[ty.rank - 1]), 0, 0, 0};
            w.swz_mp = log2_ceil(sb->swz_bytes / 16);
            w.swz_pp = 7 - log2_ceil(sb->swz_bytes);
            sb->plan.shape = w;
            sb->plan.ldm = false;
        }
        /* cp.async vectors of up to 16 bytes stay aligned in every row */
        int32_t align = 16 / sb->plan.shape.bytes;
        if (sb->plan.shape.pad % align) sb->plan.shape.pad = (sb->plan.shape.pad + align - 1) / align * align;
    }
    sb->lr = lr;
    int64_t rows = ir_numel(ty) >> sb->plan.shape.lb;
    int64_t bytes = rows * (((int64_t)1 << sb->plan.shape.lb) + sb->plan.shape.pad) * sb->plan.shape.bytes;
    sb->align = sb->wgmma || sb->tma ? 1024 : 128;
    bytes = (bytes + sb->align - 1) / sb->align * sb->align;
    TRIC_ASSERT(bytes * bt.shape[0] <= INT32_MAX / 2);
    sb->slot_bytes = (int32_t)bytes;
    sb->size = (int32_t)(bytes * bt.shape[0]);
}

SmemBuf *smem_buffers(IrFunc *fn, uint32_t *n) {
    BufList L = {NULL, 0, 0, fn->ctx->arena};
    ir_walk(fn, fn->body, collect_buffer, &L);
    if (L.n) ir_walk(fn, fn->body, note_use, &L);
    for (uint32_t i = 0; i < L.n; i++) {
        SmemBuf *sb = &L.bufs[i];
        if (sb->mbar) {
            sb->slot_bytes = sb->align = 8;
            sb->size = 8 * fn->vals[sb->v].type.shape[0];
        } else {
            plan_buffer(fn, sb);
        }
    }
    *n = L.n;
    return L.bufs;
}

static IrType view_type(IrFunc *fn, const SmemBuf *sb) {
    IrType bt = fn->vals[sb->v].type, ty = bt;
    ty.rank = (uint8_t)(bt.rank - 1);
    for (int d = 0; d < ty.rank; d++) ty.shape[d] = bt.shape[d + 1];
    if (sb->viewed) {
        ty.rank = (uint8_t)sb->vrank;
        for (int d = 0; d < sb->vrank; d++) ty.shape[d] = sb->vshape[sb->perm[d]];
    }
    return ty;
}

bool smem_shape_eq(const SmemShape *a, const SmemShape *b) {
    return a->bytes == b->bytes && a->lb == b->lb && a->pad == b->pad && a->swz_mp == b->swz_mp &&
           a->swz_pp == b->swz_pp;
}

void smem_record_shape(IrSmem *s, const SmemShape *shape) {
    s->shaped = 1;
    s->lb = (uint8_t)shape->lb;
    s->pad = shape->pad;
    s->pp = (uint8_t)shape->swz_pp;
    s->mp = (uint8_t)shape->swz_mp;
}

SmemShape smem_recorded_shape(const IrSmem *s, int bytes) { return (SmemShape){bytes, s->lb, s->pad, s->mp, s->pp}; }

int64_t smem_buffer_shape(IrFunc *fn, SmemBuf *sb, const SmemShape *shape) {
    IrType ty = view_type(fn, sb);
    if (sb->lr < 0) {   /* neither written nor read */
        sb->plan.shape = *shape;
    } else if (!smem_shape_eq(shape, &sb->plan.shape)) {
        sb->plan = smem_plan_shape(&ty, &fn->layouts[sb->vw], 0, &fn->layouts[sb->vr], false, shape);
        if (sb->wgmma || sb->tma) sb->plan.ldm = false;
    }
    return smem_shape_bytes(&ty, shape);
}

/* ---- what an op needs ---- */

int smem_elem_bytes(ElemType e) {
    switch (e) {
    case ET_I1: case ET_I32: case ET_U32: case ET_F32: return 4;
    case ET_I64: case ET_U64: case ET_PTR: case ET_F64: return 8;
    default: return 2;
    }
}

int32_t smem_align16(int64_t x) {
    TRIC_ASSERT(x <= INT32_MAX - 16);
    return (int32_t)((x + 15) & ~(int64_t)15);
}

int64_t smem_shape_bytes(const IrType *ty, const SmemShape *s) {
    int64_t rows = ir_numel(*ty) >> s->lb;
    return rows * (((int64_t)1 << s->lb) + s->pad) * s->bytes;
}

static const Layout *operand_layout(IrFunc *fn, const IrOp *op, uint32_t k) {
    int32_t li = fn->vals[op->operands[k]].layout;
    return li >= 0 && fn->vals[op->operands[k]].type.rank ? &fn->layouts[li] : NULL;
}

int32_t smem_reduce_bytes(IrFunc *fn, const IrOp *op, uint32_t k) {
    const Layout *lx = operand_layout(fn, op, 0);
    if (!lx) return 0;
    IrType t = fn->vals[op->operands[0]].type;
    int axis = (int)op->attr.i, kinds[3 * LL_MAX_BITS], bits[3 * LL_MAX_BITS], warps = 0;
    int32_t steps[3 * LL_MAX_BITS];
    int m = layout_reduce_levels(lx, axis, t.shape[axis], steps, kinds, bits);
    for (int i = 0; i < m; i++) warps += kinds[i] == LL_WARP;
    if (!warps) return 0;
    int64_t partials = ir_numel(fn->vals[op->results[0]].type) << warps;
    return smem_align16(partials * smem_elem_bytes((ElemType)fn->vals[op->operands[k]].type.elem));
}

int32_t smem_scan_bytes(IrFunc *fn, const IrOp *op, uint32_t k) {
    const Layout *lx = operand_layout(fn, op, 0);
    if (!lx) return 0;
    IrType t = fn->vals[op->operands[0]].type;
    int axis = (int)op->attr.i, parts[4];
    if (!layout_scan_parts(lx, axis, t.shape[axis], parts, NULL, NULL) || parts[2] + parts[3] == 0) return 0;
    int64_t rows = ir_numel(t) >> log2_ceil(t.shape[axis]);
    return smem_align16((rows << (parts[2] + parts[3])) * smem_elem_bytes((ElemType)fn->vals[op->operands[k]].type.elem));
}

/* The layouts differ in register order only: the same elements in the
 * same threads (convert_layout renames registers) */
static bool same_threads(const Layout *from, const Layout *to) {
    for (int kind = LL_LANE; kind <= LL_WARP; kind++) {
        if (to->n_bits[kind] != from->n_bits[kind]) return false;
        for (int k = 0; k < to->n_bits[kind]; k++)
            for (int d = 0; d < to->rank; d++)
                if (to->basis[kind][k][d] != from->basis[kind][k][d]) return false;
    }
    for (int r = 0; r < layout_n_regs(to); r++) {
        int32_t want = layout_reg_flat(to, r);
        bool found = false;
        for (int q = 0; q < layout_n_regs(from) && !found; q++) found = layout_reg_flat(from, q) == want;
        if (!found) return false;
    }
    return true;
}

bool smem_convert_plan(IrFunc *fn, const IrOp *op, SmemPlan *plan) {
    IrType ty = fn->vals[op->results[0]].type;
    int32_t lw = fn->vals[op->operands[0]].layout, lr = fn->vals[op->results[0]].layout;
    if (ty.rank == 0 || lw < 0 || lr < 0 || same_threads(&fn->layouts[lw], &fn->layouts[lr])) return false;
    uint32_t dup, tid_mask;
    layout_duplicates(&fn->layouts[lw], fn->ctx->target.num_warps, &dup, &tid_mask);
    *plan = smem_plan(&ty, &fn->layouts[lw], dup, &fn->layouts[lr], false, target_info(&fn->ctx->target)->hopper);
    return true;
}

int32_t smem_scratch_bytes(IrFunc *fn, const IrOp *op, const uint32_t *uses, SmemPlan *plan) {
    IrType rt = op->n_results ? fn->vals[op->results[0]].type : (IrType){0};
    int64_t bytes = 0;
    switch (op->opc) {
    case OP_CONVERT_LAYOUT: {
        SmemPlan p;
        if (smem_convert_plan(fn, op, &p)) bytes = smem_shape_bytes(&rt, &p.shape);
        if (plan) *plan = p;
        break;
    }
    case OP_ATOMIC:
    case OP_ATOMIC_CAS: {   /* the old values go to every thread that holds the element (ptxgen/atomic.c) */
        if (!uses[op->results[0]]) break;
        if (rt.rank == 0) {
            bytes = elem_bytes((ElemType)rt.elem);
            break;
        }
        int32_t li = fn->vals[op->results[0]].layout;
        if (li < 0) break;
        const Layout *l = &fn->layouts[li];
        uint32_t dup, tid_mask;
        layout_duplicates(l, fn->ctx->target.num_warps, &dup, &tid_mask);
        if (!tid_mask) break;
        SmemPlan p = smem_plan(&rt, l, dup, l, false, false);
        bytes = smem_shape_bytes(&rt, &p.shape);
        break;
    }
    case OP_GATHER: {
        IrType st = fn->vals[op->operands[0]].type;
        bytes = ir_numel(st) * elem_bytes((ElemType)st.elem);
        break;
    }
    case OP_HISTOGRAM: bytes = 4 * op->attr.i; break;
    case OP_TMAP_CREATE: bytes = TMAP_BYTES; break;
    default: break;
    }
    TRIC_ASSERT(bytes <= INT32_MAX / 2);
    return (int32_t)bytes;
}
