# RUN: -k one_tuple -s '*fp32, *fp32, *fp32' --interpret --args 'x=arange(16,fp32); y=zeros(16,fp32); z=zeros(1,fp32)' --print y,z
# RUN: -k pick -s '*fp32, *fp32' --interpret --args 'x=arange(16,fp32); y=zeros(1,fp32)' --print y
# Idioms of torch Inductor's generated kernels and helpers: tl.associative_scan
# and tl.reduce over a one-item tuple give a one-item tuple, as Triton's do
# (`tmp6, = tl.associative_scan((tmp4,), 1, f)`); tl.core.get_int_dtype
# (triton_helpers.select_one bitcasts through it).
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


@triton.jit
def select_one(x, mask, dim, keep_dims=False):
    idtype = tl.core.get_int_dtype(x.dtype.primitive_bitwidth, signed=False)
    ix = x.to(idtype, bitcast=True)
    iy = tl.sum(ix * mask, dim, keep_dims=keep_dims)
    return iy.to(x.dtype, bitcast=True)


@triton.jit
def pick(x_ptr, y_ptr):
    offs = tl.arange(0, 16)
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr, select_one(x, offs == 15, 0))
