"""Programs written for `import triton`, run on tric unchanged.

    python -m tric.as_triton SCRIPT.py [ARGS...]     runs a script so
    import tric.as_triton; tric.as_triton.install()  the same from Python

install() puts a finder first on sys.meta_path that answers `import triton`
and `import triton.X.Y` with tric and tric.X.Y (the same module objects, so
`triton.language` is `tric.language`), whether or not the real Triton is
installed. A module tric does not have fails to import with a message
naming both. Python processes the program starts (torch's compile workers)
inherit it: install() puts a `triton` package that hands over to tric, and
tric itself, first on PYTHONPATH."""
import importlib
import importlib.abc
import importlib.machinery
import os
import runpy
import sys


class _TritonAsTric(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path=None, target=None):
        if fullname != "triton" and not fullname.startswith("triton."):
            return None
        name = "tric" + fullname[len("triton"):]
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name != name:
                raise
            raise ModuleNotFoundError("No module named '%s' (tric, standing in for triton, has no %s)"
                                      % (fullname, name), name=fullname) from None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=hasattr(module, "__path__"),
                                              loader_state=module)

    def create_module(self, spec):
        return spec.loader_state

    def exec_module(self, module):
        pass


def install():
    """From now on `import triton...` gives tric (idempotent), here and in
    Python processes started from here."""
    if not any(isinstance(f, _TritonAsTric) for f in sys.meta_path):
        for name in [n for n in sys.modules if n == "triton" or n.startswith("triton.")]:
            del sys.modules[name]   # a real Triton imported before: its modules would mix with tric's
        sys.meta_path.insert(0, _TritonAsTric())
    here = os.path.dirname(os.path.abspath(__file__))
    wanted = [os.path.join(here, "_triton_path"), os.path.dirname(here)]   # the redirect, and tric itself
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if paths[:2] != wanted:
        os.environ["PYTHONPATH"] = os.pathsep.join(wanted + [p for p in paths if p not in wanted])


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python -m tric.as_triton SCRIPT.py [ARGS...]   (runs SCRIPT with `import triton` = tric)")
        return 0 if argv else 2
    install()
    sys.argv = list(argv)
    runpy.run_path(argv[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
