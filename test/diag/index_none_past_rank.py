# ARGS: -k kern -s '*fp32'
import triton
import triton.language as tl


@triton.jit
def kern(x):
    offs = tl.arange(0, 16)
    tl.store(x + offs[:, :, None], 1.0)
