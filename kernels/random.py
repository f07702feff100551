"""
Triton's random numbers: tl.randint, tl.randint4x, tl.rand, tl.randn (and
the 4x forms) from (seed, offsets). Each reference recomputes Philox-4x32
with check's philox(seed, offsets, k[, rounds]) (interp/args.c in C,
test/gpu/run_kernels.py in numpy), so the integers must match Triton's bit
for bit; the floats follow Triton's conversion: the word as int32, x < 0 ?
-x - 1 : x, times 4.6566127342e-10 in f32 (reproduced exactly below with
astype(np.float32)); normals are Box-Muller on the first two uniforms,
u1 clamped to 1e-7 and the angle 2 pi u2 rounded to f32 as on the GPU.
"""
import triton
import triton.language as tl


@triton.jit
def random_kernel(seed, i_ptr, w0_ptr, w1_ptr, w2_ptr, w3_ptr, u_ptr, nrm_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(i_ptr + offs, tl.randint(seed, offs), mask=mask)
    a, b, c, d = tl.randint4x(seed, offs)
    tl.store(w0_ptr + offs, a, mask=mask)
    tl.store(w1_ptr + offs, b, mask=mask)
    tl.store(w2_ptr + offs, c, mask=mask)
    tl.store(w3_ptr + offs, d, mask=mask)
    tl.store(u_ptr + offs, tl.rand(seed, offs), mask=mask)
    tl.store(nrm_ptr + offs, tl.randn(seed, offs), mask=mask)

# kernel: random_kernel
# signature: i32, *u32:16, *u32:16, *u32:16, *u32:16, *u32:16, *fp32:16, *fp32:16, i32, 256
# grid: (cdiv(n, 256), 1, 1)
# args: seed = -123; i = empty(n, u32); w0 = empty(n, u32); w1 = empty(n, u32); w2 = empty(n, u32); w3 = empty(n, u32); u = empty(n, fp32); nrm = empty(n, fp32); n = 1500
# bench_args: seed = -123; i = empty(n, u32); w0 = empty(n, u32); w1 = empty(n, u32); w2 = empty(n, u32); w3 = empty(n, u32); u = empty(n, fp32); nrm = empty(n, fp32); n = 1 << 22
# torch: u = torch.rand(n, device=u.device); nrm = torch.randn(n, device=nrm.device)
# check: i == philox(seed, np.arange(n), 0); w0 == philox(seed, np.arange(n), 0); w1 == philox(seed, np.arange(n), 1); w2 == philox(seed, np.arange(n), 2); w3 == philox(seed, np.arange(n), 3); u == (np.where(philox(seed, np.arange(n), 0) < 2**31, philox(seed, np.arange(n), 0), 2**32 - 1 - philox(seed, np.arange(n), 0)).astype(np.float32) * 4.6566125955216364e-10).astype(np.float32); nrm == np.sqrt(-2 * np.log(np.maximum((np.where(philox(seed, np.arange(n), 0) < 2**31, philox(seed, np.arange(n), 0), 2**32 - 1 - philox(seed, np.arange(n), 0)).astype(np.float32) * 4.6566125955216364e-10).astype(np.float32), 1e-7))) * np.cos(((np.where(philox(seed, np.arange(n), 1) < 2**31, philox(seed, np.arange(n), 1), 2**32 - 1 - philox(seed, np.arange(n), 1)).astype(np.float32) * 4.6566125955216364e-10).astype(np.float32) * 6.2831854820251465).astype(np.float32))
# tol: u: 0; nrm: 1e-5


@triton.jit
def random4x_kernel(seed, base, u0_ptr, u3_ptr, n1_ptr, n2_ptr, w_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = base + pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    idx = pid * BLOCK + tl.arange(0, BLOCK)
    mask = idx < n
    u0, u1, u2, u3 = tl.rand4x(seed, offs, n_rounds=7)
    tl.store(u0_ptr + idx, u0, mask=mask)
    tl.store(u3_ptr + idx, u3, mask=mask)
    n0, n1, n2, n3 = tl.randn4x(seed, offs, 7)
    tl.store(n1_ptr + idx, n1, mask=mask)
    tl.store(n2_ptr + idx, n2, mask=mask)
    w = tl.randint(seed, offs, n_rounds=7)
    tl.store(w_ptr + idx, w, mask=mask)

# kernel: random4x_kernel
# signature: i64, i64, *fp32:16, *fp32:16, *fp32:16, *fp32:16, *u32:16, i32, 128
# grid: (cdiv(n, 128), 1, 1)
# args: seed = 81985529216486895; base = 21474836000; u0 = empty(n, fp32); u3 = empty(n, fp32); n1 = empty(n, fp32); n2 = empty(n, fp32); w = empty(n, u32); n = 1000
# check: w == philox(seed, base + np.arange(n), 0, 7); u0 == (np.where(philox(seed, base + np.arange(n), 0, 7) < 2**31, philox(seed, base + np.arange(n), 0, 7), 2**32 - 1 - philox(seed, base + np.arange(n), 0, 7)).astype(np.float32) * 4.6566125955216364e-10).astype(np.float32); u3 == (np.where(philox(seed, base + np.arange(n), 3, 7) < 2**31, philox(seed, base + np.arange(n), 3, 7), 2**32 - 1 - philox(seed, base + np.arange(n), 3, 7)).astype(np.float32) * 4.6566125955216364e-10).astype(np.float32); n1 == np.sqrt(-2 * np.log(np.maximum((np.where(philox(seed, base + np.arange(n), 0, 7) < 2**31, philox(seed, base + np.arange(n), 0, 7), 2**32 - 1 - philox(seed, base + np.arange(n), 0, 7)).astype(np.float32) * 4.6566125955216364e-10).astype(np.float32), 1e-7))) * np.sin(((np.where(philox(seed, base + np.arange(n), 1, 7) < 2**31, philox(seed, base + np.arange(n), 1, 7), 2**32 - 1 - philox(seed, base + np.arange(n), 1, 7)).astype(np.float32) * 4.6566125955216364e-10).astype(np.float32) * 6.2831854820251465).astype(np.float32)); n2 == np.sqrt(-2 * np.log(np.maximum((np.where(philox(seed, base + np.arange(n), 2, 7) < 2**31, philox(seed, base + np.arange(n), 2, 7), 2**32 - 1 - philox(seed, base + np.arange(n), 2, 7)).astype(np.float32) * 4.6566125955216364e-10).astype(np.float32), 1e-7))) * np.cos(((np.where(philox(seed, base + np.arange(n), 3, 7) < 2**31, philox(seed, base + np.arange(n), 3, 7), 2**32 - 1 - philox(seed, base + np.arange(n), 3, 7)).astype(np.float32) * 4.6566125955216364e-10).astype(np.float32) * 6.2831854820251465).astype(np.float32))
# tol: u0: 0; u3: 0; n1: 1e-5; n2: 1e-5
