# ARGS: -k kern -s '*fp32'
# The shape's product wraps a 64-bit integer to 0: still over the limit.
import triton
import triton.language as tl


@triton.jit
def kern(X):
    x = tl.zeros((65536, 65536, 65536, 65536), dtype=tl.float32)
    tl.store(X + tl.arange(0, 2), tl.sum(tl.reshape(x, (2, -1)), 1))
