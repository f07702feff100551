/* Software pipelining. A `for` gets, per pipelined load, a ring of
 * shared-memory slots filled by async copies S - 1 iterations ahead of the
 * op that reads them (doc/ptx.md, "cp.async"). S is the loop's own
 * num_stages (tl.range's) or else the kernel's. Two kinds of loop:
 *
 *  - dot loops: the loads whose tiles reach a dot operand through one
 *    convert_layout, trans (`b.T`) and elementwise ops of one operand (a
 *    cast of fp8), in any order. A dot that becomes wgmma (its layout is
 *    wgmma's) reads its slot while later copies are in flight, so the ring
 *    has S slots:
 *
 *   prologue:  for s in 0 .. S-2: copy iteration s's tile into slot s
 *              (masked off when iteration s does not run); commit
 *   loop i:    async_wait S-2; barrier      (slot i%S has landed, and
 *                                            everyone has finished reading
 *                                            slot (i-1)%S)
 *              ... local_load slot i%S in the dot operand's layout where
 *              the chain ended (then select(mask, it, other) unless other
 *              is +0: the copy fills zeros; then the chain's elementwise
 *              ops) ... dot
 *              copy iteration i+S-1's tile into slot (i+S-1)%S (masked
 *              off beyond ub); commit (always, even empty: the wait's
 *              count stays right at the tail)
 *   after:     async_wait 0; barrier        (no copy outlives the loop)
 *
 *    An mma.sync dot has its operands in registers (ldmatrix) once it is
 *    done, so its slot is free again then, and the ring has S - 1 slots,
 *    as Triton's for mma.sync: the copies of iteration i+S-1 go into the
 *    slot just read, after a barrier that follows the dot. The smem per
 *    stage that buys (2 slots of 128x256x128 fp16 tiles fit in 227 KB, 3
 *    do not) is what the largest tiles need on sm_80.
 *
 *  - plain loops: a loop with its own num_stages and no dot (Triton's rule:
 *    the user asked for it). Every load that cp.async can move is
 *    pipelined; its tile goes from the slot into registers, so the slot is
 *    free again once read and the ring has S - 1 slots:
 *
 *   loop i:    async_wait S-2; barrier
 *              ... local_load slot i%(S-1) where the load was (then
 *              select(mask, it, other) unless other is +0: the copy fills
 *              zeros) ...; after the last such read: barrier; copy
 *              iteration i+S-1's tile into the same slot; commit
 *
 *    The barriers go where every element is read by the thread that copied
 *    it (one layout for copy and read, no element held by two threads): a
 *    thread's own copies are visible to it after the wait, and its read of
 *    a slot comes before its next copy into it in program order.
 *    A load's data is fetched S-1 iterations early, so ahead of the stores
 *    in between, as in Triton: asking for num_stages promises that they do
 *    not write what it reads.
 *
 * The copies need the addresses and masks of a later iteration, so the
 * ops computing them (pure ops of the body and ifs whose regions only
 * compute, from the induction variable, loop-carried values and values
 * from outside) are cloned: once per
 * prologue stage, and once in the body with the induction variable moved
 * S-1 steps ahead and every loop-carried value they read replaced by a new
 * one carried S-1 iterations ahead (advanced by a clone of its own
 * update). The originals then feed nothing and dce removes them.
 *
 * Left alone: S < 2; loops whose step is not known positive (a positive
 * constant or num_programs: "iteration i+k runs" is iv + k*step < ub); loads
 * that are volatile, of pointers or i1, whose proven vector is under 4
 * bytes (cp.async moves 4, 8 or 16), of scalars; loads whose address or
 * mask depends on anything but what can be cloned (a load, a region with
 * effects), or on a loop-carried value whose update does; in dot loops,
 * loads whose result has another use than such a chain. The vectors may
 * run along any dim: ptxgen stores the slot with that dim last. Runs after
 * layout assignment (it keeps layouts).
 */
#include "opt.h"

#include <math.h>
#include <string.h>

typedef struct Cand {
    IrOp *load;
    IrOp *last;     /* dot loops: the last op of the chain from the load to the dot */
    ValId buf;
    bool tma;       /* moved by TMA (a tensor descriptor's block), not cp.async */
    ValId bars;     /* tma: the ring's mbarriers */
} Cand;

typedef struct Pipe {
    IrFunc *fn;
    IrOp *loop;
    IrBlock *body;
    int S;
    bool plain;           /* no dot: every copyable load, S - 1 slots */
    bool reuse;           /* the copies refill the slot just read: S - 1 slots (plain, and mma.sync dots) */
    bool private_;        /* plain: each thread reads only what it copied */
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

/* an if whose regions only compute (pure ops, pure ifs): a flattened
 * loop's values that change at tile boundaries (opt/flatten.c) */
static bool pure_if(const IrOp *op) {
    if (op->opc != OP_IF) return false;
    for (uint32_t r = 0; r < op->n_regions; r++)
        for (const IrOp *o = op->regions[r]->first; o; o = o->next)
            if (o->opc != OP_YIELD && (o->n_regions ? !pure_if(o) : !(ir_opinfo[o->opc].flags & F_PURE))) return false;
    return true;
}

typedef struct Free {
    Pipe *Q;
    ValId *v;
    uint32_t n, cap;
} Free;

static void note_free(IrFunc *fn, IrOp *op, void *ud) {
    Free *f = ud;
    for (uint32_t i = 0; i < op->n_operands; i++)
        if (in_body(f->Q, op->operands[i])) VEC_PUSH(fn->ctx->arena, f->v, f->n, f->cap, op->operands[i]);
}

/* the values of the body an op's regions read */
static Free free_values(Pipe *Q, IrOp *op) {
    Free f = {Q, NULL, 0, 0};
    for (uint32_t r = 0; r < op->n_regions; r++) ir_walk(Q->fn, op->regions[r], note_free, &f);
    return f;
}

/* v can be computed for a later iteration: from outside the loop, the
 * induction variable, carried values (marked needed), pure ops and pure
 * ifs of the body */
static bool ahead_ok(Pipe *Q, ValId v) {
    if (Q->ok[v]) return Q->ok[v] == 1;
    bool good = true;
    if (in_body(Q, v)) {
        IrOp *d = Q->fn->vals[v].def;
        if (!d) {
            int k = arg_index(Q, v);
            if (k > 0) Q->need[k] = true;
        } else if (d->n_regions ? !pure_if(d) : !(ir_opinfo[d->opc].flags & F_PURE)) {
            good = false;
        } else {
            Q->ok[v] = 1;   /* operands are older: no cycle through v */
            for (uint32_t i = 0; i < d->n_operands && good; i++) good = ahead_ok(Q, d->operands[i]);
            Free f = d->n_regions ? free_values(Q, d) : (Free){0};
            for (uint32_t i = 0; i < f.n && good; i++) good = ahead_ok(Q, f.v[i]);
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

bool opt_is_zero_const(IrFunc *fn, ValId v) {
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

/* v feeds only dot operands a and b */
static bool feeds_dots_only(Pipe *Q, ValId v, const uint32_t *uses) {
    uint32_t seen = 0;
    for (IrOp *op = Q->body->first; op; op = op->next)
        for (uint32_t i = 0; i < op->n_operands; i++) {
            if (op->operands[i] != v) continue;
            if (op->opc != OP_DOT || i > 1) return false;
            seen++;
        }
    return seen == uses[v] && seen > 0;
}

/* an op a dot operand may pass through between its load and the dot:
 * one convert_layout, trans (`b.T` of a K-major tile), and elementwise ops
 * of one operand (an fp8 tile's .to(tl.float16)) */
static bool chain_op(const IrOp *op) {
    unsigned f = ir_opinfo[op->opc].flags;
    return op->opc == OP_CONVERT_LAYOUT || op->opc == OP_TRANS ||
           ((f & F_PURE) && (f & F_ELEMWISE) && op->n_operands == 1);
}

/* A dot loop's load of a tensor descriptor's block that TMA can move */
static bool by_tma(Pipe *Q, const IrOp *op) {
    return !Q->plain && (op->attr.flags & LOADF_TMA) && target_info(&Q->fn->ctx->target)->hopper;
}

/* Why cp.async (or TMA) cannot copy a load's tile for a later iteration
 * (NULL: it can). The reasons are recorded on the loads (doc/ir.md:
 * unpipelined). */
static const char *copy_obstacle(Pipe *Q, IrOp *op) {
    IrFunc *fn = Q->fn;
    if (op->attr.flags & LOADF_VOLATILE) return "volatile";
    if (by_tma(Q, op)) {   /* the tensor map and the coordinates, not the pointers */
        for (uint32_t i = 3; i < op->n_operands; i++)
            if (!ahead_ok(Q, op->operands[i])) return "its coordinates come from a load or a nested region of the loop";
        return NULL;
    }
    ValId r = op->results[0];
    IrType t = fn->vals[r].type;
    ElemType e = (ElemType)t.elem;
    if (t.rank < 1) return "a scalar";
    if (t.rank > IR_MAX_RANK - 1) return "a rank-4 tile (slots add a dim)";
    if (e == ET_PTR || e == ET_I1 || elem_bytes(e) > 8) return "elements cp.async does not copy (pointers, i1)";
    if (copy_bytes(fn, op) < 4)
        return arena_printf(fn->ctx->arena, "%d-byte vectors (cp.async copies 4, 8 or 16 bytes)", copy_bytes(fn, op));
    /* the vectors run along one dim (ptxgen stores the slot with it last) */
    if (layout_vector_dim(&fn->layouts[fn->vals[op->operands[0]].layout], op->attr.vec > 0 ? op->attr.vec : 1) < 0)
        return "its vectors run along no one dim";
    for (uint32_t i = 0; i < op->n_operands && i < 2; i++)
        if (!ahead_ok(Q, op->operands[i])) return "its address or mask comes from a load or a nested region of the loop";
    return NULL;
}

/* Why op, a load in the body, is not pipelined (NULL: c describes it). */
static const char *obstacle(Pipe *Q, IrOp *op, const uint32_t *uses, Cand *c) {
    IrFunc *fn = Q->fn;
    ValId r = op->results[0];
    const char *why = copy_obstacle(Q, op);
    if (why) return why;
    c->load = op;
    c->tma = by_tma(Q, op);
    if (Q->plain) return NULL;
    if (fn->vals[r].type.rank < 2) return "not a dot operand (a 1-D tile)";
    /* load -> chain ops, exactly one of them a convert -> dot operands */
    IrOp *last = op, *conv = NULL;
    for (IrOp *u = only_user(Q, r); u && chain_op(u) && uses[last->results[0]] == 1; u = only_user(Q, u->results[0])) {
        if (u->opc == OP_CONVERT_LAYOUT && conv) break;
        if (u->opc == OP_CONVERT_LAYOUT) conv = u;
        last = u;
    }
    if (!conv || !feeds_dots_only(Q, last->results[0], uses))
        return "its tile is used otherwise than as a dot operand (through a layout conversion and elementwise ops)";
    c->last = last;
    return NULL;
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
    TRIC_ASSERT(d && (d->n_regions ? pure_if(d) : (ir_opinfo[d->opc].flags & F_PURE)));   /* args are mapped */
    /* its operands and what its regions read, for that iteration, then the
     * op itself through a map of those (ir_clone_op copies the regions) */
    Free f = d->n_regions ? free_values(Q, d) : (Free){0};
    for (uint32_t i = 0; i < f.n; i++) clone(Q, b, f.v[i]);
    for (uint32_t i = 0; i < d->n_operands; i++) clone(Q, b, d->operands[i]);
    /* a region's own values are mapped too, as the copy makes them */
    uint32_t n_map = d->n_regions ? fn->n_vals : 1;
    for (uint32_t i = 0; i < d->n_operands; i++) n_map = d->operands[i] >= n_map ? d->operands[i] + 1 : n_map;
    ValId *map = arena_alloc(fn->ctx->arena, sizeof(ValId) * n_map);
    for (uint32_t i = 0; i < f.n; i++) map[f.v[i]] = Q->map[f.v[i]];
    for (uint32_t i = 0; i < d->n_operands; i++) map[d->operands[i]] = clone(Q, b, d->operands[i]);
    IrOp *n = ir_clone_op(b, d, map, n_map);
    for (uint32_t i = 0; i < d->n_results; i++) map_set(Q, d->results[i], n->results[i]);
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
    cp->loc = ld->loc;   /* the load's copies report as the load (ir_load_report) */
}

/* tma_copy of candidate c for the mapped iteration: buf[slot] = its block,
 * if `runs` */
static void emit_tma(Pipe *Q, IrBuilder *b, const Cand *c, ValId slot, ValId runs) {
    IrOp *ld = c->load;
    ValId ops[5 + IR_MAX_RANK] = {c->buf, slot, c->bars, clone(Q, b, ld->operands[3]), runs};
    uint32_t n = 5;
    for (uint32_t i = 4; i < ld->n_operands; i++) ops[n++] = clone(Q, b, ld->operands[i]);
    IrOp *cp = ir_build(b, OP_TMA_COPY, ops, n, NULL, 0, 0);
    cp->loc = ld->loc;   /* reports as the load (ir_load_report) */
}

static void emit_copies(Pipe *Q, IrBuilder *b, const Cand *cands, uint32_t n, ValId slot, ValId runs) {
    for (uint32_t i = 0; i < n; i++) {
        if (cands[i].tma) emit_tma(Q, b, &cands[i], slot, runs);
        else emit_copy(Q, b, &cands[i], slot, runs);
    }
}

/* ---- the transformation ---- */

static void wait_op(IrBuilder *b, int pending, bool barrier) {
    IrOp *w = ir_build(b, OP_ASYNC_WAIT, NULL, 0, NULL, 0, 0);
    w->attr.i = pending;
    if (barrier) ir_build(b, OP_BARRIER, NULL, 0, NULL, 0, 0);
}

/* slot + 1, wrapping to 0 at n */
static ValId next_slot(Pipe *Q, IrBuilder *b, ValId slot, int n) {
    IrType i32 = ir_scalar(ET_I32);
    ValId x = ir_build2(b, OP_ADD, i32, slot, ir_const_int(b, i32, 1));
    ValId wrap = ir_build2(b, OP_CMP, ir_scalar(ET_I1), x, ir_const_int(b, i32, n));
    Q->fn->vals[wrap].def->attr.i = CMP_GE;
    return ir_build3(b, OP_SELECT, i32, wrap, ir_const_int(b, i32, 0), x);
}

static ValId less_than(IrBuilder *b, ValId x, ValId y) {
    ValId r = ir_build2(b, OP_CMP, ir_scalar(ET_I1), x, y);
    b->fn->vals[r].def->attr.i = CMP_LT;
    return r;
}

/* iv + k * step */
static ValId iv_plus(Pipe *Q, IrBuilder *b, ValId iv, int k) {
    IrFunc *fn = Q->fn;
    IrType it = fn->vals[iv].type;
    ValId step = Q->loop->operands[2];
    IrOp *d = fn->vals[step].def;
    ValId by = d && d->opc == OP_CONST ? ir_const_int(b, it, k * d->attr.i)
               : k == 1                ? step
                                       : ir_build2(b, OP_MUL, it, ir_const_int(b, it, k), step);
    return ir_build2(b, OP_ADD, it, iv, by);
}

/* The plain loop's reads: each load becomes a local_load of its slot (and
 * the select of `other`); returns the last new op. */
static IrOp *replace_loads(Pipe *Q, Cand *cands, uint32_t n, ValId slot) {
    IrFunc *fn = Q->fn;
    IrOp *last = NULL;
    for (uint32_t i = 0; i < n; i++) {
        IrOp *ld = cands[i].load;
        ValId r = ld->results[0];
        IrType t = fn->vals[r].type;
        IrBuilder at = {fn, Q->body, ld, ld->loc};
        ValId ops[2] = {cands[i].buf, slot};
        IrOp *rd = ir_build(&at, OP_LOCAL_LOAD, ops, 2, &t, 1, 0);
        ValId v = rd->results[0];
        fn->vals[v].layout = fn->vals[r].layout;
        if (ld->n_operands > 2 && !opt_is_zero_const(fn, ld->operands[2])) {
            v = ir_build3(&at, OP_SELECT, t, ld->operands[1], v, ld->operands[2]);
            fn->vals[v].layout = fn->vals[r].layout;
        }
        ir_replace_uses(fn, r, v);
        ir_op_unlink(ld);
        last = fn->vals[v].def;   /* the candidates come in body order */
    }
    return last;
}

/* v in layout li, at b: a constant made anew, else a convert_layout */
static ValId in_layout(Pipe *Q, IrBuilder *b, ValId v, int32_t li) {
    IrFunc *fn = Q->fn;
    if (fn->vals[v].layout == li) return v;
    IrOp *d = fn->vals[v].def;
    IrType t = fn->vals[v].type;
    ValId r;
    if (d && d->opc == OP_CONST) {
        IrOp *k = ir_build(b, OP_CONST, NULL, 0, &t, 1, 0);
        k->attr = d->attr;
        r = k->results[0];
    } else {
        r = ir_build1(b, OP_CONVERT_LAYOUT, t, v);
    }
    fn->vals[r].layout = li;
    return r;
}

/* The layout the load's tile must be read in so that the chain's shape
 * ops (trans) give layout li at its end: li with the trans undone, last
 * one first */
static int32_t chain_start_layout(Pipe *Q, const Cand *c, int32_t li) {
    IrFunc *fn = Q->fn;
    IrOp *ops[64];
    int n = 0;
    for (IrOp *op = c->load; op != c->last && n < 64;) ops[n++] = op = only_user(Q, op->results[0]);
    Layout l = fn->layouts[li];
    for (int i = n - 1; i >= 0; i--) {
        if (ops[i]->opc != OP_TRANS) continue;
        int32_t inv[IR_MAX_RANK];
        for (int d = 0; d < ops[i]->attr.n_ints; d++) inv[ops[i]->attr.ints[d]] = d;
        l = layout_permute(&l, inv);
    }
    return ir_layout_intern(fn, &l);
}

/* A dot loop's read: where the chain's last op was, the slot's tile in
 * the layout that the chain's trans ops turn into that op's, `other` put
 * back where the mask is false (the copy filled zeros), then the chain's
 * elementwise ops and trans in those layouts; the chain and the load go. */
static void replace_chain(Pipe *Q, const Cand *c, ValId slot) {
    IrFunc *fn = Q->fn;
    IrOp *ld = c->load, *last = c->last;
    int32_t li = chain_start_layout(Q, c, fn->vals[last->results[0]].layout);
    IrBuilder at = {fn, Q->body, last, last->loc};
    IrType t = fn->vals[ld->results[0]].type;
    ValId ops[2] = {c->buf, slot};
    ValId v = ir_build(&at, OP_LOCAL_LOAD, ops, 2, &t, 1, 0)->results[0];
    fn->vals[v].layout = li;
    if (!c->tma && ld->n_operands > 2 && !opt_is_zero_const(fn, ld->operands[2])) {   /* TMA fills as the map says */
        ValId m = in_layout(Q, &at, ld->operands[1], li), o = in_layout(Q, &at, ld->operands[2], li);
        v = ir_build3(&at, OP_SELECT, t, m, v, o);
        fn->vals[v].layout = li;
    }
    IrOp *op = ld;
    do {
        op = only_user(Q, op->results[0]);
        if (op->opc == OP_CONVERT_LAYOUT) continue;
        IrType rt = fn->vals[op->results[0]].type;
        IrOp *cl = ir_build(&at, op->opc, &v, 1, &rt, 1, 0);
        cl->attr = op->attr;
        cl->loc = op->loc;
        v = cl->results[0];
        if (op->opc == OP_TRANS) {
            Layout l = layout_permute(&fn->layouts[li], op->attr.ints);
            li = ir_layout_intern(fn, &l);
        }
        fn->vals[v].layout = li;
    } while (op != last);
    TRIC_ASSERT(li == fn->vals[last->results[0]].layout);
    ir_replace_uses(fn, last->results[0], v);
    for (IrOp *o = only_user(Q, ld->results[0]), *next; o; o = next) {
        next = o == last ? NULL : only_user(Q, o->results[0]);
        ir_op_unlink(o);
    }
    ir_op_unlink(ld);
}

static void pipeline_loop(Pipe *Q, Cand *cands, uint32_t n) {
    IrFunc *fn = Q->fn;
    IrOp *loop = Q->loop;
    IrBlock *body = Q->body;
    ValId lb = loop->operands[0], ub = loop->operands[1], iv = body->args[0];
    IrType i32 = ir_scalar(ET_I32);
    uint32_t nargs = body->n_args;
    int slots = Q->reuse ? Q->S - 1 : Q->S;
    IrBuilder b = {fn, loop->parent, loop, loop->loc};

    bool any_tma = false, any_async = false;
    for (uint32_t i = 0; i < n; i++) {
        IrType t = fn->vals[cands[i].load->results[0]].type, bt = t;
        bt.rank = (uint8_t)(t.rank + 1);
        bt.shape[0] = slots;
        for (int d = 0; d < t.rank; d++) bt.shape[d + 1] = t.shape[d];
        cands[i].buf = ir_build(&b, OP_LOCAL_ALLOC, NULL, 0, &bt, 1, 0)->results[0];
        any_tma |= cands[i].tma;
        any_async |= !cands[i].tma;
        if (!cands[i].tma) continue;
        int32_t s = slots;
        cands[i].bars = ir_build(&b, OP_MBAR_ALLOC, NULL, 0, (IrType[]){ir_tile(ir_scalar(ET_I64), 1, &s)}, 1, 0)
                            ->results[0];
        ir_build(&b, OP_MBAR_INIT, &cands[i].bars, 1, NULL, 0, 0);
    }
    /* prologue: iterations 0 .. S-2; cur[k] = carried value k at the stage */
    ValId *cur = arena_alloc(fn->ctx->arena, sizeof(ValId) * nargs);
    for (uint32_t k = 1; k < nargs; k++) cur[k] = loop->operands[3 + k - 1];
    IrOp *y = body->last;
    for (int s = 0; s < Q->S - 1; s++) {
        ValId ivs = s ? iv_plus(Q, &b, lb, s) : lb;
        ValId runs = less_than(&b, ivs, ub);
        map_clear(Q);
        map_set(Q, iv, ivs);
        for (uint32_t k = 1; k < nargs; k++)
            if (Q->need[k]) map_set(Q, body->args[k], cur[k]);
        emit_copies(Q, &b, cands, n, ir_const_int(&b, i32, s), runs);
        if (any_async) ir_build(&b, OP_ASYNC_COMMIT, NULL, 0, NULL, 0, 0);
        ValId *next = arena_alloc(fn->ctx->arena, sizeof(ValId) * nargs);
        for (uint32_t k = 1; k < nargs; k++) next[k] = Q->need[k] ? clone(Q, &b, y->operands[k - 1]) : cur[k];
        cur = next;
    }
    /* the body: carried values S-1 iterations ahead, and the slots */
    ValId *ahead = arena_alloc(fn->ctx->arena, sizeof(ValId) * nargs);
    for (uint32_t k = 1; k < nargs; k++)
        if (Q->need[k]) ahead[k] = ir_for_add_carried(fn, Q->loop, cur[k]);
    ValId rslot = ir_for_add_carried(fn, Q->loop, ir_const_int(&b, i32, 0));
    ValId wslot = Q->reuse ? rslot : ir_for_add_carried(fn, Q->loop, ir_const_int(&b, i32, Q->S - 1));
    /* the parity of the phase the read slot's barriers complete: flips each
     * time the reads wrap around the ring */
    ValId phase = any_tma ? ir_for_add_carried(fn, Q->loop, ir_const_int(&b, i32, 0)) : VAL_NONE;
    IrBuilder top = {fn, body, body->first, loop->loc};
    if (any_async) wait_op(&top, Q->S - 2, !Q->private_);
    for (uint32_t i = 0; i < n; i++)
        if (cands[i].tma) ir_build(&top, OP_MBAR_WAIT, (ValId[]){cands[i].bars, rslot, phase}, 3, NULL, 0, 0);
    IrBuilder bb = {fn, body, body->last, loop->loc};
    if (Q->plain) {
        /* the copies right after the reads: the slot is free, and they get
         * the rest of this iteration to fly */
        IrOp *last = replace_loads(Q, cands, n, rslot);
        bb.before = last->next;
        if (!Q->private_) ir_build(&bb, OP_BARRIER, NULL, 0, NULL, 0, 0);
    }
    /* dot loops: the copies go last. After the barrier the warps read their
     * slot and start the mmas at once, with no copies queued ahead of those
     * reads in the memory pipe (H100, 128x256x64 tiles: 397 -> 427
     * TFLOP/s); the PTX issues them after the dot's first k-step
     * (ptx_emit_copies_after), which keeps them almost an iteration earlier
     * (128x128x64: 443 -> 461) */
    ValId ivn = iv_plus(Q, &bb, iv, Q->S - 1);
    ValId runs = less_than(&bb, ivn, ub);
    map_clear(Q);
    map_set(Q, iv, ivn);
    for (uint32_t k = 1; k < nargs; k++)
        if (Q->need[k]) map_set(Q, body->args[k], ahead[k]);
    /* TMA alone: no barrier after the waits, so one here: every thread is
     * done with the slot the copies overwrite (read last iteration); an
     * mma.sync dot loop's copies overwrite the slot this iteration read */
    if (!any_async || (Q->reuse && !Q->plain)) ir_build(&bb, OP_BARRIER, NULL, 0, NULL, 0, 0);
    emit_copies(Q, &bb, cands, n, wslot, runs);
    if (any_async) ir_build(&bb, OP_ASYNC_COMMIT, NULL, 0, NULL, 0, 0);
    /* dot loops: the reads replace the chains; the loads go */
    for (uint32_t i = 0; i < n && !Q->plain; i++) replace_chain(Q, &cands[i], rslot);
    /* updates, at the end of the body */
    IrBuilder be = {fn, body, body->last, loop->loc};
    for (uint32_t k = 1; k < nargs; k++)
        if (Q->need[k]) ir_for_add_yield(fn, Q->loop, clone(Q, &be, y->operands[k - 1]));
    ValId rnext = next_slot(Q, &be, rslot, slots);
    ir_for_add_yield(fn, Q->loop, rnext);
    if (!Q->reuse) ir_for_add_yield(fn, Q->loop, next_slot(Q, &be, wslot, slots));
    if (any_tma) {   /* phase ^ (rnext == 0) */
        ValId wrapped = ir_build2(&be, OP_CMP, ir_scalar(ET_I1), rnext, ir_const_int(&be, i32, 0));
        fn->vals[wrapped].def->attr.i = CMP_EQ;
        ir_for_add_yield(fn, Q->loop, ir_build2(&be, OP_XOR, i32, phase, ir_build1(&be, OP_CAST, i32, wrapped)));
    }
    IrBuilder after = {fn, loop->parent, loop->next, loop->loc};
    if (!loop->next) after.before = NULL;
    wait_op(&after, 0, true);
    for (uint32_t i = 0; i < n; i++)
        if (cands[i].tma) ir_build(&after, OP_MBAR_INVAL, &cands[i].bars, 1, NULL, 0, 0);
}

bool opt_known_positive(IrFunc *fn, ValId v) {
    IrOp *d = fn->vals[v].def;
    return d && ((d->opc == OP_CONST && d->attr.i > 0 && d->attr.i <= INT32_MAX) || d->opc == OP_NUM_PROGRAMS);
}

static bool has_dot(IrBlock *b) {
    for (IrOp *op = b->first; op; op = op->next)
        if (op->opc == OP_DOT) return true;
    return false;
}

/* some dot of the body takes wgmma's layout (it may become a wgmma, which
 * reads its slot asynchronously) */
static bool has_wgmma_dot(IrFunc *fn, IrBlock *b) {
    for (IrOp *op = b->first; op; op = op->next)
        if (op->opc == OP_DOT && layout_dot_wgmma_bits(fn, op)) return true;
    return false;
}

/* no element of l is held by two threads */
static bool one_holder(const Layout *l) {
    for (int k = LL_LANE; k <= LL_WARP; k++)
        for (int bit = 0; bit < l->n_bits[k]; bit++) {
            bool zero = true;
            for (int d = 0; d < l->rank; d++) zero = zero && l->basis[k][bit][d] == 0;
            if (zero) return false;
        }
    return true;
}

/* every element is read by the thread that copies it */
static bool reads_private(IrFunc *fn, const Cand *cands, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        const IrOp *ld = cands[i].load;
        int32_t lr = fn->vals[ld->results[0]].layout, lp = fn->vals[ld->operands[0]].layout;
        if (lp < 0 || !layout_eq(&fn->layouts[lr], &fn->layouts[lp]) || !one_holder(&fn->layouts[lr])) return false;
    }
    return true;
}

/* every load directly in the loop's body gets `why` */
static void mark_loads(IrBlock *body, const char *why) {
    for (IrOp *op = body->first; op; op = op->next)
        if (op->opc == OP_LOAD) op->attr.str = why;
}

/* *uses: the use counts of fn's values, counted here when first needed
 * (NULL until then); true if the loop was pipelined (the IR changed, so
 * the counts are stale). */
static bool try_loop(IrFunc *fn, IrOp *loop, uint32_t **uses) {
    int S = loop->attr.i ? (int)loop->attr.i : fn->ctx->target.num_stages;
    IrBlock *body = loop->regions[0];
    bool plain = loop->attr.i && !has_dot(body);
    if (S < 2) {
        mark_loads(body, arena_printf(fn->ctx->arena, "num_stages is %d", S));
        return false;
    }
    if (!has_dot(body) && !plain) {
        mark_loads(body, "a loop without a dot pipelines only with its own num_stages (tl.range)");
        return false;
    }
    if (!opt_known_positive(fn, loop->operands[2])) {
        mark_loads(body, "the loop's step is not known to be positive");
        return false;
    }
    /* S > 65 would wait with more than the 63 pending groups SASS's DEPBAR counts */
    Pipe Q = {.fn = fn, .loop = loop, .body = body, .S = S > 65 ? 65 : S, .plain = plain};
    Q.reuse = plain || !has_wgmma_dot(fn, body);
    Q.ok = arena_alloc(fn->ctx->arena, fn->n_vals);
    Q.need = arena_alloc(fn->ctx->arena, sizeof(bool) * Q.body->n_args);
    Cand *cands = NULL;
    uint32_t n = 0, cap = 0;
    if (!*uses) *uses = ir_count_uses(fn);
    for (IrOp *op = Q.body->first; op; op = op->next) {
        Cand c = {0};
        if (op->opc != OP_LOAD) continue;
        op->attr.str = obstacle(&Q, op, *uses, &c);
        if (!op->attr.str) VEC_PUSH(fn->ctx->arena, cands, n, cap, c);
    }
    if (!n) return false;
    if (!carried_ok(&Q)) {
        for (uint32_t i = 0; i < n; i++)
            cands[i].load->attr.str = "a loop-carried value its address needs is updated from a load or a nested region";
        return false;
    }
    Q.private_ = Q.plain && reads_private(fn, cands, n);
    Q.map = arena_alloc(fn->ctx->arena, sizeof(ValId) * fn->n_vals * 2 + 64);
    pipeline_loop(&Q, cands, n);
    return true;
}

typedef struct Loops {
    IrOp **ops;
    uint32_t n, cap;
} Loops;

static void collect_loop(IrFunc *fn, IrOp *op, void *ud) {
    Loops *l = ud;
    if (op->opc == OP_FOR) VEC_PUSH(fn->ctx->arena, l->ops, l->n, l->cap, op);
}

/* A tma load the pipeline did not move by TMA is a plain load: its tensor
 * map and coordinates go (and dce may then drop the map's making) */
static void plain_load(IrFunc *fn, IrOp *op, void *ud) {
    (void)ud;
    if (op->opc != OP_LOAD || !(op->attr.flags & LOADF_TMA)) return;
    ir_op_set_operands(fn, op, op->operands, 3);
    op->attr.flags &= (uint8_t)~LOADF_TMA;
}

void pass_pipeline(IrFunc *fn) {
    Loops loops = {0};
    ir_walk(fn, fn->body, collect_loop, &loops);
    /* counted again only after a loop changed the IR: not per loop, which
     * would be quadratic in a kernel of many loops */
    uint32_t *uses = NULL;
    for (uint32_t i = 0; i < loops.n; i++)
        if (try_loop(fn, loops.ops[i], &uses)) uses = NULL;
    ir_walk(fn, fn->body, plain_load, NULL);
}
