"""Debugging a kernel: print / tl.device_print (one line per element,
"pid (x, y, z) idx (i) x: 0.500000"), tl.static_print at compile time,
assert / tl.device_assert (checked by the interpreter always, on the GPU
when compiled with debug=True or TRITON_DEBUG=1), tl.debug_barrier.

    TRIC_INTERPRET=1 python kernels/debug.py     # runs on the CPU, no GPU needed
"""
import triton
import triton.language as tl


@triton.jit
def debug_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    tl.static_print("debug_kernel: BLOCK =", BLOCK)
    print("pid", pid)
    tl.device_print("x", x)
    tl.device_print("offs", offs, hex=True)
    assert pid < 64, "the grid is larger than the test uses"
    tl.device_assert(x == x, "x is NaN", mask=mask)
    tl.debug_barrier()
    tl.store(out_ptr + offs, x * 2 + 1, mask=mask)


if __name__ == "__main__":
    import numpy as np

    n = 20
    x = np.arange(n, dtype=np.float32) / 4
    out = np.empty(n, dtype=np.float32)
    debug_kernel[(triton.cdiv(n, 16),)](x, out, n, BLOCK=16)
    print("max error", float(np.abs(out - (x * 2 + 1)).max()))

# kernel: debug_kernel
# signature: *fp32, *fp32, i32, 16
# grid: (cdiv(n, 16), 1, 1)
# args: x = rand(n, fp32); out = empty(n, fp32); n = 40
# check: out == x * 2 + 1
# tol: 1e-6
