"""triton.runtime.errors: the exceptions a launch raises."""
from .._lib import InterpreterError, OutOfResources

__all__ = ["InterpreterError", "OutOfResources"]
