# RUN: -k where_ptr_kernel -s '*i32, *fp32, *fp32, *fp32' --interpret --args 'c = full(1, 0, i32); a = full(8, 1.5, fp32); b = full(8, 2.5, fp32); out = zeros(8, fp32)' --print out
# RUN: -k where_ptr_kernel -s '*i32, *fp32, *fp32, *fp32' --interpret --args 'c = full(1, 7, i32); a = full(8, 1.5, fp32); b = full(8, 2.5, fp32); out = zeros(8, fp32)' --print out
# RUN: -k where_ptr_kernel -s '*i32, *fp32, *fp32, *fp32' --simulate --args 'c = full(1, 0, i32); a = full(8, 1.5, fp32); b = full(8, 2.5, fp32); out = zeros(8, fp32)' --print out
# RUN: -k where_ptr_kernel -s '*i32, *fp32, *fp32, *fp32' --emit ir
# tl.where of two pointers of one type (Triton's test_where with pointers): a select of the
# pointers, loaded from after.
import triton
import triton.language as tl


@triton.jit
def where_ptr_kernel(c_ptr, a_ptr, b_ptr, out_ptr):
    offs = tl.arange(0, 8)
    ptr = tl.where(tl.load(c_ptr), a_ptr, b_ptr)
    tl.store(out_ptr + offs, tl.load(ptr + offs))
