/* Lowering of a @jit function, specialized by a signature, to tile IR:
 * values and scopes, name resolution (locals, module globals, @jit
 * functions, imports, Python builtins), statements and structured control
 * flow, inlining of @jit calls, and the kernel entry point.
 *
 * Expressions are in lower_expr.c, the tl.* builtins in builtins.c. */
#include "lower.h"
#include "../opt/opt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- compile-time values ---- */

LVal lval_none(void) {
    LVal v = {0};
    v.kind = LV_NONE;
    return v;
}

LVal lval_int(int64_t i) {
    LVal v = {0};
    v.kind = LV_INT;
    v.i = i;
    return v;
}

LVal lval_bool(bool b) {
    LVal v = {0};
    v.kind = LV_BOOL;
    v.i = b;
    return v;
}

LVal lval_float(double f) {
    LVal v = {0};
    v.kind = LV_FLOAT;
    v.f = f;
    return v;
}

LVal lval_str(const char *s, size_t n) {
    LVal v = {0};
    v.kind = LV_STR;
    v.s = s;
    v.n = n;
    return v;
}

LVal lval_dtype(IrType t) {
    LVal v = {0};
    v.kind = LV_DTYPE;
    v.dtype = t;
    return v;
}

LVal lval_tensor(Lower *L, ValId id) {
    (void)L;
    LVal v = {0};
    v.kind = LV_TENSOR;
    v.id = id;
    return v;
}

bool lval_is_const(const LVal *v) { return v->kind != LV_TENSOR; }

bool lval_is_number(const LVal *v) {
    return v->kind == LV_BOOL || v->kind == LV_INT || v->kind == LV_FLOAT;
}

const char *lval_kind_name(const LVal *v) {
    switch (v->kind) {
    case LV_NONE: return "None";
    case LV_BOOL: return "bool";
    case LV_INT: return "int";
    case LV_FLOAT: return "float";
    case LV_STR: return "str";
    case LV_DTYPE: return "dtype";
    case LV_TUPLE: return "tuple";
    case LV_SLICE: return "slice";
    case LV_MODULE: return "module";
    case LV_FUNC: return "function";
    case LV_BUILTIN: return "builtin function";
    case LV_TENSOR: return "tensor";
    case LV_BLOCK_PTR: return "block pointer";
    case LV_TENSOR_DESC: return "tensor descriptor";
    }
    return "?";
}

IrType lower_type(Lower *L, const LVal *v) {
    TRIC_ASSERT(v->kind == LV_TENSOR);
    return ir_type(L->fn, v->id);
}

/* Triton's dtype names (str(tl.float32) == "fp32"), used in every message
 * that names a type so that they read like Triton's. */
static const char *const dtype_names[ET_COUNT] = {
    [ET_I1] = "int1",      [ET_I8] = "int8",     [ET_I16] = "int16",   [ET_I32] = "int32",
    [ET_I64] = "int64",    [ET_U8] = "uint8",    [ET_U16] = "uint16",  [ET_U32] = "uint32",
    [ET_U64] = "uint64",   [ET_F8E4M3] = "fp8e4nv", [ET_F8E5M2] = "fp8e5", [ET_F16] = "fp16",
    [ET_BF16] = "bf16",    [ET_F32] = "fp32",    [ET_F64] = "fp64",    [ET_PTR] = "pointer",
};
static const char *const ptr_dtype_names[ET_COUNT] = {
    [ET_I1] = "pointer<int1>",     [ET_I8] = "pointer<int8>",     [ET_I16] = "pointer<int16>",
    [ET_I32] = "pointer<int32>",   [ET_I64] = "pointer<int64>",   [ET_U8] = "pointer<uint8>",
    [ET_U16] = "pointer<uint16>",  [ET_U32] = "pointer<uint32>",  [ET_U64] = "pointer<uint64>",
    [ET_F8E4M3] = "pointer<fp8e4nv>", [ET_F8E5M2] = "pointer<fp8e5>", [ET_F16] = "pointer<fp16>",
    [ET_BF16] = "pointer<bf16>",   [ET_F32] = "pointer<fp32>",    [ET_F64] = "pointer<fp64>",
    [ET_PTR] = "pointer<pointer>",
};

const char *dtype_name(IrType t) {
    return t.elem == ET_PTR ? ptr_dtype_names[t.pointee] : dtype_names[t.elem];
}

const char *shape_str(Lower *L, IrType t) {
    Buf b = {.arena = L->ctx->arena};
    buf_putc(&b, '[');
    for (int i = 0; i < t.rank; i++) buf_printf(&b, i ? ", %d" : "%d", t.shape[i]);
    buf_putc(&b, ']');
    return b.data;
}

const char *type_str(Lower *L, IrType t) {
    if (t.rank == 0) return dtype_name(t);
    return arena_printf(L->ctx->arena, "<%s, %s>", shape_str(L, t), dtype_name(ir_elem_of(t)));
}

void lval_repr(Lower *L, Buf *out, const LVal *v) {
    switch (v->kind) {
    case LV_NONE: buf_puts(out, "None"); break;
    case LV_BOOL: buf_puts(out, v->i ? "True" : "False"); break;
    case LV_INT: buf_printf(out, "%lld", (long long)v->i); break;
    case LV_FLOAT: {
        /* Python's repr: shortest text that round-trips, always with a '.' */
        char tmp[64];
        for (int prec = 1; prec <= 17; prec++) {
            snprintf(tmp, sizeof tmp, "%.*g", prec, v->f);
            if (strtod(tmp, NULL) == v->f) break;
        }
        buf_puts(out, tmp);
        if (!strpbrk(tmp, ".enai")) buf_puts(out, ".0");
        break;
    }
    case LV_STR: buf_putn(out, v->s, v->n); break;
    case LV_DTYPE: buf_puts(out, dtype_name(v->dtype)); break;
    case LV_TUPLE:
        buf_putc(out, '(');
        for (size_t i = 0; i < v->n; i++) {
            if (i) buf_puts(out, ", ");
            lval_repr(L, out, &v->items[i]);
        }
        buf_puts(out, v->n == 1 ? ",)" : ")");
        break;
    case LV_SLICE: buf_puts(out, "slice(None, None, None)"); break;
    case LV_MODULE: buf_printf(out, "<module '%s'>", v->s); break;
    case LV_FUNC: buf_printf(out, "<JITFunction %s>", v->func->node->str); break;
    case LV_BUILTIN: buf_printf(out, "<builtin %s>", v->builtin->name); break;
    case LV_TENSOR: buf_printf(out, "tensor %s", type_str(L, lower_type(L, v))); break;
    case LV_BLOCK_PTR: buf_printf(out, "pointer<block %s>", type_str(L, v->dtype)); break;
    case LV_TENSOR_DESC: buf_printf(out, "tensor_descriptor<%s>", type_str(L, v->dtype)); break;
    }
}

bool lower_truth(Lower *L, SrcLoc loc, const LVal *v) {
    switch (v->kind) {
    case LV_NONE: return false;
    case LV_BOOL:
    case LV_INT: return v->i != 0;
    case LV_FLOAT: return v->f != 0;
    case LV_STR:
    case LV_TUPLE: return v->n != 0;
    case LV_TENSOR: diag_error(L->ctx, loc, "the truth value of a tensor is only known at run time here");
    default: return true;
    }
}

/* Two values are "the same" when an assignment in between did not change
 * what a name denotes (used to find what if/for/while bodies re-assign). */
static bool lval_same(const LVal *a, const LVal *b) {
    if (a->kind != b->kind) return false;
    switch (a->kind) {
    case LV_NONE:
    case LV_SLICE: return true;
    case LV_BOOL:
    case LV_INT: return a->i == b->i;
    case LV_FLOAT: return a->f == b->f || (a->f != a->f && b->f != b->f);
    case LV_STR: return a->n == b->n && !memcmp(a->s, b->s, a->n);
    case LV_DTYPE: return ir_type_eq(a->dtype, b->dtype);
    case LV_BLOCK_PTR:
    case LV_TENSOR_DESC:
    case LV_TUPLE:
        if (a->n != b->n || (a->kind != LV_TUPLE && (!ir_type_eq(a->dtype, b->dtype) || a->i != b->i))) return false;
        for (size_t i = 0; i < a->n; i++)
            if (!lval_same(&a->items[i], &b->items[i])) return false;
        return true;
    case LV_MODULE: return !strcmp(a->s, b->s);
    case LV_FUNC: return a->func == b->func;
    case LV_BUILTIN: return a->builtin == b->builtin && a->self == b->self;
    case LV_TENSOR: return a->id == b->id;
    }
    return false;
}

/* ---- scopes ---- */

/* Scopes this small are searched in a loop, without an index. */
#define SCOPE_SCAN_MAX 16

/* The last binding of name, as a search from the end finds it. Entries
 * are checked against b, so one that a struct copy sharing the table
 * added, or one past n, is skipped. */
static Binding *scope_find(Lower *L, Scope *s, const char *name) {
    if (s->n <= SCOPE_SCAN_MAX) {
        for (int i = s->n - 1; i >= 0; i--)
            if (!strcmp(s->b[i].name, name)) return &s->b[i];
        return NULL;
    }
    if (s->index_of != s->b || s->n_indexed > s->n) {
        s->index_of = s->b;
        s->n_indexed = 0;
        s->index = hidx_new(L->ctx->arena, (uint32_t)s->n);
    }
    if (hidx_reserve(&s->index, L->ctx->arena, (uint32_t)(s->n - s->n_indexed), (uint32_t)s->n)) s->n_indexed = 0;
    for (; s->n_indexed < s->n; s->n_indexed++)
        hidx_put(s->index, hash_str(s->b[s->n_indexed].name), (uint32_t)s->n_indexed);
    int best = -1;
    uint32_t h = hash_str(name);
    for (uint32_t it = 0, k; (k = hidx_next(s->index, h, &it));) {
        int i = (int)k - 1;
        if (i < s->n && i > best && !strcmp(s->b[i].name, name)) best = i;
    }
    return best >= 0 ? &s->b[best] : NULL;
}

static void scope_set(Lower *L, const char *name, LVal v) {
    Binding *b = scope_find(L, L->scope, name);
    if (b) {
        b->val = v;
        return;
    }
    Binding nb = {name, v};
    VEC_PUSH(L->ctx->arena, L->scope->b, L->scope->n, L->scope->cap, nb);
}

static void scope_remove(Scope *s, const char *name) {
    for (int i = 0; i < s->n; i++)
        if (!strcmp(s->b[i].name, name)) {
            memmove(&s->b[i], &s->b[i + 1], sizeof(Binding) * (size_t)(s->n - i - 1));
            s->n--;
            s->index_of = NULL;   /* the bindings moved: index them again */
            return;
        }
}

/* Control flow that leaves a block early (return, break, continue) is kept
 * as flags in the scope, under names no Python identifier can take, so
 * that if-merging and loop-carrying treat them like any variable: a flag
 * is False, True (known at compile time: the rest of the block is skipped)
 * or an i1 tensor (the rest of the block is lowered under `if not flag`).
 * FLAG_RETVAL holds a helper's return value once some path returned one. */
#define FLAG_RET "$ret"
#define FLAG_RETVAL "$retval"
#define FLAG_BRK "$brk"
#define FLAG_CONT "$cont"

static bool is_hidden(const char *name) { return name[0] == '$'; }

/* How a variable is named in messages. */
static const char *var_desc(Lower *L, const char *name) {
    if (!strcmp(name, FLAG_RETVAL)) return "the return value";
    if (is_hidden(name)) return "a control-flow flag";
    return arena_printf(L->ctx->arena, "'%s'", name);
}

static Scope scope_copy(Lower *L, const Scope *s) {
    Scope c = {0};
    for (int i = 0; i < s->n; i++) VEC_PUSH(L->ctx->arena, c.b, c.n, c.cap, s->b[i]);
    return c;
}

/* ---- name resolution ---- */

static bool resolve_module_name(Lower *L, SrcLoc use, const char *name, LVal *out);

static _Noreturn void global_not_constexpr(Lower *L, SrcLoc use, const char *name) {
    diag_error(L->ctx, use,
               "Cannot access global variable %s from within @jit'ed function. Triton kernels can only "
               "access global variables that are instantiated as constexpr (`x = triton.language.constexpr(42)`)",
               name);
}

/* A module-level value, evaluated without emitting IR: literals, arithmetic
 * on them, tl.constexpr(...), names of other such globals, modules, dtypes
 * and @jit functions. Anything else is not readable from a kernel. */
static bool eval_global_expr(Lower *L, SrcLoc use, AstNode *e, LVal *out) {
    switch (e->kind) {
    case A_INT:
    case A_FLOAT:
    case A_STR:
    case A_TRUE:
    case A_FALSE:
    case A_NONE:
        if (e->kind == A_STR && e->is_fstring) return false;
        *out = lower_expr(L, e);
        return true;
    case A_NAME: return resolve_module_name(L, use, e->str, out);
    case A_ATTR: {
        LVal obj;
        if (!eval_global_expr(L, use, e->lhs, &obj) || obj.kind == LV_TENSOR) return false;
        if (obj.kind == LV_MODULE && obj.umod) {
            *out = lower_module_attr(L, e->loc, obj.umod, e->str);
            return true;
        }
        if (obj.kind == LV_MODULE) return builtin_module_attr(L, obj.s, e->str, out);
        *out = lower_attr(L, e->loc, obj, e->str);
        return lval_is_const(out);
    }
    case A_UNARY: {
        LVal v;
        if (!eval_global_expr(L, use, e->lhs, &v) || !lval_is_number(&v)) return false;
        *out = lower_unary(L, e->loc, e->op, v);
        return true;
    }
    case A_BINOP: {
        LVal a, b;
        if (!eval_global_expr(L, use, e->lhs, &a) || !eval_global_expr(L, use, e->rhs, &b)) return false;
        if (!lval_is_const(&a) || !lval_is_const(&b)) return false;
        *out = lower_binop(L, e->loc, e->op, a, b);
        return lval_is_const(out);
    }
    case A_TUPLE:
    case A_LIST: {
        LVal t = {0};
        t.kind = LV_TUPLE;
        t.n = (size_t)e->args.n;
        t.items = arena_alloc(L->ctx->arena, sizeof(LVal) * (t.n + 1));
        for (int i = 0; i < e->args.n; i++)
            if (!eval_global_expr(L, use, e->args.items[i], &t.items[i])) return false;
        *out = t;
        return true;
    }
    case A_CALL: {
        LVal callee;
        if (e->args.n != 1 || e->args2.n || !eval_global_expr(L, use, e->lhs, &callee)) return false;
        if (!builtin_is(&callee, "constexpr")) return false;
        return eval_global_expr(L, use, e->args.items[0], out);
    }
    default: return false;
    }
}

static LVal sig_value(Lower *L, const SigEntry *e);

/* A value a units text binds (a constexpr of a signature, or a tuple of them). */
static LVal preset_value(Lower *L, const SigEntry *e) {
    if (e->kind != SIG_TUPLE) return sig_value(L, e);
    LVal t = {0};
    t.kind = LV_TUPLE;
    t.n = (size_t)e->n_items;
    t.items = arena_alloc(L->ctx->arena, sizeof(LVal) * (t.n + 1));
    for (int i = 0; i < e->n_items; i++) t.items[i] = preset_value(L, &e->items[i]);
    return t;
}

static bool resolve_global(Lower *L, SrcLoc use, const char *name, LVal *out) {
    AstModule *m = L->mod;
    for (int i = m->n_globals - 1; i >= 0; i--) {
        AstGlobal *g = &m->globals[i];
        if (strcmp(g->name, name)) continue;
        if (g->opaque)
            diag_error(L->ctx, use,
                       "Cannot access global variable %s from within @jit'ed function: it is %s. Triton kernels "
                       "can only access constexpr values, @jit functions and triton's modules",
                       name, g->opaque);
        if (g->preset_func) {
            *out = (LVal){0};
            out->kind = LV_FUNC;
            out->func = g->preset_func;
            return true;
        }
        if (g->preset) {
            *out = preset_value(L, g->preset);
            return true;
        }
        if (L->global_state[i] == 2) {
            *out = L->globals[i];
            return true;
        }
        if (L->global_state[i] == 1)
            diag_error(L->ctx, g->loc, "global variable %s is defined in terms of itself", name);
        L->global_state[i] = 1;
        AstNode *value = g->value ? g->value : parse_global(L->ctx, m, g);
        LVal v;
        if (!value || !eval_global_expr(L, use, value, &v) || v.kind == LV_TENSOR)
            global_not_constexpr(L, use, name);
        L->globals[i] = v;
        L->global_state[i] = 2;
        *out = v;
        return true;
    }
    return false;
}

/* A path that names triton (or tric) or one of its modules: those are
 * built in; every other import names a module of the user's. */
static bool is_triton_path(const char *canon) {
    return builtin_is_module(canon) || (!strncmp(canon, "triton", 6) && (canon[6] == '.' || !canon[6]));
}

/* A module that is nowhere stays a name (reading a global made from it is
 * then "not constexpr"); using an attribute of it reports it missing. */
static LVal user_module(Lower *L, SrcLoc use, const char *dotted) {
    (void)use;
    LModule *lm = module_find(L, dotted);
    LVal v = {0};
    v.kind = LV_MODULE;
    v.s = lm ? lm->name : dotted;
    v.umod = lm;
    return v;
}

/* NAME among a user module's own names (globals, @jit functions, imports),
 * looked up in that module's scope. */
static bool module_name(Lower *L, SrcLoc use, LModule *lm, const char *name, LVal *out) {
    if (!lm->mod) return false;
    LModule *prev = module_enter(L, lm);
    bool found = resolve_module_name(L, use, name, out);
    module_enter(L, prev);
    return found;
}

/* NAME of a user module: its own names, then its submodules (pkg.helpers). */
LVal lower_module_attr(Lower *L, SrcLoc use, LModule *lm, const char *name) {
    LVal v;
    if (module_name(L, use, lm, name, &v)) return v;
    const char *sub = arena_printf(L->ctx->arena, "%s.%s", lm->name, name);
    LModule *sm = module_find(L, sub);
    if (!sm) diag_error(L->ctx, use, "module '%s' has no attribute '%s'", lm->name, name);
    return user_module(L, use, sub);
}

/* hasattr on a user module: a name of its, or a submodule. */
bool lower_module_has(Lower *L, SrcLoc use, LModule *lm, const char *name) {
    LVal v;
    if (module_name(L, use, lm, name, &v)) return true;
    return module_find(L, arena_printf(L->ctx->arena, "%s.%s", lm->name, name)) != NULL;
}

/* `from MOD import name` where MOD is a user module. */
static LVal import_from_user(Lower *L, SrcLoc use, const AstImport *imp, const char *name) {
    const char *abs = imp->level ? module_relative(L, use, L->cur, imp->level, imp->module) : imp->module;
    if (!*abs) return user_module(L, use, name);   /* from . import x, in the kernel's directory */
    LModule *lm = module_find(L, abs);
    if (!lm) module_not_found(L, use, abs);
    LVal v;
    if (module_name(L, use, lm, name, &v)) return v;
    if (module_find(L, arena_printf(L->ctx->arena, "%s.%s", abs, name)))
        return user_module(L, use, arena_printf(L->ctx->arena, "%s.%s", abs, name));
    diag_error(L->ctx, use, "cannot import name '%s' from '%s'", name, abs);
}

/* The module an import statement binds to `name`, if any. Module paths
 * are canonical (builtin_module_canonical): `tric` is `triton`. */
static bool resolve_import(Lower *L, SrcLoc use, const char *name, LVal *out) {
    AstModule *m = L->mod;
    for (int i = m->n_imports - 1; i >= 0; i--) {
        AstImport *imp = &m->imports[i];
        const char *from = imp->level == 0 && imp->is_from ? builtin_module_canonical(L, imp->module) : imp->module;
        bool user_from = imp->is_from && (imp->level > 0 || !is_triton_path(from));
        for (int j = 0; j < imp->n_names; j++) {
            AstImportName *in = &imp->names[j];
            const char *bound = in->alias;
            if (!imp->is_from && !bound) {
                /* `import a.b.c` binds `a` to the module a */
                const char *dot = strchr(in->name, '.');
                bound = dot ? arena_strndup(L->ctx->arena, in->name, (size_t)(dot - in->name)) : in->name;
                if (strcmp(bound, name)) continue;
                if (!is_triton_path(builtin_module_canonical(L, bound))) {
                    *out = user_module(L, use, bound);
                    return true;
                }
                *out = (LVal){0};
                out->kind = LV_MODULE;
                out->s = builtin_module_canonical(L, bound);
                return true;
            }
            if (imp->is_from && !strcmp(in->name, "*")) {
                if (!user_from && builtin_is_module(from) && builtin_module_attr(L, from, name, out)) return true;
                continue;
            }
            if (!bound) bound = in->name;
            if (strcmp(bound, name)) continue;
            *out = (LVal){0};
            if (!imp->is_from) {
                const char *canon = builtin_module_canonical(L, in->name);
                if (!is_triton_path(canon)) {
                    *out = user_module(L, use, in->name);
                    return true;
                }
                out->kind = LV_MODULE;
                out->s = canon;
                return true;
            }
            if (user_from) {
                *out = import_from_user(L, use, imp, in->name);
                return true;
            }
            const char *full = arena_printf(L->ctx->arena, "%s.%s", from, in->name);
            if (builtin_is_module(full) || !builtin_is_module(from)) {
                out->kind = LV_MODULE;
                out->s = full;
                return true;
            }
            if (builtin_module_attr(L, from, in->name, out)) return true;
            diag_error(L->ctx, use, "cannot import name '%s' from '%s'", in->name, imp->module);
        }
    }
    return false;
}

/* Module-level names: globals, then @jit functions, then imports. A
 * unit's own def is not a name in it: its bindings say what every name is. */
static bool resolve_module_name_at(Lower *L, SrcLoc use, const char *name, LVal *out);

/* A module-level name may lead to another (G1 = G0 + 1, `from m import V`
 * in a chain of modules), each a level of C recursion: bounded, so that a
 * cycle of imports or a generated chain is an error, not a stack overflow. */
#define LOWER_MAX_NAME_DEPTH 256

static bool resolve_module_name(Lower *L, SrcLoc use, const char *name, LVal *out) {
    if (!L->name_depth) L->name_root = name;
    if (L->name_depth >= LOWER_MAX_NAME_DEPTH)
        diag_error(L->ctx, use,
                   "'%s' is defined through more than %d levels of module-level names (a circular import?)",
                   L->name_root, LOWER_MAX_NAME_DEPTH);
    L->name_depth++;
    bool found = resolve_module_name_at(L, use, name, out);
    L->name_depth--;
    return found;
}

static bool resolve_module_name_at(Lower *L, SrcLoc use, const char *name, LVal *out) {
    if (resolve_global(L, use, name, out)) return true;
    AstFunc *f = L->mod->is_unit ? NULL : module_find_func(L->mod, name);
    if (f) {
        if (!f->parsed)
            diag_error(L->ctx, use, "'%s' is not a @triton.jit function; a kernel can only call @jit functions",
                       name);
        *out = (LVal){0};
        out->kind = LV_FUNC;
        out->func = f;
        return true;
    }
    if (resolve_import(L, use, name, out)) return true;
    const Builtin *bi = builtin_find(name, BM_PY);
    if (bi) {
        *out = (LVal){0};
        out->kind = LV_BUILTIN;
        out->builtin = bi;
        return true;
    }
    return false;
}

LVal lower_resolve_name(Lower *L, SrcLoc loc, const char *name) {
    Binding *b = scope_find(L, L->scope, name);
    if (b) return b->val;
    LVal v;
    if (resolve_module_name(L, loc, name, &v)) return v;
    diag_error(L->ctx, loc, "name '%s' is not defined", name);
}

/* ---- assignment ---- */

/* Triton makes a plain assignment of a constant a run-time scalar
 * (`n = BLOCK // 2` is an i32 tensor), and so does tric, so that type
 * promotion matches Triton exactly (`x = 2.0; y = h * x` is fp32 for an
 * fp16 h). The tensor remembers the number it came from, so that places
 * which need a compile-time integer (tl.arange(0, n), shapes) still accept
 * it, where Triton fails with a confusing message. */
static LVal sanitize_assigned(Lower *L, SrcLoc loc, LVal v) {
    if (lval_is_number(&v)) {
        LVal t = lval_to_tensor(L, loc, v);
        if (v.kind != LV_FLOAT) {
            t.has_origin = true;
            t.origin_i = v.i;
        }
        return t;
    }
    if (v.kind == LV_TUPLE) {
        LVal t = v;
        t.items = arena_alloc(L->ctx->arena, sizeof(LVal) * (v.n + 1));
        for (size_t i = 0; i < v.n; i++) t.items[i] = sanitize_assigned(L, loc, v.items[i]);
        return t;
    }
    return v;
}

static void assign_target(Lower *L, AstNode *target, LVal v, bool sanitize) {
    switch (target->kind) {
    case A_NAME: scope_set(L, target->str, sanitize ? sanitize_assigned(L, target->loc, v) : v); return;
    case A_TUPLE:
    case A_LIST: {
        int n = target->args.n;
        for (int i = 0; i < n; i++)
            if (target->args.items[i]->kind == A_STARRED)
                diag_error(L->ctx, target->args.items[i]->loc, "starred assignment is not supported");
        if (v.kind != LV_TUPLE)
            diag_error(L->ctx, target->loc, "cannot unpack a %s into %d names", lval_kind_name(&v), n);
        if ((int)v.n > n) diag_error(L->ctx, target->loc, "too many values to unpack (expected %d)", n);
        if ((int)v.n < n)
            diag_error(L->ctx, target->loc, "not enough values to unpack (expected %d, got %d)", n, (int)v.n);
        for (int i = 0; i < n; i++) assign_target(L, target->args.items[i], v.items[i], sanitize);
        return;
    }
    case A_ATTR: diag_error(L->ctx, target->loc, "Attribute assignment is not supported in triton");
    case A_SUBSCRIPT:
        diag_error(L->ctx, target->loc, "__setitem__ is not supported in triton: tensors cannot be modified in place");
    case A_STARRED: diag_error(L->ctx, target->loc, "starred assignment is not supported");
    default: diag_error(L->ctx, target->loc, "cannot assign to this expression");
    }
}

static bool is_constexpr_annotation(const AstNode *a) {
    if (!a) return false;
    const char *s = NULL;
    if (a->kind == A_NAME || a->kind == A_ATTR || a->kind == A_STR) s = a->str;
    if (!s) return false;
    size_t n = a->kind == A_STR ? a->str_len : strlen(s);
    return n >= 9 && !memcmp(s + n - 9, "constexpr", 9);
}

static void lower_annassign(Lower *L, AstNode *s) {
    if (!s->rhs) return;   /* a bare annotation declares nothing at run time */
    if (!is_constexpr_annotation(s->third)) {
        assign_target(L, s->lhs, lower_expr(L, s->rhs), true);
        return;
    }
    if (s->lhs->kind != A_NAME) diag_error(L->ctx, s->lhs->loc, "only a name can be annotated tl.constexpr");
    if (scope_find(L, L->scope, s->lhs->str))
        diag_error(L->ctx, s->lhs->loc, "%s is already defined. constexpr cannot be reassigned.", s->lhs->str);
    LVal v = lower_expr(L, s->rhs);
    if (v.kind == LV_TENSOR) {
        if (!v.has_origin)
            diag_error(L->ctx, s->rhs->loc,
                       "the value of tl.constexpr variable '%s' must be known at compile time, but it is a tensor",
                       s->lhs->str);
        v = lval_int(v.origin_i);
    }
    scope_set(L, s->lhs->str, v);
}

static void lower_augassign(Lower *L, AstNode *s) {
    if (s->lhs->kind != A_NAME) assign_target(L, s->lhs, lval_none(), false);   /* reports the error */
    LVal cur = lower_expr(L, s->lhs);
    LVal rhs = lower_expr(L, s->rhs), sum;
    if (s->op == BIN_ADD && s->rhs->kind == A_CALL && lower_dot_accumulate(L, cur, rhs, &sum)) {
        assign_target(L, s->lhs, sum, true);
        return;
    }
    assign_target(L, s->lhs, lower_binop(L, s->loc, s->op, cur, rhs), true);
}

/* ---- control flow helpers ---- */

/* A run-time condition as an i1 scalar. */
static ValId scalar_cond(Lower *L, SrcLoc loc, LVal c) {
    if (lval_is_const(&c)) c = lval_to_tensor(L, loc, lval_bool(lower_truth(L, loc, &c)));
    IrType t = lower_type(L, &c);
    if (t.rank > 0) {   /* a one-element tensor stands for its element, as in Triton */
        if (ir_numel(t) > 1)
            diag_error(L->ctx, loc, "Boolean value of Tensor with more than one value is ambiguous");
        c = lower_item(L, loc, c);
    }
    if (t.elem != ET_I1) c = lower_to_bool(L, loc, c);
    return c.id;
}

/* A value carried out of a region (if result, loop-carried): its tensor,
 * materializing numbers in the current block. */
static LVal carried_tensor(Lower *L, SrcLoc loc, const char *name, LVal v, const char *where) {
    if (v.kind == LV_TENSOR) return v;
    if (lval_is_number(&v)) return lval_to_tensor(L, loc, v);
    if (!strcmp(name, FLAG_RETVAL))
        diag_error(L->ctx, loc, "a function whose return depends on a run-time condition must return a scalar "
                                "or tensor on every path, not a %s", lval_kind_name(&v));
    diag_error(L->ctx, loc, "%s holds a compile-time %s and cannot be re-assigned %s", var_desc(L, name),
               lval_kind_name(&v), where);
}

/* Adopt free-standing blocks as the regions of op. */
static void adopt_region(IrOp *op, uint32_t i, IrBlock *blk) {
    op->regions[i] = blk;
    blk->parent = op;
}

static const char *yield_where(bool loop) { return loop ? "in a loop" : "in an if with a run-time condition"; }

/* ---- aggregates across regions ----
 * A tuple or a block pointer crosses an if or a loop leaf by leaf: each
 * tensor or number in it (a number materialized first) is one carried
 * value, and the aggregate is rebuilt from them with the structure it had
 * on entry (its template); its other leaves (strings, dtypes, ...) must
 * stay as they were. */
static bool is_aggregate(const LVal *v) {
    return v->kind == LV_TUPLE || v->kind == LV_BLOCK_PTR || v->kind == LV_TENSOR_DESC;
}
static bool carryable(const LVal *v) { return v->kind == LV_TENSOR || lval_is_number(v); }

static int count_leaves(const LVal *v) {
    if (!is_aggregate(v)) return carryable(v);
    int n = 0;
    for (size_t i = 0; i < v->n; i++) n += count_leaves(&v->items[i]);
    return n;
}

/* the k-th carryable leaf of v, depth first (*k counts down) */
static LVal *nth_leaf(LVal *v, int *k) {
    if (!is_aggregate(v)) return carryable(v) && (*k)-- == 0 ? v : NULL;
    for (size_t i = 0; i < v->n; i++) {
        LVal *r = nth_leaf(&v->items[i], k);
        if (r) return r;
    }
    return NULL;
}

static LVal *leaf_of(LVal *v, int k) { return nth_leaf(v, &k); }

static LVal deep_copy(Lower *L, const LVal *v) {
    LVal r = *v;
    if (!is_aggregate(v)) return r;
    r.items = arena_alloc(L->ctx->arena, sizeof(LVal) * (v->n ? v->n : 1));
    for (size_t i = 0; i < v->n; i++) r.items[i] = deep_copy(L, &v->items[i]);
    return r;
}

/* b has a's structure: the same kinds and arity of aggregates, carryable
 * leaves where a has them, and the same other leaves */
static bool same_structure(Lower *L, const LVal *a, const LVal *b) {
    if (is_aggregate(a) || is_aggregate(b)) {
        if (a->kind != b->kind || a->n != b->n) return false;
        if (a->kind != LV_TUPLE && (!ir_type_eq(a->dtype, b->dtype) || a->i != b->i)) return false;
        for (size_t i = 0; i < a->n; i++)
            if (!same_structure(L, &a->items[i], &b->items[i])) return false;
        return true;
    }
    return carryable(a) ? carryable(b) : lval_same(a, b);
}

typedef struct Carried {
    const char **names;
    IrType *types;
    int *leaf;             /* -1: the name's value; else its leaf (its aggregate's template in tmpl) */
    const LVal **tmpl;
    int n, cap_names, cap_types, cap_leaf, cap_tmpl;
} Carried;

static void carried_push(Lower *L, Carried *c, const char *name, IrType t, int leaf, const LVal *tmpl) {
    int n = c->n;
    VEC_PUSH(L->ctx->arena, c->names, n, c->cap_names, name);
    n = c->n;
    VEC_PUSH(L->ctx->arena, c->leaf, n, c->cap_leaf, leaf);
    n = c->n;
    VEC_PUSH(L->ctx->arena, c->tmpl, n, c->cap_tmpl, tmpl);
    VEC_PUSH(L->ctx->arena, c->types, c->n, c->cap_types, t);
}

static void carried_add(Lower *L, Carried *c, const char *name, IrType t) { carried_push(L, c, name, t, -1, NULL); }

/* Binds c's names to vals (block arguments, results), rebuilding
 * aggregates from their leaves. */
static void bind_values(Lower *L, const Carried *c, const ValId *vals) {
    LVal cur = {0};
    for (int i = 0; i < c->n; i++) {
        if (c->leaf[i] < 0) {
            scope_set(L, c->names[i], lval_tensor(L, vals[i]));
            continue;
        }
        if (i == 0 || c->leaf[i - 1] < 0 || strcmp(c->names[i - 1], c->names[i])) cur = deep_copy(L, c->tmpl[i]);
        *leaf_of(&cur, c->leaf[i]) = lval_tensor(L, vals[i]);
        scope_set(L, c->names[i], cur);
    }
}

/* The value c's entry i yields: the name's value, or its leaf */
static LVal carried_value(Lower *L, SrcLoc loc, const Carried *c, int i, bool loop) {
    LVal v = scope_find(L, L->scope, c->names[i])->val;
    if (c->leaf[i] < 0) return carried_tensor(L, loc, c->names[i], v, yield_where(loop));
    if (!same_structure(L, c->tmpl[i], &v))
        diag_error(L->ctx, loc, "%s changes from %s to %s %s", var_desc(L, c->names[i]), lval_kind_name(c->tmpl[i]),
                   lval_kind_name(&v), yield_where(loop));
    return carried_tensor(L, loc, c->names[i], *leaf_of(&v, c->leaf[i]), yield_where(loop));
}

/* Appends yield(first, values of c's names in the current scope) to the
 * current block; first is VAL_NONE but for a for loop turned while. */
static void yield_carried(Lower *L, SrcLoc loc, const Carried *c, bool loop, const char *branch, ValId first) {
    int lead = first != VAL_NONE;
    ValId *vals = arena_alloc(L->ctx->arena, sizeof(ValId) * (size_t)(c->n + 2));
    vals[0] = first;
    for (int i = 0; i < c->n; i++) {
        LVal v = carried_value(L, loc, c, i, loop);
        IrType t = lower_type(L, &v);
        if (!ir_type_eq(t, c->types[i])) {
            if (loop)
                diag_error(L->ctx, loc,
                           "Loop-carried variable %s has initial type %s but is re-assigned to %s in loop! "
                           "Please make sure that the type stays consistent.",
                           c->names[i], type_str(L, c->types[i]), type_str(L, t));
            diag_error(L->ctx, loc, "Mismatched type for %s between then block (%s) and else block (%s)",
                       is_hidden(c->names[i]) ? var_desc(L, c->names[i]) : c->names[i], type_str(L, branch[0] == 't' ? t : c->types[i]),
                       type_str(L, branch[0] == 't' ? c->types[i] : t));
        }
        vals[1 + i] = v.id;
    }
    ir_build(&L->b, OP_YIELD, vals + (1 - lead), (uint32_t)(c->n + lead), NULL, 0, 0);
}

/* ---- if ---- */

/* One arm of a structured if: the statements of body from index from
 * (body may be NULL: an empty arm). guard: the arm runs only where every
 * control-flow flag is false, so it starts with them cleared. stopped: the
 * arm runs only where some flag is true; when one flag alone is unknown,
 * it is that one, so it is set (a helper whose every path returns then
 * has a known return). */
typedef struct IfArm {
    AstList *body;
    int from;
    bool guard, stopped;
} IfArm;

static void lower_block_from(Lower *L, AstList *body, int from);
static bool flow_stopped(Lower *L, SrcLoc loc);

static const char *const stop_flags[] = {FLAG_RET, FLAG_BRK, FLAG_CONT};

static void lower_arm(Lower *L, const IfArm *a) {
    if (a->stopped) {
        Binding *only = NULL;
        int n = 0;
        for (size_t i = 0; i < ARRAY_LEN(stop_flags); i++) {
            Binding *b = scope_find(L, L->scope, stop_flags[i]);
            if (b && b->val.kind == LV_TENSOR) only = b, n++;
        }
        if (n == 1) only->val = lval_bool(true);
    }
    if (a->guard)
        for (size_t i = 0; i < ARRAY_LEN(stop_flags); i++) {
            Binding *b = scope_find(L, L->scope, stop_flags[i]);
            if (b && b->val.kind == LV_TENSOR) b->val = lval_bool(false);
        }
    if (a->body) lower_block_from(L, a->body, a->from);
}

/* The names an if yields: those re-assigned in either arm, and those new
 * in both (Triton's rule; a name new in one arm only is gone afterwards).
 * A hidden name new in one arm only (the return value) is yielded too:
 * the other arm, where no return ran, passes a zero of its type. A hidden
 * name equal in both arms keeps that value without an if result. */
typedef struct IfMerge {
    Carried res;
    LVal *vals[2];
    bool *present[2];
    int nv, cap[2], capp[2];
} IfMerge;

static void merge_add(Lower *L, IfMerge *m, const char *name, const Binding *b0, const Binding *b1) {
    int n = m->nv;
    carried_add(L, &m->res, name, ir_scalar(ET_I1));
    const Binding *b[2] = {b0, b1};
    for (int k = 0; k < 2; k++) {
        int nn = n, np = n;
        VEC_PUSH(L->ctx->arena, m->vals[k], nn, m->cap[k], b[k] ? b[k]->val : lval_none());
        VEC_PUSH(L->ctx->arena, m->present[k], np, m->capp[k], b[k] != NULL);
    }
    m->nv++;
}

static void merge_names(Lower *L, const Scope *before, Scope after[2], IfMerge *m, Scope *common) {
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < after[k].n; i++) {
            const char *name = after[k].b[i].name;
            Binding *old = scope_find(L, (Scope *)before, name), *mine = &after[k].b[i];
            Binding *other = scope_find(L, &after[1 - k], name);
            if (k == 1 && other) continue;   /* seen from arm 0 */
            if (is_hidden(name) && other && lval_same(&mine->val, &other->val)) {
                if (!old || !lval_same(&old->val, &mine->val)) {
                    Binding nb = *mine;
                    VEC_PUSH(L->ctx->arena, common->b, common->n, common->cap, nb);
                }
                continue;
            }
            if (old ? lval_same(&old->val, &mine->val) && lval_same(&old->val, &other->val)
                    : !other && !is_hidden(name))
                continue;
            merge_add(L, m, name, k == 0 ? mine : other, k == 0 ? other : mine);
        }
}

/* Each aggregate both arms bind becomes its leaves, one result each; the
 * arms must give it one structure. */
static IfMerge expand_aggregates(Lower *L, SrcLoc loc, const IfMerge *m) {
    IfMerge out = {0};
    const Carried *res = &m->res;
    for (int i = 0; i < res->n; i++) {
        LVal *v[2] = {&m->vals[0][i], &m->vals[1][i]};
        bool agg = is_aggregate(v[0]) || is_aggregate(v[1]);
        if (agg && (!m->present[0][i] || !m->present[1][i] || !same_structure(L, v[0], v[1])))
            diag_error(L->ctx, loc, "Mismatched type for %s between then block (%s) and else block (%s)",
                       res->names[i], m->present[0][i] ? lval_kind_name(v[0]) : "undefined",
                       m->present[1][i] ? lval_kind_name(v[1]) : "undefined");
        int n_leaves = agg ? count_leaves(v[0]) : 1;
        LVal *tmpl = NULL;
        if (agg) {
            tmpl = arena_alloc(L->ctx->arena, sizeof *tmpl);
            *tmpl = deep_copy(L, v[0]);
        }
        for (int k = 0; k < n_leaves; k++) {
            int n = out.nv;
            carried_push(L, &out.res, res->names[i], ir_scalar(ET_I1), agg ? k : -1, tmpl);
            for (int a = 0; a < 2; a++) {
                int nn = n, np = n;
                VEC_PUSH(L->ctx->arena, out.vals[a], nn, out.cap[a], agg ? *leaf_of(v[a], k) : *v[a]);
                VEC_PUSH(L->ctx->arena, out.present[a], np, out.capp[a], m->present[a][i]);
            }
            out.nv++;
        }
    }
    return out;
}

/* A stand-in for a value an arm never computed (see IfMerge). */
static LVal merge_fill(Lower *L, SrcLoc loc, IrType t) {
    if (t.elem == ET_PTR)
        diag_error(L->ctx, loc, "a pointer returned under a run-time condition must be returned on every path "
                                "(return it from both branches)");
    LVal zero = lval_int(0);
    return lower_const_tensor(L, loc, &zero, t);
}

static void lower_if_arms(Lower *L, SrcLoc loc, ValId c, const IfArm arms[2]) {
    IrBlock *parent = L->b.block;
    Scope before = scope_copy(L, L->scope);
    Scope after[2];
    IrBlock *blk[2];
    for (int k = 0; k < 2; k++) {
        blk[k] = ir_block_new(L->fn);
        L->b.block = blk[k];
        *L->scope = scope_copy(L, &before);
        lower_arm(L, &arms[k]);
        after[k] = *L->scope;
    }
    IfMerge merged = {0};
    Scope common = {0};
    merge_names(L, &before, after, &merged, &common);
    IfMerge m = expand_aggregates(L, loc, &merged);
    Carried *res = &m.res;
    /* materialize numbers inside their arm; the then-arm fixes the types */
    for (int k = 0; k < 2; k++) {
        L->b.block = blk[k];
        for (int i = 0; i < res->n; i++)
            if (m.present[k][i]) m.vals[k][i] = carried_tensor(L, loc, res->names[i], m.vals[k][i], yield_where(false));
    }
    for (int k = 0; k < 2; k++) {
        L->b.block = blk[k];
        for (int i = 0; i < res->n; i++)
            if (!m.present[k][i]) m.vals[k][i] = merge_fill(L, loc, lower_type(L, &m.vals[1 - k][i]));
    }
    for (int k = 0; k < 2; k++) {
        L->b.block = blk[k];
        *L->scope = after[k];
        for (int i = 0; i < res->n; i++) {
            if (res->leaf[i] < 0) scope_set(L, res->names[i], m.vals[k][i]);   /* aggregates yield their leaves */
            if (k == 0) res->types[i] = lower_type(L, &m.vals[k][i]);
        }
        yield_carried(L, loc, res, false, k ? "else" : "then", VAL_NONE);
    }
    L->b.block = parent;
    L->b.loc = loc;
    IrOp *op = ir_build(&L->b, OP_IF, &c, 1, res->types, (uint32_t)res->n, 2);
    adopt_region(op, 0, blk[0]);
    adopt_region(op, 1, blk[1]);
    *L->scope = before;
    for (int i = 0; i < common.n; i++) scope_set(L, common.b[i].name, common.b[i].val);
    bind_values(L, res, op->results);
}

static void lower_if_dynamic(Lower *L, AstNode *s, LVal cond) {
    ValId c = scalar_cond(L, s->cond->loc, cond);
    IfArm arms[2] = {{&s->body, 0, false, false}, {&s->orelse, 0, false, false}};
    lower_if_arms(L, s->loc, c, arms);
}

static void lower_if(Lower *L, AstNode *s) {
    LVal c = lower_expr(L, s->cond);
    if (c.kind == LV_TENSOR) {
        lower_if_dynamic(L, s, c);
        return;
    }
    if (c.kind != LV_BOOL && c.kind != LV_INT && c.kind != LV_NONE)
        diag_error(L->ctx, s->cond->loc,
                   "`if` conditionals can only accept values of type {bool, int, NoneType}, not objects of type %s",
                   lval_kind_name(&c));
    lower_block(L, lower_truth(L, s->cond->loc, &c) ? &s->body : &s->orelse);
}

/* ---- loops ---- */

/* Each loop has its own break and continue flags; the enclosing loop's
 * are set aside meanwhile. */
typedef struct LoopFlags {
    Binding saved[2];
    bool had[2];
} LoopFlags;

static const char *const loop_flags[2] = {FLAG_BRK, FLAG_CONT};

static LoopFlags loop_flags_enter(Lower *L) {
    LoopFlags lf = {0};
    for (int i = 0; i < 2; i++) {
        Binding *b = scope_find(L, L->scope, loop_flags[i]);
        lf.had[i] = b != NULL;
        if (b) lf.saved[i] = *b;
        scope_set(L, loop_flags[i], lval_bool(false));
    }
    return lf;
}

static void loop_flags_leave(Lower *L, const LoopFlags *lf) {
    for (int i = 0; i < 2; i++) {
        if (lf->had[i]) scope_set(L, loop_flags[i], lf->saved[i].val);
        else scope_remove(L->scope, loop_flags[i]);
    }
}

/* One iteration's body; a continue ends only this iteration. */
static void lower_loop_body(Lower *L, AstList *body) {
    lower_block(L, body);
    scope_set(L, FLAG_CONT, lval_bool(false));
}

/* Lowers body into a scratch block only to learn what it assigns; the block
 * is dropped. static_print stays quiet meanwhile. Returns the scope after. */
static Scope dry_run(Lower *L, AstNode *cond, AstList *body, const char *target, IrType iv_type) {
    IrBlock *parent = L->b.block;
    Scope before = scope_copy(L, L->scope);
    bool was_dry = L->dry_run;
    L->dry_run = true;
    L->b.block = ir_block_new(L->fn);
    L->frame->loop_depth++;
    if (target) scope_set(L, target, lval_tensor(L, ir_value_new(L->fn, iv_type)));
    if (cond) lower_expr(L, cond);
    lower_loop_body(L, body);
    L->frame->loop_depth--;
    Scope after = *L->scope;
    *L->scope = before;
    L->dry_run = was_dry;
    L->b.block = parent;
    return after;
}

/* Two bindings that a loop body treats alike: same kind and constant value,
 * tensors of the same type (their SSA values may differ). */
static bool lval_shape_same(Lower *L, const LVal *a, const LVal *b) {
    if (a->kind != b->kind) return false;
    if (a->kind == LV_TENSOR)
        return ir_type_eq(ir_type(L->fn, a->id), ir_type(L->fn, b->id)) && a->has_origin == b->has_origin &&
               (!a->has_origin || a->origin_i == b->origin_i) && a->const_ptr == b->const_ptr;
    if (a->kind == LV_TUPLE) {
        if (a->n != b->n) return false;
        for (size_t i = 0; i < a->n; i++)
            if (!lval_shape_same(L, &a->items[i], &b->items[i])) return false;
        return true;
    }
    return lval_same(a, b);
}

static bool scope_shape_same(Lower *L, const Scope *a, const Scope *b) {
    if (a->n != b->n) return false;
    for (int i = 0; i < a->n; i++)
        if (strcmp(a->b[i].name, b->b[i].name) || !lval_shape_same(L, &a->b[i].val, &b->b[i].val)) return false;
    return true;
}

/* The names bound before the loop that its body re-binds, found by a dry
 * run. Each level of nested loops would lower its body twice (dry, then for
 * real), exponential in the depth, so the answer is remembered per loop and
 * entry scope: entered again with the same kinds, types and constants, the
 * body re-binds the same names. */
/* The index of loop's first memo, -1 if none: a hash, as a kernel may
 * have thousands of loops. */
static int first_memo(Lower *L, const AstNode *loop) {
    for (uint32_t it = 0, k; (k = hidx_next(L->memo_at, hash_ptr(loop), &it));)
        if (L->memo[k - 1].loop == loop) return (int)k - 1;
    return -1;
}

static void add_memo(Lower *L, LoopMemo m) {
    int first = first_memo(L, m.loop);
    VEC_PUSH(L->ctx->arena, L->memo, L->n_memo, L->cap_memo, m);
    if (first >= 0) {   /* the end of the loop's chain */
        int i = first;
        while (L->memo[i].next) i = L->memo[i].next - 1;
        L->memo[i].next = L->n_memo;
        return;
    }
    if (hidx_reserve(&L->memo_at, L->ctx->arena, 1, (uint32_t)L->n_memo)) {   /* every first memo again */
        for (int i = 0; i < L->n_memo - 1; i++)
            if (first_memo(L, L->memo[i].loop) < 0) hidx_put(L->memo_at, hash_ptr(L->memo[i].loop), (uint32_t)i);
    }
    hidx_put(L->memo_at, hash_ptr(m.loop), (uint32_t)L->n_memo - 1);
}

static const char **carried_names(Lower *L, const AstNode *loop, AstNode *cond, AstList *body, const char *target,
                                  IrType iv_type, int *n) {
    for (int i = first_memo(L, loop); i >= 0; i = L->memo[i].next - 1) {
        LoopMemo *m = &L->memo[i];
        if (scope_shape_same(L, &m->entry, L->scope)) {
            *n = m->n;
            return m->names;
        }
    }
    Scope after = dry_run(L, cond, body, target, iv_type);
    LoopMemo m = {loop, scope_copy(L, L->scope), NULL, 0, 0};
    int cap = 0;
    for (int i = 0; i < L->scope->n; i++) {
        Binding *b = &L->scope->b[i];
        if (target && !strcmp(b->name, target)) continue;
        if (!lval_same(&scope_find(L, &after, b->name)->val, &b->val)) VEC_PUSH(L->ctx->arena, m.names, m.n, cap, b->name);
    }
    add_memo(L, m);
    *n = m.n;
    return m.names;
}

static bool name_in(const char *name, const char **names, int n) {
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], name)) return true;
    return false;
}

/* Loop-carried values: the names the body re-binds (an aggregate's
 * carryable leaves each). Their initial values become tensors here, in
 * front of the loop. */
static Carried loop_carried(Lower *L, SrcLoc loc, const char **names, int n_names, ValId **inits) {
    Carried c = {0};
    int n_init = 0, cap_init = 0;
    *inits = NULL;
    for (int i = 0; i < L->scope->n; i++) {
        Binding *b = &L->scope->b[i];
        if (!name_in(b->name, names, n_names)) continue;
        if (!is_aggregate(&b->val)) {
            LVal init = carried_tensor(L, loc, b->name, b->val, "in a loop");
            carried_add(L, &c, b->name, lower_type(L, &init));
            VEC_PUSH(L->ctx->arena, *inits, n_init, cap_init, init.id);
            b->val = init;
            continue;
        }
        LVal *tmpl = arena_alloc(L->ctx->arena, sizeof *tmpl);
        *tmpl = deep_copy(L, &b->val);
        for (int k = 0, n = count_leaves(tmpl); k < n; k++) {
            LVal *leaf = leaf_of(tmpl, k);
            *leaf = carried_tensor(L, loc, b->name, *leaf, "in a loop");
            carried_push(L, &c, b->name, lower_type(L, leaf), k, tmpl);
            VEC_PUSH(L->ctx->arena, *inits, n_init, cap_init, leaf->id);
        }
        b->val = deep_copy(L, tmpl);
    }
    return c;
}

/* Binds c's names to the arguments of blk starting at first (a block with
 * none has a null array: no arithmetic on it, which C leaves undefined). */
static void bind_block_args(Lower *L, const Carried *c, IrBlock *blk, uint32_t first) {
    if (c->n) bind_values(L, c, blk->args + first);
}

static int64_t const_int_or_die(Lower *L, SrcLoc loc, const LArg *a, const char *what) {
    if (a->v.kind == LV_INT || a->v.kind == LV_BOOL) return a->v.i;
    if (a->v.kind == LV_TENSOR && a->v.has_origin) return a->v.origin_i;
    diag_error(L->ctx, a->present ? a->loc : loc, "%s must be a compile-time integer, got a %s", what,
               lval_kind_name(&a->v));
}

/* Unrolling is bounded per loop and over the whole kernel, so that nested
 * loops cannot multiply into gigabytes of IR. */
#define LOWER_MAX_UNROLL 4096
#define LOWER_MAX_UNROLL_TOTAL 65536

static void lower_static_range(Lower *L, AstNode *s, SrcLoc loc, LArg *lb, LArg *ub, LArg *step) {
    int64_t lo = const_int_or_die(L, loc, lb, "static_range's start");
    int64_t hi = const_int_or_die(L, loc, ub, "static_range's end");
    int64_t st = const_int_or_die(L, loc, step, "static_range's step");
    if (st == 0) diag_error(L->ctx, step->loc, "static_range() arg 3 must not be zero");
    if (s->lhs->kind != A_NAME) diag_error(L->ctx, s->lhs->loc, "the loop variable must be a single name");
    int64_t count = 0;
    for (int64_t i = lo; st > 0 ? i < hi : i > hi; i += st) {
        if (++count > LOWER_MAX_UNROLL)
            diag_error(L->ctx, loc, "static_range unrolls more than %d iterations", LOWER_MAX_UNROLL);
        if (++L->unrolled > LOWER_MAX_UNROLL_TOTAL)
            diag_error(L->ctx, loc, "static_range loops unroll more than %d iterations in all (nested loops multiply)",
                       LOWER_MAX_UNROLL_TOTAL);
        scope_set(L, s->lhs->str, lval_int(i));
        lower_loop_body(L, &s->body);
        if (flow_stopped(L, loc)) break;
    }
}

/* A loop bound as a scalar integer tensor. */
static LVal loop_bound(Lower *L, SrcLoc loc, LArg *a) {
    LVal v = a->v;
    if (v.kind == LV_BOOL || v.kind == LV_INT) v = lval_to_tensor(L, loc, v);
    if (v.kind != LV_TENSOR || lower_type(L, &v).rank != 0 || !elem_is_int(lower_type(L, &v).elem))
        diag_error(L->ctx, a->present ? a->loc : loc, "For loop bounds and step must all be integer scalars, got %s",
                   v.kind == LV_TENSOR ? type_str(L, lower_type(L, &v)) : lval_kind_name(&v));
    return v;
}

static IrType promote_int(IrType a, IrType b) {
    int wa = elem_bits(a.elem), wb = elem_bits(b.elem);
    bool ua = !elem_is_signed(a.elem), ub = !elem_is_signed(b.elem);
    if (ua == ub) return wa >= wb ? a : b;
    if (ua) return wa >= wb ? a : b;
    return wb >= wa ? b : a;
}

static void lower_for_dynamic(Lower *L, AstNode *s, LArg *lbp, LArg *ubp, LArg *stepp, int num_stages,
                              bool flatten);

static void lower_for(Lower *L, AstNode *s) {
    if (s->orelse.n) diag_error(L->ctx, s->orelse.items[0]->loc, "for ... else is not supported");
    AstNode *it = s->rhs;
    LVal callee = it->kind == A_CALL ? lower_expr(L, it->lhs) : lval_none();
    bool is_static = builtin_is(&callee, "static_range");
    if (!is_static && !builtin_is(&callee, "range"))
        diag_error(L->ctx, it->loc, "Only `range` and `static_range` iterators are currently supported");
    CallArgs ca;
    lower_call_args(L, it, &ca);
    LArg lb, ub, step, stages, flat;
    builtin_range_args(L, it->loc, callee.builtin, &ca, &lb, &ub, &step, &stages, &flat);
    /* a loop's own pipelining depth (0 = the kernel's); 0 and 1 both mean
     * no pipelining, as for the kernel's num_stages */
    int num_stages = 0;
    if (stages.present && stages.v.kind != LV_NONE) {
        int64_t n = const_int_or_die(L, it->loc, &stages, "tl.range's num_stages");
        if (n < 0 || n > 16) diag_error(L->ctx, stages.loc, "tl.range's num_stages must be between 0 and 16, got %lld",
                                        (long long)n);
        num_stages = n < 1 ? 1 : (int)n;
    }
    /* flatten=True: this loop and the one loop nested in it become one
     * (pass flatten), so the inner loop's pipeline runs across the outer
     * iterations */
    bool flatten = flat.present && flat.v.kind != LV_NONE && const_int_or_die(L, it->loc, &flat, "tl.range's flatten");
    LoopFlags lf = loop_flags_enter(L);
    if (is_static) lower_static_range(L, s, it->loc, &lb, &ub, &step);
    else lower_for_dynamic(L, s, &lb, &ub, &step, num_stages, flatten);
    loop_flags_leave(L, &lf);
}

/* The loop variable's value in the body: iv, or for a negative step
 * (run upwards over the swapped bounds) ub - iv + lb. */
static LVal for_target_value(Lower *L, AstNode *s, ValId iv, IrType ivt, bool negative, LVal vlb, LVal vub) {
    if (!negative) return lval_tensor(L, iv);
    L->b.loc = s->lhs->loc;
    return lval_tensor(L, ir_build2(&L->b, OP_ADD, ivt, ir_build2(&L->b, OP_SUB, ivt, vub.id, iv), vlb.id));
}

/* A for loop whose body may break at run time becomes a while loop
 * carrying (iv, the carried names...) with the condition `iv < ub and not
 * brk`: it stops at the break, where a for would go on through the
 * remaining iterations doing nothing. The body is entered only with brk
 * clear, so it starts with the flag a constant false (no guard around it). */
static void lower_for_as_while(Lower *L, AstNode *s, LVal vlb, LVal vub, LVal vst, IrType ivt, bool negative,
                               const char **names, int n_names) {
    SrcLoc loc = s->rhs->loc;
    ValId *inits;
    Carried c = loop_carried(L, s->loc, names, n_names, &inits);
    Scope before = scope_copy(L, L->scope);
    uint32_t n = (uint32_t)c.n + 1;
    IrType *types = arena_alloc(L->ctx->arena, sizeof(IrType) * n);
    ValId *ops = arena_alloc(L->ctx->arena, sizeof(ValId) * n), *fwd = arena_alloc(L->ctx->arena, sizeof(ValId) * (n + 1));
    types[0] = ivt, ops[0] = vlb.id;
    for (int i = 0; i < c.n; i++) types[1 + i] = c.types[i], ops[1 + i] = inits[i];
    IrBlock *parent = L->b.block, *cond_blk = ir_block_new(L->fn), *body = ir_block_new(L->fn);
    for (uint32_t i = 0; i < n; i++) {
        ir_block_add_arg(L->fn, cond_blk, types[i]);
        ir_block_add_arg(L->fn, body, types[i]);
    }
    /* region 0: iv < ub and not brk, forwarding everything unchanged */
    L->b.block = cond_blk;
    bind_block_args(L, &c, cond_blk, 1);
    LVal go = lower_compare(L, loc, ACMP_LT, lval_tensor(L, cond_blk->args[0]), vub);
    LVal stop = lower_unary(L, loc, UN_NOT, scope_find(L, L->scope, FLAG_BRK)->val);
    fwd[0] = lower_binop(L, loc, BIN_BITAND, go, stop).id;
    for (uint32_t i = 0; i < n; i++) fwd[1 + i] = cond_blk->args[i];
    L->b.loc = loc;
    ir_build(&L->b, OP_CONDITION, fwd, n + 1, NULL, 0, 0);
    /* region 1: the body, then the next iv */
    *L->scope = scope_copy(L, &before);
    L->b.block = body;
    bind_block_args(L, &c, body, 1);
    scope_set(L, FLAG_BRK, lval_bool(false));
    scope_set(L, s->lhs->str, for_target_value(L, s, body->args[0], ivt, negative, vlb, vub));
    L->frame->loop_depth++;
    lower_loop_body(L, &s->body);
    L->frame->loop_depth--;
    L->b.loc = loc;
    ValId next = ir_build2(&L->b, OP_ADD, ivt, body->args[0], vst.id);
    L->b.loc = s->loc;
    yield_carried(L, s->loc, &c, true, NULL, next);
    L->b.block = parent;
    IrOp *op = ir_build(&L->b, OP_WHILE, ops, n, types, n, 2);
    adopt_region(op, 0, cond_blk);
    adopt_region(op, 1, body);
    *L->scope = before;
    bind_values(L, &c, op->results + 1);
}

static void lower_for_dynamic(Lower *L, AstNode *s, LArg *lbp, LArg *ubp, LArg *stepp, int num_stages,
                              bool flatten) {
    AstNode *it = s->rhs;
    LArg lb = *lbp, ub = *ubp, step = *stepp;
    if (s->lhs->kind != A_NAME) diag_error(L->ctx, s->lhs->loc, "the loop variable must be a single name");
    const char *target = s->lhs->str;
    L->b.loc = it->loc;
    /* A negative constant step runs the loop upwards over the swapped
     * bounds, and the body sees iv = ub - iv' + lb (Python's sequence). */
    bool negative = (step.v.kind == LV_INT || step.v.kind == LV_BOOL) && step.v.i < 0;
    if ((step.v.kind == LV_INT || step.v.kind == LV_BOOL) && step.v.i == 0)
        diag_error(L->ctx, step.loc, "range() arg 3 must not be zero");
    if (negative) {
        LArg t = lb;
        lb = ub;
        ub = t;
        step.v.i = -step.v.i;
    }
    LVal vlb = loop_bound(L, it->loc, &lb), vub = loop_bound(L, it->loc, &ub), vst = loop_bound(L, it->loc, &step);
    IrType ivt = promote_int(promote_int(lower_type(L, &vlb), lower_type(L, &vub)), lower_type(L, &vst));
    vlb = lower_cast(L, it->loc, vlb, ivt, false, 0);
    vub = lower_cast(L, it->loc, vub, ivt, false, 0);
    vst = lower_cast(L, it->loc, vst, ivt, false, 0);

    int n_names;
    const char **names = carried_names(L, s, NULL, &s->body, target, ivt, &n_names);
    if (name_in(FLAG_BRK, names, n_names)) {
        lower_for_as_while(L, s, vlb, vub, vst, ivt, negative, names, n_names);
        return;
    }
    ValId *inits;
    Carried c = loop_carried(L, s->loc, names, n_names, &inits);
    Scope before = scope_copy(L, L->scope);

    IrBlock *parent = L->b.block, *body = ir_block_new(L->fn);
    ValId iv = ir_block_add_arg(L->fn, body, ivt);
    for (int i = 0; i < c.n; i++) ir_block_add_arg(L->fn, body, c.types[i]);
    bind_block_args(L, &c, body, 1);
    L->b.block = body;
    scope_set(L, target, for_target_value(L, s, iv, ivt, negative, vlb, vub));
    L->frame->loop_depth++;
    lower_loop_body(L, &s->body);
    L->frame->loop_depth--;
    L->b.loc = s->loc;
    yield_carried(L, s->loc, &c, true, NULL, VAL_NONE);
    L->b.block = parent;

    ValId *ops = arena_alloc(L->ctx->arena, sizeof(ValId) * (size_t)(c.n + 3));
    ops[0] = vlb.id;
    ops[1] = vub.id;
    ops[2] = vst.id;
    for (int i = 0; i < c.n; i++) ops[3 + i] = inits[i];
    IrOp *op = ir_build(&L->b, OP_FOR, ops, (uint32_t)c.n + 3, c.types, (uint32_t)c.n, 1);
    op->attr.i = num_stages;
    op->attr.flags = flatten ? FOR_FLATTEN : 0;
    adopt_region(op, 0, body);
    *L->scope = before;
    bind_values(L, &c, op->results);
}

static void lower_while_loop(Lower *L, AstNode *s);

static void lower_while(Lower *L, AstNode *s) {
    if (s->orelse.n) diag_error(L->ctx, s->orelse.items[0]->loc, "while ... else is not supported");
    LoopFlags lf = loop_flags_enter(L);
    lower_while_loop(L, s);
    loop_flags_leave(L, &lf);
}

/* The condition of a while loop: false once a break ran. */
static ValId while_cond(Lower *L, AstNode *cond) {
    ValId c = scalar_cond(L, cond->loc, lower_expr(L, cond));
    Binding *brk = scope_find(L, L->scope, FLAG_BRK);
    if (brk->val.kind != LV_TENSOR) return c;
    L->b.loc = cond->loc;
    LVal go = lower_unary(L, cond->loc, UN_NOT, brk->val);
    return lower_binop(L, cond->loc, BIN_BITAND, lval_tensor(L, c), go).id;
}

static void lower_while_loop(Lower *L, AstNode *s) {
    int n_names;
    const char **names = carried_names(L, s, s->cond, &s->body, NULL, ir_scalar(ET_I32), &n_names);
    ValId *inits;
    L->b.loc = s->loc;
    Carried c = loop_carried(L, s->loc, names, n_names, &inits);
    Scope before = scope_copy(L, L->scope);
    IrBlock *parent = L->b.block, *cond_blk = ir_block_new(L->fn), *body = ir_block_new(L->fn);
    for (int i = 0; i < c.n; i++) {
        ir_block_add_arg(L->fn, cond_blk, c.types[i]);
        ir_block_add_arg(L->fn, body, c.types[i]);
    }
    /* region 0: the condition, forwarding the carried values unchanged */
    L->b.block = cond_blk;
    bind_block_args(L, &c, cond_blk, 0);
    ValId *fwd = arena_alloc(L->ctx->arena, sizeof(ValId) * (size_t)(c.n + 1));
    fwd[0] = while_cond(L, s->cond);
    for (int i = 0; i < c.n; i++) fwd[1 + i] = cond_blk->args[i];
    L->b.loc = s->cond->loc;
    ir_build(&L->b, OP_CONDITION, fwd, (uint32_t)c.n + 1, NULL, 0, 0);
    /* region 1: the body */
    *L->scope = scope_copy(L, &before);
    L->b.block = body;
    bind_block_args(L, &c, body, 0);
    L->frame->loop_depth++;
    lower_loop_body(L, &s->body);
    L->frame->loop_depth--;
    L->b.loc = s->loc;
    yield_carried(L, s->loc, &c, true, NULL, VAL_NONE);
    L->b.block = parent;
    IrOp *op = ir_build(&L->b, OP_WHILE, inits, (uint32_t)c.n, c.types, (uint32_t)c.n, 2);
    adopt_region(op, 0, cond_blk);
    adopt_region(op, 1, body);
    *L->scope = before;
    bind_values(L, &c, op->results);
}

/* ---- statements ---- */

static void lower_return(Lower *L, AstNode *s) {
    if (L->frame->loop_depth)
        diag_error(L->ctx, s->loc, "Cannot have `return` statements inside `while` or `for` statements in triton");
    LVal v = s->lhs ? lower_expr(L, s->lhs) : lval_none();
    if (L->frame->is_kernel && v.kind != LV_NONE) diag_error(L->ctx, s->loc, "a kernel cannot return a value");
    if (v.kind != LV_NONE) scope_set(L, FLAG_RETVAL, v);
    else if (scope_find(L, L->scope, FLAG_RETVAL))
        diag_error(L->ctx, s->loc, "this `return` gives no value but another `return` of '%s' gives one",
                   L->frame->func->node->str);
    scope_set(L, FLAG_RET, lval_bool(true));
}

/* break / continue: set the innermost loop's flag. */
static void lower_jump(Lower *L, AstNode *s) {
    bool brk = s->kind == A_BREAK;
    Binding *b = scope_find(L, L->scope, brk ? FLAG_BRK : FLAG_CONT);
    if (!b) diag_error(L->ctx, s->loc, "'%s' outside loop", brk ? "break" : "continue");
    b->val = lval_bool(true);
}

static void lower_stmt(Lower *L, AstNode *s) {
    L->b.loc = s->loc;
    switch (s->kind) {
    case A_EXPR_STMT: lower_expr(L, s->lhs); return;
    case A_ASSIGN:
        if (s->args.n != 1)
            diag_error(L->ctx, s->loc, "simultaneous multiple assignment is not supported.");
        assign_target(L, s->args.items[0], lower_expr(L, s->rhs), true);
        return;
    case A_ANNASSIGN: lower_annassign(L, s); return;
    case A_AUGASSIGN: lower_augassign(L, s); return;
    case A_IF: lower_if(L, s); return;
    case A_FOR: lower_for(L, s); return;
    case A_WHILE: lower_while(L, s); return;
    case A_RETURN: lower_return(L, s); return;
    case A_PASS: return;
    case A_ASSERT: {
        LVal cond = lower_expr(L, s->cond);
        LVal msg = s->lhs ? lower_expr(L, s->lhs) : lval_none();
        lower_assert(L, s->loc, s->cond->loc, cond, &msg, s->lhs ? s->lhs->loc : s->loc);
        return;
    }
    case A_BREAK:
    case A_CONTINUE: lower_jump(L, s); return;
    case A_DEL: diag_error(L->ctx, s->loc, "unsupported statement 'del'");
    case A_GLOBAL: diag_error(L->ctx, s->loc, "unsupported statement 'global'");
    case A_NONLOCAL: diag_error(L->ctx, s->loc, "unsupported statement 'nonlocal'");
    case A_RAISE: diag_error(L->ctx, s->loc, "unsupported statement 'raise'");
    case A_IMPORT: diag_error(L->ctx, s->loc, "unsupported statement 'import' inside a @jit function");
    case A_FUNCDEF:
        diag_error(L->ctx, s->loc, "nested function definitions are not allowed inside a @triton.jit function; "
                                   "define '%s' at module level with @triton.jit",
                   s->str);
    case A_UNSUPPORTED: diag_error(L->ctx, s->loc, "unsupported statement '%s'", s->str ? s->str : "?");
    default: diag_error(L->ctx, s->loc, "unsupported statement");
    }
}

/* Whether control reaches the next statement: 1 yes, 0 no (a return,
 * break or continue ran on every path), -1 only where the i1 *stopped is
 * false. */
static int flow_state(Lower *L, SrcLoc loc, ValId *stopped) {
    LVal acc = {0};
    bool have = false;
    for (size_t i = 0; i < ARRAY_LEN(stop_flags); i++) {
        Binding *b = scope_find(L, L->scope, stop_flags[i]);
        if (!b) continue;
        if (b->val.kind != LV_TENSOR) {
            if (lower_truth(L, loc, &b->val)) return 0;
            continue;
        }
        acc = have ? lower_binop(L, loc, BIN_BITOR, acc, b->val) : b->val;
        have = true;
    }
    if (!have) return 1;
    *stopped = acc.id;
    return -1;
}

static bool flow_stopped(Lower *L, SrcLoc loc) {
    for (size_t i = 0; i < ARRAY_LEN(stop_flags); i++) {
        Binding *b = scope_find(L, L->scope, stop_flags[i]);
        if (b && b->val.kind != LV_TENSOR && lower_truth(L, loc, &b->val)) return true;
    }
    return false;
}

/* Statements from index from on. Once a return, break or continue may have
 * run, the rest of the block is nested in `if not stopped:` (the IR stays
 * structured: no jumps). */
static void lower_block_from(Lower *L, AstList *body, int from) {
    for (int i = from; i < body->n; i++) {
        ValId stopped;
        SrcLoc loc = body->items[i]->loc;
        L->b.loc = loc;
        int st = flow_state(L, loc, &stopped);
        if (st == 0) return;
        if (st < 0) {
            ValId go = lower_unary(L, loc, UN_NOT, lval_tensor(L, stopped)).id;
            IfArm arms[2] = {{body, i, true, false}, {NULL, 0, false, true}};
            lower_if_arms(L, loc, go, arms);
            return;
        }
        lower_stmt(L, body->items[i]);
    }
}

void lower_block(Lower *L, AstList *body) { lower_block_from(L, body, 0); }

/* ---- calls to @jit functions (inlined) ---- */

static AstNode *param_node(AstFunc *f, int i) { return f->node->args.items[i]; }

static int param_index(AstFunc *f, const char *name) {
    for (int i = 0; i < f->node->args.n; i++)
        if (!strcmp(param_node(f, i)->str, name)) return i;
    return -1;
}

static void check_plain_params(Lower *L, AstFunc *f) {
    for (int i = 0; i < f->node->args.n; i++)
        if (param_node(f, i)->op)
            diag_error(L->ctx, param_node(f, i)->loc,
                       "*args and **kwargs parameters are not supported in @jit functions");
}

/* Lowers the callee's body. An error inside it gets a note pointing at this
 * call, so a mistake in a helper shows the chain of calls that reached it. */
static void lower_callee_body(Lower *L, SrcLoc call, AstFunc *f) {
    jmp_buf here;
    jmp_buf *outer = L->ctx->bail;
    if (!outer) {
        lower_block(L, &f->node->body);
        return;
    }
    L->ctx->bail = &here;
    if (setjmp(here)) {
        L->ctx->bail = outer;
        diag_note(L->ctx, call, "in the call to '%s' here", f->node->str);
        longjmp(*outer, 1);
    }
    lower_block(L, &f->node->body);
    L->ctx->bail = outer;
}

/* What the inlined body of f returned: its return value once every path
 * returned one, None when no path did. */
static LVal callee_result(Lower *L, AstFunc *f, Scope *scope) {
    Binding *ret = scope_find(L, scope, FLAG_RET), *val = scope_find(L, scope, FLAG_RETVAL);
    if (!val) return lval_none();
    if (ret->val.kind == LV_TENSOR)
        diag_error(L->ctx, f->node->loc, "'%s' returns a value on some paths but falls off its end on others",
                   f->node->str);
    return val->val;
}

LVal lower_call_jit(Lower *L, SrcLoc loc, AstFunc *f, const CallArgs *ca) {
    const char *fname = f->node->str;
    for (Frame *fr = L->frame; fr; fr = fr->parent)
        if (fr->func == f) diag_error(L->ctx, loc, "recursive call to '%s' is not supported", fname);
    if (++L->depth > 64) diag_error(L->ctx, loc, "calls to @jit functions are nested too deeply");
    check_plain_params(L, f);
    int np = f->node->args.n;
    LVal *vals = arena_alloc(L->ctx->arena, sizeof(LVal) * (size_t)(np + 1));
    bool *set = arena_alloc(L->ctx->arena, (size_t)np + 1);
    if (ca->n > np)
        diag_error(L->ctx, loc, "%s() takes %d positional argument%s but %d were given", fname, np, np == 1 ? "" : "s",
                   ca->n);
    for (int i = 0; i < ca->n; i++) {
        vals[i] = ca->args[i];
        set[i] = true;
    }
    for (int i = 0; i < ca->n_kw; i++) {
        int k = param_index(f, ca->kw_names[i]);
        if (k < 0)
            diag_error(L->ctx, ca->kw_locs[i], "%s() got an unexpected keyword argument '%s'", fname, ca->kw_names[i]);
        if (set[k])
            diag_error(L->ctx, ca->kw_locs[i], "%s() got multiple values for argument '%s'", fname, ca->kw_names[i]);
        vals[k] = ca->kw_vals[i];
        set[k] = true;
    }
    Scope scope = {0};
    Frame frame = {f, L->frame, false, lval_none(), 0};
    LModule *saved_mod = module_enter(L, module_of(L, f->module));
    Scope *saved_scope = L->scope;
    Frame *saved_frame = L->frame;
    SrcLoc saved_loc = L->b.loc;
    L->scope = &scope;
    L->frame = &frame;
    for (int i = 0; i < np; i++) {
        AstNode *p = param_node(f, i);
        if (!set[i]) {
            if (!p->rhs) diag_error(L->ctx, loc, "%s() missing required argument '%s'", fname, p->str);
            vals[i] = lower_expr(L, p->rhs);   /* defaults see module names only */
        }
        if (is_constexpr_annotation(p->third) && vals[i].kind == LV_TENSOR && !vals[i].has_origin)
            diag_error(L->ctx, loc, "argument '%s' of %s() is tl.constexpr but the value passed is a tensor", p->str,
                       fname);
        if (is_constexpr_annotation(p->third) && vals[i].kind == LV_TENSOR) vals[i] = lval_int(vals[i].origin_i);
    }
    for (int i = 0; i < np; i++) scope_set(L, param_node(f, i)->str, vals[i]);
    scope_set(L, FLAG_RET, lval_bool(false));
    lower_callee_body(L, loc, f);
    frame.ret = callee_result(L, f, &scope);
    module_enter(L, saved_mod);
    L->scope = saved_scope;
    L->frame = saved_frame;
    L->b.loc = saved_loc;
    L->depth--;
    return frame.ret;
}

/* ---- the kernel ---- */

static LVal sig_value(Lower *L, const SigEntry *e) {
    switch (e->cv_kind) {
    case CV_INT: return lval_int(e->ival);
    case CV_FLOAT: return lval_float(e->fval);
    case CV_BOOL: return lval_bool(e->ival != 0);
    case CV_NONE: return lval_none();
    case CV_STR: return lval_str(e->sval, strlen(e->sval));
    case CV_DTYPE: return lval_dtype(ir_scalar(e->type));
    }
    tric_unreachable();
}

/* The signature entry of each parameter: named entries by name, the others
 * in order. NULL where a parameter with a default has none. */
static const SigEntry **match_signature(Lower *L, AstFunc *f, const Signature *sig) {
    int np = f->node->args.n;
    const SigEntry **by_param = arena_alloc(L->ctx->arena, sizeof(SigEntry *) * (size_t)(np + 1));
    for (int i = 0; i < sig->n; i++) {
        const SigEntry *e = &sig->entries[i];
        if (!e->name) continue;
        int k = param_index(f, e->name);
        if (k < 0) diag_error(L->ctx, e->loc, "kernel '%s' has no parameter named '%s'", f->node->str, e->name);
        if (by_param[k]) diag_error(L->ctx, e->loc, "parameter '%s' is given twice in the signature", e->name);
        by_param[k] = e;
    }
    int next = 0;
    for (int i = 0; i < sig->n; i++) {
        if (sig->entries[i].name) continue;
        while (next < np && by_param[next]) next++;
        if (next == np) break;
        by_param[next++] = &sig->entries[i];
    }
    bool complete = true;
    for (int i = 0; i < np; i++)
        if (!by_param[i] && !param_node(f, i)->rhs) complete = false;
    if (!complete || sig->n > np)
        diag_error(L->ctx, f->node->loc, "kernel '%s' has %d parameter%s but the signature gives %d", f->node->str, np,
                   np == 1 ? "" : "s", sig->n);
    return by_param;
}

/* Parameter `name`'s value from a tuple entry: each pointer or scalar item
 * a parameter of its own named NAME.I (NAME.I.J nested), part
 * PARAM_TUPLE_ITEM, part_index its leaf's place in the tuple flattened
 * depth first (values and None count), which is how launches find it; a
 * tl.constexpr parameter's tuple holds values only. */
static LVal tuple_param(Lower *L, const char *arg, const char *name, const SigEntry *e, bool is_cx, int *leaf) {
    if (e->kind != SIG_TUPLE) {
        int index = (*leaf)++;
        if (e->kind == SIG_CONSTEXPR) return sig_value(L, e);
        if (is_cx)
            diag_error(L->ctx, e->loc, "parameter '%s' is tl.constexpr, so the signature must give its value, not a "
                       "type", arg);
        if (e->equals_one) return lval_int(1);
        if (e->kind == SIG_TENSORDESC)
            diag_error(L->ctx, e->loc, "a tensor descriptor inside a tuple argument is not supported");
        if (index > UINT8_MAX) diag_error(L->ctx, e->loc, "a tuple argument has at most 256 items");
        IrType t = e->kind == SIG_POINTER ? ir_ptr(e->type) : ir_scalar(e->type);
        LVal v = lval_tensor(L, ir_param_add(L->fn, name, t, e->divisibility));
        IrParam *p = &L->fn->params[L->fn->n_params - 1];
        p->arg = arg, p->part = PARAM_TUPLE_ITEM, p->part_index = (uint8_t)index;
        v.const_ptr = e->is_const_ptr;
        return v;
    }
    LVal t = {0};
    t.kind = LV_TUPLE;
    t.n = (size_t)e->n_items;
    t.items = arena_alloc(L->ctx->arena, sizeof(LVal) * (t.n + 1));
    for (int i = 0; i < e->n_items; i++)
        t.items[i] = tuple_param(L, arg, arena_printf(L->ctx->arena, "%s.%d", name, i), &e->items[i], is_cx, leaf);
    return t;
}

/* A plain parameter the signature gives a value: launchers (C emission)
 * need to know it is not passed, and what it was specialized to. */
static void note_baked(Lower *L, const char *name, const SigEntry *e, bool is_constexpr) {
    bool is_int = e->kind == SIG_CONSTEXPR && (e->cv_kind == CV_INT || e->cv_kind == CV_BOOL);
    struct IrBakedParam b = {name, sig_entry_text(L->ctx->arena, e), is_constexpr, is_int || e->equals_one,
                             e->equals_one ? 1 : is_int ? e->ival : 0};
    VEC_PUSH(L->ctx->arena, L->fn->baked, L->fn->n_baked, L->fn->cap_baked, b);
}

static void bind_kernel_param(Lower *L, AstNode *p, const SigEntry *e) {
    const char *name = p->str;
    bool is_cx = is_constexpr_annotation(p->third);
    if (!e) {
        scope_set(L, name, lower_expr(L, p->rhs));
        return;
    }
    if (e->kind == SIG_TUPLE) {
        int leaf = 0;
        if (is_cx) note_baked(L, name, e, true);
        scope_set(L, name, tuple_param(L, name, name, e, is_cx, &leaf));
        return;
    }
    if (is_cx) {
        if (e->kind != SIG_CONSTEXPR)
            diag_error(L->ctx, e->loc,
                       "parameter '%s' is tl.constexpr, so the signature must give its value, not a type", name);
        note_baked(L, name, e, true);
        scope_set(L, name, sig_value(L, e));
        return;
    }
    if (e->kind == SIG_CONSTEXPR) {
        /* a value for a plain parameter bakes it in as a constexpr would be:
         * Triton's AOT signatures ("1024" for n) and Inductor's constants do
         * so, and None arguments are always specialized away */
        note_baked(L, name, e, false);
        scope_set(L, name, sig_value(L, e));
        return;
    }
    if (e->equals_one) {
        note_baked(L, name, e, false);
        scope_set(L, name, lval_int(1));   /* ":1" : Triton bakes the value in */
        return;
    }
    if (e->kind == SIG_TENSORDESC) {
        scope_set(L, name, lower_desc_param(L, name, e));
        return;
    }
    IrType t = e->kind == SIG_POINTER ? ir_ptr(e->type) : ir_scalar(e->type);
    LVal v = lval_tensor(L, ir_param_add(L->fn, name, t, e->divisibility));
    v.const_ptr = e->is_const_ptr;
    scope_set(L, name, v);
}

/* Decorators other than jit, autotune and heuristics (Inductor's
 * @triton_heuristics.pointwise(...), say) change nothing tric compiles:
 * a note says they are ignored. */
static void note_decorators(Lower *L, AstFunc *f) {
    static const char *const known[] = {"jit", "autotune", "heuristics"};
    for (int i = 0; i < f->n_decorators; i++) {
        AstDecorator *d = &f->decorators[i];
        if (d->n_path == 0) continue;
        const char *last = d->path[d->n_path - 1];
        bool ok = false;
        for (size_t k = 0; k < ARRAY_LEN(known); k++) ok |= !strcmp(last, known[k]);
        if (ok) continue;
        Buf name = {.arena = L->ctx->arena};
        for (int k = 0; k < d->n_path; k++) buf_printf(&name, "%s%s", k ? "." : "", d->path[k]);
        diag_note(L->ctx, d->loc, "decorator '%s' is ignored", buf_str(&name));
    }
}

IrFunc *lower_kernel(Ctx *c, AstModule *m, const char *name, const Signature *sig) {
    AstFunc *f = module_find_func(m, name);
    if (!f) diag_fatal(c, NULL, "no @jit function named '%s' in %s", name, m->file->path);
    if (!f->parsed) diag_error(c, f->node->loc, "function '%s' is not decorated with @triton.jit", name);
    Lower L = {0};
    L.ctx = c;
    L.mod = m;
    L.fn = ir_func_new(c, name);
    L.b.fn = L.fn;
    L.b.block = L.fn->body;
    L.b.loc = f->node->loc;
    module_enter(&L, module_root(&L, m));
    note_decorators(&L, f);
    Scope scope = {0};
    Frame frame = {f, NULL, true, lval_none(), 0};
    L.scope = &scope;
    L.frame = &frame;
    check_plain_params(&L, f);
    const SigEntry **entries = match_signature(&L, f, sig);
    for (int i = 0; i < f->node->args.n; i++) bind_kernel_param(&L, param_node(f, i), entries[i]);
    scope_set(&L, FLAG_RET, lval_bool(false));
    lower_block(&L, &f->node->body);
    L.b.loc = f->node->loc;
    ir_build(&L.b, OP_RET, NULL, 0, NULL, 0, 0);
    if (c->verify_each) ir_verify_or_fail(L.fn, "IR verification failed after lowering");   /* before legalize's */
    opt_run_pass(L.fn, "legalize");   /* Triton's conversions on this target (dumped, verified as a pass) */
    return L.fn;
}
