import triton
import triton.language as tl
import mypkg.helpers as h
from mypkg import helpers
from mypkg.helpers import twice
import mypkg

@triton.jit
def kern(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = h.scaled(x) + helpers.twice(x) + twice(x) + mypkg.consts.TWO * mypkg.helpers.SCALE
    tl.store(y_ptr + offs, y)
