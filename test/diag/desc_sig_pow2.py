# ARGS: -k kern -s 'tensordesc<fp16[64, 48]>, *fp16'
import triton.language as tl
import triton


@triton.jit
def kern(d, x):
    tl.store(x + tl.arange(0, 64)[:, None] * 48 + tl.arange(0, 48)[None, :], d.load([0, 0]))
