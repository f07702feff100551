"""
Fused softmax, as in Triton's tutorial: one row per program (load the row
with -inf for the columns past its end, subtract its max, exponentiate, sum,
divide, store), and the persistent variant whose programs step over the
rows with tl.range (num_stages as the tutorial passes it: the rows of the
next num_stages - 1 iterations are on their way by cp.async while this one
is computed). Memory-bound: each element is read once and written once, the
row never leaves registers, and the two reductions (max, sum) each take
warp shuffles and one exchange through shared memory.
num_warps as the tutorial picks it for the one-row kernel: 4 below
BLOCK_SIZE 2048, 8 below 4096, 16 from there; the persistent kernel runs 8.
"""
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols,
                   BLOCK_SIZE: tl.constexpr):
    row_idx = tl.program_id(0)
    row_start_ptr = input_ptr + row_idx * input_row_stride
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols
    row = tl.load(row_start_ptr + col_offsets, mask=mask, other=-float('inf'))
    row_minus_max = row - tl.max(row, axis=0)
    numerator = tl.exp(row_minus_max)
    denominator = tl.sum(numerator, axis=0)
    softmax_output = numerator / denominator
    output_row_start_ptr = output_ptr + row_idx * output_row_stride
    tl.store(output_row_start_ptr + col_offsets, softmax_output, mask=mask)


@triton.jit
def softmax_persistent_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols,
                              BLOCK_SIZE: tl.constexpr, num_stages: tl.constexpr):
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=num_stages):
        row_start_ptr = input_ptr + row_idx * input_row_stride
        col_offsets = tl.arange(0, BLOCK_SIZE)
        mask = col_offsets < n_cols
        row = tl.load(row_start_ptr + col_offsets, mask=mask, other=-float('inf'))
        row_minus_max = row - tl.max(row, axis=0)
        numerator = tl.exp(row_minus_max)
        denominator = tl.sum(numerator, axis=0)
        softmax_output = numerator / denominator
        output_row_start_ptr = output_ptr + row_idx * output_row_stride
        tl.store(output_row_start_ptr + col_offsets, softmax_output, mask=mask)

# kernel: softmax_kernel
# signature: *fp32:16, *fp32:16, i32:16, i32:16, i32, i32:16, 1024
# num_warps: 4
# grid: n_rows
# args: out = empty((n_rows, n_cols), fp32); x = randn((n_rows, n_cols), fp32); s_in = n_cols; s_out = n_cols; n_rows = 6; n_cols = 1024
# bench_args: out = empty((n_rows, n_cols), fp32); x = randn((n_rows, n_cols), fp32); s_in = n_cols; s_out = n_cols; n_rows = 4096; n_cols = 1024
# torch: out = torch.softmax(x, dim=1)
# check: out == np.exp(x - x.max(axis=1, keepdims=True)) / np.exp(x - x.max(axis=1, keepdims=True)).sum(axis=1, keepdims=True)
# tol: 1e-5
# triton_identical: out
#
# kernel: softmax_kernel
# signature: *fp32:16, *fp32:16, i32:16, i32:16, i32, i32:16, 4096
# num_warps: 16
# grid: n_rows
# args: out = empty((n_rows, n_cols), fp32); x = randn((n_rows, n_cols), fp32); s_in = n_cols; s_out = n_cols; n_rows = 3; n_cols = 4096
# bench_args: out = empty((n_rows, n_cols), fp32); x = randn((n_rows, n_cols), fp32); s_in = n_cols; s_out = n_cols; n_rows = 4096; n_cols = 4096
# torch: out = torch.softmax(x, dim=1)
# check: out == np.exp(x - x.max(axis=1, keepdims=True)) / np.exp(x - x.max(axis=1, keepdims=True)).sum(axis=1, keepdims=True)
# tol: 1e-5
# triton_identical: out
#
# kernel: softmax_kernel
# signature: *fp32:16, *fp32:16, i32:16, i32:16, i32, i32:16, 16384
# num_warps: 16
# grid: n_rows
# args: out = empty((n_rows, n_cols), fp32); x = randn((n_rows, n_cols), fp32); s_in = n_cols; s_out = n_cols; n_rows = 2; n_cols = 16384
# bench_args: out = empty((n_rows, n_cols), fp32); x = randn((n_rows, n_cols), fp32); s_in = n_cols; s_out = n_cols; n_rows = 4096; n_cols = 16384
# torch: out = torch.softmax(x, dim=1)
# check: out == np.exp(x - x.max(axis=1, keepdims=True)) / np.exp(x - x.max(axis=1, keepdims=True)).sum(axis=1, keepdims=True)
# tol: 1e-5
# triton_identical: out
#
# kernel: softmax_kernel
# signature: *fp32, *fp32, i32, i32, i32, i32, 1024
# num_warps: 4
# grid: n_rows
# args: out = empty((n_rows, n_cols), fp32); x = randn((n_rows, 781), fp32); s_in = 781; s_out = n_cols; n_rows = 5; n_cols = 781
# torch: out = torch.softmax(x, dim=1)
# check: out == np.exp(x - x.max(axis=1, keepdims=True)) / np.exp(x - x.max(axis=1, keepdims=True)).sum(axis=1, keepdims=True)
# tol: 1e-5
# triton_identical: out
#
# kernel: softmax_persistent_kernel
# signature: *fp32:16, *fp32:16, i32:16, i32:16, i32, i32:16, 2048, 4
# num_warps: 8
# grid: 3
# args: out = empty((n_rows, n_cols), fp32); x = randn((n_rows, n_cols), fp32); s_in = n_cols; s_out = n_cols; n_rows = 7; n_cols = 2048
# bench_args: out = empty((n_rows, n_cols), fp32); x = randn((n_rows, n_cols), fp32); s_in = n_cols; s_out = n_cols; n_rows = 4096; n_cols = 2048
# bench_grid: 1056
# torch: out = torch.softmax(x, dim=1)
# check: out == np.exp(x - x.max(axis=1, keepdims=True)) / np.exp(x - x.max(axis=1, keepdims=True)).sum(axis=1, keepdims=True)
# tol: 1e-5
# triton_identical: out
#
# kernel: softmax_persistent_kernel
# signature: *fp32:16, *fp32:16, i32:16, i32:16, i32, i32:16, 1024, 4
# num_warps: 8
# grid: 4
# args: out = empty((n_rows, n_cols), fp32); x = randn((n_rows, n_cols), fp32); s_in = n_cols; s_out = n_cols; n_rows = 11; n_cols = 1024
# bench_args: out = empty((n_rows, n_cols), fp32); x = randn((n_rows, n_cols), fp32); s_in = n_cols; s_out = n_cols; n_rows = 4096; n_cols = 1024
# bench_grid: 1056
# torch: out = torch.softmax(x, dim=1)
# check: out == np.exp(x - x.max(axis=1, keepdims=True)) / np.exp(x - x.max(axis=1, keepdims=True)).sum(axis=1, keepdims=True)
# tol: 1e-5
# triton_identical: out
#
# kernel: softmax_persistent_kernel
# signature: *fp32:16, *fp32:16, i32:16, i32:16, i32, i32:16, 4096, 4
# num_warps: 8
# grid: 5
# args: out = empty((n_rows, n_cols), fp32); x = randn((n_rows, n_cols), fp32); s_in = n_cols; s_out = n_cols; n_rows = 13; n_cols = 4096
# bench_args: out = empty((n_rows, n_cols), fp32); x = randn((n_rows, n_cols), fp32); s_in = n_cols; s_out = n_cols; n_rows = 4096; n_cols = 4096
# bench_grid: 528
# torch: out = torch.softmax(x, dim=1)
# check: out == np.exp(x - x.max(axis=1, keepdims=True)) / np.exp(x - x.max(axis=1, keepdims=True)).sum(axis=1, keepdims=True)
# tol: 1e-5
# triton_identical: out
#
# kernel: softmax_persistent_kernel
# signature: *fp32:16, *fp32:16, i32:16, i32:16, i32, i32:16, 16384, 4
# num_warps: 8
# grid: 2
# args: out = empty((n_rows, n_cols), fp32); x = randn((n_rows, n_cols), fp32); s_in = n_cols; s_out = n_cols; n_rows = 5; n_cols = 16384
# bench_args: out = empty((n_rows, n_cols), fp32); x = randn((n_rows, n_cols), fp32); s_in = n_cols; s_out = n_cols; n_rows = 4096; n_cols = 16384
# bench_grid: 132
# torch: out = torch.softmax(x, dim=1)
# check: out == np.exp(x - x.max(axis=1, keepdims=True)) / np.exp(x - x.max(axis=1, keepdims=True)).sum(axis=1, keepdims=True)
# tol: 1e-5
# triton_identical: out
#
# kernel: softmax_persistent_kernel
# signature: *fp32:16, *fp32:16, i32, i32, i32, i32, 1024, 2
# num_warps: 8
# grid: 3
# args: out = empty((n_rows, n_cols), fp32); x = randn((n_rows, n_cols), fp32); s_in = n_cols; s_out = n_cols; n_rows = 8; n_cols = 781
# torch: out = torch.softmax(x, dim=1)
# check: out == np.exp(x - x.max(axis=1, keepdims=True)) / np.exp(x - x.max(axis=1, keepdims=True)).sum(axis=1, keepdims=True)
# tol: 1e-5
# triton_identical: out
#
# kernel: softmax_persistent_kernel
# signature: *fp32:16, *fp32:16, i32, i32, i32, i32, 64, 3
# num_warps: 8
# grid: 3
# args: out = empty((n_rows, n_cols), fp32); x = randn((n_rows, n_cols), fp32); s_in = n_cols; s_out = n_cols; n_rows = 10; n_cols = 50
# torch: out = torch.softmax(x, dim=1)
# check: out == np.exp(x - x.max(axis=1, keepdims=True)) / np.exp(x - x.max(axis=1, keepdims=True)).sum(axis=1, keepdims=True)
# tol: 1e-5
# triton_identical: out
