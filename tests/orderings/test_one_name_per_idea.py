"""One name per idea across similarity, correlate, repro and compare (#25's review): ``alpha`` for the level of
every interval, ``metrics`` for what is evaluated and ``measures`` for what compares, a ``to_frame()`` and a short
``repr``/``str`` on every result; the old keywords work for a release, with a DeprecationWarning naming the new."""
from __future__ import annotations

import inspect
import math

import numpy as np
import pytest

import rankwise as rw
from rankwise.agreement.reproduction import repro
from rankwise.cli.main import main
from rankwise.errors import InvalidParameterError
from tests.orderings.test_correlate import matrix, noisy
from tests.repro.test_repro_cli import QRELS, RPD

pd = pytest.importorskip("pandas")


def _pair(n: int = 12) -> tuple[dict, dict]:
    rng = np.random.default_rng(5)
    a, b = {}, {}
    for q in range(n):
        scores = rng.permutation(20).astype(float)
        a[f"q{q}"] = {f"d{i}": s for i, s in enumerate(scores)}
        b[f"q{q}"] = {f"d{i}": s + rng.normal(0, 4) for i, s in enumerate(scores)}
    return a, b


# ---- the names --------------------------------------------------------------------------------------------
def test_every_interval_level_is_alpha_as_in_compare():
    for f in (rw.compare, rw.correlate, rw.similarity, rw.discriminative_power):
        assert "alpha" in inspect.signature(f).parameters, f.__name__
    assert rw.similarity(*_pair(3), "Jaccard@5", interval="t").alpha == 0.05  # (the default: alpha=None)


def test_similarity_alpha_is_the_old_confidence_complement():
    a, b = _pair()
    new = rw.similarity(a, b, "Jaccard@5", interval="t", alpha=0.1)
    with pytest.warns(DeprecationWarning, match=r"similarity\(confidence=\.\.\.\) is deprecated .* use alpha="):
        old = rw.similarity(a, b, "Jaccard@5", interval="t", confidence=0.9)
    assert old.intervals["Jaccard@5"] == pytest.approx(new.intervals["Jaccard@5"], rel=1e-12)
    assert new.alpha == 0.1 and new.confidence == pytest.approx(0.9)
    assert new.interval_text().startswith("90% Student's t")
    assert new.to_dict()["interval"]["alpha"] == 0.1
    boot = rw.similarity(a, b, "Jaccard@5", alpha=0.2)
    with pytest.warns(DeprecationWarning):
        assert rw.similarity(a, b, "Jaccard@5", confidence=0.8).intervals == boot.intervals


def test_similarity_refuses_both_names_and_a_bad_old_value():
    a, b = _pair(3)
    with pytest.raises(InvalidParameterError, match="got both confidence= and alpha="):
        rw.similarity(a, b, "Jaccard@5", alpha=0.1, confidence=0.9)
    with pytest.raises(InvalidParameterError, match="got both confidence= and alpha="):  # (alpha at its usual value)
        rw.similarity(a, b, "Jaccard@5", alpha=0.05, confidence=0.9)
    with pytest.warns(DeprecationWarning), pytest.raises(InvalidParameterError, match="use alpha = 1 - confidence"):
        rw.similarity(a, b, "Jaccard@5", confidence=95)


def test_repro_names_its_ranking_measures_measures():
    new = repro(*RPD, QRELS, "AP", measures=["KTU@1000"])
    with pytest.warns(DeprecationWarning, match=r"repro\(ranking=\.\.\.\) is deprecated .* use measures="):
        old = repro(*RPD, QRELS, "AP", ranking=["KTU@1000"])
    np.testing.assert_array_equal(new.ranking["KTU@1000"]["baseline"], old.ranking["KTU@1000"]["baseline"])
    with pytest.raises(InvalidParameterError, match="got both ranking= and measures="):
        repro(*RPD, QRELS, "AP", measures=["KTU"], ranking=["RBO"])
    with pytest.raises(InvalidParameterError, match="got both ranking= and measures="):  # (an empty list is given)
        repro(*RPD, QRELS, "AP", measures=[], ranking=["RBO"])
    assert repro(*RPD, QRELS, "AP").ranking == {}  # (none asked for)


def test_the_command_lines_take_the_new_names_and_say_the_old_ones_are_deprecated(tmp_path, capsys):
    a, b = (tmp_path / "a.run", tmp_path / "b.run")
    for path, run in zip((a, b), _pair()):
        path.write_text("".join(f"{q} Q0 {d} 0 {s} r\n" for q, docs in run.items() for d, s in docs.items()))
    argv = ["similarity", str(a), str(b), "-m", "Jaccard@5", "--interval", "t", "--format", "json"]
    assert main([*argv, "--alpha", "0.1"]) == 0
    new, err = capsys.readouterr()
    assert err == ""
    assert main([*argv, "--confidence", "0.9"]) == 0
    old, err = capsys.readouterr()
    assert "--confidence is deprecated" in err and "use --alpha 0.1" in err
    assert new == old and '"alpha": 0.1' in new
    assert main([*argv, "--confidence", "0.9", "--alpha", "0.1"]) == 2
    assert "give --alpha only" in capsys.readouterr().err
    assert main(["repro", *RPD, "--qrels", QRELS, "-m", "AP", "--ranking", "KTU@1000", "-f", "json"]) == 0
    old, err = capsys.readouterr()
    assert "--ranking is deprecated" in err and "use --measure" in err
    assert main(["repro", *RPD, "--qrels", QRELS, "-m", "AP", "--measure", "KTU@1000", "-f", "json"]) == 0
    assert capsys.readouterr().out == old


# ---- to_frame, repr, str ----------------------------------------------------------------------------------
def test_every_result_has_a_frame_of_its_numbers():
    a, b = _pair()
    sim = rw.similarity(a, b, ["Jaccard@5", "KendallTau"], intervals=False)
    f = sim.to_frame()
    assert list(f.columns) == ["Jaccard@5", "KendallTau"] and f.index.name == "query_id"
    assert f.loc["q3", "KendallTau"] == sim.per_query("KendallTau")["q3"]

    x, y = noisy()
    m = matrix({"AP": x, "nDCG": y})
    c = rw.correlate(m, resamples=50)
    f = c.to_frame()
    assert list(f.columns) == ["reference", "other", "measure", "value", "low", "high", "undefined_resamples"]
    row = f[f.measure == "tau_b"].iloc[0]
    assert row.value == c.value("tau_b") and (row.low, row.high) == c.pairs[0].intervals["tau_b"]
    means = c.to_frame("means")
    assert list(means.columns) == ["AP", "nDCG"] and means.loc["s3", "nDCG"] == c.means[3, 1]
    with pytest.raises(InvalidParameterError, match="expected 'pairs'"):
        c.to_frame("bins")

    s = rw.swap_rate(m, "AP", splits=100, bin_width=0.05)
    f = s.to_frame()
    assert list(f.columns) == ["low", "high", "pairs", "swaps", "rate"]
    assert f.pairs.sum() == s.pairs and f.swaps.sum() == s.swaps and len(f) == len(s.bins)

    dp = rw.discriminative_power(m, "AP", test="t", correction="none")["AP"]
    f = dp.to_frame()
    assert list(f.columns) == ["a", "b", "delta", "p", "asl", "significant"]
    assert len(f) == len(dp.pairs) == 66 and int(f.significant.sum()) == dp.significant

    r = repro(*RPD, QRELS, ["AP", "P@10"])
    f = r.to_frame()
    assert list(f.index) == ["AP", "P@10"] and f.loc["AP", "er"] == r.er[0]
    assert f.loc["P@10", "rmse_advanced"] == r.rmse["advanced"][1] and f.loc["AP", "p_baseline"] == \
        r.ttests["baseline"].pvalue[0]
    topics = r.to_frame(per_topic=True)
    assert len(topics) == 4 * r.query_ids.size and list(topics.columns) == ["role", "query_id", "AP", "P@10"]
    assert math.isclose(topics[topics.role == "original_advanced"].AP.mean(), r.arp["original_advanced"][0])


def test_every_result_prints_short_and_readable():
    x, y = noisy()
    m = matrix({"AP": x, "nDCG": y})
    c = rw.correlate(m, resamples=50)
    s = rw.swap_rate(m, "AP", splits=50, method="bootstrap")
    dp = rw.discriminative_power(m, "AP", test="t")["AP"]
    r = repro(*RPD, QRELS, "AP")
    for result, head in ((c, "OrderingCorrelation(12 systems"), (s, "SwapRate(AP, method='bootstrap'"),
                         (dp, "DiscriminativePower(AP, test='t'"), (r, "Reproduction(reproducibility, 12 topics")):
        text = repr(result)
        assert text.startswith(head) and "\n" not in text and len(text) < 300, text
    assert "tau_b" in str(c) and "95% [" in str(c)
    assert "rate" in str(s) and "Sakai 2006" in str(s)
    assert "significant at alpha = 0.05" in str(dp)
    assert str(r).startswith("reproducibility under trec_eval") and "ER " in str(r)


def test_to_frame_without_pandas_says_how_to_install_it(monkeypatch):
    import sys

    x, y = noisy()
    m = matrix({"AP": x, "nDCG": y})
    results = [rw.correlate(m, resamples=0), rw.swap_rate(m, "AP", splits=20),
               rw.discriminative_power(m, "AP", test="t")["AP"], repro(*RPD, QRELS, "AP"),
               rw.similarity(*_pair(3), "Jaccard@5", intervals=False)]
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now raises ImportError
    for result in results:
        name = type(result).__name__
        with pytest.raises(rw.MissingDependencyError, match=rf"{name}.to_frame needs the optional dependency "
                                                            r"'pandas'.*pip install 'rankwise\[pandas\]'"):
            result.to_frame()
