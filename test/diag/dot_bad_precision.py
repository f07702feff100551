# ARGS: -k kern -s '*fp32, *fp32, *fp32'
import triton
import triton.language as tl

@triton.jit
def kern(P, Q, O):
    r = tl.arange(0, 16)
    a = tl.load(P + r[:, None] * 16 + r[None, :])
    b = tl.load(Q + r[:, None] * 16 + r[None, :])
    c = tl.dot(a, b, input_precision="fp8x2")
    tl.store(O + r[:, None] * 16 + r[None, :], c)
