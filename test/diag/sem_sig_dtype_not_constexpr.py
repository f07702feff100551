# ARGS: -k kern -s '*fp32, dtype(fp16), 64'
from tric import language as tl
import tric as triton


@triton.jit
def kern(x_ptr, scale, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) * scale)
