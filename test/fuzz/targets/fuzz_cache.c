/* Fuzz target: the disk cache's reader (runtime/cache.c) and what the
 * library does with an entry it read.
 *
 * The input is an entry as rt_cache_store writes it, without its closing
 * "sha256 <hex>" line: the target appends the right one (so the fuzzer
 * explores the body rather than the checksum) unless the input already
 * ends with such a line, and writes it into a private cache directory as
 * the entry of a fixed kernel. Then rt_cache_load reads it and, when it
 * accepts it, tric_compile_source finds it as a cache hit: every accessor
 * of the kernel, tric_encode_tensor_map of its tensor-map parameters and
 * tric_interpret (which lowers the kernel again from its source) run on
 * what the entry says. An input that starts with "tric-blob " is a JIT
 * cubin blob instead (rt_cache_load_blob).
 *
 * "dirs " and the 64 characters after it (the hash of the directories the
 * entry's imports were found in) are replaced by this kernel's, so the
 * fuzzer reaches the lines that name the imported files. */
#include "fuzz.h"
#include "runtime/rt.h"

#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#define FUZZ_PATH "/nonexistent/fuzz/add.py"

static const char fixed_source[] =
    "import triton\n"
    "import triton.language as tl\n"
    "\n"
    "@triton.jit\n"
    "def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
    "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
    "    m = offs < n\n"
    "    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)\n";
static const char fixed_signature[] = "*fp32, *fp32, *fp32, i32, 64";

/* The target's own state, made once: the cache directory and the name of
 * the fixed kernel's entry in it. */
static char cache_dir[64];
static RtCache cache;   /* cache_dir, opened as the compiles open it */
static char entry_name[80];   /* "<key>.tric" */
static char dirs_hex[65];     /* what cache.c hashes for FUZZ_PATH's directory */

static void hex_of(const uint8_t d[32], char hex[65]) {
    for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", d[i]);
}

static void remove_dir(void) {
    DIR *d = opendir(cache_dir);
    if (!d) return;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2]))) continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", cache_dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(cache_dir);
}

static const tric_options fixed_options = {.arch = "sm_80"};

/* Compiles the fixed kernel once, which stores its entry: the file that
 * appeared is the one every run overwrites. */
static void setup(void) {
    snprintf(cache_dir, sizeof cache_dir, "%s", "/tmp/tric-fuzz-cache.XXXXXX");
    if (!mkdtemp(cache_dir)) abort();
    atexit(remove_dir);
    setenv("TRIC_CACHE_DIR", cache_dir, 1);
    tric_kernel *k = NULL;
    char *err = NULL;
    if (tric_compile_source(FUZZ_PATH, fixed_source, "add", fixed_signature, &fixed_options, &k, &err)) {
        fprintf(stderr, "fuzz_cache: the fixed kernel does not compile:\n%s\n", err);
        abort();
    }
    tric_kernel_free(k);
    DIR *d = opendir(cache_dir);
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        size_t n = strlen(e->d_name);
        if (n == 64 + 5 && !strcmp(e->d_name + 64, ".tric")) memcpy(entry_name, e->d_name, 64 + 5 + 1);
    }
    if (d) closedir(d);
    if (!entry_name[0]) abort();
    if (!rt_cache_open(&cache)) abort();
    /* cache.c's key_field of the directory ("LEN:TEXT"); realpath fails on it */
    const char *dir = "/nonexistent/fuzz";
    char field[64];
    int n = snprintf(field, sizeof field, "%zu:%s", strlen(dir), dir);
    uint8_t digest[32];
    rt_sha256(field, (size_t)n, digest);
    hex_of(digest, dirs_hex);
}

static void write_file(const char *name, const char *data, size_t n) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s", cache_dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    fwrite(data, 1, n, f);
    fclose(f);
}

static bool ends_with_checksum(const char *data, size_t n) {
    size_t line = 7 + 64 + 1;
    return n >= line && !memcmp(data + n - line, "sha256 ", 7) && data[n - 1] == '\n';
}

/* What a program would do with the kernel it got from the cache. */
static void use_kernel(tric_kernel *k) {
    tric_kernel_ptx(k);
    tric_kernel_name(k);
    tric_kernel_arch(k);
    tric_kernel_num_warps(k);
    tric_kernel_shared_bytes(k);
    tric_kernel_scratch_bytes(k);
    tric_kernel_estimated_registers(k);
    tric_kernel_ir(k);
    tric_kernel_log(k);
    int n = tric_kernel_num_params(k);
    uint64_t *slots = calloc((size_t)n + 1, sizeof *slots);
    if (!slots) abort();
    for (int i = -1; i <= n; i++) {
        const tric_param *p = tric_kernel_param(k, i);
        if (!p || p->kind != TRIC_PARAM_TENSORMAP) continue;
        _Alignas(64) unsigned char map[128];
        int64_t shape[5] = {64, 64, 64, 64, 64}, strides[5] = {262144, 4096, 64, 64, 1};
        char *err = NULL;
        for (int rank = 1; rank <= 5; rank++) {
            strides[rank - 1] = 1;
            tric_encode_tensor_map(k, i, 0, rank, shape, strides, 1, map, &err);
            free(err);
            err = NULL;
            strides[rank - 1] = 64;
        }
    }
    char *err = NULL;
    tric_interpret(k, 1, 1, 1, slots, 0, NULL, &err);
    free(err);
    free(slots);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!entry_name[0]) setup();
    if (size >= 10 && !memcmp(data, "tric-blob ", 10)) {
        write_file("blob", (const char *)data, size);
        Buf out = {0};
        rt_cache_load_blob(&cache, "blob", &out);
        buf_free(&out);
        return 0;
    }
    Buf entry = {0};
    buf_putn(&entry, (const char *)data, size);
    char *dirs = entry.len ? strstr(buf_str(&entry), "\ndirs ") : NULL;   /* stops at a NUL: fine */
    if (dirs && strlen(dirs + 6) >= 64) memcpy(dirs + 6, dirs_hex, 64);
    if (!ends_with_checksum(entry.data, entry.len)) {
        uint8_t digest[32];
        char hex[65];
        rt_sha256(entry.data, entry.len, digest);
        hex_of(digest, hex);
        buf_printf(&entry, "sha256 %s\n", hex);
    }
    write_file(entry_name, entry.data, entry.len);
    buf_free(&entry);

    RtRequest rq = {.path = FUZZ_PATH, .source = fixed_source, .kernel = "add", .signature = fixed_signature,
                    .emit = RT_EMIT_PTX};
    rt_default_target(&rq.target);
    RtResult res;
    char key[65];
    snprintf(key, sizeof key, "%.64s", entry_name);
    bool hit = rt_cache_load(&cache, key, &rq, &res);
    if (hit) rt_result_free(&res);
    if (hit) {
        tric_kernel *k = NULL;
        char *err = NULL;
        if (tric_compile_source(FUZZ_PATH, fixed_source, "add", fixed_signature, &fixed_options, &k, &err) == TRIC_OK) {
            if (!tric_kernel_cache_hit(k)) {
                fprintf(stderr, "fuzz_cache: rt_cache_load read the entry but tric_compile_source did not\n");
                __builtin_trap();
            }
            use_kernel(k);
        }
        free(err);
        tric_kernel_free(k);
    }
    return 0;
}
