# RUN: -k abs_kernel -s '*fp8e4nv, *fp8e4nv' --emit ir
# RUN: -k abs_kernel -s '*fp8e4nv, *fp8e4nv' --interpret --args 'x = randn(64, fp8e4nv); out = zeros(64, fp8e4nv)' --print out
# RUN: -k abs_kernel -s '*fp8e5, *fp8e5' --simulate --args 'x = randn(64, fp8e5); out = zeros(64, fp8e5)' --print out
# tl.abs of fp8 clears the sign bit (Triton's rule), so -0.0 and NaN keep their other bits.
import triton
import triton.language as tl


@triton.jit
def abs_kernel(x_ptr, out_ptr):
    offs = tl.arange(0, 64)
    tl.store(out_ptr + offs, tl.abs(tl.load(x_ptr + offs)))
