"""A host tensor descriptor: a kernel parameter that is a tensor seen as a
grid of blocks. The kernel reads and writes whole blocks with desc.load /
desc.store at element offsets; what lies outside `shape` reads as zero (or
NaN with padding="nan") and is not written.

tric passes it as its base pointer, its shape (int32) and its strides but
the last (int64); the signature entry is "tensordesc<fp16[64, 64]>", the
element type and block shape (README.md, "A tour of the command", gives
the signature format)."""

from .. import language as tl
from ..jit import dtype_sig

__all__ = ["TensorDescriptor"]


def _is_power_of_two(n):
    return n > 0 and n & (n - 1) == 0


class TensorDescriptor:
    """TensorDescriptor(base, shape, strides, block_shape, padding="zero"):
    base a tensor (data_ptr() and dtype) whose address is 16-byte aligned;
    the last dim contiguous (strides[-1] == 1), every other stride a
    multiple of 16 bytes; block dims powers of two. Checked as Triton does,
    with its messages (AssertionError)."""

    def __init__(self, base, shape, strides, block_shape, padding="zero"):
        self.base, self.padding = base, padding
        self.shape, self.strides, self.block_shape = list(shape), list(strides), list(block_shape)
        rank = len(self.shape)
        assert len(self.strides) == rank, "rank mismatch: %r" % (self,)
        assert len(self.block_shape) == rank, "rank mismatch: %r" % (self,)
        assert rank > 0, "rank must not be zero"
        assert rank <= 5, "rank cannot be more than 5"
        assert base.data_ptr() % 16 == 0, "base must be 16-byte aligned"
        for i, d in enumerate(self.block_shape):
            if not isinstance(d, int):
                raise TypeError("Shape element %d must have type `constexpr[int]`, got `constexpr[%s]`"
                                % (i, type(d)))
            if not _is_power_of_two(d):
                raise ValueError("Shape element %d must be a power of 2" % i)
        elem_bytes = _elem_bytes(base.dtype)
        for stride in self.strides[:-1]:
            assert (stride * elem_bytes) % 16 == 0, "strides must be 16-byte aligned"
        for d in self.shape:
            assert d > 0, "shape must be positive"
        assert self.strides[-1] == 1, "Last dimension must be contiguous"
        assert padding in ("zero", "nan"), "Illegal value for padding"
        if padding == "nan":
            assert _is_float(base.dtype), "Padding option `nan` is only supported for floating point tensors"

    @staticmethod
    def from_tensor(tensor, block_shape, padding="zero"):
        """The descriptor of a whole tensor: its own shape and strides."""
        return TensorDescriptor(tensor, tensor.shape, tensor.stride(), block_shape, padding)

    def __repr__(self):
        return "TensorDescriptor(shape=%r, strides=%r, block_shape=%r, padding=%r)" % (
            self.shape, self.strides, self.block_shape, self.padding)


def _elem_bytes(dtype):
    size = getattr(dtype, "itemsize", None)   # torch and numpy dtypes
    if isinstance(size, int):
        return size
    bits = {sig: b for b, sig in tl.dtype._INFO.values()}[dtype_sig(dtype)]
    return max(1, bits // 8)


def _is_float(dtype):
    fp = getattr(dtype, "is_floating_point", None)   # torch dtypes
    if isinstance(fp, bool):
        return fp
    return dtype_sig(dtype).startswith(("fp", "bf"))
