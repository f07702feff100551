/* A units text: a kernel as the running Python program holds it. Instead
 * of a file whose names the compiler resolves by reading it, the Python
 * package hands over the source of each @jit function involved (as
 * Python's inspect finds it, with the file and line it came from) and what
 * each of its free names is bound to in the program: a constexpr value, a
 * module or function of triton's language, another @jit function, a module
 * of the user's (only the attributes the functions use), or something a
 * kernel cannot use. So kernels defined inside functions, closures, names
 * bound under `try:` or `if`, and helper modules such as torch's work as
 * they do in Triton, whatever the files say.
 *
 *   tric-units 1
 *   function add_kernel 12 241 "    " "/home/u/add.py"
 *   <241 bytes: its source, decorators included, each line without the indent>
 *   bind tl import triton.language
 *   bind rsqrt import triton.language.extra.libdevice.rsqrt
 *   bind BLOCK value 128
 *   bind helper function 1
 *   bind th module 2
 *   bind np opaque "the module 'numpy'"
 *   function helper 40 97 "" "/home/u/add.py"
 *   <97 bytes>
 *   module "torch._inductor.runtime.triton_helpers"
 *   bind maximum function 3
 *   ...
 *
 * Units are numbered from 0 in order; unit 0 is the kernel. A `function`
 * line gives the function's name, the line of the file its source starts
 * at, the source's length in bytes, the indentation taken off every line
 * and the file, the last two as JSON strings; a `module` line, the module's
 * name (Python's __name__) as a JSON string. `bind` lines belong to the
 * unit above them: `value` is written as a constexpr of a signature
 * (signature.c) up to the end of the line, `import` is a dotted path into
 * triton (or tric), `function` and `module` name a unit by number.
 *
 * Each unit becomes an AstModule (is_unit) whose globals and imports are
 * its bindings, registered under its name when lowering starts
 * (module_register_units): the rest of the lowering resolves names as it
 * does for files. */
#include "frontend.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define UNITS_HEADER "tric-units 1"

typedef struct UnitsParser {
    Ctx *c;
    const SrcFile *f;
    const char *p, *end;
    const char *line_begin;
    int line;
} UnitsParser;

/* A bind line whose target is a unit, resolved once every unit is read. */
typedef struct PendingBind {
    AstModule *in;
    const char *name;
    bool is_module;
    int unit;
    SrcLoc loc;
} PendingBind;

static SrcLoc up_loc(const UnitsParser *u, const char *at) {
    SrcLoc l = {u->f, u->line, (int32_t)(at - u->line_begin) + 1};
    return l;
}

static _Noreturn void up_error(UnitsParser *u, const char *at, const char *what) {
    diag_error(u->c, up_loc(u, at), "units text: %s", what);
}

static void up_space(UnitsParser *u) {
    while (u->p < u->end && *u->p == ' ') u->p++;
}

static bool up_at_eol(const UnitsParser *u) { return u->p >= u->end || *u->p == '\n'; }

static void up_newline(UnitsParser *u) {
    up_space(u);
    if (!up_at_eol(u)) up_error(u, u->p, "expected the end of the line");
    if (u->p < u->end) u->p++;
    u->line++;
    u->line_begin = u->p;
}

/* A word: letters, digits, '_' and '.' (names and dotted paths). */
static const char *up_word(UnitsParser *u, const char *what) {
    up_space(u);
    const char *s = u->p;
    while (u->p < u->end && (isalnum((unsigned char)*u->p) || *u->p == '_' || *u->p == '.')) u->p++;
    if (u->p == s) up_error(u, s, arena_printf(u->c->arena, "expected %s", what));
    return arena_strndup(u->c->arena, s, (size_t)(u->p - s));
}

static bool up_word_is(const char *w, const char *s) { return !strcmp(w, s); }

static long up_int(UnitsParser *u, const char *what, long max) {
    up_space(u);
    const char *s = u->p;
    long v = 0;
    while (u->p < u->end && isdigit((unsigned char)*u->p) && v <= max) v = v * 10 + (*u->p++ - '0');
    if (u->p == s || v > max) up_error(u, s, arena_printf(u->c->arena, "expected %s", what));
    return v;
}

/* A JSON string (Python's json.dumps(s, ensure_ascii=False)). */
static const char *up_string(UnitsParser *u, const char *what) {
    up_space(u);
    const char *s = u->p;
    if (u->p >= u->end || *u->p != '"') up_error(u, s, arena_printf(u->c->arena, "expected %s (a JSON string)", what));
    u->p++;
    Buf out = {.arena = u->c->arena};
    for (;;) {
        if (u->p >= u->end || *u->p == '\n') up_error(u, s, "unterminated string");
        char ch = *u->p++;
        if (ch == '"') break;
        if (ch != '\\') {
            buf_putc(&out, ch);
            continue;
        }
        const char *esc = u->p - 1;
        ch = u->p < u->end ? *u->p++ : 0;
        switch (ch) {
        case '"': case '\\': case '/': buf_putc(&out, ch); break;
        case 'b': buf_putc(&out, '\b'); break;
        case 'f': buf_putc(&out, '\f'); break;
        case 'n': buf_putc(&out, '\n'); break;
        case 'r': buf_putc(&out, '\r'); break;
        case 't': buf_putc(&out, '\t'); break;
        case 'u': {
            unsigned cp = 0;
            for (int i = 0; i < 4; i++) {
                int d = u->p < u->end ? base_hex_digit(*u->p) : -1;
                if (d < 0) up_error(u, esc, "bad \\u escape");
                cp = cp * 16 + (unsigned)d;
                u->p++;
            }
            if (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF)) up_error(u, esc, "unsupported \\u escape");
            if (cp < 0x80) {
                buf_putc(&out, (char)cp);
            } else if (cp < 0x800) {
                buf_putc(&out, (char)(0xC0 | (cp >> 6)));
                buf_putc(&out, (char)(0x80 | (cp & 0x3F)));
            } else {
                buf_putc(&out, (char)(0xE0 | (cp >> 12)));
                buf_putc(&out, (char)(0x80 | ((cp >> 6) & 0x3F)));
                buf_putc(&out, (char)(0x80 | (cp & 0x3F)));
            }
            break;
        }
        default: up_error(u, esc, "bad escape in a string");
        }
    }
    return buf_str(&out);
}

/* The rest of the line, without trailing spaces. */
static const char *up_rest(UnitsParser *u, const char *what) {
    up_space(u);
    const char *s = u->p, *e = s;
    while (e < u->end && *e != '\n') e++;
    u->p = e;
    while (e > s && e[-1] == ' ') e--;
    if (e == s) up_error(u, s, arena_printf(u->c->arena, "expected %s", what));
    return arena_strndup(u->c->arena, s, (size_t)(e - s));
}

static AstModule *new_unit(UnitsParser *u, AstModule ***units, int *n, int *cap, const char *name) {
    AstModule *m = arena_alloc(u->c->arena, sizeof *m);
    m->is_unit = true;
    m->unit_name = name;
    VEC_PUSH(u->c->arena, *units, *n, *cap, m);
    return m;
}

/* function NAME LINE BYTES "INDENT" "PATH", then the source. */
static AstModule *function_unit(UnitsParser *u, AstModule ***units, int *n, int *cap) {
    const char *at = u->p;
    const char *name = up_word(u, "the function's name");
    long first_line = up_int(u, "the line its source starts at", 1L << 30);
    long bytes = up_int(u, "the length of its source", 1L << 30);
    const char *indent = up_string(u, "the indentation");
    const char *path = up_string(u, "the file");
    if (bytes > u->end - u->p - 1) up_error(u, u->line_begin, "the source is shorter than the length given");
    up_newline(u);
    SrcFile *f = arena_alloc(u->c->arena, sizeof *f);
    f->path = path;
    f->len = (size_t)bytes;
    f->text = arena_strndup(u->c->arena, u->p, f->len);
    if (memchr(f->text, 0, f->len)) up_error(u, at, "the source contains a NUL byte");
    f->first_line = first_line > 0 ? (int)first_line : 1;
    f->indent = *indent ? indent : NULL;
    for (const char *q = u->p; q < u->p + bytes; q++)
        if (*q == '\n') u->line++;
    u->p += bytes;
    u->line_begin = u->p;
    if (u->p < u->end && *u->p == '\n') up_newline(u);
    AstModule *m = new_unit(u, units, n, cap, arena_printf(u->c->arena, "<unit %d>", *n));
    AstFunc *fn = parse_function(u->c, f, m);
    if (strcmp(fn->node->str, name))
        diag_error(u->c, fn->node->loc, "units text: this is the source of '%s', not of '%s'", fn->node->str, name);
    return m;
}

static void add_import(UnitsParser *u, AstModule *m, const char *name, const char *path, SrcLoc loc) {
    AstImport imp = {0};
    imp.loc = loc;
    AstImportName *in = arena_alloc(u->c->arena, sizeof *in);
    in->alias = name;
    const char *dot = strrchr(path, '.');
    if (dot) {   /* from a.b import c as name: c a submodule or a function alike */
        imp.is_from = true;
        imp.module = arena_strndup(u->c->arena, path, (size_t)(dot - path));
        in->name = dot + 1;
    } else {
        in->name = path;
    }
    imp.names = in;
    imp.n_names = 1;
    VEC_PUSH(u->c->arena, m->imports, m->n_imports, m->cap_imports, imp);
}

static AstGlobal *add_global(UnitsParser *u, AstModule *m, const char *name, SrcLoc loc) {
    AstGlobal g = {0};
    g.name = name;
    g.loc = loc;
    VEC_PUSH(u->c->arena, m->globals, m->n_globals, m->cap_globals, g);
    return &m->globals[m->n_globals - 1];
}

static bool all_values(const SigEntry *e) {
    if (e->kind == SIG_CONSTEXPR) return true;
    if (e->kind != SIG_TUPLE) return false;
    for (int i = 0; i < e->n_items; i++)
        if (!all_values(&e->items[i])) return false;
    return true;
}

static bool is_bound(const AstModule *m, const PendingBind *pend, int n_pend, const char *name) {
    for (int i = 0; i < m->n_globals; i++)
        if (!strcmp(m->globals[i].name, name)) return true;
    for (int i = 0; i < m->n_imports; i++)
        if (!strcmp(m->imports[i].names[0].alias, name)) return true;
    for (int i = 0; i < n_pend; i++)
        if (pend[i].in == m && !strcmp(pend[i].name, name)) return true;
    return false;
}

/* bind NAME KIND ... */
static void bind_line(UnitsParser *u, AstModule *m, PendingBind **pend, int *n_pend, int *cap_pend) {
    up_space(u);
    SrcLoc loc = up_loc(u, u->p);
    const char *name = up_word(u, "a name");
    if (is_bound(m, *pend, *n_pend, name))
        diag_error(u->c, loc, "units text: '%s' is bound twice", name);
    const char *at = u->p;
    const char *kind = up_word(u, "what it is bound to (value, import, function, module or opaque)");
    if (up_word_is(kind, "value")) {
        const char *text = up_rest(u, "a value");
        Signature *sig = sig_parse(u->c, text);
        if (sig->n != 1 || sig->entries[0].name || !all_values(&sig->entries[0]))
            up_error(u, at, "a value is one constexpr of a signature (an int, a float, True, None, 'str', dtype(T) "
                            "or a tuple of them)");
        add_global(u, m, name, loc)->preset = &sig->entries[0];
    } else if (up_word_is(kind, "import")) {
        add_import(u, m, name, up_word(u, "a dotted path"), loc);
    } else if (up_word_is(kind, "function") || up_word_is(kind, "module")) {
        PendingBind b = {m, name, up_word_is(kind, "module"), (int)up_int(u, "a unit's number", 1 << 20), loc};
        VEC_PUSH(u->c->arena, *pend, *n_pend, *cap_pend, b);
    } else if (up_word_is(kind, "opaque")) {
        add_global(u, m, name, loc)->opaque = up_string(u, "what it is");
    } else {
        up_error(u, at, "expected value, import, function, module or opaque");
    }
    up_newline(u);
}

bool units_is_text(const SrcFile *f) {
    size_t n = strlen(UNITS_HEADER);
    return f->len >= n && !memcmp(f->text, UNITS_HEADER, n) && (f->len == n || f->text[n] == '\n');
}

AstModule *units_parse(Ctx *c, const SrcFile *f) {
    UnitsParser u = {c, f, f->text, f->text + f->len, f->text, 1};
    u.p += strlen(UNITS_HEADER);
    up_newline(&u);
    AstModule **units = NULL;
    int n = 0, cap = 0;
    PendingBind *pend = NULL;
    int n_pend = 0, cap_pend = 0;
    while (u.p < u.end) {
        const char *at = u.p;
        const char *word = up_word(&u, "function, module or bind");
        if (up_word_is(word, "function")) {
            function_unit(&u, &units, &n, &cap);
        } else if (up_word_is(word, "module")) {
            new_unit(&u, &units, &n, &cap, up_string(&u, "the module's name"));
            up_newline(&u);
        } else if (up_word_is(word, "bind")) {
            if (!n) up_error(&u, at, "a bind line before the first unit");
            bind_line(&u, units[n - 1], &pend, &n_pend, &cap_pend);
        } else {
            up_error(&u, at, "expected function, module or bind");
        }
    }
    if (!n || !units[0]->n_funcs) diag_fatal(c, f->path, "units text: the first unit must be the kernel's function");
    for (int i = 0; i < n_pend; i++) {
        PendingBind *b = &pend[i];
        if (b->unit >= n) diag_error(c, b->loc, "units text: there is no unit %d", b->unit);
        AstModule *target = units[b->unit];
        if (b->is_module == (target->n_funcs > 0))
            diag_error(c, b->loc, "units text: unit %d is not a %s", b->unit, b->is_module ? "module" : "function");
        if (b->is_module) {
            AstImportName *in = arena_alloc(c->arena, sizeof *in);
            in->name = target->unit_name;
            in->alias = b->name;
            AstImport imp = {.loc = b->loc, .names = in, .n_names = 1};
            VEC_PUSH(c->arena, b->in->imports, b->in->n_imports, b->in->cap_imports, imp);
        } else {
            add_global(&u, b->in, b->name, b->loc)->preset_func = &target->funcs[0];
        }
    }
    for (int i = 0; i < n; i++) {
        if (units[i]->file) continue;
        SrcFile *mf = arena_alloc(c->arena, sizeof *mf);   /* a module's: named in messages only */
        mf->path = arena_printf(c->arena, "<module %s>", units[i]->unit_name);
        mf->text = "";
        units[i]->file = mf;
    }
    units[0]->units = units;
    units[0]->n_units = n;
    return units[0];
}

AstModule *parse_program(Ctx *c, const SrcFile *f) {
    return units_is_text(f) ? units_parse(c, f) : parse_module(c, f);
}
