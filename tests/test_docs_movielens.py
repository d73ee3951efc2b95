"""The MovieLens section of docs/getting-started-recsys.md re-run on ml-latest-small (not committed: read from
RANKWISE_TEST_DATA, skipped without it): its code runs as written, and every number of its two tables is what
that code computes."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.data_paths import data_path

PAGE = Path(__file__).parents[1] / "docs" / "getting-started-recsys.md"
DATA_LINE = 'data = "ml-latest-small"'


def _tables(section: str) -> list[tuple[list[str], dict[str, list[str]]]]:
    """(metric names, {run: cells}) of each markdown table whose first header cell is 'run'."""
    out = []
    for block in re.findall(r"(\| run \|.*?)(?:\n\n|\Z)", section, re.S):
        lines = [[c.strip() for c in line.strip().strip("|").split("|")] for line in block.strip().splitlines()]
        out.append((lines[0][1:], {row[0]: row[1:] for row in lines[2:]}))
    return out


@pytest.mark.slow
def test_movielens_section_numbers_are_what_its_code_computes():
    folder = data_path("ml-latest-small")
    text = PAGE.read_text()
    section = text[text.index("## Beyond accuracy on MovieLens"):]
    block = next(b for b in re.findall(r"```python\n(.*?)```", section, re.S) if DATA_LINE in b)
    ns: dict = {}
    exec(compile(block.replace(DATA_LINE, f"data = {str(folder)!r}"), str(PAGE), "exec"), ns)
    tables = _tables(section)
    assert len(tables) == len(ns["conventions"]) == 2
    for metrics, rows in tables:
        preset = next(p for p, ms in ns["conventions"].items() if ms == metrics)
        assert set(rows) == set(ns["runs"])
        for run, cells in rows.items():
            means = ns["results"][preset, run].means
            for m, cell in zip(metrics, cells):
                assert float(cell) == round(means[m], 4), (preset, run, m)
    # the counts the prose cites
    counts = {run: ns["results"]["rectools", run].means["CatalogCoverage@10"] for run in ns["runs"]}
    assert counts == {"popularity": 122, "item-kNN": 959}
    assert "959 of the 9,724" in section and ns["split"].n_items == 9724
