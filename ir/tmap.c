/* Tensor maps: the box rule and tric's own encoding (tmap.h). */
#include "tmap.h"

#include <string.h>

static const char tmap_magic[8] = {'t', 'r', 'i', 'c', 'T', 'M', 'A', 'P'};

int tmap_dtype(ElemType e) {
    switch (e) {
    case ET_I8: case ET_U8: case ET_F8E4M3: case ET_F8E5M2: return TMAP_U8;
    case ET_I16: case ET_U16: return TMAP_U16;
    case ET_I32: return TMAP_I32;
    case ET_U32: return TMAP_U32;
    case ET_I64: return TMAP_I64;
    case ET_U64: return TMAP_U64;
    case ET_F16: return TMAP_F16;
    case ET_BF16: return TMAP_BF16;
    case ET_F32: return TMAP_F32;
    case ET_F64: return TMAP_F64;
    default: return -1;
    }
}

int tmap_dtype_bytes(int dtype) {
    static const int bytes[] = {[TMAP_U8] = 1, [TMAP_U16] = 2, [TMAP_U32] = 4, [TMAP_I32] = 4, [TMAP_U64] = 8,
                                [TMAP_I64] = 8, [TMAP_F16] = 2, [TMAP_F32] = 4, [TMAP_F64] = 8, [TMAP_BF16] = 2};
    return dtype >= 0 && dtype < (int)ARRAY_LEN(bytes) ? bytes[dtype] : 0;
}

/* PTX's .elemtype codes: u8 0, u16 1, u32 2, s32 3, u64 4, s64 5, f16 6,
 * f32 7, f32.ftz 8, f64 9, bf16 10 */
static const int ptx_elemtype[] = {[TMAP_U8] = 0, [TMAP_U16] = 1, [TMAP_U32] = 2, [TMAP_I32] = 3, [TMAP_U64] = 4,
                                   [TMAP_I64] = 5, [TMAP_F16] = 6, [TMAP_F32] = 7, [TMAP_F64] = 9, [TMAP_BF16] = 10};

int tmap_ptx_elemtype(int dtype) { return tmap_dtype_bytes(dtype) ? ptx_elemtype[dtype] : -1; }

int tmap_dtype_of_ptx(int code) {
    for (int d = 0; d < (int)ARRAY_LEN(ptx_elemtype); d++)
        if (tmap_dtype_bytes(d) && ptx_elemtype[d] == code) return d;
    return -1;
}

bool tmap_box(ElemType e, int rank, const int32_t *block, TmapBox *out) {
    if (rank != 2 || tmap_dtype(e) < 0) return false;
    int eb = elem_bytes(e), inner_bytes = block[1] * eb;
    if (inner_bytes < 32 || block[0] > 256) return false;
    out->swizzle = inner_bytes >= 128 ? 128 : inner_bytes;
    out->inner = out->swizzle / eb;
    out->n_boxes = block[1] / out->inner;
    return true;
}

/* the layout of the 128 bytes (little-endian fields):
 *   0 magic "tricTMAP"   8 address   16 dims[5] u32   36 strides[4] u64
 *   68 box[5] u32   88 rank   89 dtype   90 swizzle / 16   91 fill_nan */
enum { AT_ADDR = 8, AT_DIMS = 16, AT_STRIDES = 36, AT_BOX = 68, AT_RANK = 88, AT_DTYPE, AT_SWZ, AT_FILL };

void tmap_encode(const TmapFields *f, uint8_t out[TMAP_BYTES]) {
    memset(out, 0, TMAP_BYTES);
    memcpy(out, tmap_magic, sizeof tmap_magic);
    memcpy(out + AT_ADDR, &f->address, 8);
    memcpy(out + AT_DIMS, f->dims, sizeof f->dims);
    memcpy(out + AT_STRIDES, f->strides, sizeof f->strides);
    memcpy(out + AT_BOX, f->box, sizeof f->box);
    out[AT_RANK] = (uint8_t)f->rank;
    out[AT_DTYPE] = (uint8_t)f->dtype;
    out[AT_SWZ] = (uint8_t)(f->swizzle / 16);
    out[AT_FILL] = f->fill_nan;
}

bool tmap_decode(const uint8_t in[TMAP_BYTES], TmapFields *f, const char **why) {
    memset(f, 0, sizeof *f);
    if (memcmp(in, tmap_magic, sizeof tmap_magic)) {
        *why = "not a tensor map (tric's encoding)";
        return false;
    }
    memcpy(&f->address, in + AT_ADDR, 8);
    memcpy(f->dims, in + AT_DIMS, sizeof f->dims);
    memcpy(f->strides, in + AT_STRIDES, sizeof f->strides);
    memcpy(f->box, in + AT_BOX, sizeof f->box);
    f->rank = in[AT_RANK];
    f->dtype = in[AT_DTYPE];
    f->swizzle = in[AT_SWZ] * 16;
    f->fill_nan = in[AT_FILL] != 0;
    *why = f->rank < 1 || f->rank > TMAP_MAX_RANK    ? "a tensor map's rank out of range"
           : !tmap_dtype_bytes(f->dtype)               ? "a tensor map's data type unknown"
           : f->swizzle != 0 && f->swizzle != 32 && f->swizzle != 64 && f->swizzle != 128 ? "a tensor map's swizzle unknown"
                                                                                        : NULL;
    for (int d = 0; d < f->rank && !*why; d++)
        if (!f->box[d] || f->box[d] > 256) *why = "a tensor map's box dims must be 1 to 256";
    return !*why;
}
