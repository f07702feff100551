# ARGS: -k kern -s '*fp16, i32, 128'
import triton
import triton.language as tl


@triton.jit
def kern(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for i in range(0, n, BLOCK):
        x = tl.load(x_ptr + i + offs, mask=i + offs < n, other=0.0)
        acc = x * 2
    tl.store(x_ptr + offs, acc)
