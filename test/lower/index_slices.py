# RUN: -k scalar_index_kernel -s '*fp32, 4' --interpret --args 'out = zeros(4, fp32)' --print out
# RUN: -k scalar_index_kernel -s '*fp32, 4' --simulate --args 'out = zeros(4, fp32)' --print out
# ':' keeps a dim and, as in Triton, past the rank it is no index at all: a scalar pointer's
# p[None, None, :] is a 1 x 1 tile of that pointer (Triton's test_reduce keeps its dims this way).
# `None:`, `::None` are ':' too.
import triton
import triton.language as tl


@triton.jit
def scalar_index_kernel(out_ptr, N: tl.constexpr):
    x = tl.arange(0, N).to(tl.float32)[None, :]
    s = tl.sum(x, axis=1, keep_dims=True)          # 1 x 1
    p = out_ptr[None, None, :]                     # 1 x 1 pointers to out[0]
    tl.store(p, s)
    tl.store(out_ptr[None, :] + 1, tl.sum(x, axis=1) + 1)   # 1 pointer, out[1]
    # a slice whose bounds are all None is ':' (Triton's test_slice)
    NOTHING: tl.constexpr = None
    y = tl.arange(0, N)[None, None:None:NOTHING, ::None]   # 1 x N
    tl.store(out_ptr + 2 + tl.arange(0, 1)[:, None], tl.sum(y, axis=1, keep_dims=True).to(tl.float32))
