/* Tokenizer, parser and AST printer: a realistic kernel file full of host
 * code, the shape of the AST for the expressions whose precedence matters,
 * the exact text of syntax errors, and robustness (every prefix of a file and
 * random byte mutations must give an AST or an error, never a crash). */
#include "base/base.h"
#include "frontend/frontend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static const char tutorial[] =
    "\"\"\"\n"
    "Matrix multiplication\n"
    "=====================\n"
    "A docstring with 'quotes', \\\"\"\" escaped, and ''' inside.\n"
    "\"\"\"\n"
    "import torch\n"
    "import triton, os.path as osp\n"
    "import triton.language as tl\n"
    "from triton.language.extra import libdevice\n"
    "from .. import utils\n"
    "from ..common.helpers import (cdiv as ceil_div, next_power_of_2,)\n"
    "from math import *\n"
    "\n"
    "DEVICE = triton.runtime.driver.active.get_active_torch_device()\n"
    "GROUP: tl.constexpr = 8\n"
    "SCALE = 1.5e-3; NAME = 'mm'\n"
    "a = b = 0\n"
    "x, y = 1, 2\n"
    "hook = lambda nargs, k=1: nargs['c'].zero_()\n"
    "cache: dict\n"
    "\n"
    "\n"
    "def is_cuda():\n"
    "    return triton.runtime.driver.active.get_current_target().backend == \"cuda\"\n"
    "\n"
    "\n"
    "class Config:\n"
    "    '''host class'''\n"
    "    def __init__(self, **kw):\n"
    "        self.kw = {k: v for k, v in kw.items() if v is not None}\n"
    "\n"
    "    @property\n"
    "    def name(self): return f\"{self.kw!r:>{10}} {'a' + \"b\"}\"\n"
    "\n"
    "\n"
    "@triton.autotune(\n"
    "    configs=[\n"
    "        triton.Config({'BLOCK_M': 128, 'BLOCK_N': 256}, num_stages=3, num_warps=8),\n"
    "        triton.Config({'BLOCK_M': 64, 'BLOCK_N': 64}, num_stages=4, num_warps=4,\n"
    "                      pre_hook=lambda nargs: nargs['c_ptr'].zero_()),\n"
    "    ],\n"
    "    key=['M', 'N', 'K'],\n"
    ")\n"
    "@triton.jit\n"
    "def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,\n"
    "                  stride_am, stride_ak,  #\n"
    "                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr = 64,\n"
    "                  ACTIVATION: tl.constexpr = \"\"):\n"
    "    \"\"\"Kernel for computing C = A x B.\"\"\"\n"
    "    pid = tl.program_id(axis=0)\n"
    "    num_pid_m = tl.cdiv(M, BLOCK_M)\n"
    "    pid_m, pid_n = pid // num_pid_m, pid % num_pid_m\n"
    "    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M\n"
    "    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)\n"
    "    accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)\n"
    "    for k in range(0, tl.cdiv(K, BLOCK_K)):\n"
    "        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)\n"
    "        accumulator = tl.dot(a, b, accumulator)\n"
    "        a_ptrs += BLOCK_K * stride_ak\n"
    "    if ACTIVATION == \"leaky_relu\":\n"
    "        accumulator = leaky_relu(accumulator)\n"
    "    elif 0 <= pid < M and not ACTIVATION:\n"
    "        pass\n"
    "    else:\n"
    "        x = -2**2\n"
    "    c = accumulator.to(tl.float16)\n"
    "    tl.store(c_ptr + offs_am, c, mask=(offs_am < M) & (offs_am >= 0))\n"
    "\n"
    "\n"
    "@triton.jit\n"
    "def leaky_relu(x):\n"
    "    return tl.where(x >= 0, x, 0.01 * x)\n"
    "\n"
    "\n"
    "def matmul(a, b, activation=\"\"):\n"
    "    assert a.shape[1] == b.shape[0], \"Incompatible dimensions\"\n"
    "    M, K = a.shape\n"
    "    grid = lambda META: (triton.cdiv(M, META['BLOCK_M']) * triton.cdiv(N, META['BLOCK_N']), )\n"
    "    matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), ACTIVATION=activation)\n"
    "    return c\n"
    "\n"
    "\n"
    "@dataclass\n"
    "class Result: pass\n"
    "\n"
    "async def fetch(): await x\n"
    "\n"
    "if __name__ == \"__main__\":\n"
    "\ttorch.manual_seed(0)\n"
    "\tfor i in range(3):\n"
    "\t\tprint(f'diff {torch.max(torch.abs(a - b)):.3f} at {i}')\n"
    "\ttry:\n"
    "\t\tmatmul(a, b)\n"
    "\texcept Exception as e:\n"
    "\t\tprint(e)\n"
    "\tmatch sys.argv:\n"
    "\t\tcase [_, 'x']: pass\n";

/* Parses src; NULL on a diagnostic (left in c->diag). */
static AstModule *try_parse(Ctx *c, const char *src) {
    jmp_buf jb;
    c->bail = &jb;
    if (setjmp(jb)) return NULL;
    SrcFile *f = srcfile_from_string(c, "t.py", src);
    AstModule *m = parse_module(c, f);
    for (int i = 0; i < m->n_globals; i++) parse_global(c, m, &m->globals[i]);
    return m;
}

static Ctx *new_ctx(void) {
    Target t = {.sm = 80, .num_warps = 4, .num_stages = 3};
    return ctx_new(&t);
}

static AstNode *stmt_at(AstFunc *f, int i) { return f && f->node && i < f->node->body.n ? f->node->body.items[i] : NULL; }

static void test_tutorial(void) {
    Ctx *c = new_ctx();
    AstModule *m = try_parse(c, tutorial);
    if (!m) {
        fprintf(stderr, "tutorial failed to parse:\n%s", c->diag.data);
        failures++;
        ctx_free(c);
        return;
    }
    /* imports */
    CHECK(m->n_imports == 7);
    if (m->n_imports == 7) {
        CHECK(!strcmp(m->imports[1].names[1].name, "os.path") && !strcmp(m->imports[1].names[1].alias, "osp"));
        CHECK(!strcmp(m->imports[2].names[0].alias, "tl"));
        CHECK(m->imports[4].is_from && m->imports[4].level == 2 && !strcmp(m->imports[4].module, ""));
        CHECK(m->imports[5].level == 2 && !strcmp(m->imports[5].module, "common.helpers"));
        CHECK(m->imports[5].n_names == 2 && !strcmp(m->imports[5].names[0].alias, "ceil_div"));
        CHECK(!strcmp(m->imports[6].names[0].name, "*"));
    }
    /* globals: DEVICE GROUP SCALE NAME hook (not a=b=0, not x,y, not cache) */
    CHECK(m->n_globals == 5);
    if (m->n_globals == 5) {
        CHECK(!strcmp(m->globals[1].name, "GROUP") && m->globals[1].annotated_constexpr);
        CHECK(m->globals[1].value && m->globals[1].value->kind == A_INT && m->globals[1].value->ival == 8);
        CHECK(!strcmp(m->globals[3].name, "NAME") && m->globals[3].value->kind == A_STR);
        CHECK(!strcmp(m->globals[4].name, "hook") && m->globals[4].value->kind == A_LAMBDA);
        CHECK(m->globals[2].value->kind == A_FLOAT && m->globals[2].value->fval == 1.5e-3);
    }
    /* top-level defs: is_cuda matmul_kernel leaky_relu matmul (not class methods, not async) */
    CHECK(m->n_funcs == 4);
    AstFunc *k = module_find_func(m, "matmul_kernel");
    CHECK(k && k->parsed && k->n_decorators == 2);
    CHECK(module_find_func(m, "matmul") && !module_find_func(m, "matmul")->parsed);
    CHECK(module_find_func(m, "leaky_relu")->parsed);
    CHECK(!module_find_func(m, "__init__") && !module_find_func(m, "fetch"));
    if (k && k->n_decorators == 2) {
        CHECK(k->decorators[0].called && k->decorators[0].n_path == 2 &&
              !strcmp(k->decorators[0].path[1], "autotune") && strstr(k->decorators[0].args_text, "pre_hook=lambda"));
        CHECK(!k->decorators[1].called && !strcmp(k->decorators[1].path[1], "jit"));
    }
    AstNode *fn = k ? k->node : NULL;
    CHECK(fn && fn->args.n == 11);
    if (fn && fn->args.n == 11) {
        AstNode *bn = fn->args.items[9];
        CHECK(!strcmp(bn->str, "BLOCK_N") && bn->third && bn->third->kind == A_ATTR && bn->rhs->ival == 64);
        CHECK(fn->args.items[10]->rhs->kind == A_STR && fn->args.items[10]->rhs->str_len == 0);
    }
    /* docstring, then pid = ..., pid_m, pid_n = a, b */
    AstNode *s0 = stmt_at(k, 0), *s3 = stmt_at(k, 3), *s5 = stmt_at(k, 5);
    CHECK(s0 && s0->kind == A_EXPR_STMT && s0->lhs->kind == A_STR);
    CHECK(s3 && s3->kind == A_ASSIGN && s3->args.n == 1 && s3->args.items[0]->kind == A_TUPLE &&
          s3->args.items[0]->args.n == 2 && s3->rhs->kind == A_TUPLE);
    if (s3 && s3->kind == A_ASSIGN) CHECK(s3->rhs->args.items[0]->op == BIN_FLOORDIV);
    /* offs_am[:, None] * stride_am */
    if (s5 && s5->kind == A_ASSIGN) {
        AstNode *add = s5->rhs->rhs;          /* a_ptr + (...) : the parenthesized sum */
        CHECK(add->kind == A_BINOP && add->op == BIN_ADD);
        AstNode *sub = add->lhs->lhs;         /* offs_am[:, None] */
        CHECK(sub->kind == A_SUBSCRIPT && sub->rhs->kind == A_TUPLE && sub->rhs->args.n == 2);
        CHECK(sub->rhs->args.items[0]->kind == A_SLICE && !sub->rhs->args.items[0]->lhs);
        CHECK(sub->rhs->args.items[1]->kind == A_NONE);
    }
    AstNode *loop = stmt_at(k, 7);
    CHECK(loop && loop->kind == A_FOR && loop->body.n == 3 && loop->body.items[2]->kind == A_AUGASSIGN);
    AstNode *ifs = stmt_at(k, 8);
    CHECK(ifs && ifs->kind == A_IF && ifs->orelse.n == 1 && ifs->orelse.items[0]->kind == A_IF);
    if (ifs && ifs->orelse.n == 1) {
        AstNode *elif = ifs->orelse.items[0];
        CHECK(elif->cond->kind == A_BOOLOP && elif->cond->op == BOOL_AND);
        AstNode *cmp = elif->cond->args.items[0];
        CHECK(cmp->kind == A_COMPARE && cmp->args.n == 2 && cmp->cmp_ops[0] == ACMP_LE && cmp->cmp_ops[1] == ACMP_LT);
        CHECK(elif->cond->args.items[1]->kind == A_UNARY && elif->cond->args.items[1]->op == UN_NOT);
        AstNode *neg = elif->orelse.items[0]->rhs;   /* -2**2 */
        CHECK(neg->kind == A_UNARY && neg->op == UN_NEG && neg->lhs->kind == A_BINOP && neg->lhs->op == BIN_POW);
    }
    Buf out = {0};
    ast_print_module(&out, m);
    CHECK(strstr(out.data, "(def matmul_kernel (params (a_ptr)") != NULL);
    CHECK(strstr(out.data, "(global GROUP constexpr \"8\")") != NULL);
    CHECK(strstr(out.data, "(from ..common.helpers import (cdiv as ceil_div) next_power_of_2)") != NULL);
    CHECK(strstr(out.data, "(- (** (int 2) (int 2)))") != NULL);

    /* the same file with CRLF line ends gives the same AST */
    Buf crlf = {0};
    for (const char *p = tutorial; *p; p++) {
        if (*p == '\n') buf_putc(&crlf, '\r');
        buf_putc(&crlf, *p);
    }
    Ctx *c2 = new_ctx();
    AstModule *m2 = try_parse(c2, crlf.data);
    CHECK(m2 != NULL);
    if (m2) {
        Buf out2 = {0};
        ast_print_module(&out2, m2);
        CHECK(strcmp(out.data, out2.data) == 0);
        buf_free(&out2);
    }
    buf_free(&crlf);
    buf_free(&out);
    ctx_free(c2);
    ctx_free(c);
}

/* The body of `def k(): return EXPR` as printed. */
static void check_expr(const char *expr, const char *want) {
    Ctx *c = new_ctx();
    char *src = arena_printf(c->arena, "@jit\ndef k():\n    return %s\n", expr);
    AstModule *m = try_parse(c, src);
    if (!m) {
        fprintf(stderr, "%s: unexpected error:\n%s", expr, c->diag.data);
        failures++;
    } else {
        Buf out = {0};
        ast_print_func(&out, &m->funcs[0]);
        char *got = strstr(out.data, "(return ");
        size_t n = got ? strlen(got) : 0;
        if (!got || n < 4 || strncmp(got + 8, want, n - 11) != 0 || strlen(want) != n - 11) {
            fprintf(stderr, "%s:\n  want %s\n  got  %s", expr, want, got ? got + 8 : out.data);
            failures++;
        }
        buf_free(&out);
    }
    ctx_free(c);
}

static void test_expressions(void) {
    check_expr("a + b * c", "(+ (name a) (* (name b) (name c)))");
    check_expr("a * b + c", "(+ (* (name a) (name b)) (name c))");
    check_expr("a - b - c", "(- (- (name a) (name b)) (name c))");
    check_expr("-2**2", "(- (** (int 2) (int 2)))");
    check_expr("2**-1", "(** (int 2) (- (int 1)))");
    check_expr("a**b**c", "(** (name a) (** (name b) (name c)))");
    check_expr("-a * b", "(* (- (name a)) (name b))");
    check_expr("~a & b | c ^ d << 1", "(| (& (~ (name a)) (name b)) (^ (name c) (<< (name d) (int 1))))");
    check_expr("a @ b // c % d", "(% (// (@ (name a) (name b)) (name c)) (name d))");
    check_expr("a < b <= c != d", "(compare (name a) < (name b) <= (name c) != (name d))");
    check_expr("a not in b is not c", "(compare (name a) not in (name b) is not (name c))");
    check_expr("not a == b", "(not (compare (name a) == (name b)))");
    check_expr("a or b and c or d", "(or (name a) (and (name b) (name c)) (name d))");
    check_expr("a if b else c if d else e", "(ifexp (name b) (name a) (ifexp (name d) (name c) (name e)))");
    check_expr("lambda x, *a, y=1, **k: x", "(lambda (params (x) (*a) (y = (int 1)) (**k)) (name x))");
    check_expr("x[:, None]", "(sub (name x) (tuple (slice _ _ _) None))");
    check_expr("x[1:2, ::3, ...]", "(sub (name x) (tuple (slice (int 1) (int 2) _) (slice _ _ (int 3)) ...))");
    check_expr("x[i]", "(sub (name x) (name i))");
    check_expr("x[i,]", "(sub (name x) (tuple (name i)))");
    check_expr("f(a, *b, k=1, **d)", "(call (name f) (name a) (* (name b)) (kw k (int 1)) (kw ** (name d)))");
    check_expr("f(x for x in y)", "(call (name f) (genexp (name x) (for (name x) (name y))))");
    check_expr("[x * 2 for x, y in z if x if y for w in x]",
               "(listcomp (* (name x) (int 2)) (for (tuple (name x) (name y)) (name z) (if (name x)) (if (name y))) "
               "(for (name w) (name x)))");
    check_expr("{k: v for k in d}", "(dictcomp (name k) (name v) (for (name k) (name d)))");
    check_expr("{a, *b}", "(set (name a) (* (name b)))");
    check_expr("{a: 1, **b}", "(dict ((name a) (int 1)) (** (name b)))");
    check_expr("{}", "(dict)");
    check_expr("()", "(tuple)");
    check_expr("(a,)", "(tuple (name a))");
    check_expr("[1, 2,]", "(list (int 1) (int 2))");
    check_expr("a, *b", "(tuple (name a) (* (name b)))");
    check_expr("(y := f(x)) > 0", "(compare (:= y (call (name f) (name x))) > (int 0))");
    check_expr("tl.load(p + o, mask=m, other=0.)",
               "(call (attr (name tl) load) (+ (name p) (name o)) (kw mask (name m)) (kw other (float 0)))");
    check_expr("'a' \"b\" '''c'''", "(str \"abc\")");
    check_expr("'\\x41\\n\\101\\u00e9\\t' r'\\n'", "(str \"A\\nAé\\t\\\\n\")");
    check_expr("f'{x}' 'y'", "(fstr \"f'{x}' 'y'\")");
    check_expr("0x_FF + 0o17 + 0b101 + 1_000", "(+ (+ (+ (int 255) (int 15)) (int 5)) (int 1000))");
    check_expr("99999999999999999999", "(int 99999999999999999999)");
    check_expr("0xFFFFFFFFFFFFFFFFF", "(int 295147905179352825855)");
    check_expr("9223372036854775807", "(int 9223372036854775807)");
    check_expr("1.5e3 + .5 + 1. + 2j", "(+ (+ (+ (float 1500) (float 0.5)) (float 1)) (imag 2))");
    check_expr("True, False, None, ...", "(tuple True False None ...)");
    check_expr("a.b.c(d)[e].f", "(attr (sub (call (attr (attr (name a) b) c) (name d)) (name e)) f)");
    check_expr("1if x else 2", "(ifexp (name x) (int 1) (int 2))");
    check_expr("(\n  a +\n  b\n)", "(+ (name a) (name b))");
    check_expr("a + \\\n b", "(+ (name a) (name b))");
    check_expr("é + π", "(+ (name é) (name π))");
}

/* A kernel with statements of every kind prints as expected. */
static void test_statements(void) {
    static const char src[] =
        "import triton.language as tl\n"
        "@triton.jit(debug=True)\n"
        "def k(x, n: tl.int32, *args, **kw) -> None:\n"
        "    a = b = c\n"
        "    a, (b, *c) = f()\n"
        "    x: tl.tensor = 1; y: int\n"
        "    x[0] **= 2\n"
        "    while x:\n"
        "        break\n"
        "    else:\n"
        "        continue\n"
        "    for i in range(3): pass\n"
        "    assert x, 'msg'\n"
        "    del a, b[0]\n"
        "    global g\n"
        "    nonlocal h, i\n"
        "    raise ValueError('x') from e\n"
        "    def inner(y): return y\n"
        "    with open(f) as g:\n"
        "        pass\n"
        "    try:\n"
        "        pass\n"
        "    except E:\n"
        "        pass\n"
        "    finally:\n"
        "        pass\n"
        "    class C: pass\n"
        "    match x:\n"
        "        case 1: pass\n"
        "    match = 3\n"
        "    match(x)\n"
        "    @dec\n"
        "    def g(): pass\n"
        "    async with x: pass\n"
        "    import os\n"
        "    return\n";
    static const char want[] =
        "@triton.jit(...)\n"
        "(def k (params (x) (n : (attr (name tl) int32)) (*args) (**kw)) (-> None)\n"
        "  (= (name a) (name b) (name c))\n"
        "  (= (tuple (name a) (tuple (name b) (* (name c)))) (call (name f)))\n"
        "  (annassign (name x) (attr (name tl) tensor) (int 1))\n"
        "  (annassign (name y) (name int))\n"
        "  (**= (sub (name x) (int 0)) (int 2))\n"
        "  (while (name x)\n"
        "    (break)\n"
        "  else\n"
        "    (continue))\n"
        "  (for (name i) (call (name range) (int 3))\n"
        "    (pass))\n"
        "  (assert (name x) (str \"msg\"))\n"
        "  (del (name a) (sub (name b) (int 0)))\n"
        "  (global (name g))\n"
        "  (nonlocal (name h) (name i))\n"
        "  (raise (call (name ValueError) (str \"x\")) (name e))\n"
        "  (def inner (params (y))\n"
        "    (return (name y)))\n"
        "  (unsupported with)\n"
        "  (unsupported try)\n"
        "  (unsupported class)\n"
        "  (unsupported match)\n"
        "  (= (name match) (int 3))\n"
        "  (expr (call (name match) (name x)))\n"
        "  (unsupported @)\n"
        "  (unsupported async)\n"
        "  (unsupported import)\n"
        "  (return))\n";
    Ctx *c = new_ctx();
    AstModule *m = try_parse(c, src);
    if (!m) {
        fprintf(stderr, "statements: unexpected error:\n%s", c->diag.data);
        failures++;
    } else {
        Buf out = {0};
        ast_print_func(&out, &m->funcs[0]);
        if (strcmp(out.data, want) != 0) {
            fprintf(stderr, "statements: want\n%s\ngot\n%s", want, out.data);
            failures++;
        }
        buf_free(&out);
    }
    ctx_free(c);
}

static void test_tokens(void) {
    static const char src[] = "if x:\n\ty **= 0x1F  # c\n\n\tz = f'{a}' \\\n  rb'q'\nw = (1,\n 2)";
    static const char want[] =
        "1:1 NAME 'if'\n1:4 NAME 'x'\n1:5 OP ':'\n1:6 NEWLINE '\\n'\n"
        "2:2 INDENT ''\n2:2 NAME 'y'\n2:4 OP '**='\n2:8 INT '0x1F'\n2:17 NEWLINE '\\n'\n"
        "4:2 NAME 'z'\n4:4 OP '='\n4:6 STRING 'f\\'{a}\\''\n5:3 STRING 'rb\\'q\\''\n5:8 NEWLINE '\\n'\n"
        "6:1 DEDENT ''\n6:1 NAME 'w'\n6:3 OP '='\n6:5 OP '('\n6:6 INT '1'\n6:7 OP ','\n7:2 INT '2'\n7:3 OP ')'\n"
        "7:4 NEWLINE ''\n7:4 EOF ''\n";
    Ctx *c = new_ctx();
    jmp_buf jb;
    c->bail = &jb;
    if (setjmp(jb)) {
        fprintf(stderr, "tokens: unexpected error:\n%s", c->diag.data);
        failures++;
    } else {
        int n;
        Token *t = lex_file(c, srcfile_from_string(c, "t.py", src), &n);
        Buf out = {0};
        lex_print(&out, t, n);
        if (strcmp(out.data, want) != 0) {
            fprintf(stderr, "tokens: want\n%s\ngot\n%s", want, out.data);
            failures++;
        }
        buf_free(&out);
    }
    ctx_free(c);
}

/* src must fail with exactly `want` as the first line of the message. */
static void check_error(const char *src, const char *want) {
    Ctx *c = new_ctx();
    AstModule *m = try_parse(c, src);
    const char *got = c->diag.data ? c->diag.data : "";
    size_t n = strcspn(got, "\n");
    if (m || strlen(want) != n || strncmp(got, want, n) != 0) {
        fprintf(stderr, "source:\n%s\n  want error: %s\n  got: %.*s\n", src, want, (int)n, m ? "(no error)" : got);
        failures++;
    }
    ctx_free(c);
}

#define K "@triton.jit\ndef k(x):\n"

static void test_errors(void) {
    check_error("x = 'abc\n", "t.py:1:5: error: unterminated string literal");
    check_error("x = 1\ny = \"\"\"abc\n\n", "t.py:2:5: error: unterminated triple-quoted string literal");
    check_error("s = f'{x:'\n", "t.py:1:10: error: f-string: expecting '}'");
    check_error("if x:\n    a\n  b\n", "t.py:3:3: error: unindent does not match any outer indentation level");
    check_error("if x:\n\ty\n        z\n", "t.py:3:9: error: inconsistent use of tabs and spaces in indentation");
    check_error("x = 1)\n", "t.py:1:6: error: unmatched ')'");
    check_error("x = f(a,\n  [b\n", "t.py:2:3: error: '[' was never closed");
    check_error("x = (1, 2]\n", "t.py:1:10: error: closing parenthesis ']' does not match opening parenthesis '('");
    check_error("x = (1,\n 2}\n",
                "t.py:2:3: error: closing parenthesis '}' does not match opening parenthesis '(' on line 1");
    check_error("a = b $ c\n", "t.py:1:7: error: invalid character '$' (U+0024)");
    check_error("a = b \xe2\x80\x9c" "c\n", "t.py:1:7: error: invalid character '\xe2\x80\x9c' (U+201C)");
    check_error("a = \x01\n", "t.py:1:5: error: invalid non-printable character U+0001");
    check_error("x = 0b102\n", "t.py:1:9: error: invalid binary literal");
    check_error("x = 007\n", "t.py:1:5: error: leading zeros in decimal integer literals are not permitted; "
                             "use an 0o prefix for octal integers");
    check_error("x = 1 \\ 2\n", "t.py:1:8: error: unexpected character after line continuation character");
    check_error(K "    if x\n        pass\n", "t.py:3:9: error: expected ':'");
    check_error(K "    if x:\n    pass\n", "t.py:4:5: error: expected an indented block after 'if' statement on line 3");
    check_error(K "    for i in x:\n\n# c\n    y\n",
                "t.py:6:5: error: expected an indented block after 'for' statement on line 3");
    check_error(K "    y = 1\n        z = 2\n", "t.py:4:9: error: unexpected indent");
    check_error(K "    y = foo(a b)\n", "t.py:3:15: error: expected ')' to close '(' at line 3");
    check_error(K "    y = [a,\n         b c]\n", "t.py:4:12: error: expected ']' to close '[' at line 3");
    check_error(K "    y = foo bar\n", "t.py:3:13: error: invalid syntax near 'bar'");
    check_error(K "    y = = 1\n", "t.py:3:9: error: expected an expression near '='");
    check_error(K "    y = x +\n", "t.py:3:12: error: expected an expression near end of line");
    check_error(K "    y = x + if\n", "t.py:3:13: error: expected an expression near 'if'");
    check_error(K "    f(x) = 1\n", "t.py:3:5: error: cannot assign to function call");
    check_error(K "    a, 1 = x\n", "t.py:3:8: error: cannot assign to literal");
    check_error(K "    a + b = x\n", "t.py:3:5: error: cannot assign to expression");
    check_error(K "    None = x\n", "t.py:3:5: error: cannot assign to None");
    check_error(K "    a < b = x\n", "t.py:3:5: error: cannot assign to comparison");
    check_error(K "    for f() in x: pass\n", "t.py:3:9: error: cannot assign to function call");
    check_error(K "    del x + 1\n", "t.py:3:9: error: cannot delete expression");
    check_error(K "    (a, b) += 1\n", "t.py:3:5: error: 'tuple' is an illegal expression for augmented assignment");
    check_error(K "    *a, *b = x\n", "t.py:3:9: error: multiple starred expressions in assignment");
    check_error(K "    y = *a\n", "t.py:3:9: error: cannot use starred expression here");
    check_error(K "    f(a=1, b)\n", "t.py:3:12: error: positional argument follows keyword argument");
    check_error(K "    x = 1 if y\n", "t.py:3:15: error: expected 'else' after 'if' expression");
    check_error(K "    else:\n        pass\n", "t.py:3:5: error: invalid syntax near 'else'");
    check_error(K "    y = 'a' b'b'\n", "t.py:3:13: error: cannot mix bytes and nonbytes literals");
    check_error(K "    y = '\\x4'\n", "t.py:3:9: error: (unicode error) truncated \\x escape");
    check_error("@jit\ndef k(a, b=1, c):\n    pass\n",
                "t.py:2:15: error: parameter without a default follows parameter with a default");
    check_error("@jit\ndef k(a, a):\n    pass\n", "t.py:2:10: error: duplicate argument 'a' in function definition");
    check_error("@jit\ndef k(a)\n    pass\n", "t.py:2:9: error: expected ':'");
    check_error("@jit\ndef k(a:\n    pass\n", "t.py:2:6: error: '(' was never closed");

    /* the whole message, with the source line and caret */
    Ctx *c = new_ctx();
    CHECK(try_parse(c, K "\tif (a and\n\t    b) c:\n\t\tpass\n") == NULL);
    if (!c->diag.data || strcmp(c->diag.data, "t.py:4:9: error: expected ':'\n\t    b) c:\n\t       ^\n") != 0) {
        fprintf(stderr, "full message: got\n%s", c->diag.data ? c->diag.data : "(none)");
        failures++;
    }
    ctx_free(c);

    /* nesting is bounded: an error, not a stack overflow */
    Buf deep = {0};
    buf_puts(&deep, K "    y = ");
    for (int i = 0; i < 5000; i++) buf_puts(&deep, "-");
    buf_puts(&deep, "x\n");
    check_error(deep.data, "t.py:3:209: error: expression nested too deeply");
    buf_free(&deep);
    buf_puts(&deep, K "    y = ");
    for (int i = 0; i < 300; i++) buf_puts(&deep, "a if b else lambda: ");
    buf_puts(&deep, "x\n");
    c = new_ctx();
    CHECK(try_parse(c, deep.data) == NULL && strstr(c->diag.data, "expression nested too deeply"));
    ctx_free(c);
    buf_free(&deep);
    buf_puts(&deep, "x = ");
    for (int i = 0; i < 300; i++) buf_puts(&deep, "(");
    check_error(deep.data, "t.py:1:205: error: too many nested parentheses");
    buf_free(&deep);
}

/* Host code never fails to parse, however odd, if it tokenizes. */
static void test_host_code(void) {
    static const char *const ok[] = {
        "  x = 1\n",                         /* stray indent at the top */
        "x = 1\n    y = 2\nz = 3\n",         /* unexpected indent in host code */
        "def f(:)\n    1 +\n",                /* broken non-jit def */
        "class A(metaclass=M): x = 1\n",
        "@decorator[0].x\nclass A: pass\n",
        "x = = = 1\nprint >> f, 'x'\nlambda: (yield)\n",
        "match x:\n    case {'a': 1}: pass\n",
        "",
        "\n\n   \n# only a comment",
        "\xef\xbb\xbfimport a\n",
        "x = rf'(\\{{%)({a})' f'\\N{DASH} {b!r:>{w}}' f'{d[\"k\"]}'\n",   /* braces after backslashes */
    };
    for (size_t i = 0; i < ARRAY_LEN(ok); i++) {
        Ctx *c = new_ctx();
        AstModule *m = try_parse(c, ok[i]);
        if (!m) {
            fprintf(stderr, "host code %zu failed:\n%s", i, c->diag.data);
            failures++;
        } else {
            if (i == 1) CHECK(m->n_globals == 2);
            if (i == 9) CHECK(m->n_imports == 1);
        }
        ctx_free(c);
    }
}

/* Every prefix of the tutorial, then random byte mutations: each must
 * end in an AST or an error. ASan/UBSan catch the rest. */
static void test_robustness(void) {
    size_t len = strlen(tutorial);
    char *buf = malloc(len + 1);
    int n_ok = 0;
    for (size_t cut = 0; cut <= len; cut++) {
        memcpy(buf, tutorial, cut);
        buf[cut] = 0;
        Ctx *c = new_ctx();
        AstModule *m = try_parse(c, buf);
        if (m) {
            Buf out = {0};
            ast_print_module(&out, m);
            buf_free(&out);
            n_ok++;
        } else {
            CHECK(c->n_errors == 1 && c->diag.data && strstr(c->diag.data, ": error: "));
        }
        ctx_free(c);
    }
    CHECK(n_ok > 0);
    static const char alphabet[] = "()[]{}:'\"\\\n\t #=+-*.,@ax0fj;\xc3\xa9";
    uint32_t seed = 12345;
    for (int iter = 0; iter < 3000; iter++) {
        memcpy(buf, tutorial, len + 1);
        for (int k = 0; k < 1 + iter % 4; k++) {
            seed = seed * 1103515245u + 12345u;
            size_t at = (seed >> 8) % len;
            seed = seed * 1103515245u + 12345u;
            buf[at] = alphabet[(seed >> 8) % (sizeof alphabet - 1)];
        }
        Ctx *c = new_ctx();
        AstModule *m = try_parse(c, buf);
        if (m) {
            Buf out = {0};
            ast_print_module(&out, m);
            buf_free(&out);
        } else {
            CHECK(c->n_errors == 1);
        }
        ctx_free(c);
    }
    free(buf);
}

int main(void) {
    test_tokens();
    test_tutorial();
    test_expressions();
    test_statements();
    test_errors();
    test_host_code();
    test_robustness();
    if (failures) {
        fprintf(stderr, "test_parse: %d failures\n", failures);
        return 1;
    }
    printf("test_parse: ok\n");
    return 0;
}
