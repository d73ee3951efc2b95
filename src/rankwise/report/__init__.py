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


def render(comparison: "Comparison", fmt: str, *, width: int = 100, style: str | None = None,
           digits: int | None = None, ci: bool = False) -> str:
    """The report of ``comparison`` in ``fmt`` (one of :data:`FORMATS`); ``width`` is the table's line width.

    Markdown and LaTeX print the compact table a paper prints by default (``style="compact"``: one row
    per system, the means in ``digits`` decimals, 3 unless given, the best of each metric in bold,
    superscript marks for significant differences, ``ci=True`` adds each mean's interval);
    ``style="full"`` gives every mean with its interval and every difference. These three options
    apply to Markdown and LaTeX only; any other format refuses them.
    """
    from rankwise.report.options import table_options

    options = table_options(fmt, style, digits, ci)
    if fmt == "table":
        from rankwise.report.text import render_table
        return render_table(comparison, width)
    if fmt in ("markdown", "latex") and options.style == "compact":
        if fmt == "latex":
            from rankwise.report.latex_compact import render_latex_compact
            return render_latex_compact(comparison, options)
        from rankwise.report.markdown_compact import render_markdown_compact
        return render_markdown_compact(comparison, options)
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
