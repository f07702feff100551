"""tric.language.math (tl.math): the math functions, which like every tl
function can only be called inside a @jit function."""
from . import _JitOnly

_FUNCTIONS = (
    "exp", "exp2", "log", "log2", "sqrt", "sqrt_rn", "rsqrt", "abs", "fdiv", "div_rn", "cdiv", "minimum", "maximum",
    "sigmoid", "cos", "sin", "erf", "floor", "ceil", "fma", "umulhi", "clamp",
)

for _name in _FUNCTIONS:
    globals()[_name] = _JitOnly("tl.math." + _name, "triton.language.math." + _name)
del _name

__all__ = list(_FUNCTIONS)
