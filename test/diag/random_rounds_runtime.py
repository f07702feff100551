# ARGS: -k kern -s '*u32, i32, i32, 16'
import triton
import triton.language as tl


@triton.jit
def kern(out_ptr, seed, rounds, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.randint(seed, offs, rounds))
