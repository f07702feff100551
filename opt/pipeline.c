/* Software pipelining: a `for` whose body loads tiles that reach a dot
 * operand through a convert_layout gets, per such load, a ring of S =
 * num_stages shared-memory slots filled by async copies S - 1 iterations
 * ahead of the dot that reads them (ptx-notes section 7):
 *
 *   prologue:  for s in 0 .. S-2: copy iteration s's tile into slot s
 *              (masked off when iteration s does not run); commit
 *   loop i:    async_wait S-2; barrier      (slot i%S has landed, and
 *                                            everyone has finished reading
 *                                            slot (i-1)%S)
 *              ... local_load slot i%S where the convert was ... dot
 *              copy iteration i+S-1's tile into slot (i+S-1)%S (masked
 *              off beyond ub); commit (always, even empty: the wait's
 *              count stays right at the tail)
 *   after:     async_wait 0; barrier        (no copy outlives the loop)
 *
 * The copies need the addresses and masks of a later iteration, so the
 * ops computing them (pure ops of the body, from the induction variable,
 * loop-carried values and values from outside) are cloned: once per
 * prologue stage, and once in the body with the induction variable moved
 * S-1 steps ahead and every loop-carried value they read replaced by a new
 * one carried S-1 iterations ahead (advanced by a clone of its own
 * update). The originals then feed nothing and dce removes them.
 *
 * Left alone: num_stages < 2; loops whose step is not a positive constant
 * (the "iteration runs" test is iv < ub); loads with an `other` that is
 * not zero (cp.async fills zeros), volatile, of pointers or i1, whose
 * proven vector is under 4 bytes (cp.async moves 4, 8 or 16) or runs
 * along another dim than the last (the slots are row-major); loads whose
 * result has another use than one convert_layout feeding only dot
 * operands; loads whose address or mask depends on anything but pure ops
 * of the body (a load, a nested region), or on a loop-carried value whose
 * update does. Runs after layout assignment (it keeps layouts).
 */
#include "opt.h"

#include <math.h>
#include <string.h>

typedef struct Cand {
    IrOp *load, *conv;
    ValId buf;
} Cand;

typedef struct Pipe {
    IrFunc *fn;
    IrOp *loop;
    IrBlock *body;
    int S;
    int64_t step;
    uint8_t *ok;          /* per ValId: 0 unknown, 1 computable ahead, 2 not */
    bool *need;           /* per body argument: a carried value the copies read */
    ValId *map;           /* per ValId: its clone in the copy being built */
    ValId *touched;       /* the ids map holds, to clear between copies */
    uint32_t n_touched, cap_touched;
} Pipe;

static bool in_body(Pipe *Q, ValId v) {
    IrValue *x = &Q->fn->vals[v];
    return x->def ? x->def->parent == Q->body : x->block == Q->body;
}

static int arg_index(Pipe *Q, ValId v) {
    for (uint32_t k = 0; k < Q->body->n_args; k++)
        if (Q->body->args[k] == v) return (int)k;
    return -1;
}

/* v can be computed for a later iteration: from outside the loop, the
 * induction variable, carried values (marked needed), pure ops of the body */
static bool ahead_ok(Pipe *Q, ValId v) {
    if (Q->ok[v]) return Q->ok[v] == 1;
    bool good = true;
    if (in_body(Q, v)) {
        IrOp *d = Q->fn->vals[v].def;
        if (!d) {
            int k = arg_index(Q, v);
            if (k > 0) Q->need[k] = true;
        } else if (!(ir_opinfo[d->opc].flags & F_PURE) || d->n_regions) {
            good = false;
        } else {
            Q->ok[v] = 1;   /* operands are older: no cycle through v */
            for (uint32_t i = 0; i < d->n_operands && good; i++) good = ahead_ok(Q, d->operands[i]);
        }
    }
    Q->ok[v] = good ? 1 : 2;
    return good;
}

/* Every needed carried value's update is computable ahead too (which may
 * need more carried values). */
static bool carried_ok(Pipe *Q) {
    IrOp *y = Q->body->last;
    if (!y || y->opc != OP_YIELD || y->n_operands + 1 != Q->body->n_args) return false;
    bool *done = arena_alloc(Q->fn->ctx->arena, sizeof(bool) * Q->body->n_args);
    bool again = true;
    while (again) {
        again = false;
        for (uint32_t k = 1; k < Q->body->n_args; k++) {
            if (!Q->need[k] || done[k]) continue;
            done[k] = true;
            if (!ahead_ok(Q, y->operands[k - 1])) return false;
            again = true;
        }
    }
    return true;
}

static bool is_zero_const(IrFunc *fn, ValId v) {
    IrOp *d = fn->vals[v].def;
    if (!d || d->opc != OP_CONST) return false;
    if (elem_is_float((ElemType)fn->vals[v].type.elem)) return d->attr.f == 0 && !signbit(d->attr.f);
    return d->attr.i == 0;
}

/* The op of the body that uses v (v has one use), or NULL if that use is
 * not directly in the body. */
static IrOp *only_user(Pipe *Q, ValId v) {
    for (IrOp *op = Q->body->first; op; op = op->next)
        for (uint32_t i = 0; i < op->n_operands; i++)
            if (op->operands[i] == v) return op;
    return NULL;
}

/* The vector width cp.async can copy for a load: bytes per vector */
static int copy_bytes(IrFunc *fn, IrOp *load) {
    ElemType e = (ElemType)fn->vals[load->results[0]].type.elem;
    int vec = load->attr.vec > 0 ? load->attr.vec : 1;
    int bytes = vec * elem_bytes(e);
    return bytes > 16 ? 16 : bytes;
}

/* conv's result feeds only dot operands a and b */
static bool feeds_dots_only(Pipe *Q, IrOp *conv, const uint32_t *uses) {
    ValId r = conv->results[0];
    uint32_t seen = 0;
    for (IrOp *op = Q->body->first; op; op = op->next)
        for (uint32_t i = 0; i < op->n_operands; i++) {
            if (op->operands[i] != r) continue;
            if (op->opc != OP_DOT || i > 1) return false;
            seen++;
        }
    return seen == uses[r] && seen > 0;
}

static bool candidate(Pipe *Q, IrOp *op, const uint32_t *uses, Cand *c) {
    IrFunc *fn = Q->fn;
    if (op->opc != OP_LOAD || (op->attr.flags & LOADF_VOLATILE)) return false;
    ValId r = op->results[0];
    IrType t = fn->vals[r].type;
    ElemType e = (ElemType)t.elem;
    if (t.rank < 2 || t.rank > IR_MAX_RANK - 1 || e == ET_PTR || e == ET_I1 || elem_bytes(e) > 8) return false;
    if (copy_bytes(fn, op) < 4 || fn->vals[r].layout < 0) return false;
    /* the vectors must run along the last dim: the buffer is row-major */
    const Layout *l = &fn->layouts[fn->vals[r].layout];
    if (layout_contig_regs(l, l->rank - 1) < (op->attr.vec > 0 ? op->attr.vec : 1)) return false;
    if (op->n_operands > 2 && !is_zero_const(fn, op->operands[2])) return false;
    if (uses[r] != 1) return false;
    IrOp *conv = only_user(Q, r);
    if (!conv || conv->opc != OP_CONVERT_LAYOUT || !feeds_dots_only(Q, conv, uses)) return false;
    for (uint32_t i = 0; i < op->n_operands && i < 2; i++)
        if (!ahead_ok(Q, op->operands[i])) return false;
    c->load = op;
    c->conv = conv;
    return true;
}

/* ---- cloning the address computations ---- */

static void map_set(Pipe *Q, ValId from, ValId to) {
    if (!Q->map[from]) VEC_PUSH(Q->fn->ctx->arena, Q->touched, Q->n_touched, Q->cap_touched, from);
    Q->map[from] = to;
}

static void map_clear(Pipe *Q) {
    for (uint32_t i = 0; i < Q->n_touched; i++) Q->map[Q->touched[i]] = VAL_NONE;
    Q->n_touched = 0;
}

/* v for the iteration the map describes: clones of body ops at b */
static ValId clone(Pipe *Q, IrBuilder *b, ValId v) {
    if (Q->map[v]) return Q->map[v];
    if (!in_body(Q, v)) return v;
    IrFunc *fn = Q->fn;
    IrOp *d = fn->vals[v].def;
    TRIC_ASSERT(d && (ir_opinfo[d->opc].flags & F_PURE) && !d->n_regions);   /* args are mapped */
    ValId *ops = arena_alloc(fn->ctx->arena, sizeof(ValId) * (d->n_operands ? d->n_operands : 1));
    for (uint32_t i = 0; i < d->n_operands; i++) ops[i] = clone(Q, b, d->operands[i]);
    IrType *types = arena_alloc(fn->ctx->arena, sizeof(IrType) * d->n_results);
    for (uint32_t i = 0; i < d->n_results; i++) types[i] = fn->vals[d->results[i]].type;
    SrcLoc saved = b->loc;
    b->loc = d->loc;
    IrOp *n = ir_build(b, d->opc, ops, d->n_operands, types, d->n_results, 0);
    b->loc = saved;
    n->attr = d->attr;
    for (uint32_t i = 0; i < d->n_results; i++) {
        fn->vals[n->results[i]].layout = fn->vals[d->results[i]].layout;
        map_set(Q, d->results[i], n->results[i]);
    }
    return Q->map[v];
}

/* async_copy of candidate c for the mapped iteration, masked by its own
 * mask and the scalar `runs` (the iteration exists) */
static void emit_copy(Pipe *Q, IrBuilder *b, const Cand *c, ValId slot, ValId runs) {
    IrFunc *fn = Q->fn;
    IrOp *ld = c->load;
    ValId p = clone(Q, b, ld->operands[0]);
    IrType mt = ir_with_elem(fn->vals[p].type, ir_scalar(ET_I1));
    int32_t layout = fn->vals[p].layout;
    ValId m = ir_build1(b, OP_SPLAT, mt, runs);
    fn->vals[m].layout = layout;
    if (ld->n_operands > 1) {
        m = ir_build2(b, OP_AND, mt, clone(Q, b, ld->operands[1]), m);
        fn->vals[m].layout = layout;
    }
    ValId ops[4] = {c->buf, slot, p, m};
    IrOp *cp = ir_build(b, OP_ASYNC_COPY, ops, 4, NULL, 0, 0);
    cp->attr.vec = ld->attr.vec;
}

/* ---- the transformation ---- */

/* Adds a loop-carried value to the for op: init, its body argument, its
 * result (layout of init); the yield gets `next` later. */
static ValId add_carried(Pipe *Q, ValId init) {
    IrFunc *fn = Q->fn;
    IrOp *op = Q->loop;
    IrType t = fn->vals[init].type;
    int32_t layout = fn->vals[init].layout;
    ValId *ops = arena_alloc(fn->ctx->arena, sizeof(ValId) * (op->n_operands + 1));
    memcpy(ops, op->operands, sizeof(ValId) * op->n_operands);
    ops[op->n_operands] = init;
    ir_op_set_operands(fn, op, ops, op->n_operands + 1);
    ValId *res = arena_alloc(fn->ctx->arena, sizeof(ValId) * (op->n_results + 1));
    if (op->n_results) memcpy(res, op->results, sizeof(ValId) * op->n_results);
    ValId r = ir_value_new(fn, t);
    fn->vals[r].def = op;
    fn->vals[r].layout = layout;
    res[op->n_results++] = r;
    op->results = res;
    ValId a = ir_block_add_arg(fn, Q->body, t);
    fn->vals[a].layout = layout;
    return a;
}

static void add_yield(Pipe *Q, ValId v) {
    IrOp *y = Q->body->last;
    ValId *ops = arena_alloc(Q->fn->ctx->arena, sizeof(ValId) * (y->n_operands + 1));
    memcpy(ops, y->operands, sizeof(ValId) * y->n_operands);
    ops[y->n_operands] = v;
    ir_op_set_operands(Q->fn, y, ops, y->n_operands + 1);
}

static IrOp *wait_op(IrBuilder *b, int pending) {
    IrOp *w = ir_build(b, OP_ASYNC_WAIT, NULL, 0, NULL, 0, 0);
    w->attr.i = pending;
    ir_build(b, OP_BARRIER, NULL, 0, NULL, 0, 0);
    return w;
}

/* slot + 1, wrapping to 0 at S */
static ValId next_slot(Pipe *Q, IrBuilder *b, ValId slot) {
    IrType i32 = ir_scalar(ET_I32);
    ValId n = ir_build2(b, OP_ADD, i32, slot, ir_const_int(b, i32, 1));
    ValId wrap = ir_build2(b, OP_CMP, ir_scalar(ET_I1), n, ir_const_int(b, i32, Q->S));
    Q->fn->vals[wrap].def->attr.i = CMP_GE;
    return ir_build3(b, OP_SELECT, i32, wrap, ir_const_int(b, i32, 0), n);
}

static ValId less_than(IrBuilder *b, ValId x, ValId y) {
    ValId r = ir_build2(b, OP_CMP, ir_scalar(ET_I1), x, y);
    b->fn->vals[r].def->attr.i = CMP_LT;
    return r;
}

static void pipeline_loop(Pipe *Q, Cand *cands, uint32_t n) {
    IrFunc *fn = Q->fn;
    IrOp *loop = Q->loop;
    IrBlock *body = Q->body;
    ValId lb = loop->operands[0], ub = loop->operands[1], iv = body->args[0];
    IrType it = fn->vals[iv].type, i32 = ir_scalar(ET_I32);
    uint32_t nargs = body->n_args;
    IrBuilder b = {fn, loop->parent, loop, loop->loc};

    for (uint32_t i = 0; i < n; i++) {
        IrType t = fn->vals[cands[i].load->results[0]].type, bt = t;
        bt.rank = (uint8_t)(t.rank + 1);
        bt.shape[0] = Q->S;
        for (int d = 0; d < t.rank; d++) bt.shape[d + 1] = t.shape[d];
        cands[i].buf = ir_build(&b, OP_LOCAL_ALLOC, NULL, 0, &bt, 1, 0)->results[0];
    }
    /* prologue: iterations 0 .. S-2; cur[k] = carried value k at the stage */
    ValId *cur = arena_alloc(fn->ctx->arena, sizeof(ValId) * nargs);
    for (uint32_t k = 1; k < nargs; k++) cur[k] = loop->operands[3 + k - 1];
    IrOp *y = body->last;
    for (int s = 0; s < Q->S - 1; s++) {
        ValId ivs = s ? ir_build2(&b, OP_ADD, it, lb, ir_const_int(&b, it, s * Q->step)) : lb;
        ValId runs = less_than(&b, ivs, ub);
        map_clear(Q);
        map_set(Q, iv, ivs);
        for (uint32_t k = 1; k < nargs; k++)
            if (Q->need[k]) map_set(Q, body->args[k], cur[k]);
        for (uint32_t i = 0; i < n; i++) emit_copy(Q, &b, &cands[i], ir_const_int(&b, i32, s), runs);
        ir_build(&b, OP_ASYNC_COMMIT, NULL, 0, NULL, 0, 0);
        ValId *next = arena_alloc(fn->ctx->arena, sizeof(ValId) * nargs);
        for (uint32_t k = 1; k < nargs; k++) next[k] = Q->need[k] ? clone(Q, &b, y->operands[k - 1]) : cur[k];
        cur = next;
    }
    /* the body: carried values S-1 iterations ahead, and the two slots */
    ValId *ahead = arena_alloc(fn->ctx->arena, sizeof(ValId) * nargs);
    for (uint32_t k = 1; k < nargs; k++)
        if (Q->need[k]) ahead[k] = add_carried(Q, cur[k]);
    ValId rslot = add_carried(Q, ir_const_int(&b, i32, 0));
    ValId wslot = add_carried(Q, ir_const_int(&b, i32, Q->S - 1));
    IrBuilder top = {fn, body, body->first, loop->loc};
    wait_op(&top, Q->S - 2);
    /* the copies go last: after the barrier the warps read their slot and
     * start the mmas at once, with no copies queued ahead of those reads in
     * the memory pipe (H100, 128x256x64 tiles: 397 -> 427 TFLOP/s); the PTX
     * issues them after the dot's first k-step (ptx_emit_copies_after),
     * which keeps them almost an iteration earlier (128x128x64: 443 -> 461) */
    IrBuilder bb = {fn, body, body->last, loop->loc};
    ValId ivn = ir_build2(&bb, OP_ADD, it, iv, ir_const_int(&bb, it, (Q->S - 1) * Q->step));
    ValId runs = less_than(&bb, ivn, ub);
    map_clear(Q);
    map_set(Q, iv, ivn);
    for (uint32_t k = 1; k < nargs; k++)
        if (Q->need[k]) map_set(Q, body->args[k], ahead[k]);
    for (uint32_t i = 0; i < n; i++) emit_copy(Q, &bb, &cands[i], wslot, runs);
    ir_build(&bb, OP_ASYNC_COMMIT, NULL, 0, NULL, 0, 0);
    /* the reads replace the converts; the loads go */
    for (uint32_t i = 0; i < n; i++) {
        IrOp *conv = cands[i].conv;
        ValId r = conv->results[0];
        IrBuilder at = {fn, body, conv, conv->loc};
        ValId ops[2] = {cands[i].buf, rslot};
        IrType t = fn->vals[r].type;
        ValId v = ir_build(&at, OP_LOCAL_LOAD, ops, 2, &t, 1, 0)->results[0];
        fn->vals[v].layout = fn->vals[r].layout;
        ir_replace_uses(fn, r, v);
        ir_op_unlink(conv);
        ir_op_unlink(cands[i].load);
    }
    /* updates, at the end of the body */
    IrBuilder be = {fn, body, body->last, loop->loc};
    for (uint32_t k = 1; k < nargs; k++)
        if (Q->need[k]) add_yield(Q, clone(Q, &be, y->operands[k - 1]));
    add_yield(Q, next_slot(Q, &be, rslot));
    add_yield(Q, next_slot(Q, &be, wslot));
    IrBuilder after = {fn, loop->parent, loop->next, loop->loc};
    if (!loop->next) after.before = NULL;
    wait_op(&after, 0);
}

static void try_loop(IrFunc *fn, IrOp *loop, const uint32_t *uses) {
    IrOp *step = fn->vals[loop->operands[2]].def;
    if (!step || step->opc != OP_CONST || step->attr.i <= 0 || step->attr.i > INT32_MAX) return;
    Pipe Q = {fn, loop, loop->regions[0], fn->ctx->target.num_stages, step->attr.i, NULL, NULL, NULL, NULL, 0, 0};
    Q.ok = arena_alloc(fn->ctx->arena, fn->n_vals);
    Q.need = arena_alloc(fn->ctx->arena, sizeof(bool) * Q.body->n_args);
    Cand *cands = NULL;
    uint32_t n = 0, cap = 0;
    for (IrOp *op = Q.body->first; op; op = op->next) {
        Cand c = {0};
        if (candidate(&Q, op, uses, &c)) VEC_PUSH(fn->ctx->arena, cands, n, cap, c);
    }
    if (!n || !carried_ok(&Q)) return;
    Q.map = arena_alloc(fn->ctx->arena, sizeof(ValId) * fn->n_vals * 2 + 64);
    pipeline_loop(&Q, cands, n);
}

typedef struct Loops {
    IrOp **ops;
    uint32_t n, cap;
} Loops;

static void collect_loop(IrFunc *fn, IrOp *op, void *ud) {
    Loops *l = ud;
    if (op->opc == OP_FOR) VEC_PUSH(fn->ctx->arena, l->ops, l->n, l->cap, op);
}

void pass_pipeline(IrFunc *fn) {
    if (fn->ctx->target.num_stages < 2) return;
    Loops loops = {0};
    ir_walk(fn, fn->body, collect_loop, &loops);
    for (uint32_t i = 0; i < loops.n; i++) try_loop(fn, loops.ops[i], ir_count_uses(fn));
}
