#!/usr/bin/env python3
"""make bench: vector add of 2^28 fp32 on the GPU, tric against Triton and torch.

The kernel is kernels/vector_add.py (its first test block names the kernel
and signature). tric compiles it through libtric.so; Triton imports the same
file and runs the same @triton.jit function. Both try BLOCK 1024/2048/4096
with 4 and 8 warps and keep their best. torch runs x + y, and a device-to-
device copy shows the memory system's ceiling. Times are the median of 30
launches after warm-up, by CUDA events. GB/s counts 3 * 4 * N bytes for the
adds and 2 * 4 * N for the copy. Cold compile: the tric compile call (and its
first launch, which JIT-loads the PTX) against Triton's first launch with an
empty TRITON_CACHE_DIR.
"""
import ast
import importlib.util
import os
import sys
import tempfile
import time

os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="tric-bench-triton-")   # before triton loads

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "test", "gpu"))
import run_kernels  # noqa: E402  (the libtric binding and test-block parser)

KERNEL_FILE = os.path.join(ROOT, "kernels", "vector_add.py")
N = 1 << 28
BLOCKS = (1024, 2048, 4096)
WARPS = (4, 8)


def median_ms(torch, fn, iters=30, warmup=5):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(iters):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    times.sort()
    return times[len(times) // 2]


def constexpr_params(path, kernel):
    """(all parameter names, index of the first constexpr one) of the kernel's def."""
    for node in ast.parse(open(path).read()).body:
        if isinstance(node, ast.FunctionDef) and node.name == kernel:
            names = [a.arg for a in node.args.args]
            const = [i for i, a in enumerate(node.args.args)
                     if a.annotation is not None and ast.unparse(a.annotation).endswith("constexpr")]
            return names, const[0]
    raise SystemExit(f"bench: no def {kernel} in {path}")


def main():
    import torch

    if not torch.cuda.is_available():
        print("bench: no CUDA device")
        return 1
    block = run_kernels.parse_blocks(KERNEL_FILE)[0]
    kname = block["kernel"]
    names, bidx = constexpr_params(KERNEL_FILE, kname)
    sig = run_kernels.split_top(block["signature"], ",")

    x = torch.rand(N, device="cuda")
    y = torch.rand(N, device="cuda")
    out = torch.empty_like(x)
    ref = x + y
    stream = torch.cuda.current_stream().cuda_stream
    rows = []

    # ---- tric
    tric = run_kernels.Tric()
    best, cold = None, None
    for b in BLOCKS:
        for w in WARPS:
            sig[bidx] = str(b)
            t0 = time.perf_counter()
            k = tric.compile(KERNEL_FILE, kname, ", ".join(sig), num_warps=w)
            t1 = time.perf_counter()
            t_compile = t1 - t0
            grid = ((N + b - 1) // b,)
            args = [x.data_ptr(), y.data_ptr(), out.data_ptr(), N]
            out.fill_(float("nan"))
            t1 = time.perf_counter()
            k.launch(grid, args, stream)
            torch.cuda.synchronize()
            if cold is None:
                cold = (t_compile, time.perf_counter() - t1)
            if not torch.equal(out, ref):   # a fast wrong kernel must not win
                print(f"bench: tric's result is wrong with BLOCK={b} warps={w}")
                return 1
            ms = median_ms(torch, lambda: k.launch(grid, args, stream))
            if best is None or ms < best[0]:
                best = (ms, f"BLOCK={b} warps={w}", k)
    rows.append(("tric", best[1], best[0], 12 * N))

    # ---- Triton, the same source
    spec = importlib.util.spec_from_file_location("vector_add_kernels", KERNEL_FILE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    jit_fn = getattr(mod, kname)
    best_t, triton_cold = None, None
    for b in BLOCKS:
        for w in WARPS:
            grid = ((N + b - 1) // b,)
            kwargs = {names[bidx]: b, "num_warps": w}
            out.fill_(float("nan"))
            t0 = time.perf_counter()
            jit_fn[grid](x, y, out, N, **kwargs)
            torch.cuda.synchronize()
            if triton_cold is None:
                triton_cold = time.perf_counter() - t0
            if not torch.equal(out, ref):
                print(f"bench: Triton's result is wrong with BLOCK={b} warps={w}")
                return 1
            ms = median_ms(torch, lambda: jit_fn[grid](x, y, out, N, **kwargs))
            if best_t is None or ms < best_t[0]:
                best_t = (ms, f"BLOCK={b} warps={w}")
    rows.append(("triton", best_t[1], best_t[0], 12 * N))

    # ---- torch and the copy ceiling
    rows.append(("torch x + y", "", median_ms(torch, lambda: torch.add(x, y, out=out)), 12 * N))
    rows.append(("copy (d2d)", "", median_ms(torch, lambda: out.copy_(x)), 8 * N))

    print(f"vector add, N = 2^28 fp32, {torch.cuda.get_device_name()} (tric {best[2].arch})")
    print(f"{'':<14}{'config':<22}{'ms':>9}{'GB/s':>9}")
    for name, cfg, ms, nbytes in rows:
        print(f"{name:<14}{cfg:<22}{ms:>9.3f}{nbytes / ms / 1e6:>9.0f}")
    tric_ms, triton_ms, torch_ms = rows[0][2], rows[1][2], rows[2][2]
    print(f"tric/triton time ratio {tric_ms / triton_ms:.3f}   tric/torch {tric_ms / torch_ms:.3f}   (< 1: tric faster)")
    print(f"cold compile: tric {cold[0] * 1e3:.1f} ms (+ {cold[1] * 1e3:.1f} ms first launch, driver JIT)   "
          f"triton first launch {triton_cold * 1e3:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
