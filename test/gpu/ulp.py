#!/usr/bin/env python3
"""The math library on the GPU: for every fp32 function (libdevice.X and tl.X),
tric's kernel and Triton's over ~1e7 inputs, both measured against a float64
reference (numpy, or the math module vectorized), then a table:

  function | max ulp tric (normal, all) | max ulp Triton | bit-identical to Triton | specials differing

ulps are of the fp32 result at the reference value (subnormal spacing below
2^-126); where the reference is inf or NaN, a result that is not the same
counts in the last column instead. Triton is skipped when it is not installed.

usage: ulp.py [--n N] [--fn NAME ...] [--fp64]
Environment: TRIC_LIBRARY as for test_python.py.
"""
import argparse
import math
import os
import sys
import tempfile
import importlib.util

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))

# name, call text (x, y are the inputs), arity, float64 reference, input ranges
# (lo, hi) sampled uniformly, plus always some random finite bit patterns
def _erf(v):
    try:
        from scipy.special import erf
        return erf(v)
    except ImportError:
        return np.vectorize(math.erf, otypes=[np.float64])(v)


FUNCTIONS = [
    ("tanh", "libdevice.tanh(x)", 1, np.tanh, [(-10, 10), (-1e-3, 1e-3)]),
    ("erf", "tl.erf(x)", 1, _erf, [(-5, 5), (-1e-3, 1e-3)]),
    ("exp", "libdevice.exp(x)", 1, np.exp, [(-100, 89)]),
    ("exp10", "libdevice.exp10(x)", 1, lambda x: np.power(10.0, x), [(-40, 38)]),
    ("expm1", "libdevice.expm1(x)", 1, np.expm1, [(-5, 5), (-1e-4, 1e-4)]),
    ("log1p", "libdevice.log1p(x)", 1, np.log1p, [(-0.99, 10), (-1e-4, 1e-4), (0, 1e30)]),
    ("log10", "libdevice.log10(x)", 1, np.log10, [(0, 10), (0, 1e30)]),
    ("sinh", "libdevice.sinh(x)", 1, np.sinh, [(-90, 90), (-1, 1)]),
    ("cosh", "libdevice.cosh(x)", 1, np.cosh, [(-90, 90)]),
    ("asinh", "libdevice.asinh(x)", 1, np.arcsinh, [(-100, 100), (-1e30, 1e30)]),
    ("acosh", "libdevice.acosh(x)", 1, np.arccosh, [(1, 100), (1, 1e30)]),
    ("atanh", "libdevice.atanh(x)", 1, np.arctanh, [(-1, 1)]),
    ("atan", "libdevice.atan(x)", 1, np.arctan, [(-10, 10), (-1e30, 1e30)]),
    ("asin", "libdevice.asin(x)", 1, np.arcsin, [(-1, 1)]),
    ("acos", "libdevice.acos(x)", 1, np.arccos, [(-1, 1)]),
    ("cbrt", "libdevice.cbrt(x)", 1, np.cbrt, [(-1000, 1000), (-1e30, 1e30)]),
    ("atan2", "libdevice.atan2(x, y)", 2, np.arctan2, [(-10, 10)]),
    ("pow", "libdevice.pow(x, y)", 2, np.power, [(0, 10)]),
    ("hypot", "libdevice.hypot(x, y)", 2, np.hypot, [(-1e3, 1e3)]),
    ("tan", "libdevice.tan(x)", 1, np.tan, [(-10, 10)]),
    ("floor", "tl.floor(x)", 1, np.floor, [(-100, 100)]),
    ("ceil", "tl.ceil(x)", 1, np.ceil, [(-100, 100)]),
    ("rint", "libdevice.rint(x)", 1, np.rint, [(-100, 100)]),
    ("round", "libdevice.round(x)", 1, lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5), [(-100, 100)]),
    ("sqrt_rn", "tl.sqrt_rn(x)", 1, np.sqrt, [(0, 1e6)]),
    ("div_rn", "tl.div_rn(x, y)", 2, np.divide, [(-100, 100)]),
    ("fma", "tl.fma(x, y, x)", 2, lambda x, y: x * y + x, [(-100, 100)]),
    ("log", "libdevice.log(x)", 1, np.log, [(0, 100)]),
    ("sin", "tl.sin(x)", 1, np.sin, [(-100, 100)]),
    ("cos", "tl.cos(x)", 1, np.cos, [(-100, 100)]),
    ("fast_expf", "libdevice.fast_expf(x)", 1, np.exp, [(-80, 80)]),
    ("fast_logf", "libdevice.fast_logf(x)", 1, np.log, [(0, 100)]),
    ("fast_sinf", "libdevice.fast_sinf(x)", 1, np.sin, [(-3.14, 3.14)]),
    ("fast_cosf", "libdevice.fast_cosf(x)", 1, np.cos, [(-3.14, 3.14)]),
]

KERNEL = '''
@triton.jit
def k_{name}(x_ptr, y_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=1.0)
    y = tl.load(y_ptr + offs, mask=m, other=1.0)
    tl.store(o_ptr + offs, {call}, mask=m)
'''


def write_module(fns, dtype_name):
    src = ["import triton", "import triton.language as tl", "from triton.language.extra import libdevice", ""]
    for name, call, *_ in fns:
        src.append(KERNEL.format(name=name, call=call))
    d = tempfile.mkdtemp(prefix="tric_ulp_")
    path = os.path.join(d, "ulp_kernels.py")
    with open(path, "w") as f:
        f.write("\n".join(src))
    return path


def import_file(path):
    spec = importlib.util.spec_from_file_location("ulp_kernels", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def inputs(rng, n, ranges, dtype):
    parts = []
    k = len(ranges) + 1
    for lo, hi in ranges:
        parts.append(rng.uniform(lo, hi, n // k))
    bits = rng.integers(0, 2 ** 32, n - sum(len(p) for p in parts), dtype=np.uint64).astype(np.uint32)
    b = bits.view(np.float32)
    b = np.where(np.isfinite(b), b, np.float32(1.0)).astype(np.float64)
    parts.append(b)
    return np.concatenate(parts).astype(dtype)


def ulps(got, ref, keep):
    """|got - ref| in fp32 ulps at ref over the inputs in keep; (finite part,
    count of special mismatches)"""
    got, ref = got.astype(np.float64)[keep], ref[keep]
    r32 = ref.astype(np.float32).astype(np.float64)
    special = ~np.isfinite(r32) | ~np.isfinite(got)
    same_special = special & ((got == r32) | (np.isnan(got) & np.isnan(r32)))
    bad_special = int(np.count_nonzero(special & ~same_special))
    fin = ~special
    a = np.abs(ref[fin])
    e = np.floor(np.log2(np.maximum(a, 2.0 ** -126)))
    ulp = np.exp2(e - 23)
    err = np.abs(got[fin] - ref[fin]) / ulp
    return (float(err.max()) if err.size else 0.0), bad_special


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10_000_000)
    ap.add_argument("--fn", nargs="*")
    args = ap.parse_args()
    np.seterr(all="ignore")   # references of out-of-range inputs overflow on purpose
    import torch
    import tric
    try:
        import triton
    except ImportError:   # the kernels' `import triton` gets tric (as test_python.py's drop-in)
        triton = None
        import tric.language
        sys.modules["triton"], sys.modules["triton.language"] = tric, tric.language
    fns = [f for f in FUNCTIONS if not args.fn or f[0] in args.fn]
    mod = import_file(write_module(fns, "fp32"))
    rng = np.random.default_rng(1)
    block = 1024
    grid = ((args.n + block - 1) // block,)
    print("max ulp over normal inputs and results (Triton flushes subnormals); tric's over all inputs too")
    print(f"{'function':<12} {'tric':>10} {'tric, all':>10} {'Triton':>10} {'identical':>10} {'specials':>9}")
    for name, call, arity, ref_fn, ranges in fns:
        x = inputs(rng, args.n, ranges, np.float32)
        y = inputs(rng, args.n, ranges, np.float32) if arity == 2 else np.ones(args.n, np.float32)
        xd, yd = torch.from_numpy(x).cuda(), torch.from_numpy(y).cuda()
        ref = ref_fn(x.astype(np.float64), y.astype(np.float64)) if arity == 2 else ref_fn(x.astype(np.float64))
        # Triton's libdevice runs with flush-to-zero: subnormal inputs and
        # results are counted apart (flushed results would be ~2^23 ulp)
        tiny = 2.0 ** -126
        normal = ((np.abs(x) >= tiny) | (x == 0)) & ((np.abs(y) >= tiny) | (y == 0))
        normal &= ~((np.abs(ref) < tiny) & (ref != 0))
        kern = getattr(mod, "k_" + name)
        out = torch.empty_like(xd)
        tric.jit(kern.fn)[grid](xd, yd, out, args.n, BLOCK=block)
        torch.cuda.synchronize()
        mine = out.cpu().numpy()
        u_tric, s_tric = ulps(mine, ref, normal)
        u_tric_all, _ = ulps(mine, ref, np.ones_like(normal))
        u_tri, same = float("nan"), float("nan")
        if triton is not None:
            out2 = torch.empty_like(xd)
            kern[grid](xd, yd, out2, args.n, BLOCK=block)
            torch.cuda.synchronize()
            theirs = out2.cpu().numpy()
            u_tri, _ = ulps(theirs, ref, normal)
            same = float(np.mean(mine.view(np.uint32) == theirs.view(np.uint32)))
        print(f"{name:<12} {u_tric:>10.3f} {u_tric_all:>10.3f} {u_tri:>10.3f} {same:>10.4f} {s_tric:>9d}")


if __name__ == "__main__":
    main()
