# ARGS: -k kern -s '*fp32, i32'
import triton
import triton.language as tl

@triton.jit
def kern(x_ptr, n):
    if n > 0:
        break
    tl.store(x_ptr, 1.0)
