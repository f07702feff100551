/* A main() for the fuzz targets without libFuzzer (make test builds them
 * with gcc and the sanitizers): every file named, and every file in every
 * directory named (not below it: a pending/ directory there is skipped),
 * is fed once to LLVMFuzzerTestOneInput, in name order. A crash or a
 * sanitizer report ends the process, naming the input first. */
#include "fuzz.h"

#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>

static int run_file(const char *path) {
    Buf b = {0};
    if (!buf_read_file(&b, path)) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        return 1;
    }
    fprintf(stderr, "replay: %s\n", path);
    /* a copy of exactly its bytes, so ASan sees a read past the end */
    uint8_t *data = malloc(b.len ? b.len : 1);
    if (!data) abort();
    memcpy(data, b.data ? b.data : "", b.len);
    LLVMFuzzerTestOneInput(data, b.len);
    free(data);
    buf_free(&b);
    return 0;
}

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int run_dir(const char *dir, int *count) {
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "replay: cannot open %s\n", dir);
        return 1;
    }
    char **names = NULL;
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.') continue;
        names = realloc(names, (n + 1) * sizeof *names);
        if (!names) abort();
        names[n] = malloc(strlen(dir) + strlen(e->d_name) + 2);
        if (!names[n]) abort();
        sprintf(names[n++], "%s/%s", dir, e->d_name);
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, cmp_names);
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
            bad |= run_file(names[i]);
            (*count)++;
        }
        free(names[i]);
    }
    free(names);
    return bad;
}

int main(int argc, char **argv) {
    int bad = 0, count = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: no %s\n", argv[i]);
            bad = 1;
        } else if (S_ISDIR(st.st_mode)) {
            bad |= run_dir(argv[i], &count);
        } else {
            bad |= run_file(argv[i]);
            count++;
        }
    }
    printf("replayed %d inputs\n", count);
    return bad;
}
