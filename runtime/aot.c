/* Ahead-of-time C (`tric --emit c`): kernels compiled now, written out as a
 * C header and source that launch them with nothing but the CUDA driver.
 *
 * Each kernel gets one entry point, a typed launcher
 *     tric_status add_kernel(CUstream, unsigned gx, unsigned gy, unsigned gz, CUdeviceptr x, ..., int32_t n);
 * over its specializations (one per signature given): the launcher tests
 * the arguments against each one's hints, most specific first (pointers
 * 16-byte aligned, integers divisible by 16, integers baked to a value such
 * as ":1"), and launches the first that holds; a signature without hints is
 * the fallback. Every specialization is compiled for every arch asked for;
 * the file carries each one's PTX and, where ptxas is found, its cubin. The
 * support code (aot_launch.c.in) picks the image for the device and loads
 * it once per context. */
#include "rt.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const char aot_support[] =
#include "aot_launch.inc"
    ;

/* One compiled (specialization, arch). */
typedef struct AotImage {
    const char *arch;
    Target target;
    RtResult res;
    Buf cubin;
    bool has_cubin;
} AotImage;

/* A parameter of the entry point: the union of the specializations'
 * launch parameters, in the kernel's order. */
typedef struct AotParam {
    const char *key;      /* the Python name; NAME.I for a tuple's leaf I */
    const char *c_name;
    const char *type;     /* signature spelling */
    RtParamKind kind;
    int bytes;
} AotParam;

typedef struct AotSpec {
    const char *signature;
    int num_warps;
    AotImage *images;     /* one per arch */
    const char *entry;    /* its .entry name */
    int *param_of;        /* per entry-point parameter: its index in the launch, -1 when baked */
    const char **conds;   /* C conditions this specialization needs */
    int n_conds;
} AotSpec;

typedef struct Aot {
    Arena *arena;
    const RtAotRequest *rq;
    Buf *diag;
    bool failed;
} Aot;

static void aot_error(Aot *A, const char *kernel, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void aot_error(Aot *A, const char *kernel, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    buf_printf(A->diag, "%s: error: %s: ", A->rq->base->path, kernel);
    buf_vprintf(A->diag, fmt, ap);
    buf_putc(A->diag, '\n');
    va_end(ap);
    A->failed = true;
}

/* ---- the C spelling of things ---- */

static bool is_c_keyword(const char *s) {
    static const char *const words[] = {
        "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
        "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed",
        "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "bool",
        "true", "false", "class", "delete", "new", "this", "template", "typename", "namespace", "operator",
        "private", "protected", "public", "virtual", "friend", "using", "params", "stream", "gx", "gy", "gz"};
    for (size_t i = 0; i < ARRAY_LEN(words); i++)
        if (strcmp(s, words[i]) == 0) return true;
    return false;
}

/* A C identifier for s: other characters become '_'; a keyword (or a
 * name the launcher uses itself) gets a trailing '_'. */
static const char *c_ident(Arena *a, const char *s) {
    char *t = arena_strdup(a, *s ? s : "_");
    for (char *c = t; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '_') *c = '_';
    if (isdigit((unsigned char)t[0])) return arena_printf(a, "_%s", t);
    if (is_c_keyword(t)) return arena_printf(a, "%s_", t);
    return t;
}

static const char *c_type(const char *sig_type) {
    static const struct { const char *sig, *c; } types[] = {
        {"i1", "bool"}, {"i8", "int8_t"}, {"i16", "int16_t"}, {"i32", "int32_t"}, {"i64", "int64_t"},
        {"u8", "uint8_t"}, {"u16", "uint16_t"}, {"u32", "uint32_t"}, {"u64", "uint64_t"},
        {"fp16", "uint16_t"}, {"bf16", "uint16_t"}, {"fp32", "float"}, {"fp64", "double"},
        {"fp8e4nv", "uint8_t"}, {"fp8e5", "uint8_t"}};
    if (sig_type[0] == '*') return "CUdeviceptr";
    for (size_t i = 0; i < ARRAY_LEN(types); i++)
        if (strcmp(sig_type, types[i].sig) == 0) return types[i].c;
    return "uint8_t";
}

/* A C string literal of text, one source line per line of it. */
static void put_c_string(Buf *out, const char *text) {
    buf_puts(out, "    \"");
    for (const char *p = text; *p; p++) {
        unsigned char ch = (unsigned char)*p;
        if (ch == '\n') {
            buf_puts(out, p[1] ? "\\n\"\n    \"" : "\\n");
        } else if (ch == '"' || ch == '\\') {
            buf_putc(out, '\\');
            buf_putc(out, (char)ch);
        } else if (ch == '\t') {
            buf_puts(out, "\\t");
        } else if (ch < 32 || ch >= 127) {
            buf_printf(out, "\\%03o", ch);
        } else {
            buf_putc(out, (char)ch);
        }
    }
    buf_putc(out, '"');
}

/* bytes as little-endian 64-bit words (zero-padded), the alignment an ELF
 * image needs without C11's _Alignas; CUDA hosts are little-endian */
static void put_c_words(Buf *out, const Buf *bytes) {
    for (size_t i = 0; i < bytes->len; i += 8) {
        uint64_t w = 0;
        for (size_t k = 0; k < 8 && i + k < bytes->len; k++) w |= (uint64_t)(unsigned char)bytes->data[i + k] << (8 * k);
        buf_printf(out, "%s0x%llxull,", i % 48 ? " " : "\n    ", (unsigned long long)w);
    }
}

/* ---- compiling ---- */

static const char *param_key(Aot *A, const RtParam *p) {
    if (p->part == TRIC_PARAM_TUPLE_ITEM) return arena_printf(A->arena, "%s.%d", p->name, p->part_index);
    return p->name;
}

static bool compile_image(Aot *A, const char *kernel, const AotSpec *s, const char *entry, AotImage *im,
                          const char *ptxas) {
    RtRequest rq = *A->rq->base;
    rq.kernel = kernel;
    rq.signature = s->signature;
    rq.emit = RT_EMIT_PTX;
    rq.entry_name = entry;
    rt_parse_arch(im->arch, &rq.target);
    if (s->num_warps) rq.target.num_warps = s->num_warps;
    im->target = rq.target;
    bool ok = rt_compile(&rq, &im->res);
    buf_puts(A->diag, im->res.diag);
    if (!ok) {
        A->failed = true;
        return false;
    }
    for (int i = 0; i < im->res.n_params; i++) {
        const RtParam *p = &im->res.params[i];
        if (p->kind == RT_PARAM_TENSORMAP || p->part == TRIC_PARAM_DESC_BASE || p->part == TRIC_PARAM_DESC_SHAPE ||
            p->part == TRIC_PARAM_DESC_STRIDE) {
            aot_error(A, kernel, "parameter '%s' is a tensor descriptor; C launchers take pointers and scalars "
                      "only (pass the tensor's pointer, shape and strides instead, or launch the kernel through "
                      "the C API, tric.h)", p->name);
            return false;
        }
        if (p->part == TRIC_PARAM_SCRATCH) {
            aot_error(A, kernel, "the kernel makes tensor descriptors (tl.make_tensor_descriptor) on %s, which "
                      "needs a global scratch buffer per launch; C launchers do not allocate one: launch it "
                      "through the C API, tric.h", im->arch);
            return false;
        }
    }
    if (!ptxas) return true;
    Buf err = {0};
    im->has_cubin = rt_ptxas(ptxas, im->res.text, im->arch, &im->cubin, &err);
    if (!im->has_cubin) aot_error(A, kernel, "%s", buf_str(&err));
    buf_free(&err);
    return im->has_cubin;
}

/* Entry-point parameters: each specialization's launch parameters merged
 * in order (each list follows the kernel's parameter order). */
static AotParam *merge_params(Aot *A, const char *kernel, AotSpec *specs, int n_specs, int *n_out) {
    AotParam *ps = NULL;
    uint32_t n = 0, cap = 0;
    for (int s = 0; s < n_specs; s++) {
        const RtResult *r = &specs[s].images[0].res;
        uint32_t at = 0;
        for (int i = 0; i < r->n_params; i++) {
            const RtParam *p = &r->params[i];
            const char *key = param_key(A, p);
            uint32_t k = 0;
            while (k < n && strcmp(ps[k].key, key)) k++;
            if (k < n) {
                if (strcmp(ps[k].type, p->type))
                    aot_error(A, kernel, "parameter '%s' is %s in one signature and %s in another; one entry "
                              "point takes one type", key, ps[k].type, p->type);
                at = k + 1;
                continue;
            }
            AotParam np = {key, NULL, arena_strdup(A->arena, p->type), p->kind, p->bytes};
            VEC_PUSH(A->arena, ps, n, cap, np);
            memmove(&ps[at + 1], &ps[at], sizeof *ps * (n - 1 - at));
            ps[at++] = np;
        }
    }
    for (uint32_t k = 0; k < n; k++) {
        const char *c = c_ident(A->arena, ps[k].key);
        for (uint32_t j = 0; j < k; j++)   /* x.0 and x_0 both become x_0 */
            if (strcmp(ps[j].c_name, c) == 0) c = arena_printf(A->arena, "%s_%u", c, (unsigned)k);
        ps[k].c_name = c;
    }
    *n_out = (int)n;
    return ps;
}

/* name is an entry-point parameter (some specialization passes it) */
static bool is_param(const AotParam *ps, int np, const char *name) {
    for (int k = 0; k < np; k++)
        if (strcmp(ps[k].key, name) == 0) return true;
    return false;
}

static const RtBaked *find_baked(const RtResult *r, const char *name) {
    for (int i = 0; i < r->n_baked; i++)
        if (strcmp(r->baked[i].name, name) == 0) return &r->baked[i];
    return NULL;
}

/* What each specialization asks of the arguments, and which of its
 * launch parameters each entry-point parameter is. */
static void spec_conditions(Aot *A, const char *kernel, AotSpec *s, const AotParam *ps, int np) {
    const RtResult *r = &s->images[0].res;
    s->param_of = arena_alloc(A->arena, sizeof(int) * (size_t)(np + 1));
    s->conds = arena_alloc(A->arena, sizeof(char *) * (size_t)(np + 1));
    for (int k = 0; k < np; k++) {
        s->param_of[k] = -1;
        for (int i = 0; i < r->n_params; i++)
            if (strcmp(param_key(A, &r->params[i]), ps[k].key) == 0) s->param_of[k] = i;
        int i = s->param_of[k];
        if (i >= 0) {
            if (r->params[i].divisibility == 16)
                s->conds[s->n_conds++] = ps[k].kind == RT_PARAM_POINTER
                                             ? arena_printf(A->arena, "(%s & 15) == 0", ps[k].c_name)
                                             : arena_printf(A->arena, "%s %% 16 == 0", ps[k].c_name);
            continue;
        }
        const RtBaked *b = find_baked(r, ps[k].key);
        if (!b || !b->is_int || ps[k].kind != RT_PARAM_INT) {
            aot_error(A, kernel, "parameter '%s' is passed in one signature but given %s in '%s'; an entry point "
                      "can choose by integer values only", ps[k].key, b ? "a non-integer value" : "no value",
                      s->signature);
            continue;
        }
        s->conds[s->n_conds++] = arena_printf(A->arena, "%s == %lld", ps[k].c_name, (long long)b->int_value);
    }
}

/* Values every specialization bakes in must agree: the entry point has no
 * argument to choose by. */
static void check_baked(Aot *A, const char *kernel, AotSpec *specs, int n_specs, const AotParam *ps, int np) {
    const RtResult *r0 = &specs[0].images[0].res;
    for (int s = 1; s < n_specs; s++) {
        const RtResult *r = &specs[s].images[0].res;
        for (int i = 0; i < r->n_baked; i++) {
            const RtBaked *b = &r->baked[i];
            const RtBaked *b0 = find_baked(r0, b->name);
            if (!is_param(ps, np, b->name) && b0 && strcmp(b0->text, b->text))
                aot_error(A, kernel, "the signatures give '%s' different values (%s, %s); one entry point "
                          "chooses among specializations of the same constexprs only: write them to separate "
                          "outputs", b->name, b0->text, b->text);
        }
    }
}

/* ---- writing ---- */

static void write_kernel(Aot *A, Buf *h, Buf *c, const char *kernel, AotSpec *specs, int n_specs) {
    const RtAotRequest *rq = A->rq;
    int np;
    AotParam *ps = merge_params(A, kernel, specs, n_specs, &np);
    for (int s = 0; s < n_specs; s++) spec_conditions(A, kernel, &specs[s], ps, np);
    check_baked(A, kernel, specs, n_specs, ps, np);
    if (A->failed) return;
    /* most specific first; a stable order otherwise (the signatures' own) */
    for (int i = 1; i < n_specs; i++)
        for (int j = i; j > 0 && specs[j].n_conds > specs[j - 1].n_conds; j--) {
            AotSpec t = specs[j];
            specs[j] = specs[j - 1];
            specs[j - 1] = t;
        }
    for (int i = 0; i < n_specs; i++)
        for (int j = 0; j < i; j++) {
            bool same = specs[i].n_conds == specs[j].n_conds;
            for (int k = 0; same && k < specs[i].n_conds; k++) same = !strcmp(specs[i].conds[k], specs[j].conds[k]);
            if (same)
                aot_error(A, kernel, "signatures '%s' and '%s' ask the same of the arguments; one of them would "
                          "never run", specs[j].signature, specs[i].signature);
        }
    if (A->failed) return;

    /* the header: the launcher's prototype, documented */
    const char *ck = c_ident(A->arena, kernel);
    buf_printf(h, "/* %s(", kernel);
    for (int k = 0; k < np; k++) buf_printf(h, "%s%s: %s", k ? ", " : "", ps[k].key, ps[k].type);
    const RtResult *r0 = &specs[0].images[0].res;
    bool first = np == 0;
    for (int i = 0; i < r0->n_baked; i++) {
        if (is_param(ps, np, r0->baked[i].name)) continue;
        buf_printf(h, "%s%s = %s", first ? "" : ", ", r0->baked[i].name, r0->baked[i].text);
        first = false;
    }
    buf_puts(h, ")\n * Launches gx * gy * gz programs on `stream` (NULL: the legacy default stream) in the\n"
                " * calling thread's current CUDA context; the module is loaded into each context at its\n"
                " * first launch there. Specializations, the first that the arguments satisfy runs:\n");
    for (int s = 0; s < n_specs; s++) {
        const AotSpec *sp = &specs[s];
        buf_printf(h, " *   %s (%s; %d warps) ", sp->entry, sp->signature, sp->images[0].target.num_warps);
        if (!sp->n_conds) buf_puts(h, "always");
        for (int k = 0; k < sp->n_conds; k++) buf_printf(h, "%s%s", k ? " && " : "when ", sp->conds[k]);
        buf_puts(h, "\n *     images:");
        for (int a = 0; a < rq->n_archs; a++)
            buf_printf(h, " %s%s (%d B shared)", sp->images[a].arch, sp->images[a].has_cubin ? " cubin+PTX" : " PTX",
                       sp->images[a].res.shared_bytes);
        buf_puts(h, "\n");
    }
    buf_printf(h, " * An error returns its status; %s_last_error() says what went wrong. */\n", ck);
    Buf proto = {.arena = A->arena};
    buf_printf(&proto, "tric_status %s(CUstream stream, unsigned gx, unsigned gy, unsigned gz", ck);
    for (int k = 0; k < np; k++) buf_printf(&proto, ", %s %s", c_type(ps[k].type), ps[k].c_name);
    buf_puts(&proto, ")");
    buf_printf(h, "%s;\n", buf_str(&proto));
    buf_printf(h, "/* The message of this thread's last failed launch of any kernel of this file (\"\" after a\n"
                  " * successful one). */\nconst char *%s_last_error(void);\n\n", ck);

    /* the source: images, specializations, the launcher */
    for (int s = 0; s < n_specs; s++) {
        const AotSpec *sp = &specs[s];
        for (int a = 0; a < rq->n_archs; a++) {
            const AotImage *im = &sp->images[a];
            const char *arch = c_ident(A->arena, im->arch);
            buf_printf(c, "static const char %s_%s_ptx[] =\n", sp->entry, arch);
            put_c_string(c, im->res.text);
            buf_puts(c, ";\n");
            if (im->has_cubin) {
                buf_printf(c, "static const unsigned long long %s_%s_cubin[] = {", sp->entry, arch);
                put_c_words(c, &im->cubin);
                buf_puts(c, "\n};\n");
            }
        }
        buf_printf(c, "static const tric_aot_image %s_images[] = {\n", sp->entry);
        /* highest arch first: sm_90a, sm_90, sm_89, ... */
        int *order = arena_alloc(A->arena, sizeof(int) * (size_t)rq->n_archs);
        for (int a = 0; a < rq->n_archs; a++) order[a] = a;
        for (int i = 1; i < rq->n_archs; i++)
            for (int j = i; j > 0; j--) {
                const Target *x = &sp->images[order[j]].target, *y = &sp->images[order[j - 1]].target;
                if (x->sm * 2 + x->arch_a <= y->sm * 2 + y->arch_a) break;
                int t = order[j];
                order[j] = order[j - 1];
                order[j - 1] = t;
            }
        for (int i = 0; i < rq->n_archs; i++) {
            const AotImage *im = &sp->images[order[i]];
            const char *arch = c_ident(A->arena, im->arch);
            buf_printf(c, "    {%d, %d, %d, ", im->target.sm, im->target.arch_a, im->res.shared_bytes);
            if (im->has_cubin) buf_printf(c, "%s_%s_cubin, ", sp->entry, arch);
            else buf_puts(c, "NULL, ");
            buf_printf(c, "%s_%s_ptx},\n", sp->entry, arch);
        }
        buf_printf(c, "};\nstatic tric_aot_spec %s_spec = {\"%s\", \"%s\", %d, %s_images, %d, "
                      "PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0};\n\n",
                   sp->entry, kernel, sp->entry, 32 * sp->images[0].target.num_warps, sp->entry, rq->n_archs);
    }
    buf_printf(c, "const char *%s_last_error(void) { return tric_aot_error; }\n\n", ck);
    buf_printf(c, "%s {\n    if (!gx || !gy || !gz) return TRIC_OK;   /* an empty grid runs nothing */\n",
               buf_str(&proto));
    bool general = false;
    for (int s = 0; s < n_specs; s++) {
        const AotSpec *sp = &specs[s];
        const RtResult *r = &sp->images[0].res;
        if (sp->n_conds) {
            buf_puts(c, "    if (");
            for (int k = 0; k < sp->n_conds; k++) buf_printf(c, "%s%s", k ? " && " : "", sp->conds[k]);
            buf_puts(c, ") {\n");
        } else {
            buf_puts(c, "    {\n");
            general = true;
        }
        if (r->n_params) {
            buf_puts(c, "        void *params[] = {");
            for (int i = 0; i < r->n_params; i++)
                for (int k = 0; k < np; k++)
                    if (sp->param_of[k] == i) buf_printf(c, "%s&%s", i ? ", " : "", ps[k].c_name);
            buf_puts(c, "};\n");
        } else {
            buf_puts(c, "        void **params = NULL;\n");
        }
        buf_printf(c, "        return tric_aot_launch(&%s_spec, stream, gx, gy, gz, params);\n    }\n", sp->entry);
        if (!sp->n_conds) break;
    }
    if (!general)
        buf_printf(c, "    return tric_aot_fail(TRIC_ERR_ARG, \"%s: no specialization takes these arguments "
                      "(see %s.h for what each one needs)\");\n", kernel, rq->name);
    buf_puts(c, "}\n\n");
}

/* ---- the request ---- */

static void put_guard(Buf *b, const char *name) {
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    buf_puts(b, "TRIC_AOT_");
    for (const char *p = base; *p; p++) buf_putc(b, isalnum((unsigned char)*p) ? (char)toupper((unsigned char)*p) : '_');
    buf_puts(b, "_H");
}

static const char header_prelude[] =
    "#include <stdbool.h>\n#include <stdint.h>\n\n"
    "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
    "/* the two CUDA driver types the launchers take, as cuda.h declares them */\n"
    "#if !defined(CUDA_VERSION) && !defined(TRIC_CUDA_TYPES)\n#define TRIC_CUDA_TYPES\n"
    "typedef struct CUstream_st *CUstream;\ntypedef unsigned long long CUdeviceptr;\n#endif\n\n"
    "/* the status codes of tric.h */\n"
    "#ifndef TRIC_STATUS_DEFINED\n#define TRIC_STATUS_DEFINED\n"
    "typedef enum tric_status {\n"
    "    TRIC_OK = 0,\n"
    "    TRIC_ERR_COMPILE = 1,\n"
    "    TRIC_ERR_ARG = 2,         /* no specialization takes the arguments */\n"
    "    TRIC_ERR_NO_DRIVER = 3,   /* libcuda.so.1 missing, or no CUDA device */\n"
    "    TRIC_ERR_CUDA = 4,        /* a driver call failed, or no image runs on the device */\n"
    "    TRIC_ERR_INTERPRET = 5,\n"
    "    TRIC_ERR_RESOURCES = 6,\n"
    "    TRIC_ERR_INTERNAL = 7\n"
    "} tric_status;\n#endif\n\n";

bool rt_emit_c(const RtAotRequest *rq, RtAotResult *out) {
    memset(out, 0, sizeof *out);
    Buf diag = {0}, h = {0}, c = {0};
    Aot A = {arena_new(), rq, &diag, false};
    char *ptxas = rq->use_ptxas ? rt_find_ptxas() : NULL;
    const char *env = getenv("TRIC_PTXAS");
    if (rq->use_ptxas && !ptxas && !(env && strcmp(env, "none") == 0))
        buf_printf(&diag, "%s: note: no ptxas (set TRIC_PTXAS, or put the CUDA toolkit's bin on PATH): the C "
                          "carries PTX only, which the driver assembles at the first launch\n", rq->base->path);
    const char *base = strrchr(rq->name, '/');
    base = base ? base + 1 : rq->name;
    Buf guard = {0};
    put_guard(&guard, rq->name);
    buf_printf(&h, "/* Generated by tric %s from %s: C launchers for its kernels. Do not edit; rebuild it.\n"
                   " * Link %s.c with -ldl -lpthread; it needs the CUDA driver (libcuda.so.1) at run time\n"
                   " * only. Include cuda.h before this header to use its types. */\n#ifndef %s\n#define %s\n\n%s",
               TRIC_VERSION, rq->base->path, base, guard.data, guard.data, header_prelude);
    buf_printf(&c, "/* Generated by tric %s from %s. Do not edit; rebuild it. */\n#include \"%s.h\"\n\n%s\n",
               TRIC_VERSION, rq->base->path, base, aot_support);
    buf_free(&guard);
    /* kernels in order of first appearance, each with its specializations */
    for (int i = 0; i < rq->n_specs && !A.failed; i++) {
        const char *kernel = rq->specs[i].kernel;
        bool seen = false;
        for (int j = 0; j < i; j++) seen |= strcmp(rq->specs[j].kernel, kernel) == 0;
        if (seen) continue;
        int n = 0;
        AotSpec *specs = arena_alloc(A.arena, sizeof *specs * (size_t)rq->n_specs);
        for (int j = i; j < rq->n_specs; j++) {
            if (strcmp(rq->specs[j].kernel, kernel)) continue;
            AotSpec *s = &specs[n++];
            s->signature = rq->specs[j].signature;
            s->num_warps = rq->specs[j].num_warps;
            s->images = arena_alloc(A.arena, sizeof *s->images * (size_t)rq->n_archs);
        }
        for (int s = 0; s < n && !A.failed; s++) {
            specs[s].entry = n == 1 ? kernel : arena_printf(A.arena, "%s_%d", kernel, s);
            for (int a = 0; a < rq->n_archs && !A.failed; a++) {
                specs[s].images[a].arch = rq->archs[a];
                compile_image(&A, kernel, &specs[s], specs[s].entry, &specs[s].images[a], ptxas);
            }
        }
        if (!A.failed) write_kernel(&A, &h, &c, kernel, specs, n);
        for (int s = 0; s < n; s++)
            for (int a = 0; a < rq->n_archs; a++) {
                rt_result_free(&specs[s].images[a].res);
                buf_free(&specs[s].images[a].cubin);
            }
    }
    buf_puts(&h, "#ifdef __cplusplus\n}\n#endif\n#endif\n");
    free(ptxas);
    arena_free_all(A.arena);
    out->ok = !A.failed;
    out->diag = buf_take(&diag);
    if (out->ok) {
        out->header = buf_take(&h);
        out->source = buf_take(&c);
    } else {
        buf_free(&h);
        buf_free(&c);
    }
    return out->ok;
}

void rt_aot_result_free(RtAotResult *r) {
    free(r->header);
    free(r->source);
    free(r->diag);
    memset(r, 0, sizeof *r);
}

/* ---- specs from a kernel file's test blocks ---- */

static char *line_value(const char *line, const char *key) {
    size_t n = strlen(key);
    if (strncmp(line, key, n)) return NULL;
    const char *v = line + n;
    while (*v == ' ' || *v == '\t') v++;
    size_t len = strcspn(v, "\n");
    while (len && (v[len - 1] == ' ' || v[len - 1] == '\t' || v[len - 1] == '\r')) len--;
    return strndup(v, len);
}

bool rt_aot_specs_from_blocks(const char *text, RtAotSpec **specs, int *n_specs) {
    RtAotSpec *out = NULL;
    int n = 0, block_first = 0;
    char *kernel = NULL;
    int num_warps = 0;
    for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        char *v;
        if ((v = line_value(line, "# kernel:"))) {
            free(kernel);
            kernel = v;
            num_warps = 0;
            block_first = n;
        } else if ((v = line_value(line, "# num_warps:"))) {
            num_warps = atoi(v);   /* the whole block's, wherever the line is */
            free(v);
            for (int i = block_first; i < n; i++) out[i].num_warps = num_warps;
        } else if ((v = line_value(line, "# signature:"))) {
            if (!kernel) {
                free(v);
                continue;
            }
            RtAotSpec *grown = realloc(out, sizeof *out * (size_t)(n + 1));
            if (!grown) tric_internal_error(__FILE__, __LINE__, "out of memory");
            out = grown;
            out[n++] = (RtAotSpec){strdup(kernel), v, num_warps};
        }
    }
    free(kernel);
    *specs = out;
    *n_specs = n;
    return n > 0;
}

void rt_aot_specs_free(RtAotSpec *specs, int n) {
    for (int i = 0; i < n; i++) {
        free((void *)specs[i].kernel);
        free((void *)specs[i].signature);
    }
    free(specs);
}
