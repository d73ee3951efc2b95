"""docs/beyond-accuracy.md cannot drift: its fixture code runs, and every value of its side-by-side tables is
recomputed by rankwise with the metric string and preset the row gives (an "error" row must be refused)."""
from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

import rankwise
from rankwise.errors import DataError

PAGE = Path(__file__).parents[1] / "docs" / "beyond-accuracy.md"
CELL = re.compile(r"^(?:`(?P<preset>[a-z_0-9.]+)`: )?`(?P<metric>[^`]+)`$")


def code_blocks(text: str, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", text, re.S)


@pytest.fixture(scope="module")
def fixture_run() -> dict:
    """The page's fixture block, run as written."""
    block = next(b for b in code_blocks(PAGE.read_text(), "python") if "features = pd.DataFrame" in b)
    ns: dict = {}
    exec(compile(block, str(PAGE), "exec"), ns)
    return ns


def table_rows() -> list[tuple[str, str | None, str, str]]:
    """(library cell, preset, metric string, value cell) of every table row that names a rankwise string."""
    rows = []
    for line in PAGE.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and (found := CELL.match(cells[2])):
            rows.append((cells[0], found["preset"], found["metric"], cells[3]))
    return rows


def test_the_page_has_a_row_per_library_family():
    rows = table_rows()
    assert len(rows) >= 40
    for library in ("RecTools", "RecBole", "MSR", "LensKit", "Elliot", "Evidently"):
        assert sum(r[0].startswith(library) for r in rows) >= 3, library


def test_fixture_code_gives_what_its_comments_say(fixture_run):
    res = fixture_run["res"]
    assert res.means == pytest.approx({"CatalogCoverage@3": 5.0, "MeanInvUserFreq@3": 1.362740,
                                       "IntraListDiversity@3": 1.777778}, abs=5e-7)
    assert res.per_query("MeanInvUserFreq@3") == pytest.approx({"u1": 1.584963, "u2": 1.251629, "u3": 1.251629},
                                                                abs=5e-7)
    assert res.info["items"] == {"cold_rows": 3}


@pytest.mark.parametrize("library, preset, metric, shown", table_rows(), ids=lambda x: str(x)[:40])
def test_every_table_value_is_rankwise_s(fixture_run, library, preset, metric, shown):
    ns = fixture_run
    args = dict(train=ns["train"], items=ns["catalogue"], item_features=ns["features"], reference=ns["reference"])

    def value() -> float:
        res = rankwise.evaluate(ns["test"], ns["reco"], [metric], preset or "trec_eval", **args)
        return res.means[metric]
    if shown == "error":
        with pytest.raises(DataError, match="'5'"):  # the cold item, named
            value()
        return
    got = value()
    if shown == "nan":
        assert math.isnan(got), (library, metric)
        return
    assert float(shown) == round(got, 6), (library, metric)
