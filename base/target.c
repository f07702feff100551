/* The targets, as data: one row per arch tric compiles for, with what the
 * stages may use on it. Every stage asks target_info instead of comparing
 * sm numbers, so the arch list and each capability's archs are written
 * here once. */
#include "base.h"

#include <string.h>

static const TargetInfo targets[] = {
    /* name      sm   a      ptx  bf16_cvt bf16_arith fp8   fp8_ptx hopper wgmma */
    {"sm_80",    80, false,  70,  false,   false,     false, 0,      false, false},
    {"sm_86",    86, false,  71,  true,    false,     false, 0,      false, false},
    {"sm_89",    89, false,  78,  true,    false,     true,  81,     false, false},
    {"sm_90",    90, false,  78,  true,    true,      true,  78,     true,  false},
    {"sm_90a",   90, true,   80,  true,    true,      true,  78,     true,  true},
};

/* what an arch tric does not know has: nothing */
static const TargetInfo unknown = {NULL, 0, false, 0, false, false, false, 0, false, false};

const TargetInfo *target_info(const Target *t) {
    for (size_t i = 0; i < ARRAY_LEN(targets); i++)
        if (targets[i].sm == t->sm && targets[i].arch_a == t->arch_a) return &targets[i];
    return &unknown;
}

const TargetInfo *target_find(const char *name) {
    for (size_t i = 0; i < ARRAY_LEN(targets); i++)
        if (!strcmp(targets[i].name, name)) return &targets[i];
    return NULL;
}

void target_names(Buf *out, const char *last_sep) {
    size_t n = ARRAY_LEN(targets);
    for (size_t i = 0; i < n; i++)
        buf_printf(out, "%s%s", i == 0 ? "" : i + 1 < n ? ", " : last_sep, targets[i].name);
}
