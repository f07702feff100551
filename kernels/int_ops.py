"""
Integer semantics: C-style // and % (truncation toward zero) on signed ints,
shifts, bitwise ops, unsigned arithmetic, int8 wrap-around, int64 offsets and
integer/float conversions.
"""
import triton
import triton.language as tl


@triton.jit
def int_ops_kernel(a_ptr, b_ptr, q_ptr, r_ptr, bits_ptr, u_ptr, w_ptr, f_ptr, n,
                   BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=0)            # i32, any sign
    b = tl.load(b_ptr + offs, mask=mask, other=1)            # i32, nonzero
    tl.store(q_ptr + offs, a // b, mask=mask)
    tl.store(r_ptr + offs, a % b, mask=mask)
    bits = ((a << 3) ^ (a >> 2)) & 0x7FFF | (b & 7)
    tl.store(bits_ptr + offs, bits, mask=mask)
    u = a.to(tl.uint32)
    tl.store(u_ptr + offs, (u >> 28) + (u // 3), mask=mask)
    small = a.to(tl.int8)
    tl.store(w_ptr + offs, small + small, mask=mask)          # int8 wraps
    tl.store(f_ptr + offs, (a // 1000).to(tl.float32) * 0.5, mask=mask)

# kernel: int_ops_kernel
# signature: *i32:16, *i32:16, *i32:16, *i32:16, *i32:16, *u32:16, *i8:16, *fp32:16, i32, 512
# grid: (cdiv(n, 512), 1, 1)
# args: a = randint(-100000, 100000, n, i32); b = randint(1, 50, n, i32) * randsign(n); q = empty(n, i32); r = empty(n, i32); bits = empty(n, i32); u = empty(n, u32); w = empty(n, i8); f = empty(n, fp32); n = 4099
# bench_args: a = randint(-100000, 100000, n, i32); b = randint(1, 50, n, i32) * randsign(n); q = empty(n, i32); r = empty(n, i32); bits = empty(n, i32); u = empty(n, u32); w = empty(n, i8); f = empty(n, fp32); n = 1 << 24
# torch: q = torch.div(a, b, rounding_mode='trunc'); r = torch.fmod(a, b); bits = ((a << 3) ^ (a >> 2)) & 0x7FFF | (b & 7); u = ((a.long() & 0xFFFFFFFF) >> 28) + (a.long() & 0xFFFFFFFF) // 3; w = a.to(torch.int8) * 2; f = torch.div(a, 1000, rounding_mode='trunc').float() * 0.5
# check: q == np.trunc(a / b); r == np.fmod(a, b); bits == ((a << 3) ^ (a >> 2)) & 0x7FFF | (b & 7); u == ((a % 2**32) >> 28) + (a % 2**32) // 3; w == wrap((a % 256) * 2, i8); f == np.trunc(a / 1000) * 0.5
# tol: 0
