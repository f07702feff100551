/* The Python tokenizer. A kernel file is an ordinary Python module full of
 * host code, so this accepts all of Python 3 lexically: every string prefix,
 * f-strings with nested quotes (3.12 rules), numbers with underscores,
 * non-ASCII identifiers, backslash continuations, CRLF, and tabs in
 * indentation. It turns indentation into INDENT/DEDENT tokens and checks
 * bracket balance for the whole file, so the parser never has to.
 * Error wording follows CPython so that messages look familiar. */
#include "frontend.h"

#include <string.h>

enum {
    LEX_MAX_INDENT = 100,   /* CPython's limit on indentation levels */
    LEX_MAX_PAREN = 200,    /* and on nested brackets */
    LEX_MAX_FSTRING = 32,   /* nested replacement fields / strings in f-strings */
    LEX_TABSIZE = 8
};

typedef struct LexParen {
    char ch;
    SrcLoc loc;
} LexParen;

typedef struct Lexer {
    Ctx *c;
    const SrcFile *f;
    const char *p, *end;
    int line;
    const char *line_begin;     /* first byte of the current physical line */
    Token *toks;
    int n, cap;
    /* indentation stack: width with tabs to multiples of 8, and with tabs as
     * 1 column; both must order the same way or the file mixes tabs and
     * spaces ambiguously (CPython's TabError) */
    int indents[LEX_MAX_INDENT + 1], alt_indents[LEX_MAX_INDENT + 1];
    int n_indents;
    LexParen parens[LEX_MAX_PAREN];
    int n_parens;
    int line_first_tok;         /* index of the current logical line's first token */
    int indent_len;             /* columns the file's lines lost (SrcFile.indent) */
} Lexer;

static SrcLoc lex_loc(const Lexer *lx, const char *p) {
    SrcLoc loc = {lx->f, lx->line, (int32_t)(p - lx->line_begin) + 1 + lx->indent_len};
    return loc;
}

static void lex_push(Lexer *lx, TokKind kind, const char *text, int len, SrcLoc loc) {
    Token t = {kind, loc, text, len};
    VEC_PUSH(lx->c->arena, lx->toks, lx->n, lx->cap, t);
}

/* Called with p just past a '\n': the next physical line starts. */
static void lex_newline(Lexer *lx, const char *p) {
    lx->line++;
    lx->line_begin = p;
}

static bool is_newline_at(const Lexer *lx, const char *p) {
    return p < lx->end && (*p == '\n' || (*p == '\r' && p + 1 < lx->end && p[1] == '\n'));
}

/* Length of the newline sequence at p (1 for LF, 2 for CRLF). */
static int newline_len(const char *p) { return *p == '\r' ? 2 : 1; }

/* ---- UTF-8 and identifier characters ---- */

/* Decodes one UTF-8 sequence; returns its length, or 0 if malformed. */
static int utf8_decode(const char *s, const char *end, uint32_t *cp) {
    const unsigned char *u = (const unsigned char *)s;
    int n = u[0] < 0x80 ? 1 : u[0] >= 0xF0 && u[0] < 0xF5 ? 4 : u[0] >= 0xE0 ? 3 : u[0] >= 0xC2 ? 2 : 0;
    if (n == 0 || end - s < n) return 0;
    if (n == 1) {
        *cp = u[0];
        return 1;
    }
    uint32_t v = u[0] & (0x7F >> n);
    for (int i = 1; i < n; i++) {
        if ((u[i] & 0xC0) != 0x80) return 0;
        v = (v << 6) | (u[i] & 0x3F);
    }
    static const uint32_t min_for_len[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (v < min_for_len[n] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
    *cp = v;
    return n;
}

/* Non-ASCII code points that are not identifier characters. Python uses the
 * full Unicode XID tables; rather than carry them, treat letters broadly and
 * reject the punctuation, spaces, symbols and emoji people actually paste
 * into code by accident (smart quotes, NBSP, ×, fullwidth brackets, ...). */
static bool is_non_ident_cp(uint32_t cp) {
    static const uint32_t ranges[][2] = {
        {0x80, 0xA9}, {0xAB, 0xB4}, {0xB6, 0xB6}, {0xB8, 0xB9}, {0xBB, 0xBF},
        {0xD7, 0xD7}, {0xF7, 0xF7}, {0x2000, 0x203E}, {0x2041, 0x2053},
        {0x2055, 0x206F}, {0x2190, 0x23FF}, {0x2500, 0x27BF}, {0x2E00, 0x2E7F},
        {0x3000, 0x3004}, {0x3008, 0x3020}, {0xFE10, 0xFE1F}, {0xFE30, 0xFE4F},
        {0xFEFF, 0xFEFF}, {0xFF01, 0xFF0F}, {0xFF1A, 0xFF20}, {0xFF3B, 0xFF3E},
        {0xFF40, 0xFF40}, {0xFF5B, 0xFF65}, {0xFFF0, 0xFFFF}, {0x1F000, 0x1FAFF},
    };
    for (size_t i = 0; i < ARRAY_LEN(ranges); i++)
        if (cp >= ranges[i][0] && cp <= ranges[i][1]) return true;
    return false;
}

static bool is_nonprintable_cp(uint32_t cp) {
    return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0xA0) || (cp >= 0x200B && cp <= 0x200F) ||
           (cp >= 0x2028 && cp <= 0x202F) || (cp >= 0x2060 && cp <= 0x206F) || cp == 0xFEFF;
}

static _Noreturn void lex_bad_char(Lexer *lx, const char *p) {
    uint32_t cp;
    int n = utf8_decode(p, lx->end, &cp);
    SrcLoc loc = lex_loc(lx, p);
    if (n == 0) diag_error(lx->c, loc, "invalid UTF-8 byte 0x%02X in source", (unsigned char)*p);
    if (is_nonprintable_cp(cp)) diag_error(lx->c, loc, "invalid non-printable character U+%04X", cp);
    diag_error(lx->c, loc, "invalid character '%.*s' (U+%04X)", n, p, cp);
}

static bool is_ascii_ident_start(char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_';
}
static bool is_digit(char ch) { return ch >= '0' && ch <= '9'; }

/* Length of the identifier character at p (0 if none); reports malformed or
 * forbidden non-ASCII characters. */
static int ident_char_len(Lexer *lx, const char *p, bool first) {
    if (p >= lx->end) return 0;
    if (is_ascii_ident_start(*p) || (!first && is_digit(*p))) return 1;
    if ((unsigned char)*p < 0x80) return 0;
    uint32_t cp;
    int n = utf8_decode(p, lx->end, &cp);
    if (n == 0 || is_non_ident_cp(cp)) lex_bad_char(lx, p);
    return n;
}

static const char *scan_ident(Lexer *lx, const char *p) {
    int n = ident_char_len(lx, p, true);
    while (n > 0) {
        p += n;
        n = ident_char_len(lx, p, false);
    }
    return p;
}

/* ---- numbers ---- */

static int digit_value(char ch) {
    if (is_digit(ch)) return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return 99;
}

/* digits = digit ('_'? digit)* ; an underscore must sit between digits. */
static const char *scan_digits(Lexer *lx, const char *p, int base, const char *what) {
    while (p < lx->end) {
        if (*p == '_') {
            if (p + 1 >= lx->end || digit_value(p[1]) >= base) diag_error(lx->c, lex_loc(lx, p), "invalid %s literal", what);
            p++;
        } else if (digit_value(*p) >= base) {
            break;
        }
        p++;
    }
    return p;
}

/* `1if x else 2` is legal Python: a keyword may follow a number directly. */
static bool keyword_follows(const Lexer *lx, const char *p) {
    static const char *const kws[] = {"and", "else", "for", "if", "in", "is", "not", "or"};
    for (size_t i = 0; i < ARRAY_LEN(kws); i++) {
        size_t n = strlen(kws[i]);
        if ((size_t)(lx->end - p) >= n && memcmp(p, kws[i], n) == 0 &&
            (p + n == lx->end || !(is_ascii_ident_start(p[n]) || is_digit(p[n]))))
            return true;
    }
    return false;
}

static void check_number_end(Lexer *lx, const char *p, const char *what) {
    if (p < lx->end && (is_ascii_ident_start(*p) || is_digit(*p) || (unsigned char)*p >= 0x80) &&
        !keyword_follows(lx, p))
        diag_error(lx->c, lex_loc(lx, p), "invalid %s literal", what);
}

/* 0x.. / 0o.. / 0b.. integers. p points at the '0'. */
static const char *scan_prefixed_int(Lexer *lx, const char *p) {
    char k = (char)(p[1] | 0x20);
    int base = k == 'x' ? 16 : k == 'o' ? 8 : 2;
    const char *what = k == 'x' ? "hexadecimal" : k == 'o' ? "octal" : "binary";
    const char *q = p + 2;
    if (q < lx->end && *q == '_') q++;
    if (q >= lx->end || digit_value(*q) >= base) diag_error(lx->c, lex_loc(lx, q), "invalid %s literal", what);
    q = scan_digits(lx, q, base, what);
    check_number_end(lx, q, what);
    return q;
}

/* Decimal integers, floats (`1.`, `.5`, `1e-3`) and imaginary literals. */
static void lex_number(Lexer *lx) {
    const char *start = lx->p, *p = start;
    SrcLoc loc = lex_loc(lx, start);
    TokKind kind = T_INT;
    if (*p == '0' && p + 1 < lx->end && p[1] && strchr("xXoObB", p[1])) {
        p = scan_prefixed_int(lx, p);
        lex_push(lx, T_INT, start, (int)(p - start), loc);
        lx->p = p;
        return;
    }
    if (*p != '.') p = scan_digits(lx, p, 10, "decimal");
    if (p < lx->end && *p == '.') {
        kind = T_FLOAT;
        p++;
        if (p < lx->end && is_digit(*p)) p = scan_digits(lx, p, 10, "decimal");
    }
    if (p < lx->end && (*p == 'e' || *p == 'E')) {
        const char *q = p + 1;
        if (q < lx->end && (*q == '+' || *q == '-')) q++;
        if (q < lx->end && is_digit(*q)) {
            p = scan_digits(lx, q, 10, "decimal");
            kind = T_FLOAT;
        }
    }
    if (p < lx->end && (*p == 'j' || *p == 'J')) {
        kind = T_IMAG;
        p++;
    }
    if (kind == T_INT && *start == '0') {
        for (const char *q = start; q < p; q++)
            if (*q != '0' && *q != '_')
                diag_error(lx->c, loc, "leading zeros in decimal integer literals are not permitted; "
                                       "use an 0o prefix for octal integers");
    }
    check_number_end(lx, p, kind == T_IMAG ? "imaginary" : "decimal");
    lex_push(lx, kind, start, (int)(p - start), loc);
    lx->p = p;
}

/* ---- strings ---- */

typedef struct StrKind {
    bool raw, fstr, bytes;
} StrKind;

/* Is [p, p+n) a string prefix (r, b, u, f, br, rb, fr, rf in any case)? */
static bool string_prefix(const char *p, int n, StrKind *k) {
    memset(k, 0, sizeof *k);
    if (n > 2) return false;
    bool u = false;
    for (int i = 0; i < n; i++) {
        char ch = (char)(p[i] | 0x20);
        bool *flag = ch == 'r' ? &k->raw : ch == 'f' ? &k->fstr : ch == 'b' ? &k->bytes : ch == 'u' ? &u : NULL;
        if (!flag || *flag) return false;
        *flag = true;
    }
    if (u && n > 1) return false;
    return !(k->fstr && k->bytes);
}

typedef struct StrScan {
    char quote;
    bool triple;
    StrKind kind;
    SrcLoc start;       /* where the literal began, for "unterminated" */
} StrScan;

static const char *scan_string_body(Lexer *lx, const char *p, const StrScan *s, int depth);

static _Noreturn void unterminated(Lexer *lx, const StrScan *s) {
    if (s->triple) diag_error(lx->c, s->start, "unterminated triple-quoted string literal");
    diag_error(lx->c, s->start, "unterminated string literal");
}

static bool at_closing_quote(const Lexer *lx, const char *p, const StrScan *s) {
    if (*p != s->quote) return false;
    return !s->triple || (lx->end - p >= 3 && p[1] == s->quote && p[2] == s->quote);
}

/* A string literal nested inside an f-string replacement field: p at its
 * prefix or quote. Returns the position after it, or NULL if p does not
 * start a string. */
static const char *scan_nested_string(Lexer *lx, const char *p, int depth) {
    const char *q = p;
    while (q < lx->end && (is_ascii_ident_start(*q) || is_digit(*q))) q++;
    StrScan s = {0};
    if (q >= lx->end || (*q != '\'' && *q != '"') || !string_prefix(p, (int)(q - p), &s.kind)) return NULL;
    s.quote = *q;
    s.triple = lx->end - q >= 3 && q[1] == *q && q[2] == *q;
    s.start = lex_loc(lx, p);
    return scan_string_body(lx, q + (s.triple ? 3 : 1), &s, depth + 1);
}

static const char *scan_fstring_field(Lexer *lx, const char *p, const StrScan *s, int depth);

/* The format spec after ':' in a replacement field: literal text with
 * nested fields, up to the closing '}'. */
static const char *scan_fstring_spec(Lexer *lx, const char *p, const StrScan *s, int depth) {
    for (;;) {
        if (p >= lx->end) unterminated(lx, s);
        if (*p == '}') return p + 1;
        if (*p == '{') {
            p = scan_fstring_field(lx, p + 1, s, depth + 1);
            continue;
        }
        if (at_closing_quote(lx, p, s)) diag_error(lx->c, lex_loc(lx, p), "f-string: expecting '}'");
        if (is_newline_at(lx, p)) {
            if (!s->triple) unterminated(lx, s);
            p += newline_len(p);
            lex_newline(lx, p);
            continue;
        }
        p++;
    }
}

/* A replacement field `{expr!r:spec}` of an f-string, p just after '{'.
 * Inside the expression quotes start nested strings (Python 3.12 allows
 * even the enclosing quote there); the field ends at the '}' that balances. */
static const char *scan_fstring_field(Lexer *lx, const char *p, const StrScan *s, int depth) {
    if (depth > LEX_MAX_FSTRING) diag_error(lx->c, lex_loc(lx, p), "f-string: expressions nested too deeply");
    int nest = 0;
    for (;;) {
        if (p >= lx->end) unterminated(lx, s);
        char ch = *p;
        const char *after = (ch == '\'' || ch == '"' || is_ascii_ident_start(ch)) ? scan_nested_string(lx, p, depth) : NULL;
        if (after) {
            p = after;
        } else if (is_ascii_ident_start(ch)) {
            while (p < lx->end && (is_ascii_ident_start(*p) || is_digit(*p))) p++;
        } else if (is_newline_at(lx, p)) {
            p += newline_len(p);
            lex_newline(lx, p);
        } else if (ch == '#') {
            while (p < lx->end && *p != '\n') p++;
        } else if (ch == '}' && nest == 0) {
            return p + 1;
        } else if (ch == ':' && nest == 0) {
            return scan_fstring_spec(lx, p + 1, s, depth);
        } else {
            if (ch == '(' || ch == '[' || ch == '{') nest++;
            if ((ch == ')' || ch == ']' || ch == '}') && nest > 0) nest--;
            p++;
        }
    }
}

/* From just after the opening quote(s) to just after the closing ones. */
static const char *scan_string_body(Lexer *lx, const char *p, const StrScan *s, int depth) {
    for (;;) {
        if (p >= lx->end) unterminated(lx, s);
        if (*p == '\\') {
            /* even in raw strings a backslash keeps the next quote or newline;
             * in f-strings it never escapes a brace, except that \N{NAME}
             * is one escape */
            p++;
            if (p >= lx->end) unterminated(lx, s);
            if (s->kind.fstr && (*p == '{' || *p == '}')) continue;
            if (s->kind.fstr && !s->kind.raw && *p == 'N' && p + 1 < lx->end && p[1] == '{') {
                while (p < lx->end && *p != '}' && !at_closing_quote(lx, p, s) && *p != '\n') p++;
                if (p < lx->end && *p == '}') p++;
                continue;
            }
            if (is_newline_at(lx, p)) {
                p += newline_len(p);
                lex_newline(lx, p);
            } else {
                p++;
            }
            continue;
        }
        if (is_newline_at(lx, p)) {
            if (!s->triple) unterminated(lx, s);
            p += newline_len(p);
            lex_newline(lx, p);
            continue;
        }
        if (at_closing_quote(lx, p, s)) return p + (s->triple ? 3 : 1);
        if (s->kind.fstr && *p == '{') {
            if (p + 1 < lx->end && p[1] == '{') p += 2;
            else p = scan_fstring_field(lx, p + 1, s, depth);
            continue;
        }
        p++;
    }
}

/* p at the prefix (prefix_len bytes) or at the quote. */
static void lex_string(Lexer *lx, int prefix_len, const StrKind *kind) {
    const char *start = lx->p, *q = start + prefix_len;
    StrScan s = {*q, false, *kind, lex_loc(lx, start)};
    s.triple = lx->end - q >= 3 && q[1] == *q && q[2] == *q;
    const char *end = scan_string_body(lx, q + (s.triple ? 3 : 1), &s, 0);
    lex_push(lx, T_STRING, start, (int)(end - start), s.start);
    lx->p = end;
}

/* ---- operators and brackets ---- */

static const char *const lex_ops3[] = {"**=", "//=", ">>=", "<<=", "...", NULL};
static const char *const lex_ops2[] = {"**", "//", ">>", "<<", "<=", ">=", "==", "!=", "->", ":=", "+=", "-=",
                                       "*=", "/=", "%=", "&=", "|=", "^=", "@=", NULL};
static const char lex_ops1[] = "+-*/%@&|^~<>()[]{},:.;=!";

static int match_op(const Lexer *lx, const char *p) {
    for (const char *const *o = lex_ops3; *o; o++)
        if (lx->end - p >= 3 && memcmp(p, *o, 3) == 0) return 3;
    for (const char *const *o = lex_ops2; *o; o++)
        if (lx->end - p >= 2 && memcmp(p, *o, 2) == 0) return 2;
    return strchr(lex_ops1, *p) ? 1 : 0;
}

static void open_paren(Lexer *lx, SrcLoc loc) {
    if (lx->n_parens == LEX_MAX_PAREN) diag_error(lx->c, loc, "too many nested parentheses");
    lx->parens[lx->n_parens].ch = *lx->p;
    lx->parens[lx->n_parens].loc = loc;
    lx->n_parens++;
}

static void close_paren(Lexer *lx, SrcLoc loc) {
    char ch = *lx->p;
    if (lx->n_parens == 0) diag_error(lx->c, loc, "unmatched '%c'", ch);
    LexParen *open = &lx->parens[--lx->n_parens];
    char want = open->ch == '(' ? ')' : open->ch == '[' ? ']' : '}';
    if (ch == want) return;
    if (open->loc.line != loc.line)
        diag_error(lx->c, loc, "closing parenthesis '%c' does not match opening parenthesis '%c' on line %d", ch,
                   open->ch, open->loc.line);
    diag_error(lx->c, loc, "closing parenthesis '%c' does not match opening parenthesis '%c'", ch, open->ch);
}

static void lex_op(Lexer *lx) {
    const char *p = lx->p;
    int n = match_op(lx, p);
    SrcLoc loc = lex_loc(lx, p);
    if (n == 0) lex_bad_char(lx, p);
    if (n == 1 && strchr("([{", *p)) open_paren(lx, loc);
    if (n == 1 && strchr(")]}", *p)) close_paren(lx, loc);
    lex_push(lx, T_OP, p, n, loc);
    lx->p = p + n;
}

/* ---- lines and indentation ---- */

static void skip_comment(Lexer *lx) {
    while (lx->p < lx->end && *lx->p != '\n' && !is_newline_at(lx, lx->p)) lx->p++;
}

/* Skips blank and comment-only lines from the start of a physical line and
 * measures the indentation of the first real one. Returns false at EOF. */
static bool measure_indent(Lexer *lx, int *width, int *alt_width) {
    for (;;) {
        int w = 0, alt = 0;
        const char *p = lx->p;
        for (; p < lx->end; p++) {
            if (*p == ' ') w++, alt++;
            else if (*p == '\t') w = (w / LEX_TABSIZE + 1) * LEX_TABSIZE, alt++;
            else if (*p == '\f') w = alt = 0;
            else break;
        }
        lx->p = p;
        if (p < lx->end && *p == '#') skip_comment(lx);
        if (lx->p >= lx->end) return false;
        if (!is_newline_at(lx, lx->p)) {
            *width = w;
            *alt_width = alt;
            return true;
        }
        lx->p += newline_len(lx->p);
        lex_newline(lx, lx->p);
    }
}

/* Emits INDENT or DEDENTs for a logical line starting at lx->p. */
static void lex_indentation(Lexer *lx, int width, int alt) {
    SrcLoc loc = lex_loc(lx, lx->p);
    int top = lx->indents[lx->n_indents - 1], alt_top = lx->alt_indents[lx->n_indents - 1];
    if (width > top) {
        if (alt <= alt_top) diag_error(lx->c, loc, "inconsistent use of tabs and spaces in indentation");
        if (lx->n_indents > LEX_MAX_INDENT) diag_error(lx->c, loc, "too many levels of indentation");
        lx->indents[lx->n_indents] = width;
        lx->alt_indents[lx->n_indents++] = alt;
        lex_push(lx, T_INDENT, lx->p, 0, loc);
        return;
    }
    while (width < lx->indents[lx->n_indents - 1]) {
        lx->n_indents--;
        lex_push(lx, T_DEDENT, lx->p, 0, loc);
    }
    if (width != lx->indents[lx->n_indents - 1])
        diag_error(lx->c, loc, "unindent does not match any outer indentation level");
    if (alt != lx->alt_indents[lx->n_indents - 1])
        diag_error(lx->c, loc, "inconsistent use of tabs and spaces in indentation");
}

/* One token (or a skipped comment/continuation) at lx->p. Returns true at
 * the end of the logical line (a NEWLINE outside brackets, or EOF). */
static bool lex_token(Lexer *lx) {
    const char *p = lx->p;
    char ch = *p;
    if (ch == ' ' || ch == '\t' || ch == '\f' || (ch == '\r' && !is_newline_at(lx, p))) {
        lx->p++;
    } else if (ch == '#') {
        skip_comment(lx);
    } else if (ch == '\\') {
        if (p + 1 >= lx->end) diag_error(lx->c, lex_loc(lx, p), "unexpected EOF while parsing");
        if (!is_newline_at(lx, p + 1))
            diag_error(lx->c, lex_loc(lx, p + 1), "unexpected character after line continuation character");
        lx->p = p + 1 + newline_len(p + 1);
        lex_newline(lx, lx->p);
    } else if (is_newline_at(lx, p)) {
        lx->p = p + newline_len(p);
        /* a line of nothing but a continuation has no tokens: no NEWLINE */
        bool ends = lx->n_parens == 0 && lx->n > lx->line_first_tok;
        if (ends) lex_push(lx, T_NEWLINE, p, (int)(lx->p - p), lex_loc(lx, p));
        lex_newline(lx, lx->p);
        return ends;
    } else if (is_digit(ch) || (ch == '.' && p + 1 < lx->end && is_digit(p[1]))) {
        lex_number(lx);
    } else if (ch == '\'' || ch == '"') {
        StrKind k = {0};
        lex_string(lx, 0, &k);
    } else if (is_ascii_ident_start(ch) || (unsigned char)ch >= 0x80) {
        const char *e = scan_ident(lx, p);
        StrKind k;
        if (e < lx->end && (*e == '\'' || *e == '"') && string_prefix(p, (int)(e - p), &k)) {
            lex_string(lx, (int)(e - p), &k);
        } else {
            lex_push(lx, T_NAME, p, (int)(e - p), lex_loc(lx, p));
            lx->p = e;
        }
    } else {
        lex_op(lx);
    }
    return false;
}

/* At EOF: close the last line, unwind indentation, check brackets. */
static void lex_finish(Lexer *lx) {
    SrcLoc loc = lex_loc(lx, lx->p);
    if (lx->n_parens > 0) {
        LexParen *open = &lx->parens[lx->n_parens - 1];
        diag_error(lx->c, open->loc, "'%c' was never closed", open->ch);
    }
    if (lx->n > 0 && lx->toks[lx->n - 1].kind != T_NEWLINE) lex_push(lx, T_NEWLINE, lx->p, 0, loc);
    while (lx->n_indents > 1) {
        lx->n_indents--;
        lex_push(lx, T_DEDENT, lx->p, 0, loc);
    }
    lex_push(lx, T_EOF, lx->p, 0, loc);
}

Token *lex_file(Ctx *c, const SrcFile *f, int *n_toks) {
    Lexer *lx = arena_alloc(c->arena, sizeof *lx);
    lx->c = c;
    lx->f = f;
    lx->p = lx->line_begin = f->text;
    lx->end = f->text + f->len;
    lx->line = f->first_line > 0 ? f->first_line : 1;
    lx->indent_len = f->indent ? (int)strlen(f->indent) : 0;
    lx->n_indents = 1;   /* indents[0] = alt_indents[0] = 0 */
    if (f->len >= 3 && memcmp(f->text, "\xEF\xBB\xBF", 3) == 0) lx->p += 3;   /* BOM */
    for (;;) {
        int width, alt;
        if (lx->n_parens == 0) {
            if (!measure_indent(lx, &width, &alt)) break;
            lex_indentation(lx, width, alt);
            lx->line_first_tok = lx->n;
        }
        while (lx->p < lx->end && !lex_token(lx)) {}
        if (lx->p >= lx->end) break;
    }
    lex_finish(lx);
    *n_toks = lx->n;
    return lx->toks;
}

/* ---- --emit tokens ---- */

static const char *const tok_kind_names[] = {"EOF", "NEWLINE", "INDENT", "DEDENT", "NAME",
                                             "INT", "FLOAT",   "IMAG",   "STRING", "OP"};

static void put_escaped(Buf *out, const char *s, int n) {
    for (int i = 0; i < n; i++) {
        char ch = s[i];
        if (ch == '\n') buf_puts(out, "\\n");
        else if (ch == '\r') buf_puts(out, "\\r");
        else if (ch == '\t') buf_puts(out, "\\t");
        else if (ch == '\\') buf_puts(out, "\\\\");
        else if (ch == '\'') buf_puts(out, "\\'");
        else buf_putc(out, ch);
    }
}

void lex_print(Buf *out, const Token *toks, int n) {
    for (int i = 0; i < n; i++) {
        const Token *t = &toks[i];
        buf_printf(out, "%d:%d %s '", t->loc.line, t->loc.col, tok_kind_names[t->kind]);
        put_escaped(out, t->text, t->len);
        buf_puts(out, "'\n");
    }
}
