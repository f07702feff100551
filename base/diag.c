/* Diagnostics. A user mistake becomes "path:line:col: error: message", the
 * source line, and a caret under the column (by display width, so tabs and
 * UTF-8 line up). diag_error records it and unwinds to the entry point. */
#include "base.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The context an internal error unwinds to. An assertion has no context
 * parameter (it sits in layout algebra and arenas as well as passes), so
 * this one pointer per thread is the exception to "no global state": set
 * and restored, strictly nested, by the entry points only. */
static _Thread_local Ctx *guarded;

Ctx *ctx_guard(Ctx *c) {
    Ctx *prev = guarded;
    guarded = c;
    return prev;
}

_Noreturn void tric_internal_error(const char *file, int line, const char *what) {
    Ctx *c = guarded;
    if (c && c->bail) {
        guarded = NULL;   /* an error while reporting this one aborts */
        buf_printf(&c->diag, "tric: internal error at %s:%d: %s (a bug in tric; please report it)\n", file,
                   line, what);
        c->n_errors++;
        c->internal = true;
        guarded = c;
        longjmp(*c->bail, 1);
    }
    fprintf(stderr, "tric: internal error at %s:%d: %s\n", file, line, what);
    abort();
}

Ctx *ctx_new(const Target *t) {
    Ctx *c = calloc(1, sizeof *c);
    if (!c) tric_internal_error(__FILE__, __LINE__, "out of memory");
    c->arena = arena_new();
    c->target = *t;
    return c;
}

void ctx_free(Ctx *c) {
    if (!c) return;
    arena_free_all(c->arena);
    buf_free(&c->diag);
    free(c);
}

/* Start of line `line` (1-based, of the file f is taken from) in f, and
 * its length without the newline. */
static const char *line_start(const SrcFile *f, int line, size_t *len) {
    const char *p = f->text, *end = f->text + f->len;
    for (int l = f->first_line > 0 ? f->first_line : 1; l < line && p < end; p++)
        if (*p == '\n') l++;
    const char *q = p;
    while (q < end && *q != '\n' && *q != '\r') q++;
    *len = (size_t)(q - p);
    return p;
}

void diag_format(Buf *out, SrcLoc loc, const char *kind, const char *msg) {
    if (!loc.file) {
        buf_printf(out, "tric: %s: %s\n", kind, msg);
        return;
    }
    buf_printf(out, "%s:%d:%d: %s: %s\n", loc.file->path, loc.line, loc.col, kind, msg);
    if (loc.line < 1 || !loc.file->text) return;
    /* the line as the file has it: the piece's indent put back */
    Buf line = {0};
    size_t len;
    const char *s = line_start(loc.file, loc.line, &len);
    if (loc.file->indent) buf_puts(&line, loc.file->indent);
    buf_putn(&line, s, len);
    s = buf_str(&line);
    len = line.len;
    buf_putn(out, s, len);
    buf_putc(out, '\n');
    /* caret: keep tabs as tabs, count a UTF-8 sequence as one column */
    for (size_t i = 0; i + 1 < (size_t)loc.col && i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '\t') buf_putc(out, '\t');
        else if ((ch & 0xC0) != 0x80) buf_putc(out, ' ');
    }
    buf_puts(out, "^\n");
    buf_free(&line);
}

void diag_verror(Ctx *c, SrcLoc loc, const char *fmt, va_list ap) {
    Buf msg = {0};
    buf_vprintf(&msg, fmt, ap);
    diag_format(&c->diag, loc, "error", msg.data);
    buf_free(&msg);
    c->n_errors++;
}

_Noreturn void diag_error(Ctx *c, SrcLoc loc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    diag_verror(c, loc, fmt, ap);
    va_end(ap);
    if (c->bail) longjmp(*c->bail, 1);
    tric_internal_error(__FILE__, __LINE__, "diag_error with no bail point");
}

void diag_note(Ctx *c, SrcLoc loc, const char *fmt, ...) {
    Buf msg = {0};
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&msg, fmt, ap);
    va_end(ap);
    diag_format(&c->diag, loc, "note", msg.data);
    buf_free(&msg);
}

_Noreturn void diag_fatal(Ctx *c, const char *what, const char *fmt, ...) {
    Buf msg = {0};
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&msg, fmt, ap);
    va_end(ap);
    if (what) buf_printf(&c->diag, "%s: error: %s\n", what, msg.data);
    else buf_printf(&c->diag, "tric: error: %s\n", msg.data);
    buf_free(&msg);
    c->n_errors++;
    if (c->bail) longjmp(*c->bail, 1);
    tric_internal_error(__FILE__, __LINE__, "diag_fatal with no bail point");
}

SrcFile *srcfile_from_string(Ctx *c, const char *path, const char *text) {
    SrcFile *f = arena_alloc(c->arena, sizeof *f);
    f->path = arena_strdup(c->arena, path);
    f->len = strlen(text);
    f->text = arena_strndup(c->arena, text, f->len);
    return f;
}

SrcFile *srcfile_read(Ctx *c, const char *path) {
    Buf b = {.arena = c->arena};
    if (!buf_read_file(&b, path)) diag_fatal(c, path, "cannot read file: %s", strerror(errno));
    SrcFile *f = arena_alloc(c->arena, sizeof *f);
    f->path = arena_strdup(c->arena, path);
    f->len = b.len;
    f->text = buf_str(&b);
    if (memchr(f->text, 0, f->len)) diag_fatal(c, path, "file contains a NUL byte (not a Python source file?)");
    return f;
}
