# RUN: -k early_return -s '*i32, i32' --emit ir
# RUN: -k early_return -s '*i32, i32' --dump-after dce -o /dev/null
# An early return under a run-time condition: the rest of the kernel runs
# under `if not returned`; after the passes no flag is left.
import triton
import triton.language as tl


@triton.jit
def early_return(x_ptr, P):
    pid = tl.program_id(0)
    if pid >= P:
        return
    tl.store(x_ptr + pid, pid)
