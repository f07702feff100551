#!/usr/bin/env python3
"""Launch overhead from Python: an empty kernel launched 10,000 times back to
back through tric's package and through Triton, after warm-up.

The kernel takes a pointer and an int and stores under a mask that is false
at run time (n = 0), so the GPU does next to nothing and the time is the
CPU's: time.perf_counter around the loop of launches, then a synchronize
outside the interval. Repetitions alternate between the two so drift hits
both alike; the median per launch is reported. tric's must not be higher
than Triton's (exit status 1 if it is).

usage: launch_overhead.py [LAUNCHES [REPS]]     (default 10000 7)
"""
import os
import statistics
import sys
import time

import triton
import triton.language as tl

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))


@triton.jit
def empty_kernel(ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(ptr + offs, 0.0, mask=offs < n)


def launch_loop_us(torch, kernel, x, launches):
    """CPU microseconds per launch of `launches` back-to-back launches."""
    grid = (1,)
    t0 = time.perf_counter()
    for _ in range(launches):
        kernel[grid](x, 0, BLOCK=32, num_warps=1)
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    return (t1 - t0) / launches * 1e6


def main(argv):
    import torch

    if not torch.cuda.is_available():
        print("launch_overhead: no CUDA device")
        return 1
    import tric

    launches = int(argv[0]) if argv else 10000
    reps = int(argv[1]) if len(argv) > 1 else 7
    x = torch.full((32,), 7.0, device="cuda")
    kernels = {"tric": tric.jit(empty_kernel.fn), "triton": empty_kernel}
    for k in kernels.values():   # compile, load, and warm the launch path
        launch_loop_us(torch, k, x, 200)
    if not torch.equal(x, torch.full_like(x, 7.0)):
        print("launch_overhead: the empty kernel stored something")
        return 1
    times = {name: [] for name in kernels}
    for _ in range(reps):
        for name, k in kernels.items():
            times[name].append(launch_loop_us(torch, k, x, launches))
    med = {name: statistics.median(t) for name, t in times.items()}
    print(f"launch overhead, {launches} launches x {reps} repetitions, {torch.cuda.get_device_name()}, "
          f"Triton {triton.__version__}")
    print(f"{'':<8}{'median us':>10}{'min us':>9}{'max us':>9}")
    for name, t in times.items():
        print(f"{name:<8}{med[name]:>10.2f}{min(t):>9.2f}{max(t):>9.2f}")
    ok = med["tric"] <= med["triton"]
    print(f"tric/triton {med['tric'] / med['triton']:.3f}: {'PASS' if ok else 'FAIL'} "
          f"(tric's launch must not cost more than Triton's)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
