# ARGS: -k kern -s '*fp32, fp32, 16'
import triton
import triton.language as tl


@triton.jit
def kern(out_ptr, seed, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.rand(seed, offs))
