/* pass_regs: the registers per thread that the kernel will need, estimated
 * before ptxas.
 *
 * ptxgen gives every tile value one virtual register per layout register
 * and ptxas allocates the real ones, so tric never assigns registers
 * itself; what it can do is predict ptxas's count, so that a config that
 * would spill (more than 255 32-bit registers per thread) is known without
 * running ptxas, and the autotuner can skip it.
 *
 * The model, in quarters of a 32-bit register (8-bit elements cost one):
 *  - storage: a value costs its distinct per-thread registers times its
 *    width (64-bit 8 quarters, 32-bit 4, 16-bit 2 as packed pairs, 8-bit
 *    1); i1 values are predicates, counted apart. Values whose registers
 *    are another's (splat, broadcast, expand_dims, trans, reshape, split,
 *    hints, a convert_layout that only renames registers, wgmma_wait) cost
 *    nothing and keep that other value alive instead.
 *    Constants are immediates; kernel parameters live in the constant bank.
 *    Registers that axis analysis proves equal (constancy within one
 *    thread) are computed once (ptxgen does the same).
 *  - pointer tiles cost one 64-bit register per distinct address that loads
 *    and stores use: vec elements share one address, and an affine tile
 *    (ir/affine.c, which ptxgen follows too) used only as an address needs
 *    one 64-bit register for all its vectors. An integer tile used only as
 *    the offsets of addptrs costs one register per address they make.
 *  - liveness over the structured IR: program order numbers every op, a
 *    region op gets a start and an end position around its regions; a
 *    value lives from its definition to its last use, a value defined
 *    outside a loop and used inside it lives to the loop's end. A carried
 *    value is its block argument from the loop's start to its last use, then
 *    the yielded value from its definition to the yield (the same register
 *    when they do not overlap: an accumulator updated in place counts once);
 *    a for's counter lives through the whole loop.
 *  - at each op the pressure is what lives across it plus its operands that
 *    die there plus its results; an elementwise op, dot or wgmma writes its
 *    results over its dying operands (so the larger of the two counts), a
 *    convert_layout through shared memory holds both.
 * The peak over the function, rounded up to whole registers, plus the
 * registers every kernel keeps (thread ids and index math, REGS_FIXED), is
 * fn->est_regs; fn->est_regs_op is the op at the peak. */
#include "opt.h"

#include <string.h>

/* Registers a kernel holds whatever its values: %tid and the lane/warp
 * parts of the layouts' index math, the program ids, a stack pointer's
 * worth ptxas reserves. Calibrated against ptxas -v (test_regs.c). */
#define REGS_FIXED 8

typedef struct Loop {
    int32_t start, end;
} Loop;

typedef struct RegsPos {
    IrOp *op;
    uint8_t kind;            /* 0 op, 1 a region op's start, 2 its end */
} RegsPos;

typedef struct Regs {
    IrFunc *fn;
    AxisInfo *axis;
    int32_t *def, *last;     /* per ValId: positions, -1 = not a value of the walk */
    ValId *root;             /* per ValId: whose registers it uses (itself if its own) */
    int32_t *quarters;       /* per ValId: storage in quarter registers (roots only) */
    int32_t *preds;          /* per ValId: predicate registers (roots only) */
    int32_t *need;           /* per ValId: pointer tiles, distinct addresses used */
    IrAffineMemo affine;     /* ir_affine's results */
    bool *offsets_only;      /* per ValId: an integer tile used only as addptr offsets */
    bool *other_use;         /* per ValId: used other than as a load/store address */
    bool *in_loop_use;       /* per ValId: used inside a loop it was defined outside of */
    uint32_t *uses;          /* per ValId: its uses */
    uint8_t *dot_reads;      /* per ValId: uses as a dot's a or b */
    int32_t *dot_k;          /* per ValId: that dot's K */
    RegsPos *pos;            /* per position: the op there */
    uint32_t n_pos, cap_pos;
    Loop *loops;
    uint32_t n_loops, cap_loops;
    uint32_t next_loop;      /* second walk: loops seen so far */
    int32_t *stack;          /* enclosing loops (indices), innermost last */
    int depth;
} Regs;

/* ---- storage cost of one value ---- */

static int32_t thread_support(const Layout *l) {
    int32_t s = 0;
    for (int k = LL_LANE; k <= LL_WARP; k++)
        for (int b = 0; b < l->n_bits[k]; b++) s |= (int32_t)layout_flat_index(l->rank, l->shape, l->basis[k][b]);
    return s;
}

/* Registers of v that hold distinct values, as ptxgen computes them
 * (ptxgen/affine.c ptx_constancy_reps): along each dim, runs of constant
 * values whose coordinate bits are all register bits collapse to one. */
static int distinct_regs(Regs *R, ValId v, const Layout *l) {
    int n = layout_n_regs(l);
    int32_t support = thread_support(l);
    const AxisInfo *ai = &R->axis[v];
    for (int d = 0; d < l->rank; d++) {
        int64_t c = ai->constancy[d] < l->shape[d] ? ai->constancy[d] : l->shape[d];
        for (; c > 1; c /= 2) {
            int32_t one[IR_MAX_RANK] = {0};
            one[d] = (int32_t)c - 1;
            if (!(layout_flat_index(l->rank, l->shape, one) & support)) break;
        }
        if (c > 1 && n / c >= 1) n /= (int)c;
    }
    return n;
}

static int tile_regs(Regs *R, ValId v) {
    const IrValue *iv = &R->fn->vals[v];
    if (iv->layout >= 0) return distinct_regs(R, v, &R->fn->layouts[iv->layout]);
    int64_t threads = 32 * (int64_t)R->fn->ctx->target.num_warps, n = ir_numel(iv->type) / threads;
    return n < 1 ? 1 : (int)n;   /* before layouts: the elements spread evenly */
}

static int elem_quarters(ElemType e) {
    int bits = elem_bits(e);
    return bits >= 64 ? 8 : bits >= 32 ? 4 : bits >= 16 ? 2 : 1;
}

/* ---- pointer tiles: affine (ir/affine.c, as ptxgen) and addresses used ---- */

/* offsets_only starts true for every value: a use other than an addptr's
 * offsets clears it */
static void mark_offset_uses(IrFunc *fn, IrOp *op, void *ud) {
    (void)fn;
    bool *offsets_only = ud;
    for (uint32_t i = 0; i < op->n_operands; i++)
        if (!(op->opc == OP_ADDPTR && i == 1)) offsets_only[op->operands[i]] = false;
}

static void mark_other_uses(IrFunc *fn, IrOp *op, void *ud) {
    (void)fn;
    bool *other = ud;
    for (uint32_t i = 0; i < op->n_operands; i++)
        if (!((op->opc == OP_LOAD || op->opc == OP_STORE || op->opc == OP_ATOMIC) && i == 0) &&
            !(op->opc == OP_ASYNC_COPY && i == 2))
            other[op->operands[i]] = true;
}

static int max_int(int a, int b) { return a > b ? a : b; }

/* Addresses of pointer tile ptr that one use needs: a load or store needs
 * one per vector; an addptr or yield passes on what its result needs; any
 * other use needs every register. */
static int use_need(Regs *R, IrOp *op, uint32_t i, int n) {
    switch (op->opc) {
    case OP_LOAD: case OP_STORE: case OP_ATOMIC: case OP_ATOMIC_CAS: {
        if (i != 0 || op->opc == OP_ATOMIC_CAS) return n;
        int vec = op->attr.vec > 0 ? op->attr.vec : 1;
        return max_int(1, n / vec);
    }
    case OP_ASYNC_COPY: {   /* one cp.async per vector */
        if (i != 2) return n;
        int vec = op->attr.vec > 0 ? op->attr.vec : 1;
        return max_int(1, n / vec);
    }
    case OP_ADDPTR: case OP_CONVERT_LAYOUT: case OP_MULTIPLE_OF: case OP_MAX_CONTIGUOUS:
        return i == 0 ? R->need[op->results[0]] : n;
    case OP_FOR:   /* an init operand: what its carried argument needs */
        return i >= 3 ? R->need[op->regions[0]->args[i - 2]] : n;
    case OP_YIELD: {   /* into a for's carried value */
        IrOp *parent = op->parent ? op->parent->parent : NULL;
        if (parent && parent->opc == OP_FOR) return R->need[parent->regions[0]->args[i + 1]];
        return n;
    }
    default: return n;
    }
}

static void need_op(IrFunc *fn, IrOp *op, void *ud) {
    Regs *R = ud;
    for (uint32_t i = 0; i < op->n_operands; i++) {
        ValId p = op->operands[i];
        IrType t = fn->vals[p].type;
        if (op->opc == OP_ADDPTR && i == 1 && t.rank > 0 && R->need[op->results[0]] > R->need[p])
            R->need[p] = R->need[op->results[0]];   /* offsets: the addresses they make */
        if (t.elem != ET_PTR || t.rank == 0) continue;
        int n = tile_regs(R, p), k = use_need(R, op, i, n);
        if (k > n) k = n;
        if (k > R->need[p]) R->need[p] = k;
    }
    if (op->opc == OP_FOR)   /* the carried argument needs what its result and init do */
        for (uint32_t k = 0; k < op->n_results; k++) {
            ValId a = op->regions[0]->args[k + 1], r = op->results[k];
            if (R->need[r] > R->need[a]) R->need[a] = R->need[r];
        }
}

/* Rounds until nothing grows: yields feed loop-carried pointers back. */
static void compute_needs(Regs *R) {
    IrFunc *fn = R->fn;
    for (int round = 0; round < 8; round++) {
        int32_t *before = arena_alloc(fn->ctx->arena, sizeof(int32_t) * fn->n_vals);
        memcpy(before, R->need, sizeof(int32_t) * fn->n_vals);
        ir_walk(fn, fn->body, need_op, R);
        if (!memcmp(before, R->need, sizeof(int32_t) * fn->n_vals)) return;
    }
}

static bool base_only_ptr(Regs *R, ValId v);

/* A pointer tile computed where it is used: by an op (not carried by a
 * loop), only as the address of loads and stores, none of them in a loop
 * it was computed outside of. ptxas then computes each address next to
 * its access (calibration: a 32 x 128 i8 tile at a run-time row stride
 * needs 167 registers, not the 256 its 128 addresses would hold). */
#define REGS_STREAMED_ADDRS 4

static void ptr_cost(Regs *R, ValId v) {
    IrValue *iv = &R->fn->vals[v];
    int need = R->need[v];
    if (need > 1 && base_only_ptr(R, v)) need = 1;
    if (need > REGS_STREAMED_ADDRS && !R->other_use[v] && iv->def && !R->in_loop_use[v]) need = REGS_STREAMED_ADDRS;
    R->quarters[v] = 8 * need;
}

static void value_cost(Regs *R, ValId v) {
    IrValue *iv = &R->fn->vals[v];
    ElemType e = (ElemType)iv->type.elem;
    if (iv->def && (iv->def->opc == OP_LOCAL_ALLOC || iv->def->opc == OP_MBAR_ALLOC)) return;   /* shared memory */
    if (e == ET_I1) {
        R->preds[v] = iv->type.rank ? tile_regs(R, v) : 1;
        return;
    }
    if (iv->type.rank == 0) {
        R->quarters[v] = elem_bits(e) >= 64 ? 8 : 4;
        return;
    }
    if (e == ET_PTR) {
        ptr_cost(R, v);
        return;
    }
    R->quarters[v] = tile_regs(R, v) * elem_quarters(e);
    if (R->offsets_only[v] && R->need[v] < tile_regs(R, v))   /* one per address made */
        R->quarters[v] = max_int(1, R->need[v]) * elem_quarters(e);
    if (iv->def && iv->def->opc == OP_LOCAL_LOAD && R->uses[v] == 1 && R->dot_reads[v] == 1) {
        /* ptxgen reads it k-step by k-step beside the mmas (ptx_need_reg):
         * about two k-steps of fragments are live, not the whole tile */
        int32_t k = R->dot_k[v], ks = layout_mma_kstep(elem_bits(e));
        if (k > 2 * ks) R->quarters[v] = (int32_t)((int64_t)R->quarters[v] * 2 * ks / k);
    }
}

/* dot_reads / dot_k: how often v is a dot operand, and its K there */
static void mark_dot_reads(IrFunc *fn, IrOp *op, void *ud) {
    Regs *R = ud;
    if (op->opc != OP_DOT) return;
    IrType a = fn->vals[op->operands[0]].type;
    for (int i = 0; i < 2; i++) {
        R->dot_reads[op->operands[i]]++;
        R->dot_k[op->operands[i]] = a.shape[a.rank - 1];
    }
}

/* ---- which values own registers ---- */

/* A convert_layout that only renames registers: the same lane and warp
 * bases, the register bases a permutation. */
static bool convert_renames(IrFunc *fn, IrOp *op) {
    const Layout *a = ir_layout(fn, op->operands[0]), *b = ir_layout(fn, op->results[0]);
    if (!a || !b) return false;
    for (int k = LL_LANE; k <= LL_WARP; k++) {
        if (a->n_bits[k] != b->n_bits[k]) return false;
        if (memcmp(a->basis[k], b->basis[k], sizeof(int32_t) * IR_MAX_RANK * a->n_bits[k])) return false;
    }
    if (a->n_bits[LL_REG] != b->n_bits[LL_REG]) return false;
    for (int i = 0; i < a->n_bits[LL_REG]; i++) {
        bool found = false;
        for (int j = 0; j < b->n_bits[LL_REG] && !found; j++)
            found = !memcmp(a->basis[LL_REG][i], b->basis[LL_REG][j], sizeof(int32_t) * IR_MAX_RANK);
        if (!found) return false;
    }
    return true;
}

static bool is_alias(IrFunc *fn, IrOp *op) {
    switch (op->opc) {
    case OP_SPLAT: case OP_BROADCAST: case OP_EXPAND_DIMS: case OP_TRANS: case OP_RESHAPE: case OP_SPLIT:
    case OP_MULTIPLE_OF: case OP_MAX_CONTIGUOUS: case OP_WGMMA_WAIT: return true;
    case OP_CONVERT_LAYOUT: return convert_renames(fn, op);
    default: return false;
    }
}

/* ---- positions (first walk) ---- */

static bool is_loop(const IrOp *op) { return op->opc == OP_FOR || op->opc == OP_WHILE; }
static bool walks_regions(const IrOp *op) { return is_loop(op) || op->opc == OP_IF; }

static int32_t add_pos(Regs *R, IrOp *op, uint8_t kind) {
    VEC_PUSH(R->fn->ctx->arena, R->pos, R->n_pos, R->cap_pos, ((RegsPos){op, kind}));
    return (int32_t)(R->n_pos - 1);
}

static void number_block(Regs *R, IrBlock *b) {
    for (IrOp *op = b->first; op; op = op->next) {
        if (!walks_regions(op)) {
            add_pos(R, op, 0);
            continue;
        }
        int32_t start = add_pos(R, op, 1);
        uint32_t k = R->n_loops;
        if (is_loop(op)) VEC_PUSH(R->fn->ctx->arena, R->loops, R->n_loops, R->cap_loops, ((Loop){start, -1}));
        for (uint32_t i = 0; i < op->n_regions; i++) number_block(R, op->regions[i]);
        int32_t end = add_pos(R, op, 2);
        if (is_loop(op)) R->loops[k].end = end;
    }
}

/* ---- live ranges (second walk, same order) ---- */

static ValId root_of(Regs *R, ValId v) {
    while (R->root[v] != v) v = R->root[v];
    return v;
}

/* A use of v at p: it lives to p, or to the end of the outermost
 * enclosing loop that began after v was defined (v is read again every
 * iteration). */
static void use(Regs *R, ValId v, int32_t p) {
    ValId r = root_of(R, v);
    if (R->def[r] < 0) return;   /* a value of a combine function, or a parameter */
    for (int i = 0; i < R->depth; i++) {
        const Loop *l = &R->loops[R->stack[i]];
        if (l->start > R->def[r]) {
            R->in_loop_use[r] = true;
            if (l->end > p) p = l->end;
            break;
        }
    }
    if (p > R->last[r]) R->last[r] = p;
}

static void define(Regs *R, ValId v, int32_t p) {
    R->def[v] = p;
    R->last[v] = p;
}

/* Uses of outer values inside a reduce's or scan's combine function count
 * at the op. */
static void use_nested(Regs *R, IrBlock *b, int32_t p) {
    for (IrOp *op = b->first; op; op = op->next) {
        for (uint32_t i = 0; i < op->n_operands; i++) use(R, op->operands[i], p);
        for (uint32_t i = 0; i < op->n_regions; i++) use_nested(R, op->regions[i], p);
    }
}

static void live_block(Regs *R, IrBlock *b, int32_t *pos);

/* ptxgen computes only register 0 of an affine pointer tile used only as
 * an address (ptx_only_base_needed): its operands' other registers are not
 * read there, and register 0 is the uniform part plus a constant. */
static bool base_only_ptr(Regs *R, ValId v) {
    IrValue *iv = &R->fn->vals[v];
    if (iv->type.rank == 0 || R->other_use[v] || iv->layout < 0) return false;
    IrAffine a = ir_affine(R->fn, &R->affine, v);
    const Layout *l = &R->fn->layouts[iv->layout];
    return ir_affine_deltas(&a, l, NULL, layout_n_regs(l));
}

static void live_region_op(Regs *R, IrOp *op, int32_t *pos) {
    int32_t start = (*pos)++;
    for (uint32_t i = 0; i < op->n_operands; i++) use(R, op->operands[i], start);
    bool loop = is_loop(op);
    int32_t k = loop ? (int32_t)R->next_loop++ : -1;
    if (loop) R->stack[R->depth++] = k;
    for (uint32_t i = 0; i < op->n_regions; i++) {
        IrBlock *b = op->regions[i];
        for (uint32_t j = 0; j < b->n_args; j++) {
            define(R, b->args[j], start);
            if (op->opc == OP_FOR && j == 0) R->last[b->args[j]] = R->loops[k].end;   /* the counter */
        }
        live_block(R, b, pos);
    }
    if (loop) R->depth--;
    int32_t end = (*pos)++;
    for (uint32_t i = 0; i < op->n_results; i++) define(R, op->results[i], end);
}

static void live_block(Regs *R, IrBlock *b, int32_t *pos) {
    IrFunc *fn = R->fn;
    for (IrOp *op = b->first; op; op = op->next) {
        if (walks_regions(op)) {
            live_region_op(R, op, pos);
            continue;
        }
        int32_t p = (*pos)++;
        bool base_only = op->opc == OP_ADDPTR && base_only_ptr(R, op->results[0]);
        for (uint32_t i = 0; i < op->n_operands; i++)
            if (!base_only) use(R, op->operands[i], p);
        for (uint32_t i = 0; i < op->n_regions; i++) use_nested(R, op->regions[i], p);
        bool alias = is_alias(fn, op);
        for (uint32_t i = 0; i < op->n_results; i++) {
            ValId r = op->results[i];
            if (alias) {
                R->root[r] = root_of(R, op->operands[0]);
                use(R, r, p);
            } else {
                define(R, r, p);
            }
        }
    }
}

/* ---- the sweep ---- */

/* Also a region op's start and end: its operands move into its block
 * arguments, its yields into its results (ptxas coalesces the moves). */
static bool overwrites_operands(const IrOp *op) {
    return (ir_opinfo[op->opc].flags & F_ELEMWISE) || op->opc == OP_DOT || op->opc == OP_WGMMA;
}

/* Pressure in quarters (and predicates) at every position; the peak. */
static void sweep(Regs *R) {
    IrFunc *fn = R->fn;
    Arena *a = fn->ctx->arena;
    int32_t n = (int32_t)R->n_pos;
    int64_t *across = arena_alloc(a, sizeof(int64_t) * (size_t)(n + 1));
    int64_t *dying = arena_alloc(a, sizeof(int64_t) * (size_t)(n + 1));
    int64_t *born = arena_alloc(a, sizeof(int64_t) * (size_t)(n + 1));
    int64_t *pacross = arena_alloc(a, sizeof(int64_t) * (size_t)(n + 1));
    int64_t *ppoint = arena_alloc(a, sizeof(int64_t) * (size_t)(n + 1));
    for (ValId v = 1; v < fn->n_vals; v++) {
        if (R->root[v] != v || R->def[v] < 0) continue;
        int32_t d = R->def[v], l = R->last[v];
        int64_t q = R->quarters[v], pr = R->preds[v];
        born[d] += q;
        ppoint[d] += pr;
        if (l > d) {
            dying[l] += q;
            ppoint[l] += pr;
        }
        if (l > d + 1) {
            across[d + 1] += q;
            across[l] -= q;
            pacross[d + 1] += pr;
            pacross[l] -= pr;
        }
    }
    int64_t run = 0, prun = 0, peak = -1, ppeak = 0;
    int32_t at = -1;
    for (int32_t p = 0; p < n; p++) {
        run += across[p];
        prun += pacross[p];
        bool in_place = R->pos[p].kind != 0 || overwrites_operands(R->pos[p].op);
        int64_t here = run + (in_place ? (dying[p] > born[p] ? dying[p] : born[p]) : dying[p] + born[p]);
        if (here > peak) {
            peak = here;
            at = p;
        }
        if (prun + ppoint[p] > ppeak) ppeak = prun + ppoint[p];
    }
    fn->est_regs = REGS_FIXED + (int32_t)((peak < 0 ? 0 : peak + 3) / 4);
    fn->est_preds = (int32_t)ppeak;
    fn->est_regs_op = at >= 0 ? R->pos[at].op : NULL;
}

/* requires: layouts for an estimate that matches ptxgen (without them each
 * tile is spread evenly over the threads). changes: nothing in the IR; sets
 * fn->est_regs, fn->est_preds and fn->est_regs_op. */
void pass_regs(IrFunc *fn) {
    Arena *a = fn->ctx->arena;
    Regs R = {0};
    R.fn = fn;
    size_t nv = fn->n_vals;
    R.axis = axisinfo_compute(fn);
    R.def = arena_alloc(a, sizeof(int32_t) * nv);
    R.last = arena_alloc(a, sizeof(int32_t) * nv);
    R.root = arena_alloc(a, sizeof(ValId) * nv);
    R.quarters = arena_alloc(a, sizeof(int32_t) * nv);
    R.preds = arena_alloc(a, sizeof(int32_t) * nv);
    R.need = arena_alloc(a, sizeof(int32_t) * nv);
    R.other_use = arena_alloc(a, sizeof(bool) * nv);
    R.offsets_only = arena_alloc(a, sizeof(bool) * nv);
    memset(R.offsets_only, 1, sizeof(bool) * nv);
    ir_walk(fn, fn->body, mark_offset_uses, R.offsets_only);
    R.in_loop_use = arena_alloc(a, sizeof(bool) * nv);
    for (ValId v = 0; v < nv; v++) {
        R.def[v] = R.last[v] = -1;
        R.root[v] = v;
    }
    ir_walk(fn, fn->body, mark_other_uses, R.other_use);
    R.uses = ir_count_uses(fn);
    R.dot_reads = arena_alloc(a, nv);
    R.dot_k = arena_alloc(a, sizeof(int32_t) * nv);
    ir_walk(fn, fn->body, mark_dot_reads, &R);
    compute_needs(&R);
    number_block(&R, fn->body);
    R.stack = arena_alloc(a, sizeof(int32_t) * (R.n_loops + 1));
    int32_t pos = 0;
    live_block(&R, fn->body, &pos);
    TRIC_ASSERT(pos == (int32_t)R.n_pos && R.next_loop == R.n_loops);
    for (ValId v = 1; v < nv; v++)
        if (R.root[v] == v && R.def[v] >= 0 && !(fn->vals[v].def && fn->vals[v].def->opc == OP_CONST))
            value_cost(&R, v);
    sweep(&R);
}
