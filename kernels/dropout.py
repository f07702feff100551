"""
Seeded dropout, as in Triton's "low-memory dropout" tutorial: the keep mask
is not stored but regenerated from (seed, offset) with tl.rand, so the
backward pass (or a second run) gets the same mask from the seed alone.
Element i is kept when rand(seed, i) > p and scaled by 1 / (1 - p). The
mask is Triton's bit for bit: the reference recomputes Philox-4x32-10 with
check's philox() and Triton's uint -> float conversion in f32.
"""
import triton
import triton.language as tl


@triton.jit
def seeded_dropout_kernel(x_ptr, out_ptr, n, p, seed, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    r = tl.rand(seed, offs)
    keep = r > p
    out = tl.where(keep, x / (1 - p), 0.0)
    tl.store(out_ptr + offs, out, mask=mask)

# kernel: seeded_dropout_kernel
# signature: *fp32:16, *fp32:16, i32, fp32, i32, 1024
# grid: (cdiv(n, 1024), 1, 1)
# args: x = rand(n, fp32); out = empty(n, fp32); n = 5003; p = 0.375; seed = 123456789
# bench_args: x = rand(n, fp32); out = empty(n, fp32); n = 1 << 24; p = 0.375; seed = 123456789
# torch: out = F.dropout(x, p)
# check: out == np.where((np.where(philox(seed, np.arange(n), 0) < 2**31, philox(seed, np.arange(n), 0), 2**32 - 1 - philox(seed, np.arange(n), 0)).astype(np.float32) * 4.6566125955216364e-10).astype(np.float32) > p, x / (1 - p), 0)
# tol: 1e-6
