# ARGS: -k copy_kernel -s 'tensordesc<fp32[8, 16]>, *fp32' --arch sm_90a --interpret --grid 1 --args 'src = rand((16, 16)); dst = zeros(128)'
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src, dst):
    tl.store(dst + tl.arange(0, 8)[:, None] * 16 + tl.arange(0, 16)[None, :], src.load([0, 0]))
