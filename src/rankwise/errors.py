"""The exceptions rankwise raises. Every one says what was expected, what came, and how to fix it."""
from __future__ import annotations

import os
import sys


class RankwiseError(Exception):
    """Base class of every error rankwise raises on purpose."""


class ParseError(RankwiseError, ValueError):
    """Malformed input text. Carries the file, the 1-based line number and the offending text."""

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None,
                 text: str | None = None, expected: str | None = None):
        self.path = path
        self.line = line
        self.text = text
        self.expected = expected
        where = path if path is not None else "<input>"
        if line is not None:
            where = f"{where}:{line}"
        parts = [f"{where}: {message}"]
        if text is not None:
            shown = text if len(text) <= 200 else text[:200] + "..."
            parts.append(f"  offending text: {shown!r}")
        if expected is not None:
            parts.append(f"  expected: {expected}")
        super().__init__("\n".join(parts))


class InvalidParameterError(RankwiseError, ValueError):
    """A metric string, parameter, preset name or option that does not exist or has a bad value."""


class ConventionError(RankwiseError, ValueError):
    """A combination of conventions that is not defined (e.g. tie-averaging for a non-linear metric)."""


class DataError(RankwiseError, ValueError):
    """Structurally valid input that cannot be evaluated as asked (duplicates, NaN scores, missing queries
    under policy 'error')."""


class RankwiseWarning(UserWarning):
    """Something was left out, dropped or decided by a convention, and the numbers depend on it: queries
    set aside, duplicates dropped, ties ordered at a cutoff, scores out of range. The message gives the
    counts and the option that changes it. Filter it like any warning, e.g.
    ``warnings.filterwarnings("ignore", category=rankwise.RankwiseWarning)``."""


class MissingDependencyError(RankwiseError, ImportError):
    """An optional dependency is needed for this feature; the message says which extra to install."""


def require(module: str, extra: str, feature: str):
    """Import an optional dependency lazily, or fail with an install hint."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise MissingDependencyError(
            f"{feature} needs the optional dependency '{module}'. "
            f"Install it with: pip install 'rankwise[{extra}]'"
        ) from exc


def import_if_present(module: str):
    """The module, or None when that module itself is absent (an import error inside it still raises)."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        if exc.name == module:
            return None
        raise


_PACKAGE = os.path.dirname(os.path.abspath(__file__))  # .../rankwise


def user_stacklevel() -> int:
    """The ``stacklevel`` that makes a warning issued by the caller point at the first frame outside
    rankwise: the user's line, however deep in the package (api, execution, a metric's figure) the warning
    is said (Python 3.12's ``skip_file_prefixes``, by hand)."""
    frame = sys._getframe(1)
    level = 1
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level
