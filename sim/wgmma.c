/* wgmma's operands: where an element of a shared-memory matrix lives, as
 * the PTX ISA defines the canonical layouts ("Shared Memory Matrix Layout"
 * of wgmma; doc/ptx.md, "Matrix descriptor"), and the mma.sync fragments
 * a warp's part of a wgmma is computed with (exec.c: one warp's 16 rows,
 * per n8 tile, by sim_mma, so wgmma and mma.sync share their arithmetic).
 *
 * A descriptor (64 bits): start address >> 4 in bits 0-13, LBO >> 4 in
 * 16-29, SBO >> 4 in 32-45, base offset in 49-51, the swizzle in 62-63
 * (0 none, 1 128 B, 2 64 B, 3 32 B). With S the swizzle span in bytes and
 * E = S / eb elements of eb bytes, element (x, k) of an operand (x along
 * M or N, k along K) is at start +
 *   K-major:   (x % 8) S + (x / 8) SBO + k eb              (k within the instruction's K)
 *   MN-major:  (x % E) eb + (x / E) LBO + (k % 8) S + (k / 8) SBO
 * and the swizzle then XORs address bits 4 .. 4 + log2(S / 16) with bits
 * 7 .. 7 + log2(S / 16) (Swizzle<log2(S/16), 4, 3> on the address; the
 * base offset 0 means the pattern repeats at absolute 1024-byte
 * boundaries, the only case modelled). The unswizzled "interleave" mode
 * (0) is not modelled. */
#include "simops.h"

#include <string.h>

bool sim_wgmma_addr(uint64_t desc, bool mn_major, int eb, int x, int k, uint32_t *addr, const char **why) {
    uint32_t start = (uint32_t)(desc & 0x3FFF) << 4, lbo = (uint32_t)(desc >> 16 & 0x3FFF) << 4;
    uint32_t sbo = (uint32_t)(desc >> 32 & 0x3FFF) << 4;
    int mode = (int)(desc >> 62), base = (int)(desc >> 49 & 7);
    if (mode == 0 || base) {
        *why = mode == 0 ? "the unswizzled (interleave) layout is not modelled" : "a base offset is not modelled";
        return false;
    }
    uint32_t s = mode == 1 ? 128 : mode == 2 ? 64 : 32, e = s / (uint32_t)eb;
    uint32_t off = mn_major ? ((uint32_t)x % e) * (uint32_t)eb + ((uint32_t)x / e) * lbo + ((uint32_t)k % 8) * s +
                                  ((uint32_t)k / 8) * sbo
                            : ((uint32_t)x % 8) * s + ((uint32_t)x / 8) * sbo + (uint32_t)k * (uint32_t)eb;
    *addr = sim_swizzle(s, start + off);
    return true;
}

/* mma.sync's fragment positions (sim_mma's): register r of lane l holds
 * element j (e per register) of A at row g + 8 (r % 2), col (r / 2) 4e +
 * t e + j, of B at row r 4e + t e + j, col g (g = l / 4, t = l % 4). */
void sim_wgmma_frag(int which, int e, int nregs, SimElemFn get, void *ud, uint32_t frag[32][4]) {
    int bits = 32 / e;
    for (int l = 0; l < 32; l++)
        for (int r = 0; r < nregs; r++) {
            uint32_t w = 0;
            for (int j = 0; j < e; j++) {
                int row, col;
                if (which == 1) row = l / 4 + 8 * (r % 2), col = (r / 2) * 4 * e + (l % 4) * e + j;
                else row = r * 4 * e + (l % 4) * e + j, col = l / 4;
                w |= (uint32_t)(get(ud, row, col) & ((1ull << bits) - 1)) << (bits * j);
            }
            frag[l][r] = w;
        }
}
