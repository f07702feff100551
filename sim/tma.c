/* mbarriers and TMA tensor copies (cp.async.bulk.tensor): an mbarrier's
 * state machine, what a copy reads from its tensor map, and what
 * tensormap.replace writes into a map the kernel builds. exec.c checks
 * the addresses and moves the bytes.
 *
 * An mbarrier (PTX ISA, "Parallel Synchronization and Communication
 * Instructions: mbarrier") counts arrivals and transaction bytes per
 * phase: init sets the expected arrivals, expect_tx raises the transaction
 * count, a copy's complete_tx lowers it, and the phase completes once every
 * expected arrival has come and the count is back at 0; then the next
 * phase starts, expecting the same arrivals. try_wait.parity asks whether
 * the phase of a parity has completed. PTX's limits: at most 2^20 - 1
 * expected arrivals and announced bytes, a transaction count within
 * +-(2^20 - 1). */
#include "simops.h"

#include <math.h>
#include <string.h>

#define MBAR_MAX ((1 << 20) - 1)

static void complete_if_done(SimMbar *b) {
    if (b->pending || b->tx) return;
    b->phase++;
    b->pending = b->expected;
}

const char *sim_mbar_init(SimMbar *b, uint64_t count, int line) {
    if (count < 1 || count > MBAR_MAX) return "expects 1 to 2^20 - 1 arrivals";
    *b = (SimMbar){(uint32_t)count, (uint32_t)count, 0, 0, line};
    return NULL;
}

const char *sim_mbar_expect_tx(SimMbar *b, uint64_t bytes) {
    if (bytes > MBAR_MAX) return "announces more than 2^20 - 1 transaction bytes";
    if (b->tx + (int64_t)bytes > MBAR_MAX) return "raises the transaction count past 2^20 - 1 (undefined)";
    b->tx += (int32_t)bytes;
    return NULL;
}

/* An arrival beyond the expected ones would belong to no phase: the
 * current one still waits for its bytes only. */
const char *sim_mbar_arrive(SimMbar *b) {
    if (!b->pending) return "arrives when its current phase expects no more arrivals (undefined)";
    b->pending--;
    complete_if_done(b);
    return NULL;
}

const char *sim_mbar_complete_tx(SimMbar *b, uint64_t bytes) {
    if (b->tx - (int64_t)bytes < -MBAR_MAX) return "lowers the transaction count below -(2^20 - 1) (undefined)";
    b->tx -= (int32_t)bytes;
    complete_if_done(b);
    return NULL;
}

uint32_t sim_swizzle(uint32_t span, uint32_t addr) {
    return span ? addr ^ (((addr >> 7) & (span / 16 - 1)) << 4) : addr;
}

/* The driver refuses a map whose address or strides are not multiples of
 * 16 bytes, or whose box rows are not; a swizzled box row may be shorter
 * than the span for the driver, but where its bytes then land is not
 * modelled (the compiler's boxes are one span wide: ir/tmap.h). */
const char *sim_tma_check(const TmapFields *f) {
    uint32_t row = f->box[0] * (uint32_t)tmap_dtype_bytes(f->dtype);
    if (f->address % 16) return "its global address is not 16-byte aligned";
    if (f->strides[0] % 16) return "its row stride is not a multiple of 16 bytes";
    if (row % 16) return "its box rows are not a multiple of 16 bytes";
    if (f->swizzle && row != (uint32_t)f->swizzle) return "a swizzled box whose rows are not the swizzle span is not modelled";
    return NULL;
}

bool sim_tma_fill(const TmapFields *f, uint64_t *fill, const char **why) {
    *fill = 0;
    if (!f->fill_nan) return true;
    switch (f->dtype) {
    case TMAP_F16: *fill = interp_slot_from_double(ET_F16, NAN); return true;
    case TMAP_BF16: *fill = interp_slot_from_double(ET_BF16, NAN); return true;
    case TMAP_F32: *fill = interp_slot_from_double(ET_F32, NAN); return true;
    case TMAP_F64: *fill = interp_slot_from_double(ET_F64, NAN); return true;
    default: *why = "fills with NaN, but its data type is not a float one (the driver refuses that)"; return false;
    }
}

/* ---- tensor maps made in the kernel ----
 * tensormap.replace writes one field of a map in shared memory; here the
 * 128 bytes hold tric's encoding, edited through TmapFields. PTX's codes
 * and units are checked as the hardware would need them: a value no map
 * can hold is an error, not a silently different map. */

const SimTmapFieldInfo sim_tmap_field_info[STF_COUNT] = {
    [STF_GLOBAL_ADDRESS] = {"global_address", false, 64}, [STF_RANK] = {"rank", false, 32},
    [STF_BOX_DIM] = {"box_dim", true, 32},                [STF_GLOBAL_DIM] = {"global_dim", true, 32},
    [STF_GLOBAL_STRIDE] = {"global_stride", true, 64},    [STF_ELEMENT_STRIDE] = {"element_stride", true, 32},
    [STF_ELEMTYPE] = {"elemtype", false, 32},             [STF_INTERLEAVE_LAYOUT] = {"interleave_layout", false, 32},
    [STF_SWIZZLE_MODE] = {"swizzle_mode", false, 32},     [STF_FILL_MODE] = {"fill_mode", false, 32},
};

/* An encoding is what tmap_encode writes, finished or not (tmap_decode
 * fills the fields even when it refuses them), so re-encoding gives the
 * same bytes back; zero bytes are the map warp 0 zeroed, no field set. */
bool sim_tmap_fields(const uint8_t raw[TMAP_BYTES], TmapFields *f) {
    static const uint8_t zero[TMAP_BYTES];
    uint8_t again[TMAP_BYTES];
    const char *why;
    tmap_decode(raw, f, &why);
    tmap_encode(f, again);
    if (!memcmp(again, raw, TMAP_BYTES)) return true;
    memset(f, 0, sizeof *f);
    return !memcmp(raw, zero, TMAP_BYTES);
}

const char *sim_tmap_replace(TmapFields *f, SimTmapField field, int ord, uint64_t v) {
    int dtype;
    switch (field) {
    case STF_GLOBAL_ADDRESS: f->address = v; return NULL;
    case STF_RANK:
        if (v >= TMAP_MAX_RANK) return "the field is the rank - 1, 0 to 4";
        f->rank = (int)v + 1;
        return NULL;
    case STF_BOX_DIM:
        if (v < 1 || v > 256) return "box dims are 1 to 256";
        f->box[ord] = (uint32_t)v;
        return NULL;
    case STF_GLOBAL_DIM:
        if (!v) return "a tensor's dims are positive";
        f->dims[ord] = (uint32_t)v;
        return NULL;
    case STF_GLOBAL_STRIDE:   /* of dim ord + 1, in bytes */
        if (v % 16 || v >> 40) return "a stride is a multiple of 16 bytes below 2^40";
        f->strides[ord] = v;
        return NULL;
    case STF_ELEMENT_STRIDE: return v == 1 ? NULL : "element strides other than 1 are not modelled";
    case STF_ELEMTYPE:
        if (v > 15 || (dtype = tmap_dtype_of_ptx((int)v)) < 0)
            return "the codes modelled are u8 0, u16 1, u32 2, s32 3, u64 4, s64 5, f16 6, f32 7, f64 9, bf16 10";
        f->dtype = dtype;
        return NULL;
    case STF_INTERLEAVE_LAYOUT: return v == 0 ? NULL : "interleaved layouts are not modelled";
    case STF_SWIZZLE_MODE:
        if (v > 3) return "the modes modelled are 0 (none), 1 (32B), 2 (64B) and 3 (128B)";
        f->swizzle = v ? 16 << v : 0;
        return NULL;
    case STF_FILL_MODE:
        if (v > 1) return "the modes are 0 (zeros) and 1 (NaN)";
        f->fill_nan = v == 1;
        return NULL;
    default: return "is not a field";
    }
}
