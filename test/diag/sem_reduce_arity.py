# ARGS: -k kern -s '*fp32, *fp32'
import triton
import triton.language as tl


@triton.jit
def add3(a, b, c):
    return a + b + c


@triton.jit
def kern(x_ptr, out_ptr):
    x = tl.load(x_ptr + tl.arange(0, 64))
    tl.store(out_ptr, tl.reduce(x, 0, add3))
