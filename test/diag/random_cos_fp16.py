# ARGS: -k kern -s '*fp16, 16'
import triton
import triton.language as tl


@triton.jit
def kern(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.cos(tl.load(x_ptr + offs)))
