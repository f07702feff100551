/* The disk cache of compiled kernels, so that a program (or a Python
 * session) started again does not recompile what it compiled before.
 *
 * Key: SHA-256 of (format, tric version, build of tric, arch, num_warps,
 * num_stages, debug, kernel name, signature, the whole source text). The build of
 * tric is the path, size and mtime of the file holding this code
 * (libtric.so, or the program libtric.a is linked into): the version string
 * alone would hand back stale PTX to anyone working on tric itself.
 *
 * Entry: $TRIC_CACHE_DIR/<key>.tric (default ~/.cache/tric; "off" turns
 * the cache off), a small text header, the PTX and the IR, and last a
 * SHA-256 of everything before it:
 *
 *   tric-cache 5
 *   name add_kernel
 *   num_warps 4
 *   shared_bytes 0
 *   est_regs 26                    (pass_regs's estimate of registers per thread)
 *   scratch_bytes 0                (global scratch per program: tensor maps made in the kernel)
 *   params 2
 *   param 0 8 0 0 x_ptr *fp32      (kind, bytes, part, part index, name, type)
 *   param 1 4 0 0 n i32
 *   ptx 1234                       (byte count, then the bytes and "\n")
 *   ir 567
 *   imports 160                    (RtResult.imports: "dirs <sha256>", "<sha256> <path>"...)
 *   sha256 <64 hex digits>
 *
 * The text of the modules a kernel imports is known only after lowering it,
 * so it cannot be in the key: the entry lists them with their hashes, and
 * a load that finds one changed (or gone) is a miss, as is one from a
 * kernel that looked for them in other directories (the same text in
 * another directory, or another search path, may import other modules).
 * The recompiled kernel then replaces the entry. A kernel that imports
 * nothing of the user's hits whatever its directories.
 * An entry that fails any check (truncated, edited, from an older format)
 * is a miss; the recompiled kernel then replaces it. Writes go to a
 * temporary file in the same directory, renamed over the entry, so a reader
 * never sees half an entry and concurrent writers do not corrupt it. */
#include "rt.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CACHE_FORMAT "tric-cache 5"

/* ---- SHA-256 (FIPS 180-4) ---- */

typedef struct Sha256 {
    uint32_t h[8];
    uint8_t block[64];
    size_t used;          /* bytes in block */
    uint64_t total;       /* bytes hashed so far */
} Sha256;

static const uint32_t sha256_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

static void sha256_init(Sha256 *s) {
    static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(s->h, h0, sizeof h0);
    s->used = 0;
    s->total = 0;
}

static void sha256_block(Sha256 *s, const uint8_t *p) {
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3];
    uint32_t e = s->h[4], f = s->h[5], g = s->h[6], h = s->h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + sha256_k[i] + w[i];
        uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        h = g, g = f, f = e, e = d + t1;
        d = c, c = b, b = a, a = t1 + t2;
    }
    s->h[0] += a, s->h[1] += b, s->h[2] += c, s->h[3] += d;
    s->h[4] += e, s->h[5] += f, s->h[6] += g, s->h[7] += h;
}

static void sha256_update(Sha256 *s, const void *data, size_t n) {
    const uint8_t *p = data;
    s->total += n;
    while (n > 0) {
        size_t take = 64 - s->used < n ? 64 - s->used : n;
        memcpy(s->block + s->used, p, take);
        s->used += take, p += take, n -= take;
        if (s->used == 64) {
            sha256_block(s, s->block);
            s->used = 0;
        }
    }
}

static void sha256_final(Sha256 *s, uint8_t digest[32]) {
    uint64_t bits = s->total * 8;
    uint8_t pad = 0x80;
    sha256_update(s, &pad, 1);
    pad = 0;
    while (s->used != 56) sha256_update(s, &pad, 1);
    uint8_t len[8];
    for (int i = 0; i < 8; i++) len[i] = (uint8_t)(bits >> (56 - 8 * i));
    sha256_update(s, len, 8);
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 4; j++) digest[4 * i + j] = (uint8_t)(s->h[i] >> (24 - 8 * j));
}

void rt_sha256(const void *data, size_t n, uint8_t digest[32]) {
    Sha256 s;
    sha256_init(&s);
    sha256_update(&s, data, n);
    sha256_final(&s, digest);
}

static void hex_digest(const uint8_t digest[32], char hex[65]) {
    for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", digest[i]);
}

/* ---- the key ---- */

char *rt_strndup(const char *s, size_t n) {
    char *d = malloc(n + 1);
    if (!d) tric_internal_error(__FILE__, __LINE__, "out of memory");
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

/* One field of the key, length first so that no two field lists hash the
 * same text. */
static void key_field(Sha256 *s, const char *text) {
    char len[32];
    int n = snprintf(len, sizeof len, "%zu:", strlen(text));
    sha256_update(s, len, (size_t)n);
    sha256_update(s, text, strlen(text));
}

/* Which build of tric this is: the file the code was loaded from. */
static void key_build(Sha256 *s) {
    Dl_info info;
    struct stat st;
    char text[96];
    void *self = (void *)(uintptr_t)rt_cache_key;
    if (dladdr(self, &info) && info.dli_fname && stat(info.dli_fname, &st) == 0) {
        key_field(s, info.dli_fname);
        snprintf(text, sizeof text, "%lld %lld.%09ld", (long long)st.st_size, (long long)st.st_mtim.tv_sec,
                 (long)st.st_mtim.tv_nsec);
        key_field(s, text);
    } else {
        key_field(s, "unknown build");
    }
}

/* A directory imports are looked up in, absolute when it exists (a
 * relative one means another directory after a chdir). */
static void dirs_field(Sha256 *s, const char *dir) {
    char *abs = realpath(dir, NULL);
    key_field(s, abs ? abs : dir);
    free(abs);
}

/* The directories rq's imports are looked up in, in modules.c's order
 * (the kernel file's, then the search path), hashed into hex. */
static void search_dirs_hex(const RtRequest *rq, char hex[65]) {
    Sha256 s;
    sha256_init(&s);
    const char *slash = strrchr(rq->path, '/');
    if (!slash) {
        dirs_field(&s, ".");
    } else {
        size_t n = slash == rq->path ? 1 : (size_t)(slash - rq->path);
        char *dir = rt_strndup(rq->path, n);
        dirs_field(&s, dir);
        free(dir);
    }
    for (int i = 0; i < rq->n_search_path; i++) dirs_field(&s, rq->search_path[i]);
    uint8_t digest[32];
    sha256_final(&s, digest);
    hex_digest(digest, hex);
}

void rt_cache_key(const RtRequest *rq, const char *source, char hex[65]) {
    Sha256 s;
    char text[64];
    sha256_init(&s);
    key_field(&s, CACHE_FORMAT);
    key_field(&s, TRIC_VERSION);
    key_build(&s);
    snprintf(text, sizeof text, "sm_%d%s %d %d%s %d%s", rq->target.sm, rq->target.arch_a ? "a" : "",
             rq->target.num_warps, rq->target.num_stages, rq->target.debug ? " debug" : "", rq->target.maxnreg,
             rq->target.no_fp_fusion ? " nofusion" : "");
    key_field(&s, text);
    key_field(&s, rq->kernel);
    key_field(&s, rq->entry_name ? rq->entry_name : "");
    key_field(&s, rq->signature);
    key_field(&s, source);
    uint8_t digest[32];
    sha256_final(&s, digest);
    hex_digest(digest, hex);
}

bool rt_cache_dir(Buf *dir) {
    const char *env = getenv("TRIC_CACHE_DIR");
    if (env && strcmp(env, "off") == 0) return false;
    if (env && *env) {
        buf_puts(dir, env);
        return true;
    }
    const char *home = getenv("HOME");
    if (!home || !*home) return false;
    buf_printf(dir, "%s/.cache/tric", home);
    return true;
}

/* ---- reading an entry ---- */

static char *read_whole(const char *path, size_t *n) {
    Buf b = {0};
    if (!buf_read_file(&b, path) || !b.len) {
        buf_free(&b);
        return NULL;
    }
    *n = b.len;
    return buf_take(&b);
}

typedef struct Reader {
    const char *p, *end;
    bool bad;
} Reader;

/* The next line without its "\n"; marks the reader bad at the end. */
static const char *read_line(Reader *r, size_t *n) {
    const char *nl = r->p < r->end ? memchr(r->p, '\n', (size_t)(r->end - r->p)) : NULL;
    if (!nl) {
        r->bad = true;
        *n = 0;
        return "";
    }
    const char *line = r->p;
    *n = (size_t)(nl - line);
    r->p = nl + 1;
    return line;
}

/* "WORD <value>" with value a non-negative integer below 1 << 30. */
static int read_count(Reader *r, const char *word) {
    size_t n;
    const char *line = read_line(r, &n);
    size_t wn = strlen(word);
    if (r->bad || n <= wn + 1 || memcmp(line, word, wn) || line[wn] != ' ') {
        r->bad = true;
        return 0;
    }
    long v = 0;
    for (size_t i = wn + 1; i < n; i++) {
        if (line[i] < '0' || line[i] > '9') {
            r->bad = true;
            return 0;
        }
        v = v * 10 + (line[i] - '0');
        if (v >= (1L << 30)) {   /* checked after each digit: v never overflows */
            r->bad = true;
            return 0;
        }
    }
    return (int)v;
}

/* "WORD <n>\n" then n bytes and "\n": a heap copy of the bytes. */
static char *read_blob(Reader *r, const char *word) {
    int n = read_count(r, word);
    if (r->bad || r->end - r->p < (ptrdiff_t)n + 1 || r->p[n] != '\n') {
        r->bad = true;
        return NULL;
    }
    char *s = rt_strndup(r->p, (size_t)n);
    r->p += n + 1;
    return s;
}

/* "name <identifier>" */
static char *read_name(Reader *r) {
    size_t n;
    const char *line = read_line(r, &n);
    if (r->bad || n <= 5 || memcmp(line, "name ", 5)) {
        r->bad = true;
        return NULL;
    }
    return rt_strndup(line + 5, n - 5);
}

/* "param <kind> <bytes> <part> <part_index> <name> <type>" */
static void read_param(Reader *r, RtParam *p) {
    size_t n;
    const char *line = read_line(r, &n);
    if (r->bad) return;
    char *copy = rt_strndup(line, n);
    char name[256];
    int kind, bytes, part, part_index, used = 0;
    /* the type is the rest of the line ("tensordesc<fp16[64, 32]>" has spaces) */
    if (sscanf(copy, "param %d %d %d %d %255s %n", &kind, &bytes, &part, &part_index, name, &used) != 5 ||
        (size_t)used >= n || n - (size_t)used > 63 || kind < RT_PARAM_POINTER || kind > RT_PARAM_TENSORMAP ||
        bytes < 1 || bytes > (kind == RT_PARAM_TENSORMAP ? TMAP_BYTES : 8) || part < 0 || part > PARAM_TUPLE_ITEM ||
        part_index < 0 || part_index >= (part == PARAM_TUPLE_ITEM ? 256 : IR_MAX_RANK)) {
        r->bad = true;
    } else {
        p->kind = (RtParamKind)kind;
        p->bytes = bytes;
        p->part = part, p->part_index = part_index;
        p->name = rt_strndup(name, strlen(name));
        p->type = rt_strndup(copy + used, n - (size_t)used);
    }
    free(copy);
}

/* The checksum line closes the entry: everything before it must hash to it. */
static bool entry_checksum_ok(const char *data, size_t n, size_t *body_len) {
    static const char tag[] = "sha256 ";
    size_t line_len = sizeof tag - 1 + 64 + 1;
    if (n < line_len || data[n - 1] != '\n') return false;
    size_t at = n - line_len;
    if (memcmp(data + at, tag, sizeof tag - 1)) return false;
    uint8_t digest[32];
    char hex[65];
    rt_sha256(data, at, digest);
    hex_digest(digest, hex);
    if (memcmp(data + at + sizeof tag - 1, hex, 64)) return false;
    *body_len = at;
    return true;
}

static void parse_entry(Reader *r, RtResult *out) {
    size_t n;
    const char *line = read_line(r, &n);
    if (n != strlen(CACHE_FORMAT) || memcmp(line, CACHE_FORMAT, n)) r->bad = true;
    if (r->bad) return;
    out->kernel_name = read_name(r);
    out->num_warps = read_count(r, "num_warps");
    out->shared_bytes = read_count(r, "shared_bytes");
    out->est_regs = read_count(r, "est_regs");
    out->scratch_bytes = read_count(r, "scratch_bytes");
    int np = read_count(r, "params");
    if (r->bad || np > 4096) {
        r->bad = true;
        return;
    }
    out->params = calloc(np ? (size_t)np : 1, sizeof *out->params);
    if (!out->params) tric_internal_error(__FILE__, __LINE__, "out of memory");
    out->n_params = np;
    for (int i = 0; i < np && !r->bad; i++) read_param(r, &out->params[i]);
    if (r->bad) return;
    out->text = read_blob(r, "ptx");
    if (!r->bad) out->ir = read_blob(r, "ir");
    if (!r->bad) out->imports = read_blob(r, "imports");
    if (!r->bad && r->p != r->end) r->bad = true;
}

/* ---- the imported modules ---- */

void rt_cache_imports(Buf *out, const RtRequest *rq, const SrcFile *const *files, int n) {
    if (n > 0) {
        char dirs[65];
        search_dirs_hex(rq, dirs);
        buf_printf(out, "dirs %s\n", dirs);
    }
    for (int i = 0; i < n; i++) {
        uint8_t digest[32];
        char hex[65];
        rt_sha256(files[i]->text, files[i]->len, digest);
        hex_digest(digest, hex);
        char *abs = realpath(files[i]->path, NULL);
        buf_printf(out, "%s %s\n", hex, abs ? abs : files[i]->path);
        free(abs);
    }
}

/* imports were looked up where rq looks for them, and every "<sha256>
 * <path>" line names a file that still holds that text. */
static bool imports_current(const char *imports, const RtRequest *rq) {
    const char *p = imports;
    if (!*p) return true;
    char dirs[65];
    search_dirs_hex(rq, dirs);
    if (strncmp(p, "dirs ", 5) || strncmp(p + 5, dirs, 64) || p[69] != '\n') return false;
    for (p += 70; *p;) {
        const char *nl = strchr(p, '\n');
        if (!nl || nl - p < 66 || p[64] != ' ') return false;
        char *path = rt_strndup(p + 65, (size_t)(nl - p - 65));
        Buf text = {0};
        bool read = buf_read_file(&text, path);   /* an empty __init__.py is fine */
        free(path);
        uint8_t digest[32];
        char hex[65];
        rt_sha256(buf_str(&text), text.len, digest);
        hex_digest(digest, hex);
        buf_free(&text);
        if (!read || memcmp(hex, p, 64)) return false;
        p = nl + 1;
    }
    return true;
}

static char *entry_path(const char *dir, const char *hex) {
    Buf b = {0};
    buf_printf(&b, "%s/%s.tric", dir, hex);
    return buf_take(&b);
}

bool rt_cache_load(const char *dir, const char *hex, const RtRequest *rq, RtResult *out) {
    memset(out, 0, sizeof *out);
    char *path = entry_path(dir, hex);
    size_t n = 0, body = 0;
    char *data = read_whole(path, &n);
    free(path);
    if (!data) return false;
    Reader r = {data, data, false};
    if (!entry_checksum_ok(data, n, &body)) r.bad = true;
    r.end = data + body;
    if (!r.bad) parse_entry(&r, out);
    free(data);
    if (r.bad || !imports_current(out->imports, rq)) {
        rt_result_free(out);
        return false;
    }
    out->ok = true;
    out->diag = rt_strndup("", 0);
    out->dumps = rt_strndup("", 0);
    return true;
}

/* ---- writing an entry ---- */

static void write_entry(Buf *b, const RtResult *res) {
    buf_printf(b, "%s\nname %s\nnum_warps %d\nshared_bytes %d\nest_regs %d\nscratch_bytes %d\nparams %d\n",
               CACHE_FORMAT, res->kernel_name, res->num_warps, res->shared_bytes, res->est_regs, res->scratch_bytes,
               res->n_params);
    for (int i = 0; i < res->n_params; i++) {
        const RtParam *p = &res->params[i];
        buf_printf(b, "param %d %d %d %d %s %s\n", (int)p->kind, p->bytes, p->part, p->part_index, p->name, p->type);
    }
    const char *ir = res->ir ? res->ir : "";
    const char *imports = res->imports ? res->imports : "";
    buf_printf(b, "ptx %zu\n%s\nir %zu\n%s\nimports %zu\n%s\n", strlen(res->text), res->text, strlen(ir), ir,
               strlen(imports), imports);
    uint8_t digest[32];
    char hex[65];
    rt_sha256(b->data, b->len, digest);
    hex_digest(digest, hex);
    buf_printf(b, "sha256 %s\n", hex);
}

/* mkdir -p; true if dir exists afterwards. */
static bool make_dirs(const char *dir) {
    char *path = rt_strndup(dir, strlen(dir));
    for (char *p = path + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        mkdir(path, 0755);
        *p = '/';
    }
    bool ok = mkdir(path, 0755) == 0 || errno == EEXIST;
    free(path);
    return ok;
}

static bool write_all(int fd, const char *data, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, data, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        data += w, n -= (size_t)w;
    }
    return true;
}

bool rt_cache_store(const char *dir, const char *hex, const RtResult *res) {
    if (!res->ok || !res->text || !res->kernel_name || !make_dirs(dir)) return false;
    /* names and types go on one line each: refuse what would not read back */
    for (int i = 0; i < res->n_params; i++)
        if (strpbrk(res->params[i].name, " \n") || !res->params[i].name[0] || strlen(res->params[i].name) > 255)
            return false;
    Buf entry = {0};
    write_entry(&entry, res);
    Buf tmp = {0};
    buf_printf(&tmp, "%s/.%s.tmp.XXXXXX", dir, hex);
    int fd = mkstemp(tmp.data);
    bool ok = fd >= 0;
    if (ok) {
        ok = write_all(fd, entry.data, entry.len);
        ok = close(fd) == 0 && ok;
        char *path = entry_path(dir, hex);
        ok = ok && rename(tmp.data, path) == 0;
        if (!ok) unlink(tmp.data);
        free(path);
    }
    buf_free(&tmp);
    buf_free(&entry);
    return ok;
}

/* ---- blobs: a cubin the driver made (driver.c's JIT cache) ----
 * "tric-blob 1 <bytes> <sha256 of them>\n" then the bytes; a file that
 * does not match is not read. */
bool rt_cache_load_blob(const char *dir, const char *name, Buf *out) {
    Buf path = {0};
    buf_printf(&path, "%s/%s", dir, name);
    size_t n = 0;
    char *data = read_whole(path.data, &n);
    buf_free(&path);
    if (!data) return false;
    char *nl = memchr(data, '\n', n);
    unsigned long long len = 0;
    char want[65] = "", hex[65];
    bool ok = nl && sscanf(data, "tric-blob 1 %llu %64s", &len, want) == 2 && len == n - (size_t)(nl + 1 - data);
    if (ok) {
        uint8_t digest[32];
        rt_sha256(nl + 1, (size_t)len, digest);
        hex_digest(digest, hex);
        ok = strcmp(hex, want) == 0;
    }
    if (ok) buf_putn(out, nl + 1, (size_t)len);
    free(data);
    return ok;
}

bool rt_cache_store_blob(const char *dir, const char *name, const void *data, size_t n) {
    if (!make_dirs(dir)) return false;
    uint8_t digest[32];
    char hex[65];
    rt_sha256(data, n, digest);
    hex_digest(digest, hex);
    Buf head = {0}, tmp = {0};
    buf_printf(&head, "tric-blob 1 %llu %s\n", (unsigned long long)n, hex);
    buf_printf(&tmp, "%s/.%s.tmp.XXXXXX", dir, name);
    int fd = mkstemp(tmp.data);
    bool ok = fd >= 0;
    if (ok) {
        ok = write_all(fd, head.data, head.len) && write_all(fd, data, n);
        ok = close(fd) == 0 && ok;
        Buf path = {0};
        buf_printf(&path, "%s/%s", dir, name);
        ok = ok && rename(tmp.data, path.data) == 0;
        if (!ok) unlink(tmp.data);
        buf_free(&path);
    }
    buf_free(&head);
    buf_free(&tmp);
    return ok;
}
