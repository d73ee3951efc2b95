"""The public API: every name in rankwise.__all__ exists, the readers and explain() are the CLI's, and
`import rankwise` stays light (scipy.stats and matplotlib load only with compare and plots)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import rankwise as rw

EXAMPLES = Path(__file__).resolve().parents[1] / "src" / "rankwise" / "examples" / "data"


def test_every_public_name_exists():
    for name in rw.__all__:
        assert getattr(rw, name) is not None, name
    assert callable(rw.compare) and callable(rw.power) and callable(rw.compare_matrix)
    assert callable(rw.correlate) and callable(rw.discriminative_power) and callable(rw.swap_rate)
    assert rw.correlate.__module__ == "rankwise.agreement.orderings"
    assert callable(rw.repro)
    assert callable(rw.similarity) and rw.Similarity.__name__ == "Similarity"


def test_the_front_door_explains_itself():
    """help() shows real signatures and docstrings: rw.compare is a function (not a callable package), and no
    signature shows a convention's every field as a default."""
    import inspect
    import types

    assert isinstance(rw.compare, types.FunctionType)
    assert list(inspect.signature(rw.compare).parameters)[:3] == ["qrels", "runs", "metrics"]
    assert "Evaluate every run" in (rw.compare.__doc__ or "")
    assert list(inspect.signature(rw.repro).parameters)[:6] == [
        "original_baseline", "original_advanced", "reproduced_baseline", "reproduced_advanced", "qrels", "metrics"]
    for fn in (rw.evaluate, rw.evaluate_ranks, rw.compare, rw.compare_matrix, rw.repro):  # (a convention's: ~3000)
        assert len(str(inspect.signature(fn))) < 800, fn
    assert repr(rw.get_convention("ranx").derive(ties="average")) == "Convention('ranx', ties='average')"


@pytest.mark.slow  # starts `rankwise`: about 0.4 s
def test_explain_is_what_the_cli_prints():
    cli = subprocess.run([sys.executable, "-m", "rankwise", "explain", "AP@10", "-c", "mllib"],
                         capture_output=True, text=True, timeout=120)
    assert cli.returncode == 0, cli.stderr
    assert cli.stdout == rw.explain("AP@10", convention="mllib")
    text = rw.explain("nDCG@10")
    assert "resolved under trec_eval: nDCG(" in text and "how each preset computes it" in text


def test_readers_read_trec_and_csv(tmp_path):
    qrels = rw.read_qrels(EXAMPLES / "synthetic.qrels")
    run = rw.read_run(EXAMPLES / "synthetic.run")
    csv = tmp_path / "run.csv"
    rows = [f"{q},{d},{s}" for q, docs in run.to_dict().items() for d, s in docs.items()]
    csv.write_text("query_id,doc_id,score\n" + "\n".join(rows) + "\n")
    from_csv = rw.read_run(csv)
    assert rw.evaluate(qrels, from_csv, "AP").means == rw.evaluate(qrels, run, "AP").means
    assert isinstance(rw.parse_metric("P@5"), rw.MetricSpec)
    assert isinstance(rw.get_convention("trec_eval").resolve(rw.parse_metric("P@5")), rw.ResolvedMetric)


@pytest.mark.slow  # starts Python processes: about 1.5 s
def test_import_stays_light():
    code = ("import sys, rankwise; print('scipy.stats' in sys.modules, 'matplotlib' in sys.modules); "
            "rankwise.compare; print('scipy.stats' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.split() == ["False", "False", "True"], out.stderr


def test_results_n_queries_is_an_int_and_n_averaged_counts_per_metric():
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 1}, "q3": {"d": 0}}  # q3: no relevant document
    run = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"c": 1.0, "x": 0.5}, "q3": {"d": 1.0}}
    res = rw.evaluate(qrels, run, ["AP(no_relevant=nan)", "P@2"])
    assert isinstance(res.n_queries, int) and res.n_queries == res.query_ids.size == 3
    assert dict(res.n_averaged) == {"AP(no_relevant=nan)": 2, "P@2": 3}
    assert res.excluded["AP(no_relevant=nan)"] == 1
    d = res.to_dict()
    assert d["n_queries"] == res.n_queries and d["n_queries_averaged"] == dict(res.n_averaged)
    assert "n_queries=3" in repr(res)
