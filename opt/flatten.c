/* Loop flattening: tl.range(..., flatten=True). A loop whose body is pure
 * ops P, one inner loop, then anything Q becomes one loop over the (outer,
 * inner) iteration pairs, so the inner loop's software pipeline runs on
 * across outer iterations: in a persistent matmul the loads of the next
 * tile's first K steps are in flight while this tile's epilogue runs,
 * instead of the pipeline draining and filling at every tile. With kt the
 * inner trip count (its bounds from outside the loop, its step known
 * positive):
 *
 *   for o = lb to ub step st iter(x = x0) {
 *     P(o, x)
 *     c_out = for i = lb2 to ub2 step st2 iter(c = init) { body(i, c) }
 *     Q(o, x, c_out); yield x'
 *   }
 *
 * becomes, under `if trips(outer) * kt > 0` (its else keeps the loop,
 * less the inner one, whose results are then its inits):
 *
 *   for t = 0 to trips(lb, ub, st) * kt step 1
 *       iter(j = 0, o = lb, x = x0, s = Ps(lb, x0), c = init at (lb, x0)) {
 *     Pt(o, x, s)                       (pure: recomputed each step)
 *     c_in = select(j != 0, c, init)    (the inner loop starts anew)
 *     body(lb2 + j * st2, c_in) -> c_out
 *     last = j + 1 == kt
 *     x' = if last { Q(o, x, c_out); yield x' } else { yield x }
 *     o' = select(last, o + st, o)
 *     s' = if last && o' < ub { yield Ps(o', x') } else { yield s }
 *     yield select(last, 0, j + 1), o', x', s', c_out
 *   }
 *
 * P is split: its scalar part Ps (ops whose results are scalars, from
 * values outside the body or of Ps: a tile's coordinates, with their
 * divisions) is computed once per outer iteration, when it starts, and s
 * carries what the rest reads of it; its tile part Pt runs every step. No
 * value is computed for an outer iteration that does not exist.
 * Every carried update is pure, so pass pipeline computes the addresses of
 * step t + S - 1 as in any loop (S: the inner loop's num_stages, else the
 * outer's, else the kernel's), and pass wgmma turns an accumulator the
 * select restarts from zero into wgmma's use_acc. As in Triton, flatten is
 * a hint: loops that do not have this form are left as they are (the body
 * has no loop or several, an op before the loop has effects or regions,
 * a step is not known positive, the inner bounds come from inside the
 * loop, the two induction variables differ in type).
 */
#include "opt.h"

/* v is defined outside `loop` */
static bool outside(IrFunc *fn, const IrOp *loop, ValId v) {
    IrBlock *b = fn->vals[v].def ? fn->vals[v].def->parent : fn->vals[v].block;
    for (; b && b->parent; b = b->parent->parent)
        if (b->parent == loop) return false;
    return true;
}

static bool const_int(IrFunc *fn, ValId v, int64_t *out) {
    IrOp *d = fn->vals[v].def;
    if (!d || d->opc != OP_CONST) return false;
    *out = d->attr.i;
    return true;
}

static ValId cmp(IrBuilder *b, CmpPred pred, ValId x, ValId y) {
    ValId r = ir_build2(b, OP_CMP, ir_scalar(ET_I1), x, y);
    b->fn->vals[r].def->attr.i = pred;
    return r;
}

/* how many times `for lb to ub step st` runs (st > 0): max(ub - lb, 0)
 * rounded up to steps */
static ValId trips(IrBuilder *b, ValId lb, ValId ub, ValId st) {
    IrType t = b->fn->vals[lb].type;
    int64_t k;
    ValId d = const_int(b->fn, lb, &k) && k == 0 ? ub : ir_build2(b, OP_SUB, t, ub, lb);
    d = ir_build2(b, OP_MAX, t, d, ir_const_int(b, t, 0));
    if (const_int(b->fn, st, &k) && k == 1) return d;
    ValId up = ir_build2(b, OP_SUB, t, ir_build2(b, OP_ADD, t, d, st), ir_const_int(b, t, 1));
    return ir_build2(b, OP_DIV, t, up, st);
}

/* lb + j * st */
static ValId step_value(IrBuilder *b, ValId lb, ValId j, ValId st) {
    IrType t = b->fn->vals[lb].type;
    int64_t k;
    ValId x = const_int(b->fn, st, &k) && k == 1 ? j : ir_build2(b, OP_MUL, t, j, st);
    return const_int(b->fn, lb, &k) && k == 0 ? x : ir_build2(b, OP_ADD, t, lb, x);
}

/* The one loop of body b after pure ops without regions, or NULL */
static IrOp *inner_loop(IrBlock *b) {
    IrOp *loop = NULL;
    for (IrOp *op = b->first; op && !loop; op = op->next) {
        if (op->opc == OP_FOR) loop = op;
        else if (!(ir_opinfo[op->opc].flags & F_PURE) || op->n_regions) return NULL;
    }
    if (!loop) return NULL;
    for (IrOp *op = loop->next; op; op = op->next)
        if (op->opc == OP_FOR || op->opc == OP_WHILE) return NULL;
    return b->last && b->last->opc == OP_YIELD ? loop : NULL;
}

/* v computed for outer iteration (lb, x0): the pure ops of the outer body
 * it comes from, copied at b with the body's arguments mapped */
static ValId at_start(IrFunc *fn, IrOp *outer, IrBuilder *b, ValId *map, uint32_t n_map, ValId v) {
    if (map[v] || outside(fn, outer, v)) return map[v] ? map[v] : v;
    IrOp *d = fn->vals[v].def;
    for (uint32_t i = 0; i < d->n_operands; i++) at_start(fn, outer, b, map, n_map, d->operands[i]);
    ir_clone_op(b, d, map, n_map);
    return map[v];
}

/* The values of P's scalar part (once[v]) the rest of the outer body
 * reads */
typedef struct Carry {
    const bool *once;
    IrBlock *body;
    ValId *v;
    uint32_t n, cap;
} Carry;

static void note_carried(IrFunc *fn, IrOp *op, void *ud) {
    Carry *c = ud;
    if (op->parent == c->body && op->n_results && c->once[op->results[0]]) return;
    for (uint32_t i = 0; i < op->n_operands; i++) {
        ValId v = op->operands[i];
        bool seen = !c->once[v];
        for (uint32_t k = 0; k < c->n && !seen; k++) seen = c->v[k] == v;
        if (!seen) VEC_PUSH(fn->ctx->arena, c->v, c->n, c->cap, v);
    }
}

/* The inner loop's results where it does not run: its inits */
static void drop_inner(IrFunc *fn, IrOp *outer) {
    IrOp *in = inner_loop(outer->regions[0]);
    for (uint32_t k = 0; k < in->n_results; k++) ir_replace_uses(fn, in->results[k], in->operands[3 + k]);
    ir_op_unlink(in);
}

static void flatten(IrFunc *fn, IrOp *outer) {
    IrBlock *ob = outer->regions[0];
    IrOp *inner = inner_loop(ob);
    if (!inner || !opt_known_positive(fn, outer->operands[2])) return;
    IrBlock *ib = inner->regions[0];
    IrType it = fn->vals[ob->args[0]].type;
    if (!ir_type_eq(it, fn->vals[ib->args[0]].type) || !opt_known_positive(fn, inner->operands[2])) return;
    /* what P computes from outside values alone (constants, the inner trip
     * count) goes before the loop, pure ops moved even where the loop then
     * stays as it is */
    for (IrOp *op = ob->first, *nx_op; op != inner; op = nx_op) {
        nx_op = op->next;
        bool invariant = true;
        for (uint32_t i = 0; i < op->n_operands; i++) invariant = invariant && outside(fn, outer, op->operands[i]);
        if (!invariant) continue;
        ir_op_unlink(op);
        ir_insert_before(outer, op);
    }
    const ValId *ib_bounds = inner->operands;
    for (int i = 0; i < 3; i++)
        if (!outside(fn, outer, ib_bounds[i])) return;
    Arena *a = fn->ctx->arena;
    uint32_t n_map = fn->n_vals, nx = outer->n_results, nc = inner->n_results;
    IrBuilder pre = {fn, outer->parent, outer, outer->loc};

    ValId kt = trips(&pre, ib_bounds[0], ib_bounds[1], ib_bounds[2]);
    ValId total = ir_build2(&pre, OP_MUL, it, trips(&pre, outer->operands[0], outer->operands[1], outer->operands[2]), kt);
    /* no step at all (trips(outer) or kt 0; kt < 0 counts as 0): the loop
     * as it was, less the inner loop; the flat loop runs where there are
     * steps, so what it computes for its first tile exists */
    IrType *xt = arena_alloc(a, sizeof(IrType) * (nx + 1));
    for (uint32_t k = 0; k < nx; k++) xt[k] = fn->vals[outer->results[k]].type;
    ValId runs = cmp(&pre, CMP_GT, total, ir_const_int(&pre, it, 0));
    IrOp *version = ir_build(&pre, OP_IF, &runs, 1, xt, nx, 2);
    IrBuilder vb = {fn, version->regions[1], NULL, outer->loc};
    IrOp *copy = ir_clone_op(&vb, outer, arena_alloc(a, sizeof(ValId) * n_map), n_map);
    copy->attr.flags &= (uint8_t)~FOR_FLATTEN;
    drop_inner(fn, copy);
    ir_build(&vb, OP_YIELD, copy->results, nx, NULL, 0, 0);
    pre = (IrBuilder){fn, version->regions[0], NULL, outer->loc};

    /* P's scalar part (ops whose results are scalars, from values outside
     * the body or of that part) changes only when o does: it is computed
     * at each outer iteration's start, and the values of it the rest reads
     * are carried (s); the rest of P, tile ops, is recomputed each step */
    bool *once = arena_alloc(a, n_map);
    for (IrOp *op = ob->first; op != inner; op = op->next) {
        bool scalar = true;
        for (uint32_t i = 0; i < op->n_results; i++) scalar = scalar && fn->vals[op->results[i]].type.rank == 0;
        for (uint32_t i = 0; i < op->n_operands; i++) {
            IrOp *d = fn->vals[op->operands[i]].def;
            scalar = scalar && (!d || d->parent != ob || once[op->operands[i]]);
        }
        for (uint32_t i = 0; i < op->n_results; i++) once[op->results[i]] = scalar;
    }
    Carry sc = {once, ob, NULL, 0, 0};
    ir_walk(fn, ob, note_carried, &sc);
    uint32_t ns = sc.n;

    /* the flat loop: t; j, o, x..., s..., c... */
    uint32_t n_carried = 2 + nx + ns + nc, xs = 2 + nx, cs = 2 + nx + ns;
    ValId *init = arena_alloc(a, sizeof(ValId) * (3 + n_carried));   /* lb, ub, step, inits */
    IrType *types = arena_alloc(a, sizeof(IrType) * n_carried);
    ValId *map = arena_alloc(a, sizeof(ValId) * n_map);
    map[ob->args[0]] = outer->operands[0];
    for (uint32_t k = 0; k < nx; k++) map[ob->args[1 + k]] = outer->operands[3 + k];
    init[0] = ir_const_int(&pre, it, 0);
    init[1] = total;
    init[2] = ir_const_int(&pre, it, 1);
    init[3] = ir_const_int(&pre, it, 0);
    init[4] = outer->operands[0];
    types[0] = types[1] = it;
    for (uint32_t k = 0; k < nx; k++) init[3 + 2 + k] = outer->operands[3 + k], types[2 + k] = xt[k];
    for (uint32_t k = 0; k < ns; k++) {
        init[3 + xs + k] = at_start(fn, outer, &pre, map, n_map, sc.v[k]);
        types[xs + k] = fn->vals[sc.v[k]].type;
    }
    for (uint32_t k = 0; k < nc; k++) {
        init[3 + cs + k] = at_start(fn, outer, &pre, map, n_map, inner->operands[3 + k]);
        types[cs + k] = fn->vals[inner->results[k]].type;
    }
    IrOp *flat = ir_build(&pre, OP_FOR, init, 3 + n_carried, types, n_carried, 1);
    flat->attr.i = inner->attr.i ? inner->attr.i : outer->attr.i;
    IrBlock *fb = flat->regions[0];
    ir_block_add_arg(fn, fb, it);
    ValId *arg = arena_alloc(a, sizeof(ValId) * n_carried);
    for (uint32_t k = 0; k < n_carried; k++) arg[k] = ir_block_add_arg(fn, fb, types[k]);
    ValId j = arg[0], o = arg[1];

    /* P's tile part, with the outer body's arguments the flat loop's (its
     * scalar part stays behind, to be copied below) */
    ir_replace_uses(fn, ob->args[0], o);
    for (uint32_t k = 0; k < nx; k++) ir_replace_uses(fn, ob->args[1 + k], arg[2 + k]);
    for (IrOp *op = ob->first, *nx_op; op != inner; op = nx_op) {
        nx_op = op->next;
        if (op->n_results && once[op->results[0]]) continue;
        ir_op_unlink(op);
        ir_block_append(fb, op);
    }
    /* the inner body, its loop starting anew where j is 0 */
    IrBuilder bb = {fn, fb, NULL, inner->loc};
    ValId cont = cmp(&bb, CMP_NE, j, ir_const_int(&bb, it, 0));
    for (uint32_t k = 0; k < nc; k++) {
        ValId c = arg[cs + k], first = inner->operands[3 + k];
        IrType t = types[cs + k];
        ValId cond = t.rank ? ir_build1(&bb, OP_SPLAT, ir_with_elem(t, ir_scalar(ET_I1)), cont) : cont;
        ir_replace_uses(fn, ib->args[1 + k], ir_build3(&bb, OP_SELECT, t, cond, c, first));
    }
    ir_replace_uses(fn, ib->args[0], step_value(&bb, ib_bounds[0], j, ib_bounds[2]));
    while (ib->first != ib->last) {
        IrOp *op = ib->first;
        ir_op_unlink(op);
        ir_block_append(fb, op);
    }
    ValId *c_out = ib->last->operands;
    for (uint32_t k = 0; k < nc; k++) ir_replace_uses(fn, inner->results[k], c_out[k]);

    /* Q in an if on the last inner step */
    bb.loc = outer->loc;
    ValId jn = ir_build2(&bb, OP_ADD, it, j, ir_const_int(&bb, it, 1));
    ValId last = cmp(&bb, CMP_EQ, jn, kt);
    IrOp *epi = ir_build(&bb, OP_IF, &last, 1, xt, nx, 2);
    while (inner->next != ob->last) {
        IrOp *op = inner->next;
        ir_op_unlink(op);
        ir_block_append(epi->regions[0], op);
    }
    IrBuilder tb = {fn, epi->regions[0], NULL, outer->loc}, eb = {fn, epi->regions[1], NULL, outer->loc};
    ir_build(&tb, OP_YIELD, ob->last->operands, nx, NULL, 0, 0);
    ir_build(&eb, OP_YIELD, arg + 2, nx, NULL, 0, 0);

    ValId *next = arena_alloc(a, sizeof(ValId) * n_carried);
    next[0] = ir_build3(&bb, OP_SELECT, it, last, ir_const_int(&bb, it, 0), jn);
    next[1] = ir_build3(&bb, OP_SELECT, it, last, ir_build2(&bb, OP_ADD, it, o, outer->operands[2]), o);
    for (uint32_t k = 0; k < nx; k++) next[2 + k] = epi->results[k];
    /* s for the next outer iteration where it starts (and exists): P's
     * scalar part again */
    if (ns) {
        ValId more = ir_build2(&bb, OP_AND, ir_scalar(ET_I1), last, cmp(&bb, CMP_LT, next[1], outer->operands[1]));
        IrOp *again = ir_build(&bb, OP_IF, &more, 1, types + xs, ns, 2);
        uint32_t n_now = fn->n_vals;
        ValId *m = arena_alloc(a, sizeof(ValId) * n_now);
        m[o] = next[1];
        for (uint32_t k = 0; k < nx; k++) m[arg[2 + k]] = epi->results[k];
        IrBuilder ab = {fn, again->regions[0], NULL, outer->loc}, sb = {fn, again->regions[1], NULL, outer->loc};
        for (IrOp *op = ob->first; op != inner; op = op->next) ir_clone_op(&ab, op, m, n_now);
        ValId *fresh = arena_alloc(a, sizeof(ValId) * ns);
        for (uint32_t k = 0; k < ns; k++) fresh[k] = m[sc.v[k]];
        ir_build(&ab, OP_YIELD, fresh, ns, NULL, 0, 0);
        ir_build(&sb, OP_YIELD, arg + xs, ns, NULL, 0, 0);
        for (uint32_t k = 0; k < ns; k++) {
            next[xs + k] = again->results[k];
            ir_replace_uses(fn, sc.v[k], arg[xs + k]);
        }
    }
    for (uint32_t k = 0; k < nc; k++) next[cs + k] = c_out[k];
    ir_build(&bb, OP_YIELD, next, n_carried, NULL, 0, 0);

    ir_build(&pre, OP_YIELD, flat->results + 2, nx, NULL, 0, 0);
    for (uint32_t k = 0; k < nx; k++) ir_replace_uses(fn, outer->results[k], version->results[k]);
    ir_op_unlink(outer);
}

typedef struct Loops {
    IrOp **ops;
    uint32_t n, cap;
} Loops;

static void collect(IrFunc *fn, IrOp *op, void *ud) {
    Loops *l = ud;
    if (op->opc == OP_FOR && (op->attr.flags & FOR_FLATTEN)) VEC_PUSH(fn->ctx->arena, l->ops, l->n, l->cap, op);
}

void pass_flatten(IrFunc *fn) {
    Loops loops = {0};
    ir_walk(fn, fn->body, collect, &loops);
    /* innermost first: a flattened inner loop is one loop for its parent */
    for (uint32_t i = loops.n; i-- > 0;) flatten(fn, loops.ops[i]);
}
