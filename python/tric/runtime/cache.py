"""triton.runtime.cache: triton_key, what identifies the compiler in other
tools' cache keys (tric's kernels are cached by libtric, in TRIC_CACHE_DIR)."""
from ..compiler.compiler import triton_key

__all__ = ["triton_key"]
