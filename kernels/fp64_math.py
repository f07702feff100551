"""
fp64 exp, exp2, log and log2. PTX has only f32 approximations of these;
tric writes them out in f64 (ir/mathfn_op.c's programs: range reduction,
minimax polynomials, about 0.6 ulp). The ranges cover nearly the whole double range.

The check compares ||out - ref|| / ||ref||, which the largest values
dominate, so the second block multiplies each exp result by a power of
two (exact) that brings it near 1: then every element weighs alike. The
special-value kernel maps inf to 7, -inf to -7 and NaN to 9 so that the
check sees them (exp2 gets x / ln 2 there, so no finite result is huge).
"""
import triton
import triton.language as tl


@triton.jit
def exp_kernel(x_ptr, s_ptr, y_ptr, t_ptr, e_ptr, e2_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    s = tl.load(s_ptr + offs, mask=mask, other=1.0)
    y = tl.load(y_ptr + offs, mask=mask, other=0.0)
    t = tl.load(t_ptr + offs, mask=mask, other=1.0)
    tl.store(e_ptr + offs, tl.exp(x) * s, mask=mask)
    tl.store(e2_ptr + offs, tl.exp2(y) * t, mask=mask)


@triton.jit
def log_kernel(x_ptr, l_ptr, l2_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    tl.store(l_ptr + offs, tl.log(x), mask=mask)
    tl.store(l2_ptr + offs, tl.log2(x), mask=mask)


@triton.jit
def code(v):
    # inf -> 7, -inf -> -7, NaN -> 9 (no input here gives a finite |v| > 1e308)
    c = tl.where(v > 1.0e308, 7.0, v)
    c = tl.where(v < -1.0e308, -7.0, c)
    return tl.where(v != v, 9.0, c)


@triton.jit
def special_kernel(x_ptr, y_ptr, e_ptr, e2_ptr, l_ptr, l2_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.load(y_ptr + offs, mask=mask, other=0.0)
    tl.store(e_ptr + offs, code(tl.exp(x)), mask=mask)
    tl.store(e2_ptr + offs, code(tl.exp2(y)), mask=mask)
    tl.store(l_ptr + offs, code(tl.log(x)), mask=mask)
    tl.store(l2_ptr + offs, code(tl.log2(x)), mask=mask)

# kernel: exp_kernel
# signature: *fp64:16, *fp64:16, *fp64:16, *fp64:16, *fp64:16, *fp64:16, i32, 256
# grid: (cdiv(n, 256), 1, 1)
# args: x = rand(n, fp64) * 708; s = ones(n, fp64); y = rand(n, fp64) * 1020; t = ones(n, fp64); e = empty(n, fp64); e2 = empty(n, fp64); n = 20000
# bench_args: x = rand(n, fp64) * 708; s = ones(n, fp64); y = rand(n, fp64) * 1020; t = ones(n, fp64); e = empty(n, fp64); e2 = empty(n, fp64); n = 1 << 23
# torch: e = torch.exp(x) * s; e2 = torch.exp2(y) * t
# check: e == np.exp(x); e2 == np.exp2(y)
# tol: 1e-15

# kernel: exp_kernel
# signature: *fp64:16, *fp64:16, *fp64:16, *fp64:16, *fp64:16, *fp64:16, i32, 256
# grid: (cdiv(n, 256), 1, 1)
# args: x = rand(n, fp64) * 708; s = np.ldexp(1.0, -np.rint(x / np.log(2)).astype(np.int64)); y = rand(n, fp64) * 1020; t = np.ldexp(1.0, -np.rint(y).astype(np.int64)); e = empty(n, fp64); e2 = empty(n, fp64); n = 20000
# check: e == np.exp(x) * s; e2 == np.exp2(y) * t
# tol: 1e-15

# kernel: exp_kernel
# signature: *fp64:16, *fp64:16, *fp64:16, *fp64:16, *fp64:16, *fp64:16, i32, 256
# grid: (cdiv(n, 256), 1, 1)
# args: x = rand(n, fp64) * 0.5; s = ones(n, fp64); y = rand(n, fp64) * 0.5; t = ones(n, fp64); e = empty(n, fp64); e2 = empty(n, fp64); n = 5000
# check: e == np.exp(x); e2 == np.exp2(y)
# tol: 1e-15

# kernel: log_kernel
# signature: *fp64:16, *fp64:16, *fp64:16, i32, 256
# grid: (cdiv(n, 256), 1, 1)
# args: x = np.exp(rand(n, fp64) * 700); l = empty(n, fp64); l2 = empty(n, fp64); n = 20000
# bench_args: x = np.exp(rand(n, fp64) * 700); l = empty(n, fp64); l2 = empty(n, fp64); n = 1 << 24
# torch: l = torch.log(x); l2 = torch.log2(x)
# check: l == np.log(x); l2 == np.log2(x)
# tol: 1e-15

# kernel: log_kernel
# signature: *fp64:16, *fp64:16, *fp64:16, i32, 256
# grid: (cdiv(n, 256), 1, 1)
# args: x = np.exp2(rand(n, fp64) * 1023); l = empty(n, fp64); l2 = empty(n, fp64); n = 20000
# check: l == np.log(x); l2 == np.log2(x)
# tol: 1e-15

# kernel: log_kernel
# signature: *fp64:16, *fp64:16, *fp64:16, i32, 256
# grid: (cdiv(n, 256), 1, 1)
# args: x = 1.0 + rand(n, fp64) * 0.4; l = empty(n, fp64); l2 = empty(n, fp64); n = 20000
# check: l == np.log(x); l2 == np.log2(x)
# tol: 1e-15

# kernel: log_kernel
# signature: *fp64:16, *fp64:16, *fp64:16, i32, 256
# grid: (cdiv(n, 256), 1, 1)
# args: x = (np.abs(rand(n, fp64)) + 1e-3) * 2.0 ** -1022; l = empty(n, fp64); l2 = empty(n, fp64); n = 5000
# check: l == np.log(x); l2 == np.log2(x)
# tol: 1e-15

# kernel: special_kernel
# signature: *fp64:16, *fp64:16, *fp64:16, *fp64:16, *fp64:16, *fp64:16, i32, 64
# grid: (1, 1, 1)
# args: x = np.array([0.0, -0.0, 1.0, -1.0, 2.0, 0.5, 709.8, 710.0, 1e300, -1e300, np.inf, -np.inf, np.nan, -745.0, -746.0, 1024.0, -1074.0, -1075.0, 5e-324, 2.0 ** -1022, 1.7976931348623157e308, -5e-324]); y = x / np.log(2); e = empty(22, fp64); e2 = empty(22, fp64); l = empty(22, fp64); l2 = empty(22, fp64); n = 22
# check: e == np.where(np.isposinf(np.exp(x)), 7.0, np.where(np.isnan(np.exp(x)), 9.0, np.exp(x))); e2 == np.where(np.isposinf(np.exp2(y)), 7.0, np.where(np.isnan(np.exp2(y)), 9.0, np.exp2(y))); l == np.where(np.isposinf(np.log(x)), 7.0, np.where(np.isneginf(np.log(x)), -7.0, np.where(np.isnan(np.log(x)), 9.0, np.log(x)))); l2 == np.where(np.isposinf(np.log2(x)), 7.0, np.where(np.isneginf(np.log2(x)), -7.0, np.where(np.isnan(np.log2(x)), 9.0, np.log2(x))))
# tol: 1e-15
