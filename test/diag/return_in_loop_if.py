# ARGS: -k kern -s '*fp32, i32'
import triton
import triton.language as tl

@triton.jit
def kern(x_ptr, n):
    for i in range(n):
        if i > 3:
            return
    tl.store(x_ptr, 1.0)
