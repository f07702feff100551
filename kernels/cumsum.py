"""
Scans: tl.cumsum and tl.cumprod (forward and reverse, as functions and as
tensor methods, with cumsum's widening of small integers) and
tl.associative_scan with a @jit combine over a tuple of tiles: the
first-order linear recurrence h[i] = a[i] * h[i - 1] + b[i] as a scan over
(a, b) pairs. Rows shorter than a warp, longer than a warp and longer than
the whole CTA; 2-D tiles scanned along both axes; num_warps 1, 4 and 8.
"""
import triton
import triton.language as tl


@triton.jit
def cumsum_rows_kernel(x_ptr, out_ptr, n_rows, n_cols, BLOCK: tl.constexpr):
    # one row per program, like torch.cumsum(x, dim=1)
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = (offs < n_cols) & (row < n_rows)
    x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=0)
    tl.store(out_ptr + row * n_cols + offs, tl.cumsum(x, axis=0), mask=mask)


@triton.jit
def scan_variants_kernel(x_ptr, i_ptr, rsum_ptr, prod_ptr, rprod_ptr, isum_ptr, irsum_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    x1 = tl.load(x_ptr + offs, mask=mask, other=1.0)
    xi = tl.load(i_ptr + offs, mask=mask, other=0)
    tl.store(rsum_ptr + offs, x.cumsum(0, reverse=True), mask=mask)
    tl.store(prod_ptr + offs, tl.cumprod(x1, 0), mask=mask)
    tl.store(rprod_ptr + offs, x1.cumprod(axis=0, reverse=True), mask=mask)
    # int8 input: the sums are int32
    tl.store(isum_ptr + offs, tl.cumsum(xi), mask=mask)
    tl.store(irsum_ptr + offs, tl.cumsum(xi, reverse=True), mask=mask)


@triton.jit
def _linear_combine(a1, b1, a2, b2):
    # (a1, b1) then (a2, b2): h -> a2 * (a1 * h + b1) + b2
    return a1 * a2, b1 * a2 + b2


@triton.jit
def recurrence_kernel(a_ptr, b_ptr, h_ptr, hr_ptr, N: tl.constexpr, REVERSE_TOO: tl.constexpr):
    row = tl.program_id(0)
    offs = row * N + tl.arange(0, N)
    a = tl.load(a_ptr + offs)
    b = tl.load(b_ptr + offs)
    _, h = tl.associative_scan((a, b), 0, _linear_combine)
    tl.store(h_ptr + offs, h)
    if REVERSE_TOO:
        _, hr = tl.associative_scan((a, b), axis=0, combine_fn=_linear_combine, reverse=True)
        tl.store(hr_ptr + offs, hr)


@triton.jit
def cumsum_2d_kernel(x_ptr, down_ptr, across_ptr, rdown_ptr, M: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    x = tl.load(x_ptr + offs)
    tl.store(down_ptr + offs, tl.cumsum(x, axis=0))
    tl.store(across_ptr + offs, x.cumsum(1))
    tl.store(rdown_ptr + offs, tl.cumsum(x, axis=-2, reverse=True))


# kernel: cumsum_rows_kernel
# signature: *fp32:16, *fp32:16, i32, i32:16, 4096
# num_warps: 4
# grid: n_rows
# args: x = randn((n_rows, n_cols), fp32); out = empty((n_rows, n_cols), fp32); n_rows = 2; n_cols = 4000
# bench_args: x = randn((n_rows, n_cols), fp32); out = empty((n_rows, n_cols), fp32); n_rows = 4096; n_cols = 4096
# torch: out = torch.cumsum(x, dim=1)
# check: out == np.cumsum(x.reshape(n_rows, n_cols), axis=1)
# tol: 1e-4
#
# kernel: cumsum_rows_kernel
# signature: *i32, *i32, i32, i32, 256
# num_warps: 8
# grid: n_rows
# args: x = randint(-1000, 1000, (n_rows, n_cols), i32); out = empty((n_rows, n_cols), i32); n_rows = 3; n_cols = 200
# check: out == np.cumsum(x.reshape(n_rows, n_cols), axis=1)
# tol: 0
#
# kernel: cumsum_rows_kernel
# signature: *fp32, *fp32, i32, i32, 16
# num_warps: 1
# grid: n_rows
# args: x = randn((n_rows, n_cols), fp32); out = empty((n_rows, n_cols), fp32); n_rows = 4; n_cols = 13
# check: out == np.cumsum(x.reshape(n_rows, n_cols), axis=1)
# tol: 1e-5
#
# kernel: scan_variants_kernel
# signature: *fp32, *i8, *fp32, *fp32, *fp32, *i32, *i32, i32, 1024
# num_warps: 4
# grid: 1
# args: x = rand(n, fp32) * 0.02 + 1; xi = randint(-128, 128, n, i8); rsum = empty(n, fp32); prod = empty(n, fp32); rprod = empty(n, fp32); isum = empty(n, i32); irsum = empty(n, i32); n = 1000
# check: rsum == np.flip(np.cumsum(np.flip(x))); prod == np.cumprod(x); rprod == np.flip(np.cumprod(np.flip(x))); isum == np.cumsum(xi); irsum == np.flip(np.cumsum(np.flip(xi)))
# tol: 1e-4
#
# kernel: scan_variants_kernel
# signature: *fp32, *i8, *fp32, *fp32, *fp32, *i32, *i32, i32, 64
# num_warps: 8
# grid: 1
# args: x = rand(n, fp32) * 0.5 + 1; xi = randint(-128, 128, n, i8); rsum = empty(n, fp32); prod = empty(n, fp32); rprod = empty(n, fp32); isum = empty(n, i32); irsum = empty(n, i32); n = 50
# check: rsum == np.flip(np.cumsum(np.flip(x))); prod == np.cumprod(x); rprod == np.flip(np.cumprod(np.flip(x))); isum == np.cumsum(xi); irsum == np.flip(np.cumsum(np.flip(xi)))
# tol: 1e-5
#
# kernel: recurrence_kernel
# signature: *fp32, *fp32, *fp32, *fp32, 256, 1
# num_warps: 4
# grid: 3
# args: a = rand((3, 256), fp32) * 0.05 + 1; b = rand((3, 256), fp32); h = empty((3, 256), fp32); hr = empty((3, 256), fp32)
# check: h == np.cumprod(a, axis=1) * np.cumsum(b / np.cumprod(a, axis=1), axis=1); hr == np.flip(np.cumprod(np.flip(a, 1), axis=1) * np.cumsum(np.flip(b, 1) / np.cumprod(np.flip(a, 1), axis=1), axis=1), 1)
# tol: 1e-4
#
# kernel: recurrence_kernel
# signature: *fp32, *fp32, *fp32, *fp32, 32, 0
# num_warps: 1
# grid: 2
# args: a = rand((2, 32), fp32) * 0.5; b = rand((2, 32), fp32); h = empty((2, 32), fp32); hr = empty(1, fp32)
# check: h == np.cumprod(a, axis=1) * np.cumsum(b / np.cumprod(a, axis=1), axis=1)
# tol: 1e-3
#
# kernel: cumsum_2d_kernel
# signature: *fp32, *fp32, *fp32, *fp32, 64, 32
# num_warps: 4
# grid: 1
# args: x = randn((64, 32), fp32); down = empty((64, 32), fp32); across = empty((64, 32), fp32); rdown = empty((64, 32), fp32)
# check: down == np.cumsum(x, axis=0); across == np.cumsum(x, axis=1); rdown == np.flip(np.cumsum(np.flip(x, 0), axis=0), 0)
# tol: 1e-5
#
# kernel: cumsum_2d_kernel
# signature: *i32, *i32, *i32, *i32, 16, 128
# num_warps: 8
# grid: 1
# args: x = randint(-50, 50, (16, 128), i32); down = empty((16, 128), i32); across = empty((16, 128), i32); rdown = empty((16, 128), i32)
# check: down == np.cumsum(x, axis=0); across == np.cumsum(x, axis=1); rdown == np.flip(np.cumsum(np.flip(x, 0), axis=0), 0)
# tol: 0
#
# kernel: cumsum_2d_kernel
# signature: *fp32, *fp32, *fp32, *fp32, 8, 8
# num_warps: 1
# grid: 1
# args: x = randn((8, 8), fp32); down = empty((8, 8), fp32); across = empty((8, 8), fp32); rdown = empty((8, 8), fp32)
# check: down == np.cumsum(x, axis=0); across == np.cumsum(x, axis=1); rdown == np.flip(np.cumsum(np.flip(x, 0), axis=0), 0)
# tol: 1e-5


@triton.jit
def _add_combine(a, b):
    return a + b


@triton.jit
def scan_dtypes_kernel(h_ptr, p_ptr, b_ptr, l_ptr, s_ptr, c_ptr, m_ptr, hs_ptr, hp_ptr, ha_ptr, bs_ptr, ls_ptr,
                       lp_ptr, cs_ptr, crs_ptr, ms_ptr, N: tl.constexpr):
    # scans of narrow and wide inputs, as Triton types them: fp16 stays
    # fp16 (cumsum, cumprod, associative_scan), bf16 cumsum is fp32, i64
    # stays i64, i8 sums are i32 and bool sums u32 (int1 is unsigned)
    offs = tl.arange(0, N)
    h = tl.load(h_ptr + offs)
    b = tl.load(b_ptr + offs)
    l = tl.load(l_ptr + offs)
    c = tl.load(c_ptr + offs)
    m = tl.load(m_ptr + offs) != 0
    tl.store(hs_ptr + offs, tl.cumsum(h, 0))
    tl.store(hp_ptr + offs, tl.cumprod(tl.load(p_ptr + offs), 0))
    tl.store(ha_ptr + offs, tl.associative_scan(h, 0, _add_combine, reverse=True))
    tl.store(bs_ptr + offs, tl.cumsum(b, 0, reverse=True))
    tl.store(ls_ptr + offs, tl.cumsum(l, 0))
    tl.store(lp_ptr + offs, tl.cumprod(tl.load(s_ptr + offs), 0))
    tl.store(cs_ptr + offs, tl.cumsum(c, 0))
    tl.store(crs_ptr + offs, c.cumsum(0, reverse=True))
    tl.store(ms_ptr + offs, tl.cumsum(m, 0))

# kernel: scan_dtypes_kernel
# signature: *fp16, *fp16, *bf16, *i64, *i64, *i8, *i8, *fp16, *fp16, *fp16, *fp32, *i64, *i64, *i32, *i32, *i32, 256
# grid: 1
# args: h = rand(256, fp16); p = rand(256, fp16) * 0.05 + 1; b = rand(256, bf16); l = randint(-1099511627776, 1099511627776, 256, i64); s = randsign(256, i64); c = randint(-128, 128, 256, i8); m = randint(0, 2, 256, i8); hs = empty(256, fp16); hp = empty(256, fp16); ha = empty(256, fp16); bs = empty(256, fp32); ls = empty(256, i64); lp = empty(256, i64); cs = empty(256, i32); crs = empty(256, i32); ms = empty(256, i32)
# check: hs == np.cumsum(h); hp == np.cumprod(p); ha == np.flip(np.cumsum(np.flip(h))); bs == np.flip(np.cumsum(np.flip(b))); ls == np.cumsum(l); lp == np.cumprod(s); cs == np.cumsum(c); crs == np.flip(np.cumsum(np.flip(c))); ms == np.cumsum(m != 0)
# tol: hs: 2e-2; hp: 2e-2; ha: 2e-2; bs: 1e-5
