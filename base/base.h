/* base: what every layer shares — arenas, growable arrays, string buffers,
 * source files and locations, diagnostics, and the compilation context.
 *
 * arena.c   arena_*          one arena per compilation, freed at once
 * buf.c     buf_*            growable strings (heap or arena backed)
 * diag.c    diag_*           user errors with file:line:col, source line, caret
 * hidx.c    hidx_*, hash_*   hash indexes over arrays the caller keeps
 */
#ifndef TRIC_BASE_H
#define TRIC_BASE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TRIC_VERSION "0.1.0"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* the smallest k with 2^k >= n (log2 of a power of two; 0 for n <= 1) */
static inline int log2_ceil(int64_t n) {
    int k = 0;
    while (((int64_t)1 << k) < n) k++;
    return k;
}

/* ---- arena.c ---- */
typedef struct Arena Arena;
Arena *arena_new(void);
void *arena_alloc(Arena *a, size_t n);            /* zeroed, 16-byte aligned */
void *arena_realloc(Arena *a, void *p, size_t old_n, size_t new_n);
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_strdup(Arena *a, const char *s);
char *arena_printf(Arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void arena_free_all(Arena *a);                    /* frees the arena itself too */
size_t arena_bytes(const Arena *a);

/* One growable-array macro for every growing array: v (pointer), n (count),
 * cap (capacity), all lvalues; memory from the arena. */
#define VEC_PUSH(arena, v, n, cap, x)                                              \
    do {                                                                           \
        if ((n) == (cap)) {                                                        \
            size_t vec_newcap_ = (cap) ? 2 * (size_t)(cap) : 8;                    \
            (v) = arena_realloc((arena), (v), sizeof(*(v)) * (size_t)(cap),        \
                                sizeof(*(v)) * vec_newcap_);                       \
            (cap) = vec_newcap_;                                                   \
        }                                                                          \
        (v)[(n)++] = (x);                                                          \
    } while (0)

/* ---- hidx.c ---- an index by hash over an array the caller keeps, so
 * that a lookup in a long kernel (its names, constants, ops) costs the
 * same as in a short one. Open addressing with linear probing: a slot
 * holds an array index + 1 (0 = empty). The caller hashes and compares:
 * hidx_next gives the candidates under a hash, one per call (*it starts at
 * 0; 0 = no more; h may be NULL). The table counts what is in it, so it
 * stays at most half full even when struct copies of its owner share it
 * (their entries are checked against their own arrays); it is never
 * cleared in place. */
typedef struct HashIdx {
    uint32_t size;      /* a power of two */
    uint32_t used;
    uint32_t slot[];
} HashIdx;
HashIdx *hidx_new(Arena *a, uint32_t n);    /* empty, with room for n */
/* Room in *h for `more` entries: if there is none, *h becomes a fresh
 * table with room for twice `total` (so that growing one by one stays
 * linear) and the result is true: the caller puts all its `total`
 * entries again. */
bool hidx_reserve(HashIdx **h, Arena *a, uint32_t more, uint32_t total);
void hidx_put(HashIdx *h, uint32_t hash, uint32_t k);
static inline uint32_t hidx_next(const HashIdx *h, uint32_t hash, uint32_t *it) {
    if (!h) return 0;
    uint32_t k = h->slot[(hash + *it) & (h->size - 1)];
    if (k) (*it)++;
    return k;
}
uint32_t hash_u64(uint64_t x);
uint32_t hash_ptr(const void *p);
uint32_t hash_str(const char *s);

/* ---- buf.c ---- a growable NUL-terminated string, on the heap, or in an
 * arena when `arena` is set: `Buf b = {.arena = c->arena}` builds a string
 * that dies with the compilation, so code that may unwind through
 * diag_error while building it leaks nothing (buf_free is then a no-op). */
typedef struct Buf {
    char *data;
    size_t len, cap;
    Arena *arena;
} Buf;
void buf_puts(Buf *b, const char *s);
void buf_putn(Buf *b, const char *s, size_t n);
void buf_putc(Buf *b, char c);
void buf_printf(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_vprintf(Buf *b, const char *fmt, va_list ap);
void buf_free(Buf *b);
char *buf_take(Buf *b);                           /* caller owns the string, b is reset */
const char *buf_str(const Buf *b);                /* the text so far ("" when empty) */
bool buf_read_file(Buf *b, const char *path);     /* appends the file; false (errno says why) if unreadable */
int base_hex_digit(char c);                       /* 0..15 for [0-9a-fA-F], else -1 */

/* ---- source files and locations ---- */
typedef struct SrcFile {
    const char *path;     /* as given by the user; used in messages */
    const char *text;     /* whole file, NUL-terminated */
    size_t len;
    /* Where text sits in path when it is a piece of the file (a function's
     * source handed over by Python, frontend/units.c): its first line is
     * line first_line of path (0 means 1), and every line lost the leading
     * `indent` (NULL: none). Locations and messages are the file's own. */
    int first_line;
    const char *indent;
} SrcFile;

/* Every token, AST node and IR op carries one. line and col are 1-based;
 * col counts bytes of the line (diag_* turns it into display width). */
typedef struct SrcLoc {
    const SrcFile *file;
    int32_t line, col;
} SrcLoc;

/* ---- compilation target and options ---- */
typedef struct Target {
    int sm;            /* 80, 86, 89, 90 */
    bool arch_a;       /* sm_90a: wgmma/setmaxnreg allowed */
    int num_warps;     /* threads per program = 32 * num_warps */
    int num_stages;
    bool debug;        /* device asserts are compiled in (Triton's debug=True) */
    int maxnreg;       /* registers per thread the entry may use (.maxnreg); 0: ptxas decides */
    bool no_fp_fusion; /* float mul/add/sub carry .rn, so ptxas does not contract them into
                          fma (Triton's enable_fp_fusion=False) */
} Target;

/* ---- target.c: what each arch has ---- */
typedef struct TargetInfo {
    const char *name;  /* "sm_90a" */
    int sm;
    bool arch_a;
    int ptx;           /* the .version a module for it declares at least, x10 */
    bool bf16_cvt;     /* cvt between f32 and bf16 in one instruction */
    bool bf16_arith;   /* bf16 compares, conversions from integers, f16 and f64,
                          and bf16 atomics as instructions of their own */
    bool fp8;          /* e4m3 / e5m2 conversions and mma.sync */
    int fp8_ptx;       /* the .version those conversions need, x10 */
    bool hopper;       /* TMA and mbarrier transactions, stmatrix, f16 atomic
                          min/max, f32 -> fp8 in one conversion */
    bool wgmma;        /* arch-specific sm_90a: wgmma, tensormap.replace */
} TargetInfo;

/* t's row (by sm and arch_a); when tric has none, a row with a NULL name
 * and no capabilities (the entry points refuse such a target first) */
const TargetInfo *target_info(const Target *t);
/* the row named name ("sm_80"), NULL when none */
const TargetInfo *target_find(const char *name);
/* "sm_80, sm_86, ... <last_sep>sm_90a" into out */
void target_names(Buf *out, const char *last_sep);

/* ---- the compilation context: everything one compilation owns ----
 * No globals: every stage reaches state through this. A user error calls
 * diag_error, which records the message and longjmps to ctx->bail, set by
 * the public entry point (tric_compile...), so nothing ever exits. */
typedef struct Ctx {
    Arena *arena;
    Target target;
    Buf diag;              /* all messages so far, formatted */
    int n_errors;
    jmp_buf *bail;         /* where diag_error jumps; NULL = do not jump */
    /* debugging output requested by the user (the CLI's --dump-after) */
    const char *dump_after;   /* pass name, "all", or NULL */
    Buf *dump_out;            /* where dumps go */
    bool verify_each;         /* run the IR verifier after every pass */
    /* where imported modules are looked for, after the kernel file's
     * directory (the CLI's -I options, then TRIC_PATH; Python's sys.path) */
    const char **search_path;
    int n_search_path;
    /* the files of the user's modules read while lowering (modules.c), so
     * the disk cache can tell when an imported module was edited */
    const SrcFile **imported;
    int n_imported, cap_imported;
    bool internal;            /* the error that unwound was an internal one (TRIC_ASSERT) */
} Ctx;

Ctx *ctx_new(const Target *t);    /* heap; owns a fresh arena */
void ctx_free(Ctx *c);
/* Makes c (whose bail is set) the context that internal errors on this
 * thread unwind to, until the entry point restores the previous one (NULL
 * when none) with another ctx_guard; returns that previous one. */
Ctx *ctx_guard(Ctx *c);

/* ---- diag.c ---- */
/* "path:line:col: error: message\n<source line>\n<caret>\n" into ctx->diag,
 * then longjmp(*ctx->bail, 1) if bail is set. */
_Noreturn void diag_error(Ctx *c, SrcLoc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void diag_verror(Ctx *c, SrcLoc loc, const char *fmt, va_list ap);  /* records only */
void diag_note(Ctx *c, SrcLoc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* an error with no position: "tric: error: message" (or "path: error: ..."
 * when what is non-NULL) */
_Noreturn void diag_fatal(Ctx *c, const char *what, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Format one message without recording it (used by the IR text parser and
 * tests): appends to out. kind is "error" or "note". */
void diag_format(Buf *out, SrcLoc loc, const char *kind, const char *msg);

/* A broken invariant inside tric (not a user error; out of memory too).
 * Under a guarded context (ctx_guard) "internal error at file:line: cond"
 * is recorded in it, c->internal set, and the compilation unwinds to its
 * entry point as a user error does: the process that embeds the library
 * survives. Elsewhere (no entry point on this thread's stack) it prints
 * the message and aborts. */
#define TRIC_ASSERT(cond)                                                          \
    do {                                                                           \
        if (!(cond)) tric_internal_error(__FILE__, __LINE__, #cond);               \
    } while (0)
#define tric_unreachable() tric_internal_error(__FILE__, __LINE__, "unreachable")
_Noreturn void tric_internal_error(const char *file, int line, const char *what);

/* reading files */
SrcFile *srcfile_read(Ctx *c, const char *path);          /* diag_fatal on failure */
SrcFile *srcfile_from_string(Ctx *c, const char *path, const char *text);

#endif
