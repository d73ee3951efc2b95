"""Reports of a comparison of systems: terminal table, JSON, CSV, Markdown, LaTeX and a self-contained HTML page.

``render(comparison, fmt)`` returns the report as text; renderers only format the fields of the
:class:`~rankwise.comparison.result.Comparison`, they compute no statistics. Names of systems, queries
and metrics come from users' files and are escaped for every format.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from rankwise.errors import InvalidParameterError

if TYPE_CHECKING:  # pragma: no cover
    from rankwise.comparison.result import Comparison

FORMATS: tuple[str, ...] = ("table", "json", "csv", "markdown", "latex", "html")


def render(comparison: "Comparison", fmt: str, *, width: int = 100) -> str:
    """The report of ``comparison`` in ``fmt`` (one of :data:`FORMATS`); ``width`` is the table's line width."""
    if fmt == "table":
        from rankwise.report.text import render_table
        return render_table(comparison, width)
    return _renderer(fmt)(comparison)


def _renderer(fmt: str) -> Callable[["Comparison"], str]:
    # imported on demand: the table (the CLI default) should not pay for the HTML and figure code
    if fmt == "json":
        from rankwise.report.formats import render_json
        return render_json
    if fmt == "csv":
        from rankwise.report.formats import render_csv
        return render_csv
    if fmt == "markdown":
        from rankwise.report.markdown import render_markdown
        return render_markdown
    if fmt == "latex":
        from rankwise.report.latex import render_latex
        return render_latex
    if fmt == "html":
        from rankwise.report.html import render_html
        return render_html
    raise InvalidParameterError(f"unknown report format {fmt!r}; choose one of {', '.join(FORMATS)}")


__all__ = ["FORMATS", "render"]
