# ARGS: -k kern -s '*bf16, *bf16, *fp32'
import triton
import triton.language as tl

@triton.jit
def kern(P, Q, O):
    r = tl.arange(0, 16)
    a = tl.load(P + r[:, None] * 16 + r[None, :])
    b = tl.load(Q + r[:, None] * 16 + r[None, :])
    acc = tl.zeros((16, 16), dtype=tl.float16)
    acc = tl.dot(a, b, acc)
    tl.store(O + r[:, None] * 16 + r[None, :], acc)
