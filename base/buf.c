/* Growable strings: on the heap for what outlives the arena (the PTX text,
 * the diagnostics), in the arena for strings built during a compilation. */
#include "base.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void buf_reserve(Buf *b, size_t extra) {
    if (b->len + extra + 1 <= b->cap) return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1) cap *= 2;
    char *d = b->arena ? arena_realloc(b->arena, b->data, b->cap, cap) : realloc(b->data, cap);
    if (!d) tric_internal_error(__FILE__, __LINE__, "out of memory");
    b->data = d;
    b->cap = cap;
}

void buf_putn(Buf *b, const char *s, size_t n) {
    buf_reserve(b, n);
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = 0;
}

void buf_puts(Buf *b, const char *s) { buf_putn(b, s, strlen(s)); }

void buf_putc(Buf *b, char c) { buf_putn(b, &c, 1); }

/* Formats into the room there is, and only when that is too small once
 * more after growing: PTX and IR text are printed a piece at a time. */
void buf_vprintf(Buf *b, const char *fmt, va_list ap) {
    va_list ap2;
    va_copy(ap2, ap);
    size_t room = b->cap - b->len;   /* with the NUL; 0 when there is no data yet */
    int n = vsnprintf(room ? b->data + b->len : NULL, room, fmt, ap);
    if ((size_t)n >= room) {
        buf_reserve(b, (size_t)n);
        vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap2);
    }
    va_end(ap2);
    b->len += (size_t)n;
}

void buf_printf(Buf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(b, fmt, ap);
    va_end(ap);
}

void buf_free(Buf *b) {
    if (!b->arena) free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

const char *buf_str(const Buf *b) { return b->data ? b->data : ""; }

int base_hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

bool buf_read_file(Buf *b, const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    char chunk[65536];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) buf_putn(b, chunk, got);
    bool failed = ferror(f);
    fclose(f);
    return !failed;
}

char *buf_take(Buf *b) {
    char *d = b->data;
    if (!d) {
        d = b->arena ? arena_alloc(b->arena, 1) : malloc(1);
        if (!d) tric_internal_error(__FILE__, __LINE__, "out of memory");
        d[0] = 0;
    }
    b->data = NULL;
    b->len = b->cap = 0;
    return d;
}
