"""
Control flow: a `for` loop with loop-carried tiles (column sums of a K x N
matrix, one K row per iteration), a `while` loop and a dynamic `if` on scalars,
a static `if` on a constexpr, and pointer increments carried through the loop.
tuple_carry_kernel carries a tuple holding a tuple through a loop and
merges it out of a dynamic `if`: each leaf is carried on its own.
"""
import triton
import triton.language as tl


@triton.jit
def colsum_kernel(x_ptr, sum_ptr, sumsq_ptr, K, N, stride_k,
                  BLOCK_N: tl.constexpr, SQUARES: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = offs < N
    acc = tl.zeros((BLOCK_N,), dtype=tl.float32)
    acc2 = tl.zeros([BLOCK_N], tl.float32)
    ptrs = x_ptr + offs
    for k in range(0, K):
        x = tl.load(ptrs, mask=mask, other=0.0)
        acc += x
        if SQUARES:
            acc2 = acc2 + x * x
        ptrs += stride_k
    tl.store(sum_ptr + offs, acc, mask=mask)
    if SQUARES:
        tl.store(sumsq_ptr + offs, acc2, mask=mask)


@triton.jit
def steps_kernel(out_ptr, n, BLOCK: tl.constexpr):
    # Each program counts how many halvings take its program id to 0 (a
    # scalar while loop), then writes that count, doubled when the id is odd
    # (a dynamic if), over its slice of the output.
    pid = tl.program_id(0)
    v = pid
    steps = 0
    while v > 0:
        v = v // 2
        steps += 1
    if pid % 2 == 1:
        steps = steps * 2
    else:
        steps = steps + 100
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    vals = tl.full((BLOCK,), 0, tl.int32) + steps + offs % 3
    tl.store(out_ptr + offs, vals, mask=offs < n)


@triton.jit
def tuple_carry_kernel(x_ptr, out_ptr, max_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    state = ((tl.zeros((BLOCK,), tl.float32), 0), tl.full((BLOCK,), float("-inf"), tl.float32))
    for i in range(n):
        v = tl.load(x_ptr + i * BLOCK + offs)
        (total, count), hi = state
        if i % 2 == 0:
            state = ((total + v, count + 1), tl.maximum(hi, v))
        else:
            state = ((total - v, count), tl.maximum(hi, v))
    tl.store(out_ptr + offs, state[0][0] + state[0][1])
    tl.store(max_ptr + offs, state[1])

# kernel: colsum_kernel
# signature: *fp32:16, *fp32:16, *fp32:16, i32, i32, i32:16, 256, True
# grid: (cdiv(N, 256), 1, 1)
# args: x = rand((K, 1008), fp32); s = empty(N, fp32); sq = empty(N, fp32); K = 37; N = 1000; stride_k = 1008
# bench_args: x = rand((K, stride_k), fp32); s = empty(N, fp32); sq = empty(N, fp32); K = 1024; N = 65000; stride_k = 65536
# torch: s = x[:, :N].sum(0); sq = (x[:, :N] ** 2).sum(0)
# check: s == x[:, :N].sum(axis=0); sq == (x[:, :N] ** 2).sum(axis=0)
# tol: 1e-5
#
# kernel: steps_kernel
# signature: *i32:16, i32, 128
# grid: (cdiv(n, 128), 1, 1)
# args: out = empty(n, i32); n = 5000
# bench_args: out = empty(n, i32); n = 1 << 26
# check: out == np.where((np.arange(n) // 128) % 2, np.ceil(np.log2(np.arange(n) // 128 + 1)) * 2, np.ceil(np.log2(np.arange(n) // 128 + 1)) + 100) + np.arange(n) % 3
# tol: 0
#
# kernel: tuple_carry_kernel
# signature: *fp32:16, *fp32:16, *fp32:16, i32, 128
# grid: (1, 1, 1)
# args: x = rand((n, 128), fp32); out = empty(128, fp32); hi = empty(128, fp32); n = 7
# check: out == (x * np.where(np.arange(n) % 2 == 0, 1, -1)[:, None]).sum(axis=0) + (n + 1) // 2; hi == x.max(axis=0)
# tol: 1e-5
