# ARGS: -k kern -s '*fp32, i32'
import triton
import triton.language as tl


@triton.jit
def kern(x_ptr, n):
    tl.device_print("value is, x)
