/* A small interpreter of the straight-line PTX that ptxgen/mathlib.c writes,
 * shared by test_f64_math.c and test_f32_math.c: they run the emitted text
 * and compare it bit for bit with their C models. Instructions are decoded
 * once (pi_load), so running is a switch per instruction. Only what
 * mathlib.c uses is known; anything else fails pi_load with a message, so a
 * new instruction there needs its meaning here.
 *
 * Registers keep their bits in a uint64_t; .b32 and .f32 ones only the low
 * 32 (an f32 register holds the float's bit pattern). Immediates are
 * 0dXXXXXXXXXXXXXXXX (f64 bits), 0fXXXXXXXX (f32 bits) or integers.
 *
 * Integer instructions of any width (what ptxgen/divconst.c writes:
 * add/sub/mul.hi/mad.lo/shr/and/neg/mov/selp/setp at .s/.u/.b 16, 32, 64)
 * not in the table are decoded by pi_parse_int into PI_INT.
 *
 * Shared memory, for ptxgen/convert.c's code: ld/st.shared (.v2/.v4) at
 * [reg+offset] in p->smem, %tid.x from p->tid, the symbol tric_smem as
 * address 0, and bar.sync as a marker (PI_BAR) where a caller switches
 * threads: pi_run_range runs a part of the program for one thread. */
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
    X(PI_MAD_LO_S32, "mad.lo.s32") X(PI_MOV_B32, "mov.b32")                             \
    X(PI_CVT_S16_S8, "cvt.s16.s8") X(PI_CVT_U16_U8, "cvt.u16.u8")

typedef enum PiOp {
#define X(e, name) e,
    PI_OPS(X)
#undef X
    PI_INT,        /* an integer instruction decoded by pi_parse_int */
    PI_ST_SHARED,  /* width = bytes per element, vec = elements */
    PI_LD_SHARED,
    PI_BAR,
    PI_COUNT
} PiOp;

static const char *const pi_names[PI_INT] = {
#define X(e, name) [e] = name,
    PI_OPS(X)
#undef X
};

enum { PI_MAX_OPNDS = 5, PI_REG = 1, PI_IMM, PI_PAIR, PI_VEC, PI_MEM, PI_TID };

typedef struct PiOpnd {
    int kind;
    int cls, num, num2;    /* PI_REG, PI_MEM's address; PI_PAIR: {num, num2} = {low, high} */
    int nums[4], n_nums;   /* PI_VEC (and PI_PAIR): the registers in order */
    uint64_t imm;          /* PI_IMM: the bits, or the sign-extended integer; PI_MEM: the offset */
} PiOpnd;

/* PI_INT's operations, by PTX name (without the type) */
#define PI_INT_OPS(X)                                                                       \
    X(PII_ADD, "add") X(PII_SUB, "sub") X(PII_MUL_HI, "mul.hi") X(PII_MUL_LO, "mul.lo")      \
    X(PII_MAD_LO, "mad.lo") X(PII_SHR, "shr") X(PII_SHL, "shl") X(PII_AND, "and")           \
    X(PII_OR, "or") X(PII_XOR, "xor") X(PII_NEG, "neg") X(PII_MOV, "mov") X(PII_SELP, "selp") \
    X(PII_SETP_EQ, "setp.eq") X(PII_SETP_NE, "setp.ne") X(PII_SETP_LT, "setp.lt")           \
    X(PII_SETP_LE, "setp.le") X(PII_SETP_GT, "setp.gt") X(PII_SETP_GE, "setp.ge")

typedef enum PiIntOp {
#define X(e, name) e,
    PI_INT_OPS(X)
#undef X
    PII_COUNT
} PiIntOp;

static const char *const pi_int_names[PII_COUNT] = {
#define X(e, name) [e] = name,
    PI_INT_OPS(X)
#undef X
};

typedef struct PiIns {
    PiOp op;
    PiIntOp iop;   /* PI_INT: the operation, */
    int width;     /* its width in bits (shared memory: bytes), */
    bool sgn;      /* and whether the type is .s */
    int vec;       /* ld/st.shared: elements */
    int n;
    PiOpnd o[PI_MAX_OPNDS];
} PiIns;

typedef struct PiProg {
    PiIns *ins;
    int n, cap;
    uint64_t *regs[RC_COUNT];
    int n_regs[RC_COUNT];
    uint8_t *smem;        /* shared memory (the caller's), smem_size bytes */
    uint32_t smem_size;
    uint32_t tid;         /* %tid.x */
    bool smem_fault;      /* an access fell outside smem or was misaligned */
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
    if (*s == '{') {   /* {a, b} or {a, b, c, d} */
        char *close = strchr(s, '}');
        if (!close) return false;
        *close = 0;
        o->n_nums = 0;
        for (char *e = s + 1;;) {
            char *comma = strchr(e, ',');
            if (comma) *comma = 0;
            int c;
            if (o->n_nums == 4 || !pi_parse_reg(p, pi_trim(e), &c, &o->nums[o->n_nums])) return false;
            if (o->n_nums && c != o->cls) return false;
            o->cls = c;
            o->n_nums++;
            if (!comma) break;
            e = comma + 1;
        }
        o->kind = o->n_nums == 2 ? PI_PAIR : PI_VEC;
        o->num = o->nums[0], o->num2 = o->nums[1];
        return o->n_nums == 2 || o->n_nums == 4;
    }
    if (*s == '[') {   /* [%r7] or [%r7+24] */
        char *close = strchr(s, ']'), *plus = strchr(s, '+');
        if (!close) return false;
        *close = 0;
        o->imm = 0;
        if (plus) {
            *plus = 0;
            o->imm = strtoull(plus + 1, NULL, 0);
        }
        o->kind = PI_MEM;
        return pi_parse_reg(p, pi_trim(s + 1), &o->cls, &o->num);
    }
    if (!strcmp(s, "%tid.x")) {
        o->kind = PI_TID;
        return true;
    }
    if (*s == '%') {
        o->kind = PI_REG;
        return pi_parse_reg(p, s, &o->cls, &o->num);
    }
    if (!strcmp(s, "tric_smem")) {   /* the buffer's address */
        o->kind = PI_IMM;
        o->imm = 0;
        return true;
    }
    o->kind = PI_IMM;
    if (s[0] == '0' && (s[1] == 'd' || s[1] == 'f')) o->imm = strtoull(s + 2, NULL, 16);
    else if (s[0] == '-') o->imm = (uint64_t)strtoll(s, NULL, 0);
    else o->imm = strtoull(s, NULL, 0);   /* 0xFFFFFFFFFFFFFFF8 too */
    return true;
}

/* "shr.u16" -> PI_INT, PII_SHR, 16, unsigned; false if not an integer op. */
static bool pi_parse_int(const char *name, PiIns *in) {
    const char *dot = strrchr(name, '.');
    if (!dot || !strchr("sub", dot[1])) return false;
    int w = atoi(dot + 2);
    if (w != 16 && w != 32 && w != 64) return false;
    for (int i = 0; i < PII_COUNT; i++) {
        size_t l = strlen(pi_int_names[i]);
        if (l == (size_t)(dot - name) && !strncmp(name, pi_int_names[i], l)) {
            in->op = PI_INT;
            in->iop = (PiIntOp)i;
            in->width = w;
            in->sgn = dot[1] == 's';
            return true;
        }
    }
    return false;
}

/* "st.shared.v4.b32" -> PI_ST_SHARED, 4 bytes, 4 elements; bar.sync -> PI_BAR */
static bool pi_parse_shared(const char *name, PiIns *in) {
    if (!strcmp(name, "bar.sync")) {
        in->op = PI_BAR;
        return true;
    }
    bool st = !strncmp(name, "st.shared.", 10);
    if (!st && strncmp(name, "ld.shared.", 10)) return false;
    const char *t = name + 10;
    in->vec = 1;
    if (t[0] == 'v' && (t[1] == '2' || t[1] == '4') && t[2] == '.') {
        in->vec = t[1] - '0';
        t += 3;
    }
    if (!strchr("subf", t[0])) return false;
    int bits = atoi(t + 1);
    if (bits != 8 && bits != 16 && bits != 32 && bits != 64) return false;
    in->op = st ? PI_ST_SHARED : PI_LD_SHARED;
    in->width = bits / 8;
    in->sgn = t[0] == 's';
    return true;
}

/* One instruction line ("\top.type d, a, b;") into p; false if malformed or unknown. */
static bool pi_parse_line(PiProg *p, char *line) {
    while (*line == '\t' || *line == ' ') line++;
    if (!*line || *line == '/') return true;
    char *semi = strrchr(line, ';');
    char *sp = strchr(line, ' ');
    if (!semi) return false;
    if (!sp || sp > semi) sp = semi;   /* no operands: "bar.sync 0" has one, "ret" none */
    *semi = *sp = 0;
    PiIns in = {.op = PI_COUNT};
    for (int i = 0; i < PI_INT; i++)
        if (!strcmp(line, pi_names[i])) in.op = (PiOp)i;
    if (in.op == PI_COUNT && !pi_parse_int(line, &in) && !pi_parse_shared(line, &in)) {
        printf("the test's PTX interpreter does not know '%s'\n", line);
        return false;
    }
    /* operands: split on commas outside braces */
    for (char *s = sp + 1; sp != semi;) {
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

static uint64_t pi_get(PiProg *p, const PiOpnd *o) {
    if (o->kind == PI_TID) return p->tid;
    return o->kind == PI_IMM ? o->imm : p->regs[o->cls][o->num];
}
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

/* x as a signed w-bit number (w <= 64) */
static int64_t pi_sext(uint64_t x, int w) {
    uint64_t sign = (uint64_t)1 << (w - 1), mask = w == 64 ? ~(uint64_t)0 : (sign << 1) - 1;
    return (int64_t)(((x & mask) ^ sign) - sign);
}

/* The high w bits of the 2w-bit product, through 32-bit halves for w == 64. */
static uint64_t pi_mulhi(uint64_t a, uint64_t b, int w, bool sgn) {
    if (w < 64) {
        uint64_t mask = ((uint64_t)1 << w) - 1;
        if (sgn) return (uint64_t)(pi_sext(a, w) * pi_sext(b, w)) >> w & mask;
        return (a & mask) * (b & mask) >> w;
    }
    uint64_t al = a & 0xFFFFFFFFu, ah = a >> 32, bl = b & 0xFFFFFFFFu, bh = b >> 32;
    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    uint64_t mid = (ll >> 32) + (lh & 0xFFFFFFFFu) + (hl & 0xFFFFFFFFu);
    uint64_t hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
    if (sgn) {   /* two's complement: a*b - 2^64 (a<0 ? b : 0) - 2^64 (b<0 ? a : 0) */
        if ((int64_t)a < 0) hi -= b;
        if ((int64_t)b < 0) hi -= a;
    }
    return hi;
}

/* One PI_INT instruction at its width (results are kept to w bits). */
static void pi_int_step(PiProg *p, const PiIns *in) {
    const PiOpnd *o = in->o;
    int w = in->width;
    uint64_t mask = w == 64 ? ~(uint64_t)0 : ((uint64_t)1 << w) - 1;
    uint64_t a = in->n > 1 ? pi_get(p, &o[1]) & mask : 0, b = in->n > 2 ? pi_get(p, &o[2]) & mask : 0;
    int64_t sa = pi_sext(a, w), sb = pi_sext(b, w);
    uint64_t r = 0;
    bool lt = in->sgn ? sa < sb : a < b;
    switch (in->iop) {
    case PII_ADD: r = a + b; break;
    case PII_SUB: r = a - b; break;
    case PII_MUL_HI: r = pi_mulhi(a, b, w, in->sgn); break;
    case PII_MUL_LO: r = a * b; break;
    case PII_MAD_LO: r = a * b + pi_get(p, &o[3]); break;
    case PII_SHR:   /* PTX clamps the amount at the width */
        if (b >= (uint64_t)w) r = in->sgn && sa < 0 ? mask : 0;
        else if (in->sgn && sa < 0) r = ~(~(uint64_t)sa >> b);
        else r = a >> b;
        break;
    case PII_SHL: r = b >= (uint64_t)w ? 0 : a << b; break;
    case PII_AND: r = a & b; break;
    case PII_OR: r = a | b; break;
    case PII_XOR: r = a ^ b; break;
    case PII_NEG: r = 0 - a; break;
    case PII_MOV: r = a; break;
    case PII_SELP: r = pi_get(p, &o[3]) ? a : b; break;
    case PII_SETP_EQ: r = a == b; break;
    case PII_SETP_NE: r = a != b; break;
    case PII_SETP_LT: r = lt; break;
    case PII_SETP_LE: r = lt || a == b; break;
    case PII_SETP_GT: r = !lt && a != b; break;
    case PII_SETP_GE: r = !lt; break;
    case PII_COUNT: break;
    }
    pi_set(p, &o[0], o[0].cls == RC_PRED ? r : r & mask);
}

/* ld/st.shared: element i of the vector at [reg+offset], little-endian */
static void pi_shared_step(PiProg *p, const PiIns *in) {
    const PiOpnd *mem = &in->o[in->op == PI_ST_SHARED ? 0 : 1], *val = &in->o[in->op == PI_ST_SHARED ? 1 : 0];
    uint64_t addr = (uint32_t)(p->regs[mem->cls][mem->num] + mem->imm);
    uint32_t size = (uint32_t)(in->width * in->vec);
    if (addr % size || addr + size > p->smem_size) {   /* PTX requires vector alignment */
        p->smem_fault = true;
        return;
    }
    for (int i = 0; i < in->vec; i++) {
        int num = val->kind == PI_REG ? val->num : val->nums[i];
        uint64_t *r = &p->regs[val->cls][num];
        uint8_t *m = p->smem + addr + (uint64_t)(i * in->width);
        if (in->op == PI_ST_SHARED) {
            for (int b = 0; b < in->width; b++) m[b] = (uint8_t)(*r >> (8 * b));
        } else {
            uint64_t v = 0;
            for (int b = 0; b < in->width; b++) v |= (uint64_t)m[b] << (8 * b);
            if (in->sgn && in->width < 8 && (v >> (8 * in->width - 1) & 1)) v |= ~(uint64_t)0 << (8 * in->width);
            *r = val->cls == RC_B16 ? (uint16_t)v : val->cls == RC_B32 || val->cls == RC_F32 ? (uint32_t)v : v;
        }
    }
}

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
    case PI_CVT_S16_S8: pi_set(p, &o[0], (uint16_t)(int16_t)(int8_t)pi_get(p, &o[1])); break;
    case PI_CVT_U16_U8: pi_set(p, &o[0], (uint8_t)pi_get(p, &o[1])); break;
    case PI_INT: pi_int_step(p, in); break;
    case PI_ST_SHARED: case PI_LD_SHARED: pi_shared_step(p, in); break;
    case PI_BAR: break;
    case PI_COUNT: break;
    }
}

static void pi_run(PiProg *p) {
    for (int i = 0; i < p->n; i++) pi_step(p, &p->ins[i]);
}

/* instructions [from, to) */
static inline void pi_run_range(PiProg *p, int from, int to) {
    for (int i = from; i < to; i++) pi_step(p, &p->ins[i]);
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
