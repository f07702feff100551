# ARGS: -k kern -s '*fp32, i32'
import triton.language as tl
import triton


@triton.jit
def kern(x, n):
    p = tl.make_block_ptr(x, (n,), (1,), (0,), (128,), (0,))
    tl.store(x + tl.arange(0, 128), tl.load(p, mask=tl.arange(0, 128) < n))
