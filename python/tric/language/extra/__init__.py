"""tric.language.extra: Triton's extra modules as host code sees them. The
libdevice functions are compiled by tric (frontend/libdevice.c); here they
are only names that say they belong inside a @jit function."""
from . import libdevice  # noqa: F401
from . import cuda  # noqa: F401
