"""triton.language.extra.cuda.libdevice: the same names as
tric.language.extra.libdevice (one module under both paths)."""
from ..libdevice import __getattr__  # noqa: F401
