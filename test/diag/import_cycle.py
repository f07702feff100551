# ARGS: -k kern -s '*i32'
# A module that imports a name from itself: Python stops at the circular
# import; tric must not recurse until the stack overflows.
import triton
import triton.language as tl
from import_cycle import V


@triton.jit
def kern(X):
    tl.store(X, V)
