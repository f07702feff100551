"""
tl.dot on small tiles, one kind per block: fp16 -> fp32, bf16, fp32 as tf32,
tf32x3 and ieee, fp64 (fma.rn.f64), int8 -> int32, fp16 with out_dtype=fp16,
fp8 pairs, operands read row-major or transposed (by strides, or by .T), a
3-D batched dot, a 4-D one (two batch dims), and matmuls whose accumulator
is carried through a loop over K (`acc += tl.dot(a, b)` and `acc = tl.dot(a,
b, acc)`). Sizes below 16 and masked edges are included: tric accepts any
tile size for dot.
"""
import triton
import triton.language as tl


@triton.jit
def dot_kernel(a_ptr, b_ptr, c_ptr, M, N, K, s_am, s_ak, s_bk, s_bn, s_cm, s_cn,
               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, PREC: tl.constexpr, OUT_F16: tl.constexpr):
    # one BM x BN tile of c = a @ b; a and b read through their strides
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * s_am + rk[None, :] * s_ak, mask=(rm[:, None] < M) & (rk[None, :] < K), other=0)
    b = tl.load(b_ptr + rk[:, None] * s_bk + rn[None, :] * s_bn, mask=(rk[:, None] < K) & (rn[None, :] < N), other=0)
    if OUT_F16:
        c = tl.dot(a, b, out_dtype=tl.float16)
    elif PREC == 1:
        c = tl.dot(a, b, input_precision="tf32x3")
    elif PREC == 2:
        c = tl.dot(a, b, input_precision="ieee")
    elif PREC == 3:
        c = tl.dot(a, b, allow_tf32=False)
    else:
        c = tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * s_cm + rn[None, :] * s_cn, c, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def dot_trans_kernel(a_ptr, bt_ptr, c_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # c = a @ bt.T with bt stored N x K, row-major (the transpose is .T of the loaded tile)
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * BK + rk[None, :])
    bt = tl.load(bt_ptr + rn[:, None] * BK + rk[None, :])
    c = tl.dot(a, bt.T, acc=tl.full((BM, BN), 1.0, tl.float32))
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], c)


@triton.jit
def bmm_kernel(a_ptr, b_ptr, c_ptr, NB: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # a batch of NB products, a NB x BM x BK and b NB x BK x BN, row-major
    rb = tl.arange(0, NB)[:, None, None]
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(a_ptr + rb * (BM * BK) + rm[None, :, None] * BK + rk[None, None, :])
    b = tl.load(b_ptr + rb * (BK * BN) + rk[None, :, None] * BN + rn[None, None, :])
    c = tl.dot(a, b)
    tl.store(c_ptr + rb * (BM * BN) + rm[None, :, None] * BN + rn[None, None, :], c)


@triton.jit
def dot4d_kernel(x_ptr, y_ptr, z_ptr, B0: tl.constexpr, B1: tl.constexpr, M: tl.constexpr, N: tl.constexpr,
                 K: tl.constexpr):
    # two batch dims: tl.dot multiplies each (b0, b1) pair of matrices
    x = tl.load(x_ptr + tl.arange(0, B0 * B1 * M * K)).reshape(B0, B1, M, K)
    y = tl.load(y_ptr + tl.arange(0, B0 * B1 * K * N)).reshape(B0, B1, K, N)
    z = tl.dot(x, y)
    tl.store(z_ptr + tl.arange(0, B0 * B1 * M * N), z.reshape(B0 * B1 * M * N))


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, s_am, s_ak, s_bk, s_bn, s_cm, s_cn,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, IN_PLACE: tl.constexpr):
    # the tutorial's matmul: one BM x BN tile per program, the accumulator
    # carried through the loop over K, masked at every edge
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    if a_ptr.dtype.element_ty == tl.int8:
        acc = tl.zeros((BM, BN), dtype=tl.int32)
    else:
        acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, tl.cdiv(K, BK)):
        kk = k0 * BK + rk
        a = tl.load(a_ptr + rm[:, None] * s_am + kk[None, :] * s_ak, mask=(rm[:, None] < M) & (kk[None, :] < K),
                    other=0)
        b = tl.load(b_ptr + kk[:, None] * s_bk + rn[None, :] * s_bn, mask=(kk[:, None] < K) & (rn[None, :] < N),
                    other=0)
        if IN_PLACE:
            acc = tl.dot(a, b, acc)
        else:
            acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * s_cm + rn[None, :] * s_cn, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))

# kernel: dot_kernel
# signature: *fp16, *fp16, *fp32, i32, i32, i32, i32, i32, i32, i32, i32, i32, 32, 32, 64, 0, 0
# grid: 1
# args: a = rand((M, K), fp16); b = rand((K, N), fp16); c = empty((M, N), fp32); M = 32; N = 32; K = 64; s_am = K; s_ak = 1; s_bk = N; s_bn = 1; s_cm = N; s_cn = 1
# torch: c = (a.float() @ b.float())
# check: c == a @ b
# tol: 1e-5
#
# kernel: dot_kernel
# signature: *fp16, *fp16, *fp32, i32, i32, i32, i32, i32, i32, i32, i32, i32, 32, 32, 64, 0, 0
# grid: 1
# args: at = rand((K, M), fp16); b = rand((K, N), fp16); c = empty((M, N), fp32); M = 20; N = 24; K = 40; s_am = 1; s_ak = M; s_bk = N; s_bn = 1; s_cm = N; s_cn = 1
# torch: c = (at.float().t() @ b.float())
# check: c == at.T @ b
# tol: 1e-5
#
# kernel: dot_kernel
# signature: *fp16, *fp16, *fp32, i32, i32, i32, i32, i32, i32, i32, i32, i32, 16, 8, 4, 0, 0
# grid: 1
# args: a = rand((M, K), fp16); bt = rand((N, K), fp16); c = empty((M, N), fp32); M = 13; N = 7; K = 3; s_am = K; s_ak = 1; s_bk = 1; s_bn = K; s_cm = N; s_cn = 1
# torch: c = (a.float() @ bt.float().t())
# check: c == a @ bt.T
# tol: 1e-5
#
# kernel: dot_kernel
# signature: *fp16, *fp16, *fp32, i32, i32, i32, i32, i32, i32, i32, i32, i32, 1, 1, 1, 0, 0
# grid: 1
# args: a = rand((1, 1), fp16); b = rand((1, 1), fp16); c = empty((1, 1), fp32); M = 1; N = 1; K = 1; s_am = 1; s_ak = 1; s_bk = 1; s_bn = 1; s_cm = 1; s_cn = 1
# torch: c = (a.float() @ b.float())
# check: c == a @ b
# tol: 1e-6
#
# kernel: dot_kernel
# signature: *bf16, *bf16, *fp32, i32, i32, i32, i32, i32, i32, i32, i32, i32, 32, 16, 32, 0, 0
# grid: 1
# args: a = rand((M, K), bf16); b = rand((K, N), bf16); c = empty((M, N), fp32); M = 32; N = 16; K = 32; s_am = K; s_ak = 1; s_bk = N; s_bn = 1; s_cm = N; s_cn = 1
# torch: c = (a.float() @ b.float())
# check: c == a @ b
# tol: 1e-5
#
# kernel: dot4d_kernel
# signature: *bf16, *bf16, *fp32, 2, 2, 16, 32, 16
# grid: 1
# args: x = rand((2, 2, 16, 16), bf16); y = rand((2, 2, 16, 32), bf16); z = empty((2, 2, 16, 32), fp32)
# check: z == x @ y
# tol: 1e-5
#
# kernel: dot_kernel
# signature: *fp64, *fp64, *fp64, i32, i32, i32, i32, i32, i32, i32, i32, i32, 32, 16, 32, 0, 0
# grid: 1
# args: a = randn((M, K), fp64); b = randn((K, N), fp64); c = empty((M, N), fp64); M = 30; N = 16; K = 27; s_am = K; s_ak = 1; s_bk = N; s_bn = 1; s_cm = N; s_cn = 1
# torch: c = a @ b
# check: c == a @ b
# tol: 1e-12
#
# kernel: dot_kernel
# signature: *fp32, *fp32, *fp32, i32, i32, i32, i32, i32, i32, i32, i32, i32, 32, 32, 32, 0, 0
# grid: 1
# args: a = randn((M, K), fp32); b = randn((K, N), fp32); c = empty((M, N), fp32); M = 32; N = 32; K = 32; s_am = K; s_ak = 1; s_bk = N; s_bn = 1; s_cm = N; s_cn = 1
# torch: c = a @ b
# check: c == a @ b
# tol: 2e-3
#
# kernel: dot_kernel
# signature: *fp32, *fp32, *fp32, i32, i32, i32, i32, i32, i32, i32, i32, i32, 32, 32, 32, 1, 0
# grid: 1
# args: a = randn((M, K), fp32); b = randn((K, N), fp32); c = empty((M, N), fp32); M = 32; N = 32; K = 32; s_am = K; s_ak = 1; s_bk = N; s_bn = 1; s_cm = N; s_cn = 1
# torch: c = a @ b
# check: c == a @ b
# tol: 1e-5
#
# kernel: dot_kernel
# signature: *fp32, *fp32, *fp32, i32, i32, i32, i32, i32, i32, i32, i32, i32, 32, 32, 32, 2, 0
# grid: 1
# args: a = randn((M, K), fp32); b = randn((K, N), fp32); c = empty((M, N), fp32); M = 30; N = 31; K = 29; s_am = K; s_ak = 1; s_bk = N; s_bn = 1; s_cm = N; s_cn = 1
# torch: c = a @ b
# check: c == a @ b
# tol: 1e-5
#
# kernel: dot_kernel
# signature: *fp32, *fp32, *fp32, i32, i32, i32, i32, i32, i32, i32, i32, i32, 16, 16, 16, 3, 0
# grid: 1
# args: a = randn((M, K), fp32); b = randn((K, N), fp32); c = empty((M, N), fp32); M = 16; N = 16; K = 16; s_am = K; s_ak = 1; s_bk = N; s_bn = 1; s_cm = N; s_cn = 1
# torch: c = a @ b
# check: c == a @ b
# tol: 1e-5
#
# kernel: dot_kernel
# signature: *i8, *i8, *i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, 32, 32, 64, 0, 0
# grid: 1
# args: a = randint(-128, 128, (M, K), i8); b = randint(-128, 128, (K, N), i8); c = empty((M, N), i32); M = 32; N = 32; K = 64; s_am = K; s_ak = 1; s_bk = N; s_bn = 1; s_cm = N; s_cn = 1
# torch: c = (a.int() @ b.int())
# check: c == a @ b
#
# kernel: dot_kernel
# signature: *fp16, *fp16, *fp16, i32, i32, i32, i32, i32, i32, i32, i32, i32, 32, 32, 32, 0, 1
# grid: 1
# args: a = rand((M, K), fp16); b = rand((K, N), fp16); c = empty((M, N), fp16); M = 32; N = 32; K = 32; s_am = K; s_ak = 1; s_bk = N; s_bn = 1; s_cm = N; s_cn = 1
# torch: c = (a.float() @ b.float()).half()
# check: c == a @ b
# tol: 1e-2
#
# kernel: dot_kernel
# signature: *fp8e4nv, *fp8e5, *fp32, i32, i32, i32, i32, i32, i32, i32, i32, i32, 32, 32, 32, 0, 0
# arch: sm_90a sm_89
# grid: 1
# args: a = rand((M, K), fp8e4nv); b = rand((K, N), fp8e5); c = empty((M, N), fp32); M = 32; N = 32; K = 32; s_am = K; s_ak = 1; s_bk = N; s_bn = 1; s_cm = N; s_cn = 1
# check: c == a @ b
# tol: 1e-5
#
# kernel: dot_trans_kernel
# signature: *fp16, *fp16, *fp32, 16, 32, 32
# grid: 1
# args: a = rand((16, 32), fp16); bt = rand((32, 32), fp16); c = empty((16, 32), fp32)
# torch: c = 1 + a.float() @ bt.float().t()
# check: c == 1 + a @ bt.T
# tol: 1e-5
#
# kernel: bmm_kernel
# signature: *fp16, *fp16, *fp32, 4, 16, 16, 32
# grid: 1
# args: a = rand((4, 16, 32), fp16); b = rand((4, 32, 16), fp16); c = empty((4, 16, 16), fp32)
# torch: c = torch.bmm(a.float(), b.float())
# check: c == a @ b
# tol: 1e-5
#
# kernel: matmul_kernel
# signature: *fp16, *fp16, *fp32, i32, i32, i32, i32, i32, i32, i32, i32, i32, 32, 32, 16, 0
# grid: (cdiv(M, 32), cdiv(N, 32), 1)
# args: a = rand((M, K), fp16); b = rand((K, N), fp16); c = empty((M, N), fp32); M = 70; N = 45; K = 100; s_am = K; s_ak = 1; s_bk = N; s_bn = 1; s_cm = N; s_cn = 1
# bench_args: a = rand((M, K), fp16); b = rand((K, N), fp16); c = empty((M, N), fp32); M = 4096; N = 4096; K = 4096; s_am = K; s_ak = 1; s_bk = N; s_bn = 1; s_cm = N; s_cn = 1
# torch: c = (a.float() @ b.float())
# check: c == a @ b
# tol: 1e-5
#
# kernel: matmul_kernel
# signature: *fp16, *fp16, *fp32, i32, i32, i32, i32, i32, i32, i32, i32, i32, 32, 32, 16, 1
# grid: (cdiv(M, 32), cdiv(N, 32), 1)
# args: a = rand((M, K), fp16); b = rand((K, N), fp16); c = empty((M, N), fp32); M = 64; N = 64; K = 64; s_am = K; s_ak = 1; s_bk = N; s_bn = 1; s_cm = N; s_cn = 1
# torch: c = (a.float() @ b.float())
# check: c == a @ b
# tol: 1e-5
#
# kernel: matmul_kernel
# signature: *i8, *i8, *i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, 16, 16, 32, 0
# grid: (cdiv(M, 16), cdiv(N, 16), 1)
# args: a = randint(-128, 128, (M, K), i8); b = randint(-128, 128, (K, N), i8); c = empty((M, N), i32); M = 40; N = 20; K = 70; s_am = K; s_ak = 1; s_bk = N; s_bn = 1; s_cm = N; s_cn = 1
# torch: c = (a.int() @ b.int())
# check: c == a @ b
