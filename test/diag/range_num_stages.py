# ARGS: -k kern -s '*fp32, i32, i32'
import triton
import triton.language as tl

@triton.jit
def kern(x_ptr, n, stages):
    for i in tl.range(0, n, num_stages=stages):
        tl.store(x_ptr + i, 1.0)
