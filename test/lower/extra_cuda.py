# RUN: -k swizzle2d_kernel -s '*fp32, i32, i32, i32' --interpret --args 'out = zeros((5, 7), fp32); size_i = 5; size_j = 7; size_g = 3' --print out
# RUN: -k swizzle2d_kernel -s '*fp32, i32, i32, i32' --simulate --args 'out = zeros((5, 7), fp32); size_i = 5; size_j = 7; size_g = 3' --print out
# RUN: -k threads_kernel -s '*i32' --num-warps 8 --interpret --args 'out = zeros(256, i32)' --print out
# RUN: -k timer_kernel -s '*i64, *i64' --emit ir
# RUN: -k timer_kernel -s '*i64, *i64' --interpret --grid 2 --args 'a = zeros(128, i64); b = zeros(4, i64)' --print b
# tl.swizzle2d (Triton's test_swizzle2d: 0 3 6 ... down the columns of groups of 3 rows), the
# tl.extra.cuda constexprs num_threads / num_warps, and smid / globaltimer as `sreg` reads (two
# reads of the timer stay two; the interpreter's timer advances 1000 per read, its smid is 0).
import triton
import triton.language as tl


@triton.jit
def swizzle2d_kernel(output, size_i, size_j, size_g):
    for i in tl.range(0, size_i, 1):
        for j in tl.range(0, size_j, 1):
            new_i, new_j = tl.swizzle2d(i, j, size_i, size_j, size_g)
            tl.store(output + new_i * size_j + new_j, i * size_j + j)


@triton.jit
def threads_kernel(Out):
    num_threads: tl.constexpr = tl.extra.cuda.num_threads()
    tl.store(Out + tl.arange(0, num_threads), tl.extra.cuda.num_warps())


@triton.jit
def timer_kernel(Out1, Out2):
    start = tl.extra.cuda.globaltimer()
    off = tl.arange(0, 128)
    for i in range(10):
        tl.store(Out1 + off, tl.load(Out1 + off) + 1)
    end = tl.extra.cuda.globaltimer()
    tl.store(Out2, start)
    tl.store(Out2 + 1, end)
    tl.store(Out2 + 2 + tl.program_id(0), tl.extra.cuda.smid().to(tl.int64))
