/* The --args and check mini-language (interp.h): host buffers and scalars
 * for an interpreted launch, the grid, and the references of the kernels'
 * `# check:` lines. A small evaluator of numpy-like expressions over
 * numbers, tuples and n-dimensional arrays, with numpy's semantics where
 * the test blocks need them: bools, int64 (exact, wrapping) and float64
 * (double) kinds promoted as numpy does, broadcasting, indexing with
 * slices and None, floor division and modulo.
 *
 * Assignments may refer to names assigned later: each is evaluated on first
 * use (a cycle is an error), then in order, so the random data depends only
 * on the text and the seed. After binding, every name keeps the value the
 * kernel saw (a buffer rounded to its element type; empty() as zeros) for
 * interp_eval and interp_check (check.c). */
#include "scalar.h"
#include "../ir/tmap.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

enum { V_NUM, V_TUPLE, V_ARRAY, V_DTYPE, V_NONE, V_SLICE, V_DESC };
/* numeric kinds, in numpy's promotion order */
enum { NK_BOOL, NK_INT, NK_FLOAT };

#define MAXD INTERP_MAX_DIMS

typedef struct AVal {
    int kind;
    int nk;                       /* V_NUM, V_ARRAY */
    int64_t i;                    /* V_NUM of NK_BOOL / NK_INT */
    double f;                     /* V_NUM of NK_FLOAT */
    struct AVal *items;           /* V_TUPLE (also lists); V_SLICE: start, stop, step (V_NONE: absent);
                                     V_DESC: array, block, padding, shape */
    int n_items;
    int64_t *idata;               /* V_ARRAY of NK_BOOL / NK_INT, row-major */
    double *fdata;                /* V_ARRAY of NK_FLOAT */
    int64_t n;
    int ndim;
    int64_t shape[MAXD];
    ElemType dt;                  /* V_DTYPE */
    bool poison;                  /* empty(): poisoned before the launch */
} AVal;

typedef struct Stmt {
    const char *name;
    const char *expr, *end;
    AVal val;
    int state;                    /* 0 not yet, 1 being evaluated, 2 done */
} Stmt;

/* the names of a setup, as interp_eval sees them */
struct InterpNames {
    Stmt *stmts;
    int n;
};

typedef struct AP {
    Arena *a;
    Buf *err;
    const char *what;             /* "--args" or "check", for messages */
    Stmt *stmts;
    int n_stmts, cap_stmts;
    uint64_t rng;
    int depth;                    /* expression nesting, bounded */
    jmp_buf bail;
} AP;

/* The interpreter holds every element as a 64-bit slot: keep inputs and
 * grids to what a CPU run can finish. */
#define ARGS_MAX_ELEMS (1 << 24)
#define ARGS_MAX_PROGRAMS (1 << 20)
#define ARGS_MAX_DEPTH 200

typedef struct Lex {
    const char *p, *end;
} Lex;

static _Noreturn __attribute__((format(printf, 2, 3))) void ap_fail(AP *ap, const char *fmt, ...) {
    buf_printf(ap->err, "tric: error: %s: ", ap->what);
    va_list va;
    va_start(va, fmt);
    buf_vprintf(ap->err, fmt, va);
    va_end(va);
    buf_putc(ap->err, '\n');
    longjmp(ap->bail, 1);
}

/* ---- random numbers: splitmix64, fixed by the seed ---- */

static uint64_t rng_next(AP *ap) {
    uint64_t z = (ap->rng += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static double rng_unit(AP *ap) { return (double)(rng_next(ap) >> 11) * 0x1p-53; }

/* ---- lexing ---- */

static void skip_ws(Lex *lx) {
    while (lx->p < lx->end && isspace((unsigned char)*lx->p)) lx->p++;
}

static const char *rest(AP *ap, Lex *lx) { return arena_strndup(ap->a, lx->p, (size_t)(lx->end - lx->p)); }

static bool accept(Lex *lx, const char *s) {
    skip_ws(lx);
    size_t n = strlen(s);
    if ((size_t)(lx->end - lx->p) < n || strncmp(lx->p, s, n) != 0) return false;
    lx->p += n;
    return true;
}

static void expect(AP *ap, Lex *lx, const char *s) {
    if (!accept(lx, s)) ap_fail(ap, "expected '%s' near '%s'", s, rest(ap, lx));
}

static bool peek_name(Lex *lx) {
    skip_ws(lx);
    return lx->p < lx->end && (isalpha((unsigned char)*lx->p) || *lx->p == '_');
}

static const char *take_name(AP *ap, Lex *lx) {
    skip_ws(lx);
    const char *s = lx->p;
    if (lx->p < lx->end && !isdigit((unsigned char)*lx->p))
        while (lx->p < lx->end && (isalnum((unsigned char)*lx->p) || *lx->p == '_')) lx->p++;
    if (s == lx->p) ap_fail(ap, "expected a name near '%s'", rest(ap, lx));
    return arena_strndup(ap->a, s, (size_t)(lx->p - s));
}

/* The first of ops (longest spellings first) at the cursor, consumed; a
 * one-character operator does not match the start of a longer one (* of
 * **, / of //, < of << and <=, = of ==). */
static const char *take_op(Lex *lx, const char *const *ops) {
    skip_ws(lx);
    for (; *ops; ops++) {
        size_t n = strlen(*ops);
        if ((size_t)(lx->end - lx->p) < n || strncmp(lx->p, *ops, n) != 0) continue;
        char c = lx->p[0], next = lx->p + n < lx->end ? lx->p[n] : 0;
        if (n == 1 && ((next == c && strchr("*/<>", c)) || (next == '=' && strchr("<>=!", c)))) continue;
        lx->p += n;
        return *ops;
    }
    return NULL;
}

/* ---- values ---- */

static AVal num_i(int64_t v) { return (AVal){.kind = V_NUM, .nk = NK_INT, .i = v}; }
static AVal num_b(bool v) { return (AVal){.kind = V_NUM, .nk = NK_BOOL, .i = v}; }
static AVal num_f(double v) { return (AVal){.kind = V_NUM, .nk = NK_FLOAT, .f = v}; }

static bool is_numeric(const AVal *v) { return v->kind == V_NUM || v->kind == V_ARRAY; }

static AVal new_array(AP *ap, int nk, int ndim, const int64_t *shape) {
    AVal v = {.kind = V_ARRAY, .nk = nk, .ndim = ndim, .n = 1};
    for (int d = 0; d < ndim; d++) {
        v.shape[d] = shape[d];
        v.n *= shape[d];
        if (v.n > ARGS_MAX_ELEMS) ap_fail(ap, "an array of more than 16777216 elements is too large to interpret");
    }
    size_t bytes = sizeof(int64_t) * (size_t)(v.n ? v.n : 1);
    if (nk == NK_FLOAT) v.fdata = arena_alloc(ap->a, bytes);
    else v.idata = arena_alloc(ap->a, bytes);
    return v;
}

/* element k of a number or an array, as a double or an integer */
static double el_f(const AVal *v, int64_t k) {
    if (v->kind == V_NUM) return v->nk == NK_FLOAT ? v->f : (double)v->i;
    return v->nk == NK_FLOAT ? v->fdata[k] : (double)v->idata[k];
}

static int64_t el_i(const AVal *v, int64_t k) { return v->kind == V_NUM ? v->i : v->idata[k]; }

static bool el_true(const AVal *v, int64_t k) { return v->nk == NK_FLOAT ? el_f(v, k) != 0 : el_i(v, k) != 0; }

static void put_f(AVal *v, int64_t k, double x) { v->fdata[k] = x; }
static void put_i(AVal *v, int64_t k, int64_t x) { v->idata[k] = x; }

/* "(3, 4)", numpy's spelling of a shape */
static const char *shape_str(AP *ap, const AVal *v) {
    if (v->kind != V_ARRAY) return "()";
    Buf b = {.arena = ap->a};
    buf_putc(&b, '(');
    for (int d = 0; d < v->ndim; d++) buf_printf(&b, d ? ", %lld" : "%lld", (long long)v->shape[d]);
    buf_puts(&b, v->ndim == 1 ? ",)" : ")");
    return buf_str(&b);
}

static int64_t shape_dim(AP *ap, AVal d) {
    double x = d.kind == V_NUM ? el_f(&d, 0) : -1;
    if (d.kind != V_NUM) ap_fail(ap, "a shape is a number or a tuple of numbers");
    if (!(x >= 0 && x <= ARGS_MAX_ELEMS) || x != floor(x))
        ap_fail(ap, "a shape's sizes are integers from 0 to 16777216");
    return (int64_t)x;
}

/* a shape argument: a number or a tuple of numbers */
static int read_shape(AP *ap, AVal s, int64_t *shape) {
    if (s.kind != V_TUPLE) {
        shape[0] = shape_dim(ap, s);
        return 1;
    }
    if (s.n_items > MAXD) ap_fail(ap, "an array has at most %d dimensions", MAXD);
    for (int i = 0; i < s.n_items; i++) shape[i] = shape_dim(ap, s.items[i]);
    return s.n_items;
}

static double as_num(AP *ap, AVal v) {
    if (v.kind == V_NUM || (v.kind == V_ARRAY && v.n == 1)) return el_f(&v, 0);
    ap_fail(ap, "expected a number");
}

static int64_t as_int(AP *ap, AVal v) {
    if ((v.kind == V_NUM || (v.kind == V_ARRAY && v.n == 1)) && v.nk != NK_FLOAT) return el_i(&v, 0);
    ap_fail(ap, "expected an integer");
}

/* ---- conversions to an element type ---- */

static int nk_of(ElemType e) { return e == ET_I1 ? NK_BOOL : elem_is_float(e) ? NK_FLOAT : NK_INT; }

/* numpy's float -> int64 cast on x86: NaN and out-of-range values give INT64_MIN */
static int64_t f_to_i64(double x) {
    if (isnan(x) || x >= 0x1p63 || x < -0x1p63) return INT64_MIN;
    return (int64_t)x;
}

/* an int64 wrapped to e's width and read back as int64 (u64 wraps) */
static int64_t wrap_int(ElemType e, int64_t v) {
    if (e == ET_I1) return v != 0;
    return (int64_t)interp_int_norm(e, (uint64_t)v);
}

/* element k of v as a slot of e (what binding and astype store) */
static uint64_t el_slot(const AVal *v, int64_t k, ElemType e) {
    if (v->nk == NK_FLOAT) return interp_slot_from_double(e, el_f(v, k));
    if (elem_is_float(e)) return interp_slot_from_double(e, (double)el_i(v, k));
    return e == ET_I1 ? el_i(v, k) != 0 : interp_int_norm(e, (uint64_t)el_i(v, k));
}

/* v converted to e's values (numpy's astype; floats rounded to e, kept as doubles) */
static AVal astype(AP *ap, AVal v, ElemType e) {
    if (!is_numeric(&v)) ap_fail(ap, "astype needs a number or an array");
    int nk = nk_of(e);
    AVal r = v.kind == V_NUM ? (AVal){.kind = V_NUM, .nk = nk} : new_array(ap, nk, v.ndim, v.shape);
    for (int64_t k = 0; k < (v.kind == V_NUM ? 1 : v.n); k++) {
        double f = 0;
        int64_t i = 0;
        if (nk == NK_FLOAT) f = interp_slot_to_double(e, el_slot(&v, k, e));
        else if (v.nk == NK_FLOAT) i = e == ET_I1 ? el_f(&v, k) != 0 : wrap_int(e, f_to_i64(el_f(&v, k)));
        else i = wrap_int(e, el_i(&v, k));
        if (r.kind == V_NUM) r.f = f, r.i = i;
        else if (nk == NK_FLOAT) put_f(&r, k, f);
        else put_i(&r, k, i);
    }
    return r;
}

/* ---- broadcasting ---- */

typedef struct Bc {
    int ndim;
    int64_t shape[MAXD], n;
    int64_t stride[3][MAXD];      /* per operand; 0 along a broadcast dimension */
} Bc;

static void bc_init(AP *ap, Bc *b, const AVal *v, int nv, const char *what) {
    memset(b, 0, sizeof *b);
    for (int j = 0; j < nv; j++) {
        if (!is_numeric(&v[j])) ap_fail(ap, "%s needs numbers or arrays", what);
        if (v[j].kind == V_ARRAY && v[j].ndim > b->ndim) b->ndim = v[j].ndim;
    }
    for (int d = 0; d < b->ndim; d++) b->shape[d] = 1;
    for (int j = 0; j < nv; j++) {
        if (v[j].kind != V_ARRAY) continue;
        int off = b->ndim - v[j].ndim;
        int64_t stride = 1;
        for (int d = v[j].ndim - 1; d >= 0; d--) {
            int64_t s = v[j].shape[d], *o = &b->shape[off + d];
            if (s != 1 && *o != 1 && s != *o) {
                Buf m = {.arena = ap->a};
                for (int q = 0; q < nv; q++) buf_printf(&m, "%s%s", q ? " and " : "", shape_str(ap, &v[q]));
                ap_fail(ap, "%s: shapes %s do not broadcast", what, buf_str(&m));
            }
            if (s != 1) *o = s;
            b->stride[j][off + d] = s == 1 ? 0 : stride;
            stride *= s;
        }
    }
    b->n = 1;
    for (int d = 0; d < b->ndim; d++) b->n *= b->shape[d];
}

/* the element of operand j under output element k */
static int64_t bc_at(const Bc *b, int j, int64_t k) {
    int64_t off = 0;
    for (int d = b->ndim - 1; d >= 0 && k; d--) {
        off += (k % b->shape[d]) * b->stride[j][d];
        k /= b->shape[d];
    }
    return off;
}

/* the result of an elementwise operation: a number when every operand is one */
static AVal bc_result(AP *ap, const Bc *b, const AVal *v, int nv, int nk) {
    bool all_num = true;
    for (int j = 0; j < nv; j++) all_num &= v[j].kind == V_NUM;
    if (all_num) return (AVal){.kind = V_NUM, .nk = nk};
    return new_array(ap, nk, b->ndim, b->shape);
}

static void res_put_f(AVal *r, int64_t k, double x) {
    if (r->kind == V_NUM) r->f = x;
    else put_f(r, k, x);
}

static void res_put_i(AVal *r, int64_t k, int64_t x) {
    if (r->kind == V_NUM) r->i = x;
    else put_i(r, k, x);
}

/* ---- arithmetic ---- */

static int64_t i_floordiv(int64_t a, int64_t b) {
    if (b == 0) return 0;                     /* numpy: 0, with a warning */
    if (b == -1) return (int64_t)(0 - (uint64_t)a);
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static int64_t i_mod(int64_t a, int64_t b) {
    if (b == 0 || b == -1) return 0;
    int64_t r = a % b;
    return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
}

static int64_t i_pow(int64_t a, int64_t b) {
    uint64_t r = 1, x = (uint64_t)a;
    for (; b > 0; b >>= 1, x *= x)
        if (b & 1) r *= x;
    return (int64_t)r;
}

/* shifts of int64 as numpy's: amounts outside 0..63 shift everything out */
static int64_t i_shift(bool left, int64_t a, int64_t b) {
    if (b < 0 || b > 63) return left ? 0 : a < 0 ? -1 : 0;
    return left ? (int64_t)((uint64_t)a << b) : a >> b;
}

static int64_t int_op(const char *op, int64_t a, int64_t b) {
    uint64_t x = (uint64_t)a, y = (uint64_t)b;
    switch (op[0]) {
    case '+': return (int64_t)(x + y);
    case '-': return (int64_t)(x - y);
    case '*': return op[1] ? i_pow(a, b) : (int64_t)(x * y);
    case '/': return i_floordiv(a, b);
    case '%': return i_mod(a, b);
    case '<': return i_shift(true, a, b);
    case '>': return i_shift(false, a, b);
    case '&': return a & b;
    case '|': return a | b;
    case '^': return a ^ b;
    }
    return 0;
}

/* Python's float floor division, from fmod as CPython and numpy compute it */
static double f_floordiv(double a, double b) {
    if (b == 0) return a / b;
    double mod = fmod(a, b), div = (a - mod) / b;
    if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1;
    if (div == 0) return copysign(0, a / b);
    double fl = floor(div);
    return div - fl > 0.5 ? fl + 1 : fl;
}

/* Python's float arithmetic (the result of % has b's sign) */
static double float_op(const char *op, double a, double b) {
    switch (op[0]) {
    case '+': return a + b;
    case '-': return a - b;
    case '*': return op[1] ? pow(a, b) : a * b;
    case '/': return op[1] ? f_floordiv(a, b) : a / b;
    case '%': {
        if (b == 0) return NAN;
        double r = fmod(a, b);
        return r != 0 && ((r < 0) != (b < 0)) ? r + b : r == 0 ? copysign(0, b) : r;
    }
    }
    return NAN;
}

static bool cmp_op(const char *op, const AVal *x, int64_t i, const AVal *y, int64_t j, bool ints) {
    int c;
    if (ints) {
        int64_t a = el_i(x, i), b = el_i(y, j);
        c = a < b ? -1 : a > b;
    } else {
        double a = el_f(x, i), b = el_f(y, j);
        if (isnan(a) || isnan(b)) return op[0] == '!';
        c = a < b ? -1 : a > b;
    }
    if (!strcmp(op, "==")) return c == 0;
    if (!strcmp(op, "!=")) return c != 0;
    if (!strcmp(op, "<")) return c < 0;
    if (!strcmp(op, "<=")) return c <= 0;
    if (!strcmp(op, ">")) return c > 0;
    return c >= 0;
}

static bool is_cmp(const char *op) { return strchr("=!", op[0]) || ((op[0] == '<' || op[0] == '>') && op[1] != op[0]); }

/* The kind of x op y, as numpy computes it; errors where numpy raises. */
static int result_kind(AP *ap, const char *op, const AVal *x, const AVal *y) {
    int nk = x->nk > y->nk ? x->nk : y->nk;
    if (is_cmp(op)) return NK_BOOL;
    if (strchr("&|^", op[0])) {
        if (nk == NK_FLOAT) ap_fail(ap, "operator '%s' needs integers or bools", op);
        return nk;
    }
    if (!strcmp(op, "<<") || !strcmp(op, ">>")) {
        if (nk == NK_FLOAT) ap_fail(ap, "operator '%s' needs integers", op);
        return NK_INT;
    }
    if (!strcmp(op, "/")) return NK_FLOAT;
    if (nk == NK_BOOL && !strcmp(op, "-")) ap_fail(ap, "operator '-' on two bools (numpy refuses it)");
    if (nk == NK_BOOL && (op[0] == '+' || !strcmp(op, "*"))) return NK_BOOL;   /* or, and */
    return nk == NK_BOOL ? NK_INT : nk;
}

/* Python's rules for two plain numbers: errors where Python raises */
static void check_scalars(AP *ap, const char *op, const AVal *x, const AVal *y) {
    if (x->kind != V_NUM || y->kind != V_NUM) return;
    bool zero = y->nk == NK_FLOAT ? y->f == 0 : y->i == 0;
    if (zero && strchr("/%", op[0])) ap_fail(ap, "division by zero");
    if ((!strcmp(op, "<<") || !strcmp(op, ">>")) && y->i < 0) ap_fail(ap, "negative shift count");
}

static AVal binop(AP *ap, const char *op, AVal x, AVal y) {
    AVal v[2] = {x, y};
    Bc b;
    bc_init(ap, &b, v, 2, arena_printf(ap->a, "operator '%s'", op));
    check_scalars(ap, op, &x, &y);
    bool pow_float = !strcmp(op, "**") && x.kind == V_NUM && x.nk != NK_FLOAT && y.nk != NK_FLOAT && y.kind == V_NUM && y.i < 0;
    int nk = pow_float ? NK_FLOAT : result_kind(ap, op, &x, &y);
    bool ints = x.nk != NK_FLOAT && y.nk != NK_FLOAT;
    AVal r = bc_result(ap, &b, v, 2, nk);
    for (int64_t k = 0; k < b.n; k++) {
        int64_t i = bc_at(&b, 0, k), j = bc_at(&b, 1, k);
        if (nk == NK_BOOL && is_cmp(op)) res_put_i(&r, k, cmp_op(op, &x, i, &y, j, ints));
        else if (nk == NK_BOOL) res_put_i(&r, k, op[0] == '*' || op[0] == '&' ? el_i(&x, i) & el_i(&y, j)
                                                 : op[0] == '^' ? el_i(&x, i) ^ el_i(&y, j) : el_i(&x, i) | el_i(&y, j));
        else if (nk == NK_INT) {
            if (!strcmp(op, "**") && el_i(&y, j) < 0) ap_fail(ap, "integers to negative integer powers are not allowed");
            res_put_i(&r, k, int_op(op, el_i(&x, i), el_i(&y, j)));
        } else res_put_f(&r, k, float_op(op, el_f(&x, i), el_f(&y, j)));
    }
    return r;
}

/* ---- elementwise functions ---- */

typedef double (*MathFn)(double);

static MathFn np_math(const char *f) {
    static const struct { const char *name; MathFn fn; } fns[] = {
        {"exp", exp}, {"exp2", exp2}, {"log", log}, {"log2", log2}, {"sqrt", sqrt}, {"rint", nearbyint},
        {"floor", floor}, {"ceil", ceil}, {"trunc", trunc}, {"sin", sin}, {"cos", cos}, {"tanh", tanh},
        {"tan", tan}, {"sinh", sinh}, {"cosh", cosh}, {"arctan", atan}, {"arcsin", asin}, {"arccos", acos},
        {"arcsinh", asinh}, {"arccosh", acosh}, {"arctanh", atanh}, {"expm1", expm1}, {"log1p", log1p},
        {"log10", log10}, {"cbrt", cbrt}, {"erf", erf},
    };
    for (size_t i = 0; i < ARRAY_LEN(fns); i++)
        if (strcmp(fns[i].name, f) == 0) return fns[i].fn;
    return NULL;
}

static AVal map_float(AP *ap, MathFn fn, AVal x) {
    Bc b;
    bc_init(ap, &b, &x, 1, "a math function");
    AVal r = bc_result(ap, &b, &x, 1, NK_FLOAT);
    for (int64_t k = 0; k < b.n; k++) res_put_f(&r, k, fn(el_f(&x, k)));
    return r;
}

/* isnan, isposinf, isneginf, isinf, isfinite */
static AVal classify(AP *ap, const char *f, AVal x) {
    Bc b;
    bc_init(ap, &b, &x, 1, f);
    AVal r = bc_result(ap, &b, &x, 1, NK_BOOL);
    for (int64_t k = 0; k < b.n; k++) {
        double v = el_f(&x, k);
        bool t = !strcmp(f, "isnan")      ? isnan(v)
                 : !strcmp(f, "isposinf") ? isinf(v) && v > 0
                 : !strcmp(f, "isneginf") ? isinf(v) && v < 0
                 : !strcmp(f, "isinf")    ? isinf(v)
                                          : isfinite(v);
        res_put_i(&r, k, t);
    }
    return r;
}

static AVal np_abs(AP *ap, AVal x) {
    if (x.nk == NK_FLOAT) return map_float(ap, fabs, x);
    Bc b;
    bc_init(ap, &b, &x, 1, "np.abs");
    AVal r = bc_result(ap, &b, &x, 1, x.nk);
    for (int64_t k = 0; k < b.n; k++) {
        int64_t v = el_i(&x, k);
        res_put_i(&r, k, v < 0 ? (int64_t)(0 - (uint64_t)v) : v);
    }
    return r;
}

/* np.maximum / np.minimum (a NaN wins), np.fmod (the dividend's sign),
 * np.arctan2, np.hypot, np.power (floats), np.copysign */
static AVal np_binary(AP *ap, const char *f, AVal x, AVal y) {
    AVal v[2] = {x, y};
    Bc b;
    bc_init(ap, &b, v, 2, f);
    int nk = x.nk > y.nk ? x.nk : y.nk;
    bool fmod_ = !strcmp(f, "fmod"), max = !strcmp(f, "maximum");
    double (*ffn)(double, double) = !strcmp(f, "arctan2") ? atan2 : !strcmp(f, "hypot") ? hypot
                                    : !strcmp(f, "copysign") ? copysign : NULL;
    if (ffn) nk = NK_FLOAT;
    if (fmod_ && nk == NK_BOOL) nk = NK_INT;
    AVal r = bc_result(ap, &b, v, 2, nk);
    for (int64_t k = 0; k < b.n; k++) {
        int64_t i = bc_at(&b, 0, k), j = bc_at(&b, 1, k);
        if (nk == NK_FLOAT) {
            double p = el_f(&x, i), q = el_f(&y, j);
            double m = isnan(p) || isnan(q) ? NAN : max ? (p > q ? p : q) : (p < q ? p : q);
            res_put_f(&r, k, ffn ? ffn(p, q) : fmod_ ? fmod(p, q) : m);
        } else {
            int64_t p = el_i(&x, i), q = el_i(&y, j);
            int64_t m = max ? (p > q ? p : q) : (p < q ? p : q);
            res_put_i(&r, k, fmod_ ? (q == 0 || q == -1 ? 0 : p % q) : m);
        }
    }
    return r;
}

static AVal np_where(AP *ap, AVal c, AVal x, AVal y) {
    AVal v[3] = {c, x, y};
    Bc b;
    bc_init(ap, &b, v, 3, "np.where");
    int nk = x.nk > y.nk ? x.nk : y.nk;
    AVal r = bc_result(ap, &b, v, 3, nk);
    for (int64_t k = 0; k < b.n; k++) {
        bool t = el_true(&c, bc_at(&b, 0, k));
        const AVal *s = t ? &x : &y;
        int64_t i = bc_at(&b, t ? 1 : 2, k);
        if (nk == NK_FLOAT) res_put_f(&r, k, el_f(s, i));
        else res_put_i(&r, k, el_i(s, i));
    }
    return r;
}

static AVal np_ldexp(AP *ap, AVal x, AVal e) {
    if (e.nk == NK_FLOAT) ap_fail(ap, "np.ldexp needs an integer exponent");
    AVal v[2] = {x, e};
    Bc b;
    bc_init(ap, &b, v, 2, "np.ldexp");
    AVal r = bc_result(ap, &b, v, 2, NK_FLOAT);
    for (int64_t k = 0; k < b.n; k++) {
        int64_t n = el_i(&e, bc_at(&b, 1, k));
        res_put_f(&r, k, ldexp(el_f(&x, bc_at(&b, 0, k)), n > 100000 ? 100000 : n < -100000 ? -100000 : (int)n));
    }
    return r;
}

/* ---- arrays: indexing, .T ---- */

/* One output dimension of an indexing: from src_dim (or -1: a new axis)
 * starting at start, step apart. */
typedef struct IxDim {
    int src_dim;
    int64_t start, step, len;
} IxDim;

static int64_t norm_index(AP *ap, int64_t i, int64_t len) {
    if (i < 0) i += len;
    if (i < 0 || i >= len) ap_fail(ap, "index %lld is out of bounds for a dimension of size %lld", (long long)i, (long long)len);
    return i;
}

/* Python's slice bounds: negative counts from the end, clamped */
static void slice_bounds(AP *ap, const AVal *s, int64_t len, IxDim *out) {
    int64_t step = s->items[2].kind == V_NONE ? 1 : as_int(ap, s->items[2]);
    if (step == 0) ap_fail(ap, "a slice step cannot be zero");
    int64_t lo = step > 0 ? 0 : -1, hi = step > 0 ? len : len - 1;
    int64_t b[2] = {step > 0 ? 0 : len - 1, step > 0 ? len : -1};
    for (int e = 0; e < 2; e++) {
        if (s->items[e].kind == V_NONE) continue;
        int64_t v = as_int(ap, s->items[e]);
        if (v < 0) v += len;
        b[e] = v < lo ? lo : v > hi ? hi : v;
    }
    int64_t n = step > 0 ? (b[1] - b[0] + step - 1) / step : (b[0] - b[1] - step - 1) / -step;
    *out = (IxDim){.start = b[0], .step = step, .len = n > 0 ? n : 0};
}

static AVal index_array(AP *ap, AVal x, AVal ix) {
    if (x.kind != V_ARRAY) ap_fail(ap, "only arrays can be indexed");
    const AVal *items = ix.kind == V_TUPLE ? ix.items : &ix;
    int n_items = ix.kind == V_TUPLE ? ix.n_items : 1;
    IxDim dims[MAXD];
    int nd = 0, src = 0;
    int64_t base = 0, strides[MAXD], stride = 1;
    for (int d = x.ndim - 1; d >= 0; d--) strides[d] = stride, stride *= x.shape[d];
    for (int q = 0; q < n_items || src < x.ndim; q++) {
        const AVal *it = q < n_items ? &items[q] : NULL;
        if (nd == MAXD) ap_fail(ap, "an array has at most %d dimensions", MAXD);
        if (it && it->kind == V_NONE) {
            dims[nd++] = (IxDim){.src_dim = -1, .len = 1};
            continue;
        }
        if (src >= x.ndim) ap_fail(ap, "too many indices for an array of shape %s", shape_str(ap, &x));
        if (it && it->kind != V_SLICE) {
            base += norm_index(ap, as_int(ap, *it), x.shape[src]) * strides[src];
            src++;
            continue;
        }
        AVal all = {.kind = V_SLICE, .items = (AVal[3]){{.kind = V_NONE}, {.kind = V_NONE}, {.kind = V_NONE}}};
        slice_bounds(ap, it ? it : &all, x.shape[src], &dims[nd]);
        dims[nd].src_dim = src;
        base += dims[nd].start * strides[src];
        nd++, src++;
    }
    int64_t shape[MAXD];
    for (int d = 0; d < nd; d++) shape[d] = dims[d].len;
    AVal r = new_array(ap, x.nk, nd, shape);
    for (int64_t k = 0; k < r.n; k++) {
        int64_t off = base, rem = k;
        for (int d = nd - 1; d >= 0; d--) {
            int64_t i = rem % shape[d];
            rem /= shape[d];
            if (dims[d].src_dim >= 0) off += i * dims[d].step * strides[dims[d].src_dim];
        }
        if (x.nk == NK_FLOAT) put_f(&r, k, x.fdata[off]);
        else put_i(&r, k, x.idata[off]);
    }
    return r;
}

/* np.transpose(x, axes): result dim d is x's dim perm[d] */
static AVal permute_axes(AP *ap, AVal x, const int *perm) {
    int64_t shape[MAXD], strides[MAXD], stride = 1;
    for (int d = x.ndim - 1; d >= 0; d--) strides[d] = stride, stride *= x.shape[d];
    for (int d = 0; d < x.ndim; d++) shape[d] = x.shape[perm[d]];
    AVal r = new_array(ap, x.nk, x.ndim, shape);
    for (int64_t k = 0; k < r.n; k++) {
        int64_t off = 0, rem = k;
        for (int d = x.ndim - 1; d >= 0; d--) {
            off += (rem % shape[d]) * strides[perm[d]];
            rem /= shape[d];
        }
        if (x.nk == NK_FLOAT) put_f(&r, k, x.fdata[off]);
        else put_i(&r, k, x.idata[off]);
    }
    return r;
}

/* x.T: the dims reversed */
static AVal transpose(AP *ap, AVal x) {
    if (x.kind != V_ARRAY || x.ndim < 2) return x;
    int perm[MAXD];
    for (int d = 0; d < x.ndim; d++) perm[d] = x.ndim - 1 - d;
    return permute_axes(ap, x, perm);
}

/* a number as a 0-d array; arrays as they are */
static AVal as_array(AP *ap, AVal x, const char *what) {
    if (x.kind == V_ARRAY) return x;
    if (x.kind != V_NUM) ap_fail(ap, "%s needs a number or an array", what);
    AVal r = new_array(ap, x.nk, 0, NULL);
    if (x.nk == NK_FLOAT) put_f(&r, 0, x.f);
    else put_i(&r, 0, x.i);
    return r;
}

static const char *dims_str(AP *ap, int nd, const int64_t *shape) {
    AVal v = {.kind = V_ARRAY, .ndim = nd};
    memcpy(v.shape, shape, sizeof(int64_t) * (size_t)nd);
    return shape_str(ap, &v);
}

/* x.reshape(shape): one size may be -1, the one that makes the sizes match */
static AVal reshape(AP *ap, AVal x, AVal s) {
    x = as_array(ap, x, "reshape");
    const AVal *items = s.kind == V_TUPLE ? s.items : &s;
    int nd = s.kind == V_TUPLE ? s.n_items : 1, unknown = -1;
    if (nd > MAXD) ap_fail(ap, "an array has at most %d dimensions", MAXD);
    int64_t shape[MAXD], known = 1;
    for (int d = 0; d < nd; d++) {
        if (items[d].kind == V_NUM && items[d].nk == NK_INT && items[d].i == -1) {
            if (unknown >= 0) ap_fail(ap, "can only specify one unknown dimension");
            unknown = d;
            shape[d] = -1;
            continue;
        }
        shape[d] = shape_dim(ap, items[d]);
        known = known * shape[d] > ARGS_MAX_ELEMS ? ARGS_MAX_ELEMS + 1 : known * shape[d];
    }
    if (unknown >= 0 && known != 0 && x.n % known == 0) shape[unknown] = x.n / known, known = x.n;
    if (known != x.n || (unknown >= 0 && shape[unknown] < 0))
        ap_fail(ap, "cannot reshape an array of shape %s into %s", shape_str(ap, &x), dims_str(ap, nd, shape));
    AVal r = x;
    r.ndim = nd;
    memcpy(r.shape, shape, sizeof(int64_t) * (size_t)nd);
    return r;                        /* arrays are never written after they are made: share the data */
}

/* ---- reductions and scans: numpy's sum, max, argmax, cumsum, ufunc.reduce ---- */

/* A call's keyword arguments "NAME = expr": axis= (an integer or None),
 * keepdims= and np.bincount's minlength=. After red_axis, axis_none or
 * axis says which axis a reduction takes. */
typedef struct Kwargs {
    bool has_axis, axis_none;
    int64_t axis;
    bool has_keepdims, keepdims;
    bool has_minlength;
    int64_t minlength;
} Kwargs;

typedef enum RedOp {
    RD_SUM, RD_PROD, RD_MAX, RD_MIN, RD_ARGMAX, RD_ARGMIN, RD_MEAN, RD_ALL, RD_ANY,
    RD_AND, RD_OR, RD_XOR, RD_CUMSUM, RD_CUMPROD, RD_COUNT
} RedOp;

/* numpy's names: the method (and np. function) and the ufunc whose .reduce it is */
static const struct { const char *method, *ufunc; } red_names[RD_COUNT] = {
    [RD_SUM] = {"sum", "add"}, [RD_PROD] = {"prod", "multiply"}, [RD_MAX] = {"max", "maximum"},
    [RD_MIN] = {"min", "minimum"}, [RD_ARGMAX] = {"argmax", NULL}, [RD_ARGMIN] = {"argmin", NULL},
    [RD_MEAN] = {"mean", NULL}, [RD_ALL] = {"all", "logical_and"}, [RD_ANY] = {"any", "logical_or"},
    [RD_AND] = {NULL, "bitwise_and"}, [RD_OR] = {NULL, "bitwise_or"}, [RD_XOR] = {NULL, "bitwise_xor"},
    [RD_CUMSUM] = {"cumsum", NULL}, [RD_CUMPROD] = {"cumprod", NULL},
};

/* the reduction a method name (or, with ufunc, a ufunc name) stands for; -1 if none */
static int red_lookup(const char *name, bool ufunc) {
    if (!ufunc && !strcmp(name, "amax")) return RD_MAX;
    if (!ufunc && !strcmp(name, "amin")) return RD_MIN;
    for (int op = 0; op < RD_COUNT; op++) {
        const char *s = ufunc ? red_names[op].ufunc : red_names[op].method;
        if (s && !strcmp(s, name)) return op;
    }
    return -1;
}

static bool is_scan(RedOp op) { return op == RD_CUMSUM || op == RD_CUMPROD; }

static int64_t norm_axis(AP *ap, int64_t axis, const AVal *x) {
    if (axis < -x->ndim || axis >= x->ndim)
        ap_fail(ap, "axis %lld is out of bounds for an array of shape %s", (long long)axis, shape_str(ap, x));
    return axis < 0 ? axis + x->ndim : axis;
}

static void set_axis(AP *ap, Kwargs *kw, AVal v) {
    kw->has_axis = true;
    kw->axis_none = v.kind == V_NONE;
    if (v.kind == V_TUPLE) ap_fail(ap, "a tuple of axes is not supported: reduce one axis at a time");
    if (!kw->axis_none) kw->axis = as_int(ap, v);
}

/* The axis from the positional argument args[pos] (when given) or axis=;
 * without either, None (every element), or 0 for ufunc.reduce. */
static void red_axis(AP *ap, const char *what, int n, const AVal *args, int pos, Kwargs *kw, bool dflt_none) {
    if (n > pos + 1) ap_fail(ap, "%s takes at most %d positional argument%s", what, pos + 1, pos ? "s" : "");
    if (n == pos + 1) {
        if (kw->has_axis) ap_fail(ap, "%s got axis twice", what);
        set_axis(ap, kw, args[pos]);
    } else if (!kw->has_axis) kw->axis_none = dflt_none, kw->axis = 0;
}

static void no_kwargs(AP *ap, const char *what, const Kwargs *kw) {
    if (kw->has_axis) ap_fail(ap, "%s takes no axis= argument", what);
    if (kw->has_keepdims) ap_fail(ap, "%s takes no keepdims= argument", what);
}

/* The lanes of a reduction of x along one axis, or along all of x
 * flattened: lane (o, in) holds the elements (o * len + t) * inner + in
 * for t < len; the result has shape[ndim] (the axis kept as 1 with keepdims). */
typedef struct Lanes {
    int64_t outer, len, inner;
    int ndim;
    int64_t shape[MAXD];
} Lanes;

static Lanes lanes_of(AP *ap, const AVal *x, const Kwargs *kw, bool keepdims) {
    Lanes l = {.outer = 1, .len = x->n, .inner = 1};
    if (kw->axis_none) {
        l.ndim = keepdims ? x->ndim : 0;
        for (int d = 0; d < l.ndim; d++) l.shape[d] = 1;
        return l;
    }
    int64_t axis = norm_axis(ap, kw->axis, x);
    for (int d = 0; d < x->ndim; d++) {
        if (d < axis) l.outer *= x->shape[d];
        if (d > axis) l.inner *= x->shape[d];
        if (d != axis || keepdims) l.shape[l.ndim++] = d == axis ? 1 : x->shape[d];
    }
    l.len = x->shape[axis];
    return l;
}

/* numpy's pairwise summation, what np.add.reduce does along a contiguous
 * axis: below 8 elements in order, up to 128 in eight interleaved partial
 * sums, above that the two halves (a multiple of 8 first) summed apart.
 * Matching it makes float64 sums equal numpy's bit for bit. */
static double pairwise(const AVal *x, int64_t base, int64_t n) {
    if (n < 8) {
        double s = 0;
        for (int64_t i = 0; i < n; i++) s += el_f(x, base + i);
        return s;
    }
    if (n <= 128) {
        double r[8];
        for (int j = 0; j < 8; j++) r[j] = el_f(x, base + j);
        int64_t i = 8;
        for (; i < n - n % 8; i += 8)
            for (int j = 0; j < 8; j++) r[j] += el_f(x, base + i + j);
        double s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++) s += el_f(x, base + i);
        return s;
    }
    int64_t h = n / 2;
    h -= h % 8;
    return pairwise(x, base, h) + pairwise(x, base + h, n - h);
}

/* A float sum of one lane: pairwise where the lane is contiguous (numpy's
 * inner loop gets it whole), else in order (numpy adds row after row). */
static double lane_fsum(const AVal *x, int64_t base, int64_t stride, int64_t len) {
    if (stride == 1) return 0.0 + pairwise(x, base, len);
    double s = 0;
    for (int64_t t = 0; t < len; t++) s += el_f(x, base + t * stride);
    return s;
}

/* max / min of a float lane: a NaN wins; on a tie the later element (as
 * numpy's vector loops, which only shows for -0 and +0) */
static double lane_fext(const AVal *x, int64_t base, int64_t stride, int64_t len, bool max) {
    double m = el_f(x, base);
    for (int64_t t = 1; t < len && !isnan(m); t++) {
        double v = el_f(x, base + t * stride);
        if (isnan(v) || (max ? v >= m : v <= m)) m = v;
    }
    return m;
}

/* argmax / argmin as numpy's: the first extreme, or the first NaN */
static int64_t lane_arg(const AVal *x, int64_t base, int64_t stride, int64_t len, bool max) {
    int64_t best = 0;
    if (x->nk == NK_FLOAT) {
        double m = el_f(x, base);
        for (int64_t t = 1; t < len && !isnan(m); t++) {
            double v = el_f(x, base + t * stride);
            if (max ? !(v <= m) : !(v >= m)) m = v, best = t;
        }
        return best;
    }
    int64_t m = el_i(x, base);
    for (int64_t t = 1; t < len; t++) {
        int64_t v = el_i(x, base + t * stride);
        if (max ? v > m : v < m) m = v, best = t;
    }
    return best;
}

/* an integer (or bool) reduction of one lane, wrapping at 64 bits; all /
 * any of any kind */
static int64_t lane_int(RedOp op, const AVal *x, int64_t base, int64_t stride, int64_t len) {
    uint64_t acc = op == RD_PROD ? 1 : op == RD_AND || op == RD_ALL ? UINT64_MAX : 0;
    if (op == RD_MAX || op == RD_MIN) acc = (uint64_t)el_i(x, base);
    for (int64_t t = 0; t < len; t++) {
        int64_t k = base + t * stride;
        uint64_t v = op == RD_ALL || op == RD_ANY ? el_true(x, k) : (uint64_t)el_i(x, k);
        switch (op) {
        case RD_SUM: acc += v; break;
        case RD_PROD: acc *= v; break;
        case RD_MAX: acc = (int64_t)v > (int64_t)acc ? v : acc; break;
        case RD_MIN: acc = (int64_t)v < (int64_t)acc ? v : acc; break;
        case RD_ALL: acc &= v ? UINT64_MAX : 0; break;
        case RD_ANY: acc |= v; break;
        case RD_AND: acc &= v; break;
        case RD_OR: acc |= v; break;
        case RD_XOR: acc ^= v; break;
        default: break;
        }
    }
    return (int64_t)acc;
}

/* the kind of a reduction's result, as numpy's: sums and products of bools
 * are ints, max keeps the kind, bitwise reductions refuse floats */
static int red_kind(AP *ap, RedOp op, const AVal *x, const char *what) {
    switch (op) {
    case RD_SUM: case RD_PROD: case RD_CUMSUM: case RD_CUMPROD: return x->nk == NK_FLOAT ? NK_FLOAT : NK_INT;
    case RD_ARGMAX: case RD_ARGMIN: return NK_INT;
    case RD_MEAN: return NK_FLOAT;
    case RD_ALL: case RD_ANY: return NK_BOOL;
    case RD_AND: case RD_OR: case RD_XOR:
        if (x->nk == NK_FLOAT) ap_fail(ap, "%s needs integers or bools", what);
        return x->nk;
    default: return x->nk;
    }
}

/* element k of r: the reduction of one lane of x */
static void reduce_lane(RedOp op, const AVal *x, int64_t base, int64_t stride, int64_t len, AVal *r, int64_t k) {
    bool fl = x->nk == NK_FLOAT;
    if (op == RD_ARGMAX || op == RD_ARGMIN) put_i(r, k, lane_arg(x, base, stride, len, op == RD_ARGMAX));
    else if (op == RD_MEAN) put_f(r, k, len ? lane_fsum(x, base, stride, len) / (double)len : NAN);
    else if (fl && op == RD_SUM) put_f(r, k, lane_fsum(x, base, stride, len));
    else if (fl && (op == RD_MAX || op == RD_MIN)) put_f(r, k, lane_fext(x, base, stride, len, op == RD_MAX));
    else if (fl && op == RD_PROD) {
        double p = 1;                /* in order: numpy multiplies without pairing */
        for (int64_t t = 0; t < len; t++) p *= el_f(x, base + t * stride);
        put_f(r, k, p);
    } else {
        int64_t v = lane_int(op, x, base, stride, len);
        put_i(r, k, r->nk == NK_BOOL ? v != 0 : v);
    }
}

/* cumsum / cumprod along one axis, or over x flattened (axis None) */
static AVal scan(AP *ap, RedOp op, AVal x, const Kwargs *kw, int nk) {
    if (kw->axis_none) x = reshape(ap, x, num_i(-1));
    Lanes l = lanes_of(ap, &x, kw, true);
    AVal r = new_array(ap, nk, x.ndim, x.shape);
    for (int64_t o = 0; o < l.outer; o++)
        for (int64_t in = 0; in < l.inner; in++) {
            double f = 0;
            uint64_t i = 0;
            for (int64_t t = 0; t < l.len; t++) {
                int64_t k = (o * l.len + t) * l.inner + in;
                if (nk == NK_FLOAT) {
                    f = t == 0 ? el_f(&x, k) : op == RD_CUMSUM ? f + el_f(&x, k) : f * el_f(&x, k);
                    put_f(&r, k, f);
                } else {
                    uint64_t v = (uint64_t)el_i(&x, k);
                    i = t == 0 ? v : op == RD_CUMSUM ? i + v : i * v;
                    put_i(&r, k, (int64_t)i);
                }
            }
        }
    return r;
}

/* x.max(axis=..., keepdims=...) and the others, kw's axis resolved by red_axis */
static AVal reduction(AP *ap, RedOp op, AVal x, const Kwargs *kw, const char *what) {
    x = as_array(ap, x, what);
    int nk = red_kind(ap, op, &x, what);
    if (is_scan(op)) {
        if (kw->has_keepdims) ap_fail(ap, "%s takes no keepdims= argument", what);
        return scan(ap, op, x, kw, nk);
    }
    Lanes l = lanes_of(ap, &x, kw, kw->keepdims);
    if (l.len == 0 && (op == RD_MAX || op == RD_MIN))
        ap_fail(ap, "zero-size array to reduction operation %s which has no identity", red_names[op].ufunc);
    if (l.len == 0 && (op == RD_ARGMAX || op == RD_ARGMIN))
        ap_fail(ap, "attempt to get %s of an empty sequence", red_names[op].method);
    AVal r = new_array(ap, nk, l.ndim, l.shape);
    for (int64_t o = 0; o < l.outer; o++)
        for (int64_t in = 0; in < l.inner; in++)
            reduce_lane(op, &x, o * l.len * l.inner + in, l.inner, l.len, &r, o * l.inner + in);
    return r;
}

/* ---- flip, concatenate, stack ---- */

/* np.flip(x, axis=None): reversed along one axis, or along all of them */
static AVal np_flip(AP *ap, AVal x, const Kwargs *kw) {
    x = as_array(ap, x, "np.flip");
    int64_t axis = kw->axis_none ? -1 : norm_axis(ap, kw->axis, &x);
    AVal r = new_array(ap, x.nk, x.ndim, x.shape);
    for (int64_t k = 0; k < r.n; k++) {
        int64_t rem = k, off = 0, stride = 1;
        for (int d = x.ndim - 1; d >= 0; d--) {
            int64_t i = rem % x.shape[d];
            rem /= x.shape[d];
            if (axis < 0 || d == axis) i = x.shape[d] - 1 - i;
            off += i * stride;
            stride *= x.shape[d];
        }
        if (x.nk == NK_FLOAT) put_f(&r, k, x.fdata[off]);
        else put_i(&r, k, x.idata[off]);
    }
    return r;
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_f64(const void *a, const void *b) {   /* NaN last, as numpy */
    double x = *(const double *)a, y = *(const double *)b;
    if (isnan(x) || isnan(y)) return isnan(x) - isnan(y);
    return (x > y) - (x < y);
}

/* np.sort(x, axis=-1): each run along the last axis ascending (the only
 * axis here) */
static AVal np_sort(AP *ap, AVal x, const Kwargs *kw) {
    x = as_array(ap, x, "np.sort");
    if (x.ndim == 0) ap_fail(ap, "np.sort: axis -1 is out of bounds for array of dimension 0");
    if (!kw->axis_none && norm_axis(ap, kw->axis, &x) != x.ndim - 1) ap_fail(ap, "np.sort sorts the last axis only");
    AVal r = new_array(ap, x.nk, x.ndim, x.shape);
    int64_t len = x.shape[x.ndim - 1];
    for (int64_t k = 0; k < r.n; k++) {
        if (x.nk == NK_FLOAT) put_f(&r, k, x.fdata[k]);
        else put_i(&r, k, x.idata[k]);
    }
    for (int64_t row = 0; len && row < r.n; row += len) {
        if (x.nk == NK_FLOAT) qsort(r.fdata + row, (size_t)len, sizeof(double), cmp_f64);
        else qsort(r.idata + row, (size_t)len, sizeof(int64_t), cmp_i64);
    }
    return r;
}

/* np.concatenate(items, axis) (axis None: each flattened first), in the
 * widest kind of the items */
static AVal concatenate(AP *ap, AVal *items, int n, const Kwargs *kw, const char *what) {
    if (n == 0) ap_fail(ap, "%s needs at least one array", what);
    int nk = NK_BOOL;
    for (int j = 0; j < n; j++) {
        items[j] = as_array(ap, items[j], what);
        if (kw->axis_none) items[j] = reshape(ap, items[j], num_i(-1));
        if (items[j].nk > nk) nk = items[j].nk;
    }
    const AVal *a = &items[0];
    if (a->ndim == 0) ap_fail(ap, "%s: zero-dimensional arrays cannot be concatenated", what);
    int64_t axis = kw->axis_none ? 0 : norm_axis(ap, kw->axis, a);
    int64_t shape[MAXD], outer = 1, inner = 1;
    memcpy(shape, a->shape, sizeof shape);
    shape[axis] = 0;
    for (int j = 0; j < n; j++) {
        bool same = items[j].ndim == a->ndim;
        for (int d = 0; same && d < a->ndim; d++) same = d == axis || items[j].shape[d] == a->shape[d];
        if (!same)
            ap_fail(ap, "%s: shapes %s and %s differ outside axis %lld", what, shape_str(ap, a),
                    shape_str(ap, &items[j]), (long long)axis);
        shape[axis] += items[j].shape[axis];
    }
    for (int d = 0; d < a->ndim; d++) {
        if (d < axis) outer *= a->shape[d];
        if (d > axis) inner *= a->shape[d];
    }
    AVal r = new_array(ap, nk, a->ndim, shape);
    int64_t at = 0;                  /* where item j starts along the axis */
    for (int j = 0; j < n; j++) {
        int64_t chunk = items[j].shape[axis] * inner;
        for (int64_t o = 0; o < outer; o++)
            for (int64_t c = 0; c < chunk; c++) {
                int64_t src = o * chunk + c, dst = (o * shape[axis] + at) * inner + c;
                if (nk == NK_FLOAT) put_f(&r, dst, el_f(&items[j], src));
                else put_i(&r, dst, el_i(&items[j], src));
            }
        at += items[j].shape[axis];
    }
    return r;
}

/* np.stack(items, axis): arrays of one shape along a new axis */
static AVal stack(AP *ap, AVal *items, int n, const Kwargs *kw, const char *what) {
    if (n == 0) ap_fail(ap, "%s needs at least one array", what);
    if (kw->axis_none) ap_fail(ap, "%s needs an integer axis", what);
    AVal first = as_array(ap, items[0], what);
    if (first.ndim >= MAXD) ap_fail(ap, "an array has at most %d dimensions", MAXD);
    AVal wider = {.kind = V_ARRAY, .ndim = first.ndim + 1};
    int64_t axis = norm_axis(ap, kw->axis, &wider);
    for (int j = 0; j < n; j++) {
        AVal x = as_array(ap, items[j], what);
        if (x.ndim != first.ndim || memcmp(x.shape, first.shape, sizeof(int64_t) * (size_t)x.ndim) != 0)
            ap_fail(ap, "%s: the arrays have different shapes, %s and %s", what, shape_str(ap, &first),
                    shape_str(ap, &x));
        memmove(x.shape + axis + 1, x.shape + axis, sizeof(int64_t) * (size_t)(x.ndim - axis));
        x.shape[axis] = 1;
        x.ndim++;
        items[j] = x;
    }
    Kwargs along = {.has_axis = true, .axis = axis};
    return concatenate(ap, items, n, &along, what);
}

/* a list or tuple argument's items (np.concatenate's first argument) */
static AVal *seq_items(AP *ap, AVal seq, int *n, const char *what) {
    if (seq.kind != V_TUPLE) ap_fail(ap, "%s needs a list or tuple of arrays", what);
    AVal *items = arena_alloc(ap->a, sizeof(AVal) * (size_t)(seq.n_items + 1));
    memcpy(items, seq.items, sizeof(AVal) * (size_t)seq.n_items);
    *n = seq.n_items;
    return items;
}

/* ---- generators and other functions ---- */

static ElemType dtype_arg(AP *ap, const AVal *args, int n, int i, ElemType dflt) {
    if (i >= n) return dflt;
    if (args[i].kind != V_DTYPE) ap_fail(ap, "expected a dtype (fp32, i32, ...)");
    return args[i].dt;
}

static AVal shaped(AP *ap, AVal s, ElemType dt) {
    int64_t shape[MAXD];
    int nd = read_shape(ap, s, shape);
    return new_array(ap, nk_of(dt), nd, shape);
}

/* element k of an array of dt set to x, as dt holds it */
static void put_as(AVal *v, int64_t k, ElemType dt, double x) {
    if (v->nk == NK_FLOAT) put_f(v, k, interp_slot_to_double(dt, interp_slot_from_double(dt, x)));
    else put_i(v, k, dt == ET_I1 ? x != 0 : wrap_int(dt, f_to_i64(trunc(x))));
}

static AVal fill(AP *ap, const AVal *args, int n, int min_args, double value, ElemType dt) {
    if (n < min_args) ap_fail(ap, "too few arguments");
    AVal v = shaped(ap, args[0], dt);
    for (int64_t i = 0; i < v.n; i++) put_as(&v, i, dt, value);
    return v;
}

/* rand: uniform in [-1, 1) for floats, as run_kernels.py: integers in
 * [-100, 100) ([0, 200) unsigned), bools 0 / 1 */
static double rand_elem(AP *ap, const char *f, ElemType dt, double lo, double hi) {
    if (!strcmp(f, "randint")) return lo + floor(rng_unit(ap) * (hi - lo));
    if (!strcmp(f, "randsign")) return rng_next(ap) & 1 ? 1 : -1;
    if (!strcmp(f, "randn")) return sqrt(-2 * log(1 - rng_unit(ap))) * cos(2 * M_PI * rng_unit(ap));
    if (dt == ET_I1) return (double)(rng_next(ap) & 1);
    if (elem_is_int(dt)) return (elem_is_signed(dt) ? -100 : 0) + floor(rng_unit(ap) * 200);
    return 2 * rng_unit(ap) - 1;
}

static AVal call_random(AP *ap, const char *f, const AVal *args, int n) {
    bool is_int = strcmp(f, "randint") == 0;
    int first = is_int ? 2 : 0;
    if (n <= first) ap_fail(ap, "%s() needs a shape", f);
    ElemType dt = dtype_arg(ap, args, n, first + 1, is_int || strcmp(f, "randsign") == 0 ? ET_I32 : ET_F32);
    AVal v = shaped(ap, args[first], dt);
    double lo = is_int ? as_num(ap, args[0]) : 0, hi = is_int ? as_num(ap, args[1]) : 0;
    for (int64_t i = 0; i < v.n; i++) put_as(&v, i, dt, rand_elem(ap, f, dt, lo, hi));
    return v;
}

/* np.array([...]): nested lists of numbers and arrays of one shape, in
 * the widest kind of the items (np.array([]) is float) */
static AVal list_to_array(AP *ap, AVal v) {
    if (v.kind != V_TUPLE) return as_array(ap, v, "np.array");
    if (v.n_items == 0) return new_array(ap, NK_FLOAT, 1, (int64_t[]){0});
    AVal *items = arena_alloc(ap->a, sizeof(AVal) * (size_t)v.n_items);
    for (int i = 0; i < v.n_items; i++) items[i] = list_to_array(ap, v.items[i]);
    return stack(ap, items, v.n_items, &(Kwargs){.has_axis = true}, "np.array");
}

static AVal np_array(AP *ap, const AVal *args, int n) {
    if (n != 1 || args[0].kind != V_TUPLE) ap_fail(ap, "np.array needs a list of numbers");
    return list_to_array(ap, args[0]);
}

/* np.arange(stop) / (start, stop[, step]) */
static AVal np_arange(AP *ap, const AVal *args, int n) {
    if (n < 1 || n > 3) ap_fail(ap, "np.arange takes one to three numbers");
    AVal lo = n > 1 ? args[0] : num_i(0), hi = n > 1 ? args[1] : args[0], st = n > 2 ? args[2] : num_i(1);
    bool fl = lo.nk == NK_FLOAT || hi.nk == NK_FLOAT || st.nk == NK_FLOAT;
    double a = as_num(ap, lo), b = as_num(ap, hi), s = as_num(ap, st);
    if (s == 0) ap_fail(ap, "np.arange: the step cannot be zero");
    double len = ceil((b - a) / s);
    if (!(len <= ARGS_MAX_ELEMS)) ap_fail(ap, "an array of more than 16777216 elements is too large to interpret");
    AVal v = new_array(ap, fl ? NK_FLOAT : NK_INT, 1, (int64_t[]){len > 0 ? (int64_t)len : 0});
    for (int64_t k = 0; k < v.n; k++) {
        if (fl) put_f(&v, k, a + (double)k * s);
        else put_i(&v, k, as_int(ap, lo) + k * as_int(ap, st));
    }
    return v;
}

static void nargs(AP *ap, const char *f, int n, int want) {
    if (n != want) ap_fail(ap, "%s takes %d argument%s, not %d", f, want, want == 1 ? "" : "s", n);
}

/* np.bincount(x, minlength=m): how often each value 0, 1, ... occurs in
 * the non-negative integers (or bools) x, over max(x) + 1 or m bins */
static AVal bincount(AP *ap, AVal x, int64_t minlength) {
    if (x.kind != V_ARRAY || x.ndim != 1 || x.nk == NK_FLOAT)
        ap_fail(ap, "np.bincount needs a 1-d array of integers");
    if (minlength < 0) ap_fail(ap, "np.bincount: minlength must not be negative");
    int64_t bins = minlength;
    for (int64_t k = 0; k < x.n; k++) {
        if (x.idata[k] < 0) ap_fail(ap, "np.bincount: the values must not be negative");
        if (x.idata[k] + 1 > bins) bins = x.idata[k] + 1;
    }
    AVal r = new_array(ap, NK_INT, 1, (int64_t[]){bins});
    for (int64_t k = 0; k < x.n; k++) r.idata[x.idata[k]]++;
    return r;
}

/* np.add / multiply / bitwise_and / bitwise_or / bitwise_xor (x, y): the operators */
static const char *ufunc_operator(const char *f) {
    static const struct { const char *name, *op; } ops[] = {
        {"add", "+"}, {"multiply", "*"}, {"bitwise_and", "&"}, {"bitwise_or", "|"}, {"bitwise_xor", "^"},
    };
    for (size_t i = 0; i < ARRAY_LEN(ops); i++)
        if (!strcmp(ops[i].name, f)) return ops[i].op;
    return NULL;
}

/* np.max(x, axis), np.flip, np.concatenate, np.stack, ufunc.reduce(x, axis):
 * the functions that take axis= (the reductions also keepdims=); false
 * when f is none of them */
static bool call_np_axis(AP *ap, const char *f, AVal *args, int n, Kwargs *kw, AVal *out) {
    const char *name = arena_printf(ap->a, "np.%s", f);
    size_t len = strlen(f);
    bool ufunc = len > 7 && !strcmp(f + len - 7, ".reduce");
    int op = red_lookup(ufunc ? arena_strndup(ap->a, f, len - 7) : f, ufunc);
    if (op >= 0 && !is_scan(op)) {
        if (n < 1) ap_fail(ap, "%s needs an array", name);
        red_axis(ap, name, n, args, 1, kw, !ufunc);
        *out = reduction(ap, (RedOp)op, args[0], kw, name);
        return true;
    }
    if (ufunc) ap_fail(ap, "unknown function '%s'", name);
    if (op >= 0 && is_scan(op)) {
        if (n < 1) ap_fail(ap, "%s needs an array", name);
        red_axis(ap, name, n, args, 1, kw, true);
        *out = reduction(ap, (RedOp)op, args[0], kw, name);
        return true;
    }
    bool flip = !strcmp(f, "flip"), cat = !strcmp(f, "concatenate"), stk = !strcmp(f, "stack"), srt = !strcmp(f, "sort");
    if (!flip && !cat && !stk && !srt) return false;
    if (kw->has_keepdims) ap_fail(ap, "%s takes no keepdims= argument", name);
    if (n < 1) ap_fail(ap, "%s needs an array", name);
    red_axis(ap, name, n, args, 1, kw, flip || srt);
    if (flip) *out = np_flip(ap, args[0], kw);
    else if (srt) *out = np_sort(ap, args[0], kw);
    else {
        int k;
        AVal *items = seq_items(ap, args[0], &k, name);
        *out = cat ? concatenate(ap, items, k, kw, name) : stack(ap, items, k, kw, name);
    }
    return true;
}

/* np.transpose(x) reverses the dims; np.transpose(x, axes) permutes them */
static AVal np_transpose(AP *ap, AVal *args, int n) {
    if (n < 1 || n > 2) ap_fail(ap, "np.transpose takes an array and optionally axes");
    AVal x = args[0];
    if (n == 1 || x.kind != V_ARRAY) return transpose(ap, x);
    const AVal *items = args[1].kind == V_TUPLE ? args[1].items : &args[1];
    int k = args[1].kind == V_TUPLE ? args[1].n_items : 1, perm[MAXD];
    unsigned seen = 0;
    if (k != x.ndim) ap_fail(ap, "np.transpose: axes don't match array of shape %s", shape_str(ap, &x));
    for (int d = 0; d < k; d++) {
        int64_t a = as_int(ap, items[d]);
        if (a < 0) a += k;
        if (a < 0 || a >= k || (seen >> a & 1)) ap_fail(ap, "np.transpose: repeated or out-of-range axis in axes");
        seen |= 1u << a;
        perm[d] = (int)a;
    }
    return permute_axes(ap, x, perm);
}

/* numpy has no fp8: to_fp8(x, dt) is x's values as fp8 dt holds them
 * (nearest even, saturating to the largest finite value, NaN kept: the
 * conversion Triton and tric emit); fp8_from_bits(codes, dt) the values
 * of the low bytes of integers, every code (NaN for NaN codes). Both give
 * float values; test/gpu/run_kernels.py defines the same two. */
static AVal fp8_fn(AP *ap, const char *f, const AVal *args, int n) {
    nargs(ap, f, n, 2);
    ElemType dt = dtype_arg(ap, args, n, 1, ET_F8E4M3);
    if (dt != ET_F8E4M3 && dt != ET_F8E5M2) ap_fail(ap, "%s needs fp8e4nv or fp8e5", f);
    if (!strcmp(f, "to_fp8")) return astype(ap, astype(ap, args[0], dt), ET_F64);
    AVal c = astype(ap, args[0], ET_I64);
    AVal r = c.kind == V_NUM ? (AVal){.kind = V_NUM, .nk = NK_FLOAT} : new_array(ap, NK_FLOAT, c.ndim, c.shape);
    for (int64_t k = 0; k < (c.kind == V_NUM ? 1 : c.n); k++) {
        double x = elem_float_from_bits(dt, (uint64_t)el_i(&c, k) & 0xFF);
        if (r.kind == V_NUM) r.f = x;
        else put_f(&r, k, x);
    }
    return r;
}

/* x @ y, np.matmul, np.dot: 2-d by 2-d, or stacks of matrices (the
 * leading dims broadcast as numpy's matmul does; np.dot here is matmul).
 * Floats accumulate in float64 in k order, integers exactly in int64
 * (wrapping); booleans are refused. */
static AVal np_matmul(AP *ap, AVal x, AVal y) {
    x = as_array(ap, x, "matmul"), y = as_array(ap, y, "matmul");
    if (x.ndim < 2 || y.ndim < 2 || x.ndim != y.ndim)
        ap_fail(ap, "matmul needs two arrays of at least 2 dims and of the same rank, not %s and %s",
                shape_str(ap, &x), shape_str(ap, &y));
    if (x.nk == NK_BOOL || y.nk == NK_BOOL) ap_fail(ap, "matmul of booleans is not supported");
    int nd = x.ndim;
    int64_t M = x.shape[nd - 2], K = x.shape[nd - 1], N = y.shape[nd - 1], shape[MAXD], batches = 1;
    if (y.shape[nd - 2] != K)
        ap_fail(ap, "matmul: shapes %s and %s do not chain (%lld != %lld)", shape_str(ap, &x), shape_str(ap, &y),
                (long long)K, (long long)y.shape[nd - 2]);
    for (int d = 0; d < nd - 2; d++) {
        if (x.shape[d] != y.shape[d] && x.shape[d] != 1 && y.shape[d] != 1)
            ap_fail(ap, "matmul: batch dims of %s and %s do not broadcast", shape_str(ap, &x), shape_str(ap, &y));
        shape[d] = x.shape[d] > y.shape[d] ? x.shape[d] : y.shape[d];
        batches *= shape[d];
    }
    shape[nd - 2] = M, shape[nd - 1] = N;
    bool fl = x.nk == NK_FLOAT || y.nk == NK_FLOAT;
    AVal r = new_array(ap, fl ? NK_FLOAT : NK_INT, nd, shape);
    for (int64_t bi = 0; bi < batches; bi++) {
        int64_t xo = 0, yo = 0, rem = bi, xs = M * K, ys = K * N;   /* batch offsets, broadcasting */
        for (int d = nd - 3; d >= 0; d--) {
            int64_t c = rem % shape[d];
            rem /= shape[d];
            xo += (x.shape[d] == 1 ? 0 : c) * xs, xs *= x.shape[d];
            yo += (y.shape[d] == 1 ? 0 : c) * ys, ys *= y.shape[d];
        }
        for (int64_t m = 0; m < M; m++)
            for (int64_t n = 0; n < N; n++) {
                double f = 0;
                uint64_t i = 0;
                for (int64_t k = 0; k < K; k++) {
                    int64_t a = xo + m * K + k, b = yo + k * N + n;
                    if (fl) f += el_f(&x, a) * el_f(&y, b);
                    else i += (uint64_t)el_i(&x, a) * (uint64_t)el_i(&y, b);
                }
                int64_t o = (bi * M + m) * N + n;
                if (fl) put_f(&r, o, f);
                else put_i(&r, o, (int64_t)i);
            }
    }
    return r;
}

/* np.take_along_axis(a, idx, axis): a at idx along axis (numpy's
 * semantics: idx has a's rank, sizes 1 or a's elsewhere; negative indices
 * count from the end) */
static AVal np_take_along_axis(AP *ap, AVal a, AVal idx, AVal ax) {
    a = as_array(ap, a, "np.take_along_axis");
    idx = as_array(ap, idx, "np.take_along_axis");
    int64_t axis = as_int(ap, ax);
    if (axis < 0) axis += a.ndim;
    if (axis < 0 || axis >= a.ndim || idx.ndim != a.ndim || idx.nk == NK_FLOAT)
        ap_fail(ap, "np.take_along_axis needs integer indices of a's rank and an axis of it");
    AVal r = new_array(ap, a.nk, idx.ndim, idx.shape);
    for (int64_t k = 0; k < r.n; k++) {
        int64_t rem = k, off = 0, stride = 1;
        for (int d = idx.ndim - 1; d >= 0; d--) {
            int64_t i = rem % idx.shape[d];
            rem /= idx.shape[d];
            if (d == axis) {
                i = el_i(&idx, k);
                if (i < 0) i += a.shape[d];
                if (i < 0 || i >= a.shape[d]) ap_fail(ap, "np.take_along_axis: index %lld is out of bounds", (long long)el_i(&idx, k));
            } else if (idx.shape[d] != a.shape[d]) {
                ap_fail(ap, "np.take_along_axis: shapes %s and %s do not match", shape_str(ap, &a), shape_str(ap, &idx));
            }
            off += i * stride;
            stride *= a.shape[d];
        }
        if (a.nk == NK_FLOAT) put_f(&r, k, a.fdata[off]);
        else put_i(&r, k, a.idata[off]);
    }
    return r;
}

static AVal call_np(AP *ap, const char *f, AVal *args, int n, Kwargs *kw) {
    AVal r;
    if (call_np_axis(ap, f, args, n, kw, &r)) return r;
    no_kwargs(ap, arena_printf(ap->a, "np.%s", f), kw);
    const char *op = ufunc_operator(f);
    if (op) return nargs(ap, f, n, 2), binop(ap, op, args[0], args[1]);
    MathFn m = np_math(f);
    if (m) return nargs(ap, f, n, 1), map_float(ap, m, args[0]);
    if (!strcmp(f, "abs")) return nargs(ap, f, n, 1), np_abs(ap, args[0]);
    if (!strcmp(f, "isnan") || !strcmp(f, "isposinf") || !strcmp(f, "isneginf") || !strcmp(f, "isinf") ||
        !strcmp(f, "isfinite"))
        return nargs(ap, f, n, 1), classify(ap, f, args[0]);
    if (!strcmp(f, "maximum") || !strcmp(f, "minimum") || !strcmp(f, "fmod") || !strcmp(f, "arctan2") ||
        !strcmp(f, "hypot") || !strcmp(f, "copysign"))
        return nargs(ap, f, n, 2), np_binary(ap, f, args[0], args[1]);
    if (!strcmp(f, "clip"))
        return nargs(ap, f, n, 3), np_binary(ap, "minimum", np_binary(ap, "maximum", args[0], args[1]), args[2]);
    if (!strcmp(f, "where")) return nargs(ap, f, n, 3), np_where(ap, args[0], args[1], args[2]);
    if (!strcmp(f, "take_along_axis")) return nargs(ap, f, n, 3), np_take_along_axis(ap, args[0], args[1], args[2]);
    if (!strcmp(f, "transpose")) return np_transpose(ap, args, n);
    if (!strcmp(f, "ldexp")) return nargs(ap, f, n, 2), np_ldexp(ap, args[0], args[1]);
    if (!strcmp(f, "array")) return np_array(ap, args, n);
    if (!strcmp(f, "arange")) return np_arange(ap, args, n);
    if (!strcmp(f, "matmul") || !strcmp(f, "dot")) return nargs(ap, f, n, 2), np_matmul(ap, args[0], args[1]);
    ap_fail(ap, "unknown function 'np.%s'", f);
}

/* Philox-4x32 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
 * 3"; Random123's philox4x32) for the references of kernels that use
 * tl.randint & co., written from the paper, apart from the compiler's
 * lowering: counter (offset low 32 bits, offset high 32 bits, 0, 0), key
 * (seed low 32 bits, seed high 32 bits). Output word k of `rounds` rounds. */
static uint32_t philox_word(uint64_t seed, uint64_t offset, int k, int rounds) {
    uint32_t ctr[4] = {(uint32_t)offset, (uint32_t)(offset >> 32), 0, 0};
    uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    for (int r = 0; r < rounds; r++) {
        uint64_t p0 = (uint64_t)0xD2511F53u * ctr[0], p1 = (uint64_t)0xCD9E8D57u * ctr[2];
        uint32_t next[4] = {(uint32_t)(p1 >> 32) ^ ctr[1] ^ key[0], (uint32_t)p1, (uint32_t)(p0 >> 32) ^ ctr[3] ^ key[1],
                            (uint32_t)p0};
        memcpy(ctr, next, sizeof ctr);
        key[0] += 0x9E3779B9u;
        key[1] += 0xBB67AE85u;
    }
    return ctr[k];
}

/* philox(seed, offsets, k[, rounds]): word k (0..3) of Triton's
 * randint4x(seed, offsets) as int64 values in [0, 2^32) */
static AVal check_philox(AP *ap, const AVal *args, int n) {
    if (n < 3 || n > 4) ap_fail(ap, "philox(seed, offsets, k[, rounds]) takes 3 or 4 arguments, got %d", n);
    int64_t seed = as_int(ap, args[0]), k = as_int(ap, args[2]), rounds = n > 3 ? as_int(ap, args[3]) : 10;
    if (k < 0 || k > 3) ap_fail(ap, "philox's k must be 0, 1, 2 or 3, got %lld", (long long)k);
    if (rounds < 0 || rounds > 64) ap_fail(ap, "philox's rounds must be from 0 to 64, got %lld", (long long)rounds);
    AVal x = args[1];
    if (!is_numeric(&x) || x.nk == NK_FLOAT) ap_fail(ap, "philox's offsets must be integers");
    Bc b;
    bc_init(ap, &b, &x, 1, "philox");
    AVal r = bc_result(ap, &b, &x, 1, NK_INT);
    for (int64_t i = 0; i < b.n; i++) res_put_i(&r, i, philox_word((uint64_t)seed, (uint64_t)el_i(&x, i), (int)k, (int)rounds));
    return r;
}

/* the inverse of erf: Newton's method from Winitzki's closed form, with
 * erfc's residual in the tails (1 - |y| is exact there) */
static double args_erfinv(double y) {
    double a = fabs(y);
    if (isnan(a) || a > 1) return NAN;
    if (a == 1) return copysign(INFINITY, y);
    if (a == 0) return y;
    double w = log((1 - a) * (1 + a)), b = 2 / (3.14159265358979323846 * 0.147) + w / 2;
    double x = sqrt(sqrt(b * b - w / 0.147) - b);
    for (int i = 0; i < 8; i++) {
        double f = a > 0.5 ? (1 - a) - erfc(x) : erf(x) - a;
        x -= f / (1.1283791670955126 * exp(-x * x));
    }
    return copysign(x, y);
}

/* desc(array, block [, padding [, shape]]): a host tensor descriptor of
 * array (row-major strides) with block shape `block`, out-of-bounds reads
 * np.nan or 0 (the default), the dims `shape` (default: the array's). The
 * name it is assigned to is its array's buffer, in checks too. */
static AVal call_desc(AP *ap, AVal *args, int n) {
    if (n < 2 || n > 4 || args[0].kind != V_ARRAY)
        ap_fail(ap, "desc() takes an array, its block shape, the padding (0 or np.nan) and the shape");
    AVal *items = arena_alloc(ap->a, sizeof(AVal) * 4);
    memcpy(items, args, sizeof(AVal) * (size_t)n);
    int rank = args[0].ndim;
    for (int k = 1; k < 4; k += 2) {
        if (k == 3 && n < 4) {   /* the array's shape */
            items[3] = (AVal){.kind = V_TUPLE, .items = arena_alloc(ap->a, sizeof(AVal) * (size_t)rank), .n_items = rank};
            for (int d = 0; d < rank; d++) items[3].items[d] = num_i(args[0].shape[d]);
        }
        if (items[k].kind != V_TUPLE || items[k].n_items != rank)
            ap_fail(ap, "desc(): the %s needs %d dims, one per dim of the array", k == 1 ? "block shape" : "shape", rank);
        for (int d = 0; d < rank; d++) {
            int64_t v = as_int(ap, items[k].items[d]);
            if (v < 1 || (k == 3 && v > args[0].shape[d]) || (k == 1 && (v & (v - 1))))
                ap_fail(ap, "desc(): %s dim %d is %lld", k == 1 ? "block" : "shape", d, (long long)v);
        }
    }
    if (n < 3) items[2] = num_i(0);
    double pad = as_num(ap, items[2]);
    if (pad == pad && pad != 0) ap_fail(ap, "desc(): the padding is 0 or np.nan");
    return (AVal){.kind = V_DESC, .items = items, .n_items = 4};
}

static AVal call(AP *ap, const char *f, AVal *args, int n, Kwargs *kw) {
    /* erf, erfc, erfinv: not numpy's (it has none); the GPU runner's env
     * names the same */
    if (!strcmp(f, "erf")) return nargs(ap, f, n, 1), map_float(ap, erf, args[0]);
    if (!strcmp(f, "erfc")) return nargs(ap, f, n, 1), map_float(ap, erfc, args[0]);
    if (!strcmp(f, "erfinv")) return nargs(ap, f, n, 1), map_float(ap, args_erfinv, args[0]);
    if (!strcmp(f, "np.bincount")) {
        no_kwargs(ap, f, kw);
        return nargs(ap, f, n, 1), bincount(ap, args[0], kw->minlength);
    }
    if (kw->has_minlength) ap_fail(ap, "%s takes no minlength= argument", f);
    if (!strncmp(f, "np.", 3)) return call_np(ap, f + 3, args, n, kw);
    no_kwargs(ap, f, kw);
    if (!strcmp(f, "rand") || !strcmp(f, "randn") || !strcmp(f, "randint") || !strcmp(f, "randsign"))
        return call_random(ap, f, args, n);
    if (!strcmp(f, "zeros")) return fill(ap, args, n, 1, 0, dtype_arg(ap, args, n, 1, ET_F32));
    if (!strcmp(f, "ones")) return fill(ap, args, n, 1, 1, dtype_arg(ap, args, n, 1, ET_F32));
    if (!strcmp(f, "full")) return fill(ap, args, n, 2, n > 1 ? as_num(ap, args[1]) : 0, dtype_arg(ap, args, n, 2, ET_F32));
    if (!strcmp(f, "empty")) {
        AVal v = fill(ap, args, n, 1, 0, dtype_arg(ap, args, n, 1, ET_F32));
        v.poison = true;
        return v;
    }
    if (!strcmp(f, "arange")) {
        AVal v = fill(ap, args, n, 1, 0, dtype_arg(ap, args, n, 1, ET_I32));
        for (int64_t i = 0; i < v.n; i++) put_as(&v, i, dtype_arg(ap, args, n, 1, ET_I32), (double)i);
        return v;
    }
    if (!strcmp(f, "cdiv")) {
        nargs(ap, f, n, 2);
        if (args[0].nk == NK_FLOAT || args[1].nk == NK_FLOAT) return num_f(-floor(-as_num(ap, args[0]) / as_num(ap, args[1])));
        if (as_int(ap, args[1]) == 0) ap_fail(ap, "division by zero");
        return num_i(-i_floordiv(-as_int(ap, args[0]), as_int(ap, args[1])));
    }
    if (!strcmp(f, "philox")) return check_philox(ap, args, n);
    if (!strcmp(f, "desc")) return call_desc(ap, args, n);
    if (!strcmp(f, "wrap")) {
        nargs(ap, f, n, 2);
        return astype(ap, astype(ap, args[0], ET_I64), dtype_arg(ap, args, n, 1, ET_I64));
    }
    if (!strcmp(f, "to_fp8") || !strcmp(f, "fp8_from_bits")) return fp8_fn(ap, f, args, n);
    ap_fail(ap, "unknown function '%s'", f);
}

/* ---- the grammar (Python's precedence) ---- */

static AVal expr(AP *ap, Lex *lx);
static AVal eval_name(AP *ap, const char *name);

static ElemType dtype_named(const char *s) {
    static const struct { const char *np, *tt; } alias[] = {
        {"float16", "fp16"}, {"float32", "fp32"}, {"float64", "fp64"}, {"int8", "i8"}, {"int16", "i16"},
        {"int32", "i32"}, {"int64", "i64"}, {"uint8", "u8"}, {"uint16", "u16"}, {"uint32", "u32"},
        {"uint64", "u64"}, {"bool_", "i1"}, {"bfloat16", "bf16"},
    };
    for (size_t i = 0; i < ARRAY_LEN(alias); i++)
        if (strcmp(s, alias[i].np) == 0) s = alias[i].tt;
    for (int e = 0; e < ET_COUNT; e++)
        if (e != ET_PTR && strcmp(s, elem_triton_name((ElemType)e)) == 0) return (ElemType)e;
    return ET_COUNT;
}

/* args = [arg ("," arg)* [","]] close ; arg = [NAME "="] expr ;
 * *trailing tells of a final comma */
static int arg_list(AP *ap, Lex *lx, const char *close, AVal **out, bool *trailing, Kwargs *kw) {
    AVal *v = NULL;
    int n = 0, cap = 0;
    bool comma = false;
    while (!accept(lx, close)) {
        Lex save = *lx;
        if (kw && peek_name(lx)) {
            const char *name = take_name(ap, lx);
            if (take_op(lx, (const char *const[]){"=", NULL})) {
                AVal x = expr(ap, lx);
                if (!strcmp(name, "axis")) set_axis(ap, kw, x);
                else if (!strcmp(name, "keepdims")) {
                    if (x.kind != V_NUM) ap_fail(ap, "keepdims= takes True or False");
                    kw->has_keepdims = true;
                    kw->keepdims = el_true(&x, 0);
                } else if (!strcmp(name, "minlength")) {
                    kw->has_minlength = true;
                    kw->minlength = as_int(ap, x);
                } else ap_fail(ap, "unknown keyword argument '%s'", name);
                goto next;
            }
            *lx = save;
        }
        AVal x = expr(ap, lx);
        VEC_PUSH(ap->a, v, n, cap, x);
    next:
        comma = accept(lx, ",");
        if (!comma) {
            expect(ap, lx, close);
            break;
        }
    }
    *out = v;
    if (trailing) *trailing = comma;
    return n;
}


/* name = NAME | "np" "." NAME ["." NAME] ; a dtype, a constant, a
 * function (when a call follows; np.UFUNC.reduce), or an assigned name */
static AVal name_or_call(AP *ap, Lex *lx) {
    const char *name = take_name(ap, lx);
    if (strcmp(name, "np") == 0) {
        expect(ap, lx, ".");
        name = arena_printf(ap->a, "np.%s", take_name(ap, lx));
        if (accept(lx, ".")) name = arena_printf(ap->a, "%s.%s", name, take_name(ap, lx));
    }
    if (accept(lx, "(")) {
        AVal *args;
        Kwargs kw = {0};
        int n = arg_list(ap, lx, ")", &args, NULL, &kw);
        return call(ap, name, args, n, &kw);
    }
    const char *bare = strncmp(name, "np.", 3) == 0 ? name + 3 : name;
    ElemType dt = dtype_named(bare);
    if (dt != ET_COUNT) return (AVal){.kind = V_DTYPE, .dt = dt};
    if (!strcmp(name, "np.inf")) return num_f(INFINITY);
    if (!strcmp(name, "np.nan")) return num_f(NAN);
    if (!strcmp(name, "np.pi")) return num_f(M_PI);
    if (!strcmp(name, "np.e")) return num_f(M_E);
    if (!strcmp(name, "True") || !strcmp(name, "False")) return num_b(name[0] == 'T');
    if (!strcmp(name, "None")) return (AVal){.kind = V_NONE};
    if (bare != name) ap_fail(ap, "unknown name '%s'", name);
    return eval_name(ap, name);
}

/* number = DIGITS ["." DIGITS] [exponent] | "0x" HEX ; ints are int64 */
static AVal number(AP *ap, Lex *lx) {
    char *end;
    const char *s = lx->p;
    double v = strtod(s, &end);
    if (end > lx->end) end = (char *)lx->end;
    lx->p = end;
    bool is_float = memchr(s, '.', (size_t)(end - s)) || ((s[1] != 'x' && s[1] != 'X') &&
                    (memchr(s, 'e', (size_t)(end - s)) || memchr(s, 'E', (size_t)(end - s))));
    if (is_float) return num_f(v);
    bool hex = s[1] == 'x' || s[1] == 'X';
    unsigned long long u = strtoull(s, NULL, hex ? 16 : 10);
    if (v >= 0x1p64 || (u > (unsigned long long)INT64_MAX && !hex))
        ap_fail(ap, "the integer %s does not fit in 64 bits", arena_strndup(ap->a, s, (size_t)(end - s)));
    return num_i((int64_t)u);
}

/* primary = number | name | "(" args ")" | "[" args "]" */
static AVal primary(AP *ap, Lex *lx) {
    skip_ws(lx);
    if (lx->p < lx->end && (isdigit((unsigned char)*lx->p) || (*lx->p == '.' && lx->p + 1 < lx->end &&
                                                                 isdigit((unsigned char)lx->p[1]))))
        return number(ap, lx);
    if (accept(lx, "(") || accept(lx, "[")) {
        bool paren = lx->p[-1] == '(';
        AVal *items;
        bool trailing;
        int n = arg_list(ap, lx, paren ? ")" : "]", &items, &trailing, NULL);
        /* "(x)" is x; "(x,)" and lists are tuples */
        if (paren && n == 1 && !trailing) return items[0];
        return (AVal){.kind = V_TUPLE, .items = items, .n_items = n};
    }
    if (peek_name(lx)) return name_or_call(ap, lx);
    ap_fail(ap, "unexpected text '%s'", rest(ap, lx));
}

/* subscript = [expr] ":" [expr] [":" [expr]] | expr   (a slice or an index) */
static AVal subscript(AP *ap, Lex *lx) {
    skip_ws(lx);
    AVal parts[3] = {{.kind = V_NONE}, {.kind = V_NONE}, {.kind = V_NONE}};
    if (!(lx->p < lx->end && *lx->p == ':')) {
        parts[0] = expr(ap, lx);
        if (!accept(lx, ":")) return parts[0];
    } else lx->p++;
    for (int q = 1; q < 3; q++) {
        skip_ws(lx);
        if (lx->p < lx->end && !strchr(":,]", *lx->p)) parts[q] = expr(ap, lx);
        if (q == 1 && !accept(lx, ":")) break;
    }
    AVal *items = arena_alloc(ap->a, sizeof parts);
    memcpy(items, parts, sizeof parts);
    return (AVal){.kind = V_SLICE, .items = items, .n_items = 3};
}

/* index = "[" subscript ("," subscript)* [","] "]" */
static AVal index_expr(AP *ap, Lex *lx, AVal x) {
    AVal *items = NULL;
    int n = 0, cap = 0;
    bool tuple = false;
    while (!accept(lx, "]")) {
        AVal s = subscript(ap, lx);
        VEC_PUSH(ap->a, items, n, cap, s);
        if (!accept(lx, ",")) {
            expect(ap, lx, "]");
            break;
        }
        tuple = true;
    }
    if (n == 0) ap_fail(ap, "an index needs at least one subscript");
    if (x.kind == V_TUPLE && n == 1 && items[0].kind == V_NUM) {
        int64_t i = norm_index(ap, as_int(ap, items[0]), x.n_items);
        return x.items[i];
    }
    return index_array(ap, x, tuple ? (AVal){.kind = V_TUPLE, .items = items, .n_items = n} : items[0]);
}

/* method = "." NAME ["(" args ")"] : T, astype(dt), reshape(shape),
 * flatten(), ravel(), and the reductions sum/prod/max/min/argmax/argmin/
 * mean/all/any/cumsum/cumprod([axis] [, axis=] [, keepdims=]) */
static AVal method(AP *ap, Lex *lx, AVal v) {
    const char *m = take_name(ap, lx);
    if (!strcmp(m, "T")) return transpose(ap, v);
    AVal *args = NULL;
    Kwargs kw = {0};
    expect(ap, lx, "(");
    int n = arg_list(ap, lx, ")", &args, NULL, &kw);
    if (kw.has_minlength) ap_fail(ap, "%s takes no minlength= argument", m);
    int op = strcmp(m, "amax") && strcmp(m, "amin") ? red_lookup(m, false) : -1;
    if (op >= 0) {
        red_axis(ap, m, n, args, 0, &kw, true);
        return reduction(ap, (RedOp)op, v, &kw, m);
    }
    no_kwargs(ap, m, &kw);
    if (!strcmp(m, "flatten") || !strcmp(m, "ravel")) return nargs(ap, m, n, 0), reshape(ap, v, num_i(-1));
    if (!strcmp(m, "astype")) return nargs(ap, m, n, 1), astype(ap, v, dtype_arg(ap, args, n, 0, ET_F64));
    if (!strcmp(m, "reshape")) {
        if (n == 1) return reshape(ap, v, args[0]);
        return reshape(ap, v, (AVal){.kind = V_TUPLE, .items = args, .n_items = n});
    }
    ap_fail(ap, "unknown method '.%s'", m);
}

/* postfix = primary ("." method | "[" index "]")* */
static AVal postfix(AP *ap, Lex *lx) {
    AVal v = primary(ap, lx);
    for (;;) {
        if (accept(lx, "[")) v = index_expr(ap, lx, v);
        else if (take_op(lx, (const char *const[]){".", NULL})) v = method(ap, lx, v);
        else return v;
    }
}

/* power = postfix ["**" unary]   (right-associative, above unary minus) */
static AVal unary(AP *ap, Lex *lx);
static AVal power(AP *ap, Lex *lx) {
    AVal v = postfix(ap, lx);
    if (accept(lx, "**")) v = binop(ap, "**", v, unary(ap, lx));
    return v;
}

/* unary = ("-" | "+" | "~") unary | power */
static AVal unary(AP *ap, Lex *lx) {
    if (++ap->depth > ARGS_MAX_DEPTH) ap_fail(ap, "expression nested too deeply");
    AVal v;
    if (accept(lx, "-")) {
        v = unary(ap, lx);
        if (v.nk == NK_BOOL) ap_fail(ap, "unary '-' on a bool (numpy refuses it)");
        v = v.nk == NK_FLOAT ? binop(ap, "*", num_f(-1), v) : binop(ap, "-", num_i(0), v);
    } else if (accept(lx, "+")) v = unary(ap, lx);
    else if (accept(lx, "~")) {
        v = unary(ap, lx);
        v = binop(ap, "^", v, v.nk == NK_BOOL ? num_b(true) : num_i(-1));
    } else v = power(ap, lx);
    ap->depth--;
    return v;
}

/* binary operators by precedence climbing, loosest first: | ^ & (<< >>) (+ -) (* / // % @) */
static const char *const *binary_ops(int level) {
    static const char *const ops[][6] = {
        {"|", NULL}, {"^", NULL}, {"&", NULL}, {"<<", ">>", NULL}, {"+", "-", NULL}, {"//", "*", "/", "%", "@", NULL},
    };
    return level < (int)ARRAY_LEN(ops) ? ops[level] : NULL;
}

static AVal binary(AP *ap, Lex *lx, int level) {
    const char *const *ops = binary_ops(level);
    if (!ops) return unary(ap, lx);
    AVal v = binary(ap, lx, level + 1);
    for (const char *op; (op = take_op(lx, ops));) {
        AVal w = binary(ap, lx, level + 1);
        v = *op == '@' ? np_matmul(ap, v, w) : binop(ap, op, v, w);
    }
    return v;
}

/* expr = binary [cmpop binary]   (a chain of comparisons is refused) */
static AVal expr(AP *ap, Lex *lx) {
    static const char *const cmps[] = {"==", "!=", "<=", ">=", "<", ">", NULL};
    AVal v = binary(ap, lx, 0);
    const char *op = take_op(lx, cmps);
    if (!op) return v;
    v = binop(ap, op, v, binary(ap, lx, 0));
    if (take_op(lx, cmps)) ap_fail(ap, "a chain of comparisons is not supported: use parentheses");
    return v;
}

/* ---- statements ---- */

static Stmt *find_stmt(AP *ap, const char *name) {
    for (int i = 0; i < ap->n_stmts; i++)
        if (strcmp(ap->stmts[i].name, name) == 0) return &ap->stmts[i];
    return NULL;
}

/* the value of the text [p, end), all of it an expression */
static AVal eval_text(AP *ap, const char *p, const char *end) {
    Lex lx = {p, end};
    AVal v = expr(ap, &lx);
    skip_ws(&lx);
    if (lx.p != lx.end) ap_fail(ap, "unexpected text '%s'", rest(ap, &lx));
    return v;
}

static void eval_stmt(AP *ap, Stmt *s) {
    if (s->state == 2) return;
    if (s->state == 1) ap_fail(ap, "'%s' is defined in terms of itself", s->name);
    s->state = 1;
    s->val = eval_text(ap, s->expr, s->end);
    s->state = 2;
}

static AVal eval_name(AP *ap, const char *name) {
    Stmt *s = find_stmt(ap, name);
    if (!s) ap_fail(ap, "unknown name '%s'", name);
    eval_stmt(ap, s);
    return s->val;
}

/* stmts = [NAME "="] expr (";" ...)*   (no expression contains a ';') */
static void split_stmts(AP *ap, const char *text) {
    const char *p = text;
    int k = 0;
    while (*p) {
        size_t n = strcspn(p, ";");
        Lex lx = {p, p + n};
        skip_ws(&lx);
        if (lx.p < lx.end) {
            Stmt s = {.name = arena_printf(ap->a, "arg%d", k)};
            const char *eq = memchr(lx.p, '=', (size_t)(lx.end - lx.p));
            if (eq && eq + 1 < lx.end && eq[1] == '=') eq = NULL;
            if (eq && peek_name(&lx)) {
                Lex nl = {lx.p, eq};
                s.name = take_name(ap, &nl);
                skip_ws(&nl);
                if (nl.p != eq) ap_fail(ap, "expected NAME = VALUE, not '%s'", arena_strndup(ap->a, p, n));
                lx.p = eq + 1;
            }
            s.expr = lx.p;
            s.end = lx.end;
            VEC_PUSH(ap->a, ap->stmts, ap->n_stmts, ap->cap_stmts, s);
            k++;
        }
        p += n;
        if (*p == ';') p++;
    }
}

/* ---- binding to the kernel's parameters ---- */

/* the buffer's bytes as the array of values the kernel sees */
static AVal read_back(AP *ap, const AVal *shape_of, const InterpBuffer *b) {
    AVal v = new_array(ap, b->elem == ET_I1 ? NK_INT : nk_of(b->elem), shape_of->ndim, shape_of->shape);
    size_t eb = (size_t)elem_bytes(b->elem);
    for (int64_t k = 0; k < v.n && !shape_of->poison; k++) {
        uint64_t raw = 0;
        memcpy(&raw, (const uint8_t *)b->base + (size_t)k * eb, eb);
        if (v.nk == NK_FLOAT) put_f(&v, k, interp_slot_to_double(b->elem, raw));
        else put_i(&v, k, b->elem == ET_I1 ? (raw & 0xFF) != 0 : (int64_t)interp_int_norm(b->elem, raw));
    }
    return v;
}

/* empty() buffers hold NaN (floats) or 0xAB bytes, as run_kernels.py poisons them */
static void poison(uint8_t *data, size_t bytes, ElemType e) {
    if (!elem_is_float(e)) {
        memset(data, 0xAB, bytes);
        return;
    }
    uint64_t nan = elem_float_bits(e, NAN);
    for (size_t k = 0; k < bytes; k += (size_t)elem_bytes(e)) memcpy(data + k, &nan, (size_t)elem_bytes(e));
}

/* The buffer named `name` holding array a as elements e: a new one, or the
 * one already made under that name (two descriptors of one array) */
static InterpBuffer *array_buffer(AP *ap, InterpSetup *out, const char *name, const AVal *a, ElemType e) {
    for (uint32_t b = 0; b < out->n_buffers; b++)
        if (!strcmp(out->buffers[b].name, name)) return &out->buffers[b];
    size_t bytes = (size_t)a->n * (size_t)elem_bytes(e);
    uint8_t *data = arena_alloc(ap->a, bytes ? bytes : 1);
    if (a->poison) poison(data, bytes, e);
    else
        for (int64_t k = 0; k < a->n; k++) {
            uint64_t v = el_slot(a, k, e);
            memcpy(data + (size_t)k * (size_t)elem_bytes(e), &v, (size_t)elem_bytes(e));
        }
    InterpBuffer *buf = &out->buffers[out->n_buffers++];
    *buf = (InterpBuffer){data, bytes, name, e, false, false};
    return buf;
}

static void bind_pointer(AP *ap, IrFunc *fn, uint32_t i, Stmt *s, InterpSetup *out) {
    IrType t = ir_type(fn, fn->params[i].val);
    if (s->val.kind != V_ARRAY)
        ap_fail(ap, "parameter '%s' is a pointer: give it a buffer (rand, zeros, ...)", fn->params[i].name);
    out->args[i] = (uint64_t)(uintptr_t)array_buffer(ap, out, s->name, &s->val, (ElemType)t.pointee)->base;
}

typedef struct TmapUse {
    ValId map;
    ElemType e;
} TmapUse;

static void note_tmap_use(IrFunc *fn, IrOp *op, void *ud) {
    TmapUse *u = ud;
    if (op->opc == OP_LOAD && (op->attr.flags & LOADF_TMA) && op->operands[3] == u->map)
        u->e = (ElemType)ir_type(fn, op->results[0]).elem;
    if (op->opc == OP_TMA_COPY && op->operands[3] == u->map) u->e = (ElemType)ir_type(fn, op->operands[0]).elem;
}

/* The element type of the tensor a tensor-map parameter describes: the
 * descriptor's base pointer's, else what the loads and copies through it
 * move (hand-written IR); ET_COUNT if none */
static ElemType tmap_elem(IrFunc *fn, uint32_t i) {
    for (uint32_t k = 0; k < fn->n_params; k++)
        if (fn->params[k].part == PARAM_DESC_BASE && fn->params[k].arg && fn->params[i].arg &&
            !strcmp(fn->params[k].arg, fn->params[i].arg))
            return (ElemType)ir_type(fn, fn->params[k].val).pointee;
    TmapUse u = {fn->params[i].val, ET_COUNT};
    ir_walk(fn, fn->body, note_tmap_use, &u);
    return u.e;
}

/* a parameter of a tensor descriptor: d's base, a dim of its shape, a
 * stride, or its tensor map (tric's encoding, ir/tmap.h) */
static void bind_desc_part(AP *ap, IrFunc *fn, uint32_t i, Stmt *s, InterpSetup *out) {
    const IrParam *p = &fn->params[i];
    if (s->val.kind != V_DESC)
        ap_fail(ap, "parameter '%s' is part of a tensor descriptor: give it desc(array, block)", p->name);
    const AVal *arr = &s->val.items[0], *block = &s->val.items[1], *shape = &s->val.items[3];
    int rank = arr->ndim, d = p->part_index;
    const char *name = s->name;
    int64_t stride = 1;
    for (int k = rank - 1; k > d; k--) stride *= arr->shape[k];
    IrType t = ir_type(fn, p->val);
    if (p->part == PARAM_DESC_SHAPE) out->args[i] = el_slot(&shape->items[d], 0, (ElemType)t.elem);
    else if (p->part == PARAM_DESC_STRIDE) out->args[i] = (uint64_t)stride;
    else if (!p->tensormap) out->args[i] = (uint64_t)(uintptr_t)array_buffer(ap, out, name, arr, (ElemType)t.pointee)->base;
    if (!p->tensormap) return;
    ElemType e = tmap_elem(fn, i);
    int32_t blk[INTERP_MAX_DIMS];
    for (int k = 0; k < rank && k < INTERP_MAX_DIMS; k++) blk[k] = (int32_t)as_int(ap, block->items[k]);
    TmapBox box;
    if (e == ET_COUNT || !tmap_box(e, rank, blk, &box))
        ap_fail(ap, "parameter '%s': TMA cannot move this descriptor's blocks", p->name);
    TmapFields f = {.address = (uint64_t)(uintptr_t)array_buffer(ap, out, name, arr, e)->base, .rank = rank,
                    .dtype = tmap_dtype(e), .swizzle = box.swizzle, .fill_nan = as_num(ap, s->val.items[2]) != 0};
    for (int k = 0; k < rank; k++) {
        f.dims[k] = (uint32_t)as_int(ap, shape->items[rank - 1 - k]);
        f.box[k] = k ? (uint32_t)blk[rank - 1 - k] : (uint32_t)box.inner;
    }
    for (int k = 1, st = 1; k < rank; k++) {
        st *= (int)arr->shape[rank - k];
        f.strides[k - 1] = (uint64_t)st * (uint64_t)elem_bytes(e);
    }
    uint8_t *raw = arena_alloc(ap->a, TMAP_BYTES + 64);
    uint8_t *map = raw + (64 - (uintptr_t)raw % 64) % 64;
    tmap_encode(&f, map);
    out->buffers[out->n_buffers++] = (InterpBuffer){map, TMAP_BYTES, arena_printf(ap->a, "%s.tmap", s->name), ET_U8, true, false};
    out->args[i] = (uint64_t)(uintptr_t)map;
}

/* A scalar parameter's value: the number, checked against the signature's
 * ":16" (a hint the compiled code relies on, so a wrong one would make the
 * run mean nothing) */
static uint64_t scalar_arg(AP *ap, IrFunc *fn, uint32_t i, const AVal *v) {
    const IrParam *p = &fn->params[i];
    ElemType e = (ElemType)ir_type(fn, p->val).elem;
    if (p->divisibility > 1 && elem_is_int(e) && v->nk != NK_FLOAT && v->i % p->divisibility)
        ap_fail(ap, "parameter '%s' is %lld, but the signature says it is a multiple of %d (:%d)", p->name,
                (long long)v->i, p->divisibility, p->divisibility);
    return el_slot(v, 0, e);
}

/* Leaf *index of tuple v, depth first; NULL (and *index what is left)
 * when v has fewer */
static const AVal *tuple_leaf(const AVal *v, int *index) {
    if (v->kind != V_TUPLE) return (*index)-- ? NULL : v;
    for (int k = 0; k < v->n_items; k++) {
        const AVal *leaf = tuple_leaf(&v->items[k], index);
        if (leaf) return leaf;
    }
    return NULL;
}

/* an item of a tuple argument: the tuple's leaf part_index, a buffer (named
 * after the item's parameter) or a number */
static void bind_tuple_item(AP *ap, IrFunc *fn, uint32_t i, const Stmt *s, InterpSetup *out) {
    const IrParam *p = &fn->params[i];
    int index = p->part_index;
    const AVal *leaf = s->val.kind == V_TUPLE ? tuple_leaf(&s->val, &index) : NULL;
    if (!leaf) ap_fail(ap, "parameter '%s' is an item of a tuple: give '%s' a tuple of at least %d items", p->name,
                       p->arg, p->part_index + 1);
    Stmt item = {.name = p->name, .val = *leaf, .state = 2};
    if (ir_type(fn, p->val).elem == ET_PTR) {
        bind_pointer(ap, fn, i, &item, out);
        return;
    }
    if (leaf->kind != V_NUM) ap_fail(ap, "parameter '%s' is a scalar: give it a number", p->name);
    out->args[i] = scalar_arg(ap, fn, i, leaf);
}

/* parameter i is the kernel's global scratch (tensormap_create): bound by
 * bind_scratch, not by the args */
static bool is_scratch(IrFunc *fn, uint32_t i) { return fn->params[i].scratch_bytes > 0; }

/* The scratch buffer: its bytes per program times the grid's programs */
static void bind_scratch(AP *ap, IrFunc *fn, InterpSetup *out) {
    for (uint32_t i = 0; i < fn->n_params; i++) {
        if (!is_scratch(fn, i)) continue;
        size_t bytes = (size_t)fn->params[i].scratch_bytes * out->grid[0] * out->grid[1] * out->grid[2];
        uint8_t *raw = arena_alloc(ap->a, bytes + 128);
        uint8_t *data = raw + (128 - (uintptr_t)raw % 128) % 128;
        out->buffers[out->n_buffers++] = (InterpBuffer){data, bytes, fn->params[i].name, ET_U8, true, false};
        out->args[i] = (uint64_t)(uintptr_t)data;
    }
}

/* parameter i carries on the tensor descriptor or tuple of the one before */
static bool desc_continues(IrFunc *fn, uint32_t i) {
    const IrParam *p = &fn->params[i];
    return i > 0 && p->part != PARAM_WHOLE && p->part != PARAM_DESC_BASE && p->arg && fn->params[i - 1].arg &&
           !strcmp(p->arg, fn->params[i - 1].arg);
}

static void bind(AP *ap, IrFunc *fn, InterpSetup *out) {
    uint32_t n_args = 0;
    for (uint32_t i = 0; i < fn->n_params; i++) n_args += !desc_continues(fn, i) && !is_scratch(fn, i);
    if ((uint32_t)ap->n_stmts != n_args)
        ap_fail(ap, "kernel '%s' takes %u arguments, --args gives %d", fn->name, n_args, ap->n_stmts);
    out->n_args = fn->n_params;
    out->args = arena_alloc(ap->a, sizeof(uint64_t) * (fn->n_params + 1));
    /* a descriptor binds two buffers (its array, its map) to as many parameters at least */
    out->buffers = arena_alloc(ap->a, sizeof(InterpBuffer) * (fn->n_params + 1));
    Stmt *s = NULL;
    for (uint32_t i = 0, k = 0; i < fn->n_params; i++) {
        if (is_scratch(fn, i)) continue;
        if (!desc_continues(fn, i)) {
            s = &ap->stmts[k++];
            eval_stmt(ap, s);
        }
        IrType t = ir_type(fn, fn->params[i].val);
        if (fn->params[i].part == PARAM_TUPLE_ITEM) {
            bind_tuple_item(ap, fn, i, s, out);
            continue;
        }
        if (fn->params[i].part != PARAM_WHOLE || fn->params[i].tensormap) {
            bind_desc_part(ap, fn, i, s, out);
            continue;
        }
        if (t.elem == ET_PTR) {
            bind_pointer(ap, fn, i, s, out);
            continue;
        }
        if (s->val.kind != V_NUM) ap_fail(ap, "parameter '%s' is a scalar: give it a number", fn->params[i].name);
        out->args[i] = scalar_arg(ap, fn, i, &s->val);
    }
}

/* The names for checks: each buffer as the kernel saw it, scalars as written. */
static void keep_names(AP *ap, InterpSetup *out) {
    struct InterpNames *names = arena_alloc(ap->a, sizeof *names);
    names->n = ap->n_stmts;
    names->stmts = arena_alloc(ap->a, sizeof(Stmt) * (size_t)(ap->n_stmts + 1));
    for (int i = 0; i < ap->n_stmts; i++) {
        Stmt s = ap->stmts[i];
        if (s.val.kind == V_DESC) s.val = s.val.items[0];   /* a descriptor is its array */
        for (uint32_t b = 0; b < out->n_buffers && s.val.kind == V_ARRAY; b++)
            if (!strcmp(out->buffers[b].name, s.name)) {
                s.val = read_back(ap, &s.val, &out->buffers[b]);
                break;
            }
        names->stmts[i] = s;
    }
    out->names = names;
}

/* grid = expr ["," expr [, expr]], or one tuple */
static void eval_grid(AP *ap, const char *text, InterpSetup *out) {
    Lex lx = {text, text + strlen(text)};
    AVal *items = NULL;
    int n = 0, cap = 0;
    do {
        AVal x = expr(ap, &lx);
        VEC_PUSH(ap->a, items, n, cap, x);
    } while (accept(&lx, ","));
    skip_ws(&lx);
    if (lx.p != lx.end) ap_fail(ap, "unexpected text '%s' in the grid", lx.p);
    if (n == 1 && items[0].kind == V_TUPLE) {
        n = items[0].n_items;
        items = items[0].items;
    }
    if (n < 1 || n > 3) ap_fail(ap, "the grid takes one to three numbers, not '%s'", text);
    for (int k = 0; k < 3; k++) {
        double g = k < n ? as_num(ap, items[k]) : 1;
        if (!(g >= 1 && g <= 1e9) || g != floor(g)) ap_fail(ap, "a grid size must be a positive integer ('%s')", text);
        out->grid[k] = (uint32_t)g;
    }
    if ((uint64_t)out->grid[0] * out->grid[1] * out->grid[2] > ARGS_MAX_PROGRAMS)
        ap_fail(ap, "a grid of more than 1048576 programs is too large to interpret ('%s')", text);
}

bool interp_setup(Arena *a, IrFunc *fn, const char *args_text, const char *grid_text, uint64_t seed,
                  InterpSetup *out, Buf *err) {
    memset(out, 0, sizeof *out);
    out->grid[0] = out->grid[1] = out->grid[2] = 1;
    AP *ap = arena_alloc(a, sizeof *ap);   /* in the arena: written between setjmp and longjmp */
    ap->a = a;
    ap->err = err;
    ap->what = "--args";
    ap->rng = seed;
    if (setjmp(ap->bail) != 0) return false;
    split_stmts(ap, args_text ? args_text : "");
    bind(ap, fn, out);
    for (int i = 0; i < ap->n_stmts; i++) eval_stmt(ap, &ap->stmts[i]);
    if (grid_text) eval_grid(ap, grid_text, out);
    bind_scratch(ap, fn, out);
    keep_names(ap, out);
    return true;
}

/* ---- references: expressions over the names of a setup ---- */

static void to_array(const AVal *v, InterpArray *out) {
    memset(out, 0, sizeof *out);
    out->is_float = v->nk == NK_FLOAT;
    out->is_bool = v->nk == NK_BOOL;
    if (v->kind == V_NUM) {
        out->n = 1;
        out->f = v->nk == NK_FLOAT ? &v->f : NULL;
        out->i = v->nk == NK_FLOAT ? NULL : &v->i;
        return;
    }
    out->ndim = v->ndim;
    memcpy(out->shape, v->shape, sizeof v->shape);
    out->n = v->n;
    out->f = v->fdata;
    out->i = v->idata;
}

bool interp_eval(Arena *a, const InterpSetup *s, const char *text, InterpArray *out, Buf *err) {
    AP *ap = arena_alloc(a, sizeof *ap);
    ap->a = a;
    ap->err = err;
    ap->what = "check";
    if (setjmp(ap->bail) != 0) return false;
    if (s->names) {
        ap->stmts = s->names->stmts;
        ap->n_stmts = ap->cap_stmts = s->names->n;
    }
    AVal *v = arena_alloc(a, sizeof *v);
    *v = eval_text(ap, text, text + strlen(text));
    if (!is_numeric(v)) ap_fail(ap, "'%s' is not a number or an array", text);
    to_array(v, out);
    return true;
}

/* ---- printing ---- */

static void put_elem(Buf *out, ElemType e, uint64_t slot) {
    if (elem_is_float(e)) buf_printf(out, e == ET_F64 ? "%.17g" : "%.9g", interp_slot_to_double(e, slot));
    else if (elem_is_signed(e)) buf_printf(out, "%lld", (long long)(int64_t)slot);
    else buf_printf(out, "%llu", (unsigned long long)slot);
}

void interp_print_buffer(Buf *out, const InterpBuffer *b) {
    ElemType e = b->elem == ET_COUNT ? ET_U8 : b->elem;
    size_t eb = (size_t)elem_bytes(e), n = b->bytes / eb;
    buf_printf(out, "%s: %s[%zu] =", b->name, elem_triton_name(e), n);
    double sum = 0;
    uint64_t fnv = UINT64_C(0xcbf29ce484222325);
    for (size_t i = 0; i < b->bytes; i++) fnv = (fnv ^ ((const uint8_t *)b->base)[i]) * UINT64_C(0x100000001b3);
    for (size_t i = 0; i < n; i++) {
        uint64_t raw = 0;
        memcpy(&raw, (const uint8_t *)b->base + i * eb, eb);
        uint64_t slot = elem_is_float(e) ? raw : e == ET_I1 ? (raw & 0xFF) != 0 : interp_int_norm(e, raw);
        sum += interp_slot_to_double(e, slot);
        if (i < 16) {
            buf_putc(out, ' ');
            put_elem(out, e, slot);
        }
    }
    buf_printf(out, "%s\n  sum %.17g  fnv1a %016llx\n", n > 16 ? " ..." : "", sum, (unsigned long long)fnv);
}
