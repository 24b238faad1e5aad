"""The compiled part of CourtStudio: the inner loops of the painted-line search, the line fit
and the robust homography fit (Cython).

Everything else about the package is in pyproject.toml; setuptools reads this file only for
the extension module, which `pip install .` (and `pip install -e .`) builds with the C
compiler (gcc, clang or MSVC) and Cython from the build requirements."""

import sys

from Cython.Build import cythonize
from setuptools import Extension, setup

# No contraction of a * b + c into one fused multiply-add (GCC's default where the target has
# one, e.g. -march=native): the kernels round as line_ridges's NumPy formulation does.
FLAGS = [] if sys.platform == "win32" else ["-ffp-contract=off"]

setup(
    ext_modules=cythonize(
        [
            Extension(f"geometry.{name}", [f"geometry/{name}.pyx"], extra_compile_args=FLAGS)
            for name in ("_ridge_kernels", "_projection_kernels", "_homography_kernels")
        ],
        compiler_directives={"language_level": 3},
    )
)
