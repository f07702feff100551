# ARGS: -k kern -s '*i32, *i32, 64'
import triton
import triton.language as tl


@triton.jit
def kern(p_ptr, v_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.atomic_min(p_ptr, offs)
