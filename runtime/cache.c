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
 * never sees half an entry and concurrent writers do not corrupt it.
 *
 * Trust. The checksum only catches damage: anyone who can write an entry can
 * write its checksum too, and an entry's PTX (or a cubin) runs as the user's
 * GPU code. So the directory is used only when it is owned by the user (or
 * root) and not writable by group or others, as ssh does with ~/.ssh; the
 * directories made for it are 0700. Otherwise the compile goes on without
 * the cache (nothing read, nothing written) and says so in one line on
 * stderr. The directory is opened once and everything else is done relative
 * to that descriptor, so swapping a directory on the path after the check
 * changes nothing. Entries are held to the same rule; besides, a file is
 * read only if it is a regular file (never through a symbolic link, never
 * blocking on a FIFO) of at most RT_CACHE_MAX_BYTES, and so are the module
 * files an entry lists, which are otherwise anybody's. */
#include "rt.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
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

/* ---- the directory ---- */

/* $TRIC_CACHE_DIR, else ~/.cache/tric; false when the cache is off. */
static bool cache_path(Buf *dir) {
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

const char *rt_cache_untrusted(uid_t owner, mode_t mode, uid_t user) {
    /* root can change anything the user runs anyway: a cache root made
     * (read-only, say in a container image) is as good as the user's */
    if (owner != user && owner != 0) return "it is owned by another user";
    if (mode & (S_IWGRP | S_IWOTH)) return "it is writable by group or others";
    return NULL;
}

/* What a user of TRIC_CACHE_DIR=/shared/dir sees: why the cache is not used,
 * and how to have one again (or silence this). */
static void dir_note(const char *path, const char *why) {
    fprintf(stderr,
            "tric: note: compiling without the kernel cache %s: %s (it must be yours and writable only by you: "
            "chmod go-w it, or set TRIC_CACHE_DIR to a directory of your own, or to off)\n",
            path, why);
}

/* mkdir -p with 0700 for each directory it makes; a directory made that
 * is then not the user's alone (someone raced for the name) stops it with
 * a note. Failures to make one are left to the open that follows. */
static bool make_dirs(const char *dir) {
    char *path = rt_strndup(dir, strlen(dir));
    bool ok = true;
    for (char *p = path + 1;; p++) {
        bool last = *p == 0;
        if (!last && *p != '/') continue;
        *p = 0;
        struct stat st;
        if (mkdir(path, 0700) == 0) {
            const char *why = lstat(path, &st) ? strerror(errno)
                              : !S_ISDIR(st.st_mode) ? "it is not a directory"
                                                     : rt_cache_untrusted(st.st_uid, st.st_mode, geteuid());
            if (why) {
                dir_note(path, why);
                ok = false;
            }
        }
        if (last || !ok) break;
        *p = '/';
    }
    free(path);
    return ok;
}

bool rt_cache_open(RtCache *c) {
    c->fd = -1;
    c->path = (Buf){0};
    if (!cache_path(&c->path)) return false;
    /* O_NONBLOCK: a FIFO at the name fails O_DIRECTORY instead of waiting */
    int fd = make_dirs(c->path.data) ? open(c->path.data, O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC) : -1;
    struct stat st;
    const char *why = fd < 0 ? NULL
                      : fstat(fd, &st) ? strerror(errno)
                                       : rt_cache_untrusted(st.st_uid, st.st_mode, geteuid());
    if (why) {
        dir_note(c->path.data, why);
        close(fd);
        fd = -1;
    }
    if (fd < 0) {
        buf_free(&c->path);
        return false;
    }
    c->fd = fd;
    return true;
}

void rt_cache_close(RtCache *c) {
    if (c->fd >= 0) close(c->fd);
    c->fd = -1;
    buf_free(&c->path);
}

/* ---- reading a file ---- */

typedef enum ReadStatus { READ_OK, READ_NONE, READ_REFUSED } ReadStatus;

/* name (relative to the directory dir, or AT_FDCWD) appended to out, if it
 * is a regular file of at most RT_CACHE_MAX_BYTES, and with `owned` also
 * trusted by rt_cache_untrusted. It is looked at before it is opened
 * (a device is never opened), opened without following a symbolic link
 * and without waiting on a FIFO (in case it was swapped meanwhile), and
 * must then still be the same file. READ_NONE: there is none or it cannot
 * be read; READ_REFUSED: *why says what is wrong with it. */
static ReadStatus read_file_at(int dir, const char *name, bool owned, Buf *out, const char **why) {
    struct stat before, st;
    *why = NULL;
    if (fstatat(dir, name, &before, AT_SYMLINK_NOFOLLOW)) return READ_NONE;
    if (S_ISLNK(before.st_mode)) *why = "it is a symbolic link";
    else if (!S_ISREG(before.st_mode)) *why = "it is not a regular file";
    if (*why) return READ_REFUSED;
    int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        if (errno != ELOOP) return READ_NONE;
        *why = "it is a symbolic link";
        return READ_REFUSED;
    }
    if (fstat(fd, &st)) *why = strerror(errno);
    else if (!S_ISREG(st.st_mode) || st.st_dev != before.st_dev || st.st_ino != before.st_ino)
        *why = "it was replaced while being opened";
    else if (st.st_size > RT_CACHE_MAX_BYTES) *why = "it is larger than " RT_CACHE_MAX_TEXT;
    else if (owned) *why = rt_cache_untrusted(st.st_uid, st.st_mode, geteuid());
    size_t start = out->len;
    char chunk[65536];
    for (ssize_t got = 1; !*why && got != 0;) {
        got = read(fd, chunk, sizeof chunk);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) *why = strerror(errno);
        else if (out->len - start + (size_t)got > RT_CACHE_MAX_BYTES) *why = "it is larger than " RT_CACHE_MAX_TEXT;
        else buf_putn(out, chunk, (size_t)got);
    }
    close(fd);
    return *why ? READ_REFUSED : READ_OK;
}

static void entry_note(const RtCache *c, const char *name, const char *why) {
    fprintf(stderr, "tric: note: ignoring kernel cache entry %s/%s: %s\n", c->path.data, name, why);
}

/* The entry or blob `name` of the cache, heap, NULL if there is none (or it
 * is empty); one refused gets a note. */
static char *read_entry(const RtCache *c, const char *name, size_t *n) {
    Buf b = {0};
    const char *why;
    ReadStatus st = read_file_at(c->fd, name, true, &b, &why);
    if (st == READ_REFUSED) entry_note(c, name, why);
    if (st != READ_OK || !b.len) {
        buf_free(&b);
        return NULL;
    }
    *n = b.len;
    return buf_take(&b);
}

/* ---- reading an entry ---- */

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
 * <path>" line names a file that still holds that text. The paths are
 * realpath's, so one that is now a symbolic link has changed too. */
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
        const char *why;
        /* anybody's module will do (a shared library of kernels): only its
         * text counts; an empty __init__.py is fine */
        bool read = read_file_at(AT_FDCWD, path, false, &text, &why) == READ_OK;
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

static char *entry_name(const char *hex) {
    Buf b = {0};
    buf_printf(&b, "%s.tric", hex);
    return buf_take(&b);
}

bool rt_cache_load(const RtCache *c, const char *hex, const RtRequest *rq, RtResult *out) {
    memset(out, 0, sizeof *out);
    char *name = entry_name(hex);
    size_t n = 0, body = 0;
    char *data = read_entry(c, name, &n);
    free(name);
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

static bool write_all(int fd, const char *data, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, data, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        data += w, n -= (size_t)w;
    }
    return true;
}

/* head then data as the file `name` of the cache, atomically: written to
 * a new file of the user's alone (0600, O_EXCL, a random name) in the
 * same directory, renamed over name. One too big to be read back is not
 * written. */
static bool write_file_at(const RtCache *c, const char *name, const void *head, size_t head_n, const void *data,
                          size_t n) {
    if (head_n > RT_CACHE_MAX_BYTES || n > RT_CACHE_MAX_BYTES - head_n) return false;
    Buf tmp = {0};
    int fd = -1;
    for (int attempt = 0; fd < 0 && attempt < 16; attempt++) {
        uint64_t r;
        if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            r = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15u ^ (uint64_t)ts.tv_sec << 32 ^ (uint64_t)getpid() ^
                (uint64_t)attempt << 56;
        }
        tmp.len = 0;
        buf_printf(&tmp, ".%s.tmp.%016llx", name, (unsigned long long)r);
        fd = openat(c->fd, tmp.data, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 && errno != EEXIST) break;
    }
    bool ok = fd >= 0;
    if (ok) {
        ok = write_all(fd, head, head_n) && write_all(fd, data, n);
        ok = close(fd) == 0 && ok;
        ok = ok && renameat(c->fd, tmp.data, c->fd, name) == 0;
        if (!ok) unlinkat(c->fd, tmp.data, 0);
    }
    buf_free(&tmp);
    return ok;
}

bool rt_cache_store(const RtCache *c, const char *hex, const RtResult *res) {
    if (!res->ok || !res->text || !res->kernel_name) return false;
    /* names and types go on one line each: refuse what would not read back */
    for (int i = 0; i < res->n_params; i++)
        if (strpbrk(res->params[i].name, " \n") || !res->params[i].name[0] || strlen(res->params[i].name) > 255)
            return false;
    Buf entry = {0};
    write_entry(&entry, res);
    char *name = entry_name(hex);
    bool ok = write_file_at(c, name, entry.data, entry.len, "", 0);
    free(name);
    buf_free(&entry);
    return ok;
}

/* ---- blobs: a cubin the driver made (driver.c's JIT cache) ----
 * "tric-blob 1 <bytes> <sha256 of them>\n" then the bytes; a file that
 * does not match is not read. */
bool rt_cache_load_blob(const RtCache *c, const char *name, Buf *out) {
    size_t n = 0;
    char *data = read_entry(c, name, &n);
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

bool rt_cache_store_blob(const RtCache *c, const char *name, const void *data, size_t n) {
    uint8_t digest[32];
    char hex[65];
    rt_sha256(data, n, digest);
    hex_digest(digest, hex);
    Buf head = {0};
    buf_printf(&head, "tric-blob 1 %llu %s\n", (unsigned long long)n, hex);
    bool ok = write_file_at(c, name, head.data, head.len, data, n);
    buf_free(&head);
    return ok;
}
