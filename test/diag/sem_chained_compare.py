# ARGS: -k kern -s '*fp32, i32, 64'
import triton
import triton.language as tl


@triton.jit
def kern(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, 1.0, mask=0 <= offs < n)
