/* A generator of random well-typed Triton kernels for differential testing.
 *
 *   char *src = kgen_kernel(seed, &opt);     (heap; free())
 *
 * gives a whole Python file: `import triton`, `@triton.jit` helpers, one
 * `@triton.jit` kernel named `kern`, and a kernel test block in the format
 * of kernels/NAME.py (test/unit/blocks.h reads it), so a saved kernel is a
 * test by itself. The same seed and options always give the same text.
 *
 * Every expression carries its type (element type and shape class) computed
 * by the rules tric follows (frontend/lower_expr.c, Triton's): an operation
 * that would need another type gets an explicit cast first, so the kernel
 * compiles by construction, and runs without integer division by zero or an
 * access outside a buffer (masks, `% n`, divisors `(x & 7) + 1`).
 *
 * Kernels are 1-D (BLOCK of 1..1024) or 2-D (BLOCK_M x BLOCK_N tiles up to
 * 4096 elements, row and column vectors broadcast with [:, None] and
 * [None, :]); sizes are not multiples of the blocks, so masks matter.
 * num_warps is 1 to 16, so a reduced axis spans registers, lanes and warps.
 *
 * Reductions (KG_REDUCE): tl.sum (with dtype=), tl.max / tl.min (with
 * return_indices), tl.argmax / tl.argmin, tl.xor_sum and tl.reduce with a
 * generated @jit combine function (one operand, or a tuple of two: an
 * argmax by hand, a sum with a max), as functions and as methods, along
 * axis 0, 1, negative axes and None, with keep_dims or [:, None] /
 * [None, :] to broadcast the result back, nested, in expressions; and as
 * statements: softmax (max, subtract, exp, sum, divide), masked loads with
 * the reduction's neutral `other`. The result types are tric's
 * (frontend/reductions.c); see FZ_ below for float sums. */
#ifndef TRIC_TEST_KERNELGEN_H
#define TRIC_TEST_KERNELGEN_H

#include "base/base.h"
#include "ir/ir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* features; a reducer turns them off one by one */
enum {
    KG_LOOPS = 1,      /* for / tl.range / static_range / while */
    KG_IFS = 2,        /* dynamic and static if, conditional expressions */
    KG_HELPERS = 4,    /* calls to generated @jit functions */
    KG_2D = 8,         /* 2-D tiles (else always 1-D) */
    KG_CASTS = 16,     /* .to(), bitcasts, tl.cast */
    KG_MATH = 32,      /* exp, log, sqrt, ... */
    KG_BITS = 64,      /* & | ^ ~ << >> // % */
    KG_GATHER = 128,   /* loads inside expressions: gathers, scalar loads */
    KG_STORES = 256,   /* stores inside ifs and loops, extra masks */
    KG_REDUCE = 512,   /* tl.sum, tl.max, tl.argmax, tl.reduce, ..., softmax-like statements */
    KG_SHAPES = 1024,  /* trans, reshape, permute, join, split, interleave */
    KG_ALL = 2047,
};

typedef struct KgenOptions {
    int stmts;            /* statements in the kernel body (top level) */
    int depth;            /* expression nesting */
    unsigned features;
} KgenOptions;

static const KgenOptions kgen_default = {8, 3, KG_ALL};

/* shape classes: a 1-D kernel uses S and F; a 2-D one all four.
 * The join of two classes (broadcasting) is their bitwise or. */
enum { SH_S = 0, SH_R = 1, SH_C = 2, SH_F = 3 };

typedef struct KgVal {
    const char *s;       /* the text, parenthesized when composite */
    uint8_t et, sh;
    bool lit;            /* a compile-time number (exempt from promotion) */
} KgVal;

typedef struct KgVar {
    const char *name;
    uint8_t et, sh;
    int level;           /* block nesting where it was defined */
    bool fixed;          /* parameters, indices, loop variables: never assigned */
    bool lit;            /* static_range variables, constexpr ints */
    uint8_t fuzz;        /* FZ_ bits: how its value may depend on a reduction's order */
} KgVar;

typedef struct KgBuf {   /* an input or output buffer */
    const char *name;
    uint8_t et;
    int kind;            /* KB_VEC (n or M x S), KB_ROW (N), KB_COL (M) */
    const char *stride;  /* 2-D matrices: the row stride parameter */
    bool stored;
} KgBuf;

enum { KB_VEC, KB_ROW, KB_COL };

typedef struct Kg {
    Arena *a;
    uint64_t rng;
    KgenOptions o;
    bool two_d;
    int block, bm, bn;             /* constexpr sizes */
    int n, m, ncols;               /* 1-D: n; 2-D: m x ncols */
    int grid0, grid1;
    KgVar vars[512];
    int n_vars, var_base, level;
    bool in_helper;
    int helper_const;              /* the helper's constexpr C */
    int uid, n_helpers, loop_depth;
    KgBuf ins[6], outs[4];
    int n_ins, n_outs;
    bool flag[2];                  /* constexpr flags F0, F1 */
    int k0;                        /* constexpr int K0 */
    Buf *out;                      /* where statements go */
    int indent;
    Buf helpers;
    unsigned forbid;               /* FZ_ bits the expression being generated must not carry */
    unsigned taint;                /* FZ_ bits of what was generated since the last reset */
    int n_combines;                /* @jit combine functions written */
} Kg;

/* Order dependence. A float sum combines in an order the layout pass
 * changes (doc/interp.md, "Reductions"), so its last bits may change
 * there, and the stage differential allows a relative error on float
 * buffers (1e-5 for f32/f64 buffers, 2e-2 for f16/bf16). Such a value is
 * fuzzy: FZ_FINE when it was summed in f32/f64, FZ_COARSE in f16/bf16 (or
 * rounded to them). A fuzzy value must never reach what amplifies a last
 * bit into a different result (a comparison, a conversion to an integer,
 * //, %, a bitcast, argmax, an integer buffer), nor a buffer whose
 * tolerance is finer than its own; the generator keeps it out by
 * generating those operands with the bits forbidden (g->forbid): a leaf
 * then neither picks a fuzzy variable nor sums floats. */
enum { FZ_FINE = 1, FZ_COARSE = 2, FZ_ANY = 3 };

/* ---- random numbers: splitmix64 ---- */

static uint64_t kg_next(Kg *g) {
    uint64_t z = (g->rng += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static int kg_rand(Kg *g, int n) { return n <= 1 ? 0 : (int)(kg_next(g) % (uint64_t)n); }
static bool kg_chance(Kg *g, int percent) { return kg_rand(g, 100) < percent; }
static bool kg_has(const Kg *g, unsigned f) { return (g->o.features & f) != 0; }

/* ---- types ---- */

static const uint8_t kg_value_types[] = {ET_F16, ET_BF16, ET_F32, ET_F64, ET_I8, ET_I16,
                                         ET_I32, ET_I64,  ET_U8,  ET_U16, ET_U32};

static const char *kg_tl_name(uint8_t et) {
    switch (et) {
    case ET_I1: return "int1";
    case ET_I8: return "int8";
    case ET_I16: return "int16";
    case ET_I32: return "int32";
    case ET_I64: return "int64";
    case ET_U8: return "uint8";
    case ET_U16: return "uint16";
    case ET_U32: return "uint32";
    case ET_U64: return "uint64";
    case ET_F16: return "float16";
    case ET_BF16: return "bfloat16";
    case ET_F32: return "float32";
    default: return "float64";
    }
}

static uint8_t kg_any_type(Kg *g) { return kg_value_types[kg_rand(g, (int)ARRAY_LEN(kg_value_types))]; }
static bool kg_float(uint8_t et) { return elem_is_float((ElemType)et); }
static bool kg_int(uint8_t et) { return et != ET_I1 && elem_is_int((ElemType)et); }
static bool kg_signed(uint8_t et) { return elem_is_signed((ElemType)et); }

/* tric's int_promote: the wider wins; at equal width the unsigned one */
static uint8_t kg_int_promote(uint8_t a, uint8_t b) {
    int wa = elem_bits(a), wb = elem_bits(b);
    bool sa = kg_signed(a), sb = kg_signed(b);
    if (sa == sb) return wa > wb ? a : b;
    if (!sa) return wa >= wb ? a : b;
    return wb >= wa ? b : a;
}

/* The computation type of a binary operation (Triton's
 * binary_op_type_checking): a literal adopts the other operand's type
 * when it is of the same or a lower kind (int < float). */
static uint8_t kg_ctype(KgVal a, KgVal b, bool div_or_mod) {
    if (a.lit != b.lit) {
        KgVal s = a.lit ? a : b, t = a.lit ? b : a;
        if (kg_float(t.et) || !kg_float(s.et)) {
            if (div_or_mod && (t.et == ET_F16 || t.et == ET_BF16)) return ET_F32;
            return t.et;
        }
    }
    uint8_t x = a.et, y = b.et;
    if (x == ET_F64 || y == ET_F64) return ET_F64;
    if (x == ET_F32 || y == ET_F32) return ET_F32;
    if (x == ET_F16 || y == ET_F16) return div_or_mod ? ET_F32 : ET_F16;
    if (x == ET_BF16 && y == ET_BF16) return div_or_mod ? ET_F32 : ET_BF16;
    if (x == ET_BF16 || y == ET_BF16) return ET_F32;
    return kg_int_promote(x, y);
}

static KgVal kg_val(const char *s, uint8_t et, uint8_t sh) { return (KgVal){s, et, sh, false}; }

/* ---- text ---- */

static const char *kg_fmt(Kg *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static const char *kg_fmt(Kg *g, const char *fmt, ...) {
    Buf b = {.arena = g->a};
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&b, fmt, ap);
    va_end(ap);
    return buf_str(&b);
}

static void kg_line(Kg *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void kg_line(Kg *g, const char *fmt, ...) {
    for (int i = 0; i < g->indent; i++) buf_puts(g->out, "    ");
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(g->out, fmt, ap);
    va_end(ap);
    buf_putc(g->out, '\n');
}

static const char *kg_name(Kg *g, const char *prefix) { return kg_fmt(g, "%s%d", prefix, g->uid++); }

/* A shape tuple for tl.zeros/tl.full: constexpr names in the kernel,
 * numbers inside helpers (which do not see the kernel's names). */
static const char *kg_shape(Kg *g, uint8_t sh) {
    bool h = g->in_helper;
    if (!g->two_d) return h ? kg_fmt(g, "(%d,)", g->block) : "(BLOCK,)";
    const char *m = h ? kg_fmt(g, "%d", g->bm) : "BLOCK_M", *n = h ? kg_fmt(g, "%d", g->bn) : "BLOCK_N";
    if (sh == SH_R) return kg_fmt(g, "(1, %s)", n);
    if (sh == SH_C) return kg_fmt(g, "(%s, 1)", m);
    return kg_fmt(g, "(%s, %s)", m, n);
}

/* ---- variables ---- */

static void kg_define_fz(Kg *g, const char *name, uint8_t et, uint8_t sh, bool fixed, unsigned fuzz) {
    if (g->n_vars == (int)ARRAY_LEN(g->vars)) return;   /* the generator's limit; never reached in practice */
    g->vars[g->n_vars++] = (KgVar){name, et, sh, g->level, fixed, false, (uint8_t)fuzz};
}

static void kg_define(Kg *g, const char *name, uint8_t et, uint8_t sh, bool fixed) {
    kg_define_fz(g, name, et, sh, fixed, 0);
}

/* A random visible variable of shape within sh, bool or not; NULL if none. */
static KgVar *kg_pick_var(Kg *g, uint8_t sh, bool want_bool, bool assignable) {
    int cand[512], n = 0;
    for (int i = g->var_base; i < g->n_vars; i++) {
        KgVar *v = &g->vars[i];
        if ((v->sh & ~sh) || (v->et == ET_I1) != want_bool || v->lit || (v->fuzz & g->forbid)) continue;
        if (assignable && v->fixed) continue;
        cand[n++] = i;
    }
    if (!n) return NULL;
    KgVar *v = &g->vars[cand[kg_rand(g, n)]];
    g->taint |= v->fuzz;
    return v;
}

/* One of the latest few variables of shape within sh (their values are
 * what the stores write, so fewer computations end as dead code). */
static KgVar *kg_pick_recent(Kg *g, uint8_t sh, bool scalar_only) {
    int seen = 0;
    for (int i = g->n_vars - 1; i >= g->var_base && seen < 4; i--) {
        KgVar *v = &g->vars[i];
        if ((v->sh & ~sh) || v->et == ET_I1 || v->lit || v->fixed || (scalar_only && v->sh != SH_S)) continue;
        if (v->fuzz & g->forbid) continue;
        seen++;
        if (kg_chance(g, 50)) {
            g->taint |= v->fuzz;
            return v;
        }
    }
    return NULL;
}

/* An outer variable (defined before the current block): in a loop it is
 * carried, in a dynamic if it is a result. */
static KgVar *kg_pick_outer(Kg *g) {
    int cand[512], n = 0;
    for (int i = g->var_base; i < g->n_vars; i++)
        if (g->vars[i].level < g->level && !g->vars[i].fixed && !g->vars[i].lit && g->vars[i].et != ET_I1) cand[n++] = i;
    return n ? &g->vars[cand[kg_rand(g, n)]] : NULL;
}

/* Leaves a block: its variables go out of scope (they are never used
 * after it, so Python's scoping and Triton's region results agree). */
static void kg_leave(Kg *g, int n_before) {
    g->n_vars = n_before;
    g->level--;
}

/* ---- expressions ---- */

static KgVal kg_expr(Kg *g, uint8_t sh, int depth);
static KgVal kg_bool(Kg *g, uint8_t sh, int depth);

/* kg_expr with the fuzz bits `forbid` ruled out as well; *fuzz (unless
 * NULL) gets the bits the result carries, which also go on to g->taint */
static KgVal kg_expr_fz(Kg *g, uint8_t sh, int depth, unsigned forbid, unsigned *fuzz) {
    unsigned saved_forbid = g->forbid, saved_taint = g->taint;
    g->forbid |= forbid;
    g->taint = 0;
    KgVal v = kg_expr(g, sh, depth);
    if (fuzz) *fuzz = g->taint;
    g->taint |= saved_taint;
    g->forbid = saved_forbid;
    return v;
}

/* an expression whose value does not depend on any reduction's order */
static KgVal kg_exact(Kg *g, uint8_t sh, int depth) { return kg_expr_fz(g, sh, depth, FZ_ANY, NULL); }

/* v converted to et (no text when it already is); v is never a literal */
static KgVal kg_cast(Kg *g, KgVal v, uint8_t et) {
    if (v.et == et) return v;
    return kg_val(kg_fmt(g, "%s.to(tl.%s)", v.s, kg_tl_name(et)), et, v.sh);
}

/* v as an integer (floats and bools converted to i32) */
static KgVal kg_as_int(Kg *g, KgVal v) { return kg_int(v.et) ? v : kg_cast(g, v, ET_I32); }

/* v as an f32 or f64, for the math functions */
static KgVal kg_as_f32_f64(Kg *g, KgVal v) { return v.et == ET_F32 || v.et == ET_F64 ? v : kg_cast(g, v, ET_F32); }

/* A literal to combine with a value of type et: it must fit et (an
 * unsigned type takes no negative number, an 8-bit one nothing past 127). */
static KgVal kg_literal(Kg *g, uint8_t et, bool nonzero) {
    if (!g->in_helper && kg_chance(g, 10)) {                 /* a constexpr or static_range variable */
        for (int i = g->n_vars - 1; i >= g->var_base; i--)
            if (g->vars[i].lit && (!nonzero || strcmp(g->vars[i].name, "K0") == 0))
                return (KgVal){g->vars[i].name, ET_I32, SH_S, true};
    }
    if (g->in_helper && !nonzero && kg_chance(g, 25)) return (KgVal){"C", ET_I32, SH_S, true};
    if (kg_float(et) && kg_chance(g, 60)) {
        static const char *const fl[] = {"0.5", "2.0", "1.5", "0.25", "3.0", "1e-3", "7.5", "100.0"};
        const char *s = fl[kg_rand(g, (int)ARRAY_LEN(fl))];
        if (!nonzero && kg_chance(g, 10)) s = "0.0";
        if (kg_chance(g, 30)) s = kg_fmt(g, "(-%s)", s);
        return (KgVal){s, ET_F32, SH_S, true};
    }
    int v = nonzero ? 1 + kg_rand(g, 9) : kg_rand(g, kg_chance(g, 50) ? 8 : 101);
    if (kg_signed(et) && kg_chance(g, 30) && v) return (KgVal){kg_fmt(g, "(-%d)", v), ET_I32, SH_S, true};
    return (KgVal){kg_fmt(g, "%d", v), ET_I32, SH_S, true};
}

/* a number that et holds exactly enough: no negative unsigned, no float for ints */
static const char *kg_number(Kg *g, uint8_t et) {
    if (kg_float(et) && kg_chance(g, 70)) return kg_fmt(g, "%s%d.%d", kg_chance(g, 30) ? "-" : "", kg_rand(g, 20), kg_rand(g, 10));
    return kg_fmt(g, "%s%d", kg_signed(et) && kg_chance(g, 30) ? "-" : "", kg_rand(g, 101));
}

/* leaves: variables, indices, program ids, constants, loads */
static KgVal kg_load_expr(Kg *g, uint8_t sh);

static KgVal kg_leaf(Kg *g, uint8_t sh) {
    for (int tries = 0; tries < 8; tries++) {
        switch (kg_rand(g, 10)) {
        case 0: case 1: case 2: case 3: case 4: {
            KgVar *v = kg_pick_var(g, sh, false, false);
            if (v) return kg_val(v->name, v->et, v->sh);
            break;
        }
        case 5:
            if (g->in_helper) break;
            if (!g->two_d && sh == SH_F)
                return kg_val(kg_chance(g, 50) ? "tl.arange(0, BLOCK)" : "tl.arange(3, 3 + BLOCK)", ET_I32, SH_F);
            if (g->two_d && (sh & SH_R) && kg_chance(g, 50)) return kg_val("tl.arange(0, BLOCK_N)[None, :]", ET_I32, SH_R);
            if (g->two_d && (sh & SH_C)) return kg_val("tl.arange(0, BLOCK_M)[:, None]", ET_I32, SH_C);
            break;
        case 6:
            return kg_val(kg_fmt(g, "tl.program_id(%d)", g->two_d ? kg_rand(g, 2) : 0), ET_I32, SH_S);
        case 7:
            if (sh == SH_S) break;
            {
                uint8_t et = kg_any_type(g), s = g->two_d ? (uint8_t)(1 + kg_rand(g, 3)) : SH_F;
                s &= sh;
                if (!s) s = sh;
                if (kg_chance(g, 30)) return kg_val(kg_fmt(g, "tl.zeros(%s, dtype=tl.%s)", kg_shape(g, s), kg_tl_name(et)), et, s);
                return kg_val(kg_fmt(g, "tl.full(%s, %s, tl.%s)", kg_shape(g, s), kg_number(g, et), kg_tl_name(et)), et, s);
            }
        default:
            if (!g->in_helper && kg_has(g, KG_GATHER)) return kg_load_expr(g, sh);
        }
    }
    return kg_val(kg_fmt(g, "tl.program_id(0)"), ET_I32, SH_S);
}

/* a + b, a - b, a * b, with a literal on one side now and then */
static KgVal kg_arith(Kg *g, uint8_t sh, int depth) {
    static const char *const ops[] = {"+", "-", "*"};
    KgVal a = kg_expr(g, sh, depth - 1);
    KgVal b = kg_chance(g, 35) ? kg_literal(g, a.et, false) : kg_expr(g, sh, depth - 1);
    if (kg_chance(g, 50)) {
        KgVal t = a;
        a = b;
        b = t;
    }
    uint8_t et = kg_ctype(a, b, false);
    return kg_val(kg_fmt(g, "(%s %s %s)", a.s, ops[kg_rand(g, 3)], b.s), et, a.sh | b.sh);
}

/* makes the integer signedness of b agree with a (/, //, % demand it) */
static KgVal kg_same_sign(Kg *g, KgVal a, KgVal b) {
    if (!b.lit && kg_int(a.et) && kg_int(b.et) && kg_signed(a.et) != kg_signed(b.et)) return kg_cast(g, b, a.et);
    return b;
}

/* an integer divisor that cannot be 0: a constant, or (x & 7) + 1 */
static KgVal kg_divisor(Kg *g, KgVal a, uint8_t sh, int depth) {
    if (kg_chance(g, 50)) return kg_literal(g, a.et, true);
    KgVal x = kg_as_int(g, kg_exact(g, sh, depth - 1));
    KgVal d = kg_val(kg_fmt(g, "((%s & 7) + 1)", x.s), x.et, x.sh);
    return kg_same_sign(g, a, d);
}

static KgVal kg_division(Kg *g, uint8_t sh, int depth) {
    int what = kg_rand(g, 3);            /* 0: /, 1: //, 2: % */
    if (what == 1 || (!kg_has(g, KG_BITS) && what == 2)) what = kg_has(g, KG_BITS) ? 1 : 0;
    KgVal a = what ? kg_exact(g, sh, depth - 1) : kg_expr(g, sh, depth - 1);   /* // and % jump */
    KgVal b;
    if (what == 1 || (kg_int(a.et) && what == 2)) {
        a = kg_as_int(g, a);
        b = kg_divisor(g, a, sh, depth);
    } else if (what == 2) {
        /* float %: ptxgen's fmod is exact while |a / b| < 2^24 (doc/interp.md), so
         * the dividend is clamped and the divisor a constant of at least 0.5 */
        static const char *const divs[] = {"0.5", "1.5", "2.0", "3", "7", "7.5", "(-2.5)"};
        a = kg_val(kg_fmt(g, "tl.minimum(tl.maximum(%s, -1e6), 1e6)", a.s), a.et == ET_F64 ? ET_F64 : ET_F32, a.sh);
        const char *d = divs[kg_rand(g, (int)ARRAY_LEN(divs))];
        b = (KgVal){d, strchr(d, '.') ? ET_F32 : ET_I32, SH_S, true};
    } else {
        b = kg_chance(g, 30) ? kg_literal(g, a.et, true) : kg_same_sign(g, a, kg_exact(g, sh, depth - 1));
        if (kg_int(a.et) && kg_int(b.et) && !b.lit) b = kg_divisor(g, a, sh, depth);   /* int / int */
    }
    uint8_t et = kg_ctype(a, b, true);
    if (what == 0 && kg_int(et)) et = ET_F32;      /* int / int divides in fp32 */
    static const char *const ops[] = {"/", "//", "%"};
    return kg_val(kg_fmt(g, "(%s %s %s)", a.s, ops[what], b.s), et, a.sh | b.sh);
}

/* & | ^ << >> on integers (shift amounts kept below 8) */
static KgVal kg_bitop(Kg *g, uint8_t sh, int depth) {
    static const char *const ops[] = {"&", "|", "^", "<<", ">>"};
    int op = kg_rand(g, 5);
    KgVal a = kg_as_int(g, kg_exact(g, sh, depth - 1)), b;
    if (op >= 3) {
        b = kg_chance(g, 50) ? kg_val(kg_fmt(g, "%d", kg_rand(g, 8)), ET_I32, SH_S) : kg_as_int(g, kg_exact(g, sh, depth - 1));
        if (b.sh != SH_S || b.s[0] < '0' || b.s[0] > '9') b = kg_val(kg_fmt(g, "(%s & 7)", b.s), b.et, b.sh);
        else b.lit = true;
    } else {
        b = kg_chance(g, 30) ? kg_literal(g, a.et, false) : kg_as_int(g, kg_exact(g, sh, depth - 1));
    }
    return kg_val(kg_fmt(g, "(%s %s %s)", a.s, ops[op], b.s), kg_ctype(a, b, false), a.sh | b.sh);
}

static KgVal kg_unary(Kg *g, uint8_t sh, int depth) {
    int what = kg_rand(g, 3);
    KgVal a = what == 1 && kg_has(g, KG_BITS) ? kg_exact(g, sh, depth - 1) : kg_expr(g, sh, depth - 1);
    switch (what) {
    case 0: return kg_val(kg_fmt(g, "(-%s)", a.s), a.et, a.sh);
    case 1:
        if (kg_has(g, KG_BITS)) {
            a = kg_as_int(g, a);
            return kg_val(kg_fmt(g, "(~%s)", a.s), a.et, a.sh);
        }
        /* fall through */
    default: return kg_val(kg_fmt(g, "tl.abs(%s)", a.s), a.et, a.sh);
    }
}

static KgVal kg_where(Kg *g, uint8_t sh, int depth) {
    KgVal c = kg_bool(g, sh, depth - 1), a = kg_expr(g, sh, depth - 1);
    KgVal b = kg_chance(g, 30) ? kg_literal(g, a.et, false) : kg_expr(g, sh, depth - 1);
    return kg_val(kg_fmt(g, "tl.where(%s, %s, %s)", c.s, a.s, b.s), kg_ctype(a, b, false), c.sh | a.sh | b.sh);
}

/* Shape ops that give a full tile back in its shape, with its elements
 * moved: a transposed reshape, a 3-D permute, split of a join, split of a
 * reshaped interleave (sizes as numbers: helpers do not see constexprs).
 * Anything but a full-shape tile is left as it is. */
static KgVal kg_shape_op(Kg *g, uint8_t sh, int depth) {
    KgVal a = kg_expr(g, sh, depth - 1);
    if (sh != SH_F || a.sh != SH_F || a.lit || (!g->two_d && g->block < 2)) return a;
    int m = g->two_d ? g->bm : 2, n = g->two_d ? g->bn : g->block / 2;
    const char *full = g->two_d ? kg_fmt(g, "(%d, %d)", m, n) : kg_fmt(g, "(%d,)", 2 * n);
    const char *moved = kg_fmt(g, "tl.reshape(tl.trans(tl.reshape(%s, (%d, %d))), %s)", a.s, m, n, full);
    const char *s;
    switch (kg_rand(g, 4)) {
    case 0: s = moved; break;
    case 1:
        if (n < 2) return a;
        s = kg_fmt(g, "tl.reshape(tl.permute(tl.reshape(%s, (%d, %d, 2)), (2, 0, 1)), %s)", a.s, m, n / 2, full);
        break;
    case 2: s = kg_fmt(g, "tl.split(tl.join(%s, %s))[%d]", a.s, moved, kg_rand(g, 2)); break;
    default:
        s = kg_fmt(g, "tl.reshape(tl.interleave(%s, %s), (%d, %d, 2)).split()[%d]", moved, a.s, m, n, kg_rand(g, 2));
        if (!g->two_d) s = kg_fmt(g, "tl.reshape(%s, %s)", s, full);
        break;
    }
    return kg_val(s, a.et, a.sh);
}

/* tl.minimum/maximum (bf16 goes to fp32 first; literals count as tensors) */
static KgVal kg_minmax(Kg *g, uint8_t sh, int depth) {
    KgVal a = kg_expr(g, sh, depth - 1), b = kg_expr(g, sh, depth - 1);
    const char *f = kg_rand(g, 2) ? "maximum" : "minimum";
    const char *s = kg_chance(g, 20) ? kg_fmt(g, "%s(%s, %s)", f[1] == 'a' ? "max" : "min", a.s, b.s)
                                     : kg_fmt(g, "tl.%s(%s, %s)", f, a.s, b.s);
    if (a.et == ET_BF16) a.et = ET_F32;
    if (b.et == ET_BF16) b.et = ET_F32;
    return kg_val(s, kg_ctype(a, b, false), a.sh | b.sh);
}

static bool kg_fp_narrowing(uint8_t from, uint8_t to) {
    return kg_float(from) && kg_float(to) && elem_bits(to) < elem_bits(from);
}

/* does rounding to et make a fuzzy value coarse? */
static bool kg_half(uint8_t et) { return et == ET_F16 || et == ET_BF16; }

static KgVal kg_convert(Kg *g, uint8_t sh, int depth) {
    uint8_t to = kg_any_type(g);
    int how = kg_rand(g, 4);
    /* integers and bitcasts jump; a half type rounds a fine fuzz coarse */
    unsigned fz, forbid = how == 0 || kg_int(to) ? FZ_ANY : kg_half(to) && (g->forbid & FZ_COARSE) ? FZ_ANY : 0;
    KgVal a = kg_expr_fz(g, sh, depth - 1, forbid, &fz);
    if (fz && kg_half(to)) g->taint |= FZ_COARSE;
    if (how == 0) {          /* bitcast between types of one size */
        uint8_t same[4];
        int n = 0;
        for (size_t i = 0; i < ARRAY_LEN(kg_value_types); i++)
            if (elem_bits(kg_value_types[i]) == elem_bits(a.et) && kg_value_types[i] != a.et) same[n++] = kg_value_types[i];
        if (n) {
            to = same[kg_rand(g, n)];
            return kg_val(kg_fmt(g, "%s.to(tl.%s, bitcast=True)", a.s, kg_tl_name(to)), to, a.sh);
        }
    }
    if (how == 1 && kg_fp_narrowing(a.et, to))
        return kg_val(kg_fmt(g, "%s.to(tl.%s, fp_downcast_rounding=\"%s\")", a.s, kg_tl_name(to),
                             kg_rand(g, 2) ? "rtz" : "rtne"), to, a.sh);
    if (how == 2) return kg_val(kg_fmt(g, "tl.cast(%s, tl.%s)", a.s, kg_tl_name(to)), to, a.sh);
    return kg_val(kg_fmt(g, "%s.to(tl.%s)", a.s, kg_tl_name(to)), to, a.sh);
}

/* exp, exp2, log and log2 of positive values, sqrt of non-negative ones, ... */
static KgVal kg_math(Kg *g, uint8_t sh, int depth) {
    KgVal a = kg_as_f32_f64(g, kg_expr(g, sh, depth - 1));
    const char *s;
    switch (kg_rand(g, 8)) {
    case 0: s = kg_fmt(g, "tl.exp(%s)", a.s); break;
    case 1: s = kg_fmt(g, "tl.exp2(%s)", a.s); break;
    case 2: s = kg_fmt(g, "tl.log(tl.abs(%s) + 1.0)", a.s); break;
    case 3: s = kg_fmt(g, "tl.log2(tl.abs(%s) + 0.5)", a.s); break;
    case 4: s = kg_fmt(g, "tl.sqrt(tl.abs(%s))", a.s); break;
    case 5: s = kg_fmt(g, "tl.rsqrt(tl.abs(%s) + 1.0)", a.s); break;
    case 6: s = kg_fmt(g, "tl.sigmoid(%s)", a.s); break;
    default: {
        KgVal b = kg_as_f32_f64(g, kg_expr(g, sh, depth - 1));
        return kg_val(kg_fmt(g, "tl.fdiv(%s, %s)", a.s, b.s), kg_ctype(a, b, true), a.sh | b.sh);
    }
    }
    return kg_val(s, a.et, a.sh);
}

static KgVal kg_cdiv(Kg *g, uint8_t sh, int depth) {
    KgVal a = kg_as_int(g, kg_exact(g, sh, depth - 1));
    return kg_val(kg_fmt(g, "tl.cdiv(%s, %d)", a.s, 1 + kg_rand(g, 9)), a.et, a.sh);
}

/* `a if F0 else b`: a conditional expression on a constexpr, one side lowered */
static KgVal kg_static_choice(Kg *g, uint8_t sh, int depth) {
    int f = kg_rand(g, 2);
    KgVal a = kg_expr(g, sh, depth - 1), b = kg_expr(g, sh, depth - 1);
    KgVal r = g->flag[f] ? a : b;
    return kg_val(kg_fmt(g, "(%s if F%d else %s)", a.s, f, b.s), r.et, r.sh);
}

/* A call to a new @jit helper of one or two tensor arguments and a
 * constexpr C; its body (a local or two, then return) is generated for
 * the arguments' types, with only its parameters in scope. */
static void kg_assign_new(Kg *g, uint8_t sh, int depth);

static KgVal kg_call(Kg *g, uint8_t sh, int depth) {
    int n_args = 1 + kg_rand(g, 2), c = kg_rand(g, 8);
    KgVal args[2];
    unsigned fz[2];
    for (int i = 0; i < n_args; i++) args[i] = kg_expr_fz(g, sh, depth - 1, 0, &fz[i]);
    const char *name = kg_fmt(g, "helper%d", g->n_helpers++);
    Buf body = {0}, *saved_out = g->out;
    int saved_base = g->var_base, saved_n = g->n_vars, saved_indent = g->indent, saved_c = g->helper_const;
    g->out = &body;
    g->indent = 1;
    g->var_base = g->n_vars;
    g->in_helper = true;
    g->helper_const = c;
    g->level++;
    uint8_t all = 0;
    for (int i = 0; i < n_args; i++) {
        kg_define_fz(g, i ? "b" : "a", args[i].et, args[i].sh, false, fz[i]);
        all |= args[i].sh;
    }
    for (int i = kg_rand(g, 3); i > 0; i--) kg_assign_new(g, all, depth - 1);
    KgVal r = kg_expr(g, all, depth);
    kg_line(g, "return %s", r.s);
    kg_leave(g, saved_n);
    g->in_helper = false;
    g->var_base = saved_base;
    g->indent = saved_indent;
    g->helper_const = saved_c;
    g->out = saved_out;
    buf_printf(&g->helpers, "@triton.jit\ndef %s(a%s, C: tl.constexpr):\n%s\n\n", name, n_args == 2 ? ", b" : "",
               buf_str(&body));
    buf_free(&body);
    return kg_val(kg_fmt(g, "%s(%s%s%s, %d)", name, args[0].s, n_args == 2 ? ", " : "", n_args == 2 ? args[1].s : "",
                         c), r.et, r.sh);
}

/* ---- reductions ---- */

enum { RD_SUM, RD_MAX, RD_MIN, RD_ARGMAX, RD_ARGMIN, RD_XOR, RD_USER, RD_COUNT };

/* The element type of a reduction's result, as frontend/reductions.c
 * computes it: sum widens integers below 32 bits to (u)int32 (or takes
 * dtype=); max/min go to fp32/int32 below 32 bits (so bf16 always to
 * fp32); argmax/argmin give int32; xor_sum and tl.reduce keep the type. */
static uint8_t kg_rd_type(int kind, uint8_t et, uint8_t dtype) {
    switch (kind) {
    case RD_SUM:
        if (dtype) return dtype;
        if (kg_int(et) && elem_bits(et) < 32) return kg_signed(et) ? ET_I32 : ET_U32;
        return et;
    case RD_MAX: case RD_MIN:
        if (elem_bits(et) < 32) return kg_float(et) ? ET_F32 : ET_I32;
        return et;
    case RD_ARGMAX: case RD_ARGMIN: return ET_I32;
    default: return et;
    }
}

/* the fuzz of a float sum accumulated in et */
static unsigned kg_sum_fuzz(uint8_t et) { return kg_half(et) ? FZ_COARSE : FZ_FINE; }

/* The value that leaves a combination unchanged, for the `other=` of a
 * masked load: '0' for sums and xor, '>' for max, '<' for min, '&', '*'.
 * Integer data stay within +-100000 (kg_data), so for int64 an int32
 * bound is as neutral as the type's own. */
static const char *kg_neutral(char kind, uint8_t et) {
    bool f = kg_float(et), s = kg_signed(et);
    int bits = elem_bits(et);
    switch (kind) {
    case '>':
        if (f) return "-float('inf')";
        if (!s) return "0";
        return bits == 8 ? "-128" : bits == 16 ? "-32768" : "-2147483648";
    case '<':
        if (f) return "float('inf')";
        if (s) return bits == 8 ? "127" : bits == 16 ? "32767" : "2147483647";
        return bits == 8 ? "255" : bits == 16 ? "65535" : "4294967295";
    case '&':
        if (s) return "-1";
        return bits == 8 ? "255" : bits == 16 ? "65535" : "4294967295";
    case '*': return "1";
    default: return "0";
    }
}

/* v broadcast to class sh by adding zeros of its own type */
static KgVal kg_widen(Kg *g, KgVal v, uint8_t sh) {
    if (v.sh == sh) return v;
    return kg_val(kg_fmt(g, "(%s + tl.zeros(%s, dtype=tl.%s))", v.s, kg_shape(g, sh), kg_tl_name(v.et)), v.et, sh);
}

/* A tile of exactly class sh to reduce: an expression generated for sh
 * is often of a smaller class (a scalar broadcasts), which makes a dull
 * reduction; a few tries, then zeros added. */
static KgVal kg_tile(Kg *g, uint8_t sh, int depth, unsigned forbid) {
    KgVal x = kg_expr_fz(g, sh, depth, forbid, NULL);
    for (int tries = 0; tries < 3 && x.sh != sh; tries++) x = kg_expr_fz(g, sh, depth, forbid, NULL);
    return kg_widen(g, x, sh);
}

/* Triton's argmax combine breaks ties by the order when a NaN is among
 * the values (doc/interp.md): NaN becomes 0 first */
static KgVal kg_no_nan(Kg *g, KgVal v) {
    if (!kg_float(v.et)) return v;
    return kg_val(kg_fmt(g, "tl.where(%s != %s, 0.0, %s)", v.s, v.s, v.s), v.et, v.sh);
}

/* max/min of two scalars of type et in a combine function: tl.maximum
 * of bf16 gives fp32 (kg_minmax), which goes back exactly */
static const char *kg_combine_minmax(Kg *g, bool is_max, const char *a, const char *b, uint8_t et) {
    const char *s = kg_fmt(g, "tl.%s(%s, %s)", is_max ? "maximum" : "minimum", a, b);
    if (kg_int(et) && kg_chance(g, 30)) s = kg_fmt(g, "tl.where(%s %s %s, %s, %s)", a, is_max ? ">" : "<", b, a, b);
    return et == ET_BF16 ? kg_fmt(g, "%s.to(tl.bfloat16)", s) : s;
}

/* Writes a @jit combine function of one operand of type et, associative
 * and commutative so that the order (which the layout pass changes) does
 * not matter but for the last bits of a float sum: + (fuzzy for floats),
 * max, min, and for integers ^ | & *. *neutral gets kg_neutral's kind. */
static const char *kg_combine1(Kg *g, uint8_t et, char *neutral) {
    const char *name = kg_fmt(g, "combine%d", g->n_combines++), *r;
    int what = kg_rand(g, kg_int(et) ? 7 : 3);
    if (what == 0 && kg_float(et) && (g->forbid & kg_sum_fuzz(et))) what = 1;
    switch (what) {
    case 0: r = "a + b"; *neutral = '0'; if (kg_float(et)) g->taint |= kg_sum_fuzz(et); break;
    case 1: r = kg_combine_minmax(g, true, "a", "b", et); *neutral = '>'; break;
    case 2: r = kg_combine_minmax(g, false, "a", "b", et); *neutral = '<'; break;
    case 3: r = "a ^ b"; *neutral = '0'; break;
    case 4: r = "a | b"; *neutral = '0'; break;
    case 5: r = "a & b"; *neutral = '&'; break;
    default: r = "a * b"; *neutral = '*'; break;
    }
    if (kg_chance(g, 30)) buf_printf(&g->helpers, "@triton.jit\ndef %s(a, b):\n    r = %s\n    return r\n\n\n", name, r);
    else buf_printf(&g->helpers, "@triton.jit\ndef %s(a, b):\n    return %s\n\n\n", name, r);
    return name;
}

/* the axis argument (axis < 0: None), positional or not, sometimes
 * negative; None may be left out where it is the default */
static const char *kg_axis_arg(Kg *g, int axis, int rank, bool optional) {
    if (axis < 0) {
        if (optional && kg_chance(g, 50)) return "";
        return kg_chance(g, 50) ? ", None" : ", axis=None";
    }
    return kg_fmt(g, kg_chance(g, 50) ? ", %d" : ", axis=%d", kg_chance(g, 25) ? axis - rank : axis);
}

/* tl.OP(x, ARGS) or x.OP(ARGS); args is empty or starts with ", " */
static const char *kg_rd_call(Kg *g, const char *op, const char *x, const char *args) {
    if (kg_chance(g, 30)) return kg_fmt(g, "%s.%s(%s)", x, op, args[0] ? args + 2 : "");
    return kg_fmt(g, "tl.%s(%s%s)", op, x, args);
}

/* The text of reduction `kind` of x (of rank `rank`) along axis (-1: None) with keep_dims;
 * *et gets the result type, *neutral kg_neutral's kind. A float sum where
 * its fuzz is forbidden becomes a max. */
static const char *kg_rd_text(Kg *g, int kind, KgVal x, int rank, int axis, bool keep, uint8_t *et, char *neutral) {
    static const char *const names[] = {"sum", "max", "min", "argmax", "argmin", "xor_sum", "reduce"};
    const char *kd = keep ? ", keep_dims=True" : "";
    uint8_t dtype = 0;
    if (kind == RD_SUM && kg_chance(g, 20))
        dtype = kg_float(x.et) ? (kg_chance(g, 50) ? ET_F32 : ET_F64) : (kg_chance(g, 50) ? ET_I64 : ET_I32);
    if (kind == RD_SUM && kg_float(kg_rd_type(kind, x.et, dtype))) {
        unsigned fz = kg_sum_fuzz(kg_rd_type(kind, x.et, dtype));
        if (g->forbid & fz) kind = RD_MAX;
        else g->taint |= fz;
    }
    *et = kg_rd_type(kind, x.et, dtype);
    *neutral = kind == RD_MAX || kind == RD_ARGMAX ? '>' : kind == RD_MIN || kind == RD_ARGMIN ? '<' : '0';
    switch (kind) {
    case RD_SUM: {
        const char *args = kg_fmt(g, "%s%s%s", kg_axis_arg(g, axis, rank, true), kd,
                                  dtype ? kg_fmt(g, ", dtype=tl.%s", kg_tl_name(dtype)) : "");
        return kg_rd_call(g, names[kind], x.s, args);
    }
    case RD_MAX: case RD_MIN:
        return kg_rd_call(g, names[kind], x.s, kg_fmt(g, "%s%s", kg_axis_arg(g, axis, rank, true), kd));
    case RD_ARGMAX: case RD_ARGMIN: {
        const char *tie = kg_chance(g, 20) ? ", tie_break_left=True" : "";
        return kg_rd_call(g, names[kind], x.s, kg_fmt(g, "%s%s%s", kg_axis_arg(g, axis, rank, false), tie, kd));
    }
    case RD_XOR: return kg_rd_call(g, names[kind], x.s, kg_fmt(g, "%s%s", kg_axis_arg(g, axis, rank, true), kd));
    default: {
        const char *fn = kg_combine1(g, x.et, neutral), *ax = kg_axis_arg(g, axis, rank, false);
        if (ax[2] == 'a' || kg_chance(g, 30)) fn = kg_fmt(g, "combine_fn=%s", fn);   /* after axis=, by name */
        return kg_rd_call(g, names[kind], x.s, kg_fmt(g, "%s, %s%s", ax, fn, kd));
    }
    }
}

/* the operand a reduction of `kind` takes: integers for xor_sum, no NaN
 * for argmax/argmin; exact but for max/min (a sum of fuzzy values could
 * cancel down to its error) */
static KgVal kg_rd_input(Kg *g, int kind, uint8_t in, int depth) {
    KgVal x = kg_tile(g, in, depth, kind == RD_MAX || kind == RD_MIN ? 0 : FZ_ANY);
    if (kind == RD_XOR) x = kg_as_int(g, x);
    if (kind == RD_ARGMAX || kind == RD_ARGMIN) x = kg_no_nan(g, x);
    return x;
}

/* A reduction in an expression, its result of a class within sh: 1-D
 * tiles to scalars (or, with keep_dims, to shape (1,), broadcast back);
 * 2-D tiles along axis 0 to a row [None, :], along axis 1 to a column
 * [:, None] (or keep_dims), both axes to a scalar (axis=None, or one
 * reduction of another); rows and columns reduced along their size-1
 * dimension. */
static KgVal kg_reduction(Kg *g, uint8_t sh, int depth) {
    uint8_t res = SH_S, in = SH_F, et, et2;
    int axis = -1, kind = kg_rand(g, RD_COUNT);
    bool keep = false, nested = false, widen = false;
    char neutral;
    if (!g->two_d) {
        axis = kg_chance(g, 60) ? 0 : -1;
        keep = sh == SH_F && kg_chance(g, 25);
        widen = keep;
        res = keep ? SH_F : SH_S;
    } else {
        uint8_t opts[3] = {SH_S, SH_S, SH_S};
        int n = 1;
        if (sh & SH_R) opts[n++] = SH_R;
        if (sh & SH_C) opts[n++] = SH_C;
        res = opts[kg_rand(g, n)];
        if (res == SH_S) {
            in = (uint8_t)(1 + kg_rand(g, 3));
            nested = in == SH_F && kind != RD_ARGMAX && kind != RD_ARGMIN && kind != RD_USER && kg_chance(g, 30);
            axis = nested ? 1 : -1;
        } else if (kg_chance(g, 10)) {       /* both axes, keep_dims: (1, 1) */
            keep = widen = true;
        } else {
            in = kg_chance(g, 80) ? SH_F : res;
            axis = res == SH_R ? 0 : 1;
            keep = kg_chance(g, 50);
        }
    }
    KgVal x = kg_rd_input(g, kind, in, depth - 1);
    int rank = g->two_d ? 2 : 1;
    const char *s = kg_rd_text(g, kind, x, rank, axis, keep, &et, &neutral);
    if (nested) {   /* the 1-D result of axis 1 along its only axis */
        s = kg_rd_text(g, kind, kg_val(s, et, SH_F), 1, kg_chance(g, 50) ? 0 : -1, false, &et2, &neutral);
        et = et2;
    }
    if (widen) return kg_val(kg_fmt(g, "(%s + tl.zeros(%s, dtype=tl.%s))", s, kg_shape(g, res), kg_tl_name(et)), et, res);
    if (g->two_d && res != SH_S && !keep) s = kg_fmt(g, "%s%s", s, res == SH_R ? "[None, :]" : "[:, None]");
    return kg_val(s, et, res);
}

/* ---- reduction statements ---- */

/* The class of a reduction of a 2-D tile along axis with keep_dims (axis
 * < 0: a scalar); for 1-D always a scalar. */
static uint8_t kg_rd_class(const Kg *g, int axis) {
    if (!g->two_d || axis < 0) return SH_S;
    return axis == 0 ? SH_R : SH_C;
}

/* a random axis: 0 or None for 1-D; 0, 1 or None for 2-D */
static int kg_rd_axis(Kg *g) {
    int r = kg_rand(g, g->two_d ? 3 : 2);
    return r == (g->two_d ? 2 : 1) ? -1 : r;
}

/* softmax along an axis (kernels/softmax.py): masked elements -inf, the
 * max subtracted (exact), exp, sum (fuzzy), divide */
static void kg_softmax(Kg *g) {
    int axis = g->two_d ? kg_rand(g, 2) : 0;
    uint8_t cls = kg_rd_class(g, axis), et;
    const char *s = kg_name(g, "s"), *m = kg_name(g, "m"), *e = kg_name(g, "e"), *d = kg_name(g, "d"),
               *y = kg_name(g, "v");
    KgBuf *b = &g->ins[kg_rand(g, g->n_ins)];
    if (kg_float(b->et) && b->kind == KB_VEC && kg_chance(g, 50)) {
        const char *ptr = g->two_d ? kg_fmt(g, "%s + rm * %s + rn", b->name, b->stride) : kg_fmt(g, "%s + offs", b->name);
        et = b->et == ET_F64 ? ET_F64 : ET_F32;
        kg_line(g, "%s = tl.load(%s, mask=mask, other=-float('inf'))%s", s, ptr, et == b->et ? "" : ".to(tl.float32)");
    } else {
        KgVal x = kg_as_f32_f64(g, kg_tile(g, SH_F, g->o.depth - 1, FZ_ANY));
        et = x.et;
        kg_line(g, "%s = tl.where(mask, %s, -float('inf'))", s, x.s);
    }
    const char *ax = kg_axis_arg(g, axis, g->two_d ? 2 : 1, false);
    bool keep = g->two_d && kg_chance(g, 50);
    const char *sub = g->two_d && !keep ? (axis == 0 ? "[None, :]" : "[:, None]") : "";
    kg_line(g, "%s = %s%s", m, kg_rd_call(g, "max", s, kg_fmt(g, "%s%s", ax, keep ? ", keep_dims=True" : "")), sub);
    if (kg_chance(g, 30)) kg_line(g, "%s = tl.exp2((%s - %s) * 1.4426950408889634)", e, s, m);
    else kg_line(g, "%s = tl.exp(%s - %s)", e, s, m);
    kg_line(g, "%s = %s%s", d, kg_rd_call(g, "sum", e, kg_fmt(g, "%s%s", ax, keep ? ", keep_dims=True" : "")), sub);
    kg_line(g, "%s = %s / %s", y, e, d);
    kg_define(g, s, et, SH_F, false);
    kg_define(g, m, et, cls, false);
    kg_define(g, e, et, SH_F, false);
    kg_define_fz(g, d, et, cls, false, FZ_FINE);
    kg_define_fz(g, y, et, SH_F, false, FZ_FINE);
}

/* A masked load with the neutral `other` of the reduction that follows,
 * the reduction, and its result broadcast back against the tile. */
static void kg_masked_reduce(Kg *g) {
    KgBuf *b = &g->ins[kg_rand(g, g->n_ins)];
    int kind = kg_rand(g, RD_COUNT);
    if (kind == RD_XOR && !kg_int(b->et)) kind = RD_SUM;
    uint8_t cls = SH_F, et;
    char neutral = 0;
    const char *t = kg_name(g, "l"), *r = kg_name(g, "r"), *v = kg_name(g, "v"), *ptr, *mask, *sub = "";
    if (!g->two_d) {
        ptr = kg_fmt(g, "%s + offs", b->name);
        mask = "mask";
    } else if (b->kind == KB_ROW) {
        ptr = kg_fmt(g, "%s + rn1", b->name);
        mask = "rn1 < N";
        sub = "[None, :]";
        cls = SH_R;
    } else if (b->kind == KB_COL) {
        ptr = kg_fmt(g, "%s + rm1", b->name);
        mask = "rm1 < M";
        sub = "[:, None]";
        cls = SH_C;
    } else {
        ptr = kg_fmt(g, "%s + rm * %s + rn", b->name, b->stride);
        mask = "mask";
    }
    /* the combine (and so the neutral value) is chosen before the load is
     * written: the text goes to a scratch buffer first */
    int axis = cls == SH_F ? kg_rd_axis(g) : -1;
    bool keep = axis >= 0 && g->two_d && kg_chance(g, 50);
    unsigned saved_taint = g->taint;
    g->taint = 0;
    const char *red = kg_rd_text(g, kind, kg_val(t, b->et, cls), g->two_d ? 2 : 1, axis, keep, &et, &neutral);
    unsigned fz = g->taint;
    g->taint = saved_taint;
    uint8_t rcls = kg_rd_class(g, axis);
    if (g->two_d && axis >= 0 && !keep) red = kg_fmt(g, "%s%s", red, axis == 0 ? "[None, :]" : "[:, None]");
    kg_line(g, "%s = tl.load(%s, mask=%s, other=%s)%s", t, ptr, mask, kg_neutral(neutral, b->et), sub);
    kg_line(g, "%s = %s", r, red);
    kg_define(g, t, b->et, cls, false);
    kg_define_fz(g, r, et, rcls, false, fz);
    static const char *const ops[] = {"-", "+", "*"};
    KgVal tv = kg_val(t, b->et, cls), rv = kg_val(r, et, rcls);
    kg_line(g, "%s = %s %s %s", v, t, ops[kg_rand(g, 3)], r);
    kg_define_fz(g, v, kg_ctype(tv, rv, false), (uint8_t)(cls | rcls), false, fz);
}

/* an exact full tile in a new variable (so that kg_no_nan repeats a name) */
static KgVal kg_tile_var(Kg *g) {
    KgVal x = kg_tile(g, SH_F, g->o.depth - 1, FZ_ANY);
    const char *name = kg_name(g, "v");
    kg_line(g, "%s = %s", name, x.s);
    kg_define(g, name, x.et, SH_F, false);
    return kg_val(name, x.et, SH_F);
}

/* vN, iN = tl.max(x, axis, return_indices=True) (or min) */
static void kg_indices(Kg *g) {
    bool is_max = kg_rand(g, 2), keep = g->two_d && kg_chance(g, 70);
    int axis = kg_rd_axis(g);
    if (axis < 0) keep = false;
    KgVal x = kg_no_nan(g, kg_tile_var(g));
    const char *v = kg_name(g, "v"), *i = kg_name(g, "i");
    const char *args = kg_fmt(g, "%s, return_indices=True%s%s", kg_axis_arg(g, axis, g->two_d ? 2 : 1, true),
                              kg_chance(g, 20) ? ", return_indices_tie_break_left=True" : "", keep ? ", keep_dims=True" : "");
    kg_line(g, "%s, %s = %s", v, i, kg_rd_call(g, is_max ? "max" : "min", x.s, args));
    uint8_t cls = kg_rd_class(g, axis);
    if (g->two_d && axis >= 0 && !keep) {
        kg_line(g, "%s = %s%s", v, v, axis == 0 ? "[None, :]" : "[:, None]");
        kg_line(g, "%s = %s%s", i, i, axis == 0 ? "[None, :]" : "[:, None]");
    }
    kg_define(g, v, x.et == ET_BF16 ? ET_F32 : x.et, cls, false);
    kg_define(g, i, ET_I32, cls, false);
}

/* tl.reduce over a tuple of two tiles with a generated combine function:
 * an argmax by hand (values and their flat indices), or a sum (or xor)
 * of one tile with the max (or min) of another */
static void kg_tuple_reduce(Kg *g) {
    int axis = kg_rd_axis(g);
    bool keep = axis >= 0 && g->two_d && kg_chance(g, 50);
    uint8_t cls = kg_rd_class(g, axis);
    const char *name = kg_fmt(g, "combine%d", g->n_combines++), *p = kg_name(g, "v"), *q = kg_name(g, "v");
    KgVal x, y;
    unsigned fz = 0;
    if (kg_chance(g, 50)) {
        bool is_max = kg_rand(g, 2);
        x = kg_no_nan(g, kg_tile_var(g));
        y = kg_val(g->two_d ? (kg_chance(g, 50) ? "(rm * BLOCK_N + rn)"
                                                : "(tl.arange(0, BLOCK_M)[:, None] * BLOCK_N + tl.arange(0, BLOCK_N)[None, :])")
                            : (kg_chance(g, 50) ? "offs" : "tl.arange(0, BLOCK)"), ET_I32, SH_F);
        buf_printf(&g->helpers, "@triton.jit\ndef %s(v1, i1, v2, i2):\n    win = (v1 %s v2) | ((v1 == v2) & (i1 < i2))\n"
                   "    return tl.where(win, v1, v2), tl.where(win, i1, i2)\n\n\n", name, is_max ? ">" : "<");
    } else {
        x = kg_tile(g, SH_F, g->o.depth - 1, FZ_ANY);
        y = kg_tile(g, SH_F, g->o.depth - 1, FZ_ANY);
        const char *first = kg_int(x.et) && kg_chance(g, 30) ? "a0 ^ b0" : "a0 + b0";
        if (kg_float(x.et)) fz = kg_sum_fuzz(x.et);
        buf_printf(&g->helpers, "@triton.jit\ndef %s(a0, a1, b0, b1):\n    return %s, %s\n\n\n", name, first,
                   kg_combine_minmax(g, kg_rand(g, 2), "a1", "b1", y.et));
    }
    const char *ax = kg_axis_arg(g, axis, g->two_d ? 2 : 1, false);
    const char *fn = ax[2] == 'a' ? kg_fmt(g, "combine_fn=%s", name) : name;
    kg_line(g, "%s, %s = tl.reduce((%s, %s)%s, %s%s)", p, q, x.s, y.s, ax, fn, keep ? ", keep_dims=True" : "");
    if (g->two_d && axis >= 0 && !keep) {
        kg_line(g, "%s = %s%s", p, p, axis == 0 ? "[None, :]" : "[:, None]");
        kg_line(g, "%s = %s%s", q, q, axis == 0 ? "[None, :]" : "[:, None]");
    }
    kg_define_fz(g, p, x.et, cls, false, fz);
    kg_define(g, q, y.et, cls, false);
}

static void kg_reduce_stmt(Kg *g) {
    switch (kg_rand(g, 4)) {
    case 0: kg_softmax(g); return;
    case 1: kg_masked_reduce(g); return;
    case 2: kg_indices(g); return;
    default: kg_tuple_reduce(g); return;
    }
}

/* An expression of any non-bool type whose shape fits sh. */
static KgVal kg_expr(Kg *g, uint8_t sh, int depth) {
    if (depth <= 0 || kg_chance(g, 25)) return kg_leaf(g, sh);
    for (;;) {
        switch (kg_rand(g, 19)) {
        case 0: case 1: case 2: case 3: return kg_arith(g, sh, depth);
        case 4: return kg_division(g, sh, depth);
        case 5: case 6: if (kg_has(g, KG_BITS)) return kg_bitop(g, sh, depth); break;
        case 7: return kg_unary(g, sh, depth);
        case 8: case 9: return kg_where(g, sh, depth);
        case 10: return kg_minmax(g, sh, depth);
        case 11: if (kg_has(g, KG_CASTS)) return kg_convert(g, sh, depth); break;
        case 12: if (kg_has(g, KG_MATH)) return kg_math(g, sh, depth); break;
        case 13: if (kg_has(g, KG_HELPERS) && !g->in_helper && g->n_helpers < 4) return kg_call(g, sh, depth); break;
        case 14: if (kg_has(g, KG_BITS)) return kg_cdiv(g, sh, depth); break;
        case 15: case 16: if (kg_has(g, KG_REDUCE)) return kg_reduction(g, sh, depth); break;
        case 17: if (kg_has(g, KG_SHAPES)) return kg_shape_op(g, sh, depth); break;
        default: if (kg_has(g, KG_IFS) && !g->in_helper) return kg_static_choice(g, sh, depth); break;
        }
    }
}

/* A bool (i1) of shape within sh: comparisons, & | ^ of bools, masks.
 * Its operands are exact: a comparison turns a last bit into a jump. */
static KgVal kg_bool_exact(Kg *g, uint8_t sh, int depth);

static KgVal kg_bool(Kg *g, uint8_t sh, int depth) {
    unsigned saved = g->forbid;
    g->forbid = FZ_ANY;
    KgVal v = kg_bool_exact(g, sh, depth);
    g->forbid = saved;
    return v;
}

static KgVal kg_bool_exact(Kg *g, uint8_t sh, int depth) {
    int r = kg_rand(g, 10);
    if (r < 2) {
        KgVar *v = kg_pick_var(g, sh, true, false);
        if (v) return kg_val(v->name, ET_I1, v->sh);
    }
    if (r == 2 && depth > 0) {
        static const char *const ops[] = {"&", "|", "^"};
        KgVal a = kg_bool(g, sh, depth - 1), b = kg_bool(g, sh, depth - 1);
        return kg_val(kg_fmt(g, "(%s %s %s)", a.s, ops[kg_rand(g, 3)], b.s), ET_I1, a.sh | b.sh);
    }
    static const char *const cmps[] = {"<", "<=", ">", ">=", "==", "!="};
    KgVal a = kg_expr(g, sh, depth - 1);
    KgVal b = kg_chance(g, 40) ? kg_literal(g, a.et, false) : kg_expr(g, sh, depth - 1);
    return kg_val(kg_fmt(g, "(%s %s %s)", a.s, cmps[kg_rand(g, 6)], b.s), ET_I1, a.sh | b.sh);
}

/* ---- memory ---- */

/* A load of a random input as an expression: a gather through `% n`, a
 * reversed or masked load, or one scalar element. */
static KgVal kg_load_expr(Kg *g, uint8_t sh) {
    KgBuf *b = &g->ins[kg_rand(g, g->n_ins)];
    int c1 = 1 + kg_rand(g, 5), c2 = kg_rand(g, 17);
    if (!g->two_d) {
        if (sh == SH_S || kg_chance(g, 25))
            return kg_val(kg_fmt(g, "tl.load(%s + (tl.program_id(0) * %d + %d) %% n)", b->name, c1, c2), b->et, SH_S);
        switch (kg_rand(g, 3)) {
        case 0: return kg_val(kg_fmt(g, "tl.load(%s + (offs * %d + %d) %% n)", b->name, c1, c2), b->et, SH_F);
        case 1: return kg_val(kg_fmt(g, "tl.load(%s + (n - 1 - offs), mask=mask, other=%d)", b->name, kg_rand(g, 3)), b->et, SH_F);
        default: return kg_val(kg_fmt(g, "tl.load(%s + offs, mask=offs < n - %d)", b->name, c2), b->et, SH_F);
        }
    }
    if (b->kind == KB_ROW && (sh & SH_R))
        return kg_val(kg_fmt(g, "tl.load(%s + (rn * %d + %d) %% N)", b->name, c1, c2), b->et, SH_R);
    if (b->kind == KB_COL && (sh & SH_C))
        return kg_val(kg_fmt(g, "tl.load(%s + (rm * %d + %d) %% M)", b->name, c1, c2), b->et, SH_C);
    if (b->kind == KB_VEC && sh == SH_F) {
        if (kg_chance(g, 50))
            return kg_val(kg_fmt(g, "tl.load(%s + ((rm * %d + %d) %% M) * %s + (rn + %d) %% N)", b->name, c1, c2,
                                 b->stride, c2), b->et, SH_F);
        return kg_val(kg_fmt(g, "tl.load(%s + rm * %s + rn, mask=mask, other=%d)", b->name, b->stride, kg_rand(g, 2)), b->et, SH_F);
    }
    const char *idx = b->kind == KB_ROW ? "tl.program_id(1) % N" : b->kind == KB_COL ? "tl.program_id(0) % M"
                                                                    : kg_fmt(g, "(tl.program_id(0) %% M) * %s", b->stride);
    return kg_val(kg_fmt(g, "tl.load(%s + %s)", b->name, idx), b->et, SH_S);
}

/* what a tile store writes: mostly a recent variable */
static KgVal kg_stored_value(Kg *g) {
    KgVar *r = kg_chance(g, 70) ? kg_pick_recent(g, SH_F, false) : NULL;
    return r ? kg_val(r->name, r->et, r->sh) : kg_expr(g, SH_F, g->o.depth);
}

/* The fuzz a buffer takes: none into integers (the conversion jumps),
 * fine into f32/f64, any into f16/bf16 (its tolerance is the coarse one). */
static unsigned kg_buf_forbid(const KgBuf *b) {
    return kg_int(b->et) ? FZ_ANY : kg_half(b->et) ? 0 : FZ_COARSE;
}

/* stores a value to b: a whole output tile, or one scalar per program */
static void kg_store(Kg *g, KgBuf *b) {
    unsigned saved = g->forbid;
    g->forbid |= kg_buf_forbid(b);
    KgVal v = b->kind == KB_ROW ? (KgVal){0} : kg_stored_value(g);
    const char *mask = "mask";
    if (kg_has(g, KG_STORES) && kg_chance(g, 25)) mask = kg_fmt(g, "mask & %s", kg_bool(g, SH_F, 1).s);
    if (b->kind == KB_ROW) {   /* the scalar output: one element per program */
        KgVar *r = kg_pick_recent(g, SH_S, true);
        KgVal s = r ? kg_val(r->name, r->et, r->sh) : kg_expr(g, SH_S, g->o.depth - 1);
        kg_line(g, "tl.store(%s + %s, %s)", b->name, g->two_d ? kg_fmt(g, "tl.program_id(0) * %d + tl.program_id(1)", g->grid1)
                                                                : "tl.program_id(0)", s.s);
    } else if (g->two_d) {
        kg_line(g, "tl.store(%s + rm * N + rn, %s, mask=%s)", b->name, v.s, mask);
    } else {
        kg_line(g, "tl.store(%s + offs, %s, mask=%s)", b->name, v.s, mask);
    }
    b->stored = true;
    g->forbid = saved;
}

/* ---- statements ---- */

static void kg_block(Kg *g, int n);

static void kg_assign_new(Kg *g, uint8_t sh, int depth) {
    if (kg_chance(g, 15)) {
        KgVal c = kg_bool(g, sh, depth);
        const char *name = kg_name(g, "c");
        kg_line(g, "%s = %s", name, c.s);
        kg_define(g, name, ET_I1, c.sh, false);
        return;
    }
    unsigned fz;
    KgVal v = kg_expr_fz(g, sh, depth, 0, &fz);
    const char *name = kg_name(g, "v");
    kg_line(g, "%s = %s", name, v.s);
    kg_define_fz(g, name, v.et, v.sh, false, fz);
}

/* Re-assigns a variable. Inside a region (loop, dynamic if) its type and
 * shape must stay: the value is cast and broadcast to them. */
static void kg_reassign(Kg *g) {
    KgVar *v = g->level > 0 && kg_chance(g, 70) ? kg_pick_outer(g) : NULL;
    if (!v) v = kg_pick_var(g, SH_F, false, true);
    if (!v) {
        kg_assign_new(g, SH_F, g->o.depth);
        return;
    }
    bool keep = g->level > 0;
    /* in a region the variable keeps its type and its fuzz (earlier
     * statements of a loop body read it as that): the value may carry no
     * more, and none into an integer, and only coarse into a half type */
    unsigned fz, allowed = !keep ? FZ_ANY : kg_int(v->et) ? 0 : kg_half(v->et) ? (v->fuzz & FZ_COARSE ? FZ_ANY : 0) : v->fuzz;
    KgVal e = kg_expr_fz(g, keep ? v->sh : SH_F, g->o.depth, FZ_ANY & ~allowed, &fz);
    if (!keep) {
        kg_line(g, "%s = %s", v->name, e.s);
        v->et = e.et;
        v->sh = e.sh;
        v->fuzz = (uint8_t)fz;
        return;
    }
    static const char *const aug[] = {"+=", "-=", "*=", "&=", "|=", "^="};
    int op = kg_rand(g, kg_int(v->et) && kg_has(g, KG_BITS) ? 6 : 3);
    e = kg_cast(g, e, v->et);
    if (e.sh == v->sh && kg_chance(g, 40)) {
        kg_line(g, "%s %s %s", v->name, aug[op], e.s);
        return;
    }
    const char *s = e.sh == v->sh ? e.s : kg_fmt(g, "%s + tl.zeros(%s, dtype=tl.%s)", e.s, kg_shape(g, v->sh), kg_tl_name(v->et));
    kg_line(g, "%s = %s", v->name, s);
}

/* a scalar int bound for a loop: small constants, parameters, pid */
static const char *kg_bound(Kg *g) {
    switch (kg_rand(g, 5)) {
    case 0: return kg_fmt(g, "%d", kg_rand(g, 5));
    case 1: return "t0";
    case 2: return "t1";
    case 3: return kg_fmt(g, "(tl.program_id(0) %% 3)");
    default: return kg_fmt(g, "(t0 & 3)");
    }
}

static void kg_for(Kg *g) {
    const char *iv = kg_name(g, "k");
    int kind = kg_rand(g, 5), n_before = g->n_vars;
    bool lit = false;
    uint8_t ivt = ET_I32;
    const char *lo = kind == 3 ? "0" : kg_bound(g), *hi = kg_bound(g);
    if (!strcmp(lo, "t1") || !strcmp(hi, "t1")) ivt = ET_I64;   /* t1 is an i64 parameter */
    switch (kind) {
    case 0: kg_line(g, "for %s in range(%s, %s):", iv, lo, hi); break;
    case 1: kg_line(g, "for %s in tl.range(%s, %s, %d):", iv, lo, hi, 1 + kg_rand(g, 2)); break;
    case 2: kg_line(g, "for %s in range(%s, %s, -1):", iv, hi, lo); break;
    case 3: kg_line(g, "for %s in range(%s):", iv, hi); break;
    default:
        kg_line(g, "for %s in tl.static_range(%d):", iv, 1 + kg_rand(g, 3));
        lit = true;
    }
    g->level++;
    g->loop_depth++;
    g->indent++;
    kg_define(g, iv, ivt, SH_S, true);
    g->vars[g->n_vars - 1].lit = lit;
    kg_block(g, 1 + kg_rand(g, 3));
    kg_reassign(g);
    g->indent--;
    g->loop_depth--;
    kg_leave(g, n_before);
}

static void kg_while(Kg *g) {
    const char *w = kg_name(g, "w");
    kg_line(g, "%s = 0", w);
    kg_line(g, "while %s < %s:", w, kg_bound(g));
    int n_before = g->n_vars;
    g->level++;
    g->loop_depth++;
    g->indent++;
    kg_define(g, w, ET_I32, SH_S, true);
    kg_block(g, 1 + kg_rand(g, 2));
    kg_reassign(g);
    kg_line(g, "%s += 1", w);
    g->indent--;
    g->loop_depth--;
    kg_leave(g, n_before);
    kg_define(g, w, ET_I32, SH_S, true);   /* the count after the loop */
}

static void kg_branch(Kg *g, const char *head) {
    kg_line(g, "%s", head);
    int n_before = g->n_vars;
    g->level++;
    g->indent++;
    kg_block(g, 1 + kg_rand(g, 2));
    g->indent--;
    kg_leave(g, n_before);
}

static void kg_if(Kg *g) {
    const char *cond;
    if (kg_chance(g, 30)) {    /* static: on a constexpr */
        static const char *const sc[] = {"F0", "not F1", "K0 > 3", "F1"};
        cond = sc[kg_rand(g, 4)];
    } else {
        cond = kg_bool(g, SH_S, 2).s;
    }
    kg_branch(g, kg_fmt(g, "if %s:", cond));
    if (kg_chance(g, 50)) kg_branch(g, "else:");
}

static void kg_stmt(Kg *g) {
    bool nest = g->level < 2;
    switch (kg_rand(g, 13)) {
    case 0: case 1: case 2: case 3: case 4: kg_assign_new(g, SH_F, g->o.depth); return;
    case 5: case 6: kg_reassign(g); return;
    case 7: if (nest && kg_has(g, KG_LOOPS)) { kg_for(g); return; } break;
    case 8: if (nest && kg_has(g, KG_LOOPS) && kg_chance(g, 50)) { kg_while(g); return; } break;
    case 9: case 10: if (nest && kg_has(g, KG_IFS)) { kg_if(g); return; } break;
    case 11: if (kg_has(g, KG_REDUCE)) { kg_reduce_stmt(g); return; } break;
    default:
        if (kg_has(g, KG_STORES) && g->level > 0) {
            KgBuf *b = &g->outs[kg_rand(g, g->n_outs)];
            kg_store(g, b);
            return;
        }
    }
    kg_assign_new(g, SH_F, g->o.depth);
}

static void kg_block(Kg *g, int n) {
    for (int i = 0; i < n; i++) kg_stmt(g);
}

/* ---- the kernel ---- */

/* random input data of a type: what its values can hold */
static const char *kg_data(Kg *g, uint8_t et, const char *shape) {
    const char *t = elem_triton_name((ElemType)et);
    switch (et) {
    case ET_I8: return kg_fmt(g, "randint(-128, 128, %s, i8)", shape);
    case ET_I16: return kg_fmt(g, "randint(-3000, 3000, %s, i16)", shape);
    case ET_I32: case ET_I64:
        return kg_fmt(g, "randint(%d, %d, %s, %s)", kg_chance(g, 50) ? -20 : -100000, kg_chance(g, 50) ? 20 : 100000, shape, t);
    case ET_U8: return kg_fmt(g, "randint(0, 256, %s, u8)", shape);
    case ET_U16: return kg_fmt(g, "randint(0, 65536, %s, u16)", shape);
    case ET_U32: return kg_fmt(g, "randint(0, 1000000, %s, u32)", shape);
    default: return kg_fmt(g, "%s(%s, %s)", kg_chance(g, 50) ? "rand" : "randn", shape, t);
    }
}

typedef struct KgParams {
    Buf names, sig, args;
} KgParams;

static void kg_param(Kg *g, KgParams *p, const char *name, const char *sig, const char *arg) {
    const char *sep = p->names.len ? ", " : "";
    buf_printf(&p->names, "%s%s", sep, name);
    buf_printf(&p->sig, "%s%s", sep, sig);
    if (arg) buf_printf(&p->args, "%s%s = %s", p->args.len ? "; " : "", name, arg);
}

static const char *kg_ptr_sig(Kg *g, uint8_t et) {
    return kg_fmt(g, "*%s%s", elem_triton_name((ElemType)et), kg_chance(g, 50) ? ":16" : "");
}

static int kg_pow2(Kg *g, int max_log) { return 1 << kg_rand(g, max_log + 1); }

/* sizes not multiples of the block (unless the block is 1) */
static int kg_size(Kg *g, int block) { return block * kg_rand(g, 3) + 1 + kg_rand(g, block > 1 ? block - 1 : 6); }

static void kg_layout(Kg *g) {
    g->two_d = kg_has(g, KG_2D) && kg_chance(g, 40);
    if (!g->two_d) {
        g->block = kg_pow2(g, 10);
        g->n = kg_size(g, g->block);
        g->grid0 = (g->n + g->block - 1) / g->block;
        g->grid1 = 1;
        return;
    }
    do {
        g->bm = kg_pow2(g, 7);
        g->bn = kg_pow2(g, 7);
    } while (g->bm * g->bn > 4096);
    g->m = kg_size(g, g->bm);
    g->ncols = kg_size(g, g->bn);
    g->grid0 = (g->m + g->bm - 1) / g->bm;
    g->grid1 = (g->ncols + g->bn - 1) / g->bn;
}

/* The parameters: inputs, outputs, the per-program scalar output, sizes,
 * strides, scalars t0 (i32) t1 (i64) t2 (fp32), constexprs. */
static void kg_params(Kg *g, KgParams *p) {
    g->n_ins = 1 + kg_rand(g, 3);
    for (int i = 0; i < g->n_ins; i++) {
        KgBuf *b = &g->ins[i];
        b->name = kg_fmt(g, "in%d", i);
        b->et = kg_any_type(g);
        b->kind = g->two_d && i > 0 ? kg_rand(g, 3) : KB_VEC;
        const char *shape = "n";
        if (g->two_d) shape = b->kind == KB_ROW ? "N" : b->kind == KB_COL ? "M" : kg_fmt(g, "(M, stride%d)", i);
        if (g->two_d && b->kind == KB_VEC) b->stride = kg_fmt(g, "stride%d", i);
        kg_param(g, p, b->name, kg_ptr_sig(g, b->et), kg_data(g, b->et, shape));
    }
    g->n_outs = 1 + kg_rand(g, 3);
    for (int i = 0; i < g->n_outs; i++) {
        KgBuf *b = &g->outs[i];
        b->name = kg_fmt(g, "out%d", i);
        b->et = kg_any_type(g);
        b->kind = i == 2 ? KB_ROW : KB_VEC;   /* the third output holds one scalar per program */
        const char *shape = b->kind == KB_ROW ? kg_fmt(g, "%d", g->grid0 * g->grid1) : g->two_d ? "(M, N)" : "n";
        kg_param(g, p, b->name, kg_ptr_sig(g, b->et),
                 kg_fmt(g, "%s(%s, %s)", kg_chance(g, 50) ? "zeros" : "empty", shape, elem_triton_name((ElemType)b->et)));
    }
    if (!g->two_d) {
        kg_param(g, p, "n", "i32", kg_fmt(g, "%d", g->n));
    } else {
        kg_param(g, p, "M", "i32", kg_fmt(g, "%d", g->m));
        kg_param(g, p, "N", "i32", kg_fmt(g, "%d", g->ncols));
        for (int i = 0; i < g->n_ins; i++) {
            if (!g->ins[i].stride) continue;
            bool hint = kg_chance(g, 50);
            int s = hint ? (g->ncols + 15) / 16 * 16 + 16 * kg_rand(g, 2) : g->ncols + kg_rand(g, 5);
            kg_param(g, p, g->ins[i].stride, hint ? "i32:16" : "i32", kg_fmt(g, "%d", s));
        }
    }
    kg_param(g, p, "t0", "i32", kg_fmt(g, "%d", kg_rand(g, 9) - 3));
    kg_param(g, p, "t1", "i64", kg_fmt(g, "%d", kg_rand(g, 6)));
    kg_param(g, p, "t2", "fp32", kg_chance(g, 50) ? "0.75" : "-2.5");
    if (g->two_d) {
        kg_param(g, p, "BLOCK_M: tl.constexpr", kg_fmt(g, "%d", g->bm), NULL);
        kg_param(g, p, "BLOCK_N: tl.constexpr", kg_fmt(g, "%d", g->bn), NULL);
    } else {
        kg_param(g, p, "BLOCK: tl.constexpr", kg_fmt(g, "%d", g->block), NULL);
    }
    for (int i = 0; i < 2; i++) {
        g->flag[i] = kg_rand(g, 2);
        kg_param(g, p, kg_fmt(g, "F%d: tl.constexpr", i), g->flag[i] ? "True" : "False", NULL);
    }
    g->k0 = 1 + kg_rand(g, 7);
    kg_param(g, p, "K0: tl.constexpr", kg_fmt(g, "%d", g->k0), NULL);
}

/* indices, masks and the first loads */
static void kg_prologue(Kg *g) {
    kg_define(g, "t0", ET_I32, SH_S, true);
    kg_define(g, "t1", ET_I64, SH_S, true);
    kg_define(g, "t2", ET_F32, SH_S, true);
    kg_define(g, "K0", ET_I32, SH_S, true);
    g->vars[g->n_vars - 1].lit = true;
    if (!g->two_d) {
        kg_define(g, "n", ET_I32, SH_S, true);
        kg_line(g, "pid = tl.program_id(0)");
        kg_line(g, "offs = pid * BLOCK + tl.arange(0, BLOCK)");
        kg_line(g, "mask = offs < n");
        kg_define(g, "pid", ET_I32, SH_S, true);
        kg_define(g, "offs", ET_I32, SH_F, true);
        kg_define(g, "mask", ET_I1, SH_F, true);
    } else {
        kg_define(g, "M", ET_I32, SH_S, true);
        kg_define(g, "N", ET_I32, SH_S, true);
        kg_line(g, "pid_m = tl.program_id(0)");
        kg_line(g, "pid_n = tl.program_id(1)");
        kg_line(g, "rm1 = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)");
        kg_line(g, "rn1 = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)");
        kg_line(g, "rm = rm1[:, None]");
        kg_line(g, "rn = rn1[None, :]");
        kg_line(g, "mask = (rm < M) & (rn < N)");
        kg_define(g, "pid_m", ET_I32, SH_S, true);
        kg_define(g, "pid_n", ET_I32, SH_S, true);
        kg_define(g, "rm", ET_I32, SH_C, true);
        kg_define(g, "rn", ET_I32, SH_R, true);
        kg_define(g, "mask", ET_I1, SH_F, true);
    }
    for (int i = 0; i < g->n_ins; i++) {
        KgBuf *b = &g->ins[i];
        const char *name = kg_fmt(g, "x%d", i), *other = kg_chance(g, 50) ? "" : kg_fmt(g, ", other=%d", kg_rand(g, 3));
        uint8_t sh = SH_F;
        if (!g->two_d) {
            kg_line(g, "%s = tl.load(%s + offs, mask=mask%s)", name, b->name, other);
        } else if (b->kind == KB_ROW) {
            kg_line(g, "%s = tl.load(%s + rn1, mask=rn1 < N%s)[None, :]", name, b->name, other);
            sh = SH_R;
        } else if (b->kind == KB_COL) {
            kg_line(g, "%s = tl.load(%s + rm1, mask=rm1 < M%s)[:, None]", name, b->name, other);
            sh = SH_C;
        } else {
            kg_line(g, "%s = tl.load(%s + rm * %s + rn, mask=mask%s)", name, b->name, b->stride, other);
        }
        kg_define(g, name, b->et, sh, false);
    }
}

/* The whole file for `seed` (heap; free()). */
static char *kgen_kernel(uint64_t seed, const KgenOptions *opt) {
    Kg g0 = {0}, *g = &g0;
    g->a = arena_new();
    g->rng = seed;
    g->o = opt ? *opt : kgen_default;
    g->level = 0;
    int num_warps = kg_chance(g, 8) ? 16 : 1 << kg_rand(g, 4);
    kg_layout(g);
    KgParams p = {{0}, {0}, {0}};
    kg_params(g, &p);
    Buf body = {0};
    g->out = &body;
    g->indent = 1;
    kg_prologue(g);
    kg_block(g, g->o.stmts);
    for (int i = 0; i < g->n_outs; i++)
        if (!g->outs[i].stored || kg_chance(g, 30)) kg_store(g, &g->outs[i]);
    Buf file = {0};
    buf_puts(&file, "import triton\nimport triton.language as tl\n\n\n");
    buf_puts(&file, buf_str(&g->helpers));
    buf_printf(&file, "@triton.jit\ndef kern(%s):\n%s\n", buf_str(&p.names), buf_str(&body));
    buf_printf(&file, "# kernel: kern\n# signature: %s\n# num_warps: %d\n", buf_str(&p.sig), num_warps);
    if (g->two_d) buf_printf(&file, "# grid: (cdiv(M, %d), cdiv(N, %d), 1)\n", g->bm, g->bn);
    else buf_printf(&file, "# grid: (cdiv(n, %d), 1, 1)\n", g->block);
    buf_printf(&file, "# args: %s\n", buf_str(&p.args));
    buf_free(&body);
    buf_free(&p.names);
    buf_free(&p.sig);
    buf_free(&p.args);
    buf_free(&g->helpers);
    arena_free_all(g->a);
    return buf_take(&file);
}

#endif
