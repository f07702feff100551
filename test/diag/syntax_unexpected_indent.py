# ARGS: -k kern -s '*fp32, i32'
import triton
import triton.language as tl


@triton.jit
def kern(x_ptr, n):
    x = tl.load(x_ptr)
        tl.store(x_ptr, x)
