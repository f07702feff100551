/* ldmatrix.sync.aligned.m8n8.{x1,x2,x4}[.trans].shared[::cta].b16 d, [a]:
 * a warp loads 1, 2 or 4 matrices of 8x8 16-bit values from shared memory.
 * Lane 8j + i supplies the address of row i of matrix j (16 contiguous
 * bytes, 16-byte aligned; lanes past 8N supply nothing). Lane l receives in
 * its register j the two values at row l / 4, columns 2 (l % 4) and
 * 2 (l % 4) + 1 of matrix j (the first in the low half); with .trans the
 * values at rows 2 (l % 4) and 2 (l % 4) + 1, column l / 4.
 * stmatrix.sync.aligned.m8n8.{x1,x2,x4}[.trans].shared[::cta].b16 [a], s
 * (sm_90) is the same the other way: the lanes' registers go to the rows.
 * Decoding and the per-warp semantics live here; exec.c gathers the row
 * addresses. */
#include "simops.h"

#include <string.h>

bool sim_ldmatrix_part(SimIns *in, const char *part) {
    if (!strcmp(part, "aligned") || !strcmp(part, "m8n8")) return true;
    if (!strcmp(part, "x1") || !strcmp(part, "x2") || !strcmp(part, "x4")) {
        in->vec = (uint8_t)(part[1] - '0');
        return true;
    }
    if (!strcmp(part, "trans")) {
        in->trans = true;
        return true;
    }
    if (!strcmp(part, "shared::cta")) {
        in->mods |= SM_SHARED;
        return true;
    }
    return false;
}

/* how many of the opcode's '.'-separated parts are `part` */
static int count_part(const char *name, const char *part) {
    int n = 0;
    size_t len = strlen(part);
    for (const char *p = strchr(name, '.'); p; p = strchr(p + 1, '.'))
        if (!strncmp(p + 1, part, len) && (p[1 + len] == '.' || !p[1 + len])) n++;
    return n;
}

const char *sim_ldmatrix_check(const SimIns *in) {
    bool st = in->op == SO_STMATRIX;
    const char *form = st ? "stmatrix.sync.aligned.m8n8.{x1,x2,x4}[.trans].shared[::cta].b16 is modelled"
                          : "ldmatrix.sync.aligned.m8n8.{x1,x2,x4}[.trans].shared[::cta].b16 is modelled";
    int nx = count_part(in->name, "x1") + count_part(in->name, "x2") + count_part(in->name, "x4");
    int nsh = count_part(in->name, "shared") + count_part(in->name, "shared::cta");
    if (in->ty[0] != ST_B16 || in->ty[1] || nx != 1 || nsh != 1 || count_part(in->name, "sync") != 1 ||
        count_part(in->name, "aligned") != 1 || count_part(in->name, "m8n8") != 1 ||
        count_part(in->name, "trans") > 1 || (in->mods & ~(SM_SYNC | SM_SHARED)))
        return form;
    if (in->n_opd != 2) return st ? "takes 2 operands: [address], {s...}" : "takes 2 operands: {d...}, [address]";
    const SimOpd *d = &in->opd[st ? 1 : 0];
    bool one = d->kind == SD_REG && d->n <= 1 && in->vec == 1;
    if (!one && (d->kind != SD_VEC || d->n != in->vec)) return "needs a vector of one register per matrix";
    if (in->opd[st ? 0 : 1].kind != SD_MEM) return "needs a shared-memory address";
    return NULL;
}

/* where lane l's half h of its register for a matrix lies in it */
static void frag_at(bool trans, int l, int h, int *row, int *col) {
    *row = trans ? 2 * (l % 4) + h : l / 4;
    *col = trans ? l / 4 : 2 * (l % 4) + h;
}

void sim_stmatrix_lanes(const SimIns *in, uint8_t *const rows[4][8], const uint32_t in_regs[32][4]) {
    for (int l = 0; l < 32; l++)
        for (int j = 0; j < in->vec; j++)
            for (int h = 0; h < 2; h++) {
                int row, col;
                frag_at(in->trans, l, h, &row, &col);
                uint8_t *p = rows[j][row] + 2 * col;
                uint32_t v = in_regs[l][j] >> (16 * h);
                p[0] = (uint8_t)v;
                p[1] = (uint8_t)(v >> 8);
            }
}

void sim_ldmatrix_lanes(const SimIns *in, const uint8_t *const rows[4][8], uint32_t out[32][4]) {
    bool trans = in->trans;
    for (int l = 0; l < 32; l++)
        for (int j = 0; j < in->vec; j++) {
            uint32_t v = 0;
            for (int h = 0; h < 2; h++) {
                int row, col;
                frag_at(trans, l, h, &row, &col);
                const uint8_t *p = rows[j][row] + 2 * col;
                v |= (uint32_t)(p[0] | p[1] << 8) << (16 * h);   /* little-endian, as the GPU */
            }
            out[l][j] = v;
        }
}
