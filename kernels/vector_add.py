"""
Vector addition, as in Triton's first tutorial: each program adds one BLOCK_SIZE
slice of x and y. The file is an ordinary Triton program: host code and all.
"""
import torch

import triton
import triton.language as tl

DEVICE = "cuda"


@triton.jit
def add_kernel(x_ptr,  # *Pointer* to first input vector.
               y_ptr,  # *Pointer* to second input vector.
               output_ptr,  # *Pointer* to output vector.
               n_elements,  # Size of the vector.
               BLOCK_SIZE: tl.constexpr,  # Number of elements each program should process.
               ):
    pid = tl.program_id(axis=0)  # We use a 1D launch grid so axis is 0.
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    # Create a mask to guard memory operations against out-of-bounds accesses.
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = x + y
    tl.store(output_ptr + offsets, output, mask=mask)


def add(x: torch.Tensor, y: torch.Tensor):
    output = torch.empty_like(x)
    n_elements = output.numel()
    grid = lambda meta: (triton.cdiv(n_elements, meta['BLOCK_SIZE']), )
    add_kernel[grid](x, y, output, n_elements, BLOCK_SIZE=1024)
    return output


class Benchmark:
    """Host code that tric skips: classes, decorators, f-strings."""

    def __init__(self, sizes=(2**12, 2**20)):
        self.sizes = {f"n={s}": s for s in sizes}

    @staticmethod
    def run(n):
        x = torch.rand(n, device=DEVICE)
        y = torch.rand(n, device=DEVICE)
        return (add(x, y) - (x + y)).abs().max().item()


if __name__ == "__main__":
    torch.manual_seed(0)
    for name, n in Benchmark().sizes.items():
        print(f"{name}: max error {Benchmark.run(n):.3g}")

# kernel: add_kernel
# signature: *fp32:16, *fp32:16, *fp32:16, i32:16, 1024
# grid: (cdiv(n, 1024), 1, 1)
# args: x = rand(n, fp32); y = rand(n, fp32); out = empty(n, fp32); n = 98432
# bench_args: x = rand(n, fp32); y = rand(n, fp32); out = empty(n, fp32); n = 1 << 26
# torch: out = x + y
# check: out == x + y
# tol: 1e-6
# triton_identical: out
#
# kernel: add_kernel
# signature: *fp32, *fp32, *fp32, i32, 256
# num_warps: 2
# grid: (cdiv(n, 256), 1, 1)
# args: x = rand(n, fp32); y = rand(n, fp32); out = empty(n, fp32); n = 1000
# bench_args: x = rand(n, fp32); y = rand(n, fp32); out = empty(n, fp32); n = 50000017
# torch: out = x + y
# check: out == x + y
# tol: 1e-6
# triton_identical: out
