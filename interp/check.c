/* References for the kernels' test blocks: interp_check compares the
 * outputs of an interpreted run with the block's `# check:` expressions,
 * evaluated by args.c's language over the inputs as the kernel saw them,
 * the way test/gpu/run_kernels.py's compare() does on the GPU:
 *
 *   integers  exact, after wrapping the reference to the output's type
 *             (a float reference is truncated to int64 first)
 *   floats    no NaN where the reference has none, the same infinity
 *             where the reference has one, and a relative L2 error
 *             ||out - ref|| / ||ref|| over the finite reference elements
 *             within the output's tolerance
 *
 * The reference is computed in double (floats) and exact int64 (integers)
 * and broadcast to the output's shape. */
#include "scalar.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* "(5,)" or "(1, 2)": the index of flat element k, as numpy prints it */
static const char *index_str(Arena *a, const InterpArray *shape, int64_t k) {
    int64_t ix[INTERP_MAX_DIMS];
    for (int d = shape->ndim - 1; d >= 0; d--) {
        ix[d] = shape->shape[d] ? k % shape->shape[d] : 0;
        k = shape->shape[d] ? k / shape->shape[d] : 0;
    }
    Buf b = {.arena = a};
    buf_putc(&b, '(');
    for (int d = 0; d < shape->ndim; d++) buf_printf(&b, d ? ", %lld" : "%lld", (long long)ix[d]);
    buf_puts(&b, shape->ndim == 1 ? ",)" : ")");
    return buf_str(&b);
}

static const char *shape_str(Arena *a, const InterpArray *v) {
    Buf b = {.arena = a};
    buf_putc(&b, '(');
    for (int d = 0; d < v->ndim; d++) buf_printf(&b, d ? ", %lld" : "%lld", (long long)v->shape[d]);
    buf_puts(&b, v->ndim == 1 ? ",)" : ")");
    return buf_str(&b);
}

/* The text up to the first top-level sep (outside brackets). */
static size_t span_to(const char *p, char sep) {
    int depth = 0;
    size_t n = 0;
    for (; p[n] && !(p[n] == sep && depth == 0); n++) {
        if (strchr("([{", p[n])) depth++;
        else if (strchr(")]}", p[n]) && depth > 0) depth--;
    }
    return n;
}

static const char *trim(Arena *a, const char *p, size_t n) {
    while (n && isspace((unsigned char)*p)) p++, n--;
    while (n && isspace((unsigned char)p[n - 1])) n--;
    return arena_strndup(a, p, n);
}

/* ---- tolerances ---- */

static double default_tol(ElemType e) {
    switch (e) {
    case ET_F16: return 1e-2;
    case ET_BF16: return 2e-2;
    case ET_F32: return 1e-5;
    case ET_F64: return 1e-12;
    default: return 0;
    }
}

/* The tolerance of output `name`: tol_text is one number for every output
 * or "name: number; ..."; outputs it does not name get their type's default. */
static bool tol_for(Arena *a, const char *tol_text, const char *name, ElemType e, double *tol, Buf *err) {
    *tol = default_tol(e);
    if (!tol_text || !*trim(a, tol_text, strlen(tol_text))) return true;
    for (const char *p = tol_text; *p;) {
        size_t n = span_to(p, ';');
        const char *part = trim(a, p, n), *colon = strchr(part, ':'), *num = colon ? colon + 1 : part;
        char *end;
        double v = strtod(num, &end);
        if (end == num || *trim(a, end, strlen(end))) {
            buf_printf(err, "tric: error: tol: '%s' is not a number or 'name: number'\n", part);
            return false;
        }
        if (!colon || !strcmp(trim(a, part, (size_t)(colon - part)), name)) *tol = v;
        p += n;
        if (*p == ';') p++;
    }
    return true;
}

/* ---- comparing ---- */

static const InterpBuffer *find_buffer(const InterpSetup *s, const char *name) {
    for (uint32_t i = 0; i < s->n_buffers; i++)
        if (!strcmp(s->buffers[i].name, name)) return &s->buffers[i];
    return NULL;
}

/* For each output element, the reference element numpy's broadcast_to
 * gives it; false when the shapes do not broadcast that way. */
static bool broadcast_map(Arena *a, const InterpArray *ref, const InterpArray *out, int64_t **map) {
    int off = out->ndim - ref->ndim;
    if (off < 0) return false;
    int64_t stride[INTERP_MAX_DIMS] = {0}, st = 1;
    for (int d = ref->ndim - 1; d >= 0; d--) {
        if (ref->shape[d] != 1 && ref->shape[d] != out->shape[off + d]) return false;
        stride[off + d] = ref->shape[d] == 1 ? 0 : st;
        st *= ref->shape[d];
    }
    *map = arena_alloc(a, sizeof(int64_t) * (size_t)(out->n ? out->n : 1));
    for (int64_t k = 0; k < out->n; k++) {
        int64_t at = 0, rem = k;
        for (int d = out->ndim - 1; d >= 0; d--) {
            at += (rem % out->shape[d]) * stride[d];
            rem /= out->shape[d];
        }
        (*map)[k] = at;
    }
    return true;
}

/* numpy's float -> int64 on x86: NaN and out-of-range values give INT64_MIN */
static int64_t f_to_i64(double x) {
    if (isnan(x) || x >= 0x1p63 || x < -0x1p63) return INT64_MIN;
    return (int64_t)x;
}

static int64_t wrap_to(ElemType e, int64_t v) {
    if (e == ET_I1) return v != 0;
    return (int64_t)interp_int_norm(e, (uint64_t)v);
}

static bool compare_ints(Arena *a, const char *name, const int64_t *got, const InterpArray *out,
                         const InterpArray *ref, const int64_t *map, ElemType e, Buf *err) {
    int64_t bad = 0, first = -1, want_first = 0;
    for (int64_t k = 0; k < out->n; k++) {
        int64_t r = ref->is_float ? f_to_i64(ref->f[map[k]]) : ref->i[map[k]];
        int64_t want = wrap_to(e, r);
        if (got[k] == want) continue;
        if (bad++ == 0) first = k, want_first = want;
    }
    if (!bad) return true;
    buf_printf(err, "%s: %lld of %lld differ; first at %s: got %lld, expected %lld\n", name, (long long)bad,
               (long long)out->n, index_str(a, out, first), (long long)got[first], (long long)want_first);
    return false;
}

/* ||v|| of the n values fn gives, scaled so that huge values do not overflow */
static double l2(const double *v, int64_t n) {
    double scale = 0, s = 0;
    for (int64_t k = 0; k < n; k++)
        if (fabs(v[k]) > scale) scale = fabs(v[k]);
    if (scale == 0 || isinf(scale)) return scale;
    for (int64_t k = 0; k < n; k++) s += (v[k] / scale) * (v[k] / scale);
    return scale * sqrt(s);
}

static bool compare_floats(Arena *a, const char *name, const double *got, const InterpArray *out,
                           const InterpArray *ref, const int64_t *map, ElemType e, double tol, Buf *err) {
    const char *gfmt = e == ET_F64 ? "%.17g" : "%.9g";
    int64_t stray = 0, first_nan = -1, inf_bad = 0, first_inf = -1, m = 0, worst = -1;
    double *diff = arena_alloc(a, sizeof(double) * (size_t)(out->n + 1));
    double *refv = arena_alloc(a, sizeof(double) * (size_t)(out->n + 1));
    double worst_d = -1;
    for (int64_t k = 0; k < out->n; k++) {
        double r = ref->is_float ? ref->f[map[k]] : (double)ref->i[map[k]], g = got[k];
        if (isnan(r)) continue;
        if (isnan(g)) {
            if (stray++ == 0) first_nan = k;
            continue;
        }
        if (isinf(r)) {
            if (g != r && inf_bad++ == 0) first_inf = k;
            continue;
        }
        diff[m] = g - r;
        refv[m++] = r;
        if (fabs(g - r) > worst_d) worst_d = fabs(g - r), worst = k;
    }
    if (stray) {
        buf_printf(err, "%s: %lld NaN in the output (first at %s: not written?)\n", name, (long long)stray,
                   index_str(a, out, first_nan));
        return false;
    }
    if (inf_bad) {
        buf_printf(err, "%s: %lld differ where the reference is infinite; first at %s: got ", name,
                   (long long)inf_bad, index_str(a, out, first_inf));
        buf_printf(err, gfmt, got[first_inf]);
        buf_printf(err, ", expected %g\n", ref->is_float ? ref->f[map[first_inf]] : 0.0);
        return false;
    }
    double dn = l2(diff, m), rn = l2(refv, m), rel = rn > 0 ? dn / rn : dn;
    if (!(rel > tol)) return true;
    double r = ref->is_float ? ref->f[map[worst]] : (double)ref->i[map[worst]];
    buf_printf(err, "%s: relative error %.3g > %g; worst at %s: got ", name, rel, tol, index_str(a, out, worst));
    buf_printf(err, gfmt, got[worst]);
    buf_printf(err, ", expected %.17g\n", r);
    return false;
}

/* The output buffer's elements: doubles for floats, int64 for integers
 * (u64 wraps, as numpy's astype(int64) does). */
static void *read_output(Arena *a, const InterpBuffer *b, int64_t n) {
    size_t eb = (size_t)elem_bytes(b->elem);
    double *f = elem_is_float(b->elem) ? arena_alloc(a, sizeof(double) * (size_t)(n + 1)) : NULL;
    int64_t *i = f ? NULL : arena_alloc(a, sizeof(int64_t) * (size_t)(n + 1));
    for (int64_t k = 0; k < n; k++) {
        uint64_t raw = 0;
        memcpy(&raw, (const uint8_t *)b->base + (size_t)k * eb, eb);
        if (f) f[k] = interp_slot_to_double(b->elem, raw);
        else i[k] = b->elem == ET_I1 ? (raw & 0xFF) != 0 : (int64_t)interp_int_norm(b->elem, raw);
    }
    return f ? (void *)f : (void *)i;
}

/* One "name == expr": false with a message when the output differs. */
static bool check_one(Arena *a, const InterpSetup *s, const char *text, const char *tol_text, Buf *err) {
    size_t nlen = 0;
    while (isalnum((unsigned char)text[nlen]) || text[nlen] == '_') nlen++;
    const char *name = arena_strndup(a, text, nlen), *eq = text + nlen;
    while (isspace((unsigned char)*eq)) eq++;
    if (!nlen || strncmp(eq, "==", 2) != 0 || !*trim(a, eq + 2, strlen(eq + 2))) {
        buf_printf(err, "tric: error: check: '%s' is not 'name == expression'\n", text);
        return false;
    }
    const InterpBuffer *b = find_buffer(s, name);
    if (!b) {
        buf_printf(err, "tric: error: check: '%s' names '%s', which is not a pointer argument\n", text, name);
        return false;
    }
    InterpArray out, ref;
    double tol;
    if (!interp_eval(a, s, name, &out, err) || !interp_eval(a, s, eq + 2, &ref, err) ||
        !tol_for(a, tol_text, name, b->elem, &tol, err))
        return false;
    if ((size_t)out.n * (size_t)elem_bytes(b->elem) != b->bytes) {
        buf_printf(err, "tric: error: check: buffer '%s' holds %zu bytes, not the %lld elements of its shape\n", name,
                   b->bytes, (long long)out.n);
        return false;
    }
    int64_t *map;
    if (!broadcast_map(a, &ref, &out, &map)) {
        buf_printf(err, "%s: reference shape %s != output shape %s\n", name, shape_str(a, &ref), shape_str(a, &out));
        return false;
    }
    void *got = read_output(a, b, out.n);
    if (!elem_is_float(b->elem)) return compare_ints(a, name, got, &out, &ref, map, b->elem, err);
    return compare_floats(a, name, got, &out, &ref, map, b->elem, tol, err);
}

bool interp_check(Arena *a, const InterpSetup *s, const char *check_text, const char *tol_text, Buf *err) {
    bool ok = true;
    int n = 0;
    for (const char *p = check_text ? check_text : ""; *p;) {
        size_t len = span_to(p, ';');
        const char *part = trim(a, p, len);
        if (*part) {
            ok &= check_one(a, s, part, tol_text, err);
            n++;
        }
        p += len;
        if (*p == ';') p++;
    }
    if (n == 0) {
        buf_puts(err, "tric: error: check: no 'name == expression' to check\n");
        return false;
    }
    return ok;
}
