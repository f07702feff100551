# RUN: -k sum_until -s '*i32, *i32, i32, i32' --emit ir
# RUN: -k sum_until -s '*i32, *i32, i32, i32' --dump-after dce -o /dev/null
# RUN: -k countdown -s '*i32, i32' --dump-after dce -o /dev/null
# RUN: -k while_continue -s '*i32, i32' --dump-after dce -o /dev/null
# A `for` with a run-time break lowers to a `while` carrying the induction
# variable, whose condition is `iv < ub and not brk`; the rest of a body
# after a break or continue runs under `if not flag`, and fold turns the
# flags' `if c -> true else false` back into c (or `not c`).
import triton
import triton.language as tl


@triton.jit
def sum_until(x_ptr, out_ptr, n, lim):
    acc = 0
    for k in range(0, n):
        if k >= lim:
            break
        if k % 3 == 1:
            continue
        acc += tl.load(x_ptr + k)
    tl.store(out_ptr, acc)


@triton.jit
def countdown(out_ptr, n):
    # a negative step: the body sees k = 10, 9, ... while it runs upwards
    last = 0
    for k in range(10, 0, -1):
        if k * k < n:
            break
        last = k
    tl.store(out_ptr, last)


@triton.jit
def while_continue(out_ptr, n):
    i = 0
    s = 0
    while i < n:
        i += 1
        if i % 2 == 0:
            continue
        s += i
    tl.store(out_ptr, s)
