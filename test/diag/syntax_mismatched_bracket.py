# ARGS: -k kern -s '*fp32, i32'
import triton
import triton.language as tl


@triton.jit
def kern(x_ptr, n):
    offs = tl.arange(0, 64]
