# ARGS: -k kern -s '*fp32, *fp32, 64'
import triton
import triton.language as tl


@triton.jit
def kern(p_ptr, v_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    p_ptr.atomic_and(1)
