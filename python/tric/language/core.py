"""triton.language.core: Triton defines its language here; tric's names are
triton.language's (the compiler knows both paths)."""
from . import *  # noqa: F401,F403
from . import __all__  # noqa: F401
from . import constexpr, dtype, pointer_type, tensor  # noqa: F401


def _unwrap_if_constexpr(o):
    return o.value if isinstance(o, constexpr) else o
