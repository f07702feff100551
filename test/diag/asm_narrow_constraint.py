# ARGS: -k kern -s '*i32, 64'
import triton
import triton.language as tl


@triton.jit
def kern(p_ptr, BLOCK: tl.constexpr):
    x = tl.load(p_ptr + tl.arange(0, BLOCK)).to(tl.int8)
    y = tl.inline_asm_elementwise("mov.b16 $0, $1;", "=h,h", [x], dtype=tl.int8, is_pure=True, pack=4)
    tl.store(p_ptr + tl.arange(0, BLOCK), y)
