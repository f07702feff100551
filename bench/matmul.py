#!/usr/bin/env python3
"""make bench-matmul: fp16 matmul, M = N = K in {1024, 2048, 4096, 8192}, on
one GPU in one process: tric (mma.sync), Triton 3.6 (wgmma on an H100) and
cuBLAS through torch.mm, side by side (issue 6, "Performance").

tric and Triton run the same source, kernels/matmul.py's matmul_kernel
(ACTIVATION "", fp16 output), each under its own autotune config list; the
autotuners time every config the first time a size is seen. Before timing,
each result is checked against a float64 reference of the same fp16 inputs:
||c - ref|| / ||ref|| <= 2^-11 (the fp16 output's rounding) + 8 sqrt(K)
2^-23 (fp32 accumulation); a failure is printed and makes the exit status 1
(the timing still runs, so the table is complete).

Timing: CUDA events around REPS intervals of LAUNCHES launches each, a GPU
sleep queued first so that the CPU's launch cost stays outside the
intervals; the launches cycle over INPUT_SETS input pairs (distinct
buffers, so no launch finds its inputs in L2 from the one before); the
median interval over the launches, after 300 ms of the same launches
(the clock settles to the library's own power draw). TFLOP/s = 2 M N K /
time.

Then, per size, the config tric's autotuner chose, with its registers per
thread and spilled bytes (cuFuncGetAttribute, after the driver's JIT) and
its shared memory (tric_kernel_shared_bytes).

usage: matmul.py [SIZE ...]      (default 1024 2048 4096 8192)
"""
import math
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "test", "gpu"))

SIZES = (1024, 2048, 4096, 8192)
REPS = 15
INPUT_SETS = 4
SLEEP_CYCLES = 4_000_000   # about 2 ms: covers the CPU side of one interval's launches
WARM_MS = 300              # launches before the timing, per library and size


def cfg(lib, bm, bn, bk, warps, stages):
    return lib.Config({"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": 8},
                      num_warps=warps, num_stages=stages)


def tric_configs(tric):
    """For an H100 on mma.sync (228 KB shared memory and 64K registers per SM):
    - 128x256 and 256x128 tiles, BK 64, 8 warps, 3 or 4 stages: each warp owns a
      64x64 piece, so every ldmatrix'ed A and B fragment feeds 4 and 8
      m16n8k16 mma.sync (the most mma per shared-memory read), 48 KB per
      stage, 144 KB for 3, 192 KB for 4; 128 fp32 accumulators per thread;
    - 128x256, BK 32, 4 stages: the same warp tile with half the shared
      memory per stage and more stages in flight (fewer registers live);
    - 128x128, 8 warps (BK 64 / 32): 64 accumulators per thread, room for
      two CTAs per SM in shared memory; 4 warps: 64x64 per warp again, and
      with 3 stages (96 / 48 KB) two CTAs per SM, whose barriers interleave;
    - 64x128 / 128x64 / 64x64, 4 warps: enough CTAs for the 132 SMs at the
      small sizes (1024^2 has 32 tiles of 128x256 but 128 of 64x128)."""
    return [cfg(tric, 128, 256, 64, 8, 3), cfg(tric, 256, 128, 64, 8, 3), cfg(tric, 128, 256, 64, 8, 4),
            cfg(tric, 256, 128, 64, 8, 4), cfg(tric, 128, 256, 32, 8, 4),
            cfg(tric, 128, 128, 64, 8, 4), cfg(tric, 128, 128, 32, 8, 4), cfg(tric, 128, 128, 32, 4, 4),
            cfg(tric, 128, 128, 64, 4, 3), cfg(tric, 128, 128, 32, 4, 3),
            cfg(tric, 64, 128, 64, 4, 4), cfg(tric, 128, 64, 64, 4, 4), cfg(tric, 64, 64, 64, 4, 4)]


def triton_configs(triton):
    """The Triton tutorial's CUDA list plus large 8-warp tiles (wgmma's
    64xN warpgroup tiles want 128 or 256 rows per CTA on Hopper)."""
    return [cfg(triton, 128, 256, 64, 8, 3), cfg(triton, 256, 128, 64, 8, 3), cfg(triton, 128, 256, 64, 8, 4),
            cfg(triton, 128, 128, 64, 8, 4), cfg(triton, 64, 256, 32, 4, 4), cfg(triton, 128, 128, 32, 4, 4),
            cfg(triton, 128, 64, 32, 4, 4), cfg(triton, 64, 128, 32, 4, 4), cfg(triton, 128, 32, 32, 4, 4),
            cfg(triton, 64, 32, 32, 2, 5), cfg(triton, 32, 64, 32, 2, 5)]


def make_launcher(lib, kernel):
    """f(a, b, c): c = a @ b through an autotuned matmul_kernel; returns what
    the launch returns (tric: the CompiledKernel of the chosen config)."""
    def run(a, b, c):
        M, K = a.shape
        N = b.shape[1]
        grid = lambda META: (lib.cdiv(M, META["BLOCK_SIZE_M"]) * lib.cdiv(N, META["BLOCK_SIZE_N"]),)  # noqa: E731
        return kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                            c.stride(1), ACTIVATION="", INPUT_PRECISION="tf32")
    return run


def gpu_ms(torch, fn, sets):
    """Median milliseconds of one fn(a, b, c), cycling over the input sets,
    after WARM_MS of the same launches: the card's clock follows its power
    draw with a lag, so each library is timed in its own steady state, not
    in the wake of what ran before it."""
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


def rel_error(torch, c, ref):
    return float(torch.linalg.vector_norm(c.double() - ref) / torch.linalg.vector_norm(ref))


def main(argv):
    import torch
    import triton
    import tric
    import test_python as tp

    if not torch.cuda.is_available():
        print("bench/matmul: no CUDA device")
        return 1
    sizes = [int(a) for a in argv] or list(SIZES)
    seed = int(os.environ.get("TRIC_SEED", int(time.time() * 1000) % 2**31))
    torch.manual_seed(seed)
    path = os.path.join(ROOT, "kernels", "matmul.py")
    mod_triton = tp.import_kernel_file(path)
    mod_tric = tp.import_kernel_file(path, as_triton=tric)
    tuned_tric = tric.autotune(configs=tric_configs(tric), key=["M", "N", "K"])(mod_tric.matmul_kernel)
    tuned_triton = triton.autotune(configs=triton_configs(triton), key=["M", "N", "K"])(mod_triton.matmul_kernel)
    run_tric, run_triton = make_launcher(tric, tuned_tric), make_launcher(triton, tuned_triton)
    run_cublas = lambda a, b, c: torch.mm(a, b, out=c)  # noqa: E731
    print(f"bench/matmul: {torch.cuda.get_device_name()}, torch {torch.__version__}, triton {triton.__version__}, "
          f"tric {tric.__version__}, seed {seed}")
    rows, failures = [], 0
    for n in sizes:
        sets = []
        for _ in range(INPUT_SETS if n <= 4096 else 2):
            a = torch.randn((n, n), device="cuda", dtype=torch.float16)
            b = torch.randn((n, n), device="cuda", dtype=torch.float16)
            sets.append((a, b, torch.empty((n, n), device="cuda", dtype=torch.float16)))
        a, b, _ = sets[0]
        ref = a.double() @ b.double()
        tol = 2.0**-11 + 8 * math.sqrt(n) * 2.0**-23
        row = {"n": n}
        for name, fn in (("tric", run_tric), ("triton", run_triton), ("cublas", run_cublas)):
            c = torch.full((n, n), float("nan"), device="cuda", dtype=torch.float16)
            t0 = time.perf_counter()
            try:
                k = fn(a, b, c)   # the first call at this size autotunes
                torch.cuda.synchronize()
            except Exception as e:
                print(f"[FAIL] {name} {n}: {type(e).__name__}: {e}")
                failures += 1
                row[name] = None
                continue
            tune_s = time.perf_counter() - t0
            err = rel_error(torch, c, ref)
            if not err <= tol:   # NaN (unwritten) fails too
                print(f"[FAIL] {name} {n}: relative error {err:.3g} > {tol:.3g}")
                failures += 1
            row[name + "_err"] = err
            if name == "tric":
                row["config"] = tuned_tric.best_config
                row["regs"], row["spills"], row["smem"] = k.n_regs, k.n_spills, k.metadata.shared
                row["tune_s"] = tune_s
            elif name == "triton":
                row["triton_config"] = tuned_triton.best_config
            ms = gpu_ms(torch, fn, sets)
            row[name] = 2.0 * n * n * n / (ms * 1e-3) / 1e12
        rows.append(row)
        print(f"  {n}: done ({', '.join(f'{k} {row[k]:.0f}' for k in ('tric', 'triton', 'cublas') if row.get(k))} "
              f"TFLOP/s)")
        sys.stdout.flush()
        del sets, ref

    def f(v, spec):
        return format(v, spec) if v is not None else "-"

    def ratio(x, y):
        return f"{x / y:.2f}" if x and y else "-"

    print()
    print(f"{'M=N=K':>6} {'tric':>8} {'Triton':>8} {'cuBLAS':>8} {'tric/cuBLAS':>11} {'tric/Triton':>11}   "
          f"(TFLOP/s, fp16 in and out, fp32 accumulate)")
    for r in rows:
        print(f"{r['n']:>6} {f(r.get('tric'), '8.1f')} {f(r.get('triton'), '8.1f')} {f(r.get('cublas'), '8.1f')} "
              f"{ratio(r.get('tric'), r.get('cublas')):>11} {ratio(r.get('tric'), r.get('triton')):>11}")
    print()
    print(f"{'M=N=K':>6}  {'tric config (BM x BN x BK, warps, stages)':<44} {'regs':>5} {'spill':>6} {'smem':>7} "
          f"{'tune s':>7} {'rel err':>9}   Triton's config")
    for r in rows:
        c = r.get("config")
        desc = (f"{c.kwargs['BLOCK_SIZE_M']}x{c.kwargs['BLOCK_SIZE_N']}x{c.kwargs['BLOCK_SIZE_K']}, "
                f"{c.num_warps} warps, {c.num_stages} stages") if c else "-"
        t = r.get("triton_config")
        tdesc = (f"{t.kwargs['BLOCK_SIZE_M']}x{t.kwargs['BLOCK_SIZE_N']}x{t.kwargs['BLOCK_SIZE_K']}, "
                 f"{t.num_warps} warps, {t.num_stages} stages") if t else "-"
        print(f"{r['n']:>6}  {desc:<44} {f(r.get('regs'), '5d')} {f(r.get('spills'), '6d')} "
              f"{f(r.get('smem'), '7d')} {f(r.get('tune_s'), '7.1f')} {f(r.get('tric_err'), '9.2e')}   {tdesc}")
    print("(spill: 32-bit values per thread in local memory; smem: bytes per CTA)")
    print(f"{len(rows) * 3 - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
