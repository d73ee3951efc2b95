"""docs/rbo.md's tables are computed: every value printed there is recomputed here from its measure string."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from rankwise.agreement.rbo_values import average_overlap, rbo
from tests.similarity.rbo_pairs import make_pairs, strict

PAGE = Path(__file__).resolve().parents[2] / "docs" / "rbo.md"
X, Y = strict("abcdefgh"), strict(["b", "a", "c", "x", "e", "g"])
TIED_X, TIED_Y = [["a"], ["b", "c"], ["d"]], strict("bacd")

# measure string as printed -> (k, keyword arguments of rbo; None for AO)
EXAMPLE = {
    "RBO(p=0.9,value=ext,ties=broken)": (None, {"p": 0.9, "value": "ext", "ties": "broken"}),
    "RBO(p=0.9,value=min,ties=broken)": (None, {"p": 0.9, "value": "min", "ties": "broken"}),
    "RBO(p=0.9,value=max,ties=broken)": (None, {"p": 0.9, "value": "max", "ties": "broken"}),
    "RBO(p=0.9,value=res,ties=broken)": (None, {"p": 0.9, "value": "res", "ties": "broken"}),
    "RBO(p=0.9,value=ext,ties=broken)@6": (6, {"p": 0.9, "value": "ext", "ties": "broken"}),
    "RBO(p=0.9,value=sum,ties=broken)@6": (6, {"p": 0.9, "value": "sum", "ties": "broken"}),
    "LenskitRBO@10": (10, {"p": 0.85, "value": "sum", "ties": "broken", "normalise": "depth"}),
    "LenskitRBO@5": (5, {"p": 0.85, "value": "sum", "ties": "broken", "normalise": "depth"}),
    "CompatRBO": (None, {"p": 0.95, "value": "sum", "ties": "broken", "normalise": "ideal"}),
    "AO(ties=broken)@6": (6, None),
}


def _printed(measure: str) -> list[float]:
    """Every number printed right after `measure` (in its table row, or after '=' in the text)."""
    text = PAGE.read_text()
    found = re.findall(re.escape(f"`{measure}`") + r"(?:\s*\|\s*|\s*=\s*)([0-9]+\.[0-9]+)", text)
    return [float(v) for v in found]


@pytest.mark.parametrize("measure", sorted(EXAMPLE))
def test_example_values(measure):
    k, kwargs = EXAMPLE[measure]
    pairs = make_pairs([(X, Y)])
    value = average_overlap(pairs, k, ties="broken")[0] if kwargs is None else rbo(pairs, k, **kwargs)[0]
    printed = _printed(measure)
    assert printed, f"{measure} is not printed in docs/rbo.md"
    for shown in printed:
        assert shown == pytest.approx(round(float(value), 4), abs=1e-9), measure


def test_ties_table():
    text = PAGE.read_text()
    broken_other = float(rbo(make_pairs([([["a"], ["c", "b"], ["d"]], TIED_Y)]), p=0.9, ties="broken")[0])
    rows = {
        "`RBO(p=0.9,ties=broken)`, X read as a b c d": rbo(make_pairs([(TIED_X, TIED_Y)]), p=0.9, ties="broken")[0],
        "`RBO(p=0.9,ties=broken)`, X read as a c b d": broken_other,
        "`RBO(p=0.9,ties=w)`": rbo(make_pairs([(TIED_X, TIED_Y)]), p=0.9, ties="w")[0],
        "`RBO(p=0.9,ties=a)` (the mean of the two lines above)": rbo(make_pairs([(TIED_X, TIED_Y)]), p=0.9)[0],
        "`RBO(p=0.9,ties=b)`": rbo(make_pairs([(TIED_X, TIED_Y)]), p=0.9, ties="b")[0],
    }
    for label, value in rows.items():
        match = re.search(re.escape(f"| {label} | ") + r"([0-9.]+) \|", text)
        assert match, label
        assert float(match.group(1)) == pytest.approx(round(float(value), 4), abs=1e-9), label
