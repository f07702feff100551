# RUN: -k scaled_rsqrt -s '*fp32, *fp32' --emit ir
# Names bound at module level inside `try:` are read from the try body (the
# branch that runs when nothing fails), as libraries bind libdevice helpers;
# except/else/finally blocks and if blocks are not read.
import triton
import triton.language as tl

try:
    from triton.language.extra.libdevice import rsqrt
    SCALE: tl.constexpr = 2.0
except ImportError:
    from triton.language.math import exp as rsqrt
    SCALE = 7.0


@triton.jit
def scaled_rsqrt(x_ptr, y_ptr):
    offs = tl.arange(0, 16)
    tl.store(y_ptr + offs, rsqrt(tl.load(x_ptr + offs)) * SCALE)
