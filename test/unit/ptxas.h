/* ptxas for the unit tests: assemble a PTX module for one arch and say
 * whether ptxas accepts it. Without ptxas (PTXAS or /usr/local/cuda/bin/ptxas)
 * every module counts as accepted. On a failure ptxas's messages are printed;
 * PTX_KEEP=1 keeps the module's file and prints its path. */
#ifndef TRIC_TEST_PTXAS_H
#define TRIC_TEST_PTXAS_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static inline const char *ptxas_path(void) {
    const char *p = getenv("PTXAS");
    if (p && *p) return p;
    return access("/usr/local/cuda/bin/ptxas", X_OK) == 0 ? "/usr/local/cuda/bin/ptxas" : NULL;
}

/* ptxas ARGS on the module, its output to read: the module is written to
 * path (a template the caller keeps, "/tmp/tric-ptx-XXXXXX.ptx"); NULL if
 * that fails. The caller pcloses and unlinks path. */
static inline FILE *ptxas_popen(const char *ptxas, const char *ptx, const char *args, char *path) {
    int fd = mkstemps(path, 4);
    if (fd < 0) return NULL;
    FILE *f = fdopen(fd, "w");
    fputs(ptx, f);
    fclose(f);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s %s %s -o /dev/null 2>&1", ptxas, args, path);
    return popen(cmd, "r");
}

static inline bool ptxas_accepts(const char *ptx, const char *arch, const char *what) {
    const char *ptxas = ptxas_path();
    if (!ptxas) return true;
    char path[] = "/tmp/tric-test-XXXXXX.ptx", args[64];
    snprintf(args, sizeof args, "-arch=%s", arch);
    FILE *p = ptxas_popen(ptxas, ptx, args, path);
    char out[4096];
    size_t n = p ? fread(out, 1, sizeof out - 1, p) : 0;
    out[n] = 0;
    int rc = p ? pclose(p) : -1;
    if (rc != 0) {
        printf("%s: ptxas -arch=%s failed (status %d):\n%s", what, arch, rc, out);
        if (getenv("PTX_KEEP")) {
            printf("  kept %s\n", path);
            return false;
        }
    }
    unlink(path);
    return rc == 0;
}

#endif
