# RUN: -k scale_rows -s '*fp32, *fp32, 1024, 4, 2.5, dtype(fp16)' --emit ir
# Values for parameters that are not tl.constexpr (Triton's AOT signatures
# and Inductor's constants specialize any parameter so): each is baked in.
import triton
import triton.language as tl


@triton.jit
def scale_rows(x_ptr, y_ptr, n, stride, scale, OUT):
    offs = tl.arange(0, 16)
    mask = offs < n
    x = tl.load(x_ptr + offs * stride, mask=mask)
    tl.store(y_ptr + offs, (x * scale).to(OUT).to(tl.float32), mask=mask)
