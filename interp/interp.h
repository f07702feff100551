/* interp: a CPU interpreter for the tile IR, so every stage of the
 * pipeline can be run (and compared) without a GPU.
 *
 *   interp.c   interp_run      executes an IrFunc program by program over a grid
 *   scalar.c   interp_elem_*   one element of one op, with the GPU's semantics
 *   args.c     interp_setup    the --args mini-language: host buffers, scalars, grid
 *
 * Values are arrays of 64-bit slots, one per element, row-major (a scalar is
 * one slot). A slot holds an integer sign- or zero-extended from its width,
 * i1 as 0/1, a pointer as a host address, a float as its bits (f16/bf16 in
 * the low 16, f32 in the low 32, f64 all 64). Layouts are ignored
 * (convert_layout is the identity), except that a reduce combines in the
 * order its operand's layout defines (layout_reduce_levels). See doc/interp.md for the semantics and
 * the error bounds of the approximate math.
 */
#ifndef TRIC_INTERP_H
#define TRIC_INTERP_H

#include "../ir/ir.h"

/* A host buffer that loads and stores may touch. */
typedef struct InterpBuffer {
    void *base;
    size_t bytes;
    const char *name;
    ElemType elem;       /* what it holds (for printing); ET_COUNT = unknown */
} InterpBuffer;

typedef struct InterpLaunch {
    uint32_t grid[3];                /* programs along x, y, z (0 counts as 1) */
    const uint64_t *args;            /* one slot per fn->params[i], in order */
    uint32_t n_args;
    const InterpBuffer *buffers;
    uint32_t n_buffers;
    uint64_t max_loop_iters;         /* per loop execution; 0 = 1 << 26 */
} InterpLaunch;

/* Runs every program of the grid in order (x fastest). Returns true on
 * success; otherwise appends one located error (file:line:col: error: ...,
 * source line, caret) naming the program to *err and returns false. Memory
 * comes from a private arena, freed before returning. */
bool interp_run(IrFunc *fn, const InterpLaunch *l, Buf *err);

/* ---- scalar.c: element semantics (also used by tests) ---- */
/* The slot of a double as element type e (floats rounded to nearest even,
 * NaN canonical; integers truncated toward zero and wrapped). */
uint64_t interp_slot_from_double(ElemType e, double v);
/* The value of a slot as a double (integers exactly up to 2^53). */
double interp_slot_to_double(ElemType e, uint64_t slot);
/* An integer slot in canonical form: sign- or zero-extended from e's width. */
uint64_t interp_int_norm(ElemType e, uint64_t v);

/* ---- args.c: the --args mini-language ----
 *   x = rand(1024, fp32); y = rand((M, N), fp16) * 8; out = zeros(1024, fp32); n = 1000
 * One assignment per kernel parameter, in parameter order; the names only
 * make the text readable and let later expressions (and the grid) refer to
 * them, before or after their assignment. Buffers: rand(shape, dt) (uniform
 * in [-1, 1)), randn(shape, dt), randint(lo, hi, shape, dt), randsign(shape, dt),
 * zeros / ones / empty (0xAB bytes) (shape, dt), full(shape, value, dt),
 * arange(n, dt); arithmetic + - * / // % ** << >> on arrays and numbers;
 * cdiv(a, b); np.exp/exp2/log/log2/abs/sqrt/rint/ldexp/array/inf/nan/pi and
 * .astype(np.int64), enough for the kernels' test blocks. */
typedef struct InterpSetup {
    uint64_t *args;
    uint32_t n_args;
    InterpBuffer *buffers;
    uint32_t n_buffers;
    uint32_t grid[3];
} InterpSetup;

/* Evaluates args_text (and grid_text, "(cdiv(n, 256), 1, 1)" or "4,2",
 * when not NULL) for fn's parameters, with random data from `seed`.
 * Everything is allocated in arena a. On a mistake: false, message in *err. */
bool interp_setup(Arena *a, IrFunc *fn, const char *args_text, const char *grid_text, uint64_t seed,
                  InterpSetup *out, Buf *err);
/* "name: f32[1024] = 0.5 -0.25 ... (first 16)  sum 12.5  fnv 0x..." */
void interp_print_buffer(Buf *out, const InterpBuffer *b);

#endif
