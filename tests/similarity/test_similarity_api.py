"""rankwise.similarity: any run input evaluate takes, no qrels, per-query values in their query id type, means,
intervals (bootstrap-t, deterministic by seed; t against scipy), counts of missing queries and ties."""
from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest

import rankwise as rw
from rankwise.errors import DataError, InvalidParameterError, RankwiseWarning

A = {1: {"a": 3.0, "b": 2.0, "c": 1.0}, 2: {"x": 1.0, "y": 0.5}, 10: {"p": 1.0}}
B = {1: {"b": 3.0, "a": 2.0, "z": 1.0}, 2: {"y": 1.0}, 10: {"q": 1.0}, 11: {"p": 1.0}}


def test_values_means_and_counts_from_dicts():
    with pytest.warns(RankwiseWarning, match=r"1 query of run B not in run A \(e.g. 11\): left out"):
        s = rw.similarity(A, B, ["Jaccard@2", "Overlap@2"], intervals=False)
    assert s.query_ids.tolist() == [1, 2, 10] and s.query_ids.dtype.kind == "i"
    assert s.values["Jaccard@2"].tolist() == [1.0, 1 / 2, 0.0]
    assert s.values["Overlap@2"].tolist() == [1.0, 1 / 2, 0.0]
    assert s.means["Jaccard@2"] == pytest.approx(0.5) and s["Overlap@2"] == pytest.approx(0.5)
    assert s.resolved == {"Jaccard@2": "Jaccard@2", "Overlap@2": "Overlap(denominator=k)@2"}
    assert s.info["queries_paired"] == 3 and s.info["only_in_a"] == 0 and s.info["only_in_b"] == 1
    assert s.only_in_b == (11,) and s.per_query("Jaccard@2") == {1: 1.0, 2: 0.5, 10: 0.0}
    assert s.interval == "none" and not s.intervals
    assert "1 query of run B not in run A" in s.notices[0]


def test_every_input_form_gives_the_same_values(tmp_path):
    pd = pytest.importorskip("pandas")
    trec_a, csv_b = tmp_path / "a.run", tmp_path / "b.csv"
    trec_a.write_text("".join(f"{q} Q0 {d} {i + 1} {s} t\n" for q, docs in A.items()
                              for i, (d, s) in enumerate(docs.items())))
    csv_b.write_text("query_id,doc_id,score\n" + "".join(f"{q},{d},{s}\n" for q, docs in B.items()
                                                         for d, s in docs.items()))
    frame_b = pd.read_csv(csv_b)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankwiseWarning)
        want = rw.similarity(A, B, "Jaccard@2", intervals=False)
        for a, b in ((trec_a, csv_b), (str(trec_a), frame_b), (rw.as_run(A), rw.as_run(B))):
            got = rw.similarity(a, b, "Jaccard@2", intervals=False)
            assert {str(q): v for q, v in got.per_query("Jaccard@2").items()} == \
                {str(q): v for q, v in want.per_query("Jaccard@2").items()}
            # ids read from a text file are text, in text order; integer ids on both sides stay numbers
            assert got.query_ids.tolist() == ([1, 2, 10] if isinstance(a, rw.Run) else ["1", "10", "2"])


def test_string_query_ids_and_runs_of_the_packaged_examples():
    data = Path(rw.__file__).parent / "examples" / "data"
    s = rw.similarity(data / "synthetic.run", data / "synthetic.run", ["Jaccard@10", "Overlap@10"])
    assert s.n_queries > 0 and s.query_ids.dtype.kind == "U"
    assert np.all(s.values["Jaccard@10"] == 1.0) and s.means["Jaccard@10"] == 1.0
    assert s.intervals["Jaccard@10"] == (1.0, 1.0)  # every value equal: no spread


def _noisy_pair(n: int, seed: int = 1):
    rng = np.random.default_rng(seed)
    a, b = {}, {}
    for q in range(n):
        docs = [f"d{i}" for i in range(30)]
        a[f"q{q}"] = {d: float(s) for d, s in zip(docs, rng.permutation(30))}
        b[f"q{q}"] = {d: float(s) + rng.normal(0, 6) for d, s in a[f"q{q}"].items()}
    return a, b


def test_the_t_interval_is_scipys():
    stats = pytest.importorskip("scipy.stats")
    a, b = _noisy_pair(40)
    s = rw.similarity(a, b, "Jaccard@10", interval="t", alpha=0.1)
    v = s.values["Jaccard@10"]
    lo, hi = stats.t.interval(0.9, v.size - 1, loc=v.mean(), scale=stats.sem(v))
    assert s.intervals["Jaccard@10"] == pytest.approx((lo, hi), rel=1e-12)
    assert s.interval_text().startswith("90% Student's t interval")


@pytest.mark.slow
def test_the_bootstrap_interval_is_seeded_and_close_to_t_on_many_queries():
    a, b = _noisy_pair(300)
    one = rw.similarity(a, b, "Overlap@10", seed=3, resamples=2000)
    again = rw.similarity(a, b, "Overlap@10", seed=3, resamples=2000)
    other = rw.similarity(a, b, "Overlap@10", seed=4, resamples=2000)
    t = rw.similarity(a, b, "Overlap@10", interval="t")
    lo, hi = one.intervals["Overlap@10"]
    assert (lo, hi) == again.intervals["Overlap@10"] and (lo, hi) != other.intervals["Overlap@10"]
    mean = one.means["Overlap@10"]
    assert lo < mean < hi and hi - mean == pytest.approx(mean - lo, rel=1e-9)  # symmetric bootstrap-t
    t_lo, t_hi = t.intervals["Overlap@10"]
    assert (hi - lo) == pytest.approx(t_hi - t_lo, rel=0.1)  # near-normal mean of 300 values
    assert "B = 2000 resamples, seed 3" in one.interval_text()


def test_undefined_values_are_left_out_of_the_mean_and_said():
    a = {"q1": ["x", "y"], "q2": ["y"]}
    b = {"q1": ["x"], "q3": ["z"]}
    s = rw.similarity(a, b, "ANNRecall@2", missing="empty", intervals=False)
    assert np.isnan(s.values["ANNRecall@2"][1])  # q2: B has nothing
    assert s.n_averaged["ANNRecall@2"] == 2 and s.means["ANNRecall@2"] == pytest.approx(0.5)
    assert any("1 query without a value" in n for n in s.notices)
    d = s.to_dict(per_query=True)
    assert d["per_query"]["q2"]["ANNRecall@2"] is None
    json.dumps(d, allow_nan=False)


def test_results_convert_like_results():
    pd = pytest.importorskip("pandas")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankwiseWarning)
        s = rw.similarity(A, B, ["Jaccard@2", "Overlap@2"], names=("old", "new"))
    frame = s.to_frame()
    assert list(frame.columns) == ["Jaccard@2", "Overlap@2"] and frame.index.tolist() == [1, 2, 10]
    assert frame.index.name == "query_id" and isinstance(frame, pd.DataFrame)
    d = s.to_dict()
    assert d["runs"] == ["old", "new"] and d["measures"]["Jaccard@2"] == pytest.approx(0.5)
    assert d["interval"]["method"] == "bootstrap" and d["interval"]["seed"] == 0
    assert "only in new" not in repr(s) and "old vs new" in repr(s)
    text = str(s)
    assert "old vs new: 3 queries paired (0 only in old, 1 only in new" in text and "Jaccard@2" in text


def test_ties_are_counted_and_decided_by_the_policy():
    a = {"q": {"x": 1.0, "y": 1.0, "z": 0.5}}
    b = {"q": {"x": 1.0}}
    asc = rw.similarity(a, b, "Overlap@1", ties="docid_asc", intervals=False)
    desc = rw.similarity(a, b, "Overlap@1", intervals=False)
    assert asc.means["Overlap@1"] == 1.0 and desc.means["Overlap@1"] == 0.0
    assert desc.info["ties"] == "docid_desc" and desc.info["tied_rows_a"] == 2 and desc.info["tied_queries_b"] == 0
    assert "ordered by ties='docid_desc'" in str(desc)


@pytest.mark.parametrize("kw, message", [
    ({"measures": "Jacard@10"}, "Did you mean 'Jaccard'"),
    ({"interval": "percentile"}, "interval must be one of bootstrap, t"),
    ({"alpha": 5}, "alpha must be a number strictly between 0 and 1"),
    ({"resamples": 5}, "resamples must be an integer >= 10"),
    ({"seed": -1}, "seed must be a non-negative integer"),
    ({"ties": "pessimistic"}, "needs relevance grades"),
    ({"missing": "ignore"}, "missing must be one of skip, empty, error"),
])
def test_bad_arguments_are_clear_errors(kw, message):
    with pytest.raises(InvalidParameterError, match=message):
        rw.similarity(A, A, **kw)


def test_missing_error_refuses_and_a_bad_run_says_what_it_takes():
    with pytest.raises(DataError, match=r"1 query of run B not in run A \(e.g. 11\)"):
        rw.similarity(A, B, missing="error")
    with pytest.raises(InvalidParameterError, match="run must be a Run"):
        rw.similarity(42, B)


def test_no_shared_query_gives_nan_means_and_the_counts():
    with pytest.warns(RankwiseWarning):
        s = rw.similarity({"q": ["x"]}, {"r": ["x"]})
    assert s.n_queries == 0 and math.isnan(s.means["Jaccard@10"]) and s.info["only_in_a"] == 1
    assert math.isnan(s.intervals["Jaccard@10"][0])


def test_a_tie_group_split_by_a_cutoff_or_the_depth_is_counted_and_said():
    # d2, d3 and d4 tie in A across rank 2: which of them are in A's top 2 follows the tie policy (the ids), so
    # KTU@2 and Jaccard@2 can change when documents are renamed; the tie-aware RBO keeps the group whole
    a = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 2.0, "d4": 2.0}, "q2": {"x": 2.0, "y": 1.0}}
    b = {"q1": {"d1": 3.0, "d4": 2.5, "d2": 1.0, "d3": 0.5}, "q2": {"x": 2.0, "y": 1.0}}
    sim = rw.similarity(a, b, ["KTU@2", "Jaccard@2", "RBO(ties=a)@2", "Jaccard@10"], intervals=False)
    said = [n for n in sim.notices if "crosses rank" in n]
    assert len(said) == 2 and said[0].startswith("KTU@2: in 1 query ") and said[1].startswith("Jaccard@2: in 1 query ")
    assert "ties='docid_desc'" in said[0]
    renamed = {"q1": {"d1": 3.0, "d9": 2.0, "d3": 2.0, "d4": 2.0}, "q2": a["q2"]}  # d2 -> d9: now first of the tie
    renamed_b = {"q1": {"d1": 3.0, "d4": 2.5, "d9": 1.0, "d3": 0.5}, "q2": b["q2"]}
    again = rw.similarity(renamed, renamed_b, ["KTU@2", "RBO(ties=a)@2"], intervals=False)
    assert again.values["KTU@2"][0] != sim.values["KTU@2"][0]  # (the documented dependence on names)
    assert again.values["RBO(ties=a)@2"][0] == sim.values["RBO(ties=a)@2"][0]
    cut = rw.similarity(a, b, ["Jaccard@10"], depth=2, intervals=False)
    assert cut.info["depth_splits"] == 1 and any(n.startswith("depth=2: in 1 query ") for n in cut.notices)


def test_pairing_only_the_rows_the_cutoffs_read_changes_no_value():
    # with every measure at a cutoff, similarity pairs only the rows above the deepest one (and any tie group
    # crossing it): the values must be those of the whole rankings, ties and uneven lengths included
    from rankwise.agreement.measures import parse_measures
    from rankwise.agreement.pairing import pair_runs
    rng = np.random.default_rng(7)
    def run(n_q: int) -> dict:
        return {f"q{q}": {f"d{d}": float(rng.integers(0, 6)) for d in rng.choice(40, int(rng.integers(1, 30)),
                                                                                replace=False)}
                for q in range(n_q)}
    a, b = run(60), run(60)
    texts = ["Jaccard@4", "KTU@4", "KendallTau@3", "RBO(ties=a)@4", "RBO(ties=w)@2", "RBO(value=ext,ties=broken)@4",
             "TauAP(ties=a)@4", "Overlap(denominator=min_length)@3", "AO@4"]
    sim = rw.similarity(a, b, texts, intervals=False)
    whole = pair_runs(rw.as_run(a), rw.as_run(b)).pairs
    for spec in parse_measures(texts):
        np.testing.assert_array_equal(sim.values[spec.text], spec.compute(whole), err_msg=spec.text)
    reached = pair_runs(rw.as_run(a), rw.as_run(b), reach=4).pairs
    assert reached.a.offsets[-1] < whole.a.offsets[-1]  # (the reach did leave rows out)


def test_an_unbounded_interval_is_said_in_words():
    # two queries: the bootstrap-t interval can be unbounded, which print(sim) says rather than "[-inf, inf]"
    a = {"q1": {"d1": 3, "d2": 2, "d3": 1}, "q2": {"x": 2, "y": 1}}
    b = {"q1": {"d2": 3, "d1": 2, "d4": 1}, "q2": {"y": 2, "x": 1, "z": 0}}
    sim = rw.similarity(a, b, ["Jaccard@3"])
    assert not np.isfinite(sim.intervals["Jaccard@3"]).all()
    assert "[unbounded: too few queries]" in str(sim) and "inf" not in str(sim).split("interval:")[0]
