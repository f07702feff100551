/* The IR text form: the printer and the parser, side by side, as inverses:
 * print(parse(print(f))) == print(f). doc/ir.md describes the language.
 *
 *   #L0 = linear<[1024] reg=[[1],[2]] lane=[[4],[8],[16],[32],[64]] warp=[[128],[256],[512]]>
 *   func @add_kernel(%x_ptr: ptr<f32> {div = 16}, %n: i32) {
 *     %0 = program_id 0 : i32
 *     %1 = arange 0, 1024 : tile<1024xi32, #L0>
 *     ...
 *     ret
 *   }
 *
 * Values print as %N, numbered densely in print order (results of an op,
 * then the arguments and bodies of its regions), so text does not change
 * when a pass shifts ValIds. Parameters print by their source name when it
 * is a plain identifier. Layouts are printed (and parsed) here rather than
 * with layout_print, so the text form depends on nothing else in ir/. */
#include "ir.h"
#include "mathfn.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[LL_KINDS] = {"reg", "lane", "warp"};
static const char *const rounding_names[] = {"", "rtne", "rtz"};

/* An integer constant of type e, sign- or zero-extended from its width, so
 * that the printed text is the same however the producer stored it. */
static int64_t normalize_int(ElemType e, int64_t v) {
    int bits = elem_bits(e);
    if (bits >= 64) return v;
    uint64_t mask = (UINT64_C(1) << bits) - 1, u = (uint64_t)v & mask;
    if (elem_is_signed(e) && (u >> (bits - 1)) & 1) u |= ~mask;
    return (int64_t)u;
}

/* ==================================================================== */
/* printer                                                              */
/* ==================================================================== */

enum { NUM_NONE = -1, NUM_BY_NAME = -2 };

typedef struct Printer {
    IrFunc *fn;
    Buf *out;
    int64_t *num;      /* per ValId: printed number, NUM_NONE or NUM_BY_NAME */
    int64_t next;
} Printer;

static bool is_name_char(char ch) { return isalnum((unsigned char)ch) || ch == '_' || ch == '.'; }

/* a name, or one with dots after its start (a tuple argument's item: shape.0) */
static bool is_plain_ident(const char *s) {
    if (!s || !(isalpha((unsigned char)*s) || *s == '_')) return false;
    for (; *s; s++)
        if (!is_name_char(*s)) return false;
    return true;
}

/* Parameters keep their names when those are plain and unique; every other
 * value gets the next number in print order. */
static void number_block(Printer *P, IrBlock *b) {
    for (uint32_t i = 0; i < b->n_args; i++)
        if (b->args[i] < P->fn->n_vals && P->num[b->args[i]] == NUM_NONE) P->num[b->args[i]] = P->next++;
    for (IrOp *op = b->first; op; op = op->next) {
        for (uint32_t i = 0; i < op->n_results; i++)
            if (op->results[i] < P->fn->n_vals) P->num[op->results[i]] = P->next++;
        for (uint32_t r = 0; r < op->n_regions; r++) number_block(P, op->regions[r]);
    }
}

static void number_values(Printer *P) {
    IrFunc *fn = P->fn;
    P->num = arena_alloc(fn->ctx->arena, sizeof(int64_t) * fn->n_vals);
    for (uint32_t v = 0; v < fn->n_vals; v++) P->num[v] = NUM_NONE;
    for (uint32_t i = 0; i < fn->n_params; i++) {
        const char *name = fn->params[i].name;
        bool unique = is_plain_ident(name);
        for (uint32_t j = 0; j < i && unique; j++)
            if (fn->params[j].name && strcmp(fn->params[j].name, name) == 0) unique = false;
        if (unique && fn->params[i].val < fn->n_vals) P->num[fn->params[i].val] = NUM_BY_NAME;
    }
    number_block(P, fn->body);
}

static void print_value(Printer *P, ValId v) {
    if (v >= P->fn->n_vals || P->num[v] == NUM_NONE) buf_printf(P->out, "%%?%u", v);   /* broken IR */
    else if (P->num[v] == NUM_BY_NAME) buf_printf(P->out, "%%%s", P->fn->vals[v].name);
    else buf_printf(P->out, "%%%lld", (long long)P->num[v]);
}

static void print_values(Printer *P, const ValId *vs, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        if (i) buf_puts(P->out, ", ");
        print_value(P, vs[i]);
    }
}

/* linear<[d0,d1] reg=[[c0,c1],...] lane=[...] warp=[...]> */
static void print_layout(Buf *b, const Layout *l) {
    buf_puts(b, "linear<[");
    for (int d = 0; d < l->rank; d++) buf_printf(b, "%s%d", d ? "," : "", l->shape[d]);
    buf_putc(b, ']');
    for (int k = 0; k < LL_KINDS; k++) {
        buf_printf(b, " %s=[", kind_names[k]);
        for (int i = 0; i < l->n_bits[k]; i++) {
            buf_puts(b, i ? ",[" : "[");
            for (int d = 0; d < l->rank; d++) buf_printf(b, "%s%d", d ? "," : "", l->basis[k][i][d]);
            buf_putc(b, ']');
        }
        buf_putc(b, ']');
    }
    buf_putc(b, '>');
}

/* "tile<64x32xf32, #L0>": ir_type_print plus the value's layout. */
static void print_type(Printer *P, IrType t, int32_t layout) {
    if (t.rank == 0) {
        ir_type_print(P->out, t);
        return;
    }
    buf_puts(P->out, "tile<");
    for (int i = 0; i < t.rank; i++) buf_printf(P->out, "%dx", t.shape[i]);
    ir_type_print(P->out, ir_elem_of(t));
    if (layout >= 0) buf_printf(P->out, ", #L%d", layout);
    buf_putc(P->out, '>');
}

static void print_val_type(Printer *P, ValId v) {
    if (v >= P->fn->n_vals) buf_puts(P->out, "?");
    else print_type(P, P->fn->vals[v].type, P->fn->vals[v].layout);
}

/* " -> (T, U)" for ops with results; nothing when there are none. */
static void print_result_types(Printer *P, IrOp *op) {
    if (op->n_results == 0) return;
    buf_puts(P->out, " -> (");
    for (uint32_t i = 0; i < op->n_results; i++) {
        if (i) buf_puts(P->out, ", ");
        print_val_type(P, op->results[i]);
    }
    buf_putc(P->out, ')');
}

/* The shortest decimal that reads back to the same double; inf and nan by
 * name. A ".0" keeps integral values looking like floats. */
static void print_float(Buf *b, double f) {
    if (isnan(f)) {
        buf_puts(b, "nan");
        return;
    }
    if (isinf(f)) {
        buf_puts(b, f < 0 ? "-inf" : "inf");
        return;
    }
    char tmp[40];
    int prec = 1;
    for (; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, f);
        double back = strtod(tmp, NULL);
        if (memcmp(&back, &f, sizeof f) == 0) break;
    }
    /* %g turns 1000 into 1e+03 at precision 1: print whole numbers below
     * 1e16 with all their digits instead */
    double a = fabs(f);
    if (strchr(tmp, 'e') && a >= 1 && a < 1e16) {
        int digits = (int)floor(log10(a)) + 1;
        if (digits > prec) snprintf(tmp, sizeof tmp, "%.*g", digits, f);
    }
    buf_puts(b, tmp);
    if (!strpbrk(tmp, ".e")) buf_puts(b, ".0");
}

static void print_const(Printer *P, IrOp *op) {
    bool ok = op->n_results && op->results[0] < P->fn->n_vals;
    IrType t = ok ? P->fn->vals[op->results[0]].type : ir_scalar(ET_I64);
    ElemType e = (ElemType)t.elem;
    if (elem_is_float(e)) print_float(P->out, op->attr.f);
    else if (elem_class(e) == EC_UINT) buf_printf(P->out, "%llu", (unsigned long long)normalize_int(e, op->attr.i));
    else buf_printf(P->out, "%lld", (long long)normalize_int(e, op->attr.i));
}

/* A string attribute in double quotes: backslash, quote, newline and tab
 * escaped by name, other bytes outside printable ASCII as \xHH, so any
 * string (but NUL) survives the round trip. parse_string is the inverse. */
static void print_string(Buf *b, const char *s) {
    buf_putc(b, '"');
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '\\' || ch == '"') buf_printf(b, "\\%c", ch);
        else if (ch == '\n') buf_puts(b, "\\n");
        else if (ch == '\t') buf_puts(b, "\\t");
        else if (ch < 0x20 || ch >= 0x7F) buf_printf(b, "\\x%02X", ch);
        else buf_putc(b, (char)ch);
    }
    buf_putc(b, '"');
}

static void indent(Buf *b, int depth) {
    for (int i = 0; i < depth; i++) buf_puts(b, "  ");
}

/* ", smem = 0, slot = 16384, row = 64, swizzle = [1, 8]": where pass smem
 * put the op's shared memory (ir.h IrSmem) */
static void print_smem(Buf *a, const IrSmem *s) {
    if (!s->set) return;
    buf_printf(a, ", smem = %d", (int)s->off);
    if (s->sync) buf_puts(a, ", sync");
    if (s->slot) buf_printf(a, ", slot = %d", (int)s->slot);
    if (!s->shaped) return;
    buf_printf(a, ", row = %d", 1 << s->lb);
    if (s->pad) buf_printf(a, ", pad = %d", (int)s->pad);
    if (s->mp) buf_printf(a, ", swizzle = [%d, %d]", 1 << s->pp, 1 << s->mp);
}

/* " {axis = 1}", " {cache = cg, volatile, vec = 4}": only attributes that
 * differ from their defaults, in a fixed order. */
static void print_attrs(Printer *P, IrOp *op) {
    Buf a = {0};
    const IrAttr *at = &op->attr;
    switch (op->opc) {
    case OP_EXPAND_DIMS:
    case OP_GATHER:
    case OP_REDUCE: buf_printf(&a, ", axis = %lld", (long long)at->i); break;
    case OP_SCAN: buf_printf(&a, ", axis = %lld%s", (long long)at->i, at->i2 ? ", reverse" : ""); break;
    case OP_MIN:
    case OP_MAX:
        if (at->i) buf_puts(&a, ", propagate_nan");
        break;
    case OP_CAST:
        if (at->i > 0 && at->i < (int64_t)ARRAY_LEN(rounding_names)) buf_printf(&a, ", rounding = %s", rounding_names[at->i]);
        break;
    case OP_HISTOGRAM: buf_printf(&a, ", bins = %lld", (long long)at->i); break;
    case OP_DOT:
    case OP_WGMMA:
        if (op->opc == OP_WGMMA && (at->flags & WGMMA_A_T)) buf_puts(&a, ", a_t");
        if (op->opc == OP_WGMMA && (at->flags & WGMMA_B_T)) buf_puts(&a, ", b_t");
        if (op->opc == OP_WGMMA && (at->flags & WGMMA_USE_ACC)) buf_puts(&a, ", use_acc");
        if (at->i > 0 && at->i < DOT_PRECISION_COUNT) buf_printf(&a, ", precision = %s", dot_precision_names[at->i]);
        break;
    case OP_TMAP_CREATE:
    case OP_TRANS:
    case OP_MULTIPLE_OF:
    case OP_MAX_CONTIGUOUS:
        buf_puts(&a, op->opc == OP_TRANS ? ", perm = [" : op->opc == OP_TMAP_CREATE ? ", block = [" : ", hint = [");
        for (int i = 0; i < at->n_ints; i++) buf_printf(&a, "%s%d", i ? ", " : "", at->ints[i]);
        buf_putc(&a, ']');
        if (op->opc == OP_TMAP_CREATE && (at->flags & TMAP_NAN)) buf_puts(&a, ", nan");
        break;
    case OP_LOAD:
    case OP_STORE:
        if (at->i > 0 && at->i <= CACHE_WT) buf_printf(&a, ", cache = %s", cache_mod_names[at->i] + 1);
        if (at->i2 > 0 && at->i2 <= EVICT_LAST) buf_printf(&a, ", evict = %s", evict_names[at->i2]);
        if (op->opc == OP_LOAD && (at->flags & LOADF_VOLATILE)) buf_puts(&a, ", volatile");
        if (op->opc == OP_LOAD && (at->flags & LOADF_TMA)) buf_puts(&a, ", tma");
        if (at->vec) buf_printf(&a, ", vec = %d", at->vec);
        if (op->opc == OP_LOAD && at->str) {
            buf_puts(&a, ", unpipelined = ");
            print_string(&a, at->str);
        }
        break;
    case OP_ASYNC_WAIT:
    case OP_WGMMA_WAIT: buf_printf(&a, ", pending = %lld", (long long)at->i); break;
    case OP_ASYNC_COPY:
        if (at->vec) buf_printf(&a, ", vec = %d", at->vec);
        break;
    case OP_ATOMIC:
    case OP_ATOMIC_CAS:
        if (at->i2 > 0 && at->i2 < SEM_COUNT) buf_printf(&a, ", sem = %s", mem_sem_names[at->i2]);
        if (at->flags > 0 && at->flags < SCOPE_COUNT) buf_printf(&a, ", scope = %s", mem_scope_names[at->flags]);
        break;
    case OP_INLINE_ASM:
        buf_puts(&a, ", asm = ");
        print_string(&a, at->str ? at->str : "");
        buf_puts(&a, ", constraints = ");
        print_string(&a, at->str2 ? at->str2 : "");
        buf_printf(&a, ", pack = %lld", (long long)at->i);
        if (at->flags & ASM_PURE) buf_puts(&a, ", pure");
        break;
    case OP_MAP_ELEM: buf_printf(&a, ", pack = %lld", (long long)at->i); break;
    case OP_PRINT:
    case OP_ASSERT:
        if (at->str && *at->str) {
            buf_puts(&a, op->opc == OP_PRINT ? ", prefix = " : ", msg = ");
            print_string(&a, at->str);
        }
        if (op->opc == OP_PRINT && at->i) buf_puts(&a, ", hex");
        break;
    default: break;
    }
    print_smem(&a, &at->smem);
    if (a.len) buf_printf(P->out, " {%s}", a.data + 2);
    buf_free(&a);
}

static void print_block(Printer *P, IrBlock *b, int depth);

/* "%a = %x, %b = %y": block arguments args[first..] bound to operands[first_op..] */
static void print_bindings(Printer *P, IrBlock *b, uint32_t first, const IrOp *op, uint32_t first_op) {
    for (uint32_t k = first_op; k < op->n_operands; k++) {
        if (k > first_op) buf_puts(P->out, ", ");
        uint32_t a = first + (k - first_op);
        if (a < b->n_args) print_value(P, b->args[a]);
        else buf_puts(P->out, "%?");
        buf_puts(P->out, " = ");
        print_value(P, op->operands[k]);
    }
}

/* %r.. = for %iv = %lb to %ub step %s iter(%a = %x, ...) -> (T, ...) { ... } */
static void print_for(Printer *P, IrOp *op, int depth) {
    IrBlock *body = op->regions[0];
    buf_putc(P->out, ' ');
    if (body->n_args) print_value(P, body->args[0]);
    else buf_puts(P->out, "%?");
    for (uint32_t i = 0; i < 3 && i < op->n_operands; i++) {
        buf_puts(P->out, i == 0 ? " = " : i == 1 ? " to " : " step ");
        print_value(P, op->operands[i]);
    }
    if (op->attr.i) buf_printf(P->out, " stages %lld", (long long)op->attr.i);
    if (op->attr.flags & FOR_FLATTEN) buf_puts(P->out, " flatten");
    if (op->n_operands > 3) {
        buf_puts(P->out, " iter(");
        print_bindings(P, body, 1, op, 3);
        buf_putc(P->out, ')');
    }
    print_result_types(P, op);
    buf_puts(P->out, " {\n");
    print_block(P, body, depth + 1);
    indent(P->out, depth);
    buf_putc(P->out, '}');
}

/* %r.. = if %c -> (T, ...) { ... } else { ... } */
static void print_if(Printer *P, IrOp *op, int depth) {
    buf_putc(P->out, ' ');
    print_values(P, op->operands, op->n_operands);
    print_result_types(P, op);
    buf_puts(P->out, " {\n");
    print_block(P, op->regions[0], depth + 1);
    indent(P->out, depth);
    buf_puts(P->out, "} else {\n");
    print_block(P, op->regions[1], depth + 1);
    indent(P->out, depth);
    buf_putc(P->out, '}');
}

/* %r.. = while (%a = %x, ...) -> (T, ...) { ... } do (%b: T, ...) { ... } */
static void print_while(Printer *P, IrOp *op, int depth) {
    IrBlock *before = op->regions[0], *after = op->regions[1];
    buf_puts(P->out, " (");
    print_bindings(P, before, 0, op, 0);
    buf_putc(P->out, ')');
    print_result_types(P, op);
    buf_puts(P->out, " {\n");
    print_block(P, before, depth + 1);
    indent(P->out, depth);
    buf_puts(P->out, "} do (");
    for (uint32_t k = 0; k < after->n_args; k++) {
        if (k) buf_puts(P->out, ", ");
        print_value(P, after->args[k]);
        buf_puts(P->out, ": ");
        print_val_type(P, after->args[k]);
    }
    buf_puts(P->out, ") {\n");
    print_block(P, after, depth + 1);
    indent(P->out, depth);
    buf_putc(P->out, '}');
}

/* "%a: T, %b: U": the arguments of a block, typed */
static void print_typed_args(Printer *P, IrBlock *b) {
    for (uint32_t k = 0; k < b->n_args; k++) {
        if (k) buf_puts(P->out, ", ");
        print_value(P, b->args[k]);
        buf_puts(P->out, ": ");
        print_val_type(P, b->args[k]);
    }
}

/* %r.. = reduce %x, .. {axis = A} -> (T, ...) combine(%a: t, .., %b: t, ..) { ... } */
static void print_reduce(Printer *P, IrOp *op, int depth) {
    buf_putc(P->out, ' ');
    print_values(P, op->operands, op->n_operands);
    print_attrs(P, op);
    print_result_types(P, op);
    buf_puts(P->out, op->opc == OP_MAP_ELEM ? " apply(" : " combine(");
    print_typed_args(P, op->regions[0]);
    buf_puts(P->out, ") {\n");
    print_block(P, op->regions[0], depth + 1);
    indent(P->out, depth);
    buf_putc(P->out, '}');
}

static void print_op(Printer *P, IrOp *op, int depth) {
    indent(P->out, depth);
    if (op->n_results) {
        print_values(P, op->results, op->n_results);
        buf_puts(P->out, " = ");
    }
    buf_puts(P->out, ir_opinfo[op->opc].name);
    switch (op->opc) {
    case OP_CONST: buf_putc(P->out, ' '); print_const(P, op); break;
    case OP_PROGRAM_ID:
    case OP_NUM_PROGRAMS: buf_printf(P->out, " %lld", (long long)op->attr.i); break;
    case OP_SREG:
        if (op->attr.i >= 0 && op->attr.i < SREG_COUNT) buf_printf(P->out, " %s", sreg_names[op->attr.i]);
        else buf_printf(P->out, " ?%lld", (long long)op->attr.i);
        break;
    case OP_ARANGE: buf_printf(P->out, " %lld, %lld", (long long)op->attr.i, (long long)op->attr.i2); break;
    case OP_CMP:
        if (op->attr.i >= CMP_EQ && op->attr.i <= CMP_GE) buf_printf(P->out, " %s", cmp_pred_names[op->attr.i]);
        else buf_printf(P->out, " ?%lld", (long long)op->attr.i);
        break;
    case OP_ATOMIC:
        if (op->attr.i >= 0 && op->attr.i < ATOM_COUNT) buf_printf(P->out, " %s", atomic_kind_names[op->attr.i]);
        else buf_printf(P->out, " ?%lld", (long long)op->attr.i);
        break;
    case OP_MATH:
        if (op->attr.i >= 0 && op->attr.i < MF_COUNT) buf_printf(P->out, " %s", mathfn_info[op->attr.i].name);
        else buf_printf(P->out, " ?%lld", (long long)op->attr.i);
        break;
    case OP_FOR: print_for(P, op, depth); break;
    case OP_IF: print_if(P, op, depth); break;
    case OP_WHILE: print_while(P, op, depth); break;
    case OP_REDUCE:
    case OP_SCAN:
    case OP_MAP_ELEM: print_reduce(P, op, depth); break;
    default: break;
    }
    if (op->n_regions == 0) {
        if (op->opc != OP_CONST && op->n_operands) {
            buf_putc(P->out, ' ');
            print_values(P, op->operands, op->n_operands);
        }
        print_attrs(P, op);
        for (uint32_t i = 0; i < op->n_results; i++) {   /* split has two */
            buf_puts(P->out, i ? ", " : " : ");
            print_val_type(P, op->results[i]);
        }
    }
    buf_putc(P->out, '\n');
}

static void print_block(Printer *P, IrBlock *b, int depth) {
    for (IrOp *op = b->first; op; op = op->next) print_op(P, op, depth);
}

void ir_print(Buf *out, IrFunc *fn) {
    Printer P = {fn, out, NULL, 0};
    number_values(&P);
    for (uint32_t i = 0; i < fn->n_layouts; i++) {
        buf_printf(out, "#L%u = ", i);
        print_layout(out, &fn->layouts[i]);
        buf_putc(out, '\n');
    }
    buf_printf(out, "func @%s(", fn->name);
    for (uint32_t i = 0; i < fn->body->n_args; i++) {
        ValId v = fn->body->args[i];
        if (i) buf_puts(out, ", ");
        print_value(&P, v);
        buf_puts(out, ": ");
        print_val_type(&P, v);
        for (uint32_t j = 0; j < fn->n_params; j++) {
            const IrParam *p = &fn->params[j];
            if (p->val != v) continue;
            const char *sep = " {";
            if (p->divisibility > 1) buf_printf(out, "%sdiv = %d", sep, p->divisibility), sep = ", ";
            if (p->tensormap) buf_printf(out, "%stensormap", sep), sep = ", ";
            if (p->scratch_bytes) buf_printf(out, "%sscratch = %d", sep, p->scratch_bytes), sep = ", ";
            if (sep[0] == ',') buf_putc(out, '}');
        }
    }
    buf_putc(out, ')');
    if (fn->smem_planned && fn->shared_bytes) {   /* none: a new run of pass smem finds none again */
        buf_printf(out, " shared %d", (int)fn->shared_bytes);
        if (fn->smem_align > 16) buf_printf(out, " align %d", (int)fn->smem_align);
    }
    buf_puts(out, " {\n");
    print_block(&P, fn->body, 1);
    buf_puts(out, "}\n");
}

/* ==================================================================== */
/* parser                                                               */
/* ==================================================================== */

typedef enum TokKind {
    TK_EOF,
    TK_IDENT,    /* op names, keywords, element types: [A-Za-z_][A-Za-z0-9_.]* */
    TK_VALUE,    /* %name */
    TK_GLOBAL,   /* @name */
    TK_LAYOUT,   /* #name */
    TK_NUMBER,   /* -12, 1.5e-3, inf, -nan: converted where used */
    TK_ARROW,    /* -> */
    TK_STRING,   /* "..." on one line, escapes as print_string writes them */
    TK_PUNCT     /* one of ( ) { } [ ] < > , : = */
} TokKind;

typedef struct Tok {
    TokKind kind;
    const char *s;
    int len;
    SrcLoc loc;
} Tok;

/* A name in scope: a stack whose entries also chain per hash bucket, so a
 * region's names are popped by cutting the stack back (LIFO keeps each
 * popped entry at the head of its bucket). */
typedef struct Name {
    const char *s;
    int len;
    ValId v;
    uint32_t next;     /* previous head of the bucket, +1; 0 = end */
} Name;

#define NAME_BUCKETS 1024

typedef struct LayoutName {
    const char *s;
    int len;
} LayoutName;

typedef struct Parser {
    Ctx *c;
    const SrcFile *file;
    const char *p, *end;
    int line;
    const char *line_start;
    IrFunc *fn;
    Name *names;
    uint32_t n_names, cap_names;
    uint32_t buckets[NAME_BUCKETS];
    Layout *layouts;
    LayoutName *layout_names;
    uint32_t n_layouts, cap_layouts, cap_layout_names, n_layout_names;
} Parser;

typedef struct TypeL {
    IrType t;
    int32_t layout;
} TypeL;

static SrcLoc loc_here(Parser *P) {
    SrcLoc l = {P->file, P->line, (int32_t)(P->p - P->line_start) + 1};
    return l;
}

static _Noreturn void parse_error(Parser *P, SrcLoc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static _Noreturn void parse_error(Parser *P, SrcLoc loc, const char *fmt, ...) {
    Buf msg = {.arena = P->c->arena};
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&msg, fmt, ap);
    va_end(ap);
    diag_error(P->c, loc, "%s", buf_str(&msg));
}

/* blanks, newlines and // comments */
static void skip_space(Parser *P) {
    while (P->p < P->end) {
        char ch = *P->p;
        if (ch == ' ' || ch == '\t' || ch == '\r') {
            P->p++;
        } else if (ch == '\n') {
            P->p++;
            P->line++;
            P->line_start = P->p;
        } else if (ch == '/' && P->p + 1 < P->end && P->p[1] == '/') {
            while (P->p < P->end && *P->p != '\n') P->p++;
        } else {
            break;
        }
    }
}


/* The token at the cursor; advances past it when `take`. */
static Tok lex(Parser *P, bool take) {
    skip_space(P);
    Tok t = {TK_EOF, P->p, 0, loc_here(P)};
    const char *s = P->p, *q = s;
    if (s >= P->end) return t;
    char ch = *s;
    if (ch == '%' || ch == '@' || ch == '#') {
        q++;
        while (q < P->end && is_name_char(*q)) q++;
        t.kind = ch == '%' ? TK_VALUE : ch == '@' ? TK_GLOBAL : TK_LAYOUT;
    } else if (ch == '-' && q + 1 < P->end && q[1] == '>') {
        t.kind = TK_ARROW;
        q += 2;
    } else if (isdigit((unsigned char)ch) || ((ch == '-' || ch == '+') && q + 1 < P->end && is_name_char(q[1]))) {
        /* a sign, then digits, letters (hex, exponent, inf, nan) and '.', and
         * a sign right after the exponent letter of a number */
        bool digits = isdigit((unsigned char)s[ch == '-' || ch == '+']);
        q++;
        while (q < P->end && (is_name_char(*q) || (digits && (*q == '+' || *q == '-') && strchr("eEpP", q[-1]))))
            q++;
        t.kind = TK_NUMBER;
    } else if (isalpha((unsigned char)ch) || ch == '_') {
        while (q < P->end && is_name_char(*q)) q++;
        t.kind = TK_IDENT;
    } else if (ch == '"') {
        for (q++; q < P->end && *q != '"' && *q != '\n'; q++)
            if (*q == '\\' && q + 1 < P->end && q[1] != '\n') q++;
        if (q >= P->end || *q != '"') parse_error(P, t.loc, "unterminated string");
        q++;
        t.kind = TK_STRING;
    } else if (strchr("(){}[]<>,:=", ch)) {
        q++;
        t.kind = TK_PUNCT;
    } else {
        parse_error(P, t.loc, "unexpected character '%c'", ch);
    }
    t.len = (int)(q - s);
    if (take) P->p = q;
    return t;
}

static Tok peek(Parser *P) { return lex(P, false); }
static Tok next_tok(Parser *P) { return lex(P, true); }

static bool tok_is(Tok t, const char *s) { return t.len == (int)strlen(s) && memcmp(t.s, s, (size_t)t.len) == 0; }

static _Noreturn void expected(Parser *P, Tok t, const char *what) {
    if (t.kind == TK_EOF) parse_error(P, t.loc, "expected %s near end of file", what);
    parse_error(P, t.loc, "expected %s near '%.*s'", what, t.len, t.s);
}

static bool accept(Parser *P, const char *s) {
    Tok t = peek(P);
    if (t.kind == TK_EOF || !tok_is(t, s)) return false;
    next_tok(P);
    return true;
}

static Tok expect(Parser *P, const char *s) {
    Tok t = next_tok(P);
    if (t.kind == TK_EOF || !tok_is(t, s)) {
        char what[32];
        snprintf(what, sizeof what, "'%s'", s);
        expected(P, t, what);
    }
    return t;
}

static char *tok_str(Parser *P, Tok t, int skip) { return arena_strndup(P->c->arena, t.s + skip, (size_t)(t.len - skip)); }

/* A signed integer token that fits in [lo, hi]. */
static int64_t parse_int(Parser *P, int64_t lo, int64_t hi, const char *what) {
    Tok t = next_tok(P);
    if (t.kind != TK_NUMBER) expected(P, t, what);
    char *s = tok_str(P, t, 0), *e;
    errno = 0;
    long long v = strtoll(s, &e, 10);
    if (*e || errno) parse_error(P, t.loc, "expected %s near '%s'", what, s);
    if (v < lo || v > hi) parse_error(P, t.loc, "%s %lld is out of range [%lld, %lld]", what, v, (long long)lo, (long long)hi);
    return v;
}

/* string = '"' (CHAR | "\\" ("\\" | '"' | "n" | "t" | "x" HEX HEX))* '"'
 * decoded into an arena string (the inverse of print_string) */
static const char *parse_string(Parser *P) {
    Tok t = next_tok(P);
    if (t.kind != TK_STRING) expected(P, t, "a string");
    Buf b = {.arena = P->c->arena};
    buf_puts(&b, "");
    for (int i = 1; i < t.len - 1; i++) {
        char ch = t.s[i];
        if (ch != '\\') {
            buf_putc(&b, ch);
            continue;
        }
        SrcLoc at = t.loc;
        at.col += i;
        char e = t.s[++i];
        int hi, lo;
        if (e == '\\' || e == '"') buf_putc(&b, e);
        else if (e == 'n') buf_putc(&b, '\n');
        else if (e == 't') buf_putc(&b, '\t');
        else if (e == 'x' && i + 2 < t.len - 1 && (hi = base_hex_digit(t.s[i + 1])) >= 0 &&
                 (lo = base_hex_digit(t.s[i + 2])) >= 0) {
            if (hi == 0 && lo == 0) parse_error(P, at, "a string cannot hold a NUL byte");
            buf_putc(&b, (char)(hi * 16 + lo));
            i += 2;
        } else {
            parse_error(P, at, "unknown escape in a string (use \\\\, \\\", \\n, \\t or \\xHH)");
        }
    }
    return b.data;
}

/* ---- names ---- */
static uint32_t name_hash(const char *s, int n) {
    uint32_t h = 2166136261u;
    for (int i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h % NAME_BUCKETS;
}

static Name *name_find(Parser *P, const char *s, int n) {
    for (uint32_t i = P->buckets[name_hash(s, n)]; i; i = P->names[i - 1].next) {
        Name *nm = &P->names[i - 1];
        if (nm->len == n && memcmp(nm->s, s, (size_t)n) == 0) return nm;
    }
    return NULL;
}

static void name_define(Parser *P, Tok t, ValId v) {
    if (t.kind != TK_VALUE) expected(P, t, "a value name");
    if (name_find(P, t.s, t.len)) parse_error(P, t.loc, "redefinition of %.*s", t.len, t.s);
    uint32_t h = name_hash(t.s, t.len);
    Name nm = {t.s, t.len, v, P->buckets[h]};
    VEC_PUSH(P->c->arena, P->names, P->n_names, P->cap_names, nm);
    P->buckets[h] = P->n_names;
}

/* Leaving a region: its names go out of scope. */
static void names_pop(Parser *P, uint32_t mark) {
    while (P->n_names > mark) {
        Name *nm = &P->names[--P->n_names];
        P->buckets[name_hash(nm->s, nm->len)] = nm->next;
    }
}

/* use = VALUE   (defined earlier in this region or an enclosing one) */
static ValId parse_use(Parser *P, Tok *out) {
    Tok t = next_tok(P);
    if (t.kind != TK_VALUE) expected(P, t, "a value");
    Name *nm = name_find(P, t.s, t.len);
    if (!nm) parse_error(P, t.loc, "use of undefined value %.*s", t.len, t.s);
    if (out) *out = t;
    return nm->v;
}

/* ---- types and layouts ---- */

/* int_list = "[" (INT ("," INT)*)? "]"   into out[max]; returns the count */
static int parse_int_list(Parser *P, int32_t *out, int max, int64_t lo, int64_t hi, const char *what) {
    expect(P, "[");
    int n = 0;
    if (accept(P, "]")) return 0;
    do {
        Tok t = peek(P);
        if (n == max) parse_error(P, t.loc, "too many entries in %s (at most %d)", what, max);
        out[n++] = (int32_t)parse_int(P, lo, hi, what);
    } while (accept(P, ","));
    expect(P, "]");
    return n;
}

static bool is_pow2(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

/* layout = "linear" "<" int_list ("reg"|"lane"|"warp") "=" "[" int_list,* "]" ... ">"
 * The three kinds appear in that order; each basis vector has one entry
 * per dimension, within the shape. */
static Layout parse_layout(Parser *P) {
    Layout l;
    memset(&l, 0, sizeof l);
    expect(P, "linear");
    expect(P, "<");
    Tok st = peek(P);
    l.rank = (uint8_t)parse_int_list(P, l.shape, IR_MAX_RANK, 1, INT32_MAX, "layout dimension");
    if (l.rank == 0) parse_error(P, st.loc, "a layout needs at least one dimension");
    for (int d = 0; d < l.rank; d++)
        if (!is_pow2(l.shape[d])) parse_error(P, st.loc, "layout dimension %d is not a power of two", l.shape[d]);
    for (int k = 0; k < LL_KINDS; k++) {
        expect(P, kind_names[k]);
        expect(P, "=");
        expect(P, "[");
        if (accept(P, "]")) continue;
        do {
            Tok vt = peek(P);
            if (l.n_bits[k] == LL_MAX_BITS) parse_error(P, vt.loc, "too many %s bits (at most %d)", kind_names[k], LL_MAX_BITS);
            int32_t *vec = l.basis[k][l.n_bits[k]++];
            int n = parse_int_list(P, vec, IR_MAX_RANK, 0, INT32_MAX, "basis coordinate");
            if (n != l.rank) parse_error(P, vt.loc, "basis vector has %d coordinates, the layout has %d dimensions", n, l.rank);
            for (int d = 0; d < l.rank; d++)
                if (vec[d] >= l.shape[d]) parse_error(P, vt.loc, "basis coordinate %d is outside dimension %d of size %d", vec[d], d, l.shape[d]);
        } while (accept(P, ","));
        expect(P, "]");
    }
    expect(P, ">");
    return l;
}

static int32_t layout_ref(Parser *P) {
    Tok t = next_tok(P);
    if (t.kind != TK_LAYOUT) expected(P, t, "a layout name (#L0)");
    for (uint32_t i = 0; i < P->n_layout_names; i++)
        if (P->layout_names[i].len == t.len && memcmp(P->layout_names[i].s, t.s, (size_t)t.len) == 0) return (int32_t)i;
    parse_error(P, t.loc, "undefined layout %.*s", t.len, t.s);
}

/* scalar = ELEMTYPE | "ptr" "<" ELEMTYPE ">" */
static IrType parse_scalar(Parser *P) {
    Tok t = next_tok(P);
    if (t.kind != TK_IDENT) expected(P, t, "a type");
    ElemType e = elem_from_name(t.s, (size_t)t.len);
    if (e == ET_COUNT) parse_error(P, t.loc, "unknown type '%.*s'", t.len, t.s);
    if (e != ET_PTR) return ir_scalar(e);
    expect(P, "<");
    Tok pt = next_tok(P);
    ElemType pe = pt.kind == TK_IDENT ? elem_from_name(pt.s, (size_t)pt.len) : ET_COUNT;
    if (pe == ET_COUNT || pe == ET_PTR) expected(P, pt, "a pointee element type");
    expect(P, ">");
    return ir_ptr(pe);
}

/* type = scalar | "tile" "<" (DIM "x")+ scalar ("," LAYOUT)? ">"
 * The dims are read by characters: "64x32xf32" is not a token. */
static TypeL parse_type(Parser *P) {
    TypeL r = {ir_scalar(ET_I32), -1};
    Tok t = peek(P);
    if (!(t.kind == TK_IDENT && tok_is(t, "tile"))) {
        r.t = parse_scalar(P);
        return r;
    }
    SrcLoc tl = t.loc;
    next_tok(P);
    expect(P, "<");
    skip_space(P);
    int32_t shape[IR_MAX_RANK];
    int rank = 0;
    while (P->p < P->end && isdigit((unsigned char)*P->p)) {
        SrcLoc dl = loc_here(P);
        char *e;
        errno = 0;
        long long d = strtoll(P->p, &e, 10);
        if (e >= P->end || *e != 'x') parse_error(P, loc_here(P), "expected 'x' after a tile dimension");
        /* the first of several dims may be a buffer's slot count, and the
         * one dim of tile<S x i64> a barrier ring's (any number; the verifier
         * allows it for local_alloc and mbarrier_alloc only) */
        bool slots = rank == 0 && d > 0 && d <= 64 && (isdigit((unsigned char)e[1]) || !strncmp(e + 1, "i64>", 4));
        if (errno || (!is_pow2(d) && !slots) || d > INT32_MAX)
            parse_error(P, dl, "tile dimension %lld is not a power of two", d);
        if (rank == IR_MAX_RANK) parse_error(P, dl, "a tile has at most %d dimensions", IR_MAX_RANK);
        shape[rank++] = (int32_t)d;
        P->p = e + 1;
    }
    if (rank == 0) expected(P, peek(P), "a tile dimension");
    /* the frontend's limit on a tile's elements (a buffer's slots
     * included: shared memory holds far fewer) */
    double numel = 1;
    for (int i = 0; i < rank; i++) numel *= shape[i];
    if (numel > IR_MAX_NUMEL)
        parse_error(P, tl, "a tile of %.0f elements (at most %d)", numel, IR_MAX_NUMEL);
    r.t = ir_tile(parse_scalar(P), rank, shape);
    if (accept(P, ",")) r.layout = layout_ref(P);
    expect(P, ">");
    return r;
}

/* "type mismatch: %3 is i32, expected f32" at the operand */
static void check_type(Parser *P, Tok use, ValId v, IrType want) {
    IrType have = ir_type(P->fn, v);
    if (ir_type_eq(have, want)) return;
    Buf a = {.arena = P->c->arena}, b = {.arena = P->c->arena};
    ir_type_print(&a, have);
    ir_type_print(&b, want);
    parse_error(P, use.loc, "type mismatch: %.*s is %s, expected %s", use.len, use.s, a.data, b.data);
}

/* ---- ops ---- */

/* Operands and their tokens, collected while parsing one op. */
typedef struct Operands {
    ValId *v;
    Tok *tok;
    uint32_t n, cap, cap_tok, n_tok;
} Operands;

static void operand_push(Parser *P, Operands *o, ValId v, Tok t) {
    VEC_PUSH(P->c->arena, o->v, o->n, o->cap, v);
    VEC_PUSH(P->c->arena, o->tok, o->n_tok, o->cap_tok, t);
}

/* operands = (use ("," use)*)?   -- a list only starts at a %value */
static void parse_operands(Parser *P, Operands *o) {
    if (peek(P).kind != TK_VALUE) return;
    do {
        Tok t;
        ValId v = parse_use(P, &t);
        operand_push(P, o, v, t);
    } while (accept(P, ","));
}

static IrOp *new_op(Parser *P, IrBlock *b, Opcode opc, SrcLoc loc, const Operands *o, const TypeL *res,
                    uint32_t n_res, uint32_t n_regions) {
    IrType *types = arena_alloc(P->c->arena, sizeof(IrType) * (n_res ? n_res : 1));
    for (uint32_t i = 0; i < n_res; i++) types[i] = res[i].t;
    IrOp *op = ir_op_new(P->fn, opc, loc, o->v, o->n, types, n_res, n_regions);
    for (uint32_t i = 0; i < n_res; i++) P->fn->vals[op->results[i]].layout = res[i].layout;
    ir_block_append(b, op);
    return op;
}

static int find_name(const char *const *names, int n, Tok t) {
    for (int i = 0; i < n; i++)
        if (names[i][0] && tok_is(t, names[i])) return i;
    return -1;
}

/* One attribute "key" or "key = value" of op `opc`, into attr. */
static void parse_attr(Parser *P, Opcode opc, IrAttr *attr) {
    Tok key = next_tok(P);
    if (key.kind != TK_IDENT) expected(P, key, "an attribute name");
    const char *opname = ir_opinfo[opc].name;
    bool mem = opc == OP_LOAD || opc == OP_STORE;
    if ((opc == OP_EXPAND_DIMS || opc == OP_REDUCE || opc == OP_SCAN || opc == OP_GATHER) && tok_is(key, "axis")) {
        expect(P, "=");
        attr->i = parse_int(P, 0, IR_MAX_RANK - 1, "axis");
    } else if (opc == OP_SCAN && tok_is(key, "reverse")) {
        attr->i2 = 1;
    } else if ((opc == OP_MIN || opc == OP_MAX) && tok_is(key, "propagate_nan")) {
        attr->i = 1;
    } else if (opc == OP_CAST && tok_is(key, "rounding")) {
        expect(P, "=");
        Tok v = next_tok(P);
        int r = find_name(rounding_names, (int)ARRAY_LEN(rounding_names), v);
        if (r < 0) expected(P, v, "'rtne' or 'rtz'");
        attr->i = r;
    } else if ((opc == OP_MULTIPLE_OF || opc == OP_MAX_CONTIGUOUS) && tok_is(key, "hint")) {
        expect(P, "=");
        attr->n_ints = (uint8_t)parse_int_list(P, attr->ints, IR_MAX_RANK, 1, INT32_MAX, "hint");
    } else if ((opc == OP_DOT || opc == OP_WGMMA) && tok_is(key, "precision")) {
        expect(P, "=");
        Tok v = next_tok(P);
        int r = -1;
        for (int i = 0; i < DOT_PRECISION_COUNT; i++)
            if (tok_is(v, dot_precision_names[i])) r = i;
        if (r < 0) expected(P, v, "'tf32', 'tf32x3' or 'ieee'");
        attr->i = r;
    } else if (opc == OP_TMAP_CREATE && tok_is(key, "block")) {
        expect(P, "=");
        attr->n_ints = (uint8_t)parse_int_list(P, attr->ints, IR_MAX_RANK, 1, 256, "block dim");
    } else if (opc == OP_TMAP_CREATE && tok_is(key, "nan")) {
        attr->flags |= TMAP_NAN;
    } else if (opc == OP_TRANS && tok_is(key, "perm")) {
        expect(P, "=");
        attr->n_ints = (uint8_t)parse_int_list(P, attr->ints, IR_MAX_RANK, 0, IR_MAX_RANK - 1, "perm");
    } else if (mem && tok_is(key, "cache")) {
        expect(P, "=");
        Tok v = next_tok(P);
        int found = -1;
        for (int i = 1; i <= CACHE_WT; i++)
            if (tok_is(v, cache_mod_names[i] + 1)) found = i;
        if (found < 0) expected(P, v, "a cache modifier (ca, cg, cs, cv, wb, wt)");
        attr->i = found;
    } else if (mem && tok_is(key, "evict")) {
        expect(P, "=");
        Tok v = next_tok(P);
        int e = find_name(evict_names, EVICT_LAST + 1, v);
        if (e < 0) expected(P, v, "'evict_first' or 'evict_last'");
        attr->i2 = e;
    } else if (opc == OP_LOAD && tok_is(key, "volatile")) {
        attr->flags |= LOADF_VOLATILE;
    } else if (opc == OP_LOAD && tok_is(key, "tma")) {
        attr->flags |= LOADF_TMA;
    } else if (opc == OP_INLINE_ASM && (tok_is(key, "asm") || tok_is(key, "constraints"))) {
        expect(P, "=");
        const char *v = parse_string(P);
        if (tok_is(key, "asm")) attr->str = v;
        else attr->str2 = v;
    } else if ((opc == OP_INLINE_ASM || opc == OP_MAP_ELEM) && tok_is(key, "pack")) {
        expect(P, "=");
        attr->i = parse_int(P, 1, 1 << 16, "pack");
    } else if (opc == OP_INLINE_ASM && tok_is(key, "pure")) {
        attr->flags |= ASM_PURE;
    } else if ((opc == OP_PRINT && tok_is(key, "prefix")) || (opc == OP_ASSERT && tok_is(key, "msg")) ||
               (opc == OP_LOAD && tok_is(key, "unpipelined"))) {
        expect(P, "=");
        attr->str = parse_string(P);
    } else if ((opc == OP_ATOMIC || opc == OP_ATOMIC_CAS) && tok_is(key, "sem")) {
        expect(P, "=");
        Tok v = next_tok(P);
        int sem = find_name(mem_sem_names, SEM_COUNT, v);
        if (sem < 0) expected(P, v, "a memory ordering (acq_rel, acquire, release, relaxed)");
        attr->i2 = sem;
    } else if ((opc == OP_ATOMIC || opc == OP_ATOMIC_CAS) && tok_is(key, "scope")) {
        expect(P, "=");
        Tok v = next_tok(P);
        int scope = find_name(mem_scope_names, SCOPE_COUNT, v);
        if (scope < 0) expected(P, v, "a memory scope (gpu, cta, sys)");
        attr->flags = (uint8_t)scope;
    } else if ((opc == OP_ASYNC_WAIT || opc == OP_WGMMA_WAIT) && tok_is(key, "pending")) {
        expect(P, "=");
        attr->i = parse_int(P, 0, 63, "pending groups");
    } else if (opc == OP_WGMMA && (tok_is(key, "a_t") || tok_is(key, "b_t") || tok_is(key, "use_acc"))) {
        attr->flags |= tok_is(key, "a_t") ? WGMMA_A_T : tok_is(key, "b_t") ? WGMMA_B_T : WGMMA_USE_ACC;
    } else if (opc == OP_HISTOGRAM && tok_is(key, "bins")) {
        expect(P, "=");
        attr->i = parse_int(P, 1, 1 << 20, "bins");
    } else if (opc == OP_PRINT && tok_is(key, "hex")) {
        attr->i = 1;
    } else if ((mem || opc == OP_ASYNC_COPY) && tok_is(key, "vec")) {
        expect(P, "=");
        attr->vec = (int32_t)parse_int(P, 1, 64, "vector width");
    } else if (tok_is(key, "smem")) {
        expect(P, "=");
        attr->smem.set = 1;
        attr->smem.off = (int32_t)parse_int(P, 0, IR_MAX_SHARED, "shared-memory offset");
    } else if (tok_is(key, "sync")) {
        attr->smem.sync = 1;
    } else if (tok_is(key, "slot")) {
        expect(P, "=");
        attr->smem.slot = (int32_t)parse_int(P, 1, IR_MAX_SHARED, "slot bytes");
    } else if (tok_is(key, "row")) {
        expect(P, "=");
        attr->smem.shaped = 1;
        Tok at = peek(P);
        int64_t row = parse_int(P, 1, IR_MAX_NUMEL, "row");
        if (!is_pow2(row)) parse_error(P, at.loc, "row %lld is not a power of two", (long long)row);
        attr->smem.lb = (uint8_t)log2_ceil(row);
    } else if (tok_is(key, "pad")) {
        expect(P, "=");
        attr->smem.pad = (int32_t)parse_int(P, 0, 1024, "pad");
    } else if (tok_is(key, "swizzle")) {
        expect(P, "=");
        int32_t sw[2];
        Tok at = peek(P);
        if (parse_int_list(P, sw, 2, 1, 8, "swizzle") != 2 || !is_pow2(sw[0]) || !is_pow2(sw[1]) || sw[1] < 2)
            parse_error(P, at.loc, "a swizzle is [per_phase, max_phase]: powers of two, per_phase 1 to 8, max_phase 2 to 8");
        attr->smem.pp = (uint8_t)log2_ceil(sw[0]);
        attr->smem.mp = (uint8_t)log2_ceil(sw[1]);
    } else {
        parse_error(P, key.loc, "unknown attribute '%.*s' for '%s'", key.len, key.s, opname);
    }
}

/* attrs = ("{" attr ("," attr)* "}")? */
static void parse_attrs(Parser *P, Opcode opc, IrAttr *attr) {
    if (!accept(P, "{")) return;
    do parse_attr(P, opc, attr);
    while (accept(P, ","));
    expect(P, "}");
}

static bool same_type_operands(Opcode opc) {
    switch (opc) {
    case OP_CMP: case OP_SELECT: case OP_ADDPTR: case OP_CAST: case OP_BITCAST: case OP_MATH: return false;
    default: return (ir_opinfo[opc].flags & F_ELEMWISE) != 0;
    }
}

/* Types that the syntax fixes, checked at the operand: elementwise operands
 * equal the result type; cmp's operands equal each other; select's and
 * addptr's value operands equal the result. The verifier does the rest. */
static void check_operand_types(Parser *P, Opcode opc, const Operands *o, IrType res) {
    if (same_type_operands(opc) || opc == OP_MULTIPLE_OF || opc == OP_MAX_CONTIGUOUS || opc == OP_CONVERT_LAYOUT) {
        for (uint32_t i = 0; i < o->n; i++) check_type(P, o->tok[i], o->v[i], res);
    } else if (opc == OP_CMP && o->n == 2) {
        check_type(P, o->tok[1], o->v[1], ir_type(P->fn, o->v[0]));
    } else if (opc == OP_SELECT && o->n == 3) {
        check_type(P, o->tok[1], o->v[1], res);
        check_type(P, o->tok[2], o->v[2], res);
    } else if (opc == OP_ADDPTR && o->n == 2) {
        check_type(P, o->tok[0], o->v[0], res);
    } else if (opc == OP_ATOMIC || opc == OP_ATOMIC_CAS) {
        for (uint32_t i = 1; i < o->n && i < (opc == OP_ATOMIC ? 2u : 3u); i++) check_type(P, o->tok[i], o->v[i], res);
    }
}

static void check_operand_count(Parser *P, Opcode opc, SrcLoc loc, uint32_t n) {
    int want = ir_opinfo[opc].n_operands;
    const char *name = ir_opinfo[opc].name;
    if (want >= 0 && (uint32_t)want != n)
        parse_error(P, loc, "'%s' takes %d operand%s, got %u", name, want, want == 1 ? "" : "s", n);
    if (opc == OP_LOAD && (n < 1 || n > 3 + 1 + IR_MAX_RANK))
        parse_error(P, loc, "'load' takes 1 to 3 operands (ptr, mask, other; {tma}: then the tensor map and "
                    "coordinates), got %u", n);
    if (opc == OP_STORE && (n < 2 || n > 3)) parse_error(P, loc, "'store' takes 2 or 3 operands (ptr, value, mask), got %u", n);
    if (opc == OP_ATOMIC && (n < 2 || n > 3)) parse_error(P, loc, "'atomic' takes 2 or 3 operands (ptr, value, mask), got %u", n);
    if (opc == OP_ASYNC_COPY && (n < 3 || n > 4))
        parse_error(P, loc, "'async_copy' takes 3 or 4 operands (buffer, slot, ptr, mask), got %u", n);
    if (opc == OP_TMA_COPY && n < 6)
        parse_error(P, loc, "'tma_copy' takes the buffer, slot, barriers, tensor map, predicate and coordinates, got "
                    "%u operands", n);
    if (opc == OP_HISTOGRAM && (n < 1 || n > 2))
        parse_error(P, loc, "'histogram' takes 1 or 2 operands (x, mask), got %u", n);
    if (opc == OP_WGMMA && (n < 4 || n > 6))
        parse_error(P, loc, "'wgmma' takes 4 to 6 operands ([a | abuf, aslot], bbuf, bslot, acc[, use_acc]), got %u", n);
}

/* The value of `const` (token t) at type `ty`: an integer that fits the
 * type, or a float (strtod: decimal, hex, inf, nan). */
static void parse_const_value(Parser *P, Tok t, IrType ty, IrAttr *attr) {
    ElemType e = (ElemType)ty.elem;
    char *s = tok_str(P, t, 0), *end;
    errno = 0;
    if (elem_is_float(e)) {
        attr->f = strtod(s, &end);
        if (*end) parse_error(P, t.loc, "invalid constant '%s' for type %s", s, elem_name(e));
        return;
    }
    if (elem_class(e) == EC_UINT) {
        if (s[0] == '-') parse_error(P, t.loc, "constant %s does not fit in %s", s, elem_name(e));
        attr->i = (int64_t)strtoull(s, &end, 0);
    } else {
        attr->i = strtoll(s, &end, 0);
    }
    if (*end) parse_error(P, t.loc, "invalid constant '%s' for type %s", s, elem_name(e));
    if (errno || (e != ET_PTR && normalize_int(e, attr->i) != attr->i))
        parse_error(P, t.loc, "constant %s does not fit in %s", s, elem_name(e));
    attr->f = (double)attr->i;
}

/* The numbers that come before the operands: program_id AXIS,
 * arange START, END, cmp PRED, sreg NAME. Returns const's value token. */
static Tok parse_leading(Parser *P, Opcode opc, IrAttr *attr) {
    Tok t = peek(P);
    if (opc == OP_PROGRAM_ID || opc == OP_NUM_PROGRAMS) {
        attr->i = parse_int(P, 0, 2, "axis");
    } else if (opc == OP_ARANGE) {
        attr->i = parse_int(P, INT32_MIN, INT32_MAX, "start");
        expect(P, ",");
        attr->i2 = parse_int(P, INT32_MIN, INT32_MAX, "end");
    } else if (opc == OP_SREG) {
        next_tok(P);
        int k = find_name(sreg_names, SREG_COUNT, t);
        if (k < 0) expected(P, t, "a special register (smid, globaltimer)");
        attr->i = k;
    } else if (opc == OP_CMP) {
        next_tok(P);
        int pred = find_name(cmp_pred_names, CMP_GE + 1, t);
        if (pred < 0) expected(P, t, "a comparison predicate (eq, ne, lt, le, gt, ge)");
        attr->i = pred;
    } else if (opc == OP_ATOMIC) {
        next_tok(P);
        int kind = find_name(atomic_kind_names, ATOM_COUNT, t);
        if (kind < 0) expected(P, t, "an atomic operation (add, max, min, and, or, xor, xchg)");
        attr->i = kind;
    } else if (opc == OP_MATH) {
        next_tok(P);
        char *name = tok_str(P, t, 0);
        int f = t.kind == TK_IDENT ? mathfn_find(name) : -1;
        if (f < 0) expected(P, t, "a math function (floor, tanh, erf, ...: doc/math.md)");
        attr->i = f;
    } else if (opc == OP_CONST) {
        if (t.kind != TK_NUMBER && !(t.kind == TK_IDENT && (tok_is(t, "inf") || tok_is(t, "nan"))))
            expected(P, t, "a constant");
        next_tok(P);
    }
    return t;
}

/* simple_op = OPNAME leading? operands attrs (":" type)?
 *   leading = INT (program_id, num_programs) | INT "," INT (arange)
 *           | PRED (cmp) | KIND (atomic) | NUMBER (const, which has no operands) */
static IrOp *parse_simple_op(Parser *P, IrBlock *b, Opcode opc, SrcLoc loc) {
    Operands o = {0};
    IrAttr attr;
    memset(&attr, 0, sizeof attr);
    Tok value = parse_leading(P, opc, &attr);
    /* an op without results may end its line with no operands (barrier,
     * print): the next line's "%v = ..." is not one of them */
    bool no_operands = opc == OP_CONST || ir_opinfo[opc].n_operands == 0 ||
                       (opc == OP_PRINT && peek(P).loc.line != loc.line);
    if (!no_operands) parse_operands(P, &o);
    check_operand_count(P, opc, loc, o.n);
    parse_attrs(P, opc, &attr);
    TypeL res[2] = {{ir_scalar(ET_I32), -1}, {ir_scalar(ET_I32), -1}};
    uint32_t n_res = (uint32_t)ir_opinfo[opc].n_results;
    if (n_res >= 1) {   /* ": T" (split: ": T, U") */
        expect(P, ":");
        res[0] = parse_type(P);
        check_operand_types(P, opc, &o, res[0].t);
        if (n_res == 2) {
            expect(P, ",");
            res[1] = parse_type(P);
        }
    }
    if (opc == OP_CONST) parse_const_value(P, value, res[0].t, &attr);
    IrOp *op = new_op(P, b, opc, loc, &o, res, n_res, 0);
    op->attr = attr;
    return op;
}

static void parse_region(Parser *P, IrBlock *b, const Tok *arg_names, uint32_t n_args, Tok opener);

/* results = "->" "(" type ("," type)* ")"   (optional: no results) */
static uint32_t parse_result_types(Parser *P, TypeL **out) {
    uint32_t n = 0, cap = 0;
    *out = NULL;
    if (peek(P).kind != TK_ARROW) return 0;
    next_tok(P);
    expect(P, "(");
    if (accept(P, ")")) return 0;
    do {
        TypeL t = parse_type(P);
        VEC_PUSH(P->c->arena, *out, n, cap, t);
    } while (accept(P, ","));
    expect(P, ")");
    return n;
}

/* bindings = VALUE "=" use ("," VALUE "=" use)* ")"  — the inverse of
 * print_bindings: names go to *names, the uses to o */
static void parse_bindings(Parser *P, Operands *o, Tok **names, uint32_t *n, uint32_t *cap) {
    Tok t;
    do {
        Tok a = next_tok(P);
        if (a.kind != TK_VALUE) expected(P, a, "a loop-carried value name");
        VEC_PUSH(P->c->arena, *names, *n, *cap, a);
        expect(P, "=");
        operand_push(P, o, parse_use(P, &t), t);
    } while (accept(P, ","));
    expect(P, ")");
}

/* for_op = "for" VALUE "=" use "to" use "step" use ("stages" NUMBER)? "flatten"?
 *          ("iter" "(" VALUE "=" use ("," VALUE "=" use)* ")")? results region */
static IrOp *parse_for(Parser *P, IrBlock *b, SrcLoc loc, Tok kw) {
    Operands o = {0};
    Tok iv = next_tok(P), t;
    if (iv.kind != TK_VALUE) expected(P, iv, "the induction variable");
    expect(P, "=");
    operand_push(P, &o, parse_use(P, &t), t);
    expect(P, "to");
    operand_push(P, &o, parse_use(P, &t), t);
    expect(P, "step");
    operand_push(P, &o, parse_use(P, &t), t);
    int64_t stages = accept(P, "stages") ? parse_int(P, 1, 16, "num_stages") : 0;
    bool flatten = accept(P, "flatten");
    Tok *args = NULL;
    uint32_t n_args = 0, cap_args = 0;
    VEC_PUSH(P->c->arena, args, n_args, cap_args, iv);
    if (accept(P, "iter")) {
        expect(P, "(");
        parse_bindings(P, &o, &args, &n_args, &cap_args);
    }
    TypeL *res;
    uint32_t n_res = parse_result_types(P, &res);
    if (n_res != n_args - 1)
        parse_error(P, loc, "'for' has %u loop-carried value%s but %u result type%s", n_args - 1, n_args == 2 ? "" : "s",
                    n_res, n_res == 1 ? "" : "s");
    for (uint32_t k = 0; k < n_res; k++) check_type(P, o.tok[3 + k], o.v[3 + k], res[k].t);
    IrOp *op = new_op(P, b, OP_FOR, loc, &o, res, n_res, 1);
    op->attr.i = stages;
    op->attr.flags = flatten ? FOR_FLATTEN : 0;
    IrBlock *body = op->regions[0];
    ir_block_add_arg(P->fn, body, ir_type(P->fn, o.v[0]));
    for (uint32_t k = 0; k < n_res; k++) {
        ValId a = ir_block_add_arg(P->fn, body, res[k].t);
        P->fn->vals[a].layout = res[k].layout;
    }
    parse_region(P, body, args, n_args, kw);
    return op;
}

/* if_op = "if" use results region "else" region */
static IrOp *parse_if(Parser *P, IrBlock *b, SrcLoc loc, Tok kw) {
    Operands o = {0};
    Tok t;
    operand_push(P, &o, parse_use(P, &t), t);
    TypeL *res;
    uint32_t n_res = parse_result_types(P, &res);
    IrOp *op = new_op(P, b, OP_IF, loc, &o, res, n_res, 2);
    parse_region(P, op->regions[0], NULL, 0, kw);
    Tok e = expect(P, "else");
    parse_region(P, op->regions[1], NULL, 0, e);
    return op;
}

/* while_op = "while" "(" (VALUE "=" use ("," VALUE "=" use)*)? ")" results region
 *            "do" "(" (VALUE ":" type ("," VALUE ":" type)*)? ")" region */
static IrOp *parse_while(Parser *P, IrBlock *b, SrcLoc loc, Tok kw) {
    Operands o = {0};
    Tok *before = NULL, *after = NULL;
    uint32_t n_before = 0, cap_before = 0, n_after = 0, cap_after = 0;
    expect(P, "(");
    if (!accept(P, ")")) parse_bindings(P, &o, &before, &n_before, &cap_before);
    TypeL *res;
    uint32_t n_res = parse_result_types(P, &res);
    IrOp *op = new_op(P, b, OP_WHILE, loc, &o, res, n_res, 2);
    for (uint32_t k = 0; k < o.n; k++) {
        ValId a = ir_block_add_arg(P->fn, op->regions[0], ir_type(P->fn, o.v[k]));
        P->fn->vals[a].layout = P->fn->vals[o.v[k]].layout;
    }
    parse_region(P, op->regions[0], before, n_before, kw);
    Tok d = expect(P, "do");
    expect(P, "(");
    if (!accept(P, ")")) {
        do {
            Tok a = next_tok(P);
            if (a.kind != TK_VALUE) expected(P, a, "an argument name");
            VEC_PUSH(P->c->arena, after, n_after, cap_after, a);
            expect(P, ":");
            TypeL ty = parse_type(P);
            ValId v = ir_block_add_arg(P->fn, op->regions[1], ty.t);
            P->fn->vals[v].layout = ty.layout;
        } while (accept(P, ","));
        expect(P, ")");
    }
    parse_region(P, op->regions[1], after, n_after, d);
    return op;
}

/* typed_args = "(" (VALUE ":" type ("," VALUE ":" type)*)? ")"  -- new
 * arguments of block b, their names appended to *names */
static void parse_typed_args(Parser *P, IrBlock *b, Tok **names, uint32_t *n, uint32_t *cap) {
    expect(P, "(");
    if (accept(P, ")")) return;
    do {
        Tok a = next_tok(P);
        if (a.kind != TK_VALUE) expected(P, a, "an argument name");
        VEC_PUSH(P->c->arena, *names, *n, *cap, a);
        expect(P, ":");
        TypeL ty = parse_type(P);
        ValId v = ir_block_add_arg(P->fn, b, ty.t);
        P->fn->vals[v].layout = ty.layout;
    } while (accept(P, ","));
    expect(P, ")");
}

/* reduce_op = ("reduce" | "scan") use ("," use)* attrs results "combine" typed_args region */
static IrOp *parse_reduce(Parser *P, IrBlock *b, SrcLoc loc, Tok kw, Opcode opc) {
    Operands o = {0};
    parse_operands(P, &o);
    if (o.n == 0) expected(P, peek(P), "an operand");
    IrAttr attr;
    memset(&attr, 0, sizeof attr);
    if (opc == OP_MAP_ELEM) attr.i = 1;
    parse_attrs(P, opc, &attr);
    TypeL *res;
    uint32_t n_res = parse_result_types(P, &res);
    if (opc == OP_MAP_ELEM && n_res == 0) parse_error(P, loc, "'map_elementwise' needs at least one result type");
    if (opc != OP_MAP_ELEM && n_res != o.n)
        parse_error(P, loc, "'%s' has %u operand%s but %u result type%s", ir_opinfo[opc].name, o.n, o.n == 1 ? "" : "s",
                    n_res, n_res == 1 ? "" : "s");
    IrOp *op = new_op(P, b, opc, loc, &o, res, n_res, 1);
    op->attr = attr;
    Tok c = expect(P, opc == OP_MAP_ELEM ? "apply" : "combine");
    Tok *args = NULL;
    uint32_t n_args = 0, cap_args = 0;
    parse_typed_args(P, op->regions[0], &args, &n_args, &cap_args);
    (void)kw;
    parse_region(P, op->regions[0], args, n_args, c);
    return op;
}

/* asm_op = "inline_asm" (use ("," use)*)? attrs ":" type ("," type)* */
static IrOp *parse_inline_asm(Parser *P, IrBlock *b, SrcLoc loc) {
    Operands o = {0};
    parse_operands(P, &o);
    IrAttr attr;
    memset(&attr, 0, sizeof attr);
    attr.i = 1;
    parse_attrs(P, OP_INLINE_ASM, &attr);
    if (!attr.str || !attr.str2) parse_error(P, loc, "'inline_asm' needs its asm and constraints attributes");
    TypeL *res = NULL;
    uint32_t n_res = 0, cap_res = 0;
    expect(P, ":");
    do {
        TypeL t = parse_type(P);
        VEC_PUSH(P->c->arena, res, n_res, cap_res, t);
    } while (accept(P, ","));
    IrOp *op = new_op(P, b, OP_INLINE_ASM, loc, &o, res, n_res, 0);
    op->attr = attr;
    return op;
}

/* op = (VALUE ("," VALUE)* "=")? OPNAME op_body */
static void parse_op(Parser *P, IrBlock *b) {
    Tok first = peek(P);
    SrcLoc loc = first.loc;
    Tok *res = NULL;
    uint32_t n_res = 0, cap_res = 0;
    if (first.kind == TK_VALUE) {
        do {
            Tok r = next_tok(P);
            if (r.kind != TK_VALUE) expected(P, r, "a result name");
            VEC_PUSH(P->c->arena, res, n_res, cap_res, r);
        } while (accept(P, ","));
        expect(P, "=");
    }
    Tok name = next_tok(P);
    if (name.kind != TK_IDENT) expected(P, name, "an op");
    int opc = -1;
    for (int i = 0; i < OP_COUNT && opc < 0; i++)
        if (tok_is(name, ir_opinfo[i].name)) opc = i;
    if (opc < 0) parse_error(P, name.loc, "unknown op '%.*s'", name.len, name.s);
    IrOp *op;
    switch (opc) {
    case OP_FOR: op = parse_for(P, b, loc, name); break;
    case OP_IF: op = parse_if(P, b, loc, name); break;
    case OP_WHILE: op = parse_while(P, b, loc, name); break;
    case OP_REDUCE:
    case OP_SCAN:
    case OP_MAP_ELEM: op = parse_reduce(P, b, loc, name, (Opcode)opc); break;
    case OP_INLINE_ASM: op = parse_inline_asm(P, b, loc); break;
    default: op = parse_simple_op(P, b, (Opcode)opc, loc); break;
    }
    if (n_res != op->n_results)
        parse_error(P, loc, "'%s' has %u result%s, but %u name%s given", ir_opinfo[opc].name,
                    op->n_results, op->n_results == 1 ? "" : "s", n_res, n_res == 1 ? " is" : "s are");
    for (uint32_t i = 0; i < n_res; i++) name_define(P, res[i], op->results[i]);
}

/* region = "{" op* "}"   with the block's arguments named arg_names */
static void parse_region(Parser *P, IrBlock *b, const Tok *arg_names, uint32_t n_args, Tok opener) {
    uint32_t mark = P->n_names;
    for (uint32_t i = 0; i < n_args && i < b->n_args; i++) name_define(P, arg_names[i], b->args[i]);
    Tok open = expect(P, "{");
    while (!accept(P, "}")) {
        if (peek(P).kind == TK_EOF)
            parse_error(P, peek(P).loc, "expected '}' to close '{' of '%.*s' at line %d", opener.len, opener.s, open.loc.line);
        parse_op(P, b);
    }
    names_pop(P, mark);
}

/* layout_def = LAYOUT "=" layout */
static void parse_layout_def(Parser *P) {
    Tok name = next_tok(P);
    for (uint32_t i = 0; i < P->n_layout_names; i++)
        if (P->layout_names[i].len == name.len && memcmp(P->layout_names[i].s, name.s, (size_t)name.len) == 0)
            parse_error(P, name.loc, "redefinition of layout %.*s", name.len, name.s);
    expect(P, "=");
    Layout l = parse_layout(P);
    LayoutName ln = {name.s, name.len};
    VEC_PUSH(P->c->arena, P->layouts, P->n_layouts, P->cap_layouts, l);
    VEC_PUSH(P->c->arena, P->layout_names, P->n_layout_names, P->cap_layout_names, ln);
}

/* param = VALUE ":" type ("{" pattr ("," pattr)* "}")?
 * pattr = "div" "=" INT | "tensormap" | "scratch" "=" INT */
static void parse_param(Parser *P) {
    Tok name = next_tok(P);
    if (name.kind != TK_VALUE) expected(P, name, "a parameter name");
    expect(P, ":");
    TypeL ty = parse_type(P);
    int32_t div = 1, scratch = 0;
    bool tensormap = false;
    if (accept(P, "{")) {
        do {
            Tok key = next_tok(P);
            if (tok_is(key, "scratch")) {
                if (ty.t.rank || ty.t.elem != ET_PTR || ty.t.pointee != ET_I8)
                    parse_error(P, key.loc, "a scratch parameter has type ptr<i8>");
                expect(P, "=");
                scratch = (int32_t)parse_int(P, 1, 1 << 20, "scratch bytes per program");
                continue;
            }
            if (tok_is(key, "tensormap")) {
                if (ty.t.rank || ty.t.elem != ET_PTR || ty.t.pointee != ET_I8)
                    parse_error(P, key.loc, "a tensormap parameter has type ptr<i8>");
                tensormap = true;
                continue;
            }
            if (!tok_is(key, "div")) expected(P, key, "'div', 'tensormap' or 'scratch'");
            expect(P, "=");
            Tok dt = peek(P);
            div = (int32_t)parse_int(P, 1, 1 << 30, "divisibility");
            if (!is_pow2(div)) parse_error(P, dt.loc, "divisibility %d is not a power of two", div);
        } while (accept(P, ","));
        expect(P, "}");
    }
    /* %0-style names are positions, not source names */
    bool numeric = name.len > 1 && isdigit((unsigned char)name.s[1]);
    ValId v = ir_param_add(P->fn, numeric ? NULL : tok_str(P, name, 1), ty.t, div);
    P->fn->params[P->fn->n_params - 1].tensormap = tensormap;
    P->fn->params[P->fn->n_params - 1].scratch_bytes = scratch;
    P->fn->vals[v].layout = ty.layout;
    name_define(P, name, v);
}

/* file = layout_def* "func" GLOBAL "(" (param ("," param)*)? ")" region */
static void parse_file(Parser *P) {
    while (peek(P).kind == TK_LAYOUT) parse_layout_def(P);
    Tok kw = expect(P, "func");
    Tok name = next_tok(P);
    if (name.kind != TK_GLOBAL || name.len < 2) expected(P, name, "a function name (@name)");
    P->fn = ir_func_new(P->c, tok_str(P, name, 1));
    for (uint32_t i = 0; i < P->n_layouts; i++)
        VEC_PUSH(P->c->arena, P->fn->layouts, P->fn->n_layouts, P->fn->cap_layouts, P->layouts[i]);
    expect(P, "(");
    if (!accept(P, ")")) {
        do parse_param(P);
        while (accept(P, ","));
        expect(P, ")");
    }
    if (accept(P, "shared")) {   /* pass smem ran: "shared BYTES (align A)?" */
        P->fn->shared_bytes = (int32_t)parse_int(P, 0, IR_MAX_SHARED, "shared bytes");
        P->fn->smem_align = 16;
        if (accept(P, "align")) {
            Tok at = peek(P);
            P->fn->smem_align = (int32_t)parse_int(P, 16, 1024, "shared-memory alignment");
            if (!is_pow2(P->fn->smem_align))
                parse_error(P, at.loc, "alignment %d is not a power of two", (int)P->fn->smem_align);
        }
        P->fn->smem_planned = true;
    }
    parse_region(P, P->fn->body, NULL, 0, kw);
    Tok end = peek(P);
    if (end.kind != TK_EOF) expected(P, end, "end of file");
}

IrFunc *ir_parse(Ctx *c, const SrcFile *file) {
    Parser *P = arena_alloc(c->arena, sizeof *P);
    P->c = c;
    P->file = file;
    P->p = file->text;
    P->end = file->text + file->len;
    P->line = 1;
    P->line_start = file->text;
    parse_file(P);
    /* text is user input: hand the passes only valid IR */
    SrcLoc loc;
    Buf msg = {.arena = c->arena};
    if (!ir_verify_first(P->fn, &loc, &msg)) diag_error(c, loc, "%s", buf_str(&msg));
    return P->fn;
}
