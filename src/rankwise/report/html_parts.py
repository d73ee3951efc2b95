"""The building blocks of every HTML report (compare's, similarity's, correlate's, repro's): the page with its
Content-Security-Policy and inline style, tables, sections, the figures, the notices and the inputs.

The arguments of these helpers are markup already: escaped text (:func:`rankwise.report.escape.html`) or tags
written by the renderers; the helpers add no user string of their own except the ones they escape here.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

from rankwise.report.escape import html as esc
from rankwise.report.figures import INSTALL_HINT, Embedded
from rankwise.report.style import CSS

if TYPE_CHECKING:  # pragma: no cover
    from rankwise.comparison.provenance import InputFile

CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"


def page(body: str, title: str) -> str:
    """The whole document; ``title`` is plain text (escaped here)."""
    # the CSP comes first in <head> so that it governs everything after it; the empty data: icon
    # stops the browser from asking for /favicon.ico
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">\n"
            "<meta name=\"referrer\" content=\"no-referrer\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<link rel=\"icon\" href=\"data:,\">\n<title>{esc(title)}</title>\n"
            f"<style>\n{CSS}</style>\n</head>\n<body>\n<main>\n{body}\n</main>\n</body>\n</html>\n")


def table(header: Sequence[str], rows: Iterable[Sequence[str]], cls: str = "", caption: str = "",
          text_columns: int = 1) -> str:
    """A table; the first ``text_columns`` columns hold text (left-aligned), the rest numbers."""
    def cells(row: Sequence[str], tag: str) -> str:
        return "".join(f'<{tag} class="{"t" if i < text_columns else "n"}">{cell}</{tag}>'
                       for i, cell in enumerate(row))
    head = cells(header, "th")
    body = "\n".join(f"<tr>{cells(row, 'td')}</tr>" for row in rows)
    attr = f' class="{cls}"' if cls else ""
    cap = f"<caption>{caption}</caption>" if caption else ""
    return f"<table{attr}>{cap}\n<thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n</tbody>\n</table>"


def section(ident: str, heading: str, *content: str) -> str:
    return f'<section id="{ident}">\n<h2>{heading}</h2>\n' + "\n".join(content) + "\n</section>"


def num(text: str) -> str:
    """A number we formatted, in tabular figures."""
    return f'<span class="num">{esc(text)}</span>'


def name(text: object) -> str:
    """A user's name (a system, a run, a metric), escaped; long names wrap."""
    return f'<span class="name">{esc(text)}</span>'


def facts_list(items: Iterable[tuple[str, str]]) -> str:
    """A definition list of (label, text) pairs, both plain text (escaped here)."""
    rows = "\n".join(f"<dt>{esc(label)}</dt><dd>{esc(text)}</dd>" for label, text in items)
    return f"<dl>\n{rows}\n</dl>"


def figures_section(figs: Sequence[Embedded] | None, whole: Iterable[str] = ()) -> str:
    """The figures as inline images, or the line saying how to get them; sections named in ``whole`` span the
    grid, the others share it as panels."""
    if figs is None:
        return section("figures", "Figures", f'<p class="warn">{esc(INSTALL_HINT)}</p>')
    wide = set(whole)
    blocks = [f'<figure class="{"whole" if fig.section in wide else "panel"}"><img src="{fig.uri}" '
              f'alt="{esc(fig.caption)}"><figcaption>{esc(fig.caption)}</figcaption></figure>' for fig in figs]
    return section("figures", "Figures", '<div class="figures">', *blocks, "</div>")


def notices_section(intro: str, notices: Sequence[str]) -> str:
    """What the computation said about its numbers (plain text, escaped here), or nothing when it said nothing."""
    if not notices:
        return ""
    items = "\n".join(f"<li>{esc(n)}</li>" for n in notices)
    return section("notices", "Notices", f"<p>{esc(intro)}</p>", f'<ul class="notes">\n{items}\n</ul>')


def _size(n: int | None) -> str:
    return "" if n is None else f"{n:,} bytes"


def input_row(f: "InputFile") -> list[str]:
    digest = f"<code>{esc(f.sha256)}</code>" if f.sha256 else "(not a regular file: no checksum)"
    return [esc(f.role), name(f.name or ""), f"<code>{esc(f.path)}</code>",
            f'<span class="sha">{digest}</span>', num(_size(f.size))]


def inputs_section(inputs: Sequence["InputFile"], command_line: str | None, versions: Mapping[str, str],
                   facts: Sequence[tuple[str, str]] = (),
                   in_memory: str = "No files: the inputs were given in memory.") -> str:
    """The files read (role, name, path, SHA-256, size), then ``facts`` (label, markup), the command line and
    the versions of the software that computed the numbers."""
    parts = []
    if inputs:
        parts.append(table(["Role", "Name", "Path", "SHA-256", "Size"], [input_row(f) for f in inputs], "inputs",
                           text_columns=4))
    else:
        parts.append(f"<p>{esc(in_memory)}</p>")
    rows = list(facts)
    if command_line is not None:
        rows.append(("Command line", f"<code>{esc(command_line)}</code>"))
    rows.append(("Versions", ", ".join(f"{esc(k)} <code>{esc(v)}</code>" for k, v in versions.items())))
    items = "\n".join(f"<dt>{label}</dt><dd>{text}</dd>" for label, text in rows)
    parts.append(f"<dl>\n{items}\n</dl>")
    return section("inputs", "Inputs", *parts)


@dataclass(frozen=True)
class Provenance:
    """Where a report's numbers came from: the files read, the command line, the software's versions (an
    agreement result does not carry them; the command line builds this and hands it to the page)."""

    inputs: tuple["InputFile", ...] = ()
    command_line: str | None = None
    versions: Mapping[str, str] = field(default_factory=lambda: software_versions())


def software_versions() -> dict[str, str]:
    """rankwise, Python, numpy and scipy versions, as compare's reports record them."""
    from rankwise.comparison.systems import _versions
    return _versions()


def provenance_of(paths: Mapping[str, object], role: str) -> tuple["InputFile", ...]:
    """The files among ``{name: path or in-memory object}`` (in-memory inputs have no file and are not listed)."""
    import os

    from rankwise.comparison.provenance import describe_file
    return tuple(describe_file(p, role, n) for n, p in paths.items() if isinstance(p, (str, os.PathLike)))
