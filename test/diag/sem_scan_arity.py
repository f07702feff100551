# ARGS: -k kern -s '*fp32, *fp32, *fp32'
import triton
import triton.language as tl


@triton.jit
def combine(a1, b1, a2):
    return a1 * a2, b1


@triton.jit
def kern(a_ptr, b_ptr, out_ptr):
    offs = tl.arange(0, 64)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    _, h = tl.associative_scan((a, b), 0, combine)
    tl.store(out_ptr + offs, h)
