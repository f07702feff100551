/* print, assert and barrier: the debugging ops, through the two system
 * calls the CUDA driver provides to PTX.
 *
 *   vprintf(fmt, args)   fmt a generic address of a NUL-terminated format;
 *                        args a generic address of the arguments packed as
 *                        C varargs would be (each aligned to its size, floats
 *                        as f64), here a .local buffer per print op
 *   __assertfail(message, file, line, function, char_size)
 *                        prints "file:line: function: block: [..], thread:
 *                        [..] Assertion `message` failed." and traps
 *
 * The strings are .global .b8 arrays at module scope, one per distinct
 * text. A print writes Triton's device_print lines, one vprintf per element,
 * only from the element's canonical holder (a predicate on the stores and
 * the call, not a branch), so each element prints once
 * per program (Triton prints replicated elements once per holder); the
 * interpreter writes the same lines in row-major order (interp.c).
 */
#include "ptx.h"

#include <string.h>

/* ---- strings ---- */

/* The name of the global array holding s (one per distinct string). */
static const char *string_sym(Ptx *P, const char *s) {
    for (uint32_t i = 0; i < P->n_strings; i++)
        if (!strcmp(P->strings[i], s)) return arena_printf(P->arena, "tric_str_%u", (unsigned)i);
    uint32_t i = P->n_strings;
    VEC_PUSH(P->arena, P->strings, P->n_strings, P->cap_strings, arena_strdup(P->arena, s));
    size_t n = strlen(s);
    buf_printf(&P->globals, ".global .align 1 .b8 tric_str_%u[%zu] = {", (unsigned)i, n + 1);
    for (size_t k = 0; k < n; k++) buf_printf(&P->globals, "%u, ", (unsigned)(unsigned char)s[k]);
    buf_puts(&P->globals, "0};\n");
    return arena_printf(P->arena, "tric_str_%u", (unsigned)i);
}

/* A b64 register with the generic address of string s. */
static Reg string_addr(Ptx *P, const char *s) {
    Reg g = ptx_reg(P, RC_B64), a = ptx_reg(P, RC_B64);
    ptx_ins(P, "mov.u64 %R, %s;", g, string_sym(P, s));
    ptx_ins(P, "cvta.global.u64 %R, %R;", a, g);
    return a;
}

void ptx_debug_decls(Ptx *P, Buf *out) {
    if (P->uses_vprintf)
        buf_puts(out, ".extern .func (.param .b32 retval) vprintf (.param .b64 fmt, .param .b64 args);\n");
    if (P->uses_assertfail)
        buf_puts(out, ".extern .func __assertfail (.param .b64 message, .param .b64 file, .param .b32 line, "
                      ".param .b64 function, .param .b64 char_size);\n");
    if (P->globals.len) buf_putn(out, P->globals.data, P->globals.len);
}

/* ---- print ---- */

/* printf digits an index along a dim of size n is padded to, ceil(log10 n),
 * as Triton pads (interp.c's index_width is the same rule). */
static int index_width(int32_t n) {
    int w = 0;
    for (int64_t p = 1; p < n; p *= 10) w++;
    return w;
}

static bool is_f8(ElemType e) { return e == ET_F8E4M3 || e == ET_F8E5M2; }

/* The conversion of one element: "%f", "%d", "%lld", "%u", "%llu", "0x%llx"
 * (pointers), or with hex the bits padded to the type's width. */
static const char *value_format(Ptx *P, ElemType e, bool hex) {
    int bits = e == ET_PTR ? 64 : elem_bits(e);
    if (hex) return arena_printf(P->arena, "0x%%0%d%sx", (bits + 3) / 4, bits > 32 ? "ll" : "");
    if (e == ET_PTR) return "0x%llx";
    if (elem_is_float(e)) return "%f";
    if (e == ET_I1 || elem_is_signed(e)) return bits > 32 ? "%lld" : "%d";
    return bits > 32 ? "%llu" : "%u";
}

/* Bytes the element takes in the argument buffer: 8 for floats (printf
 * widens them to double), 64-bit values and pointers; 4 otherwise. */
static int value_bytes(ElemType e, bool hex) {
    int bits = e == ET_PTR ? 64 : elem_bits(e);
    if (bits > 32) return 8;
    return elem_is_float(e) && !hex ? 8 : 4;
}

static void put_escaped_format(Buf *b, const char *s) {
    for (; *s; s++) {
        if (*s == '%') buf_putc(b, '%');
        buf_putc(b, *s);
    }
}

/* "pid (%u, %u, %u) idx (%2u, %u)<prefix>(operand k) <value>\n" */
static const char *print_format(Ptx *P, IrOp *op, uint32_t k) {
    IrType t = P->fn->vals[op->operands[k]].type;
    Buf b = {.arena = P->arena};
    buf_puts(&b, "pid (%u, %u, %u) idx (");
    for (int d = 0; d < t.rank; d++) buf_printf(&b, "%s%%%du", d ? ", " : "", index_width(t.shape[d]));
    buf_putc(&b, ')');
    put_escaped_format(&b, op->attr.str ? op->attr.str : "");
    if (op->n_operands > 1) buf_printf(&b, "(operand %u) ", (unsigned)k);
    buf_puts(&b, value_format(P, (ElemType)t.elem, op->attr.i != 0));
    buf_putc(&b, '\n');
    return b.data;
}

/* Element register v of type e as the register printf reads. */
static Reg print_value_reg(Ptx *P, IrOp *op, ElemType e, Reg v, bool hex) {
    RegClass c = ptx_class_of(e);
    if (e == ET_I1) {
        Reg r = ptx_reg(P, RC_B32);
        ptx_ins(P, "selp.u32 %R, 1, 0, %R;", r, v);
        return r;
    }
    if (c == RC_B32 || c == RC_B64) return v;
    if (c == RC_F32 || c == RC_F64) {
        if (!hex && c == RC_F64) return v;
        Reg r = ptx_reg(P, hex ? (c == RC_F32 ? RC_B32 : RC_B64) : RC_F64);
        if (hex) ptx_ins(P, "mov.b%d %R, %R;", c == RC_F32 ? 32 : 64, r, v);
        else ptx_ins(P, "cvt.f64.f32 %R, %R;", r, v);
        return r;
    }
    /* 16-bit registers: 8- and 16-bit integers, f16, bf16, fp8 */
    if (elem_is_float(e) && !hex) {
        if (is_f8(e))
            diag_error(P->ctx, op->loc, "printing %s values is not supported yet (print them with hex=True, or "
                                        "convert them to float32 first)", elem_name(e));
        Reg r = ptx_reg(P, RC_F64);
        ptx_ins(P, "cvt.f64.f32 %R, %R;", r, ptx_to_f32(P, e, v));
        return r;
    }
    Reg r = ptx_reg(P, RC_B32);
    ptx_ins(P, "cvt.%s32.%s16 %R, %R;", elem_is_signed(e) && !hex ? "s" : "u", elem_is_signed(e) && !hex ? "s" : "u",
            r, v);
    if (elem_bits(e) == 8 && hex) {   /* i8 is kept sign-extended to 16 bits */
        Reg m = ptx_reg(P, RC_B32);
        ptx_ins(P, "and.b32 %R, %R, 255;", m, r);
        r = m;
    }
    return r;
}

/* A ptx_ins format with the guard "@%p " (or "@!%p ") in front; fmt itself
 * when g is REG_NONE. Only the threads that print store arguments and call
 * vprintf, through predicates rather than branches: a branch that threads
 * of one warp take differently is divergent control flow, which the code
 * around it never needs (and the simulator, sim/, refuses). */
static const char *guarded(Ptx *P, Reg g, bool neg, const char *fmt) {
    if (!g) return fmt;
    Buf b = {.arena = P->arena};
    buf_puts(&b, neg ? "@!%" : "@%");   /* ptx_put_reg writes "%p3": one '%' more escapes it */
    ptx_put_reg(&b, g);
    buf_putc(&b, ' ');
    buf_puts(&b, fmt);
    return b.data;
}

/* The store of a register into the argument buffer at byte offset off,
 * under guard g. */
static void put_arg(Ptx *P, Reg g, Reg buf, int off, Reg v) {
    static const char *const sfx[RC_COUNT] = {"", "b16", "b32", "f32", "b64", "f64"};
    ptx_ins(P, guarded(P, g, false, "st.local.%s [%R+%d], %R;"), sfx[REG_CLASS(v)], buf, off, v);
}

/* vprintf(fmt, args) where both are generic addresses, called by the
 * threads where g holds (every thread when g is REG_NONE). */
static void call_vprintf(Ptx *P, Reg g, Reg fmt, Reg args) {
    P->uses_vprintf = true;
    Reg ret = ptx_reg(P, RC_B32);
    ptx_ins(P, "{");
    ptx_ins(P, ".param .b64 fmt_arg;");
    ptx_ins(P, "st.param.b64 [fmt_arg], %R;", fmt);
    ptx_ins(P, ".param .b64 args_arg;");
    ptx_ins(P, "st.param.b64 [args_arg], %R;", args);
    ptx_ins(P, ".param .b32 ret_arg;");
    ptx_ins(P, guarded(P, g, false, "call (ret_arg), vprintf, (fmt_arg, args_arg);"));
    ptx_ins(P, "ld.param.b32 %R, [ret_arg];", ret);
    ptx_ins(P, "}");
}

/* The .local buffer of one print op: its local and generic addresses. */
typedef struct PrintBuf {
    Reg local, generic;
} PrintBuf;

static PrintBuf print_buffer(Ptx *P, int bytes) {
    int n = P->n_print_bufs++;
    buf_printf(&P->locals, "\t.local .align 8 .b8 tric_pbuf_%d[%d];\n", n, bytes);
    PrintBuf b = {ptx_reg(P, RC_B64), ptx_reg(P, RC_B64)};
    ptx_ins(P, "mov.u64 %R, tric_pbuf_%d;", b.local, n);
    ptx_ins(P, "cvta.local.u64 %R, %R;", b.generic, b.local);
    return b;
}

/* The row-major index of the element in register r of a tile with layout
 * li: the register's part XOR the thread's (as arange computes it). */
static Reg element_flat(Ptx *P, int32_t li, int r) {
    const Layout *l = &P->fn->layouts[li];
    int32_t c = layout_reg_flat(l, r);
    if (!layout_thread_support(l)) return ptx_const_reg(P, RC_B32, (uint32_t)c);
    Reg t = ptx_layout_flat(P, li);
    if (!c) return t;
    Reg f = ptx_reg(P, RC_B32);
    ptx_ins(P, "xor.b32 %R, %R, %d;", f, t, (int)c);
    return f;
}

/* Stores the coordinates of row-major index flat (dims are powers of two,
 * so each is a bit field) from byte offset 12. */
static void put_index(Ptx *P, Reg g, Reg buf, IrType t, Reg flat) {
    int shift = 0;
    for (int d = t.rank - 1; d >= 0; d--) {
        Reg i = ptx_reg(P, RC_B32);
        if (shift) {
            Reg s = ptx_reg(P, RC_B32);
            ptx_ins(P, "shr.u32 %R, %R, %d;", s, flat, shift);
            ptx_ins(P, "and.b32 %R, %R, %d;", i, s, (int)t.shape[d] - 1);
        } else {
            ptx_ins(P, "and.b32 %R, %R, %d;", i, flat, (int)t.shape[d] - 1);
        }
        put_arg(P, g, buf, 12 + 4 * d, i);
        for (int32_t n = t.shape[d]; n > 1; n >>= 1) shift++;
    }
}

static void print_operand(Ptx *P, IrOp *op, uint32_t k, const Reg pid[3], PrintBuf buf) {
    ValId v = op->operands[k];
    IrType t = P->fn->vals[v].type;
    ElemType e = (ElemType)t.elem;
    bool hex = op->attr.i != 0;
    int n;
    Reg *regs = ptx_regs(P, v, &n);
    uint32_t dup = 0;
    int32_t li = t.rank ? ptx_layout_index(P, op, v) : -1;
    Reg owner = t.rank ? ptx_layout_owner(P, li, &dup) : ptx_tid0(P);
    Reg fmt = string_addr(P, print_format(P, op, k));
    int off = 12 + 4 * t.rank, vb = value_bytes(e, hex);
    off = (off + vb - 1) / vb * vb;
    for (int r = 0; r < n; r++) {
        if ((uint32_t)r & dup) continue;
        for (int a = 0; a < 3; a++) put_arg(P, owner, buf.local, 4 * a, pid[a]);
        if (t.rank) put_index(P, owner, buf.local, t, element_flat(P, li, r));
        put_arg(P, owner, buf.local, off, print_value_reg(P, op, e, regs[r], hex));
        call_vprintf(P, owner, fmt, buf.generic);
    }
}

/* The argument buffer must hold the largest operand's arguments: 3 pids,
 * the index, the value (8-byte aligned at most). */
static int print_buffer_bytes(Ptx *P, IrOp *op) {
    int most = 16;
    for (uint32_t k = 0; k < op->n_operands; k++) {
        IrType t = P->fn->vals[op->operands[k]].type;
        int bytes = (12 + 4 * t.rank + 7) / 8 * 8 + 8;
        if (bytes > most) most = bytes;
    }
    return most;
}

void ptx_print(Ptx *P, IrOp *op) {
    PrintBuf buf = print_buffer(P, print_buffer_bytes(P, op));
    Reg pid[3];
    for (int a = 0; a < 3; a++) {
        pid[a] = ptx_reg(P, RC_B32);
        ptx_ins(P, "mov.u32 %R, %%ctaid.%s;", pid[a], a == 0 ? "x" : a == 1 ? "y" : "z");
    }
    if (op->n_operands == 0) {
        Buf f = {.arena = P->arena};
        buf_puts(&f, "pid (%u, %u, %u)");
        put_escaped_format(&f, op->attr.str ? op->attr.str : "");
        buf_putc(&f, '\n');
        Reg fmt = string_addr(P, f.data);
        Reg tid0 = ptx_tid0(P);
        for (int a = 0; a < 3; a++) put_arg(P, tid0, buf.local, 4 * a, pid[a]);
        call_vprintf(P, tid0, fmt, buf.generic);
        return;
    }
    for (uint32_t k = 0; k < op->n_operands; k++) print_operand(P, op, k, pid, buf);
}

/* ---- assert ---- */

/* Any element this thread holds false: __assertfail (under the predicate
 * "not all true") with the message, the source file and line, and the
 * kernel's name. Compiled only in debug
 * mode, as Triton does (the interpreter always checks). */
void ptx_assert(Ptx *P, IrOp *op) {
    if (!P->ctx->target.debug) return;
    int n;
    Reg *c = ptx_regs(P, op->operands[0], &n);
    Reg all = c[0];
    for (int r = 1; r < n; r++) {
        Reg t = ptx_reg(P, RC_PRED);
        ptx_ins(P, "and.pred %R, %R, %R;", t, all, c[r]);
        all = t;
    }
    Reg msg = string_addr(P, op->attr.str ? op->attr.str : "");
    Reg file = string_addr(P, op->loc.file ? op->loc.file->path : "<unknown>");
    Reg func = string_addr(P, P->fn->name);
    Reg line = ptx_const_reg(P, RC_B32, (uint32_t)(op->loc.line > 0 ? op->loc.line : 0));
    Reg one = ptx_const_reg(P, RC_B64, 1);
    P->uses_assertfail = true;
    ptx_ins(P, "{");
    ptx_ins(P, ".param .b64 msg_arg;");
    ptx_ins(P, "st.param.b64 [msg_arg], %R;", msg);
    ptx_ins(P, ".param .b64 file_arg;");
    ptx_ins(P, "st.param.b64 [file_arg], %R;", file);
    ptx_ins(P, ".param .b32 line_arg;");
    ptx_ins(P, "st.param.b32 [line_arg], %R;", line);
    ptx_ins(P, ".param .b64 func_arg;");
    ptx_ins(P, "st.param.b64 [func_arg], %R;", func);
    ptx_ins(P, ".param .b64 size_arg;");
    ptx_ins(P, "st.param.b64 [size_arg], %R;", one);
    ptx_ins(P, guarded(P, all, true, "call __assertfail, (msg_arg, file_arg, line_arg, func_arg, size_arg);"));
    ptx_ins(P, "}");
}
