# RUN: -k ifexp_void_kernel -s '*fp32, *fp32, *fp32' --grid 4 --interpret --args 'xt = full(1, 1.5, fp32); xf = full(1, 2.5, fp32); out = zeros(4, fp32)' --print out
# RUN: -k ifexp_void_kernel -s '*fp32, *fp32, *fp32' --grid 4 --simulate --args 'xt = full(1, 1.5, fp32); xf = full(1, 2.5, fp32); out = zeros(4, fp32)' --print out
# RUN: -k ifexp_void_kernel -s '*fp32, *fp32, *fp32' --emit ir
# A conditional expression on a dynamic condition whose arms are both None
# (calls run for their effects; Triton's test_if[if_exp_dynamic_void]): an
# if without results.
import triton
import triton.language as tl


@triton.jit
def ifexp_void_kernel(XTrue, XFalse, Ret):
    pid = tl.program_id(0)
    tl.store(Ret + pid, tl.load(XTrue)) if pid % 2 == 0 else tl.store(Ret + pid, tl.load(XFalse))
