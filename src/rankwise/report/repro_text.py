"""What every report of a reproduction says in words: its headline, how its numbers read (the test, ER and ΔRI)
and its notices (topics set aside, notes), and the digits of its numbers; shared by the table, Markdown, LaTeX
and HTML renderers."""
from __future__ import annotations

from typing import TYPE_CHECKING

from rankwise.report.escape import control

if TYPE_CHECKING:  # pragma: no cover
    from rankwise.agreement.repro_result import Reproduction

DIGITS = 4  # repro_eval prints four decimals; RMSE values of a close reproduction differ in the third


def headline(r: "Reproduction") -> str:
    n, n2 = r.query_ids.size, r.reproduced_query_ids.size
    if r.paired:
        return f"Reproducibility (same collection): {n} topics, convention {r.convention}"
    return f"Replicability (another collection): {n} original and {n2} reproduced topics, convention {r.convention}"


def method(r: "Reproduction") -> list[str]:
    """How the numbers read: the test and the definitions of ER and ΔRI."""
    return [f"t-tests, original against reproduced: {r.ttests['baseline'].test}",
            "ER: the reproduced mean improvement over the original's (1: the effect reproduced); DeltaRI: the "
            "relative improvement of the original minus the reproduced one's (0: reproduced)"]


def notices(r: "Reproduction") -> list[str]:
    """The topics set aside and the notes of the computation (user strings: each format escapes them)."""
    lines = []
    for reason, ids in r.set_aside.items():
        shown = ", ".join(control(q) for q in ids[:5])
        lines.append(f"set aside ({control(reason)}): {len(ids)} topics: {shown}{', ...' if len(ids) > 5 else ''}")
    lines += [f"note: {control(n)}" for n in r.notes]
    return lines
