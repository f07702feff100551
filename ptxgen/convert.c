/* convert_layout: move a tile between two layouts.
 *
 * When the two layouts put every element in the same thread and only the
 * register order differs, registers are renamed (no code). Otherwise the
 * tile goes through shared memory: every thread writes its registers at the
 * row-major index of their elements (rows padded or 16-byte chunks swizzled
 * where that avoids bank conflicts, registers consecutive along the last dim
 * as vectors where that pays: see smem_plan), a barrier, every thread reads
 * the elements of its new registers (with ldmatrix where the new layout is
 * made of 8x8 matrices of 16-bit pairs, as mma's operands are), and a second
 * barrier so the next user of the buffer cannot overwrite it before
 * everyone has read.
 *
 * The row-major index of a linear layout is itself linear in (register,
 * lane, warp), so an address is "thread base + compile-time offset" when the
 * register's index bits cannot overlap the thread's, which is the case for
 * blocked layouts; otherwise one xor and the (padded) address per register.
 */
#include "ptx.h"

#include <string.h>

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
 *
 * The other way, for a reader made of ldmatrix's 8x8 matrices, is an XOR
 * swizzle: the rows stay unpadded and 16-byte chunk c of row r is stored at
 * chunk c ^ ((r >> pp) & (mp - 1)) (per_phase 2^pp rows share a phase,
 * mp = max_phase phases). Chunks move whole, so 16-byte vectors and
 * ldmatrix rows stay contiguous, and eight rows read down one chunk column
 * land in eight chunks. The map is linear over the bits of the byte
 * offset, so a thread's address is its own part XOR the register's, and
 * the xor becomes an add (a compile-time offset) where the two parts'
 * bits cannot meet.
 *
 * Which is better depends on both layouts, so smem_plan counts it: for each
 * candidate (scalar or vector accesses, ldmatrix reads, no pad, the
 * smallest pad that keeps the accesses aligned, or a swizzle) it computes
 * the shared-memory wavefronts of warp 0's writes and reads exactly (32
 * banks of 4 bytes; 8-byte accesses are served a half warp, 16-byte a
 * quarter warp per wavefront, and each 8x8 matrix of an ldmatrix, eight
 * 16-byte rows, is one phase; the same word read twice is one access) and
 * keeps the cheapest, then the one with fewer instructions, then less
 * padding.
 */
typedef struct SmemShape {
    int bytes;      /* per element */
    int lb;         /* log2 of the last dim */
    int32_t pad;    /* elements added after every row */
    int swz_mp;     /* log2 of max_phase; 0: not swizzled (then pad may be set) */
    int swz_pp;     /* log2 of per_phase */
} SmemShape;

/* the row-major index i's slot in the padded buffer */
static int32_t smem_slot(const SmemShape *s, int32_t i) { return i + (i >> s->lb) * s->pad; }

/* the byte offset of row-major index i in the buffer */
static int32_t smem_byte(const SmemShape *s, int32_t i) {
    int32_t b = smem_slot(s, i) * s->bytes;
    if (s->swz_mp) b ^= ((i >> s->lb >> s->swz_pp) & ((1 << s->swz_mp) - 1)) << 4;
    return b;
}

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
    int32_t others = ptx_ll_thread_support(l);
    for (int j = k; j < l->n_bits[LL_REG]; j++) others |= ptx_ll_flat(l, l->basis[LL_REG][j]);
    while (k > 0 && (others & low)) {
        low >>= 1;
        k--;
    }
    return 1 << k;
}

/* ---- ldmatrix ----
 *
 * ldmatrix.m8n8.xN.b16 loads N 8x8 matrices of 16-bit values: lane 8j + i
 * supplies the address of row i of matrix j (16 contiguous bytes), and lane
 * l receives in register j the 32 bits at row l / 4, bytes 4 (l % 4) ..
 * + 3 of matrix j; with .trans the two 16-bit halves are (rows 2 (l % 4)
 * and 2 (l % 4) + 1, column l / 4) instead. A layout fits when its input
 * bits say exactly that:
 *   non-trans (elements of s = 2 or 4 bytes): the first log2(4 / s)
 *     register bits and lane bits 0, 1 step the last dim by 1, 2, 4.. (the
 *     16 bytes of a row); lane bits 2, 3, 4 pick the row;
 *   .trans (s = 2): lane bits 2, 3, 4 step the last dim by 1, 2, 4;
 *     register bit 0 and lane bits 0, 1 pick the row;
 * every other bit (the rest of the registers, one matrix per value; the
 * warps; the row bits) leaves the low bits of the last dim below 16 bytes
 * alone, so each matrix row is one aligned 16-byte piece of a tile row.
 * mma.sync's A and B fragments are such layouts. */
typedef struct LdmPat {
    bool trans;
    int nlow;                     /* register bits inside one 32-bit ldmatrix register */
    int n_mat;                    /* matrices per thread */
    int32_t row[3];               /* flat index of bit k of a matrix row's number */
    int32_t mat[LL_MAX_BITS];     /* flat index of bit k of the matrix number */
    int n_mat_bits;
    int32_t warp[LL_MAX_BITS];    /* flat index of each warp bit */
    int n_warp;
} LdmPat;

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
    for (int k = 0; k < 3; k++) p->row[k] = ptx_ll_flat(l, row[k]);
    for (int k = 0; k < p->n_mat_bits; k++) p->mat[k] = ptx_ll_flat(l, l->basis[LL_REG][nlow + k]);
    p->n_warp = l->n_bits[LL_WARP];
    for (int k = 0; k < p->n_warp; k++) p->warp[k] = ptx_ll_flat(l, l->basis[LL_WARP][k]);
    return true;
}

static int ldm_x(const LdmPat *p) { return p->n_mat < 4 ? p->n_mat : 4; }

/* The flat index each lane's ldmatrix address names, without the
 * instruction's matrices: lane bits 0..2 the row, lane bits 3, 4 the
 * matrix within an .x2/.x4. */
static void ldm_lane_vals(const LdmPat *p, int32_t *vals) {
    int x = ldm_x(p);
    for (int k = 0; k < 3; k++) vals[k] = p->row[k];
    vals[3] = x >= 2 ? p->mat[0] : 0;
    vals[4] = x >= 4 ? p->mat[1] : 0;
}

/* the flat index of instruction q's first matrix */
static int32_t ldm_inst_flat(const LdmPat *p, int q) {
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
    for (int k = 0; k < l->n_bits[LL_LANE]; k++) vals[k] = ptx_ll_flat(l, l->basis[LL_LANE][k]);
    lane_flats(vals, l->n_bits[LL_LANE], flat);
    int total = 0;
    for (int r = 0; r < ptx_ll_nregs(l); r += vec) {
        if ((uint32_t)r & dup) continue;
        int32_t c = ptx_ll_reg_flat(l, r);
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

typedef struct SmemPlan {
    SmemShape shape;
    int vec_w, vec_r;
    bool ldm;        /* the reads are ldmatrix (pattern in pat) */
    LdmPat pat;
    bool stm;        /* the writes are stmatrix (pattern in wpat; sm_90) */
    LdmPat wpat;
    int wave_w, wave_r;
} SmemPlan;

/* The cheapest way through shared memory for a tile of type ty from layout
 * lw (dup: its registers that need no write) to layout lr. The plain and
 * padded candidates use scalars on both sides or the widest vectors on
 * both; where lr fits ldmatrix, the reads may also be ldmatrix (.trans or
 * not) with scalar or vector writes, and where stm (sm_90) and lw fits
 * it the writes stmatrix (its mirror: an mma or wgmma accumulator cast to
 * 16 bits), with vector or ldmatrix reads, over the plain, padded or
 * swizzled buffer (any per_phase 1..8 and max_phase 2..8 that fits a row:
 * the count picks). legacy: only the candidates from before ldmatrix
 * (vectors up to 4 registers), for comparisons. */
static SmemPlan smem_plan(const IrType *ty, const Layout *lw, uint32_t dup, const Layout *lr, bool legacy,
                          bool stm) {
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
            int ins = (c.stm ? c.wpat.n_mat / ldm_x(&c.wpat) : ptx_ll_nregs(lw) / c.vec_w) +
                      (c.ldm ? c.pat.n_mat / ldm_x(&c.pat) : ptx_ll_nregs(lr) / c.vec_r);
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

void ptx_smem_plan_info(const IrType *ty, const Layout *lw, uint32_t dup, const Layout *lr, bool legacy,
                        PtxSmemPlanInfo *out) {
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

/* ---- addresses ----
 *
 * A side's address for register (or ldmatrix) r is that of the element
 * thread ^ c(r): thread the linear part of the lane and warp bits, c the
 * register's. Unswizzled, the thread's part is a run-time index `flat` and
 * `base` its padded address; swizzled, `rel` is the thread part's byte
 * offset, and an address is rel ^ S(c): the bits of S(c) rel can have
 * (`lo`) are xored into one base per distinct lo (few: they are chunk
 * bits), made once in the prologue, the rest is the compile-time offset. */
typedef struct SmemAddr {
    const SmemShape *shape;
    int32_t support;       /* flat index bits the thread part can set */
    Reg flat, base;        /* unswizzled */
    int32_t byte_support;  /* swizzled: byte offset bits rel can set */
    Reg rel;
    int32_t lo_key[8];
    Reg lo_base[8];
    int n_lo;
} SmemAddr;

/* Where scratch (a convert's buffer) can start at the current op: after
 * the reductions' buffers (reduce.c: a convert never overwrites partials
 * another thread still reads) and the pipeline buffers live at the op
 * (ptx_smem_buffers_plan; mbarriers end at any multiple of 8), 128-aligned
 * as a buffer's slots are, so the vectors and swizzles planned from offset
 * 0 stay aligned. */
static int32_t scratch_off(Ptx *P) {
    int32_t off = P->scratch_at > P->red_bytes ? P->scratch_at : P->red_bytes;
    return (off + 127) / 128 * 128;
}

static Reg convert_base(Ptx *P) {
    if (P->dyn_base) return P->dyn_base;   /* a pipeline buffer's slot */
    int32_t off = scratch_off(P);
    if (!off) return ptx_smem_base(P);
    for (uint32_t i = 0; i < P->n_conv_bases; i++)
        if (P->conv_bases[i].off == off) return P->conv_bases[i].reg;
    Reg base = ptx_smem_base(P);
    Buf *saved = P->out;
    int n_insts = P->n_insts;
    P->out = &P->prologue;
    Reg r = ptx_reg(P, RC_B32);
    ptx_ins(P, "add.u32 %R, %R, %d;", r, base, (int)off);
    P->out = saved;
    P->n_insts = n_insts;
    PtxConvBase cb = {off, r};
    VEC_PUSH(P->arena, P->conv_bases, P->n_conv_bases, P->cap_conv_bases, cb);
    return r;
}

/* smem + slot(i) * bytes for a run-time index i (unswizzled shapes) */
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

/* The thread part given by the flat index of each lane and warp bit;
 * flat: its run-time index when the caller has it (a layout's, cached),
 * else REG_NONE. */
static SmemAddr smem_addr_new(Ptx *P, const SmemShape *shape, const int32_t *lane_vals, int n_lane,
                              const int32_t *warp_vals, int n_warp, Reg flat) {
    SmemAddr a = {0};
    a.shape = shape;
    for (int k = 0; k < n_lane; k++) a.support |= lane_vals[k];
    for (int k = 0; k < n_warp; k++) a.support |= warp_vals[k];
    if (shape->swz_mp) {
        int32_t lb[5], wb[LL_MAX_BITS];
        for (int k = 0; k < n_lane; k++) a.byte_support |= lb[k] = smem_byte(shape, lane_vals[k]);
        for (int k = 0; k < n_warp; k++) a.byte_support |= wb[k] = smem_byte(shape, warp_vals[k]);
        a.rel = ptx_thread_xor(P, lb, n_lane, wb, n_warp);
        return a;
    }
    a.flat = flat ? flat : ptx_thread_xor(P, lane_vals, n_lane, warp_vals, n_warp);
    a.base = smem_slot_addr(P, shape, a.flat);
    return a;
}

static SmemAddr smem_addr_layout(Ptx *P, int32_t li, const SmemShape *shape) {
    const Layout *l = &P->fn->layouts[li];
    int32_t vals[LL_KINDS][LL_MAX_BITS];
    for (int kind = LL_LANE; kind <= LL_WARP; kind++)
        for (int k = 0; k < l->n_bits[kind]; k++) vals[kind][k] = ptx_ll_flat(l, l->basis[kind][k]);
    Reg flat = shape->swz_mp ? REG_NONE : ptx_layout_flat(P, li);
    return smem_addr_new(P, shape, vals[LL_LANE], l->n_bits[LL_LANE], vals[LL_WARP], l->n_bits[LL_WARP], flat);
}

/* smem + (rel ^ lo), made once in the prologue for the first 8 values of
 * lo (layouts whose register and thread bits meet in more chunk bits pay
 * an xor and an add per access) */
static Reg swz_base(Ptx *P, SmemAddr *a, int32_t lo) {
    for (int i = 0; i < a->n_lo; i++)
        if (a->lo_key[i] == lo) return a->lo_base[i];
    Reg smem = convert_base(P);
    if (P->dyn_base) {   /* a run-time slot base: the xor in the prologue, the add here */
        Buf *saved = P->out;
        int n_insts = P->n_insts;
        P->out = &P->prologue;
        Reg x = a->rel;
        if (lo) {
            x = ptx_reg(P, RC_B32);
            ptx_ins(P, "xor.b32 %R, %R, %d;", x, a->rel, (int)lo);
        }
        P->out = saved;
        P->n_insts = n_insts;
        Reg b = ptx_reg(P, RC_B32);
        ptx_ins(P, "add.u32 %R, %R, %R;", b, x, smem);
        if (a->n_lo < 8) {
            a->lo_key[a->n_lo] = lo;
            a->lo_base[a->n_lo++] = b;
        }
        return b;
    }
    if (a->n_lo == 8) {
        Reg x = ptx_reg(P, RC_B32), b = ptx_reg(P, RC_B32);
        ptx_ins(P, "xor.b32 %R, %R, %d;", x, a->rel, (int)lo);
        ptx_ins(P, "add.u32 %R, %R, %R;", b, x, smem);
        return b;
    }
    Buf *saved = P->out;
    int n_insts = P->n_insts;
    P->out = &P->prologue;
    Reg x = a->rel, b = ptx_reg(P, RC_B32);
    if (lo) {
        x = ptx_reg(P, RC_B32);
        ptx_ins(P, "xor.b32 %R, %R, %d;", x, a->rel, (int)lo);
    }
    ptx_ins(P, "add.u32 %R, %R, %R;", b, x, smem);
    P->out = saved;
    P->n_insts = n_insts;
    a->lo_key[a->n_lo] = lo;
    a->lo_base[a->n_lo++] = b;
    return b;
}

/* "[%r7+24]" for the element thread ^ c. When c's index bits and the
 * thread's are disjoint, index = thread | c = thread + c and the padded
 * slot splits the same way (the row and column parts of the two are
 * disjoint too), so the offset is a compile-time constant. */
static const char *smem_addr(Ptx *P, SmemAddr *a, int32_t c) {
    Buf b = {0};
    buf_putc(&b, '[');
    int32_t off = 0;
    if (a->shape->swz_mp) {
        int32_t sc = smem_byte(a->shape, c), lo = sc & a->byte_support;
        ptx_put_reg(&b, swz_base(P, a, lo));
        off = sc ^ lo;
    } else if (c & a->support) {
        Reg x = ptx_reg(P, RC_B32);
        ptx_ins(P, "xor.b32 %R, %R, %d;", x, a->flat, (int)c);
        ptx_put_reg(&b, smem_slot_addr(P, a->shape, x));
    } else {
        ptx_put_reg(&b, a->base);
        off = smem_slot(a->shape, c) * a->shape->bytes;
    }
    if (off) buf_printf(&b, "+%d", (int)off);
    buf_putc(&b, ']');
    const char *s = arena_strdup(P->arena, b.data);
    buf_free(&b);
    return s;
}

const char *ptx_smem_type(ElemType e, bool is_load) {
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

/* v's elements (held in regs, in layout li: v's, or its view in the
 * buffer) into the buffer; only where `guard` holds when it is not REG_NONE */
static void write_tile(Ptx *P, IrOp *op, ValId v, int32_t li, const Reg *regs, Reg guard, ElemType e,
                       const SmemShape *shape, int vec) {
    const Layout *l = &P->fn->layouts[li];
    SmemAddr a = smem_addr_layout(P, li, shape);
    uint32_t dup_regs;
    ptx_layout_owner(P, li, &dup_regs);   /* registers that repeat another need no write */
    TRIC_ASSERT(!(dup_regs & (uint32_t)(vec - 1)));   /* vector lanes are distinct elements */
    int n = ptx_value_nregs(P, op, v);
    const char *g = ptx_guard(P, guard);
    for (int r = 0; r < n; r += vec) {
        if ((uint32_t)r & dup_regs) continue;
        int32_t c = ptx_ll_reg_flat(l, r);
        if (e == ET_I1) {
            Reg x = ptx_reg(P, RC_B16);
            ptx_ins(P, "selp.u16 %R, 1, 0, %R;", x, regs[r]);
            ptx_ins(P, "%sst.shared.u8 %s, %R;", g, smem_addr(P, &a, c), x);
            continue;
        }
        const char *addr = smem_addr(P, &a, c);
        if (vec == 8) {   /* 16-bit pairs packed into b32 */
            Reg w[4];
            for (int i = 0; i < 4; i++) {
                w[i] = ptx_reg(P, RC_B32);
                ptx_ins(P, "mov.b32 %R, {%R, %R};", w[i], regs[r + 2 * i], regs[r + 2 * i + 1]);
            }
            ptx_ins(P, "%sst.shared.v4.b32 %s, %s;", g, addr, vec_regs(P, w, 0, 4));
        } else {
            ptx_ins(P, "%sst.shared%s.%s %s, %s;", g, vec_sfx(vec), ptx_smem_type(e, false), addr,
                    vec_regs(P, regs, r, vec));
        }
    }
}

/* v's registers (layout li: v's, or its view in the buffer) from the buffer */
static void read_tile(Ptx *P, IrOp *op, ValId v, int32_t li, ElemType e, const SmemShape *shape, int vec) {
    const Layout *l = &P->fn->layouts[li];
    SmemAddr a = smem_addr_layout(P, li, shape);
    int n = ptx_value_nregs(P, op, v);
    Reg *regs = ptx_def(P, op, v);
    for (int r = 0; r < n; r += vec) {
        int32_t c = ptx_ll_reg_flat(l, r);
        if (e == ET_I1) {
            Reg x = ptx_reg(P, RC_B16);
            ptx_ins(P, "ld.shared.u8 %R, %s;", x, smem_addr(P, &a, c));
            ptx_ins(P, "setp.ne.b16 %R, %R, 0;", regs[r], x);
            continue;
        }
        const char *addr = smem_addr(P, &a, c);
        if (vec == 8) {
            Reg w[4];
            for (int i = 0; i < 4; i++) w[i] = ptx_reg(P, RC_B32);
            ptx_ins(P, "ld.shared.v4.b32 %s, %s;", vec_regs(P, w, 0, 4), addr);
            for (int i = 0; i < 4; i++)
                ptx_ins(P, "mov.b32 {%R, %R}, %R;", regs[r + 2 * i], regs[r + 2 * i + 1], w[i]);
        } else {
            ptx_ins(P, "ld.shared%s.%s %s, %s;", vec_sfx(vec), ptx_smem_type(e, true), vec_regs(P, regs, r, vec),
                    addr);
        }
    }
}

/* v's registers by ldmatrix (pattern p): instruction q reads matrices
 * q x .. q x + x - 1, lane 8j + i addressing row i of the j-th; each
 * 32-bit result is the register pair (m << 1, m << 1 | 1) of 16-bit
 * values (low half first), or register m itself for 4-byte elements.
 * With words, a 16-bit pair stays packed: words[m] gets the 32-bit result
 * and the pair is not split (the deferred reads into a dot, whose mma
 * takes the pairs packed). */
static void ldm_emit(Ptx *P, SmemAddr *a, const LdmPat *p, bool packed, const Reg *regs, Reg *words, int q) {
    int x = ldm_x(p);
    const char *addr = smem_addr(P, a, ldm_inst_flat(p, q));
    Reg d[4];
    for (int j = 0; j < x; j++) d[j] = packed ? ptx_reg(P, RC_B32) : regs[q * x + j];
    Buf b = {0};
    buf_putc(&b, '{');
    for (int j = 0; j < x; j++) {
        if (j) buf_puts(&b, ", ");
        ptx_put_reg(&b, d[j]);
    }
    buf_putc(&b, '}');
    ptx_ins(P, "ldmatrix.sync.aligned.m8n8.x%d%s.shared.b16 %s, %s;", x, p->trans ? ".trans" : "", b.data, addr);
    buf_free(&b);
    if (packed)
        for (int j = 0; j < x; j++) {
            int m = q * x + j;
            if (words) words[m] = d[j];
            else ptx_ins(P, "mov.b32 {%R, %R}, %R;", regs[2 * m], regs[2 * m + 1], d[j]);
        }
}

static SmemAddr ldm_addr(Ptx *P, const SmemShape *shape, const LdmPat *p) {
    int32_t lane_vals[5];
    ldm_lane_vals(p, lane_vals);
    return smem_addr_new(P, shape, lane_vals, 5, p->warp, p->n_warp, REG_NONE);
}

static void read_tile_ldm(Ptx *P, IrOp *op, ValId v, int32_t li, ElemType e, const SmemShape *shape,
                          const LdmPat *p) {
    SmemAddr a = ldm_addr(P, shape, p);
    Reg *regs = ptx_def(P, op, v);
    TRIC_ASSERT(ptx_ll_nregs(&P->fn->layouts[li]) == p->n_mat << p->nlow);
    for (int q = 0; q < p->n_mat / ldm_x(p); q++) ldm_emit(P, &a, p, elem_bytes(e) == 2, regs, NULL, q);
}

/* The 16-bit registers of a layout that fits ldmatrix (p), stored as its
 * matrices by stmatrix: register pair 2m, 2m + 1 is matrix m's word */
static void write_tile_stm(Ptx *P, const Reg *regs, const SmemShape *shape, const LdmPat *p) {
    SmemAddr a = ldm_addr(P, shape, p);
    int x = ldm_x(p);
    for (int q = 0; q < p->n_mat / x; q++) {
        const char *addr = smem_addr(P, &a, ldm_inst_flat(p, q));
        Reg w[4];
        for (int j = 0; j < x; j++) {
            int m = q * x + j;
            w[j] = ptx_reg(P, RC_B32);
            ptx_ins(P, "mov.b32 %R, {%R, %R};", w[j], regs[2 * m], regs[2 * m + 1]);
        }
        ptx_ins(P, "stmatrix.sync.aligned.m8n8.x%d%s.shared.b16 %s, %s;", x, p->trans ? ".trans" : "", addr,
                vec_regs(P, w, 0, x));
    }
    if (P->version < 78) P->version = 78;
}

static void read_plan(Ptx *P, IrOp *op, ValId v, int32_t li, ElemType e, const SmemPlan *plan) {
    if (plan->ldm) read_tile_ldm(P, op, v, li, e, &plan->shape, &plan->pat);
    else read_tile(P, op, v, li, e, &plan->shape, plan->vec_r);
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
    SmemPlan plan = smem_plan(&ty, &P->fn->layouts[lw], dup, &P->fn->layouts[lr], false, P->ti->hopper);
    int64_t rows = ir_numel(ty) >> plan.shape.lb;
    int64_t size = rows * (((int64_t)1 << plan.shape.lb) + plan.shape.pad) * plan.shape.bytes;
    size += scratch_off(P);
    TRIC_ASSERT(size <= INT32_MAX);
    if (size > P->fn->shared_bytes) P->fn->shared_bytes = (int32_t)size;
    if (plan.stm) write_tile_stm(P, ptx_regs(P, src, NULL), &plan.shape, &plan.wpat);
    else write_tile(P, op, src, lw, ptx_regs(P, src, NULL), REG_NONE, e, &plan.shape, plan.vec_w);
    ptx_ins(P, "bar.sync 0;");
    read_plan(P, op, res, lr, e, &plan);
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
        size = elem_bytes(e) + scratch_off(P);
        if (size > P->fn->shared_bytes) P->fn->shared_bytes = (int32_t)size;
        Reg base = convert_base(P), *d = ptx_def(P, op, v);
        ptx_ins(P, "@%R st.shared.%s [%R], %R;", owner, ptx_smem_type(e, false), base, regs[0]);
        ptx_ins(P, "bar.sync 0;");
        ptx_ins(P, "ld.shared.%s %R, [%R];", ptx_smem_type(e, true), d[0], base);
        ptx_ins(P, "bar.sync 0;");
        return;
    }
    int32_t li = ptx_layout_index(P, op, v);
    const Layout *l = &P->fn->layouts[li];
    uint32_t dup;
    ptx_layout_owner(P, li, &dup);
    SmemPlan plan = smem_plan(&ty, l, dup, l, false, false);
    int64_t rows = ir_numel(ty) >> plan.shape.lb;
    size = rows * (((int64_t)1 << plan.shape.lb) + plan.shape.pad) * plan.shape.bytes + scratch_off(P);
    TRIC_ASSERT(size <= INT32_MAX);
    if (size > P->fn->shared_bytes) P->fn->shared_bytes = (int32_t)size;
    write_tile(P, op, v, li, regs, owner, e, &plan.shape, plan.vec_w);
    ptx_ins(P, "bar.sync 0;");
    read_plan(P, op, v, li, e, &plan);
    ptx_ins(P, "bar.sync 0;");
}

void ptx_smem_write(Ptx *P, IrOp *op, ValId v) {
    IrType ty = P->fn->vals[v].type;
    SmemShape shape = {elem_bytes((ElemType)ty.elem), log2_ceil(ty.shape[ty.rank - 1]), 0, 0, 0};
    int64_t size = ir_numel(ty) * shape.bytes + scratch_off(P);
    TRIC_ASSERT(size <= INT32_MAX);
    if (size > P->fn->shared_bytes) P->fn->shared_bytes = (int32_t)size;
    write_tile(P, op, v, ptx_layout_index(P, op, v), ptx_regs(P, v, NULL), REG_NONE, (ElemType)ty.elem, &shape, 1);
}

void ptx_smem_read(Ptx *P, IrOp *op, ValId v) {
    IrType ty = P->fn->vals[v].type;
    SmemShape shape = {elem_bytes((ElemType)ty.elem), log2_ceil(ty.shape[ty.rank - 1]), 0, 0, 0};
    read_tile(P, op, v, ptx_layout_index(P, op, v), (ElemType)ty.elem, &shape, 1);
}

/* ---- pipeline buffers (local_alloc) ----
 *
 * A buffer holds S slots of one tile, each laid out as a convert_layout
 * buffer would be from the async copies' pointer layout (the writer) to
 * the local_load's layout (the reader): smem_plan picks the swizzle once,
 * so both sides agree; cp.async writes whole vectors, so a pad keeps them
 * aligned. Slots are 128-byte aligned.
 *
 * The copies' vectors run along the pointers' fastest dim, which need not
 * be the last (a column-major operand: `k[:, None] + n[None, :] * stride`
 * runs down dim 0). The slot then stores the tile with that dim last: its
 * view is the tile permuted (perm, as trans's), and the writer and the
 * reader address it through their layouts permuted the same way (vw, vr;
 * registers keep their numbers). ldmatrix reads the view as it would any
 * row-major tile: a column-major B is a row-major B^T, read without .trans.
 *
 * A buffer wgmma reads (ptxgen/wgmma.c) gets the canonical layout the
 * tensor cores read (doc/ptx.md, "Matrix descriptor"; PTX ISA "shared
 * memory matrix layout"): with S the swizzle span (128, 64 or 32 bytes: the
 * largest that the contiguous dim fills), rows of E = S / bytes elements of
 * the contiguous dim, 16-byte chunk c of row r at c ^ ((r >> (7 - log2 S))
 * & (S / 16 - 1)), and a contiguous dim longer than E split into blocks of
 * E stored one after another: the view is the tile reshaped to split that
 * dim (blocks, E) and permuted to (blocks, the other dim, E). Its slots are
 * 1024-byte aligned (the swizzle repeats every 1024 bytes at most). A
 * buffer TMA fills (tma_copy) gets that layout too, whoever reads it: it is
 * how TMA writes a box with the swizzle (ir/tmap.h), one box per block of S
 * bytes. Its readers other than wgmma read it element by element. A ring of
 * mbarriers (mbarrier_alloc) is 8 bytes a barrier.
 *
 * Allocation by liveness: ops are numbered in program order (pre-order);
 * a buffer lives from its local_alloc to the end of the outermost op of
 * its block that holds its last use (the loop). Buffers go after the
 * reductions' area, first fit among those live at the same time; the
 * scratch of a convert_layout (or smem_share) goes after the buffers live
 * at it, so the epilogue's conversions reuse the ring's space. */
typedef struct SmemBuf {
    ValId v;
    SmemPlan plan;
    int32_t lw, lr;        /* the writer's (async_copy pointers) and the reader's layout, -1: none */
    int copy_vec;          /* the copies' elements per vector */
    int wgmma;             /* read by wgmma as its A (1) or B (2) */
    bool tma;              /* written by tma_copy */
    bool mbar;             /* a ring of mbarriers, not a tile */
    bool wg_t;             /* ... which the slot holds transposed (K x M, N x K) */
    /* the view: the slot holds the tile reshaped to vshape (row-major
     * order kept) and permuted by perm (viewed false: the tile as it is) */
    bool viewed;
    int vrank;
    int32_t vshape[IR_MAX_RANK], perm[IR_MAX_RANK];
    int cdim;              /* the tile's dim the copies' vectors run along */
    int swz_bytes;         /* wgmma: the swizzle span S */
    int32_t vw, vr;        /* lw and lr as layouts of the view */
    int32_t slot_bytes, off, size;
    int32_t first, last;   /* live range, op numbers */
} SmemBuf;

typedef struct OpLive {
    const IrOp *op;
    int32_t idx, end;      /* number, and the last number inside it */
    int32_t live_end;      /* end offset of the buffers live at it */
} OpLive;

static uint32_t live_hash(const IrOp *op, uint32_t cap) {
    uint64_t h = (uint64_t)(uintptr_t)op * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(h >> 32) & (cap - 1);
}

static OpLive *live_find(Ptx *P, const IrOp *op) {
    if (!P->live) return NULL;
    for (uint32_t i = live_hash(op, P->live_cap);; i = (i + 1) & (P->live_cap - 1)) {
        if (P->live[i].op == op) return &P->live[i];
        if (!P->live[i].op) return NULL;
    }
}

static OpLive *live_add(Ptx *P, const IrOp *op) {
    uint32_t i = live_hash(op, P->live_cap);
    while (P->live[i].op) i = (i + 1) & (P->live_cap - 1);
    P->live[i].op = op;
    return &P->live[i];
}

static uint32_t count_ops(IrBlock *b) {
    uint32_t n = 0;
    for (IrOp *op = b->first; op; op = op->next) {
        n++;
        for (uint32_t r = 0; r < op->n_regions; r++) n += count_ops(op->regions[r]);
    }
    return n;
}

static int32_t number_ops(Ptx *P, IrBlock *b, int32_t next) {
    for (IrOp *op = b->first; op; op = op->next) {
        OpLive *l = live_add(P, op);
        l->idx = next++;
        for (uint32_t r = 0; r < op->n_regions; r++) next = number_ops(P, op->regions[r], next);
        l->end = next - 1;
        if (op->opc == OP_LOCAL_ALLOC || op->opc == OP_MBAR_ALLOC) {
            SmemBuf sb = {0};
            sb.mbar = op->opc == OP_MBAR_ALLOC;
            sb.v = op->results[0];
            sb.lw = sb.lr = -1;
            sb.first = sb.last = l->idx;
            VEC_PUSH(P->arena, P->bufs, P->n_bufs, P->cap_bufs, sb);
        }
    }
    return next;
}

static SmemBuf *find_buf(Ptx *P, ValId v) {
    for (uint32_t i = 0; i < P->n_bufs; i++)
        if (P->bufs[i].v == v) return &P->bufs[i];
    TRIC_ASSERT(!"a buffer without its local_alloc");
    return NULL;
}

/* sb is used at op: it lives to the end of op's outermost op in its block */
static void note_buffer_live(Ptx *P, SmemBuf *sb, IrOp *op) {
    IrOp *alloc = P->fn->vals[sb->v].def, *top = op;
    while (top->parent != alloc->parent) top = top->parent->parent;
    int32_t end = live_find(P, top)->end;
    if (end > sb->last) sb->last = end;
}

/* a use of a buffer: the writer's and reader's layouts, the live range */
static void note_use(IrFunc *fn, IrOp *op, void *ud) {
    Ptx *P = ud;
    if (op->opc == OP_WGMMA) {
        bool ss = ir_wgmma_n_main(op) == 5;
        SmemBuf *b = find_buf(P, op->operands[ss ? 2 : 1]);
        b->wgmma = 2;
        b->wg_t = (op->attr.flags & WGMMA_B_T) != 0;
        if (ss) {
            b = find_buf(P, op->operands[0]);
            b->wgmma = 1;
            b->wg_t = (op->attr.flags & WGMMA_A_T) != 0;
        }
        for (uint32_t i = 0; i + 1 < op->n_operands; i++)   /* live until here: the buffer operands */
            if (fn->vals[op->operands[i]].def && fn->vals[op->operands[i]].def->opc == OP_LOCAL_ALLOC)
                note_buffer_live(P, find_buf(P, op->operands[i]), op);
        return;
    }
    if (op->opc == OP_TMA_COPY) {
        SmemBuf *b = find_buf(P, op->operands[0]);
        b->tma = true;
        note_buffer_live(P, b, op);
        note_buffer_live(P, find_buf(P, op->operands[2]), op);
        return;
    }
    if (op->opc == OP_MBAR_INIT || op->opc == OP_MBAR_INVAL || op->opc == OP_MBAR_WAIT) {
        note_buffer_live(P, find_buf(P, op->operands[0]), op);
        return;
    }
    if (op->opc != OP_ASYNC_COPY && op->opc != OP_LOCAL_LOAD) return;
    SmemBuf *sb = find_buf(P, op->operands[0]);
    note_buffer_live(P, sb, op);
    if (op->opc == OP_LOCAL_LOAD && sb->lr < 0) sb->lr = fn->vals[op->results[0]].layout;
    if (op->opc == OP_ASYNC_COPY && sb->lw < 0) {
        sb->lw = fn->vals[op->operands[2]].layout;
        sb->copy_vec = op->attr.vec > 0 ? op->attr.vec : 1;
    }
}

/* layout li of a tile in buffer sb, as a layout of the slot's view */
static int32_t view_layout(Ptx *P, const SmemBuf *sb, int32_t li) {
    if (!sb->viewed) return li;
    Layout v = layout_reshape(&P->fn->layouts[li], sb->vrank, sb->vshape);
    v = layout_permute(&v, sb->perm);
    return ptx_intern_layout(P, &v);
}

/* The view (type *ty becomes the view's): the dim the writer's vectors run
 * along goes last; for wgmma, split into blocks of the swizzle span. */
static void choose_view(Ptx *P, SmemBuf *sb, IrType *ty) {
    int last = ty->rank - 1, vd = sb->tma ? last : layout_vector_dim(&P->fn->layouts[sb->lw], sb->copy_vec);
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

/* the bytes of one async copy vector of op */
static int copy_vec(Ptx *P, IrOp *op, int *vec) {
    int bytes = elem_bytes((ElemType)P->fn->vals[op->operands[2]].type.pointee);
    int v = op->attr.vec > 0 ? op->attr.vec : 1;
    while (v * bytes > 16) v /= 2;
    *vec = v;
    return v * bytes;
}

static void plan_buffer(Ptx *P, SmemBuf *sb) {
    IrFunc *fn = P->fn;
    IrType bt = fn->vals[sb->v].type, ty = bt;
    ty.rank = (uint8_t)(bt.rank - 1);
    for (int d = 0; d < ty.rank; d++) ty.shape[d] = bt.shape[d + 1];
    int32_t lw = sb->lw >= 0 ? sb->lw : sb->lr;
    int32_t lr = sb->lr >= 0 ? sb->lr : lw;
    if (sb->tma && lw < 0) {   /* read by wgmma only: a layout for the plan, which the canonical one replaces */
        Layout any = layout_default(ty.rank, ty.shape, 16 / elem_bytes((ElemType)ty.elem), P->ctx->target.num_warps);
        lw = lr = ptx_intern_layout(P, &any);
    }
    if (lw < 0) {   /* neither written nor read: plain rows */
        sb->plan.shape = (SmemShape){elem_bytes((ElemType)ty.elem), log2_ceil(ty.shape[ty.rank - 1]), 0, 0, 0};
    } else {
        if (sb->lw >= 0 || sb->tma) choose_view(P, sb, &ty);
        sb->vw = view_layout(P, sb, lw);
        sb->vr = view_layout(P, sb, lr);
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
    int align = sb->wgmma || sb->tma ? 1024 : 128;
    bytes = (bytes + align - 1) / align * align;
    TRIC_ASSERT(bytes * bt.shape[0] <= INT32_MAX / 2);
    sb->slot_bytes = (int32_t)bytes;
    sb->size = (int32_t)(bytes * bt.shape[0]);
}

static void mark_live(Ptx *P) {
    for (uint32_t i = 0; i < P->live_cap; i++) {
        OpLive *l = &P->live[i];
        if (!l->op) continue;
        for (uint32_t k = 0; k < P->n_bufs; k++) {
            SmemBuf *sb = &P->bufs[k];
            if (l->idx >= sb->first && l->idx <= sb->last && sb->off + sb->size > l->live_end)
                l->live_end = sb->off + sb->size;
        }
    }
}

void ptx_smem_buffers_plan(Ptx *P) {
    IrFunc *fn = P->fn;
    uint32_t n = count_ops(fn->body), cap = 16;
    while (cap < 2 * n + 2) cap *= 2;
    P->live = arena_alloc(P->arena, sizeof(OpLive) * cap);
    P->live_cap = cap;
    number_ops(P, fn->body, 0);
    if (!P->n_bufs) return;
    ir_walk(fn, fn->body, note_use, P);
    for (uint32_t i = 0; i < P->n_bufs; i++) {
        SmemBuf *sb = &P->bufs[i];
        if (sb->mbar) {
            sb->slot_bytes = 8;
            sb->size = 8 * fn->vals[sb->v].type.shape[0];
        } else {
            plan_buffer(P, sb);
        }
        /* first fit after every earlier buffer whose range overlaps */
        int32_t align = sb->wgmma || sb->tma ? 1024 : sb->mbar ? 8 : 128;
        sb->off = (P->red_bytes + align - 1) / align * align;
        for (uint32_t k = 0; k < i; k++) {
            SmemBuf *o = &P->bufs[k];
            if (o->first <= sb->last && sb->first <= o->last && o->off + o->size > sb->off)
                sb->off = (o->off + o->size + align - 1) / align * align;
        }
        if (sb->wgmma || sb->tma) P->smem_align = 1024;
        if (sb->off + sb->size > fn->shared_bytes) fn->shared_bytes = sb->off + sb->size;
    }
    mark_live(P);
    P->uses_smem = true;
}

void ptx_smem_live_at(Ptx *P, IrOp *op) {
    OpLive *l = live_find(P, op);
    P->scratch_at = l ? l->live_end : 0;
}

/* smem + off + slot * slot_bytes, for this op */
static Reg slot_base(Ptx *P, const SmemBuf *sb, ValId slot) {
    Reg s = ptx_regs(P, slot, NULL)[0], b = ptx_reg(P, RC_B32);
    ptx_ins(P, "mad.lo.u32 %R, %R, %d, %R;", b, s, (int)sb->slot_bytes, ptx_smem_base(P));
    if (!sb->off) return b;
    Reg c = ptx_reg(P, RC_B32);
    ptx_ins(P, "add.u32 %R, %R, %d;", c, b, (int)sb->off);
    return c;
}

/* cp.async of each vector of the pointer tile into the slot, zero-filled
 * where the mask is false (src-size 0: nothing is read). An element that
 * several threads hold is copied by one of them: two copies in flight to
 * one address would race (the simulator reports it). */
void ptx_async_copy(Ptx *P, IrOp *op) {
    IrFunc *fn = P->fn;
    SmemBuf *sb = find_buf(P, op->operands[0]);
    ValId pv = op->operands[2];
    int n, vec;
    Reg *ptr = ptx_regs(P, pv, &n);
    Reg *mask = op->n_operands > 3 ? ptx_regs(P, op->operands[3], NULL) : NULL;
    int cpb = copy_vec(P, op, &vec);
    TRIC_ASSERT(cpb == 4 || cpb == 8 || cpb == 16);
    int64_t *delta = arena_alloc(P->arena, sizeof(int64_t) * (size_t)n);
    bool affine = ptx_affine_deltas(P, op, pv, delta, n);
    int32_t li = view_layout(P, sb, ptx_layout_index(P, op, pv));
    const Layout *l = &fn->layouts[li];
    TRIC_ASSERT(layout_contig_regs(l, l->rank - 1) >= vec);
    uint32_t dup;
    const char *g = ptx_guard(P, ptx_layout_owner(P, li, &dup));
    P->dyn_base = slot_base(P, sb, op->operands[1]);
    SmemAddr a = smem_addr_layout(P, li, &sb->plan.shape);
    const char *cache = cpb == 16 ? "cg" : "ca";
    Reg size_of[8] = {0}, size_reg[8] = {0};   /* the src-size register made for a mask register */
    int n_sizes = 0;
    for (int r = 0; r < n; r += vec) {
        if ((uint32_t)r & dup) continue;
        const char *dst = smem_addr(P, &a, ptx_ll_reg_flat(l, r));
        Reg src = affine ? ptr[0] : ptr[r];
        int64_t off = affine ? delta[r] : 0;
        Buf sb_ = {0};
        ptx_put_reg(&sb_, src);
        if (off) buf_printf(&sb_, "+%lld", (long long)off);
        const char *s = arena_strdup(P->arena, sb_.data);
        buf_free(&sb_);
        if (!mask) {
            ptx_ins(P, "%scp.async.%s.shared.global %s, [%s], %d;", g, cache, dst, s, cpb);
            continue;
        }
        Reg sz = REG_NONE;
        for (int i = 0; i < n_sizes; i++)
            if (size_of[i] == mask[r]) sz = size_reg[i];
        if (!sz) {
            sz = ptx_reg(P, RC_B32);
            ptx_ins(P, "selp.b32 %R, %d, 0, %R;", sz, cpb, mask[r]);
            if (n_sizes < 8) size_of[n_sizes] = mask[r], size_reg[n_sizes++] = sz;
        }
        ptx_ins(P, "%scp.async.%s.shared.global %s, [%s], %d, %R;", g, cache, dst, s, cpb, sz);
    }
    P->dyn_base = REG_NONE;
    if (P->version < 70) P->version = 70;
}

/* ---- ldmatrix reads deferred into the dot ----
 *
 * A local_load whose only use is a dot further down its block, with nothing
 * in between that touches shared memory or synchronizes, is not read at
 * once: the dot asks for each operand register as an mma needs it
 * (ptx_need_reg, or ptx_need_word for a packed pair), and the ldmatrix that
 * defines it is emitted then. So the reads of k-step s sit right before its
 * mmas instead of all reads of the tile before all mmas: fewer operand
 * registers live at once (a BK = 64 tile's fragments would not fit beside a
 * 128-register accumulator) and ptxas can overlap the next step's reads
 * with this step's mmas. 16-bit pairs stay in the ldmatrix's 32-bit
 * registers, which the mma takes as they are; a pair is split only if
 * something asks for its halves. */
typedef struct LazyLdm {
    ValId v;
    SmemAddr a;
    LdmPat pat;
    bool packed;
    Reg dyn_base;
    Reg *regs;
    Reg *words;      /* packed: per matrix, its 32-bit register once read (else NULL) */
    uint8_t *done;   /* per ldmatrix instruction */
    uint8_t *split;  /* packed: per matrix, its pair moved into regs */
} LazyLdm;

static bool defers_into_dot(Ptx *P, IrOp *op) {
    ValId v = op->results[0];
    if (ptx_uses(P, v) != 1) return false;
    for (IrOp *o = op->next; o; o = o->next) {
        if (o->opc == OP_DOT) return o->operands[0] == v || o->operands[1] == v;
        if (!ptx_quiet_op(o) && o->opc != OP_LOCAL_LOAD) return false;
        for (uint32_t i = 0; i < o->n_operands; i++)
            if (o->operands[i] == v) return false;
    }
    return false;
}

static LazyLdm *find_lazy(Ptx *P, ValId v) {
    for (uint32_t i = 0; i < P->n_lazy; i++)
        if (P->lazy[i].v == v) return &P->lazy[i];
    return NULL;
}

/* matrix m of z read (its ldmatrix emitted once) */
static void lazy_read(Ptx *P, LazyLdm *z, int m) {
    int q = m / ldm_x(&z->pat);
    if (z->done[q]) return;
    z->done[q] = 1;
    P->dyn_base = z->dyn_base;
    ldm_emit(P, &z->a, &z->pat, z->packed, z->regs, z->words, q);
    P->dyn_base = REG_NONE;
}

void ptx_need_reg(Ptx *P, ValId v, int r) {
    LazyLdm *z = find_lazy(P, v);
    if (!z) return;
    int m = r >> z->pat.nlow;
    lazy_read(P, z, m);
    if (z->words && !z->split[m]) {
        z->split[m] = 1;
        ptx_ins(P, "mov.b32 {%R, %R}, %R;", z->regs[2 * m], z->regs[2 * m + 1], z->words[m]);
    }
}

Reg ptx_need_word(Ptx *P, ValId v, int w) {
    LazyLdm *z = find_lazy(P, v);
    if (!z || !z->words) return REG_NONE;
    TRIC_ASSERT(z->pat.nlow == 1);   /* a packed pair per matrix */
    lazy_read(P, z, w);
    return z->words[w];
}

/* The slot's tile in the result's layout: the buffer's plan where the
 * result has the layout it was made for (ldmatrix: deferred into the dot
 * where it may be), else element reads */
void ptx_local_load(Ptx *P, IrOp *op) {
    IrFunc *fn = P->fn;
    SmemBuf *sb = find_buf(P, op->operands[0]);
    ValId res = op->results[0];
    ElemType e = (ElemType)fn->vals[res].type.elem;
    int32_t lr = ptx_layout_index(P, op, res), vr = view_layout(P, sb, lr);
    P->dyn_base = slot_base(P, sb, op->operands[1]);
    bool planned = sb->lr >= 0 && layout_eq(&fn->layouts[lr], &fn->layouts[sb->lr]) && !sb->tma;
    if (planned && sb->plan.ldm && defers_into_dot(P, op)) {
        LazyLdm z = {.v = res, .pat = sb->plan.pat, .packed = elem_bytes(e) == 2, .dyn_base = P->dyn_base};
        z.a = ldm_addr(P, &sb->plan.shape, &z.pat);
        z.regs = ptx_def(P, op, res);
        z.done = arena_alloc(P->arena, (size_t)(z.pat.n_mat / ldm_x(&z.pat)));
        if (z.packed) {
            z.words = arena_alloc(P->arena, sizeof(Reg) * (size_t)z.pat.n_mat);
            z.split = arena_alloc(P->arena, (size_t)z.pat.n_mat);
        }
        VEC_PUSH(P->arena, P->lazy, P->n_lazy, P->cap_lazy, z);
    } else if (planned) {
        read_plan(P, op, res, vr, e, &sb->plan);
    } else {
        read_tile(P, op, res, vr, e, &sb->plan.shape, 1);
    }
    P->dyn_base = REG_NONE;
}

Reg ptx_slot_addr(Ptx *P, ValId buf, ValId slot) { return slot_base(P, find_buf(P, buf), slot); }

Reg ptx_scratch_addr(Ptx *P, int32_t bytes, int32_t align) {
    int32_t off = (scratch_off(P) + align - 1) / align * align;
    if (off + bytes > P->fn->shared_bytes) P->fn->shared_bytes = off + bytes;
    P->uses_smem = true;
    Reg r = ptx_reg(P, RC_B32);
    ptx_ins(P, "add.u32 %R, %R, %d;", r, ptx_smem_base(P), (int)off);
    return r;
}

Reg ptx_buffer_addr(Ptx *P, ValId buf) {
    SmemBuf *sb = find_buf(P, buf);
    Reg b = ptx_reg(P, RC_B32);
    ptx_ins(P, "add.u32 %R, %R, %d;", b, ptx_smem_base(P), (int)sb->off);
    return b;
}

/* ---- a tile as TMA stores it ---- */

/* v (2-D, in its layout) into shared memory from base (1024-byte
 * aligned) as a TMA store reads a block cut into boxes of S = swizzle
 * bytes a row (ir/tmap.h): the layout a slot TMA fills has (choose_view:
 * the view (blocks, rows, S / bytes), S-byte swizzle), written by
 * stmatrix where v's layout fits it (sm_90), else by st.shared vectors. */
void ptx_smem_write_boxes(Ptx *P, IrOp *op, ValId v, Reg base, int swizzle) {
    IrFunc *fn = P->fn;
    IrType ty = fn->vals[v].type;
    ElemType e = (ElemType)ty.elem;
    int bytes = elem_bytes(e);
    int32_t inner = swizzle / bytes, li = ptx_layout_index(P, op, v);
    TRIC_ASSERT(ty.rank == 2 && ty.shape[1] % inner == 0);
    if (ty.shape[1] > inner) {
        int32_t shape3[3] = {ty.shape[0], ty.shape[1] / inner, inner}, perm[3] = {1, 0, 2};
        Layout l = layout_reshape(&fn->layouts[li], 3, shape3);
        l = layout_permute(&l, perm);
        li = ptx_intern_layout(P, &l);
    }
    SmemShape shape = {bytes, log2_ceil(inner), 0, log2_ceil(swizzle / 16), 7 - log2_ceil(swizzle)};
    const Layout *l = &fn->layouts[li];
    uint32_t dup;
    ptx_layout_owner(P, li, &dup);
    LdmPat pat;
    Reg saved = P->dyn_base;
    P->dyn_base = base;
    if (P->ti->hopper && !dup && bytes == 2 && (ldm_match(l, e, false, &pat) || ldm_match(l, e, true, &pat))) {
        write_tile_stm(P, ptx_regs(P, v, NULL), &shape, &pat);
    } else {
        int vec = smem_vec(l, e);
        if (dup & (uint32_t)(vec - 1)) vec = 1;
        write_tile(P, op, v, li, ptx_regs(P, v, NULL), REG_NONE, e, &shape, vec);
    }
    P->dyn_base = saved;
}

/* ---- buffers wgmma reads ---- */

/* The unswizzled byte offset of element (row, col) of a slot of sb's
 * (2-D) tile: its place in the view, row-major. The tensor cores take the
 * start of each operand this way and swizzle the addresses themselves. */
static int32_t view_offset(Ptx *P, const SmemBuf *sb, int32_t row, int32_t col) {
    IrType bt = P->fn->vals[sb->v].type;
    int32_t rc[IR_MAX_RANK], vc[IR_MAX_RANK], vs[IR_MAX_RANK];
    layout_unflat(sb->vrank, sb->vshape, (int64_t)row * bt.shape[2] + col, rc);
    for (int i = 0; i < sb->vrank; i++) {
        vc[i] = rc[sb->perm[i]];
        vs[i] = sb->vshape[sb->perm[i]];
    }
    return (int32_t)(layout_flat_index(sb->vrank, vs, vc) * sb->plan.shape.bytes);
}

int32_t ptx_wgmma_offset(Ptx *P, ValId buf, int32_t row, int32_t col) {
    return view_offset(P, find_buf(P, buf), row, col);
}

/* The 64-bit matrix descriptor of buf's slot (doc/ptx.md, "Matrix
 * descriptor"): the slot's address >> 4, and the layout: the swizzle mode
 * (128 B: 1, 64 B: 2, 32 B: 3), SBO = the stride of 8 rows of the view
 * (8 x S), and for an MN-major operand LBO = the stride of its blocks of
 * S bytes along M or N (K-major: unused, 1). *mn_major: the operand's M
 * or N dim is the contiguous one (wgmma's imm-trans). */
Reg ptx_wgmma_slot_desc(Ptx *P, ValId buf, ValId slot, bool *mn_major) {
    SmemBuf *sb = find_buf(P, buf);
    TRIC_ASSERT(sb->wgmma && sb->swz_bytes >= 32);
    IrType bt = P->fn->vals[sb->v].type;
    int kdim = (sb->wgmma == 1) != sb->wg_t ? 1 : 0;   /* A: M x K, B: K x N, or transposed */
    *mn_major = sb->cdim != kdim;
    int s = sb->swz_bytes;
    uint64_t mode = s == 128 ? 1 : s == 64 ? 2 : 3;
    uint64_t lbo = *mn_major ? (uint64_t)bt.shape[1 + kdim] * (uint64_t)s : 16, sbo = 8 * (uint64_t)s;
    uint64_t bits = (lbo >> 4) << 16 | (sbo >> 4) << 32 | mode << 62;
    Reg addr = slot_base(P, sb, slot), t = ptx_reg(P, RC_B32), w = ptx_reg(P, RC_B64), d = ptx_reg(P, RC_B64);
    ptx_ins(P, "bfe.u32 %R, %R, 4, 14;", t, addr);
    ptx_ins(P, "cvt.u64.u32 %R, %R;", w, t);
    ptx_ins(P, "or.b64 %R, %R, %s;", d, w, arena_printf(P->arena, "0x%llX", (unsigned long long)bits));
    return d;
}
