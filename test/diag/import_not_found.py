# ARGS: -k kern -s '*fp32'
import triton
import triton.language as tl
from nosuchpkg import helpers

@triton.jit
def kern(x_ptr):
    tl.store(x_ptr, helpers.f(1.0))
