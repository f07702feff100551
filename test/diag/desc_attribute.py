# ARGS: -k kern -s '*fp16, i32'
import triton.language as tl
import triton


@triton.jit
def kern(x, n):
    d = tl.make_tensor_descriptor(x, shape=[n, n], strides=[n, 1], block_shape=[16, 16])
    tl.store(x, d.layout)
