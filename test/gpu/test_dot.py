#!/usr/bin/env python3
"""make gpu-test: tl.dot's correctness matrix on the GPU (issue 6).

M, N, K each in {1, 15, 16, 17, 127, 128, 129, 1000, 4096}, crossed with A
and B each row- or column-major (the layout through the strides, the same
buffer values), for fp16 (fp16 output), bf16 (fp32 output), fp32 as tf32,
fp32 'ieee' and int8 (int32 output): kernels/matmul.py's matmul_kernel and
int8_matmul_kernel through tric's Python package on torch tensors, outputs
poisoned (NaN, or 0xAB bytes) before every launch, checked against a float64
reference computed on the GPU by torch (exact for int8: every partial sum
is below 2^53).

What runs (default): every shape of the 9^3 for every dtype; every shape
with at most one dimension of 4096 in all 4 layouts; the 25 shapes with two
or three dimensions of 4096 in all 4 layouts for fp16 and in one layout each
for the other dtypes, the layout rotating over the shapes (each layout sees
six or seven of them). `--full` runs every layout of every shape.

Compiles: M, N, K and the strides are run-time arguments. The kernel of
each dtype is compiled once with specialization off for them (no i32:16 /
constant-1 variants: one compile for the whole matrix), and, for shapes
whose dims are all in {16, 128, 4096} (every stride then 1 or a multiple of
16), once per layout with Triton's specialization (the :16 hints, as a user
launch gets them).

Check: ||c - ref|| / scale (L2 over the elements checked; scale = ||ref||,
or ||(|A| |B|)|| / sqrt(K) where that is larger: a single output whose terms
cancel is far smaller than its rounding errors, which scale with the terms,
and random terms sum to about sqrt(K) of their size) within the
dtype's bound, no NaN (or unwritten 0xAB pattern) anywhere in c. Where
M*N*K > 2^31, the reference is computed for a sample of rows and columns
(both ends, both sides of every 128 boundary, 128 random ones) and compared
there; the whole output is still checked for unwritten elements. Bounds,
with u(t) the unit roundoff of type t (2^-11 fp16 and tf32, 2^-8 bf16,
2^-24 fp32) and the inputs exactly as stored:
  fp16  u(fp16) (the fp16 output's rounding, at most u of each element)
        + 8 sqrt(K) 2^-23 (fp32 accumulation, errors adding as a random
        walk, with the tensor core's adder counted as one bit worse than RN)
  bf16  2^-24 + 8 sqrt(K) 2^-23 (fp32 output: accumulation only)
  tf32  4 u(tf32) = 2^-9: each operand rounded to tf32 (rna, relative error
        <= 2^-11 each, independent), about sqrt(2/3) 2^-11 = 4e-4 of the
        result on random data; the reference is the float64 product of the
        unrounded fp32 inputs
  ieee  2^-24 + 8 sqrt(K) 2^-24 (one rounding per k, fp32 FMA)
  int8  exact
Prints one line per dtype and the failures, then `N passed, N failed`;
exits 1 on any failure. Environment: TRIC_SEED repeats a run; TRIC_ARCH=sm_80
compiles the Ampere PTX.

usage: test_dot.py [--full] [--dtypes fp16,bf16,tf32,ieee,int8]
"""
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, HERE)

SIZES = (1, 15, 16, 17, 127, 128, 129, 1000, 4096)
ALIGNED = (16, 128, 4096)
LAYOUTS = (("row", "row"), ("row", "col"), ("col", "row"), ("col", "col"))   # (A, B)
FULL_CHECK_LIMIT = 1 << 31   # M*N*K above this: sampled reference
MAX_PRINTED = 25             # failures printed per dtype

# dtype: (input torch dtype, output torch dtype, kernel, tile config, input precision)
#   tiles are (BLOCK_M, BLOCK_N, BLOCK_K, num_warps): tric's ptxas report for
#   the unspecialized kernel (sm_90a) shows no spills at these
DTYPES = {
    "fp16": ("float16", "float16", "matmul", (64, 128, 32, 8), "tf32"),
    "bf16": ("bfloat16", "float32", "matmul", (64, 128, 32, 8), "tf32"),
    "tf32": ("float32", "float32", "matmul", (128, 64, 32, 8), "tf32"),
    "ieee": ("float32", "float32", "matmul", (64, 64, 16, 8), "ieee"),
    "int8": ("int8", "int32", "int8", (128, 128, 32, 8), None),
}
INT_PARAMS = {
    "matmul": ["M", "N", "K", "stride_am", "stride_ak", "stride_bk", "stride_bn", "stride_cm", "stride_cn"],
    "int8": ["M", "N", "K", "stride_am", "stride_ak", "stride_bk", "stride_bn", "stride_cm"],
}


def bound(dt, K):
    acc = 8 * math.sqrt(K)
    return {"fp16": 2.0**-11 + acc * 2.0**-23, "bf16": 2.0**-24 + acc * 2.0**-23, "tf32": 2.0**-9,
            "ieee": 2.0**-24 + acc * 2.0**-24, "int8": 0.0}[dt]


def plan(full):
    """[(dtype-independent) shape, layouts for fp16, layouts for the others]."""
    out, big = [], 0
    for M in SIZES:
        for N in SIZES:
            for K in SIZES:
                n4096 = (M == 4096) + (N == 4096) + (K == 4096)
                if full or n4096 < 2:
                    out.append(((M, N, K), LAYOUTS, LAYOUTS))
                else:
                    out.append(((M, N, K), LAYOUTS, (LAYOUTS[big % 4],)))
                    big += 1
    return out


def sample(torch, n, gen):
    """Indices to check along a dim of n: both ends, both sides of each 128
    boundary, 128 random ones."""
    idx = {0, n - 1} | {i for b in range(128, n, 128) for i in (b - 1, b)}
    idx |= set(torch.randperm(n, generator=gen, device="cuda")[:128].tolist())
    return torch.tensor(sorted(idx), dtype=torch.long, device="cuda")


class Kernels:
    """Per dtype: the unspecialized kernel and the Triton-specialized one."""

    def __init__(self, tric, mod):
        self.generic, self.special = {}, {}
        for name, fn in (("matmul", mod.matmul_kernel), ("int8", mod.int8_matmul_kernel)):
            self.generic[name] = tric.jit(fn.fn, do_not_specialize=INT_PARAMS[name])
            self.special[name] = tric.jit(fn.fn)


def make_inputs(torch, dt, M, N, K, gen):
    in_dtype = getattr(torch, DTYPES[dt][0])
    if dt == "int8":
        a = torch.randint(-128, 128, (M, K), generator=gen, dtype=torch.int8, device="cuda")
        b = torch.randint(-128, 128, (K, N), generator=gen, dtype=torch.int8, device="cuda")
    else:
        a = torch.randn((M, K), generator=gen, device="cuda").to(in_dtype)
        b = torch.randn((K, N), generator=gen, device="cuda").to(in_dtype)
    return a, b


def with_layout(t, layout):
    """The same values, stored row-major (t itself) or column-major (the
    transpose of a contiguous copy of t.T: strides (1, rows))."""
    return t if layout == "row" else t.t().contiguous().t()


class Case:
    """One dtype x shape: inputs and the (possibly sampled) reference, made
    once and shared by the layouts."""

    def __init__(self, torch, dt, M, N, K, gen):
        self.M, self.N, self.K = M, N, K
        self.a, self.b = make_inputs(torch, dt, M, N, K, gen)
        a64, b64 = self.a.double(), self.b.double()
        if M * N * K > FULL_CHECK_LIMIT:
            self.rows, self.cols = sample(torch, M, gen), sample(torch, N, gen)
            a64, b64 = a64[self.rows], b64[:, self.cols]
        else:
            self.rows = self.cols = None
        self.ref = a64 @ b64
        # the scale errors are relative to: ||ref||, or where the sums cancel
        # (one output element: its value may be far below its terms) the
        # size a sum of K such terms has without cancellation
        self.scale = max(float(torch.linalg.vector_norm(self.ref)),
                         float(torch.linalg.vector_norm(a64.abs() @ b64.abs())) / math.sqrt(max(K, 1)))


def launch(torch, kernels, dt, case, layout, specialized):
    in_name, out_name, kind, (BM, BN, BK, warps), prec = DTYPES[dt]
    a, b = with_layout(case.a, layout[0]), with_layout(case.b, layout[1])
    M, N, K = case.M, case.N, case.K
    c = torch.empty((M, N), dtype=getattr(torch, out_name), device="cuda")
    if c.is_floating_point():
        c.fill_(float("nan"))
    else:
        c.view(torch.uint8).fill_(0xAB)
    k = (kernels.special if specialized else kernels.generic)[kind]
    grid_mn = (M + BM - 1) // BM * ((N + BN - 1) // BN)
    if kind == "matmul":
        k[(grid_mn,)](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                      BLOCK_SIZE_M=BM, BLOCK_SIZE_N=BN, BLOCK_SIZE_K=BK, GROUP_SIZE_M=8, ACTIVATION="",
                      INPUT_PRECISION=prec, num_warps=warps, num_stages=3)
    else:
        k[((M + BM - 1) // BM, (N + BN - 1) // BN, 1)](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                                                     b.stride(1), c.stride(0), BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK,
                                                     num_warps=warps, num_stages=3)
    return c


def check(torch, dt, case, c):
    """None, or what is wrong; the relative error as the second value."""
    if c.is_floating_point():
        unwritten = int(torch.isnan(c).sum())
    else:
        unwritten = int((c == -0x54545455).sum())   # 0xABABABAB: possible, but not for |c| <= 2^26
    if unwritten:
        return f"{unwritten} of {c.numel()} elements unwritten (NaN / 0xAB)", None
    got = c if case.rows is None else c[case.rows][:, case.cols]
    if dt == "int8":
        bad = int((got.double() != case.ref).sum())
        return (f"{bad} of {got.numel()} checked elements differ" if bad else None), 0.0
    err = float(torch.linalg.vector_norm(got.double() - case.ref))
    rel = err / case.scale if case.scale > 0 else err
    tol = bound(dt, case.K)
    return (f"relative error {rel:.3g} > {tol:.3g}" if not rel <= tol else None), rel


def main(argv):
    import torch
    import tric
    import test_python as tp

    full = "--full" in argv
    dtypes = list(DTYPES)
    for i, a in enumerate(argv):
        if a == "--dtypes" and i + 1 < len(argv):
            dtypes = argv[i + 1].split(",")
    if not torch.cuda.is_available():
        print("test_dot: no CUDA device")
        return 1
    seed = int(os.environ.get("TRIC_SEED", int(time.time() * 1000) % 2**31))
    print(f"test_dot: seed {seed} (TRIC_SEED={seed} repeats this run); {'full' if full else 'default'} plan")
    mod = tp.import_kernel_file(os.path.join(ROOT, "kernels", "matmul.py"), as_triton=tric)
    kernels = Kernels(tric, mod)
    gen = torch.Generator(device="cuda")
    npass = nfail = 0
    t_all = time.perf_counter()
    for dt in dtypes:
        if dt not in DTYPES:
            print(f"test_dot: unknown dtype {dt}")
            return 1
        gen.manual_seed(seed + sum(map(ord, dt)))
        t0 = time.perf_counter()
        runs = fails = 0
        worst = (0.0, None)
        for (M, N, K), fp16_layouts, other_layouts in plan(full):
            case = Case(torch, dt, M, N, K, gen)
            specialized = all(d in ALIGNED for d in (M, N, K))
            for layout in (fp16_layouts if dt == "fp16" else other_layouts):
                label = f"{dt} M={M} N={N} K={K} A {layout[0]} B {layout[1]}{' (:16)' if specialized else ''}"
                try:
                    c = launch(torch, kernels, dt, case, layout, specialized)
                    msg, rel = check(torch, dt, case, c)
                except Exception as e:   # a compile or launch error fails this case
                    msg, rel = f"{type(e).__name__}: {e}", None
                    if "CUDA_ERROR_ILLEGAL" in str(e) or "LAUNCH_FAILED" in str(e) or "MISALIGNED" in str(e):
                        print(f"[FAIL] {label}: {msg}\n  the CUDA context is lost: stopping")
                        print(f"{npass} passed, {nfail + 1} failed")
                        return 1
                runs += 1
                if rel is not None and rel / max(bound(dt, K), 1e-300) > worst[0] and dt != "int8":
                    worst = (rel / bound(dt, K), f"{rel:.3g} at M={M} N={N} K={K}")
                if msg:
                    fails += 1
                    if fails <= MAX_PRINTED:
                        print(f"[FAIL] {label}: {msg}")
                    elif fails == MAX_PRINTED + 1:
                        print(f"[FAIL] ... (further {dt} failures counted, not printed)")
            del case
        npass += runs - fails
        nfail += fails
        tile = DTYPES[dt][3]
        print(f"{dt:5s} {runs - fails:5d} passed {fails:4d} failed  tile {tile[0]}x{tile[1]}x{tile[2]} "
              f"{tile[3]} warps  {time.perf_counter() - t0:6.1f} s  worst error/bound "
              f"{worst[0]:.2f} ({worst[1] or 'exact'})")
        sys.stdout.flush()
    print(f"test_dot: {time.perf_counter() - t_all:.1f} s")
    print(f"{npass} passed, {nfail} failed")
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
