/* Shared-memory layouts of tiles (smem.h): the vector widths, the
 * ldmatrix patterns and the wavefront count that chooses among them. */
#include "smem.h"

/* How many registers of layout l go into one ld/st.shared: the first
 * register bits must step 1, 2, 4.. along the last dim, and no other bit
 * (thread or register) may touch those index bits, so every group starts
 * at a multiple of the width. Up to 16 bytes: 16-bit elements go 8 at a
 * time as four packed b32 (there is no .v8.b16). Not for i1 (stored
 * through selp/setp as bytes) and 8-bit ints (their registers are 16 bits
 * wide). */
static int smem_vec(const Layout *l, ElemType e) {
    int bytes = elem_bytes(e);
    if (l->rank < 1 || bytes < 2 || e == ET_I1) return 1;
    int max = bytes == 2 ? 8 : 16 / bytes > 4 ? 4 : 16 / bytes;
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

SmemPlan smem_plan(const IrType *ty, const Layout *lw, uint32_t dup, const Layout *lr, bool legacy, bool stm) {
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
            if (sh == 1) {
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

