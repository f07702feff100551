"""Kernels for the test of `tric --emit c` (test/aot/aot_test.c): their
specializations come from the test blocks below."""
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@triton.jit
def scale_kernel(x_ptr, out_ptr, alpha, n, negate, shift, BLOCK: tl.constexpr):
    # out = (alpha * x + shift) or its negation, for a row of 2-D programs
    pid = tl.program_id(1) * tl.num_programs(0) + tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    y = alpha * tl.load(x_ptr + offs, mask=mask) + shift
    if negate:
        y = -y
    tl.store(out_ptr + offs, y, mask=mask)

# kernel: add_kernel
# signature: *fp32:16, *fp32:16, *fp32:16, i32:16, 256
# signature: *fp32, *fp32, *fp32, i32, 256
# signature: *fp32, *fp32, *fp32, i32:1, 256

# kernel: scale_kernel
# signature: *fp32, *fp32, fp32, i64, i1, fp64, 64
# num_warps: 2
