# ARGS: -k kern -s '*fp32, i32'
import triton.language as tl
import triton


@triton.jit
def kern(x, n):
    p = tl.make_block_ptr(x, (n,), (1,), (0,), (128,), (0,))
    tl.store(x + tl.arange(0, 128), tl.load(p, boundary_check=(0,), padding_option="inf"))
