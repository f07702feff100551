"""
tl.dot_scaled: microscaled operands (e2m1 packed two a byte along K, e4m3,
e5m2; one e8m0 scale byte, 2^(s - 127), per 32 elements along K) times a
bf16, fp16 or fp8 operand, as on sm_80 and sm_90 in Triton: both upcast to
bf16 (fp16 where one operand is fp16), the scaled one multiplied by its
scale in that type, then a plain dot accumulating in fp32.

The scales stay in [120, 134] so every upcast product is exact, and the
reference is the float64 product of the decoded values.
"""
import triton
import triton.language as tl


@triton.jit
def dot_scaled_kernel(a_ptr, a_scale_ptr, b_ptr, b_scale_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr,
                      K: tl.constexpr, A_FMT: tl.constexpr, B_FMT: tl.constexpr):
    KA: tl.constexpr = K // 2 if A_FMT == "e2m1" else K
    KB: tl.constexpr = K // 2 if B_FMT == "e2m1" else K
    a = tl.load(a_ptr + tl.arange(0, M)[:, None] * KA + tl.arange(0, KA)[None, :])
    b = tl.load(b_ptr + tl.arange(0, KB)[:, None] * N + tl.arange(0, N)[None, :])
    a_scale = None
    b_scale = None
    if A_FMT == "e2m1" or A_FMT == "e4m3" or A_FMT == "e5m2":
        a_scale = tl.load(a_scale_ptr + tl.arange(0, M)[:, None] * (K // 32) + tl.arange(0, K // 32)[None, :])
    if B_FMT == "e2m1" or B_FMT == "e4m3" or B_FMT == "e5m2":
        b_scale = tl.load(b_scale_ptr + tl.arange(0, N)[:, None] * (K // 32) + tl.arange(0, K // 32)[None, :])
    c = tl.dot_scaled(a, a_scale, A_FMT, b, b_scale, B_FMT)
    tl.store(c_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :], c)


# kernel: dot_scaled_kernel
# signature: *u8, *u8, *bf16, *u8, *fp32, 32, 32, 64, "e2m1", "bf16"
# arch: sm_90a sm_89
# grid: (1, 1, 1)
# args: a = randint(0, 256, (32, 32), u8); sa = randint(120, 135, (32, 2), u8); b = randn((64, 32), bf16); sb = zeros(1, u8); c = empty((32, 32), fp32)
# check: c == ((np.stack([np.where((a & 7) >> 1 == 0, (a & 1) * 0.5, 2.0 ** (((a & 7) >> 1) - 1) * (1 + (a & 1) * 0.5)) * np.where(a & 8, -1.0, 1.0), np.where((a >> 4 & 7) >> 1 == 0, (a >> 4 & 1) * 0.5, 2.0 ** (((a >> 4 & 7) >> 1) - 1) * (1 + (a >> 4 & 1) * 0.5)) * np.where(a & 128, -1.0, 1.0)], axis=-1).reshape(32, 2, 32) * 2.0 ** (sa.reshape(32, 2, 1) - 127.0)).reshape(32, 64) @ b)
# tol: 1e-5
#
# kernel: dot_scaled_kernel
# signature: *bf16, *u8, *u8, *u8, *fp32, 64, 32, 64, "bf16", "e4m3"
# arch: sm_90a sm_89
# num_warps: 8
# grid: (1, 1, 1)
# args: a = randn((64, 64), bf16); sa = zeros(1, u8); b = randint(0, 126, (64, 32), u8); sb = randint(120, 135, (32, 2), u8); c = empty((64, 32), fp32)
# check: c == a @ (fp8_from_bits(b, fp8e4nv).T.reshape(32, 2, 32) * 2.0 ** (sb.reshape(32, 2, 1) - 127.0)).reshape(32, 64).T
# tol: 1e-5
#
# kernel: dot_scaled_kernel
# signature: *u8, *u8, *fp16, *u8, *fp32, 32, 64, 32, "e5m2", "fp16"
# arch: sm_90a sm_89
# grid: (1, 1, 1)
# args: a = randint(0, 64, (32, 32), u8); sa = randint(124, 132, (32, 1), u8); b = randn((32, 64), fp16); sb = zeros(1, u8); c = empty((32, 64), fp32)
# check: c == (fp8_from_bits(a, fp8e5).reshape(32, 1, 32) * 2.0 ** (sa.reshape(32, 1, 1) - 127.0)).reshape(32, 32) @ b
# tol: 1e-5
