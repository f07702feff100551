/* Random well-typed kernels (kernelgen.h) through the whole pipeline.
 *
 * Each kernel must compile for sm_80 and sm_90a with its block's num_warps
 * (a kernel the compiler rejects is a failure: the generator or the
 * compiler is wrong); for each target the CPU interpreter must give
 * bit-identical buffers after lowering and after every pass, and the
 * simulated PTX must agree with the last stage (differential.h). Each runs in a
 * child process, so a crash, a sanitizer report or a hang is reported with
 * its seed and the others still run.
 *
 *   test_kernelgen                      a fixed-seed batch, then every test/fuzz/NAME.py
 *   test_kernelgen --seconds N --save DIR
 *                                       random seeds (from time and pid) for N
 *                                       seconds; each failing kernel, reduced,
 *                                       goes to DIR/gen_SEED.py; exit 1 if any
 *   test_kernelgen --seed S [--count N] [--print] [--reduce]
 *                  [--stmts K] [--depth D] [--features X]
 *                                       reproduce (and show, and reduce) given kernels
 *   test_kernelgen --file PATH          the test blocks of one kernel file */
#include "base/base.h"
#include "runtime/rt.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "blocks.h"
#include "differential.h"
#include "kernelgen.h"

#define BATCH_SEED 1
#define BATCH_COUNT 250
#define KERNEL_SECONDS 60     /* a child that runs longer hangs */

typedef struct Outcome {
    bool ok;
    int stages, sims;
    Buf report;               /* everything the child printed */
} Outcome;

/* ---- in the child ---- */

/* One target: the interpreter after every stage of the pipeline, then the
 * simulated PTX against the last stage. Prints a FAIL line per problem. */
static int check_target(const char *where, const char *path, const char *src, const TestBlock *b, const char *arch,
                        int *stages, int *sims) {
    RtRequest rq = {.path = path, .source = src, .kernel = b->kernel, .signature = b->signature};
    rt_default_target(&rq.target);
    rt_parse_arch(arch, &rq.target);
    if (b->num_warps[0]) rq.target.num_warps = atoi(b->num_warps);
    Diff d = {.where = where, .args = b->args, .grid = b->grid, .seed = 12345};
    char *diag = NULL;
    int fails = 0;
    if (!rt_each_stage(&rq, diff_on_stage, &d, &diag)) {
        printf("FAIL %s [%s]: does not compile:\n%s", where, arch, diag);
        fails++;
    } else if (d.unsupported) {
        printf("FAIL %s [%s]: the interpreter cannot set it up: %s", where, arch, d.unsupported_why);
        fails++;
    } else if (d.failed) {
        fails++;
    } else {
        *stages += d.stages;
        if (diff_simulate(&d, &rq)) (*sims)++;
        else fails++;
    }
    diff_free(&d);
    free(diag);
    return fails;
}

static int check_block(const char *path, const char *src, const TestBlock *b, int *stages, int *sims) {
    char where[512];
    snprintf(where, sizeof where, "%s:%d %s", path, b->line, b->kernel);
    int fails = check_target(where, path, src, b, "sm_80", stages, sims);
    if (!fails) fails += check_target(where, path, src, b, "sm_90a", stages, sims);
    return fails;
}

/* Runs check_block in a child; its output and verdict into *o. */
static void run_isolated(const char *path, const char *src, const TestBlock *b, Outcome *o) {
    int fd[2];
    o->ok = false;
    o->stages = o->sims = 0;
    buf_free(&o->report);
    fflush(stdout);
    fflush(stderr);
    if (pipe(fd) != 0) {
        buf_printf(&o->report, "pipe: %s\n", strerror(errno));
        return;
    }
    pid_t pid = fork();
    if (pid < 0) {
        buf_printf(&o->report, "fork: %s\n", strerror(errno));
        close(fd[0]);
        close(fd[1]);
        return;
    }
    if (pid == 0) {
        close(fd[0]);
        dup2(fd[1], 1);
        dup2(fd[1], 2);
        close(fd[1]);
        alarm(KERNEL_SECONDS);
        int stages = 0, sims = 0;
        int fails = check_block(path, src, b, &stages, &sims);
        printf("RESULT stages=%d sims=%d\n", stages, sims);
        fflush(stdout);
        exit(fails ? 1 : 0);
    }
    close(fd[1]);
    char chunk[4096];
    for (ssize_t got; (got = read(fd[0], chunk, sizeof chunk)) != 0;) {
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) break;
        buf_putn(&o->report, chunk, (size_t)got);
    }
    close(fd[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    const char *r = strstr(buf_str(&o->report), "RESULT stages=");
    if (r) sscanf(r, "RESULT stages=%d sims=%d", &o->stages, &o->sims);
    if (WIFSIGNALED(status))
        buf_printf(&o->report, "FAIL %s: %s\n", b->kernel,
                   WTERMSIG(status) == SIGALRM ? "timed out" : strsignal(WTERMSIG(status)));
    else if (WEXITSTATUS(status) != 0 && !strstr(buf_str(&o->report), "FAIL"))
        buf_printf(&o->report, "FAIL %s: exit status %d (sanitizer report above)\n", b->kernel, WEXITSTATUS(status));
    o->ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 && r;
}

/* ---- generated kernels ---- */

/* The generated kernel of (seed, opt) through run_isolated. */
static void run_generated(uint64_t seed, const KgenOptions *opt, Outcome *o, char **src_out) {
    char *src = kgen_kernel(seed, opt);
    char path[64];
    snprintf(path, sizeof path, "gen_%llu.py", (unsigned long long)seed);
    TestBlock *blocks = NULL;
    int n = 0;
    blocks_parse(path, src, &blocks, &n);
    if (n != 1) {
        buf_free(&o->report);
        buf_printf(&o->report, "FAIL %s: the generator wrote %d test blocks\n", path, n);
        o->ok = false;
    } else {
        run_isolated(path, src, &blocks[0], o);
    }
    free(blocks);
    if (src_out) *src_out = src;
    else free(src);
}

/* The report's first FAIL line (or its first line), for a comment. */
static void first_failure(const char *report, char *out, size_t cap) {
    const char *f = strstr(report, "FAIL");
    if (!f) f = report;
    size_t len = strcspn(f, "\n");
    snprintf(out, cap, "%.*s", (int)(len < cap - 1 ? len : cap - 1), f);
}

static void print_repro(uint64_t seed, const KgenOptions *o) {
    printf("  reproduce: test_kernelgen --seed %llu --count 1 --stmts %d --depth %d --features 0x%x --print\n",
           (unsigned long long)seed, o->stmts, o->depth, o->features);
}

/* Greedy reduction over the generator's knobs: features off, fewer
 * statements, shallower expressions, while the kernel still fails. */
static KgenOptions reduce(uint64_t seed, KgenOptions best) {
    Outcome o = {0};
    for (unsigned bit = 1; bit < KG_ALL; bit <<= 1) {
        if (!(best.features & bit)) continue;
        KgenOptions t = best;
        t.features &= ~bit;
        run_generated(seed, &t, &o, NULL);
        if (!o.ok) best = t;
    }
    for (int s = 0; s < best.stmts; s++) {
        KgenOptions t = best;
        t.stmts = s;
        run_generated(seed, &t, &o, NULL);
        if (!o.ok) {
            best = t;
            break;
        }
    }
    for (int d = 1; d < best.depth; d++) {
        KgenOptions t = best;
        t.depth = d;
        run_generated(seed, &t, &o, NULL);
        if (!o.ok) {
            best = t;
            break;
        }
    }
    buf_free(&o.report);
    return best;
}

/* Writes DIR/gen_SEED.py: what failed, how to reproduce, the kernel. */
static void save_failure(const char *dir, uint64_t seed, const KgenOptions *opt) {
    Outcome o = {0};
    char *src = NULL, what[400], path[512];
    run_generated(seed, opt, &o, &src);
    first_failure(buf_str(&o.report), what, sizeof what);
    snprintf(path, sizeof path, "%s/gen_%llu.py", dir, (unsigned long long)seed);
    FILE *f = fopen(path, "w");
    if (!f) {
        printf("cannot write %s: %s\n", path, strerror(errno));
    } else {
        fprintf(f, "# fuzz: %s\n# reproduce: test_kernelgen --seed %llu --count 1 --stmts %d --depth %d --features 0x%x\n%s",
                what, (unsigned long long)seed, opt->stmts, opt->depth, opt->features, src);
        fclose(f);
        printf("  saved %s\n", path);
    }
    free(src);
    buf_free(&o.report);
}

typedef struct Totals {
    int kernels, stages, sims, failures;
} Totals;

static bool one_generated(uint64_t seed, const KgenOptions *opt, Totals *t, bool quiet_pass) {
    Outcome o = {0};
    run_generated(seed, opt, &o, NULL);
    t->kernels++;
    t->stages += o.stages;
    t->sims += o.sims;
    if (!o.ok) {
        t->failures++;
        printf("seed %llu failed:\n%s", (unsigned long long)seed, buf_str(&o.report));
        print_repro(seed, opt);
    } else if (!quiet_pass) {
        printf("seed %llu: ok, %d stages\n", (unsigned long long)seed, o.stages);
    }
    buf_free(&o.report);
    return o.ok;
}

/* blocks_read_dir hands qsort a null array when a directory has no
 * NAME.py (UBSan stops on that): look first. */
static bool dir_has_kernels(const char *path) {
    DIR *dir = opendir(path);
    bool found = false;
    if (!dir) return false;
    for (struct dirent *e; !found && (e = readdir(dir)) != NULL;) {
        size_t len = strlen(e->d_name);
        found = e->d_name[0] != '_' && e->d_name[0] != '.' && len > 3 && !strcmp(e->d_name + len - 3, ".py");
    }
    closedir(dir);
    return found;
}

/* every test block of one file (--file), or of test/fuzz/NAME.py */
static void saved_cases(Totals *t, const char *file) {
    int n = 0;
    TestBlock *blocks = NULL;
    if (file) {
        Buf text = {0};
        if (buf_read_file(&text, file)) blocks_parse(file, buf_str(&text), &blocks, &n);
        else printf("FAIL cannot read %s\n", file);
        buf_free(&text);
    } else if (dir_has_kernels("test/fuzz")) {
        blocks = blocks_read_dir("test/fuzz", &n);
    }
    for (int i = 0; i < n; i++) {
        Buf text = {0};
        Outcome o = {0};
        if (!buf_read_file(&text, blocks[i].path)) {
            printf("FAIL cannot read %s\n", blocks[i].path);
            t->failures++;
            continue;
        }
        run_isolated(blocks[i].path, buf_str(&text), &blocks[i], &o);
        t->kernels++;
        t->stages += o.stages;
        t->sims += o.sims;
        if (!o.ok) {
            t->failures++;
            printf("%s failed:\n%s", blocks[i].path, buf_str(&o.report));
        } else if (file) {
            printf("%s:%d: ok, %d stages, %d simulated\n", file, blocks[i].line, o.stages, o.sims);
        }
        buf_free(&o.report);
        buf_free(&text);
    }
    free(blocks);
}

static uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* --seconds N --save DIR */
static int fuzz(double seconds, const char *dir, const KgenOptions *opt) {
    uint64_t base = mix((uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32));
    printf("fuzz: %g seconds from base seed %llu, failures to %s/\n", seconds, (unsigned long long)base, dir);
    Totals t = {0};
    double end = now_seconds() + seconds;
    for (uint64_t i = 0; now_seconds() < end; i++) {
        uint64_t seed = mix(base + i) >> 1;
        if (one_generated(seed, opt, &t, true)) continue;
        KgenOptions r = reduce(seed, *opt);
        save_failure(dir, seed, &r);
    }
    printf("fuzz: %d kernels, %d stages compared bit-identically, %d through the simulator, %d failures\n", t.kernels,
           t.stages, t.sims, t.failures);
    return t.failures != 0;
}

static void usage(void) {
    fprintf(stderr, "usage: test_kernelgen [--seconds N --save DIR] [--seed S [--count N] [--print] [--reduce]] "
                    "[--stmts K] [--depth D] [--features X] [--file PATH]\n");
    exit(2);
}

int main(int argc, char **argv) {
    setenv("TRIC_CACHE_DIR", "off", 1);
    KgenOptions opt = kgen_default;
    double seconds = 0;
    const char *save = NULL, *file = NULL;
    bool have_seed = false, print = false, want_reduce = false;
    uint64_t seed = 0;
    long count = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--print")) { print = true; continue; }
        if (!strcmp(a, "--reduce")) { want_reduce = true; continue; }
        if (!v) usage();
        i++;
        if (!strcmp(a, "--seconds")) seconds = atof(v);
        else if (!strcmp(a, "--save")) save = v;
        else if (!strcmp(a, "--file")) file = v;
        else if (!strcmp(a, "--seed")) { seed = strtoull(v, NULL, 0); have_seed = true; }
        else if (!strcmp(a, "--count")) count = atol(v);
        else if (!strcmp(a, "--stmts")) opt.stmts = atoi(v);
        else if (!strcmp(a, "--depth")) opt.depth = atoi(v);
        else if (!strcmp(a, "--features")) opt.features = (unsigned)strtoul(v, NULL, 0);
        else usage();
    }
    if (seconds > 0) return fuzz(seconds, save ? save : "test/fuzz", &opt);
    Totals t = {0};
    double start = now_seconds();
    if (file) {
        saved_cases(&t, file);
    } else if (have_seed) {
        for (long i = 0; i < count; i++) {
            if (print) {
                char *src = kgen_kernel(seed + (uint64_t)i, &opt);
                fputs(src, stdout);
                free(src);
            }
            if (one_generated(seed + (uint64_t)i, &opt, &t, false) || !want_reduce) continue;
            KgenOptions r = reduce(seed + (uint64_t)i, opt);
            printf("reduced:\n");
            print_repro(seed + (uint64_t)i, &r);
        }
    } else {
        for (long i = 0; i < BATCH_COUNT; i++) one_generated(BATCH_SEED + (uint64_t)i, &opt, &t, true);
        saved_cases(&t, NULL);
    }
    printf("kernelgen: %d kernels in %.1f s, %d pipeline stages compared bit-identically, %d runs through the "
           "simulator, %d failures\n", t.kernels, now_seconds() - start, t.stages, t.sims, t.failures);
    return t.failures != 0;
}
