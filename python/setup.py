"""Builds libtric.so with the repository's Makefile and ships it inside the
package, so that `pip install ./python` (from the repository root) gives an
installed tric that needs nothing but the standard library and a CUDA driver.

The repository is this directory's parent; TRIC_SOURCE_DIR overrides that
(for a build from a copy of python/ alone). Needs make and a C compiler.
"""
import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))


def repository():
    root = os.environ.get("TRIC_SOURCE_DIR") or os.path.dirname(HERE)
    if not os.path.isfile(os.path.join(root, "Makefile")) or not os.path.isdir(os.path.join(root, "runtime")):
        raise RuntimeError("tric: cannot find the tric repository at %s (set TRIC_SOURCE_DIR)" % root)
    return root


class BuildWithLibrary(build_py):
    """build_py that first runs `make -C <repo> build/libtric.so` and copies
    the library into the built package."""

    def run(self):
        root = repository()
        subprocess.check_call(["make", "-C", root, "build/libtric.so"])
        super().run()
        target = os.path.join(self.build_lib, "tric")
        os.makedirs(target, exist_ok=True)
        shutil.copyfile(os.path.join(root, "build", "libtric.so"), os.path.join(target, "libtric.so"))


class BinaryDistribution(Distribution):
    """The wheel holds a shared library: tag it for this platform."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildWithLibrary}, distclass=BinaryDistribution)
