/* Mutation fuzzing of the whole pipeline: every kernel test block in
 * kernels/NAME.py is compiled many times with its source mutated token by token
 * (a token deleted, duplicated, swapped with its neighbour, or replaced by
 * another token of the file or by an edge-case literal). Each compile must
 * either succeed or fail with a located user error; a crash, a sanitizer
 * report, an internal error (assert, IR verification failure) or a hang is a
 * failure. Fixed seed, so a failure reproduces; TRIC_FUZZ_ITERS raises the
 * count for longer runs. */
#include "base/base.h"
#include "frontend/frontend.h"
#include "runtime/tric.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blocks.h"

static uint64_t rng_next(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static const char *const edge_literals[] = {
    "0", "1", "-1", "3", "2147483647", "4294967296", "99999999999999999999", "1.5", "-0.0", "1e308",
    "None", "True", "tl.float16", "tl.int8", "(1, 2)", "[]", "x", "BLOCK", "tl", "(", ")", ":", "\n",
    "    ", "[:, None]", "**", "//", "%", "<<", "if", "for", "while", "return", "tl.arange(0, 3)",
};

/* One mutation of the tokens of src, as new source text (heap). */
static char *mutate(const char *src, const Token *toks, int n, uint64_t *seed) {
    int i = (int)(rng_next(seed) % (uint64_t)(n - 1));
    int j = (int)(rng_next(seed) % (uint64_t)(n - 1));
    int what = (int)(rng_next(seed) % 5);
    Buf out = {0};
    const char *cursor = src;
    for (int t = 0; t < n - 1; t++) {
        const Token *tk = &toks[t];
        if (tk->kind == T_INDENT || tk->kind == T_DEDENT || tk->kind == T_NEWLINE) continue;
        buf_putn(&out, cursor, (size_t)(tk->text - cursor));   /* whitespace and comments before */
        cursor = tk->text + tk->len;
        if (t != i) {
            buf_putn(&out, tk->text, (size_t)tk->len);
            continue;
        }
        switch (what) {
        case 0: break;                                                  /* delete */
        case 1: buf_putn(&out, tk->text, (size_t)tk->len); buf_putc(&out, ' ');
                buf_putn(&out, tk->text, (size_t)tk->len); break;       /* duplicate */
        case 2: buf_putn(&out, toks[j].text, (size_t)toks[j].len); break;   /* another token */
        case 3: buf_puts(&out, edge_literals[rng_next(seed) % ARRAY_LEN(edge_literals)]); break;
        default:                                                        /* swap with the next */
            if (t + 1 < n - 1 && toks[t + 1].kind != T_NEWLINE && toks[t + 1].kind != T_EOF) {
                const Token *nx = &toks[t + 1];
                buf_putn(&out, nx->text, (size_t)nx->len);
                buf_putn(&out, cursor, (size_t)(nx->text - cursor));
                buf_putn(&out, tk->text, (size_t)tk->len);
                cursor = nx->text + nx->len;
                t++;
            } else {
                buf_putn(&out, tk->text, (size_t)tk->len);
            }
        }
    }
    buf_puts(&out, cursor);
    return buf_take(&out);
}

/* A compile that fails must fail as a user error: located, not internal. */
static int check_one(const char *path, const char *src, const TestBlock *b, const char *arch, int *n_ok) {
    tric_options opt = {.arch = arch, .num_warps = 4, .num_stages = 3};
    tric_kernel *k = NULL;
    char *err = NULL;
    int rc = tric_compile_source(path, src, b->kernel, b->signature, &opt, &k, &err);
    int bad = 0;
    if (rc != TRIC_OK && rc != TRIC_ERR_COMPILE) bad = 1;
    if (rc == TRIC_ERR_COMPILE && (!err || strstr(err, "internal error") || !strstr(err, "error"))) bad = 1;
    if (rc == TRIC_OK && (!k || !strstr(tric_kernel_ptx(k), ".entry"))) bad = 1;
    if (rc == TRIC_OK) (*n_ok)++;
    if (bad) {
        fprintf(stderr, "FAIL: %s kernel %s: status %d\n--- source ---\n%s\n--- messages ---\n%s\n", path,
                b->kernel, rc, src, err ? err : "(none)");
    }
    tric_kernel_free(k);
    tric_free(err);
    return bad;
}

/* The file's tokens, or NULL when it does not lex. (setjmp in a function
 * of its own: gcc never inlines it, so main's locals stay unclobbered.) */
static Token *lex_or_null(Ctx *c, SrcFile *sf, int *n_toks) {
    jmp_buf jb;
    c->bail = &jb;
    if (setjmp(jb)) return NULL;
    return lex_file(c, sf, n_toks);
}

int main(int argc, char **argv) {
    Shard shard = blocks_shard(argc, argv);
    const char *env = getenv("TRIC_FUZZ_ITERS");
    int iters = env ? atoi(env) : 300;      /* per kernel block */
    setenv("TRIC_CACHE_DIR", "off", 1);
    int n_blocks = 0;
    TestBlock *blocks = blocks_read_dir("kernels", &n_blocks);
    if (n_blocks == 0) {
        fprintf(stderr, "no kernel test blocks: run from the repository root\n");
        return 1;
    }
    int failures = 0, compiles = 0, ok = 0;
    for (int b = 0; b < n_blocks; b++) {
        if (!shard_has(shard, b)) continue;
        /* each block's mutations from its own seed, whichever shard runs it */
        uint64_t seed = 0x9E3779B97F4A7C15ull * (uint64_t)(b + 1);
        Buf src = {0};
        if (!buf_read_file(&src, blocks[b].path)) continue;
        /* the tokens of the original point into the context's copy of the text: mutate that copy */
        Target t = {.sm = 80, .num_warps = 4, .num_stages = 3};
        Ctx *c = ctx_new(&t);
        SrcFile *sf = srcfile_from_string(c, blocks[b].path, buf_str(&src));
        int n_toks = 0;
        Token *toks = lex_or_null(c, sf, &n_toks);
        if (toks) {
            failures += check_one(blocks[b].path, buf_str(&src), &blocks[b], b % 2 ? "sm_90a" : "sm_80", &ok);   /* unmutated must pass */
            compiles++;
            for (int it = 0; it < iters && failures < 5; it++) {
                char *m = mutate(sf->text, toks, n_toks, &seed);
                failures += check_one(blocks[b].path, m, &blocks[b], it % 3 ? "sm_80" : "sm_90a", &ok);
                compiles++;
                free(m);
            }
        }
        ctx_free(c);
        buf_free(&src);
    }
    free(blocks);
    printf("fuzz_pipeline: %d compiles (%d compiled, the rest rejected with a message), %d failures\n", compiles, ok,
           failures);
    return failures ? 1 : 0;
}
