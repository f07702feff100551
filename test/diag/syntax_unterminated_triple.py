# ARGS: -k kern -s '*fp32, i32'
import triton

DOC = """Kernels for
the tests.

@triton.jit
def kern(x_ptr, n):
    pass
