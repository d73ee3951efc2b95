"""trec_eval's spellings of several metrics in one string (``P.5,10``, ``ndcg_cut.5,10``, ``official``) mean the
same wherever metrics are taken: ``rankwise.evaluate`` in memory and on files, ``rankwise.compare``, and the
``evaluate``, ``compare`` and ``correlate`` commands, through one expansion (``conventions.measure_sets.expand``,
called by ``evaluation.plan.make_plan``). Until then only ``rankwise evaluate`` expanded them, and everything else
refused ``P.5,10`` as an unknown metric. The gain spelling ``ndcg.2=5`` is read by the metric grammar itself.
"""
from __future__ import annotations

import contextlib
import io
import json

import pytest

import rankwise as rw
from rankwise.cli.main import main
from rankwise.errors import InvalidParameterError

QRELS = {"q1": {"d1": 1, "d2": 0, "d3": 2, "d7": 1}, "q2": {"d1": 1, "d5": 2}, "q3": {"d2": 1}}
RUN_A = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0, "d9": 0.5, "d8": 0.4, "d7": 0.3},
         "q2": {"d1": 1.0, "d4": 2.0, "d5": 0.2}, "q3": {"d3": 1.0, "d2": 0.5}}
RUN_B = {"q1": {"d7": 3.0, "d3": 2.0}, "q2": {"d5": 1.0, "d1": 0.9}, "q3": {"d9": 1.0, "d8": 0.5, "d2": 0.1}}
# each list as the metrics it means, in rankwise's own grammar (their values are the reference)
LISTS = {"P.10,5": {"P_5": "P@5", "P_10": "P@10"},
         "ndcg_cut.5,10": {"ndcg_cut_5": "nDCG@5", "ndcg_cut_10": "nDCG@10"},
         "recall.5,1": {"recall_1": "R@1", "recall_5": "R@5"}}


def expected(run: dict, written: str) -> dict[str, float]:
    names = LISTS[written]
    plain = rw.evaluate(QRELS, run, list(names.values()))
    return {name: plain.means[metric] for name, metric in names.items()}


@pytest.mark.parametrize("written", sorted(LISTS))
def test_evaluate_in_memory_expands_a_list_of_cutoffs(written):
    res = rw.evaluate(QRELS, RUN_A, [written, "AP"])
    assert list(res.means) == [*sorted(LISTS[written], key=lambda m: int(m.rsplit("_", 1)[1])), "AP"]
    assert {m: res.means[m] for m in LISTS[written]} == expected(RUN_A, written)
    for name, metric in LISTS[written].items():  # per query too, not only the means
        assert res.per_query(name) == rw.evaluate(QRELS, RUN_A, [metric]).per_query(metric)


def test_evaluate_on_files_and_streamed_expands_it_too(tmp_path):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in QRELS.items() for d, g in docs.items()))
    run.write_text("".join(f"{q} Q0 {d} {i + 1} {s} a\n" for q, docs in RUN_A.items()
                           for i, (d, s) in enumerate(sorted(docs.items(), key=lambda x: -x[1]))))
    for stream in ("no", "yes"):
        res = rw.evaluate(qrels, run, ["P.5,10"], stream=stream)
        assert res.means == pytest.approx(expected(RUN_A, "P.10,5"), abs=0), stream


def test_one_metric_keeps_the_name_written_and_sets_are_expanded():
    # a single cutoff and a gain spelling are one metric each: the name the user wrote, as for any metric
    res = rw.evaluate(QRELS, RUN_A, ["P.5", "ndcg.2=5"])
    assert list(res.means) == ["P.5", "ndcg.2=5"]
    assert res.means["P.5"] == rw.evaluate(QRELS, RUN_A, ["P@5"]).means["P@5"]
    assert res.means["ndcg.2=5"] == rw.evaluate(QRELS, RUN_A, ["nDCG(gain={2:5;other:grade})"]).means[
        "nDCG(gain={2:5;other:grade})"]
    official = rw.evaluate(QRELS, RUN_A, ["official"])
    assert "P_1000" in official.means and "official" not in official.means
    # a list repeating a metric given on its own counts it once
    assert list(rw.evaluate(QRELS, RUN_A, ["P_5", "P.5,10"]).means) == ["P_5", "P_10"]


def test_a_wrong_list_is_a_clear_error_everywhere():
    with pytest.raises(InvalidParameterError, match="cutoff 5 is given twice"):
        rw.evaluate(QRELS, RUN_A, ["P.5,10,5"])
    with pytest.raises(InvalidParameterError, match=r"positive whole numbers separated by commas; got '0'.*P\.5,10"):
        rw.compare(QRELS, {"a": RUN_A, "b": RUN_B}, ["P.0,10"])


def test_compare_expands_the_list_and_tests_each_cutoff():
    cmp = rw.compare(QRELS, {"a": RUN_A, "b": RUN_B}, ["P.5,10", "ndcg.2=5"])
    assert list(cmp.metrics) == ["P_5", "P_10", "ndcg.2=5"]
    plain = rw.compare(QRELS, {"a": RUN_A, "b": RUN_B}, ["P@5", "P@10", "nDCG(gain={2:5;other:grade})"])
    for ours, theirs in (("P_5", "P@5"), ("P_10", "P@10"), ("ndcg.2=5", "nDCG(gain={2:5;other:grade})")):
        assert cmp.comparison(ours, "b").p == plain.comparison(theirs, "b").p
        assert cmp.comparison(ours, "b").delta == plain.comparison(theirs, "b").delta


def _files(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in QRELS.items() for d, g in docs.items()))
    paths = []
    for name, run in (("a", RUN_A), ("b", RUN_B), ("c", {**RUN_B, "q1": RUN_A["q1"]})):
        path = tmp_path / name
        path.write_text("".join(f"{q} Q0 {d} {i + 1} {s} {name}\n" for q, docs in run.items()
                                for i, (d, s) in enumerate(sorted(docs.items(), key=lambda x: -x[1]))))
        paths.append(str(path))
    return str(qrels), paths


def _run(argv: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main(argv) == 0
    return out.getvalue()


def test_the_compare_and_correlate_commands_expand_it(tmp_path):
    qrels, runs = _files(tmp_path)
    got = json.loads(_run(["compare", qrels, *runs, "-m", "P.5,10", "-m", "ndcg.2=5", "--format", "json"]))
    assert got["metrics"] == ["P_5", "P_10", "ndcg.2=5"]
    table = _run(["correlate", qrels, *runs, "-m", "P.5,10", "-m", "ndcg_cut.10"])
    assert "P_5" in table and "P_10" in table
