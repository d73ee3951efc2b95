"""How runs are named on a command line: ``NAME=PATH``, or the file's name (no directory, no extensions).

Low in the layers on purpose: the evaluate command names its runs without importing compare/ (whose
statistics import scipy, half a second of start-up), and compare/ and io/ name runs the same way.
"""
from __future__ import annotations

import os


def system_name(path: str | os.PathLike[str]) -> str:
    """A run file's name without its directory and extensions: how a run is named by default."""
    name = os.path.basename(os.fspath(path))
    for ext in (".gz", ".txt", ".run", ".trec", ".csv", ".tsv", ".parquet", ".json"):
        if name.lower().endswith(ext) and len(name) > len(ext):
            name = name[: -len(ext)]
    return name


def split_name(arg: str) -> tuple[str | None, str]:
    """``NAME=PATH`` -> (NAME, PATH); a plain path (even one containing '=') -> (None, path)."""
    if "=" in arg and not os.path.exists(arg):
        name, path = arg.split("=", 1)
        if name:
            return name, path
    return None, arg
