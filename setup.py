"""Builds libtric.so with the repository's Makefile and ships it inside the
package, so that `pip install .` (in the repository) gives an installed
tric that needs nothing but the standard library and a CUDA driver. The
package's sources are under python/ (pyproject.toml). Needs make and a C
compiler.
"""
import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

ROOT = os.path.dirname(os.path.abspath(__file__))


class BuildWithLibrary(build_py):
    """build_py that first runs `make build/libtric.so` here and copies the
    library into the built package."""

    def run(self):
        subprocess.check_call(["make", "-C", ROOT, "build/libtric.so"])
        super().run()
        target = os.path.join(self.build_lib, "tric")
        os.makedirs(target, exist_ok=True)
        shutil.copyfile(os.path.join(ROOT, "build", "libtric.so"), os.path.join(target, "libtric.so"))


class BinaryDistribution(Distribution):
    """The wheel holds a shared library: tag it for this platform."""

    def has_ext_modules(self):
        return True


# setuptools' scratch under build/python, beside the Makefile's outputs
os.makedirs(os.path.join(ROOT, "build", "python"), exist_ok=True)
setup(cmdclass={"build_py": BuildWithLibrary}, distclass=BinaryDistribution,
      options={"build": {"build_base": "build/python"}, "egg_info": {"egg_base": "build/python"}})
