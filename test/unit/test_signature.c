/* sig_parse: every kind of entry, hints, named entries, and the exact text
 * of the errors (with their caret into "<signature>"). */
#include "base/base.h"
#include "frontend/frontend.h"

#include <stdio.h>
#include <string.h>

#include "check.h"

static Ctx *new_ctx(void) {
    Target t = {.sm = 80, .num_warps = 4, .num_stages = 3};
    return ctx_new(&t);
}

/* Parses text; on error returns NULL and leaves the message in c->diag. */
static Signature *parse(Ctx *c, const char *text) {
    jmp_buf jb;
    c->bail = &jb;
    if (setjmp(jb)) return NULL;
    return sig_parse(c, text);
}

static void test_entries(void) {
    Ctx *c = new_ctx();
    Signature *s = parse(c, "*fp32:16, *kfp16, i32, i32:16, i32:1, fp32, 1024, 3.5, True, None, 'relu', "
                            "BLOCK = 64, u1, *bf16, fp8e4nv, -7, 0x10, \"s\", 1e-3");
    CHECK(s && s->n == 19);
    if (!s) {
        fputs(c->diag.data, stderr);
        ctx_free(c);
        return;
    }
    SigEntry *e = s->entries;
    CHECK(e[0].kind == SIG_POINTER && e[0].type == ET_F32 && e[0].divisibility == 16 && !e[0].is_const_ptr);
    CHECK(e[1].kind == SIG_POINTER && e[1].type == ET_F16 && e[1].is_const_ptr && e[1].divisibility == 1);
    CHECK(e[2].kind == SIG_SCALAR && e[2].type == ET_I32 && e[2].divisibility == 1 && !e[2].equals_one);
    CHECK(e[3].kind == SIG_SCALAR && e[3].divisibility == 16);
    CHECK(e[4].kind == SIG_SCALAR && e[4].equals_one);
    CHECK(e[5].kind == SIG_SCALAR && e[5].type == ET_F32);
    CHECK(e[6].kind == SIG_CONSTEXPR && e[6].cv_kind == CV_INT && e[6].ival == 1024);
    CHECK(e[7].cv_kind == CV_FLOAT && e[7].fval == 3.5);
    CHECK(e[8].cv_kind == CV_BOOL && e[8].ival == 1);
    CHECK(e[9].cv_kind == CV_NONE);
    CHECK(e[10].cv_kind == CV_STR && !strcmp(e[10].sval, "relu"));
    CHECK(e[11].name && !strcmp(e[11].name, "BLOCK") && e[11].cv_kind == CV_INT && e[11].ival == 64);
    CHECK(e[12].kind == SIG_SCALAR && e[12].type == ET_I1);
    CHECK(e[13].kind == SIG_POINTER && e[13].type == ET_BF16);
    CHECK(e[14].kind == SIG_SCALAR && e[14].type == ET_F8E4M3);
    CHECK(e[15].cv_kind == CV_INT && e[15].ival == -7);
    CHECK(e[16].cv_kind == CV_INT && e[16].ival == 16);
    CHECK(e[17].cv_kind == CV_STR && !strcmp(e[17].sval, "s"));
    CHECK(e[18].cv_kind == CV_FLOAT && e[18].fval == 1e-3);
    /* locations are 1-based columns into the signature text */
    CHECK(e[0].loc.line == 1 && e[0].loc.col == 1 && e[1].loc.col == 11);
    CHECK(!strcmp(s->src->path, "<signature>"));
    ctx_free(c);

    c = new_ctx();
    s = parse(c, "");
    CHECK(s && s->n == 0);
    ctx_free(c);

    /* tuples: nested, empty, a one-item tuple's trailing comma */
    c = new_ctx();
    s = parse(c, "(i32:16, (*fp16, 2), ()), (7,), T = (None, 'x')");
    CHECK(s && s->n == 3);
    if (s && s->n == 3) {
        e = s->entries;
        CHECK(e[0].kind == SIG_TUPLE && e[0].n_items == 3 && e[0].items[0].divisibility == 16);
        CHECK(e[0].items[1].kind == SIG_TUPLE && e[0].items[1].n_items == 2 && e[0].items[1].items[0].kind == SIG_POINTER);
        CHECK(e[0].items[1].items[1].cv_kind == CV_INT && e[0].items[1].items[1].ival == 2);
        CHECK(e[0].items[2].kind == SIG_TUPLE && e[0].items[2].n_items == 0);
        CHECK(e[1].kind == SIG_TUPLE && e[1].n_items == 1 && e[1].items[0].ival == 7);
        CHECK(e[2].name && !strcmp(e[2].name, "T") && e[2].n_items == 2 && e[2].items[1].cv_kind == CV_STR);
    }
    ctx_free(c);
}

static void expect_error(const char *text, const char *want) {
    Ctx *c = new_ctx();
    Signature *s = parse(c, text);
    CHECK(s == NULL);
    if (!s && strcmp(c->diag.data, want)) {
        fprintf(stderr, "signature \"%s\":\n--- want\n%s--- got\n%s", text, want, c->diag.data);
        failures++;
    }
    ctx_free(c);
}

static void test_errors(void) {
    expect_error("*fp33, i32", "<signature>:1:2: error: unknown type 'fp33' in signature\n*fp33, i32\n ^\n");
    expect_error("*fp32:8", "<signature>:1:6: error: only the hints :1 and :16 are valid\n*fp32:8\n     ^\n");
    expect_error("*fp32:1", "<signature>:1:6: error: the hint :1 is only valid for integers\n*fp32:1\n     ^\n");
    expect_error("i32, fp32:1",
                 "<signature>:1:10: error: the hint :1 is only valid for integers\ni32, fp32:1\n         ^\n");
    expect_error("fp16:16",
                 "<signature>:1:5: error: the hint :16 is only valid for pointers and integers\nfp16:16\n    ^\n");
    expect_error("i32,,i32", "<signature>:1:5: error: empty entry in signature\ni32,,i32\n    ^\n");
    expect_error("i32 i32",
                 "<signature>:1:5: error: expected ',' between signature entries, found 'i'\ni32 i32\n    ^\n");
    expect_error("'abc", "<signature>:1:1: error: unterminated string in signature\n'abc\n^\n");
    expect_error("12ab", "<signature>:1:1: error: malformed number '12ab' in signature\n12ab\n^\n");
    expect_error("*fp8e4b8",
                 "<signature>:1:2: error: type 'fp8e4b8' is not supported on NVIDIA GPUs\n*fp8e4b8\n ^\n");
    expect_error("*", "<signature>:1:2: error: expected a type in signature\n*\n ^\n");
    expect_error("(i32, i32", "<signature>:1:1: error: unclosed '(' in signature\n(i32, i32\n^\n");
    expect_error("(i32 i32)",
                 "<signature>:1:6: error: expected ',' or ')' in a tuple, found 'i'\n(i32 i32)\n     ^\n");
    expect_error("(i32,,)", "<signature>:1:6: error: empty entry in signature\n(i32,,)\n     ^\n");
}

int main(void) {
    test_entries();
    test_errors();
    if (failures) {
        fprintf(stderr, "test_signature: %d failure(s)\n", failures);
        return 1;
    }
    return 0;
}
