# RUN: -k extremes -s '*i32, *fp32' --interpret --args 'x=randint(-2147483648,2147483647,2,i32); y=zeros(2,fp32)' --print y
# RUN: -k count -s '*i32, i32' --emit ir
# Names Triton's tests use: tl.random's functions (the same as tl's),
# tl.condition (a while loop's condition with a loop hint), tl.pi32_t.
import triton
import triton.language as tl


@triton.jit
def extremes(x_ptr, y_ptr):
    idx = tl.arange(0, 2)
    tl.store(y_ptr + idx, tl.random.uint_to_uniform_float(tl.load(x_ptr + idx)))


@triton.jit
def count(x_ptr, n):
    tl.static_assert(x_ptr.dtype == tl.pi32_t)
    i = 0
    while tl.condition(i < n, disable_licm=True):
        i += 1
    tl.store(x_ptr, i)
