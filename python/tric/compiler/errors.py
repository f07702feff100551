"""triton.compiler.errors: what compiling raises."""
from .._lib import CompilationError

__all__ = ["CompilationError"]
