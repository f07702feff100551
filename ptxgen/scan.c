/* scan: inclusive prefix combinations of a tile along one axis, with the
 * op's combine function (its region, emitted inline for every
 * combination), in the order the IR defines (doc/ir.md, "scan"; the
 * interpreter's exec_scan is the reference).
 *
 * The operands' layout holds the axis as layout_scan_parts says: position
 * j (counted from the end when reverse) = r + R * (l + L * (w + W * c)),
 * r a register of the thread's run, l the lane along the axis (consecutive
 * lane bits from lane0), w the warp along the axis, c a chunk of registers
 * where the layout wraps around the axis; groups g = w + W * c. So:
 *  1. each thread scans each of its runs sequentially, in registers;
 *  2. the runs' totals are scanned across lanes, Kogge-Stone, with
 *     shfl.sync.up (down when reverse): after step d a lane holds the
 *     combination of its 2d last totals; a lane's exclusive prefix E is
 *     then its predecessor's value (one more shuffle);
 *  3. with more than one group, the last lane of each group writes the
 *     group's total to shared memory (per row of the other dims, G slots),
 *     one barrier, and every thread folds the totals of the groups before
 *     its own, left to right (the same fold for all, so each picks its
 *     prefix P with selects on its warp index);
 *  4. each element becomes combine(combine(P, E), s), with the parts that
 *     a thread lacks (the first lane, the first group) left out.
 * The shared-memory arrays are planned with the reductions' (reduce.c).
 */
#include "ptx.h"

#include <string.h>

typedef struct ScanShape {
    int32_t li;              /* the operands' layout index */
    const Layout *lx;
    int n_axis;              /* log2 of the axis length */
    int parts[4];            /* layout_scan_parts */
    int kinds[LL_MAX_BITS * 3], bits[LL_MAX_BITS * 3];
    int R, L, W, C, G;
    int lane0;               /* the first lane bit along the axis */
    uint32_t axis_regs;      /* register bits along the axis */
    int64_t rows;            /* elements of the other dims */
    int log_s;               /* log2 of the axis' row-major stride */
} ScanShape;

static ScanShape scan_shape(Ptx *P, IrOp *op) {
    ScanShape s;
    memset(&s, 0, sizeof s);
    ValId x = op->operands[0];
    IrType t = P->fn->vals[x].type;
    int axis = (int)op->attr.i;
    s.li = ptx_layout_index(P, op, x);
    s.lx = &P->fn->layouts[s.li];
    s.n_axis = log2_ceil(t.shape[axis]);
    if (!layout_scan_parts(s.lx, axis, t.shape[axis], s.parts, s.kinds, s.bits))
        diag_error(P->ctx, op->loc, "scan: the operand's layout does not hold the axis as scan needs (not supported)");
    s.R = 1 << s.parts[0], s.L = 1 << s.parts[1], s.W = 1 << s.parts[2], s.C = 1 << s.parts[3];
    s.G = s.W * s.C;
    s.lane0 = s.parts[1] ? s.bits[s.parts[0]] : 0;
    for (int i = 0; i < s.n_axis; i++)
        if (s.kinds[i] == LL_REG) s.axis_regs |= 1u << s.bits[i];
    s.rows = ir_numel(t) >> s.n_axis;
    int64_t stride = 1;
    for (int d = axis + 1; d < t.rank; d++) stride *= t.shape[d];
    s.log_s = log2_ceil(stride);
    return s;
}

/* The register at scan position (r, c) of the run whose base register
 * (no axis bits) is `base`. */
static int reg_at(const ScanShape *s, bool rev, int base, int r, int c) {
    if (rev) r = s->R - 1 - r, c = s->C - 1 - c;
    int reg = base;
    for (int i = 0; i < s->parts[0]; i++)
        if (r >> i & 1) reg |= 1 << s->bits[i];
    int hi = s->parts[0] + s->parts[1] + s->parts[2];
    for (int i = 0; i < s->parts[3]; i++)
        if (c >> i & 1) reg |= 1 << s->bits[hi + i];
    return reg;
}

/* a flat row-major offset (or bit mask) of the full shape without the
 * axis' bits: the offset among the rows of the other dims */
static int64_t drop_axis(const ScanShape *s, int64_t f) {
    return ((f >> (s->log_s + s->n_axis)) << s->log_s) | (f & (((int64_t)1 << s->log_s) - 1));
}

/* The thread's index along the axis among lanes (kind LL_LANE) or warps,
 * in scan order (mirrored when reverse). */
static Reg axis_index(Ptx *P, const ScanShape *s, int kind, bool rev) {
    ptx_tid(P);
    int first = kind == LL_LANE ? s->parts[0] : s->parts[0] + s->parts[1], n = s->parts[kind == LL_LANE ? 1 : 2];
    Reg src = kind == LL_LANE ? P->lane : P->warp, acc = REG_NONE;
    if (kind == LL_LANE) {
        acc = ptx_reg(P, RC_B32);
        ptx_ins(P, "bfe.u32 %R, %R, %d, %d;", acc, src, s->lane0, n);
    }
    for (int i = 0; kind == LL_WARP && i < n; i++) {
        Reg b = ptx_reg(P, RC_B32);
        ptx_ins(P, "bfe.u32 %R, %R, %d, 1;", b, src, s->bits[first + i]);
        if (i) {
            Reg sh = ptx_reg(P, RC_B32), o = ptx_reg(P, RC_B32);
            ptx_ins(P, "shl.b32 %R, %R, %d;", sh, b, i);
            ptx_ins(P, "or.b32 %R, %R, %R;", o, acc, sh);
            b = o;
        }
        acc = b;
    }
    if (!rev) return acc;
    Reg m = ptx_reg(P, RC_B32);
    ptx_ins(P, "xor.b32 %R, %R, %d;", m, acc, (1 << n) - 1);
    return m;
}

static Reg setp(Ptx *P, const char *cmp, Reg a, int b) {
    Reg p = ptx_reg(P, RC_PRED);
    ptx_ins(P, "setp.%s.u32 %R, %R, %d;", cmp, p, a, b);
    return p;
}

/* v = p ? combine(a, v) : v, tuple-wise (p REG_NONE: always) */
static void combine_into(Ptx *P, IrOp *op, Reg p, const Reg *a, Reg *v) {
    uint32_t n = op->n_operands;
    Reg *out = arena_alloc(P->arena, sizeof(Reg) * n);
    ptx_combine(P, op, a, v, out);
    for (uint32_t k = 0; k < n; k++) v[k] = p ? ptx_select_reg(P, p, out[k], v[k]) : out[k];
}

/* Per thread, what every run needs: lane and group predicates. */
typedef struct ScanThread {
    Reg la, wa;              /* scan-order lane and warp index along the axis */
    Reg has_e;               /* la >= 1 (REG_NONE if L == 1) */
    Reg *lane_ge;            /* [log2 L]: la >= 2^i */
    Reg has_w;               /* wa >= 1 (REG_NONE if W == 1) */
    Reg *w_is;               /* [W]: wa == j */
    Reg last_lane;           /* la == L - 1 (REG_NONE if L == 1) */
    Reg row_base;            /* b32: the thread's row offset among rows (elements) */
    int64_t row_support;     /* bits it may set */
} ScanThread;

static ScanThread scan_thread(Ptx *P, const ScanShape *s, bool rev) {
    ScanThread th;
    memset(&th, 0, sizeof th);
    if (s->L > 1) {
        th.la = axis_index(P, s, LL_LANE, rev);
        th.lane_ge = arena_alloc(P->arena, sizeof(Reg) * (size_t)s->parts[1]);
        for (int i = 0; i < s->parts[1]; i++) th.lane_ge[i] = setp(P, "ge", th.la, 1 << i);
        th.has_e = th.lane_ge[0];
        th.last_lane = setp(P, "eq", th.la, s->L - 1);
    }
    if (s->W > 1) {
        th.wa = axis_index(P, s, LL_WARP, rev);
        th.has_w = setp(P, "ge", th.wa, 1);
        th.w_is = arena_alloc(P->arena, sizeof(Reg) * (size_t)s->W);
        for (int j = 1; j < s->W; j++) th.w_is[j] = setp(P, "eq", th.wa, j);
    }
    if (s->G > 1) {
        th.row_support = drop_axis(s, layout_thread_support(s->lx));
        Reg f = ptx_layout_flat(P, s->li);
        if (!th.row_support) {
            th.row_base = REG_NONE;
        } else {
            Reg hi = ptx_reg(P, RC_B32), lo = ptx_reg(P, RC_B32), r = ptx_reg(P, RC_B32);
            ptx_ins(P, "shr.u32 %R, %R, %d;", hi, f, s->log_s + s->n_axis);
            ptx_ins(P, "shl.b32 %R, %R, %d;", hi, hi, s->log_s);
            ptx_ins(P, "and.b32 %R, %R, %d;", lo, f, (1 << s->log_s) - 1);
            ptx_ins(P, "or.b32 %R, %R, %R;", r, hi, lo);
            th.row_base = r;
        }
    }
    return th;
}

/* The element offset of a run's row among the rows: row_base combined with
 * the base register's own part. */
static Reg row_of(Ptx *P, const ScanShape *s, const ScanThread *th, int base) {
    int64_t f = drop_axis(s, layout_reg_flat(s->lx, base));
    if (!th->row_base) return ptx_const_reg(P, RC_B32, (uint64_t)f);
    Reg r = ptx_reg(P, RC_B32);
    if (f & th->row_support) ptx_ins(P, "xor.b32 %R, %R, %d;", r, th->row_base, (int)f);
    else ptx_ins(P, "add.u32 %R, %R, %d;", r, th->row_base, (int)f);
    return r;
}

/* 2. the run totals t (tuple) across lanes: inclusive in place; *e gets
 * the lane's exclusive prefix (valid where th->has_e) */
static void lane_scan(Ptx *P, IrOp *op, const ScanShape *s, const ScanThread *th, bool rev, Reg *t, Reg *e) {
    uint32_t n = op->n_operands;
    const char *mode = rev ? "down" : "up";
    int clamp = rev ? 31 : 0;
    Reg *other = arena_alloc(P->arena, sizeof(Reg) * n);
    for (int i = 0; i < s->parts[1]; i++) {
        for (uint32_t k = 0; k < n; k++) other[k] = ptx_shuffle(P, t[k], mode, (1 << i) << s->lane0, clamp);
        combine_into(P, op, th->lane_ge[i], other, t);
    }
    for (uint32_t k = 0; k < n; k++) e[k] = ptx_shuffle(P, t[k], mode, 1 << s->lane0, clamp);
}

/* 3. the group prefixes pre[c][k] of one row (valid where the thread is
 * not in group 0); tot[c][k] = the group's total (valid in the last lane) */
static void group_prefix(Ptx *P, IrOp *op, const ScanShape *s, const ScanThread *th, int32_t offset, int base,
                         Reg **tot, Reg **pre) {
    uint32_t n = op->n_operands;
    Reg smem = ptx_smem_base(P), row = row_of(P, s, th, base);
    Reg **all = arena_alloc(P->arena, sizeof(Reg *) * n), *row_addr = arena_alloc(P->arena, sizeof(Reg) * n);
    for (uint32_t k = 0, off = (uint32_t)offset; k < n; k++) {
        int bytes = smem_elem_bytes((ElemType)P->fn->vals[op->operands[k]].type.elem);
        Reg addr = ptx_reg(P, RC_B32);
        ptx_ins(P, "mad.lo.u32 %R, %R, %d, %R;", addr, row, s->G * bytes, smem);
        Reg slot = addr;
        if (th->wa) {
            slot = ptx_reg(P, RC_B32);
            ptx_ins(P, "mad.lo.u32 %R, %R, %d, %R;", slot, th->wa, bytes, addr);
        }
        for (int c = 0; c < s->C; c++) {
            Reg v = tot[c][k];
            if (REG_CLASS(v) == RC_PRED) {
                Reg w = ptx_reg(P, RC_B32);
                ptx_ins(P, "selp.u32 %R, 1, 0, %R;", w, v);
                v = w;
            }
            const char *ty = bytes == 2 ? "b16" : bytes == 8 ? "b64" : "b32";
            const char *where = ptx_smem_addr(P, slot, off + (int64_t)c * s->W * bytes);
            ptx_ins(P, "%sst.shared.%s %s, %R;", ptx_guard(P, th->last_lane), ty, where, v);
        }
        all[k] = arena_alloc(P->arena, sizeof(Reg) * (size_t)s->G);
        row_addr[k] = addr;
        off += (uint32_t)smem_scan_bytes(P->fn, op, k);
    }
    ptx_ins(P, "bar.sync 0;");
    for (uint32_t k = 0, off = (uint32_t)offset; k < n; k++) {
        int bytes = smem_elem_bytes((ElemType)P->fn->vals[op->operands[k]].type.elem);
        ptx_load_partials(P, REG_CLASS(pre[0][k]), bytes, row_addr[k], off, all[k], s->G);
        off += (uint32_t)smem_scan_bytes(P->fn, op, k);
    }
    /* fold[g] = totals 0..g-1, left to right */
    Reg **fold = arena_alloc(P->arena, sizeof(Reg *) * (size_t)s->G);
    Reg *a = arena_alloc(P->arena, sizeof(Reg) * n), *b = arena_alloc(P->arena, sizeof(Reg) * n);
    for (int g = 1; g < s->G; g++) {
        fold[g] = arena_alloc(P->arena, sizeof(Reg) * n);
        for (uint32_t k = 0; k < n; k++) b[k] = all[k][g - 1];
        if (g == 1) {
            memcpy(fold[g], b, sizeof(Reg) * n);
            continue;
        }
        memcpy(a, fold[g - 1], sizeof(Reg) * n);
        ptx_combine(P, op, a, b, fold[g]);
    }
    for (int c = 0; c < s->C; c++)
        for (uint32_t k = 0; k < n; k++) {
            Reg v = c ? fold[c * s->W][k] : REG_NONE;
            for (int j = 1; j < s->W; j++) {
                Reg f = fold[c * s->W + j][k];
                v = v ? ptx_select_reg(P, th->w_is[j], f, v) : f;
            }
            pre[c][k] = v;
        }
}

/* The scan of the registers of one row (every run with this base). */
static void scan_row(Ptx *P, IrOp *op, const ScanShape *s, const ScanThread *th, bool rev, int32_t offset, int base,
                     Reg **acc) {
    uint32_t n = op->n_operands;
    Reg **tot = arena_alloc(P->arena, sizeof(Reg *) * (size_t)s->C), **e = arena_alloc(P->arena, sizeof(Reg *) * (size_t)s->C);
    Reg *a = arena_alloc(P->arena, sizeof(Reg) * n), *v = arena_alloc(P->arena, sizeof(Reg) * n);
    for (int c = 0; c < s->C; c++) {   /* 1. each run, sequentially */
        for (int r = 1; r < s->R; r++) {
            int prev = reg_at(s, rev, base, r - 1, c), cur = reg_at(s, rev, base, r, c);
            for (uint32_t k = 0; k < n; k++) a[k] = acc[k][prev], v[k] = acc[k][cur];
            combine_into(P, op, REG_NONE, a, v);
            for (uint32_t k = 0; k < n; k++) acc[k][cur] = v[k];
        }
        tot[c] = arena_alloc(P->arena, sizeof(Reg) * n);
        e[c] = arena_alloc(P->arena, sizeof(Reg) * n);
        for (uint32_t k = 0; k < n; k++) tot[c][k] = acc[k][reg_at(s, rev, base, s->R - 1, c)];
        if (s->L > 1) lane_scan(P, op, s, th, rev, tot[c], e[c]);   /* 2. */
    }
    Reg **pre = arena_alloc(P->arena, sizeof(Reg *) * (size_t)s->C);
    for (int c = 0; c < s->C; c++) {
        pre[c] = arena_alloc(P->arena, sizeof(Reg) * n);
        for (uint32_t k = 0; k < n; k++) pre[c][k] = acc[k][base];   /* register classes for the loads */
    }
    if (s->G > 1) group_prefix(P, op, s, th, offset, base, tot, pre);   /* 3. */
    for (int c = 0; c < s->C; c++) {   /* 4. */
        bool has_p = c > 0 || s->W > 1, has_e = s->L > 1;
        if (!has_p && !has_e) continue;
        Reg *tp = arena_alloc(P->arena, sizeof(Reg) * n);
        Reg has_tp = REG_NONE;   /* NONE: every thread has a prefix */
        if (has_p && has_e) {
            memcpy(tp, e[c], sizeof(Reg) * n);
            combine_into(P, op, c ? REG_NONE : th->has_w, pre[c], tp);   /* P, E: combine(P, E) */
            for (uint32_t k = 0; k < n; k++) tp[k] = ptx_select_reg(P, th->has_e, tp[k], pre[c][k]);
            if (!c) {
                has_tp = ptx_reg(P, RC_PRED);
                ptx_ins(P, "or.pred %R, %R, %R;", has_tp, th->has_e, th->has_w);
            }
        } else if (has_p) {
            memcpy(tp, pre[c], sizeof(Reg) * n);
            has_tp = c ? REG_NONE : th->has_w;
        } else {
            memcpy(tp, e[c], sizeof(Reg) * n);
            has_tp = th->has_e;
        }
        for (int r = 0; r < s->R; r++) {
            int reg = reg_at(s, rev, base, r, c);
            for (uint32_t k = 0; k < n; k++) v[k] = acc[k][reg];
            combine_into(P, op, has_tp, tp, v);
            for (uint32_t k = 0; k < n; k++) acc[k][reg] = v[k];
        }
    }
}

void ptx_scan(Ptx *P, IrOp *op) {
    ScanShape s = scan_shape(P, op);
    uint32_t n = op->n_operands;
    bool rev = op->attr.i2 != 0;
    int nregs = layout_n_regs(s.lx);
    Reg **acc = ptx_operand_copies(P, op, nregs);
    int32_t offset = 0;
    bool bar_before = false;
    if (s.G > 1) {
        bool planned = ptx_reduce_slot(P, op, &offset, &bar_before);
        TRIC_ASSERT(planned);
        if (bar_before) ptx_ins(P, "bar.sync 0;");
    }
    ScanThread th = scan_thread(P, &s, rev);
    /* each row has its own slots in the buffer: no barrier between rows */
    for (int base = 0; base < nregs; base++)
        if (!((uint32_t)base & s.axis_regs)) scan_row(P, op, &s, &th, rev, offset, base, acc);
    for (uint32_t k = 0; k < n; k++) ptx_alias(P, op->results[k], acc[k], nregs);
}
