# ARGS: -k kern -s '*fp16, i32'
import triton.language as tl
import triton


@triton.jit
def kern(x, n):
    d = tl.make_tensor_descriptor(x, shape=[n, n], strides=[1, n], block_shape=[16, 16])
    d.store([0, 0], tl.zeros((16, 16), tl.float16))
