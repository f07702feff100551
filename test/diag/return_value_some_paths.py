# ARGS: -k kern -s '*fp32, i32'
import triton
import triton.language as tl

@triton.jit
def pick(n):
    if n > 0:
        return 1.0

@triton.jit
def kern(x_ptr, n):
    tl.store(x_ptr, pick(n))
