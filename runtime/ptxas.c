/* ptxas, run ahead of time: PTX text -> a cubin for one arch (what
 * `tric --emit c` embeds beside the PTX). Optional everywhere: without
 * ptxas the driver JIT-assembles the PTX at the first launch. */
#include "rt.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static bool is_executable(const char *path) { return access(path, X_OK) == 0; }

/* $TRIC_PTXAS ("none": no cubins), else ptxas on PATH, in $CUDA_HOME/bin,
 * in /usr/local/cuda/bin. NULL when there is none (heap otherwise). */
char *rt_find_ptxas(void) {
    const char *env = getenv("TRIC_PTXAS");
    if (env && *env) return strcmp(env, "none") == 0 ? NULL : strdup(env);
    Buf b = {0};
    const char *path = getenv("PATH");
    while (path && *path) {
        size_t n = strcspn(path, ":");
        if (n) {
            b.len = 0;
            buf_putn(&b, path, n);
            buf_puts(&b, "/ptxas");
            if (is_executable(b.data)) return buf_take(&b);
        }
        path += n + (path[n] == ':');
    }
    const char *home = getenv("CUDA_HOME");
    b.len = 0;
    if (home && *home) {
        buf_printf(&b, "%s/bin/ptxas", home);
        if (is_executable(b.data)) return buf_take(&b);
    }
    buf_free(&b);
    return is_executable("/usr/local/cuda/bin/ptxas") ? strdup("/usr/local/cuda/bin/ptxas") : NULL;
}

static bool write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (!f) return false;
    bool ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok;
}

/* Runs `ptxas -arch=ARCH in.ptx -o out.cubin` in a private temporary
 * directory; the cubin's bytes are appended to *cubin. On failure, false
 * with the reason (ptxas's own messages included) in *err. */
bool rt_ptxas(const char *ptxas, const char *ptx, const char *arch, Buf *cubin, Buf *err) {
    const char *tmp = getenv("TMPDIR");
    Buf dir = {0}, in = {0}, out = {0}, log = {0};
    buf_printf(&dir, "%s/tric-ptxas.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    bool ok = false;
    if (!mkdtemp(dir.data)) {
        buf_printf(err, "cannot make a temporary directory for ptxas: %s", strerror(errno));
        buf_free(&dir);
        return false;
    }
    buf_printf(&in, "%s/kernel.ptx", dir.data);
    buf_printf(&out, "%s/kernel.cubin", dir.data);
    buf_printf(&log, "%s/ptxas.log", dir.data);
    char arch_opt[32];
    snprintf(arch_opt, sizeof arch_opt, "-arch=%s", arch);
    char *argv[] = {(char *)ptxas, arch_opt, in.data, "-o", out.data, NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log.data, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    pid_t pid;
    int status = 0;
    if (!write_file(in.data, ptx)) {
        buf_printf(err, "cannot write %s: %s", in.data, strerror(errno));
    } else if ((errno = posix_spawn(&pid, ptxas, &fa, NULL, argv, environ)) != 0) {
        buf_printf(err, "cannot run %s: %s", ptxas, strerror(errno));
    } else if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        buf_printf(err, "%s %s failed:\n", ptxas, arch_opt);
        buf_read_file(err, log.data);
    } else if (!buf_read_file(cubin, out.data)) {
        buf_printf(err, "cannot read %s: %s", out.data, strerror(errno));
    } else {
        ok = true;
    }
    posix_spawn_file_actions_destroy(&fa);
    unlink(in.data);
    unlink(out.data);
    unlink(log.data);
    rmdir(dir.data);
    buf_free(&dir);
    buf_free(&in);
    buf_free(&out);
    buf_free(&log);
    return ok;
}
