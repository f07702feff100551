/* Tensor maps: what a TMA copy (cp.async.bulk.tensor) reads to move a box
 * of a tensor between global and shared memory.
 *
 * tmap_box is the one rule the compiler and the runtime share: how a
 * tensor descriptor's block is cut into boxes. The shared-memory slot a
 * TMA ring fills is laid out as wgmma reads it (ptxgen/convert.c): rows of
 * S bytes of the block's last (contiguous) dim, S the swizzle span, the
 * largest of 128, 64, 32 that the dim fills, and a last dim longer than S
 * split into blocks of S bytes one after another. One box is one such
 * block: {S / elem bytes, the other dims}, with the S-byte swizzle; the
 * kernel issues one copy per block and the runtime encodes the map with
 * that box.
 *
 * On the GPU the map is the driver's CUtensorMap (cuTensorMapEncodeTiled,
 * opaque). The CPU executors (interp/, sim/) read tric's own 128-byte
 * encoding of the same fields instead (tmap_encode / tmap_decode), which
 * test harnesses and the interpreter's launches build. */
#ifndef TRIC_TMAP_H
#define TRIC_TMAP_H

#include "ir.h"

#define TMAP_BYTES 128
#define TMAP_MAX_RANK 5

/* CUtensorMapDataType (cuda.h), the codes tric's encoding keeps too */
enum {
    TMAP_U8 = 0, TMAP_U16 = 1, TMAP_U32 = 2, TMAP_I32 = 3, TMAP_U64 = 4, TMAP_I64 = 5, TMAP_F16 = 6, TMAP_F32 = 7,
    TMAP_F64 = 8, TMAP_BF16 = 9
};

typedef struct TmapBox {
    int swizzle;      /* bytes: 32, 64 or 128 */
    int inner;        /* elements of the last dim per box: swizzle / elem bytes */
    int n_boxes;      /* boxes per block, along the last dim */
} TmapBox;

/* Whether TMA can move a block of `rank` dims block[] of e (2-D blocks of
 * 8- to 64-bit elements whose last dim holds at least 32 bytes, the other
 * dim at most 256: the box limit), and its boxes. */
bool tmap_box(ElemType e, int rank, const int32_t *block, TmapBox *out);

/* The driver's data type code of e (fp8 moves as u8); -1 if none */
int tmap_dtype(ElemType e);

typedef struct TmapFields {
    uint64_t address;                     /* global, 16-byte aligned */
    int rank, dtype;                      /* TMAP_* */
    uint32_t dims[TMAP_MAX_RANK];         /* elements, innermost first */
    uint64_t strides[TMAP_MAX_RANK - 1];  /* bytes, of dims 1..rank-1 */
    uint32_t box[TMAP_MAX_RANK];          /* innermost first */
    int swizzle;                          /* bytes: 0 (none), 32, 64, 128 */
    bool fill_nan;                        /* out-of-bounds elements read NaN, else zero */
} TmapFields;

/* tric's encoding (for the CPU executors); decode returns false on bytes
 * that are not one (a message in *why) */
void tmap_encode(const TmapFields *f, uint8_t out[TMAP_BYTES]);
bool tmap_decode(const uint8_t in[TMAP_BYTES], TmapFields *f, const char **why);

/* The bytes of element e of a dtype code; 0 for an unknown code */
int tmap_dtype_bytes(int dtype);

/* tensormap.replace's .elemtype codes are not the driver's: the code for
 * dtype, and back (-1: none) */
int tmap_ptx_elemtype(int dtype);
int tmap_dtype_of_ptx(int code);

#endif
