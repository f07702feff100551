# ARGS: -k kern -s '*fp32:8, i32'
import triton
import triton.language as tl


@triton.jit
def kern(x_ptr, n):
    tl.store(x_ptr, n)
