"""
Float remainder, `a % b` on float tiles, as Triton 3.6 computes it on an
H100: C's fmod (the result takes the dividend's sign), except that a zero
result is +0 (-6 % 3 is 0.0, fmod's -0.0) and x % inf is x for every x
(inf % inf is inf, fmod's NaN); inf % y and x % 0 are NaN. (Exact while
|a / b| < 2^24 for f32, 2^53 for f64: doc/interp.md.)
"""
import triton
import triton.language as tl


@triton.jit
def rem_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask, other=1.0)
    tl.store(out_ptr + offs, a % b, mask=mask)

# kernel: rem_kernel
# signature: *fp32, *fp32, *fp32, i32, 16
# grid: 1
# args: a = np.array([-6.0, -0.0, 6.0, np.inf, -np.inf, np.nan, 5.5, -5.5, -1e6, 7.0, -7.0, np.inf, -6.0, 0.0, 1.0, -3.0]); b = np.array([3.0, 3.0, np.inf, np.inf, 2.0, np.inf, -2.0, np.inf, 3.0, 0.0, -np.inf, -np.inf, -3.0, -1.0, 0.25, 1.5]); out = empty(16, fp32); n = 16
# check: out == np.where(np.isinf(b), a, np.fmod(a, b))
# tol: 0
#
# kernel: rem_kernel
# signature: *fp64, *fp64, *fp64, i32, 16
# grid: 1
# args: a = np.array([-6.0, -0.0, 6.0, np.inf, -np.inf, np.nan, 5.5, -5.5, -1e6, 7.0, -7.0, np.inf, -6.0, 0.0, 1.0, -3.0]); b = np.array([3.0, 3.0, np.inf, np.inf, 2.0, np.inf, -2.0, np.inf, 3.0, 0.0, -np.inf, -np.inf, -3.0, -1.0, 0.25, 1.5]); out = empty(16, fp64); n = 16
# check: out == np.where(np.isinf(b), a, np.fmod(a, b))
# tol: 0
#
# kernel: rem_kernel
# signature: *fp32, *fp32, *fp32, i32, 128
# grid: cdiv(n, 128)
# args: a = rand(n, fp32) * 1000; b = (rand(n, fp32) + 2) * randsign(n, fp32) * 4; out = empty(n, fp32); n = 3000
# check: out == np.fmod(a, b)
# tol: 1e-6
