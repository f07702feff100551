# ARGS: -k kern -s '*fp32, 64'
import torch
import triton
import triton.language as tl

DEVICE = torch.device("cuda")


@triton.jit
def kern(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, DEVICE)
