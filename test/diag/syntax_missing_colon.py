# ARGS: -k kern -s '*fp32, i32'
import triton
import triton.language as tl


@triton.jit
def kern(x_ptr, n):
    for i in range(0, n, 4)
        tl.store(x_ptr + i, 0.0)
