/* One arena per compilation: tokens, AST, IR and pass scratch all die together
 * with arena_free_all, so no stage frees anything piecemeal and an error that
 * longjmps out of the middle of a pass leaks nothing. */
#include "base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

typedef struct Chunk {
    struct Chunk *next;
    size_t size, used;
    bool mapped;       /* from mmap, not malloc */
    _Alignas(16) unsigned char data[];
} Chunk;

struct Arena {
    Chunk *head;
    size_t total;
};

Arena *arena_new(void) {
    Arena *a = calloc(1, sizeof *a);
    if (!a) tric_internal_error(__FILE__, __LINE__, "out of memory");
    return a;
}

/* A chunk is 64 KiB, or an eighth of what the arena holds so far up to
 * 4 MiB, so that compiling a long kernel takes a few large chunks. Those
 * are mapped with their pages populated at once (MAP_POPULATE, where
 * there is one): a compilation touches what it allocates, and one call
 * costs less than a page fault per page, which was a sixth of the time of
 * a 32k-line kernel. */
#define CHUNK_MIN ((size_t)64 << 10)
#define CHUNK_MAX ((size_t)4 << 20)
#define CHUNK_MAPPED ((size_t)1 << 20)

static Chunk *chunk_new(size_t size) {
#if defined(MAP_POPULATE) && defined(MAP_ANONYMOUS)
    if (size >= CHUNK_MAPPED) {
        void *m = mmap(NULL, sizeof(Chunk) + size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
                       -1, 0);
        if (m == MAP_FAILED) return NULL;
        Chunk *c = m;
        c->mapped = true;
        return c;
    }
#endif
    Chunk *c = malloc(sizeof(Chunk) + size);
    if (c) c->mapped = false;
    return c;
}

void *arena_alloc(Arena *a, size_t n) {
    if (n > ((size_t)1 << 40)) tric_internal_error(__FILE__, __LINE__, "arena allocation size overflow");
    n = (n + 15) & ~(size_t)15;
    if (!a->head || a->head->size - a->head->used < n) {
        size_t size = a->total / 8 < CHUNK_MIN ? CHUNK_MIN : a->total / 8 > CHUNK_MAX ? CHUNK_MAX : a->total / 8;
        if (n > size) size = n;
        Chunk *c = chunk_new(size);
        if (!c) tric_internal_error(__FILE__, __LINE__, "out of memory");
        c->next = a->head;
        c->size = size;
        c->used = 0;
        a->head = c;
        a->total += size;
    }
    void *p = a->head->data + a->head->used;
    a->head->used += n;
    memset(p, 0, n);
    return p;
}

void *arena_realloc(Arena *a, void *p, size_t old_n, size_t new_n) {
    if (new_n <= old_n) return p;
    void *q = arena_alloc(a, new_n);
    if (p && old_n) memcpy(q, p, old_n);
    return q;
}

char *arena_strndup(Arena *a, const char *s, size_t n) {
    char *d = arena_alloc(a, n + 1);
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

char *arena_strdup(Arena *a, const char *s) { return arena_strndup(a, s, strlen(s)); }

char *arena_printf(Arena *a, const char *fmt, ...) {
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *d = arena_alloc(a, (size_t)n + 1);
    vsnprintf(d, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    return d;
}

void arena_free_all(Arena *a) {
    if (!a) return;
    for (Chunk *c = a->head, *next; c; c = next) {
        next = c->next;
        if (c->mapped) munmap(c, sizeof(Chunk) + c->size);
        else free(c);
    }
    free(a);
}

size_t arena_bytes(const Arena *a) { return a->total; }
