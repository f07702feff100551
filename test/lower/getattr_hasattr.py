# RUN: -k pick -s "*fp32, *fp32, *fp32, 'maximum', 'ALL'" --interpret --args 'a=empty(1,fp32); b=full(1,3.0,fp32); o=zeros(1,fp32)' --print o
# RUN: -k pick -s "*fp32, *fp32, *fp32, 'minimum', 'NONE'" --interpret --args 'a=full(1,2.0,fp32); b=full(1,3.0,fp32); o=zeros(1,fp32)' --print o
# RUN: -k clamp_i32 -s '*i32' --emit ir
# RUN: -k clamp_i32 -s '*fp32' --emit ir
# RUN: -k clamp_i32 -s 'None' --emit ir
# getattr and hasattr inside kernels, with compile-time attribute names (as
# Triton's tests pick tl functions and PropagateNan members by name), and
# isinstance against tl.pointer_type: the condition folds per argument type.
import triton
import triton.language as tl


@triton.jit
def pick(A, B, O, func: tl.constexpr, nan: tl.constexpr):
    o = getattr(tl, func)(tl.load(A), tl.load(B), propagate_nan=getattr(tl.PropagateNan, nan))
    tl.store(O, o)


@triton.jit
def clamp_i32(x):
    tl.static_assert(not hasattr(tl, "no_such_name") and getattr(tl, "no_such_name", 7) == 7)
    if (x is not None) and hasattr(x, "dtype") and isinstance(x.dtype, tl.pointer_type) and (
            x.dtype.element_ty == tl.int32) and (tl.load(x) > 42):
        tl.store(x, 42)
