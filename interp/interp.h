/* interp: a CPU interpreter for the tile IR, so every stage of the
 * pipeline can be run (and compared) without a GPU.
 *
 *   interp.c   interp_run      executes an IrFunc program by program over a grid
 *   scalar.c   interp_elem_*   one element of one op, with the GPU's semantics
 *   args.c     interp_setup    the --args mini-language: host buffers, scalars, grid
 *   check.c    interp_check    outputs against a test block's `# check:` references
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
    bool opaque;         /* bytes that hold host addresses (a tensor map): the
                            same launch on another setup differs, so runs do
                            not compare or print it */
    bool read_only;      /* writes into it are errors (a read-only host array) */
} InterpBuffer;

struct InterpLaunch;
/* Runs inline assembly for the interpreter (the simulator's sim_inline_asm
 * is one): the asm `text` (with $N placeholders) once per instance, n
 * instances, instance i reading its input registers in[i * n_in ..] and
 * writing its outputs to out[i * n_out ..]; letters[] names each asm
 * operand's register class (ir/asm.c: outputs first); a register's bits
 * are low-aligned in its slot. Memory is l's buffers. False with a
 * message (no location) in *err. */
typedef bool (*InterpAsmFn)(const char *text, const char *letters, uint32_t n_out, uint32_t n_in, const uint64_t *in,
                            uint64_t *out, uint32_t n, const struct InterpLaunch *l, Buf *err);

typedef struct InterpLaunch {
    uint32_t grid[3];                /* programs along x, y, z (0 counts as 1) */
    const uint64_t *args;            /* one slot per fn->params[i], in order */
    uint32_t n_args;
    const InterpBuffer *buffers;
    uint32_t n_buffers;
    uint64_t max_loop_iters;         /* per loop execution; 0 = 1 << 26 */
    Buf *print_out;                  /* where print ops write their lines (Triton's
                                        device_print format); NULL = nowhere */
    InterpAsmFn run_asm;             /* how inline_asm runs; NULL: it cannot (an error
                                        at the op) */
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
 * in [-1, 1); integers in [-100, 100), [0, 200) unsigned, bools 0 / 1),
 * randn(shape, dt), randint(lo, hi, shape, dt), randsign(shape, dt),
 * zeros / ones / empty (NaN for floats, 0xAB bytes otherwise) (shape, dt),
 * full(shape, value, dt), arange(n, dt), as test/gpu/run_kernels.py makes
 * them; then the expression language of the references below. */
typedef struct InterpSetup {
    uint64_t *args;
    uint32_t n_args;
    InterpBuffer *buffers;
    uint32_t n_buffers;
    uint32_t grid[3];
    /* every name of the args text with the value the kernel saw (a buffer
     * rounded to its element type, empty() as zeros; scalars as written),
     * for interp_eval and interp_check */
    const struct InterpNames *names;
} InterpSetup;

/* Evaluates args_text (and grid_text, "(cdiv(n, 256), 1, 1)" or "4,2",
 * when not NULL) for fn's parameters, with random data from `seed`.
 * Everything is allocated in arena a. On a mistake: false, message in *err. */
bool interp_setup(Arena *a, IrFunc *fn, const char *args_text, const char *grid_text, uint64_t seed,
                  InterpSetup *out, Buf *err);
/* "name: f32[1024] = 0.5 -0.25 ... (first 16)  sum 12.5  fnv 0x..." */
void interp_print_buffer(Buf *out, const InterpBuffer *b);

/* ---- references (args.c, check.c): the kernels' `# check:` lines ----
 * The same language over the names of a setup, with numpy's semantics:
 * bools, int64 (exact, wrapping) and float64 values promoted as numpy
 * does, broadcasting, x[:, None], x[:, :N], x.T, x.sum(axis=0),
 * x.astype(dt), np.where/clip/trunc/fmod/maximum/minimum/isnan/isposinf/
 * isneginf/abs/exp/exp2/log/log2/sqrt/rint/ldexp/arange, wrap(x, dt),
 * comparisons, ** // % & | ^ << >> ~, x @ y (np.matmul, np.dot). See
 * doc/interp.md. */
/* Also numpy's reductions (sum/prod/max/min/argmax/argmin/mean/all/any,
 * axis= an int or None, keepdims=), cumsum/cumprod, np.UFUNC.reduce,
 * np.flip/concatenate/stack and reshape(-1), with numpy's result kinds,
 * NaN rules and float summation order. */
#define INTERP_MAX_DIMS 8
typedef struct InterpArray {
    bool is_float, is_bool;          /* else int64 */
    int ndim;                        /* 0: a number */
    int64_t shape[INTERP_MAX_DIMS];
    int64_t n;
    const double *f;                 /* is_float */
    const int64_t *i;                /* otherwise */
} InterpArray;

/* Evaluates one expression over s's names into *out (memory from a). On a
 * mistake: false, "tric: error: check: ..." in *err. */
bool interp_eval(Arena *a, const InterpSetup *s, const char *text, InterpArray *out, Buf *err);
/* Compares the outputs in s's buffers (after a run) with check_text,
 * "out == x + y; h == x * 3", as test/gpu/run_kernels.py does: integers
 * exactly after wrapping the reference to the output's type; floats by
 * relative L2 error <= tol (tol_text: "1e-5", or per output "h: 1e-3;
 * b: 8e-3"; default by type: fp16 1e-2, bf16 2e-2, fp32 1e-5, fp64 1e-12),
 * no NaN where the reference has none, infinities matched exactly. True
 * when every check holds; otherwise one line per failing output appended
 * to *err ("out: 3 of 1024 differ; first at (5,): got 1, expected 2"). */
bool interp_check(Arena *a, const InterpSetup *s, const char *check_text, const char *tol_text, Buf *err);

/* f32 sqrt exactly as the PTX that ptxgen emits computes it (sqrt.approx.ftz,
 * within its error): opt/fold folds through it too */
float interp_sqrt_f32(float x);
/* The ops whose PTX is an ir/mathfn_op.c program (f64 exp, exp2, log, log2;
 * log, log2, cos, sin below f64): interp_math_prog builds opc's program for
 * operands of type e (false if it has none), interp_elem_math runs it on
 * one element, so the interpreter and folding compute the GPU's bits. */
struct MathProg;
bool interp_math_prog(struct MathProg *p, Opcode opc, ElemType e);
uint64_t interp_elem_math(const struct MathProg *p, ElemType e, uint64_t a);

#endif
