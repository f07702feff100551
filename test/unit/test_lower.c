/* lower_kernel: lowers small kernels and checks the IR by walking it (op
 * kinds, types, operand structure, regions), Triton's type promotion, and
 * the errors that only the library API can reach. */
#include "base/base.h"
#include "frontend/frontend.h"

#include <stdio.h>
#include <string.h>

#include "check.h"

static const char source[] =
    "import triton\n"
    "import triton.language as tl\n"
    "from triton.language import program_id\n"
    "\n"
    "SCALE = tl.constexpr(3)\n"
    "\n"
    "@triton.jit\n"
    "def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
    "    pid = tl.program_id(axis=0)\n"
    "    offs = pid * BLOCK + tl.arange(0, BLOCK)\n"
    "    mask = offs < n\n"
    "    x = tl.load(x_ptr + offs, mask=mask)\n"
    "    y = tl.load(y_ptr + offs, mask=mask)\n"
    "    tl.store(out_ptr + offs, x + y, mask=mask)\n"
    "\n"
    "@triton.jit\n"
    "def bcast(x_ptr, stride, BM: tl.constexpr, BN: tl.constexpr):\n"
    "    rm = tl.arange(0, BM)\n"
    "    rn = tl.arange(0, BN)\n"
    "    p = x_ptr + rm[:, None] * stride + rn[None, :]\n"
    "    tl.store(p, tl.load(p) * SCALE)\n"
    "\n"
    "@triton.jit\n"
    "def loop(x_ptr, n, BLOCK: tl.constexpr):\n"
    "    offs = tl.arange(0, BLOCK)\n"
    "    acc = tl.zeros([BLOCK], dtype=tl.float32)\n"
    "    for i in range(0, n, BLOCK):\n"
    "        acc += tl.load(x_ptr + i + offs)\n"
    "    tl.store(x_ptr + offs, acc)\n"
    "\n"
    "@triton.jit\n"
    "def wloop(x_ptr, n):\n"
    "    i = 0\n"
    "    s = 0.0\n"
    "    while i < n:\n"
    "        s = s + tl.load(x_ptr + i)\n"
    "        i += 1\n"
    "    tl.store(x_ptr, s)\n"
    "\n"
    "@triton.jit\n"
    "def dyn_if(x_ptr, n):\n"
    "    v = tl.load(x_ptr)\n"
    "    if n > 0:\n"
    "        v = v * 2.0\n"
    "        w = 1.0\n"
    "    else:\n"
    "        w = 2.0\n"
    "    tl.store(x_ptr, v + w)\n"
    "\n"
    "@triton.jit\n"
    "def static_if(x_ptr, MODE: tl.constexpr):\n"
    "    if MODE == 'double':\n"
    "        v = tl.load(x_ptr) * 2.0\n"
    "    else:\n"
    "        v = tl.load(x_ptr) * 3.0\n"
    "    tl.store(x_ptr, v)\n"
    "\n"
    "@triton.jit\n"
    "def pair(a, b, K: tl.constexpr = 2):\n"
    "    return a + b, a * K\n"
    "\n"
    "@triton.jit\n"
    "def use_pair(x_ptr, BLOCK: tl.constexpr):\n"
    "    offs = tl.arange(0, BLOCK)\n"
    "    s, p = pair(offs, 1)\n"
    "    tl.store(x_ptr + s, p.to(tl.float32))\n"
    "\n"
    "@triton.jit\n"
    "def promo(h_ptr, alpha, b_ptr, i, j, o16, o32, o8):\n"
    "    h = tl.load(h_ptr)\n"
    "    b = tl.load(b_ptr)\n"
    "    tl.store(o16, h * 2.0)\n"
    "    tl.store(o32, h * alpha)\n"
    "    tl.store(o8, b + 1)\n"
    "    tl.store(o32, i / j)\n"
    "    tl.store(o8, (i // j).to(tl.int8))\n"
    "\n"
    "@triton.jit\n"
    "def negstep(x_ptr):\n"
    "    for k in range(8, 0, -2):\n"
    "        tl.store(x_ptr + k, 1.0)\n"
    "    for u in tl.static_range(3):\n"
    "        tl.store(x_ptr + u, 2.0)\n";

typedef struct Result {
    Ctx *ctx;
    IrFunc *fn;
} Result;

/* Lowers `kernel` of `src` with signature `sig`; fn NULL on error (the
 * message is in ctx->diag). */
static Result lower(const char *src, const char *kernel, const char *sig) {
    Target t = {.sm = 80, .num_warps = 4, .num_stages = 3};
    Result r = {ctx_new(&t), NULL};
    jmp_buf jb;
    r.ctx->bail = &jb;
    if (setjmp(jb)) return r;
    SrcFile *f = srcfile_from_string(r.ctx, "t.py", src);
    AstModule *m = parse_module(r.ctx, f);
    Signature *s = sig_parse(r.ctx, sig);
    r.fn = lower_kernel(r.ctx, m, kernel, s);
    Buf why = {0};
    if (!ir_verify(r.fn, &why)) {
        fprintf(stderr, "ir_verify failed for %s:\n%s", kernel, why.data);
        Buf ir = {0};
        ir_print(&ir, r.fn);
        fputs(ir.data, stderr);
        buf_free(&ir);
        failures++;
    }
    buf_free(&why);
    return r;
}

static Result lower_ok(const char *kernel, const char *sig) {
    Result r = lower(source, kernel, sig);
    if (!r.fn) {
        fprintf(stderr, "lowering %s failed:\n%s", kernel, r.ctx->diag.data);
        failures++;
    }
    return r;
}

/* ---- walking the IR ---- */

typedef struct Ops {
    IrOp *ops[512];
    int n;
} Ops;

static void collect(IrFunc *fn, IrOp *op, void *ud) {
    (void)fn;
    Ops *o = ud;
    if (o->n < 512) o->ops[o->n++] = op;
}

static Ops all_ops(IrFunc *fn) {
    Ops o = {{0}, 0};
    ir_walk(fn, fn->body, collect, &o);
    return o;
}

static int count(IrFunc *fn, Opcode opc) {
    Ops o = all_ops(fn);
    int n = 0;
    for (int i = 0; i < o.n; i++) n += o.ops[i]->opc == opc;
    return n;
}

/* The nth op (0-based, program order, nested included) with opcode opc. */
static IrOp *nth(IrFunc *fn, Opcode opc, int k) {
    Ops o = all_ops(fn);
    for (int i = 0; i < o.n; i++)
        if (o.ops[i]->opc == opc && k-- == 0) return o.ops[i];
    return NULL;
}

static IrType ty(IrFunc *fn, ValId v) { return ir_type(fn, v); }

static bool is_tile(IrType t, ElemType e, int d0, int d1) {
    if (t.elem != e) return false;
    if (d1 == 0) return t.rank == 1 && t.shape[0] == d0;
    return t.rank == 2 && t.shape[0] == d0 && t.shape[1] == d1;
}

static bool is_scalar(IrType t, ElemType e) { return t.rank == 0 && t.elem == e; }

static IrOp *def(IrFunc *fn, ValId v) { return fn->vals[v].def; }

/* ---- the kernels ---- */

static void test_vector_add(void) {
    Result r = lower_ok("add_kernel", "*fp32:16, *fp32:16, *fp32:16, i32, 1024");
    IrFunc *fn = r.fn;
    if (!fn) goto done;
    CHECK(fn->n_params == 4);
    CHECK(!strcmp(fn->params[0].name, "x_ptr") && fn->params[0].divisibility == 16);
    CHECK(!strcmp(fn->params[3].name, "n") && fn->params[3].divisibility == 1);
    CHECK(ir_type_eq(ty(fn, fn->params[0].val), ir_ptr(ET_F32)));
    CHECK(is_scalar(ty(fn, fn->params[3].val), ET_I32));
    IrOp *pid = nth(fn, OP_PROGRAM_ID, 0), *ar = nth(fn, OP_ARANGE, 0);
    CHECK(pid && pid->attr.i == 0 && is_scalar(ty(fn, pid->results[0]), ET_I32));
    CHECK(ar && ar->attr.i == 0 && ar->attr.i2 == 1024 && is_tile(ty(fn, ar->results[0]), ET_I32, 1024, 0));
    CHECK(count(fn, OP_LOAD) == 2 && count(fn, OP_STORE) == 1 && count(fn, OP_ADDPTR) == 3);
    IrOp *ld = nth(fn, OP_LOAD, 0), *st = nth(fn, OP_STORE, 0);
    CHECK(ld->n_operands == 2 && is_tile(ty(fn, ld->results[0]), ET_F32, 1024, 0));
    CHECK(def(fn, ld->operands[0])->opc == OP_ADDPTR);
    CHECK(is_tile(ty(fn, ld->operands[1]), ET_I1, 1024, 0) && def(fn, ld->operands[1])->opc == OP_CMP);
    CHECK(def(fn, ld->operands[1])->attr.i == CMP_LT);
    CHECK(st->n_operands == 3 && def(fn, st->operands[1])->opc == OP_ADD);
    /* the pointer operand of addptr is the splatted argument */
    IrOp *ap = def(fn, ld->operands[0]);
    CHECK(def(fn, ap->operands[0])->opc == OP_SPLAT && def(fn, ap->operands[0])->operands[0] == fn->params[0].val);
    CHECK(fn->body->last && fn->body->last->opc == OP_RET);
done:
    ctx_free(r.ctx);
}

static void test_broadcast_2d(void) {
    Result r = lower_ok("bcast", "*fp16, i32, 32, 64");
    IrFunc *fn = r.fn;
    if (!fn) goto done;
    IrOp *e0 = nth(fn, OP_EXPAND_DIMS, 0), *e1 = nth(fn, OP_EXPAND_DIMS, 1);
    CHECK(e0 && e0->attr.i == 1 && is_tile(ty(fn, e0->results[0]), ET_I32, 32, 1));
    CHECK(e1 && e1->attr.i == 0 && is_tile(ty(fn, e1->results[0]), ET_I32, 1, 64));
    CHECK(count(fn, OP_BROADCAST) == 2);
    IrOp *ld = nth(fn, OP_LOAD, 0);
    CHECK(ld && is_tile(ty(fn, ld->results[0]), ET_F16, 32, 64) && ld->n_operands == 1);
    /* tile * constexpr 3 stays fp16: the constant is an fp16 tile */
    IrOp *mul = def(fn, nth(fn, OP_STORE, 0)->operands[1]);
    CHECK(mul->opc == OP_MUL && is_tile(ty(fn, mul->results[0]), ET_F16, 32, 64));
    IrOp *k = def(fn, mul->operands[1]);
    CHECK(k->opc == OP_CONST && k->attr.f == 3.0 && is_tile(ty(fn, k->results[0]), ET_F16, 32, 64));
done:
    ctx_free(r.ctx);
}

static void test_for_loop(void) {
    Result r = lower_ok("loop", "*fp32, i32, 128");
    IrFunc *fn = r.fn;
    if (!fn) goto done;
    IrOp *f = nth(fn, OP_FOR, 0);
    CHECK(f && f->n_operands == 4 && f->n_results == 1 && f->n_regions == 1);
    if (!f) goto done;
    CHECK(is_scalar(ty(fn, f->operands[0]), ET_I32) && f->operands[1] == fn->params[1].val);
    CHECK(is_tile(ty(fn, f->operands[3]), ET_F32, 128, 0) && def(fn, f->operands[3])->opc == OP_CONST);
    IrBlock *body = f->regions[0];
    CHECK(body->n_args == 2 && is_scalar(ty(fn, body->args[0]), ET_I32));
    CHECK(is_tile(ty(fn, body->args[1]), ET_F32, 128, 0));
    IrOp *y = body->last;
    CHECK(y && y->opc == OP_YIELD && y->n_operands == 1);
    IrOp *add = def(fn, y->operands[0]);
    CHECK(add->opc == OP_ADD && add->operands[0] == body->args[1]);
    /* the store after the loop uses the loop's result */
    CHECK(nth(fn, OP_STORE, 0)->operands[1] == f->results[0]);
done:
    ctx_free(r.ctx);
}

static void test_while(void) {
    Result r = lower_ok("wloop", "*fp32, i32");
    IrFunc *fn = r.fn;
    if (!fn) goto done;
    IrOp *w = nth(fn, OP_WHILE, 0);
    CHECK(w && w->n_operands == 2 && w->n_results == 2 && w->n_regions == 2);
    if (!w) goto done;
    CHECK(is_scalar(ty(fn, w->operands[0]), ET_I32) && is_scalar(ty(fn, w->operands[1]), ET_F32));
    IrOp *c = w->regions[0]->last;
    CHECK(c && c->opc == OP_CONDITION && c->n_operands == 3 && is_scalar(ty(fn, c->operands[0]), ET_I1));
    CHECK(c->operands[1] == w->regions[0]->args[0]);
    IrOp *y = w->regions[1]->last;
    CHECK(y && y->opc == OP_YIELD && y->n_operands == 2);
    CHECK(nth(fn, OP_STORE, 0)->operands[1] == w->results[1]);
done:
    ctx_free(r.ctx);
}

static void test_dynamic_if(void) {
    Result r = lower_ok("dyn_if", "*fp32, i32");
    IrFunc *fn = r.fn;
    if (!fn) goto done;
    IrOp *op = nth(fn, OP_IF, 0);
    CHECK(op && op->n_results == 2 && is_scalar(ty(fn, op->operands[0]), ET_I1));
    if (!op) goto done;
    /* v (re-assigned in one branch) and w (new in both) are results */
    CHECK(is_scalar(ty(fn, op->results[0]), ET_F32) && is_scalar(ty(fn, op->results[1]), ET_F32));
    CHECK(op->regions[0]->last->opc == OP_YIELD && op->regions[1]->last->opc == OP_YIELD);
    CHECK(op->regions[1]->last->operands[0] == nth(fn, OP_LOAD, 0)->results[0]);
    IrOp *add = def(fn, nth(fn, OP_STORE, 0)->operands[1]);
    CHECK(add->opc == OP_ADD && add->operands[0] == op->results[0] && add->operands[1] == op->results[1]);
done:
    ctx_free(r.ctx);
}

static void test_static_if(void) {
    Result r = lower_ok("static_if", "*fp32, 'double'");
    IrFunc *fn = r.fn;
    if (fn) {
        CHECK(count(fn, OP_IF) == 0 && count(fn, OP_LOAD) == 1);
        IrOp *mul = def(fn, nth(fn, OP_STORE, 0)->operands[1]);
        CHECK(mul->opc == OP_MUL && def(fn, mul->operands[1])->attr.f == 2.0);
    }
    ctx_free(r.ctx);
    r = lower_ok("static_if", "*fp32, 'triple'");
    if (r.fn) CHECK(def(r.fn, def(r.fn, nth(r.fn, OP_STORE, 0)->operands[1])->operands[1])->attr.f == 3.0);
    ctx_free(r.ctx);
}

static void test_helper_tuple(void) {
    Result r = lower_ok("use_pair", "*fp32, 16");
    IrFunc *fn = r.fn;
    if (!fn) goto done;
    IrOp *st = nth(fn, OP_STORE, 0);
    IrOp *ap = def(fn, st->operands[0]);
    CHECK(ap->opc == OP_ADDPTR && def(fn, ap->operands[1])->opc == OP_ADD);
    IrOp *cast = def(fn, st->operands[1]);
    CHECK(cast->opc == OP_CAST && def(fn, cast->operands[0])->opc == OP_MUL);
    /* the default K = 2 reached the multiplication as an i32 tile constant */
    IrOp *k = def(fn, def(fn, cast->operands[0])->operands[1]);
    CHECK(k->opc == OP_CONST && k->attr.i == 2 && is_tile(ty(fn, k->results[0]), ET_I32, 16, 0));
    CHECK(count(fn, OP_FOR) == 0 && count(fn, OP_IF) == 0);
done:
    ctx_free(r.ctx);
}

static void test_promotion(void) {
    Result r = lower_ok("promo", "*fp16, fp32, *i8, i32, i32, *fp16, *fp32, *i8");
    IrFunc *fn = r.fn;
    if (!fn) goto done;
    /* fp16 * 2.0 stays fp16 */
    IrOp *m0 = def(fn, nth(fn, OP_STORE, 0)->operands[1]);
    CHECK(m0->opc == OP_MUL && is_scalar(ty(fn, m0->results[0]), ET_F16));
    /* fp16 * fp32 argument is fp32 (runtime scalars take part in promotion) */
    IrOp *m1 = def(fn, nth(fn, OP_STORE, 1)->operands[1]);
    CHECK(m1->opc == OP_MUL && is_scalar(ty(fn, m1->results[0]), ET_F32));
    CHECK(def(fn, m1->operands[0])->opc == OP_CAST && m1->operands[1] == fn->params[1].val);
    /* int8 + 1 stays int8 */
    IrOp *a = def(fn, nth(fn, OP_STORE, 2)->operands[1]);
    CHECK(a->opc == OP_ADD && is_scalar(ty(fn, a->results[0]), ET_I8));
    /* i32 / i32 divides in fp32 */
    IrOp *d = def(fn, nth(fn, OP_STORE, 3)->operands[1]);
    CHECK(d->opc == OP_DIV && is_scalar(ty(fn, d->results[0]), ET_F32));
    CHECK(def(fn, d->operands[0])->opc == OP_CAST && def(fn, d->operands[1])->opc == OP_CAST);
    /* i32 // i32 is an integer division, then cast to int8 */
    IrOp *c = def(fn, nth(fn, OP_STORE, 4)->operands[1]);
    CHECK(c->opc == OP_CAST && def(fn, c->operands[0])->opc == OP_DIV);
    CHECK(is_scalar(ty(fn, c->operands[0]), ET_I32));
done:
    ctx_free(r.ctx);
}

static void test_ranges(void) {
    Result r = lower_ok("negstep", "*fp32");
    IrFunc *fn = r.fn;
    if (!fn) goto done;
    IrOp *f = nth(fn, OP_FOR, 0);
    CHECK(f && count(fn, OP_FOR) == 1);
    if (!f) goto done;
    /* range(8, 0, -2) runs 0..8 step 2 and the body sees 8 - iv + 0 */
    CHECK(def(fn, f->operands[0])->attr.i == 0 && def(fn, f->operands[1])->attr.i == 8);
    CHECK(def(fn, f->operands[2])->attr.i == 2);
    IrOp *first = f->regions[0]->first;
    CHECK(first->opc == OP_SUB && first->operands[1] == f->regions[0]->args[0]);
    /* static_range is unrolled: three stores after the loop */
    CHECK(count(fn, OP_STORE) == 4);
done:
    ctx_free(r.ctx);
}

static void expect_error(const char *src, const char *kernel, const char *sig, const char *want) {
    Result r = lower(src, kernel, sig);
    CHECK(r.fn == NULL);
    if (!r.fn && !strstr(r.ctx->diag.data, want)) {
        fprintf(stderr, "%s: want an error containing\n  %s\ngot\n%s", kernel, want, r.ctx->diag.data);
        failures++;
    }
    ctx_free(r.ctx);
}

static void test_errors(void) {
    expect_error(source, "nope", "i32", "tric: error: no @jit function named 'nope' in t.py\n");
    expect_error(source, "add_kernel", "*fp32, *fp32, *fp32, i32, i32",
                 "parameter 'BLOCK' is tl.constexpr, so the signature must give its value, not a type");
    expect_error(source, "add_kernel", "*fp32, *fp32, *fp32, i32, 64, i32",
                 "t.py:8:1: error: kernel 'add_kernel' has 5 parameters but the signature gives 6");
    expect_error(source, "add_kernel", "*fp32, *fp32, *fp32, i32, NOPE=1",
                 "kernel 'add_kernel' has no parameter named 'NOPE'");
    expect_error(source, "add_kernel", "*fp32, *fp32, *fp32, i32, 100", "arange's range must be a power of 2");
    const char *bad =
        "import triton.language as tl\n"
        "@triton.jit\n"
        "def k(x_ptr, n):\n"
        "    v = tl.load(x_ptr)\n"
        "    for i in range(n):\n"
        "        if i > 0:\n"
        "            return\n"
        "    tl.store(x_ptr, v)\n";
    /* a run-time return is lowered, but not inside a loop (Triton's rule) */
    expect_error(bad, "k", "*fp32, i32", "Cannot have `return` statements inside `while` or `for`");
    const char *cx =
        "import triton.language as tl\n"
        "@triton.jit\n"
        "def k(x_ptr, n):\n"
        "    N: tl.constexpr = n\n";
    expect_error(cx, "k", "*fp32, i32", "the value of tl.constexpr variable 'N' must be known at compile time");
    const char *cmp =
        "import triton.language as tl\n"
        "@triton.jit\n"
        "def k(x_ptr):\n"
        "    tl.store(x_ptr, tl.load(x_ptr) // 2.0)\n";
    expect_error(cmp, "k", "*fp32", "unexpected type fp32");
    const char *neg =
        "import triton.language as tl\n"
        "@triton.jit\n"
        "def k(x_ptr):\n"
        "    tl.store(x_ptr, tl.load(x_ptr) + -1)\n";
    expect_error(neg, "k", "*u8", "between an unsigned tensor and a negative scalar");
}

/* 24 nested loops, each carrying x: each level used to lower its body twice
 * (once to find what it re-binds), 2^24 bodies in all; now about depth^2. */
static void test_deep_loop_nest(void) {
    Buf src = {0};
    buf_puts(&src, "import triton\nimport triton.language as tl\n@triton.jit\ndef nest(x_ptr, n):\n    x = 0\n");
    for (int d = 0; d < 24; d++) buf_printf(&src, "%*sfor i%d in range(0, n):\n", 4 + 4 * d, "", d);
    buf_printf(&src, "%*sx += 1\n    tl.store(x_ptr, x)\n", 4 + 4 * 24, "");
    Result r = lower(src.data, "nest", "*i32, i32");
    CHECK(r.fn != NULL);
    if (r.fn) CHECK(count(r.fn, OP_FOR) == 24);
    buf_free(&src);
    ctx_free(r.ctx);
}

int main(void) {
    test_deep_loop_nest();
    test_vector_add();
    test_broadcast_2d();
    test_for_loop();
    test_while();
    test_dynamic_if();
    test_static_if();
    test_helper_tuple();
    test_promotion();
    test_ranges();
    test_errors();
    if (failures) {
        fprintf(stderr, "test_lower: %d failure(s)\n", failures);
        return 1;
    }
    return 0;
}
