"""Issue #28's silent traps, said (items 6-8): a run in another id scheme, ranks written as scores, a
grade column under a preset that counts every test row relevant, the columns read named in info, no tie
notice where the tie order is the library's own, one compare warning naming the systems at the caller's
line. Each test fails on the code before the notices."""
from __future__ import annotations

import warnings

import pytest

import rankwise as rw
from rankwise.evaluation.notices import BELOW_REL_KEY, COLUMNS_KEY, RANK_KEY, TIES_KEY, UNJUDGED_KEY

pd = pytest.importorskip("pandas")


def said(record) -> list[str]:
    return [str(w.message) for w in record if issubclass(w.category, rw.RankwiseWarning)]


def _trec(tmp_path, ranks_as_scores: bool = False, doc_prefix: str = "d"):
    """20 queries, 10 documents each; d0..d2 relevant, d3..d5 judged non-relevant. Ranked best first, with
    scores 10..1 (or, written as ranks, 1..10)."""
    qrels = "".join(f"q{i} 0 d{j} {int(j < 3)}\n" for i in range(20) for j in range(6))
    run = "".join(f"q{i} Q0 {doc_prefix}{j} {j + 1} {j + 1 if ranks_as_scores else 10 - j} t\n"
                  for i in range(20) for j in range(10))
    (tmp_path / "q.qrels").write_text(qrels)
    (tmp_path / "r.run").write_text(run)
    return str(tmp_path / "q.qrels"), str(tmp_path / "r.run")


def test_a_run_in_another_id_scheme_is_said(tmp_path):
    qp, rp = _trec(tmp_path, doc_prefix="doc-")  # no run doc id is a judged one: every nDCG is 0
    with pytest.warns(rw.RankwiseWarning) as record:
        res = rw.evaluate(qp, rp, ["nDCG@10"])
    assert res["nDCG@10"] == 0.0
    assert res.info[UNJUDGED_KEY] == {"ranked": 20, "none_judged": 20, "ranked_pooled": 20, "pooled_none_judged": 20}
    assert any(s.startswith("no retrieved document of any query is judged (20 queries)") for s in said(record))
    assert record[0].filename == __file__


def test_a_share_of_unjudged_rankings_is_said_only_above_a_quarter():
    qrels = {f"q{i}": {"a": 1, "b": 0} for i in range(8)}
    run = {f"q{i}": ({"a": 1.0} if i >= 3 else {"zz": 1.0}) for i in range(8)}  # 3 of 8 (> 25%) unjudged
    with pytest.warns(rw.RankwiseWarning, match=r"3 of 8 queries \(more than 25%\) retrieved no judged document"):
        rw.evaluate(qrels, run, ["P@1"])
    run = {f"q{i}": ({"a": 1.0} if i >= 2 else {"zz": 1.0}) for i in range(8)}  # 2 of 8: not above a quarter
    with warnings.catch_warnings():
        warnings.simplefilter("error", rw.RankwiseWarning)
        assert rw.evaluate(qrels, run, ["P@1"]).info[UNJUDGED_KEY]["none_judged"] == 2
    # judgments of relevant documents only (a recommender's test items): a miss is no mismatch
    with warnings.catch_warnings():
        warnings.simplefilter("error", rw.RankwiseWarning)
        rw.evaluate({f"q{i}": {"a": 1} for i in range(8)}, run, ["P@1"])


def test_ranks_written_as_scores_are_said(tmp_path):
    qp, rp = _trec(tmp_path, ranks_as_scores=True)
    with pytest.warns(rw.RankwiseWarning, match=r"scores rise with the rank column in every query \(20 queries\): "
                                                r"were ranks given as scores\?") as record:
        res = rw.evaluate(qp, rp, ["nDCG@10"])
    assert res.info[RANK_KEY] == {"queries": 20, "scores_rising": 20}
    assert record[0].filename == __file__
    ok = rw.evaluate(*_trec(tmp_path / ".." / tmp_path.name), ["nDCG@10"])  # scores falling with rank: silent
    assert ok.info[RANK_KEY] == {"queries": 20, "scores_rising": 0} and ok["nDCG@10"] > res["nDCG@10"]


def test_ranks_as_scores_in_a_frame_and_a_csv_file(tmp_path):
    run = pd.DataFrame({"qid": ["1", "1", "1", "2", "2"], "docno": list("abcab"), "score": [1, 2, 3, 1, 2],
                        "rank": [1, 2, 3, 1, 2]})
    qrels = pd.DataFrame({"qid": ["1", "2"], "docno": ["a", "a"], "relevance": [1, 1]})
    with pytest.warns(rw.RankwiseWarning, match="were ranks given as scores"):
        rw.evaluate(qrels, run, ["P@1"])
    run.to_csv(tmp_path / "r.csv", index=False)
    with pytest.warns(rw.RankwiseWarning, match="were ranks given as scores"):
        res = rw.evaluate(qrels, str(tmp_path / "r.csv"), ["P@1"])
    assert res.info[RANK_KEY] == {"queries": 2, "scores_rising": 2}


def test_a_rating_column_under_recbole_is_said_with_the_override():
    test = pd.DataFrame({"user": [1, 1, 2, 2, 3], "item": [10, 11, 10, 12, 13], "rating": [5, 0.5, 4, 0.5, 0.5]})
    recs = pd.DataFrame({"user": [1, 1, 2, 2, 3], "item": [10, 11, 10, 12, 13], "score": [.9, .8, .7, .6, .5]})
    with pytest.warns(rw.RankwiseWarning, match=r"3 judgments of the grade column 'rating' are below rel=1 and count "
                                                r"as non-relevant, where recbole counts every test row relevant; pass "
                                                r"rel=0"):
        res = rw.evaluate(test, recs, ["P@2"], "recbole")
    assert res.info[BELOW_REL_KEY] == {"rows": 3, "rel": 1.0}
    with warnings.catch_warnings():
        warnings.simplefilter("error", rw.RankwiseWarning)
        kept = rw.evaluate(test, recs, ["P@2"], "recbole", rel=0)
        assert BELOW_REL_KEY not in kept.info and kept["P@2"] > res["P@2"]
        assert BELOW_REL_KEY not in rw.evaluate(test, recs, ["P@2"], "cornac").info  # cornac's threshold is 1


def test_info_names_the_columns_read(tmp_path):
    test = pd.DataFrame({"userId": [1, 2], "movieId": [10, 20], "rating": [4.0, 5.0]})
    recs = pd.DataFrame({"userId": [1, 2], "movieId": [10, 20], "prediction": [0.5, 0.4]})
    res = rw.evaluate(test, recs, ["P@1"])
    assert res.info[COLUMNS_KEY] == {"qrels": {"query": "userId", "doc": "movieId", "relevance": "rating"},
                                     "run": {"query": "userId", "doc": "movieId", "score": "prediction"}}
    test.to_csv(tmp_path / "t.csv", index=False)
    recs.to_csv(tmp_path / "r.csv", index=False)
    assert rw.evaluate(str(tmp_path / "t.csv"), str(tmp_path / "r.csv"), ["P@1"]).info[COLUMNS_KEY] == \
        res.info[COLUMNS_KEY]
    qp, rp = _trec(tmp_path)
    assert rw.evaluate(qp, rp, ["P@1"]).info[COLUMNS_KEY]["run"] == {
        "query": "field 1", "doc": "field 3", "score": "field 5", "rank": "field 4"}


def test_no_tie_notice_where_the_tie_order_is_the_librarys_own():
    qrels = {"q1": {"a": 2, "b": 1}}  # (grades of a tie, both relevant everywhere: no other notice)
    run = {"q1": {"a": 1.0, "b": 1.0}}
    for preset in ("trec_eval", "ir_measures", "mllib", "replay"):
        with warnings.catch_warnings():
            warnings.simplefilter("error", rw.RankwiseWarning)
            assert rw.evaluate(qrels, run, ["P@1"], preset).info[TIES_KEY] == {"P@1": 1}  # counted all the same
    for preset, policy in (("ranx", "input"), ("recbole", "input")):  # orders no rule reproduces: said
        with pytest.warns(rw.RankwiseWarning, match=f"ties='{policy}'"):
            rw.evaluate(qrels, run, ["P@1"], preset)
    with pytest.warns(rw.RankwiseWarning, match="ties='docid_asc'"):  # an override: no longer the library's
        rw.evaluate(qrels, run, ["P@1"], "trec_eval", ties="docid_asc")


def test_compare_says_one_warning_naming_the_systems_at_the_callers_line():
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 1}}
    tied = {"q1": {"a": 1.0, "b": 1.0}, "q2": {"c": 1.0}}
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        rw.compare(qrels, {"bm25": tied, "dense": tied, "clean": {"q1": {"a": 2.0, "b": 1.0}, "q2": {"c": 1.0}}},
                   ["P@1"], convention="ranx")
    notes = [w for w in record if issubclass(w.category, rw.RankwiseWarning)]
    assert len(notes) == 1, said(record)
    assert str(notes[0].message).startswith("bm25, dense: equal scores of documents of different grades")
    assert notes[0].filename == __file__
