# ARGS: -k kern -s '*i32, 64'
import triton
import triton.language as tl


@triton.jit
def kern(p_ptr, BLOCK: tl.constexpr):
    x = tl.load(p_ptr + tl.arange(0, BLOCK))
    y = tl.inline_asm_elementwise("add.s32 $0, $1, $2;", "=r,r,r", [x], dtype=tl.int32, is_pure=True, pack=1)
    tl.store(p_ptr + tl.arange(0, BLOCK), y)
