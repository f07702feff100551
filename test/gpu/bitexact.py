#!/usr/bin/env python3
"""tric against Triton, bit for bit, on the GPU: fp32 tl.log, tl.sin, tl.cos
and tl.sqrt over all 2^32 bit patterns (in chunks of 2^28), and tl.randn over
2^24 offsets for three seeds. Both compilers run the same @triton.jit
functions in one process on the same torch tensors (tric through
tric.jit(fn.fn), as test_python.py does). Prints, per function, how many
inputs give outputs that differ bitwise (two NaNs count as equal) and the
first few of them; exits 1 if any differ.

usage: bitexact.py [--chunks N]   (N chunks of 2^28 inputs: default all 16)
Environment: TRIC_LIBRARY as for test_python.py.
"""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

import tric  # noqa: E402

CHUNK = 1 << 28
BLOCK = 1024
SHOW = 5


@triton.jit
def k_log(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    tl.store(y_ptr + o, tl.log(tl.load(x_ptr + o, mask=m)), mask=m)


@triton.jit
def k_sin(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    tl.store(y_ptr + o, tl.sin(tl.load(x_ptr + o, mask=m)), mask=m)


@triton.jit
def k_cos(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    tl.store(y_ptr + o, tl.cos(tl.load(x_ptr + o, mask=m)), mask=m)


@triton.jit
def k_sqrt(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < n
    tl.store(y_ptr + o, tl.sqrt(tl.load(x_ptr + o, mask=m)), mask=m)


@triton.jit
def k_randn(y_ptr, seed, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + o, tl.randn(seed, o), mask=o < n)


def differing(got, want):
    """Mask of the elements whose bits differ, two NaNs counting as equal."""
    diff = got.view(torch.int32) != want.view(torch.int32)
    return diff & ~(torch.isnan(got) & torch.isnan(want))


def hexf(t):
    return f"0x{t.view(torch.int32).item() & 0xFFFFFFFF:08X}"


class Tally:
    def __init__(self, name):
        self.name, self.n, self.bad, self.examples = name, 0, 0, []

    def add(self, inputs, got, want, describe):
        mask = differing(got, want)
        self.n += got.numel()
        nbad = int(mask.sum().item())
        if nbad and len(self.examples) < SHOW:
            for i in mask.nonzero().flatten()[:SHOW - len(self.examples)].tolist():
                self.examples.append(f"{describe(inputs, i)}: tric {hexf(got[i])} ({got[i].item():.9g}), "
                                     f"triton {hexf(want[i])} ({want[i].item():.9g})")
        self.bad += nbad

    def report(self):
        print(f"{self.name:6s} {self.bad} of {self.n} outputs differ")
        for e in self.examples:
            print(f"         {e}")
        return self.bad == 0


def chunk_inputs(c):
    """Bit patterns [c 2^28, (c+1) 2^28) as float32 (int32 arithmetic that stays in range)."""
    start = c * CHUNK
    if start >= 1 << 31:
        start -= 1 << 32
    return torch.arange(start, start + CHUNK, dtype=torch.int32, device="cuda").view(torch.float32)


def run_unary(kernels, chunks):
    tallies = {name: Tally(name) for name in kernels}
    grid = (CHUNK // BLOCK,)
    want = torch.empty(CHUNK, dtype=torch.float32, device="cuda")
    got = torch.empty_like(want)
    tric_kernels = {name: tric.jit(k.fn) for name, k in kernels.items()}
    for c in range(chunks):
        x = chunk_inputs(c)
        for name, k in kernels.items():
            want.fill_(0.5)
            got.fill_(0.25)
            k[grid](x, want, CHUNK, BLOCK=BLOCK)
            tric_kernels[name][grid](x, got, CHUNK, BLOCK=BLOCK)
            torch.cuda.synchronize()
            tallies[name].add(x, got, want, lambda xs, i: f"x = {hexf(xs[i])} ({xs[i].item():.9g})")
        print(f"chunk {c + 1}/{chunks} done", flush=True)
        del x
    return list(tallies.values())


def run_randn(seeds, n):
    t = Tally("randn")
    grid = (n // BLOCK,)
    tk = tric.jit(k_randn.fn)
    for seed in seeds:
        want = torch.full((n,), 0.5, dtype=torch.float32, device="cuda")
        got = torch.full((n,), 0.25, dtype=torch.float32, device="cuda")
        k_randn[grid](want, seed, n, BLOCK=BLOCK)
        tk[grid](got, seed, n, BLOCK=BLOCK)
        torch.cuda.synchronize()
        t.add(None, got, want, lambda _, i, s=seed: f"seed {s} offset {i}")
    return t


def main(argv):
    chunks = 16
    if len(argv) == 2 and argv[0] == "--chunks":
        chunks = int(argv[1])
    elif argv:
        print(__doc__)
        return 2
    if not torch.cuda.is_available():
        print("bitexact: no CUDA device")
        return 1
    print(f"bitexact: Triton {triton.__version__}, tric from {os.path.dirname(tric.__file__)}, "
          f"{chunks} chunk(s) of 2^28 inputs")
    t0 = time.time()
    kernels = {"log": k_log, "sin": k_sin, "cos": k_cos, "sqrt": k_sqrt}
    tallies = run_unary(kernels, chunks)
    tallies.append(run_randn([0, 42, 123456789], 1 << 24))
    ok = all([t.report() for t in tallies])
    print(f"bitexact: {'all bit-identical' if ok else 'DIFFERENCES'} ({time.time() - t0:.0f} s)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
