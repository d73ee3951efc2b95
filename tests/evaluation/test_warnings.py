"""The Python API speaks (issue #13): a RankwiseWarning, once per call and kind, with counts and the
option that changes it, when queries are set aside, duplicates were dropped, a deterministic tie
policy decided values at a cutoff, or scores left single precision; Results.summary() and repr say
what was averaged and what was set aside; the CLI says each thing once, in its own words."""
from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest

import rankwise as rw
from rankwise.data.align import align
from rankwise.evaluation.notices import FLOAT32_KEY, TIES_KEY, tied_queries
from tests.io.streamed import streamed

QRELS = {"q1": {"a": 1, "b": 0}, "q2": {"c": 1}, "q3": {"x": 1}}
RUN = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"c": 1.0}}  # no ties; q3 judged but not ranked


def rankwise_warnings(record) -> list[str]:
    return [str(w.message) for w in record if issubclass(w.category, rw.RankwiseWarning)]


def test_is_a_filterable_user_warning():
    assert issubclass(rw.RankwiseWarning, UserWarning) and "RankwiseWarning" in rw.__all__
    with warnings.catch_warnings():
        warnings.simplefilter("error", rw.RankwiseWarning)
        with pytest.raises(rw.RankwiseWarning, match="missing_in_run"):
            rw.evaluate(QRELS, RUN, "P@1")
        warnings.simplefilter("ignore", rw.RankwiseWarning)
        rw.evaluate(QRELS, RUN, "P@1")  # silenced: no error


def test_judged_queries_without_a_ranking_are_counted_with_the_fix():
    with pytest.warns(rw.RankwiseWarning, match=r"1 of 3 judged queries have no ranking in the run and were left "
                                                r"out of the means \(missing_in_run='skip', trec_eval's default; "
                                                r"e\.g\. q3\); pass missing_in_run='zero' to score them 0"):
        res = rw.evaluate(QRELS, RUN, "P@1")
    assert res.set_aside == {"missing_in_run": ("q3",)}
    with warnings.catch_warnings():
        warnings.simplefilter("error", rw.RankwiseWarning)  # nothing set aside: silent
        assert rw.evaluate(QRELS, RUN, "P@1", missing_in_run="zero").n_queries == 3


def test_run_queries_without_judgments():
    run = {**RUN, "q3": {"x": 1.0}, "q9": {"a": 1.0}}
    with pytest.warns(rw.RankwiseWarning, match=r"1 queries of the run have no judgments and were left out "
                                                r"\(missing_in_qrels='skip'; e\.g\. q9\); pass "
                                                r"missing_in_qrels='evaluate'"):
        rw.evaluate(QRELS, run, "P@1")


def test_dropped_duplicates_are_counted():
    run = rw.Run.from_arrays(["q1", "q1", "q1", "q2"], ["a", "a", "b", "c"], [2.0, 3.0, 1.0, 1.0], duplicates="first")
    with pytest.warns(rw.RankwiseWarning, match=r"1 repeated \(query, doc\) rows of the run were dropped by its "
                                                r"duplicates policy"):
        res = rw.evaluate(QRELS, run, "P@1", missing_in_run="zero")
    assert res.info["run_duplicates_dropped"] == 1


def test_ties_across_the_cutoff_are_counted_per_metric():
    # q1: relevant 'a' tied with non-relevant 'b' at ranks 1-2 (across cutoff 1, inside cutoff 2);
    # q2: relevant 'c' tied with unjudged 'z' at ranks 2-3; q3: a tie of two non-relevant documents
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 1, "d": 1}, "q3": {"e": 1, "f": 0, "g": 0}}
    run = {"q1": {"a": 1.0, "b": 1.0}, "q2": {"d": 2.0, "c": 1.0, "z": 1.0}, "q3": {"e": 3.0, "f": 1.0, "g": 1.0}}
    said = (r"^equal scores of documents of different grades were ordered by doc id, ascending \(ties='docid_asc'\) "
            r"in P@1 1, P@2 1, AP 2 queries; pass ties='average' for the expectation over their orders$")
    with pytest.warns(rw.RankwiseWarning, match=said) as record:
        res = rw.evaluate(qrels, run, ["P@1", "P@2", "P@3", "AP"], ties="docid_asc")
    assert res.info[TIES_KEY] == {"P@1": 1, "P@2": 1, "AP": 2}  # P@3: no tie crosses rank 3
    assert len(rankwise_warnings(record)) == 1 and len(rankwise_warnings(record)[0]) < 200  # (was 430 characters)
    with pytest.warns(rw.RankwiseWarning, match=r"in input order \(ties='input'\).*P@1 1"):
        rw.evaluate(qrels, run, ["P@1"], ties="input")
    for policy in ("average", "optimistic", "pessimistic"):  # no arbitrary order: nothing to say
        with warnings.catch_warnings():
            warnings.simplefilter("error", rw.RankwiseWarning)
            metrics = ["P@1", "nDCG"] if policy == "average" else ["P@1", "AP"]
            assert TIES_KEY not in rw.evaluate(qrels, run, metrics, ties=policy).info


def test_ties_among_judged_documents_only_under_unjudged_removed():
    qrels = {"q2": {"c": 1, "d": 0}}
    run = {"q2": {"d": 2.0, "c": 1.0, "z": 1.0}}  # c ties only with an unjudged document: removed, no tie
    with warnings.catch_warnings():
        warnings.simplefilter("error", rw.RankwiseWarning)
        assert TIES_KEY not in rw.evaluate(qrels, run, ["P@1", "AP"], unjudged="removed").info
    run = {"q2": {"d": 1.0, "c": 1.0, "z": 2.0}}  # c and d tie at judged ranks 1-2
    with pytest.warns(rw.RankwiseWarning, match="P@1 1"):
        res = rw.evaluate(qrels, run, ["P@1", "P@2"], unjudged="removed", ties="docid_asc")
    assert res.info[TIES_KEY] == {"P@1": 1}


def _naive_tied(qrels, run, k):
    """Queries where documents of different grades (unjudged: 0; <= 0 alike) share a score across rank k."""
    n = 0
    for q, docs in run.items():
        if q not in qrels:
            continue
        ranked = sorted(docs.items(), key=lambda x: -np.float32(x[1]))
        grades = [max(qrels[q].get(d, 0), 0) for d, _ in ranked]
        scores = [np.float32(s) for _, s in ranked]
        hit = False
        for i in range(len(ranked)):
            same = [j for j in range(len(ranked)) if scores[j] == scores[i]]
            if len({grades[j] for j in same}) > 1 and (k is None or (min(same) < k <= max(same))):
                hit = True
        n += hit
    return n


@pytest.mark.parametrize("seed", range(5))
def test_tie_counts_match_a_naive_count(seed):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(40):
        docs = [f"d{i}" for i in rng.choice(30, size=rng.integers(1, 15), replace=False)]
        run[f"q{q}"] = {d: float(rng.integers(0, 4)) for d in docs}
        qrels[f"q{q}"] = {d: int(rng.integers(-1, 3)) for d in rng.choice(docs, size=rng.integers(0, len(docs) + 1),
                                                                         replace=False)}
        if not qrels[f"q{q}"]:
            del qrels[f"q{q}"]
    q, r = rw.Qrels.from_dict(qrels), rw.Run.from_dict(run)
    ids = np.intersect1d(q.query_ids, r.query_ids)
    for ties in ("docid_desc", "input"):
        jr = align(q, r, ids, ties=ties, unjudged="nonrelevant", scores="float32", negative="nonrelevant")
        for k in (None, 1, 2, 3, 5, 10):
            assert tied_queries(jr, k) == _naive_tied(qrels, run, k), (ties, k)


def test_scores_beyond_single_precision():
    run = {"q1": {"a": 1e39, "b": 2e39}, "q2": {"c": 1.0}}
    with pytest.warns(rw.RankwiseWarning) as record:  # (and a tie: both at +inf)
        res = rw.evaluate(QRELS, run, "P@1", missing_in_run="zero")
    said = rankwise_warnings(record)
    assert said[-1].startswith("2 scores are beyond single precision (|score| > 3.4e38): compared as float32") \
        and said[-1].endswith("pass scores='float64', or rescale the scores")
    assert res.info[FLOAT32_KEY] == 2
    assert res["P@1"] == pytest.approx(1 / 3)  # tied at +inf: doc id descending puts 'b' first
    with warnings.catch_warnings():
        warnings.simplefilter("error", rw.RankwiseWarning)
        assert rw.evaluate(QRELS, run, "P@1", missing_in_run="zero", scores="float64")["P@1"] == pytest.approx(1 / 3)


def test_once_per_call_one_warning_per_kind():
    qrels = {"q1": {"a": 1, "b": 0}, "q3": {"x": 1}}
    run = {"q1": {"a": 1.0, "b": 1.0}, "q9": {"a": 1.0}}
    with pytest.warns(rw.RankwiseWarning) as record:
        rw.evaluate(qrels, run, ["P@1", "AP", "nDCG@1"], ties="docid_asc")
    said = rankwise_warnings(record)
    assert len(said) == 2  # set-aside (both reasons in one) and ties
    assert "missing_in_run" in said[0] and "missing_in_qrels" in said[0] and "P@1 1, AP 1, nDCG@1 1" in said[1]
    assert record[0].filename == __file__  # points at the caller


def test_streaming_warns_once_for_the_whole_file(tmp_path):
    lines = [f"q{i} Q0 d{j} {j} {1.0 if j <= 2 else 0.5} t" for i in range(30) for j in range(1, 4)]
    path = tmp_path / "big.run"
    path.write_text("\n".join(lines) + "\n")
    qrels = {f"q{i}": {"d1": 1, "d2": 0} for i in range(31)}  # q30: judged, not ranked
    with pytest.warns(rw.RankwiseWarning) as record:
        res = streamed(qrels, path, ["P@1"], block_bytes=200, ties="input")
    assert res.info["blocks"] > 1
    said = rankwise_warnings(record)
    assert len(said) == 2 and said[0].startswith("1 of 31 judged queries") and "P@1 30" in said[1]
    with pytest.warns(rw.RankwiseWarning):
        assert rw.evaluate(qrels, str(path), ["P@1"], ties="input").info[TIES_KEY] == res.info[TIES_KEY]


def test_compare_speaks_through_evaluate():
    with pytest.warns(rw.RankwiseWarning, match="missing_in_run='skip'"):
        rw.compare(QRELS, {"a": RUN, "b": RUN}, "P@1")


def test_repr_and_summary_say_what_was_averaged_and_set_aside():
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 0}, "q3": {"x": 1}}
    run = {"q1": {"a": 1.0, "b": 1.0}, "q2": {"c": 1.0}, "q9": {"a": 1.0}}
    with pytest.warns(rw.RankwiseWarning):
        res = rw.evaluate(qrels, run, ["P@1", "AP(no_relevant=nan)"])
    text = repr(res)
    assert text.startswith("Results(convention='trec_eval', n_queries=2, P@1=0.0000, AP(no_relevant=nan)=0.5000 "
                           "(over 1)") and "missing_in_run=1 set aside" in text and "missing_in_qrels=1" in text
    s = res.summary()
    assert "convention: trec_eval" in s and "queries evaluated: 2" in s
    assert "AP(no_relevant=nan)   0.5000  1  (1 without relevant documents left out" in s
    assert "set aside: 1 judged queries absent from the run (missing_in_run='skip'); e.g. q3" in s
    assert "set aside: 1 run queries without judgments (missing_in_qrels='skip'); e.g. q9" in s
    # trec_eval's own order of ties (doc id, descending): no note, the count in info
    assert "note: equal scores" not in s and res.info[TIES_KEY]["P@1"] == 1
    with pytest.warns(rw.RankwiseWarning):
        s = rw.evaluate(qrels, run, ["P@1"], ties="docid_asc").summary()
    assert "note: equal scores of documents of different grades were ordered by doc id, ascending" in s


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "rankwise", *args], capture_output=True, text=True, timeout=120)


@pytest.mark.slow  # starts `python -m rankwise`: about 0.5 s
def test_cli_says_each_thing_once(tmp_path):
    (tmp_path / "q.qrels").write_text("q1 0 a 1\nq1 0 b 0\nq3 0 x 1\n")
    (tmp_path / "r.run").write_text("q1 Q0 a 1 1.0 t\nq1 Q0 b 2 1.0 t\n")
    p = _cli("evaluate", str(tmp_path / "q.qrels"), str(tmp_path / "r.run"), "-m", "P@1", "--ties", "docid_asc")
    assert p.returncode == 0, p.stderr
    assert "RankwiseWarning" not in p.stderr and "warnings.warn" not in p.stderr
    assert p.stderr.count("missing_in_run") == 1, p.stderr  # the CLI's own set-aside line only
    assert p.stderr.count("ties='docid_asc'") == 1 and "rankwise: warning: equal scores of documents" in p.stderr
