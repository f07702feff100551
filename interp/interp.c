/* The interpreter: walks the structured IR of one program at a time, each
 * value an array of slots (interp.h), and checks every memory access
 * against the launch's buffers. Programs run one after another, x fastest,
 * so a kernel whose programs race on memory gets one fixed interleaving.
 * Layouts are ignored, except by reduce, whose combination order they
 * define.
 *
 * Each value gets its storage once per run (its element count is fixed by
 * its type) and is overwritten when its op runs again in a later loop
 * iteration or program, so a loop costs no memory per iteration. Loop-carried
 * values are copied through a scratch array, because a yield may permute
 * them. A user-visible failure (out-of-bounds access, division by zero, a
 * loop that never ends) longjmps to interp_run with the message written. */
#include "scalar.h"
#include "../ir/mathfn.h"
#include "../ir/tmap.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct Interp {
    IrFunc *fn;
    const InterpLaunch *launch;
    Arena *arena;
    uint64_t **slots;         /* per ValId: its elements, NULL until defined */
    uint32_t pid[3];
    uint64_t max_iters;
    uint64_t *scratch;        /* assign's staging area, grown by doubling */
    size_t scratch_cap;
    uint64_t *red_scratch;    /* exec_reduce's, likewise */
    size_t red_cap;
    uint64_t timer_reads;     /* sreg globaltimer: reads so far in this launch */
    Buf *err;
    jmp_buf bail;
} Interp;

static uint64_t *slots_of(Interp *in, ValId v) {
    if (!in->slots[v]) {
        int64_t n = ir_numel(ir_type(in->fn, v));
        in->slots[v] = arena_alloc(in->arena, sizeof(uint64_t) * (size_t)n);
    }
    return in->slots[v];
}

static int64_t numel(Interp *in, ValId v) { return ir_numel(ir_type(in->fn, v)); }

static ElemType elem_of(Interp *in, ValId v) { return (ElemType)ir_type(in->fn, v).elem; }

/* ---- errors ---- */

static void put_element(Buf *b, IrType t, int64_t i) {
    int64_t idx[IR_MAX_RANK];
    for (int d = t.rank - 1; d >= 0; d--) {
        idx[d] = i % t.shape[d];
        i /= t.shape[d];
    }
    buf_puts(b, "element (");
    for (int d = 0; d < t.rank; d++) buf_printf(b, "%s%" PRId64, d ? ", " : "", idx[d]);
    buf_puts(b, ") ");
}

/* msg (an arena string) at op's location, the program named; unwinds. */
static _Noreturn void fail(Interp *in, const IrOp *op, const char *msg) {
    char *full = arena_printf(in->arena, "%s in program (%u, %u, %u)", msg, in->pid[0], in->pid[1], in->pid[2]);
    diag_format(in->err, op->loc, "error", full);
    longjmp(in->bail, 1);
}

/* ---- memory ---- */

/* The buffer holding [addr, addr + n), or NULL and in *near the buffer the
 * address is closest to (for the message). */
static const InterpBuffer *find_buffer(Interp *in, uint64_t addr, int n, const InterpBuffer **near) {
    const InterpBuffer *best = NULL;
    uint64_t best_dist = UINT64_MAX;
    for (uint32_t i = 0; i < in->launch->n_buffers; i++) {
        const InterpBuffer *b = &in->launch->buffers[i];
        uint64_t base = (uint64_t)(uintptr_t)b->base;
        if (addr >= base && addr - base <= b->bytes && b->bytes - (addr - base) >= (uint64_t)n) return b;
        uint64_t dist = addr >= base ? addr - base - b->bytes : base - addr;
        if (dist < best_dist) best_dist = dist, best = b;
    }
    *near = best;
    return NULL;
}

static void *check_access(Interp *in, const IrOp *op, ValId ptrv, int64_t i, uint64_t addr, int n) {
    const InterpBuffer *near = NULL;
    const InterpBuffer *b = find_buffer(in, addr, n, &near);
    bool reads = op->opc == OP_LOAD || op->opc == OP_ASYNC_COPY || op->opc == OP_TMA_COPY;
    const char *what = reads ? (op->opc == OP_LOAD ? "load" : op->opc == OP_TMA_COPY ? "tma copy" : "async copy")
                       : op->opc == OP_STORE ? "store" : "atomic";
    const char *verb = reads ? "reads" : op->opc == OP_STORE ? "writes" : "updates";
    if (b && addr % (uint64_t)n == 0 && (reads || !b->read_only)) return (void *)(uintptr_t)addr;
    Buf m = {.arena = in->arena};
    if (b && addr % (uint64_t)n == 0) {
        buf_printf(&m, "%s into read-only buffer '%s': ", what, b->name);
        if (ir_type(in->fn, ptrv).rank) put_element(&m, ir_type(in->fn, ptrv), i);
        buf_printf(&m, "%s %d bytes at offset %" PRId64 " (pass a writable array)", verb, n,
                   (int64_t)(addr - (uint64_t)(uintptr_t)b->base));
        fail(in, op, m.data);
    }
    buf_printf(&m, "%s %s: ", b ? "misaligned" : "out-of-bounds", what);
    IrType t = ir_type(in->fn, ptrv);
    if (t.rank) put_element(&m, t, i);
    if (!b) b = near;
    if (!b) {
        buf_printf(&m, "%s %d bytes at address 0x%" PRIx64 ", and the launch has no buffers", verb, n, addr);
        fail(in, op, m.data);
    }
    int64_t off = (int64_t)(addr - (uint64_t)(uintptr_t)b->base);
    buf_printf(&m, "%s %d bytes at offset %+" PRId64 " of buffer '%s' (%zu bytes)", verb, n, off, b->name, b->bytes);
    if (off >= 0 && (uint64_t)off < b->bytes && addr % (uint64_t)n) buf_printf(&m, ", not aligned to %d bytes", n);
    fail(in, op, m.data);
}

static uint64_t mem_read(const void *p, ElemType e) {
    uint64_t raw = 0;
    memcpy(&raw, p, (size_t)elem_bytes(e));   /* little-endian host, as the GPU */
    if (e == ET_I1) return (raw & 0xFF) != 0;
    return elem_is_float(e) ? raw : interp_int_norm(e, raw);
}

static void mem_write(void *p, ElemType e, uint64_t v) { memcpy(p, &v, (size_t)elem_bytes(e)); }

static void exec_load(Interp *in, IrOp *op) {
    ValId res = op->results[0];
    ElemType e = elem_of(in, res);
    uint64_t *d = slots_of(in, res), *ptr = slots_of(in, op->operands[0]);
    uint32_t n_mem = ir_load_n_mem(op);
    uint64_t *mask = n_mem > 1 ? slots_of(in, op->operands[1]) : NULL;
    uint64_t *other = n_mem > 2 ? slots_of(in, op->operands[2]) : NULL;
    int64_t n = numel(in, res);
    int64_t n_mask = mask ? numel(in, op->operands[1]) : 0, n_other = other ? numel(in, op->operands[2]) : 0;
    for (int64_t i = 0; i < n; i++) {
        if (mask && !mask[n_mask == 1 ? 0 : i]) {
            d[i] = other ? other[n_other == 1 ? 0 : i] : 0;
            continue;
        }
        d[i] = mem_read(check_access(in, op, op->operands[0], i, ptr[i], elem_bytes(e)), e);
    }
}

/* ---- shared-memory buffers ----
 * A buffer is the local_alloc value's own slots; an async copy completes
 * at once (a legal schedule: the program may only read the slot after an
 * async_wait and a barrier), so commit and wait do nothing. */

/* the first element of slot `slot` of buffer v; fails on a slot out of range */
static uint64_t *buffer_slot(Interp *in, IrOp *op, ValId buf, ValId slot) {
    IrType t = ir_type(in->fn, buf);
    int64_t s = (int64_t)*slots_of(in, slot);
    if (s < 0 || s >= t.shape[0])
        fail(in, op, arena_printf(in->arena, "slot %" PRId64 " of a buffer of %d slots", s, (int)t.shape[0]));
    return slots_of(in, buf) + s * (ir_numel(t) / t.shape[0]);
}

static void exec_async_copy(Interp *in, IrOp *op) {
    ValId pv = op->operands[2];
    ElemType e = (ElemType)ir_type(in->fn, pv).pointee;
    uint64_t *d = buffer_slot(in, op, op->operands[0], op->operands[1]), *ptr = slots_of(in, pv);
    uint64_t *mask = op->n_operands > 3 ? slots_of(in, op->operands[3]) : NULL;
    int64_t n = numel(in, pv);
    for (int64_t i = 0; i < n; i++)
        d[i] = mask && !mask[i] ? 0 : mem_read(check_access(in, op, pv, i, ptr[i], elem_bytes(e)), e);
}

/* ---- TMA rings ----
 * A barrier's slot counts the phases it has completed, bit 63 set while
 * it is initialized. A tma_copy lands at once and completes its barrier's
 * phase; a wait for the phase of parity P passes once the barrier has
 * moved past it, i.e. when its count's parity is not P, as the hardware's
 * try_wait.parity does. Anything else would hang or race on the GPU. */
#define MBAR_LIVE (1ull << 63)

static uint64_t *barrier_of(Interp *in, IrOp *op, ValId bars, ValId slot) {
    int64_t s = (int64_t)*slots_of(in, slot), n = numel(in, bars);
    if (s < 0 || s >= n) fail(in, op, arena_printf(in->arena, "barrier %" PRId64 " of a ring of %d", s, (int)n));
    uint64_t *b = slots_of(in, bars) + s;
    if (!(*b & MBAR_LIVE)) fail(in, op, arena_printf(in->arena, "mbarrier %" PRId64 " is not initialized", s));
    return b;
}

static void exec_mbar_init(Interp *in, IrOp *op, bool init) {
    uint64_t *b = slots_of(in, op->operands[0]);
    for (int64_t s = 0, n = numel(in, op->operands[0]); s < n; s++) {
        if (init == !!(b[s] & MBAR_LIVE))
            fail(in, op, init ? "mbarrier_init of barriers in use (not ended by mbarrier_inval)"
                              : "mbarrier_inval of barriers that are not initialized");
        b[s] = init ? MBAR_LIVE : 0;
    }
}

static void exec_mbar_wait(Interp *in, IrOp *op) {
    uint64_t done = *barrier_of(in, op, op->operands[0], op->operands[1]) & ~MBAR_LIVE;
    uint64_t parity = *slots_of(in, op->operands[2]);
    if ((done & 1) == parity)
        fail(in, op, arena_printf(in->arena, "mbarrier_wait for the phase of parity %" PRIu64 " of barrier %" PRIu64
                                  ", which has completed %" PRIu64 " phases: it would wait forever",
                                  parity, *slots_of(in, op->operands[1]), done));
}

/* The tensor map at the address in value tv, decoded (tric's encoding) */
static TmapFields read_tmap(Interp *in, IrOp *op, ValId tv) {
    uint64_t addr = *slots_of(in, tv);
    const InterpBuffer *near = NULL;
    if (!find_buffer(in, addr, TMAP_BYTES, &near) || addr % 64)
        fail(in, op, arena_printf(in->arena, "the tensor map at 0x%" PRIx64 " is not 128 bytes of a buffer, 64-byte "
                                  "aligned", addr));
    TmapFields f;
    const char *why;
    if (!tmap_decode((const uint8_t *)(uintptr_t)addr, &f, &why)) fail(in, op, arena_strdup(in->arena, why));
    return f;
}

/* buf[slot] = the block at the coordinates, the map's fill outside the
 * tensor; then the slot's barrier completes a phase */
static void exec_tma_copy(Interp *in, IrOp *op) {
    if (!*slots_of(in, op->operands[4])) return;
    ValId buf = op->operands[0];
    IrType bt = ir_type(in->fn, buf);
    ElemType e = (ElemType)bt.elem;
    uint64_t *d = buffer_slot(in, op, buf, op->operands[1]);
    uint64_t *bar = barrier_of(in, op, op->operands[2], op->operands[1]);
    TmapFields f = read_tmap(in, op, op->operands[3]);
    int rank = bt.rank - 1, eb = elem_bytes(e);
    TmapBox box;
    bool fits = f.rank == rank && tmap_dtype_bytes(f.dtype) == eb && tmap_box(e, rank, bt.shape + 1, &box) &&
                f.box[0] == (uint32_t)box.inner && f.box[1] == (uint32_t)bt.shape[1] && f.swizzle == box.swizzle;
    if (!fits) fail(in, op, "the tensor map's rank, element size, box or swizzle is not the block's");
    int64_t c0 = (int32_t)*slots_of(in, op->operands[5]), c1 = (int32_t)*slots_of(in, op->operands[6]);
    uint64_t fill = f.fill_nan ? interp_slot_from_double(e, NAN) : 0;
    for (int32_t r = 0; r < bt.shape[1]; r++)
        for (int32_t c = 0; c < bt.shape[2]; c++) {
            int64_t y = c0 + r, x = c1 + c, i = (int64_t)r * bt.shape[2] + c;
            if (y < 0 || y >= f.dims[1] || x < 0 || x >= f.dims[0]) {
                d[i] = fill;
                continue;
            }
            uint64_t addr = f.address + (uint64_t)y * f.strides[0] + (uint64_t)x * (uint64_t)eb;
            d[i] = mem_read(check_access(in, op, op->operands[3], i, addr, eb), e);
        }
    *bar += 1;
}

/* tensormap_create: tric's encoding of the descriptor's map at dst; the
 * checks TMA makes (cuTensorMapEncodeTiled's rules) fail the run */
static void exec_tmap_create(Interp *in, IrOp *op) {
    int rank = op->attr.n_ints;
    ValId base = op->operands[1];
    ElemType e = (ElemType)ir_type(in->fn, base).pointee;
    int eb = elem_bytes(e);
    TmapBox box;
    if (!tmap_box(e, rank, op->attr.ints, &box)) fail(in, op, "TMA cannot move this descriptor's blocks");
    TmapFields f = {.address = *slots_of(in, base), .rank = rank, .dtype = tmap_dtype(e), .swizzle = box.swizzle,
                    .fill_nan = (op->attr.flags & TMAP_NAN) != 0};
    const char *bad = f.address % 16 ? "the base of a tensor descriptor must be 16-byte aligned" : NULL;
    for (int d = 0; d < rank; d++) {
        int dim = rank - 1 - d;   /* innermost first */
        int64_t n = (int32_t)*slots_of(in, op->operands[2 + dim]);
        if (n < 1) bad = "a tensor descriptor's shape must be positive";
        f.dims[d] = (uint32_t)n;
        f.box[d] = d ? (uint32_t)op->attr.ints[dim] : (uint32_t)box.inner;
        if (!d) continue;
        int64_t s = (int64_t)*slots_of(in, op->operands[2 + rank + dim]);
        if (s < 1 || (s * eb) % 16) bad = "a tensor descriptor's strides must be 16-byte multiples";
        f.strides[d - 1] = (uint64_t)s * (uint64_t)eb;
    }
    if (bad) fail(in, op, bad);
    uint64_t dst = *slots_of(in, op->operands[0]);
    void *p = check_access(in, op, op->operands[0], 0, dst, 1);
    check_access(in, op, op->operands[0], 0, dst + TMAP_BYTES - 1, 1);
    if (dst % 64) fail(in, op, "a tensor map's address must be 64-byte aligned");
    tmap_encode(&f, p);
    *slots_of(in, op->results[0]) = dst;
}

static void exec_local_load(Interp *in, IrOp *op) {
    ValId r = op->results[0];
    memcpy(slots_of(in, r), buffer_slot(in, op, op->operands[0], op->operands[1]), sizeof(uint64_t) * (size_t)numel(in, r));
}

static void exec_store(Interp *in, IrOp *op) {
    ValId pv = op->operands[0], vv = op->operands[1];
    ElemType e = elem_of(in, vv);
    uint64_t *ptr = slots_of(in, pv), *val = slots_of(in, vv);
    uint64_t *mask = op->n_operands > 2 ? slots_of(in, op->operands[2]) : NULL;
    int64_t n = numel(in, pv), n_val = numel(in, vv);
    int64_t n_mask = mask ? numel(in, op->operands[2]) : 0;
    for (int64_t i = 0; i < n; i++) {
        if (mask && !mask[n_mask == 1 ? 0 : i]) continue;
        mem_write(check_access(in, op, pv, i, ptr[i], elem_bytes(e)), e, val[n_val == 1 ? 0 : i]);
    }
}

/* atomic and atomic_cas: one element after another, row-major, each a
 * read-modify-write of its own; the result is the old values (0 where the
 * mask is false, and nothing touched there). */
static void exec_atomic(Interp *in, IrOp *op) {
    ValId pv = op->operands[0], res = op->results[0];
    bool cas = op->opc == OP_ATOMIC_CAS;
    ElemType e = elem_of(in, res);
    uint64_t *d = slots_of(in, res), *ptr = slots_of(in, pv);
    uint64_t *val = slots_of(in, op->operands[cas ? 2 : 1]);
    uint64_t *cmp = cas ? slots_of(in, op->operands[1]) : NULL;
    uint64_t *mask = !cas && op->n_operands > 2 ? slots_of(in, op->operands[2]) : NULL;
    for (int64_t i = 0, n = numel(in, res); i < n; i++) {
        if (mask && !mask[i]) {
            d[i] = 0;
            continue;
        }
        void *p = check_access(in, op, pv, i, ptr[i], elem_bytes(e));
        uint64_t old = mem_read(p, e);
        uint64_t now = cas ? (old == cmp[i] ? val[i] : old) : interp_elem_atomic((AtomicKind)op->attr.i, e, old, val[i]);
        mem_write(p, e, now);
        d[i] = old;
    }
}

/* ---- shapes ---- */

static void exec_const(Interp *in, IrOp *op) {
    ValId r = op->results[0];
    ElemType e = elem_of(in, r);
    /* constants get the bits ptxgen writes as immediates */
    uint64_t v = elem_is_float(e) ? elem_float_bits(e, op->attr.f) : interp_int_norm(e, (uint64_t)op->attr.i);
    uint64_t *d = slots_of(in, r);
    for (int64_t i = 0, n = numel(in, r); i < n; i++) d[i] = v;
}

static void exec_copy(Interp *in, IrOp *op) {
    ValId r = op->results[0], a = op->operands[0];
    int64_t n = numel(in, r), na = numel(in, a);
    uint64_t *d = slots_of(in, r), *s = slots_of(in, a);
    for (int64_t i = 0; i < n; i++) d[i] = s[na == 1 ? 0 : i];   /* splat, or same size */
}

/* Dims of size 1 in the operand repeat along the result's dim. */
static void exec_broadcast(Interp *in, IrOp *op) {
    ValId r = op->results[0], a = op->operands[0];
    IrType rt = ir_type(in->fn, r), at = ir_type(in->fn, a);
    uint64_t *d = slots_of(in, r), *s = slots_of(in, a);
    for (int64_t i = 0, n = ir_numel(rt); i < n; i++) {
        int64_t rest = i, src = 0, stride = 1;
        for (int k = rt.rank - 1; k >= 0; k--) {
            int64_t c = rest % rt.shape[k];
            rest /= rt.shape[k];
            int32_t dim = at.rank == rt.rank ? at.shape[k] : 1;
            src += (dim == 1 ? 0 : c) * stride;
            stride *= dim;
        }
        d[i] = s[src];
    }
}

/* trans: result element at c comes from the operand's c permuted back */
static void exec_trans(Interp *in, IrOp *op) {
    ValId r = op->results[0], a = op->operands[0];
    IrType rt = ir_type(in->fn, r), at = ir_type(in->fn, a);
    uint64_t *d = slots_of(in, r), *s = slots_of(in, a);
    int32_t c[IR_MAX_RANK], src[IR_MAX_RANK];
    for (int64_t i = 0, n = ir_numel(rt); i < n; i++) {
        layout_unflat(rt.rank, rt.shape, i, c);
        for (int k = 0; k < rt.rank; k++) src[op->attr.ints[k]] = c[k];
        d[i] = s[layout_flat_index(at.rank, at.shape, src)];
    }
}

/* dot: interp_dot on the operands' slots (rank 3: batch by batch) */
static void exec_dot(Interp *in, IrOp *op) {
    ValId av = op->operands[0], bv = op->operands[1], cv = op->operands[2], r = op->results[0];
    IrType at = ir_type(in->fn, av), bt = ir_type(in->fn, bv);
    int n = at.rank;
    InterpDotShape sh = {n == 3 ? at.shape[0] : 1, at.shape[n - 2], bt.shape[n - 1], at.shape[n - 1]};
    interp_dot(elem_of(in, av), elem_of(in, bv), elem_of(in, r), (DotPrecision)op->attr.i, sh, slots_of(in, av),
               slots_of(in, bv), slots_of(in, cv), slots_of(in, r));
}

/* rows x cols elements of x, transposed (arena) */
static uint64_t *transposed(Interp *in, const uint64_t *x, int32_t rows, int32_t cols) {
    uint64_t *t = arena_alloc(in->arena, sizeof(uint64_t) * (size_t)rows * (size_t)cols);
    for (int32_t i = 0; i < rows; i++)
        for (int32_t j = 0; j < cols; j++) t[(size_t)j * rows + i] = x[(size_t)i * cols + j];
    return t;
}

/* wgmma: dot's arithmetic with A from a slot (or registers) and B from a
 * slot (either held transposed), done at once (a wgmma_wait only hands the
 * result on) */
static void exec_wgmma(Interp *in, IrOp *op) {
    uint32_t nm = ir_wgmma_n_main(op);
    bool ss = nm == 5;
    ValId bbuf = op->operands[ss ? 2 : 1], cv = op->operands[nm - 1], r = op->results[0];
    IrType ct = ir_type(in->fn, cv), bt = ir_type(in->fn, bbuf);
    int32_t k = op->attr.flags & WGMMA_B_T ? bt.shape[2] : bt.shape[1];
    ElemType ae = ss ? (ElemType)ir_type(in->fn, op->operands[0]).elem : elem_of(in, op->operands[0]);
    uint64_t *a = ss ? buffer_slot(in, op, op->operands[0], op->operands[1]) : slots_of(in, op->operands[0]);
    uint64_t *b = buffer_slot(in, op, bbuf, op->operands[ss ? 3 : 2]);
    if (op->attr.flags & WGMMA_A_T) a = transposed(in, a, k, ct.shape[0]);
    if (op->attr.flags & WGMMA_B_T) b = transposed(in, b, ct.shape[1], k);
    InterpDotShape sh = {1, ct.shape[0], ct.shape[1], k};
    uint64_t *c = slots_of(in, cv);
    if ((op->attr.flags & WGMMA_USE_ACC) && !(slots_of(in, op->operands[nm])[0] & 1)) {   /* the product alone */
        c = slots_of(in, r);   /* interp_dot reads each acc element before it writes it */
        memset(c, 0, sizeof(uint64_t) * (size_t)numel(in, r));
    }
    interp_dot(ae, (ElemType)bt.elem, elem_of(in, r), (DotPrecision)op->attr.i, sh, a, b, c, slots_of(in, r));
}

/* gather: src at each index position, the axis coordinate from index
 * (modulo the axis size) */
static void exec_gather(Interp *in, IrOp *op) {
    IrType st = ir_type(in->fn, op->operands[0]), xt = ir_type(in->fn, op->operands[1]);
    uint64_t *s = slots_of(in, op->operands[0]), *x = slots_of(in, op->operands[1]), *d = slots_of(in, op->results[0]);
    int axis = (int)op->attr.i;
    int64_t inner = 1;
    for (int k = axis + 1; k < st.rank; k++) inner *= st.shape[k];
    int64_t nx = xt.shape[axis], ns = st.shape[axis];
    for (int64_t i = 0, n = numel(in, op->operands[1]); i < n; i++) {
        int64_t outer = i / (inner * nx), low = i % inner;
        int64_t at = (int64_t)(x[i] & (uint64_t)(ns - 1));   /* sizes are powers of two */
        d[i] = s[(outer * ns + at) * inner + low];
    }
}

/* histogram: counts of the values in [0, bins) where the mask is set */
static void exec_histogram(Interp *in, IrOp *op) {
    uint64_t *x = slots_of(in, op->operands[0]), *m = op->n_operands > 1 ? slots_of(in, op->operands[1]) : NULL;
    uint64_t *d = slots_of(in, op->results[0]);
    ElemType e = elem_of(in, op->operands[0]);
    memset(d, 0, sizeof(uint64_t) * (size_t)op->attr.i);
    for (int64_t i = 0, n = numel(in, op->operands[0]); i < n; i++) {
        int64_t v = (int64_t)interp_int_norm(e, x[i]);   /* u64 past INT64_MAX: negative, not counted */
        if ((!m || (m[i] & 1)) && v >= 0 && v < op->attr.i) d[v] = (d[v] + 1) & 0xffffffffu;
    }
}

/* join: a's and b's elements alternate (the new dim is the fastest) */
static void exec_join(Interp *in, IrOp *op) {
    uint64_t *d = slots_of(in, op->results[0]), *a = slots_of(in, op->operands[0]), *b = slots_of(in, op->operands[1]);
    for (int64_t i = 0, n = numel(in, op->operands[0]); i < n; i++) {
        d[2 * i] = a[i];
        d[2 * i + 1] = b[i];
    }
}

static void exec_split(Interp *in, IrOp *op) {
    uint64_t *s = slots_of(in, op->operands[0]), *a = slots_of(in, op->results[0]), *b = slots_of(in, op->results[1]);
    for (int64_t i = 0, n = numel(in, op->results[0]); i < n; i++) {
        a[i] = s[2 * i];
        b[i] = s[2 * i + 1];
    }
}

static void exec_arange(Interp *in, IrOp *op) {
    ValId r = op->results[0];
    uint64_t *d = slots_of(in, r);
    ElemType e = elem_of(in, r);
    for (int64_t i = 0, n = numel(in, r); i < n; i++) d[i] = interp_int_norm(e, (uint64_t)(op->attr.i + i));
}

static void exec_program_id(Interp *in, IrOp *op) {
    int axis = (int)op->attr.i;
    TRIC_ASSERT(axis >= 0 && axis < 3);
    uint32_t g = in->launch->grid[axis] ? in->launch->grid[axis] : 1;
    *slots_of(in, op->results[0]) = op->opc == OP_PROGRAM_ID ? in->pid[axis] : g;
}

/* One SM here; the timer advances 1000 ns per read of it (what kernels
 * ask of it: a later read is later). */
static void exec_sreg(Interp *in, IrOp *op) {
    *slots_of(in, op->results[0]) = op->attr.i == SREG_GLOBALTIMER ? 1000 * ++in->timer_reads : 0;
}

/* ---- elementwise ---- */

/* math FN: ir/mathfn.c's program, built once, run per element (the same
 * steps as the PTX, so the same bits) */
static void exec_math(Interp *in, IrOp *op) {
    ValId r = op->results[0];
    int64_t n = numel(in, r);
    uint64_t *d = slots_of(in, r);
    MathProg prog, *p = &prog;
    mathfn_build(p, (MathFn)op->attr.i, elem_of(in, op->operands[0]));
    uint64_t *s[3] = {0};
    int64_t ns[3] = {0};
    for (uint32_t k = 0; k < op->n_operands; k++) {
        s[k] = slots_of(in, op->operands[k]);
        ns[k] = numel(in, op->operands[k]);
    }
    for (int64_t i = 0; i < n; i++) {
        uint64_t args[3] = {0};
        for (uint32_t k = 0; k < op->n_operands; k++) args[k] = s[k][ns[k] == 1 ? 0 : i];
        d[i] = interp_int_norm(elem_of(in, r), mathfn_run(p, args));
    }
}

static void exec_elementwise(Interp *in, IrOp *op) {
    if (op->opc == OP_MATH) {
        exec_math(in, op);
        return;
    }
    ValId r = op->results[0];
    int64_t n = numel(in, r);
    uint64_t *d = slots_of(in, r);
    uint64_t *s[3] = {0};
    int64_t ns[3] = {0};
    for (uint32_t k = 0; k < op->n_operands && k < 3; k++) {
        s[k] = slots_of(in, op->operands[k]);
        ns[k] = numel(in, op->operands[k]);
    }
    ValId typed = op->opc == OP_SELECT ? op->operands[1] : op->operands[0];
    ElemType e = elem_of(in, typed), et = elem_of(in, r);
    int pointee = ir_type(in->fn, op->operands[0]).pointee;
    /* an op whose PTX is a program: built once, run per element */
    MathProg prog;
    bool is_prog = interp_math_prog(&prog, op->opc, e);
    for (int64_t i = 0; i < n; i++) {
        uint64_t a = s[0][ns[0] == 1 ? 0 : i];
        uint64_t b = s[1] ? s[1][ns[1] == 1 ? 0 : i] : 0;
        uint64_t c = s[2] ? s[2][ns[2] == 1 ? 0 : i] : 0;
        bool div_zero = false;
        switch (op->opc) {
        case OP_SELECT: d[i] = a ? b : c; break;
        case OP_CMP: d[i] = interp_elem_cmp((CmpPred)op->attr.i, e, a, b); break;
        case OP_ADDPTR: d[i] = a + b * (uint64_t)elem_bytes((ElemType)pointee); break;
        case OP_CAST: d[i] = interp_elem_cast(e, et, op->attr.i == ROUND_RTZ, a); break;
        case OP_BITCAST: d[i] = interp_elem_bitcast(e, et, a); break;
        case OP_NEG: case OP_NOT: case OP_ABS: case OP_EXP: case OP_EXP2: case OP_LOG:
        case OP_LOG2: case OP_SQRT: case OP_RSQRT: case OP_COS: case OP_SIN:
            d[i] = is_prog ? interp_elem_math(&prog, e, a) : interp_elem_unary(op->opc, e, a);
            break;
        default:
            d[i] = interp_elem_binary(op->opc, e, op->attr.i, a, b, &div_zero);
            if (div_zero) fail(in, op, arena_strdup(in->arena, "integer division by zero"));
        }
    }
}

/* ---- debugging: print and assert ---- */

/* Digits an index along a dim of size n is padded to: ceil(log10(n)), as
 * Triton's device_print pads (0 for n = 1, which pads nothing). */
static int index_width(int32_t n) {
    int w = 0;
    for (int64_t p = 1; p < n; p *= 10) w++;
    return w;
}

/* One element as device_print writes it: floats (f16/bf16/fp8 widened
 * exactly) with %f, integers in decimal by their signedness, bool as 0/1,
 * pointers as 0x + hex; with hex, the element's bits zero-padded to its
 * width (a float's encoding, not its value). */
static void put_print_value(Buf *b, ElemType e, uint64_t slot, bool hex) {
    int bits = e == ET_PTR ? 64 : elem_bits(e);
    uint64_t raw = bits >= 64 ? slot : slot & ((UINT64_C(1) << bits) - 1);
    if (hex) buf_printf(b, "0x%0*" PRIx64, (bits + 3) / 4, raw);
    else if (e == ET_PTR) buf_printf(b, "0x%" PRIx64, raw);
    else if (elem_is_float(e)) buf_printf(b, "%f", interp_slot_to_double(e, slot));
    else if (e == ET_I1 || elem_is_signed(e)) buf_printf(b, "%" PRId64, (int64_t)interp_int_norm(e, slot));
    else buf_printf(b, "%" PRIu64, raw);
}

/* Element i (row-major) of a value of type t as "(i0, i1)", padded. */
static void put_print_index(Buf *b, IrType t, int64_t i) {
    int64_t idx[IR_MAX_RANK];
    for (int d = t.rank - 1; d >= 0; d--) {
        idx[d] = i % t.shape[d];
        i /= t.shape[d];
    }
    buf_puts(b, "idx (");
    for (int d = 0; d < t.rank; d++) buf_printf(b, "%s%*" PRId64, d ? ", " : "", index_width(t.shape[d]), idx[d]);
    buf_putc(b, ')');
}

/* Triton's device_print lines: for each operand, each element in row-major
 * order, "pid (x, y, z) idx (i, j)<prefix>(operand k) <value>", the operand
 * part only when there are several; with no operands one line
 * "pid (x, y, z)<prefix>". */
static void exec_print(Interp *in, IrOp *op) {
    Buf *out = in->launch->print_out;
    if (!out) return;
    const char *prefix = op->attr.str ? op->attr.str : "";
    if (op->n_operands == 0) {
        buf_printf(out, "pid (%u, %u, %u)%s\n", in->pid[0], in->pid[1], in->pid[2], prefix);
        return;
    }
    for (uint32_t k = 0; k < op->n_operands; k++) {
        ValId v = op->operands[k];
        IrType t = ir_type(in->fn, v);
        uint64_t *s = slots_of(in, v);
        for (int64_t i = 0, n = ir_numel(t); i < n; i++) {
            buf_printf(out, "pid (%u, %u, %u) ", in->pid[0], in->pid[1], in->pid[2]);
            put_print_index(out, t, i);
            buf_puts(out, prefix);
            if (op->n_operands > 1) buf_printf(out, "(operand %u) ", k);
            put_print_value(out, (ElemType)t.elem, s[i], op->attr.i != 0);
            buf_putc(out, '\n');
        }
    }
}

/* The first false element (row-major) stops the run: "device assertion
 * failed: MSG: element (3) in program (1, 0, 0)" at the assert. A false
 * tl.assume is undefined behaviour on the GPU; here it stops the run too. */
static void exec_assert(Interp *in, IrOp *op) {
    ValId c = op->operands[0];
    uint64_t *s = slots_of(in, c);
    for (int64_t i = 0, n = numel(in, c); i < n; i++) {
        if (s[i]) continue;
        Buf m = {.arena = in->arena};
        buf_puts(&m, op->opc == OP_ASSUME ? "tl.assume condition is false" : "device assertion failed");
        if (op->attr.str && *op->attr.str) buf_printf(&m, ": %s", op->attr.str);
        IrType t = ir_type(in->fn, c);
        if (t.rank) {
            buf_puts(&m, ": ");
            put_element(&m, t, i);
            m.data[--m.len] = 0;   /* put_element's trailing space: fail adds " in program" */
        }
        fail(in, op, m.data);
    }
}

/* ---- control flow ---- */

static IrOp *exec_block(Interp *in, IrBlock *b);

/* ---- reduce ----
 * The elements along the axis are combined in the order the IR defines
 * (doc/ir.md, "reduce"; levels from layout_reduce_levels): from the
 * operand's layout when it has one, so that the result is the GPU's bit
 * for bit, else a binary tree over the index bits. Each combination runs
 * the combine region on scalars. */

/* x[k * len + i] = combine(x[k * len + i], x[k * len + j]) for every operand k */
static void combine_pair(Interp *in, IrOp *op, uint64_t *x, int64_t len, int64_t i, int64_t j) {
    IrBlock *b = op->regions[0];
    uint32_t n = op->n_operands;
    for (uint32_t k = 0; k < n; k++) {
        *slots_of(in, b->args[k]) = x[k * len + i];
        *slots_of(in, b->args[n + k]) = x[k * len + j];
    }
    IrOp *term = exec_block(in, b);
    TRIC_ASSERT(term && term->opc == OP_YIELD && term->n_operands == n);
    for (uint32_t k = 0; k < n; k++) x[k * len + i] = *slots_of(in, term->operands[k]);
}

/* n slots of scratch that stay valid until the next call (grown by doubling,
 * so a reduce in a loop costs no memory per iteration) */
static uint64_t *reduce_scratch(Interp *in, size_t n) {
    if (n > in->red_cap) {
        size_t cap = n > 2 * in->red_cap ? n : 2 * in->red_cap;
        in->red_scratch = arena_alloc(in->arena, sizeof(uint64_t) * cap);
        in->red_cap = cap;
    }
    return in->red_scratch;
}

/* Triton's order (doc/ir.md, "reduce"): the register levels, which are the
 * low bits of a position, folded left to right, then the lane levels, then
 * the warp levels, each from the highest bit down; the result lands at 0 */
static void combine_in_layout_order(Interp *in, IrOp *op, uint64_t *x, int64_t len, int m, const int *kinds) {
    int nr = 0;
    while (nr < m && kinds[nr] == LL_REG) nr++;
    for (int64_t base = 0; base < len; base += (int64_t)1 << nr)
        for (int64_t j = 1; j < ((int64_t)1 << nr); j++) combine_pair(in, op, x, len, base, base + j);
    int64_t done = ((int64_t)1 << nr) - 1;   /* positions with these bits set are spent */
    for (int kind = LL_LANE; kind <= LL_WARP; kind++)
        for (int lv = m - 1; lv >= nr; lv--) {
            if (kinds[lv] != kind) continue;
            int64_t bit = (int64_t)1 << lv;
            for (int64_t i = 0; i < len; i++)
                if (!(i & (done | bit))) combine_pair(in, op, x, len, i, i | bit);
            done |= bit;
        }
}

static void exec_reduce(Interp *in, IrOp *op) {
    uint32_t n_ops = op->n_operands;
    IrType t = ir_type(in->fn, op->operands[0]);
    int axis = (int)op->attr.i;
    int32_t steps[3 * LL_MAX_BITS];
    int kinds[3 * LL_MAX_BITS];
    const Layout *l = ir_layout(in->fn, op->operands[0]);
    int m = layout_reduce_levels(l, axis, t.shape[axis], steps, kinds, NULL);
    if (m < 0) fail(in, op, arena_strdup(in->arena, "reduce: the operand's layout mixes the axis with other dims"));
    int64_t len = t.shape[axis], inner = 1;
    for (int d = axis + 1; d < t.rank; d++) inner *= t.shape[d];
    int64_t outer = ir_numel(t) / (len * inner);
    /* coord[i]: the axis coordinate of position i (bit lv: level lv's step);
     * then the operands */
    uint64_t *coord = reduce_scratch(in, (size_t)len * (n_ops + 1)), *x = coord + len;
    for (int64_t i = 0; i < len; i++) {
        coord[i] = 0;
        for (int lv = 0; lv < m; lv++)
            if (i >> lv & 1) coord[i] ^= (uint64_t)steps[lv];
    }
    for (int64_t o = 0; o < outer; o++)
        for (int64_t q = 0; q < inner; q++) {
            for (uint32_t k = 0; k < n_ops; k++) {
                const uint64_t *src = slots_of(in, op->operands[k]);
                for (int64_t i = 0; i < len; i++) x[k * len + i] = src[(o * len + (int64_t)coord[i]) * inner + q];
            }
            if (l) combine_in_layout_order(in, op, x, len, m, kinds);
            else   /* a binary tree over the index bits */
                for (int lv = 0; lv < m; lv++)
                    for (int64_t i = 0; i < len; i += (int64_t)2 << lv) combine_pair(in, op, x, len, i, i + ((int64_t)1 << lv));
            for (uint32_t k = 0; k < n_ops; k++) slots_of(in, op->results[k])[o * inner + q] = x[k * len];
        }
}

/* ---- scan ----
 * The order of doc/ir.md ("scan"), from the operand's layout
 * (layout_scan_parts) when it has one: position j along the axis (counted
 * from the end when reverse) is r + R * (l + L * g): register r of a run of
 * R in one thread, lane l of L, group g of G (warps, then the registers
 * where the layout wraps around the axis). Each thread scans its run
 * sequentially; the runs' totals are scanned across lanes, Kogge-Stone;
 * the groups' totals are folded left to right; then each element gets its
 * thread's prefix: combine(group prefix, lane prefix), then combine(that,
 * the element's in-thread scan). Values are tuples of the N operands'
 * slots. */

/* out = combine(a, b) (N-slot tuples; out may be a or b) */
static void scan_combine(Interp *in, IrOp *op, const uint64_t *a, const uint64_t *b, uint64_t *out) {
    IrBlock *blk = op->regions[0];
    uint32_t n = op->n_operands;
    for (uint32_t k = 0; k < n; k++) {
        *slots_of(in, blk->args[k]) = a[k];
        *slots_of(in, blk->args[n + k]) = b[k];
    }
    IrOp *term = exec_block(in, blk);
    TRIC_ASSERT(term && term->opc == OP_YIELD && term->n_operands == n);
    for (uint32_t k = 0; k < n; k++) out[k] = *slots_of(in, term->operands[k]);
}

/* One line: x[j * n ..] (j in scan order) replaced by its scan. s: len
 * tuples; u, u2: len / R tuples; p: G + 1 tuples. */
static void scan_line(Interp *in, IrOp *op, uint64_t *x, int64_t len, const int *parts, uint64_t *u, uint64_t *u2,
                      uint64_t *p) {
    uint32_t n = op->n_operands;
    int64_t R = (int64_t)1 << parts[0], L = (int64_t)1 << parts[1], G = len / (R * L);
    for (int64_t j = 0; j < len; j++)   /* 1. in each thread, sequentially */
        if (j % R) scan_combine(in, op, x + (j - 1) * n, x + j * n, x + j * n);
    for (int64_t t = 0; t < len / R; t++) memcpy(u + t * n, x + (t * R + R - 1) * n, sizeof(uint64_t) * n);
    for (int64_t d = 1; d < L; d *= 2) {   /* 2. the runs' totals across lanes */
        memcpy(u2, u, sizeof(uint64_t) * n * (size_t)(len / R));
        for (int64_t t = 0; t < len / R; t++)
            if (t % L >= d) scan_combine(in, op, u2 + (t - d) * n, u2 + t * n, u + t * n);
    }
    for (int64_t g = 1; g < G; g++) {   /* 3. p[g]: the groups before g, left to right */
        const uint64_t *total = u + (g * L - 1) * n;
        if (g == 1) memcpy(p + n, total, sizeof(uint64_t) * n);
        else scan_combine(in, op, p + (g - 1) * n, total, p + g * n);
    }
    uint64_t *tp = p + G * n;
    for (int64_t t = 0; t < len / R; t++) {   /* 4. each thread's prefix into its run */
        int64_t l = t % L, g = t / L;
        if (!l && !g) continue;
        if (g && l) scan_combine(in, op, p + g * n, u + (t - 1) * n, tp);
        else memcpy(tp, g ? p + g * n : u + (t - 1) * n, sizeof(uint64_t) * n);
        for (int64_t r = 0; r < R; r++) scan_combine(in, op, tp, x + (t * R + r) * n, x + (t * R + r) * n);
    }
}

static void exec_scan(Interp *in, IrOp *op) {
    uint32_t n = op->n_operands;
    IrType t = ir_type(in->fn, op->operands[0]);
    int axis = (int)op->attr.i, parts[4];
    if (!layout_scan_parts(ir_layout(in->fn, op->operands[0]), axis, t.shape[axis], parts, NULL, NULL))
        fail(in, op, arena_strdup(in->arena, "scan: the operand's layout does not split the axis as scan needs"));
    int64_t len = t.shape[axis], inner = 1, runs = len >> parts[0];
    for (int d = axis + 1; d < t.rank; d++) inner *= t.shape[d];
    int64_t outer = ir_numel(t) / (len * inner), groups = runs >> parts[1];
    uint64_t *x = reduce_scratch(in, (size_t)n * (size_t)(len + 2 * runs + groups + 1));
    uint64_t *u = x + len * n, *u2 = u + runs * n, *p = u2 + runs * n;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t q = 0; q < inner; q++) {
            for (int64_t j = 0; j < len; j++) {
                int64_t i = op->attr.i2 ? len - 1 - j : j;
                for (uint32_t k = 0; k < n; k++) x[j * n + k] = slots_of(in, op->operands[k])[(o * len + i) * inner + q];
            }
            scan_line(in, op, x, len, parts, u, u2, p);
            for (int64_t j = 0; j < len; j++) {
                int64_t i = op->attr.i2 ? len - 1 - j : j;
                for (uint32_t k = 0; k < n; k++) slots_of(in, op->results[k])[(o * len + i) * inner + q] = x[j * n + k];
            }
        }
}

/* ---- map_elementwise and inline_asm ----
 * Elements are taken pack by pack in row-major order; a last pack that
 * runs past the end repeats its first element (ptxgen/asm.c does the same
 * with a thread's registers). */

static void exec_map(Interp *in, IrOp *op) {
    uint32_t pack = (uint32_t)op->attr.i;
    int64_t n = numel(in, op->results[0]);
    IrBlock *blk = op->regions[0];
    for (int64_t g = 0; g < n; g += pack) {
        for (uint32_t i = 0; i < op->n_operands; i++)
            for (uint32_t j = 0; j < pack; j++)
                *slots_of(in, blk->args[i * pack + j]) = slots_of(in, op->operands[i])[g + j < n ? g + j : g];
        IrOp *term = exec_block(in, blk);
        TRIC_ASSERT(term && term->opc == OP_YIELD && term->n_operands == op->n_results * pack);
        for (uint32_t r = 0; r < op->n_results; r++)
            for (uint32_t j = 0; j < pack && g + j < n; j++)
                slots_of(in, op->results[r])[g + j] = *slots_of(in, term->operands[r * pack + j]);
    }
}

static uint64_t low_bits(uint64_t v, int bits) { return bits >= 64 ? v : v & ((UINT64_C(1) << bits) - 1); }

static bool is_fp8(ElemType e) { return e == ET_F8E4M3 || e == ET_F8E5M2; }

/* an element of type e from `bits` bits of an asm register (ir/asm.c) */
static uint64_t asm_elem(ElemType e, uint64_t bits, int width) {
    uint64_t v = low_bits(bits, width);
    if (is_fp8(e)) return v & 0xFF;
    if (elem_is_int(e)) return interp_int_norm(e, v);
    return low_bits(v, elem_bits(e));
}

static void exec_inline_asm(Interp *in, IrOp *op) {
    if (!in->launch->run_asm)
        fail(in, op, "inline assembly cannot be interpreted without the PTX simulator (tl.inline_asm_elementwise)");
    int pack = (int)op->attr.i;
    IrAsmCons c;
    Buf why = {.arena = in->arena};
    bool ok = ir_asm_constraints(in->arena, op->attr.str2 ? op->attr.str2 : "", &c, &why);
    TRIC_ASSERT(ok);   /* verified */
    int64_t n = numel(in, op->results[0]);
    uint32_t groups = (uint32_t)((n + pack - 1) / pack), n_in = c.n - c.n_out;
    uint64_t *ins = arena_alloc(in->arena, sizeof(uint64_t) * groups * (n_in ? n_in : 1));
    uint64_t *outs = arena_alloc(in->arena, sizeof(uint64_t) * groups * (c.n_out ? c.n_out : 1));
    for (uint32_t g = 0; g < groups; g++) {
        uint32_t k = 0;
        for (uint32_t i = 0; i < op->n_operands; i++) {
            ElemType e = elem_of(in, op->operands[i]);
            int per = ir_asm_per_reg(e, pack), bits = elem_bits(e);
            const uint64_t *x = slots_of(in, op->operands[i]);
            for (int q = 0; q < pack / per; q++, k++) {
                uint64_t v = 0;
                for (int j = 0; j < per; j++) {
                    int64_t at = (int64_t)g * pack + q * per + j;
                    uint64_t s = x[at < n ? at : (int64_t)g * pack];
                    if (is_fp8(e)) s &= 0xFF;
                    v |= low_bits(s, per > 1 ? bits : ir_asm_value_bits(e, 1)) << (j * bits);
                }
                ins[(size_t)g * n_in + k] = v;
            }
        }
    }
    Buf err = {.arena = in->arena};
    if (!in->launch->run_asm(op->attr.str ? op->attr.str : "", c.letter, c.n_out, n_in, ins, outs, groups, in->launch,
                             &err))
        fail(in, op, arena_printf(in->arena, "inline assembly: %s", err.data ? err.data : "failed"));
    for (uint32_t g = 0; g < groups; g++) {
        uint32_t k = 0;
        for (uint32_t r = 0; r < op->n_results; r++) {
            ElemType e = elem_of(in, op->results[r]);
            int per = ir_asm_per_reg(e, pack), bits = elem_bits(e);
            uint64_t *y = slots_of(in, op->results[r]);
            for (int q = 0; q < pack / per; q++, k++) {
                uint64_t v = outs[(size_t)g * c.n_out + k];
                int lb = ir_asm_letter_bits(c.letter[k]);
                for (int j = 0; j < per; j++) {
                    int64_t at = (int64_t)g * pack + q * per + j;
                    if (at >= n) continue;
                    int width = per > 1 ? bits : ir_asm_value_bits(e, 1) < lb ? ir_asm_value_bits(e, 1) : lb;
                    y[at] = asm_elem(e, v >> (j * bits), width);
                }
            }
        }
    }
}

/* vals[i] -> block args (or results) dst[i], through a copy: a yield may
 * pass a block argument into another one's place. */
static void assign(Interp *in, const ValId *dst, const ValId *src, uint32_t n) {
    size_t total = 0;
    for (uint32_t i = 0; i < n; i++) total += (size_t)numel(in, src[i]);
    if (total > in->scratch_cap) {
        size_t cap = total > 2 * in->scratch_cap ? total : 2 * in->scratch_cap;
        in->scratch = arena_alloc(in->arena, sizeof(uint64_t) * cap);
        in->scratch_cap = cap;
    }
    uint64_t *p = in->scratch;
    for (uint32_t i = 0; i < n; i++) {
        size_t k = (size_t)numel(in, src[i]);
        memcpy(p, slots_of(in, src[i]), sizeof(uint64_t) * k);
        p += k;
    }
    p = in->scratch;
    for (uint32_t i = 0; i < n; i++) {
        size_t k = (size_t)numel(in, dst[i]);
        TRIC_ASSERT(k == (size_t)numel(in, src[i]));
        memcpy(slots_of(in, dst[i]), p, sizeof(uint64_t) * k);
        p += k;
    }
}

static void too_many_iters(Interp *in, IrOp *op) {
    fail(in, op, arena_printf(in->arena, "loop did not finish after %" PRIu64 " iterations", in->max_iters));
}

static bool is_negative_const(Interp *in, ValId v) {
    IrOp *def = ir_val(in->fn, v)->def;
    return def && def->opc == OP_CONST && def->attr.i < 0;
}

/* iv from lb while iv < ub (iv > ub for a constant negative step, as
 * ptxgen's loop test), iv += step wrapping at its width */
static void exec_for(Interp *in, IrOp *op) {
    IrBlock *body = op->regions[0];
    ValId iv = body->args[0];
    ElemType it = elem_of(in, iv);
    uint32_t nc = body->n_args - 1;
    assign(in, body->args + 1, op->operands + 3, nc);
    uint64_t i = *slots_of(in, op->operands[0]), ub = *slots_of(in, op->operands[1]);
    uint64_t step = *slots_of(in, op->operands[2]);
    bool down = is_negative_const(in, op->operands[2]);
    for (uint64_t count = 0;; count++) {
        bool done = down ? !interp_elem_cmp(CMP_GT, it, i, ub) : interp_elem_cmp(CMP_GE, it, i, ub);
        if (done) break;
        if (count == in->max_iters) too_many_iters(in, op);
        *slots_of(in, iv) = i;
        IrOp *term = exec_block(in, body);
        TRIC_ASSERT(term && term->opc == OP_YIELD && term->n_operands == nc);
        assign(in, body->args + 1, term->operands, nc);
        i = interp_int_norm(it, i + step);
    }
    assign(in, op->results, body->args + 1, nc);
}

static void exec_if(Interp *in, IrOp *op) {
    IrBlock *b = op->regions[*slots_of(in, op->operands[0]) ? 0 : 1];
    IrOp *term = exec_block(in, b);
    if (op->n_results == 0) return;
    TRIC_ASSERT(term && term->opc == OP_YIELD && term->n_operands == op->n_results);
    assign(in, op->results, term->operands, op->n_results);
}

static void exec_while(Interp *in, IrOp *op) {
    IrBlock *before = op->regions[0], *after = op->regions[1];
    assign(in, before->args, op->operands, op->n_operands);
    for (uint64_t count = 0;; count++) {
        if (count == in->max_iters) too_many_iters(in, op);
        IrOp *cond = exec_block(in, before);
        TRIC_ASSERT(cond && cond->opc == OP_CONDITION && cond->n_operands == after->n_args + 1);
        assign(in, after->args, cond->operands + 1, after->n_args);
        if (!*slots_of(in, cond->operands[0])) break;
        IrOp *term = exec_block(in, after);
        TRIC_ASSERT(term && term->opc == OP_YIELD && term->n_operands == before->n_args);
        assign(in, before->args, term->operands, before->n_args);
    }
    assign(in, op->results, after->args, op->n_results);
}

static void exec_op(Interp *in, IrOp *op) {
    switch (op->opc) {
    case OP_CONST: exec_const(in, op); break;
    case OP_PROGRAM_ID:
    case OP_NUM_PROGRAMS: exec_program_id(in, op); break;
    case OP_SREG: exec_sreg(in, op); break;
    case OP_ARANGE: exec_arange(in, op); break;
    case OP_SPLAT:
    case OP_EXPAND_DIMS:
    case OP_CONVERT_LAYOUT:
    case OP_MULTIPLE_OF:
    case OP_MAX_CONTIGUOUS:
    case OP_RESHAPE: exec_copy(in, op); break;   /* row-major data is unchanged */
    case OP_TRANS: exec_trans(in, op); break;
    case OP_JOIN: exec_join(in, op); break;
    case OP_HISTOGRAM: exec_histogram(in, op); break;
    case OP_GATHER: exec_gather(in, op); break;
    case OP_SPLIT: exec_split(in, op); break;
    case OP_BROADCAST: exec_broadcast(in, op); break;
    case OP_LOAD: exec_load(in, op); break;
    case OP_STORE: exec_store(in, op); break;
    case OP_ATOMIC:
    case OP_ATOMIC_CAS: exec_atomic(in, op); break;
    case OP_FOR: exec_for(in, op); break;
    case OP_IF: exec_if(in, op); break;
    case OP_WHILE: exec_while(in, op); break;
    case OP_PRINT: exec_print(in, op); break;
    case OP_ASSERT:
    case OP_ASSUME: exec_assert(in, op); break;
    case OP_BARRIER: break;   /* programs run one thread at a time */
    case OP_REDUCE: exec_reduce(in, op); break;
    case OP_SCAN: exec_scan(in, op); break;
    case OP_DOT: exec_dot(in, op); break;
    case OP_LOCAL_ALLOC: slots_of(in, op->results[0]); break;
    case OP_ASYNC_COPY: exec_async_copy(in, op); break;
    case OP_LOCAL_LOAD: exec_local_load(in, op); break;
    case OP_ASYNC_COMMIT:
    case OP_ASYNC_WAIT:
    case OP_FENCE_ASYNC: break;
    case OP_WGMMA: exec_wgmma(in, op); break;
    case OP_MBAR_ALLOC: memset(slots_of(in, op->results[0]), 0, sizeof(uint64_t) * (size_t)numel(in, op->results[0])); break;
    case OP_MBAR_INIT: exec_mbar_init(in, op, true); break;
    case OP_MBAR_INVAL: exec_mbar_init(in, op, false); break;
    case OP_MBAR_WAIT: exec_mbar_wait(in, op); break;
    case OP_TMA_COPY: exec_tma_copy(in, op); break;
    case OP_TMAP_CREATE: exec_tmap_create(in, op); break;
    case OP_MAP_ELEM: exec_map(in, op); break;
    case OP_INLINE_ASM: exec_inline_asm(in, op); break;
    case OP_WGMMA_WAIT:
        memcpy(slots_of(in, op->results[0]), slots_of(in, op->operands[0]), sizeof(uint64_t) * (size_t)numel(in, op->results[0]));
        break;
    default:
        TRIC_ASSERT(ir_info(op->opc)->flags & F_ELEMWISE);
        exec_elementwise(in, op);
    }
}

/* Runs b's ops; returns its terminator (yield, condition, ret) or NULL. */
static IrOp *exec_block(Interp *in, IrBlock *b) {
    for (IrOp *op = b->first; op; op = op->next) {
        if (ir_info(op->opc)->flags & F_TERM) return op;
        exec_op(in, op);
    }
    return NULL;
}

static void run_grid(Interp *in) {
    const InterpLaunch *l = in->launch;
    uint32_t g[3];
    for (int k = 0; k < 3; k++) g[k] = l->grid[k] ? l->grid[k] : 1;
    for (uint32_t i = 0; i < l->n_args && i < in->fn->n_params; i++) {
        ValId p = in->fn->params[i].val;
        ElemType e = elem_of(in, p);
        *slots_of(in, p) = elem_is_float(e) || e == ET_PTR ? l->args[i] : interp_int_norm(e, l->args[i]);
    }
    for (in->pid[2] = 0; in->pid[2] < g[2]; in->pid[2]++)
        for (in->pid[1] = 0; in->pid[1] < g[1]; in->pid[1]++)
            for (in->pid[0] = 0; in->pid[0] < g[0]; in->pid[0]++) exec_block(in, in->fn->body);
}

bool interp_run(IrFunc *fn, const InterpLaunch *l, Buf *err) {
    if (l->n_args != fn->n_params) {
        buf_printf(err, "tric: error: kernel '%s' takes %u arguments, the launch gives %u\n", fn->name,
                   fn->n_params, l->n_args);
        return false;
    }
    /* on the heap: written between setjmp and longjmp */
    Interp *in = calloc(1, sizeof *in);
    if (!in) tric_internal_error(__FILE__, __LINE__, "out of memory");
    in->fn = fn;
    in->launch = l;
    in->arena = arena_new();
    in->slots = arena_alloc(in->arena, sizeof(uint64_t *) * fn->n_vals);
    in->max_iters = l->max_loop_iters ? l->max_loop_iters : UINT64_C(1) << 26;
    in->err = err;
    bool ok = false;
    if (setjmp(in->bail) == 0) {
        run_grid(in);
        ok = true;
    }
    arena_free_all(in->arena);
    free(in);
    return ok;
}
