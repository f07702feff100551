"""
Cross-entropy loss per row: loss = logsumexp(logits) - logits[target], one
row per program. The row is walked in BLOCK_SIZE chunks with an online
logsumexp: a running maximum m and a running sum s of exp(x - m), rescaled
by exp(m_old - m_new) whenever the maximum grows, so a row of any length is
read once. The target is an int64 read with a scalar load, and its logit a
second scalar load (a gather). The ignore_index variant gives rows whose
target equals IGNORE_INDEX (-100, as torch) a loss of 0 and reads nothing
for them but the target.
"""
import triton
import triton.language as tl


@triton.jit
def row_logsumexp(row_ptr, N, BLOCK_SIZE: tl.constexpr):
    m = -float('inf')
    s = 0.0
    for start in range(0, N, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(row_ptr + cols, mask=cols < N, other=-float('inf'))
        m_new = tl.maximum(m, tl.max(x, axis=0))
        # the first chunk starts below N, so m_new is finite from the start
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
        m = m_new
    return m + tl.log(s)


@triton.jit
def cross_entropy_kernel(Loss, Logits, Target, stride, N, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    row_ptr = Logits + row * stride
    target = tl.load(Target + row)
    lse = row_logsumexp(row_ptr, N, BLOCK_SIZE)
    tl.store(Loss + row, lse - tl.load(row_ptr + target))


@triton.jit
def cross_entropy_ignore_kernel(Loss, Logits, Target, stride, N, IGNORE_INDEX: tl.constexpr,
                                BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    row_ptr = Logits + row * stride
    target = tl.load(Target + row)
    loss = 0.0
    if target != IGNORE_INDEX:
        loss = row_logsumexp(row_ptr, N, BLOCK_SIZE) - tl.load(row_ptr + target)
    tl.store(Loss + row, loss)

# The reference: logsumexp in float64 without the max shift (randn logits cannot overflow), the target's
# logit picked by a one-hot mask.
#
# kernel: cross_entropy_kernel
# signature: *fp32:16, *fp32:16, *i64:16, i32:16, i32:16, 4096
# num_warps: 8
# grid: 6
# args: loss = empty(6, fp32); x = randn((6, N), fp32); t = randint(0, N, 6, i64); stride = N; N = 10000
# bench_args: loss = empty(4096, fp32); x = randn((4096, N), fp32); t = randint(0, N, 4096, i64); stride = N; N = 32768
# bench_grid: 4096
# torch: loss = F.cross_entropy(x, t, reduction='none')
# check: loss == np.log(np.exp(x).sum(axis=1)) - (x * (np.arange(N).reshape(1, N) == t.reshape(6, 1))).sum(axis=1)
# tol: 1e-5
# triton_identical: loss
#
# One chunk per row, and rows shifted far from zero (a large common offset, so exp without the max overflows).
# kernel: cross_entropy_kernel
# signature: *fp32, *fp32, *i64, i32, i32, 1024
# num_warps: 4
# grid: 7
# args: loss = empty(7, fp32); x = randn((7, stride), fp32) + 500; t = randint(0, N, 7, i64); stride = 1001; N = 1000
# check: loss == np.log(np.exp(x[:, :N] - 500).sum(axis=1)) + 500 - (x[:, :N] * (np.arange(N).reshape(1, N) == t.reshape(7, 1))).sum(axis=1)
# tol: 1e-4
# triton_identical: loss
#
# kernel: cross_entropy_ignore_kernel
# signature: *fp32:16, *fp32:16, *i64:16, i32, i32, -100, 2048
# num_warps: 4
# grid: 8
# args: loss = empty(8, fp32); x = randn((8, N), fp32); t = np.where(np.arange(8) % 3 == 1, -100, randint(0, N, 8, i64)); stride = N; N = 5000
# bench_args: loss = empty(4096, fp32); x = randn((4096, N), fp32); t = np.where(np.arange(4096) % 3 == 1, -100, randint(0, N, 4096, i64)); stride = N; N = 32768
# bench_grid: 4096
# torch: loss = F.cross_entropy(x, t, reduction='none', ignore_index=-100)
# check: loss == np.where(t == -100, 0, np.log(np.exp(x).sum(axis=1)) - (x * (np.arange(N).reshape(1, N) == t.reshape(8, 1))).sum(axis=1))
# tol: 1e-5
# triton_identical: loss
