"""
Atomics: tl.atomic_add / max / min / and / or / xor / xchg / cas, on tiles
and scalars, with masks, sem= and scope=, as functions and as tensor methods.

On a GPU the programs, and the threads of one program, reach memory in no
fixed order (the interpreter runs them in grid order, the simulator thread
by thread), so every check here holds in any order: integer sums, max/min,
one address per element, float sums within a tolerance, and compare-and-swap
races counted by their winners.
"""
import triton
import triton.language as tl


@triton.jit
def histogram_kernel(x_ptr, hist_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    bins = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.atomic_add(hist_ptr + bins, 1, mask=mask)


@triton.jit
def histogram_relaxed_kernel(x_ptr, hist_ptr, hist2_ptr, n, BLOCK: tl.constexpr):
    # red (no result used; relaxed or release), every scope, a tensor method
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    bins = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.atomic_add(hist_ptr + bins, 1, mask=mask, sem="relaxed", scope="gpu")
    tl.atomic_add(hist_ptr + bins, 1, mask=mask, sem="release", scope="sys")
    (hist2_ptr + bins).atomic_add(1, mask=mask, sem="acquire", scope="cta")


@triton.jit
def float_sum_kernel(x_ptr, t1_ptr, t2_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    # every element into one address (positive values: the order of the
    # roundings moves the sum by a few eps only), and one scalar per program
    tl.atomic_add(t1_ptr + tl.zeros_like(offs), x, mask=mask)
    tl.atomic_add(t2_ptr, tl.load(x_ptr + tl.program_id(0)))


@triton.jit
def float_add_kernel(a_ptr, x_ptr, old_ptr, n, BLOCK: tl.constexpr):
    # one address per element: the old values come back
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    old = tl.atomic_add(a_ptr + offs, x, mask=mask)
    tl.store(old_ptr + offs, old, mask=mask)


@triton.jit
def minmax_kernel(x_ptr, y_ptr, z_ptr, old_max_ptr, old_min_ptr, mx_ptr, mn_ptr, i_ptr, imx_ptr, imn_ptr, n,
                  BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    # floats of both signs, one address each (the old values back) ...
    old = tl.atomic_max(y_ptr + offs, x, mask=mask)
    tl.store(old_max_ptr + offs, old, mask=mask)
    old = tl.atomic_min(z_ptr + offs, x, mask=mask)
    tl.store(old_min_ptr + offs, old, mask=mask)
    # ... and all into one
    tl.atomic_max(mx_ptr + tl.zeros_like(offs), x, mask=mask)
    tl.atomic_min(mn_ptr + tl.zeros_like(offs), x, mask=mask)
    i = tl.load(i_ptr + offs, mask=mask, other=0)
    tl.atomic_max(imx_ptr + tl.zeros_like(offs), i, mask=mask)
    tl.atomic_min(imn_ptr + tl.zeros_like(offs), i, mask=mask)


@triton.jit
def bitwise_kernel(a_ptr, o_ptr, x_ptr, b_ptr, old_a_ptr, old_o_ptr, old_x_ptr, M: tl.constexpr, N: tl.constexpr):
    # a 2-D tile, one address per element
    offs = tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    b = tl.load(b_ptr + offs)
    tl.store(old_a_ptr + offs, tl.atomic_and(a_ptr + offs, b))
    tl.store(old_o_ptr + offs, tl.atomic_or(o_ptr + offs, b, sem="relaxed"))
    tl.store(old_x_ptr + offs, tl.atomic_xor(x_ptr + offs, b, scope="cta"))


@triton.jit
def xchg_kernel(a_ptr, b_ptr, old_ptr, BLOCK: tl.constexpr):
    # masked: where the mask is false nothing is written and the old value reads 0
    offs = tl.arange(0, BLOCK)
    b = tl.load(b_ptr + offs)
    old = tl.atomic_xchg(a_ptr + offs, b, mask=offs % 3 != 0)
    tl.store(old_ptr + offs, old)


@triton.jit
def first_writer_kernel(slot_ptr, count_ptr, N: tl.constexpr):
    # every program races for every slot; each slot has exactly one winner
    offs = tl.arange(0, N)
    old = tl.atomic_cas(slot_ptr + offs, tl.zeros_like(offs), tl.full((N,), 1, tl.int32))
    tl.atomic_add(count_ptr + offs, (old == 0).to(tl.int32))


@triton.jit
def ticket_kernel(counter_ptr, seen_ptr):
    # a scalar atomic whose old value every thread uses: each program draws
    # a distinct ticket, so every ticket is seen once
    t = tl.atomic_add(counter_ptr, 1)
    tl.atomic_add(seen_ptr + t, 1)


@triton.jit
def cas_swap_kernel(h_ptr, v_ptr, old_ptr, BLOCK: tl.constexpr):
    # 16-bit compare-and-swap: swapped where cmp holds the current value
    offs = tl.arange(0, BLOCK)
    cur = tl.load(h_ptr + offs)
    cmp = tl.where(offs % 2 == 0, cur, cur + 1.0)
    old = tl.atomic_cas(h_ptr + offs, cmp, tl.load(v_ptr + offs), sem="acq_rel")
    tl.store(old_ptr + offs, old)


@triton.jit
def spin_lock_kernel(lock_ptr, count_ptr):
    # a lock around a plain read-modify-write of a counter
    while tl.atomic_cas(lock_ptr, 0, 1, sem="acquire") == 1:
        pass
    c = tl.load(count_ptr, volatile=True)
    tl.store(count_ptr, c + 1)
    tl.debug_barrier()
    tl.atomic_xchg(lock_ptr, 0, sem="release")


# kernel: histogram_kernel
# signature: *i32, *i32, i32, 256
# grid: (cdiv(n, 256), 1, 1)
# args: x = randint(0, 32, n, i32); hist = zeros(32, i32); n = 1000
# check: hist == np.bincount(x, minlength=32)
# tol: 0
#
# kernel: histogram_kernel
# signature: *i32, *i32, i32, 64
# num_warps: 8
# grid: (cdiv(n, 64), 1, 1)
# args: x = randint(0, 32, n, i32); hist = zeros(32, i32); n = 999
# check: hist == np.bincount(x, minlength=32)
# tol: 0
#
# kernel: histogram_relaxed_kernel
# signature: *i32, *i32, *i32, i32, 128
# grid: (cdiv(n, 128), 1, 1)
# args: x = randint(0, 32, n, i32); hist = zeros(32, i32); hist2 = zeros(32, i32); n = 777
# check: hist == 2 * np.bincount(x, minlength=32); hist2 == np.bincount(x, minlength=32)
# tol: 0
#
# kernel: float_sum_kernel
# signature: *fp32, *fp32, *fp32, i32, 256
# grid: (cdiv(n, 256), 1, 1)
# args: x = rand(n, fp32) + 1; t1 = zeros(1, fp32); t2 = zeros(1, fp32); n = 3000
# check: t1 == x.sum().reshape(1); t2 == x[:12].sum().reshape(1)
# tol: t1: 1e-4; t2: 1e-5
#
# kernel: float_add_kernel
# signature: *fp32, *fp32, *fp32, i32, 128
# grid: (cdiv(n, 128), 1, 1)
# args: a = rand(n, fp32); x = rand(n, fp32); old = empty(n, fp32); n = 1000
# check: a == a + x; old == a
# tol: 1e-6
#
# kernel: float_add_kernel
# signature: *fp16, *fp16, *fp16, i32, 64
# num_warps: 4
# grid: (cdiv(n, 64), 1, 1)
# args: a = rand(n, fp16); x = rand(n, fp16); old = empty(n, fp16); n = 200
# check: a == a + x; old == a
# tol: 1e-3
#
# kernel: float_add_kernel
# signature: *fp64, *fp64, *fp64, i32, 256
# grid: (cdiv(n, 256), 1, 1)
# args: a = randn(n, fp64); x = randn(n, fp64); old = empty(n, fp64); n = 500
# check: a == a + x; old == a
# tol: 1e-15
#
# kernel: float_add_kernel
# signature: *i64, *i64, *i64, i32, 256
# grid: (cdiv(n, 256), 1, 1)
# args: a = randint(-1000000, 1000000, n, i64); x = randint(-1000000, 1000000, n, i64); old = empty(n, i64); n = 300
# check: a == a + x; old == a
# tol: 0
#
# kernel: minmax_kernel
# signature: *fp32, *fp32, *fp32, *fp32, *fp32, *fp32, *fp32, *i32, *i32, *i32, i32, 256
# grid: (cdiv(n, 256), 1, 1)
# args: x = rand(n, fp32); y = rand(n, fp32); z = rand(n, fp32); omax = empty(n, fp32); omin = empty(n, fp32); mx = full(1, -100, fp32); mn = full(1, 100, fp32); i = randint(-100000, 100000, n, i32); imx = full(1, -2147483648, i32); imn = full(1, 2147483647, i32); n = 1000
# check: y == np.maximum(x, y); z == np.minimum(x, z); omax == y; omin == z; mx == x.max().reshape(1); mn == x.min().reshape(1); imx == i.max().reshape(1); imn == i.min().reshape(1)
# tol: 0
#
# kernel: minmax_kernel
# signature: *fp64, *fp64, *fp64, *fp64, *fp64, *fp64, *fp64, *i64, *i64, *i64, i32, 64
# num_warps: 4
# grid: (cdiv(n, 64), 1, 1)
# args: x = randn(n, fp64); y = randn(n, fp64); z = randn(n, fp64); omax = empty(n, fp64); omin = empty(n, fp64); mx = full(1, -100, fp64); mn = full(1, 100, fp64); i = randint(-100000, 100000, n, i64); imx = full(1, -100000, i64); imn = full(1, 100000, i64); n = 300
# check: y == np.maximum(x, y); z == np.minimum(x, z); omax == y; omin == z; mx == x.max().reshape(1); mn == x.min().reshape(1); imx == i.max().reshape(1); imn == i.min().reshape(1)
# tol: 0
#
# kernel: bitwise_kernel
# signature: *i32, *i32, *i32, *i32, *i32, *i32, *i32, 16, 32
# grid: 1
# args: a = randint(-2147483648, 2147483647, (16, 32), i32); o = randint(-2147483648, 2147483647, (16, 32), i32); x = randint(-2147483648, 2147483647, (16, 32), i32); b = randint(-2147483648, 2147483647, (16, 32), i32); oa = empty((16, 32), i32); oo = empty((16, 32), i32); ox = empty((16, 32), i32)
# check: a == a & b; o == o | b; x == x ^ b; oa == a; oo == o; ox == x
# tol: 0
#
# kernel: bitwise_kernel
# signature: *u64, *u64, *u64, *u64, *u64, *u64, *u64, 4, 8
# num_warps: 2
# grid: 1
# args: a = randint(0, 1000000000, (4, 8), u64); o = randint(0, 1000000000, (4, 8), u64); x = randint(0, 1000000000, (4, 8), u64); b = randint(0, 1000000000, (4, 8), u64); oa = empty((4, 8), u64); oo = empty((4, 8), u64); ox = empty((4, 8), u64)
# check: a == a.astype(np.int64) & b.astype(np.int64); o == o.astype(np.int64) | b.astype(np.int64); x == x.astype(np.int64) ^ b.astype(np.int64); oa == a; oo == o; ox == x
# tol: 0
#
# kernel: xchg_kernel
# signature: *fp32, *fp32, *fp32, 64
# grid: 1
# args: a = rand(64, fp32); b = rand(64, fp32); old = empty(64, fp32)
# check: a == np.where(np.arange(64) % 3 != 0, b, a); old == np.where(np.arange(64) % 3 != 0, a, 0)
# tol: 0
#
# kernel: xchg_kernel
# signature: *i64, *i64, *i64, 512
# num_warps: 2
# grid: 1
# args: a = randint(-1000, 1000, 512, i64); b = randint(-1000, 1000, 512, i64); old = empty(512, i64)
# check: a == np.where(np.arange(512) % 3 != 0, b, a); old == np.where(np.arange(512) % 3 != 0, a, 0)
# tol: 0
#
# kernel: first_writer_kernel
# signature: *i32, *i32, 256
# grid: 37
# args: slot = zeros(256, i32); count = zeros(256, i32)
# check: slot == np.where(np.arange(256) >= 0, 1, 0); count == np.where(np.arange(256) >= 0, 1, 0)
# tol: 0
#
# kernel: first_writer_kernel
# signature: *i32, *i32, 32
# num_warps: 4
# grid: 5
# args: slot = zeros(32, i32); count = zeros(32, i32)
# check: slot == np.where(np.arange(32) >= 0, 1, 0); count == np.where(np.arange(32) >= 0, 1, 0)
# tol: 0
#
# kernel: ticket_kernel
# signature: *i32, *i32
# grid: 50
# args: counter = zeros(1, i32); seen = zeros(50, i32)
# check: counter == np.where(np.arange(1) >= 0, 50, 0); seen == np.where(np.arange(50) >= 0, 1, 0)
# tol: 0
#
# kernel: cas_swap_kernel
# signature: *fp16, *fp16, *fp16, 64
# grid: 1
# args: h = rand(64, fp16); v = rand(64, fp16); old = empty(64, fp16)
# check: h == np.where(np.arange(64) % 2 == 0, v, h); old == h
# tol: 0
#
# kernel: cas_swap_kernel
# signature: *fp64, *fp64, *fp64, 256
# grid: 1
# args: h = rand(256, fp64); v = rand(256, fp64); old = empty(256, fp64)
# check: h == np.where(np.arange(256) % 2 == 0, v, h); old == h
# tol: 0
#
# kernel: spin_lock_kernel
# signature: *i32, *i32
# grid: 64
# args: lock = zeros(1, i32); count = zeros(1, i32)
# check: lock == np.where(np.arange(1) >= 0, 0, 1); count == np.where(np.arange(1) >= 0, 64, 0)
# tol: 0
