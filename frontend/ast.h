/* The AST of a kernel file: what parse.c builds and lower.c reads.
 *
 * Only @jit functions are parsed in full. Everything else at module level
 * (host code: torch calls, classes, `if __name__ == "__main__":`) is skipped
 * by token structure, except imports (recorded) and simple assignments
 * `NAME = expr` / `NAME: ann = expr`, whose right-hand side is kept as a token
 * range and parsed only if a kernel reads the global (parse_global).
 */
#ifndef TRIC_AST_H
#define TRIC_AST_H

#include "../base/base.h"

typedef enum AstKind {
    /* expressions */
    A_NAME,        /* str */
    A_INT,         /* ival; big = true if it does not fit in int64 (str holds the digits) */
    A_FLOAT,       /* fval */
    A_IMAG,        /* complex literal (only ever an error in a kernel) */
    A_STR,         /* str/str_len: the decoded value; f-strings: is_fstring, raw text in str */
    A_TRUE, A_FALSE, A_NONE, A_ELLIPSIS,
    A_ATTR,        /* lhs.str */
    A_CALL,        /* lhs(args..., kwargs...): args = positional (A_STARRED allowed),
                      kwargs = A_KEYWORD nodes (str = name, or NULL for **x; lhs = value) */
    A_KEYWORD,
    A_SUBSCRIPT,   /* lhs[rhs]; a tuple index x[:, None] is an A_TUPLE in rhs */
    A_SLICE,       /* lhs:rhs:third (each may be NULL) */
    A_TUPLE,       /* args = elements */
    A_LIST,        /* args = elements */
    A_DICT,        /* args = keys, args2 = values */
    A_SET,         /* args = elements */
    A_COMPREHENSION, /* op = '[', '{', '(' ; lhs = element (rhs = value for dicts);
                        args = A_COMP_FOR clauses */
    A_COMP_FOR,    /* for lhs (target) in rhs, args = if-conditions */
    A_BINOP,       /* lhs op rhs, op: AstBinOp */
    A_UNARY,       /* op lhs, op: AstUnaryOp */
    A_BOOLOP,      /* args joined by op (AstBoolOp) */
    A_COMPARE,     /* lhs ops[0] args[0] ops[1] args[1] ...; cmp_ops: AstCmpOp, n = n_args */
    A_IFEXP,       /* lhs if cond else rhs */
    A_LAMBDA,      /* params = A_PARAM, lhs = body */
    A_STARRED,     /* *lhs */
    A_NAMEDEXPR,   /* str := lhs */
    A_YIELD, A_AWAIT,  /* only ever errors in a kernel */

    /* statements */
    A_EXPR_STMT,   /* lhs */
    A_ASSIGN,      /* args = targets (a = b = c has two), rhs = value */
    A_ANNASSIGN,   /* lhs = target, third = annotation, rhs = value (may be NULL) */
    A_AUGASSIGN,   /* lhs op= rhs, op: AstBinOp */
    A_IF,          /* if cond: body else: orelse (elif = an A_IF alone in orelse) */
    A_FOR,         /* for lhs in rhs: body else: orelse */
    A_WHILE,       /* while cond: body else: orelse */
    A_RETURN,      /* return lhs (may be NULL; a tuple is an A_TUPLE) */
    A_PASS, A_BREAK, A_CONTINUE,
    A_ASSERT,      /* assert cond, lhs(message, may be NULL) */
    A_DEL,         /* args */
    A_GLOBAL, A_NONLOCAL,   /* names in args (A_NAME) */
    A_RAISE,       /* lhs (may be NULL) */
    A_FUNCDEF,     /* see AstFunc */
    A_PARAM,       /* str = name, third = annotation, rhs = default (both may be NULL);
                      op = 0 plain, '*' for *args, '**' (as AST_STARSTAR) for **kw */
    A_IMPORT,      /* see AstImport */
    A_UNSUPPORTED  /* a compound statement a kernel may not contain (class, try,
                      with, async, match, ...): str = its keyword; skipped body */
} AstKind;

typedef enum AstBinOp {
    BIN_ADD, BIN_SUB, BIN_MUL, BIN_DIV, BIN_FLOORDIV, BIN_MOD, BIN_POW,
    BIN_LSHIFT, BIN_RSHIFT, BIN_BITAND, BIN_BITOR, BIN_BITXOR, BIN_MATMUL
} AstBinOp;
typedef enum AstUnaryOp { UN_NEG, UN_POS, UN_INVERT, UN_NOT } AstUnaryOp;
typedef enum AstBoolOp { BOOL_AND, BOOL_OR } AstBoolOp;
typedef enum AstCmpOp { ACMP_EQ, ACMP_NE, ACMP_LT, ACMP_LE, ACMP_GT, ACMP_GE,
                        ACMP_IS, ACMP_IS_NOT, ACMP_IN, ACMP_NOT_IN } AstCmpOp;
enum { AST_STARSTAR = 2 };   /* A_PARAM op for **kwargs; '*' (42) for *args */

typedef struct AstNode AstNode;

typedef struct AstList {
    AstNode **items;
    int n, cap;
} AstList;

struct AstNode {
    AstKind kind;
    SrcLoc loc;            /* the first token of the construct (operator for binops) */
    int op;                /* AstBinOp / AstUnaryOp / AstBoolOp / comprehension bracket */
    const char *str;       /* names, attribute names, decoded string values */
    size_t str_len;
    bool is_fstring;
    bool big;              /* A_INT that overflowed int64 */
    int64_t ival;
    double fval;
    AstNode *lhs, *rhs, *third, *cond;
    AstList args, args2;
    AstList body, orelse;
    AstCmpOp *cmp_ops;     /* A_COMPARE: one per element of args */
};

/* A decorator as written: `@a.b.c` or `@a.b.c(...)`. The arguments are not
 * parsed (they may hold any host Python); only the dotted name is kept. */
typedef struct AstDecorator {
    SrcLoc loc;
    const char **path;     /* {"triton", "jit"} */
    int n_path;
    bool called;           /* @triton.jit(...) */
    const char *args_text; /* the raw text between the parentheses, or NULL */
} AstDecorator;

typedef struct AstFunc {
    AstNode *node;         /* A_FUNCDEF: str = name, args = A_PARAM nodes, body, third = return annotation */
    AstDecorator *decorators;
    int n_decorators;
    bool parsed;           /* body parsed (decorated with something named "jit") */
    struct AstModule *module;  /* the module that defines it */
} AstFunc;

/* `import a.b.c as x` / `from .a.b import c as x, d` (level = number of dots) */
typedef struct AstImportName {
    const char *name;      /* dotted, e.g. "triton.language" */
    const char *alias;     /* NULL if none */
} AstImportName;

typedef struct AstImport {
    SrcLoc loc;
    bool is_from;
    int level;             /* relative import dots */
    const char *module;    /* from-import: the module ("" for "from . import x") */
    AstImportName *names;  /* "*" for a star import */
    int n_names;
} AstImport;

/* A module-level `NAME = expr` or `NAME: ann = expr`; or, in a unit of a
 * units text (units.c), what the running program binds NAME to: a value,
 * a @jit function, or something a kernel cannot use. */
typedef struct AstGlobal {
    const char *name;
    SrcLoc loc;
    int tok_begin, tok_end;    /* value tokens [begin, end) in AstModule.toks */
    AstNode *value;            /* set by parse_global; NULL until then */
    bool annotated_constexpr;  /* NAME: tl.constexpr = ... (annotation text ends in "constexpr") */
    const struct SigEntry *preset;   /* units: the value, in the signature's spelling */
    struct AstFunc *preset_func;     /* units: a @jit function */
    const char *opaque;              /* units: what it is ("a Python function"), for the error */
} AstGlobal;

struct Token;

typedef struct AstModule {
    const SrcFile *file;
    struct Token *toks;
    int n_toks;
    AstFunc *funcs;         /* every top-level def, in file order */
    int n_funcs, cap_funcs;
    AstImport *imports;
    int n_imports, cap_imports;
    AstGlobal *globals;     /* later assignments to the same name come later */
    int n_globals, cap_globals;
    /* A units text (units.c) gives one module per unit: a function's, whose
     * names are its bindings only (not its own def), or a module of the
     * user's. The kernel's unit lists them all, itself first. */
    bool is_unit;
    const char *unit_name;  /* the module's dotted name; "<unit N>" for a function's */
    struct AstModule **units;
    int n_units;
} AstModule;

#endif
