"""The one C extension, rankwise's kernels (src/rankwise/kernels/_native.c): the one-pass reader of plain TREC
text, the row hashes of packed ids and the duplicate check's repeated hashes.

Everything else is in pyproject.toml. The extension is optional: where it does not build (no C compiler, one
without GCC's builtins and __int128 such as MSVC, or a big-endian machine), the package installs without it and
takes the numpy and pyarrow paths, the same numbers (rankwise.kernels.native.NATIVE is None then).
"""
from setuptools import Extension, setup

setup(ext_modules=[Extension("rankwise.kernels._native", ["src/rankwise/kernels/_native.c"], optional=True)])
