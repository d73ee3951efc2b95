"""How every report writes a number, so that the terminal, Markdown, LaTeX and HTML agree digit for digit."""
from __future__ import annotations

import math
from typing import TypeGuard

DIGITS = 3  # metric values live in [0, 1] mostly; three decimals separate systems that differ visibly
UNDEFINED = "n/a"  # a NaN or infinite value (a note of the comparison says why)


def _finite(v: float | None) -> TypeGuard[float]:
    return v is not None and math.isfinite(v)


def num(v: float | None, digits: int = DIGITS) -> str:
    """``0.345``; large magnitudes (counts such as num_ret) in four significant digits to stay narrow."""
    if not _finite(v):
        return UNDEFINED
    return f"{v:.{digits}f}" if abs(v) < 1e4 else f"{v:.4g}"


def signed(v: float | None, digits: int = DIGITS) -> str:
    """A difference always shows its sign: ``+0.075``, ``-0.025``."""
    if not _finite(v):
        return UNDEFINED
    return f"{v:+.{digits}f}" if abs(v) < 1e4 else f"{v:+.4g}"


def interval(ci: tuple[float, float], digits: int = DIGITS) -> str:
    return f"[{num(ci[0], digits)}, {num(ci[1], digits)}]"


def signed_interval(ci: tuple[float, float], digits: int = DIGITS) -> str:
    return f"[{signed(ci[0], digits)}, {signed(ci[1], digits)}]"


def mean_ci(mean: float, ci: tuple[float, float]) -> str:
    """``0.345 [0.241, 0.449]``: a system's mean with its interval."""
    return f"{num(mean)} {interval(ci)}"


def pvalue(p: float | None) -> str:
    """Three decimals, and ``<0.001`` below: more digits suggest a precision the test does not have."""
    if not _finite(p):
        return UNDEFINED
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def p_relation(p: float | None) -> str:
    """``= 0.098`` or ``< 0.001``: the p-value after ``p`` in running text."""
    text = pvalue(p)
    return f"< {text[1:]}" if text.startswith("<") else f"= {text}"


def ratio(v: float | None) -> str:
    """Effect sizes and test statistics: two decimals."""
    if not _finite(v):
        return UNDEFINED
    return f"{v:.2f}" if abs(v) < 1e4 else f"{v:.3g}"


def level(alpha: float) -> str:
    """The confidence level of the intervals, ``95%`` for alpha = 0.05."""
    return f"{(1 - alpha) * 100:g}%"
