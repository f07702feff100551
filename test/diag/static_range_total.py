# ARGS: -k kern -s '*fp32'
# Each loop is within the per-loop limit; nested, they multiply past the
# kernel's total.
import triton
import triton.language as tl


@triton.jit
def kern(X):
    acc = 0.0
    for i in tl.static_range(4096):
        for j in tl.static_range(4096):
            acc += 1.0
    tl.store(X, acc)
