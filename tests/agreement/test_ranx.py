"""convention="ranx" reproduces ranx 0.3.21 per query and on average.

Verified behaviour of ranx 0.3.21 that these tests rely on:
- ranking: numba argsort of -score (float64, no float32 cast). Up to 15 documents per query that sort is
  an insertion sort, so ties keep the run's insertion order; from 16 documents on, quicksort partitions
  scramble tied documents (deterministically, but not by any documented rule) -> ties are tested only
  with <= 15 retrieved documents per query, everything else on tie-free scores;
- query sets must match (AssertionError otherwise) unless make_comparable=True, which scores judged
  queries missing from the run as 0 and drops run-only queries;
- relevant iff label >= rel_lvl (suffix "-lN"); every metric is 0 for a query without relevant documents;
- precision@k divides by k; map@k divides by all relevant; nDCG gain = label if label >= rel_lvl else 0
  (so the threshold changes nDCG, unlike trec_eval), ideal = relevant labels sorted, cut at k;
  *_burges uses 2^label - 1; rbp.p = (1-p) * sum over the whole run of label * p^(rank-1) (graded);
- bpref: unjudged documents removed, judged labels < rel_lvl (negatives included) are non-relevant,
  N = number of judged labels < rel_lvl; N = 0 gives NaN.
Bugs kept out of the inputs: qrels labels are truncated to int (no float labels here); ranx pairs plain
dicts by position, so we always hand it Qrels/Run objects; a query with R = 0 makes ranx's parallel
bpref return 0 for the later queries of its chunk, so bpref inputs give every query R >= 1 and N >= 1.
"""
import pytest

import rankwise as rw

from .conftest import CUTOFFS, Deferred, check_agreement, random_case

ranx = Deferred("ranx")  # imported by the first test that runs, not at collection

# random collections set queries aside and tie scores on purpose: the RankwiseWarnings that say so are
# tested in tests/evaluation/test_warnings.py, not repeated for every example here
pytestmark = [pytest.mark.peer, pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")]


def _ranx(case, pairs, make_comparable=False):
    qrels = ranx.Qrels({q: {d: int(v) for d, v in docs.items()} for q, docs in case.qrels.items()})
    run = ranx.Run(case.run)
    ranx.evaluate(qrels, run, list(pairs.values()), make_comparable=make_comparable, save_results_in_run=True)
    per_q = {m: dict(run.scores[m]) for m in pairs.values()}
    qids = list(per_q[next(iter(pairs.values()))])
    return {q: {ours: float(per_q[theirs][q]) for ours, theirs in pairs.items()} for q in qids}


def _evaluate(case, metrics, **overrides):
    return rw.evaluate(rw.Qrels.from_dict(case.qrels), rw.Run.from_dict(case.run), metrics,
                       convention="ranx", **overrides)


def _pairs(rel=None, cutoffs=CUTOFFS):
    s = "" if rel is None else f"(rel={rel})"
    lvl = "" if rel is None else f"-l{rel}"
    pairs = {f"AP{s}": f"map{lvl}", f"RR{s}": f"mrr{lvl}", f"Rprec{s}": f"r-precision{lvl}",
             f"nDCG{s}": f"ndcg{lvl}"}
    for k in cutoffs:
        pairs.update({
            f"P{s}@{k}": f"precision@{k}{lvl}", f"R{s}@{k}": f"recall@{k}{lvl}", f"F1{s}@{k}": f"f1@{k}{lvl}",
            f"Success{s}@{k}": f"hit_rate@{k}{lvl}", f"RR{s}@{k}": f"mrr@{k}{lvl}",
            f"AP{s}@{k}": f"map@{k}{lvl}", f"nDCG{s}@{k}": f"ndcg@{k}{lvl}", f"DCG{s}@{k}": f"dcg@{k}{lvl}",
        })
    return pairs


def test_core_metrics_without_ties(seed):
    case = random_case(seed, ties=False, negatives=True, qrels_only=0, run_only=0)
    pairs = _pairs()
    check_agreement(_evaluate(case, list(pairs)), _ranx(case, pairs), list(pairs), label=f"seed {seed}")


@pytest.mark.parametrize("rel", [2, 3])
def test_relevance_threshold(seed, rel):
    # ranx's "-lN" suffix; note nDCG/DCG drop the gains of labels below the threshold.
    case = random_case(seed + 200, ties=False, negatives=True, qrels_only=0, run_only=0)
    pairs = _pairs(rel=rel)
    check_agreement(_evaluate(case, list(pairs)), _ranx(case, pairs), list(pairs), label=f"rel={rel}")


def test_exponential_gain_is_ndcg_burges(seed):
    case = random_case(seed + 300, ties=False, qrels_only=0, run_only=0)
    pairs = {}
    for k in CUTOFFS:
        pairs[f"nDCG(gain=exp)@{k}"] = f"ndcg_burges@{k}"
        pairs[f"DCG(gain=exp)@{k}"] = f"dcg_burges@{k}"
    pairs["nDCG(gain=exp)"] = "ndcg_burges"
    check_agreement(_evaluate(case, list(pairs)), _ranx(case, pairs), list(pairs), label="burges")


def test_rbp_is_graded(seed):
    # ranx weights each retrieved document by its label (not 0/1) and never cuts the run.
    case = random_case(seed + 400, ties=False, qrels_only=0, run_only=0)
    pairs = {"RBP(p=0.8)": "rbp.8", "RBP(p=0.95)": "rbp.95", "RBP(p=0.5)": "rbp.5",
             "RBP(p=0.8,rel=2)": "rbp.8-l2"}
    check_agreement(_evaluate(case, list(pairs)), _ranx(case, pairs), list(pairs), label="rbp")


def test_bpref_negatives_are_judged_nonrelevant(seed):
    case = random_case(seed + 500, ties=False, negatives=True, qrels_only=0, run_only=0, no_relevant=0,
                       min_relevant=1, min_nonrelevant_below=1)
    pairs = {"bpref": "bpref"}
    check_agreement(_evaluate(case, list(pairs)), _ranx(case, pairs), list(pairs), label="bpref")


def test_bpref_relevance_threshold(seed):
    case = random_case(seed + 600, ties=False, negatives=True, qrels_only=0, run_only=0, no_relevant=0,
                       min_relevant=2, min_nonrelevant_below=2)
    pairs = {"bpref(rel=2)": "bpref-l2"}
    check_agreement(_evaluate(case, list(pairs)), _ranx(case, pairs), list(pairs), label="bpref rel=2")


def test_ties_keep_insertion_order_up_to_15_documents(seed):
    case = random_case(seed + 700, ties=True, negatives=True, qrels_only=0, run_only=0, max_run_len=15)
    assert max(len(d) for d in case.run.values()) <= 15
    pairs = _pairs(cutoffs=(1, 3, 5, 10))
    check_agreement(_evaluate(case, list(pairs)), _ranx(case, pairs), list(pairs), label="input-order ties")


def test_make_comparable_query_sets(seed):
    # ranx itself refuses mismatched query sets; with make_comparable=True judged-but-unretrieved queries
    # score 0 and count, run-only queries are dropped. That is missing_in_run="zero",
    # missing_in_qrels="skip" on top of the preset.
    case = random_case(seed + 800, ties=False, qrels_only=3, run_only=3)
    pairs = _pairs(cutoffs=(1, 5, 10))
    expected = _ranx(case, pairs, make_comparable=True)
    assert set(expected) == set(case.qrels)
    res = _evaluate(case, list(pairs), missing_in_run="zero", missing_in_qrels="skip")
    check_agreement(res, expected, list(pairs), label="make_comparable")


def test_scores_are_compared_as_float64():
    # trec_eval would see these as float32 ties; ranx keeps them apart.
    from .conftest import Case
    qrels = {f"q{i}": {"a": 1, "z": 0, "m": 2} for i in range(6)}
    run = {f"q{i}": {"z": 1.0, "a": 1.0 + (i + 1) * 1e-12, "m": 1.0 - (i + 1) * 1e-13} for i in range(6)}
    case = Case(qrels, run)
    pairs = {"RR": "mrr", "nDCG@2": "ndcg@2", "AP": "map"}
    check_agreement(_evaluate(case, list(pairs)), _ranx(case, pairs), list(pairs), label="float64 scores")
