"""The terminal table: systems x metrics, wrapped into blocks so that no line is wider than ``width``.

The means come first (systems x metrics); then, per metric, every comparison (with the baseline, or every
pair) with its difference, the difference's interval, the effect size, wins/ties/losses and the corrected p
(the columns ``rankwise compare --help`` promises), wrapped into further blocks when the terminal is narrow.

The layout is ASCII apart from the users' names and the ellipsis, so that it survives consoles
without UTF-8. Names are untrusted: control characters (ANSI escapes, newlines) are written as
escapes, so a name can neither break the table nor drive the terminal.
"""
from __future__ import annotations

import textwrap
import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rankwise.errors import InvalidParameterError
from rankwise.report import numbers as fmt
from rankwise.report.escape import control as clean
from rankwise.report.footnote import facts, title

if TYPE_CHECKING:  # pragma: no cover
    from rankwise.comparison.result import Comparison

MIN_WIDTH = 60  # one metric's columns (about 40) next to a readable name column
SHORT_NAME = 14  # names may be cut down to this to fit one more metric per block
GAP = "  "
MARK = "*"
ELLIPSIS = "\u2026"


def render_table(c: "Comparison", width: int = 100) -> str:
    if width < MIN_WIDTH:
        raise InvalidParameterError(f"width must be at least {MIN_WIDTH} columns; got {width}")
    lines = _wrap(title(c), width)
    lines += _means_blocks(c, width)
    for metric in c.metrics:
        lines += [""] + (_pairs_block(c, metric, width) if c.all_pairs else _baseline_block(c, metric, width))
    lines.append("")
    for label, text in facts(c, MARK):
        lines += _wrap(f"{label}: {text}", width)
    if c.baseline is not None:
        lines += _wrap(f"W/T/L: queries where the system scores above / the same as / below {c.baseline}", width)
    elif c.all_pairs:
        lines += _wrap("W/T/L: queries where a scores above / the same as / below b", width)
    for note in c.notes:
        lines += _wrap(f"Note: {note}", width)
    return "\n".join(lines) + "\n"


# ---- text that is safe and measurable in a terminal ---------------------------------------------
def _char_width(ch: str) -> int:
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in "WF" else 1


def display_width(s: str) -> int:
    """Terminal columns of ``s``: wide East Asian characters take two, combining marks none."""
    return sum(_char_width(ch) for ch in s)


def fit(s: str, width: int) -> str:
    """``s`` cut to ``width`` columns, with an ellipsis when something was cut."""
    if display_width(s) <= width:
        return s
    out, used = [], 0
    for ch in s:
        w = _char_width(ch)
        if used + w > width - 1:
            break
        out.append(ch)
        used += w
    return "".join(out) + ELLIPSIS


def _pad(s: str, width: int, align: str) -> str:
    space = " " * max(0, width - display_width(s))
    return s + space if align == "<" else space + s


def _wrap(text: str, width: int) -> list[str]:
    """Wrapped to ``width`` terminal columns (textwrap counts characters, so wide ones need a retry)."""
    text, limit = clean(text), width
    while True:
        lines = textwrap.wrap(text, limit, subsequent_indent="    ", break_on_hyphens=False) or [""]
        over = max(display_width(line) for line in lines) - width
        if over <= 0 or limit <= 10:
            return lines
        limit -= over


# ---- blocks of columns --------------------------------------------------------------------------
@dataclass(frozen=True)
class _Column:
    header: str
    cells: tuple[str, ...]
    align: str = ">"

    @property
    def width(self) -> int:
        return max(display_width(x) for x in (self.header, *self.cells))


@dataclass(frozen=True)
class _Group:
    """The columns of one metric, under its name."""

    title: str
    columns: tuple[_Column, ...]

    @property
    def width(self) -> int:
        return sum(col.width for col in self.columns) + len(GAP) * (len(self.columns) - 1)


def _means_blocks(c: "Comparison", width: int) -> list[str]:
    names = [clean(s) for s in c.system_names]
    if c.baseline is not None:
        names = [f"{n} (base)" if s == c.baseline else n for n, s in zip(names, c.system_names)]
    groups = [_metric_group(c, m) for m in c.metrics]
    return _blocks("system", names, groups, width)


def _metric_group(c: "Comparison", metric: str) -> _Group:
    means = tuple(fmt.mean_ci(c.systems[s][metric].mean, c.systems[s][metric].ci) for s in c.system_names)
    return _Group(clean(metric), (_Column(f"mean [{fmt.level(c.alpha)} CI]", means),))


def _delta(delta: float, significant: bool) -> str:
    return fmt.signed(delta) + (MARK if significant else " ")


def _baseline_block(c: "Comparison", metric: str, width: int) -> list[str]:
    """Every system against the baseline on ``metric``: one row per comparison, every column the help names."""
    rows = [r for r in c.comparisons if r.metric == metric]
    head = f"{metric}: each system - {c.baseline} ({c.test})"
    columns = (_Column("delta ", tuple(_delta(r.delta, r.significant) for r in rows)),
               _Column(f"{fmt.level(c.alpha)} CI", tuple(fmt.signed_interval(r.ci) for r in rows)),
               _Column("ES", tuple(fmt.ratio(r.effect_size) for r in rows)),
               _Column("W/T/L", tuple(f"{r.wins}/{r.ties}/{r.losses}" for r in rows)),
               _Column("p adj", tuple(fmt.pvalue(r.p_adjusted) for r in rows)))
    return _wrap(head, width) + _detail_blocks("system", [clean(r.system) for r in rows], columns, width, SHORT_NAME)


def _pairs_block(c: "Comparison", metric: str, width: int) -> list[str]:
    pairs = [p for p in c.all_pairs if p.metric == metric]
    head = f"{metric}: all pairs ({c.test})"
    if metric in c.anova:
        a = c.anova[metric]
        head += (f"; ANOVA F({a.df['systems']}, {a.df['residual']}) = {fmt.ratio(a.f)}, "
                 f"p {fmt.p_relation(a.p)}")
    columns = (_Column("delta ", tuple(_delta(p.delta, p.significant) for p in pairs)),
               _Column(f"{fmt.level(c.alpha)} CI", tuple(fmt.signed_interval(p.ci) for p in pairs)),
               _Column("ES", tuple(fmt.ratio(p.effect_size) for p in pairs)),
               _Column("W/T/L", tuple(f"{p.wins}/{p.ties}/{p.losses}" for p in pairs)),
               _Column("p", tuple(fmt.pvalue(p.p) for p in pairs)),
               _Column("p adj", tuple(fmt.pvalue(p.p_adjusted) for p in pairs)))
    room = _label_room(columns, width, 2 * SHORT_NAME)
    labels = [_pair_label(clean(p.a), clean(p.b), room) for p in pairs]
    return _wrap(head, width) + _detail_blocks("a - b", labels, columns, width, 2 * SHORT_NAME)


def _label_room(columns: tuple[_Column, ...], width: int, least: int) -> int:
    """Columns for the row labels: what the columns leave in one line, but at least ``least`` (the
    columns then wrap into further blocks), and never so much that the widest column no longer fits."""
    beside = sum(col.width + len(GAP) for col in columns)
    widest = max(col.width for col in columns) + len(GAP)
    return max(6, min(max(width - beside, least), width - widest))


def _detail_blocks(corner: str, labels: list[str], columns: tuple[_Column, ...], width: int,
                   least: int) -> list[str]:
    """Labelled rows of columns: one block when they fit next to the labels, else wrapped column by
    column (each block repeats the labels), as ``rankwise evaluate`` wraps its tables."""
    name_w = min(max(display_width(x) for x in (corner, *labels)), _label_room(columns, width, least))
    groups = [_Group("", (col,)) for col in columns]
    return _blocks(corner, labels, groups, width, name_w)[1:]


def _pair_label(a: str, b: str, room: int) -> str:
    """``a - b`` in ``room`` columns; when cut, neither name loses more than its share of the room."""
    avail = room - 3
    wa, wb = display_width(a), display_width(b)
    if wa + wb <= avail:
        return f"{a} - {b}"
    half = avail // 2
    if wa <= half:
        return f"{a} - {fit(b, avail - wa)}"
    if wb <= half:
        return f"{fit(a, avail - wb)} - {b}"
    return f"{fit(a, half)} - {fit(b, avail - half)}"


def _blocks(corner: str, names: list[str], groups: list[_Group], width: int, name_w: int | None = None) -> list[str]:
    """Name column plus as many metric groups as fit in ``width``; the rest go to further blocks."""
    name_w = name_w or _name_width(corner, names, groups, width)
    lines: list[str] = []
    start = 0
    while start < len(groups):
        used, stop = name_w, start
        while stop < len(groups) and (stop == start or used + len(GAP) + groups[stop].width <= width):
            used += len(GAP) + groups[stop].width
            stop += 1
        lines += [""] + _block(corner, names, groups[start:stop], name_w)
        start = stop
    return lines


def _name_width(corner: str, names: list[str], groups: list[_Group], width: int) -> int:
    """As wide as the names need (up to a quarter of the width), narrower when that lets one more group
    share a block."""
    step = max((g.width for g in groups), default=0) + len(GAP)
    full = min(max(display_width(x) for x in (corner, *names)), max(12, width // 4))
    full = max(6, min(full, width - step))  # shrink names before a single group overflows
    fits = (width - full) // step
    if len(groups) > fits and (width - SHORT_NAME) // step > fits and full > SHORT_NAME:
        full = max(SHORT_NAME, width - (fits + 1) * step)
    return full


def _block(corner: str, names: list[str], groups: list[_Group], name_w: int) -> list[str]:
    titles = [_pad("", name_w, "<")] + [_pad(fit(g.title, g.width), g.width, "<") for g in groups]
    headers = [_pad(fit(corner, name_w), name_w, "<")]
    headers += [GAP.join(_pad(col.header, col.width, col.align) for col in g.columns) for g in groups]
    rule = ["-" * name_w] + ["-" * g.width for g in groups]
    out = [GAP.join(titles).rstrip(), GAP.join(headers).rstrip(), GAP.join(rule)]
    for i, name in enumerate(names):
        cells = [_pad(fit(name, name_w), name_w, "<")]
        cells += [GAP.join(_pad(col.cells[i], col.width, col.align) for col in g.columns) for g in groups]
        out.append(GAP.join(cells).rstrip())
    if not any(g.title for g in groups):
        out = out[1:]
    return out
