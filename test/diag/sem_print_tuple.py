# ARGS: -k kern -s '*fp32, 16'
import triton
import triton.language as tl


@triton.jit
def kern(x_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.device_print("xs", (x, x))
