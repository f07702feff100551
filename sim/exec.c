/* Runs a grid: CTAs one after another (x fastest); within a CTA every thread
 * executes each instruction before any thread executes the next (lock
 * step), so bar.sync needs nothing and a branch must be taken by all threads
 * or none (ptxgen branches only on scalars). Registers are 64-bit slots,
 * [register][thread]; a write keeps the register's declared width. */
#include "simops.h"

#include <stdio.h>
#include <string.h>

typedef struct Cta {
    const SimLaunch *l;
    const SimModule *m;
    Buf *err;
    uint64_t *regs;           /* n_regs * threads */
    uint32_t threads;
    uint8_t *shared;
    uint32_t shared_bytes;    /* from SIM_SHARED_BASE */
    uint32_t ctaid[3];
} Cta;

static uint64_t *slot(Cta *c, uint32_t reg, uint32_t t) { return &c->regs[(size_t)reg * c->threads + t]; }

static void put_where(Cta *c, uint32_t t) {
    buf_printf(c->err, " (thread %u of CTA (%u, %u, %u))\n", t, c->ctaid[0], c->ctaid[1], c->ctaid[2]);
}

static bool error_at(Cta *c, const SimIns *in, uint32_t t, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static bool error_at(Cta *c, const SimIns *in, uint32_t t, const char *fmt, ...) {
    sim_put_prefix(c->err, c->m, in);
    buf_printf(c->err, "%s at PTX line %d ", in->name, in->ptx_line);
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(c->err, fmt, ap);
    va_end(ap);
    put_where(c, t);
    return false;
}

static uint64_t special(Cta *c, SimSpecial s, uint32_t t) {
    const uint32_t *grid = c->l->data->grid;
    switch (s) {
    case SS_TID_X: return t;
    case SS_NTID_X: return c->threads;
    case SS_TID_Y: case SS_TID_Z: return 0;
    case SS_NTID_Y: case SS_NTID_Z: return 1;
    case SS_CTAID_X: case SS_CTAID_Y: case SS_CTAID_Z: return c->ctaid[s - SS_CTAID_X];
    case SS_NCTAID_X: case SS_NCTAID_Y: case SS_NCTAID_Z: {
        uint32_t g = grid[s - SS_NCTAID_X];
        return g ? g : 1;
    }
    case SS_LANEID: return t % 32;
    case SS_WARPID: return t / 32;
    }
    return 0;
}

static uint64_t read_opd(Cta *c, const SimOpd *o, uint32_t t) {
    switch (o->kind) {
    case SD_REG: return *slot(c, o->reg[0], t);
    case SD_SPECIAL: return special(c, (SimSpecial)o->imm, t);
    default: return (uint64_t)o->imm;
    }
}

static void write_reg(Cta *c, uint32_t reg, uint32_t t, uint64_t v) {
    int bits = c->m->reg_bits[reg];
    *slot(c, reg, t) = bits == 1 ? v != 0 : sim_trunc(v, bits);
}

/* ---- memory ---- */

/* The buffer nearest to [addr, addr + n): its index, and whether the
 * access lies inside it. */
static int nearest_buffer(const InterpLaunch *d, uint64_t addr, uint64_t n, bool *inside) {
    int best = -1;
    uint64_t best_dist = UINT64_MAX;
    *inside = false;
    for (uint32_t i = 0; i < d->n_buffers; i++) {
        uint64_t lo = (uint64_t)(uintptr_t)d->buffers[i].base, hi = lo + d->buffers[i].bytes;
        if (addr >= lo && addr + n <= hi && addr + n >= addr) {
            *inside = true;
            return (int)i;
        }
        uint64_t dist = addr < lo ? lo - addr : addr >= hi ? addr - hi + 1 : 0;
        if (dist < best_dist) best_dist = dist, best = (int)i;
    }
    return best;
}

/* Where an access goes on the host, or NULL after an error. */
static uint8_t *global_at(Cta *c, const SimIns *in, uint32_t t, uint64_t addr, uint32_t n) {
    const char *verb = in->op == SO_LD ? "reads" : "writes";
    bool inside;
    int b = nearest_buffer(c->l->data, addr, n, &inside);
    if (b < 0) {
        error_at(c, in, t, "%s %u bytes with no buffer to touch", verb, n);
        return NULL;
    }
    const InterpBuffer *buf = &c->l->data->buffers[b];
    int64_t off = (int64_t)(addr - (uint64_t)(uintptr_t)buf->base);
    if (!inside) {
        error_at(c, in, t, "%s %u bytes at offset %+lld of buffer '%s' (%zu bytes), outside every buffer", verb, n,
                 (long long)off, buf->name, buf->bytes);
        return NULL;
    }
    if (addr % n) {
        error_at(c, in, t, "%s %u bytes at offset %+lld of buffer '%s', not %u-byte aligned", verb, n,
                 (long long)off, buf->name, n);
        return NULL;
    }
    return (uint8_t *)(uintptr_t)addr;
}

static uint8_t *shared_at(Cta *c, const SimIns *in, uint32_t t, uint64_t addr, uint32_t n) {
    const char *verb = in->op == SO_LD ? "reads" : "writes";
    uint64_t a32 = (uint32_t)addr;
    if (a32 < SIM_SHARED_BASE || a32 - SIM_SHARED_BASE + n > c->shared_bytes) {
        error_at(c, in, t, "%s %u bytes at shared offset %lld, outside the %u bytes of shared memory", verb, n,
                 (long long)a32 - SIM_SHARED_BASE, c->shared_bytes);
        return NULL;
    }
    if (a32 % n) {
        error_at(c, in, t, "%s %u bytes at shared offset %lld, not %u-byte aligned", verb, n,
                 (long long)a32 - SIM_SHARED_BASE, n);
        return NULL;
    }
    return c->shared + (a32 - SIM_SHARED_BASE);
}

static bool exec_ldst(Cta *c, const SimIns *in, uint32_t t) {
    bool ld = in->op == SO_LD;
    const SimOpd *addr = &in->opd[ld ? 1 : 0], *val = &in->opd[ld ? 0 : 1];
    uint32_t eb = (uint32_t)(sim_ty_bits(in->ty[0]) + 7) / 8, n = eb * in->vec;
    const uint32_t *regs = val->kind == SD_VEC ? val->reg : &val->reg[0];
    if (addr->kind == SD_PARAM) {
        if (!ld) return error_at(c, in, t, "writes a parameter");
        if ((uint32_t)addr->imm >= c->l->data->n_args)
            return error_at(c, in, t, "reads parameter %lld of %u given", (long long)addr->imm, c->l->data->n_args);
        write_reg(c, regs[0], t, sim_extend(in->ty[0], c->l->data->args[addr->imm]));
        return true;
    }
    uint64_t a = (uint64_t)addr->imm + (addr->reg[0] == SIM_NOREG ? 0 : *slot(c, addr->reg[0], t));
    uint8_t *p = (in->mods & SM_GLOBAL) ? global_at(c, in, t, a, n) : shared_at(c, in, t, a, n);
    if (!p) return false;
    for (uint32_t j = 0; j < in->vec; j++) {
        uint64_t v = 0;
        if (ld) {
            memcpy(&v, p + j * eb, eb);   /* little-endian, as the GPU */
            write_reg(c, regs[j], t, sim_extend(in->ty[0], v));
        } else {
            v = val->kind == SD_IMM ? (uint64_t)val->imm : *slot(c, regs[j], t);
            memcpy(p + j * eb, &v, eb);
        }
    }
    return true;
}

/* mov: a value, or a vector packed into / unpacked from one register
 * (first element = lowest bits) */
static void exec_mov(Cta *c, const SimIns *in, uint32_t t) {
    const SimOpd *d = &in->opd[0], *s = &in->opd[1];
    int bits = sim_ty_bits(in->ty[0]);
    if (d->kind == SD_VEC) {
        int part = bits / d->n;
        uint64_t v = read_opd(c, s, t);
        for (int j = 0; j < d->n; j++) write_reg(c, d->reg[j], t, sim_trunc(v >> (part * j), part));
    } else if (s->kind == SD_VEC) {
        int part = bits / s->n;
        uint64_t v = 0;
        for (int j = 0; j < s->n; j++) v |= sim_trunc(*slot(c, s->reg[j], t), part) << (part * j);
        write_reg(c, d->reg[0], t, v);
    } else {
        write_reg(c, d->reg[0], t, sim_trunc(read_opd(c, s, t), bits == 1 ? 64 : bits));
    }
}

/* One instruction on one thread (its guard already true). */
static bool exec_one(Cta *c, const SimIns *in, uint32_t t) {
    switch (in->op) {
    case SO_LD: case SO_ST: return exec_ldst(c, in, t);
    case SO_MOV: exec_mov(c, in, t); return true;
    case SO_CVTA: write_reg(c, in->opd[0].reg[0], t, read_opd(c, &in->opd[1], t)); return true;
    default: break;
    }
    uint64_t v[4] = {0};
    for (int i = 1; i < in->n_opd; i++) v[i] = read_opd(c, &in->opd[i], t);
    uint64_t r = 0;
    SimStatus st = sim_alu(in, v, &r);
    if (st == SIM_DIV_ZERO) return error_at(c, in, t, "divides by zero");
    if (st != SIM_OK) return error_at(c, in, t, "is not modelled");
    write_reg(c, in->opd[0].reg[0], t, r);
    return true;
}

static bool guard_of(Cta *c, const SimIns *in, uint32_t t) {
    if (in->guard == SIM_NOREG) return true;
    return (*slot(c, in->guard, t) != 0) != in->guard_neg;
}

/* A branch or ret: every thread must agree; *taken says what they do. */
static bool uniform_guard(Cta *c, const SimIns *in, bool *taken) {
    *taken = guard_of(c, in, 0);
    for (uint32_t t = 1; t < c->threads; t++)
        if (guard_of(c, in, t) != *taken) {
            sim_put_prefix(c->err, c->m, in);
            buf_printf(c->err, "%s at PTX line %d is divergent: thread 0 %s, thread %u %s", in->name,
                       in->ptx_line, *taken ? "takes it" : "does not", t, *taken ? "does not" : "takes it");
            put_where(c, t);
            return false;
        }
    return true;
}

static bool run_cta(Cta *c) {
    const SimModule *m = c->m;
    uint64_t max_steps = c->l->max_steps ? c->l->max_steps : UINT64_C(1) << 28;
    memset(c->regs, 0xAB, sizeof(uint64_t) * m->n_regs * c->threads);   /* undefined, as on the GPU */
    memset(c->shared, 0xAB, c->shared_bytes);
    uint64_t steps = 0;
    for (uint32_t pc = 0;;) {
        const SimIns *in = &m->ins[pc];
        if (++steps > max_steps) {
            sim_put_prefix(c->err, m, in);
            buf_printf(c->err, "%s at PTX line %d: more than %llu instructions in one CTA, a runaway loop?",
                       in->name, in->ptx_line, (unsigned long long)max_steps);
            put_where(c, 0);
            return false;
        }
        bool taken;
        switch (in->op) {
        case SO_BRA:
            if (!uniform_guard(c, in, &taken)) return false;
            pc = taken ? (uint32_t)in->opd[0].imm : pc + 1;
            continue;
        case SO_RET:
            if (!uniform_guard(c, in, &taken)) return false;
            if (taken) return true;
            pc++;
            continue;
        case SO_BAR:   /* lock step: every thread is here already */
            if (!uniform_guard(c, in, &taken)) return false;
            pc++;
            continue;
        default: break;
        }
        for (uint32_t t = 0; t < c->threads; t++)
            if (guard_of(c, in, t) && !exec_one(c, in, t)) return false;
        pc++;
    }
}

bool sim_run(const SimLaunch *l, Buf *err) {
    Arena *a = arena_new();
    SimModule m;
    bool ok = sim_load(a, l->ptx, l->entry, &m, err);
    if (ok && m.n_params != l->data->n_args) {
        buf_printf(err, "sim: .entry %s takes %u parameters, the launch gives %u\n", m.entry, m.n_params,
                   l->data->n_args);
        ok = false;
    }
    if (ok && (l->threads == 0 || l->threads > 1024)) {
        buf_printf(err, "sim: %u threads per CTA (1 to 1024)\n", l->threads);
        ok = false;
    }
    if (ok) {
        Cta c = {.l = l, .m = &m, .err = err, .threads = l->threads};
        c.shared_bytes = m.has_extern_shared ? m.dynamic_at + l->shared_bytes : m.static_shared;
        c.regs = arena_alloc(a, sizeof(uint64_t) * ((size_t)m.n_regs * l->threads + 1));
        c.shared = arena_alloc(a, c.shared_bytes + 1);
        uint32_t g[3];
        for (int i = 0; i < 3; i++) g[i] = l->data->grid[i] ? l->data->grid[i] : 1;
        for (uint32_t z = 0; ok && z < g[2]; z++)
            for (uint32_t y = 0; ok && y < g[1]; y++)
                for (uint32_t x = 0; ok && x < g[0]; x++) {
                    c.ctaid[0] = x, c.ctaid[1] = y, c.ctaid[2] = z;
                    ok = run_cta(&c);
                }
    }
    arena_free_all(a);
    return ok;
}
