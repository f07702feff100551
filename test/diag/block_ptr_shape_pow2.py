# ARGS: -k kern -s '*fp32, i32'
import triton.language as tl
import triton


@triton.jit
def kern(x, n):
    p = tl.make_block_ptr(x, (n, n), (n, 1), (0, 0), (16, 24), (1, 0))
    tl.store(p, tl.zeros((16, 24), tl.float32))
