"""LaTeX of a reproduction (``rankwise repro -f latex``): booktabs tables with their captions above, each narrow
enough for one column of a two-column paper.

repro's figures per metric are too many for one column (nine numbers), so they are set as three tables of five
columns: the runs' means (ARP); ER, ΔRI and the t-tests; RMSE and nRMSE (a reproducibility only); and, with
ranking measures, their means. A table whose names are so long that it would still overflow the column (the
width is estimated with :mod:`rankwise.report.tex_widths`, as compare's compact table does) is scaled to the
column with ``\\resizebox`` (``\\usepackage{graphicx}``). Every user string goes through
:func:`rankwise.report.escape.latex`; numbers are ours, their signs set in math mode.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from rankwise.report import numbers as fmt
from rankwise.report import tex_widths as tw
from rankwise.report.escape import latex as esc
from rankwise.report.latex import _tabular, tex_number
from rankwise.report.repro_text import DIGITS
from rankwise.report.repro_text import headline as _headline
from rankwise.report.repro_text import method as _method
from rankwise.report.repro_text import notices as _notices

if TYPE_CHECKING:  # pragma: no cover
    from rankwise.agreement.repro_result import Reproduction

Cell = tuple[str, str]  # (TeX, the plain text it prints: what its width is estimated from)
PAIR: list[Cell] = [("base", "base"), ("adv.", "adv.")]  # under a label spanning both (Original, RMSE, ...)


def render_latex(r: "Reproduction") -> str:
    lines = ["% rankwise repro report; needs \\usepackage{booktabs} (and graphicx if a table is scaled)",
             f"% {esc(_headline(r))}", *(f"% {esc(x)}" for x in _method(r)), *(f"% {esc(x)}" for x in _notices(r))]
    head = esc(_headline(r))
    tables = [_table(f"{head}: the mean of each run over its topics (ARP).", "arp",
                     [("Metric", "Metric"), *PAIR, *PAIR],
                     [[_name(m), *(_number(fmt.num(r.arp[role][i], DIGITS)) for role in _roles())]
                      for i, m in enumerate(r.metrics)], ("Original", "Reproduced"))]
    tables.append(_table(f"{head}: effect ratio ER, $\\Delta$RI and the t-tests ($p$), original against "
                         "reproduced.", "effect",
                         [("Metric", "Metric"), ("ER", "ER"), ("$\\Delta$RI", "DRI"), ("$p$ base", "p base"),
                          ("$p$ adv.", "p adv.")],
                         [[_name(m), _number(fmt.num(r.er[i], DIGITS)), _number(fmt.signed(r.dri[i], DIGITS)),
                           *(_p(float(r.ttests[s].pvalue[i])) for s in ("baseline", "advanced"))]
                          for i, m in enumerate(r.metrics)]))
    if r.rmse:
        tables.append(_table(f"{head}: RMSE and nRMSE of the per-topic values, original against reproduced.",
                             "rmse", [("Metric", "Metric"), *PAIR, *PAIR],
                             [[_name(m), *(_number(fmt.num(x[s][i], DIGITS)) for x in (r.rmse, r.nrmse)
                                           for s in ("baseline", "advanced"))] for i, m in enumerate(r.metrics)],
                             ("RMSE", "nRMSE")))
    if r.ranking:
        tables.append(_table(f"{head}: similarity of the original and reproduced rankings (mean over the topics).",
                             "ranking", [("Measure", "Measure"), ("Baseline", "Baseline"), ("Advanced", "Advanced")],
                             [[_name(m), _number(fmt.num(v.get("baseline"), DIGITS)),
                               _number(fmt.num(v.get("advanced"), DIGITS))] for m, v in r.ranking_means().items()]))
    return "\n".join(lines) + "\n\n" + "\n\n".join(tables) + "\n"


def _roles() -> tuple[str, ...]:
    from rankwise.agreement.repro_result import ROLES
    return ROLES


def _name(text: str) -> Cell:
    return esc(text), text


def _number(text: str) -> Cell:
    return tex_number(text), text


def _p(p: float) -> Cell:
    text = fmt.pvalue(p)
    return text.replace("<", "$<$"), text


def width(header: list[Cell], rows: list[list[Cell]]) -> float:
    """The tabular's estimated width at ``\\small``, in pt."""
    columns = [max(tw.upright(row[k][1]) for row in [header, *rows]) for k in range(len(header))]
    return tw.tabular(columns)


def _table(caption: str, label: str, header: list[Cell], rows: list[list[Cell]], pairs: tuple[str, ...] = ()) -> str:
    """``pairs``: labels over the numeric columns two by two (base and adv.), ruled below as booktabs does."""
    body = _tabular("l" + "r" * (len(header) - 1), [h for h, _ in header], [[c for c, _ in row] for row in rows])
    if pairs:
        spans = " & ".join(f"\\multicolumn{{2}}{{c}}{{{p}}}" for p in pairs)
        rules = "".join(f"\\cmidrule(lr){{{2 + 2 * k}-{3 + 2 * k}}}" for k in range(len(pairs)))
        body[2:2] = [f" & {spans} \\\\", rules]
    if width(header, rows) * (1 + tw.MARGIN) > tw.COLUMN:
        body = ["\\resizebox{\\columnwidth}{!}{%", *body, "}"]
    # the caption above the tabular, where ACM, IEEE and Springer styles put a table's caption
    return "\n".join(["\\begin{table}[htbp]", "\\centering", "\\small", f"\\caption{{{caption}}}",
                      f"\\label{{tab:rankwise-repro-{label}}}", *body, "\\end{table}"])
