/* The disk cache behind tric_compile_*: SHA-256 against the FIPS vectors,
 * a second compile of the same kernel read back identical, misses for any
 * change of key, corrupt entries ignored and rewritten, TRIC_CACHE_DIR=off
 * (read at each compile); what the cache refuses to trust or read (a
 * directory or entry others can write or own, a FIFO, a symbolic link, an
 * oversized entry, such an imported module) and the 0700 directories it
 * makes; and the other additions for the Python package: tric_kernel_ir,
 * dtype(...) constexprs, `import tric` in kernels, and the packed launch /
 * attributes / events failing cleanly without a driver. Whatever could
 * hang (a FIFO read) runs under alarm(). */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/rt.h"

#include "check.h"

static const char src[] =
    "import tric\n"
    "from tric import language as tl\n"
    "\n"
    "@tric.jit\n"
    "def cast_kernel(x_ptr, out_ptr, n, OUT: tl.constexpr, BLOCK: tl.constexpr):\n"
    "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
    "    m = offs < n\n"
    "    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m).to(OUT), mask=m)\n";

static const char sig[] = "*fp32:16, *fp16:16, i32, dtype(fp16), 128";

static void test_sha256(void) {
    static const struct { const char *in, *hex; } vectors[] = {
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
    };
    for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
        uint8_t d[32];
        char hex[65];
        rt_sha256(vectors[i].in, strlen(vectors[i].in), d);
        for (int j = 0; j < 32; j++) snprintf(hex + 2 * j, 3, "%02x", d[j]);
        CHECK(strcmp(hex, vectors[i].hex) == 0);
    }
    /* a million 'a': many blocks through the streaming path */
    char *a = malloc(1000000);
    memset(a, 'a', 1000000);
    uint8_t d[32];
    rt_sha256(a, 1000000, d);
    CHECK(d[0] == 0xcd && d[1] == 0xc7 && d[30] == 0x2c && d[31] == 0xd0);
    free(a);
}

static int count_entries(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strstr(e->d_name, ".tric") && e->d_name[0] != '.') n++;
    closedir(d);
    return n;
}

/* The only entry's path into buf. */
static void entry_path(const char *dir, char *buf, size_t size) {
    DIR *d = opendir(dir);
    struct dirent *e;
    buf[0] = 0;
    while (d && (e = readdir(d)))
        if (strstr(e->d_name, ".tric") && e->d_name[0] != '.' &&
            snprintf(buf, size, "%s/%s", dir, e->d_name) >= (int)size)
            buf[0] = 0;
    if (d) closedir(d);
}

static tric_kernel *compile(const char *source, const char *signature, const tric_options *opt) {
    tric_kernel *k = NULL;
    char *err = NULL;
    if (tric_compile_source("cast.py", source, "cast_kernel", signature, opt, &k, &err))
        fprintf(stderr, "compile failed:\n%s", err ? err : "(no message)");
    tric_free(err);
    return k;
}

static void same_kernel(const tric_kernel *a, const tric_kernel *b) {
    CHECK(strcmp(tric_kernel_ptx(a), tric_kernel_ptx(b)) == 0);
    CHECK(strcmp(tric_kernel_ir(a), tric_kernel_ir(b)) == 0);
    CHECK(strcmp(tric_kernel_name(a), tric_kernel_name(b)) == 0);
    CHECK(tric_kernel_num_warps(a) == tric_kernel_num_warps(b));
    CHECK(tric_kernel_shared_bytes(a) == tric_kernel_shared_bytes(b));
    CHECK(tric_kernel_estimated_registers(a) == tric_kernel_estimated_registers(b) &&
          tric_kernel_estimated_registers(a) > 0);
    CHECK(tric_kernel_num_params(a) == tric_kernel_num_params(b));
    for (int i = 0; i < tric_kernel_num_params(a); i++) {
        const tric_param *p = tric_kernel_param(a, i), *q = tric_kernel_param(b, i);
        CHECK(strcmp(p->name, q->name) == 0 && strcmp(p->type, q->type) == 0);
        CHECK(p->kind == q->kind && p->bytes == q->bytes);
        CHECK(p->part == q->part && p->part_index == q->part_index);
    }
}

/* A tensor descriptor argument's parameters (base, shape dims, strides but
 * the last) keep their parts through the cache. */
static void test_descriptor_params(void) {
    static const char desc_src[] =
        "import triton\n"
        "import triton.language as tl\n"
        "@triton.jit\n"
        "def desc_kernel(d, out):\n"
        "    tl.store(out + tl.arange(0, 16), tl.sum(d.load([0, 0, 0]), 0).sum(0))\n";
    static const char desc_sig[] = "tensordesc<fp32[2, 4, 16]>, *fp32";
    tric_options opt = {.arch = "sm_80", .num_warps = 4, .num_stages = 3};
    tric_kernel *k[2] = {NULL, NULL};
    for (int i = 0; i < 2; i++) {
        char *err = NULL;
        if (tric_compile_source("desc.py", desc_src, "desc_kernel", desc_sig, &opt, &k[i], &err))
            fprintf(stderr, "compile failed:\n%s", err ? err : "(no message)");
        tric_free(err);
    }
    CHECK(k[0] && k[1] && !tric_kernel_cache_hit(k[0]) && tric_kernel_cache_hit(k[1]));
    if (k[0] && k[1]) {
        same_kernel(k[0], k[1]);
        static const int parts[] = {TRIC_PARAM_DESC_BASE, TRIC_PARAM_DESC_SHAPE, TRIC_PARAM_DESC_SHAPE,
                                    TRIC_PARAM_DESC_SHAPE, TRIC_PARAM_DESC_STRIDE, TRIC_PARAM_DESC_STRIDE,
                                    TRIC_PARAM_WHOLE};
        static const int index[] = {0, 0, 1, 2, 0, 1, 0};
        CHECK(tric_kernel_num_params(k[1]) == 7);
        for (int i = 0; i < 7 && i < tric_kernel_num_params(k[1]); i++) {
            const tric_param *p = tric_kernel_param(k[1], i);
            CHECK_MSG(p->part == parts[i] && p->part_index == index[i] && !strcmp(p->name, i < 6 ? "d" : "out"),
                      "param %d: %s part %d index %d", i, p->name, p->part, p->part_index);
        }
    }
    tric_kernel_free(k[0]);
    tric_kernel_free(k[1]);
}

/* On sm_90a a 2-D descriptor's tensor map (its type has spaces) and a
 * descriptor made in the kernel (global scratch) come back from the cache */
static void test_tensor_maps(void) {
    static const char tm_src[] =
        "import triton\n"
        "import triton.language as tl\n"
        "@triton.jit\n"
        "def tm_kernel(d, x, n):\n"
        "    e = tl.make_tensor_descriptor(x, shape=[n, n], strides=[n, 1], block_shape=[16, 16])\n"
        "    tl.store(x + tl.arange(0, 16), tl.sum(d.load([0, 0]), 0) + tl.sum(e.load([0, 0]), 0))\n";
    tric_options opt = {.arch = "sm_90a", .num_warps = 4, .num_stages = 3};
    tric_kernel *k[2] = {NULL, NULL};
    for (int i = 0; i < 2; i++) {
        char *err = NULL;
        if (tric_compile_source("tm.py", tm_src, "tm_kernel", "tensordesc<fp32[8, 16]>, *fp32:16, i32:16", &opt, &k[i],
                                &err))
            fprintf(stderr, "compile failed:\n%s", err ? err : "(no message)");
        tric_free(err);
    }
    CHECK(k[0] && k[1] && tric_kernel_cache_hit(k[1]));
    if (k[0] && k[1]) {
        same_kernel(k[0], k[1]);
        const tric_param *m = tric_kernel_param(k[1], 4);
        CHECK(m && m->kind == TRIC_PARAM_TENSORMAP && m->part == TRIC_PARAM_DESC_TMAP && m->bytes == 128 &&
              !strcmp(m->type, "tensordesc<fp32[8, 16]>"));
        int n = tric_kernel_num_params(k[1]);
        const tric_param *s = tric_kernel_param(k[1], n - 1);
        CHECK(s && s->part == TRIC_PARAM_SCRATCH && tric_kernel_scratch_bytes(k[1]) == 128);
    }
    tric_kernel_free(k[0]);
    tric_kernel_free(k[1]);
}

static void test_hit_and_miss(const char *dir) {
    tric_options opt = {.arch = "sm_80", .num_warps = 4, .num_stages = 3};
    tric_kernel *a = compile(src, sig, &opt);
    tric_kernel *b = compile(src, sig, &opt);
    CHECK(a && b);
    if (!a || !b) return;
    CHECK(!tric_kernel_cache_hit(a));
    CHECK(tric_kernel_cache_hit(b));
    CHECK(count_entries(dir) == 1);
    same_kernel(a, b);
    CHECK(strstr(tric_kernel_ir(a), "cast") != NULL);   /* the IR after the passes: the fp16 cast */
    CHECK(strstr(tric_kernel_ptx(a), "cvt.rn.f16.f32") != NULL);
    CHECK(tric_kernel_num_params(a) == 3);

    /* every part of the key makes a new entry */
    tric_options warps8 = {.arch = "sm_80", .num_warps = 8, .num_stages = 3};
    tric_options stages2 = {.arch = "sm_80", .num_warps = 4, .num_stages = 2};
    tric_options sm90 = {.arch = "sm_90a", .num_warps = 4, .num_stages = 3};
    tric_options debug = {.arch = "sm_80", .num_warps = 4, .num_stages = 3, .debug = 1};
    const tric_options *opts[] = {&warps8, &stages2, &sm90, &debug};
    for (int i = 0; i < 4; i++) {
        tric_kernel *k = compile(src, sig, opts[i]);
        CHECK(k && !tric_kernel_cache_hit(k));
        tric_kernel_free(k);
    }
    tric_kernel *k = compile(src, "*fp32:16, *fp16:16, i32, dtype(bf16), 128", &opt);
    CHECK(k && !tric_kernel_cache_hit(k));
    tric_kernel_free(k);
    char edited[sizeof src + 16];
    snprintf(edited, sizeof edited, "%s# edited\n", src);
    k = compile(edited, sig, &opt);
    CHECK(k && !tric_kernel_cache_hit(k));
    tric_kernel_free(k);
    CHECK(count_entries(dir) == 7);

    tric_kernel_free(a);
    tric_kernel_free(b);
}

/* Damage the entry in each way a reader could meet it. */
static void test_corrupt(const char *dir) {
    tric_options opt = {.arch = "sm_86", .num_warps = 4, .num_stages = 3};
    tric_kernel *k = compile(src, sig, &opt);
    tric_kernel_free(k);
    int before = count_entries(dir);
    char path[8192];
    /* the newest entry is the sm_86 one: find it by recompiling in a fresh dir */
    char sub[4096];
    snprintf(sub, sizeof sub, "%s/corrupt", dir);
    setenv("TRIC_CACHE_DIR", sub, 1);
    tric_kernel *good = compile(src, sig, &opt);
    entry_path(sub, path, sizeof path);
    CHECK(path[0] != 0);
    static const char *const damage[] = {"truncate", "flip", "empty", "garbage"};
    for (size_t i = 0; i < sizeof damage / sizeof damage[0] && path[0]; i++) {
        FILE *f = fopen(path, "r+b");
        CHECK(f != NULL);
        if (!f) break;
        fseek(f, 0, SEEK_END);
        long size = ftell(f);
        fclose(f);
        if (!strcmp(damage[i], "truncate")) CHECK(truncate(path, size / 2) == 0);
        if (!strcmp(damage[i], "empty")) CHECK(truncate(path, 0) == 0);
        if (!strcmp(damage[i], "flip") || !strcmp(damage[i], "garbage")) {
            f = fopen(path, "r+b");
            fseek(f, !strcmp(damage[i], "flip") ? size / 3 : 0, SEEK_SET);
            fputs(!strcmp(damage[i], "flip") ? "#" : "tric-cache 9\n", f);
            fclose(f);
        }
        tric_kernel *again = compile(src, sig, &opt);
        CHECK(again && !tric_kernel_cache_hit(again));   /* ignored ... */
        if (again && good) same_kernel(good, again);
        tric_kernel_free(again);
        again = compile(src, sig, &opt);
        CHECK(again && tric_kernel_cache_hit(again));    /* ... and rewritten */
        tric_kernel_free(again);
    }
    tric_kernel_free(good);
    setenv("TRIC_CACHE_DIR", dir, 1);
    CHECK(count_entries(dir) == before);
}

static void test_cache_off(void) {
    char dir[] = "/tmp/tric-cache-off-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    setenv("TRIC_CACHE_DIR", "off", 1);
    tric_options opt = {.arch = "sm_80", .num_warps = 4, .num_stages = 3};
    tric_kernel *a = compile(src, sig, &opt), *b = compile(src, sig, &opt);
    CHECK(a && b && !tric_kernel_cache_hit(a) && !tric_kernel_cache_hit(b));
    tric_kernel_free(a);
    tric_kernel_free(b);
    rmdir(dir);
}

/* A compile error is never cached, and the message is the same each time. */
static void test_errors_not_cached(const char *dir) {
    setenv("TRIC_CACHE_DIR", dir, 1);
    int before = count_entries(dir);
    for (int i = 0; i < 2; i++) {
        tric_kernel *k = NULL;
        char *err = NULL;
        CHECK(tric_compile_source("cast.py", src, "cast_kernel", "*fp32:16, *fp16:16, i32, dtype(fp16)", NULL, &k,
                                  &err) == TRIC_ERR_COMPILE);
        CHECK(err && strstr(err, "cast.py:5:1: error: kernel 'cast_kernel' has 5 parameters but the signature gives 4"));
        tric_free(err);
    }
    CHECK(count_entries(dir) == before);
}

static void test_no_driver(void) {
    char arch[16];
    if (tric_device_arch(arch, sizeof arch, NULL) != TRIC_ERR_NO_DRIVER) return;   /* a GPU: test/gpu covers it */
    tric_options opt = {.arch = "sm_80", .num_warps = 4, .num_stages = 3};
    tric_kernel *k = compile(src, sig, &opt);
    if (!k) return;
    uint64_t slots[3] = {0, 0, 100};
    char *err = NULL;
    CHECK(tric_launch_packed(k, 1, 1, 1, NULL, slots, &err) == TRIC_ERR_NO_DRIVER);
    CHECK(err && strstr(err, "libcuda.so.1"));
    tric_free(err);
    CHECK(tric_launch_packed(k, 1, 1, 1, NULL, NULL, NULL) == TRIC_ERR_ARG);
    int regs = -1, local = -1;
    CHECK(tric_kernel_attributes(k, &regs, &local, NULL) == TRIC_ERR_NO_DRIVER);
    CHECK(regs == 0 && local == 0);
    void *ev = (void *)1;
    CHECK(tric_event_create(&ev, NULL) == TRIC_ERR_NO_DRIVER && ev == NULL);
    CHECK(tric_memset_d8(0, 0, 16, NULL, NULL) == TRIC_ERR_NO_DRIVER);
    tric_kernel_free(k);
}

/* mkdtemp, counted as a failure when it fails */
static bool make_temp_dir(char *tmpl) {
    if (mkdtemp(tmpl)) return true;
    perror("mkdtemp");
    failures++;
    return false;
}

static void remove_tree(const char *dir) {
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[4096];
    while (d && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (unlink(path) != 0) remove_tree(path);
    }
    if (d) closedir(d);
    rmdir(dir);
}

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

/* The kernel of root/KERN/k.py on x = 5 under the interpreter, compiled
 * with root/lib on the search path (or none); -1 if it fails. */
static int run_kernel_in(const char *root, const char *kern, bool with_path, int *hit) {
    char path[4096], lib[4096];
    snprintf(path, sizeof path, "%s/%s/k.py", root, kern);
    snprintf(lib, sizeof lib, "%s/lib", root);
    const char *search[] = {lib, NULL};
    tric_options opt = {.arch = "sm_80", .search_path = with_path ? search : NULL};
    tric_kernel *k = NULL;
    char *err = NULL;
    if (tric_compile_file(path, "bump_kernel", "*i32, *i32", &opt, &k, &err)) {
        if (with_path) fprintf(stderr, "compile failed:\n%s", err ? err : "(no message)");
        else CHECK(err && strstr(err, "no module named 'hmod.helpers'"));
        tric_free(err);
        return -1;
    }
    *hit = tric_kernel_cache_hit(k);
    int32_t x = 5, out = 0;
    uint64_t slots[] = {(uint64_t)(uintptr_t)&x, (uint64_t)(uintptr_t)&out};
    tric_host_buffer bufs[] = {{&x, sizeof x, "x", 0}, {&out, sizeof out, "out", 0}};
    if (tric_interpret(k, 1, 1, 1, slots, 2, bufs, &err)) {
        fprintf(stderr, "interpret failed:\n%s", err ? err : "(no message)");
        tric_free(err);
        out = -1;
    }
    tric_kernel_free(k);
    return out;
}

static int run_import_kernel(const char *root, bool with_path, int *hit) {
    return run_kernel_in(root, "kern", with_path, hit);
}

static const char import_kernel[] =
    "import triton\nimport triton.language as tl\nfrom hmod.helpers import bump\n\n"
    "@triton.jit\ndef bump_kernel(x_ptr, out_ptr):\n    tl.store(out_ptr, bump(tl.load(x_ptr)))\n";

/* root/kern/k.py importing hmod.helpers from root/lib (its bump adds 1);
 * the helpers' path into helpers. */
static void make_import_tree(const char *root, char helpers[4096]) {
    char path[4096];
    snprintf(path, sizeof path, "%s/kern", root);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/lib", root);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/lib/hmod", root);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/lib/hmod/__init__.py", root);
    write_file(path, "");   /* empty: its hash must still check out */
    snprintf(path, sizeof path, "%s/kern/k.py", root);
    write_file(path, import_kernel);
    snprintf(helpers, 4096, "%s/lib/hmod/helpers.py", root);
    write_file(helpers, "import triton\n\n@triton.jit\ndef bump(x):\n    return x + 1\n");
}

/* An imported module edited between two compiles is not served stale from
 * the cache: the entry records the text of each module it imported. */
static void test_imports(void) {
    char root[] = "/tmp/tric-cache-imports-XXXXXX";
    if (!make_temp_dir(root)) return;
    char path[4096], helpers[4096];
    make_import_tree(root, helpers);
    int hit = -1;
    CHECK(run_import_kernel(root, false, &hit) == -1);   /* lib is not searched without the option */
    CHECK(run_import_kernel(root, true, &hit) == 6 && hit == 0);
    CHECK(run_import_kernel(root, true, &hit) == 6 && hit == 1);
    write_file(helpers, "import triton\n\n@triton.jit\ndef bump(x):\n    return x + 2\n");
    CHECK(run_import_kernel(root, true, &hit) == 7 && hit == 0);
    CHECK(run_import_kernel(root, true, &hit) == 7 && hit == 1);
    /* the same text in a directory with its own hmod (found first) */
    static const char *const dirs[] = {"kern2", "kern2/hmod"};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", root, dirs[i]);
        mkdir(path, 0755);
    }
    snprintf(path, sizeof path, "%s/kern2/k.py", root);
    write_file(path, import_kernel);
    snprintf(path, sizeof path, "%s/kern2/hmod/helpers.py", root);
    write_file(path, "import triton\n\n@triton.jit\ndef bump(x):\n    return x + 3\n");
    CHECK(run_kernel_in(root, "kern2", true, &hit) == 8 && hit == 0);
    CHECK(run_import_kernel(root, true, &hit) == 7);
    remove_tree(root);
}

/* ---- what the cache does not trust or read ---- */

static void on_alarm(int signo) {
    static const char msg[] = "test_cache: timed out: the cache blocked (on a FIFO?) or read without end\n";
    (void)signo;
    /* stdout too: stderr may be captured just then */
    if (write(1, msg, sizeof msg - 1) < 0 || write(2, msg, sizeof msg - 1) < 0) _exit(2);
    _exit(1);
}

/* stderr into a temporary file between capture_start and capture_end,
 * which gives back what was written. */
typedef struct Capture {
    int saved;
    FILE *f;
} Capture;

static Capture capture_start(void) {
    Capture c = {-1, tmpfile()};
    fflush(stderr);
    if (c.f) c.saved = dup(2);
    if (c.saved >= 0) dup2(fileno(c.f), 2);
    return c;
}

static void capture_end(Capture *c, char *out, size_t size) {
    out[0] = 0;
    fflush(stderr);
    if (c->saved >= 0) {
        dup2(c->saved, 2);
        close(c->saved);
    }
    if (!c->f) return;
    rewind(c->f);
    size_t n = fread(out, 1, size - 1, c->f);
    out[n] = 0;
    fclose(c->f);
}

/* Compiles the test kernel (with stderr captured into note) and says
 * whether it came from the cache: 1 hit, 0 miss, -1 failed. */
static int compile_noting(const tric_options *opt, char *note, size_t size) {
    Capture cap = capture_start();
    tric_kernel *k = compile(src, sig, opt);
    capture_end(&cap, note, size);
    if (!k) fputs(note, stderr);   /* why it failed */
    int hit = k ? tric_kernel_cache_hit(k) : -1;
    tric_kernel_free(k);
    return hit;
}

/* note is one line on stderr, tric's, and holds `has`. */
static bool one_note(const char *note, const char *has) {
    const char *nl = strchr(note, '\n');
    return !strncmp(note, "tric: note: ", 12) && nl && !nl[1] && strstr(note, has);
}

/* Files of any kind in dir, but . and .. */
static int count_files(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(d);
    return n;
}

static char *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    char *data = malloc((size_t)size + 1);
    *n = fread(data, 1, (size_t)size, f);
    data[*n] = 0;
    fclose(f);
    return data;
}

static bool spit(const char *path, const char *data, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f) return false;
    bool ok = fwrite(data, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

static void test_untrusted_predicate(void) {
    uid_t me = 1000, other = 1001;
    CHECK(rt_cache_untrusted(me, S_IFDIR | 0700, me) == NULL);
    CHECK(rt_cache_untrusted(me, S_IFDIR | 0755, me) == NULL);   /* readable by others is fine */
    CHECK(rt_cache_untrusted(me, S_IFREG | 0600, me) == NULL);
    CHECK(rt_cache_untrusted(0, S_IFDIR | 0755, me) == NULL);    /* root's */
    const char *why = rt_cache_untrusted(other, S_IFDIR | 0700, me);
    CHECK(why && strstr(why, "owned by another user"));
    CHECK(rt_cache_untrusted(other, S_IFREG | 0600, me) != NULL);
    static const unsigned bad_modes[] = {0770, 0707, 0720, 0702, 0777, 01777, 0666, 0620, 0602};
    for (size_t i = 0; i < sizeof bad_modes / sizeof bad_modes[0]; i++) {
        why = rt_cache_untrusted(me, (mode_t)bad_modes[i], me);
        CHECK_MSG(why && strstr(why, "writable by group or others"), "mode %o", bad_modes[i]);
    }
}

/* Directories the cache makes are the user's alone: TRIC_CACHE_DIR's with
 * the missing ones above it, and the default ~/.cache/tric. */
static void test_new_dirs(void) {
    char root[] = "/tmp/tric-cache-mkdir-XXXXXX";
    if (!make_temp_dir(root)) return;
    chmod(root, 0755);
    char path[4096], entry[8192];
    snprintf(path, sizeof path, "%s/a/b/cache", root);
    setenv("TRIC_CACHE_DIR", path, 1);
    tric_options opt = {.arch = "sm_80", .num_warps = 4, .num_stages = 3};
    char note[4096];
    CHECK(compile_noting(&opt, note, sizeof note) == 0 && !note[0]);
    CHECK(compile_noting(&opt, note, sizeof note) == 1 && !note[0]);
    static const char *const made[] = {"a", "a/b", "a/b/cache"};
    for (int i = 0; i < 3; i++) {
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", root, made[i]);
        CHECK_MSG(stat(path, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0700, "%s: %o", path,
                  (unsigned)st.st_mode);
    }
    entry_path(path, entry, sizeof entry);
    struct stat st;
    CHECK(entry[0] && stat(entry, &st) == 0 && (st.st_mode & 07777) == 0600);

    /* the default: ~/.cache/tric */
    const char *old_home = getenv("HOME");
    char *home_saved = old_home ? strdup(old_home) : NULL;
    snprintf(path, sizeof path, "%s/home", root);
    mkdir(path, 0755);
    setenv("HOME", path, 1);
    unsetenv("TRIC_CACHE_DIR");
    CHECK(compile_noting(&opt, note, sizeof note) == 0 && !note[0]);
    CHECK(compile_noting(&opt, note, sizeof note) == 1 && !note[0]);
    static const char *const home_made[] = {"home/.cache", "home/.cache/tric"};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", root, home_made[i]);
        CHECK_MSG(stat(path, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0700, "%s: %o", path,
                  (unsigned)st.st_mode);
    }
    CHECK(count_entries(path) == 1);
    if (home_saved) setenv("HOME", home_saved, 1);
    else unsetenv("HOME");
    free(home_saved);
    remove_tree(root);
}

/* A cache directory others can write (or that is not the user's) is
 * neither read nor written, with one note; the compile goes on. */
static void test_untrusted_dir(void) {
    char dir[] = "/tmp/tric-cache-trust-XXXXXX";
    if (!make_temp_dir(dir)) return;
    setenv("TRIC_CACHE_DIR", dir, 1);
    tric_options opt = {.arch = "sm_80", .num_warps = 4, .num_stages = 3};
    tric_options other = {.arch = "sm_80", .num_warps = 2, .num_stages = 3};
    char note[4096];
    CHECK(compile_noting(&opt, note, sizeof note) == 0);
    CHECK(compile_noting(&opt, note, sizeof note) == 1 && !note[0]);
    static const unsigned modes[] = {0777, 01777, 0770, 0702};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        chmod(dir, (mode_t)modes[i]);
        CHECK_MSG(compile_noting(&opt, note, sizeof note) == 0, "mode %o: hit", modes[i]);
        CHECK_MSG(one_note(note, "writable by group or others") && strstr(note, dir), "mode %o: %s", modes[i],
                  note);
        CHECK(compile_noting(&other, note, sizeof note) == 0);   /* compiled, and not written */
        CHECK_MSG(count_files(dir) == 1, "mode %o: %d files", modes[i], count_files(dir));
    }
    chmod(dir, 0700);
    CHECK(compile_noting(&opt, note, sizeof note) == 1 && !note[0]);
    if (geteuid() == 0) {   /* root can give it away (others: the predicate's test covers it) */
        CHECK(chown(dir, 65534, 65534) == 0);
        CHECK(compile_noting(&opt, note, sizeof note) == 0);
        CHECK_MSG(one_note(note, "owned by another user"), "%s", note);
        CHECK(compile_noting(&other, note, sizeof note) == 0 && count_files(dir) == 1);
        CHECK(chown(dir, 0, 0) == 0);
        CHECK(compile_noting(&opt, note, sizeof note) == 1 && !note[0]);
    }
    remove_tree(dir);
}

/* The entry, replaced by what no reader should read (or trust), is a miss
 * with a note, and is then rewritten as a regular 0600 file. */
static void test_untrusted_entries(void) {
    char dir[] = "/tmp/tric-cache-entries-XXXXXX";
    if (!make_temp_dir(dir)) return;
    setenv("TRIC_CACHE_DIR", dir, 1);
    tric_options opt = {.arch = "sm_80", .num_warps = 4, .num_stages = 3};
    char note[4096], entry[8192], aside[8192];
    CHECK(compile_noting(&opt, note, sizeof note) == 0);
    entry_path(dir, entry, sizeof entry);
    CHECK(entry[0] != 0);
    if (!entry[0]) return;
    size_t good_n = 0;
    char *good = slurp(entry, &good_n);
    /* a valid entry elsewhere, for a symbolic link to point at */
    snprintf(aside, sizeof aside, "%s.aside", dir);
    CHECK(good && spit(aside, good, good_n));
    static const struct { const char *what, *note; } cases[] = {
        {"fifo", "not a regular file"},
        {"link to /dev/zero", "symbolic link"},
        {"link to an entry", "symbolic link"},
        {"mode 0666", "writable by group or others"},
        {"mode 0620", "writable by group or others"},
        {"another owner", "owned by another user"},
        {"a directory", "not a regular file"},
    };
    signal(SIGALRM, on_alarm);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *what = cases[i].what;
        if (!strcmp(what, "another owner") && geteuid() != 0) continue;
        unlink(entry);
        if (!strcmp(what, "fifo")) CHECK(mkfifo(entry, 0600) == 0);
        if (!strcmp(what, "link to /dev/zero")) CHECK(symlink("/dev/zero", entry) == 0);
        if (!strcmp(what, "link to an entry")) CHECK(symlink(aside, entry) == 0);
        if (!strncmp(what, "mode", 4) || !strcmp(what, "another owner")) {
            CHECK(spit(entry, good, good_n));
            CHECK(chmod(entry, !strcmp(what, "mode 0666") ? 0666 : !strcmp(what, "mode 0620") ? 0620 : 0600) == 0);
            if (!strcmp(what, "another owner")) CHECK(chown(entry, 65534, 65534) == 0);
        }
        if (!strcmp(what, "a directory")) CHECK(mkdir(entry, 0700) == 0);
        alarm(60);
        int hit = compile_noting(&opt, note, sizeof note);
        alarm(0);
        CHECK_MSG(hit == 0, "%s: %d", what, hit);
        CHECK_MSG(one_note(note, cases[i].note) && strstr(note, entry), "%s: %s", what, note);
        if (!strcmp(what, "a directory")) {
            rmdir(entry);
            CHECK(compile_noting(&opt, note, sizeof note) == 0);
        }
        CHECK_MSG(compile_noting(&opt, note, sizeof note) == 1 && !note[0], "%s: not rewritten", what);
        struct stat st;
        CHECK_MSG(lstat(entry, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0600 &&
                      st.st_uid == geteuid(),
                  "%s: mode %o", what, (unsigned)st.st_mode);
    }
    size_t aside_n = 0;
    char *still = slurp(aside, &aside_n);   /* the link's target is left alone */
    CHECK(still && aside_n == good_n && !memcmp(still, good, good_n));
    free(still);
    unlink(aside);
    free(good);
    CHECK(count_files(dir) == 1);   /* no temporary file left behind */
    remove_tree(dir);
}

/* The entry at path rebuilt with `pad` more bytes of IR and its checksum
 * made again: as valid as before, only bigger. */
static bool pad_entry(const char *path, size_t pad) {
    size_t n = 0;
    char *data = slurp(path, &n);
    const char *ptx = data ? strstr(data, "\nptx ") : NULL;
    size_t ptx_n = 0, ir_n = 0;
    int used = 0;
    if (!ptx || sscanf(ptx, "\nptx %zu\n%n", &ptx_n, &used) != 1) {
        free(data);
        return false;
    }
    const char *ir = ptx + used + ptx_n + 1;
    if (sscanf(ir, "ir %zu\n%n", &ir_n, &used) != 1) {
        free(data);
        return false;
    }
    const char *ir_text = ir + used, *rest = ir_text + ir_n;   /* rest: "\nimports ..." */
    size_t body = n - 72;                                     /* less "sha256 <64>\n" */
    size_t cap = n + pad + 64;
    char *out = malloc(cap);
    size_t len = (size_t)(ir - data);
    memcpy(out, data, len);
    len += (size_t)snprintf(out + len, cap - len, "ir %zu\n", ir_n + pad);
    memcpy(out + len, ir_text, ir_n);
    len += ir_n;
    memset(out + len, '#', pad);
    len += pad;
    memcpy(out + len, rest, (size_t)(data + body - rest));
    len += (size_t)(data + body - rest);
    uint8_t d[32];
    rt_sha256(out, len, d);
    len += (size_t)snprintf(out + len, cap - len, "sha256 ");
    for (int j = 0; j < 32; j++) len += (size_t)snprintf(out + len, cap - len, "%02x", d[j]);
    out[len++] = '\n';
    bool ok = spit(path, out, len);
    free(out);
    free(data);
    return ok;
}

/* An entry over RT_CACHE_MAX_BYTES is not read, however valid. */
static void test_oversized_entry(void) {
    char dir[] = "/tmp/tric-cache-big-XXXXXX";
    if (!make_temp_dir(dir)) return;
    setenv("TRIC_CACHE_DIR", dir, 1);
    tric_options opt = {.arch = "sm_80", .num_warps = 4, .num_stages = 3};
    char note[4096], entry[8192];
    CHECK(compile_noting(&opt, note, sizeof note) == 0);
    entry_path(dir, entry, sizeof entry);
    CHECK(entry[0] && pad_entry(entry, 1000));   /* padded a little: still a hit */
    CHECK(compile_noting(&opt, note, sizeof note) == 1 && !note[0]);
    CHECK(entry[0] && pad_entry(entry, RT_CACHE_MAX_BYTES));
    CHECK(compile_noting(&opt, note, sizeof note) == 0);
    CHECK_MSG(one_note(note, "larger than 64 MiB"), "%s", note);
    CHECK(compile_noting(&opt, note, sizeof note) == 1 && !note[0]);   /* rewritten */
    remove_tree(dir);
}

/* The module files an entry lists are read as carefully as entries: a
 * FIFO there does not hang the compile, /dev/zero behind a link is not
 * read, and a module now behind a symbolic link is not the file recorded. */
static void test_import_files(void) {
    char root[] = "/tmp/tric-cache-modfiles-XXXXXX";
    if (!make_temp_dir(root)) return;
    char cache[4096], helpers[4096], moved[4096], k_py[4096], lib[4096];
    snprintf(cache, sizeof cache, "%s/cache", root);
    setenv("TRIC_CACHE_DIR", cache, 1);
    make_import_tree(root, helpers);
    snprintf(moved, sizeof moved, "%s/helpers.py", root);
    snprintf(k_py, sizeof k_py, "%s/kern/k.py", root);
    snprintf(lib, sizeof lib, "%s/lib", root);
    int hit = -1;
    CHECK(run_import_kernel(root, true, &hit) == 6 && hit == 0);
    CHECK(run_import_kernel(root, true, &hit) == 6 && hit == 1);
    signal(SIGALRM, on_alarm);
    /* helpers.py a FIFO, then a link to /dev/zero: no module of that name,
     * after the entry is found stale without waiting or reading forever */
    for (int i = 0; i < 2; i++) {
        CHECK(rename(helpers, moved) == 0);
        CHECK(i == 0 ? mkfifo(helpers, 0600) == 0 : symlink("/dev/zero", helpers) == 0);
        const char *search[] = {lib, NULL};
        tric_options opt = {.arch = "sm_80", .search_path = search};
        tric_kernel *k = NULL;
        char *err = NULL;
        alarm(60);
        int st = tric_compile_file(k_py, "bump_kernel", "*i32, *i32", &opt, &k, &err);
        alarm(0);
        CHECK_MSG(st == TRIC_ERR_COMPILE && err && strstr(err, "no module named 'hmod.helpers'"), "%s: %s",
                  i ? "link" : "fifo", err ? err : "(none)");
        tric_free(err);
        tric_kernel_free(k);
        CHECK(unlink(helpers) == 0 && rename(moved, helpers) == 0);
        CHECK(run_import_kernel(root, true, &hit) == 6 && hit == 1);   /* the same file back: the entry holds */
    }
    /* the same text, now behind a link: not the file the entry recorded */
    CHECK(rename(helpers, moved) == 0 && symlink(moved, helpers) == 0);
    CHECK(run_import_kernel(root, true, &hit) == 6 && hit == 0);
    CHECK(run_import_kernel(root, true, &hit) == 6 && hit == 1);   /* recorded as its target */
    remove_tree(root);
}

int main(void) {
    char dir[] = "/tmp/tric-cache-test-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    setenv("TRIC_CACHE_DIR", dir, 1);
    test_sha256();
    test_hit_and_miss(dir);
    test_corrupt(dir);
    test_errors_not_cached(dir);
    test_descriptor_params();
    test_tensor_maps();
    test_cache_off();
    test_no_driver();
    setenv("TRIC_CACHE_DIR", dir, 1);
    test_imports();
    test_untrusted_predicate();
    test_new_dirs();
    test_untrusted_dir();
    test_untrusted_entries();
    test_oversized_entry();
    test_import_files();
    remove_tree(dir);
    if (failures) fprintf(stderr, "test_cache: %d checks failed\n", failures);
    return failures != 0;
}
