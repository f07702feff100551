/* inline_asm and map_elementwise: a function applied to a thread's
 * registers `pack` at a time. Operands and results share one layout
 * (pass layout), so register k of every value holds the same element; the
 * registers of a value are taken in order, pack by pack, and a last pack
 * that runs past them repeats the pack's first element (a valid input
 * where Triton passes undefined ones). Registers that repeat elements
 * (broadcast bits of the layout) are computed like any other.
 *
 * inline_asm: the user's PTX once per pack inside a `{ }` scope (its own
 * .reg declarations stay local), $N replaced by registers of the classes
 * the constraints name, values moved in and out as ir/asm.c defines.
 * map_elementwise: the region's ops once per pack, as reduce's combine
 * region is emitted per combination; an `if` in it whose branches have no
 * effects is emitted as both branches and selects (ptx_emit_if_select),
 * so threads whose elements take different branches do not diverge. */
#include "ptx.h"

#include <string.h>

static RegClass letter_class(char c) {
    switch (c) {
    case 'r': return RC_B32;
    case 'f': return RC_F32;
    case 'l': return RC_B64;
    case 'd': return RC_F64;
    default: return RC_B16;   /* h, c */
    }
}

static int class_bits(RegClass c) { return c == RC_B16 ? 16 : c == RC_B32 || c == RC_F32 ? 32 : 64; }
static bool class_is_float(RegClass c) { return c == RC_F32 || c == RC_F64; }
static RegClass int_class(int bits) { return bits == 16 ? RC_B16 : bits == 32 ? RC_B32 : RC_B64; }

/* d = s's bits, zero-extended or truncated to d's width */
static void move_bits(Ptx *P, Reg d, Reg s) {
    RegClass dc = REG_CLASS(d), sc = REG_CLASS(s);
    int wd = class_bits(dc), ws = class_bits(sc);
    if (dc == sc) {
        ptx_mov(P, d, s);
        return;
    }
    if (wd == ws) {
        ptx_ins(P, "mov.b%d %R, %R;", wd, d, s);
        return;
    }
    Reg si = s;
    if (class_is_float(sc)) {
        si = ptx_reg(P, int_class(ws));
        ptx_ins(P, "mov.b%d %R, %R;", ws, si, s);
    }
    Reg di = class_is_float(dc) ? ptx_reg(P, int_class(wd)) : d;
    ptx_ins(P, "cvt.u%d.u%d %R, %R;", wd, ws, di, si);
    if (di != d) ptx_ins(P, "mov.b%d %R, %R;", wd, d, di);
}

/* An 8-bit element in its 16-bit register as ir/asm.c defines it: an
 * integer extended as its type says, an fp8 with a zero upper byte. */
static void fix8(Ptx *P, ElemType e, Reg d, Reg a) {
    if (elem_is_int(e)) ptx_norm8(P, e, d, a);
    else ptx_ins(P, "and.b16 %R, %R, 0xFF;", d, a);
}

static bool is8(ElemType e) { return e != ET_PTR && elem_bits(e) == 8; }

/* The asm register for `per` elements src[0..per) of type e */
static Reg pack_in(Ptx *P, ElemType e, const Reg *src, int per, char letter) {
    RegClass lc = letter_class(letter);
    if (per == 1) {
        Reg v = src[0];
        if (e == ET_F8E4M3 || e == ET_F8E5M2) {
            v = ptx_reg(P, RC_B16);
            fix8(P, e, v, src[0]);
        }
        if (REG_CLASS(v) == lc) return v;
        Reg d = ptx_reg(P, lc);
        move_bits(P, d, v);
        return d;
    }
    int bits = elem_bits(e);
    Reg acc = REG_NONE;
    for (int k = 0; k < per; k++) {
        Reg t = ptx_reg(P, RC_B32);
        ptx_ins(P, "cvt.u32.u16 %R, %R;", t, src[k]);
        if (bits == 8) ptx_ins(P, "and.b32 %R, %R, 255;", t, t);
        if (k) {
            ptx_ins(P, "shl.b32 %R, %R, %d;", t, t, k * bits);
            Reg o = ptx_reg(P, RC_B32);
            ptx_ins(P, "or.b32 %R, %R, %R;", o, acc, t);
            t = o;
        }
        acc = t;
    }
    if (lc == RC_B32) return acc;
    Reg d = ptx_reg(P, lc);
    move_bits(P, d, acc);
    return d;
}

/* dst[0..per) (NONE: past the thread's registers) of type e from the asm
 * register a */
static void unpack_out(Ptx *P, ElemType e, Reg a, Reg *dst, int per) {
    RegClass ec = ptx_class_of(e);
    if (per == 1) {
        if (!dst[0]) return;
        if (!is8(e)) {
            move_bits(P, dst[0], a);
            return;
        }
        Reg t = a;
        if (REG_CLASS(a) != RC_B16) {
            t = ptx_reg(P, RC_B16);
            move_bits(P, t, a);
        }
        fix8(P, e, dst[0], t);
        return;
    }
    int bits = elem_bits(e);
    Reg w = a;
    if (REG_CLASS(a) != RC_B32) {
        w = ptx_reg(P, RC_B32);
        move_bits(P, w, a);
    }
    for (int k = 0; k < per; k++) {
        if (!dst[k]) continue;
        Reg s = w;
        if (k) {
            s = ptx_reg(P, RC_B32);
            ptx_ins(P, "shr.u32 %R, %R, %d;", s, w, k * bits);
        }
        Reg h = bits == 8 ? ptx_reg(P, RC_B16) : dst[k];
        TRIC_ASSERT(ec == RC_B16);
        ptx_ins(P, "cvt.u16.u32 %R, %R;", h, s);
        if (bits == 8) fix8(P, e, dst[k], h);
    }
}

/* the registers of the n values, and how many each has (all alike) */
static Reg **value_regs(Ptx *P, const ValId *vals, uint32_t n, int *nregs) {
    Reg **r = arena_alloc(P->arena, sizeof(Reg *) * (n ? n : 1));
    for (uint32_t i = 0; i < n; i++) {
        int m;
        r[i] = ptx_regs(P, vals[i], &m);
        TRIC_ASSERT(*nregs < 0 || m == *nregs);
        *nregs = m;
    }
    return r;
}

static Reg **def_results(Ptx *P, IrOp *op, int *nregs) {
    Reg **r = arena_alloc(P->arena, sizeof(Reg *) * op->n_results);
    for (uint32_t i = 0; i < op->n_results; i++) {
        r[i] = ptx_def(P, op, op->results[i]);
        int m = ptx_value_nregs(P, op, op->results[i]);
        TRIC_ASSERT(*nregs < 0 || m == *nregs);
        *nregs = m;
    }
    return r;
}

static void put_reg_name(Ptx *P, const char **names, uint32_t k, Reg r) {
    Buf b = {0};
    ptx_put_reg(&b, r);
    names[k] = arena_strdup(P->arena, b.data);
    buf_free(&b);
}

void ptx_inline_asm(Ptx *P, IrOp *op) {
    int pack = (int)op->attr.i;
    IrAsmCons c;
    Buf why = {0};
    bool ok = ir_asm_constraints(P->arena, op->attr.str2 ? op->attr.str2 : "", &c, &why);
    TRIC_ASSERT(ok);   /* the verifier checked the whole contract */
    buf_free(&why);
    int n = -1;
    Reg **in = value_regs(P, op->operands, op->n_operands, &n);
    Reg **out = def_results(P, op, &n);
    const char **names = arena_alloc(P->arena, sizeof(char *) * (c.n ? c.n : 1));
    Reg *asm_out = arena_alloc(P->arena, sizeof(Reg) * (c.n_out ? c.n_out : 1));
    Reg *src = arena_alloc(P->arena, sizeof(Reg) * (size_t)pack);
    Reg *dst = arena_alloc(P->arena, sizeof(Reg) * (size_t)pack);
    for (int g = 0; g < n; g += pack) {
        uint32_t k = 0;
        for (uint32_t r = 0; r < op->n_results; r++) {
            ElemType e = (ElemType)ir_type(P->fn, op->results[r]).elem;
            int per = ir_asm_per_reg(e, pack);
            for (int q = 0; q < pack / per; q++, k++) {
                RegClass lc = letter_class(c.letter[k]);
                bool direct = per == 1 && !is8(e) && ptx_class_of(e) == lc && g + q < n;
                asm_out[k] = direct ? out[r][g + q] : ptx_reg(P, lc);
                put_reg_name(P, names, k, asm_out[k]);
            }
        }
        for (uint32_t i = 0; i < op->n_operands; i++) {
            ElemType e = (ElemType)ir_type(P->fn, op->operands[i]).elem;
            int per = ir_asm_per_reg(e, pack);
            for (int q = 0; q < pack / per; q++, k++) {
                for (int j = 0; j < per; j++) {
                    int at = g + q * per + j;
                    src[j] = in[i][at < n ? at : g];
                }
                put_reg_name(P, names, k, pack_in(P, e, src, per, c.letter[k]));
            }
        }
        Buf text = {0};
        ok = ir_asm_subst(&text, op->attr.str ? op->attr.str : "", names, c.n, &why);
        TRIC_ASSERT(ok);
        buf_puts(P->out, "\t// begin inline asm\n\t{\n");
        buf_puts(P->out, text.data ? text.data : "");
        buf_puts(P->out, "\n\t}\n\t// end inline asm\n");
        buf_free(&text);
        P->n_insts++;
        k = 0;
        for (uint32_t r = 0; r < op->n_results; r++) {
            ElemType e = (ElemType)ir_type(P->fn, op->results[r]).elem;
            int per = ir_asm_per_reg(e, pack);
            for (int q = 0; q < pack / per; q++, k++) {
                for (int j = 0; j < per; j++) {
                    int at = g + q * per + j;
                    dst[j] = at < n && asm_out[k] != out[r][at] ? out[r][at] : REG_NONE;
                }
                unpack_out(P, e, asm_out[k], dst, per);
            }
        }
    }
}

void ptx_map_elementwise(Ptx *P, IrOp *op) {
    uint32_t pack = (uint32_t)op->attr.i;
    int n = -1;
    Reg **in = value_regs(P, op->operands, op->n_operands, &n);
    Reg **out = def_results(P, op, &n);
    IrBlock *blk = op->regions[0];
    P->map_depth++;
    for (int g = 0; g < n; g += (int)pack) {
        for (uint32_t i = 0; i < op->n_operands; i++)
            for (uint32_t j = 0; j < pack; j++) {
                int at = g + (int)j;
                ptx_bind(P, blk->args[i * pack + j], in[i][at < n ? at : g]);
            }
        IrOp *term = ptx_emit_block(P, blk);
        TRIC_ASSERT(term && term->opc == OP_YIELD && term->n_operands == op->n_results * pack);
        for (uint32_t r = 0; r < op->n_results; r++)
            for (uint32_t j = 0; j < pack; j++)
                if (g + (int)j < n) ptx_mov(P, out[r][g + (int)j], ptx_regs(P, term->operands[r * pack + j], NULL)[0]);
        ptx_forget_block(P, blk);
    }
    P->map_depth--;
}
