"""What a comparison was made from: the files it read (with their sizes and SHA-256) and what the
evaluation of its runs said (the notices printed on stderr), so that a report can be traced to its inputs.

A report is often read far from the machine that wrote it; "bm25.run" means little a month later,
its checksum says whether the file on disk is still the one compared.
"""
from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rankwise.run_names import named_runs, split_name

if TYPE_CHECKING:  # pragma: no cover
    from rankwise.evaluation.results import Results

CHUNK = 1 << 20  # hashed a mebibyte at a time: a run of gigabytes is never held in memory whole


@dataclass(frozen=True)
class InputFile:
    """One file a comparison read: its role (``qrels``, ``run`` or ``values``), the path as given, the
    system it stands for (runs and values files named by the command line), its size and SHA-256."""

    role: str
    path: str
    size: int | None  # bytes on disk (compressed files: the compressed bytes, which the checksum covers)
    sha256: str | None  # None with size: not a regular file (a pipe, standard input), read once and gone
    name: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"role": self.role, "name": self.name, "path": self.path, "size": self.size, "sha256": self.sha256}


@dataclass(frozen=True)
class Notice:
    """A sentence the evaluation of one run said about its numbers (ties, queries set aside, ...)."""

    run: str
    kind: str  # a kind of rankwise.evaluation.notices (e.g. "ties", "set_aside")
    text: str

    def __str__(self) -> str:
        return f"{self.run}: {self.text}"

    def to_dict(self) -> dict[str, Any]:
        return {"run": self.run, "kind": self.kind, "text": self.text}


def describe_file(path: str | os.PathLike[str], role: str, name: str | None = None) -> InputFile:
    """``path``'s size and SHA-256, read in chunks; neither for what is not a regular file (reading a pipe
    again would hash nothing, or wait)."""
    if not os.path.isfile(path):
        return InputFile(role, os.fspath(path), None, None, name)
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(CHUNK), b""):
            digest.update(chunk)
        size = fh.tell()
    return InputFile(role, os.fspath(path), size, digest.hexdigest(), name)


def _is_path(x: object) -> bool:
    return isinstance(x, (str, os.PathLike))


def run_inputs(qrels: Any, runs: Mapping[str, Any] | Sequence[Any], *,
               command_line: bool = False) -> tuple[InputFile, ...]:
    """The files among a comparison's qrels and runs (in-memory inputs have no file and are not listed),
    each run under the name the comparison gives it."""
    out = [describe_file(qrels, "qrels")] if _is_path(qrels) else []
    out += [describe_file(run, "run", name) for name, run in named_runs(runs, command_line=command_line).items()
            if _is_path(run)]
    return tuple(out)


def values_inputs(args: Sequence[str]) -> tuple[InputFile, ...]:
    """The ``--values`` files (``NAME=PATH`` or a path)."""
    return tuple(describe_file(path, "values", name) for name, path in map(split_name, args))


def run_notices(results: Mapping[str, Results]) -> tuple[Notice, ...]:
    """Every notice of every run's evaluation, in the runs' order."""
    from rankwise.evaluation.notices import notices
    return tuple(Notice(name, kind, text) for name, res in results.items() for kind, text in notices(res))
