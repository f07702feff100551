/* A small interpreter of the straight-line PTX that ptxgen/mathlib.c writes,
 * shared by test_f64_math.c and test_f32_math.c: they run the emitted text
 * and compare it bit for bit with their C models. Instructions are decoded
 * once (pi_load), so running is a switch per instruction. Only what
 * mathlib.c uses is known; anything else fails pi_load with a message, so a
 * new instruction there needs its meaning here.
 *
 * Registers keep their bits in a uint64_t; .b32 and .f32 ones only the low
 * 32 (an f32 register holds the float's bit pattern). Immediates are
 * 0dXXXXXXXXXXXXXXXX (f64 bits), 0fXXXXXXXX (f32 bits) or integers. */
#ifndef TRIC_TEST_PTX_INTERP_H
#define TRIC_TEST_PTX_INTERP_H

#include "base/base.h"
#include "ptxgen/ptx.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* X(enum, PTX name) */
#define PI_OPS(X)                                                                   \
    X(PI_FMA_F64, "fma.rn.f64") X(PI_MUL_F64, "mul.rn.f64") X(PI_ADD_F64, "add.rn.f64") \
    X(PI_SUB_F64, "sub.rn.f64") X(PI_DIV_F64, "div.rn.f64") X(PI_NEG_F64, "neg.f64")    \
    X(PI_SETP_GT_F64, "setp.gt.f64") X(PI_SETP_LT_F64, "setp.lt.f64")                   \
    X(PI_SETP_EQ_F64, "setp.eq.f64") X(PI_SETP_LTU_F64, "setp.ltu.f64")                 \
    X(PI_SELP_F64, "selp.f64") X(PI_CVT_RNI_F64, "cvt.rni.f64.f64")                     \
    X(PI_CVT_RNI_S32_F64, "cvt.rni.s32.f64") X(PI_CVT_F64_S32, "cvt.rn.f64.s32")        \
    X(PI_MOV_F64, "mov.f64") X(PI_MOV_B64, "mov.b64")                                   \
    X(PI_FMA_F32, "fma.rn.f32") X(PI_MUL_F32, "mul.rn.f32") X(PI_ADD_F32, "add.rn.f32") \
    X(PI_SUB_F32, "sub.rn.f32") X(PI_SETP_LT_F32, "setp.lt.f32")                        \
    X(PI_SETP_LE_F32, "setp.le.f32") X(PI_SETP_EQ_F32, "setp.eq.f32")                   \
    X(PI_SELP_F32, "selp.f32") X(PI_CVT_F32_S32, "cvt.rn.f32.s32") X(PI_MOV_F32, "mov.f32") \
    X(PI_SELP_S32, "selp.s32") X(PI_SELP_B32, "selp.b32") X(PI_SHR_S32, "shr.s32")      \
    X(PI_ADD_S32, "add.s32") X(PI_SUB_S32, "sub.s32") X(PI_AND_B32, "and.b32")          \
    X(PI_MAD_LO_S32, "mad.lo.s32") X(PI_MOV_B32, "mov.b32")

typedef enum PiOp {
#define X(e, name) e,
    PI_OPS(X)
#undef X
    PI_COUNT
} PiOp;

static const char *const pi_names[PI_COUNT] = {
#define X(e, name) [e] = name,
    PI_OPS(X)
#undef X
};

enum { PI_MAX_OPNDS = 5, PI_REG = 1, PI_IMM, PI_PAIR };

typedef struct PiOpnd {
    int kind;
    int cls, num, num2;    /* PI_REG; PI_PAIR: {num, num2} = {low, high} */
    uint64_t imm;          /* PI_IMM: the bits, or the sign-extended integer */
} PiOpnd;

typedef struct PiIns {
    PiOp op;
    int n;
    PiOpnd o[PI_MAX_OPNDS];
} PiIns;

typedef struct PiProg {
    PiIns *ins;
    int n, cap;
    uint64_t *regs[RC_COUNT];
    int n_regs[RC_COUNT];
} PiProg;

static uint64_t pi_bits64(double v) {
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}
static double pi_f64(uint64_t u) {
    double v;
    memcpy(&v, &u, sizeof v);
    return v;
}
static uint32_t pi_bits32(float v) {
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}
static float pi_f32(uint64_t u) {
    uint32_t w = (uint32_t)u;
    float v;
    memcpy(&v, &w, sizeof v);
    return v;
}

/* cvt.rni.s32.f64: nearest even, saturating, NaN -> 0 */
static int32_t pi_cvt_rni_s32(double t) {
    if (isnan(t)) return 0;
    if (t >= 2147483647.0) return INT32_MAX;
    if (t <= -2147483648.0) return INT32_MIN;
    return (int32_t)rint(t);
}

static void pi_need_reg(PiProg *p, int cls, int num) {
    if (num < p->n_regs[cls]) return;
    int n = num + 16;
    p->regs[cls] = realloc(p->regs[cls], sizeof(uint64_t) * (size_t)n);
    memset(p->regs[cls] + p->n_regs[cls], 0, sizeof(uint64_t) * (size_t)(n - p->n_regs[cls]));
    p->n_regs[cls] = n;
}

/* The slot of a register ptxgen made (class in the top bits). */
static uint64_t *pi_reg(PiProg *p, Reg r) {
    int cls = (int)REG_CLASS(r), num = (int)(r & 0x0FFFFFFFu);
    pi_need_reg(p, cls, num);
    return &p->regs[cls][num];
}

static int pi_reg_class(const char *s, int *len) {
    static const char *const prefix[RC_COUNT] = {"p", "h", "r", "f", "rd", "fd"};
    int best = -1, best_len = 0;
    for (int c = 0; c < RC_COUNT; c++) {
        int l = (int)strlen(prefix[c]);
        if (!strncmp(s, prefix[c], (size_t)l) && s[l] >= '0' && s[l] <= '9' && l > best_len) {
            best = c;
            best_len = l;
        }
    }
    *len = best_len;
    return best;
}

static bool pi_parse_reg(PiProg *p, const char *s, int *cls, int *num) {
    int len;
    if (*s != '%' || (*cls = pi_reg_class(s + 1, &len)) < 0) return false;
    *num = atoi(s + 1 + len);
    pi_need_reg(p, *cls, *num);
    return true;
}

static char *pi_trim(char *s) {
    while (*s == ' ') s++;
    char *end = s + strlen(s);
    while (end > s && end[-1] == ' ') *--end = 0;
    return s;
}

static bool pi_parse_opnd(PiProg *p, char *s, PiOpnd *o) {
    s = pi_trim(s);
    if (*s == '{') {
        char *comma = strchr(s, ',');
        char *close = comma ? strchr(comma, '}') : NULL;
        if (!close) return false;
        *comma = *close = 0;
        int c2;
        o->kind = PI_PAIR;
        return pi_parse_reg(p, pi_trim(s + 1), &o->cls, &o->num) &&
               pi_parse_reg(p, pi_trim(comma + 1), &c2, &o->num2) && c2 == o->cls;
    }
    if (*s == '%') {
        o->kind = PI_REG;
        return pi_parse_reg(p, s, &o->cls, &o->num);
    }
    o->kind = PI_IMM;
    if (s[0] == '0' && (s[1] == 'd' || s[1] == 'f')) o->imm = strtoull(s + 2, NULL, 16);
    else o->imm = (uint64_t)strtoll(s, NULL, 0);
    return true;
}

/* One instruction line ("\top.type d, a, b;") into p; false if malformed or unknown. */
static bool pi_parse_line(PiProg *p, char *line) {
    while (*line == '\t' || *line == ' ') line++;
    if (!*line || *line == '/') return true;
    char *semi = strrchr(line, ';');
    char *sp = strchr(line, ' ');
    if (!semi || !sp) return false;
    *semi = *sp = 0;
    PiIns in = {.op = PI_COUNT};
    for (int i = 0; i < PI_COUNT; i++)
        if (!strcmp(line, pi_names[i])) in.op = (PiOp)i;
    if (in.op == PI_COUNT) {
        printf("the test's PTX interpreter does not know '%s'\n", line);
        return false;
    }
    /* operands: split on commas outside braces */
    for (char *s = sp + 1;;) {
        char *q = s;
        for (int depth = 0; *q && (depth || *q != ','); q++) depth += *q == '{' ? 1 : *q == '}' ? -1 : 0;
        bool last = !*q;
        *q = 0;
        if (in.n == PI_MAX_OPNDS || !pi_parse_opnd(p, s, &in.o[in.n++])) return false;
        if (last) break;
        s = q + 1;
    }
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 64;
        p->ins = realloc(p->ins, sizeof *p->ins * (size_t)p->cap);
    }
    p->ins[p->n++] = in;
    return true;
}

/* Appends the instructions of a PTX text (NULL = none). */
static bool pi_load(PiProg *p, const char *text) {
    char *copy = strdup(text ? text : "");
    bool ok = true;
    for (char *line = strtok(copy, "\n"); line && ok; line = strtok(NULL, "\n")) {
        char *keep = strdup(line);
        ok = pi_parse_line(p, line);
        if (!ok) printf("cannot run PTX line: %s\n", keep);
        free(keep);
    }
    free(copy);
    return ok;
}

static uint64_t pi_get(PiProg *p, const PiOpnd *o) { return o->kind == PI_IMM ? o->imm : p->regs[o->cls][o->num]; }
static double pi_getd(PiProg *p, const PiOpnd *o) { return pi_f64(pi_get(p, o)); }
static float pi_getf(PiProg *p, const PiOpnd *o) { return pi_f32(pi_get(p, o)); }
static uint32_t pi_getu(PiProg *p, const PiOpnd *o) { return (uint32_t)pi_get(p, o); }
static int32_t pi_geti(PiProg *p, const PiOpnd *o) { return (int32_t)pi_getu(p, o); }
static void pi_set(PiProg *p, const PiOpnd *o, uint64_t v) {
    bool narrow = o->cls == RC_B32 || o->cls == RC_F32;
    p->regs[o->cls][o->num] = narrow ? (uint32_t)v : v;
}
static void pi_setd(PiProg *p, const PiOpnd *o, double v) { pi_set(p, o, pi_bits64(v)); }
static void pi_setf(PiProg *p, const PiOpnd *o, float v) { pi_set(p, o, pi_bits32(v)); }

/* One instruction; PTX's meaning in C (fma/fmaf are fused, C's float and
 * double arithmetic rounds to nearest at its type, as .rn). */
static void pi_step(PiProg *p, const PiIns *in) {
    const PiOpnd *o = in->o;
    switch (in->op) {
    case PI_FMA_F64: pi_setd(p, &o[0], fma(pi_getd(p, &o[1]), pi_getd(p, &o[2]), pi_getd(p, &o[3]))); break;
    case PI_MUL_F64: pi_setd(p, &o[0], pi_getd(p, &o[1]) * pi_getd(p, &o[2])); break;
    case PI_ADD_F64: pi_setd(p, &o[0], pi_getd(p, &o[1]) + pi_getd(p, &o[2])); break;
    case PI_SUB_F64: pi_setd(p, &o[0], pi_getd(p, &o[1]) - pi_getd(p, &o[2])); break;
    case PI_DIV_F64: pi_setd(p, &o[0], pi_getd(p, &o[1]) / pi_getd(p, &o[2])); break;
    case PI_NEG_F64: pi_setd(p, &o[0], -pi_getd(p, &o[1])); break;
    case PI_SETP_GT_F64: pi_set(p, &o[0], pi_getd(p, &o[1]) > pi_getd(p, &o[2])); break;
    case PI_SETP_LT_F64: pi_set(p, &o[0], pi_getd(p, &o[1]) < pi_getd(p, &o[2])); break;
    case PI_SETP_EQ_F64: pi_set(p, &o[0], pi_getd(p, &o[1]) == pi_getd(p, &o[2])); break;
    case PI_SETP_LTU_F64: pi_set(p, &o[0], !(pi_getd(p, &o[1]) >= pi_getd(p, &o[2]))); break;
    case PI_CVT_RNI_F64: pi_setd(p, &o[0], rint(pi_getd(p, &o[1]))); break;
    case PI_CVT_RNI_S32_F64: pi_set(p, &o[0], (uint32_t)pi_cvt_rni_s32(pi_getd(p, &o[1]))); break;
    case PI_CVT_F64_S32: pi_setd(p, &o[0], (double)pi_geti(p, &o[1])); break;
    case PI_FMA_F32: pi_setf(p, &o[0], fmaf(pi_getf(p, &o[1]), pi_getf(p, &o[2]), pi_getf(p, &o[3]))); break;
    case PI_MUL_F32: pi_setf(p, &o[0], pi_getf(p, &o[1]) * pi_getf(p, &o[2])); break;
    case PI_ADD_F32: pi_setf(p, &o[0], pi_getf(p, &o[1]) + pi_getf(p, &o[2])); break;
    case PI_SUB_F32: pi_setf(p, &o[0], pi_getf(p, &o[1]) - pi_getf(p, &o[2])); break;
    case PI_SETP_LT_F32: pi_set(p, &o[0], pi_getf(p, &o[1]) < pi_getf(p, &o[2])); break;
    case PI_SETP_LE_F32: pi_set(p, &o[0], pi_getf(p, &o[1]) <= pi_getf(p, &o[2])); break;
    case PI_SETP_EQ_F32: pi_set(p, &o[0], pi_getf(p, &o[1]) == pi_getf(p, &o[2])); break;
    case PI_CVT_F32_S32: pi_setf(p, &o[0], (float)pi_geti(p, &o[1])); break;
    case PI_SELP_F64: case PI_SELP_F32: case PI_SELP_S32: case PI_SELP_B32:
        pi_set(p, &o[0], pi_get(p, &o[3]) ? pi_get(p, &o[1]) : pi_get(p, &o[2]));
        break;
    case PI_SHR_S32: pi_set(p, &o[0], (uint32_t)(pi_geti(p, &o[1]) >> (pi_geti(p, &o[2]) & 31))); break;
    case PI_ADD_S32: pi_set(p, &o[0], pi_getu(p, &o[1]) + pi_getu(p, &o[2])); break;
    case PI_SUB_S32: pi_set(p, &o[0], pi_getu(p, &o[1]) - pi_getu(p, &o[2])); break;
    case PI_AND_B32: pi_set(p, &o[0], pi_getu(p, &o[1]) & pi_getu(p, &o[2])); break;
    case PI_MAD_LO_S32: pi_set(p, &o[0], pi_getu(p, &o[1]) * pi_getu(p, &o[2]) + pi_getu(p, &o[3])); break;
    case PI_MOV_B32: case PI_MOV_F32: case PI_MOV_F64: pi_set(p, &o[0], pi_get(p, &o[1])); break;
    case PI_MOV_B64:
        if (o[1].kind == PI_PAIR) {   /* {low, high} */
            pi_set(p, &o[0], p->regs[o[1].cls][o[1].num2] << 32 | p->regs[o[1].cls][o[1].num]);
        } else if (o[0].kind == PI_PAIR) {
            uint64_t v = pi_get(p, &o[1]);
            p->regs[o[0].cls][o[0].num] = (uint32_t)v;
            p->regs[o[0].cls][o[0].num2] = v >> 32;
        } else {
            pi_set(p, &o[0], pi_get(p, &o[1]));
        }
        break;
    case PI_COUNT: break;
    }
}

static void pi_run(PiProg *p) {
    for (int i = 0; i < p->n; i++) pi_step(p, &p->ins[i]);
}

static void pi_free(PiProg *p) {
    free(p->ins);
    for (int c = 0; c < RC_COUNT; c++) free(p->regs[c]);
}

/* Emits one mathlib function d = f(a) (registers of class cls) into a fresh
 * Ptx and loads its prologue and body into prog; *a_out, *d_out name the
 * registers. false (with a message) if the text cannot be run. */
static bool pi_emit(PiProg *prog, RegClass cls, void (*emit)(Ptx *P, Reg d, Reg a), Reg *a_out, Reg *d_out,
                    bool dump) {
    Target target = {80, false, 4, 2};
    Ctx *ctx = ctx_new(&target);
    Ptx P = {0};
    P.ctx = ctx;
    P.arena = ctx->arena;
    P.out = &P.body;
    *a_out = ptx_reg(&P, cls);
    *d_out = ptx_reg(&P, cls);
    emit(&P, *d_out, *a_out);
    if (dump) printf("%s%s", P.prologue.data ? P.prologue.data : "", P.body.data);
    bool ok = pi_load(prog, P.prologue.data) && pi_load(prog, P.body.data);
    pi_reg(prog, *a_out);
    pi_reg(prog, *d_out);
    buf_free(&P.body);
    buf_free(&P.prologue);
    ctx_free(ctx);
    return ok;
}

#endif
