"""How wide a LaTeX table will be: a model of Computer Modern's character widths at ``\\small``.

The compact table picks ``table`` or ``table*`` (and, only when nothing else fits, a smaller ``\\tabcolsep``
or a ``\\resizebox``) from this estimate. The widths below are pdflatex's own, measured once with TeX
Live 2022 in ``article`` at 10pt under ``\\small`` (OT1 Computer Modern, as the table's text is escaped):
``\\setbox0\\hbox{c}\\typeout{\\the\\wd0}`` for each printable ASCII character, upright, bold and as
``\\textsuperscript``. tests/report/test_latex_fit.py compiles tables and checks the estimate against TeX.
"""
from __future__ import annotations

# printable ASCII, chr(32) to chr(126), in pt
_UPRIGHT = (
    3.08, 2.57, 4.62, 7.71, 4.62, 7.71, 7.19, 2.57, 3.60, 3.60, 4.62, 7.19, 2.57, 3.08, 2.57, 4.62,
    4.62, 4.62, 4.62, 4.62, 4.62, 4.62, 4.62, 4.62, 4.62, 4.62, 2.57, 2.57, 7.19, 7.19, 7.19, 4.37,
    7.19, 6.94, 6.55, 6.68, 7.07, 6.29, 6.04, 7.26, 6.94, 3.34, 4.75, 7.19, 5.78, 8.48, 6.94, 7.19,
    6.29, 7.19, 6.81, 5.14, 6.68, 6.94, 6.94, 9.51, 6.94, 6.94, 5.65, 2.57, 4.62, 2.57, 4.62, 3.33,
    2.57, 4.62, 5.14, 4.11, 5.14, 4.11, 2.83, 4.62, 5.14, 2.57, 2.83, 4.88, 2.57, 7.71, 5.14, 4.62,
    5.14, 4.88, 3.62, 3.65, 3.60, 5.14, 4.88, 6.68, 4.88, 4.88, 4.11, 4.62, 2.57, 4.62, 4.62,
)
_BOLD = (
    3.55, 3.24, 5.56, 8.87, 5.32, 8.87, 8.28, 2.96, 4.14, 4.14, 5.32, 8.28, 2.96, 3.55, 2.96, 5.32,
    5.32, 5.32, 5.32, 5.32, 5.32, 5.32, 5.32, 5.32, 5.32, 5.32, 2.96, 2.96, 8.28, 8.28, 8.28, 5.03,
    8.28, 8.04, 7.57, 7.69, 8.16, 6.99, 6.69, 8.37, 8.32, 4.02, 5.50, 8.33, 6.40, 10.09, 8.32, 8.00,
    7.27, 8.00, 7.98, 5.92, 7.41, 8.18, 8.18, 11.14, 8.04, 8.30, 6.51, 2.96, 5.32, 2.96, 5.32, 3.83,
    2.96, 5.18, 5.92, 4.73, 5.92, 4.89, 4.27, 5.47, 5.92, 2.96, 3.25, 5.62, 2.96, 8.87, 5.92, 5.32,
    5.92, 5.62, 4.39, 4.20, 4.14, 5.92, 5.77, 7.84, 5.62, 5.77, 4.73, 5.32, 2.96, 5.32, 5.32,
)
_SUPERSCRIPT = (
    3.00, 2.61, 4.17, 6.50, 4.17, 6.50, 6.11, 2.61, 3.39, 3.39, 4.17, 6.11, 2.61, 3.00, 2.61, 4.17,
    4.17, 4.17, 4.17, 4.17, 4.17, 4.17, 4.17, 4.17, 4.17, 4.17, 2.61, 2.61, 6.28, 6.11, 6.28, 3.97,
    6.11, 5.88, 5.61, 5.72, 5.99, 5.41, 5.22, 6.15, 5.88, 3.16, 4.24, 6.07, 5.02, 7.04, 5.88, 6.11,
    5.41, 6.11, 5.80, 4.56, 5.72, 5.88, 5.88, 7.82, 5.88, 5.88, 4.94, 2.61, 4.33, 2.61, 4.17, 3.14,
    2.61, 4.17, 4.56, 3.78, 4.56, 3.78, 2.81, 4.17, 4.56, 2.61, 2.81, 4.36, 2.61, 6.50, 4.56, 4.17,
    4.56, 4.36, 3.39, 3.43, 3.39, 4.56, 4.36, 5.72, 4.36, 4.36, 3.78, 4.33, 2.78, 4.33, 4.17,
)
WIDE = 9.0  # a character outside ASCII: one em at \\small (pdflatex needs a package to print most of them)
TRIANGLE = 5.13  # \\textsuperscript{$\\blacktriangle$} and its downward twin
SCRIPTSIZE = 0.863  # \\scriptsize (7pt) against \\small (9pt): the ratio of their digits' widths, 3.99 / 4.62
TABCOLSEP = 6.0  # LaTeX's default, on each side of every column
TIGHT_TABCOLSEP = 3.0  # the fallback before a table is scaled down

# the widths the table must fit, in pt: the narrowest column and text block of the usual classes
COLUMN = 229.5  # \\columnwidth of article twocolumn 10pt (acmart sigconf 241.1, IEEEtran 252)
TEXT = 345.0  # \\textwidth of article one-column 10pt; two-column pages are wider (469 to 516)
MARGIN = 0.01  # the model's error against TeX stays within 1.5% (tests/report/test_latex_fit.py); keep 1% spare


def _width(text: str, table: tuple[float, ...]) -> float:
    return sum(table[ord(ch) - 32] if 32 <= ord(ch) < 127 else WIDE for ch in text)


def upright(text: str) -> float:
    return _width(text, _UPRIGHT)


def bold(text: str) -> float:
    return _width(text, _BOLD)


def superscript(text: str) -> float:
    return _width(text, _SUPERSCRIPT)


def scriptsize(text: str) -> float:
    return upright(text) * SCRIPTSIZE


def tabular(columns: list[float], tabcolsep: float = TABCOLSEP) -> float:
    """A tabular's width from its columns' widest cells: each column has ``\\tabcolsep`` on both sides."""
    return sum(columns) + 2 * tabcolsep * len(columns)
