/* The interpreter's inline assembly (interp.h, InterpAsmFn): the user's PTX
 * runs on this simulator, one thread per instance, in a small kernel that
 * loads each instance's input registers from a buffer of 64-bit slots,
 * runs the asm in a `{ }` scope as ptxgen emits it, and stores the output
 * registers back. The launch's buffers stay reachable, so asm that loads
 * and stores through pointer arguments works on the interpreter's memory. */
#include "sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* per constraint letter: the register family and its type */
static const char *fam(char c) {
    switch (c) {
    case 'r': return "asm_r";
    case 'f': return "asm_f";
    case 'l': return "asm_l";
    case 'd': return "asm_d";
    default: return "asm_h";   /* h, c */
    }
}

/* %asm_a3 (a 64-bit slot) into operand k's register, or back */
static void move_in(Buf *b, char c, uint32_t k) {
    const char *f = fam(c);
    switch (c) {
    case 'r': buf_printf(b, "\tcvt.u32.u64 %%%s%u, %%asm_a3;\n", f, k); break;
    case 'f': buf_printf(b, "\tcvt.u32.u64 %%asm_t0, %%asm_a3;\n\tmov.b32 %%%s%u, %%asm_t0;\n", f, k); break;
    case 'l':
    case 'd': buf_printf(b, "\tmov.b64 %%%s%u, %%asm_a3;\n", f, k); break;
    default: buf_printf(b, "\tcvt.u16.u64 %%%s%u, %%asm_a3;\n", f, k); break;
    }
}

static void move_out(Buf *b, char c, uint32_t k) {
    const char *f = fam(c);
    switch (c) {
    case 'r': buf_printf(b, "\tcvt.u64.u32 %%asm_a3, %%%s%u;\n", f, k); break;
    case 'f': buf_printf(b, "\tmov.b32 %%asm_t0, %%%s%u;\n\tcvt.u64.u32 %%asm_a3, %%asm_t0;\n", f, k); break;
    case 'l':
    case 'd': buf_printf(b, "\tmov.b64 %%asm_a3, %%%s%u;\n", f, k); break;
    default: buf_printf(b, "\tcvt.u64.u16 %%asm_a3, %%%s%u;\n", f, k); break;
    }
}

static bool build(Buf *b, const char *text, const char *letters, uint32_t n_out, uint32_t n_in, Buf *err) {
    uint32_t n = n_out + n_in, stride = n * 8;
    buf_puts(b, ".version 8.0\n.target sm_90a\n.address_size 64\n\n.visible .entry tric_asm(\n\t.param .u64 io\n)\n{\n");
    static const char *const decl[][2] = {{"asm_h", ".b16"}, {"asm_r", ".b32"}, {"asm_f", ".f32"},
                                          {"asm_l", ".b64"}, {"asm_d", ".f64"}};
    for (size_t i = 0; i < sizeof decl / sizeof decl[0]; i++)
        buf_printf(b, "\t.reg %s %%%s<%u>;\n", decl[i][1], decl[i][0], n ? n : 1);
    buf_puts(b, "\t.reg .b32 %asm_t<4>;\n\t.reg .b64 %asm_a<4>;\n");
    buf_puts(b, "\tld.param.u64 %asm_a0, [io];\n\tcvta.to.global.u64 %asm_a0, %asm_a0;\n"
                "\tmov.u32 %asm_t0, %tid.x;\n\tmov.u32 %asm_t1, %ctaid.x;\n\tmov.u32 %asm_t2, %ntid.x;\n"
                "\tmad.lo.u32 %asm_t3, %asm_t1, %asm_t2, %asm_t0;\n");
    buf_printf(b, "\tmul.wide.u32 %%asm_a1, %%asm_t3, %u;\n\tadd.s64 %%asm_a2, %%asm_a0, %%asm_a1;\n", stride);
    const char **names = calloc(n ? n : 1, sizeof *names);
    char(*store)[24] = calloc(n ? n : 1, sizeof *store);
    if (!names || !store) {
        free(names);
        free(store);
        buf_puts(err, "out of memory");
        return false;
    }
    for (uint32_t k = 0; k < n; k++) {
        snprintf(store[k], sizeof store[k], "%%%s%u", fam(letters[k]), k);
        names[k] = store[k];
        if (k >= n_out) {
            buf_printf(b, "\tld.global.u64 %%asm_a3, [%%asm_a2+%u];\n", k * 8);
            move_in(b, letters[k], k);
        }
    }
    buf_puts(b, "\t{\n");
    bool ok = ir_asm_subst(b, text, names, n, err);
    buf_puts(b, "\n\t}\n");
    free(names);
    free(store);
    for (uint32_t k = 0; k < n_out; k++) {
        move_out(b, letters[k], k);
        buf_printf(b, "\tst.global.u64 [%%asm_a2+%u], %%asm_a3;\n", k * 8);
    }
    buf_puts(b, "\tret;\n}\n");
    return ok;
}

bool sim_inline_asm(const char *text, const char *letters, uint32_t n_out, uint32_t n_in, const uint64_t *in,
                    uint64_t *out, uint32_t n, const InterpLaunch *l, Buf *err) {
    uint32_t n_ops = n_out + n_in;
    size_t bytes = (size_t)n * n_ops * 8;
    uint64_t *io = calloc(bytes ? bytes / 8 : 1, 8);
    InterpBuffer *bufs = calloc((size_t)l->n_buffers + 1, sizeof *bufs);
    Buf ptx = {0};
    bool ok = io && bufs;
    if (!ok) buf_puts(err, "out of memory");
    for (uint32_t i = 0; ok && i < n; i++)
        for (uint32_t k = 0; k < n_in; k++) io[(size_t)i * n_ops + n_out + k] = in[(size_t)i * n_in + k];
    ok = ok && build(&ptx, text, letters, n_out, n_in, err);
    if (ok) {
        /* threads per CTA: a divisor of n (a branch-free kernel must not
         * run past the instances) */
        uint32_t threads = n < 256 ? n : 256;
        while (n % threads) threads--;
        memcpy(bufs, l->buffers, sizeof *bufs * l->n_buffers);
        bufs[l->n_buffers] = (InterpBuffer){io, bytes, "inline asm registers", ET_U64, false, false};
        uint64_t arg = (uint64_t)(uintptr_t)io;
        InterpLaunch d = {.grid = {n / threads, 1, 1}, .args = &arg, .n_args = 1, .buffers = bufs,
                          .n_buffers = l->n_buffers + 1};
        SimLaunch sl = {.ptx = ptx.data, .threads = threads, .data = &d};
        Buf why = {0};
        ok = sim_run(&sl, &why);
        if (!ok) {
            while (why.len && why.data[why.len - 1] == '\n') why.data[--why.len] = 0;
            buf_puts(err, why.data ? why.data : "the simulator failed");
        }
        buf_free(&why);
    }
    for (uint32_t i = 0; ok && i < n; i++)
        for (uint32_t k = 0; k < n_out; k++) out[(size_t)i * n_out + k] = io[(size_t)i * n_ops + k];
    buf_free(&ptx);
    free(io);
    free(bufs);
    return ok;
}
