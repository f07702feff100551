/* tric, the command: argument handling and printing over rt_compile, the
 * same pipeline the C API runs (and rt_emit_c for --emit c). Every user
 * mistake exits 1 with a message on stderr; output (PTX, IR, tokens, AST)
 * goes to stdout or -o. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/rt.h"

static const char usage_text[] =
    "usage: tric FILE.py -k KERNEL -s SIGNATURE [options]   compile a @triton.jit kernel\n"
    "       tric FILE.tir [--passes P1,P2|all] [--emit ir|ptx]   run passes over IR text\n"
    "       tric FILE.py -k KERNEL -s SIG --interpret --grid G --args A   run on the CPU\n"
    "       tric FILE.py [-k KERNEL -s SIG [-s SIG2 ...]] --emit c [--arch A ...] -o BASE\n"
    "                                         C launchers: BASE.h and BASE.c\n"
    "\n"
    "  -k, --kernel NAME      the @jit function to compile\n"
    "  -s, --signature SIG    its argument types and constexpr values, Triton-style:\n"
    "                         '*fp32:16, *fp32:16, i32, 1024' (:16 = divisible by 16)\n"
    "  -o, --output FILE      write the result there instead of stdout\n"
    "  --arch ARCH            sm_80 (default), sm_86, sm_89, sm_90, sm_90a\n"
    "  --num-warps N          warps per program: 1, 2, 4 (default), 8, 16 or 32\n"
    "  --num-stages N         software pipelining depth (default 3)\n"
    "  --maxnreg N            at most N registers per thread (16..255; the entry's .maxnreg)\n"
    "  --no-fp-fusion         never contract float multiplies and adds into fma\n"
    "  --emit STAGE           tokens | ast | ir | ptx (default): stop after that stage;\n"
    "                         ir on a .py prints the IR right after lowering;\n"
    "                         tokens and ast need no -k (ast -k prints one function)\n"
    "  --emit c               BASE.h and BASE.c (-o BASE): a typed C launcher per kernel\n"
    "                         over its specializations (one per -s; without -k, every\n"
    "                         '# kernel:' block's '# signature:' lines and '# num_warps:'),\n"
    "                         chosen at run time from pointer alignment and integer\n"
    "                         values; PTX for each --arch (several allowed) and a cubin\n"
    "                         where ptxas is found (TRIC_PTXAS names it, 'none': no\n"
    "                         cubins; else PATH, CUDA_HOME/bin, /usr/local/cuda/bin).\n"
    "                         The C needs libcuda.so.1 at run time, nothing else\n"
    "  --passes LIST          .tir input: passes to run in order, or 'all' (default: none)\n"
    "  --dump-after PASS|all  print the IR after that pass (or every pass) to stdout\n"
    "  -I DIR                 look for imported modules in DIR too (repeatable; after the\n"
    "                         input's directory, before TRIC_PATH's colon-separated list)\n"
    "  --verify-each          run the IR verifier after every stage and pass\n"
    "  --stats                after compiling, print one line per kernel: estimated\n"
    "                         registers per thread (tric's estimate before ptxas, and the\n"
    "                         source line of its peak), shared memory bytes, num_warps,\n"
    "                         and whether the estimate exceeds 255 (would spill); to\n"
    "                         stderr, or to stdout when -o names the output file\n"
    "  --debug                compile device assertions (assert, tl.device_assert) into\n"
    "                         the PTX, as Triton's debug=True (--interpret checks them always)\n"
    "  --interpret            run the kernel on the CPU (the IR after all passes; for\n"
    "                         .tir, after --passes) instead of emitting anything\n"
    "  --simulate             like --interpret, but compile to PTX and run the PTX on the\n"
    "                         CPU simulator, every thread (num_warps * 32 per program)\n"
    "  --grid GX[,GY[,GZ]]    programs to run (default 1); may use names from --args:\n"
    "                         --grid 'cdiv(n, 256)'\n"
    "  --args 'A; B; ...'     one assignment per kernel parameter, in order:\n"
    "                         x=rand(1024,fp32); out=zeros(1024,fp32); n=1000\n"
    "                         buffers: rand(shape,dt) (uniform [-1,1)), randn, randint(lo,hi,\n"
    "                         shape,dt), zeros, ones, empty (NaN, or 0xAB bytes for integers),\n"
    "                         full(shape,v,dt), arange(n,dt); shape = N or (M, N);\n"
    "                         + - * / // % ** on arrays and numbers; a name may be used\n"
    "                         before its assignment\n"
    "  --print NAME,...       buffers to print after the run (default: all): the first\n"
    "                         16 elements, their sum and an FNV-1a hash of the bytes\n"
    "  --seed N               seed of rand/randint/... (default 1)\n"
    "  --help                 this text\n"
    "  --version              the version\n";

typedef struct Cli {
    const char *input, *kernel, *signature, *output, *arch, *emit, *passes, *dump_after;
    const char *num_warps, *num_stages, *maxnreg;
    const char *grid, *args, *print, *seed;
    bool verify_each, debug, interpret, simulate, stats, no_fp_fusion;
    const char **search_path;   /* -I DIR..., then TRIC_PATH's directories */
    int n_search_path;
    const char **signatures, **archs;   /* every -s and --arch (--emit c takes several) */
    int n_signatures, n_archs;
} Cli;

static _Noreturn void usage_error(const char *fmt, const char *arg) {
    fputs("tric: error: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\ntry 'tric --help'\n", stderr);
    exit(1);
}

static _Noreturn void unknown_arch(const char *arch) {
    Buf msg = {0};
    buf_printf(&msg, "unknown --arch '%s' (use ", arch);
    target_names(&msg, " or ");
    buf_puts(&msg, ")");
    usage_error("%s", msg.data);
}

/* "--name VALUE", "--name=VALUE" or "-k VALUE"; advances *i past the value. */
static bool take_value(int argc, char **argv, int *i, const char *lng, const char *shrt, const char **dst) {
    const char *a = argv[*i];
    size_t n = strlen(lng);
    if (strncmp(a, lng, n) == 0 && a[n] == '=') {
        *dst = a + n + 1;
        return true;
    }
    if (strcmp(a, lng) != 0 && !(shrt && strcmp(a, shrt) == 0)) return false;
    if (*i + 1 >= argc) usage_error("option '%s' needs a value", a);
    *dst = argv[++*i];
    return true;
}

static void add_value(const char ***list, int *n, const char *v) {
    *list = realloc(*list, sizeof(char *) * (size_t)(*n + 1));
    if (!*list) {
        fputs("tric: error: out of memory\n", stderr);
        exit(1);
    }
    (*list)[(*n)++] = v;
}

static void add_search_dir(Cli *cli, const char *dir, size_t n) {
    if (n == 0) return;
    cli->search_path = realloc(cli->search_path, sizeof(char *) * (size_t)(cli->n_search_path + 1));
    char *d = malloc(n + 1);
    if (!cli->search_path || !d) {
        fputs("tric: error: out of memory\n", stderr);
        exit(1);
    }
    memcpy(d, dir, n);
    d[n] = 0;
    cli->search_path[cli->n_search_path++] = d;
}

/* TRIC_PATH: colon-separated directories searched after the -I ones. */
static void add_tric_path(Cli *cli) {
    const char *p = getenv("TRIC_PATH");
    while (p && *p) {
        const char *colon = strchr(p, ':');
        size_t n = colon ? (size_t)(colon - p) : strlen(p);
        add_search_dir(cli, p, n);
        p = colon ? colon + 1 : NULL;
    }
}

static void parse_args(int argc, char **argv, Cli *cli) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage_text, stdout);
            exit(0);
        }
        if (strcmp(a, "--version") == 0) {
            printf("tric %s\n", TRIC_VERSION);
            exit(0);
        }
        if (strcmp(a, "--verify-each") == 0) {
            cli->verify_each = true;
            continue;
        }
        if (strcmp(a, "--stats") == 0) {
            cli->stats = true;
            continue;
        }
        if (strcmp(a, "--debug") == 0) {
            cli->debug = true;
            continue;
        }
        if (strcmp(a, "--no-fp-fusion") == 0) {
            cli->no_fp_fusion = true;
            continue;
        }
        if (strcmp(a, "--interpret") == 0) {
            cli->interpret = true;
            continue;
        }
        if (strcmp(a, "--simulate") == 0) {   /* --interpret's options, the PTX's run */
            cli->interpret = cli->simulate = true;
            continue;
        }
        if (take_value(argc, argv, &i, "--signature", "-s", &cli->signature)) {
            add_value(&cli->signatures, &cli->n_signatures, cli->signature);
            continue;
        }
        if (take_value(argc, argv, &i, "--arch", NULL, &cli->arch)) {
            add_value(&cli->archs, &cli->n_archs, cli->arch);
            continue;
        }
        if (take_value(argc, argv, &i, "--kernel", "-k", &cli->kernel) ||
            take_value(argc, argv, &i, "--output", "-o", &cli->output) ||
            take_value(argc, argv, &i, "--num-warps", NULL, &cli->num_warps) ||
            take_value(argc, argv, &i, "--num-stages", NULL, &cli->num_stages) ||
            take_value(argc, argv, &i, "--maxnreg", NULL, &cli->maxnreg) ||
            take_value(argc, argv, &i, "--emit", NULL, &cli->emit) ||
            take_value(argc, argv, &i, "--passes", NULL, &cli->passes) ||
            take_value(argc, argv, &i, "--dump-after", NULL, &cli->dump_after) ||
            take_value(argc, argv, &i, "--grid", NULL, &cli->grid) ||
            take_value(argc, argv, &i, "--args", NULL, &cli->args) ||
            take_value(argc, argv, &i, "--print", NULL, &cli->print) ||
            take_value(argc, argv, &i, "--seed", NULL, &cli->seed))
            continue;
        if (strncmp(a, "-I", 2) == 0) {
            const char *dir = a[2] ? a + 2 : i + 1 < argc ? argv[++i] : NULL;
            if (!dir) usage_error("option '%s' needs a directory", a);
            add_search_dir(cli, dir, strlen(dir));
            continue;
        }
        if (a[0] == '-' && a[1]) usage_error("unknown option '%s'", a);
        if (cli->input) usage_error("more than one input file ('%s')", a);
        cli->input = a;
    }
}

static bool ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* A decimal integer in [lo, hi], or a usage error naming the option. */
static int int_option(const char *opt, const char *s, int lo, int hi) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < lo || v > hi) {
        fprintf(stderr, "tric: error: %s must be an integer from %d to %d, not '%s'\ntry 'tric --help'\n",
                opt, lo, hi, s);
        exit(1);
    }
    return (int)v;
}

static const char *const emit_names[] = {"tokens", "ast", "ir", "ptx"};   /* RtEmit order */

static const char *emit_name(RtEmit e) { return emit_names[e]; }

static RtEmit parse_emit(const char *s) {
    for (int i = 0; i < (int)ARRAY_LEN(emit_names); i++)
        if (strcmp(s, emit_names[i]) == 0) return (RtEmit)i;
    usage_error("unknown --emit stage '%s' (use tokens, ast, ir, ptx or c)", s);
}

/* The request, after every check that needs no compiling. */
static void build_request(const Cli *cli, RtRequest *rq) {
    if (!cli->input) usage_error("%s", "no input file");
    rq->path = cli->input;
    rq->is_ir = ends_with(cli->input, ".tir");
    rq->emit = cli->emit ? parse_emit(cli->emit) : RT_EMIT_PTX;
    rt_default_target(&rq->target);
    if (cli->dump_after && strcmp(cli->dump_after, "all") && !rt_is_pass(cli->dump_after)) {
        /* a name that is no pass would dump nothing, silently */
        Buf msg = {0};
        buf_printf(&msg, "unknown --dump-after pass '%s' (use all, ", cli->dump_after);
        rt_pass_names(&msg);
        buf_puts(&msg, ")");
        usage_error("%s", msg.data);
    }
    if (cli->arch && !rt_parse_arch(cli->arch, &rq->target)) unknown_arch(cli->arch);
    if (cli->num_warps) {
        int w = int_option("--num-warps", cli->num_warps, 1, 32);
        if (w & (w - 1)) usage_error("--num-warps must be a power of two (1, 2, 4, 8, 16, 32), not %s", cli->num_warps);
        rq->target.num_warps = w;
    }
    if (cli->num_stages) rq->target.num_stages = int_option("--num-stages", cli->num_stages, 1, 16);
    if (cli->maxnreg) rq->target.maxnreg = int_option("--maxnreg", cli->maxnreg, 16, 255);
    rq->target.no_fp_fusion = cli->no_fp_fusion;
    rq->dump_after = cli->dump_after;
    rq->verify_each = cli->verify_each;
    rq->search_path = cli->search_path;
    rq->n_search_path = cli->n_search_path;
    rq->target.debug = cli->debug;
    if (!cli->interpret && (cli->grid || cli->args || cli->print || cli->seed))
        usage_error("%s", "--grid, --args, --print and --seed go with --interpret");
    if (cli->interpret && cli->stats) usage_error("%s", "--stats reports a compilation: it takes no --interpret");
    if (cli->interpret && cli->emit) usage_error("%s", "--interpret runs the kernel: it takes no --emit");
    if (rq->is_ir) {
        if (rq->emit == RT_EMIT_TOKENS || rq->emit == RT_EMIT_AST)
            usage_error("--emit %s needs a Python (.py) input", cli->emit);
        if (cli->kernel || cli->signature) usage_error("%s", "-k and -s apply to Python input, not to .tir files");
        rq->passes = cli->passes;
        return;
    }
    if (cli->passes)
        usage_error("%s", "--passes applies to .tir input (a .py kernel runs the whole pipeline)");
    if (cli->n_signatures > 1) usage_error("%s", "several -s go with --emit c (one launcher over specializations)");
    if (cli->n_archs > 1) usage_error("%s", "several --arch go with --emit c (one file for every arch)");
    rq->kernel = cli->kernel;
    rq->signature = cli->signature;
    bool lowers = rq->emit == RT_EMIT_IR || rq->emit == RT_EMIT_PTX || cli->interpret;
    const char *kmsg = cli->interpret ? "missing -k KERNEL (needed for --interpret%s)" : "missing -k KERNEL (needed for --emit %s)";
    const char *smsg = cli->interpret ? "missing -s SIGNATURE (needed for --interpret%s)"
                                      : "missing -s SIGNATURE (needed for --emit %s)";
    const char *stage = cli->interpret ? "" : emit_name(rq->emit);
    if (lowers && !cli->kernel) usage_error(kmsg, stage);
    if (lowers && !cli->signature) usage_error(smsg, stage);
}

static int write_output(const char *path, const char *text) {
    if (!path) {
        fputs(text, stdout);
        return 0;
    }
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        fprintf(stderr, "tric: error: cannot write %s: %s\n", path, strerror(errno));
        return 1;
    }
    return 0;
}

/* --stats: one line for the compiled kernel. */
static void print_stats(FILE *f, const RtResult *res) {
    if (!res->est_regs) {
        fprintf(f, "%s: no register estimate (the regs pass did not run: --passes all, or emit PTX)\n",
                res->kernel_name ? res->kernel_name : "kernel");
        return;
    }
    fprintf(f, "%s: estimated registers per thread %d (peak at %s), predicates %d, shared memory %d bytes, "
            "num_warps %d, %s\n", res->kernel_name, res->est_regs, res->est_peak ? res->est_peak : "?",
            res->est_preds, res->shared_bytes, res->num_warps,
            res->est_regs > 255 ? "over 255: would spill" : "fits in 255");
    if (res->loads) fputs(res->loads, f);
}

/* --emit c: BASE.h and BASE.c with a launcher per kernel (runtime/aot.c). */
static int emit_c(Cli *cli) {
    if (!cli->input) usage_error("%s", "no input file");
    if (ends_with(cli->input, ".tir")) usage_error("%s", "--emit c needs a Python (.py) input");
    if (!cli->output) usage_error("%s", "--emit c writes two files: give -o BASE for BASE.h and BASE.c");
    if (cli->interpret || cli->stats || cli->dump_after || cli->passes)
        usage_error("%s", "--emit c takes no --interpret, --stats, --dump-after or --passes");
    if (cli->signature && !cli->kernel) usage_error("%s", "-s goes with -k KERNEL");
    const char *emit = cli->emit;
    cli->emit = "ptx";   /* the shared option checks, for one arch and signature */
    const char *sig = cli->signature, *arch = cli->arch;
    int n_sig = cli->n_signatures, n_arch = cli->n_archs;
    cli->n_signatures = cli->n_archs = 0;
    cli->signature = sig ? sig : "-";
    const char *kernel = cli->kernel;
    cli->kernel = kernel ? kernel : "-";
    RtRequest base = {0};
    build_request(cli, &base);
    cli->emit = emit, cli->signature = sig, cli->arch = arch, cli->kernel = kernel;
    cli->n_signatures = n_sig, cli->n_archs = n_arch;
    RtAotSpec *specs = NULL;
    int n_specs = 0;
    if (kernel) {
        if (!n_sig) usage_error("missing -s SIGNATURE (needed for --emit c with -k %s)", kernel);
        specs = calloc((size_t)n_sig, sizeof *specs);
        if (!specs) usage_error("%s", "out of memory");
        for (int i = 0; i < n_sig; i++) specs[i] = (RtAotSpec){strdup(kernel), strdup(cli->signatures[i]), 0};
        n_specs = n_sig;
    } else {
        Buf text = {0};
        if (!buf_read_file(&text, cli->input)) {
            fprintf(stderr, "tric: error: cannot read %s: %s\n", cli->input, strerror(errno));
            return 1;
        }
        bool found = rt_aot_specs_from_blocks(buf_str(&text), &specs, &n_specs);
        buf_free(&text);
        if (!found)
            usage_error("%s has no '# kernel:' and '# signature:' lines: give -k KERNEL and -s SIGNATURE", cli->input);
    }
    const char *default_arch = "sm_80";
    const char *const *archs = n_arch ? cli->archs : &default_arch;
    for (int i = 0; i < n_arch; i++) {
        Target t;
        if (!rt_parse_arch(cli->archs[i], &t)) unknown_arch(cli->archs[i]);
    }
    char *name = strdup(cli->output);
    size_t len = strlen(name);
    if (len > 2 && (ends_with(name, ".c") || ends_with(name, ".h"))) name[len - 2] = 0;
    RtAotRequest rq = {&base, specs, n_specs, archs, n_arch ? n_arch : 1, name, true};
    RtAotResult res;
    bool ok = rt_emit_c(&rq, &res);
    fputs(res.diag, stderr);
    int status = 1;
    if (ok) {
        Buf path = {0};
        buf_printf(&path, "%s.h", name);
        status = write_output(path.data, res.header);
        path.len = 0;
        buf_printf(&path, "%s.c", name);
        if (!status) status = write_output(path.data, res.source);
        buf_free(&path);
    }
    rt_aot_result_free(&res);
    rt_aot_specs_free(specs, n_specs);
    free(name);
    return status;
}

int main(int argc, char **argv) {
    Cli cli = {0};
    parse_args(argc, argv, &cli);
    add_tric_path(&cli);
    if (cli.emit && strcmp(cli.emit, "c") == 0) {
        int status = emit_c(&cli);
        for (int i = 0; i < cli.n_search_path; i++) free((void *)cli.search_path[i]);
        free(cli.search_path);
        free(cli.signatures);
        free(cli.archs);
        return status;
    }
    RtRequest rq = {0};
    build_request(&cli, &rq);
    RtResult res;
    bool ok;
    if (cli.interpret) {
        RtInterpRequest irq = {cli.args, cli.grid, cli.print, 1, cli.simulate};
        if (cli.seed) irq.seed = (uint64_t)int_option("--seed", cli.seed, 0, 2147483647);
        ok = rt_interpret(&rq, &irq, &res);
    } else {
        ok = rt_compile(&rq, &res);
    }
    fputs(res.dumps, stdout);
    if (!ok && res.text) fputs(res.text, stdout);   /* a failed run's prints come before the error */
    fflush(stdout);
    fputs(res.diag, stderr);
    int status = ok ? write_output(cli.output, res.text) : 1;
    if (ok && cli.stats) print_stats(cli.output ? stdout : stderr, &res);
    rt_result_free(&res);
    for (int i = 0; i < cli.n_search_path; i++) free((void *)cli.search_path[i]);
    free(cli.search_path);
    free(cli.signatures);
    free(cli.archs);
    return status;
}
