"""Every kernel and every convention against the naive per-query oracle, on random ragged inputs."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankwise as rw
from rankwise.spec import registry
from tests.reference.random_collections import QUERIES, check, collections, metric_strings

# random collections set queries aside and tie scores on purpose: the RankwiseWarnings that say so are
# tested in tests/evaluation/test_warnings.py, not repeated for every example here
pytestmark = pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")

BASE_METRICS = ["P", "R", "F", "Success", "Hits", "Rprec", "AP", "RR", "DCG", "nDCG", "Bpref", "RBP", "AUC",
                # trec_eval's other measures and the counts (issue #14)
                "NumQ", "NumRet", "NumRel", "NumRelRet", "NumNonrelJudgedRet", "SetP", "SetR", "SetAP", "SetRelP",
                "IPrec", "IPrecAvg", "RprecMult", "Judged", "Unj", "FallOut"]


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.slow  # hypothesis, 150 examples: about 5 s on 2 cores
@SETTINGS
@given(data=st.data(), convention=st.sampled_from(["trec_eval", "ir_measures", "ranx", "mllib", "recsys_confusion"]))
def test_presets_match_oracle(data, convention):
    qrels, run = data.draw(collections())
    metrics = metric_strings(data.draw, BASE_METRICS)
    check(qrels, run, metrics, convention)


@pytest.mark.slow  # hypothesis, 150 examples: about 5 s on 2 cores
@SETTINGS
@given(data=st.data())
def test_every_choice_matches_oracle(data):
    qrels, run = data.draw(collections())
    overrides = {
        "ties": data.draw(st.sampled_from(["docid_desc", "docid_asc", "input", "optimistic", "pessimistic"])),
        "scores": data.draw(st.sampled_from(["float32", "float64"])),
        "unjudged": data.draw(st.sampled_from(["nonrelevant", "removed"])),
        "negative": data.draw(st.sampled_from(["unjudged", "nonrelevant"])),
        "no_relevant": data.draw(st.sampled_from(["zero", "nan"])),
        "missing_in_run": data.draw(st.sampled_from(["skip", "zero"])),
        "missing_in_qrels": data.draw(st.sampled_from(["skip", "evaluate"])),
        # the choices of issue #14 that take documents out before ranking, or judgments out of R
        "nonpositive": data.draw(st.sampled_from(["ranked", "not_retrieved", "unjudged"])),
        "self_retrieval": data.draw(st.sampled_from(["kept", "removed"])),
        "unscored_judgments": data.draw(st.sampled_from(["counted", "ignored"])),
        "fractional_grades": data.draw(st.sampled_from(["truncated", "kept"])),
    }
    metrics = metric_strings(data.draw, BASE_METRICS)
    check(qrels, run, metrics, "trec_eval", **overrides)


@pytest.mark.slow  # hypothesis, 120 examples: about 3.5 s
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_tie_average_is_the_expectation_over_orders(data):
    qrels, run = data.draw(collections(max_docs=6))
    names = [d.name for d in registry.all_metrics() if d.tie_average and d.name in BASE_METRICS]
    metrics = [m for m in metric_strings(data.draw, names) if "ideal=retrieved" not in m]
    check(qrels, run, metrics, "sklearn", scores=data.draw(st.sampled_from(["float32", "float64"])),
          unjudged=data.draw(st.sampled_from(["nonrelevant", "removed"])))


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_input_is_never_mutated_and_results_are_read_only(data):
    qrels, run = data.draw(collections())
    q, r = rw.Qrels.from_dict(qrels), rw.Run.from_dict(run)
    before = (q.values.copy(), r.values.copy(), r.docs.copy())
    res = rw.evaluate(q, r, ["nDCG@3", "AP", "P@2"])
    assert np.array_equal(before[0], q.values) and np.array_equal(before[1], r.values)
    assert np.array_equal(before[2], r.docs)
    assert not res.values["AP"].flags.writeable


def _rows(d):
    return [(q, doc, v) for q, inner in d.items() for doc, v in inner.items()]


@pytest.mark.slow  # hypothesis, 80 examples: about 4 s
@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_row_order_of_the_input_changes_nothing_but_input_ties(data):
    """Queries stored in first-appearance order, in blocks or interleaved: the same results as the
    same data given query by query (ties=input aside, whose answer is the input order)."""
    qrels, run = data.draw(collections())
    metrics = metric_strings(data.draw, BASE_METRICS)
    ties = data.draw(st.sampled_from(["docid_desc", "optimistic", "pessimistic", "docid_asc"]))
    missing_in_qrels = data.draw(st.sampled_from(["skip", "evaluate"]))
    want = rw.evaluate(qrels, run, metrics, ties=ties, missing_in_qrels=missing_in_qrels)
    perm = data.draw(st.permutations(range(len(_rows(run)))))
    rows = [_rows(run)[i] for i in perm]
    qperm = data.draw(st.permutations(range(len(_rows(qrels)))))
    qrows = [_rows(qrels)[i] for i in qperm]
    shuffled_run = rw.Run.from_arrays(*(np.array([r[i] for r in rows], dtype=object if i == 2 else str)
                                        for i in range(3)))
    shuffled_qrels = rw.Qrels.from_arrays(*(np.array([r[i] for r in qrows], dtype=object if i == 2 else str)
                                            for i in range(3)))
    got = rw.evaluate(shuffled_qrels, shuffled_run, metrics, ties=ties, missing_in_qrels=missing_in_qrels)
    assert list(got.query_ids) == list(want.query_ids) == sorted(want.query_ids)
    for m in metrics:
        np.testing.assert_array_equal(got.values[m], want.values[m], err_msg=m)


LONG_DOCS = ["doc-0000000001-a", "doc-0000000001-b", "doc-0000000002-a", "doc-00000000010", "x", "doc-0000000001",
             "doc-0000000001-a-and-more-words"]  # ids spanning 1 to 4 packed words, equal in the first ones


@pytest.mark.slow  # hypothesis, 250 examples: about 3 s
@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_tie_orders_match_oracle_on_tie_heavy_graded_runs(data):
    """Most scores tied (groups of two, three, more), graded and unjudged documents mixed, ids
    that differ only in a later packed word: every deterministic tie order against the oracle."""
    qrels, run = {}, {}
    for q in data.draw(st.lists(st.sampled_from(QUERIES), unique=True, min_size=1, max_size=3)):
        docs = data.draw(st.lists(st.sampled_from(LONG_DOCS), unique=True, min_size=1, max_size=len(LONG_DOCS)))
        qrels[q] = {d: data.draw(st.sampled_from([0, 1, 2, 3])) for d in docs}
        docs = data.draw(st.lists(st.sampled_from(LONG_DOCS), unique=True, min_size=1, max_size=len(LONG_DOCS)))
        run[q] = {d: data.draw(st.sampled_from([1.0, 1.0, 2.0, 0.5])) for d in docs}
    ties = data.draw(st.sampled_from(["docid_desc", "docid_asc", "optimistic", "pessimistic"]))
    unjudged = data.draw(st.sampled_from(["nonrelevant", "removed"]))
    check(qrels, run, ["RR", "AP", "nDCG", "P@2", "Bpref", "DCG(gain=exp)@3", "Rprec", "RR(rel=2)"], "trec_eval",
          ties=ties, unjudged=unjudged)
