# ARGS: -k kern -s '*fp32, *fp32'
import triton
import triton.language as tl


@triton.jit
def kern(x_ptr, out_ptr):
    offs = tl.arange(0, 64)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, tl.cumsum(x, axis=None))
