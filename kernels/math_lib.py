"""
The math library: tl.erf/floor/ceil/fma/sqrt_rn/div_rn/clamp, tl.math
spellings, and libdevice functions as real kernels import them
(`from triton.language.extra import libdevice`, the cuda module, and the
tl.extra.cuda.libdevice path). tric computes them itself (ir/mathfn.c:
fp32 in f64 then rounded once, fp64 within a few ulps; doc/math.md).

Blocks: GELU with tanh (the approximation) and with erf (exact), in fp32
and fp64; the transcendental functions over their domains; fp64 sin, cos,
tan (large arguments too), pow, hypot, powi; erfc and erfinv; rounding,
bit and test functions; conversions.
"""
import triton
import triton.language as tl
from triton.language.extra import libdevice
from triton.language.extra.cuda import libdevice as cuda_libdevice


@triton.jit
def gelu_tanh_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    # 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), as GPT-2's GELU
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    y = 0.5 * x * (1.0 + libdevice.tanh(inner))
    tl.store(y_ptr + offs, y, mask=mask)


@triton.jit
def gelu_erf_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = 0.5 * x * (1.0 + tl.erf(x * 0.7071067811865476))
    tl.store(y_ptr + offs, y, mask=mask)


@triton.jit
def transcendental_kernel(x_ptr, a_ptr, b_ptr, c_ptr, d_ptr, e_ptr, f_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.5)
    ax = tl.abs(x)
    tl.store(a_ptr + offs, libdevice.expm1(x) + libdevice.log1p(ax) + cuda_libdevice.log10(ax + 1.0), mask=mask)
    tl.store(b_ptr + offs, libdevice.sinh(x) + libdevice.cosh(x) + libdevice.atan(x * 3.0), mask=mask)
    tl.store(c_ptr + offs, libdevice.asin(x) + libdevice.acos(x) + libdevice.atan2(x, ax + 0.25), mask=mask)
    tl.store(d_ptr + offs, libdevice.asinh(x * 10.0) + libdevice.acosh(ax + 1.5) + libdevice.atanh(x * 0.9), mask=mask)
    tl.store(e_ptr + offs, libdevice.pow(ax + 0.5, x * 4.0) + libdevice.cbrt(x * 100.0) + libdevice.exp10(x), mask=mask)
    tl.store(f_ptr + offs, tl.extra.cuda.libdevice.erf(x * 2.0) + libdevice.exp(x) + libdevice.hypot(x, 0.5), mask=mask)


@triton.jit
def transcendental64_kernel(x_ptr, a_ptr, b_ptr, c_ptr, d_ptr, e_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.5)
    ax = tl.abs(x)
    tl.store(a_ptr + offs, libdevice.expm1(x) + libdevice.log1p(ax) + libdevice.log10(ax + 1.0), mask=mask)
    tl.store(b_ptr + offs, libdevice.sinh(x) + libdevice.cosh(x) + libdevice.atan(x * 3.0), mask=mask)
    tl.store(c_ptr + offs, libdevice.asin(x) + libdevice.acos(x) + libdevice.atan2(x, ax + 0.25), mask=mask)
    tl.store(d_ptr + offs, libdevice.tanh(x * 5.0) + tl.math.erf(x * 3.0) + libdevice.cbrt(x * 100.0), mask=mask)
    tl.store(e_ptr + offs, libdevice.asinh(x * 10.0) + libdevice.acosh(ax + 1.5) + libdevice.atanh(x * 0.9), mask=mask)


@triton.jit
def trig64_kernel(x_ptr, a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.5)
    ax = tl.abs(x)
    # fp64 sin/cos/tan: Payne-Hanek reduction, so x * 1e6 and 1e300 too
    tl.store(a_ptr + offs, tl.sin(x * 100.0) + tl.cos(x * 1e6) + libdevice.sin(x * 1e300) + libdevice.cos(x), mask=mask)
    tl.store(b_ptr + offs, libdevice.tan(x * 1.5) + tl.math.sin(x) + cuda_libdevice.cos(x * 3.0), mask=mask)
    tl.store(c_ptr + offs, libdevice.pow(ax + 0.5, x * 40.0) + libdevice.hypot(x * 1e200, 3e199) * 1e-200 + libdevice.powi(ax + 0.5, 7), mask=mask)


@triton.jit
def special_kernel(x_ptr, a_ptr, b_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.5)
    tl.store(a_ptr + offs, libdevice.erfc(x * 4.0), mask=mask)
    tl.store(b_ptr + offs, libdevice.erfinv(x * 0.5), mask=mask)


@triton.jit
def rounding_kernel(x_ptr, y_ptr, r_ptr, s_ptr, i_ptr, k_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.load(y_ptr + offs, mask=mask, other=1.0)
    r = tl.floor(x) * 1000.0 + tl.ceil(x) * 100.0 + libdevice.rint(x) * 10.0 + libdevice.trunc(x) + libdevice.round(x) * 0.5
    tl.store(r_ptr + offs, r, mask=mask)
    s = tl.fma(x, y, 1.0) + tl.sqrt_rn(tl.abs(y)) + tl.div_rn(x, y) + tl.fdiv(x, y, ieee_rounding=True)
    s = s + tl.clamp(x, -2.0, 2.0) + libdevice.copysign(y, x) + libdevice.fmin(x, y) + libdevice.fmax(x, y)
    s = s + libdevice.fmod(x, y) + libdevice.fabs(x) + libdevice.saturatef(x)
    tl.store(s_ptr + offs, s, mask=mask)
    i = libdevice.float2int_rn(x) * 1000 + libdevice.float2int_rd(x) * 100 + libdevice.float2int_ru(x) * 10
    i = i + libdevice.float2int_rz(x) + libdevice.isnan(x / y) + libdevice.isinf(y) * 2 + libdevice.signbit(x) * 4
    tl.store(i_ptr + offs, i, mask=mask)
    k = libdevice.llrint(x).to(tl.int32) + libdevice.finitef(x) * 8
    tl.store(k_ptr + offs, k, mask=mask)


@triton.jit
def bits_kernel(a_ptr, b_ptr, p_ptr, h_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=0)
    b = tl.load(b_ptr + offs, mask=mask, other=0)
    tl.store(p_ptr + offs, libdevice.popc(a) * 100 + libdevice.clz(a), mask=mask)
    tl.store(h_ptr + offs, libdevice.mulhi(a, b) + libdevice.umulhi(a, b) + (libdevice.brev(a) & 255), mask=mask)


@triton.jit
def fast_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.5)
    ax = tl.abs(x) + 0.5
    y = libdevice.fast_expf(x) + libdevice.fast_logf(ax) + libdevice.fast_sinf(x) + libdevice.fast_cosf(x)
    y = y + libdevice.fast_powf(ax, x) + libdevice.fast_dividef(x, ax) + libdevice.fast_log2f(ax) + libdevice.fast_tanf(x)
    tl.store(y_ptr + offs, y, mask=mask)

# kernel: gelu_tanh_kernel
# signature: *fp32:16, *fp32:16, i32, 1024
# grid: (cdiv(n, 1024), 1, 1)
# args: x = rand(n, fp32) * 6; y = empty(n, fp32); n = 50000
# bench_args: x = randn(n, fp32); y = empty(n, fp32); n = 1 << 24
# torch: y = F.gelu(x, approximate="tanh")
# check: y == 0.5 * x * (1 + np.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))
# tol: 1e-6

# kernel: gelu_tanh_kernel
# signature: *fp64:16, *fp64:16, i32, 256
# grid: (cdiv(n, 256), 1, 1)
# args: x = rand(n, fp64) * 6; y = empty(n, fp64); n = 5000
# check: y == 0.5 * x * (1 + np.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))
# tol: 1e-14

# kernel: gelu_erf_kernel
# signature: *fp32:16, *fp32:16, i32, 1024
# grid: (cdiv(n, 1024), 1, 1)
# args: x = rand(n, fp32) * 6; y = empty(n, fp32); n = 50000
# bench_args: x = randn(n, fp32); y = empty(n, fp32); n = 1 << 24
# torch: y = F.gelu(x)
# check: y == 0.5 * x * (1 + erf(x * 0.7071067811865476))
# tol: 1e-6

# kernel: gelu_erf_kernel
# signature: *fp64:16, *fp64:16, i32, 256
# grid: (cdiv(n, 256), 1, 1)
# args: x = rand(n, fp64) * 6; y = empty(n, fp64); n = 5000
# check: y == 0.5 * x * (1 + erf(x * 0.7071067811865476))
# tol: 1e-14

# kernel: transcendental_kernel
# signature: *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *fp32:16, i32, 256
# grid: (cdiv(n, 256), 1, 1)
# args: x = rand(n, fp32); a = empty(n, fp32); b = empty(n, fp32); c = empty(n, fp32); d = empty(n, fp32); e = empty(n, fp32); f = empty(n, fp32); n = 10000
# check: a == np.expm1(x) + np.log1p(np.abs(x)) + np.log10(np.abs(x) + 1); b == np.sinh(x) + np.cosh(x) + np.arctan(x * 3); c == np.arcsin(x) + np.arccos(x) + np.arctan2(x, np.abs(x) + 0.25); d == np.arcsinh(x * 10) + np.arccosh(np.abs(x) + 1.5) + np.arctanh(x * 0.9); e == (np.abs(x) + 0.5) ** (x * 4) + np.cbrt(x * 100) + 10 ** x; f == erf(x * 2) + np.exp(x) + np.hypot(x, 0.5)
# tol: 1e-6

# kernel: transcendental64_kernel
# signature: *fp64:16, *fp64:16, *fp64:16, *fp64:16, *fp64:16, *fp64:16, i32, 256
# grid: (cdiv(n, 256), 1, 1)
# args: x = rand(n, fp64); a = empty(n, fp64); b = empty(n, fp64); c = empty(n, fp64); d = empty(n, fp64); e = empty(n, fp64); n = 5000
# check: a == np.expm1(x) + np.log1p(np.abs(x)) + np.log10(np.abs(x) + 1); b == np.sinh(x) + np.cosh(x) + np.arctan(x * 3); c == np.arcsin(x) + np.arccos(x) + np.arctan2(x, np.abs(x) + 0.25); d == np.tanh(x * 5) + erf(x * 3) + np.cbrt(x * 100); e == np.arcsinh(x * 10) + np.arccosh(np.abs(x) + 1.5) + np.arctanh(x * 0.9)
# tol: 1e-14

# kernel: trig64_kernel
# signature: *fp64:16, *fp64:16, *fp64:16, *fp64:16, i32, 256
# grid: (cdiv(n, 256), 1, 1)
# args: x = rand(n, fp64); a = empty(n, fp64); b = empty(n, fp64); c = empty(n, fp64); n = 3000
# check: a == np.sin(x * 100) + np.cos(x * 1e6) + np.sin(x * 1e300) + np.cos(x); b == np.tan(x * 1.5) + np.sin(x) + np.cos(x * 3); c == (np.abs(x) + 0.5) ** (x * 40) + np.hypot(x * 1e200, 3e199) * 1e-200 + (np.abs(x) + 0.5) ** 7
# tol: 1e-13

# kernel: special_kernel
# signature: *fp32:16, *fp32:16, *fp32:16, i32, 256
# grid: (cdiv(n, 256), 1, 1)
# args: x = rand(n, fp32); a = empty(n, fp32); b = empty(n, fp32); n = 3000
# check: a == erfc(x * 4); b == erfinv(x * 0.5)
# tol: 1e-6

# kernel: special_kernel
# signature: *fp64:16, *fp64:16, *fp64:16, i32, 256
# grid: (cdiv(n, 256), 1, 1)
# args: x = rand(n, fp64); a = empty(n, fp64); b = empty(n, fp64); n = 3000
# check: a == erfc(x * 4); b == erfinv(x * 0.5)
# tol: 1e-13

# kernel: rounding_kernel
# signature: *fp32:16, *fp32:16, *fp32:16, *fp32:16, *i32:16, *i32:16, i32, 256
# grid: (cdiv(n, 256), 1, 1)
# args: x = np.rint(rand(n, fp32) * 40) / 4 + 0.0; y = rand(n, fp32) * 3 + 3.5; r = empty(n, fp32); s = empty(n, fp32); i = empty(n, i32); k = empty(n, i32); n = 4000
# check: r == np.floor(x) * 1000 + np.ceil(x) * 100 + np.rint(x) * 10 + np.trunc(x) + np.where(x < 0, -np.floor(-x + 0.5), np.floor(x + 0.5)) * 0.5; s == (x * y + 1) + np.sqrt(np.abs(y)) + 2 * (x / y) + np.clip(x, -2, 2) + np.copysign(y, x) + np.minimum(x, y) + np.maximum(x, y) + np.fmod(x, y) + np.abs(x) + np.clip(x, 0, 1); i == np.rint(x) * 1000 + np.floor(x) * 100 + np.ceil(x) * 10 + np.trunc(x) + 4 * (x < 0); k == np.rint(x) + 8
# tol: 1e-6

# kernel: bits_kernel
# signature: *i32:16, *i32:16, *i32:16, *i32:16, i32, 256
# grid: (cdiv(n, 256), 1, 1)
# args: a = randint(1, 2147483647, n, i32); b = randint(0, 2147483647, n, i32); p = empty(n, i32); h = empty(n, i32); n = 2000
# check: p == (((a >> 0) & 1) + ((a >> 1) & 1) + ((a >> 2) & 1) + ((a >> 3) & 1) + ((a >> 4) & 1) + ((a >> 5) & 1) + ((a >> 6) & 1) + ((a >> 7) & 1) + ((a >> 8) & 1) + ((a >> 9) & 1) + ((a >> 10) & 1) + ((a >> 11) & 1) + ((a >> 12) & 1) + ((a >> 13) & 1) + ((a >> 14) & 1) + ((a >> 15) & 1) + ((a >> 16) & 1) + ((a >> 17) & 1) + ((a >> 18) & 1) + ((a >> 19) & 1) + ((a >> 20) & 1) + ((a >> 21) & 1) + ((a >> 22) & 1) + ((a >> 23) & 1) + ((a >> 24) & 1) + ((a >> 25) & 1) + ((a >> 26) & 1) + ((a >> 27) & 1) + ((a >> 28) & 1) + ((a >> 29) & 1) + ((a >> 30) & 1)) * 100 + 31 - np.floor(np.log2(a)); h == ((a * b) >> 32) * 2 + ((((a >> 31) & 1) << 0) + (((a >> 30) & 1) << 1) + (((a >> 29) & 1) << 2) + (((a >> 28) & 1) << 3) + (((a >> 27) & 1) << 4) + (((a >> 26) & 1) << 5) + (((a >> 25) & 1) << 6) + (((a >> 24) & 1) << 7))

# kernel: fast_kernel
# signature: *fp32:16, *fp32:16, i32, 256
# grid: (cdiv(n, 256), 1, 1)
# args: x = rand(n, fp32); y = empty(n, fp32); n = 4000
# check: y == np.exp(x) + np.log(np.abs(x) + 0.5) + np.sin(x) + np.cos(x) + (np.abs(x) + 0.5) ** x + x / (np.abs(x) + 0.5) + np.log2(np.abs(x) + 0.5) + np.tan(x)
# tol: 1e-5
