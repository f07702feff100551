"""
Matrix multiplication on tensor cores, the shapes real models use:

- matmul_kernel: the tutorial's matmul. A 2-D grid of output tiles flattened
  to one program id and walked in groups of GROUP_SIZE_M rows of tiles (a
  group's programs share their A rows and sweep B's columns, so the tiles in
  flight reuse what the L2 cache holds), `acc += tl.dot(a, b)` over K with
  every load masked at the M, N and K edges, a fused ACTIVATION ("" or
  "leaky_relu"), the result converted to c's element type and stored masked.
  fp16, bf16, fp32 as tf32 (Triton's default) and fp32 'ieee' (exact fp32
  FMAs) run through the same source, input_precision a constexpr.
- bmm_kernel: a batch of matmuls, program_id(2) over the batch, every
  operand addressed through its own batch stride (a stride of 0 broadcasts).
- linear_kernel: y = act(x @ w + bias), the bias vector and the activation
  (ReLU, or GELU with tanh) fused into the epilogue while the tile is in
  registers.
- int8_matmul_kernel: int8 x int8 summed exactly in int32.

The `# tol:` bounds are relative L2 errors (||c - ref|| / ||ref||, ref in
float64 over the inputs as the kernel saw them) with inputs uniform in
[-1, 1):
- fp32 accumulation of K products with partial sums of size sqrt(k): the
  rounding errors add up like a random walk to about sqrt(K) * 2^-24 of
  the result, 1e-6 at K = 96 even for the worst case K * 2^-24 = 6e-6:
  ieee and fp16/bf16 kernels with an fp32 output use 1e-5;
- an fp16 output rounds each element once more, by at most 2^-11 of it
  (4.9e-4): tol 1e-3; bf16 output 2^-8 (3.9e-3): tol 8e-3;
- tf32 rounds both operands to 10 mantissa bits (2^-11 relative each, so
  2^-10 per product, independent errors): about 2^-10 / sqrt(3) = 5.6e-4
  of the result, tol 2e-3.
- int8: exact.
"""
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def leaky_relu(x):
    return tl.where(x >= 0, x, 0.01 * x)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                  GROUP_SIZE_M: tl.constexpr, ACTIVATION: tl.constexpr, INPUT_PRECISION: tl.constexpr):
    # program ids in groups of GROUP_SIZE_M tile rows, column by column
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_am = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_bn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        k_left = K - k * BLOCK_SIZE_K
        a = tl.load(a_ptrs, mask=(offs_am[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_bn[None, :] < N), other=0.0)
        accumulator += tl.dot(a, b, input_precision=INPUT_PRECISION)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    if ACTIVATION == "leaky_relu":
        accumulator = leaky_relu(accumulator)
    c = accumulator.to(c_ptr.dtype.element_ty)

    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    tl.store(c_ptrs, c, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


@triton.jit
def bmm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_ab, stride_am, stride_ak, stride_bb, stride_bk, stride_bn,
               stride_cb, stride_cm, stride_cn,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # c[z] = a[z] @ b[z]: tile (program_id 0, 1) of batch entry program_id 2
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    z = tl.program_id(2)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + z.to(tl.int64) * stride_ab + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b_ptrs = b_ptr + z.to(tl.int64) * stride_bb + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < K - k0), other=0.0)
        b = tl.load(b_ptrs, mask=(rk[:, None] < K - k0) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + z.to(tl.int64) * stride_cb + rm[:, None] * stride_cm + rn[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def linear_kernel(x_ptr, w_ptr, bias_ptr, y_ptr, M, N, K, stride_xm, stride_wk, stride_ym,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, ACTIVATION: tl.constexpr):
    # y = act(x @ w + bias): x M x K, w K x N (both rows contiguous), bias N
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, tl.cdiv(K, BLOCK_K)):
        kk = k0 * BLOCK_K + rk
        x = tl.load(x_ptr + rm[:, None] * stride_xm + kk[None, :], mask=(rm[:, None] < M) & (kk[None, :] < K),
                    other=0.0)
        w = tl.load(w_ptr + kk[:, None] * stride_wk + rn[None, :], mask=(kk[:, None] < K) & (rn[None, :] < N),
                    other=0.0)
        acc += tl.dot(x, w)
    bias = tl.load(bias_ptr + rn, mask=rn < N, other=0.0).to(tl.float32)
    acc = acc + bias[None, :]
    if ACTIVATION == "relu":
        acc = tl.maximum(acc, 0.0)
    elif ACTIVATION == "gelu_tanh":
        # 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
        inner = 0.7978845608028654 * (acc + 0.044715 * acc * acc * acc)
        acc = 0.5 * acc * (1.0 + libdevice.tanh(inner))
    tl.store(y_ptr + rm[:, None] * stride_ym + rn[None, :], acc.to(y_ptr.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def int8_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # c = a @ b for int8 a and b, summed exactly in int32
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.int32)
    for k0 in range(0, tl.cdiv(K, BLOCK_K)):
        kk = k0 * BLOCK_K + rk
        a = tl.load(a_ptr + rm[:, None] * stride_am + kk[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & (kk[None, :] < K), other=0)
        b = tl.load(b_ptr + kk[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=(kk[:, None] < K) & (rn[None, :] < N), other=0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))

# kernel: matmul_kernel
# signature: *fp16, *fp16, *fp16, i32, i32, i32, i32, i32, i32, i32, i32, i32, 64, 64, 32, 2, '', 'tf32'
# grid: cdiv(M, 64) * cdiv(N, 64)
# args: a = rand((M, K), fp16); b = rand((K, N), fp16); c = empty((M, N), fp16); M = 90; N = 76; K = 88; stride_am = K; stride_ak = 1; stride_bk = N; stride_bn = 1; stride_cm = N; stride_cn = 1
# bench_args: a = rand((M, K), fp16); b = rand((K, N), fp16); c = empty((M, N), fp16); M = 4096; N = 4096; K = 4096; stride_am = K; stride_ak = 1; stride_bk = N; stride_bn = 1; stride_cm = N; stride_cn = 1
# torch: c = a @ b
# check: c == a @ b
# tol: 1e-3
#
# kernel: matmul_kernel
# signature: *fp16, *fp16, *fp16, i32, i32, i32, i32, i32, i32, i32, i32, i32, 32, 64, 32, 4, 'leaky_relu', 'tf32'
# grid: cdiv(M, 32) * cdiv(N, 64)
# args: at = rand((K, M), fp16); b = rand((K, N), fp16); c = empty((M, N), fp16); M = 95; N = 66; K = 40; stride_am = 1; stride_ak = M; stride_bk = N; stride_bn = 1; stride_cm = N; stride_cn = 1
# torch: c = F.leaky_relu(at.t() @ b, 0.01)
# check: c == np.where(at.T @ b >= 0, at.T @ b, 0.01 * (at.T @ b))
# tol: 1e-3
#
# kernel: matmul_kernel
# signature: *bf16, *bf16, *bf16, i32, i32, i32, i32, i32, i32, i32, i32, i32, 64, 32, 32, 2, '', 'tf32'
# grid: cdiv(M, 64) * cdiv(N, 32)
# args: a = rand((M, K), bf16); bt = rand((N, K), bf16); c = empty((M, N), bf16); M = 70; N = 61; K = 96; stride_am = K; stride_ak = 1; stride_bk = 1; stride_bn = K; stride_cm = N; stride_cn = 1
# torch: c = a @ bt.t()
# check: c == a @ bt.T
# tol: 8e-3
#
# kernel: matmul_kernel
# signature: *fp32, *fp32, *fp32, i32, i32, i32, i32, i32, i32, i32, i32, i32, 32, 32, 32, 2, '', 'tf32'
# grid: cdiv(M, 32) * cdiv(N, 32)
# args: a = randn((M, K), fp32); b = randn((K, N), fp32); c = empty((M, N), fp32); M = 50; N = 45; K = 70; stride_am = K; stride_ak = 1; stride_bk = N; stride_bn = 1; stride_cm = N; stride_cn = 1
# torch: c = a @ b
# check: c == a @ b
# tol: 2e-3
#
# kernel: matmul_kernel
# signature: *fp32, *fp32, *fp32, i32, i32, i32, i32, i32, i32, i32, i32, i32, 32, 32, 32, 2, '', 'ieee'
# grid: cdiv(M, 32) * cdiv(N, 32)
# args: a = randn((M, K), fp32); b = randn((K, N), fp32); c = empty((M, N), fp32); M = 47; N = 33; K = 65; stride_am = K; stride_ak = 1; stride_bk = N; stride_bn = 1; stride_cm = N; stride_cn = 1
# torch: c = a @ b
# check: c == a @ b
# tol: 1e-5
#
# kernel: matmul_kernel
# signature: *fp32, *fp32, *fp32, i32, i32, i32, i32, i32, i32, i32, i32, i32, 32, 32, 32, 2, '', 'bf16x3'
# grid: cdiv(M, 32) * cdiv(N, 32)
# args: a = randn((M, K), fp32); b = randn((K, N), fp32); c = empty((M, N), fp32); M = 47; N = 33; K = 65; stride_am = K; stride_ak = 1; stride_bk = N; stride_bn = 1; stride_cm = N; stride_cn = 1
# torch: c = a @ b
# check: c == a @ b
# tol: 5e-5
#
# kernel: matmul_kernel
# signature: *fp32, *fp32, *fp32, i32, i32, i32, i32, i32, i32, i32, i32, i32, 32, 32, 32, 2, '', 'bf16x6'
# grid: cdiv(M, 32) * cdiv(N, 32)
# args: a = randn((M, K), fp32); b = randn((K, N), fp32); c = empty((M, N), fp32); M = 47; N = 33; K = 65; stride_am = K; stride_ak = 1; stride_bk = N; stride_bn = 1; stride_cm = N; stride_cn = 1
# torch: c = a @ b
# check: c == a @ b
# tol: 2e-6
#
# kernel: bmm_kernel
# signature: *fp16, *fp16, *fp32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, 32, 32, 32
# grid: (cdiv(M, 32), cdiv(N, 32), 3)
# args: a = rand((3, M, K), fp16); b = rand((3, K, N), fp16); c = empty((3, M, N), fp32); M = 40; N = 24; K = 48; stride_ab = M * K; stride_am = K; stride_ak = 1; stride_bb = K * N; stride_bk = N; stride_bn = 1; stride_cb = M * N; stride_cm = N; stride_cn = 1
# torch: c = torch.bmm(a.float(), b.float())
# check: c == a @ b
# tol: 1e-5
#
# kernel: matmul_kernel
# signature: *fp32, *fp32, *fp32, i32, i32, i32, i32, i32, i32, i32, i32, i32, 32, 32, 32, 2, '', 'bf16x3'
# grid: cdiv(M, 32) * cdiv(N, 32)
# args: a = randn((M, K), fp32); b = randn((K, N), fp32); c = empty((M, N), fp32); M = 47; N = 33; K = 65; stride_am = K; stride_ak = 1; stride_bk = N; stride_bn = 1; stride_cm = N; stride_cn = 1
# torch: c = a @ b
# check: c == a @ b
# tol: 5e-5
#
# kernel: matmul_kernel
# signature: *fp32, *fp32, *fp32, i32, i32, i32, i32, i32, i32, i32, i32, i32, 32, 32, 32, 2, '', 'bf16x6'
# grid: cdiv(M, 32) * cdiv(N, 32)
# args: a = randn((M, K), fp32); b = randn((K, N), fp32); c = empty((M, N), fp32); M = 47; N = 33; K = 65; stride_am = K; stride_ak = 1; stride_bk = N; stride_bn = 1; stride_cm = N; stride_cn = 1
# torch: c = a @ b
# check: c == a @ b
# tol: 2e-6
#
# kernel: bmm_kernel
# signature: *bf16, *bf16, *bf16, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, 32, 32, 16
# grid: (cdiv(M, 32), cdiv(N, 32), 4)
# args: a = rand((4, M, K), bf16); b = rand((K, N), bf16); c = empty((4, M, N), bf16); M = 33; N = 17; K = 35; stride_ab = M * K; stride_am = K; stride_ak = 1; stride_bb = 0; stride_bk = N; stride_bn = 1; stride_cb = M * N; stride_cm = N; stride_cn = 1
# torch: c = a @ b
# check: c == a @ b[None]
# tol: 8e-3
#
# kernel: linear_kernel
# signature: *fp16, *fp16, *fp16, *fp16, i32, i32, i32, i32, i32, i32, 32, 64, 32, 'gelu_tanh'
# grid: (cdiv(M, 32), cdiv(N, 64), 1)
# args: x = rand((M, K), fp16); w = rand((K, N), fp16); bias = rand(N, fp16); y = empty((M, N), fp16); M = 60; N = 96; K = 72; stride_xm = K; stride_wk = N; stride_ym = N
# bench_args: x = rand((M, K), fp16); w = rand((K, N), fp16); bias = rand(N, fp16); y = empty((M, N), fp16); M = 4096; N = 4096; K = 4096; stride_xm = K; stride_wk = N; stride_ym = N
# torch: y = F.gelu(x @ w + bias, approximate='tanh')
# check: y == 0.5 * (x @ w + bias) * (1 + np.tanh(0.7978845608028654 * ((x @ w + bias) + 0.044715 * (x @ w + bias) ** 3)))
# tol: 2e-3
#
# kernel: linear_kernel
# signature: *bf16, *bf16, *fp32, *fp32, i32, i32, i32, i32, i32, i32, 64, 32, 32, 'relu'
# grid: (cdiv(M, 64), cdiv(N, 32), 1)
# args: x = rand((M, K), bf16); w = rand((K, N), bf16); bias = rand(N, fp32); y = empty((M, N), fp32); M = 70; N = 40; K = 50; stride_xm = K; stride_wk = N; stride_ym = N
# torch: y = torch.relu(x.float() @ w.float() + bias)
# check: y == np.maximum(x @ w + bias, 0)
# tol: 1e-5
#
# kernel: int8_matmul_kernel
# signature: *i8, *i8, *i32, i32, i32, i32, i32, i32, i32, i32, i32, 32, 32, 32
# grid: (cdiv(M, 32), cdiv(N, 32), 1)
# args: a = randint(-128, 128, (M, K), i8); b = randint(-128, 128, (K, N), i8); c = empty((M, N), i32); M = 45; N = 39; K = 90; stride_am = K; stride_ak = 1; stride_bk = N; stride_bn = 1; stride_cm = N
# bench_args: a = randint(-128, 128, (M, K), i8); b = randint(-128, 128, (K, N), i8); c = empty((M, N), i32); M = 4096; N = 4096; K = 4096; stride_am = K; stride_ak = 1; stride_bk = N; stride_bn = 1; stride_cm = N
# torch: c = (a.double() @ b.double()).int()
# check: c == a @ b
# tol: 0
