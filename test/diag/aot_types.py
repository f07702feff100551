# ARGS: -k add --emit c -o /nonexistent/out -s '*fp32:16, *fp32, i32, 256' -s '*fp16, *fp32, i32, 256'
import triton
import triton.language as tl


@triton.jit
def add(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
