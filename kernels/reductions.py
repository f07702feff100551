"""
Reductions: tl.sum, tl.max / tl.min (with indices), tl.argmax / tl.argmin,
tl.xor_sum and tl.reduce with @jit combine functions (one tile and tuples of
tiles), along axis 0, 1 and None, with keep_dims, as functions and as tensor
methods. The blocks vary num_warps so that rows are reduced within a thread,
across lanes, across warps, and with several registers per thread along the
axis (rows longer than one warp and than the whole CTA). tl.histogram counts
values in [0, BINS) (others and masked-off elements are left out).
"""
import triton
import triton.language as tl


@triton.jit
def sum_2d_kernel(x_ptr, rows_ptr, cols_ptr, all_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    offs_m = tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    x = tl.load(x_ptr + offs_m[:, None] * N + offs_n[None, :], mask=mask, other=0)
    tl.store(rows_ptr + offs_m, tl.sum(x, axis=1), mask=offs_m < M)
    tl.store(cols_ptr + offs_n, x.sum(0), mask=offs_n < N)
    tl.store(all_ptr, tl.sum(x))


@triton.jit
def sum_bool_kernel(x_ptr, count_ptr, parity_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # a sum of bools counts them (int32); with dtype=tl.int1 it wraps, so it
    # is their parity (Triton's test_sum_dtype)
    offs_m = tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    x = tl.load(x_ptr + offs_m[:, None] * N + offs_n[None, :], mask=mask, other=0) != 0
    tl.store(count_ptr + offs_m, tl.sum(x, axis=1), mask=offs_m < M)
    tl.store(parity_ptr + offs_m, tl.sum(x, axis=1, dtype=tl.int1).to(tl.int32), mask=offs_m < M)


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # one long row per program: many registers per thread along the axis
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + pid * n + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr + pid, tl.sum(x, axis=0))


@triton.jit
def minmax_kernel(x_ptr, vmax_ptr, imax_ptr, vmin_ptr, imin_ptr, amax_ptr, amin_ptr, mx_ptr,
                  M: tl.constexpr, N: tl.constexpr):
    offs_m = tl.arange(0, M)
    offs_n = tl.arange(0, N)
    x = tl.load(x_ptr + offs_m[:, None] * N + offs_n[None, :])
    vmax, imax = tl.max(x, axis=1, return_indices=True)
    vmin, imin = x.min(1, return_indices=True)
    tl.store(vmax_ptr + offs_m, vmax)
    tl.store(imax_ptr + offs_m, imax)
    tl.store(vmin_ptr + offs_m, vmin)
    tl.store(imin_ptr + offs_m, imin)
    tl.store(amax_ptr + offs_n, tl.argmax(x, axis=0))
    tl.store(amin_ptr + offs_n, x.argmin(0))
    tl.store(mx_ptr, tl.max(x))


@triton.jit
def argmax_all_kernel(x_ptr, out_ptr, M: tl.constexpr, N: tl.constexpr):
    offs_m = tl.arange(0, M)
    offs_n = tl.arange(0, N)
    x = tl.load(x_ptr + offs_m[:, None] * N + offs_n[None, :])
    # axis=None: the flat index, ties to the first
    v, i = tl.min(x, axis=None, return_indices=True)
    tl.store(out_ptr, i)


@triton.jit
def int_reduce_kernel(x_ptr, xor_ptr, xall_ptr, max_ptr, M: tl.constexpr, N: tl.constexpr):
    offs_m = tl.arange(0, M)
    offs_n = tl.arange(0, N)
    x = tl.load(x_ptr + offs_m[:, None] * N + offs_n[None, :])
    tl.store(xor_ptr + offs_m, tl.xor_sum(x, axis=1))
    tl.store(xall_ptr, x.xor_sum())
    tl.store(max_ptr + offs_n, tl.max(x, axis=0))


@triton.jit
def pick_larger(v1, i1, v2, i2):
    # an argmax written by hand: ties keep the lower index
    gt = (v1 > v2) | ((v1 == v2) & (i1 < i2))
    return tl.where(gt, v1, v2), tl.where(gt, i1, i2)


@triton.jit
def add_and_max(a0, a1, b0, b1):
    return a0 + b0, tl.maximum(a1, b1)


@triton.jit
def add_combine(a, b):
    return a + b


@triton.jit
def custom_reduce_kernel(x_ptr, y_ptr, idx_ptr, s_ptr, m_ptr, t_ptr, M: tl.constexpr, N: tl.constexpr):
    offs_m = tl.arange(0, M)
    offs_n = tl.arange(0, N)
    x = tl.load(x_ptr + offs_m[:, None] * N + offs_n[None, :])
    y = tl.load(y_ptr + offs_m[:, None] * N + offs_n[None, :])
    cols = offs_n[None, :] + 0 * offs_m[:, None]
    _, idx = tl.reduce((x, cols), 1, pick_larger)
    tl.store(idx_ptr + offs_m, idx)
    s, m = tl.reduce((x, y), axis=0, combine_fn=add_and_max)
    tl.store(s_ptr + offs_n, s)
    tl.store(m_ptr + offs_n, m)
    tl.store(t_ptr, x.reduce(None, add_combine))


@triton.jit
def keep_dims_kernel(x_ptr, out_ptr, tot_ptr, M: tl.constexpr, N: tl.constexpr):
    offs_m = tl.arange(0, M)
    offs_n = tl.arange(0, N)
    ptrs = offs_m[:, None] * N + offs_n[None, :]
    x = tl.load(x_ptr + ptrs)
    centered = x - tl.max(x, axis=1, keep_dims=True)
    tl.store(out_ptr + ptrs, centered / tl.sum(tl.exp(centered), 1)[:, None])
    t = tl.sum(x, axis=None, keep_dims=True)
    tl.store(tot_ptr + offs_m[:, None] * 0 + offs_n[None, :] * 0, t, mask=(offs_m[:, None] == 0) & (offs_n[None, :] == 0))


@triton.jit
def first_zero(v1, i1, s1, v2, i2, s2):
    # the zero with the lowest index (any order of combination finds it),
    # and a sum that weighs its left side by 1 + 2^-22: not commutative bit
    # for bit, so the (lower, upper) order and the layout's tree show in
    # the last bits, which the simulator must reproduce exactly
    z = tl.where(v1 == 0, i1, i1 + 65536) < tl.where(v2 == 0, i2, i2 + 65536)
    return tl.where(z, v1, v2), tl.where(z, i1, i2), s1 * 1.0000002 + s2


@triton.jit
def first_zero_kernel(x_ptr, y_ptr, idx_ptr, sum_ptr, n, BLOCK: tl.constexpr):
    # one row per program, across every warp: a non-commutative combine
    # through the cross-warp step
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + pid * n + offs, mask=offs < n, other=0)
    y = tl.load(y_ptr + pid * n + offs, mask=offs < n, other=0.0)
    _, i, s = tl.reduce((x, offs, y), 0, first_zero)
    tl.store(idx_ptr + pid, i)
    tl.store(sum_ptr + pid, s)

# float sums: positive inputs, so no cancellation leaves a total whose last
# bits (the order the layout gives) dominate it
# kernel: sum_2d_kernel
# signature: *fp32, *fp32, *fp32, *fp32, i32, i32, 64, 32
# grid: 1
# args: x = rand((M, N), fp32) + 1.25; rows = empty(M, fp32); cols = empty(N, fp32); tot = empty(1, fp32); M = 60; N = 32
# check: rows == x.reshape(M, N).sum(axis=1); cols == x.reshape(M, N).sum(axis=0); tot == x.sum().reshape(1)
# tol: 1e-5
# triton_identical: rows cols
#
# fp16 sums stay fp16 (as Triton's tl.sum): positive inputs, as above
# kernel: sum_2d_kernel
# signature: *fp16, *fp16, *fp16, *fp16, i32, i32, 16, 64
# num_warps: 8
# grid: 1
# args: x = rand((M, N), fp16) + 1.25; rows = empty(M, fp16); cols = empty(N, fp16); tot = empty(1, fp16); M = 16; N = 50
# check: rows == x.reshape(M, N).sum(axis=1); cols == x.reshape(M, N).sum(axis=0); tot == x.sum().reshape(1)
# tol: 2e-2
# triton_identical: rows cols
#
# kernel: sum_2d_kernel
# signature: *i8, *i32, *i32, *i32, i32, i32, 32, 128
# num_warps: 1
# grid: 1
# args: x = randint(-128, 128, (M, N), i8); rows = empty(32, i32); cols = empty(128, i32); tot = empty(1, i32); M = 32; N = 128
# check: rows == x.reshape(M, N).sum(axis=1); cols == x.reshape(M, N).sum(axis=0); tot == x.sum().reshape(1)
# tol: 0
# triton_identical: rows cols
#
# kernel: sum_2d_kernel
# signature: *i32, *i32, *i32, *i32, i32, i32, 128, 16
# num_warps: 4
# grid: 1
# args: x = randint(-1000, 1000, (M, N), i32); rows = empty(M, i32); cols = empty(N, i32); tot = empty(1, i32); M = 100; N = 16
# check: rows == x.reshape(M, N).sum(axis=1); cols == x.reshape(M, N).sum(axis=0); tot == x.sum().reshape(1)
# tol: 0
# triton_identical: rows cols
#
# kernel: sum_bool_kernel
# signature: *i8, *i32, *i32, i32, i32, 32, 64
# num_warps: 2
# grid: 1
# args: x = randint(0, 2, (M, N), i8); count = empty(M, i32); parity = empty(M, i32); M = 30; N = 61
# check: count == x.reshape(M, N).sum(axis=1); parity == x.reshape(M, N).sum(axis=1) % 2
# tol: 0
# triton_identical: count parity
#
# kernel: row_sum_kernel
# signature: *fp32, *fp32, i32, 8192
# num_warps: 8
# grid: 3
# args: x = randn((3, n), fp32); out = empty(3, fp32); n = 8000
# check: out == x.reshape(3, n).sum(axis=1)
# tol: 1e-5
# triton_identical: out
#
# kernel: row_sum_kernel
# signature: *fp32, *fp32, i32, 2048
# num_warps: 1
# grid: 2
# args: x = randn((2, n), fp32); out = empty(2, fp32); n = 2048
# check: out == x.reshape(2, n).sum(axis=1)
# tol: 1e-5
# triton_identical: out
#
# kernel: row_sum_kernel
# signature: *fp32, *fp32, i32, 32
# num_warps: 8
# grid: 5
# args: x = randn((5, n), fp32); out = empty(5, fp32); n = 20
# check: out == x.reshape(5, n).sum(axis=1)
# tol: 1e-5
# triton_identical: out
#
# kernel: minmax_kernel
# signature: *fp32, *fp32, *i32, *fp32, *i32, *i32, *i32, *fp32, 16, 64
# num_warps: 4
# grid: 1
# args: x = randint(0, 5, (16, 64), fp32); vmax = empty(16, fp32); imax = empty(16, i32); vmin = empty(16, fp32); imin = empty(16, i32); amax = empty(64, i32); amin = empty(64, i32); mx = empty(1, fp32)
# check: vmax == x.max(axis=1); imax == x.argmax(axis=1); vmin == x.min(axis=1); imin == x.argmin(axis=1); amax == x.argmax(axis=0); amin == x.argmin(axis=0); mx == x.max().reshape(1)
# tol: 0
#
# kernel: minmax_kernel
# signature: *fp16, *fp16, *i32, *fp16, *i32, *i32, *i32, *fp16, 64, 256
# num_warps: 8
# grid: 1
# args: x = randn((64, 256), fp16); vmax = empty(64, fp16); imax = empty(64, i32); vmin = empty(64, fp16); imin = empty(64, i32); amax = empty(256, i32); amin = empty(256, i32); mx = empty(1, fp16)
# check: vmax == x.max(axis=1); imax == x.argmax(axis=1); vmin == x.min(axis=1); imin == x.argmin(axis=1); amax == x.argmax(axis=0); amin == x.argmin(axis=0); mx == x.max().reshape(1)
# tol: 0
#
# kernel: minmax_kernel
# signature: *i8, *i8, *i32, *i8, *i32, *i32, *i32, *i8, 8, 32
# num_warps: 2
# grid: 1
# args: x = randint(-3, 3, (8, 32), i8); vmax = empty(8, i8); imax = empty(8, i32); vmin = empty(8, i8); imin = empty(8, i32); amax = empty(32, i32); amin = empty(32, i32); mx = empty(1, i8)
# check: vmax == x.max(axis=1); imax == x.argmax(axis=1); vmin == x.min(axis=1); imin == x.argmin(axis=1); amax == x.argmax(axis=0); amin == x.argmin(axis=0); mx == x.max().reshape(1)
# tol: 0
#
# kernel: argmax_all_kernel
# signature: *fp32, *i32, 32, 64
# num_warps: 4
# grid: 1
# args: x = randint(0, 3, (32, 64), fp32); out = empty(1, i32)
# check: out == np.array([x.argmin()])
# tol: 0
#
# kernel: int_reduce_kernel
# signature: *i32, *i32, *i32, *i32, 64, 64
# num_warps: 4
# grid: 1
# args: x = randint(-100000, 100000, (64, 64), i32); xr = empty(64, i32); xa = empty(1, i32); mx = empty(64, i32)
# check: xr == np.bitwise_xor.reduce(x, axis=1); xa == np.array([np.bitwise_xor.reduce(x.reshape(-1))]); mx == x.max(axis=0)
# tol: 0
#
# kernel: int_reduce_kernel
# signature: *u8, *u8, *u8, *i32, 16, 128
# num_warps: 8
# grid: 1
# args: x = randint(0, 256, (16, 128), u8); xr = empty(16, u8); xa = empty(1, u8); mx = empty(128, i32)
# check: xr == np.bitwise_xor.reduce(x, axis=1); xa == np.array([np.bitwise_xor.reduce(x.reshape(-1))]); mx == x.max(axis=0)
# tol: 0
#
# kernel: custom_reduce_kernel
# signature: *fp32, *fp32, *i32, *fp32, *fp32, *fp32, 32, 128
# num_warps: 4
# grid: 1
# args: x = randint(0, 4, (32, 128), fp32); y = rand((32, 128), fp32); idx = empty(32, i32); s = empty(128, fp32); m = empty(128, fp32); t = empty(1, fp32)
# check: idx == x.argmax(axis=1); s == x.sum(axis=0); m == y.max(axis=0); t == x.sum().reshape(1)
# tol: s: 1e-6; m: 0; t: 1e-6
#
# kernel: custom_reduce_kernel
# signature: *fp32, *fp32, *i32, *fp32, *fp32, *fp32, 4, 512
# num_warps: 8
# grid: 1
# args: x = randint(0, 4, (4, 512), fp32); y = rand((4, 512), fp32); idx = empty(4, i32); s = empty(512, fp32); m = empty(512, fp32); t = empty(1, fp32)
# check: idx == x.argmax(axis=1); s == x.sum(axis=0); m == y.max(axis=0); t == x.sum().reshape(1)
# tol: s: 1e-6; m: 0; t: 1e-6
#
# a positive mean, so the total does not cancel (softmax does not care)
# kernel: keep_dims_kernel
# signature: *fp32, *fp32, *fp32, 32, 64
# num_warps: 4
# grid: 1
# args: x = randn((32, 64), fp32) + 2; out = empty((32, 64), fp32); tot = empty(1, fp32)
# check: out == (x - x.max(axis=1, keepdims=True)) / np.exp(x - x.max(axis=1, keepdims=True)).sum(axis=1, keepdims=True); tot == x.sum().reshape(1)
# tol: out: 1e-5; tot: 1e-5
#
# first zeros spread over the row (about one in 1000), so the winning
# partial comes from any warp; a row without one ends at n (the masked
# tail's zeros) in the first block, at its lowest index 0 in the second
# kernel: first_zero_kernel
# signature: *i32, *fp32, *i32, *fp32, i32, 4096
# num_warps: 16
# grid: 3
# args: x = randint(0, 1000, (3, n), i32); y = rand((3, n), fp32) + 1.25; idx = empty(3, i32); s = empty(3, fp32); n = 4000
# check: idx == np.where((x.reshape(3, n) == 0).any(axis=1), (x.reshape(3, n) == 0).argmax(axis=1), n); s == y.reshape(3, n).sum(axis=1)
# tol: idx: 0; s: 1e-5
#
# kernel: first_zero_kernel
# signature: *i32, *fp32, *i32, *fp32, i32, 2048
# num_warps: 8
# grid: 4
# args: x = randint(0, 700, (4, n), i32); y = rand((4, n), fp32) + 1.25; idx = empty(4, i32); s = empty(4, fp32); n = 2048
# check: idx == np.where((x.reshape(4, n) == 0).any(axis=1), (x.reshape(4, n) == 0).argmax(axis=1), 0); s == y.reshape(4, n).sum(axis=1)
# tol: idx: 0; s: 1e-5


@triton.jit
def tl_histogram_kernel(x_ptr, h_ptr, hm_ptr, n, M: tl.constexpr, BINS: tl.constexpr):
    offs = tl.arange(0, M)
    x = tl.load(x_ptr + offs, mask=offs < n, other=-1)   # -1 and values past BINS are not counted
    tl.store(h_ptr + tl.arange(0, BINS), tl.histogram(x, BINS))
    tl.store(hm_ptr + tl.arange(0, BINS), tl.histogram(x, BINS, mask=(offs % 3) != 0))


# kernel: tl_histogram_kernel
# signature: *i32, *i32, *i32, i32, 1024, 32
# grid: (1, 1, 1)
# args: x = randint(-4, 40, 1024, i32); h = empty(32, i32); hm = empty(32, i32); n = 1000
# check: h == np.bincount(np.where((x >= 0) & (x < 32) & (np.arange(1024) < n), x, 32), minlength=33)[:32]; hm == np.bincount(np.where((x >= 0) & (x < 32) & (np.arange(1024) < n) & (np.arange(1024) % 3 != 0), x, 32), minlength=33)[:32]
# tol: 0
# triton_differs: h hm -- Triton 3.6 counts values outside [0, BINS) too (its interpreter and its later lowering leave them out, as tric)
#
# kernel: tl_histogram_kernel
# signature: *i16, *i32, *i32, i32, 64, 512
# num_warps: 8
# grid: (1, 1, 1)
# args: x = randint(0, 512, 64, i16); h = empty(512, i32); hm = empty(512, i32); n = 64
# check: h == np.bincount(x, minlength=512); hm == np.bincount(np.where(np.arange(64) % 3 != 0, x, 512), minlength=513)[:512]
# tol: 0
