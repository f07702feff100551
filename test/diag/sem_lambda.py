# ARGS: -k kern -s '*fp32, 64'
import triton
import triton.language as tl


@triton.jit
def kern(x_ptr, BLOCK: tl.constexpr):
    f = lambda v: v + 1
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, f(offs))
