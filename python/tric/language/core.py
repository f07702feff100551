"""triton.language.core: Triton defines its language here; tric's names are
triton.language's (the compiler knows both paths)."""
from . import *  # noqa: F401,F403
from . import __all__, constexpr  # noqa: F401


def _unwrap_if_constexpr(o):
    return o.value if isinstance(o, constexpr) else o
