/* The `math` op's functions (ir/mathfn.def) as small straight-line
 * programs: mathfn_build writes the steps of one function at one type
 * (roundings, selects, integer bit steps, each one PTX instruction), which
 * ptxgen/mathprog.c prints as PTX and mathfn_run executes in C with the
 * PTX simulator's semantics, so the interpreter, constant folding and the
 * GPU compute the same bits (the .approx steps aside: see doc/math.md).
 * Written once, the algorithms cannot drift apart between the two. */
#ifndef TRIC_IR_MATHFN_H
#define TRIC_IR_MATHFN_H

#include "ir.h"

typedef enum MathFn {
#define X(e, s, n, k) e,
#include "mathfn.def"
#undef X
    MF_COUNT
} MathFn;

typedef enum MathKind { MK_FLOAT, MK_F32, MK_TEST, MK_INT, MK_COUNT } MathKind;

typedef struct MathFnInfo {
    const char *name;
    int n_args;
    MathKind kind;
} MathFnInfo;
extern const MathFnInfo mathfn_info[MF_COUNT];

/* -1 if name is none of them */
int mathfn_find(const char *name);
/* Does f take operands of type e? */
bool mathfn_accepts(MathFn f, ElemType e);
/* the result's element type for operands of type e */
ElemType mathfn_result(MathFn f, ElemType e);

/* ---- programs ---- */

typedef enum MType { MT_PRED, MT_B32, MT_F32, MT_B64, MT_F64 } MType;

typedef enum MOp {
    MO_CONST,                       /* d = imm (bits) */
    MO_ADD, MO_SUB, MO_MUL, MO_FMA, MO_DIV, MO_SQRT,   /* float, .rn */
    MO_NEG, MO_ABS, MO_MIN, MO_MAX, MO_COPYSIGN,         /* float bit ops; min/max: a NaN loses */
    MO_RNI, MO_RMI, MO_RPI, MO_RZI, /* float to integral float */
    MO_CVT,                         /* f32<->f64 (.rn), b32 (s32) or b64 (s64) -> float (.rn), float -> s32 (.rni) */
    MO_SETP,                        /* pred = a CMP b (cmp: MathCmp; b32 signed, b64 unsigned) */
    MO_TESTP,                       /* pred = class of a (cmp: MC_NAN, MC_INF, MC_FINITE) */
    MO_SELP,                        /* d = c ? a : b */
    MO_IADD, MO_ISUB, MO_AND, MO_OR, MO_SHL, MO_SHRS, MO_SHRU,   /* b32/b64 */
    MO_HI, MO_LO, MO_PACK,          /* f64 or b64 <-> two b32 words (pack: d = {a lo, b hi}) */
    MO_MOVB,                        /* reinterpret f32 <-> b32 */
    MO_POPC, MO_CLZ, MO_BREV, MO_MULHI,   /* popc/clz give b32 whatever the input width */
    MO_EX2A, MO_LG2A, MO_SINA, MO_COSA, MO_DIVF,   /* f32 .approx / div.full */
    MO_MULLO,                       /* b32/b64 low half of the product */
    /* the ops' programs (mathfn_build_op) */
    MO_IMM,                         /* d = imm, printed in place at each use (cmp: MathImm) */
    MO_SPLIT,                       /* d = a's low word, c (a second result) = its high word */
    MO_MAD,                         /* b32 d = a * b + c, low half */
    MO_MULWIDE, MO_MADWIDE,         /* b64 d = a * b (+ c), a and b u32 */
    MO_BFE,                         /* b32 d = bits b .. b + c - 1 of a (unsigned) */
    MO_XOR,
} MOp;

/* MIns.fl: .ftz (f32 inputs and results flushed to zero); integer type
 * spellings: setp's b32 is s32 unless MI_U (compares unsigned) or MI_B
 * (eq/ne); selp's b32 is s32 with MI_S */
enum { MI_FTZ = 1, MI_U = 2, MI_B = 4, MI_S = 8 };

/* how an MO_IMM integer is printed (floats: 0f/0d and their bits) */
typedef enum MathImm { MIM_HEX, MIM_DEC, MIM_HEX8 } MathImm;

typedef enum MathCmp { MC_EQ, MC_NE, MC_LT, MC_LE, MC_GT, MC_GE, MC_LTU, MC_GEU, MC_NAN, MC_INF, MC_FINITE } MathCmp;

typedef struct MIns {
    uint8_t op, cmp, fl;
    uint16_t d, a, b, c;
    uint64_t imm;
} MIns;

enum { MP_MAX_INS = 1400, MP_MAX_REGS = 1400 };

/* Steps run in order. A register is usually written once, by the step
 * that creates it; the ops' programs also create registers ahead of the
 * step that writes them (ptxgen numbers its registers in creation order)
 * and may write one again. */
typedef struct MathProg {
    MIns ins[MP_MAX_INS];
    uint8_t rty[MP_MAX_REGS];   /* MType of each register */
    int n_ins, n_regs;
    int n_in;                   /* registers 0 .. n_in - 1 are the operands */
    int out;                    /* the result's register */
} MathProg;

/* The program of f at operand type e (mathfn_accepts(f, e)). */
void mathfn_build(MathProg *p, MathFn f, ElemType e);
/* The program of a Triton op whose code ptxgen takes from here (f64 exp,
 * exp2, log, log2; f32 log, log2, sin, cos: ir/mathfn_op.c) at type e;
 * false if op at e has none. One operand, register 0. */
bool mathfn_build_op(MathProg *p, Opcode op, ElemType e);
/* Runs p on the operands' bits (as slots: f32 in the low 32 bits); the
 * result's bits. */
uint64_t mathfn_run(const MathProg *p, const uint64_t *args);

#endif
