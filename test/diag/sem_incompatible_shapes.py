# ARGS: -k kern -s '*fp32, i32'
import triton
import triton.language as tl


@triton.jit
def kern(x_ptr, n):
    a = tl.arange(0, 128)
    b = tl.arange(0, 64)
    tl.store(x_ptr + a, a + b, mask=a < n)
