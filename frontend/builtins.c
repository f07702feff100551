/* The builtins a @jit function can call: tl.* (program ids, arange,
 * creation, load/store, math, hints, static checks), triton.cdiv, and the
 * Python builtins Triton allows (range, len, min, max, int, float, ...),
 * plus what the triton modules export (dtypes, submodules). */
#include "lower.h"
#include "../ir/mathfn.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- modules ---- */

static const char *const known_modules[] = {
    "triton",
    "triton.language",
    "triton.language.core",
    "triton.language.math",
    "triton.language.standard",
    "triton.language.extra",
    "triton.language.extra.cuda",
    "triton.language.extra.libdevice",
    "triton.language.extra.cuda.libdevice",
    "triton.language.PropagateNan",
    "triton.language.random",
};

/* The Python package tric is a drop-in for triton (`import tric as
 * triton`), so its module paths are triton's: "tric.language" is
 * "triton.language". Other paths are returned as they are. */
const char *builtin_module_canonical(Lower *L, const char *path) {
    size_t n = strlen("tric");
    if (strncmp(path, "tric", n) || (path[n] && path[n] != '.')) return path;
    return arena_printf(L->ctx->arena, "triton%s", path + n);
}

bool builtin_is_module(const char *path) {
    for (size_t i = 0; i < ARRAY_LEN(known_modules); i++)
        if (!strcmp(known_modules[i], path)) return true;
    return false;
}

static const struct {
    const char *name;
    ElemType type;
} tl_dtypes[] = {
    {"int1", ET_I1},       {"int8", ET_I8},         {"int16", ET_I16},     {"int32", ET_I32},
    {"int64", ET_I64},     {"uint8", ET_U8},        {"uint16", ET_U16},    {"uint32", ET_U32},
    {"uint64", ET_U64},    {"float8e4nv", ET_F8E4M3}, {"float8e5", ET_F8E5M2}, {"float16", ET_F16},
    {"bfloat16", ET_BF16}, {"float32", ET_F32},     {"float64", ET_F64},
};

/* Real Triton APIs that tric does not implement yet: named in the error. */
static const char *const tl_not_yet[] = {
    "softmax", "max_constancy",
};

bool builtin_module_attr(Lower *L, const char *path, const char *name, LVal *out) {
    const char *sub = arena_printf(L->ctx->arena, "%s.%s", path, name);
    if (builtin_is_module(sub)) {
        *out = (LVal){0};
        out->kind = LV_MODULE;
        out->s = sub;
        return true;
    }
    bool is_tl = !strcmp(path, "triton.language") || !strcmp(path, "triton.language.core");
    /* tl.random holds the same random functions as tl */
    unsigned where = is_tl || !strcmp(path, "triton.language.random") ? BM_TL
                     : !strcmp(path, "triton.language.math") ? BM_MATH
                     : !strcmp(path, "triton") ? BM_TRITON
                     : !strcmp(path, "triton.language.extra.cuda") ? BM_CUDA
                     : 0;
    if (!strcmp(path, "triton.language.PropagateNan")) {
        if (strcmp(name, "NONE") && strcmp(name, "ALL")) return false;
        *out = lval_int(strcmp(name, "ALL") ? 0 : 0xFFFF);
        return true;
    }
    if (is_tl) {
        for (size_t i = 0; i < ARRAY_LEN(tl_dtypes); i++)
            if (!strcmp(tl_dtypes[i].name, name)) {
                *out = lval_dtype(ir_scalar(tl_dtypes[i].type));
                return true;
            }
        if (!strcmp(name, "TRITON_MAX_TENSOR_NUMEL")) {
            *out = lval_int(IR_MAX_NUMEL);
            return true;
        }
        if (!strcmp(name, "pi32_t")) {   /* Triton's name for pointer_type(int32) */
            *out = lval_dtype(ir_ptr(ET_I32));
            return true;
        }
    }
    const Builtin *bi = where ? builtin_find(name, where) : NULL;
    if (!where && strstr(path, "libdevice")) bi = libdevice_builtin(name);
    if (bi) {
        *out = (LVal){0};
        out->kind = LV_BUILTIN;
        out->builtin = bi;
        return true;
    }
    if (is_tl || where == BM_MATH)
        for (size_t i = 0; i < ARRAY_LEN(tl_not_yet); i++)
            if (!strcmp(tl_not_yet[i], name)) diag_error(L->ctx, L->b.loc, "tl.%s is not supported yet", name);
    return false;
}

/* ---- argument binding ---- */

typedef struct ParamSpec {
    const char *names[BI_MAX_PARAMS];
    bool optional[BI_MAX_PARAMS];
    int n;
    int star;      /* index where "*" appeared (extra positionals); -1 none */
} ParamSpec;

/* "pointer,mask=,other=" ; "*,sep=" : positionals to rest, keywords after. */
static ParamSpec param_spec(Lower *L, const char *s) {
    ParamSpec p = {{0}, {0}, 0, -1};
    while (*s) {
        const char *e = s;
        while (*e && *e != ',') e++;
        if (e - s == 1 && *s == '*') {
            p.star = p.n;
        } else {
            TRIC_ASSERT(p.n < BI_MAX_PARAMS);
            bool opt = e[-1] == '=';
            p.names[p.n] = arena_strndup(L->ctx->arena, s, (size_t)(e - s - opt));
            p.optional[p.n++] = opt;
        }
        s = *e ? e + 1 : e;
    }
    return p;
}

void builtin_bind(Lower *L, SrcLoc loc, const Builtin *bi, LVal *self, const CallArgs *ca, LArg *slots,
                  LVal **rest, int *n_rest) {
    ParamSpec p = param_spec(L, bi->params);
    memset(slots, 0, sizeof(LArg) * BI_MAX_PARAMS);
    int next = 0, cap = 0;
    *rest = NULL;
    *n_rest = 0;
    if (self) {
        slots[0] = (LArg){true, *self, loc};
        next = 1;
    }
    int positional_limit = p.star >= 0 ? p.star : p.n;
    for (int i = 0; i < ca->n; i++) {
        if (next < positional_limit) {
            slots[next++] = (LArg){true, ca->args[i], ca->locs[i]};
        } else if (p.star >= 0) {
            VEC_PUSH(L->ctx->arena, *rest, *n_rest, cap, ca->args[i]);
        } else {
            int most = p.n - (self ? 1 : 0);
            diag_error(L->ctx, ca->locs[i], "%s() takes at most %d argument%s (%d given)", bi->name, most,
                       most == 1 ? "" : "s", ca->n);
        }
    }
    for (int i = 0; i < ca->n_kw; i++) {
        int k = -1;
        for (int j = self ? 1 : 0; j < p.n && k < 0; j++)
            if (!strcmp(p.names[j], ca->kw_names[i])) k = j;
        if (k < 0)
            diag_error(L->ctx, ca->kw_locs[i], "%s() got an unexpected keyword argument '%s'", bi->name,
                       ca->kw_names[i]);
        if (slots[k].present)
            diag_error(L->ctx, ca->kw_locs[i], "%s() got multiple values for argument '%s'", bi->name,
                       ca->kw_names[i]);
        slots[k] = (LArg){true, ca->kw_vals[i], ca->kw_locs[i]};
    }
    for (int j = 0; j < p.n; j++) {
        if (!slots[j].present && !p.optional[j])
            diag_error(L->ctx, loc, "%s() missing required argument '%s'", bi->name, p.names[j]);
        if (!slots[j].present) {
            slots[j].v = lval_none();
            slots[j].loc = loc;
        }
    }
}

/* ---- argument helpers ---- */

bool larg_absent(const LArg *a) { return !a->present || a->v.kind == LV_NONE; }

int64_t larg_int(Lower *L, const LArg *a, const char *what) {
    if (a->v.kind == LV_INT || a->v.kind == LV_BOOL) return a->v.i;
    if (a->v.kind == LV_TENSOR && a->v.has_origin) return a->v.origin_i;
    diag_error(L->ctx, a->loc, "%s must be a compile-time integer (tl.constexpr), got a %s", what,
               lval_kind_name(&a->v));
}

static bool arg_bool(Lower *L, const LArg *a, const char *what) {
    if (!a->present) return false;
    if (a->v.kind == LV_TENSOR) diag_error(L->ctx, a->loc, "%s must be a compile-time value", what);
    return lower_truth(L, a->loc, &a->v);
}

const char *larg_str(Lower *L, const LArg *a, const char *what) {
    if (larg_absent(a)) return "";
    if (a->v.kind != LV_STR) diag_error(L->ctx, a->loc, "%s must be a string, got a %s", what, lval_kind_name(&a->v));
    return arena_strndup(L->ctx->arena, a->v.s, a->v.n);
}

static IrType arg_dtype(Lower *L, const LArg *a, const char *what) {
    if (a->v.kind != LV_DTYPE)
        diag_error(L->ctx, a->loc, "%s must be a dtype such as tl.float32, got a %s", what, lval_kind_name(&a->v));
    return a->v.dtype;
}

static LVal arg_tensor(Lower *L, const LArg *a) { return lval_to_tensor(L, a->loc, a->v); }

/* A shape: a tuple/list of compile-time ints, or one int. */
static IrType arg_shape(Lower *L, const LArg *a, IrType elem) {
    IrType t = elem;
    const LVal *items = &a->v;
    size_t n = 1;
    if (a->v.kind == LV_TUPLE) {
        items = a->v.items;
        n = a->v.n;
    }
    if (n > IR_MAX_RANK)
        diag_error(L->ctx, a->loc, "tensors of rank %d are not supported (at most %d)", (int)n, IR_MAX_RANK);
    t.rank = (uint8_t)n;
    for (size_t i = 0; i < n; i++) {
        const LVal *d = &items[i];
        int64_t v;
        if (d->kind == LV_INT) v = d->i;
        else if (d->kind == LV_TENSOR && d->has_origin) v = d->origin_i;
        else diag_error(L->ctx, a->loc, "Shape element %d must have type `constexpr[int]`, got a %s", (int)i,
                        lval_kind_name(d));
        if (v <= 0 || v > (1 << 30))
            diag_error(L->ctx, a->loc, "Shape element %d must be a power of 2, got %lld", (int)i, (long long)v);
        t.shape[i] = (int32_t)v;
    }
    lower_check_shape(L, a->loc, t.rank, t.shape);
    return t;
}

/* ---- program model ---- */

static LVal bi_program_id_like(Lower *L, SrcLoc loc, LArg *a, Opcode opc) {
    int64_t axis = larg_int(L, &a[0], "axis");
    if (axis < 0 || axis > 2)
        diag_error(L->ctx, a[0].loc, "program_id axis must be 0, 1, or 2 but got %lld", (long long)axis);
    IrType t = ir_scalar(ET_I32);
    L->b.loc = loc;
    IrOp *op = ir_build(&L->b, opc, NULL, 0, &t, 1, 0);
    op->attr.i = axis;
    return lval_tensor(L, op->results[0]);
}

static LVal bi_program_id(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    return bi_program_id_like(L, loc, a, OP_PROGRAM_ID);
}

static LVal bi_num_programs(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    return bi_program_id_like(L, loc, a, OP_NUM_PROGRAMS);
}

static LVal bi_arange(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    for (int i = 0; i < 2; i++)
        if (a[i].v.kind != LV_INT && !(a[i].v.kind == LV_TENSOR && a[i].v.has_origin))
            diag_error(L->ctx, a[i].loc, "arange's arguments must be of type tl.constexpr, got a %s",
                       lval_kind_name(&a[i].v));
    int64_t start = larg_int(L, &a[0], "start"), end = larg_int(L, &a[1], "end");
    if (start < INT32_MIN || start > INT32_MAX || end < INT32_MIN || end > INT32_MAX)
        diag_error(L->ctx, loc, "arange must fit in int32");
    if (end <= start) diag_error(L->ctx, loc, "arange's end argument must be greater than the start argument");
    int64_t range = end - start;
    if (range & (range - 1)) diag_error(L->ctx, loc, "arange's range must be a power of 2");
    if (range > IR_MAX_NUMEL)
        diag_error(L->ctx, loc, "numel (%lld) exceeds triton maximum tensor numel (%d)", (long long)range, IR_MAX_NUMEL);
    int32_t n = (int32_t)range;
    IrType t = ir_tile(ir_scalar(ET_I32), 1, &n);
    L->b.loc = loc;
    IrOp *op = ir_build(&L->b, OP_ARANGE, NULL, 0, &t, 1, 0);
    op->attr.i = start;
    op->attr.i2 = end;
    return lval_tensor(L, op->results[0]);
}

/* ---- creation ---- */

static LVal full_of(Lower *L, SrcLoc loc, IrType t, LVal value, SrcLoc vloc) {
    if (lval_is_number(&value)) return lower_const_tensor(L, loc, &value, t);
    if (value.kind != LV_TENSOR)
        diag_error(L->ctx, vloc, "the fill value must be a number or a scalar, got a %s", lval_kind_name(&value));
    if (lower_type(L, &value).rank != 0) diag_error(L->ctx, vloc, "the fill value must be a scalar, not a tensor");
    value = lower_cast(L, loc, value, ir_elem_of(t), false, 0);
    return lower_broadcast_to(L, loc, value, t);
}

static LVal bi_full(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    IrType elem = arg_dtype(L, &a[2], "dtype");
    return full_of(L, loc, arg_shape(L, &a[0], elem), a[1].v, a[1].loc);
}

static LVal bi_zeros(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    IrType elem = arg_dtype(L, &a[1], "dtype");
    return full_of(L, loc, arg_shape(L, &a[0], elem), lval_int(0), loc);
}

static LVal bi_zeros_like(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    LVal x = arg_tensor(L, &a[0]);
    IrType t = lower_type(L, &x);
    if (!larg_absent(&a[1])) t = ir_with_elem(t, arg_dtype(L, &a[1], "dtype"));
    return full_of(L, loc, t, lval_int(0), loc);
}

/* ---- memory ---- */

static int cache_modifier(Lower *L, const LArg *a, bool store) {
    const char *s = larg_str(L, a, "cache_modifier");
    static const char *const load_ok[] = {"", ".ca", ".cg", ".cv", ".cs"};
    static const char *const store_ok[] = {"", ".wb", ".cg", ".cs", ".wt"};
    const char *const *ok = store ? store_ok : load_ok;
    for (int i = 0; i < 5; i++)
        if (!strcmp(s, ok[i]))
            for (int m = 0; m < CACHE_WT + 1; m++)
                if (!strcmp(cache_mod_names[m], s)) return m;
    diag_error(L->ctx, a->loc, "Cache modifier %s not supported", s);
}

static int eviction_policy(Lower *L, const LArg *a) {
    const char *s = larg_str(L, a, "eviction_policy");
    if (!*s || !strcmp(s, "evict_normal")) return EVICT_NONE;
    if (!strcmp(s, "evict_first")) return EVICT_FIRST;
    if (!strcmp(s, "evict_last")) return EVICT_LAST;
    diag_error(L->ctx, a->loc, "Eviction policy %s not supported", s);
}

static LVal pointer_arg(Lower *L, const LArg *a, const char *fn) {
    LVal p = arg_tensor(L, a);
    IrType t = lower_type(L, &p);
    if (t.elem != ET_PTR) diag_error(L->ctx, a->loc, "Unsupported ptr type %s in `tl.%s`", type_str(L, t), fn);
    return p;
}

/* mask/other/value broadcast to the pointer's shape. */
static LVal fit_to_pointer(Lower *L, const LArg *a, LVal v, IrType pt, const char *what) {
    IrType vt = lower_type(L, &v);
    if (pt.rank == 0 && vt.rank > 0)
        diag_error(L->ctx, a->loc, "%s argument cannot be block type if pointer argument is not a block", what);
    IrType shape = pt;
    if (vt.rank > pt.rank)
        diag_error(L->ctx, a->loc, "incompatible shapes %s and %s", shape_str(L, vt), shape_str(L, pt));
    for (int i = 0; i < vt.rank; i++) {
        int32_t d = vt.shape[i], pd = pt.shape[pt.rank - vt.rank + i];
        if (d != pd && d != 1)
            diag_error(L->ctx, a->loc, "incompatible shapes %s and %s", shape_str(L, vt), shape_str(L, pt));
    }
    return lower_broadcast_to(L, a->loc, v, shape);
}

/* `other` of a load, `value` of a store: converted to the pointee type and
 * broadcast to the pointer's shape. A number becomes a constant of that type
 * directly (what Triton's to_tensor + cast amounts to). */
static LVal value_for_pointer(Lower *L, const LArg *a, IrType pt, const char *what) {
    IrType elem = ir_scalar(pt.pointee);
    if (lval_is_number(&a->v)) return lower_const_tensor(L, a->loc, &a->v, ir_with_elem(pt, elem));
    LVal v = lower_cast(L, a->loc, arg_tensor(L, a), elem, false, 0);
    return fit_to_pointer(L, a, v, pt, what);
}

static LVal mask_arg(Lower *L, const LArg *a, IrType pt) {
    LVal m = arg_tensor(L, a);
    if (lower_type(L, &m).elem != ET_I1) diag_error(L->ctx, a->loc, "Mask must have boolean scalar type");
    return fit_to_pointer(L, a, m, pt, "Mask");
}

static LVal bi_load(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    ValId ops[3] = {0, 0, 0};
    uint32_t n = 1;
    if (a[0].v.kind == LV_BLOCK_PTR) {
        n = (uint32_t)lower_block_load(L, loc, a, ops);
    } else {
        LVal p = pointer_arg(L, &a[0], "load");
        IrType pt = lower_type(L, &p);
        if (larg_absent(&a[1]) && !larg_absent(&a[2]))
            diag_error(L->ctx, a[2].loc, "`other` cannot be provided without `mask`");
        if ((a[3].present && !(a[3].v.kind == LV_TUPLE && a[3].v.n == 0)) || *larg_str(L, &a[4], "padding_option"))
            diag_error(L->ctx, loc, "`padding_option` or `boundary_check` argument is not supported for loading a "
                                    "tensor of pointers or loading a scalar; use masks to manage the boundary check");
        ops[0] = p.id;
        if (!larg_absent(&a[1])) ops[n++] = mask_arg(L, &a[1], pt).id;
        if (!larg_absent(&a[2])) ops[n++] = value_for_pointer(L, &a[2], pt, "Other").id;
    }
    IrType pt = ir_type(L->fn, ops[0]);
    IrType rt = ir_with_elem(pt, ir_scalar(pt.pointee));
    int cm = cache_modifier(L, &a[5], false), ev = eviction_policy(L, &a[6]);
    bool vol = arg_bool(L, &a[7], "volatile");
    L->b.loc = loc;
    IrOp *op = ir_build(&L->b, OP_LOAD, ops, n, &rt, 1, 0);
    op->attr.i = cm;
    op->attr.i2 = ev;
    op->attr.flags = vol ? LOADF_VOLATILE : 0;
    return lval_tensor(L, op->results[0]);
}

static LVal bi_store(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    ValId ops[3] = {0, 0, 0};
    uint32_t n = 2;
    if (a[0].v.kind == LV_BLOCK_PTR) {
        if (a[0].v.items[0].const_ptr) diag_error(L->ctx, a[0].loc, "Cannot store to a constant pointer");
        n = (uint32_t)lower_block_store(L, loc, a, ops);
    } else {
        LVal p = pointer_arg(L, &a[0], "store");
        if (p.const_ptr) diag_error(L->ctx, a[0].loc, "Cannot store to a constant pointer");
        IrType pt = lower_type(L, &p);
        ops[0] = p.id;
        ops[1] = value_for_pointer(L, &a[1], pt, "Value").id;
        if (!larg_absent(&a[2])) ops[n++] = mask_arg(L, &a[2], pt).id;
        if (a[3].present && !(a[3].v.kind == LV_TUPLE && a[3].v.n == 0))
            diag_error(L->ctx, a[3].loc, "`boundary_check` argument is not supported for storing a tensor of pointers "
                                         "or storing a scalar; use masks to manage the boundary check");
    }
    int cm = cache_modifier(L, &a[4], true), ev = eviction_policy(L, &a[5]);
    L->b.loc = loc;
    IrOp *op = ir_build(&L->b, OP_STORE, ops, n, NULL, 0, 0);
    op->attr.i = cm;
    op->attr.i2 = ev;
    return lval_none();
}

/* ---- atomics ---- */

/* sem= and scope=: Triton's strings, None for the defaults (acq_rel, gpu) */
static int mem_sem(Lower *L, const LArg *a) {
    const char *s = larg_str(L, a, "sem");
    if (!*s) return SEM_ACQ_REL;
    for (int i = 0; i < SEM_COUNT; i++)
        if (!strcmp(s, mem_sem_names[i])) return i;
    diag_error(L->ctx, a->loc, "Memory semantic %s not supported", s);
}

static int mem_scope(Lower *L, const LArg *a) {
    const char *s = larg_str(L, a, "scope");
    if (!*s) return SCOPE_GPU;
    for (int i = 0; i < SCOPE_COUNT; i++)
        if (!strcmp(s, mem_scope_names[i])) return i;
    diag_error(L->ctx, a->loc, "Memory scope %s not supported", s);
}

/* The pointer of an atomic: not a constant one, and of an element type the
 * operation has (Triton's atom_red_typechecking_impl, and float max/min
 * only on fp32/fp64; bitwise operations on integers only). */
static LVal atomic_pointer(Lower *L, const LArg *a, int kind) {
    const char *name = atomic_kind_names[kind];
    const char *fn = arena_printf(L->ctx->arena, "atomic_%s", name);
    LVal p = pointer_arg(L, a, fn);
    if (p.const_ptr) diag_error(L->ctx, a->loc, "Cannot store to a constant pointer");
    ElemType e = (ElemType)lower_type(L, &p).pointee;
    const char *dt = dtype_name(ir_scalar(e));
    if ((e == ET_F16 || e == ET_BF16) && kind != ATOM_ADD)
        diag_error(L->ctx, a->loc, "%s does not support %s", fn, dt);
    if (elem_bits(e) < 32 && e != ET_F16 && e != ET_BF16) diag_error(L->ctx, a->loc, "%s does not support %s", fn, dt);
    if ((kind == ATOM_MAX || kind == ATOM_MIN) && elem_is_float(e) && e != ET_F32 && e != ET_F64)
        diag_error(L->ctx, a->loc, "%s not supported for dtype %s", fn, dt);
    if ((kind == ATOM_AND || kind == ATOM_OR || kind == ATOM_XOR) && !elem_is_int(e))
        diag_error(L->ctx, a->loc, "%s does not support %s", fn, dt);
    return p;
}

/* atomic_KIND(pointer, val, mask=None, sem=None, scope=None): the old
 * values, where the mask holds (0 elsewhere) */
static LVal atomic_rmw(Lower *L, SrcLoc loc, LArg *a, int kind) {
    LVal p = atomic_pointer(L, &a[0], kind);
    IrType pt = lower_type(L, &p);
    ValId ops[3] = {p.id, value_for_pointer(L, &a[1], pt, "Value").id, 0};
    uint32_t n = 2;
    if (!larg_absent(&a[2])) ops[n++] = mask_arg(L, &a[2], pt).id;
    int sem = mem_sem(L, &a[3]), scope = mem_scope(L, &a[4]);
    IrType rt = ir_with_elem(pt, ir_scalar(pt.pointee));
    L->b.loc = loc;
    IrOp *op = ir_build(&L->b, OP_ATOMIC, ops, n, &rt, 1, 0);
    op->attr.i = kind;
    op->attr.i2 = sem;
    op->attr.flags = (uint8_t)scope;
    return lval_tensor(L, op->results[0]);
}

static LVal bi_atomic_add(Lower *L, SrcLoc loc, LArg *a, LVal *r, int n) { return atomic_rmw(L, loc, a, ATOM_ADD); }
static LVal bi_atomic_max(Lower *L, SrcLoc loc, LArg *a, LVal *r, int n) { return atomic_rmw(L, loc, a, ATOM_MAX); }
static LVal bi_atomic_min(Lower *L, SrcLoc loc, LArg *a, LVal *r, int n) { return atomic_rmw(L, loc, a, ATOM_MIN); }
static LVal bi_atomic_and(Lower *L, SrcLoc loc, LArg *a, LVal *r, int n) { return atomic_rmw(L, loc, a, ATOM_AND); }
static LVal bi_atomic_or(Lower *L, SrcLoc loc, LArg *a, LVal *r, int n) { return atomic_rmw(L, loc, a, ATOM_OR); }
static LVal bi_atomic_xor(Lower *L, SrcLoc loc, LArg *a, LVal *r, int n) { return atomic_rmw(L, loc, a, ATOM_XOR); }
static LVal bi_atomic_xchg(Lower *L, SrcLoc loc, LArg *a, LVal *r, int n) { return atomic_rmw(L, loc, a, ATOM_XCHG); }

/* atomic_cas(pointer, cmp, val, sem=None, scope=None): no mask, as in Triton */
static LVal bi_atomic_cas(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    LVal p = pointer_arg(L, &a[0], "atomic_cas");
    if (p.const_ptr) diag_error(L->ctx, a[0].loc, "Cannot store to a constant pointer");
    IrType pt = lower_type(L, &p);
    int bits = elem_bits((ElemType)pt.pointee);
    if (bits != 16 && bits != 32 && bits != 64)
        diag_error(L->ctx, a[0].loc, "atomic_cas only supports elements with width {16, 32, 64}");
    ValId ops[3] = {p.id, value_for_pointer(L, &a[1], pt, "Cmp").id, value_for_pointer(L, &a[2], pt, "Value").id};
    int sem = mem_sem(L, &a[3]), scope = mem_scope(L, &a[4]);
    IrType rt = ir_with_elem(pt, ir_scalar(pt.pointee));
    L->b.loc = loc;
    IrOp *op = ir_build(&L->b, OP_ATOMIC_CAS, ops, 3, &rt, 1, 0);
    op->attr.i2 = sem;
    op->attr.flags = (uint8_t)scope;
    return lval_tensor(L, op->results[0]);
}

/* ---- elementwise ---- */

static LVal bi_where(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    return lower_where(L, loc, a[0].v, a[1].v, a[2].v);
}

static bool propagate_nan(Lower *L, const LArg *a) {
    if (larg_absent(a)) return false;
    return larg_int(L, a, "propagate_nan") != 0;
}

static LVal bi_minimum(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    return lower_minmax(L, loc, false, a[0].v, a[1].v, propagate_nan(L, &a[2]));
}

static LVal bi_maximum(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    return lower_minmax(L, loc, true, a[0].v, a[1].v, propagate_nan(L, &a[2]));
}

/* Python's min/max: folded on constants, else pairwise tl.minimum/maximum. */
static LVal py_minmax(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest, bool is_max) {
    const char *name = is_max ? "max" : "min";
    if (n_rest == 1 && rest[0].kind == LV_TUPLE) {
        n_rest = (int)rest[0].n;
        rest = rest[0].items;
    }
    if (n_rest == 0) diag_error(L->ctx, loc, "%s expected at least 1 argument, got 0", name);
    bool all_const = true;
    for (int i = 0; i < n_rest; i++) all_const &= lval_is_const(&rest[i]);
    LVal acc = rest[0];
    for (int i = 1; i < n_rest; i++) {
        if (!all_const) {
            acc = lower_minmax(L, loc, is_max, acc, rest[i], propagate_nan(L, &a[0]));
            continue;
        }
        LVal gt = lower_compare(L, loc, ACMP_GT, rest[i], acc), lt = lower_compare(L, loc, ACMP_LT, rest[i], acc);
        if (is_max ? gt.i : lt.i) acc = rest[i];
    }
    return acc;
}

static LVal bi_py_min(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    return py_minmax(L, loc, a, rest, n_rest, false);
}

static LVal bi_py_max(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    return py_minmax(L, loc, a, rest, n_rest, true);
}

static LVal bi_cast(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    IrType to = arg_dtype(L, &a[1], "dtype");
    int rounding = ROUND_DEFAULT;
    const char *r = larg_str(L, &a[2], "fp_downcast_rounding");
    if (!strcmp(r, "rtne")) rounding = ROUND_RTNE;
    else if (!strcmp(r, "rtz")) rounding = ROUND_RTZ;
    else if (*r) diag_error(L->ctx, a[2].loc, "fp_downcast_rounding must be 'rtne' or 'rtz', got '%s'", r);
    return lower_cast(L, loc, arg_tensor(L, &a[0]), to, arg_bool(L, &a[3], "bitcast"), rounding);
}

static LVal bi_cdiv(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    LVal t = lower_binop(L, loc, BIN_ADD, a[0].v, a[1].v);
    t = lower_binop(L, loc, BIN_SUB, t, lval_int(1));
    return lower_binop(L, loc, BIN_FLOORDIV, t, a[1].v);
}

/* Triton's swizzle2d: (i, j) of a size_i x size_j grid renumbered in
 * column-major order within groups of size_g rows (the last group may be
 * shorter); returns (new_i, new_j). Its own arithmetic, as Triton's
 * standard library writes it. */
static LVal bi_swizzle2d(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    LVal size_j = a[3].v, size_g = a[4].v;
    LVal ij = lower_binop(L, loc, BIN_ADD, lower_binop(L, loc, BIN_MUL, a[0].v, size_j), a[1].v);
    LVal size_gj = lower_binop(L, loc, BIN_MUL, size_g, size_j);
    LVal off_i = lower_binop(L, loc, BIN_MUL, lower_binop(L, loc, BIN_FLOORDIV, ij, size_gj), size_g);
    size_g = lower_minmax(L, loc, false, lower_binop(L, loc, BIN_SUB, a[2].v, off_i), size_g, false);
    ij = lower_binop(L, loc, BIN_MOD, ij, size_gj);
    LVal t = {0};
    t.kind = LV_TUPLE;
    t.n = 2;
    t.items = arena_alloc(L->ctx->arena, sizeof(LVal) * 2);
    t.items[0] = lower_binop(L, loc, BIN_ADD, off_i, lower_binop(L, loc, BIN_MOD, ij, size_g));
    t.items[1] = lower_binop(L, loc, BIN_FLOORDIV, ij, size_g);
    return t;
}

/* tl.extra.cuda.num_threads() / num_warps(): the program's, as constexprs */
static LVal bi_num_threads(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    return lval_int(32 * L->ctx->target.num_warps);
}

static LVal bi_num_warps(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    return lval_int(L->ctx->target.num_warps);
}

/* tl.extra.cuda.smid() / globaltimer(): read at each call */
static LVal sreg(Lower *L, SrcLoc loc, SregKind k) {
    L->b.loc = loc;
    IrType t = ir_scalar(k == SREG_SMID ? ET_I32 : ET_I64);
    IrOp *op = ir_build(&L->b, OP_SREG, NULL, 0, &t, 1, 0);
    op->attr.i = k;
    return lval_tensor(L, op->results[0]);
}

static LVal bi_smid(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) { return sreg(L, loc, SREG_SMID); }
static LVal bi_globaltimer(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    return sreg(L, loc, SREG_GLOBALTIMER);
}

/* exp, log, ...: Triton accepts fp32 and fp64 only. */
static LVal math1(Lower *L, SrcLoc loc, const LArg *a, Opcode opc) {
    LVal x = arg_tensor(L, a);
    IrType t = lower_type(L, &x);
    if (t.elem != ET_F32 && t.elem != ET_F64)
        diag_error(L->ctx, a->loc, "Expected dtype ['fp32', 'fp64'] but got %s", dtype_name(ir_elem_of(t)));
    L->b.loc = loc;
    return lval_tensor(L, ir_build1(&L->b, opc, t, x.id));
}

static LVal bi_exp(Lower *L, SrcLoc loc, LArg *a, LVal *r, int n) { return math1(L, loc, a, OP_EXP); }
static LVal bi_exp2(Lower *L, SrcLoc loc, LArg *a, LVal *r, int n) { return math1(L, loc, a, OP_EXP2); }
static LVal bi_log(Lower *L, SrcLoc loc, LArg *a, LVal *r, int n) { return math1(L, loc, a, OP_LOG); }
static LVal bi_log2(Lower *L, SrcLoc loc, LArg *a, LVal *r, int n) { return math1(L, loc, a, OP_LOG2); }
static LVal bi_sqrt(Lower *L, SrcLoc loc, LArg *a, LVal *r, int n) { return math1(L, loc, a, OP_SQRT); }
static LVal bi_rsqrt(Lower *L, SrcLoc loc, LArg *a, LVal *r, int n) { return math1(L, loc, a, OP_RSQRT); }

static LVal bi_abs(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    LVal x = arg_tensor(L, &a[0]);
    IrType t = lower_type(L, &x);
    if (t.elem == ET_PTR) diag_error(L->ctx, a[0].loc, "unexpected type %s", dtype_name(ir_elem_of(t)));
    if (t.elem == ET_I1 || elem_class(t.elem) == EC_UINT) return x;
    L->b.loc = loc;
    if (t.elem == ET_F8E4M3 || t.elem == ET_F8E5M2) {   /* the sign bit cleared, as Triton does */
        IrType bt = t;
        bt.elem = ET_U8;
        ValId bits = ir_build1(&L->b, OP_BITCAST, bt, x.id);
        bits = ir_build2(&L->b, OP_AND, bt, bits, ir_const_int(&L->b, bt, 0x7F));
        return lval_tensor(L, ir_build1(&L->b, OP_BITCAST, t, bits));
    }
    return lval_tensor(L, ir_build1(&L->b, OP_ABS, t, x.id));
}

/* Triton's sigmoid is the @jit function 1 / (1 + exp(-x)). */
static LVal bi_sigmoid(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    LArg neg = {true, lower_unary(L, loc, UN_NEG, arg_tensor(L, &a[0])), a[0].loc};
    LVal e = math1(L, loc, &neg, OP_EXP);
    return lower_binop(L, loc, BIN_DIV, lval_int(1), lower_binop(L, loc, BIN_ADD, lval_int(1), e));
}

/* fdiv: x / y, or with ieee_rounding=True the correctly rounded quotient
 * (div_rn) */
static LVal bi_fdiv(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    LVal x = arg_tensor(L, &a[0]), y = arg_tensor(L, &a[1]);
    if (!elem_is_float(lower_type(L, &x).elem) || !elem_is_float(lower_type(L, &y).elem))
        diag_error(L->ctx, loc, "both operands of fdiv must have floating scalar type");
    if (!larg_absent(&a[2]) && arg_bool(L, &a[2], "ieee_rounding")) {
        LVal v[2] = {x, y};
        return lower_math(L, loc, MF_DIV_RN, v, 2, "tl.fdiv");
    }
    return lower_binop(L, loc, BIN_DIV, x, y);
}

/* erf, floor, ceil, fma, sqrt_rn, div_rn: `math` ops, with Triton's dtype
 * checks (fp32 and fp64; sqrt_rn and div_rn fp32 only) */
static LVal tl_math(Lower *L, SrcLoc loc, LArg *a, int n, MathFn f, bool f32_only) {
    LVal v[3];
    for (int i = 0; i < n; i++) v[i] = arg_tensor(L, &a[i]);
    for (int i = 0; i < n; i++) {
        ElemType e = lower_type(L, &v[i]).elem;
        if (e != ET_F32 && (f32_only || e != ET_F64))
            diag_error(L->ctx, a[i].loc, "Expected dtype %s but got %s", f32_only ? "['fp32']" : "['fp32', 'fp64']",
                       dtype_name(ir_scalar(e)));
    }
    return lower_math(L, loc, f, v, n, arena_printf(L->ctx->arena, "tl.%s", mathfn_info[f].name));
}

static LVal bi_erf(Lower *L, SrcLoc loc, LArg *a, LVal *r, int n) { return tl_math(L, loc, a, 1, MF_ERF, false); }
static LVal bi_floor(Lower *L, SrcLoc loc, LArg *a, LVal *r, int n) { return tl_math(L, loc, a, 1, MF_FLOOR, false); }
static LVal bi_ceil(Lower *L, SrcLoc loc, LArg *a, LVal *r, int n) { return tl_math(L, loc, a, 1, MF_CEIL, false); }
static LVal bi_fma(Lower *L, SrcLoc loc, LArg *a, LVal *r, int n) { return tl_math(L, loc, a, 3, MF_FMA, false); }
static LVal bi_sqrt_rn(Lower *L, SrcLoc loc, LArg *a, LVal *r, int n) { return tl_math(L, loc, a, 1, MF_SQRT_RN, true); }
static LVal bi_div_rn(Lower *L, SrcLoc loc, LArg *a, LVal *r, int n) { return tl_math(L, loc, a, 2, MF_DIV_RN, true); }

/* clamp(x, min, max): max(x, min) then min(.., max), NaN as propagate_nan
 * says; floats only, as Triton's */
static LVal bi_clamp(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    LVal x = arg_tensor(L, &a[0]);
    IrType t = lower_type(L, &x);
    if (!elem_is_float(t.elem))
        diag_error(L->ctx, a[0].loc, "Unexpected dtype %s. Only floating point clamp is supported", dtype_name(ir_elem_of(t)));
    bool nan = propagate_nan(L, &a[3]);
    return lower_minmax(L, loc, false, lower_minmax(L, loc, true, x, a[1].v, nan), a[2].v, nan);
}

/* gather(src, index, axis): src's elements at index along axis (the other
 * dims where they are), in index's shape */
static LVal bi_gather(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    LVal src = arg_tensor(L, &a[0]), idx = arg_tensor(L, &a[1]);
    IrType st = lower_type(L, &src), xt = lower_type(L, &idx);
    int64_t axis = larg_int(L, &a[2], "gather's axis");
    if (st.rank != xt.rank || st.rank == 0)
        diag_error(L->ctx, a[1].loc, "source and indices must have the same rank, got %s and %s", type_str(L, st),
                   type_str(L, xt));
    if (axis < 0) axis += st.rank;
    if (axis < 0 || axis >= st.rank)
        diag_error(L->ctx, a[2].loc, "gather's axis %lld is out of range for rank %d", (long long)axis, st.rank);
    for (int d = 0; d < st.rank; d++)
        if (d != axis && st.shape[d] != xt.shape[d])
            diag_error(L->ctx, a[1].loc, "source and indices must have the same size in every dim but the axis, got %s and %s",
                       type_str(L, st), type_str(L, xt));
    if (!elem_is_int((ElemType)xt.elem) || xt.elem == ET_I1)
        diag_error(L->ctx, a[1].loc, "indices must be integers, got %s", type_str(L, xt));
    IrType rt = ir_with_elem(xt, ir_elem_of(st));
    L->b.loc = loc;
    IrOp *op = ir_build(&L->b, OP_GATHER, (ValId[]){src.id, idx.id}, 2, &rt, 1, 0);
    op->attr.i = axis;
    return lval_tensor(L, op->results[0]);
}

/* histogram(input, num_bins, mask=None): counts of 0 .. num_bins-1 among
 * the elements of a 1-D integer tile (where mask is set), int32; narrower
 * integers count as i32 */
static LVal bi_histogram(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    LVal x = arg_tensor(L, &a[0]);
    IrType t = lower_type(L, &x);
    if (t.rank != 1) diag_error(L->ctx, a[0].loc, "histogram only supports 1D input, got %s", type_str(L, t));
    if (!elem_is_int((ElemType)t.elem) || t.elem == ET_I1)
        diag_error(L->ctx, a[0].loc, "histogram only supports integer input, got %s", type_str(L, t));
    int64_t bins = larg_int(L, &a[1], "histogram's num_bins");
    if (bins < 1 || bins > (1 << 20) || (bins & (bins - 1)))
        diag_error(L->ctx, a[1].loc, "histogram's num_bins must be a power of 2, got %lld", (long long)bins);
    if (elem_bits((ElemType)t.elem) < 32)
        x = lower_cast(L, loc, x, ir_with_elem(t, ir_scalar(elem_is_signed((ElemType)t.elem) ? ET_I32 : ET_U32)), false, 0);
    ValId ops[2] = {x.id, VAL_NONE};
    uint32_t n = 1;
    if (!larg_absent(&a[2])) {
        LVal m = arg_tensor(L, &a[2]);
        IrType mt = lower_type(L, &m);
        if (mt.elem != ET_I1 || mt.rank != 1 || mt.shape[0] != t.shape[0])
            diag_error(L->ctx, a[2].loc, "histogram's mask must be a tensor of int1 of the input's shape %s, got %s",
                       type_str(L, t), type_str(L, mt));
        ops[n++] = m.id;
    }
    int32_t shape = (int32_t)bins;
    IrType rt = ir_tile(ir_scalar(ET_I32), 1, &shape);
    L->b.loc = loc;
    IrOp *op = ir_build(&L->b, OP_HISTOGRAM, ops, n, &rt, 1, 0);
    op->attr.i = bins;
    return lval_tensor(L, op->results[0]);
}

/* multiple_of / max_contiguous: one value per dim (one for a scalar). */
static LVal hint(Lower *L, SrcLoc loc, LArg *a, Opcode opc, const char *name) {
    LVal x = arg_tensor(L, &a[0]);
    IrType t = lower_type(L, &x);
    const LVal *vals = &a[1].v;
    int n = 1;
    if (a[1].v.kind == LV_TUPLE) {
        vals = a[1].v.items;
        n = (int)a[1].v.n;
    }
    if (n != (t.rank ? t.rank : 1))
        diag_error(L->ctx, a[1].loc, "Shape of input to %s does not match the length of values", name);
    L->b.loc = loc;
    IrOp *op = ir_build(&L->b, opc, &x.id, 1, &t, 1, 0);
    op->attr.n_ints = (uint8_t)n;
    for (int i = 0; i < n; i++) {
        if (vals[i].kind != LV_INT)
            diag_error(L->ctx, a[1].loc, "values element %d must have type `constexpr[int]`", i);
        if (vals[i].i < 1 || vals[i].i > INT32_MAX)
            diag_error(L->ctx, a[1].loc, "%s values must be positive, got %lld", name, (long long)vals[i].i);
        op->attr.ints[i] = (int32_t)vals[i].i;
    }
    LVal r = lval_tensor(L, op->results[0]);
    r.const_ptr = x.const_ptr;
    return r;
}

static LVal bi_multiple_of(Lower *L, SrcLoc loc, LArg *a, LVal *r, int n) {
    return hint(L, loc, a, OP_MULTIPLE_OF, "multiple_of");
}

static LVal bi_max_contiguous(Lower *L, SrcLoc loc, LArg *a, LVal *r, int n) {
    return hint(L, loc, a, OP_MAX_CONTIGUOUS, "max_contiguous");
}

/* tl.assume(cond): a promise that cond holds, which axis analysis uses
 * (x >= 0 from `x >= 0`, `x > 0`, ...); the interpreter checks it. A
 * condition known true costs nothing. */
static LVal bi_assume(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    LVal cond = a[0].v;
    if (cond.kind != LV_TENSOR) {
        if (lower_truth(L, a[0].loc, &cond)) return lval_none();
        cond = lval_bool(false);
    }
    cond = lval_to_tensor(L, a[0].loc, cond);
    IrType t = lower_type(L, &cond);
    if (t.elem != ET_I1)
        diag_error(L->ctx, a[0].loc, "tl.assume expects a boolean condition, got %s", dtype_name(ir_elem_of(t)));
    L->b.loc = loc;
    ir_build(&L->b, OP_ASSUME, &cond.id, 1, NULL, 0, 0);
    return lval_none();
}

/* ---- compile time ---- */

static LVal bi_static_assert(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    if (a[0].v.kind == LV_TENSOR)
        diag_error(L->ctx, a[0].loc, "static_assert needs a compile-time condition, got a tensor");
    if (lower_truth(L, a[0].loc, &a[0].v)) return lval_none();
    if (larg_absent(&a[1]) || (a[1].v.kind == LV_STR && a[1].v.n == 0)) diag_error(L->ctx, loc, "static_assert failed");
    Buf msg = {.arena = L->ctx->arena};
    lval_repr(L, &msg, &a[1].v);
    diag_error(L->ctx, loc, "static_assert failed: %s", buf_str(&msg));
}

static LVal bi_static_print(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    if (L->dry_run) return lval_none();
    const char *sep = larg_absent(&a[0]) ? " " : larg_str(L, &a[0], "sep");
    Buf msg = {.arena = L->ctx->arena};
    for (int i = 0; i < n_rest; i++) {
        if (i) buf_puts(&msg, sep);
        lval_repr(L, &msg, &rest[i]);
    }
    diag_note(L->ctx, loc, "%s", buf_str(&msg));
    return lval_none();
}

static LVal bi_constexpr(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    if (a[0].v.kind == LV_TENSOR) {
        if (a[0].v.has_origin) return lval_int(a[0].v.origin_i);
        diag_error(L->ctx, a[0].loc, "tl.constexpr(...) needs a compile-time value, got a tensor");
    }
    return a[0].v;
}

static LVal bi_range(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    diag_error(L->ctx, loc, "range() can only be used as the iterator of a for loop");
}

void builtin_range_args(Lower *L, SrcLoc loc, const Builtin *bi, const CallArgs *ca, LArg *lb, LArg *ub, LArg *step,
                        LArg *num_stages, LArg *flatten) {
    LArg s[BI_MAX_PARAMS] = {0};
    LVal *rest;
    int n_rest;
    builtin_bind(L, loc, bi, NULL, ca, s, &rest, &n_rest);
    if (s[1].present) {
        *lb = s[0];
        *ub = s[1];
    } else {
        *lb = (LArg){true, lval_int(0), loc};
        *ub = s[0];
    }
    *step = s[2].present ? s[2] : (LArg){true, lval_int(1), loc};
    *num_stages = s[3];   /* tl.range's; static_range has no such parameters */
    *flatten = s[6];
}

static LVal bi_len(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    if (a[0].v.kind == LV_TUPLE || a[0].v.kind == LV_STR) return lval_int((int64_t)a[0].v.n);
    if (a[0].v.kind == LV_TENSOR && lower_type(L, &a[0].v).rank > 0) return lval_int(lower_type(L, &a[0].v).shape[0]);
    diag_error(L->ctx, a[0].loc, "object of type '%s' has no len()", lval_kind_name(&a[0].v));
}

static const LVal *const_arg(Lower *L, const LArg *a, const char *fn) {
    if (a->v.kind == LV_TENSOR) diag_error(L->ctx, a->loc, "%s() needs a compile-time value, got a tensor", fn);
    return &a->v;
}

static LVal bi_int(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    if (!a[0].present) return lval_int(0);
    const LVal *v = const_arg(L, &a[0], "int");
    if (v->kind == LV_INT || v->kind == LV_BOOL) return lval_int(v->i);
    if (v->kind == LV_FLOAT) {
        if (!isfinite(v->f) || fabs(v->f) >= 9.2e18)
            diag_error(L->ctx, a[0].loc, "cannot convert float %g to integer", v->f);
        return lval_int((int64_t)v->f);
    }
    if (v->kind == LV_STR) {
        char *s = arena_strndup(L->ctx->arena, v->s, v->n), *end;
        long long i = strtoll(s, &end, 10);
        if (end == s || *end) diag_error(L->ctx, a[0].loc, "invalid literal for int() with base 10: '%s'", s);
        return lval_int(i);
    }
    diag_error(L->ctx, a[0].loc, "int() argument must be a string or a number, not '%s'", lval_kind_name(v));
}

static LVal bi_float(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    if (!a[0].present) return lval_float(0);
    const LVal *v = const_arg(L, &a[0], "float");
    if (v->kind == LV_INT || v->kind == LV_BOOL) return lval_float((double)v->i);
    if (v->kind == LV_FLOAT) return *v;
    if (v->kind == LV_STR) {
        char *s = arena_strndup(L->ctx->arena, v->s, v->n), *end;
        double f = strtod(s, &end);
        if (end == s || *end) diag_error(L->ctx, a[0].loc, "could not convert string to float: '%s'", s);
        return lval_float(f);
    }
    diag_error(L->ctx, a[0].loc, "float() argument must be a string or a number, not '%s'", lval_kind_name(v));
}

static LVal bi_bool(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    if (!a[0].present) return lval_bool(false);
    return lval_bool(lower_truth(L, a[0].loc, const_arg(L, &a[0], "bool")));
}

/* isinstance against the type objects tric knows: int, float, bool, str,
 * tuple, tl.tensor, tl.constexpr, tl.dtype (or a tuple of them). */
static bool instance_of(const LVal *v, const LVal *cls) {
    if (cls->kind == LV_TUPLE) {
        for (size_t i = 0; i < cls->n; i++)
            if (instance_of(v, &cls->items[i])) return true;
        return false;
    }
    if (cls->kind != LV_BUILTIN) return false;
    const char *n = cls->builtin->name;
    if (!strcmp(n, "int")) return v->kind == LV_INT || v->kind == LV_BOOL;
    if (!strcmp(n, "float")) return v->kind == LV_FLOAT;
    if (!strcmp(n, "bool")) return v->kind == LV_BOOL;
    if (!strcmp(n, "str")) return v->kind == LV_STR;
    if (!strcmp(n, "tuple")) return v->kind == LV_TUPLE;
    if (!strcmp(n, "tensor")) return v->kind == LV_TENSOR;
    if (!strcmp(n, "constexpr")) return v->kind != LV_TENSOR;
    if (!strcmp(n, "dtype")) return v->kind == LV_DTYPE;
    if (!strcmp(n, "pointer_type")) return v->kind == LV_DTYPE && v->dtype.elem == ET_PTR;
    if (!strcmp(n, "tensor_descriptor")) return v->kind == LV_TENSOR_DESC;
    return false;
}

/* tl.condition(cond, disable_licm=False): a while loop's condition, with
 * a hint for LLVM's loop-invariant code motion, which tric does not do */
static LVal bi_condition(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    if (a[1].present) arg_bool(L, &a[1], "disable_licm");
    return a[0].v;
}

/* getattr(obj, name[, default]) and hasattr(obj, name): name a compile-time string */
static const char *attr_name(Lower *L, const LArg *a, const char *fn) {
    if (a->v.kind != LV_STR) diag_error(L->ctx, a->loc, "%s(): attribute name must be string", fn);
    return arena_strndup(L->ctx->arena, a->v.s, a->v.n);
}

static LVal bi_getattr(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    const char *name = attr_name(L, &a[1], "getattr");
    if (a[2].present && !lower_has_attr(L, loc, a[0].v, name)) return a[2].v;
    return lower_attr(L, a[1].loc, a[0].v, name);
}

static LVal bi_hasattr(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    return lval_bool(lower_has_attr(L, loc, a[0].v, attr_name(L, &a[1], "hasattr")));
}

static LVal bi_isinstance(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    return lval_bool(instance_of(&a[0].v, &a[1].v));
}

static LVal bi_type_only(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    diag_error(L->ctx, loc, "this type cannot be called inside a @jit function");
}

/* ---- debugging: device_print, print, device_assert, debug_barrier ---- */

/* Triton's tidying of a print prefix: with values to print it ends in
 * ": ", and one longer than two characters starts with a space, so that
 * "x" prints as "pid (0, 0, 0) idx (3) x: 1.5". */
static const char *tidy_prefix(Lower *L, const char *prefix, bool has_values) {
    Buf b = {.arena = L->ctx->arena};
    buf_puts(&b, prefix);
    if (has_values && (b.len == 0 || b.data[b.len - 1] != ' ')) buf_putc(&b, ' ');
    if (has_values && (b.len < 2 || strcmp(b.data + b.len - 2, ": "))) {
        b.data[--b.len] = 0;
        buf_puts(&b, ": ");
    }
    if (b.len > 2 && b.data[0] != ' ') return arena_printf(L->ctx->arena, " %s", b.data);
    return b.data;
}

/* A value to print: a tensor, or a number made one (Triton's to_tensor). */
static ValId print_operand(Lower *L, SrcLoc loc, const char *fn, int index, const LVal *v) {
    if (v->kind != LV_TENSOR && !lval_is_number(v))
        diag_error(L->ctx, loc, "%s can print tensors and numbers, not a %s (argument %d)", fn, lval_kind_name(v),
                   index);
    return lval_to_tensor(L, loc, *v).id;
}

static void build_print(Lower *L, SrcLoc loc, const char *prefix, const ValId *vals, int n, bool hex) {
    L->b.loc = loc;
    IrOp *op = ir_build(&L->b, OP_PRINT, vals, (uint32_t)n, NULL, 0, 0);
    op->attr.str = tidy_prefix(L, prefix, n > 0);
    op->attr.i = hex;
}

/* tl.device_print(prefix, *args, hex=False): prefix a compile-time string
 * of printable ASCII (Triton's rule), args tensors or numbers. */
static LVal bi_device_print(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    if (a[0].v.kind != LV_STR)
        diag_error(L->ctx, a[0].loc, "device_print's prefix must be a compile-time string, got a %s",
                   lval_kind_name(&a[0].v));
    for (size_t i = 0; i < a[0].v.n; i++) {
        unsigned char ch = (unsigned char)a[0].v.s[i];
        if (ch < 0x20 || ch >= 0x7F)
            diag_error(L->ctx, a[0].loc, "device_print's prefix must be printable ASCII (character %zu is not)", i);
    }
    bool hex = arg_bool(L, &a[1], "device_print's hex");
    ValId *vals = arena_alloc(L->ctx->arena, sizeof(ValId) * (size_t)(n_rest ? n_rest : 1));
    for (int i = 0; i < n_rest; i++) vals[i] = print_operand(L, loc, "device_print", i + 2, &rest[i]);
    build_print(L, loc, arena_strndup(L->ctx->arena, a[0].v.s, a[0].v.n), vals, n_rest, hex);
    return lval_none();
}

/* print(...) in a kernel is device_print: the compile-time arguments before
 * the first tensor, as Python's print would write them (joined by spaces),
 * make the prefix; the tensors and numbers from there on are printed. */
static LVal bi_print(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    for (int k = 0; k < 4; k++)
        if (a[k].present)
            diag_error(L->ctx, a[k].loc, "print() in a kernel takes no sep=, end=, file= or flush= (it prints "
                                         "like tl.device_print)");
    Buf prefix = {.arena = L->ctx->arena};
    buf_puts(&prefix, "");
    int first = 0;
    for (; first < n_rest && rest[first].kind != LV_TENSOR; first++) {
        if (rest[first].kind == LV_STR && memchr(rest[first].s, 0, rest[first].n))
            diag_error(L->ctx, loc, "print() cannot print a string holding a NUL character");
        if (first) buf_putc(&prefix, ' ');
        lval_repr(L, &prefix, &rest[first]);
    }
    ValId *vals = arena_alloc(L->ctx->arena, sizeof(ValId) * (size_t)(n_rest ? n_rest : 1));
    for (int i = first; i < n_rest; i++) {
        if (rest[i].kind == LV_STR)
            diag_error(L->ctx, loc, "print() cannot print a string after a tensor (argument %d); put the text first",
                       i + 1);
        vals[i - first] = print_operand(L, loc, "print()", i + 1, &rest[i]);
    }
    build_print(L, loc, prefix.data, vals, n_rest - first, false);
    return lval_none();
}

/* A compile-time message (an assert's), as text. */
static const char *assert_message(Lower *L, SrcLoc loc, const LVal *msg) {
    if (!msg || msg->kind == LV_NONE) return "";
    if (msg->kind == LV_TENSOR) diag_error(L->ctx, loc, "an assertion message must be a compile-time value, got a tensor");
    if (msg->kind == LV_STR && memchr(msg->s, 0, msg->n))
        diag_error(L->ctx, loc, "an assertion message cannot hold a NUL character");
    Buf b = {.arena = L->ctx->arena};
    buf_puts(&b, "");
    lval_repr(L, &b, msg);
    return b.data;
}

/* device_assert and the assert statement: the condition (a tensor, made i1
 * as `x != 0`, or a compile-time value) must hold for every element. A
 * condition known true costs nothing; one known false still fails at run
 * time only, as in Triton. Checked by the interpreter always and on the GPU
 * when compiled with debug on (ptxgen). */
void lower_assert(Lower *L, SrcLoc loc, SrcLoc cond_loc, LVal cond, const LVal *msg, SrcLoc msg_loc) {
    const char *text = assert_message(L, msg_loc, msg);
    if (cond.kind != LV_TENSOR) {
        if (lower_truth(L, cond_loc, &cond)) return;
        cond = lval_bool(false);
    }
    ValId c = lower_to_bool(L, cond_loc, cond).id;
    L->b.loc = loc;
    IrOp *op = ir_build(&L->b, OP_ASSERT, &c, 1, NULL, 0, 0);
    op->attr.str = text;
}

/* tl.device_assert(cond, msg="", mask=None): elements where mask is false
 * are not checked. */
static LVal bi_device_assert(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    LVal cond = a[0].v;
    if (!larg_absent(&a[2])) {
        LVal m = lower_to_bool(L, a[2].loc, a[2].v);
        cond = lower_binop(L, a[2].loc, BIN_BITOR, lower_to_bool(L, a[0].loc, cond), lower_unary(L, a[2].loc, UN_INVERT, m));
    }
    if (a[1].present && a[1].v.kind != LV_STR && a[1].v.kind != LV_NONE)
        diag_error(L->ctx, a[1].loc, "device_assert's msg must be a compile-time string, got a %s",
                   lval_kind_name(&a[1].v));
    lower_assert(L, loc, a[0].loc, cond, &a[1].v, a[1].loc);
    return lval_none();
}

static LVal bi_debug_barrier(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    L->b.loc = loc;
    ir_build(&L->b, OP_BARRIER, NULL, 0, NULL, 0, 0);
    return lval_none();
}

static LVal bi_next_power_of_2(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    int64_t n = larg_int(L, &a[0], "n");
    int64_t p = 1;
    while (p < n && p < ((int64_t)1 << 62)) p <<= 1;
    return lval_int(p);
}

static LVal bi_pointer_type(Lower *L, SrcLoc loc, LArg *a, LVal *rest, int n_rest) {
    IrType e = arg_dtype(L, &a[0], "element_ty");
    if (e.elem == ET_PTR) diag_error(L->ctx, a[0].loc, "pointers to pointers are not supported");
    return lval_dtype(ir_ptr(e.elem));
}

/* dtype predicates: tl.float16.is_floating() etc. */
static LVal dtype_pred(const LArg *a, bool (*pred)(ElemType)) { return lval_bool(pred(a[0].v.dtype.elem)); }
static bool is_fp16(ElemType e) { return e == ET_F16; }
static bool is_bf16(ElemType e) { return e == ET_BF16; }
static bool is_fp32(ElemType e) { return e == ET_F32; }
static bool is_fp64(ElemType e) { return e == ET_F64; }
static bool is_ptr(ElemType e) { return e == ET_PTR; }
static bool is_bool(ElemType e) { return e == ET_I1; }
static bool is_int_signed(ElemType e) { return elem_is_signed(e); }
static bool is_int_unsigned(ElemType e) { return elem_class(e) == EC_UINT; }
static bool is_int(ElemType e) { return elem_is_int(e); }
static LVal bi_is_floating(Lower *L, SrcLoc loc, LArg *a, LVal *r, int n) { return dtype_pred(a, elem_is_float); }
static LVal bi_is_int(Lower *L, SrcLoc loc, LArg *a, LVal *r, int n) { return dtype_pred(a, is_int); }
static LVal bi_is_fp16(Lower *L, SrcLoc loc, LArg *a, LVal *r, int n) { return dtype_pred(a, is_fp16); }
static LVal bi_is_bf16(Lower *L, SrcLoc loc, LArg *a, LVal *r, int n) { return dtype_pred(a, is_bf16); }
static LVal bi_is_fp32(Lower *L, SrcLoc loc, LArg *a, LVal *r, int n) { return dtype_pred(a, is_fp32); }
static LVal bi_is_fp64(Lower *L, SrcLoc loc, LArg *a, LVal *r, int n) { return dtype_pred(a, is_fp64); }
static LVal bi_is_ptr(Lower *L, SrcLoc loc, LArg *a, LVal *r, int n) { return dtype_pred(a, is_ptr); }
static LVal bi_is_bool(Lower *L, SrcLoc loc, LArg *a, LVal *r, int n) { return dtype_pred(a, is_bool); }
static LVal bi_is_int_signed(Lower *L, SrcLoc loc, LArg *a, LVal *r, int n) { return dtype_pred(a, is_int_signed); }
static LVal bi_is_int_unsigned(Lower *L, SrcLoc loc, LArg *a, LVal *r, int n) { return dtype_pred(a, is_int_unsigned); }

/* tl.core.get_int_dtype(bitwidth, signed): the integer dtype of that width
 * (torch's Inductor bitcasts through it) */
static LVal bi_get_int_dtype(Lower *L, SrcLoc loc, LArg *a, LVal *r, int n) {
    int64_t bits = larg_int(L, &a[0], "bitwidth");
    bool is_signed = arg_bool(L, &a[1], "signed");
    static const ElemType s[] = {ET_I8, ET_I16, ET_I32, ET_I64}, u[] = {ET_U8, ET_U16, ET_U32, ET_U64};
    if (bits == 1) return lval_dtype(ir_scalar(ET_I1));
    for (int k = 0; k < 4; k++)
        if (bits == 8 << k) return lval_dtype(ir_scalar(is_signed ? s[k] : u[k]));
    diag_error(L->ctx, a[0].loc, "Unsupported bitwidth %lld and signedness %s", (long long)bits,
               is_signed ? "True" : "False");
}

/* ---- the table ---- */

#define TLM (BM_TL | BM_METHOD)
static const Builtin builtins[] = {
    {"program_id", BM_TL, "axis", bi_program_id},
    {"get_int_dtype", BM_TL, "bitwidth,signed", bi_get_int_dtype},
    {"num_programs", BM_TL, "axis", bi_num_programs},
    {"arange", BM_TL, "start,end", bi_arange},
    {"zeros", BM_TL, "shape,dtype", bi_zeros},
    {"full", BM_TL, "shape,value,dtype", bi_full},
    {"zeros_like", BM_TL, "input,dtype=", bi_zeros_like},
    {"make_block_ptr", BM_TL, "base,shape,strides,offsets,block_shape,order", bi_make_block_ptr},
    {"make_tensor_descriptor", BM_TL, "base,shape,strides,block_shape,padding_option=", bi_make_tensor_descriptor},
    {"load", BM_DESC, "self,offsets", bi_desc_load},
    {"store", BM_DESC, "self,offsets,value", bi_desc_store},
    {"atomic_add", BM_DESC, "self,offsets,value", bi_desc_atomic_add},
    {"atomic_min", BM_DESC, "self,offsets,value", bi_desc_atomic_min},
    {"atomic_max", BM_DESC, "self,offsets,value", bi_desc_atomic_max},
    {"atomic_and", BM_DESC, "self,offsets,value", bi_desc_atomic_and},
    {"atomic_or", BM_DESC, "self,offsets,value", bi_desc_atomic_or},
    {"atomic_xor", BM_DESC, "self,offsets,value", bi_desc_atomic_xor},
    {"load_tensor_descriptor", BM_TL, "desc,offsets", bi_desc_load},
    {"store_tensor_descriptor", BM_TL, "desc,offsets,value", bi_desc_store},
    {"advance", BM_TL, "base,offsets", bi_advance},
    {"load", BM_TL, "pointer,mask=,other=,boundary_check=,padding_option=,cache_modifier=,eviction_policy=,volatile=",
     bi_load},
    {"store", BM_TL, "pointer,value,mask=,boundary_check=,cache_modifier=,eviction_policy=", bi_store},
    {"where", BM_TL, "condition,x,y", bi_where},
    {"minimum", BM_TL | BM_MATH, "x,y,propagate_nan=", bi_minimum},
    {"maximum", BM_TL | BM_MATH, "x,y,propagate_nan=", bi_maximum},
    {"min", BM_PY, "*,propagate_nan=", bi_py_min},
    {"max", BM_PY, "*,propagate_nan=", bi_py_max},
    {"to", BM_METHOD, "input,dtype,fp_downcast_rounding=,bitcast=", bi_cast},
    {"cast", TLM, "input,dtype,fp_downcast_rounding=,bitcast=", bi_cast},
    {"cdiv", TLM | BM_MATH | BM_TRITON, "x,div", bi_cdiv},
    {"swizzle2d", BM_TL, "i,j,size_i,size_j,size_g", bi_swizzle2d},
    {"num_threads", BM_CUDA, "", bi_num_threads},
    {"num_warps", BM_CUDA, "", bi_num_warps},
    {"smid", BM_CUDA, "", bi_smid},
    {"globaltimer", BM_CUDA, "", bi_globaltimer},
    {"exp", TLM | BM_MATH, "x", bi_exp},
    {"exp2", TLM | BM_MATH, "x", bi_exp2},
    {"log", TLM | BM_MATH, "x", bi_log},
    {"log2", TLM | BM_MATH, "x", bi_log2},
    {"sqrt", TLM | BM_MATH, "x", bi_sqrt},
    {"rsqrt", TLM | BM_MATH, "x", bi_rsqrt},
    {"abs", TLM | BM_MATH, "x", bi_abs},
    {"sigmoid", TLM | BM_MATH, "x", bi_sigmoid},
    {"fdiv", BM_TL | BM_MATH, "x,y,ieee_rounding=", bi_fdiv},
    {"erf", TLM | BM_MATH, "x", bi_erf},
    {"floor", TLM | BM_MATH, "x", bi_floor},
    {"ceil", TLM | BM_MATH, "x", bi_ceil},
    {"fma", TLM | BM_MATH, "x,y,z", bi_fma},
    {"sqrt_rn", BM_TL | BM_MATH, "x", bi_sqrt_rn},
    {"div_rn", BM_TL | BM_MATH, "x,y", bi_div_rn},
    {"clamp", TLM | BM_MATH, "x,min,max,propagate_nan=", bi_clamp},
    {"multiple_of", BM_TL, "input,values", bi_multiple_of},
    {"max_contiguous", BM_TL, "input,values", bi_max_contiguous},
    {"assume", BM_TL, "cond", bi_assume},
    {"static_assert", BM_TL, "cond,msg=", bi_static_assert},
    {"static_print", BM_TL, "*,sep=,end=,file=,flush=", bi_static_print},
    {"constexpr", BM_TL, "value", bi_constexpr},
    {"range", BM_TL | BM_PY,
     "arg1,arg2=,step=,num_stages=,loop_unroll_factor=,disallow_acc_multi_buffer=,flatten=,warp_specialize=,"
     "disable_licm=",
     bi_range},
    {"static_range", BM_TL, "arg1,arg2=,step=", bi_range},
    {"pointer_type", BM_TL, "element_ty", bi_pointer_type},
    {"tensor", BM_TL, "*", bi_type_only},
    {"dtype", BM_TL, "*", bi_type_only},
    {"tensor_descriptor", BM_TL, "*", bi_type_only},
    {"next_power_of_2", BM_TRITON, "n", bi_next_power_of_2},
    {"len", BM_PY, "obj", bi_len},
    {"int", BM_PY, "x=", bi_int},
    {"float", BM_PY, "x=", bi_float},
    {"bool", BM_PY, "x=", bi_bool},
    {"str", BM_PY, "*", bi_type_only},
    {"tuple", BM_PY, "*", bi_type_only},
    {"isinstance", BM_PY, "obj,classinfo", bi_isinstance},
    {"condition", BM_TL, "arg,disable_licm=", bi_condition},
    {"getattr", BM_PY, "obj,name,default=", bi_getattr},
    {"hasattr", BM_PY, "obj,name", bi_hasattr},
    {"print", BM_PY, "*,sep=,end=,file=,flush=", bi_print},
    {"device_print", BM_TL, "prefix,*,hex=", bi_device_print},
    {"inline_asm_elementwise", BM_TL, "asm,constraints,args,dtype,is_pure,pack", bi_inline_asm_elementwise},
    {"map_elementwise", BM_TL, "scalar_fn,*,pack=", bi_map_elementwise},
    {"device_assert", BM_TL, "cond,msg=,mask=", bi_device_assert},
    {"debug_barrier", BM_TL, "", bi_debug_barrier},
    {"is_floating", BM_DTYPE, "self", bi_is_floating},
    {"is_int", BM_DTYPE, "self", bi_is_int},
    {"is_fp16", BM_DTYPE, "self", bi_is_fp16},
    {"is_bf16", BM_DTYPE, "self", bi_is_bf16},
    {"is_fp32", BM_DTYPE, "self", bi_is_fp32},
    {"is_fp64", BM_DTYPE, "self", bi_is_fp64},
    {"is_ptr", BM_DTYPE, "self", bi_is_ptr},
    {"is_bool", BM_DTYPE, "self", bi_is_bool},
    {"is_int_signed", BM_DTYPE, "self", bi_is_int_signed},
    {"is_int_unsigned", BM_DTYPE, "self", bi_is_int_unsigned},
    {"reduce", TLM, "input,axis,combine_fn,keep_dims=", bi_reduce},
    {"sum", TLM, "input,axis=,keep_dims=,dtype=", bi_sum},
    {"max", TLM, "input,axis=,return_indices=,return_indices_tie_break_left=,keep_dims=", bi_max},
    {"min", TLM, "input,axis=,return_indices=,return_indices_tie_break_left=,keep_dims=", bi_min},
    {"argmax", TLM, "input,axis,tie_break_left=,keep_dims=", bi_argmax},
    {"argmin", TLM, "input,axis,tie_break_left=,keep_dims=", bi_argmin},
    {"xor_sum", TLM, "input,axis=,keep_dims=", bi_xor_sum},
    {"reduce_or", TLM, "input,axis,keep_dims=", bi_reduce_or},
    {"associative_scan", TLM, "input,axis,combine_fn,reverse=", bi_associative_scan},
    {"cumsum", TLM, "input,axis=,reverse=,dtype=", bi_cumsum},
    {"cumprod", TLM, "input,axis=,reverse=", bi_cumprod},
    {"atomic_add", TLM, "pointer,val,mask=,sem=,scope=", bi_atomic_add},
    {"atomic_max", TLM, "pointer,val,mask=,sem=,scope=", bi_atomic_max},
    {"atomic_min", TLM, "pointer,val,mask=,sem=,scope=", bi_atomic_min},
    {"atomic_and", TLM, "pointer,val,mask=,sem=,scope=", bi_atomic_and},
    {"atomic_or", TLM, "pointer,val,mask=,sem=,scope=", bi_atomic_or},
    {"atomic_xor", TLM, "pointer,val,mask=,sem=,scope=", bi_atomic_xor},
    {"atomic_xchg", TLM, "pointer,val,mask=,sem=,scope=", bi_atomic_xchg},
    {"atomic_cas", TLM, "pointer,cmp,val,sem=,scope=", bi_atomic_cas},
    {"umulhi", TLM | BM_MATH, "x,y", bi_umulhi},
    {"cos", TLM | BM_MATH, "x", bi_cos},
    {"sin", TLM | BM_MATH, "x", bi_sin},
    {"philox_impl", BM_TL, "c0,c1,c2,c3,k0,k1,n_rounds=", bi_philox_impl},
    {"philox", BM_TL, "seed,c0,c1,c2,c3,n_rounds=", bi_philox},
    {"randint", BM_TL, "seed,offset,n_rounds=", bi_randint},
    {"randint4x", BM_TL, "seed,offset,n_rounds=", bi_randint4x},
    {"uint_to_uniform_float", BM_TL, "x", bi_uint_to_uniform_float},
    {"rand", BM_TL, "seed,offset,n_rounds=", bi_rand},
    {"rand4x", BM_TL, "seed,offsets,n_rounds=", bi_rand4x},
    {"pair_uniform_to_normal", BM_TL, "u1,u2", bi_pair_uniform_to_normal},
    {"randn", BM_TL, "seed,offset,n_rounds=", bi_randn},
    {"randn4x", BM_TL, "seed,offset,n_rounds=", bi_randn4x},
    {"reshape", TLM, "input,*,can_reorder=", bi_reshape},
    {"view", TLM, "input,*", bi_reshape},
    {"ravel", TLM, "x,can_reorder=", bi_ravel},
    {"flip", TLM, "x,dim=", bi_flip},
    {"histogram", TLM, "input,num_bins,mask=", bi_histogram},
    {"gather", TLM, "src,index,axis", bi_gather},
    {"sort", BM_TL, "x,dim=,descending=", bi_sort},
    {"topk", BM_TL, "x,k,dim=,descending=", bi_topk},
    {"item", BM_METHOD, "input", bi_item},
    {"trans", TLM, "input,*", bi_trans},
    {"permute", TLM, "input,*", bi_permute},
    {"broadcast_to", TLM, "input,*", bi_broadcast_to},
    {"broadcast", BM_TL, "input,other", bi_broadcast},
    {"expand_dims", TLM, "input,axis", bi_expand_dims},
    {"join", TLM, "a,b", bi_join},
    {"split", TLM, "a", bi_split},
    {"interleave", TLM, "a,b", bi_interleave},
    {"cat", TLM, "input,other,can_reorder=,dim=", bi_cat},
    {"dot", BM_TL, "input,other,acc=,input_precision=,allow_tf32=,max_num_imprecise_acc=,out_dtype=", bi_dot},
    {"dot_scaled", BM_TL,
     "lhs,lhs_scale,lhs_format,rhs,rhs_scale,rhs_format,acc=,fast_math=,lhs_k_pack=,rhs_k_pack=,out_dtype=",
     bi_dot_scaled},
};

const Builtin *builtin_find(const char *name, unsigned where) {
    for (size_t i = 0; i < ARRAY_LEN(builtins); i++)
        if ((builtins[i].where & where) && !strcmp(builtins[i].name, name)) return &builtins[i];
    return NULL;
}

bool builtin_is(const LVal *v, const char *name) {
    return v->kind == LV_BUILTIN && !v->self && !strcmp(v->builtin->name, name);
}

LVal builtin_call(Lower *L, SrcLoc loc, const Builtin *bi, LVal *self, const CallArgs *ca) {
    LArg slots[BI_MAX_PARAMS];
    LVal *rest;
    int n_rest;
    builtin_bind(L, loc, bi, self, ca, slots, &rest, &n_rest);
    return bi->fn(L, loc, slots, rest, n_rest);
}
