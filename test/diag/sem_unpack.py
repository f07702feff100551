# ARGS: -k kern -s '*fp32, 64'
import triton
import triton.language as tl


@triton.jit
def split3(x):
    return x, x + 1, x + 2


@triton.jit
def kern(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a, b = split3(offs)
    tl.store(x_ptr + a, b)
