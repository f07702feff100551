#!/usr/bin/env python3
"""One kernel test block at benchmark size, launched through tric and through
Triton, for a profiler: `ncu -k regex:NAME --launch-skip 2 --launch-count 2
python3 bench/profile_pair.py FILE INDEX` profiles tric's launch, then Triton's
(the first two launches compile and warm up). With OUTDIR, both PTX texts are
written there, and Triton's cubin (for cuobjdump -sass); tric's CLI prints
its own PTX.

usage: profile_pair.py KERNEL_FILE BLOCK_INDEX [OUTDIR]
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "test", "gpu"))
import run_kernels as rk  # noqa: E402
import test_python as tp  # noqa: E402


def main(argv):
    import torch
    import triton
    import tric
    path, index = argv[1], int(argv[2])
    outdir = argv[3] if len(argv) > 3 else None
    block = rk.parse_blocks(path)[index]
    fn = getattr(tp.import_kernel_file(path), block["kernel"]).fn
    run = tp.BlockRun(torch, path, block, tp.block_rng(1, path, index), "bench_args", "bench_grid")
    kernels = [tric.jit(fn), triton.jit(fn)]
    def launch(k):
        return k[run.grid](*run.args, **run.kwargs_for(k), num_warps=run.num_warps)
    compiled = [launch(k) for k in kernels]   # compile + warm up
    for k in kernels:
        launch(k)                              # the profiled launches: tric, then Triton
    torch.cuda.synchronize()
    if outdir and hasattr(compiled[1], "asm"):
        with open(os.path.join(outdir, "triton.ptx"), "w") as f:
            f.write(compiled[1].asm["ptx"])
        with open(os.path.join(outdir, "triton.cubin"), "wb") as f:
            f.write(compiled[1].asm["cubin"])


if __name__ == "__main__":
    main(sys.argv)
