# ARGS: -k kern -s '*fp32, i32'
import triton
import triton.language as tl


@triton.jit
def first_positive(x_ptr, n):
    for i in range(n):
        return i
    return -1


@triton.jit
def kern(x_ptr, n):
    tl.store(x_ptr, first_positive(x_ptr, n))
