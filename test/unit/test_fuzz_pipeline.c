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

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Block {
    char kernel[128];
    char signature[512];
} Block;

static uint64_t rng_next(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static char *read_file(const char *path) {
    Buf b = {0};
    if (!buf_read_file(&b, path)) {
        buf_free(&b);
        return NULL;
    }
    return buf_take(&b);
}

/* "# kernel: NAME" then "# signature: SIG" lines, as test/run.sh reads them */
static int find_blocks(const char *text, Block *blocks, int max) {
    int n = 0;
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        const char *kw;
        if (!strncmp(p, "# kernel:", 9) && n < max) {
            kw = p + 9;
            while (*kw == ' ') kw++;
            size_t len = strcspn(kw, "\r\n");
            snprintf(blocks[n].kernel, sizeof blocks[n].kernel, "%.*s", (int)len, kw);
            blocks[n].signature[0] = 0;
            n++;
        } else if (!strncmp(p, "# signature:", 12) && n > 0) {
            kw = p + 12;
            while (*kw == ' ') kw++;
            size_t len = strcspn(kw, "\r\n");
            snprintf(blocks[n - 1].signature, sizeof blocks[n - 1].signature, "%.*s", (int)len, kw);
        }
    }
    return n;
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
static int check_one(const char *path, const char *src, const Block *b, const char *arch, int *n_ok) {
    tric_options opt = {arch, 4, 3};
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

int main(void) {
    const char *env = getenv("TRIC_FUZZ_ITERS");
    int iters = env ? atoi(env) : 300;      /* per kernel block */
    setenv("TRIC_CACHE_DIR", "off", 1);
    DIR *d = opendir("kernels");
    if (!d) {
        fprintf(stderr, "run from the repository root\n");
        return 1;
    }
    int failures = 0, compiles = 0, ok = 0;
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    struct dirent *e;
    char *names[256];
    int n_names = 0;
    while ((e = readdir(d)) && n_names < 256) {
        size_t len = strlen(e->d_name);
        if (len > 3 && !strcmp(e->d_name + len - 3, ".py") && e->d_name[0] != '_') names[n_names++] = strdup(e->d_name);
    }
    closedir(d);
    for (int f = 0; f < n_names; f++) {
        char path[512];
        snprintf(path, sizeof path, "kernels/%s", names[f]);
        char *src = read_file(path);
        if (!src) continue;
        Block blocks[16];
        int nb = find_blocks(src, blocks, 16);
        /* tokens of the original, to mutate */
        Target t = {80, false, 4, 3};
        Ctx *c = ctx_new(&t);
        jmp_buf jb;
        c->bail = &jb;
        /* the tokens point into the context's copy of the text: mutate that copy */
        SrcFile *sf = srcfile_from_string(c, path, src);
        int n_toks = 0;
        Token *volatile toks = NULL;
        if (!setjmp(jb)) toks = lex_file(c, sf, &n_toks);
        for (int b = 0; b < nb && toks; b++) {
            failures += check_one(path, src, &blocks[b], b % 2 ? "sm_90a" : "sm_80", &ok);   /* unmutated must pass */
            compiles++;
            for (int it = 0; it < iters && failures < 5; it++) {
                char *m = mutate(sf->text, toks, n_toks, &seed);
                failures += check_one(path, m, &blocks[b], it % 3 ? "sm_80" : "sm_90a", &ok);
                compiles++;
                free(m);
            }
        }
        ctx_free(c);
        free(src);
        free(names[f]);
    }
    printf("fuzz_pipeline: %d compiles (%d compiled, the rest rejected with a message), %d failures\n", compiles, ok,
           failures);
    return failures ? 1 : 0;
}
