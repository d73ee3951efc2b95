"""The direction of a metric the registry does not know (#28): the user says it, or a note says it was assumed.

Per-query values from another tool (``--values``) may be a latency or an error rate, where lower is better. Before,
such a name was silently taken as higher-is-better, so the bold best, the ▲/▼ marks and the HTML's better/worse
were the wrong way round.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

from rankwise.cli.main import main
from rankwise.comparison import PerQueryMatrix, compare_matrix
from rankwise.errors import InvalidParameterError
from rankwise.report import render

N = 30


def _matrix(metrics=("latency", "nDCG@10")) -> PerQueryMatrix:
    """fast (base) is 2 ms below slow on every query; fast is also better on nDCG@10."""
    rng = np.random.default_rng(0)
    lat = rng.uniform(10, 20, N)
    ndcg = rng.uniform(0.2, 0.6, N)
    values = np.stack([np.stack([lat, ndcg], axis=1), np.stack([lat + 2 + rng.normal(0, 0.1, N),
                                                                 ndcg - 0.05 + rng.normal(0, 0.01, N)], axis=1)])
    keep = [("latency", "nDCG@10").index(m) for m in metrics]
    return PerQueryMatrix(("fast", "slow"), tuple(metrics), np.array([f"q{i}" for i in range(N)]),
                          values[:, :, keep])


def _assumed(c) -> list[str]:
    return [n for n in c.notes if n.startswith("direction assumed")]


@pytest.mark.slow
def test_lower_is_better_turns_the_best_and_the_marks():
    c = compare_matrix(_matrix(), baseline="fast", lower_is_better=["latency"])
    assert c.directions == {"latency": "lower", "nDCG@10": "higher"} and not _assumed(c)
    assert c.lower_is_better("latency") and not c.lower_is_better("nDCG@10")
    md = render(c, "markdown")
    fast = next(line for line in md.splitlines() if line.startswith("| fast"))
    slow = next(line for line in md.splitlines() if line.startswith("| slow"))
    assert fast.count("**") == 4  # fast is the best on both metrics: the lowest latency, the highest nDCG
    assert "\u25bc" in slow.split("|")[2] and "\u25bc" in slow.split("|")[3]  # slow is worse on both
    html = render(c, "html")
    assert html.count('class="delta down sig"') == 4 and 'class="delta up sig"' not in html  # in two tables
    assert json.loads(render(c, "json"))["directions"] == {"latency": "lower", "nDCG@10": "higher"}


def test_an_unknown_name_without_a_direction_is_assumed_higher_with_a_note():
    c = compare_matrix(_matrix(), baseline="fast")
    assert c.directions["latency"] == "higher"
    (note,) = _assumed(c)
    assert "latency" in note and "nDCG@10" not in note and "--lower-is-better" in note
    assert "direction assumed" in " ".join(render(c, "table").split())
    assert note in json.loads(render(c, "json"))["notes"]


def test_higher_is_better_confirms_without_a_note():
    c = compare_matrix(_matrix(), higher_is_better="latency")
    assert c.directions["latency"] == "higher" and not _assumed(c)


def test_known_metrics_keep_the_registrys_direction_without_a_note():
    c = compare_matrix(_matrix(("nDCG@10",)), lower_is_better=[])
    assert c.directions == {"nDCG@10": "higher"} and not _assumed(c)
    m = _matrix(("nDCG@10",))
    fallout = PerQueryMatrix(m.systems, ("FallOut@10",), m.query_ids, m.values)
    assert compare_matrix(fallout).directions == {"FallOut@10": "lower"}


@pytest.mark.parametrize(("kwargs", "said"), [
    ({"lower_is_better": ["latncy"]}, "'latncy', which is not a compared metric; the metrics are 'latency'"),
    ({"lower_is_better": ["latency"], "higher_is_better": ["latency"]}, "cannot be both"),
    ({"lower_is_better": ["nDCG@10"]}, "'nDCG@10' is a metric rankwise knows, and higher is better for it"),
])
def test_wrong_directions_are_clear_errors(kwargs, said):
    with pytest.raises(InvalidParameterError, match=said.replace("(", r"\(").replace(")", r"\)")):
        compare_matrix(_matrix(), **kwargs)


def _values_file(tmp_path) -> str:
    m = _matrix()
    path = tmp_path / "values.csv"
    path.write_text("system,query,metric,value\n" + "".join(f"{s},{q},{mt},{v!r}\n" for s, q, mt, v in m.to_long()))
    return str(path)


def test_cli_lower_is_better(tmp_path, capsys):
    assert main(["compare", "--values", _values_file(tmp_path), "--lower-is-better", "latency", "-f", "json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["directions"]["latency"] == "lower" and "direction assumed" not in err


def test_cli_says_an_assumed_direction_on_stderr(tmp_path, capsys):
    assert main(["compare", "--values", _values_file(tmp_path), "-f", "csv"]) == 0
    err = capsys.readouterr().err
    assert "rankwise: note: direction assumed: higher is taken as better for latency" in err
