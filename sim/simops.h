/* sim's value semantics (ops.c), used by exec.c. */
#ifndef TRIC_SIM_OPS_H
#define TRIC_SIM_OPS_H

#include "simint.h"
#include "../ir/tmap.h"

typedef enum SimStatus { SIM_OK, SIM_BAD, SIM_DIV_ZERO } SimStatus;

uint64_t sim_trunc(uint64_t v, int bits);
uint64_t sim_sext(uint64_t v, int bits);
uint64_t sim_extend(SimTy t, uint64_t v);        /* low bits of t, extended by its kind */
double sim_float(SimTy t, uint64_t v);
uint64_t sim_round(SimTy t, double d, bool rz);
SimStatus sim_setp(const SimIns *in, uint64_t a, uint64_t b, uint64_t *r);
SimStatus sim_cvt(const SimIns *in, uint64_t a, uint64_t *r);
/* every op that computes a value from v[1..3] (v[0] unused): SIM_BAD for
 * an op x type x modifier combination that is not modelled */
SimStatus sim_alu(const SimIns *in, const uint64_t *v, uint64_t *r);
/* atom/red: what memory holds after the operation on `old` with operand b
 * (cas: compare with b, swap in c); SIM_BAD for a combination PTX lacks */
SimStatus sim_atom(const SimIns *in, uint64_t old, uint64_t b, uint64_t c, uint64_t *r);

/* ldmatrix.c: ldmatrix's and stmatrix's opcode parts other than types,
 * .sync and .shared (false: not one of them); the instruction's shape
 * (NULL if fine, else what is wrong); the warp's results out[lane][matrix]
 * from the 16 bytes at rows[matrix][row], each matrix row's address from
 * lane 8 matrix + row; stmatrix: the 16 bytes at rows[matrix][row] from
 * the lanes' registers in[lane][matrix], the same map the other way */
bool sim_ldmatrix_part(SimIns *in, const char *part);
const char *sim_ldmatrix_check(const SimIns *in);
void sim_ldmatrix_lanes(const SimIns *in, const uint8_t *const rows[4][8], uint32_t out[32][4]);
void sim_stmatrix_lanes(const SimIns *in, uint8_t *const rows[4][8], const uint32_t in_regs[32][4]);

/* mma.c: mma.sync and cvt to tf32. The mma type names ("f16", "e4m3",
 * ...); whether ptxas takes a form (K, types of d a b c, .satfinite); the
 * 32-bit registers per lane of operand i (0 d, 1 a, 2 b, 3 c); one warp's
 * mma: frag[i][lane][register] of a, b, c in, of d out. */
SimMmaTy sim_mma_type(const char *name);
const char *sim_mma_type_name(SimMmaTy t);
bool sim_mma_form_ok(int k, const uint8_t ty[4], bool satfinite);
int sim_mma_regs(const SimIns *in, int i);
void sim_mma(const SimIns *in, uint32_t frag[4][32][4]);
SimStatus sim_cvt_tf32(const SimIns *in, uint64_t a, uint64_t *r);

/* wgmma.c: the shared address of element (x, k) of a wgmma operand (x
 * along M or N) in the canonical layout its descriptor describes (false
 * with *why for a layout not modelled); one warp's mma fragment registers
 * of A (which 1: rows 0..15 x K) or B (2: K x cols 0..7), e elements per
 * register, built from get(ud, row, col)'s element bits */
typedef uint64_t (*SimElemFn)(void *ud, int row, int col);
bool sim_wgmma_addr(uint64_t desc, bool mn_major, int eb, int x, int k, uint32_t *addr, const char **why);
void sim_wgmma_frag(int which, int e, int nregs, SimElemFn get, void *ud, uint32_t frag[32][4]);

/* tma.c: mbarriers and TMA tensor copies. An mbarrier's state: the
 * arrivals each phase expects, those its current phase still waits for,
 * the transaction count (bytes announced by expect_tx minus bytes that
 * copies completed; below 0 while a copy has completed before its
 * expect_tx), the current phase (phases completed; its parity is phase &
 * 1), and the PTX line of its init. Each update returns NULL, or what PTX
 * leaves undefined about it; a phase completes when no arrival is
 * pending and the transaction count is 0. */
typedef struct SimMbar {
    uint32_t expected, pending;
    int32_t tx;
    uint64_t phase;
    int init_line;
} SimMbar;
const char *sim_mbar_init(SimMbar *b, uint64_t count, int line);
const char *sim_mbar_expect_tx(SimMbar *b, uint64_t bytes);
const char *sim_mbar_arrive(SimMbar *b);
const char *sim_mbar_complete_tx(SimMbar *b, uint64_t bytes);
/* where the byte at shared address addr goes under an S-byte swizzle
 * (32, 64, 128; 0: none): address bits 4.. XORed with bits 7..
 * (log2(S / 16) of each), as TMA writes and wgmma reads */
uint32_t sim_swizzle(uint32_t span, uint32_t addr);
/* NULL if a .2d copy can use the map as the driver would have encoded it
 * (cuTensorMapEncodeTiled's rules) and the model covers it; else why not */
const char *sim_tma_check(const TmapFields *f);
/* the bits an out-of-bounds element reads: 0, or with fill_nan the NaN of
 * the map's float type as the interpreter writes it (false with *why for
 * an integer type, which the driver refuses) */
bool sim_tma_fill(const TmapFields *f, uint64_t *fill, const char **why);
/* tensormap.replace's fields: the PTX name, whether it is one per
 * dimension (an ord operand), its width in bits */
typedef struct SimTmapFieldInfo {
    const char *name;
    bool per_dim;
    int bits;
} SimTmapFieldInfo;
extern const SimTmapFieldInfo sim_tmap_field_info[STF_COUNT];
/* the fields of 128 bytes of shared memory that hold a map being built:
 * tric's encoding (finished or not), or all zeros, the map with no field
 * set; false for other bytes */
bool sim_tmap_fields(const uint8_t raw[TMAP_BYTES], TmapFields *f);
/* replace's value v of field (of dim ord, innermost 0) into f, as PTX
 * codes it; NULL, or why no map holds it */
const char *sim_tmap_replace(TmapFields *f, SimTmapField field, int ord, uint64_t v);

#endif
