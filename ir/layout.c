/* Linear layouts: which thread holds which element of a tile, in which
 * register. A layout maps the bits of (register, lane, warp) to tile
 * coordinates; bit k of kind K contributes basis[K][k] and contributions are
 * combined by XOR (see ir.h). Every constructor here produces such a map, so
 * "where does this element live" and "how wide is this thread's run" are
 * answered by one routine each, whatever the layout came from.
 *
 * Layouts are always built from a zeroed struct, so unused basis slots are
 * zero; layout_eq still compares only the meaningful part. */
#include "ir.h"

#include <string.h>

static int log2_exact(int64_t x) {
    TRIC_ASSERT(x > 0 && (x & (x - 1)) == 0);
    int k = 0;
    while ((1LL << k) < x) k++;
    return k;
}

static Layout layout_empty(int rank, const int32_t *shape, int num_warps) {
    Layout l;
    memset(&l, 0, sizeof l);
    TRIC_ASSERT(rank >= 1 && rank <= IR_MAX_RANK);
    l.rank = (uint8_t)rank;
    for (int d = 0; d < rank; d++) {
        (void)log2_exact(shape[d]);   /* tile dims are powers of two */
        l.shape[d] = shape[d];
    }
    l.n_bits[LL_LANE] = 5;
    l.n_bits[LL_WARP] = (uint8_t)log2_exact(num_warps);
    return l;
}

static void push_reg_bit(Layout *l, const int32_t *vec) {
    TRIC_ASSERT(l->n_bits[LL_REG] < LL_MAX_BITS);
    memcpy(l->basis[LL_REG][l->n_bits[LL_REG]++], vec, sizeof(int32_t) * IR_MAX_RANK);
}

/* Gives the next unused coordinate bit of dim d (or a zero vector once the
 * dim is fully covered: that input bit then replicates). */
static void next_dim_bit(const Layout *l, int d, int *covered, int32_t *vec) {
    memset(vec, 0, sizeof(int32_t) * IR_MAX_RANK);
    if ((1 << covered[d]) < l->shape[d]) vec[d] = 1 << covered[d]++;
}

/* Register bits first cover size_per_thread (fastest dim first), then lanes
 * cover threads_per_warp, then warps cover warps_per_cta; whatever of a dim
 * is left wraps around into more register bits (fastest dim first). Register
 * bits beyond the tile are dropped (they would only duplicate registers);
 * lane and warp bits beyond it stay as zero vectors (replication). */
Layout layout_blocked(int rank, const int32_t *shape, const int32_t *size_per_thread,
                      const int32_t *threads_per_warp, const int32_t *warps_per_cta,
                      const int32_t *order, int num_warps) {
    Layout l = layout_empty(rank, shape, num_warps);
    int covered[IR_MAX_RANK] = {0};
    int32_t vec[IR_MAX_RANK];
    int lane_bits = 0, warp_bits = 0;
    for (int i = 0; i < rank; i++) {
        int d = order[i];
        for (int k = log2_exact(size_per_thread[d]); k > 0; k--) {
            next_dim_bit(&l, d, covered, vec);
            if (vec[d]) push_reg_bit(&l, vec);
        }
    }
    for (int i = 0; i < rank; i++) {
        int d = order[i];
        for (int k = log2_exact(threads_per_warp[d]); k > 0; k--) {
            TRIC_ASSERT(lane_bits < 5);
            next_dim_bit(&l, d, covered, l.basis[LL_LANE][lane_bits++]);
        }
    }
    for (int i = 0; i < rank; i++) {
        int d = order[i];
        for (int k = log2_exact(warps_per_cta[d]); k > 0; k--) {
            TRIC_ASSERT(warp_bits < l.n_bits[LL_WARP]);
            next_dim_bit(&l, d, covered, l.basis[LL_WARP][warp_bits++]);
        }
    }
    TRIC_ASSERT(lane_bits == 5 && warp_bits == l.n_bits[LL_WARP]);
    for (int i = 0; i < rank; i++) {
        int d = order[i];
        while ((1 << covered[d]) < shape[d]) {
            next_dim_bit(&l, d, covered, vec);
            push_reg_bit(&l, vec);
        }
    }
    return l;
}

/* vec elements along the last dim; lanes fill the last dim first and go to
 * earlier dims when it is covered; warps go to the first dim first. Lanes or
 * warps left over after every dim is covered replicate along dim 0. */
Layout layout_default(int rank, const int32_t *shape, int vec, int num_warps) {
    int32_t spt[IR_MAX_RANK] = {0}, tpw[IR_MAX_RANK] = {0}, wpc[IR_MAX_RANK] = {0};
    int32_t order[IR_MAX_RANK] = {0};
    int last = rank - 1;
    for (int d = 0; d < rank; d++) {
        spt[d] = 1;
        order[d] = last - d;
    }
    spt[last] = vec < shape[last] ? vec : shape[last];
    int lanes = 32, warps = num_warps;
    for (int d = last; d >= 0; d--) {
        int room = shape[d] / spt[d] > 1 ? shape[d] / spt[d] : 1;
        tpw[d] = lanes < room ? lanes : room;
        lanes /= tpw[d];
    }
    tpw[0] *= lanes;
    for (int d = 0; d < rank; d++) {
        int room = shape[d] / (spt[d] * tpw[d]) > 1 ? shape[d] / (spt[d] * tpw[d]) : 1;
        wpc[d] = warps < room ? warps : room;
        warps /= wpc[d];
    }
    wpc[0] *= warps;
    return layout_blocked(rank, shape, spt, tpw, wpc, order, num_warps);
}

/* Drops register bits that are linearly dependent on earlier register bits
 * (a zero vector is the common case): such a bit would make one thread hold
 * the same element in two registers. */
static void drop_dependent_regs(Layout *l) {
    int32_t kept[LL_MAX_BITS][IR_MAX_RANK];
    uint64_t span[LL_MAX_BITS];   /* XOR basis of kept vectors, packed */
    int n_kept = 0, n_span = 0;
    int off[IR_MAX_RANK + 1] = {0};
    for (int d = 0; d < l->rank; d++) off[d + 1] = off[d] + log2_exact(l->shape[d]);
    for (int k = 0; k < l->n_bits[LL_REG]; k++) {
        uint64_t v = 0;
        for (int d = 0; d < l->rank; d++) v |= (uint64_t)(uint32_t)l->basis[LL_REG][k][d] << off[d];
        for (int j = 0; j < n_span; j++)
            if ((v ^ span[j]) < v) v ^= span[j];
        if (!v) continue;
        /* keep span sorted by leading bit, descending, so the loop above reduces fully */
        int j = n_span++;
        while (j > 0 && span[j - 1] < v) {
            span[j] = span[j - 1];
            j--;
        }
        span[j] = v;
        memcpy(kept[n_kept++], l->basis[LL_REG][k], sizeof kept[0]);
    }
    memset(l->basis[LL_REG], 0, sizeof l->basis[LL_REG]);
    memcpy(l->basis[LL_REG], kept, sizeof(kept[0]) * (size_t)n_kept);
    l->n_bits[LL_REG] = (uint8_t)n_kept;
}

Layout layout_project(const Layout *l, const int32_t *shape) {
    Layout r = *l;
    for (int d = 0; d < l->rank; d++) {
        TRIC_ASSERT(shape[d] == l->shape[d] || shape[d] == 1);
        r.shape[d] = shape[d];
        if (shape[d] != 1) continue;
        for (int kind = 0; kind < LL_KINDS; kind++)
            for (int k = 0; k < LL_MAX_BITS; k++) r.basis[kind][k][d] = 0;
    }
    drop_dependent_regs(&r);
    return r;
}

Layout layout_drop_dim(const Layout *l, int axis) {
    TRIC_ASSERT(axis >= 0 && axis < l->rank && l->rank > 1);
    Layout r = *l;
    r.rank--;
    for (int d = axis; d < r.rank; d++) r.shape[d] = l->shape[d + 1];
    r.shape[r.rank] = 0;
    for (int kind = 0; kind < LL_KINDS; kind++)
        for (int k = 0; k < LL_MAX_BITS; k++) {
            int32_t *v = r.basis[kind][k];
            for (int d = axis; d < r.rank; d++) v[d] = v[d + 1];
            v[r.rank] = 0;
        }
    drop_dependent_regs(&r);
    return r;
}

Layout layout_add_dim(const Layout *l, int axis) {
    TRIC_ASSERT(axis >= 0 && axis <= l->rank && l->rank < IR_MAX_RANK);
    Layout r = *l;
    r.rank++;
    for (int d = r.rank - 1; d > axis; d--) r.shape[d] = l->shape[d - 1];
    r.shape[axis] = 1;
    for (int kind = 0; kind < LL_KINDS; kind++)
        for (int k = 0; k < LL_MAX_BITS; k++) {
            int32_t *v = r.basis[kind][k];
            for (int d = r.rank - 1; d > axis; d--) v[d] = v[d - 1];
            v[axis] = 0;
        }
    return r;
}

/* ---- the shape ops: trans, reshape, join, split ---- */

int64_t layout_flat_index(int rank, const int32_t *shape, const int32_t *coord) {
    int64_t idx = 0;
    for (int d = 0; d < rank; d++) idx = idx * shape[d] + coord[d];
    return idx;
}

void layout_unflat(int rank, const int32_t *shape, int64_t flat, int32_t *coord) {
    for (int d = IR_MAX_RANK - 1; d >= 0; d--) {
        if (d >= rank) {
            coord[d] = 0;
            continue;
        }
        coord[d] = (int32_t)(flat % shape[d]);
        flat /= shape[d];
    }
}

Layout layout_permute(const Layout *l, const int32_t *perm) {
    Layout r = *l;
    for (int i = 0; i < l->rank; i++) r.shape[i] = l->shape[perm[i]];
    for (int kind = 0; kind < LL_KINDS; kind++)
        for (int k = 0; k < LL_MAX_BITS; k++)
            for (int i = 0; i < l->rank; i++) r.basis[kind][k][i] = l->basis[kind][k][perm[i]];
    return r;
}

/* Dims are powers of two, so the flat index of a XOR of coordinates is the
 * XOR of their flat indices: mapping each basis vector maps the layout. */
Layout layout_reshape(const Layout *l, int rank, const int32_t *shape) {
    TRIC_ASSERT(rank >= 1 && rank <= IR_MAX_RANK);
    Layout r = *l;
    r.rank = (uint8_t)rank;
    for (int d = 0; d < IR_MAX_RANK; d++) r.shape[d] = d < rank ? shape[d] : 0;
    for (int kind = 0; kind < LL_KINDS; kind++)
        for (int k = 0; k < LL_MAX_BITS; k++) {
            int64_t flat = layout_flat_index(l->rank, l->shape, l->basis[kind][k]);
            layout_unflat(rank, shape, flat, r.basis[kind][k]);
        }
    return r;
}

Layout layout_join(const Layout *l) {
    TRIC_ASSERT(l->rank < IR_MAX_RANK && l->n_bits[LL_REG] < LL_MAX_BITS);
    Layout r = *l;
    r.shape[r.rank++] = 2;
    /* bit 0: a's and b's elements of one position sit in adjacent registers,
     * so an interleaved store is as wide as it can be */
    memmove(r.basis[LL_REG][1], r.basis[LL_REG][0], sizeof(r.basis[LL_REG][0]) * (size_t)l->n_bits[LL_REG]);
    memset(r.basis[LL_REG][0], 0, sizeof(r.basis[LL_REG][0]));
    r.basis[LL_REG][0][l->rank] = 1;
    r.n_bits[LL_REG]++;
    return r;
}

bool layout_split(const Layout *l, Layout *out) {
    int last = l->rank - 1, found = -1;
    if (l->rank < 2 || l->shape[last] != 2) return false;
    for (int kind = 0; kind < LL_KINDS; kind++)
        for (int k = 0; k < l->n_bits[kind]; k++) {
            const int32_t *v = l->basis[kind][k];
            if (!v[last]) continue;
            bool alone = kind == LL_REG && found < 0;
            for (int d = 0; d < last; d++) alone &= v[d] == 0;
            if (!alone) return false;
            found = k;
        }
    if (found < 0) return false;
    Layout r = *l;
    r.rank--;
    r.shape[last] = 0;
    memmove(r.basis[LL_REG][found], r.basis[LL_REG][found + 1],
            sizeof(r.basis[LL_REG][0]) * (size_t)(l->n_bits[LL_REG] - found - 1));
    r.n_bits[LL_REG]--;
    memset(r.basis[LL_REG][r.n_bits[LL_REG]], 0, sizeof(r.basis[LL_REG][0]));
    for (int kind = 0; kind < LL_KINDS; kind++)
        for (int k = 0; k < LL_MAX_BITS; k++) r.basis[kind][k][last] = 0;
    *out = r;
    return true;
}

bool layout_eq(const Layout *a, const Layout *b) {
    if (a->rank != b->rank) return false;
    for (int d = 0; d < a->rank; d++)
        if (a->shape[d] != b->shape[d]) return false;
    for (int kind = 0; kind < LL_KINDS; kind++) {
        if (a->n_bits[kind] != b->n_bits[kind]) return false;
        for (int k = 0; k < a->n_bits[kind]; k++)
            for (int d = 0; d < a->rank; d++)
                if (a->basis[kind][k][d] != b->basis[kind][k][d]) return false;
    }
    return true;
}

int layout_n_regs(const Layout *l) { return 1 << l->n_bits[LL_REG]; }

void layout_coord(const Layout *l, int reg, int lane, int warp, int32_t *coord) {
    int idx[LL_KINDS] = {reg, lane, warp};
    for (int d = 0; d < l->rank; d++) coord[d] = 0;
    for (int kind = 0; kind < LL_KINDS; kind++)
        for (int k = 0; k < l->n_bits[kind]; k++)
            if (idx[kind] >> k & 1)
                for (int d = 0; d < l->rank; d++) coord[d] ^= l->basis[kind][k][d];
}

int layout_contig_regs(const Layout *l, int dim) {
    int k = 0;
    for (; k < l->n_bits[LL_REG]; k++) {
        const int32_t *v = l->basis[LL_REG][k];
        bool unit = true;
        for (int d = 0; d < l->rank; d++)
            if (v[d] != (d == dim ? 1 << k : 0)) unit = false;
        if (!unit) break;
    }
    /* Every other input bit must move in whole runs: a basis vector with
     * bits below 2^k along dim would XOR into the run and break it. */
    for (int kind = 0; kind < LL_KINDS; kind++)
        for (int b = kind == LL_REG ? k : 0; b < l->n_bits[kind]; b++)
            while (k > 0 && (l->basis[kind][b][dim] & ((1 << k) - 1))) k--;
    return 1 << k;
}

int layout_vector_dim(const Layout *l, int vec) {
    int last = l->rank - 1;
    if (vec <= 1 || layout_contig_regs(l, last) >= vec) return last;
    for (int d = 0; d < last; d++)
        if (layout_contig_regs(l, d) >= vec) return d;
    return -1;
}

/* ---- inverse: which (reg, lane, warp) holds a coordinate ----
 * Gaussian elimination over GF(2). Coordinates are packed into one integer
 * (dim d at bit offset sum of log2 of earlier dims); inputs into another
 * (reg bits lowest, then lane, then warp), so the smallest input that maps
 * to the coordinate is the first holder: warp 0 before warp 1, and so on. */
typedef struct {
    uint64_t out[64], in[64];   /* row with leading output bit b, or out[b] == 0 */
    uint64_t kernel[64];        /* inputs mapping to zero, by leading input bit */
} LayoutSolver;

static int top_bit(uint64_t v) { return 63 - __builtin_clzll(v); }

static void solver_add(LayoutSolver *s, uint64_t out, uint64_t in) {
    while (out) {
        int b = top_bit(out);
        if (!s->out[b]) {
            s->out[b] = out;
            s->in[b] = in;
            return;
        }
        out ^= s->out[b];
        in ^= s->in[b];
    }
    while (in) {
        int b = top_bit(in);
        if (!s->kernel[b]) {
            s->kernel[b] = in;
            return;
        }
        in ^= s->kernel[b];
    }
}

bool layout_find(const Layout *l, const int32_t *coord, int *reg, int *lane, int *warp) {
    int off[IR_MAX_RANK + 1] = {0};
    for (int d = 0; d < l->rank; d++) off[d + 1] = off[d] + log2_exact(l->shape[d]);
    int nin = l->n_bits[LL_REG] + l->n_bits[LL_LANE] + l->n_bits[LL_WARP];
    TRIC_ASSERT(off[l->rank] <= 64 && nin <= 64);
    LayoutSolver s;
    memset(&s, 0, sizeof s);
    int bit = 0;
    for (int kind = 0; kind < LL_KINDS; kind++)
        for (int k = 0; k < l->n_bits[kind]; k++, bit++) {
            uint64_t out = 0;
            for (int d = 0; d < l->rank; d++)
                out |= (uint64_t)(uint32_t)l->basis[kind][k][d] << off[d];
            solver_add(&s, out, 1ULL << bit);
        }
    uint64_t want = 0, x = 0;
    for (int d = 0; d < l->rank; d++) {
        if (coord[d] < 0 || coord[d] >= l->shape[d]) return false;
        want |= (uint64_t)(uint32_t)coord[d] << off[d];
    }
    while (want) {
        int b = top_bit(want);
        if (!s.out[b]) return false;
        want ^= s.out[b];
        x ^= s.in[b];
    }
    for (int b = 63; b >= 0; b--)   /* smallest input among all solutions */
        if (s.kernel[b] && (x >> b & 1)) x ^= s.kernel[b];
    int nreg = l->n_bits[LL_REG];
    *reg = (int)(x & ((1ULL << nreg) - 1));
    *lane = (int)(x >> nreg & 31);
    *warp = (int)(x >> (nreg + 5));
    return true;
}

/* linear<[64,32] reg=[[0,1],[0,2]] lane=[[0,4],...] warp=[[16,0],...]>, the
 * syntax of the IR text form (ir/text.c) */
static void print_bases(Buf *b, const Layout *l, int kind) {
    buf_putc(b, '[');
    for (int k = 0; k < l->n_bits[kind]; k++) {
        buf_puts(b, k ? ",[" : "[");
        for (int d = 0; d < l->rank; d++) buf_printf(b, d ? ",%d" : "%d", l->basis[kind][k][d]);
        buf_putc(b, ']');
    }
    buf_putc(b, ']');
}

void layout_print(Buf *b, const Layout *l) {
    buf_puts(b, "linear<[");
    for (int d = 0; d < l->rank; d++) buf_printf(b, d ? ",%d" : "%d", l->shape[d]);
    buf_puts(b, "] reg=");
    print_bases(b, l, LL_REG);
    buf_puts(b, " lane=");
    print_bases(b, l, LL_LANE);
    buf_puts(b, " warp=");
    print_bases(b, l, LL_WARP);
    buf_putc(b, '>');
}

int layout_reduce_levels(const Layout *l, int axis, int32_t n, int32_t *steps, int *kinds, int *bits) {
    int m = 0, want = log2_exact(n);
    if (!l) {
        for (; m < want; m++) {
            steps[m] = 1 << m;
            if (kinds) kinds[m] = LL_REG;
            if (bits) bits[m] = m;
        }
        return m;
    }
    int32_t span = 0;
    for (int kind = 0; kind < LL_KINDS; kind++)
        for (int k = 0; k < l->n_bits[kind]; k++) {
            const int32_t *v = l->basis[kind][k];
            if (!v[axis]) continue;
            for (int d = 0; d < l->rank; d++)
                if (d != axis && v[d]) return -1;
            /* powers of two not seen before: then the levels reach every
             * coordinate exactly once */
            if ((v[axis] & (v[axis] - 1)) || (span & v[axis]) || m == want) return -1;
            span |= v[axis];
            steps[m] = v[axis];
            if (kinds) kinds[m] = kind;
            if (bits) bits[m] = k;
            m++;
        }
    return m == want ? m : -1;
}

/* The input bit (kind, k) whose basis vector is exactly `step` along axis
 * and zero elsewhere; false if none. */
static bool find_axis_bit(const Layout *l, int axis, int32_t step, int *kind, int *bit) {
    for (int kd = 0; kd < LL_KINDS; kd++)
        for (int k = 0; k < l->n_bits[kd]; k++) {
            const int32_t *v = l->basis[kd][k];
            if (v[axis] != step) continue;
            bool pure = true;
            for (int d = 0; d < l->rank; d++) pure = pure && (d == axis || !v[d]);
            if (!pure) continue;
            *kind = kd;
            *bit = k;
            return true;
        }
    return false;
}

bool layout_scan_parts(const Layout *l, int axis, int32_t n, int *parts, int *kinds, int *bits) {
    int m = log2_exact(n), part = 0, prev_lane = -1, touching = 0;
    for (int p = 0; p < 4; p++) parts[p] = 0;
    /* every input bit that moves along the axis must be one of the m found
     * below (none mixes the axis with other dims, none repeats one) */
    for (int kd = 0; l && kd < LL_KINDS; kd++)
        for (int k = 0; k < l->n_bits[kd]; k++) touching += l->basis[kd][k][axis] != 0;
    if (l && touching != m) return false;
    for (int t = 0; t < m; t++) {
        int kind = LL_REG, bit = t;
        if (l && !find_axis_bit(l, axis, (int32_t)1 << t, &kind, &bit)) return false;
        /* registers before any lane or warp bit are part 0, after them part 3 */
        int p = kind == LL_LANE ? 1 : kind == LL_WARP ? 2 : part == 0 ? 0 : 3;
        if (p < part) return false;
        if (kind == LL_LANE && prev_lane >= 0 && bit != prev_lane + 1) return false;
        if (kind == LL_LANE) prev_lane = bit;
        part = p;
        parts[p]++;
        if (kinds) kinds[t] = kind;
        if (bits) bits[t] = bit;
    }
    return true;
}

/* ---- dot: mma.sync fragments and the FMA path ----
 * The fragment tables (doc/ptx.md, "mma.sync fragments"; PTX ISA "Matrix
 * Fragments for mma.m16n8k*"), with g = lane / 4 and t = lane % 4:
 *   C/D (16 x 8, f32 or f16)  c0,c1 = (g, 2t), (g, 2t+1);  c2,c3 = (g+8, 2t), (g+8, 2t+1)
 *   A m16n8k16 (16-bit)       a-reg0 = (g, 2t..2t+1)  a-reg1 = (g+8, 2t..)  a-reg2 = (g, 2t+8..)  a-reg3 = (g+8, 2t+8..)
 *   B m16n8k16 (16-bit)       b-reg0 = (2t..2t+1, g)  b-reg1 = (2t+8..2t+9, g)
 *   A m16n8k8 tf32            a0..a3 = (g, t), (g+8, t), (g, t+4), (g+8, t+4)
 *   B m16n8k8 tf32            b0, b1 = (t, g), (t+4, g)
 *   A m16n8k32 (8-bit)        a-reg0 = (g, 4t..4t+3)  a-reg1 = (g+8, 4t..)  a-reg2 = (g, 4t+16..)  a-reg3 = (g+8, 4t+16..)
 *   B m16n8k32 (8-bit)        b-reg0 = (4t..4t+3, g)  b-reg1 = (4t+16..4t+19, g)
 * where a 32-bit register holding p = 32 / bits elements lists them low part
 * first. With p elements per 32-bit register and a k-step of 8p, all three
 * operand tables are one pattern: A's register bits are k + 1 .. k + p/2
 * (the packed elements), m + 8, k + 4p; its lane bits k + p, k + 2p (t)
 * and m + 1, 2, 4 (g). B's register bits are k + 1 .. k + p/2, k + 4p; its
 * lanes k + p, k + 2p (t) and n + 1, 2, 4 (g). */

/* basis vector `kind`/k of l: `step` along dim d, or zero (replication) when
 * the tile is not that large */
static void set_basis(Layout *l, int kind, int k, int d, int32_t step) {
    memset(l->basis[kind][k], 0, sizeof l->basis[kind][k]);
    if (step < l->shape[d]) l->basis[kind][k][d] = step;
}

static void push_dim_reg(Layout *l, int d, int32_t step) {
    int32_t v[IR_MAX_RANK] = {0};
    v[d] = step;
    push_reg_bit(l, v);
}

/* Triton's mma v2 rule (warpsPerTileV2): starting from one warp per 16 x 8
 * tile, double the warps along M while M has more 16-row tiles per warp
 * than N has 16-column pairs of tiles per warp (and M still has room),
 * else along N, until all warps are placed. Batched (rank 3): Triton puts
 * every warp on the batch dim; here the batch dim takes as many warps as it
 * has entries (min(B, num_warps)) and the rest split M and N by the 2-D
 * rule, so a small batch does not leave warps replicating. */
void layout_mma_warps(int rank, const int32_t *shape, int num_warps, int32_t *warps) {
    int m = rank - 2, n = rank - 1, left = num_warps;
    for (int d = 0; d < rank; d++) warps[d] = 1;
    if (rank == 3) {
        warps[0] = shape[0] < num_warps ? shape[0] : num_warps;
        left /= warps[0];
    }
    while (warps[m] * warps[n] < left) {
        if (shape[m] / 16 / warps[m] >= shape[n] / 16 / warps[n] && warps[m] < shape[m] / 16) warps[m] *= 2;
        else warps[n] *= 2;
    }
}

/* The accumulator: the 16 x 8 tile of the table above (registers c0..c3 =
 * bits (n + 1), (m + 8); lanes n + 2, n + 4, m + 1, 2, 4), then warps along
 * N, M (and the batch), then registers repeating the warps' tile along N,
 * then M, then the batch. So register 4 * (j + NR * (i + MR * b)) + c is c
 * of n8 tile j, m16 tile i, batch entry b of this warp (NR, MR: tiles per
 * warp along N and M). Warps beyond the tile replicate. */
Layout layout_mma_acc(int rank, const int32_t *shape, int num_warps) {
    TRIC_ASSERT(rank == 2 || rank == 3);
    int m = rank - 2, n = rank - 1, w = 0;
    TRIC_ASSERT(shape[m] >= 16 && shape[n] >= 8);
    Layout l = layout_empty(rank, shape, num_warps);
    int32_t warps[3];
    layout_mma_warps(rank, shape, num_warps, warps);
    push_dim_reg(&l, n, 1);
    push_dim_reg(&l, m, 8);
    set_basis(&l, LL_LANE, 0, n, 2);
    set_basis(&l, LL_LANE, 1, n, 4);
    for (int k = 0; k < 3; k++) set_basis(&l, LL_LANE, 2 + k, m, 1 << k);
    for (int32_t s = 8; s < 8 * warps[n]; s *= 2) set_basis(&l, LL_WARP, w++, n, s);
    for (int32_t s = 16; s < 16 * warps[m]; s *= 2) set_basis(&l, LL_WARP, w++, m, s);
    for (int32_t s = 1; rank == 3 && s < warps[0]; s *= 2) set_basis(&l, LL_WARP, w++, 0, s);
    TRIC_ASSERT(w == l.n_bits[LL_WARP]);
    for (int32_t s = 8 * warps[n]; s < shape[n]; s *= 2) push_dim_reg(&l, n, s);
    for (int32_t s = 16 * warps[m]; s < shape[m]; s *= 2) push_dim_reg(&l, m, s);
    for (int32_t s = warps[0]; rank == 3 && s < shape[0]; s *= 2) push_dim_reg(&l, 0, s);
    return l;
}

int layout_mma_kstep(int elem_bits) { return 256 / elem_bits; }

/* Triton's mma v3 rule (warpsPerTileV3): a warpgroup's 4 warps along M
 * (16 rows each), then double the warps along M while M has rows beyond
 * them, else along N. */
void layout_wgmma_warps(const int32_t *shape, int num_warps, int32_t *warps) {
    warps[0] = 4;
    warps[1] = 1;
    while (warps[0] * warps[1] < num_warps) {
        if (shape[0] > 16 * warps[0]) warps[0] *= 2;
        else warps[1] *= 2;
    }
}

/* The wgmma accumulator (doc/ptx.md, "wgmma accumulator": warp w of a
 * warpgroup holds rows 16w .. 16w + 15, each 8-column slice as mma.m16n8's
 * C fragment): the 16 x 8 fragment bits as layout_mma_acc's, warps along M
 * 16 rows apart (the first four a warpgroup), then warps along N in slices
 * of N / wn, registers along N within the slice (so registers 4j .. 4j + 3
 * are n8 tile j of one wgmma's d), then along M beyond the warps (one wgmma
 * per 64 rows). It is also an mma.sync accumulator: mma.sync runs it where
 * wgmma does not. */
Layout layout_wgmma_acc(const int32_t *shape, int num_warps) {
    int m = 0, n = 1, w = 0;
    Layout l = layout_empty(2, shape, num_warps);
    int32_t warps[2];
    layout_wgmma_warps(shape, num_warps, warps);
    int32_t slice = shape[n] / warps[n];
    push_dim_reg(&l, n, 1);
    push_dim_reg(&l, m, 8);
    set_basis(&l, LL_LANE, 0, n, 2);
    set_basis(&l, LL_LANE, 1, n, 4);
    for (int k = 0; k < 3; k++) set_basis(&l, LL_LANE, 2 + k, m, 1 << k);
    for (int32_t s = 16; s < 16 * warps[m]; s *= 2) set_basis(&l, LL_WARP, w++, m, s);
    for (int32_t s = slice; s < shape[n]; s *= 2) set_basis(&l, LL_WARP, w++, n, s);
    TRIC_ASSERT(w == l.n_bits[LL_WARP]);
    for (int32_t s = 8; s < slice; s *= 2) push_dim_reg(&l, n, s);
    for (int32_t s = 16 * warps[m]; s < shape[m]; s *= 2) push_dim_reg(&l, m, s);
    return l;
}

/* An operand's layout from the accumulator's: shape with K in place of N
 * (a) or of M (b); acc's vectors with their component along that dim
 * zeroed (lanes and warps that split N hold the same A, those that split M
 * the same B: replication), acc's register bits likewise (those that only
 * moved along the zeroed dim drop out). `first` are the register bits that
 * go before the acc's, kd the K dim, od the other. */
static Layout operand_from_acc(const Layout *acc, int which, int32_t k, int *kd_out) {
    int rank = acc->rank, kd = which == 0 ? rank - 1 : rank - 2;
    int32_t shape[IR_MAX_RANK];
    memcpy(shape, acc->shape, sizeof shape);
    shape[kd] = k;
    Layout l = layout_empty(rank, shape, 1 << acc->n_bits[LL_WARP]);
    for (int kind = LL_LANE; kind <= LL_WARP; kind++)
        for (int b = 0; b < acc->n_bits[kind]; b++) {
            memcpy(l.basis[kind][b], acc->basis[kind][b], sizeof l.basis[kind][b]);
            l.basis[kind][b][kd] = 0;
        }
    *kd_out = kd;
    return l;
}

/* Appends acc's register bits from `first` on without their K-dim
 * component; the ones that become zero or repeat an earlier register bit
 * are dropped. */
static void push_acc_regs(Layout *l, const Layout *acc, int first, int kd) {
    for (int b = first; b < acc->n_bits[LL_REG]; b++) {
        int32_t v[IR_MAX_RANK];
        memcpy(v, acc->basis[LL_REG][b], sizeof v);
        v[kd] = 0;
        push_reg_bit(l, v);
    }
    drop_dependent_regs(l);
}

/* mma operands (which 0 = a, 1 = b) of elem_bits-bit elements, K = k: the
 * fragment pattern above, registers ordered fragment bits first, then K
 * repeats (k-steps), then acc's M (a) or N (b) repeats and batch repeats.
 * So a's register e + 4p * (c + KC * (i + MR * b)) is fragment register
 * element e of k-step c, m16 tile i, batch entry b (b's: e + 2p * (c + KC *
 * (j + NR * b)), j the n8 tile); element e holds 32-bit register e / p's
 * part e % p (the p elements of one mma register are consecutive layout
 * registers, along K). */
Layout layout_mma_operand(const Layout *acc, int which, int elem_bits, int32_t k) {
    int p = 32 / elem_bits, kd;
    TRIC_ASSERT((p == 1 || p == 2 || p == 4) && k >= 8 * p && k % (8 * p) == 0);
    Layout l = operand_from_acc(acc, which, k, &kd);
    int od = acc->rank * 2 - 3 - kd;   /* the other of the last two dims */
    for (int32_t s = 1; s < p; s *= 2) push_dim_reg(&l, kd, s);
    if (which == 0) push_dim_reg(&l, od, 8);
    push_dim_reg(&l, kd, 4 * p);
    for (int32_t s = 8 * p; s < k; s *= 2) push_dim_reg(&l, kd, s);
    set_basis(&l, LL_LANE, 0, kd, p);
    set_basis(&l, LL_LANE, 1, kd, 2 * p);
    for (int b = 0; b < 3; b++) set_basis(&l, LL_LANE, 2 + b, od, 1 << b);
    push_acc_regs(&l, acc, 2, kd);   /* acc's own fragment bits are the operand's lanes and bits above */
    return l;
}

/* The FMA path's operands: each thread holds, for every row (a) or column
 * (b) of acc it holds, the whole K extent in registers (K bits first, so
 * register r + K * s is element k = r of acc-derived slot s). */
Layout layout_fma_operand(const Layout *acc, int which, int32_t k) {
    int kd;
    Layout l = operand_from_acc(acc, which, k, &kd);
    for (int32_t s = 1; s < k; s *= 2) push_dim_reg(&l, kd, s);
    push_acc_regs(&l, acc, 0, kd);
    return l;
}

static bool is_fp8(ElemType e) { return e == ET_F8E4M3 || e == ET_F8E5M2; }

int layout_dot_mma_bits(ElemType a, ElemType b, ElemType acc, int precision, bool fp8) {
    if (a == ET_F16 && b == ET_F16 && (acc == ET_F32 || acc == ET_F16)) return 16;
    if (a == ET_BF16 && b == ET_BF16 && acc == ET_F32) return 16;
    if (a == ET_F32 && b == ET_F32 && acc == ET_F32 && precision != DOT_IEEE) return 32;
    if (a == ET_I8 && b == ET_I8 && acc == ET_I32) return 8;
    if (is_fp8(a) && is_fp8(b) && (acc == ET_F32 || acc == ET_F16) && fp8) return 8;
    return 0;
}

int layout_dot_wgmma_bits(const IrFunc *fn, const IrOp *op) {
    const Target *t = &fn->ctx->target;
    IrType at = fn->vals[op->operands[0]].type, bt = fn->vals[op->operands[1]].type;
    IrType ct = fn->vals[op->operands[2]].type;
    ElemType a = (ElemType)at.elem, b = (ElemType)bt.elem, c = (ElemType)ct.elem;
    const TargetInfo *ti = target_info(t);
    if (!ti->wgmma || t->num_warps % 4 || at.rank != 2) return 0;
    int bits = layout_dot_mma_bits(a, b, c, (int)op->attr.i, ti->fp8);
    /* tf32 from shared memory would be truncated, not rounded as dot's
     * tf32 is (doc/ir.md); an f16 accumulator is packed in pairs: both
     * stay on mma.sync */
    if (!bits || bits == 32 || c == ET_F16) return 0;
    int32_t warps[2];
    layout_wgmma_warps(ct.shape, t->num_warps, warps);
    int32_t slice = ct.shape[1] / warps[1];
    if (ct.shape[0] < 16 * warps[0] || slice < 8 || at.shape[1] < layout_mma_kstep(bits)) return 0;
    return bits;
}

bool layout_dot_mma_ok(const IrFunc *fn, const IrOp *op) {
    IrType at = fn->vals[op->operands[0]].type, bt = fn->vals[op->operands[1]].type;
    IrType ct = fn->vals[op->operands[2]].type;
    int bits = layout_dot_mma_bits((ElemType)at.elem, (ElemType)bt.elem, (ElemType)ct.elem, (int)op->attr.i,
                                   target_info(&fn->ctx->target)->fp8);
    int n = at.rank;
    return bits && (n == 2 || n == 3) && at.shape[n - 2] >= 16 && bt.shape[n - 1] >= 8 &&
           at.shape[n - 1] >= layout_mma_kstep(bits);
}

bool layout_dot_operands(const IrFunc *fn, const IrOp *op, const Layout *acc, Layout *la, Layout *lb) {
    IrType at = fn->vals[op->operands[0]].type, bt = fn->vals[op->operands[1]].type;
    int32_t k = at.shape[at.rank - 1];
    bool mma = layout_dot_mma_ok(fn, op);
    if (mma) {
        Layout want = layout_mma_acc(acc->rank, acc->shape, 1 << acc->n_bits[LL_WARP]);
        mma = layout_eq(acc, &want);
        if (!mma && layout_dot_wgmma_bits(fn, op)) {
            want = layout_wgmma_acc(acc->shape, 1 << acc->n_bits[LL_WARP]);
            mma = layout_eq(acc, &want);
        }
    }
    if (mma) {
        *la = layout_mma_operand(acc, 0, elem_bits((ElemType)at.elem), k);
        *lb = layout_mma_operand(acc, 1, elem_bits((ElemType)bt.elem), k);
    } else {
        *la = layout_fma_operand(acc, 0, k);
        *lb = layout_fma_operand(acc, 1, k);
    }
    return mma;
}

/* ---- row-major indices of a layout's elements ----
 *
 * Dims are powers of two and coordinates stay below them, so the row-major
 * index of a XOR of coordinates is the XOR of their indices: the index is
 * itself a linear function of (register, lane, warp). */

int32_t layout_flat(const Layout *l, const int32_t *coord) { return (int32_t)layout_flat_index(l->rank, l->shape, coord); }

int32_t layout_reg_flat(const Layout *l, int reg) {
    int32_t c[IR_MAX_RANK];
    layout_coord(l, reg, 0, 0, c);
    return layout_flat(l, c);
}

int32_t layout_thread_support(const Layout *l) {
    int32_t s = 0;
    for (int kind = LL_LANE; kind <= LL_WARP; kind++)
        for (int k = 0; k < l->n_bits[kind]; k++) s |= layout_flat(l, l->basis[kind][k]);
    return s;
}

/* Input bits whose basis index depends linearly on earlier ones (registers
 * first, then lanes, then warps) name elements some other holder also has;
 * the holder with all those bits clear is the canonical one. */
void layout_duplicates(const Layout *l, int num_warps, uint32_t *reg_mask, uint32_t *tid_mask) {
    int32_t pivot[32] = {0};
    *reg_mask = *tid_mask = 0;
    for (int kind = LL_REG; kind <= LL_WARP; kind++) {
        for (int k = 0; k < l->n_bits[kind]; k++) {
            uint32_t v = (uint32_t)layout_flat(l, l->basis[kind][k]);
            while (v) {
                int top = 31 - __builtin_clz(v);
                if (!pivot[top]) {
                    pivot[top] = (int32_t)v;
                    break;
                }
                v ^= (uint32_t)pivot[top];
            }
            if (v) continue;
            if (kind == LL_REG) *reg_mask |= 1u << k;
            else if (kind == LL_LANE) *tid_mask |= 1u << k;
            else *tid_mask |= 1u << (5 + k);
        }
    }
    for (int k = l->n_bits[LL_LANE]; k < 5; k++) *tid_mask |= 1u << k;
    for (int k = l->n_bits[LL_WARP]; k < log2_ceil(num_warps); k++) *tid_mask |= 1u << (5 + k);
}
