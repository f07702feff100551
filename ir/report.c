/* What the passes decided for each global load of a tile, one line each,
 * from the IR after them: the vector width pass_layout proved, and whether
 * the pipeline pass turned it into async copies (then the load became
 * async_copy ops, which keep its source location and vector, into a buffer
 * of N slots; or tma_copy ops, whole blocks by TMA) or why not (the load's
 * `unpipelined` reason). The PTX header
 * and `tric --stats` print it, so a slow kernel says which of its loads
 * stayed narrow or synchronous. */
#include "ir.h"

typedef struct Report {
    IrFunc *fn;
    Buf *out;
    const char *indent;
    SrcLoc *seen;
    uint32_t n_seen, cap_seen;
    HashIdx *seen_at;
} Report;

static uint32_t loc_hash(SrcLoc loc) { return hash_ptr(loc.file) ^ hash_u64((uint64_t)(uint32_t)loc.line << 32 | (uint32_t)loc.col); }

/* the prologue's copies and the loop's share the load's location: once */
static bool first_time(Report *R, SrcLoc loc) {
    for (uint32_t it = 0, k; (k = hidx_next(R->seen_at, loc_hash(loc), &it));) {
        const SrcLoc *s = &R->seen[k - 1];
        if (s->file == loc.file && s->line == loc.line && s->col == loc.col) return false;
    }
    VEC_PUSH(R->fn->ctx->arena, R->seen, R->n_seen, R->cap_seen, loc);
    uint32_t from = hidx_reserve(&R->seen_at, R->fn->ctx->arena, 1, R->n_seen) ? 0 : R->n_seen - 1;
    for (uint32_t k = from; k < R->n_seen; k++) hidx_put(R->seen_at, loc_hash(R->seen[k]), k);
    return true;
}

static void report_op(IrFunc *fn, IrOp *op, void *ud) {
    Report *R = ud;
    bool copy = op->opc == OP_ASYNC_COPY, tma = op->opc == OP_TMA_COPY;
    if (op->opc != OP_LOAD && !copy && !tma) return;
    if (!first_time(R, op->loc)) return;
    IrType t;
    if (tma) {   /* the slot's tile */
        IrType bt = fn->vals[op->operands[0]].type;
        t = bt;
        t.rank = (uint8_t)(bt.rank - 1);
        for (int d = 0; d < t.rank; d++) t.shape[d] = bt.shape[d + 1];
    } else {
        IrType pt = fn->vals[op->operands[copy ? 2 : 0]].type;
        if (pt.rank == 0) return;
        t = ir_with_elem(pt, ir_scalar((ElemType)pt.pointee));
    }
    int vec = op->attr.vec > 0 ? op->attr.vec : 1;
    buf_puts(R->out, R->indent);
    if (op->loc.file) buf_printf(R->out, "%s:%d:%d: ", op->loc.file->path, (int)op->loc.line, (int)op->loc.col);
    buf_puts(R->out, "load ");
    ir_type_print(R->out, t);
    if (tma) buf_printf(R->out, ", whole blocks by TMA, pipelined: %d slots", (int)fn->vals[op->operands[0]].type.shape[0]);
    else buf_printf(R->out, ", %d-byte vectors", vec * elem_bytes((ElemType)t.elem));
    if (copy) buf_printf(R->out, ", pipelined: %d slots", (int)fn->vals[op->operands[0]].type.shape[0]);
    else if (op->attr.str) buf_printf(R->out, ", not pipelined: %s", op->attr.str);
    buf_putc(R->out, '\n');
}

void ir_load_report(IrFunc *fn, Buf *out, const char *indent) {
    Report R = {fn, out, indent, NULL, 0, 0, NULL};
    ir_walk(fn, fn->body, report_op, &R);
}
