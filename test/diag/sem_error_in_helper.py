# ARGS: -k kern -s '*fp32, 64'
import triton
import triton.language as tl


@triton.jit
def _scale(x, factor):
    return x * undefined_factor


@triton.jit
def _twice(x):
    return _scale(x, 2.0)


@triton.jit
def kern(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(x_ptr + offs, _twice(x))
