# ARGS: -k kern -s '*fp32:16, i32:16' --interpret --args 'x = zeros(64, fp32); n = 40'
import triton.language as tl
import triton


@triton.jit
def kern(x, n):
    offs = tl.arange(0, 64)
    tl.store(x + offs, 1.0, mask=offs < n)
