# ARGS: -k kern -s '*fp33, i32'
import triton
import triton.language as tl


@triton.jit
def kern(x_ptr, n):
    tl.store(x_ptr, n)
