# ARGS: -k kern -s '*fp64, 64'
import triton
import triton.language as tl
from triton.language.extra.cuda import libdevice


@triton.jit
def kern(p_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(p_ptr + offs)
    tl.store(p_ptr + offs, libdevice.fast_powf(x, 2.5))
