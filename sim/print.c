/* vprintf's formatting, as the CUDA driver does it for device printf: the
 * format is C's, the arguments a buffer packed as C varargs would be (each
 * aligned to its own size; char/short/int as 4-byte ints, long and long
 * long as 8, floats widened to double, strings and pointers as 8-byte
 * generic addresses). Each conversion is rebuilt as a host printf spec and
 * formatted with the host's printf, so widths, precision and flags behave
 * as C says. */
#include "simint.h"

#include <string.h>

typedef struct Spec {
    char text[48];        /* the host spec: "%-08.3" + length + conversion */
    int len;              /* length modifier: 0, 'h' (h), 'H' (hh), 'l' (l), 'L' (ll) */
    char conv;
} Spec;

/* Parses the spec at f (just after '%') into *sp; the first character
 * after it, or NULL with the reason in *why. */
static const char *parse_spec(const char *f, Spec *sp, Buf *why) {
    memset(sp, 0, sizeof *sp);
    size_t n = 0;
    sp->text[n++] = '%';
    while (*f && strchr("-+ #0", *f) && n < 8) sp->text[n++] = *f++;
    int digits = 0;
    for (; *f >= '0' && *f <= '9'; f++)
        if (digits++ < 4) sp->text[n++] = *f;
    if (*f == '.') {
        sp->text[n++] = *f++;
        for (int p = 0; *f >= '0' && *f <= '9'; f++)
            if (p++ < 4) sp->text[n++] = *f;
    }
    if (digits > 4 || *f == '*') {
        buf_printf(why, "a width or precision that is '*' or over 9999 is not modelled");
        return NULL;
    }
    if (f[0] == 'h') sp->len = f[1] == 'h' ? 'H' : 'h';
    else if (f[0] == 'l') sp->len = f[1] == 'l' ? 'L' : 'l';
    f += sp->len == 'H' || sp->len == 'L' ? 2 : sp->len ? 1 : 0;
    sp->conv = *f;
    if (!*f || !strchr("diouxXcfFeEgGaAsp%", *f)) {
        buf_printf(why, "the conversion '%%%c' is not modelled", *f ? *f : '?');
        return NULL;
    }
    bool is_int = strchr("diouxX", *f) != NULL;
    if (sp->len && !is_int && !(sp->len == 'l' && strchr("fFeEgGaA", *f))) {
        buf_printf(why, "a length modifier on '%%%c' is not modelled", *f);
        return NULL;
    }
    /* the host spec: ints as int, 8-byte ones as long long (%lf is %f) */
    if (sp->len == 'h') sp->text[n++] = 'h';
    if (sp->len == 'H') sp->text[n++] = 'h', sp->text[n++] = 'h';
    if ((sp->len == 'l' || sp->len == 'L') && is_int) sp->text[n++] = 'l', sp->text[n++] = 'l';
    sp->text[n++] = *f;
    return f + 1;
}

/* The next argument of `size` bytes: aligned to its size, inside [0, n). */
static bool next_arg(const uint8_t *args, size_t n, size_t *off, size_t size, uint64_t *v, Buf *why) {
    size_t at = (*off + size - 1) / size * size;
    if (!args || at + size > n) {
        buf_printf(why, "argument at byte %zu (%zu bytes) is past the %zu bytes of the argument buffer", at, size,
                   args ? n : 0);
        return false;
    }
    *v = 0;
    memcpy(v, args + at, size);   /* little-endian, as the GPU */
    *off = at + size;
    return true;
}

bool sim_format(const char *fmt, const uint8_t *args, size_t n, SimStrFn str, void *ud, Buf *out, Buf *why,
                int *n_used) {
    size_t off = 0;
    *n_used = 0;
    for (const char *f = fmt; *f;) {
        if (*f != '%') {
            const char *pct = strchr(f, '%');
            size_t k = pct ? (size_t)(pct - f) : strlen(f);
            buf_putn(out, f, k);
            f += k;
            continue;
        }
        Spec sp;
        if (!(f = parse_spec(f + 1, &sp, why))) return false;
        if (sp.conv == '%') {
            buf_putc(out, '%');
            continue;
        }
        bool is_float = strchr("fFeEgGaA", sp.conv) != NULL, is_ptr = sp.conv == 's' || sp.conv == 'p';
        bool wide = !is_float && (sp.len == 'l' || sp.len == 'L');
        uint64_t v;
        if (!next_arg(args, n, &off, is_float || is_ptr || wide ? 8 : 4, &v, why)) return false;
        ++*n_used;
        if (is_float) {
            double d;
            memcpy(&d, &v, sizeof d);
            buf_printf(out, sp.text, d);
        } else if (sp.conv == 's') {
            const char *s = str(ud, v);
            if (!s) {
                buf_printf(why, "the %%s argument %d is not the address of a NUL-terminated string", *n_used);
                return false;
            }
            buf_printf(out, sp.text, s);
        } else if (sp.conv == 'p') {
            buf_printf(out, "0x%llx", (unsigned long long)v);
        } else if (wide) {
            buf_printf(out, sp.text, (long long)v);
        } else {
            buf_printf(out, sp.text, (int)(uint32_t)v);
        }
    }
    return true;
}
