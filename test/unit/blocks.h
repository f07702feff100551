/* The kernel test blocks of kernels/NAME.py, read the same way by every unit
 * test that runs them. A block is a run of comment lines at the end of a
 * kernel file:
 *
 *   # kernel: add_kernel
 *   # signature: *fp32:16, *fp32:16, *fp32:16, i32:16, 1024
 *   # num_warps: 8                       (optional)
 *   # grid: (cdiv(n, 1024), 1, 1)
 *   # args: x = rand(n, fp32); ...; n = 98432
 *   # check: out == x + y
 *   # tol: 1e-6
 *   # arch: sm_89 sm_90a                 (optional: the targets the block runs
 *                                         on, instead of every one; fp8)
 *
 * A block starts at its "# kernel:" line; the other keys belong to the
 * latest block. Files whose name starts with '_' or '.' are not kernels. */
#ifndef TRIC_TEST_BLOCKS_H
#define TRIC_TEST_BLOCKS_H

#include "base/base.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct TestBlock {
    char path[256];
    int line;                  /* of the "# kernel:" line */
    char kernel[128], signature[512], num_warps[16], grid[256];
    char args[2048], check[2048], tol[256];
    char arch[64];             /* "" or targets separated by spaces */
} TestBlock;

/* The block's targets: its "# arch:" list, else dflt; *n how many. */
static inline int blocks_archs(const TestBlock *b, const char *const *dflt, int n_dflt, char out[][16], int cap) {
    int n = 0;
    if (!b->arch[0]) {
        for (int i = 0; i < n_dflt && n < cap; i++) snprintf(out[n++], 16, "%s", dflt[i]);
        return n;
    }
    for (const char *p = b->arch; *p && n < cap;) {
        size_t len = strcspn(p, " ,");
        if (len) snprintf(out[n++], 16, "%.*s", (int)len, p);
        p += len;
        p += strspn(p, " ,");
    }
    return n;
}

static void block_field(const char *line, size_t key_len, char *dst, size_t cap) {
    const char *v = line + key_len;
    while (*v == ' ') v++;
    snprintf(dst, cap, "%.*s", (int)strcspn(v, "\r\n"), v);
}

/* Appends the blocks of one file's text to *out (heap, grows). */
static void blocks_parse(const char *path, const char *text, TestBlock **out, int *n) {
    static const struct { const char *key; size_t off, cap; } keys[] = {
#define KEY(k, f) {"# " k ":", offsetof(TestBlock, f), sizeof(((TestBlock *)0)->f)}
        KEY("signature", signature), KEY("num_warps", num_warps), KEY("grid", grid),
        KEY("args", args), KEY("check", check), KEY("tol", tol), KEY("arch", arch),
#undef KEY
    };
    int line = 1, first = *n;
    for (const char *p = text; p && *p; line++) {
        if (!strncmp(p, "# kernel:", 9)) {
            *out = realloc(*out, (size_t)(*n + 1) * sizeof **out);
            TestBlock *b = &(*out)[(*n)++];
            memset(b, 0, sizeof *b);
            snprintf(b->path, sizeof b->path, "%s", path);
            b->line = line;
            block_field(p, 9, b->kernel, sizeof b->kernel);
        } else if (*n > first) {
            for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
                size_t len = strlen(keys[k].key);
                if (!strncmp(p, keys[k].key, len))
                    block_field(p, len, (char *)&(*out)[*n - 1] + keys[k].off, keys[k].cap);
            }
        }
        p = strchr(p, '\n');
        if (p) p++;
    }
}

static int blocks_name_cmp(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every block of every DIR/NAME.py, files in name order; *n = 0 when the
 * directory is missing. Free the result with free(). */
static TestBlock *blocks_read_dir(const char *dir_path, int *n) {
    TestBlock *out = NULL;
    *n = 0;
    DIR *dir = opendir(dir_path);
    if (!dir) return NULL;
    char **names = NULL;
    int n_names = 0;
    for (struct dirent *e; (e = readdir(dir)) != NULL;) {
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '_' || e->d_name[0] == '.' || len < 4 || strcmp(e->d_name + len - 3, ".py")) continue;
        names = realloc(names, (size_t)(n_names + 1) * sizeof *names);
        names[n_names++] = strdup(e->d_name);
    }
    closedir(dir);
    if (n_names) qsort(names, (size_t)n_names, sizeof *names, blocks_name_cmp);
    for (int i = 0; i < n_names; i++) {
        char path[256];
        snprintf(path, sizeof path, "%s/%s", dir_path, names[i]);
        Buf text = {0};
        if (buf_read_file(&text, path)) blocks_parse(path, buf_str(&text), &out, n);
        buf_free(&text);
        free(names[i]);
    }
    free(names);
    return out;
}

/* `--shard I/N` on the command line: this run takes the blocks b with
 * b % N == I, and the tests that are not per block only when I is 0, so
 * test/run.sh can spread one slow test over the CPUs. No option: all. */
typedef struct Shard {
    int i, n;
} Shard;

static inline Shard blocks_shard(int argc, char **argv) {
    Shard s = {0, 1};
    for (int k = 1; k + 1 < argc; k++)
        if (!strcmp(argv[k], "--shard") && sscanf(argv[k + 1], "%d/%d", &s.i, &s.n) == 2 && s.n > 0 && s.i >= 0 &&
            s.i < s.n)
            return s;
    return (Shard){0, 1};
}

static inline bool shard_has(Shard s, int b) { return b % s.n == s.i; }

#endif
