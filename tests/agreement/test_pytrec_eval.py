"""convention="trec_eval" reproduces pytrec_eval (the trec_eval 9.x engine) per query and on average.

Verified behaviour of pytrec-eval-terrier 0.5.11 that these tests rely on:
- ranking: score cast to float32, descending; ties by doc id descending in byte order (strcmp);
- query set: only queries in both qrels and run; a judged query with no relevant document scores 0;
- labels: relevant iff label >= relevance_level; negative labels act like unjudged documents
  (bpref skips them, ndcg gives them gain 0); ndcg ignores relevance_level (gain = label if > 0);
- P@k divides by k; AP@k (map_cut) divides by all relevant; bpref uses N = judged labels in [0, rel).
pytrec_eval rejects float labels (TypeError) and segfaults when a query's labels are all negative and
bpref is computed together with map or Rprec, so the generator never produces such queries.
"""
import pytest

pytrec_eval = pytest.importorskip("pytrec_eval")

import rankwise as rw  # noqa: E402

from .conftest import CUTOFFS, Case, check_agreement, random_case  # noqa: E402

# random collections set queries aside and tie scores on purpose: the RankwiseWarnings that say so are
# tested in tests/evaluation/test_warnings.py, not repeated for every example here
pytestmark = [pytest.mark.peer, pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")]


# rankwise metric -> pytrec_eval measure key
def _measure_map(cutoffs=CUTOFFS, rel=None):
    suffix = "" if rel is None else f"(rel={rel})"
    pairs = {f"AP{suffix}": "map", f"RR{suffix}": "recip_rank", f"Rprec{suffix}": "Rprec",
             f"bpref{suffix}": "bpref"}
    if rel is None:
        pairs.update({"nDCG": "ndcg"})
    for k in cutoffs:
        pairs[f"P{suffix}@{k}"] = f"P_{k}"
        pairs[f"R{suffix}@{k}"] = f"recall_{k}"
        pairs[f"Success{suffix}@{k}"] = f"success_{k}"
        pairs[f"AP{suffix}@{k}"] = f"map_cut_{k}"
        if rel is None:
            pairs[f"nDCG@{k}"] = f"ndcg_cut_{k}"
    return pairs


def _pytrec(case, pairs, relevance_level=1):
    measures = {"map", "recip_rank", "Rprec", "bpref", "ndcg",
                "P." + ",".join(map(str, CUTOFFS)), "recall." + ",".join(map(str, CUTOFFS)),
                "success." + ",".join(map(str, CUTOFFS)), "map_cut." + ",".join(map(str, CUTOFFS)),
                "ndcg_cut." + ",".join(map(str, CUTOFFS))}
    qrels = {q: {d: int(v) for d, v in docs.items()} for q, docs in case.qrels.items()}
    out = pytrec_eval.RelevanceEvaluator(qrels, measures, relevance_level=relevance_level).evaluate(case.run)
    return {q: {ours: vals[theirs] for ours, theirs in pairs.items()} for q, vals in out.items()}


def _evaluate(case, metrics, **overrides):
    return rw.evaluate(rw.Qrels.from_dict(case.qrels), rw.Run.from_dict(case.run), metrics,
                       convention="trec_eval", **overrides)


@pytest.mark.parametrize("ties", [True, False], ids=["ties", "noties"])
def test_all_metrics_all_cutoffs(seed, ties):
    case = random_case(seed, ties=ties, negatives=True, min_nonnegative=True)
    pairs = _measure_map()
    expected = _pytrec(case, pairs)
    assert set(expected) == set(case.qrels) & set(case.run)  # the query set we expect rankwise to keep
    check_agreement(_evaluate(case, list(pairs)), expected, list(pairs), label=f"seed {seed}")


@pytest.mark.parametrize("rel", [2, 3])
def test_relevance_threshold_matches_relevance_level(seed, rel):
    case = random_case(seed + 100, negatives=True, min_nonnegative=True)
    pairs = _measure_map(rel=rel)
    expected = _pytrec(case, pairs, relevance_level=rel)
    check_agreement(_evaluate(case, list(pairs)), expected, list(pairs), label=f"rel={rel}")


def test_aliases_are_keyed_as_written():
    case = random_case(7, negatives=True, min_nonnegative=True)
    aliases = {"MAP@10": "map_cut_10", "MRR": "recip_rank", "recip_rank": "recip_rank", "Hit@10": "success_10",
               "map": "map", "NDCG@10": "ndcg_cut_10"}
    expected = _pytrec(case, aliases)
    check_agreement(_evaluate(case, list(aliases)), expected, list(aliases), label="aliases")


def test_float32_score_ties_fall_back_to_docid_desc():
    # pytrec_eval stores scores as C float: 1 + 1e-9 == 1 after the cast, so doc-id order decides;
    # 1 + 1e-7 survives the cast. Doc ids are chosen so float64 order and doc-id order disagree.
    qrels, run = {}, {}
    for i in range(12):
        q = f"q{i}"
        deltas = [0.0, 1e-9, 2e-9, 5e-10, 1e-7, 3e-7, 1e-12]
        docs = [f"d{n}" for n in (3, 12, 7, 100, 45, 9, 21)]
        rot = i % len(docs)
        docs = docs[rot:] + docs[:rot]
        run[q] = {d: 1.0 + x for d, x in zip(docs, deltas)}
        qrels[q] = {d: (i + j) % 3 for j, d in enumerate(docs)}
        qrels[q][docs[i % 7]] = 2
    case = Case(qrels, run)
    pairs = {"RR": "recip_rank", "AP": "map", "nDCG@3": "ndcg_cut_3", "P@1": "P_1", "bpref": "bpref"}
    expected = _pytrec(case, pairs)
    check_agreement(_evaluate(case, list(pairs)), expected, list(pairs), label="float32 ties")


def test_docid_byte_order_tie_break():
    # One relevant document among many tied ones: RR reveals its position. Byte order puts
    # lowercase above uppercase and "d2" above "d10".
    ids = ["d2", "d10", "d1", "d9", "D5", "d5", "a", "b", "dd", "d_1", "d-1", "Z", "z", "10", "9"]
    qrels = {f"q{i}": {d: 1} for i, d in enumerate(ids)}
    run = {f"q{i}": {x: 1.0 for x in ids} for i in range(len(ids))}
    case = Case(qrels, run)
    pairs = {"RR": "recip_rank", "P@3": "P_3", "nDCG@5": "ndcg_cut_5"}
    expected = _pytrec(case, pairs)
    check_agreement(_evaluate(case, list(pairs)), expected, list(pairs), label="byte order")


def test_ir_measures_counts_qrels_only_queries_as_zero():
    # ir_measures' pytrec_eval provider behaves like `trec_eval -c`: judged queries missing from the run
    # are reported with 0 and averaged; run-only queries are dropped.
    ir_measures = pytest.importorskip("ir_measures")
    case = random_case(11, negatives=False)
    names = {"P@5": ir_measures.P @ 5, "AP": ir_measures.AP, "nDCG@10": ir_measures.nDCG @ 10,
             "RR": ir_measures.RR, "R@10": ir_measures.R @ 10}
    expected: dict = {}
    for r in ir_measures.iter_calc(list(names.values()), case.qrels, case.run):
        ours = next(k for k, v in names.items() if v == r.measure)
        expected.setdefault(r.query_id, {})[ours] = r.value
    assert set(expected) == set(case.qrels)
    res = _evaluate(case, list(names), missing_in_run="zero")
    check_agreement(res, expected, list(names), label="ir_measures -c")
