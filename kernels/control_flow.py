"""
Control flow beyond straight-line structured code: early `return` under run-time
conditions (at the kernel's top level, nested in ifs, and from @jit helpers
that return values from several branches), `break` and `continue` in `for`,
`while` and `static_range` loops, nested, with loop-carried values.
"""
import triton
import triton.language as tl


@triton.jit
def early_return_kernel(x_ptr, y_ptr, n, P, BLOCK: tl.constexpr):
    # Programs from P on leave at once; odd programs add 100, and programs
    # 3 (mod 4) leave from inside two run-time ifs without storing.
    pid = tl.program_id(0)
    if pid >= P:
        return
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0)
    if pid % 2 == 1:
        if pid % 4 == 3:
            return
        x = x + 100
    tl.store(y_ptr + offs, x * 2, mask=m)


@triton.jit
def clamp_scalar(v, hi):
    # returns from three branches; the last return follows the if
    if v > hi:
        return hi
    elif v < 0:
        return 0
    return v


@triton.jit
def scale_or_shift(x, flag):
    if flag:
        return x * 2
    else:
        return x + 1


@triton.jit
def helper_return_kernel(x_ptr, y_ptr, c_ptr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(y_ptr + offs, scale_or_shift(x, pid % 3 == 0))
    tl.store(c_ptr + pid, clamp_scalar(pid * 7 % 23 - 5, 12))


@triton.jit
def break_continue_kernel(x_ptr, s_ptr, K, N, lim, BLOCK_N: tl.constexpr):
    # column sums over the rows k < lim with k % 3 != 1
    pid = tl.program_id(0)
    offs = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = offs < N
    acc = tl.zeros((BLOCK_N,), dtype=tl.int32)
    for k in range(0, K):
        if k >= lim:
            break
        if k % 3 == 1:
            continue
        acc += tl.load(x_ptr + k * N + offs, mask=mask, other=0)
    tl.store(s_ptr + offs, acc, mask=mask)


@triton.jit
def while_break_kernel(out_ptr, n_iter):
    # sum of the odd i in [1, min(n_iter, pid)]
    pid = tl.program_id(0)
    i = 0
    total = 0
    while i < n_iter:
        i += 1
        if i % 2 == 0:
            continue
        if i > pid:
            break
        total += i
    tl.store(out_ptr + pid, total)


@triton.jit
def nested_loops_kernel(out_ptr, R, STOP: tl.constexpr):
    # outer continue, inner static_range with a compile-time and a run-time break
    acc = 0
    for i in range(R):
        if i % 2 == 1:
            continue
        for j in tl.static_range(5):
            if j == STOP:
                break
            if j > i:
                break
            acc += 1
    tl.store(out_ptr, acc)

# kernel: early_return_kernel
# signature: *i32:16, *i32:16, i32, i32, 64
# grid: (cdiv(n, 64), 1, 1)
# args: x = randint(-50, 50, n, i32); y = zeros(n, i32); n = 1000; P = 11
# check: y == np.where(((np.arange(n) // 64) < P) & ((np.arange(n) // 64) % 4 != 3), np.where((np.arange(n) // 64) % 2 == 1, x + 100, x) * 2, 0)
# tol: 0
#
# kernel: helper_return_kernel
# signature: *fp32:16, *fp32:16, *i32:16, 128
# grid: (8, 1, 1)
# args: x = rand(1024, fp32); y = empty(1024, fp32); c = empty(8, i32)
# check: y == np.where((np.arange(1024) // 128) % 3 == 0, x * 2, x + 1); c == np.clip(np.arange(8) * 7 % 23 - 5, 0, 12)
# tol: 1e-6
#
# kernel: break_continue_kernel
# signature: *i32:16, *i32:16, i32, i32, i32, 128
# grid: (cdiv(N, 128), 1, 1)
# args: x = randint(-100, 100, (K, N), i32); s = empty(N, i32); K = 20; N = 300; lim = 14
# check: s == (x * (np.arange(K) % 3 != 1).astype(np.int32).reshape(K, 1))[:lim].sum(axis=0)
# tol: 0
#
# kernel: while_break_kernel
# signature: *i32:16, i32
# grid: (40, 1, 1)
# args: out = empty(40, i32); n_iter = 25
# check: out == ((np.minimum(np.arange(40), n_iter) + 1) // 2) ** 2
# tol: 0
#
# kernel: nested_loops_kernel
# signature: *i32:16, i32, 3
# grid: (1, 1, 1)
# args: out = empty(1, i32); R = 7
# check: out == np.minimum(np.arange(0, R, 2) + 1, 3).sum()
# tol: 0
