# ARGS: -k kern -s '*fp32, 64'
import triton
import triton.language as tl


@triton.jit
def twice(x, n: tl.constexpr):
    return twice(x * 2, n - 1)


@triton.jit
def kern(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, twice(tl.load(x_ptr + offs), 3))
