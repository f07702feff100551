# ARGS: -k kern -s 'tensordesc<fp16[64, 4]>, *fp16'
import triton.language as tl
import triton


@triton.jit
def kern(d, x):
    tl.store(x + tl.arange(0, 64)[:, None] * 4 + tl.arange(0, 4)[None, :], d.load([0, 0]))
