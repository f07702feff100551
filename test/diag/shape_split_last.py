# ARGS: -k kern -s '*fp32, 64'
import triton
import triton.language as tl


@triton.jit
def kern(x_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    a, b = tl.split(x.reshape(16, 4))
    tl.store(x_ptr + tl.arange(0, 16), a + b)
