# ARGS: -k kern -s '*fp32, 32'
import triton
import triton.language as tl


@triton.jit
def kern(x_ptr, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK == 64, f"BLOCK is {BLOCK}, see {nope}")
    tl.store(x_ptr + tl.arange(0, BLOCK), 1.0)
