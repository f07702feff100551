# ARGS: -k kern -s '*u8, *u8, *i32'
import triton
import triton.language as tl

@triton.jit
def kern(P, Q, O):
    r = tl.arange(0, 32)
    a = tl.load(P + r[:, None] * 32 + r[None, :])
    b = tl.load(Q + r[:, None] * 32 + r[None, :])
    c = tl.dot(a, b)
    tl.store(O + r[:, None] * 32 + r[None, :], c)
