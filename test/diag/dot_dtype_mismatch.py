# ARGS: -k kern -s '*fp32, *fp16, *fp32'
import triton
import triton.language as tl

@triton.jit
def kern(P, Q, O):
    r = tl.arange(0, 16)
    a = tl.load(P + r[:, None] * 16 + r[None, :])
    b = tl.load(Q + r[:, None] * 16 + r[None, :])
    tl.store(O + r[:, None] * 16 + r[None, :], tl.dot(a, b))
