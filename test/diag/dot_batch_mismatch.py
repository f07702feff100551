# ARGS: -k kern -s '*fp16, *fp16, *fp32'
import triton
import triton.language as tl

@triton.jit
def kern(P, Q, O):
    r = tl.arange(0, 16)
    a = tl.load(P + r[:, None] * 16 + r[None, :])
    b = tl.load(Q + r[:, None] * 16 + r[None, :])
    a3 = tl.reshape(a, (2, 8, 16))
    b3 = tl.reshape(b, (4, 16, 4))
    c = tl.dot(a3, b3)
    tl.store(O + r, tl.reshape(c, (16,)))
