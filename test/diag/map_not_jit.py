# ARGS: -k kern -s '*i32, 64'
import triton
import triton.language as tl


@triton.jit
def kern(p_ptr, BLOCK: tl.constexpr):
    x = tl.load(p_ptr + tl.arange(0, BLOCK))
    y = tl.map_elementwise(3, x)
    tl.store(p_ptr + tl.arange(0, BLOCK), y)
