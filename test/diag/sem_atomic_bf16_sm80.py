# ARGS: -k kern -s '*bf16, *bf16, 64' --arch sm_80
import triton
import triton.language as tl


@triton.jit
def kern(p_ptr, v_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.atomic_add(p_ptr + offs, tl.load(v_ptr + offs))
