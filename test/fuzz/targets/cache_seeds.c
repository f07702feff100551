/* Seed entries for fuzz_cache: compiles kernels through the library with
 * the disk cache on and writes each entry it stored, less its checksum
 * line (fuzz_cache appends the right one), into OUTDIR.
 *
 *   cache_seeds OUTDIR FILE|KERNEL|SIGNATURE|ARCH ...
 *
 * Also writes a variant of the first entry whose imports name a file, and
 * a JIT cubin blob, so the fuzzer starts with those forms too. */
#include "base/base.h"
#include "runtime/rt.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void write_file(const char *dir, const char *name, const char *data, size_t n) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, n, f) != n) {
        fprintf(stderr, "cache_seeds: cannot write %s\n", path);
        exit(1);
    }
    fclose(f);
}

/* Moves every entry of cache (less its checksum line) to out, as NAME_i. */
static void take_entries(const char *cache, const char *out, const char *name, Buf *first) {
    DIR *d = opendir(cache);
    int i = 0;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 5, ".tric")) continue;
        char path[1024], seed[300];
        snprintf(path, sizeof path, "%s/%s", cache, e->d_name);
        Buf b = {0};
        if (buf_read_file(&b, path) && b.len > 72) {
            b.len -= 72;   /* "sha256 " + 64 + "\n" */
            snprintf(seed, sizeof seed, "%s_%d.entry", name, i++);
            write_file(out, seed, b.data, b.len);
            if (!first->len) buf_putn(first, b.data, b.len);
        }
        buf_free(&b);
        unlink(path);
    }
    if (d) closedir(d);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: cache_seeds OUTDIR FILE|KERNEL|SIGNATURE|ARCH ...\n");
        return 2;
    }
    const char *out = argv[1];
    char cache[] = "/tmp/tric-cache-seeds.XXXXXX";
    if (!mkdtemp(cache)) return 1;
    setenv("TRIC_CACHE_DIR", cache, 1);
    Buf first = {0};
    for (int i = 2; i < argc; i++) {
        char *spec = strdup(argv[i]);
        char *file = strtok(spec, "|"), *kernel = strtok(NULL, "|"), *sig = strtok(NULL, "|"), *arch = strtok(NULL, "|");
        tric_options opt = {.arch = arch ? arch : "sm_80"};
        tric_kernel *k = NULL;
        char *err = NULL;
        if (file && kernel && sig && tric_compile_file(file, kernel, sig, &opt, &k, &err) == TRIC_OK) {
            char name[256];
            const char *base = strrchr(file, '/');
            snprintf(name, sizeof name, "%s_%s_%s", base ? base + 1 : file, kernel, opt.arch);
            take_entries(cache, out, name, &first);
        } else {
            fprintf(stderr, "cache_seeds: %s: %s\n", argv[i], err ? err : "bad spec");
        }
        free(err);
        tric_kernel_free(k);
        free(spec);
    }
    rmdir(cache);
    if (first.len) {
        /* the first entry again, importing a module (fuzz_cache puts its own dirs hash in) */
        char *imp = strstr(first.data, "\nimports 0\n\n");
        if (imp) {
            static const char imports[] =
                "dirs 0000000000000000000000000000000000000000000000000000000000000000\n"
                "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 /nonexistent/fuzz/mod.py\n";
            Buf b = {0};
            buf_putn(&b, first.data, (size_t)(imp - first.data));
            buf_printf(&b, "\nimports %zu\n%s\n", strlen(imports), imports);
            write_file(out, "imports.entry", b.data, b.len);
            buf_free(&b);
        }
        static const char blob[] =
            "tric-blob 1 5 2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824\nhello";
        write_file(out, "jit.blob", blob, sizeof blob - 1);
    }
    int status = first.len || argc == 2 ? 0 : 1;
    buf_free(&first);
    return status;
}
