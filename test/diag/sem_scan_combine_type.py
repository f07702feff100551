# ARGS: -k kern -s '*i32, *i32'
import triton
import triton.language as tl


@triton.jit
def to_float(a, b):
    return (a + b).to(tl.float32)


@triton.jit
def kern(x_ptr, out_ptr):
    offs = tl.arange(0, 32)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, x.associative_scan(axis=0, combine_fn=to_float, reverse=True))
