# ARGS: -k kern -s '*fp32, i32, 64'
import triton
import triton.language as tl


@triton.jit
def kern(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
