/* --emit ast: the AST as an indented S-expression, one statement per line,
 * nested bodies indented by 2. Expressions print on one line:
 *   (name x) (int 3) (float 0.5) (str "a\n") (fstr "f'{x}'") True None ...
 *   (+ a b) (- a) (not a) (and a b c) (compare a < b <= c)
 *   (attr (name tl) load) (call f a (* args) (kw axis (int 0)) (kw ** d))
 *   (sub x (tuple (slice _ _ _) None)) (ifexp c a b) (lambda (params (x)) e)
 * Goldens are taken from this output, so it must stay deterministic. */
#include "frontend.h"

#include <inttypes.h>
#include <string.h>

static void print_expr(Buf *out, const AstNode *n);
static void print_stmts(Buf *out, const AstList *l, int indent);

static const char *const binop_names[] = {"+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^", "@"};
static const char *const unary_names[] = {"-", "+", "~", "not"};
static const char *const cmp_names[] = {"==", "!=", "<", "<=", ">", ">=", "is", "is not", "in", "not in"};

static void put_quoted(Buf *out, const char *s, size_t n) {
    buf_putc(out, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '"' || ch == '\\') buf_printf(out, "\\%c", ch);
        else if (ch == '\n') buf_puts(out, "\\n");
        else if (ch == '\t') buf_puts(out, "\\t");
        else if (ch < 0x20 || ch == 0x7F) buf_printf(out, "\\x%02x", ch);
        else buf_putc(out, (char)ch);
    }
    buf_putc(out, '"');
}

static void print_list(Buf *out, const AstList *l) {
    for (int i = 0; i < l->n; i++) {
        buf_putc(out, ' ');
        print_expr(out, l->items[i]);
    }
}

/* "_" stands for an absent optional part (slices). */
static void print_opt(Buf *out, const AstNode *n) {
    if (n) print_expr(out, n);
    else buf_putc(out, '_');
}

static void print_param(Buf *out, const AstNode *n) {
    buf_printf(out, "(%s%s", n->op == '*' ? "*" : n->op == AST_STARSTAR ? "**" : "", n->str);
    if (n->third) {
        buf_puts(out, " : ");
        print_expr(out, n->third);
    }
    if (n->rhs) {
        buf_puts(out, " = ");
        print_expr(out, n->rhs);
    }
    buf_putc(out, ')');
}

static void print_params(Buf *out, const AstList *l) {
    buf_puts(out, "(params");
    for (int i = 0; i < l->n; i++) {
        buf_putc(out, ' ');
        print_param(out, l->items[i]);
    }
    buf_putc(out, ')');
}

static void print_number(Buf *out, const AstNode *n) {
    if (n->kind == A_INT) {
        if (n->big) buf_printf(out, "(int %s)", n->str);
        else buf_printf(out, "(int %" PRId64 ")", n->ival);
    } else {
        buf_printf(out, "(%s %.17g)", n->kind == A_FLOAT ? "float" : "imag", n->fval);
    }
}

static void print_comprehension(Buf *out, const AstNode *n) {
    const char *what = n->op == '[' ? "listcomp" : n->op == '(' ? "genexp" : n->rhs ? "dictcomp" : "setcomp";
    buf_printf(out, "(%s ", what);
    print_expr(out, n->lhs);
    if (n->rhs) {
        buf_putc(out, ' ');
        print_expr(out, n->rhs);
    }
    for (int i = 0; i < n->args.n; i++) {
        const AstNode *f = n->args.items[i];
        buf_puts(out, " (for ");
        print_expr(out, f->lhs);
        buf_putc(out, ' ');
        print_expr(out, f->rhs);
        for (int j = 0; j < f->args.n; j++) {
            buf_puts(out, " (if ");
            print_expr(out, f->args.items[j]);
            buf_putc(out, ')');
        }
        buf_putc(out, ')');
    }
    buf_putc(out, ')');
}

static void print_dict(Buf *out, const AstNode *n) {
    buf_puts(out, "(dict");
    for (int i = 0; i < n->args.n; i++) {
        buf_puts(out, " (");
        if (n->args.items[i]) print_expr(out, n->args.items[i]);
        else buf_puts(out, "**");
        buf_putc(out, ' ');
        print_expr(out, n->args2.items[i]);
        buf_putc(out, ')');
    }
    buf_putc(out, ')');
}

static void print_call(Buf *out, const AstNode *n) {
    buf_puts(out, "(call ");
    print_expr(out, n->lhs);
    print_list(out, &n->args);
    for (int i = 0; i < n->args2.n; i++) {
        const AstNode *kw = n->args2.items[i];
        buf_printf(out, " (kw %s ", kw->str ? kw->str : "**");
        print_expr(out, kw->lhs);
        buf_putc(out, ')');
    }
    buf_putc(out, ')');
}

static void print_compare(Buf *out, const AstNode *n) {
    buf_puts(out, "(compare ");
    print_expr(out, n->lhs);
    for (int i = 0; i < n->args.n; i++) {
        buf_printf(out, " %s ", cmp_names[n->cmp_ops[i]]);
        print_expr(out, n->args.items[i]);
    }
    buf_putc(out, ')');
}

/* (head a b ...) for the kinds that are a word and their operands */
static void print_form(Buf *out, const char *head, const AstNode *a, const AstNode *b, const AstNode *c) {
    buf_printf(out, "(%s", head);
    const AstNode *parts[3] = {a, b, c};
    for (int i = 0; i < 3; i++) {
        if (!parts[i]) continue;
        buf_putc(out, ' ');
        print_expr(out, parts[i]);
    }
    buf_putc(out, ')');
}

static void print_expr(Buf *out, const AstNode *n) {
    switch (n->kind) {
    case A_NAME: buf_printf(out, "(name %s)", n->str); break;
    case A_INT: case A_FLOAT: case A_IMAG: print_number(out, n); break;
    case A_STR:
        buf_puts(out, n->is_fstring ? "(fstr " : "(str ");
        put_quoted(out, n->str, n->str_len);
        buf_putc(out, ')');
        break;
    case A_TRUE: buf_puts(out, "True"); break;
    case A_FALSE: buf_puts(out, "False"); break;
    case A_NONE: buf_puts(out, "None"); break;
    case A_ELLIPSIS: buf_puts(out, "..."); break;
    case A_ATTR:
        buf_puts(out, "(attr ");
        print_expr(out, n->lhs);
        buf_printf(out, " %s)", n->str);
        break;
    case A_CALL: print_call(out, n); break;
    case A_SUBSCRIPT: print_form(out, "sub", n->lhs, n->rhs, NULL); break;
    case A_SLICE:
        buf_puts(out, "(slice ");
        print_opt(out, n->lhs);
        buf_putc(out, ' ');
        print_opt(out, n->rhs);
        buf_putc(out, ' ');
        print_opt(out, n->third);
        buf_putc(out, ')');
        break;
    case A_TUPLE: case A_LIST: case A_SET:
        buf_puts(out, n->kind == A_TUPLE ? "(tuple" : n->kind == A_LIST ? "(list" : "(set");
        print_list(out, &n->args);
        buf_putc(out, ')');
        break;
    case A_DICT: print_dict(out, n); break;
    case A_COMPREHENSION: print_comprehension(out, n); break;
    case A_BINOP: print_form(out, binop_names[n->op], n->lhs, n->rhs, NULL); break;
    case A_UNARY: print_form(out, unary_names[n->op], n->lhs, NULL, NULL); break;
    case A_BOOLOP:
        buf_puts(out, n->op == BOOL_AND ? "(and" : "(or");
        print_list(out, &n->args);
        buf_putc(out, ')');
        break;
    case A_COMPARE: print_compare(out, n); break;
    case A_IFEXP: print_form(out, "ifexp", n->cond, n->lhs, n->rhs); break;
    case A_LAMBDA:
        buf_puts(out, "(lambda ");
        print_params(out, &n->args);
        buf_putc(out, ' ');
        print_expr(out, n->lhs);
        buf_putc(out, ')');
        break;
    case A_STARRED: print_form(out, "*", n->lhs, NULL, NULL); break;
    case A_NAMEDEXPR:
        buf_printf(out, "(:= %s ", n->str);
        print_expr(out, n->lhs);
        buf_putc(out, ')');
        break;
    case A_YIELD: print_form(out, "yield", n->lhs, NULL, NULL); break;
    case A_AWAIT: print_form(out, "await", n->lhs, NULL, NULL); break;
    default: buf_printf(out, "(?kind%d)", (int)n->kind); break;
    }
}

static void put_indent(Buf *out, int indent) {
    for (int i = 0; i < indent; i++) buf_putc(out, ' ');
}

/* The header line of a block statement, its body, and `else` with the
 * other body; the closing parenthesis ends the last line. */
static void print_block_stmt(Buf *out, const AstNode *n, int indent) {
    switch (n->kind) {
    case A_IF: print_form(out, "if", n->cond, NULL, NULL); break;
    case A_WHILE: print_form(out, "while", n->cond, NULL, NULL); break;
    default: print_form(out, "for", n->lhs, n->rhs, NULL); break;
    }
    out->len--;   /* reopen the form: the bodies go inside it */
    out->data[out->len] = 0;
    buf_putc(out, '\n');
    print_stmts(out, &n->body, indent + 2);
    if (n->orelse.n > 0) {
        put_indent(out, indent);
        buf_puts(out, "else\n");
        print_stmts(out, &n->orelse, indent + 2);
    }
    out->len--;   /* the newline after the last statement */
    buf_puts(out, ")\n");
}

static void print_funcdef(Buf *out, const AstNode *n, int indent) {
    buf_printf(out, "(def %s ", n->str);
    print_params(out, &n->args);
    if (n->third) {
        buf_puts(out, " (-> ");
        print_expr(out, n->third);
        buf_putc(out, ')');
    }
    buf_putc(out, '\n');
    print_stmts(out, &n->body, indent + 2);
    out->len--;
    buf_puts(out, ")\n");
}

static void print_stmt(Buf *out, const AstNode *n, int indent) {
    static const char *const aug_names[] = {"+=", "-=", "*=", "/=", "//=", "%=", "**=",
                                            "<<=", ">>=", "&=", "|=", "^=", "@="};
    put_indent(out, indent);
    switch (n->kind) {
    case A_IF: case A_FOR: case A_WHILE: print_block_stmt(out, n, indent); return;
    case A_FUNCDEF: print_funcdef(out, n, indent); return;
    case A_EXPR_STMT: print_form(out, "expr", n->lhs, NULL, NULL); break;
    case A_ASSIGN:
        buf_puts(out, "(=");
        print_list(out, &n->args);
        buf_putc(out, ' ');
        print_expr(out, n->rhs);
        buf_putc(out, ')');
        break;
    case A_ANNASSIGN: print_form(out, "annassign", n->lhs, n->third, n->rhs); break;
    case A_AUGASSIGN: print_form(out, aug_names[n->op], n->lhs, n->rhs, NULL); break;
    case A_RETURN: print_form(out, "return", n->lhs, NULL, NULL); break;
    case A_PASS: buf_puts(out, "(pass)"); break;
    case A_BREAK: buf_puts(out, "(break)"); break;
    case A_CONTINUE: buf_puts(out, "(continue)"); break;
    case A_ASSERT: print_form(out, "assert", n->cond, n->lhs, NULL); break;
    case A_RAISE: print_form(out, "raise", n->lhs, n->rhs, NULL); break;
    case A_DEL: case A_GLOBAL: case A_NONLOCAL:
        buf_puts(out, n->kind == A_DEL ? "(del" : n->kind == A_GLOBAL ? "(global" : "(nonlocal");
        print_list(out, &n->args);
        buf_putc(out, ')');
        break;
    case A_UNSUPPORTED: buf_printf(out, "(unsupported %s)", n->str); break;
    default: print_expr(out, n); break;
    }
    buf_putc(out, '\n');
}

static void print_stmts(Buf *out, const AstList *l, int indent) {
    for (int i = 0; i < l->n; i++) print_stmt(out, l->items[i], indent);
}

void ast_print_func(Buf *out, const AstFunc *f) {
    for (int i = 0; i < f->n_decorators; i++) {
        const AstDecorator *d = &f->decorators[i];
        buf_putc(out, '@');
        for (int j = 0; j < d->n_path; j++) buf_printf(out, "%s%s", j ? "." : "", d->path[j]);
        if (d->n_path == 0) buf_puts(out, "<expression>");
        buf_puts(out, d->called ? "(...)\n" : "\n");
    }
    if (f->parsed) print_funcdef(out, f->node, 0);
    else buf_printf(out, "(def %s not-parsed)\n", f->node->str);
}

/* Value tokens as source text: one space wherever the source had space. */
static void print_token_text(Buf *out, const AstModule *m, int begin, int end) {
    for (int i = begin; i < end; i++) {
        const Token *t = &m->toks[i];
        if (i > begin && t->text != m->toks[i - 1].text + m->toks[i - 1].len) buf_putc(out, ' ');
        buf_putn(out, t->text, (size_t)t->len);
    }
}

static void print_import(Buf *out, const AstImport *imp) {
    if (imp->is_from) buf_printf(out, "(from %.*s%s import", imp->level, "................................",
                                 imp->module);
    else buf_puts(out, "(import");
    for (int i = 0; i < imp->n_names; i++) {
        if (imp->names[i].alias) buf_printf(out, " (%s as %s)", imp->names[i].name, imp->names[i].alias);
        else buf_printf(out, " %s", imp->names[i].name);
    }
    buf_puts(out, ")\n");
}

void ast_print_module(Buf *out, const AstModule *m) {
    for (int i = 0; i < m->n_imports; i++) print_import(out, &m->imports[i]);
    for (int i = 0; i < m->n_globals; i++) {
        const AstGlobal *g = &m->globals[i];
        buf_printf(out, "(global %s%s ", g->name, g->annotated_constexpr ? " constexpr" : "");
        Buf text = {0};
        print_token_text(&text, m, g->tok_begin, g->tok_end);
        put_quoted(out, text.data ? text.data : "", text.len);
        buf_free(&text);
        buf_puts(out, ")\n");
    }
    for (int i = 0; i < m->n_funcs; i++)
        if (m->funcs[i].parsed) ast_print_func(out, &m->funcs[i]);
}
