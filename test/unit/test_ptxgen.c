/* PTX generation (ptxgen/): small laid-out functions built with the IR
 * builder go through ptx_emit; the text must contain the instructions the
 * design promises (16-byte vector accesses, no .v8.b16, barriers around
 * shared memory, ...) and, where ptxas exists, assemble for sm_80 and
 * sm_90a (casts and elementwise ops for every target). Unsupported op x
 * type pairs must be reported with a message, never emitted. */
#include "base/base.h"
#include "ir/ir.h"
#include "opt/opt.h"
#include "ptxgen/ptxgen.h"
#include "interp/interp.h"
#include "sim/sim.h"

#include <dlfcn.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ptxas.h"

static int failures;

#define CHECK(cond)                                                                \
    do {                                                                           \
        if (!(cond)) {                                                             \
            printf("%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);        \
            failures++;                                                            \
        }                                                                          \
    } while (0)

typedef struct Tgt {
    int sm;
    bool arch_a;
    const char *ptxas_arch;
} Tgt;

static const Tgt TGT_80 = {80, false, "sm_80"}, TGT_90A = {90, true, "sm_90a"};
static const Tgt all_targets[] = {
    {80, false, "sm_80"}, {86, false, "sm_86"}, {89, false, "sm_89"}, {90, false, "sm_90"}, {90, true, "sm_90a"},
};

/* ---- building functions ---- */

typedef struct K {
    Ctx *ctx;
    IrFunc *fn;
    IrBuilder b;
    int num_warps;
} K;

static K kernel_new(const char *name, Tgt t, int num_warps) {
    Target target = {.sm = t.sm, .arch_a = t.arch_a, .num_warps = num_warps, .num_stages = 2};
    K k = {0};
    k.ctx = ctx_new(&target);
    k.fn = ir_func_new(k.ctx, name);
    k.b.fn = k.fn;
    k.b.block = k.fn->body;
    k.b.loc.file = srcfile_from_string(k.ctx, "kern.py", "line one\nline two\n");
    k.b.loc.line = 2;
    k.b.loc.col = 5;
    k.num_warps = num_warps;
    return k;
}

static IrType tile_of(IrType scalar, int rank, const int32_t *shape) { return ir_tile(scalar, rank, shape); }
static IrType tile1(IrType scalar, int n) { return ir_tile(scalar, 1, (int32_t[]){n}); }

static ValId lay(K *k, ValId v, const Layout *l) {
    k->fn->vals[v].layout = ir_layout_intern(k->fn, l);
    return v;
}

static ValId op_attr(K *k, Opcode opc, IrType t, int64_t a) {
    IrOp *op = ir_build(&k->b, opc, NULL, 0, &t, 1, 0);
    op->attr.i = a;
    return op->results[0];
}

static ValId arange(K *k, int n, const Layout *l) {
    IrOp *op = ir_build(&k->b, OP_ARANGE, NULL, 0, (IrType[]){tile1(ir_scalar(ET_I32), n)}, 1, 0);
    op->attr.i = 0;
    op->attr.i2 = n;
    return lay(k, op->results[0], l);
}

static ValId splat(K *k, ValId s, IrType tile, const Layout *l) {
    return lay(k, ir_build1(&k->b, OP_SPLAT, tile, s), l);
}

/* pid * n + arange(n) */
static ValId block_offsets(K *k, int n, const Layout *l) {
    ValId pid = op_attr(k, OP_PROGRAM_ID, ir_scalar(ET_I32), 0);
    ValId c = ir_const_int(&k->b, ir_scalar(ET_I32), n);
    ValId start = ir_build2(&k->b, OP_MUL, ir_scalar(ET_I32), pid, c);
    IrType t = tile1(ir_scalar(ET_I32), n);
    return lay(k, ir_build2(&k->b, OP_ADD, t, splat(k, start, t, l), arange(k, n, l)), l);
}

static ValId ptrs(K *k, ValId base, ValId offs, const Layout *l) {
    IrType pt = ir_with_elem(ir_type(k->fn, offs), ir_type(k->fn, base));
    return lay(k, ir_build2(&k->b, OP_ADDPTR, pt, splat(k, base, pt, l), offs), l);
}

static ValId load(K *k, ValId p, ValId mask, ValId other, int vec, const Layout *l) {
    IrType pt = ir_type(k->fn, p);
    IrType rt = ir_with_elem(pt, ir_scalar((ElemType)pt.pointee));
    ValId ops[3] = {p, mask, other};
    uint32_t n = other ? 3 : mask ? 2 : 1;
    IrOp *op = ir_build(&k->b, OP_LOAD, ops, n, &rt, 1, 0);
    op->attr.vec = vec;
    return l ? lay(k, op->results[0], l) : op->results[0];
}

static IrOp *store(K *k, ValId p, ValId v, ValId mask, int vec) {
    ValId ops[3] = {p, v, mask};
    IrOp *op = ir_build(&k->b, OP_STORE, ops, mask ? 3 : 2, NULL, 0, 0);
    op->attr.vec = vec;
    return op;
}

static ValId bin(K *k, Opcode opc, ValId a, ValId b, const Layout *l) {
    ValId v = ir_build2(&k->b, opc, ir_type(k->fn, a), a, b);
    return l ? lay(k, v, l) : v;
}

static ValId cmp(K *k, CmpPred p, ValId a, ValId b, const Layout *l) {
    IrType t = ir_with_elem(ir_type(k->fn, a), ir_scalar(ET_I1));
    ValId v = ir_build2(&k->b, OP_CMP, t, a, b);
    k->fn->vals[v].def->attr.i = p;
    return l ? lay(k, v, l) : v;
}

static ValId cast(K *k, ValId a, ElemType to, const Layout *l) {
    ValId v = ir_build1(&k->b, OP_CAST, ir_with_elem(ir_type(k->fn, a), ir_scalar(to)), a);
    return l ? lay(k, v, l) : v;
}

static ValId tile_const(K *k, IrType t, double f, const Layout *l) {
    ValId v = elem_is_float((ElemType)t.elem) ? ir_const_float(&k->b, t, f) : ir_const_int(&k->b, t, (int64_t)f);
    return lay(k, v, l);
}

static void ret(K *k) { ir_build(&k->b, OP_RET, NULL, 0, NULL, 0, 0); }

/* ---- emitting and assembling ---- */

/* The PTX, or NULL with the message in *err (caller frees both). */
static char *emit(K *k, char **err) {
    jmp_buf jb;
    k->ctx->bail = &jb;
    *err = NULL;
    if (setjmp(jb)) {
        k->ctx->bail = NULL;
        *err = strdup(k->ctx->diag.data ? k->ctx->diag.data : "?");
        return NULL;
    }
    pass_smem(k->fn);
    char *s = ptx_emit(k->fn);
    k->ctx->bail = NULL;
    return s;
}

static bool has(const char *text, const char *s) { return text && strstr(text, s) != NULL; }

static int count(const char *text, const char *s) {
    int n = 0;
    for (const char *p = text; p && (p = strstr(p, s)); p += strlen(s)) n++;
    return n;
}

/* Emits, checks the common shape, assembles; returns the text (or NULL). */
static char *compile(K *k, Tgt t, const char *what) {
    char *err;
    char *s = emit(k, &err);
    if (!s) {
        printf("%s (%s): unexpected error:\n%s", what, t.ptxas_arch, err);
        failures++;
        free(err);
        return NULL;
    }
    CHECK(has(s, ".address_size 64"));
    CHECK(has(s, ".file 1 \"kern.py\""));
    CHECK(!has(s, ".v8.b16"));
    if (getenv("PTXGEN_DUMP")) printf("==== %s (%s)\n%s", what, t.ptxas_arch, s);
    if (!ptxas_accepts(s, t.ptxas_arch, what)) failures++;
    return s;
}

static char *done(K *k, char *s) {
    ctx_free(k->ctx);
    return s;
}

/* ---- tests ---- */

/* out[i] = x[i] + y[i] for i < n, 16-byte accesses */
static char *test_vector_add(Tgt t) {
    K k = kernel_new("add_kernel", t, 4);
    ValId x = ir_param_add(k.fn, "x_ptr", ir_ptr(ET_F32), 16);
    ValId y = ir_param_add(k.fn, "y_ptr", ir_ptr(ET_F32), 16);
    ValId o = ir_param_add(k.fn, "out_ptr", ir_ptr(ET_F32), 16);
    ValId n = ir_param_add(k.fn, "n", ir_scalar(ET_I32), 1);
    Layout L = layout_default(1, (int32_t[]){1024}, 4, 4);
    ValId offs = block_offsets(&k, 1024, &L);
    ValId mask = cmp(&k, CMP_LT, offs, splat(&k, n, tile1(ir_scalar(ET_I32), 1024), &L), &L);
    ValId a = load(&k, ptrs(&k, x, offs, &L), mask, VAL_NONE, 4, &L);
    ValId b = load(&k, ptrs(&k, y, offs, &L), mask, VAL_NONE, 4, &L);
    store(&k, ptrs(&k, o, offs, &L), bin(&k, OP_ADD, a, b, &L), mask, 4);
    ret(&k);
    char *s = compile(&k, t, "vector_add");
    CHECK(has(s, ".visible .entry add_kernel("));
    CHECK(has(s, ".param .u64 x_ptr"));
    CHECK(has(s, ".param .u32 n"));
    CHECK(has(s, ".maxntid 128, 1, 1"));
    CHECK(has(s, t.arch_a ? ".version 8.0" : ".version 7.0"));
    CHECK(count(s, "ld.global.v4.b32") == 2 * 2);   /* 1024 / (128 threads * 4) = 2 groups */
    CHECK(count(s, "st.global.v4.b32") == 2);
    CHECK(!has(s, "\tld.global"));                 /* every load is predicated */
    CHECK(has(s, "mov.u32 %r") && has(s, "%ctaid.x"));
    CHECK(has(s, "add.f32"));
    CHECK(has(s, "mad.wide.s32"));
    CHECK(has(s, ".loc 1 2 5"));
    CHECK(has(s, "// load (line 2)"));
    CHECK(!has(s, "tric_smem"));
    return done(&k, s);
}

/* A mask constant in runs of 4 (n divisible by 16) is one compare per
 * vector, also where tl.where uses it; affine pointer tiles address every
 * vector from one 64-bit register plus an immediate (the others' addresses
 * are not computed). */
static char *test_constancy_affine(Tgt t) {
    K k = kernel_new("where_kernel", t, 4);
    ValId x = ir_param_add(k.fn, "x", ir_ptr(ET_F32), 16);
    ValId o = ir_param_add(k.fn, "o", ir_ptr(ET_F32), 16);
    ValId n = ir_param_add(k.fn, "n", ir_scalar(ET_I32), 16);
    Layout L = layout_default(1, (int32_t[]){2048}, 4, 4);
    IrType ft = tile1(ir_scalar(ET_F32), 2048);
    ValId offs = block_offsets(&k, 2048, &L);
    ValId mask = cmp(&k, CMP_LT, offs, splat(&k, n, tile1(ir_scalar(ET_I32), 2048), &L), &L);
    ValId a = load(&k, ptrs(&k, x, offs, &L), mask, VAL_NONE, 4, &L);
    ValId zero = tile_const(&k, ft, 0.0, &L);
    ValId ops[3] = {mask, a, zero};
    ValId w = lay(&k, ir_build(&k.b, OP_SELECT, ops, 3, &ft, 1, 0)->results[0], &L);
    store(&k, ptrs(&k, o, offs, &L), w, mask, 4);
    ret(&k);
    char *s = compile(&k, t, "constancy_affine");
    CHECK(count(s, "setp.lt.s32") == 4);      /* 16 registers, 4 vectors */
    CHECK(count(s, "selp.f32") == 16);
    CHECK(count(s, "mad.wide.s32") == 2);     /* one address per pointer tile */
    CHECK(has(s, "[%rd") && has(s, "+2048]") && has(s, "+6144]"));
    return done(&k, s);
}

/* f16 with vec 8: 16-byte words, unpacked into halves; exp goes through f32 */
static char *test_f16_vec8(Tgt t) {
    K k = kernel_new("half_kernel", t, 4);
    ValId x = ir_param_add(k.fn, "x", ir_ptr(ET_F16), 16);
    ValId o = ir_param_add(k.fn, "o", ir_ptr(ET_F16), 16);
    ValId n = ir_param_add(k.fn, "n", ir_scalar(ET_I32), 1);
    Layout L = layout_default(1, (int32_t[]){2048}, 8, 4);
    ValId offs = block_offsets(&k, 2048, &L);
    ValId mask = cmp(&k, CMP_LT, offs, splat(&k, n, tile1(ir_scalar(ET_I32), 2048), &L), &L);
    ValId other = tile_const(&k, tile1(ir_scalar(ET_F16), 2048), -1.5, &L);
    ValId a = load(&k, ptrs(&k, x, offs, &L), mask, other, 8, &L);
    ValId e = lay(&k, ir_build1(&k.b, OP_EXP, ir_type(k.fn, a), a), &L);
    ValId s2 = bin(&k, OP_MUL, e, a, &L);
    store(&k, ptrs(&k, o, offs, &L), s2, mask, 8);
    ret(&k);
    char *s = compile(&k, t, "f16_vec8");
    CHECK(count(s, "ld.global.v4.b32") == 2);
    CHECK(count(s, "st.global.v4.b32") == 2);
    CHECK(has(s, "mov.b32 {%h"));          /* unpack */
    CHECK(has(s, "mov.b16 %h") && has(s, "0xBE00"));   /* other = -1.5 */
    CHECK(has(s, "0xBE00BE00"));           /* masked-off halves take other: packed into the words */
    CHECK(!has(s, "@!%p"));                /* so no per-half fill follows the load */
    CHECK(has(s, "cvt.f32.f16"));
    CHECK(has(s, "ex2.approx.f32"));
    CHECK(has(s, "cvt.rn.f16.f32"));
    CHECK(has(s, "mul.f16"));
    return done(&k, s);
}

/* i8 with vec 16 (bytes extracted from words), and vec 2 / vec 1 sub-word
 * accesses; i8 arithmetic re-extends to 8 bits */
static char *test_i8(Tgt t) {
    K k = kernel_new("byte_kernel", t, 2);
    ValId x = ir_param_add(k.fn, "x", ir_ptr(ET_I8), 16);
    ValId o = ir_param_add(k.fn, "o", ir_ptr(ET_I8), 16);
    ValId u = ir_param_add(k.fn, "u", ir_ptr(ET_U8), 16);
    ValId n = ir_param_add(k.fn, "n", ir_scalar(ET_I32), 1);
    Layout L = layout_default(1, (int32_t[]){1024}, 16, 2);
    ValId offs = block_offsets(&k, 1024, &L);
    ValId mask = cmp(&k, CMP_LT, offs, splat(&k, n, tile1(ir_scalar(ET_I32), 1024), &L), &L);
    ValId other = tile_const(&k, tile1(ir_scalar(ET_I8), 1024), -3, &L);
    ValId a = load(&k, ptrs(&k, x, offs, &L), mask, other, 16, &L);
    ValId s2 = bin(&k, OP_ADD, a, a, &L);
    store(&k, ptrs(&k, o, offs, &L), s2, mask, 16);
    ValId b = load(&k, ptrs(&k, u, offs, &L), mask, VAL_NONE, 2, &L);
    store(&k, ptrs(&k, u, offs, &L), bin(&k, OP_MUL, b, b, &L), VAL_NONE, 1);
    ret(&k);
    char *s = compile(&k, t, "i8");
    CHECK(count(s, "ld.global.v4.b32") == 1);
    CHECK(count(s, "st.global.v4.b32") == 1);
    CHECK(has(s, "bfe.s32"));
    CHECK(has(s, "prmt.b32"));
    CHECK(has(s, "cvt.s16.s8"));          /* i8 add re-extends */
    CHECK(has(s, "ld.global.v2.u8"));
    CHECK(has(s, "cvt.u16.u8"));
    CHECK(count(s, "st.global.u8") == 16);
    return done(&k, s);
}

/* an i1 tile stored as bytes, a replicated layout stored once, a scalar
 * store by one thread */
static char *test_i1_store(Tgt t) {
    K k = kernel_new("bool_kernel", t, 4);
    ValId o = ir_param_add(k.fn, "o", ir_ptr(ET_I1), 16);
    ValId o2 = ir_param_add(k.fn, "o2", ir_ptr(ET_I1), 16);
    ValId os = ir_param_add(k.fn, "os", ir_ptr(ET_I32), 16);
    ValId n = ir_param_add(k.fn, "n", ir_scalar(ET_I32), 1);
    Layout L = layout_default(1, (int32_t[]){512}, 4, 4);
    ValId offs = block_offsets(&k, 512, &L);
    ValId m = cmp(&k, CMP_LT, offs, splat(&k, n, tile1(ir_scalar(ET_I32), 512), &L), &L);
    store(&k, ptrs(&k, o, offs, &L), m, VAL_NONE, 4);
    /* 64 elements over 128 threads: lanes/warps replicate */
    Layout R = layout_default(1, (int32_t[]){64}, 1, 4);
    ValId offs2 = arange(&k, 64, &R);
    ValId m2 = cmp(&k, CMP_NE, offs2, splat(&k, n, tile1(ir_scalar(ET_I32), 64), &R), &R);
    store(&k, ptrs(&k, o2, offs2, &R), m2, VAL_NONE, 1);
    store(&k, os, n, VAL_NONE, 0);
    ret(&k);
    char *s = compile(&k, t, "i1_store");
    CHECK(has(s, "selp.b32"));            /* bool -> byte, packed */
    CHECK(count(s, "st.global.b32") == 2);   /* 4 bools as one word, scalar i32 */
    CHECK(has(s, "st.global.u8"));
    CHECK(has(s, "setp.eq.u32"));         /* owner / thread 0 predicates */
    CHECK(has(s, "and.b32") && has(s, ", 0x40;")); /* warps 2,3 replicate warps 0,1 */
    return done(&k, s);
}

/* masked i1 loads, f64 and i64 (vec 2 = .v2.b64), u16 vec 4, cache modifiers */
static char *test_load_kinds(Tgt t) {
    K k = kernel_new("load_kinds", t, 4);
    ValId pb = ir_param_add(k.fn, "pb", ir_ptr(ET_I1), 16);
    ValId pd = ir_param_add(k.fn, "pd", ir_ptr(ET_F64), 16);
    ValId pl = ir_param_add(k.fn, "pl", ir_ptr(ET_I64), 16);
    ValId ph = ir_param_add(k.fn, "ph", ir_ptr(ET_U16), 16);
    ValId ps = ir_param_add(k.fn, "ps", ir_ptr(ET_F32), 16);
    Layout L4 = layout_default(1, (int32_t[]){512}, 4, 4), L2 = layout_default(1, (int32_t[]){256}, 2, 4);
    ValId offs = block_offsets(&k, 512, &L4);
    ValId m = load(&k, ptrs(&k, pb, offs, &L4), VAL_NONE, VAL_NONE, 4, &L4);
    ValId m1 = load(&k, ptrs(&k, pb, offs, &L4), m, tile_const(&k, tile1(ir_scalar(ET_I1), 512), 1, &L4), 1, &L4);
    ValId h = load(&k, ptrs(&k, ph, offs, &L4), m1, VAL_NONE, 4, &L4);
    k.fn->vals[h].def->attr.i = CACHE_CG;
    IrOp *sh = store(&k, ptrs(&k, ph, offs, &L4), h, m1, 4);
    sh->attr.i = CACHE_CS;
    sh->attr.i2 = EVICT_FIRST;   /* with a cache operator: L2's priority only */
    ValId offs2 = block_offsets(&k, 256, &L2);
    ValId d = load(&k, ptrs(&k, pd, offs2, &L2), VAL_NONE, VAL_NONE, 2, &L2);
    k.fn->vals[d].def->attr.flags = LOADF_VOLATILE;
    ValId l = load(&k, ptrs(&k, pl, offs2, &L2), VAL_NONE, VAL_NONE, 2, &L2);
    k.fn->vals[l].def->attr.i2 = EVICT_LAST;
    store(&k, ptrs(&k, pd, offs2, &L2), bin(&k, OP_ADD, d, cast(&k, l, ET_F64, &L2), &L2), VAL_NONE, 2);
    ValId sc = load(&k, ps, VAL_NONE, VAL_NONE, 0, NULL);   /* scalar */
    store(&k, ps, bin(&k, OP_MUL, sc, sc, NULL), VAL_NONE, 0);
    ret(&k);
    char *s = compile(&k, t, "load_kinds");
    CHECK(has(s, "ld.global.b32"));      /* 4 bools in one word */
    CHECK(has(s, "setp.ne.b32"));
    CHECK(has(s, "ld.global.u8"));
    CHECK(has(s, "ld.global.cg.v2.b32"));
    CHECK(has(s, "ld.volatile.global.v2.b64"));
    /* eviction policies as Triton emits them: L1's priority and L2's through
     * one createpolicy register per priority, in the prologue */
    CHECK(count(s, "createpolicy.fractional.L2::evict_last.b64 %rd") == 1);
    CHECK(count(s, "createpolicy.fractional.L2::evict_first.b64 %rd") == 1);
    CHECK(has(s, "ld.global.L1::evict_last.L2::cache_hint.v2.b64"));
    CHECK(has(s, "st.global.cs.L2::cache_hint.v2.b32"));
    CHECK(count(s, "], %rd") == 1);   /* the policy operand after the load's address */
    CHECK(count(s, "}, %rd") >= 1);   /* and after the store's values */
    CHECK(has(s, t.arch_a ? ".version 8.0" : ".version 7.4"));   /* eviction hints need 7.4 */
    CHECK(has(s, "st.global.v2.b64"));
    CHECK(has(s, "cvt.rn.f64.s64"));
    return done(&k, s);
}

/* acc and a swapped pair carried through a loop; a counting-down loop */
static char *test_for(Tgt t) {
    K k = kernel_new("loop_kernel", t, 4);
    ValId x = ir_param_add(k.fn, "x", ir_ptr(ET_F32), 16);
    ValId o = ir_param_add(k.fn, "o", ir_ptr(ET_F32), 16);
    ValId n = ir_param_add(k.fn, "n", ir_scalar(ET_I32), 1);
    Layout L = layout_default(1, (int32_t[]){512}, 4, 4);
    IrType tf = tile1(ir_scalar(ET_F32), 512), ti = tile1(ir_scalar(ET_I32), 512);
    ValId offs = arange(&k, 512, &L);
    ValId zero = tile_const(&k, tf, 0.0, &L), one = tile_const(&k, tf, 1.0, &L);
    ValId lb = ir_const_int(&k.b, ir_scalar(ET_I32), 0), st = ir_const_int(&k.b, ir_scalar(ET_I32), 1);
    ValId ops[] = {lb, n, st, zero, zero, one};
    IrOp *loop = ir_build(&k.b, OP_FOR, ops, 6, (IrType[]){tf, tf, tf}, 3, 1);
    for (int i = 0; i < 3; i++) lay(&k, loop->results[i], &L);
    IrBlock *body = loop->regions[0];
    ValId iv = ir_block_add_arg(k.fn, body, ir_scalar(ET_I32));
    ValId acc = lay(&k, ir_block_add_arg(k.fn, body, tf), &L);
    ValId p = lay(&k, ir_block_add_arg(k.fn, body, tf), &L);
    ValId q = lay(&k, ir_block_add_arg(k.fn, body, tf), &L);
    IrBuilder saved = k.b;
    k.b.block = body;
    ValId base = ir_build2(&k.b, OP_MUL, ir_scalar(ET_I32), iv, ir_const_int(&k.b, ir_scalar(ET_I32), 512));
    ValId idx = bin(&k, OP_ADD, splat(&k, base, ti, &L), offs, &L);
    ValId v = load(&k, ptrs(&k, x, idx, &L), VAL_NONE, VAL_NONE, 4, &L);
    ValId acc2 = bin(&k, OP_ADD, acc, bin(&k, OP_MUL, v, p, &L), &L);
    ir_build(&k.b, OP_YIELD, (ValId[]){acc2, q, p}, 3, NULL, 0, 0);   /* swap p and q */
    k.b = saved;
    ValId r = bin(&k, OP_ADD, loop->results[0], loop->results[1], &L);
    /* for i in range(n, 0, -1) with a scalar carried */
    ValId m1 = ir_const_int(&k.b, ir_scalar(ET_I32), -1), z = ir_const_int(&k.b, ir_scalar(ET_I32), 0);
    IrOp *down = ir_build(&k.b, OP_FOR, (ValId[]){n, z, m1, z}, 4, (IrType[]){ir_scalar(ET_I32)}, 1, 1);
    ValId iv2 = ir_block_add_arg(k.fn, down->regions[0], ir_scalar(ET_I32));
    ValId sum = ir_block_add_arg(k.fn, down->regions[0], ir_scalar(ET_I32));
    k.b.block = down->regions[0];
    ValId sum2 = bin(&k, OP_ADD, sum, iv2, NULL);
    ir_build(&k.b, OP_YIELD, &sum2, 1, NULL, 0, 0);
    k.b = saved;
    ValId rs = bin(&k, OP_ADD, r, splat(&k, cast(&k, down->results[0], ET_F32, NULL), tf, &L), &L);
    store(&k, ptrs(&k, o, offs, &L), rs, VAL_NONE, 4);
    ret(&k);
    char *s = compile(&k, t, "for");
    CHECK(has(s, "$L_for_0:") && has(s, "$L_end_0:") && has(s, "bra $L_for_0;"));
    CHECK(has(s, "setp.ge.s32"));
    CHECK(has(s, "setp.le.s32"));         /* constant negative step */
    CHECK(has(s, "ld.global.v4.b32"));
    CHECK(has(s, "// yield"));
    return done(&k, s);
}

/* if with results, and while (x < n: x *= 2) */
static char *test_if_while(Tgt t) {
    K k = kernel_new("branchy", t, 1);
    ValId o = ir_param_add(k.fn, "o", ir_ptr(ET_I32), 16);
    ValId n = ir_param_add(k.fn, "n", ir_scalar(ET_I32), 1);
    Layout L = layout_default(1, (int32_t[]){32}, 1, 1);
    IrType ti = tile1(ir_scalar(ET_I32), 32);
    ValId offs = arange(&k, 32, &L);
    ValId pid = op_attr(&k, OP_PROGRAM_ID, ir_scalar(ET_I32), 0);
    ValId c = cmp(&k, CMP_EQ, pid, ir_const_int(&k.b, ir_scalar(ET_I32), 0), NULL);
    IrOp *iff = ir_build(&k.b, OP_IF, &c, 1, &ti, 1, 2);
    lay(&k, iff->results[0], &L);
    IrBuilder saved = k.b;
    k.b.block = iff->regions[0];
    ValId th = bin(&k, OP_ADD, offs, tile_const(&k, ti, 1, &L), &L);
    ir_build(&k.b, OP_YIELD, &th, 1, NULL, 0, 0);
    k.b.block = iff->regions[1];
    ValId el = bin(&k, OP_MUL, offs, tile_const(&k, ti, 2, &L), &L);
    ir_build(&k.b, OP_YIELD, &el, 1, NULL, 0, 0);
    k.b = saved;
    ValId one = ir_const_int(&k.b, ir_scalar(ET_I32), 1);
    IrOp *wh = ir_build(&k.b, OP_WHILE, &one, 1, (IrType[]){ir_scalar(ET_I32)}, 1, 2);
    ValId xb = ir_block_add_arg(k.fn, wh->regions[0], ir_scalar(ET_I32));
    ValId xa = ir_block_add_arg(k.fn, wh->regions[1], ir_scalar(ET_I32));
    k.b.block = wh->regions[0];
    ValId cond = cmp(&k, CMP_LT, xb, n, NULL);
    ir_build(&k.b, OP_CONDITION, (ValId[]){cond, xb}, 2, NULL, 0, 0);
    k.b.block = wh->regions[1];
    ValId x2 = bin(&k, OP_MUL, xa, ir_const_int(&k.b, ir_scalar(ET_I32), 2), NULL);
    ir_build(&k.b, OP_YIELD, &x2, 1, NULL, 0, 0);
    k.b = saved;
    ValId r = bin(&k, OP_ADD, iff->results[0], splat(&k, wh->results[0], ti, &L), &L);
    store(&k, ptrs(&k, o, offs, &L), r, VAL_NONE, 1);
    ret(&k);
    char *s = compile(&k, t, "if_while");
    CHECK(has(s, "@!%p") && has(s, "bra $L_else_0;") && has(s, "$L_endif_0:"));
    CHECK(has(s, "$L_while_1:") && has(s, "bra $L_wend_1;"));
    CHECK(has(s, ".maxntid 32, 1, 1"));
    return done(&k, s);
}

/* 64x64 f32: loaded row-fast, converted to column-fast through shared
 * memory; and a convert that only reorders registers */
static char *test_convert(Tgt t) {
    K k = kernel_new("transpose_like", t, 4);
    ValId x = ir_param_add(k.fn, "x", ir_ptr(ET_F32), 16);
    ValId o = ir_param_add(k.fn, "o", ir_ptr(ET_F32), 16);
    int32_t shape[2] = {64, 64};
    Layout A = layout_blocked(2, shape, (int32_t[]){1, 4}, (int32_t[]){2, 16}, (int32_t[]){4, 1},
                              (int32_t[]){1, 0}, 4);
    Layout B = layout_blocked(2, shape, (int32_t[]){4, 1}, (int32_t[]){16, 2}, (int32_t[]){1, 4},
                              (int32_t[]){0, 1}, 4);
    /* offsets r*64 + c built in layout A */
    Layout A0 = layout_project(&A, (int32_t[]){64, 1}), A1 = layout_project(&A, (int32_t[]){1, 64});
    Layout A0d = layout_drop_dim(&A0, 1), A1d = layout_drop_dim(&A1, 0);
    IrType t2 = tile_of(ir_scalar(ET_I32), 2, shape);
    ValId rows = lay(&k, ir_build1(&k.b, OP_EXPAND_DIMS, tile_of(ir_scalar(ET_I32), 2, (int32_t[]){64, 1}),
                                   arange(&k, 64, &A0d)), &A0);
    k.fn->vals[rows].def->attr.i = 1;
    ValId cols = lay(&k, ir_build1(&k.b, OP_EXPAND_DIMS, tile_of(ir_scalar(ET_I32), 2, (int32_t[]){1, 64}),
                                   arange(&k, 64, &A1d)), &A1);
    k.fn->vals[cols].def->attr.i = 0;
    ValId rb = lay(&k, ir_build1(&k.b, OP_BROADCAST, t2, rows), &A);
    ValId cb = lay(&k, ir_build1(&k.b, OP_BROADCAST, t2, cols), &A);
    ValId offs = bin(&k, OP_ADD, bin(&k, OP_MUL, rb, tile_const(&k, t2, 64, &A), &A), cb, &A);
    ValId v = load(&k, ptrs(&k, x, offs, &A), VAL_NONE, VAL_NONE, 4, &A);
    ValId vb = lay(&k, ir_build1(&k.b, OP_CONVERT_LAYOUT, ir_type(k.fn, v), v), &B);
    ValId ob = lay(&k, ir_build1(&k.b, OP_CONVERT_LAYOUT, t2, offs), &B);
    ValId m = cmp(&k, CMP_GT, vb, tile_const(&k, ir_type(k.fn, vb), 0.0, &B), &B);
    ValId ma = lay(&k, ir_build1(&k.b, OP_CONVERT_LAYOUT, ir_type(k.fn, m), m), &A);
    /* same elements per thread, registers in another order: a rename */
    Layout Ar = A;
    Ar.basis[LL_REG][0][1] = A.basis[LL_REG][1][1];
    Ar.basis[LL_REG][1][1] = A.basis[LL_REG][0][1];
    ValId vr = lay(&k, ir_build1(&k.b, OP_CONVERT_LAYOUT, ir_type(k.fn, v), v), &Ar);
    ValId vr2 = lay(&k, ir_build1(&k.b, OP_CONVERT_LAYOUT, ir_type(k.fn, v), vr), &A);
    store(&k, ptrs(&k, o, ob, &B), vb, VAL_NONE, 1);
    store(&k, ptrs(&k, o, offs, &A), vr2, ma, 4);
    ret(&k);
    char *s = compile(&k, t, "convert");
    CHECK(has(s, ".extern .shared .align 16 .b8 tric_smem[];"));
    CHECK(has(s, "mov.u32 %r") && has(s, "tric_smem;"));
    CHECK(count(s, "bar.sync 0;") == 3 * 2);     /* three shared-memory converts */
    /* A holds 4 consecutive columns per thread and could write v4 vectors,
     * but rows padded by 4 elements (to keep them aligned) leave B's reads
     * down columns 8-way conflicted: per warp v4 + pad 4 costs 8 * 4 + 32 * 8
     * wavefronts, scalar + pad 1 32 * 2 + 32 * 2 (unpadded: 32 * 4 + 32 * 16),
     * so the plan is scalar */
    CHECK(!has(s, "st.shared.v") && !has(s, "ld.shared.v"));
    CHECK(has(s, "st.shared.b32") && has(s, "ld.shared.b32"));
    CHECK(has(s, "st.shared.u8") && has(s, "ld.shared.u8"));
    CHECK(k.fn->shared_bytes == 64 * (64 + 1) * 4);
    CHECK(count(s, "st.global.v4.b32") == 8);   /* 4096 / 128 threads / 4 */
    return done(&k, s);
}

/* ---- convert_layout, run: the kernel's PTX runs on the PTX simulator
 * (sim/), every thread, barrier by barrier; each converted tile is stored
 * through offsets computed in its own layout, so a register holding the
 * wrong element leaves the wrong value in memory ---- */

/* r * 64 + c over a 64x64 i32 tile, computed in layout L itself */
static ValId offsets_64x64(K *k, const Layout *L) {
    int32_t shape[2] = {64, 64};
    Layout L0 = layout_project(L, (int32_t[]){64, 1}), L1 = layout_project(L, (int32_t[]){1, 64});
    Layout L0d = layout_drop_dim(&L0, 1), L1d = layout_drop_dim(&L1, 0);
    IrType t2 = tile_of(ir_scalar(ET_I32), 2, shape);
    ValId rows = lay(k, ir_build1(&k->b, OP_EXPAND_DIMS, tile_of(ir_scalar(ET_I32), 2, (int32_t[]){64, 1}),
                                  arange(k, 64, &L0d)), &L0);
    k->fn->vals[rows].def->attr.i = 1;
    ValId cols = lay(k, ir_build1(&k->b, OP_EXPAND_DIMS, tile_of(ir_scalar(ET_I32), 2, (int32_t[]){1, 64}),
                                  arange(k, 64, &L1d)), &L1);
    k->fn->vals[cols].def->attr.i = 0;
    ValId rb = lay(k, ir_build1(&k->b, OP_BROADCAST, t2, rows), L);
    ValId cb = lay(k, ir_build1(&k->b, OP_BROADCAST, t2, cols), L);
    return bin(k, OP_ADD, bin(k, OP_MUL, rb, tile_const(k, t2, 64, L), L), cb, L);
}

/* The tile r * 64 + c goes A -> B -> A -> C over shared memory: A <-> B
 * transposes the thread order (scalar accesses, padded rows), A -> C keeps
 * 4 consecutive columns per thread on both sides (v4 writes and reads).
 * ob, oa and oc are stored at their own offsets into three buffers. */
static void test_convert_run(Tgt t) {
    K k = kernel_new("convert_run", t, 4);
    ValId o[3];
    for (int i = 0; i < 3; i++) o[i] = ir_param_add(k.fn, i == 0 ? "ob" : i == 1 ? "oa" : "oc", ir_ptr(ET_I32), 16);
    int32_t shape[2] = {64, 64};
    Layout A = layout_blocked(2, shape, (int32_t[]){1, 4}, (int32_t[]){2, 16}, (int32_t[]){4, 1},
                              (int32_t[]){1, 0}, 4);
    Layout B = layout_blocked(2, shape, (int32_t[]){4, 1}, (int32_t[]){16, 2}, (int32_t[]){1, 4},
                              (int32_t[]){0, 1}, 4);
    Layout C = layout_blocked(2, shape, (int32_t[]){1, 4}, (int32_t[]){8, 4}, (int32_t[]){2, 2},
                              (int32_t[]){1, 0}, 4);
    IrType t2 = tile_of(ir_scalar(ET_I32), 2, shape);
    ValId offs = offsets_64x64(&k, &A);
    ValId ob = lay(&k, ir_build1(&k.b, OP_CONVERT_LAYOUT, t2, offs), &B);
    ValId oa = lay(&k, ir_build1(&k.b, OP_CONVERT_LAYOUT, t2, ob), &A);
    ValId oc = lay(&k, ir_build1(&k.b, OP_CONVERT_LAYOUT, t2, oa), &C);
    const Layout *ls[3] = {&B, &A, &C};
    ValId vs[3] = {ob, oa, oc};
    for (int i = 0; i < 3; i++) store(&k, ptrs(&k, o[i], offsets_64x64(&k, ls[i]), ls[i]), vs[i], VAL_NONE, 1);
    ret(&k);
    char *s = compile(&k, t, "convert_run");
    CHECK(count(s, "st.shared.v4.b32") == 8 && count(s, "ld.shared.v4.b32") == 8);   /* A -> C only */
    if (s) {
        static int32_t out[3][4096];
        memset(out, 0xEE, sizeof out);
        InterpBuffer bufs[3];
        uint64_t args[3];
        for (int i = 0; i < 3; i++) {
            bufs[i] = (InterpBuffer){out[i], sizeof out[i], i == 0 ? "ob" : i == 1 ? "oa" : "oc", ET_I32, false, false};
            args[i] = (uint64_t)(uintptr_t)out[i];
        }
        InterpLaunch l = {.grid = {1, 1, 1}, .args = args, .n_args = 3, .buffers = bufs, .n_buffers = 3};
        SimLaunch sl = {.ptx = s, .threads = 128, .shared_bytes = (uint32_t)k.fn->shared_bytes, .data = &l};
        Buf err = {0};
        bool ok = sim_run(&sl, &err);
        if (!ok) printf("convert_run (%s): the simulator cannot run the kernel:\n%s", t.ptxas_arch, buf_str(&err));
        CHECK(ok);
        int bad = 0;
        for (int i = 0; ok && i < 3; i++)
            for (int e = 0; e < 4096; e++)
                if (out[i][e] != e && bad++ < 3)
                    printf("convert_run (%s): after the convert to %s, element %d is %d\n", t.ptxas_arch,
                           i == 0 ? "B" : i == 1 ? "A" : "C", e, out[i][e]);
        CHECK(bad == 0);
        buf_free(&err);
    }
    free(done(&k, s));
}

/* arange broadcast in 2-D: o[r, c] = r * 64 + c, with a 2-warp layout */
static char *test_arange_2d(Tgt t) {
    K k = kernel_new("arange2d", t, 2);
    ValId o = ir_param_add(k.fn, "o", ir_ptr(ET_I32), 16);
    int32_t shape[2] = {32, 64};
    Layout L = layout_default(2, shape, 4, 2);
    Layout L0 = layout_project(&L, (int32_t[]){32, 1}), L1 = layout_project(&L, (int32_t[]){1, 64});
    Layout L0d = layout_drop_dim(&L0, 1), L1d = layout_drop_dim(&L1, 0);
    IrType t2 = tile_of(ir_scalar(ET_I32), 2, shape);
    ValId r = lay(&k, ir_build1(&k.b, OP_EXPAND_DIMS, tile_of(ir_scalar(ET_I32), 2, (int32_t[]){32, 1}),
                                arange(&k, 32, &L0d)), &L0);
    k.fn->vals[r].def->attr.i = 1;
    ValId c = lay(&k, ir_build1(&k.b, OP_EXPAND_DIMS, tile_of(ir_scalar(ET_I32), 2, (int32_t[]){1, 64}),
                                arange(&k, 64, &L1d)), &L1);
    k.fn->vals[c].def->attr.i = 0;
    ValId rb = lay(&k, ir_build1(&k.b, OP_BROADCAST, t2, r), &L);
    ValId cb = lay(&k, ir_build1(&k.b, OP_BROADCAST, t2, c), &L);
    ValId offs = bin(&k, OP_ADD, bin(&k, OP_MUL, rb, tile_const(&k, t2, 64, &L), &L), cb, &L);
    store(&k, ptrs(&k, o, offs, &L), offs, VAL_NONE, 4);
    ret(&k);
    char *s = compile(&k, t, "arange_2d");
    CHECK(!has(s, "tric_smem"));
    CHECK(!has(s, "bar.sync"));
    CHECK(count(s, "st.global.v4.b32") == 32 * 64 / 64 / 4);
    return done(&k, s);
}

/* ---- casts: every pair of types, scalar and tile ---- */

static const ElemType cast_types[] = {ET_I1, ET_I8, ET_I16, ET_I32, ET_I64, ET_U8, ET_U16,
                                      ET_U32, ET_U64, ET_F16, ET_BF16, ET_F32, ET_F64};

static char *test_casts(Tgt t) {
    K k = kernel_new("casts", t, 1);
    int nt = (int)ARRAY_LEN(cast_types);
    ValId in[ARRAY_LEN(cast_types)], out[ARRAY_LEN(cast_types)];
    for (int i = 0; i < nt; i++) {
        in[i] = ir_param_add(k.fn, arena_printf(k.ctx->arena, "in_%s", elem_name(cast_types[i])),
                             ir_scalar(cast_types[i]), 1);
        out[i] = ir_param_add(k.fn, arena_printf(k.ctx->arena, "out_%s", elem_name(cast_types[i])),
                              ir_ptr(cast_types[i]), 16);
    }
    Layout L = layout_default(1, (int32_t[]){64}, 2, 1);
    ValId offs = arange(&k, 64, &L);
    for (int i = 0; i < nt; i++)
        for (int j = 0; j < nt; j++) {
            ValId v = cast(&k, in[i], cast_types[j], NULL);
            if (elem_is_float(cast_types[i]) && elem_is_float(cast_types[j]))
                k.fn->vals[v].def->attr.i = (i + j) % 2 ? ROUND_RTZ : ROUND_DEFAULT;
            /* out_T[i] = (T)in_S; out_T[16 + 64 i + k] = (T)(S)k */
            ValId slot = ir_const_int(&k.b, ir_scalar(ET_I32), i);
            store(&k, ir_build2(&k.b, OP_ADDPTR, ir_type(k.fn, out[j]), out[j], slot), v, VAL_NONE, 0);
            ValId src = cast(&k, offs, cast_types[i], &L);
            ValId tv = cast(&k, src, cast_types[j], &L);
            ValId toff = bin(&k, OP_ADD, offs, tile_const(&k, tile1(ir_scalar(ET_I32), 64), 16 + 64 * i, &L), &L);
            store(&k, ptrs(&k, out[j], toff, &L), tv, VAL_NONE, 2);
        }
    ValId p64 = cast(&k, cast(&k, out[0], ET_I64, NULL), ET_PTR, NULL);
    k.fn->vals[p64].type = ir_ptr(ET_I1);
    store(&k, p64, in[0], VAL_NONE, 0);
    ret(&k);
    char *s = compile(&k, t, "casts");
    CHECK(has(s, "cvt.rzi.s32.f32"));
    CHECK(has(s, "cvt.rn.f32.s32"));
    CHECK(has(s, "cvt.s64.s32"));
    CHECK(has(s, "cvt.u64.u32"));
    CHECK(has(s, "cvt.rz.f16.f32"));
    CHECK(has(s, "setp.neu.f32"));
    CHECK(has(s, "selp.f32"));
    if (t.sm < 86) CHECK(has(s, "mov.b32 %f") && !has(s, "cvt.f32.bf16"));
    else CHECK(has(s, "cvt.f32.bf16"));
    if (t.sm < 90) CHECK(has(s, "cvt.rz.f32.f64") && !has(s, "bf16.f64"));
    else CHECK(has(s, "cvt.rn.bf16.f64"));
    return done(&k, s);
}

/* ---- elementwise ops: every op for every type it supports ---- */

typedef struct EwOp {
    Opcode opc;
    int64_t attr;
    int arity;   /* 1, 2; 3 = select; 4 = cmp */
} EwOp;

static const EwOp ew_ops[] = {
    {OP_ADD, 0, 2}, {OP_SUB, 0, 2}, {OP_MUL, 0, 2}, {OP_DIV, 0, 2}, {OP_REM, 0, 2},
    {OP_AND, 0, 2}, {OP_OR, 0, 2}, {OP_XOR, 0, 2}, {OP_SHL, 0, 2}, {OP_SHR, 0, 2},
    {OP_MIN, 0, 2}, {OP_MAX, 0, 2}, {OP_MIN, 1, 2}, {OP_MAX, 1, 2},
    {OP_NEG, 0, 1}, {OP_NOT, 0, 1}, {OP_ABS, 0, 1}, {OP_EXP, 0, 1}, {OP_EXP2, 0, 1},
    {OP_LOG, 0, 1}, {OP_LOG2, 0, 1}, {OP_SQRT, 0, 1}, {OP_RSQRT, 0, 1},
    {OP_CMP, CMP_EQ, 4}, {OP_CMP, CMP_NE, 4}, {OP_CMP, CMP_LT, 4}, {OP_CMP, CMP_LE, 4},
    {OP_CMP, CMP_GT, 4}, {OP_CMP, CMP_GE, 4}, {OP_SELECT, 0, 3},
};

/* What tric promises: the test fails if an op x type is missing or if one
 * that should be refused is emitted. */
static bool ew_expected(Opcode opc, ElemType e) {
    bool f = elem_is_float(e), b = e == ET_I1, i = elem_is_int(e) && !b;
    switch (opc) {
    case OP_ADD: case OP_SUB: case OP_MUL: return i || f || b;   /* i1: modulo 2 */
    case OP_DIV: case OP_REM:
    case OP_MIN: case OP_MAX: case OP_NEG: case OP_ABS: return i || f;
    case OP_AND: case OP_OR: case OP_XOR: case OP_NOT: return i || b;
    case OP_SHL: case OP_SHR: return i;
    case OP_EXP: case OP_EXP2: case OP_LOG: case OP_LOG2:   /* f64: ir/mathfn_op.c's programs */
    case OP_SQRT: case OP_RSQRT: return f;
    case OP_CMP: case OP_SELECT: return true;
    default: return false;
    }
}

/* Builds op(a, b) on tiles of e where a, b are casts of aranges; stores it. */
static void build_ew(K *k, const EwOp *w, ElemType e, ValId out_e, ValId out_b, const Layout *L, int slot) {
    IrType te = tile1(ir_scalar(e), 64);
    ValId ar = arange(k, 64, L);
    ValId a = cast(k, ar, e, L);
    ValId b = cast(k, bin(k, OP_ADD, ar, tile_const(k, tile1(ir_scalar(ET_I32), 64), 3, L), L), e, L);
    ValId r;
    if (w->arity == 4) {
        r = cmp(k, (CmpPred)w->attr, a, b, L);
    } else if (w->arity == 3) {
        ValId c = cmp(k, CMP_LT, ar, tile_const(k, tile1(ir_scalar(ET_I32), 64), 7, L), L);
        r = lay(k, ir_build3(&k->b, OP_SELECT, te, c, a, b), L);
    } else if (w->arity == 2) {
        r = bin(k, w->opc, a, b, L);
        k->fn->vals[r].def->attr.i = w->attr;
    } else {
        r = lay(k, ir_build1(&k->b, w->opc, te, a), L);
    }
    ValId offs = bin(k, OP_ADD, ar, tile_const(k, tile1(ir_scalar(ET_I32), 64), 64 * slot, L), L);
    bool is_bool = ir_type(k->fn, r).elem == ET_I1;
    store(k, ptrs(k, is_bool ? out_b : out_e, offs, L), r, VAL_NONE, 2);
}

static void test_elementwise(Tgt t) {
    Layout L = layout_default(1, (int32_t[]){64}, 2, 1);
    for (size_t ti = 0; ti < ARRAY_LEN(cast_types); ti++) {
        ElemType e = cast_types[ti];
        K all = kernel_new("elementwise", t, 1);
        ValId out_e = ir_param_add(all.fn, "out", ir_ptr(e), 16);
        ValId out_b = ir_param_add(all.fn, "out_bool", ir_ptr(ET_I1), 16);
        int slot = 0;
        for (size_t oi = 0; oi < ARRAY_LEN(ew_ops); oi++) {
            const EwOp *w = &ew_ops[oi];
            /* alone first: does it emit or refuse? */
            K one = kernel_new("one", t, 1);
            ValId oe = ir_param_add(one.fn, "out", ir_ptr(e), 16);
            ValId ob = ir_param_add(one.fn, "out_bool", ir_ptr(ET_I1), 16);
            build_ew(&one, w, e, oe, ob, &L, 0);
            ret(&one);
            char *err;
            char *s = emit(&one, &err);
            bool want = ew_expected(w->opc, e);
            if (!s != !want) {
                printf("%s on %s (%s): expected %s, got %s\n", ir_info(w->opc)->name, elem_name(e),
                       t.ptxas_arch, want ? "code" : "an error", s ? "code" : err);
                failures++;
            }
            if (err) {
                char want_msg[128];
                snprintf(want_msg, sizeof want_msg, "error: %s on %s is not supported yet",
                         ir_info(w->opc)->name, elem_triton_name(e));
                if (!strstr(err, want_msg)) {
                    printf("unexpected message for %s on %s:\n%s", ir_info(w->opc)->name, elem_name(e), err);
                    failures++;
                }
            }
            free(s);
            free(err);
            ctx_free(one.ctx);
            if (want) build_ew(&all, w, e, out_e, out_b, &L, slot++);
        }
        ret(&all);
        char what[64];
        snprintf(what, sizeof what, "elementwise %s", elem_name(e));
        free(done(&all, compile(&all, t, what)));
    }
}

/* Division and remainder by constants (ptxgen/divconst.c): every integer
 * type, divisors of each kind (1, -1, powers of two and their negatives,
 * magic numbers with and without fix-ups, MIN, MAX, huge unsigned) as
 * constant tiles and as splats of scalar constants, must become code
 * without div/rem and assemble; a zero divisor keeps the plain div/rem.
 * (test_divconst.c runs the sequences through the PTX interpreter.) */
static void test_divconst(Tgt t) {
    static const ElemType types[] = {ET_I8, ET_I16, ET_I32, ET_I64, ET_U8, ET_U16, ET_U32, ET_U64};
    static const int64_t divs[] = {1, -1, 2, -2, 3, -3, 7, 8, -16, 10, 641, 1000000007, 0x7FFF,
                                   INT32_MAX, INT64_MIN, INT64_MAX, -7, INT32_MIN, 0};
    Layout L = layout_default(1, (int32_t[]){64}, 2, 1);
    for (size_t ti = 0; ti < ARRAY_LEN(types); ti++) {
        ElemType e = types[ti];
        IrType te = tile1(ir_scalar(e), 64);
        K k = kernel_new("divconst", t, 1);
        ValId out = ir_param_add(k.fn, "out", ir_ptr(e), 16);
        ValId x = ir_param_add(k.fn, "x", ir_scalar(e), 0);
        ValId ar = arange(&k, 64, &L);
        ValId a = bin(&k, OP_ADD, cast(&k, ar, e, &L), splat(&k, x, te, &L), &L);
        int slot = 0;
        for (size_t di = 0; di < ARRAY_LEN(divs); di++) {
            for (int form = 0; form < 2; form++) {
                ValId c = form ? splat(&k, ir_const_int(&k.b, ir_scalar(e), divs[di]), te, &L)
                               : lay(&k, ir_const_int(&k.b, te, divs[di]), &L);
                for (int is_rem = 0; is_rem < 2; is_rem++) {
                    ValId r = bin(&k, is_rem ? OP_REM : OP_DIV, a, c, &L);
                    ValId offs = bin(&k, OP_ADD, ar, tile_const(&k, tile1(ir_scalar(ET_I32), 64), 64 * slot++, &L), &L);
                    store(&k, ptrs(&k, out, offs, &L), r, VAL_NONE, 1);
                }
            }
        }
        ret(&k);
        char what[64];
        snprintf(what, sizeof what, "divconst %s", elem_name(e));
        char *s = done(&k, compile(&k, t, what));
        const char *sg = elem_is_signed(e) ? "s" : "u";
        char div_ins[16], rem_ins[16];
        snprintf(div_ins, sizeof div_ins, "\tdiv.%s", sg);
        snprintf(rem_ins, sizeof rem_ins, "\trem.%s", sg);
        /* only zero divisors (0, and INT64_MIN cut to fewer bits) keep
         * div/rem: per form, one per register (64 elements on 32 lanes: 2) */
        int zeros = 0, bits = elem_bits(e);
        for (size_t di = 0; di < ARRAY_LEN(divs); di++)
            zeros += bits == 64 ? divs[di] == 0 : ((uint64_t)divs[di] & (((uint64_t)1 << bits) - 1)) == 0;
        CHECK(!s || count(s, div_ins) == zeros * 2 * 2);
        CHECK(!s || count(s, rem_ins) == zeros * 2 * 2);
        CHECK(!s || has(s, "mul.hi."));
        free(s);
    }
}

/* exact messages for refused input */
static void test_errors(void) {
    K k = kernel_new("bad", TGT_80, 4);
    ValId x = ir_param_add(k.fn, "x", ir_ptr(ET_F64), 16);
    ValId v = load(&k, x, VAL_NONE, VAL_NONE, 0, NULL);
    ValId e = ir_build1(&k.b, OP_NOT, ir_scalar(ET_F64), v);
    store(&k, x, e, VAL_NONE, 0);
    ret(&k);
    char *err;
    char *s = emit(&k, &err);
    CHECK(!s);
    CHECK(err && !strcmp(err, "kern.py:2:5: error: not on fp64 is not supported yet\nline two\n    ^\n"));
    free(err);
    ctx_free(k.ctx);

    K k2 = kernel_new("bad2", TGT_80, 4);
    ValId y = ir_param_add(k2.fn, "y", ir_ptr(ET_F32), 16);
    ValId w = load(&k2, y, VAL_NONE, VAL_NONE, 0, NULL);
    k2.fn->vals[w].def->attr.i = CACHE_WB;
    ret(&k2);
    s = emit(&k2, &err);
    CHECK(!s && err && strstr(err, "error: cache modifier '.wb' is not valid for a load"));
    free(err);
    ctx_free(k2.ctx);

    /* a tile without a layout is refused, not crashed on */
    K k3 = kernel_new("bad3", TGT_80, 4);
    IrOp *op = ir_build(&k3.b, OP_ARANGE, NULL, 0, (IrType[]){tile1(ir_scalar(ET_I32), 64)}, 1, 0);
    op->attr.i2 = 64;
    ret(&k3);
    s = emit(&k3, &err);
    CHECK(!s && err && strstr(err, "has no layout"));
    free(err);
    ctx_free(k3.ctx);

    /* without a bail point ptx_emit returns NULL and keeps the message */
    K k4 = kernel_new("bad4", (Tgt){75, false, "sm_75"}, 4);
    ret(&k4);
    CHECK(ptx_emit(k4.fn) == NULL);
    CHECK(k4.ctx->diag.data && strstr(k4.ctx->diag.data, "unsupported target sm_75"));
    ctx_free(k4.ctx);
}

/* a source path with a newline, quotes and a backslash stays one PTX
 * string (a raw newline would start a line of its own in the module) */
static void test_file_path(void) {
    K k = kernel_new("path", TGT_80, 4);
    k.b.loc.file = srcfile_from_string(k.ctx, "dir\nwith \"q\"\\k.py", "line one\nline two\n");
    ValId o = ir_param_add(k.fn, "o", ir_ptr(ET_F32), 16);
    store(&k, o, ir_const_float(&k.b, ir_scalar(ET_F32), 1.0), VAL_NONE, 0);
    ret(&k);
    char *err;
    char *s = emit(&k, &err);
    if (!has(s, ".file 1 \"dir\\012with \\042q\\042\\\\k.py\"\n")) {
        printf("file path: the .file line is wrong:\n%s", s ? s : err);
        failures++;
    }
    if (s && !ptxas_accepts(s, "sm_80", "file path")) failures++;
    free(s);
    free(err);
    ctx_free(k.ctx);
}

/* the same function gives the same text */
static void test_deterministic(void) {
    char *a = NULL, *b = NULL;
    for (int i = 0; i < 2; i++) {
        K k = kernel_new("det", TGT_90A, 4);
        ValId o = ir_param_add(k.fn, "o", ir_ptr(ET_F32), 16);
        Layout L = layout_default(1, (int32_t[]){256}, 4, 4);
        ValId offs = arange(&k, 256, &L);
        store(&k, ptrs(&k, o, offs, &L), cast(&k, offs, ET_F32, &L), VAL_NONE, 4);
        ret(&k);
        char *err;
        char *s = emit(&k, &err);
        CHECK(s);
        free(err);
        if (i == 0) a = s;
        else b = s;
        ctx_free(k.ctx);
    }
    CHECK(a && b && !strcmp(a, b));
    free(a);
    free(b);
}

/* ---- running the PTX on a GPU, when a driver is present ----
 * The driver is opened with dlopen, so this builds and passes everywhere;
 * with a GPU, kernels run against host references on known inputs. */

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

typedef struct Cu {
    void *lib;
    CUresult (*init)(unsigned);
    CUresult (*device_get)(int *, int);
    CUresult (*ctx_retain)(void **, int);
    CUresult (*ctx_set)(void *);
    CUresult (*load)(void **, const void *, unsigned, int *, void **);
    CUresult (*get_function)(void **, void *, const char *);
    CUresult (*unload)(void *);
    CUresult (*alloc)(CUdeviceptr *, size_t);
    CUresult (*free)(CUdeviceptr);
    CUresult (*htod)(CUdeviceptr, const void *, size_t);
    CUresult (*dtoh)(void *, CUdeviceptr, size_t);
    CUresult (*launch)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *,
                       void **, void **);
    CUresult (*sync)(void);
} Cu;

static bool cu_open(Cu *cu) {
    memset(cu, 0, sizeof *cu);
    if (getenv("PTXGEN_NO_GPU")) return false;
    cu->lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!cu->lib) return false;
    struct { void **fn; const char *name; } syms[] = {
        {(void **)&cu->init, "cuInit"}, {(void **)&cu->device_get, "cuDeviceGet"},
        {(void **)&cu->ctx_retain, "cuDevicePrimaryCtxRetain"}, {(void **)&cu->ctx_set, "cuCtxSetCurrent"},
        {(void **)&cu->load, "cuModuleLoadDataEx"}, {(void **)&cu->get_function, "cuModuleGetFunction"},
        {(void **)&cu->unload, "cuModuleUnload"}, {(void **)&cu->alloc, "cuMemAlloc_v2"},
        {(void **)&cu->free, "cuMemFree_v2"}, {(void **)&cu->htod, "cuMemcpyHtoD_v2"},
        {(void **)&cu->dtoh, "cuMemcpyDtoH_v2"}, {(void **)&cu->launch, "cuLaunchKernel"},
        {(void **)&cu->sync, "cuCtxSynchronize"},
    };
    for (size_t i = 0; i < ARRAY_LEN(syms); i++)
        if (!(*syms[i].fn = dlsym(cu->lib, syms[i].name))) return false;
    int dev;
    void *ctx;
    if (cu->init(0) || cu->device_get(&dev, 0) || cu->ctx_retain(&ctx, dev) || cu->ctx_set(ctx)) return false;
    return true;
}

static CUdeviceptr gpu_buf(Cu *cu, const void *init, size_t n) {
    CUdeviceptr p = 0;
    if (cu->alloc(&p, n)) return 0;
    cu->htod(p, init, n);
    return p;
}

/* Loads ptx, launches `name` on grid x threads; false (and a message) on error. */
static bool gpu_run(Cu *cu, const char *ptx, const char *name, int grid, int threads, int smem, void **args) {
    char log[8192] = "";
    int opts[2] = {5, 6};   /* CU_JIT_ERROR_LOG_BUFFER, _SIZE_BYTES */
    void *vals[2] = {log, (void *)(uintptr_t)sizeof log};
    void *mod, *fn;
    CUresult rc = cu->load(&mod, ptx, 2, opts, vals);
    if (rc) {
        printf("gpu %s: module load failed (%d): %s\n", name, rc, log);
        return false;
    }
    if ((rc = cu->get_function(&fn, mod, name)) ||
        (rc = cu->launch(fn, (unsigned)grid, 1, 1, (unsigned)threads, 1, 1, (unsigned)smem, NULL, args, NULL)) ||
        (rc = cu->sync())) {
        printf("gpu %s: launch failed (%d)\n", name, rc);
        cu->unload(mod);
        return false;
    }
    cu->unload(mod);
    return true;
}

#define GPU_CHECK(cond, ...)                                                       \
    do {                                                                           \
        if (!(cond)) {                                                             \
            printf(__VA_ARGS__);                                                   \
            failures++;                                                            \
            goto out;                                                              \
        }                                                                          \
    } while (0)

static void gpu_vector_add(Cu *cu, const char *ptx) {
    enum { N = 1500, CAP = 2048 };
    static float x[CAP], y[CAP], o[CAP];
    for (int i = 0; i < CAP; i++) x[i] = (float)i * 0.5f, y[i] = 1.0f - (float)i, o[i] = -7.0f;
    CUdeviceptr dx = gpu_buf(cu, x, sizeof x), dy = gpu_buf(cu, y, sizeof y), d_o = gpu_buf(cu, o, sizeof o);
    int n = N;
    void *args[] = {&dx, &dy, &d_o, &n};
    if (!gpu_run(cu, ptx, "add_kernel", 2, 128, 0, args)) failures++;
    cu->dtoh(o, d_o, sizeof o);
    for (int i = 0; i < CAP; i++)
        GPU_CHECK(o[i] == (i < N ? x[i] + y[i] : -7.0f), "gpu vector_add: o[%d] = %g\n", i, o[i]);
out:
    cu->free(dx), cu->free(dy), cu->free(d_o);
}

static void gpu_i8(Cu *cu, const char *ptx) {
    enum { N = 992, CAP = 1024 };   /* vec 16 needs n % 16 == 0 (one mask per vector) */
    static int8_t x[CAP], o[CAP];
    static uint8_t u[CAP], u0[CAP];
    for (int i = 0; i < CAP; i++) x[i] = (int8_t)(i * 37), o[i] = 5, u[i] = u0[i] = (uint8_t)(i * 11);
    CUdeviceptr dx = gpu_buf(cu, x, CAP), d_o = gpu_buf(cu, o, CAP), du = gpu_buf(cu, u, CAP);
    int n = N;
    void *args[] = {&dx, &d_o, &du, &n};
    if (!gpu_run(cu, ptx, "byte_kernel", 1, 64, 0, args)) failures++;
    cu->dtoh(o, d_o, CAP);
    cu->dtoh(u, du, CAP);
    for (int i = 0; i < CAP; i++) {
        GPU_CHECK(o[i] == (i < N ? (int8_t)(x[i] + x[i]) : 5), "gpu i8: o[%d] = %d\n", i, o[i]);
        uint8_t want = i < N ? (uint8_t)(u0[i] * u0[i]) : (uint8_t)(0 * 0);   /* masked-off b loads 0 */
        GPU_CHECK(u[i] == want, "gpu u8: u[%d] = %d, want %d\n", i, u[i], want);
    }
out:
    cu->free(dx), cu->free(d_o), cu->free(du);
}

static void gpu_f16(Cu *cu, const char *ptx) {
    enum { N = 2000, CAP = 4096 };   /* two programs, the second partly masked */
    static _Float16 x[CAP], o[CAP];
    for (int i = 0; i < CAP; i++) x[i] = (_Float16)((float)(i % 50) / 16.0f - 1.0f), o[i] = (_Float16)7.0f;
    CUdeviceptr dx = gpu_buf(cu, x, sizeof x), d_o = gpu_buf(cu, o, sizeof o);
    int n = N;
    void *args[] = {&dx, &d_o, &n};
    if (!gpu_run(cu, ptx, "half_kernel", 2, 128, 0, args)) failures++;
    cu->dtoh(o, d_o, sizeof o);
    for (int i = 0; i < CAP; i++) {
        float a = (float)x[i], want = i < N ? (float)((_Float16)(float)(_Float16)expf(a) * a) : 7.0f;
        GPU_CHECK(fabsf((float)o[i] - want) <= 2e-3f * fabsf(want) + 1e-4f, "gpu f16: o[%d] = %g, want %g\n", i,
                  (double)(float)o[i], (double)want);
    }
out:
    cu->free(dx), cu->free(d_o);
}

static void gpu_i1(Cu *cu, const char *ptx) {
    enum { N = 300 };
    static uint8_t o[512], o2[64];
    int32_t os = -1;
    memset(o, 9, sizeof o);
    memset(o2, 9, sizeof o2);
    CUdeviceptr d_o = gpu_buf(cu, o, sizeof o), d_o2 = gpu_buf(cu, o2, sizeof o2), dos = gpu_buf(cu, &os, 4);
    int n = N;
    void *args[] = {&d_o, &d_o2, &dos, &n};
    if (!gpu_run(cu, ptx, "bool_kernel", 1, 128, 0, args)) failures++;
    cu->dtoh(o, d_o, sizeof o);
    cu->dtoh(o2, d_o2, sizeof o2);
    cu->dtoh(&os, dos, 4);
    for (int i = 0; i < 512; i++) GPU_CHECK(o[i] == (i < N), "gpu i1: o[%d] = %d\n", i, o[i]);
    for (int i = 0; i < 64; i++) GPU_CHECK(o2[i] == (i != N), "gpu i1: o2[%d] = %d\n", i, o2[i]);
    GPU_CHECK(os == N, "gpu i1: os = %d\n", os);
out:
    cu->free(d_o), cu->free(d_o2), cu->free(dos);
}

static void gpu_for(Cu *cu, const char *ptx) {
    enum { ITERS = 5 };
    static float x[512 * ITERS], o[512];
    for (int i = 0; i < 512 * ITERS; i++) x[i] = (float)(i % 97);
    CUdeviceptr dx = gpu_buf(cu, x, sizeof x), d_o = gpu_buf(cu, o, sizeof o);
    int n = ITERS;
    void *args[] = {&dx, &d_o, &n};
    if (!gpu_run(cu, ptx, "loop_kernel", 1, 128, 0, args)) failures++;
    cu->dtoh(o, d_o, sizeof o);
    for (int i = 0; i < 512; i++) {
        /* p, q start 0, 1 and swap each iteration: odd iterations count */
        float acc = 0;
        for (int it = 1; it < ITERS; it += 2) acc += x[it * 512 + i];
        float want = acc + (float)(ITERS % 2) + (float)(ITERS * (ITERS + 1) / 2);
        GPU_CHECK(o[i] == want, "gpu for: o[%d] = %g, want %g\n", i, o[i], want);
    }
out:
    cu->free(dx), cu->free(d_o);
}

static void gpu_if_while(Cu *cu, const char *ptx) {
    int32_t o[32];
    CUdeviceptr d_o = gpu_buf(cu, o, sizeof o);
    int n = 37;   /* while x < 37: x *= 2  ->  64 */
    void *args[] = {&d_o, &n};
    if (!gpu_run(cu, ptx, "branchy", 1, 32, 0, args)) failures++;
    cu->dtoh(o, d_o, sizeof o);
    for (int i = 0; i < 32; i++) GPU_CHECK(o[i] == i + 1 + 64, "gpu if/while: o[%d] = %d\n", i, o[i]);
out:
    cu->free(d_o);
}

static void gpu_convert(Cu *cu, const char *ptx, int smem) {
    static float x[4096], o[4096];
    for (int i = 0; i < 4096; i++) x[i] = (float)((i * 7919) % 4096) - 1000.0f, o[i] = 0;
    CUdeviceptr dx = gpu_buf(cu, x, sizeof x), d_o = gpu_buf(cu, o, sizeof o);
    void *args[] = {&dx, &d_o};
    if (!gpu_run(cu, ptx, "transpose_like", 1, 128, smem, args)) failures++;
    cu->dtoh(o, d_o, sizeof o);
    for (int i = 0; i < 4096; i++) GPU_CHECK(o[i] == x[i], "gpu convert: o[%d] = %g, want %g\n", i, o[i], x[i]);
out:
    cu->free(dx), cu->free(d_o);
}

static void gpu_arange_2d(Cu *cu, const char *ptx) {
    static int32_t o[2048];
    memset(o, 0xFF, sizeof o);
    CUdeviceptr d_o = gpu_buf(cu, o, sizeof o);
    void *args[] = {&d_o};
    if (!gpu_run(cu, ptx, "arange2d", 1, 64, 0, args)) failures++;
    cu->dtoh(o, d_o, sizeof o);
    for (int i = 0; i < 2048; i++) GPU_CHECK(o[i] == i, "gpu arange_2d: o[%d] = %d\n", i, o[i]);
out:
    cu->free(d_o);
}

/* ---- host reference for casts: values chosen so every defined
 * conversion is exact, so results compare bit for bit ---- */

typedef struct Val {
    bool is_float;
    double f;
    int64_t i;
} Val;

static uint64_t float_bits(ElemType t, double d) {
    float f = (float)d;
    uint32_t u;
    memcpy(&u, &f, 4);
    uint64_t u64;
    switch (t) {
    case ET_F64: memcpy(&u64, &d, 8); return u64;
    case ET_F32: return u;
    case ET_BF16: return u >> 16;
    default: {   /* f16, from the exact f32: rebias the exponent */
        if (f == 0) return (u >> 16) & 0x8000;
        uint32_t sign = (u >> 16) & 0x8000, ex = ((u >> 23) & 0xFF) - 127 + 15, man = (u >> 13) & 0x3FF;
        return sign | ex << 10 | man;
    }
    }
}

/* the expected bits of (t)v, or false when C leaves it undefined */
static bool cast_expect(Val v, ElemType t, uint64_t *bits) {
    if (t == ET_I1) {
        *bits = v.is_float ? v.f != 0 : v.i != 0;
        return true;
    }
    if (elem_is_float(t)) {
        *bits = float_bits(t, v.is_float ? v.f : (double)v.i);
        return true;
    }
    int64_t x = v.i;
    if (v.is_float) {
        double tr = trunc(v.f);
        if (!elem_is_signed(t) && tr < 0) return false;
        x = (int64_t)tr;
    }
    int b = elem_bits(t);
    *bits = b == 64 ? (uint64_t)x : (uint64_t)x & ((1ull << b) - 1);
    return true;
}

static Val source_value(ElemType s, int run) {
    Val v = {elem_is_float(s), 0, 0};
    if (v.is_float) v.f = run ? 100.5 : -3.75;
    else if (s == ET_I1) v.i = !run;
    else if (elem_is_signed(s)) v.i = run ? 100 : -3;
    else v.i = s == ET_U8 ? (run ? 96 : 160) : (run ? 40960 : 160);
    return v;
}

static uint64_t mem_bits(const uint8_t *p, int bytes) {
    uint64_t x = 0;
    for (int i = bytes - 1; i >= 0; i--) x = x << 8 | p[i];
    return x;
}

static void gpu_casts(Cu *cu, const char *ptx, const char *arch) {
    enum { NT = ARRAY_LEN(cast_types), SLOTS = 16 + 64 * NT };
    CUdeviceptr bufs[NT] = {0};
    uint8_t *host = malloc(SLOTS * 8);
    for (int run = 0; run < 2; run++) {
        uint64_t in[NT];
        void *args[2 * NT];
        for (int i = 0; i < NT; i++) {
            Val v = source_value(cast_types[i], run);
            in[i] = v.is_float ? float_bits(cast_types[i], v.f) : (uint64_t)v.i;
            memset(host, 0xAB, SLOTS * 8);
            if (!bufs[i]) bufs[i] = gpu_buf(cu, host, SLOTS * 8);
            args[2 * i] = &in[i];
            args[2 * i + 1] = &bufs[i];
        }
        if (!gpu_run(cu, ptx, "casts", 1, 32, 0, args)) {
            failures++;
            break;
        }
        for (int j = 0; j < NT; j++) {
            ElemType t = cast_types[j];
            int bytes = elem_bytes(t);
            cu->dtoh(host, bufs[j], SLOTS * (size_t)bytes);
            for (int i = 0; i < NT; i++) {
                ElemType s = cast_types[i];
                uint64_t want;
                if (cast_expect(source_value(s, run), t, &want) && mem_bits(host + i * bytes, bytes) != want) {
                    printf("gpu cast %s -> %s (%s, run %d): got 0x%llx, want 0x%llx\n", elem_name(s), elem_name(t),
                           arch, run, (unsigned long long)mem_bits(host + i * bytes, bytes), (unsigned long long)want);
                    failures++;
                }
                for (int k = 0; k < 64; k++) {   /* tile form: (t)(s)k */
                    Val src = {false, 0, s == ET_I1 ? k != 0 : k};
                    if (elem_is_float(s)) src = (Val){true, (double)k, 0};
                    const uint8_t *p = host + (size_t)(16 + 64 * i + k) * (size_t)bytes;
                    if (cast_expect(src, t, &want) && mem_bits(p, bytes) != want) {
                        printf("gpu tile cast %s -> %s (%s): [%d] got 0x%llx, want 0x%llx\n", elem_name(s),
                               elem_name(t), arch, k, (unsigned long long)mem_bits(p, bytes), (unsigned long long)want);
                        failures++;
                        break;
                    }
                }
            }
        }
    }
    for (int i = 0; i < NT; i++) cu->free(bufs[i]);
    free(host);
}

int main(void) {
    if (!ptxas_path()) printf("note: ptxas not found, PTX is checked but not assembled\n");
    Cu cu;
    bool gpu = cu_open(&cu);
    if (!gpu) printf("note: no CUDA driver, kernels are not run\n");
    Tgt two[] = {TGT_80, TGT_90A};
    for (int i = 0; i < 2; i++) {
        char *s;
        if ((s = test_vector_add(two[i])) && gpu) gpu_vector_add(&cu, s);
        free(s);
        if ((s = test_f16_vec8(two[i])) && gpu) gpu_f16(&cu, s);
        free(s);
        if ((s = test_i8(two[i])) && gpu) gpu_i8(&cu, s);
        free(s);
        if ((s = test_i1_store(two[i])) && gpu) gpu_i1(&cu, s);
        free(s);
        free(test_load_kinds(two[i]));
        free(test_constancy_affine(two[i]));
        if ((s = test_for(two[i])) && gpu) gpu_for(&cu, s);
        free(s);
        if ((s = test_if_while(two[i])) && gpu) gpu_if_while(&cu, s);
        free(s);
        if ((s = test_convert(two[i])) && gpu) gpu_convert(&cu, s, 64 * (64 + 1) * 4);
        free(s);
        if ((s = test_arange_2d(two[i])) && gpu) gpu_arange_2d(&cu, s);
        free(s);
        test_convert_run(two[i]);
    }
    for (size_t i = 0; i < ARRAY_LEN(all_targets); i++) {
        char *s = test_casts(all_targets[i]);
        /* the H100 runs sm_80 and sm_90a code: both bf16 strategies */
        if (s && gpu && (all_targets[i].sm == 80 || all_targets[i].arch_a)) gpu_casts(&cu, s, all_targets[i].ptxas_arch);
        free(s);
        test_elementwise(all_targets[i]);
    }
    test_divconst(TGT_80);
    test_divconst(TGT_90A);
    test_errors();
    test_deterministic();
    test_file_path();
    if (failures) printf("%d failure(s)\n", failures);
    return failures != 0;
}
