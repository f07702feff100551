# ARGS: -k kern -s '*fp32, 64'
import triton
import triton.language as tl


@triton.jit
def kern(x_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    y = x.reshape(8, 8).permute(1, 0, 2)
    tl.store(x_ptr + tl.arange(0, 64), tl.ravel(y))
