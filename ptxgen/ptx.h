/* ptxgen private header: the emitter state shared by emit.c, optab.c,
 * memory.c and convert.c.
 *
 * Registers are virtual: every tile value owns an array of registers (one per
 * layout register), every scalar one register; ptxas allocates the real ones.
 * A Reg packs its class (which .reg declaration it belongs to) and a number.
 *
 * Instructions are written with ptx_ins, whose format is a small language:
 *   %R  a Reg (printed "%r12", "%p3", ...)      %s  a C string
 *   %d  an int          %l  an int64_t         %x  an unsigned as 0x...
 *   %D  a double, as the exact f64 immediate 0dXXXXXXXXXXXXXXXX
 *   %F  a float (passed as double, must be an f32 value): 0fXXXXXXXX
 *   %%  a percent sign
 * Each call writes one tab-indented line ending in "\n" ("; " is not added:
 * callers write the ';').
 */
#ifndef TRIC_PTX_H
#define TRIC_PTX_H

#include "ptxgen.h"
#include "../ir/smem.h"

typedef uint32_t Reg;
#define REG_NONE 0u

typedef enum RegClass { RC_PRED, RC_B16, RC_B32, RC_F32, RC_B64, RC_F64, RC_COUNT } RegClass;
#define REG_CLASS(r) ((RegClass)((r) >> 28))

/* Per layout, what the thread-dependent part of its index math is; built
 * lazily in the prologue (straight-line code at entry, so any later use is
 * dominated by it, whatever region first needed it). */
typedef struct LayoutRegs {
    Reg flat;          /* row-major element offset of the (lane, warp) part */
    bool flat_done;
    Reg owner;         /* pred: this thread is the canonical holder; NONE = all are */
    uint32_t owner_reg_mask;   /* register bits whose holders are duplicates */
    bool owner_done;
} LayoutRegs;

typedef struct ConstReg {
    RegClass cls;
    uint64_t bits;
    Reg reg;
} ConstReg;

struct ReducePlan;
struct SmemBuf;

/* convert_layout's buffer base for one scratch offset (made in the prologue) */
typedef struct PtxConvBase {
    int32_t off;
    Reg reg;
} PtxConvBase;

typedef struct Ptx {
    IrFunc *fn;
    Ctx *ctx;
    Arena *arena;
    Buf body, prologue;     /* heap scratch, freed by ptx_emit even on error */
    Buf *out;               /* where ptx_ins writes */
    uint32_t n_regs[RC_COUNT];
    Reg **vregs;            /* per ValId: its registers */
    int32_t *vn;            /* per ValId: how many (0 = not yet defined) */
    int n_labels;
    int version;            /* PTX ISA version needed, times 10 */
    const TargetInfo *ti;   /* the target's row (base/target.c) */
    bool uses_smem;
    Reg tid, lane, warp, tid0, smem_base;
    Reg l2_policy[2];       /* createpolicy results: evict_first, evict_last */
    LayoutRegs *lregs;      /* per layout index */
    uint32_t n_lregs;
    ConstReg *consts;
    uint32_t n_consts, cap_consts;
    HashIdx *const_at;      /* consts by (class, bits) */
    const SrcFile **files;
    uint32_t n_files, cap_files;
    int n_insts;            /* instructions written so far (to drop empty .loc lines) */
    /* debug.c: print/assert. Module-scope strings (.global .b8 arrays) and
     * function-scope .local argument buffers, both heap scratch that
     * assemble() places; which system calls are declared. */
    Buf globals, locals;
    const char **strings;   /* the strings in globals, index = tric_str_<i> */
    uint32_t n_strings, cap_strings;
    int n_print_bufs;
    bool uses_vprintf, uses_assertfail;
    /* convert.c: pipeline buffers (local_alloc) where pass smem put them;
     * the scratch offset it gave the op being emitted (-1: none) */
    PtxConvBase *conv_bases;
    uint32_t n_conv_bases, cap_conv_bases;
    struct SmemBuf *bufs;
    uint32_t n_bufs;
    int32_t scratch_at;
    Reg dyn_base;           /* set while addressing a buffer slot */
    int32_t smem_align;     /* the shared array's alignment, when over 16 (wgmma's swizzles: 1024) */
    IrOp *resume;           /* set by an op that emitted the ops after it up to here */
    struct LazyLdm *lazy;   /* convert.c: local_loads read by the dot that uses them */
    uint32_t n_lazy, cap_lazy;
    Reg lane_bit[5];        /* pred: lane bit k is set (butterfly partners) */
    uint32_t *uses;         /* ptx_uses: uses per ValId (ir_count_uses), when first needed */
    struct AxisInfo *axis;  /* affine.c: axis analysis of fn, when first needed */
    bool *other_use;        /* affine.c: per ValId, used other than as a load/store address */
    IrAffineMemo affine;    /* affine.c: ir_affine's results per ValId */
    int map_depth;          /* asm.c: emitting a map_elementwise region (emit_if selects) */
} Ptx;

/* ---- emit.c ---- */
void ptx_ins(Ptx *P, const char *fmt, ...);
void ptx_put_reg(Buf *b, Reg r);
const char *ptx_guard(Ptx *P, Reg pred);   /* "@%p3 " before an instruction; "" for REG_NONE */
Reg ptx_reg(Ptx *P, RegClass c);
Reg *ptx_regs(Ptx *P, ValId v, int *n);            /* registers of a defined value */
Reg *ptx_def(Ptx *P, IrOp *op, ValId v);            /* fresh registers for v */
uint32_t ptx_uses(Ptx *P, ValId v);                 /* v's uses in fn */
void ptx_alias(Ptx *P, ValId v, Reg *regs, int n);  /* v uses these registers */
int ptx_value_nregs(Ptx *P, IrOp *op, ValId v);
Reg ptx_const_reg(Ptx *P, RegClass c, uint64_t bits);   /* cached, in the prologue */
uint64_t ptx_const_bits(Ptx *P, IrOp *op, ElemType e);  /* a const op's register bits */
void ptx_label(Ptx *P, const char *what, int n);   /* "$L_what_n:" */
Reg ptx_tid(Ptx *P);
Reg ptx_tid0(Ptx *P);                               /* pred: %tid.x == 0 */
Reg ptx_layout_flat(Ptx *P, int32_t li);            /* b32: row-major offset of (lane, warp) */
/* b32, in the prologue: the XOR of lane_vals[k] over the set bits k of the
 * lane id and of warp_vals[k] over the warp id's (any linear map of them) */
Reg ptx_thread_xor(Ptx *P, const int32_t *lane_vals, int n_lane, const int32_t *warp_vals, int n_warp);
/* Canonical-holder predicate for stores (REG_NONE if every holder is unique)
 * and the register bits whose registers duplicate others. */
Reg ptx_layout_owner(Ptx *P, int32_t li, uint32_t *dup_reg_mask);
int32_t ptx_layout_index(Ptx *P, IrOp *op, ValId v);
int32_t ptx_intern_layout(Ptx *P, const Layout *l);   /* a layout ptxgen derives */
void ptx_layout_room(Ptx *P);   /* after layouts were added to fn (a buffer's view) */
/* convert_layout that only renames registers; false if threads must trade */
bool ptx_try_alias_convert(Ptx *P, IrOp *op);
/* Emits b's ops; returns its yield/condition terminator, NULL if none. */
IrOp *ptx_emit_block(Ptx *P, IrBlock *b);
/* An op that reads no shared memory for its value and does not synchronize:
 * pure, no regions, not a convert_layout, reduce or scan (those may trade
 * through shared memory with barriers). */
bool ptx_quiet_op(const IrOp *o);
/* The copy block that follows dot in its block (quiet ops but dots, and
 * async_copy, ending at an async_commit, none reading the dot's result),
 * emitted now: from inside the dot, after its first k-step. Nothing if
 * there is none. */
void ptx_emit_copies_after(Ptx *P, IrOp *dot);

/* ---- affine.c ----
 * Whether tile value v (n registers, used by op) is affine in its
 * coordinates with compile-time coefficients, and its registers lie at
 * constant distances from register 0 in every thread: then delta[r] is
 * register r's value minus register 0's. */
bool ptx_affine_deltas(Ptx *P, IrOp *op, ValId v, int64_t *delta, int n);
/* rep[r]: the first register holding the same value as register r, by the
 * value's constancy (axis analysis), r itself where none is known. */
void ptx_constancy_reps(Ptx *P, IrOp *op, ValId v, int *rep, int n);
/* v is a pointer tile whose only uses address loads/stores from its
 * register 0 (the others need not be computed). */
bool ptx_only_base_needed(Ptx *P, IrOp *op, ValId v, int n);

/* ---- optab.c ---- */
RegClass ptx_class_of(ElemType e);
const char *ptx_bits_sfx(ElemType e);     /* "b16", "b32", "b64", "pred" */
const char *ptx_arith_sfx(ElemType e);    /* "s16" (i8 too), "u32", "f32", ... */
void ptx_elementwise(Ptx *P, IrOp *op);
void ptx_mov(Ptx *P, Reg d, Reg a);       /* same class */
void ptx_norm8(Ptx *P, ElemType e, Reg d, Reg a);   /* re-extend an 8-bit value */
Reg ptx_to_f32(Ptx *P, ElemType e, Reg a);          /* f16/bf16 -> f32 (exact) */
Reg ptx_f8_to_f16(Ptx *P, ElemType e, Reg a);       /* fp8 -> f16 (exact; sm_89+) */

/* ---- mathprog.c ----
 * the `math` op's function fn (a MathFn) at operand type e */
void ptx_math_fn(Ptx *P, int fn, ElemType e, Reg d, const Reg *args);
/* d = opc(a) for the ops whose code is a program (ir/mathfn_op.c: f64 exp,
 * exp2, log, log2; f32 log, log2, sin, cos); false if opc at e has none */
bool ptx_math_op(Ptx *P, Opcode opc, ElemType e, Reg d, Reg a);

/* ---- memory.c ---- */
void ptx_load(Ptx *P, IrOp *op);
void ptx_store(Ptx *P, IrOp *op);

/* ---- divconst.c ----
 * Integer division and remainder by a constant: shifts, masks and
 * multiply-high by magic numbers instead of div/rem. DivMagic says which
 * sequence a divisor (as bits of a w-bit register) takes and its numbers;
 * test/unit/test_divconst.c runs a C model of each against C's division. */
typedef enum DivKind {
    DIVK_NONE,       /* divisor 0: the plain div/rem */
    DIVK_ONE,        /* 1 */
    DIVK_NEG_ONE,    /* signed -1: neg (MIN / -1 wraps) */
    DIVK_POW2,       /* 2^shift */
    DIVK_NEG_POW2,   /* signed -2^shift */
    DIVK_MIN,        /* signed MIN: quotient x == MIN */
    DIVK_BIG,        /* unsigned >= 2^(w-1), not a power of two: quotient x >= d */
    DIVK_MUL,        /* multiply-high by magic, then shifts (and fix-ups) */
} DivKind;
typedef struct DivMagic {
    DivKind kind;
    int bits;        /* register width: 16, 32 or 64 */
    bool sgn;
    uint64_t d;      /* the divisor's w bits */
    uint64_t magic;  /* DIVK_MUL: the multiplier's w bits */
    int shift;       /* DIVK_POW2/NEG_POW2: k; DIVK_MUL: the shift after mul.hi */
    bool add;        /* unsigned DIVK_MUL: the magic has w+1 bits ((x - t) / 2 + t form) */
    int fix;         /* signed DIVK_MUL: +1 add x after mul.hi, -1 subtract it */
} DivMagic;
DivMagic ptx_div_magic(uint64_t d_bits, int w, bool sgn);
/* d = a / c (is_div) or a % c at element type e; c's register bits nonzero */
void ptx_divrem_const(Ptx *P, bool is_div, ElemType e, Reg d, Reg a, uint64_t divisor_bits);
/* The same for an OP_DIV/OP_REM whose divisor is a nonzero constant; false otherwise */
bool ptx_try_divrem_const(Ptx *P, IrOp *op, ElemType e, Reg d, Reg a);

/* ---- debug.c ----
 * print: one vprintf call per element a thread holds (its canonical holder
 * only; a scalar or a print with no values from thread 0), Triton's
 * device_print format. assert: __assertfail when any element the thread
 * holds is false, only when ctx->target.debug. barrier: bar.sync 0.
 * ptx_debug_decls writes the module-scope part (system call declarations
 * and the strings) for assemble(). */
void ptx_print(Ptx *P, IrOp *op);
void ptx_assert(Ptx *P, IrOp *op);
void ptx_debug_decls(Ptx *P, Buf *out);

/* ---- convert.c ---- */
void ptx_convert_layout(Ptx *P, IrOp *op);
Reg ptx_smem_base(Ptx *P);
/* the L2 cache policy register of an eviction policy (prologue) */
Reg ptx_l2_policy(Ptx *P, bool evict_last);
/* Before emission: the pipeline buffers (ir/smem.h's plans) at the
 * places and with the shapes pass smem recorded */
void ptx_smem_buffers_plan(Ptx *P);
void ptx_async_copy(Ptx *P, IrOp *op);     /* cp.async per vector into the slot */
/* the shared-memory address of a buffer (a ring of mbarriers too), of one
 * of its slots */
Reg ptx_buffer_addr(Ptx *P, ValId buf);
/* shared memory for this op alone (after the buffers live at it), raising
 * the kernel's shared bytes */
Reg ptx_scratch_addr(Ptx *P, int32_t bytes, int32_t align);
Reg ptx_slot_addr(Ptx *P, ValId buf, ValId slot);
void ptx_local_load(Ptx *P, IrOp *op);     /* the slot's tile (ldmatrix where it fits) */
/* buffers wgmma reads (their canonical layout: convert.c): the slot's
 * matrix descriptor, and the unswizzled byte offset of a tile element */
Reg ptx_wgmma_slot_desc(Ptx *P, ValId buf, ValId slot, bool *mn_major);
int32_t ptx_wgmma_offset(Ptx *P, ValId buf, int32_t row, int32_t col);
/* register r of v is defined from here on (emits v's deferred ldmatrix
 * that reads it, if v is a deferred local_load; nothing otherwise) */
void ptx_need_reg(Ptx *P, ValId v, int r);
/* for a deferred local_load of 16-bit values: the 32-bit register that
 * holds its registers 2w and 2w + 1 as the ldmatrix packed them (emitting
 * that ldmatrix here if not yet); REG_NONE for any other value */
Reg ptx_need_word(Ptx *P, ValId v, int w);
/* v's registers computed only where owner holds (regs, v's layout) to
 * every holder of each element, through shared memory; defines v */
void ptx_smem_share(Ptx *P, IrOp *op, ValId v, const Reg *regs, Reg owner);
/* v's registers (its layout) from the row-major tile at the scratch start */
void ptx_smem_read(Ptx *P, IrOp *op, ValId v);
/* v's registers (its layout) to the row-major tile at the scratch start,
 * each element once */
void ptx_smem_write(Ptx *P, IrOp *op, ValId v);
/* ld/st.shared's type suffix for an element (8-bit loads sign- or zero-extend) */
const char *ptx_smem_type(ElemType e, bool is_load);
/* histogram.c: counts in shared memory */
void ptx_histogram(Ptx *P, IrOp *op);
/* gather.c: src through shared memory, read at the indices */
void ptx_gather(Ptx *P, IrOp *op);

/* ---- tma.c ---- */
void ptx_mbar_init(Ptx *P, IrOp *op, bool init);   /* mbarrier_init, or mbarrier_inval */
void ptx_mbar_wait(Ptx *P, IrOp *op);
void ptx_tma_copy(Ptx *P, IrOp *op);
void ptx_tmap_create(Ptx *P, IrOp *op);

/* ---- dot.c ---- */
void ptx_dot(Ptx *P, IrOp *op);   /* mma.sync, or FMAs where mma does not fit */
/* dot.c's operand registers, for wgmma.c too: per register of l, lane 0 /
 * warp 0's row-major flat index -> register; the packed index of fragment
 * element j of an mma operand layout for the tile at (r0, c0); operand
 * registers packed p to a b32 (or rounded to tf32) once each */
int32_t *ptx_reg_table(Ptx *P, const Layout *l);
int ptx_frag_reg(const Layout *l, const int32_t *t, int j, int p, int32_t batch, int32_t r0, int32_t c0);
typedef struct PtxPacked {
    ValId v;
    const Reg *x;
    int p;
    Reg *hi, *lo;   /* per b32 register, 0 until packed; lo only for tf32x3 */
} PtxPacked;
PtxPacked ptx_packed_new(Ptx *P, ValId v, const Reg *x, int n, int p, bool x3);
Reg ptx_pack(Ptx *P, PtxPacked *k, int j, bool lo);
void ptx_wgmma(Ptx *P, IrOp *op);        /* wgmma.mma_async, one group per warpgroup */
void ptx_wgmma_wait(Ptx *P, IrOp *op);

/* ---- atomic.c ---- */
void ptx_atomic(Ptx *P, IrOp *op);

/* ---- reduce.c ---- */
Reg **ptx_operand_copies(Ptx *P, IrOp *op, int nregs);   /* reduce.c: registers to combine in place */
void ptx_reduce(Ptx *P, IrOp *op);
/* Where pass smem put op's arrays (a reduce or a scan through shared
 * memory) and whether it must wait for earlier readers first; false if it
 * has none. */
bool ptx_reduce_slot(Ptx *P, IrOp *op, int32_t *offset, bool *bar_before);
/* out[k] = the combine region of op (a reduce or scan) on a[k], b[k] */
void ptx_combine(Ptx *P, IrOp *op, const Reg *a, const Reg *b, Reg *out);
Reg ptx_select_reg(Ptx *P, Reg p, Reg a, Reg b);       /* p ? a : b, any class */
Reg ptx_shuffle(Ptx *P, Reg a, const char *mode, int b, int c);   /* shfl.sync.MODE, any class */
const char *ptx_smem_addr(Ptx *P, Reg base, int64_t off);        /* "[%r5+64]" */
/* vals[0..n) = n values of class c, `bytes` each, at base + off (vector loads) */
void ptx_load_partials(Ptx *P, RegClass c, int bytes, Reg base, int64_t off, Reg *vals, int n);
/* region values bound to given registers for one emission, then forgotten
 * so the next emission defines them again */
void ptx_bind(Ptx *P, ValId v, Reg r);
void ptx_forget_block(Ptx *P, IrBlock *b);
/* ---- scan.c ---- */
void ptx_scan(Ptx *P, IrOp *op);
/* ---- asm.c ---- */
void ptx_inline_asm(Ptx *P, IrOp *op);
void ptx_map_elementwise(Ptx *P, IrOp *op);

#endif
