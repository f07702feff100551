# ARGS: -k kern -s '*fp32, fp32'
import triton
import triton.language as tl


@triton.jit
def kern(out_ptr, x):
    tl.store(out_ptr, tl.cumprod(x, 0))
