#!/usr/bin/env python3
"""make bench-all: every kernel test block of kernels/*.py through tric's Python
package and through real Triton, side by side, with torch where the block
says how (`# torch:`), in one table.

For each block:
  1. at the block's test size (`# args:`), new JIT objects of the same Python
     function, triton.jit(fn) and tric.jit(fn), each launched once with the
     outputs poisoned and checked against the block's numpy reference
     (run_kernels' comparison): the time of that first launch, from the JIT
     object's creation to the finished kernel, is the cold compile (caches
     empty: TRITON_CACHE_DIR and TRIC_CACHE_DIR are fresh directories); then
     two more new JIT objects, whose first launch finds the disk cache
     populated, give the warm compile (tric's output is checked again);
  2. at benchmark size (`# bench_args:` and `# bench_grid:` when the block
     has them, else the test ones), inputs made once (fresh random data,
     seed printed, TRIC_SEED to repeat), both outputs compared with each
     other on the GPU (integers exactly, floats within the block's
     tolerance), then each launch timed with CUDA events: a GPU sleep first
     keeps Python's launch cost out of the interval, several launches per
     interval, the median of the intervals;
  3. the `# torch:` statements (names: the block's args as tensors and
     numbers, `torch`, `F` = torch.nn.functional) timed the same way, and
     their result compared with tric's (a mismatch is only a note: it means
     the torch line is not quite the same computation).

GB/s counts every pointer argument once (read or written). Ratios below 1
mean tric is faster. Both compilers are warmed up on an empty kernel first,
so the cold column is the per-kernel cost, not the process's first-use cost.
"""
import os
import signal
import statistics
import sys
import tempfile
import time

# fresh, empty caches, before either compiler is loaded
os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="tric-sbs-triton-")
os.environ["TRIC_CACHE_DIR"] = tempfile.mkdtemp(prefix="tric-sbs-tric-")

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "test", "gpu"))
sys.path.insert(0, HERE)
import run_kernels as rk  # noqa: E402
import test_python as tp  # noqa: E402  (BlockRun: a test block as torch tensors and launch arguments)

SLEEP_CYCLES = 4_000_000   # about 2 ms of GPU clock: covers the CPU side of the launches in one interval
REPS = 11
INTERVAL_MS = 5.0          # launches per interval: enough to fill this, at most 10


def gpu_ms(torch, fn):
    """Median GPU time of one call of fn, by CUDA events."""
    fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    fn()
    torch.cuda.synchronize()
    once_ms = (time.perf_counter() - t0) * 1e3
    inner = max(1, min(10, int(INTERVAL_MS / max(once_ms, 1e-3))))
    times = []
    for _ in range(REPS):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(SLEEP_CYCLES)
        start.record()
        for _ in range(inner):
            fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / inner)
    return statistics.median(times)


def first_launch_ms(torch, make_jit, run, start):
    """A new JIT object and its first launch from the buffers' state `start` (kernels may
    update inputs in place), to the kernel's end: (ms, the object)."""
    run.restore(start)
    run.poison()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    kernel = make_jit()
    run.launch(kernel)
    return (time.perf_counter() - t0) * 1e3, kernel


def warm_up_compilers(torch, tric, triton):
    """One compile and launch each, so process start-up costs stay out of the table."""
    import launch_overhead
    x = torch.zeros(64, device="cuda")
    for kernel in (launch_overhead.empty_kernel, tric.jit(launch_overhead.empty_kernel.fn)):
        kernel[(1,)](x, 0, BLOCK=32, num_warps=1)
    torch.cuda.synchronize()


class Row:
    def __init__(self, label):
        self.label = label
        self.tric_ms = self.triton_ms = self.torch_ms = None
        self.cold = {}
        self.warm = {}
        self.nbytes = 0
        self.problems = []
        self.notes = []


def torch_statements(torch, run, text):
    """The block's torch line compiled, and the names it may use."""
    env = {"torch": torch, "F": torch.nn.functional, "np": np}
    for k, v in run.env.items():
        if isinstance(v, (bool, int, float, np.number)):
            env[k] = v
    env.update(run.tensors)
    return compile("\n".join(rk.split_top(text, ";")), f"<torch: {run.kernel}>", "exec"), env


def check_torch(torch, run, code, base, got):
    """Notes where the torch statements compute something other than tric did."""
    env = dict(base)
    exec(code, env)
    notes = []
    for name in run.outputs:
        res = env.get(name)
        if not isinstance(res, torch.Tensor):
            continue
        want = got[name]
        res = res.to(want.dtype).reshape(want.shape)
        msg, _ = tp.compare_tensors(torch, want, res, run.types[name], run.tolerance(name))
        if msg:
            notes.append(f"torch line, {name}: {msg}")
    return notes


def bench_block(torch, tric, triton, path, i, block, seed, row):
    mod = tp.import_kernel_file(path)
    fn = getattr(mod, block["kernel"]).fn

    # ---- test size: correctness against the reference, cold and warm compiles
    small = tp.BlockRun(torch, path, block, tp.block_rng(seed, path, i))
    start = small.save()
    try:
        row.cold["triton"], tri_k = first_launch_ms(torch, lambda: triton.jit(fn), small, start)
        row.problems += [f"triton: {p}" for p in small.check()]
        row.warm["triton"], _ = first_launch_ms(torch, lambda: triton.jit(fn), small, start)
    except Exception as e:   # Triton's limits: the row shows tric alone
        row.notes.append(f"Triton cannot run it: {type(e).__name__}: {str(e)[:200]}")
        tri_k = None
    row.cold["tric"], tric_k = first_launch_ms(torch, lambda: tric.jit(fn), small, start)
    row.problems += [f"tric: {p}" for p in small.check()]
    row.warm["tric"], _ = first_launch_ms(torch, lambda: tric.jit(fn), small, start)
    row.problems += [f"tric (from the disk cache): {p}" for p in small.check()]
    del small

    # ---- benchmark size: the two agree, then the timings
    big = tp.BlockRun(torch, path, block, tp.block_rng(seed + 1, path, i), "bench_args", "bench_grid")
    row.nbytes = big.nbytes()
    start = big.save()
    big.poison()
    big.launch(tric_k)
    got = big.snapshot()
    if tri_k is not None:
        big.restore(start)
        big.poison()
        big.launch(tri_k)
        diff, _ = tp.compare_outputs(torch, big, got, big.snapshot())
        row.problems += [f"tric vs triton at benchmark size: {p}" for p in diff]

    def launcher(k):
        return lambda: k[big.grid](*big.args, **big.kwargs_for(k), num_warps=big.num_warps)

    row.tric_ms = gpu_ms(torch, launcher(tric_k))
    if tri_k is not None:
        row.triton_ms = gpu_ms(torch, launcher(tri_k))
    if block.get("torch"):
        try:
            code, base = torch_statements(torch, big, block["torch"])
            row.notes += check_torch(torch, big, code, base, got)
            row.torch_ms = gpu_ms(torch, lambda: exec(code, dict(base)))
        except Exception as e:
            row.notes.append(f"torch line failed: {type(e).__name__}: {e}")
    del got, big
    torch.cuda.empty_cache()


def fmt(v, spec):
    return "-" if v is None else format(v, spec)


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def print_table(rows, title):
    print(title)
    head = (f"{'kernel':<38}{'MB':>6}{'tric ms':>9}{'Triton':>9}{'torch':>9}{'tric GB/s':>10}"
            f"{'/Triton':>8}{'/torch':>8}{'cold tric':>10}{'Triton':>9}{'warm tric':>10}{'Triton':>8}  check")
    print(head)
    print("-" * len(head))
    for r in rows:
        gbs = r.nbytes / r.tric_ms / 1e6 if r.tric_ms else None
        print(f"{r.label[:37]:<38}{r.nbytes / 1e6:>6.0f}{fmt(r.tric_ms, '.4f'):>9}{fmt(r.triton_ms, '.4f'):>9}"
              f"{fmt(r.torch_ms, '.4f'):>9}{fmt(gbs, '.0f'):>10}{fmt(ratio(r.tric_ms, r.triton_ms), '.3f'):>8}"
              f"{fmt(ratio(r.tric_ms, r.torch_ms), '.3f'):>8}{fmt(r.cold.get('tric'), '.1f'):>10}"
              f"{fmt(r.cold.get('triton'), '.1f'):>9}{fmt(r.warm.get('tric'), '.1f'):>10}"
              f"{fmt(r.warm.get('triton'), '.1f'):>8}  {'FAIL' if r.problems else 'ok'}")
    print("times in ms; kernel columns: median GPU time per launch (CUDA events); /Triton, /torch: tric's time "
          "over theirs (< 1: tric faster); cold: new JIT object, empty disk cache, to the end of the first "
          "launch at test size; warm: the same with the disk cache populated")


def main(argv):
    import torch

    if not torch.cuda.is_available():
        print("side_by_side: no CUDA device")
        return 1
    torch.cuda.init()
    import triton
    import tric

    files = tp.kernel_files(argv)
    seed = int(os.environ.get("TRIC_SEED", int(time.time() * 1000) % 2**31))
    t_start = time.perf_counter()
    warm_up_compilers(torch, tric, triton)
    rows = []
    # stopped from outside (a timeout's SIGTERM): still print the rows measured so far
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        for path in files:
            for i, block in enumerate(rk.parse_blocks(path), 1):
                row = Row(f"{os.path.basename(path)[:-3]}#{i} {block['kernel']}")
                try:
                    bench_block(torch, tric, triton, path, i, block, seed, row)
                except Exception as e:   # one block's failure is reported in its row
                    row.problems.append(f"{type(e).__name__}: {e}")
                    torch.cuda.empty_cache()
                rows.append(row)
                print(f"side_by_side: {row.label}: {time.perf_counter() - t_start:.1f} s", file=sys.stderr)
    except KeyboardInterrupt:
        print(f"side_by_side: interrupted after {len(rows)} blocks", file=sys.stderr)
    for r in rows:
        for p in r.problems:
            print(f"[FAIL] {r.label}: " + str(p).replace("\n", "\n    "))
        for n in r.notes:
            print(f"[note] {r.label}: {n}")
    print_table(rows, f"tric {tric.__version__ if hasattr(tric, '__version__') else ''} vs Triton "
                      f"{triton.__version__} vs torch {torch.__version__}, {torch.cuda.get_device_name()}, "
                      f"seed {seed}, {time.perf_counter() - t_start:.0f} s")
    return 1 if any(r.problems for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
