"""The kernel of examples/aot: Triton's vector addition. `make` turns it into
add.tric.c and add.tric.h with tric.mk's rule, from the lines at the end."""
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(output_ptr + offsets, x + y, mask=mask)

# Two specializations, one launcher: 16-byte-aligned pointers and a length
# divisible by 16 get vector loads; anything else the general one.
# kernel: add_kernel
# signature: *fp32:16, *fp32:16, *fp32:16, i32:16, 1024
# signature: *fp32, *fp32, *fp32, i32, 1024
