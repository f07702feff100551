/* The parser: tokens -> AST.
 *
 * At module level only the shape of the file matters: imports are recorded,
 * `NAME = value` assignments are kept as token ranges (parse_global parses
 * one when a kernel reads it), every top-level def is recorded with its
 * decorators, and a def is parsed in full only if a decorator's last name is
 * `jit`. All other host code is skipped by token structure (a logical line,
 * plus the indented block after it), so host code can never cause an error.
 *
 * Inside a @jit function this is a recursive-descent parser for the whole
 * Python statement and expression grammar, one function per rule with the
 * rule written above it. Binary operators use precedence climbing over one
 * priority table (Lua's subexpr); recursion depth is bounded. */
#include "frontend.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { PARSE_MAX_DEPTH = 200 };

typedef struct Parser {
    Ctx *c;
    Arena *a;
    Token *toks;
    int n_toks;
    int pos;
    int depth;     /* expression nesting, bounded by PARSE_MAX_DEPTH */
} Parser;

/* ---- tokens ---- */

static Token *peek(Parser *p) { return &p->toks[p->pos]; }

static Token *peek_at(Parser *p, int k) {
    int i = p->pos + k;
    return &p->toks[i < p->n_toks ? i : p->n_toks - 1];
}

static Token *advance(Parser *p) {
    Token *t = &p->toks[p->pos];
    if (t->kind != T_EOF) p->pos++;
    return t;
}

/* the first byte first: the parser asks this of each token many times
 * (every keyword and operator it might be) */
static bool tok_text_is(const Token *t, const char *s) {
    if (t->len == 0 ? s[0] != 0 : t->text[0] != s[0]) return false;
    return (int)strlen(s) == t->len && memcmp(t->text, s, (size_t)t->len) == 0;
}

static bool is_op(const Token *t, const char *s) { return t->kind == T_OP && tok_text_is(t, s); }
static bool is_kw(const Token *t, const char *s) { return t->kind == T_NAME && tok_text_is(t, s); }

static bool accept_op(Parser *p, const char *s) {
    if (!is_op(peek(p), s)) return false;
    advance(p);
    return true;
}

static bool accept_kw(Parser *p, const char *s) {
    if (!is_kw(peek(p), s)) return false;
    advance(p);
    return true;
}

static bool is_keyword(const Token *t) {
    static const char *const kws[] = {
        "False", "None",   "True",    "and",      "as",   "assert", "async", "await",  "break",
        "class", "continue", "def",   "del",      "elif", "else",   "except", "finally", "for",
        "from",  "global", "if",      "import",   "in",   "is",     "lambda", "nonlocal", "not",
        "or",    "pass",   "raise",   "return",   "try",  "while",  "with",  "yield",
    };
    if (t->kind != T_NAME) return false;
    for (size_t i = 0; i < ARRAY_LEN(kws); i++)
        if (tok_text_is(t, kws[i])) return true;
    return false;
}

static const char *tok_str(Parser *p, const Token *t) { return arena_strndup(p->a, t->text, (size_t)t->len); }

/* ---- errors ---- */

/* "near 'tok'" for the token the error is at; long tokens are cut. */
static const char *near_text(Parser *p, const Token *t) {
    switch (t->kind) {
    case T_NEWLINE: return "near end of line";
    case T_EOF: return "near end of file";
    case T_INDENT: return "near indent";
    case T_DEDENT: return "near end of block";
    default: break;
    }
    const char *nl = memchr(t->text, '\n', (size_t)t->len);
    int n = nl ? (int)(nl - t->text) : t->len;
    if (n > 40) return arena_printf(p->a, "near '%.37s...'", t->text);
    return arena_printf(p->a, "near '%.*s'%s", n, t->text, nl ? "..." : "");
}

static _Noreturn void error_near(Parser *p, const Token *t, const char *what) {
    if (t->kind == T_INDENT) diag_error(p->c, t->loc, "unexpected indent");
    diag_error(p->c, t->loc, "%s %s", what, near_text(p, t));
}

static Token *expect_op(Parser *p, const char *s) {
    if (!is_op(peek(p), s)) diag_error(p->c, peek(p)->loc, "expected '%s'", s);
    return advance(p);
}

static Token *expect_name(Parser *p) {
    Token *t = peek(p);
    if (t->kind != T_NAME || is_keyword(t)) error_near(p, t, "expected a name");
    return advance(p);
}

/* The closing bracket of `open`, named in the message if missing. */
static void expect_close(Parser *p, const char *close, const Token *open) {
    if (accept_op(p, close)) return;
    diag_error(p->c, peek(p)->loc, "expected '%s' to close '%.*s' at line %d", close, open->len, open->text,
               open->loc.line);
}

static void enter_level(Parser *p) {
    if (++p->depth > PARSE_MAX_DEPTH) diag_error(p->c, peek(p)->loc, "expression nested too deeply");
}
static void leave_level(Parser *p) { p->depth--; }

/* ---- nodes ---- */

static AstNode *new_node(Parser *p, AstKind kind, SrcLoc loc) {
    AstNode *n = arena_alloc(p->a, sizeof *n);
    n->kind = kind;
    n->loc = loc;
    return n;
}

static void list_push(Parser *p, AstList *l, AstNode *n) { VEC_PUSH(p->a, l->items, l->n, l->cap, n); }

/* The first token of an expression (a binop's loc is its operator). */
static SrcLoc node_start(const AstNode *n) {
    switch (n->kind) {
    case A_BINOP: case A_COMPARE: return node_start(n->lhs);
    case A_BOOLOP: return node_start(n->args.items[0]);
    default: return n->loc;
    }
}

/* Words for a node in "cannot assign to ..." messages (CPython's). */
static const char *describe(const AstNode *n) {
    switch (n->kind) {
    case A_CALL: return "function call";
    case A_INT: case A_FLOAT: case A_IMAG: return "literal";
    case A_STR: return n->is_fstring ? "f-string expression" : "literal";
    case A_TRUE: return "True";
    case A_FALSE: return "False";
    case A_NONE: return "None";
    case A_ELLIPSIS: return "ellipsis";
    case A_COMPARE: return "comparison";
    case A_IFEXP: return "conditional expression";
    case A_LAMBDA: return "lambda";
    case A_NAMEDEXPR: return "named expression";
    case A_DICT: return "dict literal";
    case A_SET: return "set display";
    case A_YIELD: return "yield expression";
    case A_AWAIT: return "await expression";
    case A_ATTR: return "attribute";
    case A_SUBSCRIPT: return "subscript";
    case A_TUPLE: return "tuple";
    case A_LIST: return "list";
    case A_STARRED: return "starred";
    case A_NAME: return "name";
    case A_COMPREHENSION:
        return n->op == '[' ? "list comprehension" : n->op == '(' ? "generator expression"
               : n->rhs ? "dict comprehension" : "set comprehension";
    default: return "expression";
    }
}

/* Assignment, for and del targets: names, attributes, subscripts, and
 * tuples/lists of them (one starred element allowed when assigning). */
static void check_target(Parser *p, const AstNode *n, bool del) {
    const char *verb = del ? "delete" : "assign to";
    switch (n->kind) {
    case A_NAME: case A_ATTR: case A_SUBSCRIPT: return;
    case A_TUPLE: case A_LIST: {
        int starred = 0;
        for (int i = 0; i < n->args.n; i++) {
            const AstNode *e = n->args.items[i];
            if (e->kind == A_STARRED && !del) {
                if (++starred > 1) diag_error(p->c, e->loc, "multiple starred expressions in assignment");
                check_target(p, e->lhs, del);
            } else {
                check_target(p, e, del);
            }
        }
        return;
    }
    case A_STARRED:
        if (!del) diag_error(p->c, n->loc, "starred assignment target must be in a list or tuple");
        break;
    default: break;
    }
    diag_error(p->c, node_start(n), "cannot %s %s", verb, describe(n));
}

/* ---- literals ---- */

/* Digits of a too-big integer literal in decimal (schoolbook base
 * conversion on a little-endian digit array). */
static const char *big_to_decimal(Parser *p, const char *digits, int n, int base) {
    int cap = n * 2 + 2, len = 1;
    unsigned char *dec = arena_alloc(p->a, (size_t)cap);
    for (int i = 0; i < n; i++) {
        int carry = digits[i] >= 'a' ? digits[i] - 'a' + 10 : digits[i] >= 'A' ? digits[i] - 'A' + 10 : digits[i] - '0';
        for (int j = 0; j < len; j++) {
            int v = dec[j] * base + carry;
            dec[j] = (unsigned char)(v % 10);
            carry = v / 10;
        }
        while (carry) dec[len++] = (unsigned char)(carry % 10), carry /= 10;
    }
    char *s = arena_alloc(p->a, (size_t)len + 1);
    for (int j = 0; j < len; j++) s[j] = (char)('0' + dec[len - 1 - j]);
    return s;
}

/* Literal text without underscores, into the arena. */
static char *strip_underscores(Parser *p, const Token *t) {
    char *s = arena_alloc(p->a, (size_t)t->len + 1);
    int n = 0;
    for (int i = 0; i < t->len; i++)
        if (t->text[i] != '_') s[n++] = t->text[i];
    return s;
}

static AstNode *int_literal(Parser *p, const Token *t) {
    AstNode *n = new_node(p, A_INT, t->loc);
    char *s = strip_underscores(p, t);
    int base = 10;
    if (s[0] == '0' && s[1] && strchr("xXoObB", s[1])) {
        char k = (char)(s[1] | 0x20);
        base = k == 'x' ? 16 : k == 'o' ? 8 : 2;
        s += 2;
    }
    uint64_t v = 0;
    int nd = (int)strlen(s);
    for (int i = 0; i < nd && !n->big; i++) {
        uint64_t d = (uint64_t)(s[i] >= 'a' ? s[i] - 'a' + 10 : s[i] >= 'A' ? s[i] - 'A' + 10 : s[i] - '0');
        if (v > (UINT64_MAX - d) / (uint64_t)base) n->big = true;
        else v = v * (uint64_t)base + d;
    }
    if (v > (uint64_t)INT64_MAX) n->big = true;
    if (n->big) n->str = big_to_decimal(p, s, nd, base);
    else n->ival = (int64_t)v;
    if (n->str) n->str_len = strlen(n->str);
    return n;
}

static AstNode *float_literal(Parser *p, const Token *t, AstKind kind) {
    AstNode *n = new_node(p, kind, t->loc);
    char *s = strip_underscores(p, t);
    n->fval = strtod(s, NULL);   /* stops at the 'j' of an imaginary literal */
    return n;
}

static void put_utf8(char *out, size_t *len, uint32_t cp) {
    unsigned char *u = (unsigned char *)out + *len;
    if (cp < 0x80) u[0] = (unsigned char)cp, *len += 1;
    else if (cp < 0x800) u[0] = (unsigned char)(0xC0 | cp >> 6), u[1] = (unsigned char)(0x80 | (cp & 0x3F)), *len += 2;
    else if (cp < 0x10000) {
        u[0] = (unsigned char)(0xE0 | cp >> 12), u[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        u[2] = (unsigned char)(0x80 | (cp & 0x3F)), *len += 3;
    } else {
        u[0] = (unsigned char)(0xF0 | cp >> 18), u[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
        u[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F)), u[3] = (unsigned char)(0x80 | (cp & 0x3F)), *len += 4;
    }
}

/* \xHH, \uHHHH, \UHHHHHHHH: exactly `n` hex digits at s. */
static uint32_t hex_escape(Parser *p, const Token *t, const char *s, const char *end, int n, char which) {
    uint32_t v = 0;
    for (int i = 0; i < n; i++) {
        char ch = s + i < end ? s[i] : 0;
        int d = (ch >= '0' && ch <= '9') ? ch - '0' : (ch | 0x20) >= 'a' && (ch | 0x20) <= 'f' ? (ch | 0x20) - 'a' + 10 : -1;
        if (d < 0) diag_error(p->c, t->loc, "(unicode error) truncated \\%c escape", which);
        v = v * 16 + (uint32_t)d;
    }
    if (v > 0x10FFFF) diag_error(p->c, t->loc, "(unicode error) illegal Unicode character");
    return v;
}

/* One escape after a backslash at s[-1]; returns the position after it. */
static const char *decode_escape(Parser *p, const Token *t, const char *s, const char *end, bool bytes, char *out,
                                 size_t *len) {
    static const char simple[] = "n\nt\tr\ra\ab\bf\fv\v\\\\''\"\"";
    char ch = *s;
    for (size_t i = 0; i + 1 < sizeof simple; i += 2)
        if (simple[i] == ch) {
            out[(*len)++] = simple[i + 1];
            return s + 1;
        }
    if (ch == '\n') return s + 1;                             /* backslash-newline joins */
    if (ch == '\r' && s + 1 < end && s[1] == '\n') return s + 2;
    if (ch >= '0' && ch <= '7') {
        uint32_t v = 0;
        int i = 0;
        for (; i < 3 && s + i < end && s[i] >= '0' && s[i] <= '7'; i++) v = v * 8 + (uint32_t)(s[i] - '0');
        if (bytes) out[(*len)++] = (char)(v & 0xFF);
        else put_utf8(out, len, v);
        return s + i;
    }
    if (ch == 'x') {
        uint32_t v = hex_escape(p, t, s + 1, end, 2, 'x');
        if (bytes) out[(*len)++] = (char)v;
        else put_utf8(out, len, v);
        return s + 3;
    }
    if (!bytes && (ch == 'u' || ch == 'U')) {
        int n = ch == 'u' ? 4 : 8;
        uint32_t v = hex_escape(p, t, s + 1, end, n, ch);
        /* a lone surrogate (legal in a Python str) comes out in the 3-byte form */
        put_utf8(out, len, v);
        return s + 1 + n;
    }
    if (!bytes && ch == 'N') diag_error(p->c, t->loc, "\\N{...} escapes are not supported");
    out[(*len)++] = '\\';   /* unknown escapes keep their backslash */
    return s;
}

/* Appends the decoded value of one STRING token. Returns its prefix kind
 * through *bytes / *fstr. */
static void decode_string(Parser *p, const Token *t, char *out, size_t *len, bool *bytes, bool *fstr) {
    const char *s = t->text, *end = t->text + t->len;
    bool raw = false;
    *bytes = *fstr = false;
    for (; *s != '\'' && *s != '"'; s++) {
        char k = (char)(*s | 0x20);
        raw |= k == 'r', *bytes |= k == 'b', *fstr |= k == 'f';
    }
    if (*fstr) return;    /* kept as raw text by the caller */
    int q = (end - s >= 6 && s[1] == s[0] && s[2] == s[0]) ? 3 : 1;
    s += q;
    end -= q;
    while (s < end) {
        if (*s == '\r' && s + 1 < end && s[1] == '\n') {
            s++;     /* CRLF in a triple-quoted string is a plain newline */
        } else if (*s == '\\' && !raw) {
            s = decode_escape(p, t, s + 1, end, *bytes, out, len);
            continue;
        }
        out[(*len)++] = *s++;
    }
}

/* atom: STRING+ (adjacent literals are joined; f-strings keep raw text) */
static AstNode *string_literal(Parser *p) {
    Token *first = peek(p);
    size_t cap = 1;
    int end = p->pos;
    for (; p->toks[end].kind == T_STRING; end++) cap += (size_t)p->toks[end].len + 1;
    char *out = arena_alloc(p->a, cap);
    size_t len = 0;
    bool any_bytes = false, any_str = false, any_f = false;
    for (int i = p->pos; i < end; i++) {
        bool bytes, fstr;
        decode_string(p, &p->toks[i], out, &len, &bytes, &fstr);
        any_bytes |= bytes, any_str |= !bytes, any_f |= fstr;
        if (any_bytes && any_str) diag_error(p->c, p->toks[i].loc, "cannot mix bytes and nonbytes literals");
    }
    AstNode *n = new_node(p, A_STR, first->loc);
    if (any_f) {
        /* raw source text of all the pieces, separated by one space */
        len = 0;
        for (int i = p->pos; i < end; i++) {
            if (i > p->pos) out[len++] = ' ';
            memcpy(out + len, p->toks[i].text, (size_t)p->toks[i].len);
            len += (size_t)p->toks[i].len;
        }
        n->is_fstring = true;
    }
    out[len] = 0;
    n->str = out;
    n->str_len = len;
    p->pos = end;
    return n;
}

/* ---- expressions ---- */

static AstNode *test(Parser *p);
static AstNode *named_expression(Parser *p);
static AstNode *star_expressions(Parser *p);
static AstNode *subexpr(Parser *p, int limit);
static AstNode *or_test(Parser *p);
static void comp_for(Parser *p, AstNode *comp);

/* Can this token start an expression? (for optional operands and
 * trailing commas) */
static bool starts_expression(const Token *t) {
    switch (t->kind) {
    case T_NAME:
        return !is_keyword(t) || tok_text_is(t, "None") || tok_text_is(t, "True") || tok_text_is(t, "False") ||
               tok_text_is(t, "not") || tok_text_is(t, "lambda") || tok_text_is(t, "await");
    case T_INT: case T_FLOAT: case T_IMAG: case T_STRING: return true;
    case T_OP:
        return is_op(t, "(") || is_op(t, "[") || is_op(t, "{") || is_op(t, "-") || is_op(t, "+") ||
               is_op(t, "~") || is_op(t, "...") || is_op(t, "*");
    default: return false;
    }
}

/* star_expression = '*' bitor | named_expression */
static AstNode *star_named_expression(Parser *p) {
    if (is_op(peek(p), "*")) {
        Token *t = advance(p);
        AstNode *n = new_node(p, A_STARRED, t->loc);
        n->lhs = subexpr(p, 0);
        return n;
    }
    return named_expression(p);
}

/* Elements after the first of a comma list up to `close` (or the end of a
 * bare tuple): (',' elem)* [','] */
static void rest_of_list(Parser *p, AstList *out, AstNode *(*elem)(Parser *), const char *close) {
    while (accept_op(p, ",")) {
        Token *t = peek(p);
        if (close ? is_op(t, close) : !starts_expression(t)) break;
        list_push(p, out, elem(p));
    }
}

/* The element-or-comprehension part of (...), [...] and {...} after the
 * first element: builds a tuple/list/set or a comprehension. */
static AstNode *display_rest(Parser *p, AstKind kind, AstNode *first, const Token *open, const char *close) {
    if (is_kw(peek(p), "for") || (is_kw(peek(p), "async") && is_kw(peek_at(p, 1), "for"))) {
        if (first->kind == A_STARRED) diag_error(p->c, first->loc, "iterable unpacking cannot be used in comprehension");
        AstNode *c = new_node(p, A_COMPREHENSION, open->loc);
        c->op = open->text[0];
        c->lhs = first;
        comp_for(p, c);
        expect_close(p, close, open);
        return c;
    }
    if (kind == A_TUPLE && is_op(peek(p), ")") && first->kind != A_STARRED) {
        advance(p);
        return first;     /* a parenthesized expression */
    }
    AstNode *n = new_node(p, kind, open->loc);
    list_push(p, &n->args, first);
    rest_of_list(p, &n->args, star_named_expression, close);
    expect_close(p, close, open);
    return n;
}

/* yield_expr = 'yield' 'from' test | 'yield' [star_expressions] */
static AstNode *yield_expr(Parser *p) {
    Token *t = advance(p);
    AstNode *n = new_node(p, A_YIELD, t->loc);
    if (accept_kw(p, "from")) n->lhs = test(p);
    else if (starts_expression(peek(p))) n->lhs = star_expressions(p);
    return n;
}

/* paren_atom = '(' [yield_expr | star_named_expression (comp_for | (',' ...)*)] ')' */
static AstNode *paren_atom(Parser *p) {
    Token *open = advance(p);
    if (accept_op(p, ")")) return new_node(p, A_TUPLE, open->loc);
    if (is_kw(peek(p), "yield")) {
        AstNode *y = yield_expr(p);
        expect_close(p, ")", open);
        return y;
    }
    AstNode *first = star_named_expression(p);
    if (is_op(peek(p), ")") && first->kind == A_STARRED) diag_error(p->c, first->loc, "cannot use starred expression here");
    return display_rest(p, A_TUPLE, first, open, ")");
}

/* list_atom = '[' [star_named_expression (comp_for | (',' ...)*)] ']' */
static AstNode *list_atom(Parser *p) {
    Token *open = advance(p);
    if (accept_op(p, "]")) return new_node(p, A_LIST, open->loc);
    return display_rest(p, A_LIST, star_named_expression(p), open, "]");
}

/* dict_item = '**' bitor | test ':' test   (key NULL for '**') */
static void dict_item(Parser *p, AstNode *d) {
    if (accept_op(p, "**")) {
        list_push(p, &d->args, NULL);
        list_push(p, &d->args2, subexpr(p, 0));
        return;
    }
    list_push(p, &d->args, test(p));
    expect_op(p, ":");
    list_push(p, &d->args2, test(p));
}

/* brace_atom = '{' '}' | '{' dict_item (comp_for | (',' dict_item)*) '}'
 *            | '{' star_named_expression (comp_for | (',' ...)*) '}' */
static AstNode *brace_atom(Parser *p) {
    Token *open = advance(p);
    if (accept_op(p, "}")) return new_node(p, A_DICT, open->loc);
    bool is_dict = is_op(peek(p), "**");
    AstNode *first = is_dict ? NULL : star_named_expression(p);
    if (!is_dict && !is_op(peek(p), ":")) return display_rest(p, A_SET, first, open, "}");
    AstNode *d = new_node(p, A_DICT, open->loc);
    if (first) {
        advance(p);    /* ':' */
        AstNode *value = test(p);
        if (is_kw(peek(p), "for") || is_kw(peek(p), "async")) {
            AstNode *c = new_node(p, A_COMPREHENSION, open->loc);
            c->op = '{';
            c->lhs = first;
            c->rhs = value;
            comp_for(p, c);
            expect_close(p, "}", open);
            return c;
        }
        list_push(p, &d->args, first);
        list_push(p, &d->args2, value);
    } else {
        dict_item(p, d);
    }
    while (accept_op(p, ",") && !is_op(peek(p), "}")) dict_item(p, d);
    expect_close(p, "}", open);
    return d;
}

/* atom = NAME | NUMBER | STRING+ | '...' | None | True | False
 *      | paren_atom | list_atom | brace_atom */
static AstNode *atom(Parser *p) {
    Token *t = peek(p);
    switch (t->kind) {
    case T_INT: advance(p); return int_literal(p, t);
    case T_FLOAT: advance(p); return float_literal(p, t, A_FLOAT);
    case T_IMAG: advance(p); return float_literal(p, t, A_IMAG);
    case T_STRING: return string_literal(p);
    case T_NAME:
        if (is_kw(t, "None") || is_kw(t, "True") || is_kw(t, "False")) {
            advance(p);
            return new_node(p, t->text[0] == 'N' ? A_NONE : t->text[0] == 'T' ? A_TRUE : A_FALSE, t->loc);
        }
        if (is_keyword(t)) break;
        advance(p);
        AstNode *n = new_node(p, A_NAME, t->loc);
        n->str = tok_str(p, t);
        n->str_len = (size_t)t->len;
        return n;
    case T_OP:
        if (is_op(t, "(")) return paren_atom(p);
        if (is_op(t, "[")) return list_atom(p);
        if (is_op(t, "{")) return brace_atom(p);
        if (is_op(t, "...")) {
            advance(p);
            return new_node(p, A_ELLIPSIS, t->loc);
        }
        break;
    default: break;
    }
    error_near(p, t, "expected an expression");
}

/* slice = [test] ':' [test] [':' [test]] | star_named_expression */
static AstNode *slice(Parser *p) {
    Token *t = peek(p);
    AstNode *lower = NULL;
    if (!is_op(t, ":")) {
        lower = star_named_expression(p);
        if (!is_op(peek(p), ":")) return lower;
    }
    AstNode *s = new_node(p, A_SLICE, t->loc);
    s->lhs = lower;
    advance(p);     /* ':' */
    Token *u = peek(p);
    if (!is_op(u, ":") && !is_op(u, ",") && !is_op(u, "]")) s->rhs = test(p);
    if (accept_op(p, ":")) {
        u = peek(p);
        if (!is_op(u, ",") && !is_op(u, "]")) s->third = test(p);
    }
    return s;
}

/* subscript = '[' slice (',' slice)* [','] ']'   (several -> A_TUPLE) */
static AstNode *subscript(Parser *p, AstNode *base) {
    Token *open = advance(p);
    AstNode *n = new_node(p, A_SUBSCRIPT, base->loc);
    n->lhs = base;
    AstNode *first = slice(p);
    if (is_op(peek(p), ",")) {
        AstNode *tup = new_node(p, A_TUPLE, first->loc);
        list_push(p, &tup->args, first);
        while (accept_op(p, ",") && !is_op(peek(p), "]")) list_push(p, &tup->args, slice(p));
        first = tup;
    }
    n->rhs = first;
    expect_close(p, "]", open);
    return n;
}

/* argument = '*' test | '**' test | NAME '=' test | named_expression [comp_for] */
static void argument(Parser *p, AstNode *call) {
    Token *t = peek(p);
    if (is_op(t, "*")) {
        advance(p);
        if (call->args2.n > 0 && call->args2.items[call->args2.n - 1]->str == NULL)
            diag_error(p->c, t->loc, "iterable argument unpacking follows keyword argument unpacking");
        AstNode *s = new_node(p, A_STARRED, t->loc);
        s->lhs = test(p);
        list_push(p, &call->args, s);
        return;
    }
    if (is_op(t, "**") || (t->kind == T_NAME && is_op(peek_at(p, 1), "="))) {
        AstNode *kw = new_node(p, A_KEYWORD, t->loc);
        if (advance(p)->kind == T_NAME) {
            if (is_keyword(t)) error_near(p, t, "expected an argument");
            kw->str = tok_str(p, t);
            kw->str_len = (size_t)t->len;
            advance(p);   /* '=' */
        }
        kw->lhs = test(p);
        list_push(p, &call->args2, kw);
        return;
    }
    AstNode *e = named_expression(p);
    if (is_kw(peek(p), "for") || is_kw(peek(p), "async")) {
        AstNode *c = new_node(p, A_COMPREHENSION, e->loc);
        c->op = '(';
        c->lhs = e;
        comp_for(p, c);
        if (call->args.n > 0 || call->args2.n > 0 || !is_op(peek(p), ")"))
            diag_error(p->c, e->loc, "Generator expression must be parenthesized");
        e = c;
    }
    if (call->args2.n > 0) {
        bool after_unpack = call->args2.items[call->args2.n - 1]->str == NULL;
        diag_error(p->c, node_start(e), after_unpack ? "positional argument follows keyword argument unpacking"
                                                     : "positional argument follows keyword argument");
    }
    list_push(p, &call->args, e);
}

/* call = '(' [argument (',' argument)* [',']] ')' */
static AstNode *call(Parser *p, AstNode *fn) {
    Token *open = advance(p);
    AstNode *n = new_node(p, A_CALL, fn->loc);
    n->lhs = fn;
    if (!is_op(peek(p), ")")) {
        argument(p, n);
        while (accept_op(p, ",") && !is_op(peek(p), ")")) argument(p, n);
    }
    expect_close(p, ")", open);
    return n;
}

/* primary = atom ('.' NAME | call | subscript)* */
static AstNode *primary(Parser *p) {
    AstNode *n = atom(p);
    for (;;) {
        Token *t = peek(p);
        if (is_op(t, ".")) {
            advance(p);
            Token *name = expect_name(p);
            AstNode *a = new_node(p, A_ATTR, n->loc);
            a->lhs = n;
            a->str = tok_str(p, name);
            a->str_len = (size_t)name->len;
            n = a;
        } else if (is_op(t, "(")) {
            n = call(p, n);
        } else if (is_op(t, "[")) {
            n = subscript(p, n);
        } else {
            return n;
        }
    }
}

/* Binary operators, loosest first: {spelling, AstBinOp, left, right}
 * priorities. `**` is right-associative (right < left) and binds tighter
 * than a unary minus on its left: -2**2 == -(2**2). */
typedef struct BinOpInfo {
    const char *text;
    AstBinOp op;
    int left, right;
} BinOpInfo;

static const BinOpInfo binop_table[] = {
    {"|", BIN_BITOR, 1, 1},    {"^", BIN_BITXOR, 2, 2},  {"&", BIN_BITAND, 3, 3},  {"<<", BIN_LSHIFT, 4, 4},
    {">>", BIN_RSHIFT, 4, 4},  {"+", BIN_ADD, 5, 5},     {"-", BIN_SUB, 5, 5},     {"*", BIN_MUL, 6, 6},
    {"/", BIN_DIV, 6, 6},      {"//", BIN_FLOORDIV, 6, 6}, {"%", BIN_MOD, 6, 6},   {"@", BIN_MATMUL, 6, 6},
    {"**", BIN_POW, 9, 8},
};
enum { UNARY_PRIORITY = 7 };

static const BinOpInfo *binop_of(const Token *t) {
    if (t->kind != T_OP) return NULL;
    for (size_t i = 0; i < ARRAY_LEN(binop_table); i++)
        if (tok_text_is(t, binop_table[i].text)) return &binop_table[i];
    return NULL;
}

/* power_operand = ['await'] primary */
static AstNode *power_operand(Parser *p) {
    if (is_kw(peek(p), "await")) {
        Token *t = advance(p);
        AstNode *n = new_node(p, A_AWAIT, t->loc);
        n->lhs = primary(p);
        return n;
    }
    return primary(p);
}

/* subexpr = (('-'|'+'|'~') subexpr | power_operand) (binop subexpr)*
 * where only operators binding tighter than `limit` are taken here. */
static AstNode *subexpr(Parser *p, int limit) {
    enter_level(p);
    Token *t = peek(p);
    AstNode *n;
    if (is_op(t, "-") || is_op(t, "+") || is_op(t, "~")) {
        advance(p);
        n = new_node(p, A_UNARY, t->loc);
        n->op = t->text[0] == '-' ? UN_NEG : t->text[0] == '+' ? UN_POS : UN_INVERT;
        n->lhs = subexpr(p, UNARY_PRIORITY);
    } else {
        n = power_operand(p);
    }
    for (const BinOpInfo *b; (b = binop_of(peek(p))) && b->left > limit;) {
        Token *op = advance(p);
        AstNode *bin = new_node(p, A_BINOP, op->loc);
        bin->op = b->op;
        bin->lhs = n;
        bin->rhs = subexpr(p, b->right);
        n = bin;
    }
    leave_level(p);
    return n;
}

/* comp_op = '<' | '>' | '==' | '>=' | '<=' | '!=' | 'in' | 'not' 'in' | 'is' | 'is' 'not'
 * Returns the number of tokens it spans (0 if none). */
static int comp_op(Parser *p, AstCmpOp *op) {
    static const struct { const char *text; AstCmpOp op; } ops[] = {
        {"==", ACMP_EQ}, {"!=", ACMP_NE}, {"<", ACMP_LT}, {"<=", ACMP_LE}, {">", ACMP_GT}, {">=", ACMP_GE},
    };
    Token *t = peek(p);
    for (size_t i = 0; i < ARRAY_LEN(ops); i++)
        if (is_op(t, ops[i].text)) return *op = ops[i].op, 1;
    if (is_kw(t, "in")) return *op = ACMP_IN, 1;
    if (is_kw(t, "not") && is_kw(peek_at(p, 1), "in")) return *op = ACMP_NOT_IN, 2;
    if (is_kw(t, "is")) return is_kw(peek_at(p, 1), "not") ? (*op = ACMP_IS_NOT, 2) : (*op = ACMP_IS, 1);
    return 0;
}

/* comparison = bitor (comp_op bitor)*   (a chain is one A_COMPARE) */
static AstNode *comparison(Parser *p) {
    AstNode *lhs = subexpr(p, 0);
    AstCmpOp op;
    int span = comp_op(p, &op);
    if (!span) return lhs;
    AstNode *n = new_node(p, A_COMPARE, peek(p)->loc);
    n->lhs = lhs;
    AstCmpOp *ops = NULL;
    int n_ops = 0, cap = 0;
    for (; span; span = comp_op(p, &op)) {
        p->pos += span;
        VEC_PUSH(p->a, ops, n_ops, cap, op);
        list_push(p, &n->args, subexpr(p, 0));
    }
    n->cmp_ops = ops;
    return n;
}

/* not_test = 'not' not_test | comparison */
static AstNode *not_test(Parser *p) {
    if (!is_kw(peek(p), "not")) return comparison(p);
    Token *t = advance(p);
    enter_level(p);
    AstNode *n = new_node(p, A_UNARY, t->loc);
    n->op = UN_NOT;
    n->lhs = not_test(p);
    leave_level(p);
    return n;
}

/* and_test = not_test ('and' not_test)* ; or_test = and_test ('or' and_test)*
 * (all operands of one operator flattened into one A_BOOLOP) */
static AstNode *bool_chain(Parser *p, const char *kw, AstBoolOp op, AstNode *(*operand)(Parser *)) {
    AstNode *first = operand(p);
    if (!is_kw(peek(p), kw)) return first;
    AstNode *n = new_node(p, A_BOOLOP, peek(p)->loc);
    n->op = op;
    list_push(p, &n->args, first);
    while (accept_kw(p, kw)) list_push(p, &n->args, operand(p));
    return n;
}

static AstNode *and_test(Parser *p) { return bool_chain(p, "and", BOOL_AND, not_test); }
static AstNode *or_test(Parser *p) { return bool_chain(p, "or", BOOL_OR, and_test); }

static void params(Parser *p, AstList *out, const char *close, bool annotations);

/* lambdef = 'lambda' [lambda_params] ':' test */
static AstNode *lambdef(Parser *p) {
    Token *t = advance(p);
    enter_level(p);
    AstNode *n = new_node(p, A_LAMBDA, t->loc);
    params(p, &n->args, ":", false);
    expect_op(p, ":");
    n->lhs = test(p);
    leave_level(p);
    return n;
}

/* test = or_test ['if' or_test 'else' test] | lambdef */
static AstNode *test(Parser *p) {
    if (is_kw(peek(p), "lambda")) return lambdef(p);
    AstNode *n = or_test(p);
    if (!is_kw(peek(p), "if")) return n;
    advance(p);
    enter_level(p);
    AstNode *e = new_node(p, A_IFEXP, node_start(n));
    e->lhs = n;
    e->cond = or_test(p);
    if (!accept_kw(p, "else")) diag_error(p->c, peek(p)->loc, "expected 'else' after 'if' expression");
    e->rhs = test(p);
    leave_level(p);
    return e;
}

/* named_expression = NAME ':=' test | test */
static AstNode *named_expression(Parser *p) {
    Token *t = peek(p);
    if (t->kind == T_NAME && !is_keyword(t) && is_op(peek_at(p, 1), ":=")) {
        p->pos += 2;
        AstNode *n = new_node(p, A_NAMEDEXPR, t->loc);
        n->str = tok_str(p, t);
        n->str_len = (size_t)t->len;
        n->lhs = test(p);
        return n;
    }
    AstNode *e = test(p);
    if (is_op(peek(p), ":="))
        diag_error(p->c, node_start(e), "cannot use assignment expressions with %s", describe(e));
    return e;
}

/* star_expressions = star_expression (',' star_expression)* [',']
 * star_expression = '*' bitor | test                (a comma makes a tuple) */
static AstNode *star_expression(Parser *p) {
    if (!is_op(peek(p), "*")) return test(p);
    Token *t = advance(p);
    AstNode *n = new_node(p, A_STARRED, t->loc);
    n->lhs = subexpr(p, 0);
    return n;
}

static AstNode *star_expressions(Parser *p) {
    AstNode *first = star_expression(p);
    if (!is_op(peek(p), ",")) return first;
    AstNode *n = new_node(p, A_TUPLE, node_start(first));
    list_push(p, &n->args, first);
    rest_of_list(p, &n->args, star_expression, NULL);
    return n;
}

/* star_targets = star_target (',' star_target)* [','] ; star_target = ['*'] bitor
 * (the targets of `for` stop before `in`) */
static AstNode *star_target(Parser *p) {
    if (!is_op(peek(p), "*")) return subexpr(p, 0);
    Token *t = advance(p);
    AstNode *n = new_node(p, A_STARRED, t->loc);
    n->lhs = subexpr(p, 0);
    return n;
}

static AstNode *star_targets(Parser *p) {
    AstNode *first = star_target(p);
    AstNode *n = first;
    if (is_op(peek(p), ",")) {
        n = new_node(p, A_TUPLE, node_start(first));
        list_push(p, &n->args, first);
        rest_of_list(p, &n->args, star_target, NULL);
    }
    check_target(p, n, false);
    return n;
}

/* comp_for = ['async'] 'for' star_targets 'in' or_test ('if' or_test)* [comp_for] */
static void comp_for(Parser *p, AstNode *comp) {
    while (is_kw(peek(p), "for") || is_kw(peek(p), "async")) {
        accept_kw(p, "async");
        Token *t = peek(p);
        if (!accept_kw(p, "for")) diag_error(p->c, t->loc, "expected 'for'");
        AstNode *f = new_node(p, A_COMP_FOR, t->loc);
        f->lhs = star_targets(p);
        if (!accept_kw(p, "in")) diag_error(p->c, peek(p)->loc, "expected 'in'");
        f->rhs = or_test(p);
        while (accept_kw(p, "if")) list_push(p, &f->args, or_test(p));
        list_push(p, &comp->args, f);
    }
}

/* param = NAME [':' test] ['=' test] | '*' [NAME [':' test]] | '**' NAME [':' test] | '/'
 * parameters = param (',' param)* [',']     (up to `close`)
 * A bare '*' and '/' only mark keyword-/positional-only parameters and
 * produce no node. */
static AstNode *param(Parser *p, bool annotations, bool *seen_default) {
    Token *t = peek(p);
    int star = accept_op(p, "**") ? AST_STARSTAR : accept_op(p, "*") ? '*' : 0;
    if (star == '*' && (is_op(peek(p), ",") || is_op(peek(p), ")") || is_op(peek(p), ":"))) {
        *seen_default = false;    /* keyword-only parameters need no default */
        return NULL;
    }
    if (!star && accept_op(p, "/")) return NULL;
    Token *name = expect_name(p);
    AstNode *n = new_node(p, A_PARAM, t->loc);
    n->op = star;
    n->str = tok_str(p, name);
    n->str_len = (size_t)name->len;
    if (annotations && accept_op(p, ":")) n->third = test(p);
    if (!star && accept_op(p, "=")) {
        n->rhs = test(p);
        *seen_default = true;
    } else if (!star && *seen_default) {
        diag_error(p->c, name->loc, "parameter without a default follows parameter with a default");
    }
    if (star) *seen_default = false;   /* keyword-only parameters need no default */
    return n;
}

static void params(Parser *p, AstList *out, const char *close, bool annotations) {
    bool seen_default = false;
    while (!is_op(peek(p), close)) {
        AstNode *n = param(p, annotations, &seen_default);
        if (n) {
            for (int i = 0; i < out->n; i++)
                if (strcmp(out->items[i]->str, n->str) == 0)
                    diag_error(p->c, n->loc, "duplicate argument '%s' in function definition", n->str);
            list_push(p, out, n);
        }
        if (!accept_op(p, ",")) break;
    }
}

/* ---- statements ---- */

static void statement(Parser *p, AstList *out);
static AstNode *funcdef(Parser *p);

/* block = NEWLINE INDENT statement+ DEDENT | simple_stmts
 * `what` names the header for "expected an indented block after ..." */
static void simple_stmts(Parser *p, AstList *out);

static void block(Parser *p, AstList *out, const char *what, const Token *header) {
    if (peek(p)->kind != T_NEWLINE) {
        simple_stmts(p, out);
        return;
    }
    advance(p);
    if (peek(p)->kind != T_INDENT)
        diag_error(p->c, peek(p)->loc, "expected an indented block after %s on line %d", what, header->loc.line);
    advance(p);
    /* nesting of blocks is bounded by the lexer's indentation limit */
    while (peek(p)->kind != T_DEDENT && peek(p)->kind != T_EOF) statement(p, out);
    advance(p);
}

/* Skips an indented block, INDENT to its DEDENT, if one is next. */
static void skip_block(Parser *p) {
    if (peek(p)->kind != T_INDENT) return;
    int level = 0;
    do {
        Token *t = advance(p);
        level += t->kind == T_INDENT ? 1 : t->kind == T_DEDENT ? -1 : 0;
    } while (level > 0 && peek(p)->kind != T_EOF);
}

/* Skips one logical line and the indented block after it, if any. */
static void skip_line_and_block(Parser *p) {
    while (peek(p)->kind != T_NEWLINE && peek(p)->kind != T_EOF) advance(p);
    advance(p);
    skip_block(p);
}

/* else_block = 'else' ':' block */
static void else_block(Parser *p, AstList *orelse) {
    Token *t = peek(p);
    if (!accept_kw(p, "else")) return;
    expect_op(p, ":");
    block(p, orelse, "'else' statement", t);
}

/* if_stmt = ('if'|'elif') named_expression ':' block (elif_stmt | else_block)? */
static AstNode *if_stmt(Parser *p) {
    Token *t = advance(p);
    AstNode *n = new_node(p, A_IF, t->loc);
    n->cond = named_expression(p);
    expect_op(p, ":");
    block(p, &n->body, t->text[0] == 'i' ? "'if' statement" : "'elif' statement", t);
    if (is_kw(peek(p), "elif")) list_push(p, &n->orelse, if_stmt(p));
    else else_block(p, &n->orelse);
    return n;
}

/* while_stmt = 'while' named_expression ':' block [else_block] */
static AstNode *while_stmt(Parser *p) {
    Token *t = advance(p);
    AstNode *n = new_node(p, A_WHILE, t->loc);
    n->cond = named_expression(p);
    expect_op(p, ":");
    block(p, &n->body, "'while' statement", t);
    else_block(p, &n->orelse);
    return n;
}

/* for_stmt = 'for' star_targets 'in' star_expressions ':' block [else_block] */
static AstNode *for_stmt(Parser *p) {
    Token *t = advance(p);
    AstNode *n = new_node(p, A_FOR, t->loc);
    n->lhs = star_targets(p);
    if (!accept_kw(p, "in")) error_near(p, peek(p), "expected 'in'");
    n->rhs = star_expressions(p);
    expect_op(p, ":");
    block(p, &n->body, "'for' statement", t);
    else_block(p, &n->orelse);
    return n;
}

/* A compound statement a kernel cannot hold (class, try, with, async,
 * match, decorated): recorded with its keyword, tokens skipped. */
static AstNode *unsupported_stmt(Parser *p, const char *keyword) {
    Token *t = peek(p);
    AstNode *n = new_node(p, A_UNSUPPORTED, t->loc);
    n->str = keyword;
    n->str_len = strlen(keyword);
    if (is_op(t, "@")) {
        while (is_op(peek(p), "@")) skip_line_and_block(p);
    }
    bool is_try = is_kw(peek(p), "try");
    skip_line_and_block(p);
    while (is_try && (is_kw(peek(p), "except") || is_kw(peek(p), "else") || is_kw(peek(p), "finally")))
        skip_line_and_block(p);
    return n;
}

/* `match` is a keyword only at the start of a match statement: a logical
 * line ending in ':' whose block starts with `case`. */
static bool is_match_stmt(Parser *p) {
    if (!is_kw(peek(p), "match")) return false;
    int i = p->pos + 1;
    while (p->toks[i].kind != T_NEWLINE && p->toks[i].kind != T_EOF) i++;
    return i > p->pos + 1 && is_op(&p->toks[i - 1], ":") && p->toks[i].kind == T_NEWLINE && i + 2 < p->n_toks &&
           p->toks[i + 1].kind == T_INDENT && is_kw(&p->toks[i + 2], "case");
}

/* compound_stmt = if_stmt | while_stmt | for_stmt | funcdef | unsupported
 * Returns NULL if the statement is not compound. */
static AstNode *compound_stmt(Parser *p) {
    static const char *const unsupported[] = {"class", "try", "with", "async"};
    Token *t = peek(p);
    if (is_kw(t, "if")) return if_stmt(p);
    if (is_kw(t, "while")) return while_stmt(p);
    if (is_kw(t, "for")) return for_stmt(p);
    if (is_kw(t, "def")) return funcdef(p);
    if (is_op(t, "@")) return unsupported_stmt(p, "@");
    if (is_match_stmt(p)) return unsupported_stmt(p, "match");
    for (size_t i = 0; i < ARRAY_LEN(unsupported); i++)
        if (is_kw(t, unsupported[i])) return unsupported_stmt(p, unsupported[i]);
    return NULL;
}

static const struct {
    const char *text;
    AstBinOp op;
} augassign_ops[] = {
    {"+=", BIN_ADD},      {"-=", BIN_SUB},     {"*=", BIN_MUL},     {"/=", BIN_DIV},
    {"//=", BIN_FLOORDIV}, {"%=", BIN_MOD},    {"**=", BIN_POW},    {"<<=", BIN_LSHIFT},
    {">>=", BIN_RSHIFT},  {"&=", BIN_BITAND},  {"|=", BIN_BITOR},   {"^=", BIN_BITXOR},
    {"@=", BIN_MATMUL},
};

/* value = yield_expr | star_expressions */
static AstNode *assigned_value(Parser *p) {
    return is_kw(peek(p), "yield") ? yield_expr(p) : star_expressions(p);
}

/* `*a` alone is only meaningful inside a tuple, list or call. */
static AstNode *no_bare_star(Parser *p, AstNode *n) {
    if (n && n->kind == A_STARRED) diag_error(p->c, n->loc, "cannot use starred expression here");
    return n;
}

/* expr_stmt = star_expressions
 *           | star_expressions ':' test ['=' value]          (annotated)
 *           | star_expressions augassign value
 *           | (star_expressions '=')+ value                  (chained targets) */
static AstNode *expr_stmt(Parser *p) {
    Token *start = peek(p);
    if (is_keyword(start) && !starts_expression(start) && !is_kw(start, "yield")) error_near(p, start, "invalid syntax");
    AstNode *first = assigned_value(p);
    Token *t = peek(p);
    if (is_op(t, ":")) {
        advance(p);
        if (first->kind != A_NAME && first->kind != A_ATTR && first->kind != A_SUBSCRIPT) {
            if (first->kind == A_TUPLE) diag_error(p->c, first->loc, "only single target (not tuple) can be annotated");
            diag_error(p->c, node_start(first), "illegal target for annotation");
        }
        AstNode *n = new_node(p, A_ANNASSIGN, start->loc);
        n->lhs = first;
        n->third = test(p);
        if (accept_op(p, "=")) n->rhs = no_bare_star(p, assigned_value(p));
        return n;
    }
    for (size_t i = 0; i < ARRAY_LEN(augassign_ops); i++) {
        if (!is_op(t, augassign_ops[i].text)) continue;
        advance(p);
        if (first->kind != A_NAME && first->kind != A_ATTR && first->kind != A_SUBSCRIPT)
            diag_error(p->c, node_start(first), "'%s' is an illegal expression for augmented assignment",
                       describe(first));
        AstNode *n = new_node(p, A_AUGASSIGN, start->loc);
        n->op = augassign_ops[i].op;
        n->lhs = first;
        n->rhs = no_bare_star(p, assigned_value(p));
        return n;
    }
    if (!is_op(t, "=")) {
        AstNode *n = new_node(p, A_EXPR_STMT, start->loc);
        n->lhs = no_bare_star(p, first);
        return n;
    }
    AstNode *n = new_node(p, A_ASSIGN, start->loc);
    AstNode *value = first;
    while (accept_op(p, "=")) {
        check_target(p, value, false);
        list_push(p, &n->args, value);
        value = assigned_value(p);
    }
    n->rhs = no_bare_star(p, value);
    return n;
}

/* name_list = NAME (',' NAME)*   (global / nonlocal) */
static AstNode *name_list_stmt(Parser *p, AstKind kind) {
    Token *t = advance(p);
    AstNode *n = new_node(p, kind, t->loc);
    do {
        Token *name = expect_name(p);
        AstNode *e = new_node(p, A_NAME, name->loc);
        e->str = tok_str(p, name);
        e->str_len = (size_t)name->len;
        list_push(p, &n->args, e);
    } while (accept_op(p, ","));
    return n;
}

/* del_stmt = 'del' target (',' target)* [','] */
static AstNode *del_stmt(Parser *p) {
    Token *t = advance(p);
    AstNode *n = new_node(p, A_DEL, t->loc);
    do {
        if (!starts_expression(peek(p)) && n->args.n > 0) break;
        AstNode *e = subexpr(p, 0);
        check_target(p, e, true);
        list_push(p, &n->args, e);
    } while (accept_op(p, ","));
    return n;
}

/* The keywords that end a simple statement's optional operand. */
static bool at_stmt_end(Parser *p) {
    Token *t = peek(p);
    return t->kind == T_NEWLINE || t->kind == T_EOF || is_op(t, ";");
}

/* simple_stmt = 'pass' | 'break' | 'continue' | 'return' [star_expressions]
 *             | 'raise' [test ['from' test]] | 'global' name_list | 'nonlocal' name_list
 *             | 'del' targets | 'assert' test [',' test] | import | expr_stmt */
static AstNode *simple_stmt(Parser *p) {
    static const struct { const char *kw; AstKind kind; } bare[] = {
        {"pass", A_PASS}, {"break", A_BREAK}, {"continue", A_CONTINUE}};
    Token *t = peek(p);
    for (size_t i = 0; i < ARRAY_LEN(bare); i++)
        if (is_kw(t, bare[i].kw)) return advance(p), new_node(p, bare[i].kind, t->loc);
    if (is_kw(t, "return") || is_kw(t, "raise")) {
        advance(p);
        AstNode *n = new_node(p, is_kw(t, "return") ? A_RETURN : A_RAISE, t->loc);
        if (!at_stmt_end(p)) n->lhs = no_bare_star(p, n->kind == A_RETURN ? star_expressions(p) : test(p));
        if (n->kind == A_RAISE && n->lhs && accept_kw(p, "from")) n->rhs = test(p);   /* the cause */
        return n;
    }
    if (is_kw(t, "global")) return name_list_stmt(p, A_GLOBAL);
    if (is_kw(t, "nonlocal")) return name_list_stmt(p, A_NONLOCAL);
    if (is_kw(t, "del")) return del_stmt(p);
    if (is_kw(t, "assert")) {
        advance(p);
        AstNode *n = new_node(p, A_ASSERT, t->loc);
        n->cond = test(p);
        if (accept_op(p, ",")) n->lhs = test(p);
        return n;
    }
    if (is_kw(t, "import") || is_kw(t, "from")) {
        /* an import inside a kernel: recorded, not parsed */
        AstNode *n = new_node(p, A_UNSUPPORTED, t->loc);
        n->str = t->text[0] == 'i' ? "import" : "from";
        n->str_len = strlen(n->str);
        while (!at_stmt_end(p)) advance(p);
        return n;
    }
    return expr_stmt(p);
}

/* simple_stmts = simple_stmt (';' simple_stmt)* [';'] NEWLINE */
static void simple_stmts(Parser *p, AstList *out) {
    for (;;) {
        list_push(p, out, simple_stmt(p));
        if (!accept_op(p, ";") || peek(p)->kind == T_NEWLINE) break;
    }
    Token *t = peek(p);
    if (t->kind != T_NEWLINE) error_near(p, t, "invalid syntax");
    advance(p);
}

/* statement = compound_stmt | simple_stmts */
static void statement(Parser *p, AstList *out) {
    Token *t = peek(p);
    if (t->kind == T_INDENT) diag_error(p->c, t->loc, "unexpected indent");
    AstNode *n = compound_stmt(p);
    if (n) list_push(p, out, n);
    else simple_stmts(p, out);
}

/* funcdef = 'def' NAME '(' [parameters] ')' ['->' test] ':' block */
static AstNode *funcdef(Parser *p) {
    Token *t = advance(p);
    Token *name = expect_name(p);
    AstNode *n = new_node(p, A_FUNCDEF, t->loc);
    n->str = tok_str(p, name);
    n->str_len = (size_t)name->len;
    if (!is_op(peek(p), "(")) diag_error(p->c, peek(p)->loc, "expected '('");
    Token *open = advance(p);
    params(p, &n->args, ")", true);
    expect_close(p, ")", open);
    if (accept_op(p, "->")) n->third = test(p);
    expect_op(p, ":");
    block(p, &n->body, "function definition", t);
    return n;
}

/* ---- module level: host code is skipped by structure ---- */

/* Skips the rest of a simple statement at module level (up to ';' or
 * NEWLINE, not consuming it). Brackets are balanced by the lexer, and a
 * NEWLINE never appears inside them. */
static void skip_simple(Parser *p) {
    int depth = 0;
    for (Token *t = peek(p); t->kind != T_NEWLINE && t->kind != T_EOF; t = peek(p)) {
        if (depth == 0 && is_op(t, ";")) return;
        if (t->kind == T_OP && strchr("([{", t->text[0]) && t->len == 1) depth++;
        if (t->kind == T_OP && strchr(")]}", t->text[0]) && t->len == 1) depth--;
        advance(p);
    }
}

/* Skips to the bracket closing `open` (just consumed) and past it; returns
 * the closing token. The lexer has checked that brackets balance. */
static Token *skip_to_close(Parser *p, const Token *open) {
    int depth = 1;
    (void)open;
    for (;;) {
        Token *t = advance(p);
        if (t->kind == T_EOF) return t;
        if (t->kind == T_OP && t->len == 1 && strchr("([{", t->text[0])) depth++;
        if (t->kind == T_OP && t->len == 1 && strchr(")]}", t->text[0]) && --depth == 0) return t;
    }
}

/* dotted_name = NAME ('.' NAME)*  as one string; NULL if not there */
static const char *dotted_name(Parser *p) {
    if (peek(p)->kind != T_NAME || is_keyword(peek(p))) return NULL;
    Buf b = {.arena = p->a};
    Token *first = advance(p);
    buf_putn(&b, first->text, (size_t)first->len);
    while (is_op(peek(p), ".") && peek_at(p, 1)->kind == T_NAME) {
        advance(p);
        Token *t = advance(p);
        buf_putc(&b, '.');
        buf_putn(&b, t->text, (size_t)t->len);
    }
    return b.data;
}

/* import_as = dotted_name ['as' NAME]  (or NAME ['as' NAME] after from) */
static bool import_as(Parser *p, AstImport *imp, int *cap, bool dotted) {
    AstImportName in = {0};
    if (dotted) {
        in.name = dotted_name(p);
    } else if (peek(p)->kind == T_NAME && !is_keyword(peek(p))) {
        in.name = tok_str(p, advance(p));
    }
    if (!in.name) return false;
    if (accept_kw(p, "as")) {
        if (peek(p)->kind != T_NAME || is_keyword(peek(p))) return false;
        in.alias = tok_str(p, advance(p));
    }
    VEC_PUSH(p->a, imp->names, imp->n_names, *cap, in);
    return true;
}

/* import_stmt = 'import' import_as (',' import_as)*
 *             | 'from' ('.'|'...')* [dotted_name] 'import' ('*' | '(' names [','] ')' | names)
 * Returns false (nothing recorded) if the statement is not well formed. */
static bool import_stmt(Parser *p, AstImport *imp) {
    Token *t = advance(p);
    imp->loc = t->loc;
    imp->is_from = t->text[0] == 'f';
    int cap = 0;
    if (!imp->is_from) {
        do {
            if (!import_as(p, imp, &cap, true)) return false;
        } while (accept_op(p, ","));
        return true;
    }
    for (;; advance(p)) {
        if (is_op(peek(p), ".")) imp->level += 1;
        else if (is_op(peek(p), "...")) imp->level += 3;
        else break;
    }
    imp->module = dotted_name(p);
    if (!imp->module) imp->module = "";
    if ((imp->level == 0 && !*imp->module) || !accept_kw(p, "import")) return false;
    if (is_op(peek(p), "*")) {
        advance(p);
        AstImportName star = {"*", NULL};
        VEC_PUSH(p->a, imp->names, imp->n_names, cap, star);
        return true;
    }
    bool paren = accept_op(p, "(");
    do {
        if (paren && is_op(peek(p), ")")) break;
        if (!import_as(p, imp, &cap, false)) return false;
    } while (accept_op(p, ","));
    return !paren || accept_op(p, ")");
}

static void module_import(Parser *p, AstModule *m) {
    int start = p->pos;
    AstImport imp = {0};
    bool ok = import_stmt(p, &imp);
    if (ok && !at_stmt_end(p)) ok = false;
    if (ok) {
        VEC_PUSH(p->a, m->imports, m->n_imports, m->cap_imports, imp);
    } else {
        p->pos = start;
        skip_simple(p);
    }
}

/* global = NAME '=' value | NAME ':' annotation '=' value
 * A statement with several targets (`a = b = 1`) is not a global. */
static void module_assignment(Parser *p, AstModule *m) {
    Token *name = advance(p);
    AstGlobal g = {0};
    g.name = tok_str(p, name);
    g.loc = name->loc;
    if (accept_op(p, ":")) {
        int ann_begin = p->pos;
        skip_simple(p);   /* stops at ';' or NEWLINE; find the '=' by hand */
        int eq = -1, depth = 0;
        for (int i = ann_begin; i < p->pos && eq < 0; i++) {
            Token *t = &p->toks[i];
            if (t->kind == T_OP && t->len == 1 && strchr("([{", t->text[0])) depth++;
            if (t->kind == T_OP && t->len == 1 && strchr(")]}", t->text[0])) depth--;
            if (depth == 0 && is_op(t, "=")) eq = i;
        }
        if (eq < 0) return;    /* a bare annotation declares nothing */
        for (int i = eq - 1; i >= ann_begin; i--)
            if (p->toks[i].kind == T_NAME) {
                g.annotated_constexpr = tok_text_is(&p->toks[i], "constexpr");
                break;
            }
        p->pos = eq;
    }
    advance(p);   /* '=' */
    g.tok_begin = p->pos;
    bool lambda_seen = false, multiple = false;
    int depth = 0;
    for (Token *t = peek(p); t->kind != T_NEWLINE && t->kind != T_EOF && !(depth == 0 && is_op(t, ";")); t = peek(p)) {
        if (t->kind == T_OP && t->len == 1 && strchr("([{", t->text[0])) depth++;
        if (t->kind == T_OP && t->len == 1 && strchr(")]}", t->text[0])) depth--;
        lambda_seen |= depth == 0 && is_kw(t, "lambda");
        multiple |= depth == 0 && !lambda_seen && is_op(t, "=");
        advance(p);
    }
    g.tok_end = p->pos;
    if (!multiple && g.tok_end > g.tok_begin) VEC_PUSH(p->a, m->globals, m->n_globals, m->cap_globals, g);
}

/* module_simple_stmts = piece (';' piece)* NEWLINE, where a piece is an
 * import, a global, or anything else (skipped) */
static void module_simple_stmts(Parser *p, AstModule *m) {
    for (;;) {
        Token *t = peek(p);
        if (is_kw(t, "import") || is_kw(t, "from")) module_import(p, m);
        else if (t->kind == T_NAME && !is_keyword(t) && (is_op(peek_at(p, 1), "=") || is_op(peek_at(p, 1), ":")))
            module_assignment(p, m);
        else skip_simple(p);
        if (!accept_op(p, ";")) break;
    }
    skip_line_and_block(p);   /* the NEWLINE, and a stray indented block */
}

/* decorator = '@' dotted_name ['(' anything ')'] NEWLINE   (anything else
 * after '@' is kept with an empty path) */
static AstDecorator decorator(Parser *p) {
    Token *at = advance(p);
    AstDecorator d = {0};
    d.loc = at->loc;
    int cap = 0;
    while (peek(p)->kind == T_NAME) {
        const char *part = tok_str(p, advance(p));
        VEC_PUSH(p->a, d.path, d.n_path, cap, part);
        if (!is_op(peek(p), ".") || peek_at(p, 1)->kind != T_NAME) break;
        advance(p);
    }
    if (d.n_path > 0 && is_op(peek(p), "(")) {
        Token *open = advance(p);
        Token *close = skip_to_close(p, open);
        d.called = true;
        d.args_text = arena_strndup(p->a, open->text + 1, (size_t)(close->text - open->text - 1));
    }
    if (peek(p)->kind != T_NEWLINE) {
        d.n_path = 0;
        d.called = false;
        d.args_text = NULL;
    }
    while (peek(p)->kind != T_NEWLINE && peek(p)->kind != T_EOF) advance(p);
    advance(p);
    return d;
}

static bool is_jit(const AstDecorator *ds, int n) {
    for (int i = 0; i < n; i++)
        if (ds[i].n_path > 0 && strcmp(ds[i].path[ds[i].n_path - 1], "jit") == 0) return true;
    return false;
}

/* A top-level def: parsed in full under a jit decorator, else only named. */
static void module_def(Parser *p, AstModule *m, AstDecorator *ds, int n_ds) {
    AstFunc f = {0};
    f.decorators = ds;
    f.n_decorators = n_ds;
    Token *def = peek(p), *name = peek_at(p, 1);
    if (name->kind != T_NAME || is_keyword(name)) {
        skip_line_and_block(p);
        return;
    }
    if (is_jit(ds, n_ds)) {
        f.node = funcdef(p);
        f.parsed = true;
    } else {
        f.node = new_node(p, A_FUNCDEF, def->loc);
        f.node->str = tok_str(p, name);
        f.node->str_len = (size_t)name->len;
        skip_line_and_block(p);
    }
    VEC_PUSH(p->a, m->funcs, m->n_funcs, m->cap_funcs, f);
}

static void module_decorated(Parser *p, AstModule *m) {
    AstDecorator *ds = NULL;
    int n = 0, cap = 0;
    while (is_op(peek(p), "@")) {
        AstDecorator d = decorator(p);
        VEC_PUSH(p->a, ds, n, cap, d);
    }
    if (is_kw(peek(p), "def")) module_def(p, m, ds, n);
    else skip_line_and_block(p);    /* a class, async def, or junk */
}

/* Does the logical line at p->pos end in ':'? (a compound statement's
 * header, such as `match x:`, even when its keyword is soft) */
static bool line_ends_in_colon(Parser *p) {
    int i = p->pos;
    while (p->toks[i].kind != T_NEWLINE && p->toks[i].kind != T_EOF) i++;
    return i > p->pos && is_op(&p->toks[i - 1], ":");
}

static void module_stmt(Parser *p, AstModule *m);

/* A file's names are read from its text, so at module level the body of a
 * `try:` is read as module code: what runs when nothing fails (`try: from
 * triton.language.extra.libdevice import rsqrt`). Its except, else and
 * finally blocks, and if/for/while/with blocks, are not read. (A kernel
 * called from Python is given the program's real bindings instead.) */
static void module_try(Parser *p, AstModule *m) {
    advance(p);
    if (!is_op(peek(p), ":")) {
        skip_line_and_block(p);
        return;
    }
    advance(p);
    if (peek(p)->kind != T_NEWLINE) {   /* try: NAME = value */
        module_simple_stmts(p, m);
        return;
    }
    advance(p);
    if (peek(p)->kind != T_INDENT) return;
    advance(p);
    while (peek(p)->kind != T_DEDENT && peek(p)->kind != T_EOF) module_stmt(p, m);
    if (peek(p)->kind == T_DEDENT) advance(p);
}

static void module_stmt(Parser *p, AstModule *m) {
    static const char *const compound[] = {"if", "elif", "else", "while", "for", "except", "finally",
                                           "with", "class", "async"};
    Token *t = peek(p);
    if (t->kind == T_NEWLINE || t->kind == T_DEDENT) {
        advance(p);
        return;
    }
    if (t->kind == T_INDENT) {
        skip_block(p);   /* host code indented for no reason */
    } else if (is_op(t, "@")) {
        module_decorated(p, m);
    } else if (is_kw(t, "def")) {
        module_def(p, m, NULL, 0);
    } else if (is_kw(t, "try")) {
        module_try(p, m);
    } else {
        bool is_compound = line_ends_in_colon(p);
        for (size_t i = 0; i < ARRAY_LEN(compound); i++) is_compound |= is_kw(t, compound[i]);
        if (is_compound) skip_line_and_block(p);
        else module_simple_stmts(p, m);
    }
}

AstModule *parse_module(Ctx *c, const SrcFile *f) {
    AstModule *m = arena_alloc(c->arena, sizeof *m);
    m->file = f;
    m->toks = lex_file(c, f, &m->n_toks);
    Parser p = {c, c->arena, m->toks, m->n_toks, 0, 0};
    while (peek(&p)->kind != T_EOF) module_stmt(&p, m);
    for (int i = 0; i < m->n_funcs; i++) m->funcs[i].module = m;
    return m;
}

AstFunc *parse_function(Ctx *c, const SrcFile *f, AstModule *m) {
    m->file = f;
    m->toks = lex_file(c, f, &m->n_toks);
    Parser p = {c, c->arena, m->toks, m->n_toks, 0, 0};
    while (peek(&p)->kind == T_NEWLINE) advance(&p);
    AstFunc fn = {0};
    int cap = 0;
    while (is_op(peek(&p), "@")) {
        AstDecorator d = decorator(&p);
        VEC_PUSH(p.a, fn.decorators, fn.n_decorators, cap, d);
    }
    if (!is_kw(peek(&p), "def")) error_near(&p, peek(&p), "expected the def of a @jit function");
    fn.node = funcdef(&p);
    fn.parsed = true;
    fn.module = m;
    while (peek(&p)->kind == T_NEWLINE || peek(&p)->kind == T_DEDENT) advance(&p);
    if (peek(&p)->kind != T_EOF) error_near(&p, peek(&p), "expected the end of the function's source");
    VEC_PUSH(p.a, m->funcs, m->n_funcs, m->cap_funcs, fn);
    return &m->funcs[m->n_funcs - 1];
}

AstNode *parse_global(Ctx *c, AstModule *m, AstGlobal *g) {
    if (g->value) return g->value;
    Parser p = {c, c->arena, m->toks, m->n_toks, g->tok_begin, 0};
    AstNode *v = no_bare_star(&p, assigned_value(&p));
    if (p.pos != g->tok_end) error_near(&p, peek(&p), "invalid syntax");
    g->value = v;
    return v;
}

AstFunc *module_find_func(AstModule *m, const char *name) {
    for (int i = m->n_funcs - 1; i >= 0; i--)
        if (m->funcs[i].node && strcmp(m->funcs[i].node->str, name) == 0) return &m->funcs[i];
    return NULL;
}
