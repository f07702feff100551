"""triton.compiler over tric: compile(ASTSource(fn, signature, constexprs,
attrs), target=, options=) and the CompiledKernel it returns, as torch's
Inductor and ahead-of-time tools drive them."""
from .compiler import ASTSource, CompiledKernel, compile, make_backend, triton_key
from .errors import CompilationError

__all__ = ["ASTSource", "CompilationError", "CompiledKernel", "compile", "make_backend", "triton_key"]
