# ARGS: -k kern -s '*fp32, dtype(fp16 , 64'
import tric
import tric.language as tl


@tric.jit
def kern(x_ptr, OUT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs).to(OUT))
