/* The Hopper dot: a dot whose accumulator has the wgmma layout (pass_layout
 * gives it one on sm_90a where the shapes and types fit) and whose B tile
 * is read from a pipelined buffer (a local_load of a slot) becomes
 *
 *   %d = wgmma %abuf, %aslot, %bbuf, %bslot, %acc    (A from its slot too)
 *   %d = wgmma %a, %bbuf, %bslot, %acc               (A from registers)
 *   %r = wgmma_wait %d {pending = 0}
 *
 * so the tensor cores read the operands from shared memory where the async
 * copies left them, with no ldmatrix into registers (ptxgen lays such a
 * buffer out as wgmma's canonical swizzled layout: doc/ptx.md, "Matrix
 * descriptor"). The local_loads it no longer needs are left to dce. A dot
 * whose B is in registers stays a dot (mma.sync runs the same layouts), as
 * does one whose B the tensor cores cannot read: an 8-bit B that is
 * N-major (wgmma transposes 16-bit operands only), a contiguous dim under
 * 32 bytes; an A like that is read from registers. An accumulator
 * select(splat(p), c, 0) (a flattened loop restarting it at each tile) is
 * c with wgmma's use_acc p. In a K loop the wait keeps the group in flight
 * (keep_in_flight).
 *
 * cp.async writes shared memory through the generic proxy and wgmma reads
 * it through the async proxy: the writes are ordered before the reads only
 * by a proxy fence. So each async_wait before a wgmma (in its block or an
 * enclosing one) that reads a buffer async_copy fills is followed by
 * fence_async_shared, before the barrier that publishes the slot to the
 * other warps. TMA writes through the async proxy already. */
#include "opt.h"

/* The dim of buf's tile that its copies' vectors run along (-1: no
 * copy writes it): ptxgen stores the slot with that dim contiguous. TMA
 * copies keep the tile's last dim contiguous. */
static int copied_dim(IrFunc *fn, IrBlock *b, ValId buf) {
    for (IrOp *op = b->first; op; op = op->next) {
        if (op->opc == OP_TMA_COPY && op->operands[0] == buf) return fn->vals[buf].type.rank - 2;
        if (op->opc == OP_ASYNC_COPY && op->operands[0] == buf) {
            int32_t l = fn->vals[op->operands[2]].layout;
            return l < 0 ? -1 : layout_vector_dim(&fn->layouts[l], op->attr.vec > 0 ? op->attr.vec : 1);
        }
        for (uint32_t r = 0; r < op->n_regions; r++) {
            int d = copied_dim(fn, op->regions[r], buf);
            if (d != -2) return d;
        }
    }
    return -2;   /* not in this block */
}

/* The tensor cores can read a slot of buf as operand `which` (0 A, 1 B;
 * transposed: the slot holds it transposed, K x M or N x K):
 * its contiguous dim spans 32 bytes at least (the narrowest swizzle), and
 * 8-bit operands are K-major (wgmma transposes 16-bit ones only). */
static bool readable(IrFunc *fn, ValId buf, int which, bool transposed) {
    IrType t = fn->vals[buf].type;   /* slots x rows x cols */
    int d = copied_dim(fn, fn->body, buf), kdim = (which == 0) != transposed ? 1 : 0;
    if (d < 0) return false;
    int eb = elem_bytes((ElemType)t.elem);
    return t.shape[1 + d] * eb >= 32 && (eb == 2 || d == kdim);
}

/* v read from a slot: its local_load (buffer, slot), possibly through a
 * trans (`b.T` of a K-major tile: *transposed); NULL if it is not */
static IrOp *slot_read(IrFunc *fn, ValId v, bool *transposed) {
    IrOp *d = fn->vals[v].def;
    *transposed = d && d->opc == OP_TRANS && d->attr.n_ints == 2 && d->attr.ints[0] == 1;
    if (*transposed) d = fn->vals[d->operands[0]].def;
    return d && d->opc == OP_LOCAL_LOAD ? d : NULL;
}

typedef struct Users {
    ValId v;
    uint32_t n;
    IrOp *op;
} Users;

static void count_user(IrFunc *fn, IrOp *op, void *ud) {
    (void)fn;
    Users *u = ud;
    for (uint32_t i = 0; i < op->n_operands; i++)
        if (op->operands[i] == u->v) u->n++, u->op = op;
}

/* the one op that uses v, or NULL when it has more uses or none */
static IrOp *only_user(IrFunc *fn, ValId v) {
    Users u = {v, 0, NULL};
    ir_walk(fn, fn->body, count_user, &u);
    return u.n == 1 ? u.op : NULL;
}

/* Uses of v in block b's region ops after `from`, outside the terminator:
 * each region using it reads it through its own wait for none, made first
 * in the region (taken only in some iterations: a flattened loop's
 * epilogue); false if an op there reads v directly */
static bool wait_in_regions(IrFunc *fn, IrOp *from, ValId v) {
    for (IrOp *op = from->next; op && op != from->parent->last; op = op->next)
        for (uint32_t i = 0; i < op->n_operands; i++)
            if (op->operands[i] == v) return false;
    for (IrOp *op = from->next; op && op != from->parent->last; op = op->next)
        for (uint32_t r = 0; r < op->n_regions; r++) {
            Users u = {v, 0, NULL};
            ir_walk(fn, op->regions[r], count_user, &u);
            if (!u.n) continue;
            IrType t = fn->vals[v].type;
            IrOp *w = ir_op_new(fn, OP_WGMMA_WAIT, from->loc, &v, 1, &t, 1, 0);
            fn->vals[w->results[0]].layout = fn->vals[v].layout;
            ir_replace_uses_in(fn, op->regions[r], v, w->results[0]);
            if (op->regions[r]->first) ir_insert_before(op->regions[r]->first, w);
            else ir_block_append(op->regions[r], w);
        }
    return true;
}

/* A K loop's wgmma keeps its group in flight across the iterations: where
 * its accumulator is a carried value that only it reads and its wait's
 * result is yielded (and otherwise read only in regions: see
 * wait_in_regions), the wait lets one group stay pending (the next
 * iteration's wgmma queues behind it on the tensor cores while the loop
 * computes its addresses and copies) and a wait for none follows the loop.
 * Every slot the copies of iteration i overwrite was read by the wgmma of
 * iteration i - 1: one pending group is this iteration's, so after this
 * warpgroup's wait that read is done, and with several warpgroups a
 * barrier before the copies makes it done in every one. */
static void keep_in_flight(IrFunc *fn, IrOp *w, IrOp *wait) {
    IrBlock *body = w->parent;
    IrOp *loop = body->parent;
    ValId acc = w->operands[ir_wgmma_n_main(w) - 1];
    if (!loop || loop->opc != OP_FOR || fn->vals[acc].block != body || fn->vals[acc].def) return;
    if (only_user(fn, acc) != w) return;
    uint32_t k = 0;   /* the carried value: block argument k + 1, result k */
    while (k + 1 < body->n_args && body->args[k + 1] != acc) k++;
    if (body->last->opc != OP_YIELD || k >= body->last->n_operands || body->last->operands[k] != wait->results[0]) return;
    for (uint32_t i = 0; i < body->last->n_operands; i++)
        if (i != k && body->last->operands[i] == wait->results[0]) return;
    if (!wait_in_regions(fn, wait, wait->results[0])) return;
    wait->attr.i = 1;
    IrOp *copy = wait->next;
    while (copy && copy->opc != OP_ASYNC_COPY && copy->opc != OP_TMA_COPY) copy = copy->next;
    /* one warpgroup: its own wait is enough; TMA copies have their barrier */
    if (copy && fn->ctx->target.num_warps > 4 && copy->prev->opc != OP_BARRIER) {
        IrBuilder at = {fn, body, copy, wait->loc};
        ir_build(&at, OP_BARRIER, NULL, 0, NULL, 0, 0);
    }
    ValId res = loop->results[k];
    IrType t = fn->vals[res].type;
    IrBuilder after = {fn, loop->parent, loop->next, wait->loc};
    IrOp *done = ir_build(&after, OP_WGMMA_WAIT, &res, 1, &t, 1, 0);
    fn->vals[done->results[0]].layout = fn->vals[res].layout;
    ir_replace_uses(fn, res, done->results[0]);
    done->operands[0] = res;   /* replace_uses rewrote the wait's own operand too */
}

/* acc = select(splat(p), c, 0) (a flattened loop's accumulator, zero at
 * each tile's start): the dot's own, p its use_acc; else VAL_NONE */
static ValId restarted_acc(IrFunc *fn, ValId acc, ValId *use_acc) {
    IrOp *sel = fn->vals[acc].def;
    if (!sel || sel->opc != OP_SELECT || !opt_is_zero_const(fn, sel->operands[2])) return VAL_NONE;
    IrOp *splat = fn->vals[sel->operands[0]].def;
    if (!splat || splat->opc != OP_SPLAT || fn->vals[sel->operands[1]].layout != fn->vals[acc].layout) return VAL_NONE;
    *use_acc = splat->operands[0];
    return sel->operands[1];
}

static void lower_dot(IrFunc *fn, IrOp *op, void *ud) {
    (void)ud;
    if (op->opc != OP_DOT || !layout_dot_wgmma_bits(fn, op)) return;
    ValId a = op->operands[0], b = op->operands[1], acc = op->operands[2], r = op->results[0];
    ValId use_acc = VAL_NONE, restarted = restarted_acc(fn, acc, &use_acc);
    IrType ct = fn->vals[acc].type;
    Layout want = layout_wgmma_acc(ct.shape, fn->ctx->target.num_warps);
    int32_t lc = fn->vals[acc].layout;
    bool at, bt;
    IrOp *rb = slot_read(fn, b, &bt), *ra = slot_read(fn, a, &at);
    if (ra && !readable(fn, ra->operands[0], 0, at)) ra = NULL;   /* A from registers then */
    if (lc < 0 || !layout_eq(&fn->layouts[lc], &want) || !rb || !readable(fn, rb->operands[0], 1, bt)) return;
    ValId ops[6];   /* [abuf, aslot | a], bbuf, bslot, acc[, use_acc] */
    uint32_t n = 0;
    if (ra) {
        ops[n++] = ra->operands[0];
        ops[n++] = ra->operands[1];
    } else {
        ops[n++] = a;
    }
    ops[n++] = rb->operands[0];
    ops[n++] = rb->operands[1];
    IrOp *sel = fn->vals[acc].def;
    bool restart = restarted && only_user(fn, acc) == op;
    ops[n++] = restart ? restarted : acc;
    if (restart) ops[n++] = use_acc;
    IrBuilder bld = {fn, op->parent, op, op->loc};
    IrOp *w = ir_build(&bld, OP_WGMMA, ops, n, &ct, 1, 0);
    w->attr.i = op->attr.i;
    w->attr.flags = (uint8_t)((ra && at ? WGMMA_A_T : 0) | (bt ? WGMMA_B_T : 0) | (restart ? WGMMA_USE_ACC : 0));
    if (restart) ir_op_unlink(sel);   /* its only user was the dot (the splat is left to dce) */
    fn->vals[w->results[0]].layout = lc;
    IrOp *wait = ir_build(&bld, OP_WGMMA_WAIT, &w->results[0], 1, &ct, 1, 0);
    fn->vals[wait->results[0]].layout = lc;
    ir_replace_uses(fn, r, wait->results[0]);
    ir_op_unlink(op);
    keep_in_flight(fn, w, wait);
}

/* buf is written by an async_copy (somewhere under b) */
static bool async_copied(IrBlock *b, ValId buf) {
    for (IrOp *op = b->first; op; op = op->next) {
        if (op->opc == OP_ASYNC_COPY && op->operands[0] == buf) return true;
        for (uint32_t r = 0; r < op->n_regions; r++)
            if (async_copied(op->regions[r], buf)) return true;
    }
    return false;
}

/* a fence after every async_wait before op in its block and the enclosing ones */
static void fence_waits_before(IrFunc *fn, IrOp *op) {
    for (IrOp *at = op; at; at = at->parent->parent) {
        for (IrOp *o = at->parent->first; o != at; o = o->next) {
            if (o->opc != OP_ASYNC_WAIT || (o->next && o->next->opc == OP_FENCE_ASYNC)) continue;
            IrBuilder b = {fn, at->parent, o->next, o->loc};
            ir_build(&b, OP_FENCE_ASYNC, NULL, 0, NULL, 0, 0);
        }
    }
}

static void fence_copies(IrFunc *fn, IrOp *op, void *ud) {
    (void)ud;
    if (op->opc != OP_WGMMA) return;
    bool ss = ir_wgmma_n_main(op) == 5;   /* A from a slot too */
    uint32_t n_bufs = ss ? 2 : 1;
    ValId bufs[2] = {op->operands[ss ? 0 : 1], op->operands[2]};
    for (uint32_t i = 0; i < n_bufs; i++)
        if (async_copied(fn->body, bufs[i])) {
            fence_waits_before(fn, op);
            return;
        }
}

void pass_wgmma(IrFunc *fn) {
    ir_walk(fn, fn->body, lower_dot, NULL);
    ir_walk(fn, fn->body, fence_copies, NULL);
}
