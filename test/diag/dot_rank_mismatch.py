# ARGS: -k kern -s '*fp16, *fp16, *fp32'
import triton
import triton.language as tl

@triton.jit
def kern(P, Q, O):
    r = tl.arange(0, 16)
    a = tl.load(P + r[:, None] * 16 + r[None, :])
    b = tl.load(Q + r)
    tl.store(O + r, tl.sum(tl.dot(a, b), axis=1))
