# ARGS: -k add_kernel -s '*fp32, *fp32, *fp32, i32, 64' --interpret --grid 1 --args 'x = rand(-5); y = rand(4); out = zeros(4); n = 4'
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)
