# ARGS: -k kern -s '*fp32, i32'
import triton.language as tl
import triton


@triton.jit
def kern(x, n):
    tl.assume(n + 1)
    tl.store(x, n)
