/* PTX text -> SimModule: one statement per line as ptxgen writes it.
 * Directives set up the module (registers, params, shared symbols, .file and
 * .loc); every instruction is decoded once: the opcode is split at '.', each
 * part is a base op, a type or a modifier, and anything not recognised is an
 * error naming the PTX line, never silently ignored. */
#include "simops.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct { const char *name; int n_opd; } op_info[] = {
#define X(e, s, n) {s, n},
    SIM_OPS(X)
#undef X
};

static const char *const ty_names[] = {
    "",
#define X(e, s, b, k) s,
    SIM_TYPES(X)
#undef X
};
const char *sim_op_name(SimOp op) { return op_info[op].name; }

static const struct { const char *name; uint32_t bit; } mod_names[] = {
    {"rn", SM_RN}, {"rz", SM_RZ}, {"rm", SM_RM}, {"rp", SM_RP}, {"rni", SM_RNI}, {"rzi", SM_RZI},
    {"rmi", SM_RMI}, {"rpi", SM_RPI}, {"ftz", SM_FTZ}, {"sat", SM_SAT}, {"approx", SM_APPROX},
    {"full", SM_FULL}, {"wide", SM_WIDE}, {"NaN", SM_NAN}, {"global", SM_GLOBAL},
    {"shared", SM_SHARED}, {"param", SM_PARAM}, {"to", SM_TO}, {"uni", SM_UNI}, {"sync", SM_SYNC},
    {"volatile", SM_VOLATILE}, {"local", SM_LOCAL}, {"satfinite", SM_SATFINITE}, {"rna", SM_RNA},
};

/* shfl's modes: where the source lane comes from */
static const struct { const char *name; uint32_t bit; } shfl_modes[] = {
    {"bfly", SM_BFLY}, {"up", SM_UP}, {"down", SM_DOWN}, {"idx", SM_IDX},
};

/* cache operators and eviction priorities: hints only */
static const char *const hint_names[] = {
    "ca", "cg", "cs", "lu", "cv", "wb", "wt", "L1::evict_first", "L1::evict_last",
    "L1::evict_normal", "L1::no_allocate", "L2::evict_first", "L2::evict_last",
};

/* atom/red: the operations (SimAtom order), then orderings and scopes */
static const char *const atom_names[] = {"", "add", "min", "max", "and", "or", "xor", "exch", "cas"};
static const char *const atom_order_names[] = {"relaxed", "release", "acquire", "acq_rel", "cta", "gpu", "sys"};

static const char *const cmp_names[] = {
    "", "eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs", "equ", "neu", "ltu", "leu",
    "gtu", "geu", "num", "nan", "finite", "infinite", "number", "notanumber", "normal", "subnormal",
};

static const char *const special_names[] = {
    "%tid.x", "%tid.y", "%tid.z", "%ntid.x", "%ntid.y", "%ntid.z", "%ctaid.x", "%ctaid.y",
    "%ctaid.z", "%nctaid.x", "%nctaid.y", "%nctaid.z", "%laneid", "%warpid", "%smid", "%globaltimer",
};

/* A declared register family: %r<54> gives r0..r53; %foo alone one register. */
typedef struct RegFamily {
    const char *prefix;
    uint32_t base, count;
    bool single;
    int depth;        /* the { } nesting it was declared at (an inner one shadows) */
} RegFamily;

typedef struct Label {
    const char *name;
    uint32_t ins;
} Label;

/* A symbol: a .shared or .local array (its address in that space) or a
 * .global one (a host address). */
typedef struct Sym {
    const char *name;
    int64_t addr;
    uint32_t space;          /* SM_SHARED, SM_LOCAL or SM_GLOBAL */
} Sym;

/* A call's .param variable, alive until the '}' of its block: a register
 * of the parameter's width that st.param writes and the call reads (or the
 * call writes and ld.param reads). */
typedef struct CallParam {
    const char *name;
    uint32_t reg;
    int depth;
} CallParam;

/* The functions a module may call: name, results, parameters. */
static const struct { const char *name; int n_ret, n_params; } callees[SF_COUNT] = {
    [SF_VPRINTF] = {"vprintf", 1, 2},
    [SF_ASSERTFAIL] = {"__assertfail", 0, 5},
};

typedef struct Loader {
    Arena *a;
    SimModule *m;
    Buf *err;
    int line;
    int loc_file, loc_line;
    RegFamily *fams;
    uint32_t n_fams, cap_fams;
    Label *labels, *uses;    /* uses: label name + the instruction that names it */
    uint32_t n_labels, cap_labels, n_uses, cap_uses;
    Sym *syms;
    uint32_t n_syms, cap_syms;
    CallParam *cparams;
    uint32_t n_cparams, cap_cparams;
    bool declared[SF_COUNT];     /* by .extern .func */
    int in_entry;            /* 0 before, 1 inside the entry's body, 2 after */
    bool skip;               /* inside an entry we are not running */
    int depth;
} Loader;

static bool fail(Loader *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(Loader *L, const char *fmt, ...) {
    if (L->loc_file > 0 && (uint32_t)L->loc_file < L->m->n_files && L->m->files[L->loc_file])
        buf_printf(L->err, "sim: %s:%d: ", L->m->files[L->loc_file], L->loc_line);
    else
        buf_puts(L->err, "sim: ");
    buf_printf(L->err, "PTX line %d: ", L->line);
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(L->err, fmt, ap);
    va_end(ap);
    buf_putc(L->err, '\n');
    return false;
}

void sim_put_prefix(Buf *err, const SimModule *m, const SimIns *in) {
    buf_puts(err, "sim: ");
    if (in->loc_file > 0 && (uint32_t)in->loc_file < m->n_files && m->files[in->loc_file])
        buf_printf(err, "%s:%d: ", m->files[in->loc_file], in->loc_line);
}

static const char *skip_ws(const char *s) {
    while (*s == ' ' || *s == '\t') s++;
    return s;
}

static bool starts(const char *s, const char *word) {
    size_t n = strlen(word);
    return !strncmp(s, word, n) && !isalnum((unsigned char)s[n]) && s[n] != '_';
}

static char *trimmed(Arena *a, const char *s, size_t n) {
    while (n && isspace((unsigned char)*s)) s++, n--;
    while (n && isspace((unsigned char)s[n - 1])) n--;
    return arena_strndup(a, s, n);
}

static SimTy find_type(const char *s) {
    for (int t = 1; t < ST_COUNT; t++)
        if (!strcmp(ty_names[t], s)) return (SimTy)t;
    return ST_NONE;
}

/* ---- registers ---- */

static bool declare_regs(Loader *L, const char *s) {
    /* .reg .TYPE %name<N>;  or  .reg .TYPE %a, %b; */
    s = skip_ws(s + 4);
    if (*s != '.') return fail(L, "expected a type after .reg");
    const char *t = ++s;
    while (isalnum((unsigned char)*s)) s++;
    SimTy ty = find_type(arena_strndup(L->a, t, (size_t)(s - t)));
    if (!ty) return fail(L, "unknown register type '.%.*s'", (int)(s - t), t);
    for (;;) {
        s = skip_ws(s);
        if (*s != '%' && !isalpha((unsigned char)*s) && *s != '_') return fail(L, "expected a register name in .reg");
        if (*s == '%') s++;
        const char *n = s;
        while (isalnum((unsigned char)*s) || *s == '_' || *s == '$') s++;
        RegFamily f = {arena_strndup(L->a, n, (size_t)(s - n)), L->m->n_regs, 1, true, L->depth};
        if (*s == '<') {
            f.count = (uint32_t)strtoul(s + 1, (char **)&s, 10);
            f.single = false;
            if (*s++ != '>') return fail(L, "expected '>' in .reg");
        }
        for (uint32_t i = 0; i < f.count; i++)
            VEC_PUSH(L->a, L->m->reg_bits, L->m->n_regs, L->m->cap_regs, (uint8_t)sim_ty_bits(ty));
        VEC_PUSH(L->a, L->fams, L->n_fams, L->cap_fams, f);
        s = skip_ws(s);
        if (*s == ',') {
            s++;
            continue;
        }
        if (*s == ';') return true;
        return fail(L, "expected ';' after .reg");
    }
}

/* "%r12" -> its index; SIM_NOREG (and a message) if undeclared */
static uint32_t reg_index(Loader *L, const char *name) {
    const RegFamily *beyond = NULL;
    for (uint32_t i = L->n_fams; i-- > 0;) {   /* the innermost declaration first */
        const RegFamily *f = &L->fams[i];
        size_t pl = strlen(f->prefix);
        if (strncmp(name, f->prefix, pl)) continue;
        const char *rest = name + pl;
        if (f->single) {
            if (!*rest) return f->base;
            continue;
        }
        if (!*rest || !isdigit((unsigned char)*rest)) continue;
        char *end;
        unsigned long k = strtoul(rest, &end, 10);
        if (*end) continue;
        if (k < f->count) return f->base + (uint32_t)k;
        if (!beyond) beyond = f;   /* an outer declaration may hold it */
    }
    if (beyond) fail(L, "register %%%s is beyond its declaration %%%s<%u>", name, beyond->prefix, beyond->count);
    else fail(L, "undeclared register %%%s", name);
    return SIM_NOREG;
}

/* a declared register named without '%' (PTX allows any identifier; the
 * user's inline asm declares `.reg .b8 tmp<4>`), found without a message */
static bool reg_declared(Loader *L, const char *name) {
    if (!isalpha((unsigned char)name[0]) && name[0] != '_') return false;
    for (uint32_t i = L->n_fams; i-- > 0;) {   /* the innermost declaration first */
        const RegFamily *f = &L->fams[i];
        size_t pl = strlen(f->prefix);
        if (strncmp(name, f->prefix, pl)) continue;
        const char *rest = name + pl;
        if (f->single ? !*rest : isdigit((unsigned char)*rest) && strspn(rest, "0123456789") == strlen(rest)) return true;
    }
    return false;
}

/* ---- operands ---- */

static bool parse_imm(const char *s, int64_t *out) {
    char *end;
    if ((s[0] == '0') && (s[1] == 'f' || s[1] == 'F' || s[1] == 'd' || s[1] == 'D')) {
        size_t want = (s[1] == 'f' || s[1] == 'F') ? 8 : 16;
        if (strlen(s + 2) != want) return false;
        *out = (int64_t)strtoull(s + 2, &end, 16);
        return *end == 0;
    }
    bool neg = *s == '-';
    const char *d = neg ? s + 1 : s;
    if (!isdigit((unsigned char)*d)) return false;
    uint64_t v = strtoull(d, &end, (d[0] == '0' && (d[1] == 'x' || d[1] == 'X')) ? 16 : 10);
    if (*end == 'U') end++;
    if (*end) return false;
    *out = (int64_t)(neg ? 0 - v : v);   /* -9223372036854775808 wraps to itself */
    return true;
}

static const Sym *find_symbol(Loader *L, const char *name) {
    for (uint32_t i = 0; i < L->n_syms; i++)
        if (!strcmp(L->syms[i].name, name)) return &L->syms[i];
    return NULL;
}

/* The innermost call .param variable called name, or NULL. */
static const CallParam *find_call_param(Loader *L, const char *name) {
    for (uint32_t i = L->n_cparams; i-- > 0;)
        if (!strcmp(L->cparams[i].name, name)) return &L->cparams[i];
    return NULL;
}

static bool parse_address(Loader *L, SimIns *in, char *s, SimOpd *o) {
    /* [%rd1], [%rd1+16], [%r3+-4], [name], [sym+8] */
    size_t n = strlen(s);
    if (n < 3 || s[n - 1] != ']') return fail(L, "bad address '%s'", s);
    s[n - 1] = 0;
    char *body = trimmed(L->a, s + 1, n - 2), *plus = strchr(body, '+');
    int64_t off = 0;
    if (plus) {
        *plus = 0;
        char *o_text = trimmed(L->a, plus + 1, strlen(plus + 1));
        if (!parse_imm(o_text, &off)) return fail(L, "bad address offset '%s'", o_text);
        body = trimmed(L->a, body, strlen(body));
    }
    o->imm = off;
    if (body[0] == '%') {
        o->kind = SD_MEM;
        o->reg[0] = reg_index(L, body + 1);
        return o->reg[0] != SIM_NOREG;
    }
    if (in->mods & SM_PARAM) {
        if (off) return fail(L, "offsets into parameters are not modelled");
        o->kind = SD_PARAM;
        o->reg[0] = SIM_NOREG;
        const CallParam *cp = find_call_param(L, body);
        if (cp) {
            o->reg[0] = cp->reg;
            return true;
        }
        for (uint32_t i = 0; i < L->m->n_params; i++)
            if (!strcmp(L->m->params[i].name, body)) {
                o->imm = i;
                return true;
            }
        return fail(L, "unknown parameter '%s'", body);
    }
    const Sym *sym = find_symbol(L, body);
    if (!sym) return fail(L, "unknown symbol '%s' in an address", body);
    if (!(in->mods & sym->space)) return fail(L, "'%s' addresses '%s', which is in another state space", in->name, body);
    o->kind = SD_MEM;
    o->reg[0] = SIM_NOREG;
    o->imm = sym->addr + off;
    return true;
}

/* mov.b64 %rd, NAME of an aggregate .entry parameter: its address, which
 * the executor takes from the launch slot (a host address; cvta.param
 * keeps it). A scalar parameter's address is not modelled. */
static bool param_address(Loader *L, const SimIns *in, const char *name, SimOpd *o) {
    for (uint32_t i = 0; i < L->m->n_params; i++) {
        if (strcmp(L->m->params[i].name, name)) continue;
        if (!L->m->params[i].bytes || in->op != SO_MOV)
            return fail(L, "'%s' takes the address of parameter '%s': only mov of an aggregate parameter's is modelled",
                        in->name, name);
        o->kind = SD_PARAM;
        o->reg[0] = SIM_NOREG;
        o->imm = i;
        return true;
    }
    return fail(L, "bad operand '%s'", name);
}

static bool parse_operand(Loader *L, SimIns *in, char *s, SimOpd *o) {
    memset(o, 0, sizeof *o);
    if (s[0] == '[') return parse_address(L, in, s, o);
    if (s[0] == '{') {
        size_t n = strlen(s);
        if (s[n - 1] != '}') return fail(L, "bad vector operand '%s'", s);
        o->kind = SD_VEC;
        char *p = s + 1;
        s[n - 1] = 0;
        for (;;) {
            char *comma = strchr(p, ',');
            if (comma) *comma = 0;
            char *r = trimmed(L->a, p, strlen(p));
            if (r[0] != '%' && !reg_declared(L, r)) return fail(L, "vector elements must be registers: '%s'", r);
            if (o->n == 4) return fail(L, "a vector has at most 4 elements");
            if ((o->reg[o->n++] = reg_index(L, r[0] == '%' ? r + 1 : r)) == SIM_NOREG) return false;
            if (!comma) break;
            p = comma + 1;
        }
        return true;
    }
    char *bar = s[0] == '%' && in->op == SO_SHFL && o == &in->opd[0] ? strchr(s, '|') : NULL;
    if (bar) {   /* shfl's "d|p": the value and whether its source lane was in range */
        char *p = trimmed(L->a, bar + 1, strlen(bar + 1));
        *bar = 0;
        char *d = trimmed(L->a, s, strlen(s));
        if (p[0] != '%' || d[0] != '%') return fail(L, "bad destination '%s|%s'", d, p);
        o->kind = SD_REG;
        o->n = 2;
        if ((o->reg[0] = reg_index(L, d + 1)) == SIM_NOREG || (o->reg[1] = reg_index(L, p + 1)) == SIM_NOREG)
            return false;
        if (L->m->reg_bits[o->reg[1]] != 1) return fail(L, "'%s' after '|' is not a predicate", p);
        return true;
    }
    if (s[0] == '%') {
        for (size_t i = 0; i < ARRAY_LEN(special_names); i++)
            if (!strcmp(s, special_names[i])) {
                o->kind = SD_SPECIAL;
                o->imm = (int64_t)i;
                return true;
            }
        o->kind = SD_REG;
        o->reg[0] = reg_index(L, s + 1);
        return o->reg[0] != SIM_NOREG;
    }
    if (reg_declared(L, s)) {
        o->kind = SD_REG;
        o->reg[0] = reg_index(L, s);
        return true;
    }
    if (in->op == SO_BRA) {
        o->kind = SD_LABEL;
        Label u = {arena_strdup(L->a, s), L->m->n_ins};
        VEC_PUSH(L->a, L->uses, L->n_uses, L->cap_uses, u);
        return true;
    }
    o->kind = SD_IMM;
    if (parse_imm(s, &o->imm)) return true;
    const Sym *sym = find_symbol(L, s);   /* mov.u64 %rd1, name: the symbol's address in its space */
    if (sym) {
        o->imm = sym->addr;
        return true;
    }
    if (in->op == SO_MBARRIER && !strcmp(s, "_")) {
        o->kind = SD_SINK;
        return true;
    }
    return param_address(L, in, s, o);
}

/* Splits "a, {b, c}, [d+4]" at the commas outside braces and brackets. */
static int split_operands(Loader *L, const char *s, char **out, int cap) {
    int n = 0, depth = 0;
    const char *start = s;
    for (const char *p = s;; p++) {
        if (*p == '{' || *p == '[') depth++;
        if (*p == '}' || *p == ']') depth--;
        if ((*p == ',' && depth == 0) || !*p) {
            char *t = trimmed(L->a, start, (size_t)(p - start));
            if (*t) {
                if (n == cap) return -1;
                out[n++] = t;
            }
            if (!*p) break;
            start = p + 1;
        }
    }
    return n;
}

/* ---- opcodes ---- */

static bool decode_part(Loader *L, SimIns *in, const char *part, int *n_types) {
    SimTy t = find_type(part);
    if (t) {
        if (*n_types == 2) return fail(L, "too many types in '%s'", in->name);
        in->ty[(*n_types)++] = t;
        return true;
    }
    if ((in->op == SO_LDMATRIX || in->op == SO_STMATRIX) && sim_ldmatrix_part(in, part)) return true;
    if (in->op == SO_ATOM || in->op == SO_RED) {
        for (size_t i = 1; i < ARRAY_LEN(atom_names); i++)
            if (!strcmp(part, atom_names[i]) && !in->atom) {
                in->atom = (uint8_t)i;
                return true;
            }
        for (size_t i = 0; i < ARRAY_LEN(atom_order_names); i++)
            if (!strcmp(part, atom_order_names[i])) {
                if (i == 2 || i == 3) in->mods |= SM_ACQUIRE;
                return true;
            }
        if (!strcmp(part, "noftz")) {
            in->mods |= SM_NOFTZ;
            return true;
        }
    }
    if (in->op == SO_SETP || in->op == SO_TESTP) {
        for (size_t i = 1; i < ARRAY_LEN(cmp_names); i++)
            if (!strcmp(part, cmp_names[i]) && !in->cmp) {
                in->cmp = (SimCmp)i;
                return true;
            }
    }
    if (!strcmp(part, "hi") || !strcmp(part, "lo")) {
        in->mods |= part[0] == 'h' ? SM_HI : SM_LO;
        return true;
    }
    if (!strcmp(part, "v2") || !strcmp(part, "v4")) {
        in->vec = (uint8_t)(part[1] - '0');
        return true;
    }
    for (size_t i = 0; i < ARRAY_LEN(mod_names); i++)
        if (!strcmp(part, mod_names[i].name)) {
            in->mods |= mod_names[i].bit;
            return true;
        }
    if (in->op == SO_SHFL)
        for (size_t i = 0; i < ARRAY_LEN(shfl_modes); i++)
            if (!strcmp(part, shfl_modes[i].name)) {
                in->mods |= shfl_modes[i].bit;
                return true;
            }
    if (in->op == SO_LD || in->op == SO_ST) {
        if (!strcmp(part, "L2::cache_hint")) {
            in->cache_hint = true;
            return true;
        }
        for (size_t i = 0; i < ARRAY_LEN(hint_names); i++)
            if (!strcmp(part, hint_names[i])) return true;
    }
    /* createpolicy.fractional.L2::evict_{first,last,normal}.b64 d (fraction 1.0) */
    if (in->op == SO_CREATEPOLICY &&
        (!strcmp(part, "fractional") || !strcmp(part, "L2::evict_first") || !strcmp(part, "L2::evict_last") ||
         !strcmp(part, "L2::evict_normal")))
        return true;
    return fail(L, "unknown instruction '%s' (modifier '.%s')", in->name, part);
}

/* The next '.'-separated part of an opcode after *p (NULL at the end). */
static char *next_part(Loader *L, const char **p) {
    if (!*p || !**p) return NULL;
    const char *q = strchr(*p + 1, '.');
    char *part = arena_strndup(L->a, *p + 1, q ? (size_t)(q - *p - 1) : strlen(*p + 1));
    *p = q;
    return part;
}

static bool is_layout(const char *part) { return !strcmp(part, "row") || !strcmp(part, "col"); }

/* mma.sync.aligned.m16n8K.row.col.D.A.B.C, with .satfinite after .col or
 * at the end and .sync and .aligned either way round (ptxas takes those):
 * the shape's K and the four element types */
static bool decode_mma(Loader *L, SimIns *in, const char *parts) {
    char *p[12];
    int n = 0;
    for (char *part; (part = next_part(L, &parts));)
        if (n < 12) p[n++] = part;
    int sat = n > 5 && !strcmp(p[5], "satfinite") ? 5 : n && !strcmp(p[n - 1], "satfinite") ? n - 1 : -1;
    if (sat >= 0) {
        in->mods |= SM_SATFINITE;
        memmove(&p[sat], &p[sat + 1], sizeof p[0] * (size_t)(n - sat - 1));
        n--;
    }
    if (n >= 5 && is_layout(p[3]) && is_layout(p[4]) && (strcmp(p[3], "row") || strcmp(p[4], "col")))
        return fail(L, "unknown instruction '%s' (mma takes .row.col only)", in->name);
    bool ok = n == 9 && strcmp(p[0], p[1]) && (!strcmp(p[0], "sync") || !strcmp(p[0], "aligned")) &&
              (!strcmp(p[1], "sync") || !strcmp(p[1], "aligned")) && !strcmp(p[3], "row") &&
              !strcmp(p[4], "col") && (!strcmp(p[2], "m16n8k8") || !strcmp(p[2], "m16n8k16") || !strcmp(p[2], "m16n8k32"));
    for (int i = 0; ok && i < 4; i++) ok = (in->mma_ty[i] = (uint8_t)sim_mma_type(p[5 + i])) != SMT_NONE;
    if (!ok)
        return fail(L, "unknown instruction '%s' (mma.sync.aligned.{m16n8k8,m16n8k16,m16n8k32}.row.col.D.A.B.C is "
                    "modelled)", in->name);
    in->mma_k = (uint8_t)atoi(p[2] + 6);
    if (!sim_mma_form_ok(in->mma_k, in->mma_ty, (in->mods & SM_SATFINITE) != 0))
        return fail(L, "unknown instruction '%s' (the forms are s8/u8 -> s32{.satfinite} at k16/k32, e4m3/e5m2 -> "
                    "f32/f16 at k16/k32, f16 -> f32/f16 and bf16 -> f32 at k8/k16, tf32 -> f32 at k8)", in->name);
    return true;
}

/* cp.async.bulk.tensor.2d.shared::cluster.global{.tile}.mbarrier::complete_tx::bytes:
 * TMA's load of a box (.tile is the default mode), completing on an
 * mbarrier. Other dimensions, directions, multicast and cache hints, and
 * the other bulk copies are not modelled. */
static bool decode_bulk_tensor(Loader *L, SimIns *in, const char *parts) {
    static const char *const want[] = {"tensor", "2d", "shared::cluster", "global", "mbarrier::complete_tx::bytes"};
    size_t i = 0;
    bool ok = true;
    for (char *part; ok && (part = next_part(L, &parts));) {
        if (i == 4 && !strcmp(part, "tile")) continue;
        ok = i < ARRAY_LEN(want) && !strcmp(part, want[i++]);
    }
    if (!ok || i != ARRAY_LEN(want))
        return fail(L, "unknown instruction '%s' (the bulk copy modelled is cp.async.bulk.tensor.2d.shared::cluster."
                    "global.mbarrier::complete_tx::bytes)", in->name);
    in->cp = SCP_TENSOR;
    in->mods |= SM_SHARED | SM_GLOBAL;
    return true;
}

/* cp.async.bulk.commit_group and cp.async.bulk.wait_group{.read} N: the
 * bulk async-groups, which a kernel that builds a tensor map closes and
 * awaits after its cp_fenceproxy; else a tensor copy */
static bool decode_bulk(Loader *L, SimIns *in, const char *parts) {
    const char *after = parts;
    char *part = next_part(L, &after), *more = next_part(L, &after);
    if (part && !strcmp(part, "commit_group") && !more) in->cp = SCP_BULK_COMMIT;
    else if (part && !strcmp(part, "wait_group") && (!more || (!strcmp(more, "read") && !next_part(L, &after))))
        in->cp = SCP_BULK_WAIT;
    else return decode_bulk_tensor(L, in, parts);
    return true;
}

/* cp.async.{ca,cg}.shared{::cta}.global{.L2::64B,.L2::128B,.L2::256B} (the
 * prefetch sizes are hints), cp.async.commit_group, cp.async.wait_group,
 * cp.async.wait_all */
static bool decode_cp(Loader *L, SimIns *in, const char *parts) {
    char *part = next_part(L, &parts);
    bool ok = part && !strcmp(part, "async");
    const char *after = parts;
    if (ok && (part = next_part(L, &after)) && !strcmp(part, "bulk")) return decode_bulk(L, in, after);
    while (ok && (part = next_part(L, &parts))) {
        uint32_t space = !strcmp(part, "shared") || !strcmp(part, "shared::cta") ? SM_SHARED
                         : !strcmp(part, "global")                             ? SM_GLOBAL
                                                                               : 0;
        /* in PTX's order: the cache operator, .shared, .global, hints */
        bool copy = in->cp == SCP_CA || in->cp == SCP_CG;
        if (!strcmp(part, "L2::cache_hint"))
            return fail(L, "unknown instruction '%s' (cache policies are not modelled)", in->name);
        if (space && copy && in->mods == (space == SM_SHARED ? 0 : SM_SHARED)) in->mods |= space;
        else if (!strcmp(part, "L2::64B") || !strcmp(part, "L2::128B") || !strcmp(part, "L2::256B"))
            ok = copy && in->mods == (SM_SHARED | SM_GLOBAL);
        else if (!strcmp(part, "ca") && in->cp == SCP_NONE) in->cp = SCP_CA;
        else if (!strcmp(part, "cg") && in->cp == SCP_NONE) in->cp = SCP_CG;
        else if (!strcmp(part, "commit_group") && in->cp == SCP_NONE && !in->mods) in->cp = SCP_COMMIT;
        else if (!strcmp(part, "wait_group") && in->cp == SCP_NONE && !in->mods) in->cp = SCP_WAIT_GROUP;
        else if (!strcmp(part, "wait_all") && in->cp == SCP_NONE && !in->mods) in->cp = SCP_WAIT_ALL;
        else ok = false;
    }
    bool copy = in->cp == SCP_CA || in->cp == SCP_CG;
    if (!ok || !in->cp || (copy && in->mods != (SM_SHARED | SM_GLOBAL)) || (!copy && in->mods))
        return fail(L, "unknown instruction '%s' (cp.async.{ca,cg}.shared{::cta}.global, cp.async.commit_group, "
                    "cp.async.wait_group and cp.async.wait_all are modelled)", in->name);
    return true;
}

/* wgmma.fence / commit_group / wait_group / mma_async, each .sync.aligned;
 * mma_async.m64nNkK.D.A.B in the forms ptxas takes for dense operands
 * (doc/ptx.md, "wgmma instructions"): f16/bf16 k16 into f32 (f16 for
 * f16), e4m3/e5m2 k32 into f32 or f16, s8/u8 k32 into s32, N a multiple
 * of 8 up to 256 (int8: 8, 16, 24, 32, then multiples of 16) */
static bool decode_wgmma(Loader *L, SimIns *in, const char *parts) {
    char *p[10];
    int n = 0;
    for (char *part; (part = next_part(L, &parts));)
        if (n < 10) p[n++] = part;
    const char *forms = "wgmma.fence, commit_group, wait_group and mma_async.m64nNkK.D.A.B, each .sync.aligned";
    if (n < 3 || strcmp(p[1], "sync") || strcmp(p[2], "aligned"))
        return fail(L, "unknown instruction '%s' (%s)", in->name, forms);
    in->wg = !strcmp(p[0], "fence") ? SWG_FENCE : !strcmp(p[0], "commit_group") ? SWG_COMMIT
             : !strcmp(p[0], "wait_group") ? SWG_WAIT : !strcmp(p[0], "mma_async") ? SWG_MMA : SWG_NONE;
    if (in->wg == SWG_NONE || (in->wg != SWG_MMA && n != 3) || (in->wg == SWG_MMA && n != 7))
        return fail(L, "unknown instruction '%s' (%s)", in->name, forms);
    if (in->wg != SWG_MMA) return true;
    int mm = 0, nn = 0, kk = 0;
    char tail;
    if (sscanf(p[3], "m%dn%dk%d%c", &mm, &nn, &kk, &tail) != 3 || mm != 64)
        return fail(L, "unknown instruction '%s' (the shape is m64nNkK)", in->name);
    for (int i = 0; i < 3; i++)
        if ((in->mma_ty[i] = (uint8_t)sim_mma_type(p[4 + i])) == SMT_NONE)
            return fail(L, "unknown instruction '%s' (type '.%s')", in->name, p[4 + i]);
    in->mma_ty[3] = in->mma_ty[0];
    int d = in->mma_ty[0], a = in->mma_ty[1], b = in->mma_ty[2];
    bool fp8 = (a == SMT_E4M3 || a == SMT_E5M2) && (b == SMT_E4M3 || b == SMT_E5M2);
    bool i8 = (a == SMT_S8 || a == SMT_U8) && (b == SMT_S8 || b == SMT_U8);
    bool ok = (a == b && (a == SMT_F16 || a == SMT_BF16) && kk == 16 && (d == SMT_F32 || (d == SMT_F16 && a == SMT_F16))) ||
              (fp8 && kk == 32 && (d == SMT_F32 || d == SMT_F16)) || (i8 && kk == 32 && d == SMT_S32);
    bool n_ok = nn >= 8 && nn <= 256 && nn % 8 == 0 && (!i8 || nn <= 32 || nn % 16 == 0);
    if (!ok || !n_ok || d == SMT_F16)
        return fail(L, "unknown instruction '%s' (f16/bf16 k16, e4m3/e5m2 and s8/u8 k32 into f32 or s32, N a "
                    "multiple of 8 up to 256, are modelled)", in->name);
    in->mma_k = (uint8_t)kk;
    in->wgmma = arena_alloc(L->a, sizeof(SimWgmma));
    in->wgmma->n = nn;
    return true;
}

/* fence.proxy.async{.shared::cta}: orders shared memory between the
 * generic and the async proxy; fence.mbarrier_init.release.cluster makes
 * mbarrier.init visible to the cluster; fence.proxy.tensormap::generic.
 * acquire.SCOPE [a], 128 makes a tensor map at a, written through the
 * generic proxy, visible to TMA. One memory in lock step here, so nothing
 * to do but check the map's address (that form is marked .global). */
static bool decode_fence(Loader *L, SimIns *in, const char *parts) {
    static const char *const forms[] = {".proxy.async", ".proxy.async.shared::cta", ".mbarrier_init.release.cluster"};
    static const char *const scopes[] = {"cta", "cluster", "gpu", "sys"};
    const char *p = parts ? parts : "", *acquire = ".proxy.tensormap::generic.acquire.";
    for (size_t i = 0; i < ARRAY_LEN(forms); i++)
        if (!strcmp(p, forms[i])) return true;
    for (size_t i = 0; i < ARRAY_LEN(scopes); i++)
        if (!strncmp(p, acquire, strlen(acquire)) && !strcmp(p + strlen(acquire), scopes[i])) {
            in->mods |= SM_GLOBAL;
            return true;
        }
    return fail(L, "unknown instruction '%s' (fence.proxy.async{.shared::cta}, fence.mbarrier_init.release.cluster "
                "and fence.proxy.tensormap::generic.acquire.SCOPE are modelled)", in->name);
}

/* tensormap.replace.tile.FIELD.shared::cta.b1024.TYPE (TYPE the field's
 * width) and tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.
 * release.SCOPE.sync.aligned: a map built in shared memory, then copied to
 * global memory (the forms ptxgen writes; a map edited in global memory is
 * not modelled) */
static bool decode_tensormap(Loader *L, SimIns *in, const char *parts) {
    static const char *const cp[] = {"cp_fenceproxy", "global", "shared::cta", "tensormap::generic", "release", "",
                                     "sync", "aligned"};
    char *p[8];
    int n = 0;
    for (char *part; (part = next_part(L, &parts)); n++)
        if (n < 8) p[n] = part;
    if (n == 6 && !strcmp(p[0], "replace") && !strcmp(p[1], "tile") && !strcmp(p[3], "shared::cta") &&
        !strcmp(p[4], "b1024"))
        for (int f = 0; f < STF_COUNT; f++) {
            const SimTmapFieldInfo *fi = &sim_tmap_field_info[f];
            if (strcmp(p[2], fi->name) || strcmp(p[5], fi->bits == 64 ? "b64" : "b32")) continue;
            in->tmap = STM_REPLACE;
            in->tmap_field = (uint8_t)f;
            in->ty[0] = fi->bits == 64 ? ST_B64 : ST_B32;
            in->mods |= SM_SHARED;
            return true;
        }
    bool ok = n == 8;
    for (int i = 0; ok && i < 8; i++)
        ok = i == 5 ? !strcmp(p[i], "cta") || !strcmp(p[i], "cluster") || !strcmp(p[i], "gpu") || !strcmp(p[i], "sys")
                    : !strcmp(p[i], cp[i]);
    if (!ok)
        return fail(L, "unknown instruction '%s' (tensormap.replace.tile.FIELD.shared::cta.b1024.TYPE and "
                    "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.SCOPE.sync.aligned are "
                    "modelled)", in->name);
    in->tmap = STM_CP_FENCEPROXY;
    in->mods |= SM_GLOBAL | SM_SHARED;
    return true;
}

/* mbarrier.init, .inval, .arrive.expect_tx{.release}{.cta} and
 * .try_wait.parity{.acquire}{.cta}, each .shared{::cta}.b64 (the spelt
 * orderings and scope are the defaults; lock step needs no ordering) */
static bool decode_mbarrier(Loader *L, SimIns *in, const char *parts) {
    char *p[8];
    int n = 0;
    for (char *part; (part = next_part(L, &parts)); n++)
        if (n < 8) p[n] = part;
    if (n > 8) n = 0;   /* no form has that many parts */
    int i = 0;
    if (n > 0 && !strcmp(p[0], "init")) in->mbar = SMB_INIT, i = 1;
    else if (n > 0 && !strcmp(p[0], "inval")) in->mbar = SMB_INVAL, i = 1;
    else if (n > 1 && !strcmp(p[0], "arrive") && !strcmp(p[1], "expect_tx")) in->mbar = SMB_ARRIVE_TX, i = 2;
    else if (n > 1 && !strcmp(p[0], "try_wait") && !strcmp(p[1], "parity")) in->mbar = SMB_TRY_WAIT, i = 2;
    const char *sem = in->mbar == SMB_ARRIVE_TX ? "release" : in->mbar == SMB_TRY_WAIT ? "acquire" : NULL;
    if (sem && i < n && !strcmp(p[i], sem)) i++;
    if (sem && i < n && !strcmp(p[i], "cta")) i++;
    if (!in->mbar || n != i + 2 || (strcmp(p[i], "shared") && strcmp(p[i], "shared::cta")) || strcmp(p[i + 1], "b64"))
        return fail(L, "unknown instruction '%s' (mbarrier.init, inval, arrive.expect_tx and try_wait.parity, each "
                    ".shared{::cta}.b64, are modelled)", in->name);
    in->mods |= SM_SHARED;
    in->ty[0] = ST_B64;
    return true;
}

static bool decode_opcode(Loader *L, SimIns *in, const char *opcode) {
    in->name = arena_strdup(L->a, opcode);
    in->vec = 1;
    const char *dot = strchr(opcode, '.');
    size_t bl = dot ? (size_t)(dot - opcode) : strlen(opcode);
    in->op = SO_COUNT;
    for (int i = 0; i < SO_COUNT; i++)
        if (strlen(op_info[i].name) == bl && !strncmp(op_info[i].name, opcode, bl)) in->op = (SimOp)i;
    if (in->op == SO_COUNT) return fail(L, "unknown instruction '%s'", opcode);
    if (in->op == SO_MMA) return decode_mma(L, in, dot);
    if (in->op == SO_CP) return decode_cp(L, in, dot);
    if (in->op == SO_WGMMA) return decode_wgmma(L, in, dot);
    if (in->op == SO_FENCE) return decode_fence(L, in, dot);
    if (in->op == SO_MBARRIER) return decode_mbarrier(L, in, dot);
    if (in->op == SO_TENSORMAP) return decode_tensormap(L, in, dot);
    if (in->op == SO_SHF) {   /* shf.{l,r}.{wrap,clamp}.b32: the only form */
        bool l = dot && !strncmp(dot, ".l.", 3), r = dot && !strncmp(dot, ".r.", 3);
        const char *m = dot ? dot + 2 : "";
        if ((!l && !r) || (strcmp(m, ".wrap.b32") && strcmp(m, ".clamp.b32")))
            return fail(L, "unknown instruction '%s' (shf.{l,r}.{wrap,clamp}.b32 is modelled)", opcode);
        in->shf = (uint8_t)((r ? SHF_R : 0) | (!strcmp(m, ".clamp.b32") ? SHF_CLAMP : 0));
        in->ty[0] = ST_B32;
        return true;
    }
    if (in->op == SO_BAR && dot && !strcmp(dot, ".warp.sync")) {
        in->bar_warp = true;
        return true;
    }
    int n_types = 0;
    /* parts split at '.', except inside "L1::evict_first" */
    for (const char *p = dot; p && *p;) {
        const char *q = strchr(p + 1, '.');
        char *part = arena_strndup(L->a, p + 1, q ? (size_t)(q - p - 1) : strlen(p + 1));
        if (!decode_part(L, in, part, &n_types)) return false;
        p = q;
    }
    return true;
}

/* shfl.sync.MODE.b32 d[|p], a, b, c, membermask; (the only form since
 * sm_70: one mode, .sync, .b32) */
static bool check_shfl(Loader *L, SimIns *in) {
    uint32_t mode = in->mods & SM_SHFL_MODES;
    if (in->ty[0] != ST_B32 || in->ty[1] || !(in->mods & SM_SYNC) || (in->mods & ~(SM_SYNC | SM_SHFL_MODES)) ||
        !mode || (mode & (mode - 1)))
        return fail(L, "unknown instruction '%s' (shfl.sync.{bfly,up,down,idx}.b32 is modelled)", in->name);
    if (in->opd[0].kind != SD_REG) return fail(L, "'%s' needs a register result", in->name);
    for (int i = 1; i < 5; i++) {
        uint8_t kd = in->opd[i].kind;
        if (kd != SD_REG && kd != SD_IMM && kd != SD_SPECIAL)
            return fail(L, "'%s': operand %d must be a register or an immediate", in->name, i + 1);
    }
    return true;
}

/* atom.SEM.SCOPE.SPACE.OP.TYPE d, [a], b (cas: d, [a], b, c) and
 * red.SEM.SCOPE.SPACE.OP.TYPE [a], b; SPACE .global or .shared */
static bool check_atom(Loader *L, SimIns *in) {
    bool red = in->op == SO_RED;
    if (!in->atom) return fail(L, "'%s' names no operation", in->name);
    uint32_t space = in->mods & (SM_GLOBAL | SM_SHARED);
    if ((space != SM_GLOBAL && space != SM_SHARED) || (in->mods & ~(space | SM_NOFTZ | SM_ACQUIRE)))
        return fail(L, "'%s': only .global and .shared atomics are modelled", in->name);
    if (red && (in->atom == SA_CAS || in->atom == SA_EXCH))
        return fail(L, "unknown instruction '%s' (red has no cas or exch)", in->name);
    if (red && (in->mods & SM_ACQUIRE))
        return fail(L, "unknown instruction '%s' (red has no acquire ordering)", in->name);
    int want = red ? 2 : in->atom == SA_CAS ? 4 : 3;
    if (in->n_opd != want) return fail(L, "'%s' takes %d operands, not %d", in->name, want, in->n_opd);
    if (!red && in->opd[0].kind != SD_REG) return fail(L, "'%s' needs a register result", in->name);
    if (in->opd[red ? 0 : 1].kind != SD_MEM) return fail(L, "'%s' needs an address", in->name);
    for (int i = red ? 1 : 2; i < want; i++)
        if (in->opd[i].kind != SD_REG && in->opd[i].kind != SD_IMM)
            return fail(L, "'%s': operand %d must be a register or an immediate", in->name, i + 1);
    uint64_t r;
    if (sim_atom(in, 0, 0, 0, &r) == SIM_BAD) return fail(L, "unknown instruction '%s' (not modelled)", in->name);
    return true;
}

/* mma: four vectors of 32-bit registers, as many as the form has per lane */
static bool check_mma(Loader *L, SimIns *in) {
    static const char *const what[4] = {"d", "a", "b", "c"};
    if (in->n_opd != 4) return fail(L, "'%s' takes 4 operands, not %d", in->name, in->n_opd);
    for (int i = 0; i < 4; i++) {
        const SimOpd *o = &in->opd[i];
        int want = sim_mma_regs(in, i);
        if (o->kind != SD_VEC || o->n != want)
            return fail(L, "'%s': %s must be a vector of %d registers", in->name, what[i], want);
        for (int j = 0; j < o->n; j++)
            if (L->m->reg_bits[o->reg[j]] != 32)
                return fail(L, "'%s': the registers of %s must be 32 bits wide", in->name, what[i]);
    }
    return true;
}

/* cp.async [dst], [src], cp-size{, src-size | ignore-src}: cp-size 4, 8 or
 * 16 (.cg: 16), src-size a register or an immediate up to cp-size,
 * ignore-src a predicate; wait_group N with an immediate N. */
static bool check_cp(Loader *L, SimIns *in) {
    if (in->cp == SCP_COMMIT || in->cp == SCP_WAIT_ALL || in->cp == SCP_BULK_COMMIT) {
        if (in->n_opd) return fail(L, "'%s' takes no operands", in->name);
        return true;
    }
    if (in->cp == SCP_WAIT_GROUP || in->cp == SCP_BULK_WAIT) {
        if (in->n_opd != 1 || in->opd[0].kind != SD_IMM || in->opd[0].imm < 0)
            return fail(L, "'%s' takes one immediate: the groups that may stay pending", in->name);
        return true;
    }
    if (in->n_opd < 3 || in->n_opd > 4 || in->opd[0].kind != SD_MEM || in->opd[1].kind != SD_MEM ||
        in->opd[2].kind != SD_IMM)
        return fail(L, "'%s' takes [dst], [src], an immediate cp-size and an optional src-size or ignore-src", in->name);
    int64_t size = in->opd[2].imm;
    if (size != 4 && size != 8 && size != 16) return fail(L, "'%s': cp-size %lld is not 4, 8 or 16", in->name, (long long)size);
    if (in->cp == SCP_CG && size != 16) return fail(L, "'%s': .cg copies 16 bytes, not %lld", in->name, (long long)size);
    if (in->n_opd == 4) {
        const SimOpd *o = &in->opd[3];
        if (o->kind == SD_IMM && (o->imm < 0 || o->imm > size))
            return fail(L, "'%s': src-size %lld is not in [0, %lld]", in->name, (long long)o->imm, (long long)size);
        if (o->kind != SD_IMM && o->kind != SD_REG)
            return fail(L, "'%s': src-size must be a register or an immediate", in->name);
    }
    return true;
}

/* init [a], count; inval [a]; arrive.expect_tx _, [a], tx-count;
 * try_wait.parity p, [a], parity: the counts and the parity a register or
 * an immediate, arrive's state the sink '_' */
static bool check_mbarrier(Loader *L, SimIns *in) {
    static const int n_opd[] = {[SMB_INIT] = 2, [SMB_INVAL] = 1, [SMB_ARRIVE_TX] = 3, [SMB_TRY_WAIT] = 3};
    int want = n_opd[in->mbar], at = want == 3;
    if (in->n_opd != want) return fail(L, "'%s' takes %d operands, not %d", in->name, want, in->n_opd);
    if (in->opd[at].kind != SD_MEM) return fail(L, "'%s' needs an address", in->name);
    uint8_t kd = in->opd[want - 1].kind;
    if (want > 1 && kd != SD_REG && kd != SD_IMM)
        return fail(L, "'%s': operand %d must be a register or an immediate", in->name, want);
    if (in->mbar == SMB_ARRIVE_TX && in->opd[0].kind != SD_SINK)
        return fail(L, "'%s': only the sink '_' is modelled as its state", in->name);
    if (in->mbar == SMB_TRY_WAIT && (in->opd[0].kind != SD_REG || L->m->reg_bits[in->opd[0].reg[0]] != 1))
        return fail(L, "'%s' needs a predicate result", in->name);
    return true;
}

/* fence.proxy.tensormap::generic.acquire [a], 128 (marked .global); the
 * other fences take nothing */
static bool check_fence(Loader *L, const SimIns *in) {
    if (!(in->mods & SM_GLOBAL)) return !in->n_opd || fail(L, "'%s' takes no operands", in->name);
    if (in->n_opd != 2 || in->opd[0].kind != SD_MEM || in->opd[1].kind != SD_IMM || in->opd[1].imm != TMAP_BYTES)
        return fail(L, "'%s' takes [tensor-map] and the size 128", in->name);
    return true;
}

/* replace [a], {ord,} value: ord an immediate dim of a map, the value a
 * register of the field's width or an immediate; cp_fenceproxy [global],
 * [shared], 128 */
static bool check_tensormap(Loader *L, const SimIns *in) {
    if (in->tmap == STM_CP_FENCEPROXY) {
        if (in->n_opd != 3 || in->opd[0].kind != SD_MEM || in->opd[1].kind != SD_MEM || in->opd[2].kind != SD_IMM ||
            in->opd[2].imm != TMAP_BYTES)
            return fail(L, "'%s' takes [global], [shared] and the size 128", in->name);
        return true;
    }
    const SimTmapFieldInfo *fi = &sim_tmap_field_info[in->tmap_field];
    int want = fi->per_dim ? 3 : 2, dims = in->tmap_field == STF_GLOBAL_STRIDE ? TMAP_MAX_RANK - 1 : TMAP_MAX_RANK;
    if (in->n_opd != want)
        return fail(L, "'%s' takes [tensor-map], %sthe new value", in->name, fi->per_dim ? "an ord, " : "");
    if (in->opd[0].kind != SD_MEM) return fail(L, "'%s' needs an address", in->name);
    if (fi->per_dim && (in->opd[1].kind != SD_IMM || in->opd[1].imm < 0 || in->opd[1].imm >= dims))
        return fail(L, "'%s': ord must be an immediate 0 to %d", in->name, dims - 1);
    const SimOpd *v = &in->opd[want - 1];
    if (v->kind != SD_IMM && (v->kind != SD_REG || L->m->reg_bits[v->reg[0]] != fi->bits))
        return fail(L, "'%s': the new value must be a %d-bit register or an immediate", in->name, fi->bits);
    /* ptxas before PTX 8.6 took global_stride divided by 16 and later
     * ones take bytes: under an older .version the driver decides */
    if (in->tmap_field == STF_GLOBAL_STRIDE && L->m->version < 86)
        return fail(L, "'%s' under .version %d.%d: what the value means depends on the compiler (bytes / 16 before "
                    "PTX 8.6, bytes since); say .version 8.6 or later", in->name, L->m->version / 10, L->m->version % 10);
    return true;
}

/* What each op needs, checked once here so exec.c can trust it. */
static bool check_shape(Loader *L, SimIns *in) {
    if (in->op == SO_ATOM || in->op == SO_RED) return check_atom(L, in);
    if (in->op == SO_LDMATRIX || in->op == SO_STMATRIX) {
        const char *why = sim_ldmatrix_check(in);
        return !why || fail(L, "'%s': %s", in->name, why);
    }
    if (in->op == SO_MMA) return check_mma(L, in);
    if (in->op == SO_CP) return check_cp(L, in);
    if (in->op == SO_FENCE) return check_fence(L, in);
    if (in->op == SO_TENSORMAP) return check_tensormap(L, in);
    if (in->op == SO_MBARRIER) return check_mbarrier(L, in);
    if (in->op == SO_WGMMA) {   /* fence, commit_group: nothing; wait_group N */
        if (in->wg == SWG_WAIT && (in->n_opd != 1 || in->opd[0].kind != SD_IMM || in->opd[0].imm < 0))
            return fail(L, "'%s' takes one immediate: the groups that may stay pending", in->name);
        if (in->wg != SWG_WAIT && in->n_opd) return fail(L, "'%s' takes no operands", in->name);
        return true;
    }
    if (in->cache_hint) {   /* the policy: a 64-bit register, after the operands */
        const SimOpd *pol = in->n_opd ? &in->opd[in->n_opd - 1] : NULL;
        if (!pol || pol->kind != SD_REG || L->m->reg_bits[pol->reg[0]] != 64)
            return fail(L, "'%s' needs a 64-bit cache-policy register last", in->name);
        in->n_opd--;
    }
    if (in->op == SO_CREATEPOLICY) {
        if (in->ty[0] != ST_B64 || in->n_opd != 1 || in->opd[0].kind != SD_REG ||
            L->m->reg_bits[in->opd[0].reg[0]] != 64)
            return fail(L, "'%s': createpolicy.fractional.L2::PRIORITY.b64 of one 64-bit register is modelled",
                        in->name);
        return true;
    }
    int want = op_info[in->op].n_opd;
    if (in->op == SO_CVT && in->ty[1] == ST_F32 && sim_ty_kind(in->ty[0]) == SK_PACKED && in->ty[0] != ST_TF32)
        want = 3;   /* cvt.rn.satfinite.e4m3x2.f32 d, a, b: two inputs */
    if ((sim_ty_kind(in->ty[0]) == SK_PACKED || sim_ty_kind(in->ty[1]) == SK_PACKED) && in->op != SO_CVT)
        return fail(L, "unknown instruction '%s' (packed types are modelled in cvt only)", in->name);
    if (want >= 0 && in->n_opd != want && !(in->op == SO_MOV && in->n_opd == 2))
        return fail(L, "'%s' takes %d operands, not %d", in->name, want, in->n_opd);
    SimKind k = sim_ty_kind(in->ty[0]);
    switch (in->op) {
    case SO_BAR:
        if (in->bar_warp && (in->n_opd != 1 || (in->opd[0].kind != SD_IMM && (in->opd[0].kind != SD_REG ||
                                                                             L->m->reg_bits[in->opd[0].reg[0]] != 32))))
            return fail(L, "'%s' takes a member mask (a 32-bit register or an immediate)", in->name);
        if (in->n_opd < 1 || in->n_opd > 2) return fail(L, "'%s' takes a barrier number", in->name);
        return true;
    case SO_RET: case SO_BRA: return true;
    case SO_SHFL: return check_shfl(L, in);
    case SO_CVT:
        if (!in->ty[1]) return fail(L, "'%s' needs two types", in->name);
        break;
    case SO_SETP:
        if (!in->cmp || in->cmp >= SC_FINITE) return fail(L, "'%s' needs a comparison", in->name);
        break;
    case SO_TESTP:
        if (in->cmp < SC_FINITE) return fail(L, "'%s' needs a class to test", in->name);
        break;
    case SO_LD: case SO_ST: {
        if (!(in->mods & (SM_GLOBAL | SM_SHARED | SM_PARAM | SM_LOCAL)))
            return fail(L, "'%s': only .global, .shared, .local and .param are modelled", in->name);
        SimOpd *addr = &in->opd[in->op == SO_LD ? 1 : 0], *val = &in->opd[in->op == SO_LD ? 0 : 1];
        if (addr->kind != SD_MEM && addr->kind != SD_PARAM) return fail(L, "'%s' needs an address", in->name);
        if ((addr->kind == SD_PARAM) != ((in->mods & SM_PARAM) != 0))
            return fail(L, "'%s': a parameter name needs .param", in->name);
        if (addr->kind == SD_PARAM && addr->reg[0] == SIM_NOREG && L->m->params[addr->imm].bytes)
            return fail(L, "'%s' reads the aggregate parameter '%s': only its address (mov) is modelled", in->name,
                        L->m->params[addr->imm].name);
        if (in->vec > 1 && (val->kind != SD_VEC || val->n != in->vec))
            return fail(L, "'%s' needs a vector of %d registers", in->name, in->vec);
        if (in->vec == 1 && val->kind == SD_VEC) return fail(L, "'%s' has a vector but no .v2/.v4", in->name);
        break;
    }
    default: break;
    }
    if (!in->ty[0]) return fail(L, "'%s' has no type", in->name);
    if (in->op != SO_CVT && in->ty[1] && in->op != SO_CVTA)
        return fail(L, "unknown instruction '%s' (two types)", in->name);
    /* rounding: float arithmetic is modelled in round-to-nearest only */
    uint32_t directed = SM_RZ | SM_RM | SM_RP;
    if (in->op != SO_CVT && (in->mods & (directed | SM_RNA | SM_RNI | SM_RZI | SM_RMI | SM_RPI)))
        return fail(L, "'%s': only .rn rounding is modelled", in->name);
    if ((in->mods & SM_SAT) && !(k == SK_FLOAT && in->op != SO_CVT && in->ty[0] == ST_F32))
        return fail(L, "'%s': .sat is modelled for f32 arithmetic only", in->name);
    if (in->op == SO_LD || in->op == SO_ST) return true;
    /* the rest: a register result, register/immediate/special sources */
    if (in->opd[0].kind != SD_REG && !(in->op == SO_MOV && in->opd[0].kind == SD_VEC))
        return fail(L, "'%s' needs a register result", in->name);
    for (int i = 1; i < in->n_opd; i++) {
        uint8_t kd = in->opd[i].kind;
        if (kd != SD_REG && kd != SD_IMM && kd != SD_SPECIAL && !(in->op == SO_MOV && (kd == SD_VEC || kd == SD_PARAM)))
            return fail(L, "'%s': operand %d must be a register or an immediate", in->name, i + 1);
    }
    if (in->op == SO_CVTA) {
        uint32_t sp = in->mods & (SM_GLOBAL | SM_SHARED | SM_LOCAL | SM_PARAM);
        bool param_ok = sp == SM_PARAM && !(in->mods & SM_TO) && sim_ty_bits(in->ty[0]) == 64;
        if (sp != SM_GLOBAL && sp != SM_SHARED && sp != SM_LOCAL && !param_ok)
            return fail(L, "'%s' needs one state space: .global, .shared, .local, or .param (to generic, 64-bit)",
                        in->name);
        return true;
    }
    if (in->op == SO_MOV && in->opd[1].kind == SD_PARAM && sim_ty_bits(in->ty[0]) != 64)
        return fail(L, "'%s': a parameter's address is 64 bits", in->name);
    if (in->op == SO_MOV) return true;
    /* every op x type x modifiers combination the executor would reject */
    uint64_t v[4] = {0, 1, 1, 1}, r;
    if (sim_alu(in, v, &r) == SIM_BAD) return fail(L, "unknown instruction '%s' (not modelled)", in->name);
    return true;
}

/* "(a, b)" at *sp: the call .param variables named, as registers */
static bool call_list(Loader *L, const char **sp, uint32_t *regs, int cap, int *n) {
    const char *s = skip_ws(*sp), *close = strchr(s, ')');
    if (*s != '(' || !close) return fail(L, "expected '(' and ')' around a call's parameters");
    *n = 0;
    char *list = arena_strndup(L->a, s + 1, (size_t)(close - s - 1));
    for (char *p = list; p;) {
        char *comma = strchr(p, ',');
        if (comma) *comma = 0;
        char *name = trimmed(L->a, p, strlen(p));
        p = comma ? comma + 1 : NULL;
        if (!*name && !p && *n == 0) break;   /* "()" */
        const CallParam *cp = find_call_param(L, name);
        if (!cp) return fail(L, "'%s' is not a .param variable of the call's block", name);
        if (*n == cap) return fail(L, "too many call parameters");
        regs[(*n)++] = cp->reg;
    }
    *sp = close + 1;
    return true;
}

/* call (ret), name, (a, b);  or  call name, (a, b, c, d, e); */
static bool parse_call(Loader *L, SimIns *in, const char *s) {
    if (in->ty[0] || (in->mods & ~SM_UNI)) return fail(L, "unknown instruction '%s'", in->name);
    uint32_t rets[1], args[8];
    int n_ret = 0, n_args = 0;
    s = skip_ws(s);
    if (*s == '(') {
        if (!call_list(L, &s, rets, 1, &n_ret)) return false;
        s = skip_ws(s);
        if (*s++ != ',') return fail(L, "expected ',' after a call's result");
    }
    s = skip_ws(s);
    const char *n = s;
    while (isalnum((unsigned char)*s) || *s == '_' || *s == '$') s++;
    char *name = arena_strndup(L->a, n, (size_t)(s - n));
    int c = 0;
    while (c < SF_COUNT && strcmp(callees[c].name, name)) c++;
    if (c == SF_COUNT || !L->declared[c]) return fail(L, "call to '%s', which no .extern .func declares", name);
    s = skip_ws(s);
    if (*s++ != ',') return fail(L, "expected ',' after the callee '%s'", name);
    if (!call_list(L, &s, args, 8, &n_args)) return false;
    if (*skip_ws(s) != ';') return fail(L, "expected ';' after the call");
    if (n_ret != callees[c].n_ret || n_args != callees[c].n_params)
        return fail(L, "'%s' takes %d parameters and gives %d results; the call passes %d and takes %d", name,
                    callees[c].n_params, callees[c].n_ret, n_args, n_ret);
    in->callee = (uint8_t)c;
    in->n_args = (uint8_t)n_args;
    in->args = arena_alloc(L->a, sizeof(uint32_t) * (size_t)n_args);
    memcpy(in->args, args, sizeof(uint32_t) * (size_t)n_args);
    in->ret = n_ret ? rets[0] : SIM_NOREG;
    VEC_PUSH(L->a, L->m->ins, L->m->n_ins, L->m->cap_ins, *in);
    return true;
}

/* a register of `bits` bits named by operand text r ("%rd4") */
static bool wgmma_reg(Loader *L, const SimIns *in, const char *r, int bits, uint32_t *reg, const char *what) {
    if (r[0] != '%' || (*reg = reg_index(L, r + 1)) == SIM_NOREG)
        return r[0] == '%' ? false : fail(L, "'%s': %s must be a register", in->name, what);
    if (L->m->reg_bits[*reg] != bits) return fail(L, "'%s': %s must be %d bits wide", in->name, what, bits);
    return true;
}

/* wgmma.mma_async d, a-desc | {a0, a1, a2, a3}, b-desc, scale-d, imm-scale-a, imm-scale-b[, imm-trans-a],
 * imm-trans-b (the scales not for integers, the transposes for f16/bf16 only, trans-a with A from shared
 * memory only) */
static bool parse_wgmma(Loader *L, SimIns *in, const char *s) {
    const char *semi = strrchr(s, ';');
    if (!semi) return fail(L, "expected ';' after '%s'", in->name);
    char *ops[10];
    int n = split_operands(L, arena_strndup(L->a, s, (size_t)(semi - s)), ops, 10);
    SimWgmma *w = in->wgmma;
    w->a_regs = n > 1 && ops[1][0] == '{';
    bool b16 = in->mma_ty[1] == SMT_F16 || in->mma_ty[1] == SMT_BF16, ints = in->mma_ty[0] == SMT_S32;
    int want = ints ? 4 : 6 + (b16 ? (w->a_regs ? 1 : 2) : 0);
    if (n != want) return fail(L, "'%s' takes %d operands, not %d", in->name, want, n);
    /* d: N/2 32-bit registers */
    char *d = ops[0];
    size_t dl = strlen(d);
    if (d[0] != '{' || d[dl - 1] != '}') return fail(L, "'%s': d must be a vector of registers", in->name);
    d[dl - 1] = 0;
    w->d = arena_alloc(L->a, sizeof(uint32_t) * (size_t)w->n / 2);
    for (char *p = d + 1; p;) {
        char *comma = strchr(p, ',');
        if (comma) *comma = 0;
        if (w->n_d == w->n / 2) return fail(L, "'%s': d has more than %d registers", in->name, w->n / 2);
        if (!wgmma_reg(L, in, trimmed(L->a, p, strlen(p)), 32, &w->d[w->n_d++], "every register of d")) return false;
        p = comma ? comma + 1 : NULL;
    }
    if (w->n_d != w->n / 2) return fail(L, "'%s': d has %d registers, not %d", in->name, w->n_d, w->n / 2);
    if (w->a_regs) {
        SimOpd o;
        if (!parse_operand(L, in, ops[1], &o)) return false;
        if (o.n != 4) return fail(L, "'%s': a must be 4 registers", in->name);
        for (int i = 0; i < 4; i++) {
            w->a[i] = o.reg[i];
            if (L->m->reg_bits[o.reg[i]] != 32) return fail(L, "'%s': the registers of a must be 32 bits wide", in->name);
        }
    } else if (!wgmma_reg(L, in, ops[1], 64, &w->a[0], "a's descriptor")) {
        return false;
    }
    if (!wgmma_reg(L, in, ops[2], 64, &w->b, "b's descriptor")) return false;
    w->scale_d = SIM_NOREG;
    int64_t imm[5] = {0};
    if (ops[3][0] == '%') {
        if (!wgmma_reg(L, in, ops[3], 1, &w->scale_d, "scale-d")) return false;
    } else if (!parse_imm(ops[3], &imm[0])) {
        return fail(L, "'%s': scale-d must be a predicate or an immediate", in->name);
    }
    for (int i = 4; i < n; i++)
        if (!parse_imm(ops[i], &imm[i - 3])) return fail(L, "'%s': operand %d must be an immediate", in->name, i + 1);
    w->scale_d_imm = imm[0] != 0;
    w->scale_a = ints ? 1 : (int)imm[1];
    w->scale_b = ints ? 1 : (int)imm[2];
    w->trans_a = b16 && !w->a_regs && imm[3];
    w->trans_b = b16 && imm[w->a_regs ? 3 : 4];
    if ((w->scale_a != 1 && w->scale_a != -1) || (w->scale_b != 1 && w->scale_b != -1))
        return fail(L, "'%s': imm-scale-a and imm-scale-b are 1 or -1", in->name);
    if (w->scale_a != 1 || w->scale_b != 1) return fail(L, "'%s': negated operands are not modelled", in->name);
    for (int i = 3; b16 && i < n - 3; i++)
        if (imm[i] != 0 && imm[i] != 1) return fail(L, "'%s': the transposes are 0 or 1", in->name);
    VEC_PUSH(L->a, L->m->ins, L->m->n_ins, L->m->cap_ins, *in);
    return true;
}

/* cp.async.bulk.tensor.2d [dst], [map, {x, y}], [mbar]: dst and mbar
 * shared addresses, map a 64-bit register (the tensor map's generic
 * address), x and y 32-bit registers; opd[0..3] as SimCp says */
static bool parse_tensor_copy(Loader *L, SimIns *in, const char *s) {
    const char *semi = strrchr(s, ';');
    if (!semi) return fail(L, "expected ';' after '%s'", in->name);
    char *ops[4];
    int n = split_operands(L, arena_strndup(L->a, s, (size_t)(semi - s)), ops, 4);
    char *close = n == 3 ? strrchr(ops[1], ']') : NULL, *comma = n == 3 ? strchr(ops[1], ',') : NULL;
    if (!close || !comma || ops[1][0] != '[' || close[1])
        return fail(L, "'%s' takes [dst], [tensor-map, {x, y}] and [mbarrier]", in->name);
    *close = *comma = 0;
    char *map = trimmed(L->a, ops[1] + 1, strlen(ops[1] + 1)), *xy = trimmed(L->a, comma + 1, strlen(comma + 1));
    in->n_opd = 4;
    if (!parse_operand(L, in, ops[0], &in->opd[0]) || !parse_operand(L, in, map, &in->opd[1]) ||
        !parse_operand(L, in, xy, &in->opd[2]) || !parse_operand(L, in, ops[2], &in->opd[3]))
        return false;
    const SimOpd *o = in->opd;
    if (o[0].kind != SD_MEM || o[3].kind != SD_MEM || o[1].kind != SD_REG || L->m->reg_bits[o[1].reg[0]] != 64 ||
        o[2].kind != SD_VEC || o[2].n != 2 || L->m->reg_bits[o[2].reg[0]] != 32 || L->m->reg_bits[o[2].reg[1]] != 32)
        return fail(L, "'%s' takes [dst], [tensor-map, {x, y}] and [mbarrier]: addresses, a 64-bit register and two "
                    "32-bit ones", in->name);
    VEC_PUSH(L->a, L->m->ins, L->m->n_ins, L->m->cap_ins, *in);
    return true;
}

static bool parse_instruction(Loader *L, const char *s) {
    SimIns in = {0};
    in.guard = SIM_NOREG;
    in.ptx_line = L->line;
    in.loc_file = L->loc_file;
    in.loc_line = L->loc_line;
    if (*s == '@') {
        s++;
        if (*s == '!') in.guard_neg = true, s++;
        if (*s != '%') return fail(L, "expected a predicate after '@'");
        const char *n = ++s;
        while (isalnum((unsigned char)*s) || *s == '_') s++;
        if ((in.guard = reg_index(L, arena_strndup(L->a, n, (size_t)(s - n)))) == SIM_NOREG) return false;
        s = skip_ws(s);
    }
    const char *op = s;
    while (*s && !isspace((unsigned char)*s) && *s != ';') s++;
    char *opcode = arena_strndup(L->a, op, (size_t)(s - op));
    if (!decode_opcode(L, &in, opcode)) return false;
    if (in.op == SO_CALL) return parse_call(L, &in, s);
    if (in.op == SO_WGMMA && in.wg == SWG_MMA) return parse_wgmma(L, &in, s);
    if (in.op == SO_CP && in.cp == SCP_TENSOR) return parse_tensor_copy(L, &in, s);
    const char *semi = strrchr(s, ';');
    if (!semi) return fail(L, "expected ';' after '%s'", opcode);
    char *ops[8];
    int n = split_operands(L, arena_strndup(L->a, s, (size_t)(semi - s)), ops, 8);
    if (n < 0 || n > 5) return fail(L, "too many operands for '%s'", opcode);
    in.n_opd = (uint8_t)n;
    for (int i = 0; i < n; i++)
        if (!parse_operand(L, &in, ops[i], &in.opd[i])) return false;
    if (!check_shape(L, &in)) return false;
    VEC_PUSH(L->a, L->m->ins, L->m->n_ins, L->m->cap_ins, in);
    return true;
}

/* ---- directives ---- */

static bool parse_file(Loader *L, const char *s) {
    char *end;
    unsigned long k = strtoul(skip_ws(s + 5), &end, 10);
    const char *q = strchr(end, '"'), *q2 = q ? strchr(q + 1, '"') : NULL;
    if (!q2 || k > 1000) return fail(L, "bad .file directive");
    while (L->m->n_files <= k) VEC_PUSH(L->a, L->m->files, L->m->n_files, L->m->cap_files, NULL);
    L->m->files[k] = arena_strndup(L->a, q + 1, (size_t)(q2 - q - 1));
    return true;
}

static bool parse_loc(Loader *L, const char *s) {
    char *end;
    L->loc_file = (int)strtol(skip_ws(s + 4), &end, 10);
    L->loc_line = (int)strtol(end, &end, 10);
    return true;
}

/* An array declaration: [.extern] .SPACE [.align A] .TYPE NAME[N] [= {v, ...}]; */
typedef struct ArrayDecl {
    const char *name;
    uint32_t align, elem, count;   /* elem in bytes */
    SimTy ty;
    bool sized;                    /* [N], not [] */
    const char *init;              /* just after '{', or NULL */
} ArrayDecl;

static bool parse_array(Loader *L, const char *s, ArrayDecl *d) {
    memset(d, 0, sizeof *d);
    d->align = 1;
    const char *br = strchr(s, '[');
    if (!br) return fail(L, "expected an array 'NAME[N]' in '%s'", s);
    char *head = arena_strndup(L->a, s, (size_t)(br - s));
    char *save = NULL;
    for (char *tok = strtok_r(head, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
        if (!strcmp(tok, ".align")) {
            char *num = strtok_r(NULL, " \t", &save);
            d->align = num ? (uint32_t)strtoul(num, NULL, 10) : 0;
        } else if (tok[0] == '.' && find_type(tok + 1)) {
            d->ty = find_type(tok + 1);
            d->elem = (uint32_t)sim_ty_bits(d->ty) / 8;
        } else if (tok[0] == '.') {
            if (strcmp(tok, ".extern") && strcmp(tok, ".shared") && strcmp(tok, ".global") && strcmp(tok, ".local") &&
                strcmp(tok, ".visible"))
                return fail(L, "'%s' in a declaration is not modelled", tok);
        } else {
            d->name = tok;
        }
    }
    /* up to 1024: wgmma's swizzled tiles repeat every 1024 bytes (SIM_SHARED_BASE is a multiple) */
    if (!d->name || !d->elem || !d->align || (d->align & (d->align - 1)) || d->align > 1024)
        return fail(L, "bad array declaration '%s' (a name, an integer or float type, .align up to 1024)", s);
    char *end;
    d->count = (uint32_t)strtoul(br + 1, &end, 10);
    d->sized = end != br + 1;
    if (*end != ']') return fail(L, "expected ']' in '%s'", s);
    const char *p = skip_ws(end + 1);
    if (*p == '=') {
        p = skip_ws(p + 1);
        if (*p != '{') return fail(L, "expected '{' after '=' in '%s'", s);
        d->init = p + 1;
    } else if (*p != ';') {
        return fail(L, "expected ';' after '%s'", s);
    }
    return true;
}

/* .shared .align A .bT NAME[N];  .extern .shared .align A .b8 NAME[]; */
static bool parse_shared(Loader *L, const char *s, bool is_extern) {
    ArrayDecl d;
    if (!parse_array(L, s, &d)) return false;
    if (d.init) return fail(L, "initialized shared memory is not modelled");
    uint32_t addr = (L->m->static_shared + d.align - 1) & ~(d.align - 1);
    Sym sym = {d.name, SIM_SHARED_BASE + addr, SM_SHARED};
    if (is_extern) {
        if (d.sized) return fail(L, "an .extern .shared array has no size");
        /* the dynamic part follows the static one */
        L->m->has_extern_shared = true;
        L->m->dynamic_at = addr;
    } else {
        if (L->m->has_extern_shared) return fail(L, "a .shared declaration after the .extern one is not modelled");
        L->m->static_shared = addr + d.count * d.elem;
    }
    VEC_PUSH(L->a, L->syms, L->n_syms, L->cap_syms, sym);
    return true;
}

/* .local .align A .bT NAME[N]; inside the entry: each thread's own */
static bool parse_local(Loader *L, const char *s) {
    ArrayDecl d;
    if (!parse_array(L, s, &d)) return false;
    if (d.init || !d.sized) return fail(L, "a .local array needs a size and no initializer");
    uint32_t addr = (L->m->local_bytes + d.align - 1) & ~(d.align - 1);
    L->m->local_bytes = addr + d.count * d.elem;
    Sym sym = {d.name, SIM_LOCAL_BASE + addr, SM_LOCAL};
    VEC_PUSH(L->a, L->syms, L->n_syms, L->cap_syms, sym);
    return true;
}

/* .global .align A .bT NAME[N] = {1, 2, 0x3}; at module scope: host
 * memory the loader fills (the rest zeros, as PTX says), whose host address
 * the symbol stands for */
static bool parse_global(Loader *L, const char *s) {
    ArrayDecl d;
    if (!parse_array(L, s, &d)) return false;
    if (d.init && sim_ty_kind(d.ty) == SK_FLOAT) return fail(L, "float initializers are not modelled");
    int64_t *vals = NULL;
    uint32_t n = 0, cap = 0;
    for (const char *p = d.init; p;) {
        size_t k = strcspn(p, ",}");
        if (!p[k]) return fail(L, "expected '}' closing the initializer of '%s'", d.name);
        char *text = trimmed(L->a, p, k);
        int64_t v;
        if (*text || p[k] == ',') {
            if (!parse_imm(text, &v)) return fail(L, "bad initializer '%s' of '%s'", text, d.name);
            VEC_PUSH(L->a, vals, n, cap, v);
        }
        if (p[k] == '}') {
            if (*skip_ws(p + k + 1) != ';') return fail(L, "expected ';' after the initializer of '%s'", d.name);
            break;
        }
        p += k + 1;
    }
    if (!d.sized && !d.init) return fail(L, "the .global array '%s' has neither a size nor an initializer", d.name);
    uint32_t count = d.sized ? d.count : n;
    if (n > count) return fail(L, "%u initializers for the %u elements of '%s'", n, count, d.name);
    SimGlobal g = {d.name, arena_alloc(L->a, (size_t)count * d.elem + 1), count * d.elem};
    for (uint32_t i = 0; i < n; i++) memcpy(g.data + (size_t)i * d.elem, &vals[i], d.elem);   /* little-endian */
    VEC_PUSH(L->a, L->m->globals, L->m->n_globals, L->m->cap_globals, g);
    Sym sym = {d.name, (int64_t)(uintptr_t)g.data, SM_GLOBAL};
    VEC_PUSH(L->a, L->syms, L->n_syms, L->cap_syms, sym);
    return true;
}

/* .extern .func (.param .b32 retval) vprintf (.param .b64 fmt, .param .b64 args);
 * only the driver's system calls, with their own signatures */
static int count_params(const char *from, const char *to) {
    int n = 0;
    for (const char *p = from; (p = strstr(p, ".param")) && p < to; p += 6) n++;
    return n;
}

static bool parse_func_decl(Loader *L, const char *s) {
    const char *p = skip_ws(strstr(s, ".func") + 5), *close;
    int n_ret = 0;
    if (*p == '(') {
        if (!(close = strchr(p, ')'))) return fail(L, "expected ')' in '%s'", s);
        n_ret = count_params(p, close);
        p = skip_ws(close + 1);
    }
    const char *n = p;
    while (isalnum((unsigned char)*p) || *p == '_' || *p == '$') p++;
    char *name = arena_strndup(L->a, n, (size_t)(p - n));
    p = skip_ws(p);
    if (*p != '(' || !(close = strchr(p, ')'))) return fail(L, "expected '(...)' after .func %s", name);
    int c = 0;
    while (c < SF_COUNT && strcmp(callees[c].name, name)) c++;
    if (c == SF_COUNT) return fail(L, "calls to '%s' are not modelled (only vprintf and __assertfail)", name);
    int n_params = count_params(p, close);
    if (n_ret != callees[c].n_ret || n_params != callees[c].n_params)
        return fail(L, "'%s' is declared with %d results and %d parameters, not %d and %d", name, n_ret, n_params,
                    callees[c].n_ret, callees[c].n_params);
    L->declared[c] = true;
    return true;
}

/* .param .b64 fmt_arg; inside the entry: a call's parameter variable */
static bool declare_call_param(Loader *L, const char *s) {
    const char *t = skip_ws(s + 6);
    const char *te = t + 1;
    while (isalnum((unsigned char)*te)) te++;
    SimTy ty = *t == '.' ? find_type(arena_strndup(L->a, t + 1, (size_t)(te - t - 1))) : ST_NONE;
    const char *n = skip_ws(te), *ne = n;
    while (isalnum((unsigned char)*ne) || *ne == '_' || *ne == '$') ne++;
    if (!ty || ty == ST_PRED || ne == n || *skip_ws(ne) != ';')
        return fail(L, "only scalar '.param .TYPE name;' call parameters are modelled");
    CallParam cp = {arena_strndup(L->a, n, (size_t)(ne - n)), L->m->n_regs, L->depth};
    VEC_PUSH(L->a, L->m->reg_bits, L->m->n_regs, L->m->cap_regs, (uint8_t)sim_ty_bits(ty));
    VEC_PUSH(L->a, L->cparams, L->n_cparams, L->cap_cparams, cp);
    return true;
}

/* .align A .b8 NAME[N] (after .param): an aggregate passed by value, as a
 * CUtensorMap is (128 bytes, 64-aligned). The launch slot holds the host
 * address of its N bytes (InterpLaunch); the kernel takes its address
 * with mov and cvta.param, never loads it with ld.param. */
static bool parse_aggregate_param(Loader *L, const char *t, SimParam *prm) {
    char *end;
    unsigned long align = strtoul(skip_ws(t + 6), &end, 10);
    const char *ty = skip_ws(end), *n = ty + 3, *ne;
    if (!align || (align & (align - 1)) || !starts(ty, ".b8"))
        return fail(L, "bad parameter '.param %s' (an aggregate is '.align A .b8 NAME[N]')", t);
    n = skip_ws(n);
    for (ne = n; isalnum((unsigned char)*ne) || *ne == '_' || *ne == '$'; ne++) {}
    unsigned long bytes = *ne == '[' ? strtoul(ne + 1, &end, 10) : 0;
    if (ne == n || !bytes || bytes > UINT32_MAX || *end != ']' || *skip_ws(end + 1))
        return fail(L, "bad parameter '.param %s' (an aggregate is '.align A .b8 NAME[N]')", t);
    *prm = (SimParam){arena_strndup(L->a, n, (size_t)(ne - n)), ST_B8, (uint32_t)bytes};
    return true;
}

/* .visible .entry NAME( .param .u64 a, .param .u32 b ) : params[] */
static bool parse_entry(Loader *L, const char *text, const char *want) {
    const char *s = strstr(text, ".entry") + 6;
    s = skip_ws(s);
    const char *n = s;
    while (isalnum((unsigned char)*s) || *s == '_' || *s == '$') s++;
    const char *name = arena_strndup(L->a, n, (size_t)(s - n));
    if (want && strcmp(want, name)) {
        L->skip = true;
        return true;
    }
    if (L->m->entry) return fail(L, "more than one .entry; name the one to run");
    L->m->entry = name;
    const char *open = strchr(s, '('), *close = open ? strchr(open, ')') : NULL;
    if (!close) return fail(L, "expected '(...)' after .entry %s", name);
    char *list = arena_strndup(L->a, open + 1, (size_t)(close - open - 1));
    for (char *p = list; p && *p;) {
        char *comma = strchr(p, ',');
        if (comma) *comma = 0;
        char *decl = trimmed(L->a, p, strlen(p));
        if (*decl) {
            if (strncmp(decl, ".param", 6)) return fail(L, "bad parameter '%s'", decl);
            const char *t = skip_ws(decl + 6);
            SimParam prm = {0};
            if (starts(t, ".align")) {
                if (!parse_aggregate_param(L, t, &prm)) return false;
            } else {
                const char *te = t + 1;
                while (isalnum((unsigned char)*te)) te++;
                prm = (SimParam){trimmed(L->a, te, strlen(te)),
                                 find_type(arena_strndup(L->a, t + 1, (size_t)(te - t - 1))), 0};
                if (*t != '.' || !prm.ty) return fail(L, "bad parameter '%s'", decl);
            }
            VEC_PUSH(L->a, L->m->params, L->m->n_params, L->m->cap_params, prm);
        }
        p = comma ? comma + 1 : NULL;
    }
    return true;
}

/* .version 8.3: what some operands mean depends on it */
static bool parse_version(Loader *L, const char *s) {
    char *end;
    long major = strtol(skip_ws(s + 8), &end, 10), minor = -1;
    if (*end == '.' && isdigit((unsigned char)end[1])) minor = strtol(end + 1, &end, 10);
    if (major < 1 || major > 99 || minor < 0 || minor > 9 || *skip_ws(end)) return fail(L, "bad .version directive");
    L->m->version = (int)(major * 10 + minor);
    return true;
}

static const char *const ignored_directives[] = {
    ".target", ".address_size", ".maxntid", ".reqntid", ".minnctapersm", ".maxnreg",
    ".pragma", ".section",
};

static bool parse_line(Loader *L, char *s, const char *entry, char **rest) {
    s = (char *)skip_ws(s);
    if (!*s) return true;
    if (!strncmp(s, ".file", 5)) return parse_file(L, s);
    if (starts(s, ".version")) return parse_version(L, s);
    for (size_t i = 0; i < ARRAY_LEN(ignored_directives); i++)
        if (starts(s, ignored_directives[i])) return true;
    if (starts(s, ".extern") && strstr(s, ".func")) return parse_func_decl(L, s);
    if (strstr(s, ".func") && L->in_entry != 1) return fail(L, "function definitions are not modelled: '%s'", s);
    if (starts(s, ".global")) return parse_global(L, s);
    if (starts(s, ".const")) return fail(L, "module-level data ('%s') is not modelled", s);
    if (starts(s, ".extern")) return parse_shared(L, s, true);
    if (starts(s, ".shared")) return parse_shared(L, s, false);
    if (strstr(s, ".entry") && L->in_entry != 1) {
        /* the parameter list may span lines: take text up to ')' */
        char *close = strchr(s, ')');
        if (!close) return fail(L, "expected ')' closing the parameters on a later line");
        (void)rest;
        return parse_entry(L, s, entry);
    }
    if (*s == '{') {
        if (L->depth++ == 0) L->in_entry = 1;
        return parse_line(L, s + 1, entry, rest);
    }
    if (*s == '}') {
        if (--L->depth == 0 && L->in_entry == 1) L->in_entry = L->skip ? 0 : 2, L->skip = false;
        while (L->n_cparams && L->cparams[L->n_cparams - 1].depth > L->depth) L->n_cparams--;   /* out of scope */
        /* registers of a nested { } (inline asm's) go out of scope; the
         * entry's own stay for a later entry's skip logic to see */
        while (L->depth >= 1 && L->n_fams && L->fams[L->n_fams - 1].depth > L->depth) L->n_fams--;
        return parse_line(L, s + 1, entry, rest);
    }
    if (L->in_entry == 1 && L->skip) return true;   /* the body of an entry we do not run */
    if (L->in_entry != 1) return fail(L, "unexpected '%s' outside an entry's body", s);
    char *semi = strchr(s, ';');
    if (semi && *skip_ws(semi + 1)) {   /* several statements on one line (inline asm writes them) */
        char *next = arena_strdup(L->a, semi + 1);
        semi[1] = 0;
        return parse_line(L, s, entry, rest) && parse_line(L, next, entry, rest);
    }
    if (starts(s, ".local")) return parse_local(L, s);
    if (starts(s, ".loc")) return parse_loc(L, s);
    if (starts(s, ".reg")) return declare_regs(L, s);
    if (starts(s, ".param")) return declare_call_param(L, s);
    size_t n = strcspn(s, " \t:;");
    if (s[n] == ':' && s[n + 1] != ':') {   /* a label; "shared::cta" is not one */
        Label l = {arena_strndup(L->a, s, n), L->m->n_ins};
        VEC_PUSH(L->a, L->labels, L->n_labels, L->cap_labels, l);
        return parse_line(L, s + n + 1, entry, rest);
    }
    return parse_instruction(L, s);
}

static bool resolve_labels(Loader *L) {
    for (uint32_t u = 0; u < L->n_uses; u++) {
        uint32_t i = 0;
        while (i < L->n_labels && strcmp(L->labels[i].name, L->uses[u].name)) i++;
        SimIns *in = &L->m->ins[L->uses[u].ins];
        if (i == L->n_labels) {
            L->line = in->ptx_line;
            return fail(L, "branch to unknown label '%s'", L->uses[u].name);
        }
        in->opd[0].imm = L->labels[i].ins;
    }
    return true;
}

bool sim_load(Arena *a, const char *ptx, const char *entry, SimModule *m, Buf *err) {
    memset(m, 0, sizeof *m);
    Loader L = {.a = a, .m = m, .err = err};
    const char *p = ptx;
    while (*p) {
        L.line++;
        size_t n = strcspn(p, "\n");
        char *line = arena_strndup(a, p, n);
        char *comment = strstr(line, "//");
        if (comment) *comment = 0;
        /* an .entry's parameter list: join the lines up to ')' */
        if (strstr(line, ".entry") && !strchr(line, ')')) {
            Buf joined = {.arena = a};
            buf_puts(&joined, line);
            const char *q = p + n;
            int extra = 0;
            while (*q && !strchr(buf_str(&joined), ')')) {
                q++;
                size_t k = strcspn(q, "\n");
                char *more = arena_strndup(a, q, k);
                if ((comment = strstr(more, "//"))) *comment = 0;
                buf_putc(&joined, ' ');
                buf_puts(&joined, more);
                q += k;
                extra++;
            }
            line = joined.data;
            n = (size_t)(q - p);
            if (!parse_line(&L, line, entry, NULL)) return false;
            L.line += extra;
        } else if (!parse_line(&L, line, entry, NULL)) {
            return false;
        }
        p += n;
        if (*p == '\n') p++;
    }
    if (!m->entry) {
        if (entry) buf_printf(err, "sim: no .entry named '%s' in the module\n", entry);
        else buf_puts(err, "sim: the module has no .entry\n");
        return false;
    }
    if (L.depth != 0) {
        buf_puts(err, "sim: unbalanced '{' in the module\n");
        return false;
    }
    if (!m->n_ins || m->ins[m->n_ins - 1].op != SO_RET || m->ins[m->n_ins - 1].guard != SIM_NOREG) {
        buf_puts(err, "sim: the entry does not end with 'ret;'\n");
        return false;
    }
    return resolve_labels(&L) && true;
}
