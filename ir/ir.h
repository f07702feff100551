/* The tile IR: types, values, ops, blocks; the builder, the text form
 * (printer and parser, inverses), the verifier, and layouts.
 *
 *   ir.c       ir_*        functions, values, ops, blocks, the builder
 *   text.c     ir_print, ir_parse      text form (round-trips; doc/ir.md)
 *   verify.c   ir_verify               structural and type checks
 *   report.c   ir_load_report          what the passes decided for each load
 *   layout.c   layout_*                linear layouts
 *
 * Values are SSA, named by small integers (ValId) indexing fn->vals. Control
 * flow is structured: for/if/while own regions (blocks) whose arguments are
 * SSA values, and yield/condition pass values out. No CFG, no phis.
 */
#ifndef TRIC_IR_H
#define TRIC_IR_H

#include "../base/base.h"

#define IR_MAX_RANK 5
#define IR_MAX_NUMEL (1 << 20)   /* elements of a tile (Triton's limit) */
#define IR_MAX_SHARED (1 << 30)  /* bytes of shared memory the IR may place (far beyond any GPU's) */

/* ---- element types (types.def) ---- */
typedef enum ElemType {
#define X(e, ir, tt, bits, cls) e,
#include "types.def"
#undef X
    ET_COUNT
} ElemType;

typedef enum ElemClass { EC_BOOL, EC_SINT, EC_UINT, EC_FLOAT, EC_PTR } ElemClass;

const char *elem_name(ElemType e);          /* IR spelling: "f32" */
const char *elem_triton_name(ElemType e);   /* signature spelling: "fp32" */
int elem_bits(ElemType e);                  /* i1 -> 1, ptr -> 64 */
int elem_bytes(ElemType e);                 /* i1 -> 1 (stored as a byte) */
ElemClass elem_class(ElemType e);
bool elem_is_float(ElemType e);
bool elem_is_int(ElemType e);               /* bool, signed, unsigned */
bool elem_is_signed(ElemType e);
ElemType elem_from_name(const char *s, size_t n);   /* IR name; ET_COUNT if none */
/* Float element values (e a float type). elem_round: x rounded to e's
 * precision and range, to nearest, ties to even, subnormals kept; beyond the
 * largest finite value inf, but both fp8 formats saturate there (inf too),
 * as PTX's cvt.rn.satfinite that Triton uses does. One rounding from the
 * double, never through f32. elem_float_bits: the bit pattern of
 * elem_round(e, x), NaN as the canonical quiet NaN (0x7E00, 0x7FC0,
 * 0x7FC00000, ...; 0x7F for both fp8 formats); elem_float_from_bits
 * its inverse (any NaN pattern gives NAN). */
double elem_round(ElemType e, double x);
/* the same, or toward zero (an overflow then gives the largest finite value) */
double elem_round_toward(ElemType e, double x, bool toward_zero);
/* a % b of floats (Triton's: fmod, but +0 for zero and a for infinite b) */
double elem_frem(double a, double b);
uint64_t elem_float_bits(ElemType e, double x);
double elem_float_from_bits(ElemType e, uint64_t bits);
/* a + b (any doubles) rounded once to e, to nearest even: the exact sum's
 * rounding, as dot accumulates (doc/ir.md) */
double elem_round_sum(ElemType e, double a, double b);
/* an f32 (as bits) rounded to tf32 as cvt.rna.tf32.f32 does (doc/ir.md) */
uint32_t elem_tf32_bits(uint32_t f32_bits);

/* ---- types ----
 * A scalar (rank 0) or a tile (rank 1..4, power-of-two dims) of an element
 * type. Pointers: elem == ET_PTR and pointee names what they point to.
 * Types are small values, compared with ir_type_eq. */
typedef struct IrType {
    uint8_t elem;      /* ElemType */
    uint8_t pointee;   /* ElemType, when elem == ET_PTR */
    uint8_t rank;      /* 0 = scalar */
    int32_t shape[IR_MAX_RANK];
} IrType;

IrType ir_scalar(ElemType e);
IrType ir_ptr(ElemType pointee);
IrType ir_tile(IrType scalar, int rank, const int32_t *shape);  /* scalar: elem/pointee */
IrType ir_with_elem(IrType t, IrType scalar);      /* same shape, other element */
IrType ir_elem_of(IrType t);                       /* the scalar type of a tile */
bool ir_type_eq(IrType a, IrType b);
int64_t ir_numel(IrType t);                        /* 1 for scalars */
void ir_type_print(Buf *b, IrType t);              /* "f32", "ptr<f16>", "tile<64x32xf32>" */

/* ---- values ---- */
typedef uint32_t ValId;
#define VAL_NONE 0u     /* vals[0] is reserved: "no value" */

struct IrOp;
struct IrBlock;

typedef struct IrValue {
    IrType type;
    struct IrOp *def;        /* defining op, or NULL for a block argument */
    struct IrBlock *block;   /* for block arguments: the block */
    int32_t layout;          /* index into fn->layouts, -1 = none (scalars) */
    const char *name;        /* optional source name, for readable dumps */
} IrValue;

/* ---- ops (ops.def) ---- */
typedef enum Opcode {
#define X(e, name, nops, nres, nreg, flags) e,
#include "ops.def"
#undef X
    OP_COUNT
} Opcode;

enum { F_PURE = 1, F_ELEMWISE = 2, F_COMMUTES = 4, F_TERM = 8 };

typedef struct OpInfo {
    const char *name;
    int n_operands, n_results, n_regions;   /* -1: variable */
    unsigned flags;
} OpInfo;
extern const OpInfo ir_opinfo[OP_COUNT];   /* constant table, not mutable state */

typedef enum CmpPred { CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE } CmpPred;
typedef enum CacheMod { CACHE_NONE, CACHE_CA, CACHE_CG, CACHE_CS, CACHE_CV, CACHE_WB, CACHE_WT } CacheMod;
typedef enum Evict { EVICT_NONE, EVICT_FIRST, EVICT_LAST } Evict;
typedef enum Rounding { ROUND_DEFAULT, ROUND_RTNE, ROUND_RTZ } Rounding;
/* dot of f32 operands (attr.i): tf32 products (Triton's default), three
 * tf32 products per element (tf32x3), or exact fp32 FMAs (ieee) */
typedef enum DotPrecision { DOT_TF32, DOT_TF32X3, DOT_IEEE, DOT_PRECISION_COUNT } DotPrecision;
enum { LOADF_VOLATILE = 1, LOADF_TMA = 2 };
/* wgmma's attr.flags: A_T / B_T, the slot holds the operand transposed;
 * USE_ACC, a last operand (i1 scalar) says whether acc is added (false:
 * the result is the product alone, wgmma's scale-d) */
enum { WGMMA_A_T = 1, WGMMA_B_T = 2, WGMMA_USE_ACC = 4 };
/* for's attr.flags: FLATTEN, it and the one loop in its body become one
 * loop (tl.range(flatten=True), pass flatten) */
enum { FOR_FLATTEN = 1 };
enum { TMAP_NAN = 1 };                   /* tensormap_create's attr.flags: NaN padding */
enum { ASM_PURE = 1 };                   /* inline_asm's attr.flags: no side effects */

extern const char *const cmp_pred_names[];     /* "eq", "ne", ... */
typedef enum SregKind { SREG_SMID, SREG_GLOBALTIMER, SREG_COUNT } SregKind;   /* sreg's attr.i */
extern const char *const sreg_names[];         /* "smid", "globaltimer" */
extern const char *const cache_mod_names[];    /* "", ".ca", ".cg", ... */
extern const char *const evict_names[];        /* "", "evict_first", "evict_last" */
extern const char *const dot_precision_names[];  /* "tf32", "tf32x3", "ieee" */

/* atomic/atomic_cas: the read-modify-write (attr.i), the memory ordering
 * (attr.i2) and the scope (attr.flags); 0 is Triton's default */
typedef enum AtomicKind { ATOM_ADD, ATOM_MAX, ATOM_MIN, ATOM_AND, ATOM_OR, ATOM_XOR, ATOM_XCHG, ATOM_COUNT } AtomicKind;
typedef enum MemSem { SEM_ACQ_REL, SEM_ACQUIRE, SEM_RELEASE, SEM_RELAXED, SEM_COUNT } MemSem;
typedef enum MemScope { SCOPE_GPU, SCOPE_CTA, SCOPE_SYS, SCOPE_COUNT } MemScope;
extern const char *const atomic_kind_names[];  /* "add", "max", ..., "xchg" */
extern const char *const mem_sem_names[];      /* "acq_rel", "acquire", "release", "relaxed" */
extern const char *const mem_scope_names[];    /* "gpu", "cta", "sys" */

/* Where pass smem (opt/smem.c) put an op's shared memory; set: it has
 * some. off: its first byte in the kernel's shared array. sync: a barrier
 * first, as the bytes' last readers may not be done (reduce, scan). A
 * buffer (local_alloc; mbarrier_alloc has off and slot only) and the
 * scratch of a convert_layout also record how a tile lies there (shaped):
 * rows of 2^lb elements with pad elements after each, or 16-byte chunk c
 * of row r at c ^ ((r >> pp) & (2^mp - 1)) (mp 0: no swizzle); a buffer's
 * slots are `slot` bytes apart. Text: {smem = OFF, sync, slot = B, row =
 * 2^lb, pad = P, swizzle = [2^pp, 2^mp]} (doc/ir.md, "Shared memory"). */
typedef struct IrSmem {
    int32_t off, slot, pad;
    uint8_t set, sync, shaped, lb, pp, mp;
} IrSmem;

typedef struct IrAttr {
    int64_t i, i2;                 /* see ops.def for each op's meaning */
    double f;                      /* float constants */
    int32_t ints[IR_MAX_RANK];     /* per-dim hints */
    uint8_t n_ints;
    uint8_t flags;
    int32_t vec;                   /* load/store: elements per vector access, proven by
                                      pass_layout (0 = not set, treat as 1) */
    const char *str;               /* print: prefix; assert: message; inline_asm: the asm
                                      (arena, NUL-terminated, any bytes but NUL; NULL = "") */
    const char *str2;              /* inline_asm: the constraints */
    IrSmem smem;
} IrAttr;

typedef struct IrOp {
    Opcode opc;
    SrcLoc loc;
    uint32_t n_operands, n_results, n_regions;
    ValId *operands;
    ValId *results;
    struct IrBlock **regions;
    IrAttr attr;
    struct IrOp *prev, *next;      /* siblings in the parent block */
    struct IrBlock *parent;
} IrOp;

typedef struct IrBlock {
    ValId *args;
    uint32_t n_args, cap_args;
    IrOp *first, *last;
    IrOp *parent;                  /* owning op, NULL for the function body */
} IrBlock;

/* A layout (see layout.c): which thread holds which element, in which
 * register. Stored per function, referenced from values by index. */
typedef struct Layout Layout;

/* Kernel parameters, in PTX parameter order (constexprs and arguments
 * specialized to a constant are not parameters). */
typedef struct IrParam {
    const char *name;
    ValId val;            /* the body's block argument */
    int32_t divisibility; /* 1, or 16 from a ":16" hint */
    /* a part of argument `arg` (NULL: the parameter is its own argument):
     * a host tensor descriptor's base pointer, shape[index] or
     * strides[index], or leaf `index` of a tuple (depth first).
     * Lowering metadata for the launchers; not in the text form */
    const char *arg;
    uint8_t part, part_index;
    /* a tensor map (ir/tmap.h) passed by value, 128 bytes 64-aligned; the
     * ptr<i8> value is its address. Text: {tensormap} */
    bool tensormap;
    const char *desc_sig;   /* PARAM_DESC_TMAP: its descriptor's signature spelling */
    /* > 0: the global scratch memory for the tensor maps the kernel makes
     * (tensormap_create), this many bytes per program; the launch passes
     * a buffer of grid size times that. Text: {scratch = N} */
    int32_t scratch_bytes;
} IrParam;
enum { PARAM_WHOLE, PARAM_DESC_BASE, PARAM_DESC_SHAPE, PARAM_DESC_STRIDE, PARAM_DESC_TMAP, PARAM_SCRATCH, PARAM_TUPLE_ITEM };

typedef struct IrFunc {
    Ctx *ctx;
    const char *name;
    IrValue *vals;
    uint32_t n_vals, cap_vals;
    IrBlock *body;
    IrParam *params;
    uint32_t n_params, cap_params;
    Layout *layouts;
    uint32_t n_layouts, cap_layouts;
    /* pass smem: the shared memory the kernel needs, its alignment (16, or
     * 1024 under swizzled wgmma/TMA buffers), and whether it ran (every op
     * that needs shared memory then has attr.smem). Text: "shared N align A"
     * after the parameters */
    int32_t shared_bytes, smem_align;
    bool smem_planned;
    /* pass_regs (opt/regs.c): estimated 32-bit registers per thread at the
     * peak (0 = not estimated), predicates there, and the op at the peak */
    int32_t est_regs, est_preds;
    struct IrOp *est_regs_op;
    /* Lowering metadata for launchers (not in the text form): the
     * parameters the signature gave a value, which launches do not pass:
     * tl.constexpr ones and plain ones baked in (":1", "1024", None).
     * text: the value as a signature writes it; int_value: an integer or
     * bool value (is_int). */
    struct IrBakedParam {
        const char *name, *text;
        bool is_constexpr, is_int;
        int64_t int_value;
    } *baked;
    uint32_t n_baked, cap_baked;
    /* ir.c: the chunk that ops and their arrays come from (ir_op_new) */
    unsigned char *mem;
    size_t mem_left;
} IrFunc;

/* ---- ir.c: construction and editing ---- */
IrFunc *ir_func_new(Ctx *c, const char *name);
ValId ir_value_new(IrFunc *fn, IrType t);
static inline IrValue *ir_val(IrFunc *fn, ValId v) { return &fn->vals[v]; }
static inline IrType ir_type(IrFunc *fn, ValId v) { return fn->vals[v].type; }
IrBlock *ir_block_new(IrFunc *fn);
ValId ir_block_add_arg(IrFunc *fn, IrBlock *b, IrType t);
ValId ir_param_add(IrFunc *fn, const char *name, IrType t, int32_t divisibility);

/* A new op, not yet in a block. Result values are created from result_types;
 * regions are created empty (n_regions blocks with no args). */
IrOp *ir_op_new(IrFunc *fn, Opcode opc, SrcLoc loc, const ValId *operands, uint32_t n_operands,
                const IrType *result_types, uint32_t n_results, uint32_t n_regions);
void ir_op_set_operands(IrFunc *fn, IrOp *op, const ValId *operands, uint32_t n);
void ir_block_append(IrBlock *b, IrOp *op);
void ir_insert_before(IrOp *pos, IrOp *op);
void ir_insert_after(IrOp *pos, IrOp *op);
void ir_op_unlink(IrOp *op);                 /* removes from its block */
/* Replace every use of `from` (in ops and nested regions) by `to`; _in:
 * within block b (and the regions in it) only. */
void ir_replace_uses(IrFunc *fn, ValId from, ValId to);
void ir_replace_uses_in(IrFunc *fn, IrBlock *b, ValId from, ValId to);
/* A new carried value of `for` loop: init appended to its operands, a
 * body argument (returned) and a result, in init's type and layout; the
 * body's yield gets its next value from ir_for_add_yield, in the same
 * order. */
ValId ir_for_add_carried(IrFunc *fn, IrOp *loop, ValId init);
void ir_for_add_yield(IrFunc *fn, IrOp *loop, ValId v);
/* Replacements made while walking in program order, applied where the
 * uses are reached instead of by a walk over the whole function per
 * replacement (ir_replace_uses), which makes a pass that replaces once per
 * op quadratic. A pass records from -> to (ir_fwd_set) when it replaces an
 * op's result and resolves each op's operands when its walk reaches the op
 * (ir_fwd_op), and whatever else it reads of an op it has not reached yet;
 * in SSA every use of a value comes after its definition in a pre-order
 * walk, so each op is resolved before the pass looks at it. ir_fwd_apply
 * resolves every op of the function (one walk), as ir_replace_uses would
 * have left them. The table grows as values are made; entries are 0 where
 * unset. */
typedef struct IrFwd {
    IrFunc *fn;
    ValId *to;
    uint32_t n;       /* entries of to */
    bool any;         /* something was replaced */
} IrFwd;
void ir_fwd_set(IrFwd *f, ValId from, ValId to);
ValId ir_fwd_get(IrFwd *f, ValId v);          /* v after every replacement */
bool ir_fwd_op(IrFwd *f, IrOp *op);           /* resolves op's operands; true if one changed */
void ir_fwd_apply(IrFwd *f);
/* Number of uses of every value, indexed by ValId (arena array). */
uint32_t *ir_count_uses(IrFunc *fn);

/* Walk every op in program order, nested regions included (pre-order). */
typedef void (*IrWalkFn)(IrFunc *fn, IrOp *op, void *ud);
void ir_walk(IrFunc *fn, IrBlock *b, IrWalkFn f, void *ud);

/* The builder: an insertion point and a current source location. */
typedef struct IrBuilder {
    IrFunc *fn;
    IrBlock *block;
    IrOp *before;     /* insert before this op; NULL = append to block */
    SrcLoc loc;
} IrBuilder;

IrOp *ir_build(IrBuilder *b, Opcode opc, const ValId *operands, uint32_t n_operands,
               const IrType *result_types, uint32_t n_results, uint32_t n_regions);
/* Shorthands for single-result ops. */
ValId ir_build1(IrBuilder *b, Opcode opc, IrType result, ValId a);
ValId ir_build2(IrBuilder *b, Opcode opc, IrType result, ValId a, ValId c);
ValId ir_build3(IrBuilder *b, Opcode opc, IrType result, ValId a, ValId c, ValId d);
/* A copy of op, nested regions too, inserted at b: operands through map
 * (map[v] where set, else v itself); map then sends op's results and the
 * copied blocks' arguments to the copy's. map has n_map entries (zeroed
 * where unset; values from n_map on map to themselves). */
IrOp *ir_clone_op(IrBuilder *b, const IrOp *op, ValId *map, uint32_t n_map);
ValId ir_const_int(IrBuilder *b, IrType t, int64_t v);     /* t scalar or tile */
ValId ir_const_float(IrBuilder *b, IrType t, double v);

static inline const OpInfo *ir_info(Opcode opc) { return &ir_opinfo[opc]; }
/* A load's ptrs, mask and other: the operands before a LOADF_TMA load's
 * tensor map and coordinates */
static inline uint32_t ir_load_n_mem(const IrOp *op) { return op->attr.flags & LOADF_TMA ? 3 : op->n_operands; }
/* A wgmma's operands up to its acc (the last of them), without use_acc */
static inline uint32_t ir_wgmma_n_main(const IrOp *op) { return op->n_operands - (op->attr.flags & WGMMA_USE_ACC ? 1 : 0); }

/* ---- text.c ---- */
void ir_print(Buf *out, IrFunc *fn);
/* Parses the text form. On a syntax or type error: diag_error at the
 * position in `file` (so it unwinds through ctx->bail). */
IrFunc *ir_parse(Ctx *c, const SrcFile *file);

/* ---- report.c ---- */
/* One line per global load of a tile, each starting with indent: its
 * location, type, vector width, and whether it was pipelined (slots) or
 * why not. */
void ir_load_report(IrFunc *fn, Buf *out, const char *indent);

/* ---- verify.c ---- */
/* Checks SSA dominance, operand counts, types and layouts. Returns true if
 * fine; otherwise appends "verify: ..." messages naming the op to *why. */
bool ir_verify(IrFunc *fn, Buf *why);
/* Verifies fn; on a problem a fatal error "LEAD:" and every message (lead:
 * "IR verification failed after lowering", ...) */
void ir_verify_or_fail(IrFunc *fn, const char *lead);
/* The first problem only, as a message without location ("invalid IR: op
 * 'add': operand 1 has type f16, expected f32") and the op's location, so
 * ir_parse can report it at the op in the .tir file. */
bool ir_verify_first(IrFunc *fn, SrcLoc *loc, Buf *msg);

/* ---- asm.c: inline_asm's constraints and registers (doc/ir.md) ----
 * The asm operands are the outputs, then the inputs, in the order of the
 * results and the arguments; each value takes pack / per_reg registers
 * for one pack: 8- and 16-bit elements share 32-bit registers (per_reg of
 * them, the first in the low bits), other types and pointers one register
 * per element. A register's constraint letter (h c: 16 bits, r f: 32,
 * l d: 64) must be at least as wide as the value bits it holds: one 8-bit
 * element 16 (as PTX keeps it), two 16, three or four 8-bit or two 16-bit
 * elements 32, other types their width. Inputs are zero-extended into it,
 * outputs truncated from it to their width (then 8-bit ones extended as
 * their type says). */
#define IR_ASM_MAX_OPERANDS 256
typedef struct IrAsmCons {
    char *letter;      /* per asm operand, outputs first: h c r f l d */
    uint32_t n, n_out;
} IrAsmCons;
int ir_asm_letter_bits(char c);              /* 0 for an unknown letter */
int ir_asm_per_reg(ElemType e, int pack);    /* elements of type e in one register */
int ir_asm_value_bits(ElemType e, int pack); /* the bits one register of them holds */
/* "=r,=r,r, l" (spaces around entries, clobbers "~{...}" ignored); false
 * with a message (no location) in *why */
bool ir_asm_constraints(Arena *a, const char *s, IrAsmCons *out, Buf *why);
/* The whole contract for an op of these argument and result element types */
bool ir_asm_check(Arena *a, const char *constraints, const char *text, int pack, const ElemType *in, uint32_t n_in,
                  const ElemType *out, uint32_t n_out, Buf *why);
/* text with $N (or ${N}) replaced by names[N] and $$ by $, into out (NULL:
 * only checks); false with a message on a '$' that names no operand */
bool ir_asm_subst(Buf *out, const char *text, const char *const *names, uint32_t n, Buf *why);

/* ---- layout.c: linear layouts ----
 * A map from the bits of (register, lane, warp) to tile coordinates: input
 * bit k of kind K contributes basis[K][k] (a coordinate vector), and the
 * contributions of all set bits are combined by XOR. Tile dims are powers of
 * two, so blocked layouts, their slices, mma fragments and swizzles are all
 * such maps. A zero basis vector means that bit replicates (broadcast). */
enum { LL_REG, LL_LANE, LL_WARP, LL_KINDS };
#define LL_MAX_BITS 20

struct Layout {
    uint8_t rank;
    int32_t shape[IR_MAX_RANK];
    uint8_t n_bits[LL_KINDS];                      /* lane bits = 5 */
    int32_t basis[LL_KINDS][LL_MAX_BITS][IR_MAX_RANK];
};

/* Blocked layout (Triton's #blocked): size_per_thread, threads_per_warp,
 * warps_per_cta per dim, order = dims from fastest to slowest. Tiles larger
 * than one "CTA tile" wrap around into more registers; smaller ones
 * replicate. */
Layout layout_blocked(int rank, const int32_t *shape, const int32_t *size_per_thread,
                      const int32_t *threads_per_warp, const int32_t *warps_per_cta,
                      const int32_t *order, int num_warps);
/* The layout a value of `shape` gets by default: fastest dim last, vec
 * elements per thread along it (vec 1 = one element). */
Layout layout_default(int rank, const int32_t *shape, int vec, int num_warps);
/* The same layout restricted to a shape where some dims are 1 (the operand
 * of a broadcast), or with dim `axis` removed (the operand of expand_dims).
 * Register bits that become duplicates are dropped. */
Layout layout_project(const Layout *l, const int32_t *shape);
Layout layout_drop_dim(const Layout *l, int axis);
Layout layout_add_dim(const Layout *l, int axis);   /* inverse of drop_dim, new dim of size 1 */
/* The layouts of the shape ops' results, from their operand's (data stays
 * where it is; ptxgen renames registers). permute: result dim i is l's dim
 * perm[i]. reshape: the same row-major flat index (a power-of-two reshape
 * relabels coordinate bits). join: a new last dim of size 2 held by a new
 * lowest register bit. split: the inverse of join; false unless exactly one
 * basis vector touches the last dim (of size 2) and it is a register bit
 * along it alone. */
Layout layout_permute(const Layout *l, const int32_t *perm);
Layout layout_reshape(const Layout *l, int rank, const int32_t *shape);
Layout layout_join(const Layout *l);
bool layout_split(const Layout *l, Layout *out);
/* Row-major flat index <-> coordinates in shape (power-of-two dims). */
int64_t layout_flat_index(int rank, const int32_t *shape, const int32_t *coord);

/* ---- affine.c: tiles affine in their coordinates ----
 * v[c] = u + sum_d k[d] * c[d] with compile-time k and u uniform, except
 * along the dims marked any (arbitrary there); known false: not of that
 * form. ir_affine_deltas: in layout l, each of the n registers of such a
 * tile lies a constant delta[r] (NULL: not wanted) from register 0 (the
 * register bits add to the thread's, and no two registers differ along an
 * arbitrary dim). The memo starts zeroed; its arrays live in the arena. */
typedef struct IrAffine {
    bool known;
    int64_t k[IR_MAX_RANK];
    bool any[IR_MAX_RANK];
} IrAffine;
typedef struct IrAffineMemo {
    IrAffine *val;
    bool *done;
} IrAffineMemo;
IrAffine ir_affine(IrFunc *fn, IrAffineMemo *m, ValId v);
bool ir_affine_deltas(const IrAffine *a, const Layout *l, int64_t *delta, int n);
void layout_unflat(int rank, const int32_t *shape, int64_t flat, int32_t *coord);
bool layout_eq(const Layout *a, const Layout *b);
int layout_n_regs(const Layout *l);                 /* registers per thread */
/* Tile coordinates of register `reg` in thread (lane, warp). */
void layout_coord(const Layout *l, int reg, int lane, int warp, int32_t *coord);
/* Number of consecutive registers (starting at any multiple of it) that
 * hold consecutive elements along dim (the vector width available for
 * loads/stores). 1 if none. */
int layout_contig_regs(const Layout *l, int dim);
/* The dim along which vectors of vec elements run in l (the last when it
 * has them, or vec is 1), -1 if none. */
int layout_vector_dim(const Layout *l, int vec);
/* The row-major index of coord (of register reg, of the lane and warp
 * bits): linear in the input bits, as dims are powers of two. */
int32_t layout_flat(const Layout *l, const int32_t *coord);
int32_t layout_reg_flat(const Layout *l, int reg);
int32_t layout_thread_support(const Layout *l);   /* index bits the (lane, warp) part can set */
/* The registers (reg_mask) and thread bits (tid_mask: lane bits 0-4, warp
 * bits from 5) whose elements an earlier holder also has: a thread with
 * none of tid_mask set holds each of its elements canonically in the
 * registers outside reg_mask. */
void layout_duplicates(const Layout *l, int num_warps, uint32_t *reg_mask, uint32_t *tid_mask);
/* The inverse of layout_coord: the first (lowest warp, then lane, then reg)
 * holder of the element at coord. false if no thread holds it. */
bool layout_find(const Layout *l, const int32_t *coord, int *reg, int *lane, int *warp);
void layout_print(Buf *b, const Layout *l);
/* The levels of `reduce` along dim `axis` (n = 2^m elements; doc/ir.md
 * gives the order they are combined in): steps[t] is level t's axis
 * coordinate. With a layout, the levels are the input bits whose basis
 * vector lies along the axis: register bits, then lane bits, then warp
 * bits, each kind in ascending order (ptxgen folds the registers, then
 * shuffles across lanes, then goes across warps through shared memory);
 * kinds[t]/bits[t] (if not NULL) name them. Without a layout (l NULL),
 * level t is coordinate bit t. Returns the number of levels, or -1 if a
 * basis vector mixes the axis with other dims or the levels do not cover
 * the axis exactly once. */
int layout_reduce_levels(const Layout *l, int axis, int32_t n, int32_t *steps, int *kinds, int *bits);
/* How `scan` splits the n = 2^m positions along dim `axis` (doc/ir.md): the
 * axis coordinate's bits, low to high, must be held by register bits (part
 * 0), then lane bits (part 1: consecutive lane bits, ascending), then warp
 * bits (part 2), then register bits again (part 3: the layout wraps around
 * the axis); parts[p] = how many bits each part has, kinds[t]/bits[t] (if
 * not NULL) which input bit holds coordinate bit t. Without a layout every
 * bit is a register bit of part 0. false if the layout is not of that form
 * (then the layout pass converts the operands). */
bool layout_scan_parts(const Layout *l, int axis, int32_t n, int *parts, int *kinds, int *bits);
int32_t ir_layout_intern(IrFunc *fn, const Layout *l);   /* index in fn->layouts */
/* dot (layout.c, doc/ir.md "Layouts of dot"). The mma.sync accumulator
 * of a [B x] M x N tile (M >= 16, N >= 8): 16 x 8 fragments, warps split
 * over the batch, N and M as warps[] says (layout_mma_warps: Triton's mma
 * v2 rule), the warp tile repeated in registers along N, then M, then B.
 * The operand layouts (which 0 = a, [B x] M x K; 1 = b, [B x] K x N) of
 * elem_bits-bit elements (32 = tf32, 16, 8; K a multiple of the k-step
 * 256 / elem_bits) follow from it; layout_fma_operand gives the FMA path's
 * for any accumulator layout (the whole K in registers). */
void layout_mma_warps(int rank, const int32_t *shape, int num_warps, int32_t *warps);
Layout layout_mma_acc(int rank, const int32_t *shape, int num_warps);
Layout layout_mma_operand(const Layout *acc, int which, int elem_bits, int32_t k);
Layout layout_fma_operand(const Layout *acc, int which, int32_t k);
int layout_mma_kstep(int elem_bits);
/* The Hopper path (doc/ir.md "Layouts of dot"): warps of a [M x N]
 * accumulator by Triton's mma v3 rule, and its layout, which mma.sync can
 * run too; layout_dot_wgmma_bits: the operand bits when dot op fits wgmma
 * on fn's target (sm_90a, warpgroups, M >= 16 x the warps along M, N / the
 * warps along N >= 8, 2-D; f16, bf16, fp8 and i8 operands into f32 or
 * i32), else 0. */
void layout_wgmma_warps(const int32_t *shape, int num_warps, int32_t *warps);
Layout layout_wgmma_acc(const int32_t *shape, int num_warps);
int layout_dot_wgmma_bits(const IrFunc *fn, const IrOp *op);
/* The operand bits of the mma.sync that multiplies a by b into acc on a
 * target with (fp8) or without fp8 mma (f16/bf16 16, tf32 32, i8/fp8 8),
 * 0 if none does. */
int layout_dot_mma_bits(ElemType a, ElemType b, ElemType acc, int precision, bool fp8);
/* dot op fits mma.sync on fn's target: types (layout_dot_mma_bits), and
 * M >= 16, N >= 8, K >= the k-step (dims are powers of two). */
bool layout_dot_mma_ok(const IrFunc *fn, const IrOp *op);
/* The layouts dot op's a and b must have when its accumulator has layout
 * acc: the mma operands if the dot fits mma.sync and acc is its
 * layout_mma_acc (returns true: ptxgen issues mma.sync), else the FMA
 * path's (false). The verifier, the layout pass and ptxgen all use it. */
bool layout_dot_operands(const IrFunc *fn, const IrOp *op, const Layout *acc, Layout *la, Layout *lb);
static inline const Layout *ir_layout(IrFunc *fn, ValId v) {
    return fn->vals[v].layout < 0 ? NULL : &fn->layouts[fn->vals[v].layout];
}

#endif
