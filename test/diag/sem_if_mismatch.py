# ARGS: -k kern -s '*fp32, i32'
import triton
import triton.language as tl


@triton.jit
def kern(x_ptr, n):
    y = tl.load(x_ptr)
    if n > 0:
        y = y * 2.0
    else:
        y = y.to(tl.float16)
    tl.store(x_ptr, y)
