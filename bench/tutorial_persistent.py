#!/usr/bin/env python3
"""Triton's persistent matmul tutorial, as its users have it, through tric
and through Triton in one process, against cuBLAS (torch.matmul).

usage: tutorial_persistent.py TUTORIAL.py [--K 512,4096] [--dtypes fp16,fp8] [--kernels naive,persistent,...]

TUTORIAL.py is Triton's python/tutorials/09-persistent-matmul.py,
unmodified. Its statements up to `matmul_descriptor_persistent` (the
kernels, their autotune config lists and pre-hooks, and their host
wrappers) are run twice, once with `triton` the real Triton and once with
`triton` tric, as bench/tutorial_matmul.py does; on tric's side
`triton.tools.tensor_descriptor` is tric's and the modules the kernels do
not use (`triton.profiler`, `triton._C.libtriton` for cuBLAS) are
Triton's. The wrappers run as the tutorial's benchmark calls them, on its
inputs (M = N = 8192, a = randn(M, K), b = randn(K, N) transposed to be
K-major): naive, persistent, tma and tma_persistent (host
TensorDescriptors), descriptor_persistent (tl.make_tensor_descriptor),
without warp specialization, and descriptor_persistent_ws (the one
warp-specialized form the tutorial runs on Hopper). Each first call
autotunes over the tutorial's own configs; results are checked against a
float64 product, timing is bench/tutorial_matmul.py's (tric and Triton
timed in turn, ROUNDS times).

Printed last: TFLOP/s per kernel, K and dtype, tric/Triton and
tric/cuBLAS, and the configs both autotuners chose.
"""
import argparse
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import tutorial_matmul as tm  # noqa: E402

M = N = 8192

# name -> (wrapper, how the tutorial's benchmark calls it, the autotuned kernel)
KERNELS = {
    "naive": ("matmul", lambda f, a, b: f(a, b.T), "matmul_kernel"),
    "persistent": ("matmul_persistent", lambda f, a, b: f(a, b.T), "matmul_kernel_persistent"),
    "tma": ("matmul_tma", lambda f, a, b: f(a, b, False), "matmul_kernel_tma"),
    "tma_persistent": ("matmul_tma_persistent", lambda f, a, b: f(a, b, False), "matmul_kernel_tma_persistent"),
    "descriptor_persistent": ("matmul_descriptor_persistent", lambda f, a, b: f(a, b, False),
                              "matmul_kernel_descriptor_persistent"),
    "descriptor_persistent_ws": ("matmul_descriptor_persistent", lambda f, a, b: f(a, b, True),
                                 "matmul_kernel_descriptor_persistent"),
}


def cfg_desc(c):
    if c is None:
        return "-"
    k = c.kwargs
    sub = "/sub" if k.get("EPILOGUE_SUBTILE") else ""
    return f"{k['BLOCK_SIZE_M']}x{k['BLOCK_SIZE_N']}x{k['BLOCK_SIZE_K']}{sub} {c.num_warps}w{c.num_stages}s"


def inputs(torch, K, dtype):
    a = torch.randn((M, K), device="cuda", dtype=torch.float16)
    b = torch.randn((K, N), device="cuda", dtype=torch.float16)
    if dtype == "fp8":
        a, b = a.to(torch.float8_e4m3fn), b.to(torch.float8_e4m3fn)
    return a, b.T.contiguous()


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("tutorial")
    ap.add_argument("--K", default="512,4096")
    ap.add_argument("--dtypes", default="fp16")
    ap.add_argument("--kernels", default=",".join(KERNELS))
    args = ap.parse_args(argv)
    import torch
    import triton
    import triton.profiler
    import triton._C.libtriton
    import tric
    import tric.language
    import tric.tools.tensor_descriptor

    last = "matmul_descriptor_persistent"
    ns_triton = tm.load(args.tutorial, "tutorial09_triton", last=last)
    ns_tric = tm.load(args.tutorial, "tutorial09_tric", tm.tric_as_triton(torch, tric), tric.language, last=last,
                      modules={"profiler": triton.profiler, "_C": triton._C, "_C.libtriton": triton._C.libtriton,
                               "tools": tric.tools, "tools.tensor_descriptor": tric.tools.tensor_descriptor})
    seed = int(os.environ.get("TRIC_SEED", int(time.time() * 1000) % 2**31))
    torch.manual_seed(seed)
    print(f"tutorial_persistent: {torch.cuda.get_device_name()}, torch {torch.__version__}, triton "
          f"{triton.__version__}, tric {tric.__version__}, seed {seed}")
    rows, failures = [], 0
    for dtype in args.dtypes.split(","):
        for K in [int(k) for k in args.K.split(",")]:
            sets = [inputs(torch, K, dtype) for _ in range(2)]
            a, b = sets[0]
            ref = a.double() @ b.double().T
            # the output's rounding (fp16, or e4m3 for fp8: the tutorial writes C in the input type) plus the sums'
            out_unit = 2.0**-11 if dtype == "fp16" else 2.0**-4
            tol = out_unit + 8 * math.sqrt(K) * (2.0**-23 if dtype == "fp16" else 2.0**-18)
            flops = 2.0 * M * N * K
            cublas = None
            if dtype == "fp16":
                ms = tm.gpu_ms(torch, lambda x, y: torch.matmul(x, y.T), sets)
                cublas = flops / (ms * 1e-3) / 1e12
            for kname in args.kernels.split(","):
                wrapper, call, kernel = KERNELS[kname]
                row = {"kernel": kname, "K": K, "dtype": dtype, "cublas": cublas}
                timed = []
                for lib, ns in (("tric", ns_tric), ("triton", ns_triton)):
                    fn = ns[wrapper]
                    try:
                        t0 = time.perf_counter()
                        c = call(fn, a, b)   # the first call autotunes
                        torch.cuda.synchronize()
                        row[lib + "_tune_s"] = time.perf_counter() - t0
                    except Exception as e:
                        print(f"[FAIL] {lib} {kname} {dtype} K={K}: {type(e).__name__}: {str(e)[:400]}")
                        failures += 1
                        continue
                    err = float(torch.linalg.vector_norm(c.double() - ref) / torch.linalg.vector_norm(ref))
                    if not err <= tol:
                        print(f"[FAIL] {lib} {kname} {dtype} K={K}: relative error {err:.3g} > {tol:.3g}")
                        failures += 1
                    timed.append((lib, lambda x, y, fn=fn: call(fn, x, y)))
                    row[lib + "_cfg"] = getattr(ns[kernel], "best_config", None)
                for (lib, _), ms in zip(timed, tm.paired_ms(torch, [f for _, f in timed], sets)):
                    row[lib] = flops / (ms * 1e-3) / 1e12
                rows.append(row)
                print(f"  {dtype} K={K} {kname}: " + ", ".join(f"{k} {row[k]:.0f}" for k in ("tric", "triton", "cublas")
                                                              if row.get(k)) + " TFLOP/s")
                sys.stdout.flush()
            del sets, ref

    def ratio(x, y):
        return f"{x / y:.3f}" if x and y else "-"

    print()
    print(f"{'kernel':<25} {'dtype':>5} {'K':>5} {'tric':>7} {'Triton':>7} {'cuBLAS':>7} {'tric/Triton':>11} "
          f"{'tric/cuBLAS':>11}   tric config / Triton config")
    for r in rows:
        print(f"{r['kernel']:<25} {r['dtype']:>5} {r['K']:>5} {r.get('tric') or 0:7.1f} {r.get('triton') or 0:7.1f} "
              f"{r.get('cublas') or 0:7.1f} {ratio(r.get('tric'), r.get('triton')):>11} "
              f"{ratio(r.get('tric'), r.get('cublas')):>11}   {cfg_desc(r.get('tric_cfg'))} / "
              f"{cfg_desc(r.get('triton_cfg'))}")
    print(f"(TFLOP/s on {torch.cuda.get_device_name()}, M = N = {M}; {len(rows)} rows, {failures} failures)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
