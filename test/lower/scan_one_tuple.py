# RUN: -k one_tuple -s '*fp32, *fp32, *fp32' --interpret --args 'x=arange(16,fp32); y=zeros(16,fp32); z=zeros(1,fp32)' --print y,z
# tl.associative_scan and tl.reduce over a one-item tuple give a one-item
# tuple, as Triton's do (Inductor's generated scans unpack `tmp6, = ...`).
import triton
import triton.language as tl

@triton.jit
def add(a, b):
    return a + b

@triton.jit
def one_tuple(x_ptr, y_ptr, z_ptr):
    offs = tl.arange(0, 16)
    x = tl.load(x_ptr + offs)
    s, = tl.associative_scan((x,), 0, add)
    r, = tl.reduce((x,), 0, add)
    tl.store(y_ptr + offs, s)
    tl.store(z_ptr, r)
