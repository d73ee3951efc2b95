"""The options of the publication tables (Markdown and LaTeX): style, digits, intervals; checked in one place.

The compact style is what a paper prints (one row per system, means only, the best in bold, significance as
superscript marks); the full style keeps every interval and difference for a report or an appendix.
"""
from __future__ import annotations

from dataclasses import dataclass

from rankwise.errors import InvalidParameterError
from rankwise.report.numbers import DIGITS

STYLES: tuple[str, ...] = ("compact", "full")
TABLE_FORMATS: tuple[str, ...] = ("markdown", "latex")  # the formats these options shape
MAX_DIGITS = 6  # metric means are estimates over queries: more decimals than this print noise


@dataclass(frozen=True)
class TableOptions:
    style: str = "compact"
    digits: int = DIGITS  # three decimals: what IR and recsys papers print, and what separates their systems
    ci: bool = False  # the compact style's means with their t-interval


def table_options(fmt: str, style: str | None, digits: int | None, ci: bool) -> TableOptions:
    """The options for ``fmt``; an option given for a format or style that does not use it is refused."""
    given = [name for name, value in (("style (--table-style)", style), ("digits (--digits)", digits),
                                      ("ci (--ci)", ci or None)) if value is not None]
    if fmt not in TABLE_FORMATS:
        if given:
            raise InvalidParameterError(f"{' and '.join(given)} shape the Markdown and LaTeX tables; the {fmt!r} "
                                        f"report has no such option: leave it out, or choose format "
                                        f"'markdown' or 'latex'")
        return TableOptions()
    style = "compact" if style is None else style
    if style not in STYLES:
        raise InvalidParameterError(f"unknown table style {style!r}; choose one of {', '.join(STYLES)}")
    if style == "full" and (digits is not None or ci):
        raise InvalidParameterError("the full style always shows each mean with its interval in three decimals; "
                                    "digits and ci apply to the compact style (style='compact', --table-style "
                                    "compact)")
    if digits is None:
        digits = DIGITS
    if isinstance(digits, bool) or not isinstance(digits, int) or not 0 <= digits <= MAX_DIGITS:
        raise InvalidParameterError(f"digits must be a whole number from 0 to {MAX_DIGITS}; got {digits!r}")
    if not isinstance(ci, bool):
        raise InvalidParameterError(f"ci must be True or False; got {ci!r}")
    return TableOptions(style, digits, ci)
