# ARGS: -k kern -s '*fp32, 64'
import triton
import triton.language as tl


@triton.jit
def kern(x_ptr, BLOCK: tl.constexpr):
    x = tl.zeros([BLOCK], dtype=tl.float32)
    x[0] = 1.0
    tl.store(x_ptr + tl.arange(0, BLOCK), x)
