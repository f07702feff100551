/* Private to the lowering: lower.c (values, scopes, statements, kernels),
 * lower_expr.c (expressions, promotion, broadcasting), builtins.c (tl.*).
 *
 * During lowering every expression evaluates to a LVal: either a
 * compile-time value (Python int/float/bool/None/str, a dtype, a tuple, a
 * module, a function) kept unevaluated-but-known and folded in C, or a tensor
 * (an IR value: a scalar of rank 0 or a tile). Compile-time numbers become IR
 * constants only when they meet a tensor (lval_to_tensor). */
#ifndef TRIC_LOWER_H
#define TRIC_LOWER_H

#include "frontend.h"

typedef enum LKind {
    LV_NONE,      /* Python None */
    LV_BOOL,      /* i */
    LV_INT,       /* i */
    LV_FLOAT,     /* f */
    LV_STR,       /* s, n */
    LV_DTYPE,     /* dtype (a scalar IrType; pointers have elem ET_PTR) */
    LV_TUPLE,     /* items, n (tuples and lists alike: both immutable in Triton) */
    LV_SLICE,     /* the ':' of x[:, None] */
    LV_MODULE,    /* s = dotted path, "triton.language" */
    LV_FUNC,      /* func: a @jit function of the module */
    LV_BUILTIN,   /* builtin; self (bound methods such as x.to) */
    LV_TENSOR,    /* id = IR value */
    LV_BLOCK_PTR, /* tl.make_block_ptr's: items = base, shape[r], strides[r], offsets[r] (n = 1 + 3r);
                     dtype = the block's tile type (block_shape x the pointee) */
    LV_TENSOR_DESC /* a tensor descriptor (tl.make_tensor_descriptor, or a host TensorDescriptor
                     argument): items = base, shape[r] (int32), strides[r] (int64) (n = 1 + 2r);
                     dtype = the block's tile type; i = 1 for padding "nan" */
} LKind;

struct Builtin;
typedef struct LVal LVal;

struct LVal {
    LKind kind;
    bool const_ptr;          /* LV_TENSOR: derived from a "*k" argument */
    bool has_origin;         /* LV_TENSOR: materialized from the number origin_i */
    int64_t i;
    int64_t origin_i;
    double f;
    const char *s;
    size_t n;                /* LV_STR length; LV_TUPLE count */
    LVal *items;
    IrType dtype;
    ValId id;
    AstFunc *func;
    const struct Builtin *builtin;
    LVal *self;
    struct LModule *umod;    /* LV_MODULE: a module of the user's (a .py file or a package), else NULL */
};

/* A name bound in the current function (flat: Python has no block scope). */
typedef struct Binding {
    const char *name;
    LVal val;
} Binding;

/* Lookups in a large scope go through a hash index over b by name, built
 * by scope_find and extended there with the bindings pushed since (a
 * kernel can bind thousands of names: Inductor's tmp0, tmp1, ...).
 * index_of is the b it indexes: a scope_copy (a new b) or a grown b gets
 * a fresh index; so does a removal (index_of reset). */
typedef struct Scope {
    Binding *b;
    int n, cap;
    HashIdx *index;           /* b by name */
    int n_indexed;            /* b[0..n_indexed) are in it */
    const Binding *index_of;
} Scope;

/* One @jit function being lowered: the kernel, or a helper being inlined. */
typedef struct Frame {
    AstFunc *func;
    struct Frame *parent;
    bool is_kernel;
    LVal ret;                /* what the inlined body returned */
    int loop_depth;          /* dynamic for/while nesting */
} Frame;

/* What a loop's dry run found (see carried_names in lower.c). */
typedef struct LoopMemo {
    const AstNode *loop;
    Scope entry;             /* the scope the loop was entered with */
    const char **names;      /* the names its body re-binds */
    int n;
    int next;                /* the next memo of the same loop, index + 1 (0: none) */
} LoopMemo;

/* A module of the user's that the kernel imports (modules.c). */
typedef struct LModule {
    const char *name;        /* dotted, absolute; "" for the kernel's own file */
    AstModule *mod;          /* NULL for a package directory without __init__.py */
    bool is_pkg;
    LVal *globals;           /* caches parallel to mod->globals (see Lower) */
    uint8_t *global_state;
} LModule;

typedef struct Lower {
    Ctx *ctx;
    AstModule *mod;
    IrFunc *fn;
    IrBuilder b;
    Scope *scope;
    Frame *frame;
    bool dry_run;            /* lowering a loop body only to see what it assigns */
    int depth;               /* expression/call nesting guard */
    int name_depth;          /* module-level name resolution nesting guard */
    const char *name_root;   /* the name whose resolution is outermost */
    int64_t unrolled;        /* static_range iterations lowered so far, nested ones included */
    LVal *globals;           /* cache, parallel to mod->globals */
    uint8_t *global_state;   /* 0 = not evaluated, 1 = evaluating, 2 = done */
    LoopMemo *memo;
    int n_memo, cap_memo;
    HashIdx *memo_at;        /* the first memo of each loop, by loop */
    LModule *cur;            /* the module whose code is being lowered (mod, globals are its) */
    LModule **mods;          /* every module loaded so far; mods[0] is the kernel's */
    int n_mods, cap_mods;
} Lower;

/* The evaluated arguments of a call, in source order. */
typedef struct CallArgs {
    LVal *args;
    SrcLoc *locs;
    int n;
    const char **kw_names;
    LVal *kw_vals;
    SrcLoc *kw_locs;
    int n_kw;
} CallArgs;

/* One argument of a call after binding it to a parameter of a builtin. */
typedef struct LArg {
    bool present;
    LVal v;
    SrcLoc loc;
} LArg;

#define BI_MAX_PARAMS 12
typedef LVal (*BuiltinFn)(Lower *L, SrcLoc loc, LArg *args, LVal *rest, int n_rest);

enum {
    BM_TL = 1,        /* triton.language.X */
    BM_MATH = 2,      /* triton.language.math.X */
    BM_TRITON = 4,    /* triton.X */
    BM_PY = 8,        /* Python builtin: X */
    BM_METHOD = 16,   /* tensor method: x.X(...) with x as the first argument */
    BM_DTYPE = 32,    /* dtype method: tl.float16.X() */
    BM_DESC = 64,     /* tensor descriptor method: desc.X(...) */
    BM_CUDA = 128     /* triton.language.extra.cuda.X (its libdevice names are libdevice.c's) */
};

typedef struct Builtin {
    const char *name;
    unsigned where;          /* BM_* */
    const char *params;      /* "pointer,mask=,other=" ; "*" at the end: extra positionals */
    BuiltinFn fn;
} Builtin;

/* ---- lower.c ---- */
LVal lval_none(void);
LVal lval_int(int64_t v);
LVal lval_bool(bool v);
LVal lval_float(double v);
LVal lval_str(const char *s, size_t n);
LVal lval_dtype(IrType t);
LVal lval_tensor(Lower *L, ValId id);
bool lval_is_const(const LVal *v);       /* a compile-time value, not a tensor */
bool lval_is_number(const LVal *v);      /* bool, int or float */
const char *lval_kind_name(const LVal *v);
void lval_repr(Lower *L, Buf *out, const LVal *v);   /* Python-like text */
const char *dtype_name(IrType t);        /* Triton's: "fp32", "int8", "pointer<fp16>" */
const char *type_str(Lower *L, IrType t); /* "fp32" or "<[128, 64], fp32>" */
const char *shape_str(Lower *L, IrType t);  /* "[128, 64]" */
IrType lower_type(Lower *L, const LVal *v);  /* type of a tensor */
void lower_block(Lower *L, AstList *body);
LVal lower_call_jit(Lower *L, SrcLoc loc, AstFunc *f, const CallArgs *ca);
LVal lower_resolve_name(Lower *L, SrcLoc loc, const char *name);
LVal lower_module_attr(Lower *L, SrcLoc use, LModule *m, const char *name);   /* m.NAME */
bool lower_module_has(Lower *L, SrcLoc use, LModule *m, const char *name);   /* hasattr(m, NAME) */
bool lower_truth(Lower *L, SrcLoc loc, const LVal *v);   /* Python truth of a constant */

/* ---- modules.c ---- imports of the user's own modules */
LModule *module_root(Lower *L, AstModule *m);            /* the kernel's file */
LModule *module_of(Lower *L, AstModule *m);              /* a loaded module by its AST */
LModule *module_enter(Lower *L, LModule *m);             /* lower m's code; returns the previous */
LModule *module_find(Lower *L, const char *dotted);      /* NULL if it is nowhere */
_Noreturn void module_not_found(Lower *L, SrcLoc use, const char *dotted);
/* the absolute name of `from .<rel> import` (level dots) written in m */
const char *module_relative(Lower *L, SrcLoc use, const LModule *m, int level, const char *rel);

/* ---- lower_expr.c ---- */
LVal lower_expr(Lower *L, AstNode *e);
void lower_call_args(Lower *L, AstNode *call, CallArgs *out);
LVal lval_to_tensor(Lower *L, SrcLoc loc, LVal v);
ElemType literal_type(const LVal *v);     /* Triton's to_tensor typing of a number */
LVal lower_cast(Lower *L, SrcLoc loc, LVal v, IrType to, bool bitcast, int rounding);
/* x reshaped to t, row-major order kept (shapes.c) */
LVal lower_reshape(Lower *L, SrcLoc loc, LVal x, IrType t);
LVal lower_item(Lower *L, SrcLoc loc, LVal x);   /* x.item(): a one-element tensor as a scalar */
LVal lower_binop(Lower *L, SrcLoc loc, int op, LVal a, LVal b);      /* AstBinOp */
LVal lower_compare(Lower *L, SrcLoc loc, int op, LVal a, LVal b);    /* AstCmpOp */
LVal lower_minmax(Lower *L, SrcLoc loc, bool is_max, LVal a, LVal b, bool propagate_nan);
LVal lower_where(Lower *L, SrcLoc loc, LVal c, LVal a, LVal b);
LVal lower_umulhi(Lower *L, SrcLoc loc, LVal a, LVal b);   /* tl.umulhi */
/* a `math` op of function fn (ir/mathfn.def); what names it in errors */
LVal lower_math(Lower *L, SrcLoc loc, int fn, LVal *args, int n, const char *what);
/* libdevice.NAME as a builtin (frontend/libdevice.c), or NULL */
const Builtin *libdevice_builtin(const char *name);
LVal lower_broadcast_to(Lower *L, SrcLoc loc, LVal v, IrType shape_of);
ValId lower_expand_dim(Lower *L, SrcLoc loc, ValId v, int axis);
IrType lower_broadcast_shape(Lower *L, SrcLoc loc, IrType a, IrType b);   /* numpy rules; elem from a */
LVal lower_unary(Lower *L, SrcLoc loc, int op, LVal v);              /* AstUnaryOp */
LVal lower_to_bool(Lower *L, SrcLoc loc, LVal v);   /* tensor -> i1 (x != 0) */
void lower_check_shape(Lower *L, SrcLoc loc, int rank, const int32_t *shape);
LVal lower_attr(Lower *L, SrcLoc loc, LVal obj, const char *name);
/* hasattr(obj, name): whether lower_attr finds it, without an error */
bool lower_has_attr(Lower *L, SrcLoc loc, LVal obj, const char *name);
LVal lower_const_tensor(Lower *L, SrcLoc loc, const LVal *num, IrType t);

/* ---- builtins.c ---- */
const Builtin *builtin_find(const char *name, unsigned where);
LVal builtin_call(Lower *L, SrcLoc loc, const Builtin *bi, LVal *self, const CallArgs *ca);
/* a builtin's argument: not given (or None); a compile-time integer; a
 * string ("" when not given); errors name `what` */
bool larg_absent(const LArg *a);
int64_t larg_int(Lower *L, const LArg *a, const char *what);
const char *larg_str(Lower *L, const LArg *a, const char *what);
/* Binds a call's arguments to bi's parameters (slots[BI_MAX_PARAMS]);
 * extra positionals go to *rest when bi takes them. */
void builtin_bind(Lower *L, SrcLoc loc, const Builtin *bi, LVal *self, const CallArgs *ca,
                  LArg *slots, LVal **rest, int *n_rest);
/* range(...)/tl.range(...)/tl.static_range(...) arguments: lb, ub, step,
 * and tl.range's num_stages and flatten (present or not) */
void builtin_range_args(Lower *L, SrcLoc loc, const Builtin *bi, const CallArgs *ca, LArg *lb,
                        LArg *ub, LArg *step, LArg *num_stages, LArg *flatten);
/* attribute NAME of module PATH: a submodule, dtype, builtin or constant */
bool builtin_module_attr(Lower *L, const char *path, const char *name, LVal *out);
bool builtin_is_module(const char *path);
const char *builtin_module_canonical(Lower *L, const char *path);   /* "tric.x" -> "triton.x" */
bool builtin_is(const LVal *v, const char *name);
/* an assert statement or tl.device_assert: an OP_ASSERT on cond (msg may be
 * NULL or None: no message) */
void lower_assert(Lower *L, SrcLoc loc, SrcLoc cond_loc, LVal cond, const LVal *msg, SrcLoc msg_loc);

/* ---- reductions.c: the reductions' builtins (table in builtins.c) ---- */
LVal bi_reduce(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_sum(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_max(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_min(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_argmax(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_argmin(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_xor_sum(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_reduce_or(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_associative_scan(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_cumsum(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_cumprod(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);

/* ---- elementwise.c ---- tl.inline_asm_elementwise, tl.map_elementwise */
LVal bi_inline_asm_elementwise(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_map_elementwise(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);

/* ---- random.c ---- tl.umulhi, tl.cos/sin, Triton's Philox generator */
LVal bi_umulhi(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_cos(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_sin(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_philox_impl(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_philox(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_randint4x(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_randint(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_uint_to_uniform_float(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_rand(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_rand4x(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_pair_uniform_to_normal(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_randn(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_randn4x(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);

/* ---- shapes.c ---- reshape/view/ravel, trans/permute, broadcast(_to),
 * expand_dims, join/split, interleave, cat */
LVal bi_reshape(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_ravel(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_item(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_flip(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_sort(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_topk(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_trans(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_permute(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_broadcast_to(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_broadcast(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_expand_dims(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_join(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_split(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_interleave(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_cat(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal lower_transpose_attr(Lower *L, SrcLoc loc, LVal x);   /* x.T */

/* ---- blockptr.c ---- tl.make_block_ptr, tl.advance; tl.load/tl.store of a
 * block pointer: their operands into ops (pointers, then mask and other /
 * value and mask), how many */
LVal bi_make_block_ptr(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_advance(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
int lower_block_load(Lower *L, SrcLoc loc, LArg *a, ValId *ops);
int lower_block_store(Lower *L, SrcLoc loc, LArg *a, ValId *ops);
/* tensor descriptors: tl.make_tensor_descriptor, desc.load/store (and
 * tl.load_tensor_descriptor / tl.store_tensor_descriptor), desc.shape and
 * the like; a host descriptor parameter (a SIG_TENSORDESC entry) */
LVal bi_make_tensor_descriptor(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_desc_load(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_desc_store(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_desc_atomic_add(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_desc_atomic_min(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_desc_atomic_max(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_desc_atomic_and(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_desc_atomic_or(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_desc_atomic_xor(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal lower_desc_attr(Lower *L, SrcLoc loc, LVal desc, const char *name);
LVal lower_desc_param(Lower *L, const char *name, const SigEntry *e);

/* ---- dot.c ---- tl.dot */
LVal bi_dot(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
LVal bi_dot_scaled(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest);
/* acc + d where d is a tl.dot call's fresh result: accumulate in the dot */
bool lower_dot_accumulate(Lower *L, LVal acc, LVal d, LVal *out);

#endif
