/* The --args mini-language (interp.h): host buffers and scalars for an
 * interpreted launch, and the grid. A tiny expression evaluator over
 * numbers, tuples and arrays of doubles, with the numpy spellings the
 * kernels' test blocks use. Assignments may refer to names assigned later:
 * each is evaluated on first use (a cycle is an error), then in order, so
 * the random data depends only on the text and the seed. */
#include "scalar.h"

#include <ctype.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

enum { V_NUM, V_TUPLE, V_ARRAY, V_DTYPE };

typedef struct AVal {
    int kind;
    double num;
    bool is_int;
    struct AVal *items;       /* V_TUPLE */
    int n_items;
    double *data;             /* V_ARRAY: row-major */
    int64_t n;
    ElemType dt;              /* V_ARRAY element type; V_DTYPE the type */
    bool poison;              /* empty(): 0xAB bytes */
} AVal;

typedef struct Stmt {
    const char *name;
    const char *expr, *end;
    AVal val;
    int state;                /* 0 not yet, 1 being evaluated, 2 done */
} Stmt;

typedef struct AP {
    Arena *a;
    Buf *err;
    Stmt *stmts;
    int n_stmts, cap_stmts;
    uint64_t rng;
    int depth;                /* expression nesting, bounded */
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

static _Noreturn void ap_fail(AP *ap, const char *fmt, const char *arg) {
    buf_puts(ap->err, "tric: error: --args: ");
    buf_printf(ap->err, fmt, arg);
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

static bool accept(Lex *lx, const char *s) {
    skip_ws(lx);
    size_t n = strlen(s);
    if ((size_t)(lx->end - lx->p) < n || strncmp(lx->p, s, n) != 0) return false;
    lx->p += n;
    return true;
}

static void expect(AP *ap, Lex *lx, const char *s) {
    if (!accept(lx, s)) ap_fail(ap, "expected '%s'", s);
}

static bool peek_name(Lex *lx) {
    skip_ws(lx);
    return lx->p < lx->end && (isalpha((unsigned char)*lx->p) || *lx->p == '_');
}

static const char *take_name(AP *ap, Lex *lx) {
    skip_ws(lx);
    const char *s = lx->p;
    while (lx->p < lx->end && (isalnum((unsigned char)*lx->p) || *lx->p == '_')) lx->p++;
    if (s == lx->p) ap_fail(ap, "expected a name near '%s'", arena_strndup(ap->a, s, (size_t)(lx->end - s)));
    return arena_strndup(ap->a, s, (size_t)(lx->p - s));
}

/* ---- values ---- */

static AVal num(double v, bool is_int) { return (AVal){.kind = V_NUM, .num = v, .is_int = is_int}; }

static AVal new_array(AP *ap, int64_t n, ElemType dt) {
    AVal v = {.kind = V_ARRAY, .n = n, .dt = dt};
    v.data = arena_alloc(ap->a, sizeof(double) * (size_t)(n ? n : 1));
    return v;
}

static int64_t shape_dim(AP *ap, AVal d) {
    if (d.kind != V_NUM) ap_fail(ap, "%s", "a shape is a number or a tuple of numbers");
    if (!(d.num >= 0 && d.num <= ARGS_MAX_ELEMS) || d.num != floor(d.num))
        ap_fail(ap, "%s", "a shape's sizes are integers from 0 to 16777216");
    return (int64_t)d.num;
}

static int64_t shape_numel(AP *ap, AVal s) {
    if (s.kind != V_TUPLE) return shape_dim(ap, s);
    int64_t n = 1;
    for (int i = 0; i < s.n_items; i++) {
        n *= shape_dim(ap, s.items[i]);
        if (n > ARGS_MAX_ELEMS) ap_fail(ap, "%s", "an array of more than 16777216 elements is too large to interpret");
    }
    return n;
}

static ElemType dtype_arg(AP *ap, const AVal *args, int n, int i, ElemType dflt) {
    if (i >= n) return dflt;
    if (args[i].kind != V_DTYPE) ap_fail(ap, "%s", "expected a dtype (fp32, i32, ...)");
    if (args[i].dt == ET_F8E4M3 || args[i].dt == ET_F8E5M2)
        ap_fail(ap, "%s", "fp8 buffers are not supported by the interpreter yet");
    return args[i].dt;
}

static double as_num(AP *ap, AVal v) {
    if (v.kind == V_NUM) return v.num;
    if (v.kind == V_ARRAY && v.n == 1) return v.data[0];
    ap_fail(ap, "%s", "expected a number");
}

/* the value an element of dt holds (what the kernel will see) */
static double representable(ElemType dt, double v) {
    return interp_slot_to_double(dt, interp_slot_from_double(dt, v));
}

/* ---- functions ---- */

static AVal fill(AP *ap, const AVal *args, int n, int min_args, double value, ElemType dt) {
    if (n < min_args) ap_fail(ap, "%s", "too few arguments");
    AVal v = new_array(ap, shape_numel(ap, args[0]), dt);
    for (int64_t i = 0; i < v.n; i++) v.data[i] = representable(dt, value);
    return v;
}

static AVal call_random(AP *ap, const char *f, const AVal *args, int n) {
    bool is_int = strcmp(f, "randint") == 0;
    int first = is_int ? 2 : 0;
    if (n <= first) ap_fail(ap, "%s() needs a shape", f);
    ElemType dt = dtype_arg(ap, args, n, first + 1, is_int || strcmp(f, "randsign") == 0 ? ET_I32 : ET_F32);
    AVal v = new_array(ap, shape_numel(ap, args[first]), dt);
    double lo = is_int ? as_num(ap, args[0]) : 0, hi = is_int ? as_num(ap, args[1]) : 0;
    for (int64_t i = 0; i < v.n; i++) {
        double x;
        if (is_int) x = lo + floor(rng_unit(ap) * (hi - lo));
        else if (strcmp(f, "randsign") == 0) x = rng_next(ap) & 1 ? 1 : -1;
        else if (strcmp(f, "randn") == 0) x = sqrt(-2 * log(1 - rng_unit(ap))) * cos(2 * M_PI * rng_unit(ap));
        else x = 2 * rng_unit(ap) - 1;
        v.data[i] = representable(dt, x);
    }
    return v;
}

typedef double (*MathFn)(double);

static MathFn np_math(const char *f) {
    static const struct { const char *name; MathFn fn; } fns[] = {
        {"exp", exp}, {"exp2", exp2}, {"log", log}, {"log2", log2}, {"abs", fabs},
        {"sqrt", sqrt}, {"rint", nearbyint}, {"floor", floor}, {"trunc", trunc},
    };
    for (size_t i = 0; i < ARRAY_LEN(fns); i++)
        if (strcmp(fns[i].name, f) == 0) return fns[i].fn;
    return NULL;
}

static AVal map1(AP *ap, MathFn fn, AVal x) {
    if (x.kind == V_NUM) return num(fn(x.num), false);
    if (x.kind != V_ARRAY) ap_fail(ap, "%s", "a math function needs a number or an array");
    AVal v = new_array(ap, x.n, x.dt);
    for (int64_t i = 0; i < x.n; i++) v.data[i] = fn(x.data[i]);
    return v;
}

static AVal np_array(AP *ap, const AVal *args, int n) {
    if (n < 1 || args[0].kind != V_TUPLE) ap_fail(ap, "%s", "np.array needs a list of numbers");
    AVal v = new_array(ap, args[0].n_items, ET_F64);
    for (int i = 0; i < args[0].n_items; i++) v.data[i] = as_num(ap, args[0].items[i]);
    return v;
}

static AVal binop(AP *ap, const char *op, AVal x, AVal y);

static AVal call(AP *ap, const char *f, const AVal *args, int n) {
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
        for (int64_t i = 0; i < v.n; i++) v.data[i] = representable(v.dt, (double)i);
        return v;
    }
    if (!strcmp(f, "cdiv")) {
        if (n != 2) ap_fail(ap, "%s", "cdiv takes two numbers");
        return num(ceil(as_num(ap, args[0]) / as_num(ap, args[1])), true);
    }
    if (!strcmp(f, "np.array")) return np_array(ap, args, n);
    if (!strcmp(f, "np.ldexp") && n == 2) return binop(ap, "*", args[0], map1(ap, exp2, args[1]));
    MathFn m = strncmp(f, "np.", 3) == 0 ? np_math(f + 3) : NULL;
    if (m && n == 1) return map1(ap, m, args[0]);
    ap_fail(ap, "unknown function '%s'", f);
}

/* ---- arithmetic ---- */

static double apply(AP *ap, const char *op, double a, double b) {
    switch (op[0]) {
    case '+': return a + b;
    case '-': return a - b;
    case '*': return op[1] == '*' ? pow(a, b) : a * b;
    case '/':
    case '%':
        if (b == 0) ap_fail(ap, "%s", "division by zero");
        if (op[0] == '%') return a - floor(a / b) * b;
        return op[1] == '/' ? floor(a / b) : a / b;
    case '<': return ldexp(a, (int)b);
    case '>': return floor(ldexp(a, -(int)b));
    default: ap_fail(ap, "unknown operator '%s'", op);
    }
}

static AVal binop(AP *ap, const char *op, AVal x, AVal y) {
    if (x.kind == V_NUM && y.kind == V_NUM) {
        bool is_int = x.is_int && y.is_int && strcmp(op, "/") != 0 && !(op[1] == '*' && y.num < 0);
        return num(apply(ap, op, x.num, y.num), is_int);
    }
    if ((x.kind != V_NUM && x.kind != V_ARRAY) || (y.kind != V_NUM && y.kind != V_ARRAY))
        ap_fail(ap, "operator '%s' needs numbers or arrays", op);
    const AVal *arr = x.kind == V_ARRAY ? &x : &y;
    if (x.kind == V_ARRAY && y.kind == V_ARRAY && x.n != y.n && x.n != 1 && y.n != 1)
        ap_fail(ap, "operator '%s' on arrays of different sizes", op);
    int64_t n = x.kind == V_ARRAY && y.kind == V_ARRAY ? (x.n > y.n ? x.n : y.n) : arr->n;
    AVal v = new_array(ap, n, arr->dt);
    for (int64_t i = 0; i < n; i++) {
        double a = x.kind == V_NUM ? x.num : x.data[x.n == 1 ? 0 : i];
        double b = y.kind == V_NUM ? y.num : y.data[y.n == 1 ? 0 : i];
        v.data[i] = apply(ap, op, a, b);
    }
    return v;
}

/* ---- the grammar ---- */

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

/* args = [expr ("," expr)* [","]] close ; *trailing tells of a final comma */
static int arg_list(AP *ap, Lex *lx, const char *close, AVal **out, bool *trailing) {
    AVal *v = NULL;
    int n = 0, cap = 0;
    bool comma = false;
    while (!accept(lx, close)) {
        AVal x = expr(ap, lx);
        VEC_PUSH(ap->a, v, n, cap, x);
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

/* name = NAME ["." NAME] ; a dtype, np.inf/nan/pi, a function (when a call
 * follows), or an assigned name */
static AVal name_or_call(AP *ap, Lex *lx) {
    const char *name = take_name(ap, lx);
    if (strcmp(name, "np") == 0 && accept(lx, ".")) name = arena_printf(ap->a, "np.%s", take_name(ap, lx));
    if (accept(lx, "(")) {
        AVal *args;
        int n = arg_list(ap, lx, ")", &args, NULL);
        return call(ap, name, args, n);
    }
    const char *bare = strncmp(name, "np.", 3) == 0 ? name + 3 : name;
    ElemType dt = dtype_named(bare);
    if (dt != ET_COUNT) return (AVal){.kind = V_DTYPE, .dt = dt};
    if (!strcmp(name, "np.inf")) return num(INFINITY, false);
    if (!strcmp(name, "np.nan")) return num(NAN, false);
    if (!strcmp(name, "np.pi")) return num(M_PI, false);
    if (!strcmp(name, "True") || !strcmp(name, "False")) return num(name[0] == 'T', true);
    return eval_name(ap, name);
}

/* primary = NUMBER | name | "(" args ")" | "[" args "]" */
static AVal primary(AP *ap, Lex *lx) {
    skip_ws(lx);
    if (lx->p < lx->end && (isdigit((unsigned char)*lx->p) || *lx->p == '.')) {
        char *end;
        double v = strtod(lx->p, &end);
        bool is_int = strcspn(lx->p, ".eE") >= (size_t)(end - lx->p);
        if (lx->p[0] == '0' && (lx->p[1] == 'x' || lx->p[1] == 'X')) is_int = true;
        lx->p = end;
        return num(v, is_int);
    }
    if (accept(lx, "(") || accept(lx, "[")) {
        bool paren = lx->p[-1] == '(';
        AVal *items;
        bool trailing;
        int n = arg_list(ap, lx, paren ? ")" : "]", &items, &trailing);
        /* "(x)" is x; "(x,)" and lists are tuples */
        if (paren && n == 1 && !trailing) return items[0];
        return (AVal){.kind = V_TUPLE, .items = items, .n_items = n};
    }
    if (peek_name(lx)) return name_or_call(ap, lx);
    ap_fail(ap, "unexpected text '%s'", arena_strndup(ap->a, lx->p, (size_t)(lx->end - lx->p)));
}

/* postfix = primary (".astype" "(" dtype ")")* */
static AVal postfix(AP *ap, Lex *lx) {
    AVal v = primary(ap, lx);
    while (accept(lx, ".astype")) {
        expect(ap, lx, "(");
        AVal *args;
        int n = arg_list(ap, lx, ")", &args, NULL);
        ElemType dt = dtype_arg(ap, args, n, 0, ET_F64);
        if (elem_is_int(dt)) v = map1(ap, trunc, v);
        if (v.kind == V_ARRAY) v.dt = dt;
    }
    return v;
}

/* power = postfix ["**" unary]   (right-associative, above unary minus) */
static AVal unary(AP *ap, Lex *lx);
static AVal power(AP *ap, Lex *lx) {
    AVal v = postfix(ap, lx);
    if (accept(lx, "**")) v = binop(ap, "**", v, unary(ap, lx));
    return v;
}

/* unary = "-" unary | "+" unary | power */
static AVal unary(AP *ap, Lex *lx) {
    if (++ap->depth > ARGS_MAX_DEPTH) ap_fail(ap, "%s", "expression nested too deeply");
    AVal v;
    if (accept(lx, "-")) v = binop(ap, "*", num(-1, true), unary(ap, lx));
    else if (accept(lx, "+")) v = unary(ap, lx);
    else v = power(ap, lx);
    ap->depth--;
    return v;
}

/* binary operators by precedence climbing: << >> below + - below * / // % */
static int binary_prec(Lex *lx, const char **op) {
    static const struct { const char *op; int prec; } ops[] = {
        {"<<", 1}, {">>", 1}, {"+", 2}, {"-", 2}, {"//", 3}, {"*", 3}, {"/", 3}, {"%", 3},
    };
    skip_ws(lx);
    for (size_t i = 0; i < ARRAY_LEN(ops); i++) {
        size_t n = strlen(ops[i].op);
        if ((size_t)(lx->end - lx->p) >= n && strncmp(lx->p, ops[i].op, n) == 0 &&
            !(n == 1 && ops[i].op[0] == '*' && lx->p[1] == '*')) {
            *op = ops[i].op;
            return ops[i].prec;
        }
    }
    return 0;
}

static AVal binary(AP *ap, Lex *lx, int min_prec) {
    AVal v = unary(ap, lx);
    const char *op;
    int prec;
    while ((prec = binary_prec(lx, &op)) >= min_prec && prec > 0) {
        lx->p += strlen(op);
        v = binop(ap, op, v, binary(ap, lx, prec + 1));
    }
    return v;
}

static AVal expr(AP *ap, Lex *lx) { return binary(ap, lx, 1); }

/* ---- statements ---- */

static Stmt *find_stmt(AP *ap, const char *name) {
    for (int i = 0; i < ap->n_stmts; i++)
        if (strcmp(ap->stmts[i].name, name) == 0) return &ap->stmts[i];
    return NULL;
}

static void eval_stmt(AP *ap, Stmt *s) {
    if (s->state == 2) return;
    if (s->state == 1) ap_fail(ap, "'%s' is defined in terms of itself", s->name);
    s->state = 1;
    Lex lx = {s->expr, s->end};
    s->val = expr(ap, &lx);
    skip_ws(&lx);
    if (lx.p != lx.end) ap_fail(ap, "unexpected text '%s'", arena_strndup(ap->a, lx.p, (size_t)(lx.end - lx.p)));
    s->state = 2;
}

static AVal eval_name(AP *ap, const char *name) {
    Stmt *s = find_stmt(ap, name);
    if (!s) ap_fail(ap, "unknown name '%s'", name);
    eval_stmt(ap, s);
    return s->val;
}

/* stmts = [NAME "="] expr (";" ...)* */
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

static void bind_pointer(AP *ap, IrFunc *fn, uint32_t i, Stmt *s, InterpSetup *out, InterpBuffer *buf) {
    IrType t = ir_type(fn, fn->params[i].val);
    ElemType e = (ElemType)t.pointee;
    if (s->val.kind != V_ARRAY)
        ap_fail(ap, "parameter '%s' is a pointer: give it a buffer (rand, zeros, ...)", fn->params[i].name);
    size_t bytes = (size_t)s->val.n * (size_t)elem_bytes(e);
    uint8_t *data = arena_alloc(ap->a, bytes ? bytes : 1);
    if (s->val.poison) memset(data, 0xAB, bytes);
    else
        for (int64_t k = 0; k < s->val.n; k++) {
            uint64_t v = interp_slot_from_double(e, s->val.data[k]);
            memcpy(data + (size_t)k * (size_t)elem_bytes(e), &v, (size_t)elem_bytes(e));
        }
    *buf = (InterpBuffer){data, bytes, s->name, e};
    out->args[i] = (uint64_t)(uintptr_t)data;
}

static void bind(AP *ap, IrFunc *fn, InterpSetup *out) {
    if ((uint32_t)ap->n_stmts != fn->n_params)
        ap_fail(ap, "%s", arena_printf(ap->a, "kernel '%s' takes %u arguments, --args gives %d", fn->name,
                                       fn->n_params, ap->n_stmts));
    out->n_args = fn->n_params;
    out->args = arena_alloc(ap->a, sizeof(uint64_t) * (fn->n_params + 1));
    out->buffers = arena_alloc(ap->a, sizeof(InterpBuffer) * (fn->n_params + 1));
    for (uint32_t i = 0; i < fn->n_params; i++) {
        Stmt *s = &ap->stmts[i];
        eval_stmt(ap, s);
        IrType t = ir_type(fn, fn->params[i].val);
        if (t.elem == ET_PTR) {
            bind_pointer(ap, fn, i, s, out, &out->buffers[out->n_buffers++]);
            continue;
        }
        if (s->val.kind != V_NUM) ap_fail(ap, "parameter '%s' is a scalar: give it a number", fn->params[i].name);
        out->args[i] = interp_slot_from_double((ElemType)t.elem, s->val.num);
    }
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
    ap->rng = seed;
    if (setjmp(ap->bail) != 0) return false;
    split_stmts(ap, args_text ? args_text : "");
    bind(ap, fn, out);
    for (int i = 0; i < ap->n_stmts; i++) eval_stmt(ap, &ap->stmts[i]);
    if (grid_text) eval_grid(ap, grid_text, out);
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
