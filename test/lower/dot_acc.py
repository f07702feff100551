# RUN: -k dot_acc -s '*fp32, *i8, *fp32, *i32, 16' --emit ir
# RUN: -k dot_acc -s '*fp32, *i8, *fp32, *i32, 16' --dump-after dce -o /dev/null
# tl.dot lowered: acc=None is a zero accumulator of the result type (int32 for
# int8), acc given is the accumulator (`acc = tl.dot(a, b, acc)`),
# `acc += tl.dot(a, b)` and `acc + tl.dot(a, b)` accumulate in the dot
# (the lowering gives the dot acc instead of a zero accumulator), and
# input_precision / allow_tf32 become the precision attribute of f32 dots.
import triton
import triton.language as tl


@triton.jit
def dot_acc(F, I, OF, OI, B: tl.constexpr):
    r = tl.arange(0, B)
    offs = r[:, None] * B + r[None, :]
    acc = tl.zeros((B, B), dtype=tl.float32)
    iacc = tl.zeros((B, B), dtype=tl.int32)
    for k in range(2):
        f = tl.load(F + offs + k * B * B)
        i = tl.load(I + offs + k * B * B)
        acc = tl.dot(f, f.T, acc, input_precision="tf32x3")
        acc += tl.dot(f, f, allow_tf32=False)
        iacc += tl.dot(i, i)
    tl.store(OF + offs, acc)
    tl.store(OI + offs, iacc)
