/* The user's own modules: `import pkg.helpers as h`, `from pkg import
 * helpers`, `from . import helpers`. A dotted name is looked for the way
 * Python looks: in the kernel file's directory, then in ctx->search_path,
 * as DIR/pkg/helpers.py or the package directory DIR/pkg/helpers/ (its
 * __init__.py, if any, is the module); for a kernel from a units text
 * (units.c), only among its units. A module is parsed with the kernel
 * parser (only its @jit functions, imports and globals matter) once per
 * compilation, and each keeps its own cache of evaluated globals. */
#include "lower.h"

#include <string.h>
#include <sys/stat.h>

static LModule *module_add(Lower *L, const char *name, AstModule *m, bool is_pkg) {
    LModule *lm = arena_alloc(L->ctx->arena, sizeof *lm);
    lm->name = name;
    lm->mod = m;
    lm->is_pkg = is_pkg;
    int n = m ? m->n_globals : 0;
    lm->globals = arena_alloc(L->ctx->arena, sizeof(LVal) * (size_t)(n + 1));
    lm->global_state = arena_alloc(L->ctx->arena, (size_t)n + 1);
    VEC_PUSH(L->ctx->arena, L->mods, L->n_mods, L->cap_mods, lm);
    return lm;
}

LModule *module_root(Lower *L, AstModule *m) {
    LModule *root = module_add(L, "", m, false);
    for (int i = 1; i < m->n_units; i++) module_add(L, m->units[i]->unit_name, m->units[i], false);
    return root;
}

/* A units text's kernel: every name was resolved by the running program. */
static bool from_units(Lower *L) { return L->mods[0]->mod->is_unit; }

LModule *module_of(Lower *L, AstModule *m) {
    for (int i = 0; i < L->n_mods; i++)
        if (L->mods[i]->mod == m) return L->mods[i];
    tric_unreachable();
}

LModule *module_enter(Lower *L, LModule *m) {
    LModule *prev = L->cur;
    L->cur = m;
    L->mod = m->mod;
    L->globals = m->globals;
    L->global_state = m->global_state;
    return prev;
}

/* The directory part of path ("." when it has none). */
static const char *dir_of(Lower *L, const char *path) {
    const char *slash = strrchr(path, '/');
    if (!slash) return ".";
    if (slash == path) return "/";
    return arena_strndup(L->ctx->arena, path, (size_t)(slash - path));
}

static bool is_file(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static bool is_dir(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The directories searched, in order (the kernel file's first). */
static const char *search_dir(Lower *L, int i) {
    if (i == 0) return dir_of(L, L->mods[0]->mod->file->path);
    return L->ctx->search_path[i - 1];
}

static int n_search_dirs(Lower *L) { return 1 + L->ctx->n_search_path; }

/* A module's file, recorded in the context: the disk cache key covers
 * the text of every module the kernel imports. */
static SrcFile *module_read(Lower *L, const char *path) {
    SrcFile *f = srcfile_read(L->ctx, path);
    Ctx *c = L->ctx;
    VEC_PUSH(c->arena, c->imported, c->n_imported, c->cap_imported, f);
    return f;
}

LModule *module_find(Lower *L, const char *dotted) {
    for (int i = 1; i < L->n_mods; i++)
        if (!strcmp(L->mods[i]->name, dotted)) return L->mods[i];
    if (from_units(L)) return NULL;
    char *rel = arena_strdup(L->ctx->arena, dotted);
    for (char *p = rel; *p; p++)
        if (*p == '.') *p = '/';
    for (int i = 0; i < n_search_dirs(L); i++) {
        const char *dir = search_dir(L, i);
        const char *base = strcmp(dir, ".") ? arena_printf(L->ctx->arena, "%s/%s", dir, rel) : rel;
        const char *file = arena_printf(L->ctx->arena, "%s.py", base);
        const char *init = arena_printf(L->ctx->arena, "%s/__init__.py", base);
        if (is_file(file)) return module_add(L, dotted, parse_module(L->ctx, module_read(L, file)), false);
        if (is_dir(base))
            return module_add(L, dotted, is_file(init) ? parse_module(L->ctx, module_read(L, init)) : NULL, true);
    }
    return NULL;
}

_Noreturn void module_not_found(Lower *L, SrcLoc use, const char *dotted) {
    if (from_units(L)) diag_error(L->ctx, use, "no module named '%s'", dotted);
    Buf dirs = {.arena = L->ctx->arena};
    for (int i = 0; i < n_search_dirs(L); i++) buf_printf(&dirs, "%s%s", i ? ", " : "", search_dir(L, i));
    diag_error(L->ctx, use, "no module named '%s' (searched %s; add directories with -I or TRIC_PATH)", dotted,
               buf_str(&dirs));
}

const char *module_relative(Lower *L, SrcLoc use, const LModule *m, int level, const char *rel) {
    /* the package m is in: m itself for a package, else its parent */
    const char *pkg = m->name;
    int ups = m->is_pkg ? level - 1 : level;
    for (int i = 0; i < ups; i++) {
        if (!*pkg) {
            if (m == L->mods[0] && ups == 1) break;   /* the kernel file's directory is the top */
            diag_error(L->ctx, use, "attempted relative import beyond top-level package");
        }
        const char *dot = strrchr(pkg, '.');
        pkg = dot ? arena_strndup(L->ctx->arena, pkg, (size_t)(dot - pkg)) : "";
    }
    if (!*rel) return pkg;
    return *pkg ? arena_printf(L->ctx->arena, "%s.%s", pkg, rel) : rel;
}
