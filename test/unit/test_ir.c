/* IR text form, verifier and the generic passes (fold, cse, dce).
 * Prints every failed check; exit status 0 when all pass. */
#include "base/base.h"
#include "ir/ir.h"
#include "opt/opt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

static Ctx *new_ctx(void) {
    Target t = {.sm = 80, .num_warps = 4, .num_stages = 3};
    return ctx_new(&t);
}

static char *print_fn(IrFunc *fn) {
    Buf b = {0};
    ir_print(&b, fn);
    char *s = arena_strdup(fn->ctx->arena, b.data);
    buf_free(&b);
    return s;
}

/* Parses text; NULL on error (the message is in c->diag). */
static IrFunc *parse_str(Ctx *c, const char *text) {
    jmp_buf jb;
    c->bail = &jb;
    IrFunc *fn = NULL;
    if (setjmp(jb) == 0) fn = ir_parse(c, srcfile_from_string(c, "t.tir", text));
    c->bail = NULL;
    return fn;
}

/* print(parse(print(f))) == print(f) */
static void check_roundtrip(IrFunc *fn) {
    char *a = print_fn(fn);
    Ctx *c = new_ctx();
    IrFunc *g = parse_str(c, a);
    if (!g) {
        printf("round trip: parse failed:\n%s\non:\n%s", c->diag.data, a);
        failures++;
    } else {
        char *b = print_fn(g);
        if (strcmp(a, b) != 0) {
            printf("round trip differs:\n--- first\n%s--- second\n%s", a, b);
            failures++;
        }
    }
    ctx_free(c);
}

/* Parsing `text` fails with a first line equal to `want`. */
static void check_parse_error(const char *text, const char *want) {
    Ctx *c = new_ctx();
    IrFunc *fn = parse_str(c, text);
    const char *got = c->diag.data ? c->diag.data : "";
    size_t n = strcspn(got, "\n");
    if (fn || strlen(want) != n || strncmp(got, want, n) != 0) {
        printf("parse error: want \"%s\"\n              got \"%.*s\"\n", want, (int)n, got);
        failures++;
    }
    ctx_free(c);
}

/* ir_verify fails and its messages contain `want`. */
static void check_verify_fails(IrFunc *fn, const char *want) {
    Buf why = {0};
    bool ok = ir_verify(fn, &why);
    if (ok || !why.data || !strstr(why.data, want)) {
        printf("verify: want a message with \"%s\", got: %s\n", want, ok ? "(verified)" : why.data);
        failures++;
    }
    buf_free(&why);
}

static bool verifies(IrFunc *fn) {
    Buf why = {0};
    bool ok = ir_verify(fn, &why);
    if (!ok) printf("unexpected verify failure:\n%s", why.data);
    buf_free(&why);
    return ok;
}

/* ---- building a kernel with the builder ---- */

/* A kernel-like function with layouts and for/if/while, built with the
 * builder: it must verify and round-trip. */
static void test_builder_roundtrip(void) {
    Ctx *c = new_ctx();
    IrFunc *fn = ir_func_new(c, "kern");
    IrBuilder b = {fn, fn->body, NULL, {0}};
    ValId x = ir_param_add(fn, "x_ptr", ir_ptr(ET_F32), 16);
    ValId n = ir_param_add(fn, "n", ir_scalar(ET_I32), 1);
    int32_t shape[1] = {256};
    Layout l = layout_default(1, shape, 4, 4);
    int32_t li = ir_layout_intern(fn, &l);
    IrType ti = ir_tile(ir_scalar(ET_I32), 1, shape), tf = ir_tile(ir_scalar(ET_F32), 1, shape);
    IrType tp = ir_tile(ir_ptr(ET_F32), 1, shape), tb = ir_tile(ir_scalar(ET_I1), 1, shape);

    IrOp *pid_op = ir_build(&b, OP_PROGRAM_ID, NULL, 0, (IrType[]){ir_scalar(ET_I32)}, 1, 0);
    ValId pid = pid_op->results[0];
    IrOp *ar = ir_build(&b, OP_ARANGE, NULL, 0, &ti, 1, 0);
    ar->attr.i2 = 256;
    ValId offs = ar->results[0];
    ValId ns = ir_build1(&b, OP_SPLAT, ti, n);
    ValId mask = ir_build2(&b, OP_CMP, tb, offs, ns);
    fn->vals[mask].def->attr.i = CMP_LT;
    ValId ps = ir_build1(&b, OP_SPLAT, tp, x);
    ValId ptrs = ir_build2(&b, OP_ADDPTR, tp, ps, offs);
    ValId zero = ir_const_float(&b, tf, 0.0);
    ValId ld_ops[3] = {ptrs, mask, zero};
    IrOp *ld = ir_build(&b, OP_LOAD, ld_ops, 3, &tf, 1, 0);
    ld->attr.i = CACHE_CG;
    ValId v = ld->results[0];
    for (ValId id = 1; id < fn->n_vals; id++)
        if (fn->vals[id].type.rank) fn->vals[id].layout = li;

    /* for %i = 0 to n step 1 iter(acc = v) { acc + acc } */
    ValId c0 = ir_const_int(&b, ir_scalar(ET_I32), 0), c1 = ir_const_int(&b, ir_scalar(ET_I32), 1);
    ValId for_ops[4] = {c0, n, c1, v};
    IrType tf_l = tf;
    IrOp *loop = ir_build(&b, OP_FOR, for_ops, 4, &tf_l, 1, 1);
    fn->vals[loop->results[0]].layout = li;
    IrBlock *body = loop->regions[0];
    ValId iv = ir_block_add_arg(fn, body, ir_scalar(ET_I32));
    ValId acc = ir_block_add_arg(fn, body, tf);
    fn->vals[acc].layout = li;
    IrBuilder ib = {fn, body, NULL, {0}};
    ValId sum = ir_build2(&ib, OP_ADD, tf, acc, acc);
    fn->vals[sum].layout = li;
    /* if iv == pid -> (i32) { yield iv } else { yield pid } */
    ValId cond = ir_build2(&ib, OP_CMP, ir_scalar(ET_I1), iv, pid);
    IrType i32 = ir_scalar(ET_I32);
    IrOp *iff = ir_build(&ib, OP_IF, &cond, 1, &i32, 1, 2);
    IrBuilder tb_ = {fn, iff->regions[0], NULL, {0}}, eb = {fn, iff->regions[1], NULL, {0}};
    ir_build(&tb_, OP_YIELD, &iv, 1, NULL, 0, 0);
    ir_build(&eb, OP_YIELD, &pid, 1, NULL, 0, 0);
    ir_build(&ib, OP_YIELD, &sum, 1, NULL, 0, 0);
    ValId res = loop->results[0];

    /* while (w = pid) { condition w > 0, w } do (a) { yield a / 2 } */
    IrOp *wh = ir_build(&b, OP_WHILE, &pid, 1, &i32, 1, 2);
    ValId w = ir_block_add_arg(fn, wh->regions[0], i32);
    IrBuilder wb = {fn, wh->regions[0], NULL, {0}};
    ValId gt = ir_build2(&wb, OP_CMP, ir_scalar(ET_I1), w, c0);
    fn->vals[gt].def->attr.i = CMP_GT;
    ir_build(&wb, OP_CONDITION, (ValId[]){gt, w}, 2, NULL, 0, 0);
    ValId a = ir_block_add_arg(fn, wh->regions[1], i32);
    IrBuilder db = {fn, wh->regions[1], NULL, {0}};
    ValId two = ir_const_int(&db, i32, 2);
    ValId half = ir_build2(&db, OP_DIV, i32, a, two);
    ir_build(&db, OP_YIELD, &half, 1, NULL, 0, 0);

    ir_build(&b, OP_STORE, (ValId[]){ptrs, res, mask}, 3, NULL, 0, 0);
    ir_build(&b, OP_RET, NULL, 0, NULL, 0, 0);
    CHECK(verifies(fn));
    check_roundtrip(fn);
    char *text = print_fn(fn);
    CHECK(strstr(text, "func @kern(%x_ptr: ptr<f32> {div = 16}, %n: i32) {") != NULL);
    CHECK(strstr(text, "%7 = load %5, %3, %6 {cache = cg} : tile<256xf32, #L0>") != NULL);
    CHECK(strstr(text, "%10 = for %11 = %8 to %n step %9 iter(%12 = %7) -> (tile<256xf32, #L0>) {") != NULL);
    CHECK(strstr(text, "%16 = while (%17 = %0) -> (i32) {") != NULL);
    CHECK(strstr(text, "} do (%19: i32) {") != NULL);

    /* breaking it: a yield with the wrong type, then a missing yield */
    IrOp *y = body->last;
    y->operands[0] = acc;
    CHECK(verifies(fn));
    y->operands[0] = iv;
    check_verify_fails(fn, "the body region's yield value 0 has type i32, expected tile<256xf32>");
    ir_op_unlink(y);
    check_verify_fails(fn, "the body region does not end in 'yield'");
    ctx_free(c);
}

/* ---- text form ---- */

static const char *const every_op =
    "#L0 = linear<[4,8] reg=[[0,1]] lane=[[0,2],[0,4],[1,0],[2,0],[0,0]] warp=[]>\n"
    "#L1 = linear<[4] reg=[] lane=[[1],[2],[0],[0],[0]] warp=[]>\n"
    "#L2 = linear<[4,1] reg=[] lane=[[1,0],[2,0],[0,0],[0,0],[0,0]] warp=[]>\n"
    "#L3 = linear<[4] reg=[] lane=[[0],[0],[1],[2],[0]] warp=[]>\n"
    "#L4 = linear<[8,4] reg=[[1,0]] lane=[[2,0],[4,0],[0,1],[0,2],[0,0]] warp=[]>\n"
    "#L5 = linear<[32] reg=[[1]] lane=[[2],[4],[8],[16],[0]] warp=[]>\n"
    "#L6 = linear<[4,8,2] reg=[[0,0,1],[0,1,0]] lane=[[0,2,0],[0,4,0],[1,0,0],[2,0,0],[0,0,0]] warp=[]>\n"
    "#L7 = linear<[4,4] reg=[[0,1]] lane=[[0,2],[1,0],[2,0],[0,0],[0,0]] warp=[]>\n"
    "#L8 = linear<[4,8] reg=[[0,1],[0,2],[0,4]] lane=[[0,0],[1,0],[2,0],[0,0],[0,0]] warp=[]>\n"
    "#L9 = linear<[8,4] reg=[[1,0],[2,0],[4,0],[0,1]] lane=[[0,2],[0,0],[0,0],[0,0],[0,0]] warp=[]>\n"
    "#L10 = linear<[16] reg=[] lane=[[1],[2],[4],[8],[0]] warp=[]>\n"
    "func @all(%p: ptr<f16> {div = 16}, %0: i32, %q: ptr<i8>, %t: ptr<i8> {tensormap}, %s: ptr<i8> {div = 16, scratch = 256}) {\n"
    "  %1 = const -3 : i32\n"
    "  %2 = const 18446744073709551615 : u64\n"
    "  %3 = const -0.0 : f32\n"
    "  %4 = const inf : f64\n"
    "  %5 = const -inf : f16\n"
    "  %6 = const nan : bf16\n"
    "  %7 = const 0.1 : f32\n"
    "  %8 = const 1e-300 : f64\n"
    "  %9 = const 1 : i1\n"
    "  %10 = program_id 2 : i32\n"
    "  %11 = num_programs 0 : i32\n"
    "  %12 = arange 0, 4 : tile<4xi32, #L1>\n"
    "  %13 = expand_dims %12 {axis = 1} : tile<4x1xi32, #L2>\n"
    "  %14 = broadcast %13 : tile<4x8xi32, #L0>\n"
    "  %15 = splat %0 : tile<4x8xi32, #L0>\n"
    "  %16 = add %14, %15 : tile<4x8xi32, #L0>\n"
    "  %17 = sub %16, %15 : tile<4x8xi32, #L0>\n"
    "  %18 = mul %17, %16 : tile<4x8xi32, #L0>\n"
    "  %19 = div %18, %16 : tile<4x8xi32, #L0>\n"
    "  %20 = rem %19, %16 : tile<4x8xi32, #L0>\n"
    "  %21 = and %20, %16 : tile<4x8xi32, #L0>\n"
    "  %22 = or %21, %16 : tile<4x8xi32, #L0>\n"
    "  %23 = xor %22, %16 : tile<4x8xi32, #L0>\n"
    "  %24 = shl %23, %16 : tile<4x8xi32, #L0>\n"
    "  %25 = shr %24, %16 : tile<4x8xi32, #L0>\n"
    "  %26 = min %25, %16 : tile<4x8xi32, #L0>\n"
    "  %27 = max %26, %16 {propagate_nan} : tile<4x8xi32, #L0>\n"
    "  %28 = neg %27 : tile<4x8xi32, #L0>\n"
    "  %29 = not %28 : tile<4x8xi32, #L0>\n"
    "  %30 = abs %29 : tile<4x8xi32, #L0>\n"
    "  %31 = multiple_of %30 {hint = [4, 8]} : tile<4x8xi32, #L0>\n"
    "  %32 = max_contiguous %31 {hint = [1, 8]} : tile<4x8xi32, #L0>\n"
    "  %33 = cmp ge %32, %16 : tile<4x8xi1, #L0>\n"
    "  %34 = splat %p : tile<4x8xptr<f16>, #L0>\n"
    "  %35 = addptr %34, %32 : tile<4x8xptr<f16>, #L0>\n"
    "  %36 = load %35, %33 {evict = evict_last, volatile} : tile<4x8xf16, #L0>\n"
    "  %37 = cast %36 : tile<4x8xf32, #L0>\n"
    "  %38 = exp %37 : tile<4x8xf32, #L0>\n"
    "  %39 = exp2 %38 : tile<4x8xf32, #L0>\n"
    "  %40 = log %39 : tile<4x8xf32, #L0>\n"
    "  %41 = log2 %40 : tile<4x8xf32, #L0>\n"
    "  %42 = sqrt %41 : tile<4x8xf32, #L0>\n"
    "  %43 = rsqrt %42 : tile<4x8xf32, #L0>\n"
    "  %44 = cast %43 {rounding = rtz} : tile<4x8xf16, #L0>\n"
    "  %45 = bitcast %44 : tile<4x8xi16, #L0>\n"
    "  %46 = select %33, %36, %44 : tile<4x8xf16, #L0>\n"
    "  %47 = convert_layout %46 : tile<4x8xf16, #L0>\n"
    "  store %35, %47, %33 {cache = wb, vec = 2}\n"
    "  print %47, %q {prefix = \" v: \", hex}\n"
    "  assert %33 {msg = \"m\"}\n"
    "  assume %33\n"
    "  barrier\n"
    "  %48, %49 = reduce %47, %32 {axis = 1} -> (tile<4xf16, #L3>, tile<4xi32, #L3>) combine(%50: f16, %51: i32, %52: f16, %53: i32) {\n"
    "    %54 = max %50, %52 : f16\n"
    "    %55 = min %51, %53 : i32\n"
    "    yield %54, %55\n"
    "  }\n"
    "  %56 = cast %q : i64\n"
    "  %57, %58 = scan %47, %32 {axis = 1, reverse} -> (tile<4x8xf16, #L0>, tile<4x8xi32, #L0>) combine(%59: f16, %60: i32, %61: f16, %62: i32) {\n"
    "    %63 = add %59, %61 : f16\n"
    "    %64 = mul %60, %62 : i32\n"
    "    yield %63, %64\n"
    "  }\n"
    "  %65 = atomic add %35, %47, %33 {sem = relaxed, scope = cta} : tile<4x8xf16, #L0>\n"
    "  %66 = atomic_cas %p, %5, %5 {sem = acquire} : f16\n"
    "  %67 = mulhi %32, %16 : tile<4x8xi32, #L0>\n"
    "  %68 = cos %43 : tile<4x8xf32, #L0>\n"
    "  %69 = sin %68 : tile<4x8xf32, #L0>\n"
    "  %70 = trans %69 {perm = [1, 0]} : tile<8x4xf32, #L4>\n"
    "  %71 = reshape %69 : tile<32xf32, #L5>\n"
    "  %72 = join %69, %68 : tile<4x8x2xf32, #L6>\n"
    "  %73, %74 = split %72 : tile<4x8xf32, #L0>, tile<4x8xf32, #L0>\n"
    "  %75 = math atan2 %69, %68 : tile<4x8xf32, #L0>\n"
    "  %76 = const 0.0 : tile<4x4xf32, #L7>\n"
    "  %77 = convert_layout %69 : tile<4x8xf32, #L8>\n"
    "  %78 = convert_layout %70 : tile<8x4xf32, #L9>\n"
    "  %79 = dot %77, %78, %76 {precision = tf32x3} : tile<4x4xf32, #L7>\n"
    "  %80 = local_alloc : tile<3x4x8xf16>\n"
    "  async_copy %80, %1, %35, %33 {vec = 2}\n"
    "  async_commit\n"
    "  fence_async_shared\n"
    "  async_wait {pending = 1}\n"
    "  %81 = local_load %80, %1 : tile<4x8xf16, #L0>\n"
    "  %82 = load %35 {vec = 2, unpipelined = \"num_stages is 1\"} : tile<4x8xf16, #L0>\n"
    "  %83 = mbarrier_alloc : tile<3xi64>\n"
    "  %84 = local_alloc : tile<3x8x16xf16>\n"
    "  mbarrier_init %83\n"
    "  tma_copy %84, %1, %83, %t, %9, %1, %1\n"
    "  mbarrier_wait %83, %1, %1\n"
    "  mbarrier_inval %83\n"
    "  %85 = load %35, %33, %36, %t, %1, %1 {tma} : tile<4x8xf16, #L0>\n"
    "  %86 = tensormap_create %q, %p, %0, %0, %56 {block = [8, 16], nan} : ptr<i8>\n"
    "  %87 = sreg smid : i32\n"
    "  %88 = sreg globaltimer : i64\n"
    "  %89 = reshape %32 : tile<32xi32, #L5>\n"
    "  %90 = histogram %89 {bins = 16} : tile<16xi32, #L10>\n"
    "  %91 = gather %69, %32 {axis = 1} : tile<4x8xf32, #L0>\n"
    "  %92, %93 = inline_asm %32, %35 {asm = \"add.s32 $0, $2, 1;\\n\\tld.global.b16 $1, [$3];\", constraints = \"=r,=h,r,l\", pack = 1} : tile<4x8xi32, #L0>, tile<4x8xf16, #L0>\n"
    "  %94 = inline_asm {asm = \"mov.u32 $0, %clock;\", constraints = \"=r\", pack = 1, pure} : i32\n"
    "  %95, %96 = map_elementwise %32, %69 {pack = 2} -> (tile<4x8xf32, #L0>, tile<4x8xi32, #L0>) apply(%97: i32, %98: i32, %99: f32, %100: f32) {\n"
    "    %101 = cmp lt %97, %98 : i1\n"
    "    %102 = select %101, %99, %100 : f32\n"
    "    yield %102, %100, %97, %98\n"
    "  }\n"
    "  store %q, %9\n"
    "  ret\n"
    "}\n";

static void test_text(void) {
    Ctx *c = new_ctx();
    /* store %q, %9 stores an i1 through ptr<i8>: wrong, so fix the text first */
    char *src = arena_strdup(c->arena, every_op);
    char *bad = strstr(src, "  store %q, %9\n");
    memcpy(bad, "  ret\n}\n", 9);
    IrFunc *fn = parse_str(c, src);
    if (!fn) {
        printf("every-op text did not parse:\n%s", c->diag.data);
        failures++;
    } else {
        char *out = print_fn(fn);
        if (strcmp(out, src) != 0) {
            printf("every-op text prints differently:\n--- in\n%s--- out\n%s", src, out);
            failures++;
        }
        /* every op of ops.def appears */
        for (int opc = 0; opc < OP_COUNT; opc++) {
            if (opc == OP_FOR || opc == OP_IF || opc == OP_WHILE || opc == OP_YIELD || opc == OP_CONDITION) continue;
            /* their layouts need warpgroups: test/ir/wgmma_text.tir */
            if (opc == OP_WGMMA || opc == OP_WGMMA_WAIT) continue;
            char key[40];
            snprintf(key, sizeof key, " %s ", ir_opinfo[opc].name);
            if (opc == OP_BARRIER || opc == OP_ASYNC_COMMIT || opc == OP_FENCE_ASYNC) snprintf(key, sizeof key, "  %s\n", ir_opinfo[opc].name);
            if (opc != OP_RET && !strstr(out, key)) {
                printf("op %s missing from the every-op text\n", ir_opinfo[opc].name);
                failures++;
            }
        }
        Buf why = {0};
        CHECK(ir_verify(fn, &why));
        buf_free(&why);
    }
    ctx_free(c);

    /* the unfixed text fails in the verifier, reported at the op */
    check_parse_error(every_op, "t.tir:117:3: error: invalid IR: op 'store': operand 1 (the value) has type i1, expected i8");

    /* floats print exactly */
    c = new_ctx();
    fn = parse_str(c, "func @f() {\n  %0 = const 0.30000000000000004 : f64\n  %1 = const 1e-45 : f32\n"
                      "  %2 = const 1.7976931348623157e+308 : f64\n  %3 = const 3 : f32\n  %4 = const 0x1p-3 : f32\n}\n");
    CHECK(fn != NULL);
    if (fn) {
        char *out = print_fn(fn);
        CHECK(strstr(out, "%0 = const 0.30000000000000004 : f64") != NULL);
        CHECK(strstr(out, "%1 = const 1e-45 : f32") != NULL);
        CHECK(strstr(out, "%2 = const 1.7976931348623157e+308 : f64") != NULL);
        CHECK(strstr(out, "%3 = const 3.0 : f32") != NULL);
        CHECK(strstr(out, "%4 = const 0.125 : f32") != NULL);
        check_roundtrip(fn);
    }
    ctx_free(c);
}

static void test_parse_errors(void) {
    /* scan: the lanes along the axis are not consecutive lane bits; the
     * layout does not hold the axis as registers, lanes, warps */
    check_parse_error("#L0 = linear<[8] reg=[] lane=[[1],[0],[2],[4],[0]] warp=[]>\n"
                      "func @f() {\n  %0 = arange 0, 8 : tile<8xi32, #L0>\n"
                      "  %1 = scan %0 {axis = 0} -> (tile<8xi32, #L0>) combine(%a: i32, %b: i32) {\n"
                      "    %2 = add %a, %b : i32\n    yield %2\n  }\n}\n",
                      "t.tir:4:3: error: invalid IR: op 'scan': operand 0's layout #L0 does not hold the axis as registers, "
                      "then consecutive lanes, then warps, then registers (doc/ir.md, scan)");
    check_parse_error("#L0 = linear<[8] reg=[[4]] lane=[[1],[2],[0],[0],[0]] warp=[]>\n"
                      "#L1 = linear<[8] reg=[[1]] lane=[[2],[4],[0],[0],[0]] warp=[]>\n"
                      "func @f() {\n  %0 = arange 0, 8 : tile<8xi32, #L0>\n"
                      "  %1 = scan %0 {axis = 0, reverse} -> (tile<8xi32, #L1>) combine(%a: i32, %b: i32) {\n"
                      "    %2 = add %a, %b : i32\n    yield %2\n  }\n}\n",
                      "t.tir:5:3: error: invalid IR: op 'scan': result 0 has layout #L1, expected operand 0's");
    check_parse_error("func @f() {\n  %0 = addd %1 : i32\n}\n", "t.tir:2:8: error: unknown op 'addd'");
    /* inline_asm's contract (ir/asm.c) and map_elementwise's region, checked by the verifier */
    check_parse_error("func @f(%a: i32) {\n  %0 = inline_asm %a {asm = \"mov.b32 $0, $2;\", constraints = \"=r,r\", "
                      "pack = 1} : i32\n  ret\n}\n",
                      "t.tir:2:3: error: invalid IR: op 'inline_asm': the asm refers to $2, but its operands are $0 to $1");
    check_parse_error("func @f(%a: i8) {\n  %0 = inline_asm %a {asm = \"\", constraints = \"=r,r,r\", pack = 2} : i8\n"
                      "  ret\n}\n",
                      "t.tir:2:3: error: invalid IR: op 'inline_asm': the constraints name 1 output and 2 inputs, but 1 "
                      "result and 1 argument with pack=2 need 1 and 1 (one register per element; 8- and 16-bit "
                      "elements of a pack share 32-bit registers)");
    check_parse_error("func @f(%a: i32) {\n  %0 = map_elementwise %a {pack = 2} -> (i32) apply(%b: i32, %c: i32) {\n"
                      "    yield %b\n  }\n  ret\n}\n",
                      "t.tir:2:3: error: invalid IR: op 'map_elementwise': the apply region's 'yield' passes 1 values, "
                      "expected 2");
    check_parse_error("func @f() {\n  %0 = neg %7 : i32\n}\n", "t.tir:2:12: error: use of undefined value %7");
    check_parse_error("func @f(%a: i32) {\n  %0 = const 1.0 : f32\n  %1 = add %a, %0 : f32\n}\n",
                      "t.tir:3:12: error: type mismatch: %a is i32, expected f32");
    check_parse_error("func @f(%a: i32) {\n  %0 = neg %a i32\n}\n", "t.tir:2:15: error: expected ':' near 'i32'");
    check_parse_error("func @f(%a: i32) {\n  %0 = neg %a : i32\n", "t.tir:3:1: error: expected '}' to close '{' of 'func' at line 1");
    check_parse_error("func @f() {\n  %0 = const 300 : i8\n}\n", "t.tir:2:14: error: constant 300 does not fit in i8");
    check_parse_error("func @f() {\n  %0 = const 1 : tile<48xi32>\n}\n",
                      "t.tir:2:23: error: tile dimension 48 is not a power of two");
    /* too many elements: no wrap-around, no gigabytes of layout */
    check_parse_error("func @f() {\n  %0 = const 1 : tile<268435456xf32>\n}\n",
                      "t.tir:2:18: error: a tile of 268435456 elements (at most 1048576)");
    check_parse_error("func @f() {\n  %0 = const 1 : tile<65536x65536x65536x65536xf32>\n}\n",
                      "t.tir:2:18: error: a tile of 18446744073709551616 elements (at most 1048576)");
    check_parse_error("func @f() {\n  %0 = const 1 : tile<4xi32, #L0>\n}\n", "t.tir:2:30: error: undefined layout #L0");
    check_parse_error("func @f() {\n  %0 = const 1 : i32\n  %0 = const 2 : i32\n}\n", "t.tir:3:3: error: redefinition of %0");
    check_parse_error("func @f(%a: i1) {\n  %0 = if %a -> (i32) {\n    %1 = const 1 : i32\n    yield %1\n  } else {\n"
                      "    yield %1\n  }\n}\n",
                      "t.tir:6:11: error: use of undefined value %1");
    check_parse_error("func @f(%a: i32) {\n  %0, %1 = neg %a : i32\n}\n", "t.tir:2:3: error: 'neg' has 1 result, but 2 names are given");
    check_parse_error("func @f(%a: i32) {\n  %0 = load %a {cache = xx} : i32\n}\n",
                      "t.tir:2:25: error: expected a cache modifier (ca, cg, cs, cv, wb, wt) near 'xx'");
    check_parse_error("func @f(%a: i1) {\n  %0 = if %a -> (i32) {\n    yield\n  } else {\n    yield\n  }\n}\n",
                      "t.tir:2:3: error: invalid IR: op 'if': the then region's 'yield' passes 0 values, expected 1");
    check_parse_error("#L0 = linear<[4] reg=[[1]] lane=[[2],[4]] warp=[]>\nfunc @f() {\n}\n",
                      "t.tir:1:38: error: basis coordinate 4 is outside dimension 0 of size 4");
    /* a vector width the pointer's layout does not hold as one run of registers */
    const char *vec4 =
        "#L0 = linear<[64] reg=[[1],[32]] lane=[[2],[4],[8],[16],[0]] warp=[]>\n"
        "func @f(%p: ptr<f32> {div = 16}) {\n"
        "  %0 = splat %p : tile<64xptr<f32>, #L0>\n"
        "  %1 = load %0 {vec = 4} : tile<64xf32, #L0>\n}\n";
    check_parse_error(vec4, "t.tir:4:3: error: invalid IR: op 'load': vec = 4, but the pointer's layout has no run of 4 "
                            "consecutive registers");
    const char *vec3 =
        "#L0 = linear<[64] reg=[[1],[32]] lane=[[2],[4],[8],[16],[0]] warp=[]>\n"
        "func @f(%p: ptr<f32> {div = 16}) {\n"
        "  %0 = splat %p : tile<64xptr<f32>, #L0>\n"
        "  %1 = load %0 {vec = 3} : tile<64xf32, #L0>\n}\n";
    check_parse_error(vec3, "t.tir:4:3: error: invalid IR: op 'load': vec = 3 is not a power of two");

    /* atomics: the operation, its attributes, the element types PTX has */
    check_parse_error("func @f(%p: ptr<f16>) {\n  %0 = const 1.0 : f16\n  %1 = atomic max %p, %0 : f16\n}\n",
                      "t.tir:3:3: error: invalid IR: op 'atomic': atomic max of f16 is not an atomic the GPU has");
    check_parse_error("func @f(%p: ptr<f16>) {\n  %0 = const 1.0 : f16\n  %1 = atomic sub %p, %0 : f16\n}\n",
                      "t.tir:3:15: error: expected an atomic operation (add, max, min, and, or, xor, xchg) near 'sub'");
    check_parse_error("func @f(%p: ptr<i32>) {\n  %0 = const 1 : i32\n  %1 = atomic_cas %p, %0, %0 {sem = seq} : i32\n}\n",
                      "t.tir:3:37: error: expected a memory ordering (acq_rel, acquire, release, relaxed) near 'seq'");
    check_parse_error("func @f(%p: ptr<i32>) {\n  %0 = const 1 : i64\n  %1 = atomic add %p, %0 : i32\n}\n",
                      "t.tir:3:23: error: type mismatch: %0 is i64, expected i32");
    check_parse_error("func @f(%p: ptr<i8>) {\n  %0 = const 1 : i8\n  %1 = atomic_cas %p, %0, %0 {scope = cta} : i8\n}\n",
                      "t.tir:3:3: error: invalid IR: op 'atomic_cas': atomic_cas of i8 is not an atomic the GPU has");
    check_parse_error("func @f(%p: ptr<i32>) {\n  %0 = const 1 : i32\n  %1 = atomic add %p : i32\n}\n",
                      "t.tir:3:3: error: 'atomic' takes 2 or 3 operands (ptr, value, mask), got 1");
}

/* ---- verifier on built IR ---- */

static void test_verify(void) {
    Ctx *c = new_ctx();
    IrFunc *fn = ir_func_new(c, "v");
    IrBuilder b = {fn, fn->body, NULL, {0}};
    ValId a = ir_param_add(fn, "a", ir_scalar(ET_I32), 1);
    ValId f = ir_param_add(fn, "f", ir_scalar(ET_F32), 1);
    ValId s = ir_build2(&b, OP_ADD, ir_scalar(ET_I32), a, a);
    CHECK(verifies(fn));
    /* type mismatch */
    fn->vals[s].def->operands[1] = f;
    check_verify_fails(fn, "verify: op 'add' (no location): operand 1 has type f32, expected i32");
    fn->vals[s].def->operands[1] = a;
    /* use before definition */
    ValId t = ir_build2(&b, OP_MUL, ir_scalar(ET_I32), s, s);
    fn->vals[s].def->operands[0] = t;
    check_verify_fails(fn, "operand 0 (value id 4) is used before it is defined");
    fn->vals[s].def->operands[0] = a;
    /* a value from inside a loop used after it */
    ValId one = ir_const_int(&b, ir_scalar(ET_I32), 1);
    IrOp *loop = ir_build(&b, OP_FOR, (ValId[]){a, a, one}, 3, NULL, 0, 1);
    ir_block_add_arg(fn, loop->regions[0], ir_scalar(ET_I32));
    IrBuilder lb = {fn, loop->regions[0], NULL, {0}};
    ValId inner = ir_build2(&lb, OP_SUB, ir_scalar(ET_I32), a, one);
    ir_build(&lb, OP_YIELD, NULL, 0, NULL, 0, 0);
    CHECK(verifies(fn));
    ValId after = ir_build1(&b, OP_NEG, ir_scalar(ET_I32), inner);
    check_verify_fails(fn, "used outside the region that defines it");
    fn->vals[after].def->operands[0] = a;
    CHECK(verifies(fn));
    /* a missing yield */
    ir_op_unlink(loop->regions[0]->last);
    check_verify_fails(fn, "the body region does not end in 'yield'");
    ctx_free(c);

    /* layouts: elementwise operands must share the result's layout */
    c = new_ctx();
    fn = parse_str(c, "#L0 = linear<[4] reg=[[1],[2]] lane=[[0],[0],[0],[0],[0]] warp=[]>\n"
                      "#L1 = linear<[4] reg=[] lane=[[1],[2],[0],[0],[0]] warp=[]>\n"
    "#L2 = linear<[4,1] reg=[] lane=[[1,0],[2,0],[0,0],[0,0],[0,0]] warp=[]>\n"
                      "func @l(%a: i32) {\n  %0 = splat %a : tile<4xi32, #L0>\n  %1 = splat %a : tile<4xi32, #L1>\n"
                      "  %2 = convert_layout %1 : tile<4xi32, #L0>\n  %3 = add %0, %2 : tile<4xi32, #L0>\n}\n");
    CHECK(fn != NULL);
    if (fn) {
        CHECK(verifies(fn));
        IrOp *add = fn->body->last;
        add->operands[1] = add->operands[0] - 1 + 2;   /* %1, in #L1 */
        check_verify_fails(fn, "operand 1 has layout #L1, expected #L0");
        add->operands[1] = fn->body->first->results[0];
        fn->vals[add->results[0]].layout = -1;
        check_verify_fails(fn, "has no layout, but other tiles do");
    }
    ctx_free(c);
}

/* ---- passes ---- */

/* Runs passes on text and returns the printed result (NULL on error). */
static char *run_passes(Ctx *c, const char *text, const char *const *passes, int n) {
    IrFunc *fn = parse_str(c, text);
    if (!fn) {
        printf("parse failed:\n%s", c->diag.data);
        failures++;
        return NULL;
    }
    jmp_buf jb;
    c->bail = &jb;
    c->verify_each = true;
    if (setjmp(jb)) {
        printf("pass failed:\n%s", c->diag.data);
        failures++;
        c->bail = NULL;
        return NULL;
    }
    for (int i = 0; i < n; i++) CHECK(opt_run_pass(fn, passes[i]));
    c->bail = NULL;
    return print_fn(fn);
}

static bool has(const char *text, const char *want) {
    if (text && strstr(text, want)) return true;
    printf("expected to find \"%s\" in:\n%s", want, text ? text : "(null)\n");
    return false;
}

static const char *const fold_dce[] = {"fold", "dce"};

/* The fold checks, on text that keeps every value alive through stores. */
static void test_fold_values(void) {
    Ctx *c = new_ctx();
    const char *src = "func @f(%x: i32, %pi8: ptr<i8>, %pi32: ptr<i32>, %pu8: ptr<u8>, %pu32: ptr<u32>, %pb: ptr<i1>,\n"
                      "        %pf16: ptr<f16>, %pf32: ptr<f32>, %pi16: ptr<i16>) {\n"
                      "  %0 = const 100 : i8\n"
                      "  %1 = add %0, %0 : i8\n"
                      "  store %pi8, %1\n"
                      "  %2 = const -7 : i32\n"
                      "  %3 = const 2 : i32\n"
                      "  %4 = div %2, %3 : i32\n"
                      "  store %pi32, %4\n"
                      "  %5 = rem %2, %3 : i32\n"
                      "  store %pi32, %5\n"
                      "  %6 = const 0 : i32\n"
                      "  %7 = div %2, %6 : i32\n"
                      "  store %pi32, %7\n"
                      "  %8 = const 200 : u8\n"
                      "  %9 = add %8, %8 : u8\n"
                      "  store %pu8, %9\n"
                      "  %10 = const 4294967295 : u32\n"
                      "  %11 = const 1 : u32\n"
                      "  %12 = cmp gt %10, %11 : i1\n"
                      "  store %pb, %12\n"
                      "  %13 = const -1 : i32\n"
                      "  %14 = cmp gt %13, %3 : i1\n"
                      "  store %pb, %14\n"
                      "  %15 = shr %13, %3 : i32\n"
                      "  store %pi32, %15\n"
                      "  %16 = shr %10, %11 : u32\n"
                      "  store %pu32, %16\n"
                      "  %17 = add %x, %6 : i32\n"
                      "  store %pi32, %17\n"
                      "  %18 = const 1.0 : f16\n"
                      "  %19 = const 0.00048828125 : f16\n"
                      "  %20 = add %18, %19 : f16\n"
                      "  store %pf16, %20\n"
                      "  %21 = const 0.00146484375 : f16\n"
                      "  %22 = add %18, %21 : f16\n"
                      "  store %pf16, %22\n"
                      "  %23 = const 65504.0 : f16\n"
                      "  %24 = const 16.0 : f16\n"
                      "  %25 = add %23, %24 : f16\n"
                      "  store %pf16, %25\n"
                      "  %26 = const 15.0 : f16\n"
                      "  %27 = add %23, %26 : f16\n"
                      "  store %pf16, %27\n"
                      "  %28 = const 1.5 : f32\n"
                      "  %29 = cast %28 : i32\n"
                      "  store %pi32, %29\n"
                      "  %30 = bitcast %28 : u32\n"
                      "  store %pu32, %30\n"
                      "  %31 = const 3.0 : bf16\n"
                      "  %32 = bitcast %31 : i16\n"
                      "  store %pi16, %32\n"
                      "  %33 = const -2.5 : f16\n"
                      "  %34 = bitcast %33 : i16\n"
                      "  store %pi16, %34\n"
                      "  %35 = const 100000.0 : f32\n"
                      "  %36 = cast %35 : f16\n"
                      "  store %pf16, %36\n"
                      "  %37 = const 0.1 : f32\n"
                      "  %38 = cast %37 : f16\n"
                      "  store %pf16, %38\n"
                      "  %39 = const 1 : i1\n"
                      "  %40 = select %39, %x, %4 : i32\n"
                      "  store %pi32, %40\n"
                      "  %41 = multiple_of %x {hint = [16]} : i32\n"
                      "  store %pi32, %41\n"
                      "  %42 = const -128 : i8\n"
                      "  %43 = const -1 : i8\n"
                      "  %44 = div %42, %43 : i8\n"
                      "  store %pi8, %44\n"
                      "  %45 = const 1 : i32\n"
                      "  %46 = mul %x, %45 : i32\n"
                      "  store %pi32, %46\n"
                      "  ret\n"
                      "}\n";
    char *out = run_passes(c, src, fold_dce, 2);
    CHECK(has(out, "const -56 : i8"));
    CHECK(has(out, "const -3 : i32"));
    CHECK(has(out, "const -1 : i32"));
    CHECK(has(out, "div %"));                   /* -7 / 0 stays */
    CHECK(has(out, "const 144 : u8"));
    CHECK(has(out, "const 1 : i1"));
    CHECK(has(out, "const 0 : i1"));
    CHECK(has(out, "const 2147483647 : u32"));  /* logical shift of 0xffffffff */
    CHECK(has(out, "store %pi32, %x\n"));       /* x + 0, select(1, x, _), x * 1 */
    CHECK(has(out, "const 1.0 : f16"));         /* tie to even */
    CHECK(has(out, "const 1.001953125 : f16")); /* 1 + 2^-9 */
    CHECK(has(out, "const inf : f16"));
    CHECK(has(out, "const 65504.0 : f16"));
    CHECK(has(out, "const 1 : i32"));           /* (int)1.5 */
    CHECK(has(out, "const 1069547520 : u32"));  /* bits of 1.5f */
    CHECK(has(out, "const 16448 : i16"));       /* bf16 3.0 = 0x4040 */
    CHECK(has(out, "const -16128 : i16"));      /* f16 -2.5 = 0xc100 */
    CHECK(has(out, "const 0.0999755859375 : f16"));   /* 0.1 rounded to f16 */
    CHECK(has(out, "multiple_of %x"));
    CHECK(has(out, "div %"));
    if (out) {
        /* -128 / -1 overflows i8: left for the hardware */
        CHECK(strstr(out, "const -128 : i8") != NULL);
        /* 100000 overflows f16: inf twice now (65504 + 16 and the cast) */
        const char *p = strstr(out, "const inf : f16");
        CHECK(p && strstr(p + 1, "const inf : f16"));
    }
    ctx_free(c);

    /* float cast of -0.0, min/max with NaN, fp8 */
    c = new_ctx();
    out = run_passes(c,
                     "func @g(%pf: ptr<f32>, %p8: ptr<f8e4m3>, %p5: ptr<f8e5m2>) {\n"
                     "  %0 = const nan : f32\n"
                     "  %1 = const 2.0 : f32\n"
                     "  %2 = min %0, %1 : f32\n"
                     "  store %pf, %2\n"
                     "  %3 = max %0, %1 {propagate_nan} : f32\n"
                     "  store %pf, %3\n"
                     "  %4 = const -0.0 : f32\n"
                     "  %5 = const 0.0 : f32\n"
                     "  %6 = min %5, %4 : f32\n"
                     "  store %pf, %6\n"
                     "  %7 = const 500.0 : f32\n"
                     "  %8 = cast %7 : f8e4m3\n"
                     "  store %p8, %8\n"
                     "  %9 = const 0.3 : f32\n"
                     "  %10 = cast %9 : f8e5m2\n"
                     "  store %p5, %10\n"
                     "  %11 = add %1, %4 : f32\n"
                     "  store %pf, %11\n"
                     "  ret\n"
                     "}\n",
                     fold_dce, 2);
    CHECK(has(out, "%2 = const 2.0 : f32\n  store %pf, %2\n"));    /* min(nan, 2) = 2 */
    /* a NaN result stays an op: the GPU's NaN (0x7FFFFFFF) is not the constant's */
    CHECK(has(out, "max %0, %1 {propagate_nan} : f32"));
    CHECK(has(out, "const -0.0 : f32"));
    CHECK(has(out, "const 448.0 : f8e4m3"));   /* saturates */
    CHECK(has(out, "const 0.3125 : f8e5m2"));
    ctx_free(c);
}

static const char *const cse_only[] = {"cse"};

static void test_cse(void) {
    Ctx *c = new_ctx();
    char *out = run_passes(c,
                           "func @f(%a: i32, %b: i32, %p: ptr<i32>, %c: i1) {\n"
                           "  %0 = add %a, %b : i32\n"
                           "  %1 = add %b, %a : i32\n"   /* commutes: same as %0 */
                           "  %2 = sub %a, %b : i32\n"
                           "  %3 = sub %b, %a : i32\n"   /* does not commute */
                           "  %4 = load %p : i32\n"
                           "  %5 = load %p : i32\n"      /* loads stay */
                           "  if %c {\n"
                           "    %6 = add %a, %b : i32\n" /* outer %0 dominates */
                           "    %7 = mul %a, %a : i32\n"
                           "    store %p, %7\n"
                           "    store %p, %6\n"
                           "    yield\n"
                           "  } else {\n"
                           "    %8 = mul %a, %a : i32\n" /* sibling region: stays */
                           "    store %p, %8\n"
                           "    yield\n"
                           "  }\n"
                           "  store %p, %1\n"
                           "  store %p, %2\n"
                           "  store %p, %3\n"
                           "  store %p, %4\n"
                           "  store %p, %5\n"
                           "  ret\n"
                           "}\n",
                           cse_only, 1);
    const char *want = "func @f(%a: i32, %b: i32, %p: ptr<i32>, %c: i1) {\n"
                       "  %0 = add %a, %b : i32\n"
                       "  %1 = sub %a, %b : i32\n"
                       "  %2 = sub %b, %a : i32\n"
                       "  %3 = load %p : i32\n"
                       "  %4 = load %p : i32\n"
                       "  if %c {\n"
                       "    %5 = mul %a, %a : i32\n"
                       "    store %p, %5\n"
                       "    store %p, %0\n"
                       "    yield\n"
                       "  } else {\n"
                       "    %6 = mul %a, %a : i32\n"
                       "    store %p, %6\n"
                       "    yield\n"
                       "  }\n"
                       "  store %p, %0\n"
                       "  store %p, %1\n"
                       "  store %p, %2\n"
                       "  store %p, %3\n"
                       "  store %p, %4\n"
                       "  ret\n"
                       "}\n";
    if (!out || strcmp(out, want) != 0) {
        printf("cse:\n--- want\n%s--- got\n%s", want, out ? out : "(null)\n");
        failures++;
    }
    ctx_free(c);
}

/* Integer constants merge on their value even when a producer left
 * attr.f different; float constants merge on their bits only. */
static void test_cse_consts(void) {
    Ctx *c = new_ctx();
    IrFunc *fn = ir_func_new(c, "k");
    IrBuilder b = {fn, fn->body, NULL, {0}};
    ValId p = ir_param_add(fn, "p", ir_ptr(ET_I32), 1);
    ValId q = ir_param_add(fn, "q", ir_ptr(ET_F32), 1);
    ValId i1 = ir_const_int(&b, ir_scalar(ET_I32), 5), i2 = ir_const_int(&b, ir_scalar(ET_I32), 5);
    fn->vals[i2].def->attr.f = 0;
    ValId z = ir_const_float(&b, ir_scalar(ET_F32), 0.0), nz = ir_const_float(&b, ir_scalar(ET_F32), -0.0);
    ir_build(&b, OP_STORE, (ValId[]){p, i1}, 2, NULL, 0, 0);
    ir_build(&b, OP_STORE, (ValId[]){p, i2}, 2, NULL, 0, 0);
    ir_build(&b, OP_STORE, (ValId[]){q, z}, 2, NULL, 0, 0);
    IrOp *last = ir_build(&b, OP_STORE, (ValId[]){q, nz}, 2, NULL, 0, 0);
    pass_cse(fn);
    CHECK(last->prev->operands[1] == z && last->operands[1] == nz);
    CHECK(last->prev->prev->operands[1] == i1 && last->prev->prev->prev->operands[1] == i1);
    CHECK(verifies(fn));
    ctx_free(c);
}

static const char *const dce_only[] = {"dce"};

static void test_dce(void) {
    Ctx *c = new_ctx();
    char *out = run_passes(c,
                           "func @f(%n: i32, %p: ptr<i32>, %q: ptr<f32>, %c: i1) {\n"
                           "  %0 = const 0 : i32\n"
                           "  %1 = const 1 : i32\n"
                           "  %2 = const 0.0 : f32\n"
                           "  %3, %4, %5 = for %6 = %0 to %n step %1 iter(%7 = %0, %8 = %2, %9 = %1) -> (i32, f32, i32) {\n"
                           "    %10 = add %7, %6 : i32\n"     /* live: result %3 is stored */
                           "    %11 = load %q : f32\n"
                           "    %12 = add %8, %11 : f32\n"    /* dead cycle: %4 unused */
                           "    %13 = mul %9, %9 : i32\n"     /* used only by itself and stored inside */
                           "    store %p, %9\n"
                           "    yield %10, %12, %13\n"
                           "  }\n"
                           "  %14, %15 = if %c -> (i32, i32) {\n"
                           "    yield %0, %1\n"
                           "  } else {\n"
                           "    %16 = neg %n : i32\n"
                           "    yield %1, %16\n"
                           "  }\n"
                           "  %17 = load %p {volatile} : i32\n"
                           "  %18 = load %p : i32\n"
                           "  %19 = for %20 = %0 to %n step %1 iter(%21 = %0) -> (i32) {\n"
                           "    yield %21\n"
                           "  }\n"
                           "  store %p, %3\n"
                           "  store %p, %14\n"
                           "  ret\n"
                           "}\n",
                           dce_only, 1);
    const char *want = "func @f(%n: i32, %p: ptr<i32>, %q: ptr<f32>, %c: i1) {\n"
                       "  %0 = const 0 : i32\n"
                       "  %1 = const 1 : i32\n"
                       "  %2, %3 = for %4 = %0 to %n step %1 iter(%5 = %0, %6 = %1) -> (i32, i32) {\n"
                       "    %7 = add %5, %4 : i32\n"
                       "    %8 = mul %6, %6 : i32\n"
                       "    store %p, %6\n"
                       "    yield %7, %8\n"
                       "  }\n"
                       "  %9 = if %c -> (i32) {\n"
                       "    yield %0\n"
                       "  } else {\n"
                       "    yield %1\n"
                       "  }\n"
                       "  %10 = load %p {volatile} : i32\n"
                       "  store %p, %2\n"
                       "  store %p, %9\n"
                       "  ret\n"
                       "}\n";
    if (!out || strcmp(out, want) != 0) {
        printf("dce:\n--- want\n%s--- got\n%s", want, out ? out : "(null)\n");
        failures++;
    }
    ctx_free(c);
}

/* The for loop built with the builder, with a dead carried value: the
 * carried value goes from all four places. */
static void test_dce_built(void) {
    Ctx *c = new_ctx();
    IrFunc *fn = ir_func_new(c, "d");
    IrBuilder b = {fn, fn->body, NULL, {0}};
    ValId n = ir_param_add(fn, "n", ir_scalar(ET_I32), 1);
    ValId p = ir_param_add(fn, "p", ir_ptr(ET_I32), 1);
    IrType i32 = ir_scalar(ET_I32);
    ValId zero = ir_const_int(&b, i32, 0), one = ir_const_int(&b, i32, 1);
    IrOp *loop = ir_build(&b, OP_FOR, (ValId[]){zero, n, one, zero, one}, 5, (IrType[]){i32, i32}, 2, 1);
    IrBlock *body = loop->regions[0];
    ValId iv = ir_block_add_arg(fn, body, i32);
    ValId dead = ir_block_add_arg(fn, body, i32);
    ValId live = ir_block_add_arg(fn, body, i32);
    IrBuilder lb = {fn, body, NULL, {0}};
    ValId d2 = ir_build2(&lb, OP_ADD, i32, dead, iv);
    ValId l2 = ir_build2(&lb, OP_ADD, i32, live, iv);
    ir_build(&lb, OP_YIELD, (ValId[]){d2, l2}, 2, NULL, 0, 0);
    ValId res_live = loop->results[1];
    ir_build(&b, OP_STORE, (ValId[]){p, res_live}, 2, NULL, 0, 0);
    ir_build(&b, OP_RET, NULL, 0, NULL, 0, 0);
    CHECK(verifies(fn));
    pass_dce(fn);
    CHECK(verifies(fn));
    CHECK(loop->n_results == 1 && loop->results[0] == res_live);
    CHECK(loop->n_operands == 4 && loop->operands[3] == one);
    CHECK(body->n_args == 2 && body->args[0] == iv && body->args[1] == live);
    CHECK(body->last->opc == OP_YIELD && body->last->n_operands == 1 && body->last->operands[0] == l2);
    CHECK(body->first == fn->vals[l2].def);   /* dead + iv is gone */
    ctx_free(c);
}

static void test_pipeline_dump(void) {
    Ctx *c = new_ctx();
    IrFunc *fn = parse_str(c, "func @f(%p: ptr<i32>) {\n  %0 = const 2 : i32\n  %1 = const 3 : i32\n  %2 = mul %0, %1 : i32\n"
                              "  %3 = mul %0, %1 : i32\n  store %p, %2\n  store %p, %3\n  ret\n}\n");
    CHECK(fn != NULL);
    if (!fn) return;
    Buf dump = {0};
    c->dump_out = &dump;
    c->dump_after = "cse";
    c->verify_each = true;
    jmp_buf jb;
    c->bail = &jb;
    if (setjmp(jb) == 0) {
        CHECK(opt_run_pass(fn, "fold"));
        CHECK(opt_run_pass(fn, "cse"));
        CHECK(!opt_run_pass(fn, "nonesuch"));
    } else {
        printf("passes failed:\n%s", c->diag.data);
        failures++;
    }
    const char *want = "// -----// IR after cse //----- //\n"
                       "func @f(%p: ptr<i32>) {\n  %0 = const 2 : i32\n  %1 = const 3 : i32\n  %2 = const 6 : i32\n"
                       "  store %p, %2\n  store %p, %2\n  ret\n}\n";
    if (!dump.data || strcmp(dump.data, want) != 0) {
        printf("dump:\n--- want\n%s--- got\n%s", want, dump.data ? dump.data : "(null)\n");
        failures++;
    }
    buf_free(&dump);
    /* the pass table names every pass once */
    for (int i = 0; i < opt_n_passes; i++)
        for (int j = i + 1; j < opt_n_passes; j++) CHECK(strcmp(opt_passes[i].name, opt_passes[j].name) != 0);
    ctx_free(c);
}

/* IrFwd leaves the IR as ir_replace_uses does: replacements chain (the
 * second replaces what the first left), reach nested regions, and the
 * table grows for values made after it was first set. */
static void test_fwd(void) {
    Ctx *c = new_ctx();
    const char *src = "func @f(%n: i32, %p: ptr<i32>) {\n"
                      "  %0 = const 1 : i32\n"
                      "  %1 = add %n, %0 : i32\n"
                      "  %2 = add %1, %0 : i32\n"
                      "  %3 = for %4 = %0 to %n step %0 iter(%5 = %2) -> (i32) {\n"
                      "    %6 = add %5, %2 : i32\n"
                      "    yield %6\n"
                      "  }\n"
                      "  store %p, %3\n"
                      "  store %p, %1\n"
                      "  ret\n"
                      "}\n";
    IrFunc *fn[2] = {parse_str(c, src), parse_str(c, src)};
    CHECK(fn[0] && fn[1]);
    if (!fn[0] || !fn[1]) {
        ctx_free(c);
        return;
    }
    ValId add1[2], add2[2], n[2];
    for (int k = 0; k < 2; k++) {
        add1[k] = fn[k]->body->first->next->results[0];
        add2[k] = fn[k]->body->first->next->next->results[0];
        n[k] = fn[k]->params[0].val;
    }
    ir_replace_uses(fn[0], add2[0], add1[0]);
    ir_replace_uses(fn[0], add1[0], n[0]);
    IrFwd f = {fn[1], NULL, 0, false};
    ir_fwd_set(&f, add2[1], add1[1]);
    ir_fwd_set(&f, add1[1], n[1]);
    CHECK(ir_fwd_get(&f, add2[1]) == n[1]);
    IrOp *loop = fn[1]->body->first->next->next->next;
    CHECK(ir_fwd_op(&f, loop) && loop->operands[3] == n[1]);   /* the init, before the rest */
    CHECK(!ir_fwd_op(&f, loop));
    ir_fwd_apply(&f);
    char *want = print_fn(fn[0]), *got = print_fn(fn[1]);
    if (strcmp(want, got) != 0) {
        printf("fwd:\n--- ir_replace_uses\n%s--- IrFwd\n%s", want, got);
        failures++;
    }
    ValId late = ir_value_new(fn[1], ir_scalar(ET_I32));   /* past the table */
    ir_fwd_set(&f, late, add2[1]);
    CHECK(f.n > late && ir_fwd_get(&f, late) == n[1] && ir_fwd_get(&f, n[1]) == n[1]);
    ctx_free(c);
}

int main(void) {
    test_builder_roundtrip();
    test_text();
    test_parse_errors();
    test_verify();
    test_fold_values();
    test_cse();
    test_cse_consts();
    test_dce();
    test_dce_built();
    test_pipeline_dump();
    test_fwd();
    if (failures) printf("test_ir: %d failed\n", failures);
    return failures != 0;
}
