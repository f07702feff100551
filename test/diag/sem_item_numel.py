# ARGS: -k kern -s '*fp32'
import triton
import triton.language as tl


@triton.jit
def kern(x_ptr):
    tl.store(x_ptr, tl.load(x_ptr + tl.arange(0, 4)).item())
