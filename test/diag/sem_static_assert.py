# ARGS: -k kern -s '*fp32, 48'
import triton
import triton.language as tl


@triton.jit
def kern(x_ptr, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK % 32 == 0, "BLOCK must be a multiple of 32")
    tl.store(x_ptr + tl.arange(0, BLOCK), 1.0)
