/* inline_asm's contract, shared by the frontend (which reports a mistake at
 * the call), the verifier, ptxgen and the simulator's evaluation of the op
 * for the interpreter: the constraint string, how a pack of elements lies
 * in the asm's registers, and the substitution of $N in the text. One
 * definition, so the three executions of an op agree (doc/ir.md, "Inline
 * assembly"). */
#include "ir.h"

#include <ctype.h>
#include <string.h>

int ir_asm_letter_bits(char c) {
    switch (c) {
    case 'c':   /* an 8-bit value, which PTX keeps in a 16-bit register */
    case 'h': return 16;
    case 'r':
    case 'f': return 32;
    case 'l':
    case 'd': return 64;
    default: return 0;
    }
}

int ir_asm_per_reg(ElemType e, int pack) {
    int bits = elem_bits(e);
    if (e == ET_PTR || bits >= 32) return 1;
    int n = 32 / bits;
    return n < pack ? n : pack;
}

int ir_asm_value_bits(ElemType e, int pack) {
    int per = ir_asm_per_reg(e, pack), bits = elem_bits(e);
    if (per > 1) return per * bits <= 16 ? 16 : 32;
    return bits < 16 ? 16 : bits;
}

bool ir_asm_constraints(Arena *a, const char *s, IrAsmCons *out, Buf *why) {
    size_t len = strlen(s);
    out->letter = arena_alloc(a, len + 1);
    out->n = out->n_out = 0;
    uint32_t index = 0;
    for (const char *p = s;; index++) {
        const char *e = strchr(p, ',');
        if (!e) e = p + strlen(p);
        const char *b = p, *z = e;
        while (b < z && isspace((unsigned char)*b)) b++;
        while (z > b && isspace((unsigned char)z[-1])) z--;
        if (z - b >= 2 && b[0] == '~' && b[1] == '{' && z[-1] == '}') {
            /* a clobber ("~{memory}"): registers are virtual, memory is
             * never cached across an op with effects */
        } else {
            bool is_out = b < z && *b == '=';
            if (is_out) b++;
            if (z - b != 1 || !ir_asm_letter_bits(*b)) {
                buf_printf(why, "constraint %u ('%.*s') is not one of h, r, l, f, d, c (with '=' for an output)",
                           index, (int)(e - p), p);
                return false;
            }
            if (is_out && out->n > out->n_out) {
                buf_printf(why, "output constraint %u ('%.*s') comes after an input: outputs come first", index,
                           (int)(e - p), p);
                return false;
            }
            out->letter[out->n++] = *b;
            if (is_out) out->n_out++;
        }
        if (!*e) break;
        p = e + 1;
    }
    if (out->n > IR_ASM_MAX_OPERANDS) {
        buf_printf(why, "the constraints name %u operands, at most %d are allowed", out->n, IR_ASM_MAX_OPERANDS);
        return false;
    }
    return true;
}

/* The registers a value of type e takes for one pack, and checks that
 * they split evenly and fit their constraints from letter[*at] on. */
static bool check_value(ElemType e, int pack, const IrAsmCons *c, uint32_t *at, uint32_t end, const char *what,
                        uint32_t k, Buf *why) {
    if (e == ET_I1) {
        buf_printf(why, "%s %u is int1, which inline assembly cannot take (convert it to int8 or int32)", what, k);
        return false;
    }
    int per = ir_asm_per_reg(e, pack), vb = ir_asm_value_bits(e, pack);
    if (pack % per) {
        buf_printf(why, "pack=%d does not split into whole registers of %s %u (%d of its elements per register)",
                   pack, what, k, per);
        return false;
    }
    for (int j = 0; j < pack / per; j++, (*at)++) {
        if (*at >= end) continue;   /* counted by the caller */
        int lb = ir_asm_letter_bits(c->letter[*at]);
        if (lb < vb) {
            buf_printf(why, "%s %u is held in %d-bit registers, but its constraint %u ('%c') is %d bits wide", what,
                       k, vb, *at, c->letter[*at], lb);
            return false;
        }
    }
    return true;
}

bool ir_asm_check(Arena *a, const char *constraints, const char *text, int pack, const ElemType *in, uint32_t n_in,
                  const ElemType *out, uint32_t n_out, Buf *why) {
    IrAsmCons c;
    if (pack < 1) {
        buf_printf(why, "pack must be at least 1, got %d", pack);
        return false;
    }
    if (!ir_asm_constraints(a, constraints, &c, why)) return false;
    uint32_t want_out = 0, want_in = 0;
    for (uint32_t k = 0; k < n_out; k++)
        want_out += (uint32_t)(pack / ir_asm_per_reg(out[k], pack));
    for (uint32_t k = 0; k < n_in; k++)
        want_in += (uint32_t)(pack / ir_asm_per_reg(in[k], pack));
    if (c.n_out != want_out || c.n - c.n_out != want_in) {
        buf_printf(why, "the constraints name %u output%s and %u input%s, but %u result%s and %u argument%s with "
                   "pack=%d need %u and %u (one register per element; 8- and 16-bit elements of a pack share "
                   "32-bit registers)",
                   c.n_out, c.n_out == 1 ? "" : "s", c.n - c.n_out, c.n - c.n_out == 1 ? "" : "s", n_out,
                   n_out == 1 ? "" : "s", n_in, n_in == 1 ? "" : "s", pack, want_out, want_in);
        return false;
    }
    uint32_t at = 0;
    for (uint32_t k = 0; k < n_out; k++)
        if (!check_value(out[k], pack, &c, &at, c.n_out, "result", k, why)) return false;
    for (uint32_t k = 0; k < n_in; k++)
        if (!check_value(in[k], pack, &c, &at, c.n, "argument", k, why)) return false;
    return ir_asm_subst(NULL, text, NULL, c.n, why);
}

bool ir_asm_subst(Buf *out, const char *text, const char *const *names, uint32_t n, Buf *why) {
    for (const char *p = text; *p;) {
        if (*p != '$') {
            const char *q = strchr(p, '$');
            size_t len = q ? (size_t)(q - p) : strlen(p);
            if (out) buf_putn(out, p, len);
            p += len;
            continue;
        }
        p++;
        if (*p == '$') {   /* "$$": a dollar sign */
            if (out) buf_putc(out, '$');
            p++;
            continue;
        }
        bool braced = *p == '{';
        if (braced) p++;
        if (!isdigit((unsigned char)*p)) {
            buf_printf(why, "'$' in the asm must be followed by an operand number, {number} or '$'");
            return false;
        }
        uint64_t k = 0;
        while (isdigit((unsigned char)*p) && k <= IR_ASM_MAX_OPERANDS) k = k * 10 + (uint64_t)(*p++ - '0');
        while (isdigit((unsigned char)*p)) p++;
        if (braced && *p++ != '}') {
            buf_printf(why, "'${' in the asm must be closed by '}' after the operand number");
            return false;
        }
        if (k >= n) {
            if (n) buf_printf(why, "the asm refers to $%llu, but its operands are $0 to $%u", (unsigned long long)k, n - 1);
            else buf_printf(why, "the asm refers to $%llu, but it has no operands", (unsigned long long)k);
            return false;
        }
        if (out) buf_puts(out, names[k]);
    }
    return true;
}
