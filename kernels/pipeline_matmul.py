"""
The tutorial matmul (row-major a and b, grouped program order, masked K
tail) in the shape the software pipeliner (opt/pipeline.c) turns into a
ring of shared-memory slots filled by cp.async: both operand loads reach
tl.dot through a layout conversion, the pointers are carried and advanced.
The blocks cover K divisible by 16 (both operands pipelined), a K tail
that is not (a's loads are then 2-byte scalars and stay synchronous, b is
pipelined), loops shorter than the pipeline (K <= BLOCK_K: the prologue's
copies beyond the end are masked off), and fp16 accumulation.

strided_matmul_kernel takes any strides, so its operands may be
column-major (stride 1 along K): their loads run down dim 0, and the slots
hold them with that dim last. Its masked-off elements read OTHER_A and
OTHER_B (the copies fill zeros, a select puts them back), and A_CAST
converts the operands after loading (fp8 tiles, pipelined, then widened).
"""
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                  F16_ACC: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    # the hints say what the axis analysis cannot prove here (pid_n >= 0):
    # b's rows are runs of BLOCK_N consecutive columns, loaded 16 bytes at a time
    offs_am = tl.max_contiguous(tl.multiple_of(offs_am, BLOCK_M), BLOCK_M)
    offs_bn = tl.max_contiguous(tl.multiple_of(offs_bn, BLOCK_N), BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :])
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :])
    if F16_ACC:
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float16)
    else:
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc, out_dtype=acc.dtype)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * stride_bk
    c = acc.to(tl.float16)
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)

# kernel: matmul_kernel
# signature: *fp16:16, *fp16:16, *fp16:16, i32, i32:16, i32:16, i32:16, i32:16, i32:16, 64, 64, 32, 2, 0
# grid: (cdiv(M, 64) * cdiv(N, 64), 1, 1)
# args: a = rand((M, K), fp16); b = rand((K, N), fp16); c = empty((M, N), fp16); M = 100; N = 80; K = 160; stride_am = K; stride_bk = N; stride_cm = N
# bench_args: a = rand((M, K), fp16); b = rand((K, N), fp16); c = empty((M, N), fp16); M = 4096; N = 4096; K = 4096; stride_am = K; stride_bk = N; stride_cm = N
# torch: c = (a.float() @ b.float()).half()
# check: c == (a @ b).astype(np.float16)
# tol: 1e-2
#
# kernel: matmul_kernel
# signature: *fp16:16, *fp16:16, *fp16:16, i32, i32:16, i32, i32, i32:16, i32:16, 64, 64, 32, 2, 0
# grid: (cdiv(M, 64) * cdiv(N, 64), 1, 1)
# args: a = rand((M, K), fp16); b = rand((K, N), fp16); c = empty((M, N), fp16); M = 70; N = 48; K = 75; stride_am = K; stride_bk = N; stride_cm = N
# torch: c = (a.float() @ b.float()).half()
# check: c == (a @ b).astype(np.float16)
# tol: 1e-2
#
# kernel: matmul_kernel
# signature: *fp16:16, *fp16:16, *fp16:16, i32, i32:16, i32:16, i32:16, i32:16, i32:16, 64, 64, 32, 1, 0
# grid: (cdiv(M, 64) * cdiv(N, 64), 1, 1)
# args: a = rand((M, K), fp16); b = rand((K, N), fp16); c = empty((M, N), fp16); M = 64; N = 128; K = 16; stride_am = K; stride_bk = N; stride_cm = N
# torch: c = (a.float() @ b.float()).half()
# check: c == (a @ b).astype(np.float16)
# tol: 1e-2
#
# kernel: matmul_kernel
# signature: *fp16:16, *fp16:16, *fp16:16, i32, i32:16, i32:16, i32:16, i32:16, i32:16, 64, 64, 32, 1, 1
# grid: (cdiv(M, 64) * cdiv(N, 64), 1, 1)
# args: a = rand((M, K), fp16); b = rand((K, N), fp16); c = empty((M, N), fp16); M = 64; N = 64; K = 128; stride_am = K; stride_bk = N; stride_cm = N
# torch: c = (a.float() @ b.float()).half()
# check: c == (a @ b).astype(np.float16)
# tol: 1e-2


@triton.jit
def strided_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, s_am, s_ak, s_bk, s_bn, s_cm,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                          OTHER_A: tl.constexpr, OTHER_B: tl.constexpr, A_CAST: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * s_am + offs_k[None, :] * s_ak
    b_ptrs = b_ptr + offs_k[:, None] * s_bk + offs_n[None, :] * s_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=OTHER_A)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=OTHER_B)
        if A_CAST:
            a = a.to(tl.float16)
            b = b.to(tl.float16)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * s_ak
        b_ptrs += BLOCK_K * s_bk
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptr + offs_cm[:, None] * s_cm + offs_cn[None, :], acc.to(tl.float16), mask=c_mask)

# kernel: strided_matmul_kernel
# signature: *fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:16, 64, 64, 32, 0.0, 0.0, 0
# grid: (cdiv(M, 64), cdiv(N, 64), 1)
# args: a = rand((K, M), fp16); b = rand((N, K), fp16); c = empty((M, N), fp16); M = 128; N = 64; K = 96; s_ak = M; s_bn = K; s_cm = N
# torch: c = (a.float().T @ b.float().T).half()
# check: c == (a.T @ b.T).astype(np.float16)
# tol: 1e-2
#
# kernel: strided_matmul_kernel
# signature: *fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, 64, 64, 32, 1.5, 2.0, 0
# grid: (cdiv(M, 64), cdiv(N, 64), 1)
# args: a = rand((M, K), fp16); b = rand((K, N), fp16); c = empty((M, N), fp16); M = 64; N = 128; K = 80; s_am = K; s_bk = N; s_cm = N
# torch: c = (a.float() @ b.float() + 16 * 1.5 * 2.0).half()
# check: c == (a @ b + 16 * 1.5 * 2.0).astype(np.float16)
# tol: 1e-2
#
# kernel: strided_matmul_kernel
# signature: *fp8e5:16, *fp8e5:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, 64, 64, 32, 0.0, 0.0, 1
# arch: sm_90a sm_89
# grid: (cdiv(M, 64), cdiv(N, 64), 1)
# args: a = randn((M, K), fp8e5); b = randn((K, N), fp8e5); c = empty((M, N), fp16); M = 64; N = 64; K = 96; s_am = K; s_bk = N; s_cm = N
# torch: c = (a.float() @ b.float()).half()
# check: c == (a @ b).astype(np.float16)
# tol: 1e-2
