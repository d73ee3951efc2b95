"""How runs are named on a command line: ``NAME=PATH``, or the file's name (no directory, no extensions).

Low in the layers on purpose: the evaluate command names its runs without importing compare/ (whose
statistics import scipy, half a second of start-up), and comparison/, io/ and the API name runs the same way;
outside the data model, which knows no file names.
"""
from __future__ import annotations

import os
from typing import Any, Mapping, Sequence

from rankwise.errors import InvalidParameterError


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


def named_runs(runs: Mapping[str, Any] | Sequence[Any], *, command_line: bool = False) -> dict[str, Any]:
    """{name: run}: a mapping as given, or a list of runs named by path (``NAME=PATH``, else the file's name
    without extensions) or by place (run1, run2, ...); two runs of one name are an error, in the words of the
    command line (``command_line``) or of the Python API."""
    if isinstance(runs, Mapping):
        return {str(k): v for k, v in runs.items()}
    if isinstance(runs, (str, os.PathLike)):
        raise InvalidParameterError("runs must be several runs: a list of paths or a {name: run} mapping")
    out: dict[str, Any] = {}
    for i, r in enumerate(runs):
        name, run = (split_name(str(r)) if isinstance(r, str) else (None, r))
        name = name or (system_name(run) if isinstance(run, (str, os.PathLike)) else f"run{i + 1}")
        if name in out:
            if command_line:
                raise InvalidParameterError(f"two runs are named {name!r} ({out[name]} and {run}); name them "
                                            "with NAME=PATH")
            raise InvalidParameterError(f"two runs are named {name!r}; name them with a mapping {{name: run}} "
                                        "(or NAME=PATH)")
        out[name] = run
    return out
