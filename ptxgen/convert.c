/* convert_layout: move a tile between two layouts.
 *
 * When the two layouts put every element in the same thread and only the
 * register order differs, registers are renamed (no code). Otherwise the
 * tile goes through shared memory: every thread writes its registers at the
 * row-major index of their elements (rows padded or 16-byte chunks swizzled
 * where that avoids bank conflicts, registers consecutive along the last dim
 * as vectors where that pays: see smem_plan), a barrier, every thread reads
 * the elements of its new registers (with ldmatrix where the new layout is
 * made of 8x8 matrices of 16-bit pairs, as mma's operands are), and a second
 * barrier so the next user of the buffer cannot overwrite it before
 * everyone has read.
 *
 * The row-major index of a linear layout is itself linear in (register,
 * lane, warp), so an address is "thread base + compile-time offset" when the
 * register's index bits cannot overlap the thread's, which is the case for
 * blocked layouts; otherwise one xor and the (padded) address per register.
 */
#include "ptx.h"

#include <string.h>

Reg ptx_smem_base(Ptx *P) {
    if (P->smem_base) return P->smem_base;
    Buf *saved = P->out;
    int n_insts = P->n_insts;
    P->out = &P->prologue;
    P->smem_base = ptx_reg(P, RC_B32);
    ptx_ins(P, "mov.u32 %R, tric_smem;", P->smem_base);
    P->out = saved;
    P->n_insts = n_insts;
    P->uses_smem = true;
    return P->smem_base;
}

/* ---- addresses ----
 *
 * A side's address for register (or ldmatrix) r is that of the element
 * thread ^ c(r): thread the linear part of the lane and warp bits, c the
 * register's. Unswizzled, the thread's part is a run-time index `flat` and
 * `base` its padded address; swizzled, `rel` is the thread part's byte
 * offset, and an address is rel ^ S(c): the bits of S(c) rel can have
 * (`lo`) are xored into one base per distinct lo (few: they are chunk
 * bits), made once in the prologue, the rest is the compile-time offset. */
typedef struct SmemAddr {
    const SmemShape *shape;
    int32_t support;       /* flat index bits the thread part can set */
    Reg flat, base;        /* unswizzled */
    int32_t byte_support;  /* swizzled: byte offset bits rel can set */
    Reg rel;
    int32_t lo_key[8];
    Reg lo_base[8];
    int n_lo;
} SmemAddr;

/* The scratch of the op being emitted (a convert's buffer): pass smem put
 * it after the reductions' areas and the buffers live at the op,
 * 128-aligned as a buffer's slots are, so the vectors and swizzles planned
 * from offset 0 stay aligned; the verifier checked that it fits. */
static int32_t scratch_off(Ptx *P) {
    TRIC_ASSERT(P->scratch_at >= 0);
    return P->scratch_at;
}

static Reg convert_base(Ptx *P) {
    if (P->dyn_base) return P->dyn_base;   /* a pipeline buffer's slot */
    int32_t off = scratch_off(P);
    if (!off) return ptx_smem_base(P);
    for (uint32_t i = 0; i < P->n_conv_bases; i++)
        if (P->conv_bases[i].off == off) return P->conv_bases[i].reg;
    Reg base = ptx_smem_base(P);
    Buf *saved = P->out;
    int n_insts = P->n_insts;
    P->out = &P->prologue;
    Reg r = ptx_reg(P, RC_B32);
    ptx_ins(P, "add.u32 %R, %R, %d;", r, base, (int)off);
    P->out = saved;
    P->n_insts = n_insts;
    PtxConvBase cb = {off, r};
    VEC_PUSH(P->arena, P->conv_bases, P->n_conv_bases, P->cap_conv_bases, cb);
    return r;
}

/* smem + slot(i) * bytes for a run-time index i (unswizzled shapes) */
static Reg smem_slot_addr(Ptx *P, const SmemShape *s, Reg i) {
    Reg a = ptx_reg(P, RC_B32);
    if (s->pad) {
        Reg row = ptx_reg(P, RC_B32), slot = ptx_reg(P, RC_B32);
        ptx_ins(P, "shr.u32 %R, %R, %d;", row, i, s->lb);
        ptx_ins(P, "mad.lo.u32 %R, %R, %d, %R;", slot, row, (int)s->pad, i);
        i = slot;
    }
    ptx_ins(P, "mad.lo.u32 %R, %R, %d, %R;", a, i, s->bytes, convert_base(P));
    return a;
}

/* The thread part given by the flat index of each lane and warp bit;
 * flat: its run-time index when the caller has it (a layout's, cached),
 * else REG_NONE. */
static SmemAddr smem_addr_new(Ptx *P, const SmemShape *shape, const int32_t *lane_vals, int n_lane,
                              const int32_t *warp_vals, int n_warp, Reg flat) {
    SmemAddr a = {0};
    a.shape = shape;
    for (int k = 0; k < n_lane; k++) a.support |= lane_vals[k];
    for (int k = 0; k < n_warp; k++) a.support |= warp_vals[k];
    if (shape->swz_mp) {
        int32_t lb[5], wb[LL_MAX_BITS];
        for (int k = 0; k < n_lane; k++) a.byte_support |= lb[k] = smem_byte(shape, lane_vals[k]);
        for (int k = 0; k < n_warp; k++) a.byte_support |= wb[k] = smem_byte(shape, warp_vals[k]);
        a.rel = ptx_thread_xor(P, lb, n_lane, wb, n_warp);
        return a;
    }
    a.flat = flat ? flat : ptx_thread_xor(P, lane_vals, n_lane, warp_vals, n_warp);
    a.base = smem_slot_addr(P, shape, a.flat);
    return a;
}

static SmemAddr smem_addr_layout(Ptx *P, int32_t li, const SmemShape *shape) {
    const Layout *l = &P->fn->layouts[li];
    int32_t vals[LL_KINDS][LL_MAX_BITS];
    for (int kind = LL_LANE; kind <= LL_WARP; kind++)
        for (int k = 0; k < l->n_bits[kind]; k++) vals[kind][k] = layout_flat(l, l->basis[kind][k]);
    Reg flat = shape->swz_mp ? REG_NONE : ptx_layout_flat(P, li);
    return smem_addr_new(P, shape, vals[LL_LANE], l->n_bits[LL_LANE], vals[LL_WARP], l->n_bits[LL_WARP], flat);
}

/* smem + (rel ^ lo), made once in the prologue for the first 8 values of
 * lo (layouts whose register and thread bits meet in more chunk bits pay
 * an xor and an add per access) */
static Reg swz_base(Ptx *P, SmemAddr *a, int32_t lo) {
    for (int i = 0; i < a->n_lo; i++)
        if (a->lo_key[i] == lo) return a->lo_base[i];
    Reg smem = convert_base(P);
    if (P->dyn_base) {   /* a run-time slot base: the xor in the prologue, the add here */
        Buf *saved = P->out;
        int n_insts = P->n_insts;
        P->out = &P->prologue;
        Reg x = a->rel;
        if (lo) {
            x = ptx_reg(P, RC_B32);
            ptx_ins(P, "xor.b32 %R, %R, %d;", x, a->rel, (int)lo);
        }
        P->out = saved;
        P->n_insts = n_insts;
        Reg b = ptx_reg(P, RC_B32);
        ptx_ins(P, "add.u32 %R, %R, %R;", b, x, smem);
        if (a->n_lo < 8) {
            a->lo_key[a->n_lo] = lo;
            a->lo_base[a->n_lo++] = b;
        }
        return b;
    }
    if (a->n_lo == 8) {
        Reg x = ptx_reg(P, RC_B32), b = ptx_reg(P, RC_B32);
        ptx_ins(P, "xor.b32 %R, %R, %d;", x, a->rel, (int)lo);
        ptx_ins(P, "add.u32 %R, %R, %R;", b, x, smem);
        return b;
    }
    Buf *saved = P->out;
    int n_insts = P->n_insts;
    P->out = &P->prologue;
    Reg x = a->rel, b = ptx_reg(P, RC_B32);
    if (lo) {
        x = ptx_reg(P, RC_B32);
        ptx_ins(P, "xor.b32 %R, %R, %d;", x, a->rel, (int)lo);
    }
    ptx_ins(P, "add.u32 %R, %R, %R;", b, x, smem);
    P->out = saved;
    P->n_insts = n_insts;
    a->lo_key[a->n_lo] = lo;
    a->lo_base[a->n_lo++] = b;
    return b;
}

/* "[%r7+24]" for the element thread ^ c. When c's index bits and the
 * thread's are disjoint, index = thread | c = thread + c and the padded
 * slot splits the same way (the row and column parts of the two are
 * disjoint too), so the offset is a compile-time constant. */
static const char *smem_addr(Ptx *P, SmemAddr *a, int32_t c) {
    Buf b = {0};
    buf_putc(&b, '[');
    int32_t off = 0;
    if (a->shape->swz_mp) {
        int32_t sc = smem_byte(a->shape, c), lo = sc & a->byte_support;
        ptx_put_reg(&b, swz_base(P, a, lo));
        off = sc ^ lo;
    } else if (c & a->support) {
        Reg x = ptx_reg(P, RC_B32);
        ptx_ins(P, "xor.b32 %R, %R, %d;", x, a->flat, (int)c);
        ptx_put_reg(&b, smem_slot_addr(P, a->shape, x));
    } else {
        ptx_put_reg(&b, a->base);
        off = smem_slot(a->shape, c) * a->shape->bytes;
    }
    if (off) buf_printf(&b, "+%d", (int)off);
    buf_putc(&b, ']');
    const char *s = arena_strdup(P->arena, b.data);
    buf_free(&b);
    return s;
}

const char *ptx_smem_type(ElemType e, bool is_load) {
    switch (elem_bytes(e)) {
    case 1: return e == ET_I8 && is_load ? "s8" : "u8";
    case 2: return "b16";
    case 4: return "b32";
    default: return "b64";
    }
}

/* "{%f1, %f2}" or "%f1": registers r .. r+vec-1 */
static const char *vec_regs(Ptx *P, const Reg *regs, int r, int vec) {
    Buf b = {0};
    if (vec > 1) buf_putc(&b, '{');
    for (int i = 0; i < vec; i++) {
        if (i) buf_puts(&b, ", ");
        ptx_put_reg(&b, regs[r + i]);
    }
    if (vec > 1) buf_putc(&b, '}');
    const char *s = arena_strdup(P->arena, b.data);
    buf_free(&b);
    return s;
}

static const char *vec_sfx(int vec) { return vec == 4 ? ".v4" : vec == 2 ? ".v2" : ""; }

/* v's elements (held in regs, in layout li: v's, or its view in the
 * buffer) into the buffer; only where `guard` holds when it is not REG_NONE */
static void write_tile(Ptx *P, IrOp *op, ValId v, int32_t li, const Reg *regs, Reg guard, ElemType e,
                       const SmemShape *shape, int vec) {
    const Layout *l = &P->fn->layouts[li];
    SmemAddr a = smem_addr_layout(P, li, shape);
    uint32_t dup_regs;
    ptx_layout_owner(P, li, &dup_regs);   /* registers that repeat another need no write */
    TRIC_ASSERT(!(dup_regs & (uint32_t)(vec - 1)));   /* vector lanes are distinct elements */
    int n = ptx_value_nregs(P, op, v);
    const char *g = ptx_guard(P, guard);
    for (int r = 0; r < n; r += vec) {
        if ((uint32_t)r & dup_regs) continue;
        int32_t c = layout_reg_flat(l, r);
        if (e == ET_I1) {
            Reg x = ptx_reg(P, RC_B16);
            ptx_ins(P, "selp.u16 %R, 1, 0, %R;", x, regs[r]);
            ptx_ins(P, "%sst.shared.u8 %s, %R;", g, smem_addr(P, &a, c), x);
            continue;
        }
        const char *addr = smem_addr(P, &a, c);
        if (elem_bytes(e) == 1 && vec == 2) {   /* two bytes in one b16 */
            Reg lo = ptx_reg(P, RC_B32), w = ptx_reg(P, RC_B32), h = ptx_reg(P, RC_B16);
            ptx_ins(P, "mov.b32 %R, {%R, %R};", lo, regs[r], regs[r + 1]);
            ptx_ins(P, "prmt.b32 %R, %R, 0, 0x20;", w, lo);
            ptx_ins(P, "cvt.u16.u32 %R, %R;", h, w);
            ptx_ins(P, "%sst.shared.b16 %s, %R;", g, addr, h);
        } else if (elem_bytes(e) == 1 && vec >= 4) {   /* bytes 4 to a word: byte k of word j is register 4j + k */
            Reg w[4];
            for (int i = 0; i < vec / 4; i++) {
                Reg lo = ptx_reg(P, RC_B32), hi = ptx_reg(P, RC_B32);
                w[i] = ptx_reg(P, RC_B32);
                ptx_ins(P, "mov.b32 %R, {%R, %R};", lo, regs[r + 4 * i], regs[r + 4 * i + 1]);
                ptx_ins(P, "mov.b32 %R, {%R, %R};", hi, regs[r + 4 * i + 2], regs[r + 4 * i + 3]);
                ptx_ins(P, "prmt.b32 %R, %R, %R, 0x6420;", w[i], lo, hi);
            }
            ptx_ins(P, "%sst.shared%s.b32 %s, %s;", g, vec_sfx(vec / 4), addr, vec_regs(P, w, 0, vec / 4));
        } else if (vec == 8) {   /* 16-bit pairs packed into b32 */
            Reg w[4];
            for (int i = 0; i < 4; i++) {
                w[i] = ptx_reg(P, RC_B32);
                ptx_ins(P, "mov.b32 %R, {%R, %R};", w[i], regs[r + 2 * i], regs[r + 2 * i + 1]);
            }
            ptx_ins(P, "%sst.shared.v4.b32 %s, %s;", g, addr, vec_regs(P, w, 0, 4));
        } else {
            ptx_ins(P, "%sst.shared%s.%s %s, %s;", g, vec_sfx(vec), ptx_smem_type(e, false), addr,
                    vec_regs(P, regs, r, vec));
        }
    }
}

/* v's registers (layout li: v's, or its view in the buffer) from the buffer */
static void read_tile(Ptx *P, IrOp *op, ValId v, int32_t li, ElemType e, const SmemShape *shape, int vec) {
    const Layout *l = &P->fn->layouts[li];
    SmemAddr a = smem_addr_layout(P, li, shape);
    int n = ptx_value_nregs(P, op, v);
    Reg *regs = ptx_def(P, op, v);
    for (int r = 0; r < n; r += vec) {
        int32_t c = layout_reg_flat(l, r);
        if (e == ET_I1) {
            Reg x = ptx_reg(P, RC_B16);
            ptx_ins(P, "ld.shared.u8 %R, %s;", x, smem_addr(P, &a, c));
            ptx_ins(P, "setp.ne.b16 %R, %R, 0;", regs[r], x);
            continue;
        }
        const char *addr = smem_addr(P, &a, c);
        if (elem_bytes(e) == 1 && vec >= 2) {   /* b16 or b32 words of bytes, each extended as ld.shared's */
            Reg w[4];
            const char *ext = e == ET_I8 ? "s32" : "u32";
            int nw = vec < 4 ? 1 : vec / 4;
            for (int i = 0; i < nw; i++) w[i] = ptx_reg(P, RC_B32);
            if (vec == 2) {
                Reg h = ptx_reg(P, RC_B16);
                ptx_ins(P, "ld.shared.b16 %R, %s;", h, addr);
                ptx_ins(P, "cvt.u32.u16 %R, %R;", w[0], h);
            } else {
                ptx_ins(P, "ld.shared%s.b32 %s, %s;", vec_sfx(nw), vec_regs(P, w, 0, nw), addr);
            }
            for (int i = 0; i < vec; i++) {
                Reg t = ptx_reg(P, RC_B32);
                ptx_ins(P, "bfe.%s %R, %R, %d, 8;", ext, t, w[i / 4], 8 * (i % 4));
                ptx_ins(P, "cvt.u16.u32 %R, %R;", regs[r + i], t);
            }
        } else if (vec == 8) {
            Reg w[4];
            for (int i = 0; i < 4; i++) w[i] = ptx_reg(P, RC_B32);
            ptx_ins(P, "ld.shared.v4.b32 %s, %s;", vec_regs(P, w, 0, 4), addr);
            for (int i = 0; i < 4; i++)
                ptx_ins(P, "mov.b32 {%R, %R}, %R;", regs[r + 2 * i], regs[r + 2 * i + 1], w[i]);
        } else {
            ptx_ins(P, "ld.shared%s.%s %s, %s;", vec_sfx(vec), ptx_smem_type(e, true), vec_regs(P, regs, r, vec),
                    addr);
        }
    }
}

/* v's registers by ldmatrix (pattern p): instruction q reads matrices
 * q x .. q x + x - 1, lane 8j + i addressing row i of the j-th; each
 * 32-bit result is the register pair (m << 1, m << 1 | 1) of 16-bit
 * values (low half first), or register m itself for 4-byte elements.
 * With words, a 16-bit pair stays packed: words[m] gets the 32-bit result
 * and the pair is not split (the deferred reads into a dot, whose mma
 * takes the pairs packed). */
static void ldm_emit(Ptx *P, SmemAddr *a, const LdmPat *p, bool packed, const Reg *regs, Reg *words, int q) {
    int x = ldm_x(p);
    const char *addr = smem_addr(P, a, ldm_inst_flat(p, q));
    Reg d[4];
    for (int j = 0; j < x; j++) d[j] = packed ? ptx_reg(P, RC_B32) : regs[q * x + j];
    Buf b = {0};
    buf_putc(&b, '{');
    for (int j = 0; j < x; j++) {
        if (j) buf_puts(&b, ", ");
        ptx_put_reg(&b, d[j]);
    }
    buf_putc(&b, '}');
    ptx_ins(P, "ldmatrix.sync.aligned.m8n8.x%d%s.shared.b16 %s, %s;", x, p->trans ? ".trans" : "", b.data, addr);
    buf_free(&b);
    if (packed)
        for (int j = 0; j < x; j++) {
            int m = q * x + j;
            if (words) words[m] = d[j];
            else ptx_ins(P, "mov.b32 {%R, %R}, %R;", regs[2 * m], regs[2 * m + 1], d[j]);
        }
}

static SmemAddr ldm_addr(Ptx *P, const SmemShape *shape, const LdmPat *p) {
    int32_t lane_vals[5];
    ldm_lane_vals(p, lane_vals);
    return smem_addr_new(P, shape, lane_vals, 5, p->warp, p->n_warp, REG_NONE);
}

static void read_tile_ldm(Ptx *P, IrOp *op, ValId v, int32_t li, ElemType e, const SmemShape *shape,
                          const LdmPat *p) {
    SmemAddr a = ldm_addr(P, shape, p);
    Reg *regs = ptx_def(P, op, v);
    TRIC_ASSERT(layout_n_regs(&P->fn->layouts[li]) == p->n_mat << p->nlow);
    for (int q = 0; q < p->n_mat / ldm_x(p); q++) ldm_emit(P, &a, p, elem_bytes(e) == 2, regs, NULL, q);
}

/* The 16-bit registers of a layout that fits ldmatrix (p), stored as its
 * matrices by stmatrix: register pair 2m, 2m + 1 is matrix m's word */
static void write_tile_stm(Ptx *P, const Reg *regs, const SmemShape *shape, const LdmPat *p) {
    SmemAddr a = ldm_addr(P, shape, p);
    int x = ldm_x(p);
    for (int q = 0; q < p->n_mat / x; q++) {
        const char *addr = smem_addr(P, &a, ldm_inst_flat(p, q));
        Reg w[4];
        for (int j = 0; j < x; j++) {
            int m = q * x + j;
            w[j] = ptx_reg(P, RC_B32);
            ptx_ins(P, "mov.b32 %R, {%R, %R};", w[j], regs[2 * m], regs[2 * m + 1]);
        }
        ptx_ins(P, "stmatrix.sync.aligned.m8n8.x%d%s.shared.b16 %s, %s;", x, p->trans ? ".trans" : "", addr,
                vec_regs(P, w, 0, x));
    }
    if (P->version < 78) P->version = 78;
}

static void read_plan(Ptx *P, IrOp *op, ValId v, int32_t li, ElemType e, const SmemPlan *plan) {
    if (plan->ldm) read_tile_ldm(P, op, v, li, e, &plan->shape, &plan->pat);
    else read_tile(P, op, v, li, e, &plan->shape, plan->vec_r);
}

void ptx_convert_layout(Ptx *P, IrOp *op) {
    ValId src = op->operands[0], res = op->results[0];
    IrType ty = P->fn->vals[res].type;
    if (ty.rank == 0) {   /* scalars have no layout */
        ptx_alias(P, res, ptx_regs(P, src, NULL), 1);
        return;
    }
    if (ptx_try_alias_convert(P, op)) return;
    ElemType e = (ElemType)ty.elem;
    int32_t lw = ptx_layout_index(P, op, src), lr = ptx_layout_index(P, op, res);
    uint32_t dup;
    ptx_layout_owner(P, lw, &dup);
    SmemPlan plan = smem_plan(&ty, &P->fn->layouts[lw], dup, &P->fn->layouts[lr], false, P->ti->hopper);
    const IrSmem *s = &op->attr.smem;
    SmemShape rec = smem_recorded_shape(s, plan.shape.bytes);
    if (s->shaped && !smem_shape_eq(&rec, &plan.shape))   /* written by hand */
        plan = smem_plan_shape(&ty, &P->fn->layouts[lw], dup, &P->fn->layouts[lr], P->ti->hopper, &rec);
    if (plan.stm) write_tile_stm(P, ptx_regs(P, src, NULL), &plan.shape, &plan.wpat);
    else write_tile(P, op, src, lw, ptx_regs(P, src, NULL), REG_NONE, e, &plan.shape, plan.vec_w);
    ptx_ins(P, "bar.sync 0;");
    read_plan(P, op, res, lr, e, &plan);
    ptx_ins(P, "bar.sync 0;");
}

/* The result v of an op that only the canonical holders computed (into
 * regs, in v's layout; `owner` their predicate): they write it to shared
 * memory, and after a barrier every holder reads its registers' elements
 * into v's registers; a second barrier lets the next user of the buffer
 * write. A scalar goes through one slot. Atomics use it (atomic.c): each
 * element's read-modify-write happens once, and every replica gets the
 * old value. */
void ptx_smem_share(Ptx *P, IrOp *op, ValId v, const Reg *regs, Reg owner) {
    IrType ty = P->fn->vals[v].type;
    ElemType e = (ElemType)ty.elem;
    if (ty.rank == 0) {
        Reg base = convert_base(P), *d = ptx_def(P, op, v);
        ptx_ins(P, "@%R st.shared.%s [%R], %R;", owner, ptx_smem_type(e, false), base, regs[0]);
        ptx_ins(P, "bar.sync 0;");
        ptx_ins(P, "ld.shared.%s %R, [%R];", ptx_smem_type(e, true), d[0], base);
        ptx_ins(P, "bar.sync 0;");
        return;
    }
    int32_t li = ptx_layout_index(P, op, v);
    const Layout *l = &P->fn->layouts[li];
    uint32_t dup;
    ptx_layout_owner(P, li, &dup);
    SmemPlan plan = smem_plan(&ty, l, dup, l, false, false);
    write_tile(P, op, v, li, regs, owner, e, &plan.shape, plan.vec_w);
    ptx_ins(P, "bar.sync 0;");
    read_plan(P, op, v, li, e, &plan);
    ptx_ins(P, "bar.sync 0;");
}

void ptx_smem_write(Ptx *P, IrOp *op, ValId v) {
    IrType ty = P->fn->vals[v].type;
    SmemShape shape = {elem_bytes((ElemType)ty.elem), log2_ceil(ty.shape[ty.rank - 1]), 0, 0, 0};
    write_tile(P, op, v, ptx_layout_index(P, op, v), ptx_regs(P, v, NULL), REG_NONE, (ElemType)ty.elem, &shape, 1);
}

void ptx_smem_read(Ptx *P, IrOp *op, ValId v) {
    IrType ty = P->fn->vals[v].type;
    SmemShape shape = {elem_bytes((ElemType)ty.elem), log2_ceil(ty.shape[ty.rank - 1]), 0, 0, 0};
    read_tile(P, op, v, ptx_layout_index(P, op, v), (ElemType)ty.elem, &shape, 1);
}

/* ---- pipeline buffers (local_alloc) ----
 *
 * ir/smem.h plans a buffer's slots (view, shape, the accesses of its
 * writers and readers), pass smem records where it lies and its shape;
 * here the buffers take the recorded places. A shape written by hand (IR
 * text) is honoured where it can serve: its accesses are the cheapest it
 * keeps aligned. */
static SmemBuf *find_buf(Ptx *P, ValId v) { return smem_find_buf(P->bufs, P->n_bufs, v); }

static int32_t view_layout(Ptx *P, const SmemBuf *sb, int32_t li) {
    int32_t v = smem_view_layout(P->fn, sb, li);
    ptx_layout_room(P);
    return v;
}

void ptx_smem_buffers_plan(Ptx *P) {
    IrFunc *fn = P->fn;
    P->smem_align = fn->smem_align;
    P->bufs = smem_buffers(fn, &P->n_bufs);
    ptx_layout_room(P);   /* the views' layouts */
    for (uint32_t i = 0; i < P->n_bufs; i++) {
        SmemBuf *sb = &P->bufs[i];
        IrOp *alloc = fn->vals[sb->v].def;
        const IrSmem *s = &alloc->attr.smem;
        TRIC_ASSERT(s->set);   /* the verifier checks it */
        int64_t need = sb->slot_bytes;
        if (!sb->mbar) {
            SmemShape sh = smem_recorded_shape(s, sb->plan.shape.bytes);
            bool canonical = sh.lb == sb->plan.shape.lb && sh.pad == sb->plan.shape.pad &&
                             sh.swz_mp == sb->plan.shape.swz_mp && sh.swz_pp == sb->plan.shape.swz_pp;
            if (sh.lb != sb->plan.shape.lb)
                diag_error(P->ctx, alloc->loc, "buffer rows of %d elements: its slots' rows have %d",
                           1 << sh.lb, 1 << sb->plan.shape.lb);
            if ((sb->wgmma || sb->tma) && !canonical)
                diag_error(P->ctx, alloc->loc, "wgmma and TMA read this buffer with its canonical shape only "
                           "(pad = 0, swizzle = [%d, %d])", 1 << sb->plan.shape.swz_pp, 1 << sb->plan.shape.swz_mp);
            need = smem_buffer_shape(fn, sb, &sh);
        }
        if (s->slot < need || s->slot % sb->align || s->off % sb->align || ((sb->wgmma || sb->tma) && fn->smem_align < 1024))
            diag_error(P->ctx, alloc->loc, "buffer slots of %d bytes at offset %d (shared memory aligned to %d): "
                       "they need %lld bytes, %d-aligned", (int)s->slot, (int)s->off, (int)fn->smem_align,
                       (long long)need, sb->align);
        sb->off = s->off;
        sb->slot_bytes = s->slot;
        sb->size = s->slot * fn->vals[sb->v].type.shape[0];
        if (sb->off + (int64_t)sb->size > fn->shared_bytes)
            diag_error(P->ctx, alloc->loc, "buffer ends at byte %lld, past the kernel's shared memory (%d bytes)",
                       (long long)sb->off + sb->size, (int)fn->shared_bytes);
    }
    if (P->n_bufs) P->uses_smem = true;
}

/* smem + off + slot * slot_bytes, for this op */
static Reg slot_base(Ptx *P, const SmemBuf *sb, ValId slot) {
    Reg s = ptx_regs(P, slot, NULL)[0], b = ptx_reg(P, RC_B32);
    ptx_ins(P, "mad.lo.u32 %R, %R, %d, %R;", b, s, (int)sb->slot_bytes, ptx_smem_base(P));
    if (!sb->off) return b;
    Reg c = ptx_reg(P, RC_B32);
    ptx_ins(P, "add.u32 %R, %R, %d;", c, b, (int)sb->off);
    return c;
}

/* the bytes of one async copy vector of op */
static int copy_vec(Ptx *P, IrOp *op, int *vec) {
    int bytes = elem_bytes((ElemType)P->fn->vals[op->operands[2]].type.pointee);
    int v = op->attr.vec > 0 ? op->attr.vec : 1;
    while (v * bytes > 16) v /= 2;
    *vec = v;
    return v * bytes;
}

/* cp.async of each vector of the pointer tile into the slot, zero-filled
 * where the mask is false (src-size 0: nothing is read). An element that
 * several threads hold is copied by one of them: two copies in flight to
 * one address would race (the simulator reports it). */
void ptx_async_copy(Ptx *P, IrOp *op) {
    IrFunc *fn = P->fn;
    SmemBuf *sb = find_buf(P, op->operands[0]);
    ValId pv = op->operands[2];
    int n, vec;
    Reg *ptr = ptx_regs(P, pv, &n);
    Reg *mask = op->n_operands > 3 ? ptx_regs(P, op->operands[3], NULL) : NULL;
    int cpb = copy_vec(P, op, &vec);
    TRIC_ASSERT(cpb == 4 || cpb == 8 || cpb == 16);
    int64_t *delta = arena_alloc(P->arena, sizeof(int64_t) * (size_t)n);
    bool affine = ptx_affine_deltas(P, op, pv, delta, n);
    int32_t li = view_layout(P, sb, ptx_layout_index(P, op, pv));
    const Layout *l = &fn->layouts[li];
    TRIC_ASSERT(layout_contig_regs(l, l->rank - 1) >= vec);
    uint32_t dup;
    const char *g = ptx_guard(P, ptx_layout_owner(P, li, &dup));
    P->dyn_base = slot_base(P, sb, op->operands[1]);
    SmemAddr a = smem_addr_layout(P, li, &sb->plan.shape);
    const char *cache = cpb == 16 ? "cg" : "ca";
    Reg size_of[8] = {0}, size_reg[8] = {0};   /* the src-size register made for a mask register */
    int n_sizes = 0;
    for (int r = 0; r < n; r += vec) {
        if ((uint32_t)r & dup) continue;
        const char *dst = smem_addr(P, &a, layout_reg_flat(l, r));
        Reg src = affine ? ptr[0] : ptr[r];
        int64_t off = affine ? delta[r] : 0;
        Buf sb_ = {0};
        ptx_put_reg(&sb_, src);
        if (off) buf_printf(&sb_, "+%lld", (long long)off);
        const char *s = arena_strdup(P->arena, sb_.data);
        buf_free(&sb_);
        if (!mask) {
            ptx_ins(P, "%scp.async.%s.shared.global %s, [%s], %d;", g, cache, dst, s, cpb);
            continue;
        }
        Reg sz = REG_NONE;
        for (int i = 0; i < n_sizes; i++)
            if (size_of[i] == mask[r]) sz = size_reg[i];
        if (!sz) {
            sz = ptx_reg(P, RC_B32);
            ptx_ins(P, "selp.b32 %R, %d, 0, %R;", sz, cpb, mask[r]);
            if (n_sizes < 8) size_of[n_sizes] = mask[r], size_reg[n_sizes++] = sz;
        }
        ptx_ins(P, "%scp.async.%s.shared.global %s, [%s], %d, %R;", g, cache, dst, s, cpb, sz);
    }
    P->dyn_base = REG_NONE;
    if (P->version < 70) P->version = 70;
}

/* ---- ldmatrix reads deferred into the dot ----
 *
 * A local_load whose only use is a dot further down its block, with nothing
 * in between that touches shared memory or synchronizes, is not read at
 * once: the dot asks for each operand register as an mma needs it
 * (ptx_need_reg, or ptx_need_word for a packed pair), and the ldmatrix that
 * defines it is emitted then. So the reads of k-step s sit right before its
 * mmas instead of all reads of the tile before all mmas: fewer operand
 * registers live at once (a BK = 64 tile's fragments would not fit beside a
 * 128-register accumulator) and ptxas can overlap the next step's reads
 * with this step's mmas. 16-bit pairs stay in the ldmatrix's 32-bit
 * registers, which the mma takes as they are; a pair is split only if
 * something asks for its halves. */
typedef struct LazyLdm {
    ValId v;
    SmemAddr a;
    LdmPat pat;
    bool packed;
    Reg dyn_base;
    Reg *regs;
    Reg *words;      /* packed: per matrix, its 32-bit register once read (else NULL) */
    uint8_t *done;   /* per ldmatrix instruction */
    uint8_t *split;  /* packed: per matrix, its pair moved into regs */
} LazyLdm;

static bool defers_into_dot(Ptx *P, IrOp *op) {
    ValId v = op->results[0];
    if (ptx_uses(P, v) != 1) return false;
    for (IrOp *o = op->next; o; o = o->next) {
        if (o->opc == OP_DOT) return o->operands[0] == v || o->operands[1] == v;
        if (!ptx_quiet_op(o) && o->opc != OP_LOCAL_LOAD) return false;
        for (uint32_t i = 0; i < o->n_operands; i++)
            if (o->operands[i] == v) return false;
    }
    return false;
}

static LazyLdm *find_lazy(Ptx *P, ValId v) {
    for (uint32_t i = 0; i < P->n_lazy; i++)
        if (P->lazy[i].v == v) return &P->lazy[i];
    return NULL;
}

/* matrix m of z read (its ldmatrix emitted once) */
static void lazy_read(Ptx *P, LazyLdm *z, int m) {
    int q = m / ldm_x(&z->pat);
    if (z->done[q]) return;
    z->done[q] = 1;
    P->dyn_base = z->dyn_base;
    ldm_emit(P, &z->a, &z->pat, z->packed, z->regs, z->words, q);
    P->dyn_base = REG_NONE;
}

void ptx_need_reg(Ptx *P, ValId v, int r) {
    LazyLdm *z = find_lazy(P, v);
    if (!z) return;
    int m = r >> z->pat.nlow;
    lazy_read(P, z, m);
    if (z->words && !z->split[m]) {
        z->split[m] = 1;
        ptx_ins(P, "mov.b32 {%R, %R}, %R;", z->regs[2 * m], z->regs[2 * m + 1], z->words[m]);
    }
}

Reg ptx_need_word(Ptx *P, ValId v, int w) {
    LazyLdm *z = find_lazy(P, v);
    if (!z || !z->words) return REG_NONE;
    TRIC_ASSERT(z->pat.nlow == 1);   /* a packed pair per matrix */
    lazy_read(P, z, w);
    return z->words[w];
}

/* The slot's tile in the result's layout: the buffer's plan where the
 * result has the layout it was made for (ldmatrix: deferred into the dot
 * where it may be), else element reads */
void ptx_local_load(Ptx *P, IrOp *op) {
    IrFunc *fn = P->fn;
    SmemBuf *sb = find_buf(P, op->operands[0]);
    ValId res = op->results[0];
    ElemType e = (ElemType)fn->vals[res].type.elem;
    int32_t lr = ptx_layout_index(P, op, res), vr = view_layout(P, sb, lr);
    P->dyn_base = slot_base(P, sb, op->operands[1]);
    bool planned = sb->lr >= 0 && layout_eq(&fn->layouts[lr], &fn->layouts[sb->lr]) && !sb->tma;
    if (planned && sb->plan.ldm && defers_into_dot(P, op)) {
        LazyLdm z = {.v = res, .pat = sb->plan.pat, .packed = elem_bytes(e) == 2, .dyn_base = P->dyn_base};
        z.a = ldm_addr(P, &sb->plan.shape, &z.pat);
        z.regs = ptx_def(P, op, res);
        z.done = arena_alloc(P->arena, (size_t)(z.pat.n_mat / ldm_x(&z.pat)));
        if (z.packed) {
            z.words = arena_alloc(P->arena, sizeof(Reg) * (size_t)z.pat.n_mat);
            z.split = arena_alloc(P->arena, (size_t)z.pat.n_mat);
        }
        VEC_PUSH(P->arena, P->lazy, P->n_lazy, P->cap_lazy, z);
    } else if (planned) {
        read_plan(P, op, res, vr, e, &sb->plan);
    } else {
        read_tile(P, op, res, vr, e, &sb->plan.shape, 1);
    }
    P->dyn_base = REG_NONE;
}

Reg ptx_slot_addr(Ptx *P, ValId buf, ValId slot) { return slot_base(P, find_buf(P, buf), slot); }

Reg ptx_scratch_addr(Ptx *P, int32_t bytes, int32_t align) {
    int32_t off = scratch_off(P);
    TRIC_ASSERT(off % align == 0 && off + (int64_t)bytes <= P->fn->shared_bytes);
    P->uses_smem = true;
    Reg r = ptx_reg(P, RC_B32);
    ptx_ins(P, "add.u32 %R, %R, %d;", r, ptx_smem_base(P), (int)off);
    return r;
}

Reg ptx_buffer_addr(Ptx *P, ValId buf) {
    SmemBuf *sb = find_buf(P, buf);
    Reg b = ptx_reg(P, RC_B32);
    ptx_ins(P, "add.u32 %R, %R, %d;", b, ptx_smem_base(P), (int)sb->off);
    return b;
}

/* ---- buffers wgmma reads ---- */

/* The unswizzled byte offset of element (row, col) of a slot of sb's
 * (2-D) tile: its place in the view, row-major. The tensor cores take the
 * start of each operand this way and swizzle the addresses themselves. */
static int32_t view_offset(Ptx *P, const SmemBuf *sb, int32_t row, int32_t col) {
    IrType bt = P->fn->vals[sb->v].type;
    int32_t rc[IR_MAX_RANK], vc[IR_MAX_RANK], vs[IR_MAX_RANK];
    layout_unflat(sb->vrank, sb->vshape, (int64_t)row * bt.shape[2] + col, rc);
    for (int i = 0; i < sb->vrank; i++) {
        vc[i] = rc[sb->perm[i]];
        vs[i] = sb->vshape[sb->perm[i]];
    }
    return (int32_t)(layout_flat_index(sb->vrank, vs, vc) * sb->plan.shape.bytes);
}

int32_t ptx_wgmma_offset(Ptx *P, ValId buf, int32_t row, int32_t col) {
    return view_offset(P, find_buf(P, buf), row, col);
}

/* The 64-bit matrix descriptor of buf's slot (doc/ptx.md, "Matrix
 * descriptor"): the slot's address >> 4, and the layout: the swizzle mode
 * (128 B: 1, 64 B: 2, 32 B: 3), SBO = the stride of 8 rows of the view
 * (8 x S), and for an MN-major operand LBO = the stride of its blocks of
 * S bytes along M or N (K-major: unused, 1). *mn_major: the operand's M
 * or N dim is the contiguous one (wgmma's imm-trans). */
Reg ptx_wgmma_slot_desc(Ptx *P, ValId buf, ValId slot, bool *mn_major) {
    SmemBuf *sb = find_buf(P, buf);
    TRIC_ASSERT(sb->wgmma && sb->swz_bytes >= 32);
    IrType bt = P->fn->vals[sb->v].type;
    int kdim = (sb->wgmma == 1) != sb->wg_t ? 1 : 0;   /* A: M x K, B: K x N, or transposed */
    *mn_major = sb->cdim != kdim;
    int s = sb->swz_bytes;
    uint64_t mode = s == 128 ? 1 : s == 64 ? 2 : 3;
    uint64_t lbo = *mn_major ? (uint64_t)bt.shape[1 + kdim] * (uint64_t)s : 16, sbo = 8 * (uint64_t)s;
    uint64_t bits = (lbo >> 4) << 16 | (sbo >> 4) << 32 | mode << 62;
    Reg addr = slot_base(P, sb, slot), t = ptx_reg(P, RC_B32), w = ptx_reg(P, RC_B64), d = ptx_reg(P, RC_B64);
    ptx_ins(P, "bfe.u32 %R, %R, 4, 14;", t, addr);
    ptx_ins(P, "cvt.u64.u32 %R, %R;", w, t);
    ptx_ins(P, "or.b64 %R, %R, %s;", d, w, arena_printf(P->arena, "0x%llX", (unsigned long long)bits));
    return d;
}
