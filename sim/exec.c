/* Runs a grid: CTAs one after another (x fastest); within a CTA every thread
 * executes each instruction before any thread executes the next (lock
 * step), so bar.sync needs nothing and a branch must be taken by all threads
 * or none (ptxgen branches only on scalars). Registers are 64-bit slots,
 * [register][thread]; a write keeps the register's declared width.
 *
 * Address spaces: a global address is a host address (the launch's buffers,
 * the module's .global arrays); shared addresses count from
 * SIM_SHARED_BASE, local ones from SIM_LOCAL_BASE in each thread's own
 * frame. A generic address (cvta) is the host address of the byte, so
 * vprintf and __assertfail can read what any space holds; an aggregate
 * parameter's address (mov) is the host address its launch slot holds. */
#include "simops.h"

#include <stdio.h>
#include <string.h>

/* A cp.async in flight: what it copies when a wait_group retires it. */
typedef struct CpCopy {
    uint64_t src;            /* host address */
    uint32_t dst;            /* offset in shared memory */
    uint32_t size, src_size; /* cp-size; the bytes read from src (the rest are zeros) */
    uint32_t group;          /* the issuing thread's commit count then: its group */
    uint32_t next;           /* the thread's next copy, or the next free entry; CP_NONE */
    uint32_t thread;
    const SimIns *in;
} CpCopy;

#define CP_NONE UINT32_MAX

typedef struct Cta {
    const SimLaunch *l;
    const SimModule *m;
    Buf *err;
    uint64_t *regs;           /* n_regs * threads */
    uint32_t threads;
    uint8_t *shared;
    uint32_t shared_bytes;    /* from SIM_SHARED_BASE */
    uint8_t *local;           /* threads * m->local_bytes: thread t's frame at t * local_bytes */
    uint32_t ctaid[3];
    uint64_t operands[4], result;   /* exec_one's scratch */
    uint64_t *xfer;           /* shfl: each thread's value, read before any is written */
    uint8_t *xpred;           /* shfl: each thread's source lane was in range */
    /* cp.async, only when the module has one (cp_owner != NULL): each
     * thread's copies in issue order (cp_head/cp_tail index cp_pool), its
     * commit_group count, and per shared byte the pending copy that will
     * write it (pool index + 1; 0: none) */
    Arena *a;
    CpCopy *cp_pool;
    uint32_t n_cp, cap_cp, cp_free;
    uint32_t *cp_head, *cp_tail, *cp_commits, *cp_owner;
    /* mbarriers, only when the module has an mbarrier or a TMA copy
     * (mbar_at != NULL): per 8-byte granule of shared memory the live
     * mbarrier there (index in mbars + 1; 0: none). mbar_ended: the
     * thread + 1 whose mbarrier.inval ended the one there, until the next
     * bar.sync: threads run in lock step here but warps do not on a GPU,
     * so another thread touching those bytes before the block meets may
     * run before the inval (n_ended: granules so marked) */
    SimMbar *mbars;
    uint32_t n_mbars, cap_mbars, n_ended;
    uint64_t steps;           /* instructions run so far (%globaltimer reads them) */
    uint32_t *mbar_at, *mbar_ended;
} Cta;

static inline uint64_t *slot(Cta *c, uint32_t reg, uint32_t t) { return &c->regs[(size_t)reg * c->threads + t]; }

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
    case SS_SMID: return 0;                        /* one SM here */
    case SS_GLOBALTIMER: return 1000 * c->steps;   /* ns: the CTA's instructions so far, a microsecond each */
    }
    return 0;
}

static inline uint64_t read_opd(Cta *c, const SimOpd *o, uint32_t t) {
    switch (o->kind) {
    case SD_REG: return *slot(c, o->reg[0], t);
    case SD_SPECIAL: return special(c, (SimSpecial)o->imm, t);
    case SD_PARAM: return c->l->data->args[o->imm];   /* mov of an aggregate parameter: its address */
    default: return (uint64_t)o->imm;
    }
}

static inline void write_reg(Cta *c, uint32_t reg, uint32_t t, uint64_t v) {
    int bits = c->m->reg_bits[reg];
    *slot(c, reg, t) = bits == 1 ? v != 0 : sim_trunc(v, bits);
}

static inline bool guard_of(Cta *c, const SimIns *in, uint32_t t) {
    if (in->guard == SIM_NOREG) return true;
    return (*slot(c, in->guard, t) != 0) != in->guard_neg;
}

/* the address an SD_MEM operand names for thread t */
static inline uint64_t addr_of(Cta *c, const SimOpd *a, uint32_t t) {
    return (uint64_t)a->imm + (a->reg[0] == SIM_NOREG ? 0 : *slot(c, a->reg[0], t));
}

/* ---- memory ---- */

/* What in does to memory of a space, for messages: a copy reads one space
 * and writes the other; a fence only names its bytes. */
static const char *access_verb(const SimIns *in, uint32_t space) {
    switch (in->op) {
    case SO_LD: return "reads";
    case SO_FENCE: return "fences";
    case SO_CP: return space == SM_SHARED ? "writes" : "reads";
    case SO_TENSORMAP: return in->tmap == STM_CP_FENCEPROXY && space == SM_SHARED ? "reads" : "writes";
    default: return "writes";
    }
}

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

/* Where an access of n bytes aligned to `align` goes on the host, or NULL
 * after an error. */
__attribute__((noinline)) static uint8_t *global_span(Cta *c, const SimIns *in, uint32_t t, uint64_t addr, uint32_t n,
                                                      uint32_t align) {
    const char *verb = access_verb(in, SM_GLOBAL);
    for (uint32_t i = 0; i < c->m->n_globals; i++) {
        const SimGlobal *g = &c->m->globals[i];
        uint64_t lo = (uint64_t)(uintptr_t)g->data;
        if (addr < lo || addr >= lo + g->bytes) continue;
        if (addr - lo + n > g->bytes) {
            error_at(c, in, t, "%s %u bytes at offset %+lld of global '%s' (%u bytes), past its end", verb, n,
                     (long long)(addr - lo), g->name, g->bytes);
            return NULL;
        }
        if (addr % align) {
            error_at(c, in, t, "%s %u bytes at offset %+lld of global '%s', not %u-byte aligned", verb, n,
                     (long long)(addr - lo), g->name, align);
            return NULL;
        }
        return (uint8_t *)(uintptr_t)addr;
    }
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
    if (addr % align) {
        error_at(c, in, t, "%s %u bytes at offset %+lld of buffer '%s', not %u-byte aligned", verb, n,
                 (long long)off, buf->name, align);
        return NULL;
    }
    return (uint8_t *)(uintptr_t)addr;
}

static uint8_t *global_at(Cta *c, const SimIns *in, uint32_t t, uint64_t addr, uint32_t n) {
    return global_span(c, in, t, addr, n, n);
}

/* An access to shared bytes that a cp.async still pending will write: its
 * data may land before or after, so reading (or writing) them is a race
 * until the issuing thread's wait_group retires the copy (and, for other
 * threads, a bar.sync follows). */
__attribute__((noinline)) static bool cp_pending_error(Cta *c, const SimIns *in, uint32_t t, uint32_t off, uint32_t n) {
    for (uint32_t i = 0; i < n; i++)
        if (c->cp_owner[off + i]) {
            const CpCopy *cp = &c->cp_pool[c->cp_owner[off + i] - 1];
            return error_at(c, in, t,
                            "%s %u bytes at shared offset %u, which the cp.async at PTX line %d of thread %u still "
                            "writes (no cp.async.wait_group has completed it)",
                            access_verb(in, SM_SHARED), n, off, cp->in->ptx_line,
                            cp->thread);
        }
    return true;
}

/* An access to the 8 bytes of a live mbarrier: PTX leaves it undefined
 * until mbarrier.inval ends the barrier (its state is opaque). */
__attribute__((noinline)) static bool mbar_clear(Cta *c, const SimIns *in, uint32_t t, uint32_t off, uint32_t n) {
    for (uint32_t g = off / 8; g <= (off + n - 1) / 8; g++) {
        if (c->mbar_ended[g] && c->mbar_ended[g] - 1 != t)
            return error_at(c, in, t,
                            "%s %u bytes at shared offset %u, where thread %u ended an mbarrier (mbarrier.inval) "
                            "with no bar.sync since: on a GPU this access may come before the inval",
                            access_verb(in, SM_SHARED), n, off, c->mbar_ended[g] - 1);
        if (c->mbar_at[g])
            return error_at(c, in, t,
                            "%s %u bytes at shared offset %u, which hold the mbarrier at shared offset %u "
                            "(initialized at PTX line %d, not invalidated)",
                            access_verb(in, SM_SHARED), n, off, 8 * g, c->mbars[c->mbar_at[g] - 1].init_line);
    }
    return true;
}

/* bar.sync: the block has met, so every inval is behind every thread */
static void mbar_meet(Cta *c) {
    if (!c->n_ended) return;
    memset(c->mbar_ended, 0, sizeof(uint32_t) * (c->shared_bytes / 8 + 1));
    c->n_ended = 0;
}

/* Where an access of n bytes aligned to `align` goes in shared memory, or
 * NULL after an error. */
static uint8_t *shared_span(Cta *c, const SimIns *in, uint32_t t, uint64_t addr, uint32_t n, uint32_t align) {
    const char *verb = access_verb(in, SM_SHARED);
    uint64_t a32 = (uint32_t)addr;
    if (a32 < SIM_SHARED_BASE || a32 - SIM_SHARED_BASE + n > c->shared_bytes) {
        error_at(c, in, t, "%s %u bytes at shared offset %lld, outside the %u bytes of shared memory", verb, n,
                 (long long)a32 - SIM_SHARED_BASE, c->shared_bytes);
        return NULL;
    }
    if (a32 % align) {
        error_at(c, in, t, "%s %u bytes at shared offset %lld, not %u-byte aligned", verb, n,
                 (long long)a32 - SIM_SHARED_BASE, align);
        return NULL;
    }
    uint32_t off = (uint32_t)(a32 - SIM_SHARED_BASE);
    if (c->cp_owner && !cp_pending_error(c, in, t, off, n)) return NULL;
    if (c->mbar_at && !mbar_clear(c, in, t, off, n)) return NULL;
    return c->shared + off;
}

static uint8_t *shared_at(Cta *c, const SimIns *in, uint32_t t, uint64_t addr, uint32_t n) {
    return shared_span(c, in, t, addr, n, n);
}

/* thread t's own frame of .local memory */
static uint8_t *local_at(Cta *c, const SimIns *in, uint32_t t, uint64_t addr, uint32_t n) {
    const char *verb = in->op == SO_LD ? "reads" : "writes";
    uint32_t lb = c->m->local_bytes;
    if (addr < SIM_LOCAL_BASE || addr - SIM_LOCAL_BASE + n > lb) {
        error_at(c, in, t, "%s %u bytes at local offset %lld, outside the %u bytes of local memory", verb, n,
                 (long long)(addr - SIM_LOCAL_BASE), lb);
        return NULL;
    }
    if (addr % n) {
        error_at(c, in, t, "%s %u bytes at local offset %lld, not %u-byte aligned", verb, n,
                 (long long)(addr - SIM_LOCAL_BASE), n);
        return NULL;
    }
    return c->local + (size_t)t * lb + (addr - SIM_LOCAL_BASE);
}

static bool exec_ldst(Cta *c, const SimIns *in, uint32_t t) {
    bool ld = in->op == SO_LD;
    const SimOpd *addr = &in->opd[ld ? 1 : 0], *val = &in->opd[ld ? 0 : 1];
    uint32_t eb = (uint32_t)(sim_ty_bits(in->ty[0]) + 7) / 8, n = eb * in->vec;
    const uint32_t *regs = val->kind == SD_VEC ? val->reg : &val->reg[0];
    if (addr->kind == SD_PARAM && addr->reg[0] != SIM_NOREG) {   /* a call's .param variable */
        uint64_t *var = slot(c, addr->reg[0], t);
        if (ld) write_reg(c, regs[0], t, sim_extend(in->ty[0], *var));
        else write_reg(c, addr->reg[0], t, sim_trunc(val->kind == SD_IMM ? (uint64_t)val->imm : *slot(c, regs[0], t),
                                                     sim_ty_bits(in->ty[0])));
        return true;
    }
    if (addr->kind == SD_PARAM) {
        if (!ld) return error_at(c, in, t, "writes a parameter");
        if ((uint32_t)addr->imm >= c->l->data->n_args)
            return error_at(c, in, t, "reads parameter %lld of %u given", (long long)addr->imm, c->l->data->n_args);
        write_reg(c, regs[0], t, sim_extend(in->ty[0], c->l->data->args[addr->imm]));
        return true;
    }
    uint64_t a = (uint64_t)addr->imm + (addr->reg[0] == SIM_NOREG ? 0 : *slot(c, addr->reg[0], t));
    uint8_t *p = (in->mods & SM_GLOBAL)   ? global_at(c, in, t, a, n)
                 : (in->mods & SM_LOCAL) ? local_at(c, in, t, a, n)
                                         : shared_at(c, in, t, a, n);
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

/* atom/red on global or shared memory: this thread's read-modify-write,
 * whole before the next thread's (threads run an instruction in
 * ascending order); atom returns the old value. */
static bool exec_atom(Cta *c, const SimIns *in, uint32_t t) {
    bool red = in->op == SO_RED;
    const SimOpd *addr = &in->opd[red ? 0 : 1];
    uint32_t eb = (uint32_t)sim_ty_bits(in->ty[0]) / 8;
    uint64_t a = (uint64_t)addr->imm + (addr->reg[0] == SIM_NOREG ? 0 : *slot(c, addr->reg[0], t));
    uint8_t *p = in->mods & SM_SHARED ? shared_at(c, in, t, a, eb) : global_at(c, in, t, a, eb);
    if (!p) return false;
    uint64_t old = 0, now;
    memcpy(&old, p, eb);   /* little-endian, as the GPU */
    uint64_t b = read_opd(c, &in->opd[red ? 1 : 2], t), v = in->atom == SA_CAS ? read_opd(c, &in->opd[3], t) : 0;
    if (sim_atom(in, old, b, v, &now) != SIM_OK) return error_at(c, in, t, "is not modelled");
    memcpy(p, &now, eb);
    if (!red) write_reg(c, in->opd[0].reg[0], t, sim_extend(in->ty[0], old));
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

/* cvta: a shared or local address to the generic one (the byte's host
 * address), or back with .to; global addresses are host addresses already,
 * and so are the parameter addresses mov takes (cvta.param keeps them). */
static void exec_cvta(Cta *c, const SimIns *in, uint32_t t) {
    uint64_t a = read_opd(c, &in->opd[1], t), host, base;
    if (in->mods & SM_SHARED) host = (uint64_t)(uintptr_t)c->shared, base = SIM_SHARED_BASE;
    else if (in->mods & SM_LOCAL) host = (uint64_t)(uintptr_t)(c->local + (size_t)t * c->m->local_bytes), base = SIM_LOCAL_BASE;
    else host = base = 0;
    write_reg(c, in->opd[0].reg[0], t, (in->mods & SM_TO) ? a - host + base : a - base + host);
}

/* ---- warp shuffles ---- */

/* Is every active lane's member mask the same? (the usual case) */
static bool same_masks(const uint32_t *masks, uint32_t active) {
    uint32_t first = masks[__builtin_ctz(active)];
    for (uint32_t l = 0; l < 32; l++)
        if ((active >> l & 1) && masks[l] != first) return false;
    return true;
}

/* What PTX leaves undefined for the warp's lanes `active` executing a shfl
 * with their member masks: a lane outside its own mask, a lane of a mask
 * that does not execute the shfl (its guard is false, or the CTA has no
 * such thread: the lanes named wait for it forever) or executes it with
 * another mask. Lanes executing it with disjoint masks are fine. */
static bool check_members(Cta *c, const SimIns *in, uint32_t w0, uint32_t active, const uint32_t *masks) {
    bool uniform = same_masks(masks, active);
    for (uint32_t l = 0; l < 32; l++) {
        if (!(active >> l & 1)) continue;
        uint32_t m = masks[l], t = w0 + l, missing = m & ~active;
        if (!(m >> l & 1))
            return error_at(c, in, t, "runs in lane %u, outside its member mask 0x%08x (undefined)", l, m);
        if (missing) {
            uint32_t k = (uint32_t)__builtin_ctz(missing);
            return error_at(c, in, t, "has member mask 0x%08x, but lane %u %s", m, k,
                            w0 + k >= c->threads ? "does not exist (the CTA has fewer threads)"
                                                 : "does not execute it (its guard is false)");
        }
        for (uint32_t k = 0; !uniform && k < 32; k++)
            if ((m >> k & 1) && masks[k] != m)
                return error_at(c, in, t, "has member mask 0x%08x, lane %u executes it with 0x%08x", m, k, masks[k]);
    }
    return true;
}

/* The lanes of the warp from w0 that execute in (a bit each), and each
 * one's member mask, operand mask */
static uint32_t warp_masks(Cta *c, const SimIns *in, uint32_t w0, const SimOpd *mask, uint32_t masks[32]) {
    uint32_t active = 0, n = c->threads - w0 < 32 ? c->threads - w0 : 32;
    memset(masks, 0, sizeof(uint32_t) * 32);
    for (uint32_t l = 0; l < n; l++)
        if (guard_of(c, in, w0 + l)) {
            active |= 1u << l;
            masks[l] = (uint32_t)read_opd(c, mask, w0 + l);
        }
    return active;
}

/* bar.warp.sync membermask: in lock step every lane is here already, so
 * only what PTX leaves undefined remains (check_members) */
static bool bar_warp(Cta *c, const SimIns *in, uint32_t w0) {
    uint32_t masks[32], active = warp_masks(c, in, w0, &in->opd[0], masks);
    return !active || check_members(c, in, w0, active, masks);
}

/* shfl.sync.MODE.b32 d[|p], a, b, c, membermask over one warp (threads w0
 * .. w0 + 31), as PTX defines it: with lane = t % 32, bval = b & 31,
 * clamp = c & 31, segmask = (c >> 8) & 31,
 *   maxLane = (lane & segmask) | (clamp & ~segmask), minLane = lane & segmask
 *   bfly: j = lane ^ bval                     in range: j <= maxLane
 *   down: j = lane + bval                     in range: j <= maxLane
 *   up:   j = lane - bval                     in range: j >= maxLane
 *   idx:  j = minLane | (bval & ~segmask)     in range: j <= maxLane
 * d = lane j's a, or the lane's own a when j is out of range; p = in range.
 * Reading a lane outside the member mask is undefined: an error. */
static bool shfl_warp(Cta *c, const SimIns *in, uint32_t w0) {
    uint32_t masks[32], n = c->threads - w0 < 32 ? c->threads - w0 : 32, active = warp_masks(c, in, w0, &in->opd[4], masks);
    if (!active) return true;
    if (!check_members(c, in, w0, active, masks)) return false;
    uint32_t mode = in->mods & SM_SHFL_MODES;
    for (uint32_t l = 0; l < n; l++) {
        if (!(active >> l & 1)) continue;
        uint32_t t = w0 + l, cc = (uint32_t)read_opd(c, &in->opd[3], t);
        int32_t b = (int32_t)(read_opd(c, &in->opd[2], t) & 31), lane = (int32_t)l;
        int32_t seg = (int32_t)(cc >> 8 & 31), max_lane = (lane & seg) | ((int32_t)(cc & 31) & ~seg), j;
        bool in_range;
        switch (mode) {
        case SM_BFLY: j = lane ^ b, in_range = j <= max_lane; break;
        case SM_DOWN: j = lane + b, in_range = j <= max_lane; break;
        case SM_UP: j = lane - b, in_range = j >= max_lane; break;
        default: j = (lane & seg) | (b & ~seg), in_range = j <= max_lane; break;
        }
        if (!in_range) j = lane;
        if (!(masks[l] >> j & 1))
            return error_at(c, in, t, "reads lane %d, outside the member mask 0x%08x (undefined)", j, masks[l]);
        c->xfer[t] = sim_trunc(read_opd(c, &in->opd[1], w0 + (uint32_t)j), 32);
        c->xpred[t] = in_range;
    }
    for (uint32_t l = 0; l < n; l++) {   /* every source read: now write (d may be a) */
        if (!(active >> l & 1)) continue;
        write_reg(c, in->opd[0].reg[0], w0 + l, c->xfer[w0 + l]);
        if (in->opd[0].n == 2) write_reg(c, in->opd[0].reg[1], w0 + l, c->xpred[w0 + l]);
    }
    return true;
}

/* ---- ldmatrix ---- */

/* One warp's ldmatrix (ldmatrix.c has the semantics): .aligned, so every
 * lane of the warp executes it or none; lane 8j + i supplies the address
 * of row i of matrix j, 16 bytes, 16-byte aligned, in shared memory. All
 * rows are read before any result is written (a result may be the
 * address register). */
/* ldmatrix and stmatrix are .aligned: 1 if every lane of the warp from
 * w0 executes it, 0 if none does, -1 after the error for some */
static int aligned_lanes(Cta *c, const SimIns *in, uint32_t w0) {
    uint32_t n = c->threads - w0 < 32 ? c->threads - w0 : 32, active = 0;
    for (uint32_t l = 0; l < n; l++)
        if (guard_of(c, in, w0 + l)) active |= 1u << l;
    if (!active) return 0;
    if (n == 32 && active == ~0u) return 1;
    error_at(c, in, w0 + (uint32_t)__builtin_ctz(~active),
             "is .aligned, but not every lane of the warp executes it (undefined)");
    return -1;
}

static bool ldmatrix_warp(Cta *c, const SimIns *in, uint32_t w0) {
    int lanes = aligned_lanes(c, in, w0);
    if (lanes <= 0) return lanes == 0;
    const uint8_t *rows[4][8];
    for (uint32_t j = 0; j < in->vec; j++)
        for (uint32_t i = 0; i < 8; i++) {
            uint32_t t = w0 + 8 * j + i;
            const SimOpd *a = &in->opd[1];
            uint64_t a32 = (uint32_t)((uint64_t)a->imm + (a->reg[0] == SIM_NOREG ? 0 : *slot(c, a->reg[0], t)));
            if (a32 < SIM_SHARED_BASE || a32 - SIM_SHARED_BASE + 16 > c->shared_bytes || a32 % 16)
                return error_at(c, in, t, "reads row %u of matrix %u at shared offset %lld: %s", i, j,
                                (long long)a32 - SIM_SHARED_BASE,
                                a32 % 16 ? "not 16-byte aligned" : "outside the shared memory");
            rows[j][i] = c->shared + (a32 - SIM_SHARED_BASE);
        }
    uint32_t out[32][4];
    sim_ldmatrix_lanes(in, (const uint8_t *const(*)[8])rows, out);
    const SimOpd *d = &in->opd[0];
    for (uint32_t l = 0; l < 32; l++)
        for (uint32_t j = 0; j < in->vec; j++) write_reg(c, d->reg[j], w0 + l, out[l][j]);
    return true;
}

/* One warp's stmatrix, the other way: every lane's registers are read,
 * then the rows written (shared_span checks each 16-byte row). */
static bool stmatrix_warp(Cta *c, const SimIns *in, uint32_t w0) {
    int lanes = aligned_lanes(c, in, w0);
    if (lanes <= 0) return lanes == 0;
    uint8_t *rows[4][8];
    for (uint32_t j = 0; j < in->vec; j++)
        for (uint32_t i = 0; i < 8; i++) {
            uint32_t t = w0 + 8 * j + i;
            const SimOpd *a = &in->opd[0];
            uint64_t addr = (uint64_t)a->imm + (a->reg[0] == SIM_NOREG ? 0 : *slot(c, a->reg[0], t));
            if (!(rows[j][i] = shared_span(c, in, t, addr, 16, 16))) return false;
        }
    uint32_t regs[32][4];
    const SimOpd *s = &in->opd[1];
    for (uint32_t l = 0; l < 32; l++)
        for (uint32_t j = 0; j < in->vec; j++) regs[l][j] = (uint32_t)*slot(c, s->reg[j], w0 + l);
    sim_stmatrix_lanes(in, rows, (const uint32_t(*)[4])regs);
    return true;
}

/* ---- mma.sync ---- */

/* A warp-collective instruction over the warp from w0: 1 if all 32 lanes
 * execute it, 0 if none does (the warp skips it), -1 after the error for
 * some but not all */
static int warp_lanes(Cta *c, const SimIns *in, uint32_t w0) {
    uint32_t active = 0, n = c->threads - w0 < 32 ? c->threads - w0 : 32;
    for (uint32_t l = 0; l < n; l++)
        if (guard_of(c, in, w0 + l)) active |= 1u << l;
    if (!active) return 0;
    if (active == UINT32_MAX) return 1;
    uint32_t k = (uint32_t)__builtin_ctz(~active);
    error_at(c, in, w0 + (uint32_t)__builtin_ctz(active), "is warp-collective, but lane %u %s", k,
             w0 + k >= c->threads ? "does not exist (the CTA has fewer threads)"
                                  : "does not execute it (its guard is false)");
    return -1;
}

/* mma.sync.aligned over one warp (threads w0 .. w0 + 31): warp-collective,
 * so all 32 lanes execute it or none does (a warp whose guards are all
 * false skips it). Every lane's a, b and c registers are read before any
 * d is written (d may be c). */
__attribute__((noinline)) static bool mma_warp(Cta *c, const SimIns *in, uint32_t w0) {
    int lanes = warp_lanes(c, in, w0);
    if (lanes <= 0) return lanes == 0;
    uint32_t frag[4][32][4];
    for (int i = 1; i < 4; i++)
        for (uint32_t l = 0; l < 32; l++)
            for (int j = 0; j < sim_mma_regs(in, i); j++) frag[i][l][j] = (uint32_t)*slot(c, in->opd[i].reg[j], w0 + l);
    sim_mma(in, frag);
    for (uint32_t l = 0; l < 32; l++)
        for (int j = 0; j < sim_mma_regs(in, 0); j++) write_reg(c, in->opd[0].reg[j], w0 + l, frag[0][l][j]);
    return true;
}

/* ---- wgmma ----
 * Warpgroup-collective: the CTA's threads form warpgroups of 128, and all
 * threads of a warpgroup execute each wgmma instruction or none does. A
 * wgmma.mma_async is computed when issued, warp by warp: warp w of the
 * group owns rows 16w .. 16w + 15 of the 64 x N result, which is, per n8
 * tile, one mma.sync's C/D fragment (doc/ptx.md, "wgmma accumulator"), so
 * sim_mma does the arithmetic on fragments gathered from shared memory
 * through the descriptors (wgmma.c: the canonical layouts) or, for A, from
 * the registers. The descriptors must be the same in every thread of the
 * group. fence, commit_group and wait_group change nothing here. */

typedef struct WgRead {
    Cta *c;
    uint64_t desc;
    bool mn_major, failed;
    int eb, x0;
    bool is_b;               /* B: (row, col) = (k, x - x0) */
    const char *why;
    uint32_t addr;
} WgRead;

static uint64_t wg_elem(void *ud, int row, int col) {
    WgRead *r = ud;
    if (r->failed) return 0;
    int x = r->x0 + (r->is_b ? col : row), k = r->is_b ? row : col;
    uint32_t a;
    if (!sim_wgmma_addr(r->desc, r->mn_major, r->eb, x, k, &a, &r->why)) {
        r->failed = true;
        return 0;
    }
    if (a < SIM_SHARED_BASE || a - SIM_SHARED_BASE + (uint32_t)r->eb > r->c->shared_bytes) {
        r->failed = true;
        r->addr = a;
        r->why = "reads outside the shared memory";
        return 0;
    }
    uint64_t v = 0;
    memcpy(&v, r->c->shared + (a - SIM_SHARED_BASE), (size_t)r->eb);
    return v;
}

/* every thread of the group holds the same value in reg */
static bool wg_uniform(Cta *c, const SimIns *in, uint32_t g0, uint32_t reg, const char *what, uint64_t *v) {
    *v = *slot(c, reg, g0);
    for (uint32_t t = g0 + 1; t < g0 + 128; t++)
        if (*slot(c, reg, t) != *v)
            return error_at(c, in, t, "has %s 0x%llx, thread %u 0x%llx: a warpgroup's must agree", what,
                            (unsigned long long)*slot(c, reg, t), g0, (unsigned long long)*v);
    return true;
}

__attribute__((noinline)) static bool wgmma_group(Cta *c, const SimIns *in, uint32_t g0) {
    const SimWgmma *w = in->wgmma;
    int bits = in->mma_ty[1] == SMT_F16 || in->mma_ty[1] == SMT_BF16 ? 16 : 8, e = 32 / bits;
    uint64_t da = 0, db = 0;
    if ((!w->a_regs && !wg_uniform(c, in, g0, w->a[0], "A's descriptor", &da)) ||
        !wg_uniform(c, in, g0, w->b, "B's descriptor", &db))
        return false;
    uint32_t frag[4][32][4];
    for (uint32_t wi = 0; wi < 4; wi++) {
        uint32_t w0 = g0 + 32 * wi;
        WgRead ra = {c, da, w->trans_a, false, bits / 8, 16 * (int)wi, false, NULL, 0};
        if (w->a_regs)
            for (uint32_t l = 0; l < 32; l++)
                for (int r = 0; r < 4; r++) frag[1][l][r] = (uint32_t)*slot(c, w->a[r], w0 + l);
        else
            sim_wgmma_frag(1, e, 4, wg_elem, &ra, frag[1]);
        if (ra.failed) return error_at(c, in, w0, "A: %s (shared offset %lld)", ra.why, (long long)ra.addr - SIM_SHARED_BASE);
        for (int j = 0; j < w->n / 8; j++) {
            WgRead rb = {c, db, w->trans_b, false, bits / 8, 8 * j, true, NULL, 0};
            sim_wgmma_frag(2, e, 2, wg_elem, &rb, frag[2]);
            if (rb.failed)
                return error_at(c, in, w0, "B: %s (shared offset %lld)", rb.why, (long long)rb.addr - SIM_SHARED_BASE);
            for (uint32_t l = 0; l < 32; l++) {
                bool keep = w->scale_d == SIM_NOREG ? w->scale_d_imm : *slot(c, w->scale_d, w0 + l) != 0;
                for (int q = 0; q < 4; q++) frag[3][l][q] = keep ? (uint32_t)*slot(c, w->d[4 * j + q], w0 + l) : 0;
            }
            sim_mma(in, frag);
            for (uint32_t l = 0; l < 32; l++)
                for (int q = 0; q < 4; q++) write_reg(c, w->d[4 * j + q], w0 + l, frag[0][l][q]);
        }
    }
    return true;
}

/* wgmma.*: every warpgroup whole, all of its threads executing it or none */
static bool exec_wgmma(Cta *c, const SimIns *in) {
    if (c->threads % 128)
        return error_at(c, in, 0, "needs whole warpgroups, but the CTA has %u threads", c->threads);
    for (uint32_t g0 = 0; g0 < c->threads; g0 += 128) {
        uint32_t n_on = 0;
        for (uint32_t t = g0; t < g0 + 128; t++) n_on += guard_of(c, in, t);
        if (!n_on) continue;
        if (n_on != 128) return error_at(c, in, g0, "is .aligned, but not every thread of the warpgroup executes it");
        if (in->op == SO_WGMMA && in->wg == SWG_MMA && !wgmma_group(c, in, g0)) return false;
    }
    return true;
}

/* ---- cp.async ----
 * A copy is checked when issued (both addresses, as ld and st check
 * theirs) and performed only when a wait_group (or wait_all) of its thread
 * retires its group: then src_size bytes are read from global memory and
 * the rest of cp-size is zero-filled. Until then the shared bytes it
 * targets are marked, and any access to them is an error; so is the
 * kernel ending with a copy pending. */

static void cp_retire(Cta *c, uint32_t t, uint64_t keep) {
    uint32_t k;
    while ((k = c->cp_head[t]) != CP_NONE && (uint64_t)c->cp_pool[k].group + keep < c->cp_commits[t]) {
        CpCopy *cp = &c->cp_pool[k];
        uint8_t *d = c->shared + cp->dst;
        if (cp->src_size) memcpy(d, (const uint8_t *)(uintptr_t)cp->src, cp->src_size);
        memset(d + cp->src_size, 0, cp->size - cp->src_size);
        for (uint32_t i = 0; i < cp->size; i++) c->cp_owner[cp->dst + i] = 0;
        c->cp_head[t] = cp->next;
        if (cp->next == CP_NONE) c->cp_tail[t] = CP_NONE;
        cp->next = c->cp_free;
        c->cp_free = k;
    }
}

static bool cp_issue(Cta *c, const SimIns *in, uint32_t t) {
    uint32_t size = (uint32_t)in->opd[2].imm, src_size = size;
    if (in->n_opd == 4) {
        const SimOpd *o = &in->opd[3];
        uint64_t v = read_opd(c, o, t);
        if (o->kind == SD_REG && c->m->reg_bits[o->reg[0]] == 1) src_size = v ? 0 : size;   /* ignore-src */
        else if ((uint32_t)v > size)
            return error_at(c, in, t, "has src-size %u, more than its cp-size %u (undefined)", (uint32_t)v, size);
        else src_size = (uint32_t)v;
    }
    const SimOpd *d = &in->opd[0], *s = &in->opd[1];
    uint64_t dst = (uint64_t)d->imm + (d->reg[0] == SIM_NOREG ? 0 : *slot(c, d->reg[0], t));
    uint64_t src = (uint64_t)s->imm + (s->reg[0] == SIM_NOREG ? 0 : *slot(c, s->reg[0], t));
    uint8_t *to = shared_at(c, in, t, dst, size);
    if (!to || (src_size && !global_span(c, in, t, src, src_size, size))) return false;
    CpCopy cp = {src, (uint32_t)(to - c->shared), size, src_size, c->cp_commits[t], CP_NONE, t, in};
    uint32_t k = c->cp_free;
    if (k != CP_NONE) c->cp_free = c->cp_pool[k].next, c->cp_pool[k] = cp;
    else {
        k = c->n_cp;
        VEC_PUSH(c->a, c->cp_pool, c->n_cp, c->cap_cp, cp);
    }
    if (c->cp_tail[t] == CP_NONE) c->cp_head[t] = k;
    else c->cp_pool[c->cp_tail[t]].next = k;
    c->cp_tail[t] = k;
    for (uint32_t i = 0; i < size; i++) c->cp_owner[cp.dst + i] = k + 1;
    return true;
}

static bool exec_tma(Cta *c, const SimIns *in, uint32_t t);

static bool exec_cp(Cta *c, const SimIns *in, uint32_t t) {
    switch ((SimCp)in->cp) {
    case SCP_TENSOR: return exec_tma(c, in, t);
    case SCP_COMMIT: c->cp_commits[t]++; return true;
    case SCP_WAIT_ALL: c->cp_commits[t]++; cp_retire(c, t, 0); return true;   /* commit_group; wait_group 0 */
    case SCP_WAIT_GROUP: cp_retire(c, t, (uint64_t)in->opd[0].imm); return true;
    case SCP_BULK_COMMIT: case SCP_BULK_WAIT: return true;   /* no bulk copy is ever in flight */
    default: return cp_issue(c, in, t);
    }
}

/* The kernel ends (a ret every thread takes): no copy may be in flight. */
static bool cp_none_pending(Cta *c, const SimIns *in) {
    for (uint32_t t = 0; c->cp_owner && t < c->threads; t++)
        if (c->cp_head[t] != CP_NONE)
            return error_at(c, in, t, "ends the kernel while the cp.async at PTX line %d is pending (no "
                            "cp.async.wait_group or wait_all completes it)", c->cp_pool[c->cp_head[t]].in->ptx_line);
    return true;
}

static void mbar_reset(Cta *c) {
    if (!c->mbar_at) return;
    memset(c->mbar_at, 0, sizeof(uint32_t) * (c->shared_bytes / 8 + 1));
    memset(c->mbar_ended, 0, sizeof(uint32_t) * (c->shared_bytes / 8 + 1));
    c->n_mbars = c->n_ended = 0;
}

static void cp_reset(Cta *c) {
    if (!c->cp_owner) return;
    memset(c->cp_owner, 0, sizeof(uint32_t) * c->shared_bytes);
    for (uint32_t t = 0; t < c->threads; t++) c->cp_head[t] = c->cp_tail[t] = CP_NONE, c->cp_commits[t] = 0;
    c->n_cp = 0;
    c->cp_free = CP_NONE;
}

/* ---- mbarriers ----
 * The state lives in a side table (tma.c's SimMbar), found through the
 * barrier's 8-byte granule of shared memory; its 8 bytes are the
 * barrier's while it is live, and any other access to them is an error.
 * The threads of a CTA run in lock step and TMA copies complete when
 * issued, so a try_wait that finds its phase incomplete would wait
 * forever: an error, not a spin to the step limit. */

/* The shared offset of the 8-byte mbarrier operand a, or false after an
 * error (outside shared memory, misaligned). */
static bool mbar_offset(Cta *c, const SimIns *in, uint32_t t, const SimOpd *a, uint32_t *off) {
    uint64_t a32 = (uint32_t)((uint64_t)a->imm + (a->reg[0] == SIM_NOREG ? 0 : *slot(c, a->reg[0], t)));
    if (a32 < SIM_SHARED_BASE || a32 - SIM_SHARED_BASE + 8 > c->shared_bytes)
        return error_at(c, in, t, "addresses an mbarrier at shared offset %lld, outside the %u bytes of shared memory",
                        (long long)a32 - SIM_SHARED_BASE, c->shared_bytes);
    if (a32 % 8)
        return error_at(c, in, t, "addresses an mbarrier at shared offset %lld, not 8-byte aligned",
                        (long long)a32 - SIM_SHARED_BASE);
    *off = (uint32_t)(a32 - SIM_SHARED_BASE);
    return true;
}

/* The live mbarrier at operand a and its shared offset, or NULL after an
 * error. */
static SimMbar *mbar_live(Cta *c, const SimIns *in, uint32_t t, const SimOpd *a, uint32_t *off) {
    if (!mbar_offset(c, in, t, a, off)) return NULL;
    if (!c->mbar_at[*off / 8]) {
        error_at(c, in, t, "uses the mbarrier at shared offset %u, which is not initialized (no mbarrier.init, or "
                 "mbarrier.inval ended it)", *off);
        return NULL;
    }
    return &c->mbars[c->mbar_at[*off / 8] - 1];
}

static bool mbar_init(Cta *c, const SimIns *in, uint32_t t) {
    uint32_t off;
    if (!mbar_offset(c, in, t, &in->opd[0], &off)) return false;
    if (c->mbar_at[off / 8])
        return error_at(c, in, t, "initializes the mbarrier at shared offset %u, which is live (initialized at PTX line "
                        "%d; mbarrier.inval first)", off, c->mbars[c->mbar_at[off / 8] - 1].init_line);
    if (c->cp_owner && !cp_pending_error(c, in, t, off, 8)) return false;
    SimMbar b;
    const char *why = sim_mbar_init(&b, sim_trunc(read_opd(c, &in->opd[1], t), 32), in->ptx_line);
    if (why) return error_at(c, in, t, "%s", why);
    VEC_PUSH(c->a, c->mbars, c->n_mbars, c->cap_mbars, b);
    c->mbar_at[off / 8] = c->n_mbars;
    return true;
}

/* try_wait.parity p, [a], parity: p = the phase of that parity has
 * completed, i.e. the current phase has the other parity. */
static bool mbar_try_wait(Cta *c, const SimIns *in, uint32_t t, const SimMbar *b, uint32_t off) {
    uint64_t parity = sim_trunc(read_opd(c, &in->opd[2], t), 32);
    if (parity > 1) return error_at(c, in, t, "waits for phase parity %llu, not 0 or 1", (unsigned long long)parity);
    if ((b->phase & 1) == parity)
        return error_at(c, in, t, "waits for the phase of parity %llu of the mbarrier at shared offset %u, which is its "
                        "current phase %llu (%u of %u arrivals and %d transaction bytes pending): in lock step "
                        "nothing can complete it, so the wait would never end", (unsigned long long)parity, off,
                        (unsigned long long)b->phase, b->pending, b->expected, b->tx);
    write_reg(c, in->opd[0].reg[0], t, 1);
    return true;
}

__attribute__((noinline)) static bool exec_mbarrier(Cta *c, const SimIns *in, uint32_t t) {
    if (in->mbar == SMB_INIT) return mbar_init(c, in, t);
    uint32_t off;
    SimMbar *b = mbar_live(c, in, t, &in->opd[in->mbar == SMB_INVAL ? 0 : 1], &off);
    if (!b) return false;
    const char *why = NULL;
    switch ((SimMbarOp)in->mbar) {
    case SMB_INVAL:
        c->mbar_at[off / 8] = 0;
        c->mbar_ended[off / 8] = t + 1;
        c->n_ended++;
        return true;
    case SMB_TRY_WAIT: return mbar_try_wait(c, in, t, b, off);
    case SMB_ARRIVE_TX:   /* expect_tx, then the arrival */
        why = sim_mbar_expect_tx(b, sim_trunc(read_opd(c, &in->opd[2], t), 32));
        if (!why) why = sim_mbar_arrive(b);
        break;
    default: break;
    }
    return !why || error_at(c, in, t, "on the mbarrier at shared offset %u %s", off, why);
}

/* ---- TMA ----
 * cp.async.bulk.tensor.2d [dst], [map, {x, y}], [mbar]: the box of
 * box[1] rows of box[0] elements at tensor row y, column x (x innermost)
 * from the map at the generic address map; elements outside the tensor
 * (either index negative or past dims) read the map's fill. The box goes
 * to shared memory row-major from dst, each byte moved by the map's
 * swizzle of its absolute shared address, as the hardware does (the
 * compiler keeps dst aligned to 1024 bytes). The copy completes at once:
 * then its whole box's bytes count as complete_tx on the mbarrier. */

/* The 2-D tensor map at the generic address map, or false after an error. */
static bool tma_map(Cta *c, const SimIns *in, uint32_t t, uint64_t map, TmapFields *f) {
    const uint8_t *raw = global_span(c, in, t, map, TMAP_BYTES, 64);
    const char *why;
    if (!raw) return false;
    if (!tmap_decode(raw, f, &why) || (f->rank == 2 && (why = sim_tma_check(f))))
        return error_at(c, in, t, "reads a tensor map that cannot be used: %s", why);
    if (f->rank != 2) return error_at(c, in, t, "reads a tensor map of rank %d, not 2", f->rank);
    return true;
}

/* One box row, tensor row `row` from column x, to shared address dst:
 * the elements inside the tensor come from global memory (one span, checked
 * as ld.global checks its accesses), the rest are the fill; each lands at
 * its swizzled address. */
static bool tma_row(Cta *c, const SimIns *in, uint32_t t, const TmapFields *f, int64_t row, int64_t x,
                    uint32_t dst, uint64_t fill) {
    uint32_t eb = (uint32_t)tmap_dtype_bytes(f->dtype), n = f->box[0];
    int64_t lo = x < 0 ? -x : 0, hi = (int64_t)f->dims[0] - x < n ? (int64_t)f->dims[0] - x : n;
    bool in_rows = row >= 0 && row < f->dims[1];
    const uint8_t *src = NULL;
    if (in_rows && lo < hi) {
        uint64_t at = f->address + (uint64_t)row * f->strides[0] + (uint64_t)(x + lo) * eb;
        if (!(src = global_span(c, in, t, at, (uint32_t)(hi - lo) * eb, eb))) return false;
    }
    for (uint32_t k = 0; k < n; k++) {
        uint32_t to = sim_swizzle((uint32_t)f->swizzle, dst + k * eb) - SIM_SHARED_BASE;
        if (in_rows && k >= lo && k < hi) memcpy(c->shared + to, src + (k - lo) * eb, eb);
        else memcpy(c->shared + to, &fill, eb);   /* little-endian, as the GPU */
    }
    return true;
}

/* One thread's copy: the map, the barrier and dst checked first, then the
 * box, then its bytes' complete_tx. */
__attribute__((noinline)) static bool exec_tma(Cta *c, const SimIns *in, uint32_t t) {
    const SimOpd *d = &in->opd[0], *xy = &in->opd[2];
    TmapFields f;
    uint64_t fill;
    const char *why;
    if (!tma_map(c, in, t, *slot(c, in->opd[1].reg[0], t), &f)) return false;
    if (!sim_tma_fill(&f, &fill, &why)) return error_at(c, in, t, "reads a tensor map that %s", why);
    uint32_t off;
    SimMbar *b = mbar_live(c, in, t, &in->opd[3], &off);
    if (!b) return false;
    uint32_t row_bytes = f.box[0] * (uint32_t)tmap_dtype_bytes(f.dtype), bytes = row_bytes * f.box[1];
    uint64_t dst = (uint64_t)d->imm + (d->reg[0] == SIM_NOREG ? 0 : *slot(c, d->reg[0], t));
    /* 128-byte aligned, as PTX requires: a swizzle then moves bytes within their 128-byte line */
    if (!shared_span(c, in, t, dst, bytes, 128)) return false;
    int64_t x = (int32_t)*slot(c, xy->reg[0], t), y = (int32_t)*slot(c, xy->reg[1], t);
    for (uint32_t r = 0; r < f.box[1]; r++)
        if (!tma_row(c, in, t, &f, y + r, x, (uint32_t)dst + r * row_bytes, fill)) return false;
    why = sim_mbar_complete_tx(b, bytes);
    return !why || error_at(c, in, t, "on the mbarrier at shared offset %u %s", off, why);
}

/* ---- tensor maps made in the kernel ----
 * Warp 0 zeroes 128 bytes of shared memory, thread 0 sets the fields with
 * tensormap.replace (tma.c: the 128 bytes hold tric's encoding), warp 0
 * copies the map to global memory with tensormap.cp_fenceproxy and fences
 * it for TMA, whose copies then read it there (tma_map). */

/* replace [a], {ord,} value: one field of the map at shared address a
 * (128 bytes, 128-byte aligned). Bytes that are neither zeroed nor a map
 * are an error: on the GPU the fields no replace sets would keep them. */
__attribute__((noinline)) static bool exec_tmap_replace(Cta *c, const SimIns *in, uint32_t t) {
    uint64_t at = addr_of(c, &in->opd[0], t);
    uint8_t *raw = shared_span(c, in, t, at, TMAP_BYTES, 128);
    if (!raw) return false;
    uint32_t off = (uint32_t)(raw - c->shared);
    TmapFields f;
    if (!sim_tmap_fields(raw, &f))
        return error_at(c, in, t, "edits the 128 bytes at shared offset %u, which are neither zeroed nor a tensor map "
                        "(the fields no replace sets would be garbage)", off);
    const SimTmapFieldInfo *fi = &sim_tmap_field_info[in->tmap_field];
    int ord = fi->per_dim ? (int)in->opd[1].imm : 0;
    uint64_t v = sim_trunc(read_opd(c, &in->opd[in->n_opd - 1], t), fi->bits);
    const char *why = sim_tmap_replace(&f, (SimTmapField)in->tmap_field, ord, v);
    if (why && fi->per_dim)
        return error_at(c, in, t, "sets %s %d of the map at shared offset %u to %llu: %s", fi->name, ord, off,
                        (unsigned long long)v, why);
    if (why)
        return error_at(c, in, t, "sets %s of the map at shared offset %u to %llu: %s", fi->name, off,
                        (unsigned long long)v, why);
    tmap_encode(&f, raw);
    return true;
}

/* cp_fenceproxy [g], [s], 128 over one warp: .sync.aligned, so all 32
 * lanes execute it, with the same addresses, or none does; the warp
 * copies the map once, to g (64-byte aligned, written as st.global
 * writes). A map TMA could not use is an error here, where the GPU's
 * copies of it would fault later. */
__attribute__((noinline)) static bool tmap_copy_warp(Cta *c, const SimIns *in, uint32_t w0) {
    int lanes = warp_lanes(c, in, w0);
    if (lanes <= 0) return lanes == 0;
    uint64_t g = addr_of(c, &in->opd[0], w0);
    uint32_t s = (uint32_t)addr_of(c, &in->opd[1], w0);
    for (uint32_t t = w0 + 1; t < w0 + 32; t++)
        if (addr_of(c, &in->opd[0], t) != g || (uint32_t)addr_of(c, &in->opd[1], t) != s)
            return error_at(c, in, t, "has other addresses than lane 0 of its warp: the warp's must agree");
    const uint8_t *src = shared_span(c, in, w0, s, TMAP_BYTES, 128);
    uint8_t *dst = src ? global_span(c, in, w0, g, TMAP_BYTES, 64) : NULL;
    if (!dst) return false;
    TmapFields f;
    const char *why;
    if (!tmap_decode(src, &f, &why))
        return error_at(c, in, w0, "copies the 128 bytes at shared offset %u, which are not a finished tensor map: %s "
                        "(TMA would fault on it)", s - SIM_SHARED_BASE, why);
    memcpy(dst, src, TMAP_BYTES);
    return true;
}

/* fence.proxy.tensormap::generic.acquire [a], 128: nothing to order in
 * one memory; a must be a map's 128 bytes of global memory */
static bool exec_fence_tmap(Cta *c, const SimIns *in, uint32_t t) {
    return global_span(c, in, t, addr_of(c, &in->opd[0], t), TMAP_BYTES, 64) != NULL;
}

/* ---- system calls ---- */

/* The host bytes at generic address addr as thread t sees them, and how
 * many bytes of the same object follow; NULL if it is in none. */
static const uint8_t *generic_at(Cta *c, uint32_t t, uint64_t addr, size_t *avail) {
    uint32_t lb = c->m->local_bytes;
    struct { uint64_t lo; size_t n; } objs[2] = {
        {(uint64_t)(uintptr_t)(c->local + (size_t)t * lb), lb},
        {(uint64_t)(uintptr_t)c->shared, c->shared_bytes},
    };
    for (int i = 0; i < 2; i++)
        if (addr >= objs[i].lo && addr < objs[i].lo + objs[i].n) {
            *avail = objs[i].n - (addr - objs[i].lo);
            return (const uint8_t *)(uintptr_t)addr;
        }
    for (uint32_t i = 0; i < c->m->n_globals; i++) {
        uint64_t lo = (uint64_t)(uintptr_t)c->m->globals[i].data;
        if (addr >= lo && addr < lo + c->m->globals[i].bytes) {
            *avail = c->m->globals[i].bytes - (addr - lo);
            return (const uint8_t *)(uintptr_t)addr;
        }
    }
    bool inside;
    int b = nearest_buffer(c->l->data, addr, 1, &inside);
    if (!inside) return NULL;
    *avail = c->l->data->buffers[b].bytes - (addr - (uint64_t)(uintptr_t)c->l->data->buffers[b].base);
    return (const uint8_t *)(uintptr_t)addr;
}

typedef struct ThreadRef {
    Cta *c;
    uint32_t t;
} ThreadRef;

/* A NUL-terminated string at a generic address, or NULL. */
static const char *generic_string(void *ud, uint64_t addr) {
    ThreadRef *r = ud;
    size_t avail;
    const uint8_t *p = generic_at(r->c, r->t, addr, &avail);
    return p && memchr(p, 0, avail) ? (const char *)p : NULL;
}

/* The system calls and global_at are kept out of line: inlined into
 * exec_one, their address-taken locals would make every instruction set
 * up their stack redzones under ASan (the test build).
 *
 * vprintf(fmt, args): the line goes to the launch's print_out (when set);
 * the result is the number of arguments, as CUDA's printf returns. */
__attribute__((noinline)) static bool exec_vprintf(Cta *c, const SimIns *in, uint32_t t) {
    ThreadRef r = {c, t};
    const char *fmt = generic_string(&r, *slot(c, in->args[0], t));
    if (!fmt) return error_at(c, in, t, "(vprintf): the format is not a NUL-terminated string the thread can read");
    uint64_t aa = *slot(c, in->args[1], t);
    size_t n = 0;
    const uint8_t *args = aa ? generic_at(c, t, aa, &n) : NULL;
    if (aa && !args) return error_at(c, in, t, "(vprintf): the argument buffer is not memory the thread can read");
    Buf scratch = {0}, why = {0};
    Buf *out = c->l->data->print_out ? c->l->data->print_out : &scratch;
    size_t before = out->len;
    int used;
    bool ok = sim_format(fmt, args, n, generic_string, &r, out, &why, &used);
    if (!ok) {
        out->len = before;
        if (out->data) out->data[before] = 0;
        Buf shown = {0};   /* the format as a C literal would spell it, newlines as \n */
        for (const char *f = fmt; *f && shown.len < 40; f++)
            if (*f == '\n') buf_puts(&shown, "\\n");
            else buf_putc(&shown, *f);
        error_at(c, in, t, "(vprintf \"%s\"): %s", buf_str(&shown), buf_str(&why));
        buf_free(&shown);
    } else if (in->ret != SIM_NOREG) {
        write_reg(c, in->ret, t, (uint64_t)used);
    }
    buf_free(&scratch);
    buf_free(&why);
    return ok;
}

/* __assertfail(message, file, line, function, char_size) stops the run with
 * the message the GPU prints before it traps. */
__attribute__((noinline)) static bool exec_assertfail(Cta *c, const SimIns *in, uint32_t t) {
    ThreadRef r = {c, t};
    const char *s[5] = {0};
    for (int i = 0; i < 5; i++)
        if (i != 2 && i != 4 && !(s[i] = generic_string(&r, *slot(c, in->args[i], t))))
            return error_at(c, in, t, "(__assertfail): argument %d is not a NUL-terminated string", i + 1);
    buf_printf(c->err, "sim: %s:%u: %s: block: [%u,%u,%u], thread: [%u,0,0] Assertion `%s` failed.\n", s[1],
               (unsigned)*slot(c, in->args[2], t), s[3], c->ctaid[0], c->ctaid[1], c->ctaid[2], t, s[0]);
    return false;
}

/* One instruction on one thread (its guard already true). */
static bool exec_one(Cta *c, const SimIns *in, uint32_t t) {
    switch (in->op) {
    case SO_LD: case SO_ST: return exec_ldst(c, in, t);
    case SO_ATOM: case SO_RED: return exec_atom(c, in, t);
    case SO_MOV: exec_mov(c, in, t); return true;
    case SO_CREATEPOLICY: write_reg(c, in->opd[0].reg[0], t, 0); return true;   /* an opaque hint */
    case SO_CVTA: exec_cvta(c, in, t); return true;
    case SO_CALL: return in->callee == SF_VPRINTF ? exec_vprintf(c, in, t) : exec_assertfail(c, in, t);
    case SO_CP: return exec_cp(c, in, t);
    case SO_MBARRIER: return exec_mbarrier(c, in, t);
    case SO_TENSORMAP: return exec_tmap_replace(c, in, t);
    case SO_FENCE: return exec_fence_tmap(c, in, t);
    default: break;
    }
    uint64_t *v = c->operands;   /* not a local array: no stack redzones per instruction under ASan */
    v[1] = v[2] = v[3] = 0;
    for (int i = 1; i < in->n_opd; i++) v[i] = read_opd(c, &in->opd[i], t);
    SimStatus st = sim_alu(in, v, &c->result);
    if (st == SIM_DIV_ZERO) return error_at(c, in, t, "divides by zero");
    if (st != SIM_OK) return error_at(c, in, t, "is not modelled");
    write_reg(c, in->opd[0].reg[0], t, c->result);
    return true;
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
    memset(c->local, 0xAB, (size_t)m->local_bytes * c->threads);
    cp_reset(c);
    mbar_reset(c);
    c->steps = 0;
    for (uint32_t pc = 0;;) {
        const SimIns *in = &m->ins[pc];
        if (++c->steps > max_steps) {
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
            if (taken) return cp_none_pending(c, in);
            pc++;
            continue;
        case SO_SHFL:   /* lock step: every lane is here, warp by warp */
            for (uint32_t w0 = 0; w0 < c->threads; w0 += 32)
                if (!shfl_warp(c, in, w0)) return false;
            pc++;
            continue;
        case SO_LDMATRIX:   /* lock step, warp by warp, as shfl */
        case SO_STMATRIX:
            for (uint32_t w0 = 0; w0 < c->threads; w0 += 32)
                if (!(in->op == SO_LDMATRIX ? ldmatrix_warp(c, in, w0) : stmatrix_warp(c, in, w0))) return false;
            pc++;
            continue;
        case SO_WGMMA:   /* warpgroup-collective */
            if (!exec_wgmma(c, in)) return false;
            pc++;
            continue;
        case SO_FENCE:   /* one memory in lock step: nothing to order */
            if (in->n_opd) break;   /* fence.proxy.tensormap: its map's address checked per thread */
            pc++;
            continue;
        case SO_TENSORMAP:   /* cp_fenceproxy is warp-collective; replace runs per thread */
            if (in->tmap != STM_CP_FENCEPROXY) break;
            for (uint32_t w0 = 0; w0 < c->threads; w0 += 32)
                if (!tmap_copy_warp(c, in, w0)) return false;
            pc++;
            continue;
        case SO_MMA:   /* warp-collective, like shfl */
            for (uint32_t w0 = 0; w0 < c->threads; w0 += 32)
                if (!mma_warp(c, in, w0)) return false;
            pc++;
            continue;
        case SO_BAR:   /* lock step: every thread is here already */
            for (uint32_t w0 = 0; in->bar_warp && w0 < c->threads; w0 += 32)
                if (!bar_warp(c, in, w0)) return false;
            if (!in->bar_warp && !uniform_guard(c, in, &taken)) return false;
            if (!in->bar_warp && c->mbar_at) mbar_meet(c);
            pc++;
            continue;
        default: break;
        }
        if (in->guard == SIM_NOREG) {
            for (uint32_t t = 0; t < c->threads; t++)
                if (!exec_one(c, in, t)) return false;
        } else {
            for (uint32_t t = 0; t < c->threads; t++)
                if (guard_of(c, in, t) && !exec_one(c, in, t)) return false;
        }
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
        c.local = arena_alloc(a, (size_t)m.local_bytes * l->threads + 1);
        c.xfer = arena_alloc(a, sizeof(uint64_t) * l->threads);
        c.xpred = arena_alloc(a, l->threads);
        c.a = a;
        for (uint32_t i = 0; i < m.n_ins && !c.cp_owner; i++)
            if (m.ins[i].op == SO_CP && m.ins[i].cp <= SCP_WAIT_ALL) {   /* cp.async's copies and groups */
                c.cp_owner = arena_alloc(a, sizeof(uint32_t) * (c.shared_bytes + 1));
                c.cp_head = arena_alloc(a, sizeof(uint32_t) * l->threads);
                c.cp_tail = arena_alloc(a, sizeof(uint32_t) * l->threads);
                c.cp_commits = arena_alloc(a, sizeof(uint32_t) * l->threads);
            }
        for (uint32_t i = 0; i < m.n_ins && !c.mbar_at; i++)
            if (m.ins[i].op == SO_MBARRIER || (m.ins[i].op == SO_CP && m.ins[i].cp == SCP_TENSOR))
            {
                c.mbar_at = arena_alloc(a, sizeof(uint32_t) * (c.shared_bytes / 8 + 1));
                c.mbar_ended = arena_alloc(a, sizeof(uint32_t) * (c.shared_bytes / 8 + 1));
            }
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
