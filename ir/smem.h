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
/* the same for a given shape (a recorded one): the cheapest accesses it
 * keeps aligned; scalars always are */
SmemPlan smem_plan_shape(const IrType *ty, const Layout *lw, uint32_t dup, const Layout *lr, bool stm,
                         const SmemShape *shape);

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

/* Pipeline buffers (local_alloc). A buffer holds S slots of one tile, each laid out as a convert_layout
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
 */
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
    int32_t slot_bytes, size, align;   /* a slot, all slots (slot_bytes x S), the alignment */
    int32_t off;           /* where pass smem put it (ptxgen) */
} SmemBuf;

/* Every buffer of fn (local_alloc, mbarrier_alloc) in program order, with
 * what its users need and its slot's plan; the offsets are pass smem's.
 * May add the views' layouts to fn. */
SmemBuf *smem_buffers(IrFunc *fn, uint32_t *n);
SmemBuf *smem_find_buf(SmemBuf *bufs, uint32_t n, ValId v);
/* layout li of a tile in buffer sb, as a layout of the slot's view */
int32_t smem_view_layout(IrFunc *fn, const SmemBuf *sb, int32_t li);
/* A slot's plan with the recorded shape: the buffer's own choice of
 * accesses where the shape is the one it would pick, else the cheapest
 * accesses that shape allows; returns the bytes a slot needs with it */
int64_t smem_buffer_shape(IrFunc *fn, SmemBuf *sb, const SmemShape *shape);

/* ---- what an op needs (pass smem places it) ---- */

/* one value of type e in shared memory: predicates as 4 bytes, values in
 * 16-bit registers (8-bit ints, fp8) as 2 */
int smem_elem_bytes(ElemType e);
int32_t smem_align16(int64_t bytes);   /* an array's size, rounded up to 16 */
/* reduce / scan: the bytes of operand k's array of partials (0: the op
 * combines within warps only, or its layout is one ptxgen refuses) */
int32_t smem_reduce_bytes(IrFunc *fn, const IrOp *op, uint32_t k);
int32_t smem_scan_bytes(IrFunc *fn, const IrOp *op, uint32_t k);
/* convert_layout through shared memory: the plan (false: registers only) */
bool smem_convert_plan(IrFunc *fn, const IrOp *op, SmemPlan *plan);
/* The scratch op needs at its place (convert_layout, an atomic whose
 * result other threads hold too, gather, histogram, tensormap_create):
 * bytes from a 128-byte aligned start; 0 for none. uses: ir_count_uses.
 * For a convert_layout through shared memory its plan goes to *plan
 * (unless NULL). */
int32_t smem_scratch_bytes(IrFunc *fn, const IrOp *op, const uint32_t *uses, SmemPlan *plan);
bool smem_shape_eq(const SmemShape *a, const SmemShape *b);
/* A shape as pass smem records it on an op (ir.h IrSmem), and back for
 * elements of `bytes` each */
void smem_record_shape(IrSmem *s, const SmemShape *shape);
SmemShape smem_recorded_shape(const IrSmem *s, int bytes);
/* the bytes of a tile stored with shape s */
int64_t smem_shape_bytes(const IrType *ty, const SmemShape *s);

#endif
