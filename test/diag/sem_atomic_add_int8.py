# ARGS: -k kern -s '*i8, *i8, 64'
import triton
import triton.language as tl


@triton.jit
def kern(p_ptr, v_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    old = tl.atomic_add(p_ptr + offs, 1)
