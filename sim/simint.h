/* sim's internal header: the decoded module that load.c builds from PTX
 * text and exec.c runs. An instruction is decoded once (base op, types,
 * modifiers, operands) so the executor is one switch per instruction. */
#ifndef TRIC_SIM_INT_H
#define TRIC_SIM_INT_H

#include "sim.h"

/* Base ops: enum name, PTX spelling, operand count (-1: checked by hand). */
#define SIM_OPS(X)                                                                 \
    X(ADD, "add", 3) X(SUB, "sub", 3) X(MUL, "mul", 3) X(MAD, "mad", 4)              \
    X(FMA, "fma", 4) X(DIV, "div", 3) X(REM, "rem", 3) X(AND, "and", 3)             \
    X(OR, "or", 3) X(XOR, "xor", 3) X(NOT, "not", 2) X(SHL, "shl", 3)               \
    X(SHR, "shr", 3) X(MIN, "min", 3) X(MAX, "max", 3) X(NEG, "neg", 2)             \
    X(ABS, "abs", 2) X(MOV, "mov", 2) X(SELP, "selp", 4) X(SETP, "setp", 3)        \
    X(CVT, "cvt", 2) X(CVTA, "cvta", 2) X(LD, "ld", 2) X(ST, "st", 2)               \
    X(BAR, "bar", -1) X(RET, "ret", 0) X(BRA, "bra", 1) X(EX2, "ex2", 2)            \
    X(LG2, "lg2", 2) X(SQRT, "sqrt", 2) X(RSQRT, "rsqrt", 2) X(RCP, "rcp", 2)       \
    X(PRMT, "prmt", 4) X(BFE, "bfe", 4) X(TESTP, "testp", 2) X(SHF, "shf", 4)                    \
    X(COPYSIGN, "copysign", 3) X(CALL, "call", -1) X(SHFL, "shfl", 5)              \
    X(ATOM, "atom", -1) X(RED, "red", -1)                                          \
    X(POPC, "popc", 2) X(CLZ, "clz", 2) X(BREV, "brev", 2) X(SIN, "sin", 2)        \
    X(COS, "cos", 2) X(LDMATRIX, "ldmatrix", 2) X(STMATRIX, "stmatrix", 2)        \
    X(MMA, "mma", 4) X(CP, "cp", -1) X(CREATEPOLICY, "createpolicy", 1)          \
    X(WGMMA, "wgmma", -1) X(FENCE, "fence", -1) X(MBARRIER, "mbarrier", -1)        \
    X(TENSORMAP, "tensormap", -1)

typedef enum SimOp {
#define X(e, s, n) SO_##e,
    SIM_OPS(X)
#undef X
    SO_COUNT
} SimOp;

/* Types: spelling, bits, kind. */
/* SK_PACKED: two values in one register (f16x2, and the fp8 pairs that
 * only cvt reads or writes); also tf32, an f32 bit pattern with its low 13
 * bits zero that only cvt.rna writes (and mma reads, from .b32 registers) */
typedef enum SimKind { SK_NONE, SK_PRED, SK_BITS, SK_UINT, SK_SINT, SK_FLOAT, SK_PACKED } SimKind;

#define SIM_TYPES(X)                                                               \
    X(PRED, "pred", 1, SK_PRED) X(B8, "b8", 8, SK_BITS) X(B16, "b16", 16, SK_BITS)  \
    X(B32, "b32", 32, SK_BITS) X(B64, "b64", 64, SK_BITS) X(U8, "u8", 8, SK_UINT)   \
    X(U16, "u16", 16, SK_UINT) X(U32, "u32", 32, SK_UINT) X(U64, "u64", 64, SK_UINT) \
    X(S8, "s8", 8, SK_SINT) X(S16, "s16", 16, SK_SINT) X(S32, "s32", 32, SK_SINT)   \
    X(S64, "s64", 64, SK_SINT) X(F16, "f16", 16, SK_FLOAT)                          \
    X(BF16, "bf16", 16, SK_FLOAT) X(F32, "f32", 32, SK_FLOAT)                       \
    X(F64, "f64", 64, SK_FLOAT) X(F16X2, "f16x2", 32, SK_PACKED)                 \
    X(E4M3X2, "e4m3x2", 16, SK_PACKED) X(E5M2X2, "e5m2x2", 16, SK_PACKED)          \
    X(TF32, "tf32", 32, SK_PACKED)

typedef enum SimTy {
    ST_NONE,
#define X(e, s, b, k) ST_##e,
    SIM_TYPES(X)
#undef X
    ST_COUNT
} SimTy;

/* bits and kind of each type, inline: the executor asks per instruction */
static const struct { int bits; SimKind kind; } sim_ty_info[ST_COUNT] = {
    {0, SK_NONE},
#define X(e, s, b, k) {b, k},
    SIM_TYPES(X)
#undef X
};
static inline int sim_ty_bits(SimTy t) { return sim_ty_info[t].bits; }
static inline SimKind sim_ty_kind(SimTy t) { return sim_ty_info[t].kind; }

/* Modifiers (bit set). Cache operators and eviction hints are accepted and
 * ignored: they change nothing a single-threaded memory can observe. */
enum {
    SM_RN = 1u << 0, SM_RZ = 1u << 1, SM_RM = 1u << 2, SM_RP = 1u << 3,
    SM_RNI = 1u << 4, SM_RZI = 1u << 5, SM_RMI = 1u << 6, SM_RPI = 1u << 7,
    SM_FTZ = 1u << 8, SM_SAT = 1u << 9, SM_APPROX = 1u << 10, SM_FULL = 1u << 11,
    SM_WIDE = 1u << 12, SM_HI = 1u << 13, SM_LO = 1u << 14, SM_NAN = 1u << 15,
    SM_GLOBAL = 1u << 16, SM_SHARED = 1u << 17, SM_PARAM = 1u << 18, SM_TO = 1u << 19,
    SM_UNI = 1u << 20, SM_SYNC = 1u << 21, SM_VOLATILE = 1u << 22, SM_LOCAL = 1u << 23,
    /* shfl's modes (only shfl takes them) */
    SM_BFLY = 1u << 24, SM_UP = 1u << 25, SM_DOWN = 1u << 26, SM_IDX = 1u << 27,
    /* atom/red: .noftz; an ordering that acquires (.acquire, .acq_rel; red
     * has none). Orderings and scopes change nothing in a sequential model. */
    SM_NOFTZ = 1u << 28, SM_ACQUIRE = 1u << 29,
    /* cvt to fp8: out-of-range values and infinities give the largest finite value */
    SM_SATFINITE = 1u << 30,
    /* cvt.rna.tf32.f32: to nearest, ties away from zero (cvt to tf32 only) */
    SM_RNA = 1u << 31,
};
#define SM_SHFL_MODES (SM_BFLY | SM_UP | SM_DOWN | SM_IDX)

/* atom/red operations */
typedef enum SimAtom { SA_NONE, SA_ADD, SA_MIN, SA_MAX, SA_AND, SA_OR, SA_XOR, SA_EXCH, SA_CAS } SimAtom;

/* setp comparisons and testp classes */
typedef enum SimCmp {
    SC_NONE, SC_EQ, SC_NE, SC_LT, SC_LE, SC_GT, SC_GE, SC_LO, SC_LS, SC_HI, SC_HS,
    SC_EQU, SC_NEU, SC_LTU, SC_LEU, SC_GTU, SC_GEU, SC_NUM, SC_NAN,
    SC_FINITE, SC_INFINITE, SC_NUMBER, SC_NOTANUMBER, SC_NORMAL, SC_SUBNORMAL,
} SimCmp;

/* special registers */
typedef enum SimSpecial {
    SS_TID_X, SS_TID_Y, SS_TID_Z, SS_NTID_X, SS_NTID_Y, SS_NTID_Z,
    SS_CTAID_X, SS_CTAID_Y, SS_CTAID_Z, SS_NCTAID_X, SS_NCTAID_Y, SS_NCTAID_Z,
    SS_LANEID, SS_WARPID, SS_SMID, SS_GLOBALTIMER,
} SimSpecial;

typedef enum SimOpdKind {
    SD_REG,      /* reg[0] */
    SD_IMM,      /* imm: raw bits (0f/0d floats as their bits) */
    SD_VEC,      /* { reg[0..n-1] } */
    SD_MEM,      /* [reg[0] + imm], reg[0] = SIM_NOREG: [imm] (a shared symbol) */
    SD_PARAM,    /* [name]: an .entry parameter (imm = its index, reg[0] = SIM_NOREG)
                    or a call's .param variable (reg[0] = the register holding it);
                    mov's source name: an aggregate .entry parameter (its address) */
    SD_SPECIAL,  /* imm = SimSpecial */
    SD_LABEL,    /* imm = instruction index */
    SD_SINK,     /* _: a result dropped (mbarrier.arrive's state) */
} SimOpdKind;

#define SIM_NOREG UINT32_MAX

/* SD_REG with n = 2: shfl's "d|p", reg[1] the predicate */
typedef struct SimOpd {
    uint8_t kind, n;
    uint32_t reg[4];
    int64_t imm;
} SimOpd;

/* The system calls the CUDA driver provides to PTX (the only functions a
 * module may call). */
typedef enum SimCallee { SF_VPRINTF, SF_ASSERTFAIL, SF_COUNT } SimCallee;

/* mma.sync's element types, of the accumulators (d, c) and the operands
 * (a, b); they are spelt in mma only, so they are not SimTy. */
typedef enum SimMmaTy {
    SMT_NONE, SMT_F16, SMT_BF16, SMT_TF32, SMT_F32, SMT_S8, SMT_U8, SMT_S32, SMT_E4M3, SMT_E5M2, SMT_COUNT
} SimMmaTy;

/* cp.async's forms: a copy (cache operator .ca or .cg), commit_group,
 * wait_group N, wait_all; the TMA copy
 * cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
 * [dst], [map, {x, y}], [mbar] (opd[0] dst, opd[1] the map's register,
 * opd[2] the coordinates, opd[3] the mbarrier); and the bulk async-groups'
 * cp.async.bulk.commit_group and cp.async.bulk.wait_group{.read} N */
typedef enum SimCp {
    SCP_NONE, SCP_CA, SCP_CG, SCP_COMMIT, SCP_WAIT_GROUP, SCP_WAIT_ALL, SCP_TENSOR, SCP_BULK_COMMIT, SCP_BULK_WAIT
} SimCp;

/* mbarrier's forms, each .shared{::cta}.b64: init [a], count; inval [a];
 * arrive.expect_tx _, [a], tx-count; try_wait.parity p, [a], parity */
typedef enum SimMbarOp { SMB_NONE, SMB_INIT, SMB_INVAL, SMB_ARRIVE_TX, SMB_TRY_WAIT } SimMbarOp;

/* tensormap's forms: tensormap.replace.tile.FIELD.shared::cta.b1024.TYPE
 * [a], {ord,} value (a field of the 128-byte map in shared memory; FIELD a
 * SimTmapField, TYPE b64 for the address and the strides, else b32) and
 * tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.SCOPE.sync.aligned
 * [global], [shared], 128 (the warp's copy of the map to global memory) */
typedef enum SimTmapOp { STM_NONE, STM_REPLACE, STM_CP_FENCEPROXY } SimTmapOp;
typedef enum SimTmapField {
    STF_GLOBAL_ADDRESS, STF_RANK, STF_BOX_DIM, STF_GLOBAL_DIM, STF_GLOBAL_STRIDE, STF_ELEMENT_STRIDE,
    STF_ELEMTYPE, STF_INTERLEAVE_LAYOUT, STF_SWIZZLE_MODE, STF_FILL_MODE, STF_COUNT
} SimTmapField;

/* wgmma's forms, and what wgmma.mma_async.sync.aligned.m64nNkK.D.A.B
 * takes: N, the d registers (N / 2), A as a descriptor register or four
 * registers, B's descriptor, scale-d (a predicate register, or an
 * immediate), the immediate scales and transposes */
typedef enum SimWg { SWG_NONE, SWG_FENCE, SWG_COMMIT, SWG_WAIT, SWG_MMA } SimWg;
typedef struct SimWgmma {
    int n;
    uint32_t *d;
    int n_d;
    bool a_regs;
    uint32_t a[4], b;
    uint32_t scale_d;      /* register, or SIM_NOREG with scale_d_imm */
    int scale_d_imm, scale_a, scale_b;
    bool trans_a, trans_b;
} SimWgmma;

enum { SHF_R = 1, SHF_CLAMP = 2 };
typedef struct SimIns {
    SimOp op;
    SimTy ty[2];           /* ty[0] the (destination) type, ty[1] cvt's source */
    SimCmp cmp;
    uint8_t atom;          /* SimAtom of atom/red */
    uint8_t vec;           /* 1, 2, 4 */
    uint8_t n_opd;
    uint32_t mods;
    uint32_t guard;        /* predicate register or SIM_NOREG */
    bool guard_neg;
    SimOpd opd[5];         /* shfl has five */
    int ptx_line;
    int loc_file, loc_line;   /* from the nearest .loc; 0 = none */
    const char *name;         /* the opcode as written: "ld.global.v4.b32" */
    /* call: the callee, the .param variables (as registers) it reads and
     * the one it writes (SIM_NOREG: none) */
    uint8_t callee, n_args;
    uint32_t *args, ret;
    /* mma.sync.aligned.m16n8K.row.col: K, and the SimMmaTy of d, a, b, c */
    uint8_t mma_k, mma_ty[4];
    uint8_t cp;               /* cp.async: SimCp */
    uint8_t mbar;             /* mbarrier: SimMbarOp */
    bool trans;               /* ldmatrix.trans (mods has no bit left) */
    uint8_t shf;              /* shf: SHF_R (else .l), SHF_CLAMP (else .wrap) */
    bool bar_warp;            /* bar.warp.sync membermask, not bar.sync */
    uint8_t tmap, tmap_field; /* tensormap: SimTmapOp, and replace's SimTmapField */
    bool cache_hint;          /* ld/st .L2::cache_hint: the last operand was the
                                 policy, a hint, dropped after the checks */
    uint8_t wg;               /* wgmma: SimWg; wait_group's N is opd[0].imm */
    SimWgmma *wgmma;          /* wgmma.mma_async's operands (mma_k, mma_ty: K, types) */
} SimIns;

typedef struct SimParam {
    const char *name;
    SimTy ty;
    uint32_t bytes;           /* an aggregate .b8 NAME[bytes] (a CUtensorMap), whose launch
                                 slot holds the host address of its bytes; 0: a scalar */
} SimParam;

/* A module-scope .global array: host memory of its own, so a global
 * address of it is a host address like the launch's buffers'. */
typedef struct SimGlobal {
    const char *name;
    uint8_t *data;
    uint32_t bytes;
} SimGlobal;

typedef struct SimModule {
    const char *entry;
    SimIns *ins;
    uint32_t n_ins, cap_ins;
    uint8_t *reg_bits;       /* declared width of each register: 1 (pred) .. 64 */
    uint32_t n_regs, cap_regs;
    SimParam *params;
    uint32_t n_params, cap_params;
    const char **files;      /* .file index -> path */
    uint32_t n_files, cap_files;
    uint32_t static_shared;  /* bytes of the .shared declarations */
    bool has_extern_shared;
    uint32_t dynamic_at;     /* offset of the .extern .shared array */
    SimGlobal *globals;      /* .global arrays, initialized when loading */
    uint32_t n_globals, cap_globals;
    uint32_t local_bytes;    /* each thread's .local arrays */
    int version;             /* .version major * 10 + minor (what some operands mean depends on it) */
} SimModule;

/* Shared addresses start here, not at 0, so code that forgets to add a
 * symbol's address cannot pass by accident. */
#define SIM_SHARED_BASE 0x1000u
/* Local (per-thread) addresses start here, above every shared address, so
 * a local address used as a shared one (or the reverse) is out of bounds. */
#define SIM_LOCAL_BASE 0x100000u

/* load.c: PTX text -> module (memory from a); false with the message in *err */
bool sim_load(Arena *a, const char *ptx, const char *entry, SimModule *m, Buf *err);
/* "sim: kernels/x.py:25: " or "sim: " when the instruction has no .loc */
void sim_put_prefix(Buf *err, const SimModule *m, const SimIns *in);
const char *sim_op_name(SimOp op);

/* print.c: vprintf's formatting. fmt with the arguments packed in
 * args[0, n) as C varargs (each aligned to its size: 4-byte ints, 8-byte
 * long longs, doubles and pointers); a %s argument is a generic address
 * that str turns into a NUL-terminated host string (NULL: it cannot). The
 * text goes to *out; false with the reason in *why (an unmodelled
 * conversion, arguments past n). *n_used: arguments read. */
typedef const char *(*SimStrFn)(void *ud, uint64_t addr);
bool sim_format(const char *fmt, const uint8_t *args, size_t n, SimStrFn str, void *ud, Buf *out, Buf *why,
                int *n_used);

#endif
