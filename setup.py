"""The one C extension: the one-pass reader of plain TREC run text (src/rankwise/io/_trec_native.c).

Everything else is in pyproject.toml. The extension is optional: where it does not build (no C compiler, or
one without GCC's builtins and __int128, such as MSVC), the package installs without it and reads every run
with pyarrow, the same numbers (rankwise.io.trec_native.AVAILABLE says which).
"""
from setuptools import Extension, setup

setup(ext_modules=[Extension("rankwise.io._trec_native", ["src/rankwise/io/_trec_native.c"], optional=True)])
