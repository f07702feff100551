# ARGS: -k kern -s '*fp32, (4, i32)'
import triton.language as tl
import triton


@triton.jit
def kern(x, BLOCK: tl.constexpr):
    tl.store(x + tl.arange(0, BLOCK[0]), 1.0)
