/* Pass smem: where each op's shared memory lies (doc/ir.md, "Shared
 * memory"). It runs last; ptxgen prints what it recorded (attr.smem on the
 * ops, fn->shared_bytes and fn->smem_align).
 *
 * Three kinds of users, in this order from offset 0:
 *  - reductions and scans that combine across warps (ir/smem.h sizes their
 *    arrays of partials) take turns between two areas at the start. A
 *    reduction writes its area, waits at its barrier and reads it; the next
 *    one that writes the same area must first wait until every thread has
 *    read it. Any barrier in between does that (the other area's reduction
 *    has one), so `sync` (a leading barrier) is set only where the area may
 *    still be being read: plan_block works that out over the structured
 *    control flow, loops to a fixed point. The fused softmax (max, then
 *    sum, per row; also in a loop over rows) needs none.
 *  - buffers (local_alloc, mbarrier_alloc: the pipeline's rings) by
 *    liveness: ops are numbered in program order (pre-order); a buffer
 *    lives from its alloc to the end of the outermost op of its block that
 *    holds its last use (the loop). First fit after the reductions' areas
 *    among the buffers live at the same time; a buffer's slot shape is
 *    ir/smem.h's plan (the canonical swizzle where wgmma or TMA use it).
 *  - scratch (a convert_layout through shared memory, an atomic's old
 *    values shared, gather, histogram, a tensor map's staging) at the op
 *    alone: after the reductions' areas and the buffers live at it,
 *    128-aligned as a buffer's slots are (so vectors and swizzles planned
 *    from offset 0 stay aligned); the epilogue's conversions reuse the
 *    ring's space once the ring is dead. */
#include "opt.h"
#include "../ir/smem.h"

#include <string.h>

typedef struct OpNum {
    IrOp *op;
    int32_t end;           /* the last number inside it */
} OpNum;

typedef struct Alloc {
    IrFunc *fn;
    Arena *arena;
    OpNum *ops;            /* by number, pre-order */
    uint32_t n_ops, cap_ops;
    HashIdx *num;          /* op -> its number */
    SmemBuf *bufs;
    uint32_t n_bufs;
    int32_t *first, *last; /* each buffer's live range */
    int32_t red_bytes;     /* the reductions' two areas */
} Alloc;

static int32_t align_up(int64_t x, int32_t a) {
    int64_t r = (x + a - 1) / a * a;
    TRIC_ASSERT(r <= INT32_MAX / 2);
    return (int32_t)r;
}

static void number_ops(Alloc *A, IrBlock *b) {
    for (IrOp *op = b->first; op; op = op->next) {
        uint32_t me = A->n_ops;
        OpNum n = {op, 0};
        VEC_PUSH(A->arena, A->ops, A->n_ops, A->cap_ops, n);
        op->attr.smem = (IrSmem){0};   /* a rerun starts over */
        for (uint32_t r = 0; r < op->n_regions; r++) number_ops(A, op->regions[r]);
        A->ops[me].end = (int32_t)A->n_ops - 1;
    }
}

static int32_t op_number(Alloc *A, const IrOp *op) {
    for (uint32_t it = 0, k; (k = hidx_next(A->num, hash_ptr(op), &it));)
        if (A->ops[k - 1].op == op) return (int32_t)k - 1;
    tric_unreachable();
}

/* ---- liveness of buffers ---- */

static bool is_buffer(IrFunc *fn, ValId v) {
    IrOp *d = fn->vals[v].def;
    return d && (d->opc == OP_LOCAL_ALLOC || d->opc == OP_MBAR_ALLOC);
}

static void buffer_ranges(Alloc *A) {
    IrFunc *fn = A->fn;
    A->first = arena_alloc(A->arena, sizeof(int32_t) * (A->n_bufs + 1));
    A->last = arena_alloc(A->arena, sizeof(int32_t) * (A->n_bufs + 1));
    for (uint32_t i = 0; i < A->n_bufs; i++) A->first[i] = A->last[i] = op_number(A, fn->vals[A->bufs[i].v].def);
    for (uint32_t i = 0; i < A->n_ops; i++) {
        IrOp *op = A->ops[i].op;
        for (uint32_t k = 0; k < op->n_operands; k++) {
            ValId v = op->operands[k];
            if (!is_buffer(fn, v)) continue;
            uint32_t b = (uint32_t)(smem_find_buf(A->bufs, A->n_bufs, v) - A->bufs);
            IrOp *alloc = fn->vals[v].def, *top = op;
            while (top->parent != alloc->parent) top = top->parent->parent;
            int32_t end = A->ops[op_number(A, top)].end;
            if (end > A->last[b]) A->last[b] = end;
        }
    }
}

/* ---- reductions: two areas, and where a barrier must come first ---- */

static int32_t red_bytes(IrFunc *fn, IrOp *op) {
    int32_t bytes = 0;
    for (uint32_t k = 0; k < op->n_operands; k++)
        bytes += op->opc == OP_SCAN ? smem_scan_bytes(fn, op, k) : smem_reduce_bytes(fn, op, k);
    return bytes;
}

/* Which areas (bit a: area a) may still be being read after block b runs,
 * starting with `pending`; sets sync where a reduction must wait. */
static unsigned plan_block(Alloc *A, IrBlock *b, unsigned pending);

static unsigned plan_loop(Alloc *A, IrBlock *first, IrBlock *second, unsigned pending) {
    unsigned entry = pending, out = pending;
    for (int round = 0; round < 4; round++) {   /* two bits: settles in three */
        unsigned mid = plan_block(A, first, entry);
        unsigned back = second ? plan_block(A, second, mid) : mid;
        out = pending | mid;
        if ((entry | back) == entry) break;
        entry |= back;
    }
    return out;
}

static unsigned plan_block(Alloc *A, IrBlock *b, unsigned pending) {
    for (IrOp *op = b->first; op; op = op->next) {
        switch (op->opc) {
        case OP_REDUCE:
        case OP_SCAN: {
            if (!op->attr.smem.set) break;
            unsigned area = 1u << (op->attr.smem.off != 0);   /* area 1 starts after area 0 */
            if (pending & area) op->attr.smem.sync = 1;
            pending = area;   /* its barrier ends every earlier read */
            break;
        }
        case OP_FOR: pending = plan_loop(A, op->regions[0], NULL, pending); break;
        case OP_WHILE: pending = plan_loop(A, op->regions[0], op->regions[1], pending); break;
        case OP_IF: pending = plan_block(A, op->regions[0], pending) | plan_block(A, op->regions[1], pending); break;
        default: break;
        }
    }
    return pending;
}

static void place_reductions(Alloc *A) {
    int32_t size[2] = {0, 0};
    uint8_t *area = arena_alloc(A->arena, A->n_ops + 1);
    uint32_t n = 0;
    for (uint32_t i = 0; i < A->n_ops; i++) {
        IrOp *op = A->ops[i].op;
        int32_t bytes = op->opc == OP_REDUCE || op->opc == OP_SCAN ? red_bytes(A->fn, op) : 0;
        if (!bytes) continue;
        area[i] = (uint8_t)(n++ & 1);
        op->attr.smem.set = 1;
        if (bytes > size[area[i]]) size[area[i]] = bytes;
    }
    for (uint32_t i = 0; i < A->n_ops; i++)
        if (A->ops[i].op->attr.smem.set) A->ops[i].op->attr.smem.off = area[i] ? size[0] : 0;
    plan_block(A, A->fn->body, 0);
    A->red_bytes = size[0] + size[1];
}

/* ---- buffers and scratch ---- */

static void place_buffers(Alloc *A) {
    IrFunc *fn = A->fn;
    for (uint32_t i = 0; i < A->n_bufs; i++) {
        SmemBuf *sb = &A->bufs[i];
        /* first fit after every earlier buffer whose range overlaps */
        int32_t off = align_up(A->red_bytes, sb->align);
        for (uint32_t k = 0; k < i; k++) {
            SmemBuf *o = &A->bufs[k];
            int32_t o_off = fn->vals[o->v].def->attr.smem.off;
            if (A->first[k] <= A->last[i] && A->first[i] <= A->last[k] && o_off + o->size > off)
                off = align_up((int64_t)o_off + o->size, sb->align);
        }
        IrSmem *s = &fn->vals[sb->v].def->attr.smem;
        *s = (IrSmem){.off = off, .slot = sb->slot_bytes, .set = 1};
        if (!sb->mbar) smem_record_shape(s, &sb->plan.shape);
        if (sb->wgmma || sb->tma) fn->smem_align = 1024;   /* the swizzle repeats every 1024 bytes */
        if (off + sb->size > fn->shared_bytes) fn->shared_bytes = off + sb->size;
    }
}

static void place_scratch(Alloc *A) {
    IrFunc *fn = A->fn;
    uint32_t *uses = ir_count_uses(fn);
    for (uint32_t i = 0; i < A->n_ops; i++) {
        IrOp *op = A->ops[i].op;
        SmemPlan p;
        int32_t bytes = smem_scratch_bytes(fn, op, uses, &p);
        if (!bytes) continue;
        int32_t live = A->red_bytes;   /* the end of the buffers live here */
        for (uint32_t b = 0; b < A->n_bufs; b++) {
            int32_t end = fn->vals[A->bufs[b].v].def->attr.smem.off + A->bufs[b].size;
            if (A->first[b] <= (int32_t)i && (int32_t)i <= A->last[b] && end > live) live = end;
        }
        IrSmem *s = &op->attr.smem;
        s->set = 1;
        s->off = align_up(live, 128);
        if (op->opc == OP_CONVERT_LAYOUT) smem_record_shape(s, &p.shape);
        if (s->off + bytes > fn->shared_bytes) fn->shared_bytes = s->off + bytes;
    }
}

void pass_smem(IrFunc *fn) {
    Alloc A = {.fn = fn, .arena = fn->ctx->arena};
    number_ops(&A, fn->body);
    A.num = hidx_new(A.arena, A.n_ops);
    for (uint32_t i = 0; i < A.n_ops; i++) hidx_put(A.num, hash_ptr(A.ops[i].op), i);
    fn->shared_bytes = 0;
    fn->smem_align = 16;
    A.bufs = smem_buffers(fn, &A.n_bufs);
    buffer_ranges(&A);
    place_reductions(&A);
    if (A.red_bytes > fn->shared_bytes) fn->shared_bytes = A.red_bytes;
    place_buffers(&A);
    place_scratch(&A);
    fn->smem_planned = true;
}
