# ARGS: -k kern -s '*fp32, i32, 100'
import triton
import triton.language as tl


@triton.jit
def kern(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, 0.0, mask=offs < n)
