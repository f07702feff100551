# ARGS: -k kern -s '*u8, *u8, 64'
import triton
import triton.language as tl


@triton.jit
def kern(p_ptr, v_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.atomic_cas(p_ptr, 0, 1)
