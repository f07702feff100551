/* Signature strings in the form of Triton's ahead-of-time tool:
 *
 *   "*fp32:16, *kfp16, i32, i32:16, i32:1, fp32, 1024, 3.5, True, None, 'relu', BLOCK=1024"
 *
 * A host tensor descriptor (triton.tools.tensor_descriptor.TensorDescriptor)
 * is "tensordesc<fp16[64, 64]>", its element type and block shape as Triton
 * spells them, with ",nan" before the '>' when its padding is "nan" and
 * ":16" after it when the last dim of its shape is a multiple of 16 (the
 * dim whose divisibility sets how wide the loads of a block can be).
 *
 * A tuple argument is its items in parentheses, each spelled as an entry
 * (without a name): "(i32:16, i32, 64)", "((*fp16:16, 2), None)"; a
 * one-item tuple may end in a comma, as in Python.
 *
 * A constexpr whose value is a dtype (`OUT_DTYPE: tl.constexpr` called with
 * tl.float16) is written dtype(T), T a type of the signature itself:
 * "dtype(fp16)", "dtype(bf16)", "dtype(i64)"; the kernel sees tl.float16 etc.
 * (Triton spells dtypes so: str(tl.float16) == "fp16".)
 *
 * The text is treated as a source file named "<signature>" so that mistakes
 * get a caret under the offending entry, like mistakes in the kernel file. */
#include "frontend.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct SigParser {
    Ctx *ctx;
    const SrcFile *src;
    const char *p;       /* cursor into src->text */
} SigParser;

/* Signature spellings accepted besides each type's own (types.def). */
static const struct {
    const char *name;
    ElemType type;
} sig_aliases[] = {{"u1", ET_I1}};

/* Triton types that exist for other backends only. */
static const char *const sig_foreign_types[] = {"fp8e4b8", "fp8e5b16", "fp8e4b15"};

static SrcLoc sig_loc(SigParser *s, const char *at) {
    SrcLoc l = {s->src, 1, (int32_t)(at - s->src->text) + 1};
    return l;
}

static void sig_skip_space(SigParser *s) {
    while (*s->p == ' ' || *s->p == '\t') s->p++;
}

static bool sig_is_ident_start(char ch) { return isalpha((unsigned char)ch) || ch == '_'; }
static bool sig_is_ident(char ch) { return isalnum((unsigned char)ch) || ch == '_'; }

/* Length of the word at p: identifier characters (types such as "fp8e4nv"
 * and names such as "BLOCK_M" are both words). */
static size_t sig_word_len(const char *p) {
    size_t n = 0;
    while (sig_is_ident(p[n])) n++;
    return n;
}

static bool sig_word_is(const char *p, size_t n, const char *w) {
    return strlen(w) == n && !memcmp(p, w, n);
}

/* Element type named by the word [p, p+n), or ET_COUNT. */
static ElemType sig_type_named(const char *p, size_t n) {
    for (int e = 0; e < ET_COUNT; e++)
        if (e != ET_PTR && sig_word_is(p, n, elem_triton_name((ElemType)e))) return (ElemType)e;
    for (size_t i = 0; i < ARRAY_LEN(sig_aliases); i++)
        if (sig_word_is(p, n, sig_aliases[i].name)) return sig_aliases[i].type;
    return ET_COUNT;
}

/* type = WORD   (one of the element types) */
static ElemType sig_type(SigParser *s) {
    const char *at = s->p;
    size_t n = sig_word_len(at);
    if (n == 0) diag_error(s->ctx, sig_loc(s, at), "expected a type in signature");
    ElemType e = sig_type_named(at, n);
    if (e == ET_COUNT) {
        for (size_t i = 0; i < ARRAY_LEN(sig_foreign_types); i++)
            if (sig_word_is(at, n, sig_foreign_types[i]))
                diag_error(s->ctx, sig_loc(s, at), "type '%.*s' is not supported on NVIDIA GPUs", (int)n, at);
        diag_error(s->ctx, sig_loc(s, at), "unknown type '%.*s' in signature", (int)n, at);
    }
    s->p += n;
    return e;
}

/* hint = ":" ("1" | "16") */
static void sig_hint(SigParser *s, SigEntry *e) {
    const char *at = s->p;
    s->p++;   /* ':' */
    sig_skip_space(s);
    const char *num = s->p;
    while (isdigit((unsigned char)*s->p)) s->p++;
    size_t n = (size_t)(s->p - num);
    bool is_ptr = e->kind == SIG_POINTER;
    if (sig_word_is(num, n, "16")) {
        if (!is_ptr && !elem_is_int(e->type))
            diag_error(s->ctx, sig_loc(s, at), "the hint :16 is only valid for pointers and integers");
        e->divisibility = 16;
    } else if (sig_word_is(num, n, "1")) {
        if (is_ptr || !elem_is_int(e->type))
            diag_error(s->ctx, sig_loc(s, at), "the hint :1 is only valid for integers");
        e->equals_one = true;
    } else {
        diag_error(s->ctx, sig_loc(s, at), "only the hints :1 and :16 are valid");
    }
}

/* pointer = "*" ["k"] type [hint] */
static void sig_pointer(SigParser *s, SigEntry *e) {
    s->p++;   /* '*' */
    sig_skip_space(s);
    e->kind = SIG_POINTER;
    /* "*kfp32": a const pointer. "k" never starts a type name. */
    if (*s->p == 'k' && sig_type_named(s->p + 1, sig_word_len(s->p + 1)) != ET_COUNT) {
        e->is_const_ptr = true;
        s->p++;
    }
    e->type = sig_type(s);
    sig_skip_space(s);
    if (*s->p == ':') sig_hint(s, e);
}

/* string = "'" chars "'" | '"' chars '"'   (no escapes) */
static void sig_string(SigParser *s, SigEntry *e) {
    const char *at = s->p;
    char quote = *s->p++;
    const char *begin = s->p;
    while (*s->p && *s->p != quote) s->p++;
    if (*s->p != quote) diag_error(s->ctx, sig_loc(s, at), "unterminated string in signature");
    e->kind = SIG_CONSTEXPR;
    e->cv_kind = CV_STR;
    e->sval = arena_strndup(s->ctx->arena, begin, (size_t)(s->p - begin));
    s->p++;
}

/* number = ["-" | "+"] (integer | float)   (Python spelling, "_" separators) */
static void sig_number(SigParser *s, SigEntry *e) {
    const char *at = s->p;
    const char *end = s->p;
    if (*end == '-' || *end == '+') end++;
    while (isalnum((unsigned char)*end) || *end == '.' || *end == '_' ||
           ((*end == '-' || *end == '+') && (end[-1] == 'e' || end[-1] == 'E')))
        end++;
    char *text = arena_strndup(s->ctx->arena, at, (size_t)(end - at));
    char *w = text;
    for (char *r = text; *r; r++)
        if (*r != '_') *w++ = *r;
    *w = 0;
    bool is_hex = strstr(text, "0x") || strstr(text, "0X");
    bool is_float = !is_hex && strpbrk(text, ".eE");
    char *stop;
    errno = 0;
    e->kind = SIG_CONSTEXPR;
    if (is_float) {
        e->cv_kind = CV_FLOAT;
        e->fval = strtod(text, &stop);
    } else {
        e->cv_kind = CV_INT;
        e->ival = strtoll(text, &stop, 0);
        /* Python has no octal "017"; strtoll would read it as octal */
        const char *digits = text + (*text == '-' || *text == '+');
        if (!is_hex && digits[0] == '0' && digits[1] && strspn(digits, "0") != strlen(digits)) stop = text;
    }
    if (*stop || stop == text) diag_error(s->ctx, sig_loc(s, at), "malformed number '%s' in signature", text);
    if (errno == ERANGE) diag_error(s->ctx, sig_loc(s, at), "number '%s' in signature is out of range", text);
    s->p = end;
}

/* dtype = "dtype" "(" type ")"   (a dtype-valued constexpr) */
static void sig_dtype(SigParser *s, SigEntry *e) {
    s->p += strlen("dtype");
    sig_skip_space(s);
    s->p++;   /* '(' */
    sig_skip_space(s);
    e->kind = SIG_CONSTEXPR;
    e->cv_kind = CV_DTYPE;
    e->type = sig_type(s);
    sig_skip_space(s);
    if (*s->p != ')') diag_error(s->ctx, sig_loc(s, s->p), "expected ')' to close 'dtype('");
    s->p++;
}

/* tensordesc = "tensordesc" "<" type "[" INT ("," INT)* "]" ["," "nan"] ">" */
static void sig_tensordesc(SigParser *s, SigEntry *e) {
    s->p += strlen("tensordesc");
    sig_skip_space(s);
    s->p++;   /* '<' */
    sig_skip_space(s);
    e->kind = SIG_TENSORDESC;
    e->type = sig_type(s);
    sig_skip_space(s);
    if (*s->p != '[') diag_error(s->ctx, sig_loc(s, s->p), "expected '[' and the block shape in 'tensordesc<...>'");
    do {
        s->p++;
        sig_skip_space(s);
        const char *at = s->p;
        char *end;
        long v = strtol(s->p, &end, 10);
        if (end == s->p || v < 1 || v > 1 << 20 || (v & (v - 1)))
            diag_error(s->ctx, sig_loc(s, at), "a block dim of a tensordesc must be a power of two");
        if (e->n_block == 5) diag_error(s->ctx, sig_loc(s, at), "a tensordesc has at most 5 dims");
        e->block[e->n_block++] = (int32_t)v;
        s->p = end;
        sig_skip_space(s);
    } while (*s->p == ',');
    if (*s->p != ']') diag_error(s->ctx, sig_loc(s, s->p), "expected ']' to close the block shape");
    s->p++;
    sig_skip_space(s);
    if (*s->p == ',') {
        s->p++;
        sig_skip_space(s);
        if (!sig_word_is(s->p, sig_word_len(s->p), "nan"))
            diag_error(s->ctx, sig_loc(s, s->p), "expected 'nan' (the padding) or '>' to close 'tensordesc<'");
        e->pad_nan = true;
        s->p += 3;
        sig_skip_space(s);
    }
    if (*s->p != '>') diag_error(s->ctx, sig_loc(s, s->p), "expected '>' to close 'tensordesc<'");
    s->p++;
    sig_skip_space(s);
    if (*s->p == ':') {   /* ":16": the shape's last dim is a multiple of 16 */
        const char *at = s->p++;
        sig_skip_space(s);
        if (strncmp(s->p, "16", 2) || isdigit((unsigned char)s->p[2]))
            diag_error(s->ctx, sig_loc(s, at), "the hint of a tensordesc is :16 (the last dim of its shape a multiple of 16)");
        e->divisibility = 16;
        s->p += 2;
    }
}

/* Is the word [p, p+n) "dtype" followed by "("? */
static bool sig_is_dtype(const char *p, size_t n) {
    if (!sig_word_is(p, n, "dtype")) return false;
    p += n;
    while (*p == ' ' || *p == '\t') p++;
    return *p == '(';
}

static void sig_value(SigParser *s, SigEntry *e);

/* tuple = "(" [value ("," value)* [","]] ")" */
static void sig_tuple(SigParser *s, SigEntry *e) {
    const char *open = s->p++;
    e->kind = SIG_TUPLE;
    int cap = 0;
    sig_skip_space(s);
    while (*s->p != ')') {
        SigEntry item = {.divisibility = 1, .loc = sig_loc(s, s->p)};
        sig_value(s, &item);
        VEC_PUSH(s->ctx->arena, e->items, e->n_items, cap, item);
        sig_skip_space(s);
        if (*s->p == ',') {
            s->p++;
            sig_skip_space(s);
        } else if (*s->p != ')') {
            diag_error(s->ctx, sig_loc(s, *s->p ? s->p : open), *s->p ? "expected ',' or ')' in a tuple, found '%c'"
                                                                       : "unclosed '(' in signature", *s->p);
        }
    }
    s->p++;
}

/* value = pointer | string | number | "True" | "False" | "None" | dtype | tensordesc | tuple | type [hint] */
static void sig_value(SigParser *s, SigEntry *e) {
    char ch = *s->p;
    if (ch == '(') {
        sig_tuple(s, e);
    } else if (ch == '*') {
        sig_pointer(s, e);
    } else if (ch == '\'' || ch == '"') {
        sig_string(s, e);
    } else if (isdigit((unsigned char)ch) || ch == '-' || ch == '+' || ch == '.') {
        sig_number(s, e);
    } else if (sig_is_ident_start(ch)) {
        size_t n = sig_word_len(s->p);
        e->kind = SIG_CONSTEXPR;
        if (sig_word_is(s->p, n, "True") || sig_word_is(s->p, n, "False")) {
            e->cv_kind = CV_BOOL;
            e->ival = s->p[0] == 'T';
            s->p += n;
        } else if (sig_word_is(s->p, n, "None")) {
            e->cv_kind = CV_NONE;
            s->p += n;
        } else if (sig_is_dtype(s->p, n)) {
            sig_dtype(s, e);
        } else if (sig_word_is(s->p, n, "tensordesc") && s->p[n] == '<') {
            sig_tensordesc(s, e);
        } else {
            e->kind = SIG_SCALAR;
            e->type = sig_type(s);
            sig_skip_space(s);
            if (*s->p == ':') sig_hint(s, e);
        }
    } else if (ch == ',' || ch == ')' || ch == 0) {
        diag_error(s->ctx, sig_loc(s, s->p), "empty entry in signature");
    } else {
        diag_error(s->ctx, sig_loc(s, s->p), "unexpected '%c' in signature", ch);
    }
}

/* entry = [NAME "="] value */
static SigEntry sig_entry(SigParser *s) {
    SigEntry e = {0};
    e.divisibility = 1;
    sig_skip_space(s);
    e.loc = sig_loc(s, s->p);
    size_t n = sig_word_len(s->p);
    if (n && sig_is_ident_start(*s->p)) {
        const char *q = s->p + n;
        while (*q == ' ' || *q == '\t') q++;
        if (*q == '=') {
            e.name = arena_strndup(s->ctx->arena, s->p, n);
            s->p = q + 1;
            sig_skip_space(s);
        }
    }
    sig_value(s, &e);
    sig_skip_space(s);
    return e;
}

/* signature = [entry ("," entry)* [","]] */
Signature *sig_parse(Ctx *c, const char *text) {
    SigParser s = {c, srcfile_from_string(c, "<signature>", text), NULL};
    s.p = s.src->text;
    Signature *sig = arena_alloc(c->arena, sizeof *sig);
    sig->src = s.src;
    int cap = 0;
    sig_skip_space(&s);
    while (*s.p) {
        SigEntry e = sig_entry(&s);
        VEC_PUSH(c->arena, sig->entries, sig->n, cap, e);
        if (*s.p == ',') {
            s.p++;
            sig_skip_space(&s);
        } else if (*s.p) {
            diag_error(c, sig_loc(&s, s.p), "expected ',' between signature entries, found '%c'", *s.p);
        }
    }
    return sig;
}

static void sig_put_entry(Buf *b, const SigEntry *e) {
    switch (e->kind) {
    case SIG_POINTER:
        buf_printf(b, "*%s%s", e->is_const_ptr ? "k" : "", elem_triton_name(e->type));
        break;
    case SIG_SCALAR: buf_puts(b, elem_triton_name(e->type)); break;
    case SIG_TENSORDESC:
        buf_printf(b, "tensordesc<%s[", elem_triton_name(e->type));
        for (int i = 0; i < e->n_block; i++) buf_printf(b, "%s%d", i ? ", " : "", (int)e->block[i]);
        buf_printf(b, "]%s>", e->pad_nan ? ",nan" : "");
        return;
    case SIG_TUPLE:
        buf_putc(b, '(');
        for (int i = 0; i < e->n_items; i++) {
            if (i) buf_puts(b, ", ");
            sig_put_entry(b, &e->items[i]);
        }
        buf_puts(b, e->n_items == 1 ? ",)" : ")");
        return;
    case SIG_CONSTEXPR:
        switch (e->cv_kind) {
        case CV_INT: buf_printf(b, "%lld", (long long)e->ival); break;
        case CV_FLOAT: buf_printf(b, "%.17g", e->fval); break;
        case CV_BOOL: buf_puts(b, e->ival ? "True" : "False"); break;
        case CV_NONE: buf_puts(b, "None"); break;
        case CV_STR: buf_printf(b, "'%s'", e->sval); break;
        case CV_DTYPE: buf_printf(b, "dtype(%s)", elem_triton_name(e->type)); break;
        }
        return;
    }
    if (e->divisibility == 16) buf_puts(b, ":16");
    if (e->equals_one) buf_puts(b, ":1");
}

const char *sig_entry_text(Arena *a, const SigEntry *e) {
    Buf b = {.arena = a};
    sig_put_entry(&b, e);
    return buf_take(&b);
}
