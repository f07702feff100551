/* The front end: Python source -> tokens -> AST -> tile IR.
 *
 *   lex.c        lex_*        tokenizer (INDENT/DEDENT, strings, continuations)
 *   parse.c      parse_*      recursive-descent parser (one function per rule)
 *   astprint.c   ast_print    the --emit ast form
 *   signature.c  sig_parse    Triton-style signature strings
 *   lower.c      lower_*      @jit function + signature -> IR (scopes, types,
 *                             constexpr evaluation, inlining of @jit calls)
 *   builtins.c   the table of tl.* builtins used by lower.c
 */
#ifndef TRIC_FRONTEND_H
#define TRIC_FRONTEND_H

#include "../ir/ir.h"
#include "ast.h"

/* ---- lex.c ---- */
typedef enum TokKind {
    T_EOF, T_NEWLINE, T_INDENT, T_DEDENT,
    T_NAME,      /* identifiers and keywords (compare the text) */
    T_INT, T_FLOAT, T_IMAG,
    T_STRING,    /* one string literal, prefixes included in the text; adjacent
                    literals are separate tokens (the parser joins them) */
    T_OP         /* operators and delimiters: text is the spelling */
} TokKind;

typedef struct Token {
    TokKind kind;
    SrcLoc loc;
    const char *text;    /* points into the source */
    int len;
} Token;

/* Whole file to tokens (ending in T_EOF). Errors (bad indentation,
 * unterminated string, unclosed bracket, stray character) go to diag_error. */
Token *lex_file(Ctx *c, const SrcFile *f, int *n_toks);
void lex_print(Buf *out, const Token *toks, int n);     /* --emit tokens */

/* ---- parse.c ---- */
AstModule *parse_module(Ctx *c, const SrcFile *f);
/* The source of one function (decorators, then its def, nothing else), as
 * Python's inspect gives it, parsed as a @jit function into m (units.c). */
struct AstFunc *parse_function(Ctx *c, const SrcFile *f, AstModule *m);
/* Parse a module-level assignment's value on first use (see AstGlobal). */
AstNode *parse_global(Ctx *c, AstModule *m, AstGlobal *g);
AstFunc *module_find_func(AstModule *m, const char *name);   /* last def wins */

/* ---- units.c ---- a kernel as the running Python program holds it */
bool units_is_text(const SrcFile *f);
AstModule *units_parse(Ctx *c, const SrcFile *f);    /* the kernel's unit */
/* A units text or a Python file: the module the kernel is looked up in. */
AstModule *parse_program(Ctx *c, const SrcFile *f);

/* ---- astprint.c ---- */
void ast_print_func(Buf *out, const AstFunc *f);       /* --emit ast (one function) */
void ast_print_module(Buf *out, const AstModule *m);   /* imports, globals, every jit function */

/* ---- signature.c ----
 * "*fp32:16, *fp16, i32, i32:16, i32:1, fp32, 1024, BLOCK=1024" (Triton's AOT
 * form). One entry per kernel parameter in order; a named entry NAME=VALUE
 * may appear anywhere and binds that parameter. */
typedef enum SigKind {
    SIG_POINTER,     /* *T, with optional :16 */
    SIG_SCALAR,      /* iN/uN/fpN/bf16, with optional :16 or :1 */
    SIG_CONSTEXPR,   /* a plain value: integer, float, True/False/None, a string, dtype(T) */
    SIG_TENSORDESC,  /* tensordesc<T[B0, B1, ...]> (Triton's host TensorDescriptor), with ",nan" before
                        the '>' for padding="nan"; block_shape in block[], rank in n_block */
    SIG_TUPLE        /* (entry, entry, ...): a tuple argument, each item an entry of its own (no names) */
} SigKind;

typedef struct SigEntry {
    SigKind kind;
    ElemType type;           /* element / pointee type */
    int32_t divisibility;    /* 16 with ":16", else 1 */
    bool equals_one;         /* ":1": the value is the constant 1 */
    bool is_const_ptr;       /* "*k" */
    /* SIG_CONSTEXPR */
    enum { CV_INT, CV_FLOAT, CV_BOOL, CV_NONE, CV_STR, CV_DTYPE } cv_kind;   /* CV_DTYPE: dtype(T), T in type */
    int64_t ival;
    double fval;
    const char *sval;
    const char *name;        /* NAME=... form, else NULL */
    SrcLoc loc;              /* position inside the signature string */
    int32_t block[5];        /* SIG_TENSORDESC */
    int n_block;
    bool pad_nan;
    struct SigEntry *items;  /* SIG_TUPLE */
    int n_items;
} SigEntry;

typedef struct Signature {
    const SrcFile *src;      /* the signature text as a pseudo-file "<signature>" */
    SigEntry *entries;
    int n;
} Signature;

Signature *sig_parse(Ctx *c, const char *text);
/* An entry as a signature writes it ("1024", "*fp32:16", "dtype(fp16)",
 * "(i32, 64)"), in the arena. */
const char *sig_entry_text(Arena *a, const SigEntry *e);

/* ---- lower.c ----
 * Lowers kernel `name` of module m, specialized by sig, to a fresh IrFunc.
 * Kernel parameters become IR params (in order) except constexprs and ":1"
 * scalars. Calls to other @jit functions are inlined. */
IrFunc *lower_kernel(Ctx *c, AstModule *m, const char *name, const Signature *sig);

#endif
