/* Shared-memory layouts of tiles: how a tile is laid out in a buffer
 * (rows padded or 16-byte chunks swizzled), how a layout's registers reach
 * it (vectors, ldmatrix, stmatrix), and the choice among those by counting
 * warp 0's bank wavefronts. Pure functions of types and layouts: pass smem
 * (opt/smem.c) decides with them and ptxgen addresses with them. */
#ifndef TRIC_IR_SMEM_H
#define TRIC_IR_SMEM_H

#include "ir.h"

/* The tile is stored row-major with each row (the last dim) padded, so a
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
static inline int32_t smem_slot(const SmemShape *s, int32_t i) { return i + (i >> s->lb) * s->pad; }

/* the byte offset of row-major index i in the buffer */
static inline int32_t smem_byte(const SmemShape *s, int32_t i) {
    int32_t b = smem_slot(s, i) * s->bytes;
    if (s->swz_mp) b ^= ((i >> s->lb >> s->swz_pp) & ((1 << s->swz_mp) - 1)) << 4;
    return b;
}

/* ldmatrix.m8n8.xN.b16 loads N 8x8 matrices of 16-bit values: lane 8j + i
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

static inline int ldm_x(const LdmPat *p) { return p->n_mat < 4 ? p->n_mat : 4; }   /* matrices per instruction */
/* The flat index each lane's ldmatrix address names, without the
 * instruction's matrices: lane bits 0..2 the row, lane bits 3, 4 the
 * matrix within an .x2/.x4. */
void ldm_lane_vals(const LdmPat *p, int32_t *vals);
int32_t ldm_inst_flat(const LdmPat *p, int q);   /* the flat index of instruction q's first matrix */

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
SmemPlan smem_plan(const IrType *ty, const Layout *lw, uint32_t dup, const Layout *lr, bool legacy, bool stm);

/* The plan's figures, for tests and reports */
typedef struct SmemPlanInfo {
    int write_wavefronts, read_wavefronts;
    int vec_w, vec_r;          /* registers per shared access (reads: not ldmatrix) */
    int ldmatrix;              /* 0: none, 1: ldmatrix, 2: ldmatrix.trans */
    int ldmatrix_x;            /* matrices per ldmatrix: 1, 2, 4 */
    int32_t pad;               /* elements after each row */
    int swizzle_per_phase, swizzle_max_phase;   /* 0 when not swizzled */
} SmemPlanInfo;
void smem_plan_info(const IrType *ty, const Layout *lw, uint32_t dup, const Layout *lr, bool legacy, SmemPlanInfo *out);

#endif
