#!/usr/bin/env python3
"""The matmul tutorial of Triton, as its users have it, through tric and
through Triton in one process, against cuBLAS (torch.matmul).

usage: tutorial_matmul.py TUTORIAL.py [--sizes 4096,8192] [--dtypes fp16,fp8] [--arch sm_80]

TUTORIAL.py is Triton's python/tutorials/03-matrix-multiplication.py,
unmodified. Its top-level statements up to its `matmul` wrapper (imports,
the autotune configs, `matmul_kernel` under `@triton.autotune`,
`leaky_relu`, `matmul`) are run twice, once with `triton` the real Triton
and once with `triton` tric (plus the two device queries the tutorial
makes at import: `triton.runtime.driver.active`'s torch device and
target), so each library compiles the same source with its own autotuner
over the tutorial's own config list. The rest of the file (its tests,
plots and benchmark loop) is not run: the inputs are the tutorial
benchmark's (fp16: randn; fp8: randn cast to e5m2, b transposed first, so
b is K-major) and the timing is bench/matmul.py's: CUDA events around
REPS intervals of launches cycling over input sets, after WARM_MS of the
same launches; the median interval. The libraries are timed in turn,
ROUNDS times (ABBA..., so clock drift over the run weighs on each alike),
and each one's median is reported.

Each result is checked against a float64 product of the same inputs:
relative L2 error under 2^-11 (the fp16 output's rounding) + 8 sqrt(K)
2^-23 (fp32 accumulation); for fp8 inputs 8 sqrt(K) 2^-18, since Hopper's
tensor cores sum fp8 products with fewer bits (on an H200: 8.7e-4 at
K = 4096, the same in Triton).

--arch sm_80 compiles tric's side for sm_80 (mma.sync, no wgmma) and asks
Triton for its sm_80 code too (TRITON_OVERRIDE_ARCH): the check that the
analysis, not wgmma, closes the gap.

Printed last: TFLOP/s per size and dtype, tric/Triton and tric/cuBLAS,
the configs both autotuners chose, and for every config of the tutorial's
list tric's registers, spilled bytes and shared memory at the largest
size.
"""
import argparse
import ast
import math
import os
import statistics
import sys
import time
import types

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "python"))

REPS = 15
WARM_MS = 300
SLEEP_CYCLES = 4_000_000
ROUNDS = 3


def tutorial_code(path, last="matmul"):
    """The tutorial's statements up to and including `def LAST`, compiled
    with the tutorial's own file name (tric reads kernels from it)."""
    with open(path) as f:
        src = f.read()
    tree = ast.parse(src, path)
    body = []
    for node in tree.body:
        body.append(node)
        if isinstance(node, ast.FunctionDef) and node.name == last:
            break
    else:
        raise SystemExit(f"{path}: no `def {last}` (not the tutorial expected?)")
    return compile(ast.Module(body=body, type_ignores=[]), path, "exec")


def tric_as_triton(torch, tric):
    """A `triton` module that is tric, with the device queries the tutorials
    make at import (tric has no triton.runtime yet)."""
    mod = types.ModuleType("triton")
    for name in dir(tric):
        if not name.startswith("__"):
            setattr(mod, name, getattr(tric, name))
    target = types.SimpleNamespace(backend="cuda", arch=90, warp_size=32)
    active = types.SimpleNamespace(get_active_torch_device=lambda: torch.device("cuda"),
                                   get_current_target=lambda: target)
    mod.runtime = types.SimpleNamespace(driver=types.SimpleNamespace(active=active))
    return mod


def load(path, name, triton_mod=None, language=None, last="matmul", modules=None):
    """The tutorial's namespace, with `import triton` giving triton_mod (and
    `import triton.X` modules[X])."""
    ns = {"__name__": name, "__file__": path}
    code = tutorial_code(path, last)
    if triton_mod is None:
        exec(code, ns)
        return ns
    saved = {k: v for k, v in sys.modules.items() if k == "triton" or k.startswith("triton.")}
    sys.modules["triton"], sys.modules["triton.language"] = triton_mod, language
    for k, m in (modules or {}).items():
        sys.modules["triton." + k] = m
    try:
        exec(code, ns)
    finally:
        for k in [k for k in sys.modules if k == "triton" or k.startswith("triton.")]:
            del sys.modules[k]
        sys.modules.update(saved)
    return ns


def gpu_ms(torch, fn, sets):
    for s in sets:
        fn(*s)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    fn(*sets[0])
    torch.cuda.synchronize()
    one = max(time.perf_counter() - t0, 1e-6) * 1e3
    launches = max(len(sets), min(100, int(20.0 / one)))
    for i in range(max(len(sets), int(WARM_MS / one))):
        fn(*sets[i % len(sets)])
    torch.cuda.synchronize()
    times = []
    for _ in range(REPS):
        torch.cuda._sleep(SLEEP_CYCLES)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for i in range(launches):
            fn(*sets[i % len(sets)])
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / launches)
    return statistics.median(times)


def paired_ms(torch, fns, sets, rounds=ROUNDS):
    """gpu_ms of each of fns, ROUNDS times over, in turn (forward, then
    backward: ABBA...), so a drift of the GPU's clocks over the run weighs on
    all alike; each one's median"""
    runs = [[] for _ in fns]
    for r in range(rounds):
        order = range(len(fns)) if r % 2 == 0 else reversed(range(len(fns)))
        for i in order:
            runs[i].append(gpu_ms(torch, fns[i], sets))
    return [statistics.median(t) for t in runs]


def inputs(torch, n, dtype):
    a = torch.randn((n, n), device="cuda", dtype=torch.float16)
    b = torch.randn((n, n), device="cuda", dtype=torch.float16)
    if dtype == "fp8":   # the tutorial's benchmark: b transposed, then cast
        a = a.to(torch.float8_e5m2)
        b = b.T.to(torch.float8_e5m2)
    return a, b


def cfg_desc(c):
    if c is None:
        return "-"
    k = c.kwargs
    return f"{k['BLOCK_SIZE_M']}x{k['BLOCK_SIZE_N']}x{k['BLOCK_SIZE_K']}, {c.num_warps}w, {c.num_stages}s"


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("tutorial")
    ap.add_argument("--sizes", default="4096,8192")
    ap.add_argument("--dtypes", default="fp16,fp8")
    ap.add_argument("--arch", default=None, help="sm_80: both sides compile for sm_80")
    args = ap.parse_args(argv)
    if args.arch:
        os.environ["TRIC_ARCH"] = args.arch
        os.environ["TRITON_OVERRIDE_ARCH"] = args.arch.replace("_", "")   # Triton spells it sm80
    import torch
    import triton
    import tric
    import tric.language

    ns_triton = load(args.tutorial, "tutorial03_triton")
    ns_tric = load(args.tutorial, "tutorial03_tric", tric_as_triton(torch, tric), tric.language)
    seed = int(os.environ.get("TRIC_SEED", int(time.time() * 1000) % 2**31))
    torch.manual_seed(seed)
    print(f"tutorial_matmul: {torch.cuda.get_device_name()}, torch {torch.__version__}, triton {triton.__version__}, "
          f"tric {tric.__version__}, arch {args.arch or 'native'}, seed {seed}")
    rows, failures = [], 0
    sizes = [int(s) for s in args.sizes.split(",")]
    for dtype in args.dtypes.split(","):
        for n in sizes:
            sets = [inputs(torch, n, dtype) for _ in range(4 if n <= 4096 else 2)]
            a, b = sets[0]
            ref = a.double() @ b.double()
            # fp8: the tensor cores' fp8 sums carry fewer bits than fp32 (the same error in Triton)
            tol = 2.0**-11 + 8 * math.sqrt(n) * (2.0**-23 if dtype == "fp16" else 2.0**-18)
            row = {"n": n, "dtype": dtype}
            libs = [("tric", ns_tric["matmul"]), ("triton", ns_triton["matmul"])]
            if dtype == "fp16":
                libs.append(("cublas", lambda x, y: torch.matmul(x, y)))
            timed = []
            for name, fn in libs:
                try:
                    t0 = time.perf_counter()
                    c = fn(a, b)   # the first call at a size autotunes
                    torch.cuda.synchronize()
                    row[name + "_tune_s"] = time.perf_counter() - t0
                except Exception as e:
                    print(f"[FAIL] {name} {dtype} {n}: {type(e).__name__}: {str(e)[:400]}")
                    failures += 1
                    continue
                err = float(torch.linalg.vector_norm(c.double() - ref) / torch.linalg.vector_norm(ref))
                if not err <= tol:
                    print(f"[FAIL] {name} {dtype} {n}: relative error {err:.3g} > {tol:.3g}")
                    failures += 1
                row[name + "_err"] = err
                timed.append((name, fn))
            for (name, _), ms in zip(timed, paired_ms(torch, [fn for _, fn in timed], sets)):
                row[name] = 2.0 * n ** 3 / (ms * 1e-3) / 1e12
            row["tric_cfg"] = ns_tric["matmul_kernel"].best_config
            row["triton_cfg"] = ns_triton["matmul_kernel"].best_config
            rows.append(row)
            print(f"  {dtype} {n}: " + ", ".join(f"{k} {row[k]:.0f}" for k in ("tric", "triton", "cublas") if row.get(k))
                  + " TFLOP/s")
            sys.stdout.flush()
            del sets, ref

    # every config of the tutorial's list, compiled by tric at the largest size
    n = max(sizes)
    a, b = inputs(torch, n, "fp16")
    c = torch.empty((n, n), device="cuda", dtype=torch.float16)
    base = ns_tric["matmul_kernel"].fn
    print()
    print(f"tric, every config of the tutorial's list (fp16, {n}): registers, spilled bytes, shared memory")
    for conf in ns_tric["matmul_kernel"].configs:
        k = conf.kwargs
        grid = (tric.cdiv(n, k["BLOCK_SIZE_M"]) * tric.cdiv(n, k["BLOCK_SIZE_N"]),)
        try:
            ck = base[grid](a, b, c, n, n, n, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                            c.stride(1), ACTIVATION="", num_warps=conf.num_warps, num_stages=conf.num_stages, **k)
            print(f"  {cfg_desc(conf):<28} regs {ck.n_regs:>3}  spills {ck.n_spills:>4}  smem {ck.metadata.shared:>6}")
        except Exception as e:
            print(f"  {cfg_desc(conf):<28} {type(e).__name__}: {str(e)[:200]}")

    def ratio(x, y):
        return f"{x / y:.3f}" if x and y else "-"

    print()
    print(f"{'dtype':>5} {'M=N=K':>6} {'tric':>7} {'Triton':>7} {'cuBLAS':>7} {'tric/Triton':>11} {'tric/cuBLAS':>11}"
          f"   tric config / Triton config")
    for r in rows:
        print(f"{r['dtype']:>5} {r['n']:>6} {r.get('tric', 0):7.1f} {r.get('triton', 0):7.1f} {r.get('cublas', 0):7.1f} "
              f"{ratio(r.get('tric'), r.get('triton')):>11} {ratio(r.get('tric'), r.get('cublas')):>11}   "
              f"{cfg_desc(r.get('tric_cfg'))} / {cfg_desc(r.get('triton_cfg'))}")
    print(f"(TFLOP/s on {torch.cuda.get_device_name()}; {len(rows)} rows, {failures} failures)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
