# ARGS: -k kern -s '*fp16, *fp16, 64'
import triton
import triton.language as tl


@triton.jit
def kern(p_ptr, v_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.atomic_max(p_ptr + offs, tl.load(v_ptr + offs))
