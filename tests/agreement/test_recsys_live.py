"""Issue #14, live: each recommender library's preset against the library itself, run on fresh inputs.

tests/agreement/test_recsys_goldens.py compares the presets with values the libraries computed once; here the
libraries run (torchmetrics 1.9.0, implicit 0.7.3, cornac 3.0.1, recommenders 1.2.1, lenskit 2025.8.1, beir
2.2.0: the `recsys-peers` extra plus the two --no-deps installs of .ci/run) on seeded inputs made by
tests/reference/recsys_cases.py: exact score ties across relevance, scores <= 0, users without test items,
empty and short lists, graded labels. Each library gets the metrics, rankwise metric strings and overrides
its golden test uses, fed as its golden script fed it (recommenders: its prediction rows shuffled, with their
real scores, so that its own stable re-sort decides; torchmetrics: every item's score, and also only the listed
items', which unscored_judgments=ignored reproduces), and rankwise must give each user the library's value and
the library's mean, to 1e-9 (1e-6 for torchmetrics, which computes in float32). A test skips, saying what to
install, where its library is not installed; CI installs them all.

Where a library orders tied scores by no rule (torch.topk and an unstable sort in torchmetrics, implicit's
heap, cornac's numpy argpartition), tied inputs are compared on the users whose value no order of their tied
items can change, and the library ranks by itself (torchmetrics' dense scores, implicit's recommend() of an
ALS model, cornac's ranking_eval) on inputs without ties, where every user and the mean compare.
"""
from __future__ import annotations

import copy
import math
import random
import warnings

import numpy as np
import pytest

import rankwise as rw
from tests.reference.recsys_cases import (
    User,
    dense_run,
    listed_scores_run,
    make_users,
    qrels,
    ranked_run,
)

pytestmark = pytest.mark.peer

KS = (1, 3, 5, 10)
SEEDS = (501, 502, 503)
N_ITEMS = {501: 15, 502: 12, 503: 20}     # catalogue sizes


def users_of(seed: int, *, ties: bool = True, n_users: int = 30) -> list[User]:
    return make_users(seed, n_users=n_users, n_items=N_ITEMS[seed], ties=ties)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n_users", [30, 16])
def test_the_inputs_hold_the_awkward_cases(seed, n_users):
    users = users_of(seed, n_users=n_users)
    assert any(u.ranked and not u.truth for u in users), "a user with a list and no test items"
    assert any(u.truth and not u.ranked for u in users), "a user with test items and an empty list"
    assert any(0 < len(u.ranked) < max(KS) for u in users), "a list shorter than the largest cutoff"
    assert any(len(u.ranked) == len(u.scores) for u in users), "a list of the whole catalogue"
    assert any(max(u.truth.values(), default=1) > 1 for u in users), "graded test items"
    assert any(max(u.scores) <= 0 for u in users) and any(0.0 in u.scores for u in users), "scores <= 0"
    assert any(len({u.scores[i] for i in u.truth}) + len({u.scores[i] for i in range(len(u.scores))
                                                           if i not in u.truth}) > len(set(u.scores))
               for u in users), "a score shared by a test item and another item"
    distinct = users_of(seed, ties=False, n_users=n_users)
    assert all(len(set(np.float32(u.scores).tolist())) == len(u.scores) for u in distinct)


def need(module: str, pin: str):
    return pytest.importorskip(module, reason=f"{pin} is not installed: pip install -e '.[recsys-peers]' and "
                                              "pip install --no-deps recommenders==1.2.1 beir==2.2.0 (.ci/run)")


def evaluate(qrels_, run, metric: str, preset: str, **overrides) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)  # set-aside users are part of what is compared
        res = rw.evaluate(qrels_, run, [metric], convention=preset, **overrides)
    return {"per_user": res.per_query(metric), "mean": res[metric]}


def compare(mine: dict, want: dict, mean: float | None, *, tol: float = 1e-9, label: str,
            every_user: bool = True, at_least: int = 5) -> None:
    """``want``: {user: the library's value}; ``every_user``: ``want`` holds every user the library evaluates,
    so rankwise must leave every other user out (NaN); ``mean``: the library's mean (None: not compared)."""
    got = mine["per_user"]
    assert len(want) >= at_least, f"{label}: only {len(want)} users compared"
    for user, value in want.items():
        value_here = got.get(user, math.nan)
        assert value_here == pytest.approx(value, abs=tol), \
            f"{label}: user {user}: rankwise {value_here!r}, library {value!r}"
    if every_user:
        extra = sorted(u for u, v in got.items() if u not in want and not math.isnan(v))
        assert not extra, f"{label}: rankwise scores users the library leaves out: {extra}"
    if mean is not None:
        assert mine["mean"] == pytest.approx(mean, abs=tol), f"{label}: the mean: rankwise {mine['mean']!r}, " \
                                                             f"library {mean!r}"


def metric_at(template: str, k) -> str:
    return template.replace("@{k}", "") if k is None else template.format(k=k)


# ---------------------------------------------------------------------------------------------- torchmetrics
# (class, rankwise metric, cutoffs, binary target only, how ties matter: None = never (nDCG tie-averages,
# AUROC half-credits), "set" = only which items are in the top k, "order" = their order too)
TORCHMETRICS = {
    "RetrievalNormalizedDCG": ("nDCG@{k}", (*KS, None), False, None),
    "RetrievalAUROC": ("AUC", (None,), True, None),
    # without top_k (issue #24): the whole list is the cut, items scored <= 0 in precision's denominator
    "RetrievalPrecision": ("P@{k}", (*KS, None), True, "set"),
    "RetrievalRecall": ("R@{k}", (*KS, None), True, "set"),
    "RetrievalHitRate": ("Success@{k}", KS, True, "set"),
    "RetrievalFallOut": ("FallOut@{k}", KS, True, "set"),
    "RetrievalMAP": ("AP@{k}", (*KS, None), True, "order"),
    "RetrievalMRR": ("RR@{k}", (*KS, None), True, "order"),
    "RetrievalRPrecision": ("Rprec", (None,), True, "set"),
}
TM_SCORE_FILTER = {"RetrievalMAP", "RetrievalPrecision", "RetrievalRecall", "RetrievalMRR"}  # preds <= 0 not hits


FEEDS = {"dense": dense_run, "listed": listed_scores_run}   # every item scored, or only each list's items


def torchmetrics_values(tm, name: str, k, rows: dict, users: list[User], binary: bool,
                        **options) -> tuple[dict, float]:
    """One update() with every user's rows ({user: {item: score}}: a user without rows does not exist for
    torchmetrics) and compute(): per-user values (caught by an `aggregation` callable, in ascending user id)
    and the default mean."""
    import torch

    cls = getattr(tm.retrieval, name)
    truth = {u.user: u.truth for u in users}
    ids = sorted(rows)
    preds = torch.tensor([s for q in ids for s in rows[q].values()], dtype=torch.float64)
    target = torch.tensor([(1 if binary else truth[q][i]) if i in truth[q] else 0 for q in ids for i in rows[q]],
                          dtype=torch.long)
    indexes = torch.tensor([q for q in ids for _ in rows[q]], dtype=torch.long)
    kw = ({} if k is None else {"top_k": k}) | options
    caught = []

    def keep(values, dim=None):
        caught.append(values.clone())
        return values.mean()

    with_values, plain = cls(aggregation=keep, **kw), cls(**kw)
    for m in (with_values, plain):
        m.update(preds, target, indexes=indexes)
    mean = float(plain.compute())
    with_values.compute()
    assert len(caught) == 1 and caught[0].numel() == len(ids)   # default empty_target_action: every user counts
    return dict(zip(ids, caught[0].double().tolist())), mean


def torchmetrics_tie_sensitive(scores: dict, truth: dict, name: str, k) -> bool:
    """Whether some order of a user's tied items (float32 scores, as torchmetrics compares them) changes its
    value: a tie group mixing hits and misses that reaches into the cut ("order") or straddles it ("set")."""
    how = TORCHMETRICS[name][3]
    s = np.asarray(list(scores.values()), dtype=np.float32)
    hit = np.array([i in truth for i in scores])
    if name in TM_SCORE_FILTER:
        hit &= s > 0
    cut = int(hit.sum()) if name == "RetrievalRPrecision" else min(k or len(s), len(s))
    order = np.argsort(-s, kind="stable")
    start = 0
    while start < len(s):
        end = start
        while end < len(s) and s[order[end]] == s[order[start]]:
            end += 1
        mixed = len(set(hit[order[start:end]].tolist())) > 1
        if mixed and (start < cut < end or (how == "order" and start < cut)):
            return True
        start = end
    return False


def _tm_cases(tie_rule):
    return [pytest.param(name, k, binary, id=f"{name}-{k or 'none'}{'' if binary else '-graded'}")
            for name, (_, ks, binary_only, how) in TORCHMETRICS.items() if tie_rule(how)
            for binary in ((True,) if binary_only else (True, False)) for k in ks]


def check_torchmetrics(name, k, binary, users, feed, *, tie_free_users_only=False, what=""):
    tm = need("torchmetrics", "torchmetrics==1.9.0")
    rows = FEEDS[feed](users)
    want, mean = torchmetrics_values(tm, name, k, rows, users, binary)
    truth = {u.user: u.truth for u in users}
    every_user = not tie_free_users_only
    if tie_free_users_only:
        want = {q: v for q, v in want.items() if not torchmetrics_tie_sensitive(rows[q], truth[q], name, k)}
        mean = None
    metric = metric_at(TORCHMETRICS[name][0], k)
    mine = evaluate(qrels(users, binary=binary), rows, metric, "torchmetrics")
    compare(mine, want, mean, tol=1e-6, every_user=every_user,
            label=f"torchmetrics {tm.__version__} {name} k={k} {feed} rows{what} -> {metric}")


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("feed", FEEDS)
@pytest.mark.parametrize("name,k,binary", _tm_cases(lambda how: how is None))
def test_torchmetrics_tie_independent_metrics(seed, feed, name, k, binary):
    check_torchmetrics(name, k, binary, users_of(seed), feed)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("feed", FEEDS)
@pytest.mark.parametrize("name,k,binary", _tm_cases(lambda how: how is not None))
def test_torchmetrics_on_tied_scores_where_no_order_matters(seed, feed, name, k, binary):
    check_torchmetrics(name, k, binary, users_of(seed), feed, tie_free_users_only=True, what=" (tie-free users)")


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("feed", FEEDS)
@pytest.mark.parametrize("name,k,binary", _tm_cases(lambda how: True))
def test_torchmetrics_on_distinct_scores(seed, feed, name, k, binary):
    check_torchmetrics(name, k, binary, users_of(seed, ties=False), feed, what=" (no ties)")


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("feed", FEEDS)
@pytest.mark.parametrize("k", KS)
def test_torchmetrics_adaptive_k_precision(seed, feed, k):
    """RetrievalPrecision(adaptive_k=True) divides by min(k, the list's length), items scored <= 0 counted
    (issue #24): P(denominator=retrieved)@k under the preset, on distinct scores (every user compares)."""
    tm = need("torchmetrics", "torchmetrics==1.9.0")
    users = users_of(seed, ties=False)
    rows = FEEDS[feed](users)
    want, mean = torchmetrics_values(tm, "RetrievalPrecision", k, rows, users, True, adaptive_k=True)
    metric = f"P(denominator=retrieved)@{k}"
    compare(evaluate(qrels(users, binary=True), rows, metric, "torchmetrics"), want, mean, tol=1e-6,
            label=f"torchmetrics {tm.__version__} RetrievalPrecision(adaptive_k=True) k={k} {feed} rows -> {metric}")


def test_torchmetrics_auroc_of_one_class():
    """A user whose scored rows are all relevant (possible since unscored_judgments=ignored lets a run score
    only some items): RetrievalAUROC gives 0 (functional/retrieval/auroc.py:52-64)."""
    tm = need("torchmetrics", "torchmetrics==1.9.0")
    users = [User(0, (0.5, 0.25, 0.75), (2, 0, 1), {0: 1, 1: 1, 2: 1}), User(1, (0.5, 0.25), (0, 1), {0: 1})]
    rows = FEEDS["listed"](users)
    want, mean = torchmetrics_values(tm, "RetrievalAUROC", None, rows, users, True)
    assert want == {0: 0.0, 1: 1.0}
    compare(evaluate(qrels(users, binary=True), rows, "AUC", "torchmetrics"), want, mean, tol=1e-6, at_least=2,
            label="torchmetrics RetrievalAUROC of one class -> AUC")


# -------------------------------------------------------------------------------------------------- implicit
IMPLICIT = {"precision": "P@{k}", "map": "AP@{k}", "ndcg": "nDCG@{k}"}   # its 'auc' is a top-k AUC of its own


class RankedListModel:
    """Stands in for an implicit model: recommend() returns the users' explicit lists, cut to N and padded
    with -1 (never a hit), as tests/golden/recsys/implicit_run.py fed implicit."""

    def __init__(self, users: list[User]):
        self.lists = {u.user: u.ranked for u in users}

    def recommend(self, userids, user_items, N=10, **kw):
        ids = np.full((len(userids), N), -1, dtype=np.int32)
        for row, u in enumerate(np.asarray(userids)):
            items = self.lists[int(u)][:N]
            ids[row, :len(items)] = items
        return ids, np.zeros(ids.shape, dtype=np.float32)


def implicit_values(evaluation, model, users: list[User], k: int) -> dict:
    """{library key: (per-user values, the library's aggregate)}: one ranking_metrics_at_k call over every
    user and one per user (a test matrix holding only that user's row)."""
    import scipy.sparse as sp

    n_users, n_items = len(users), len(users[0].scores)

    def test_matrix(only=None):
        cells = [(u.user, i, float(g)) for u in users if only in (None, u.user) for i, g in u.truth.items()]
        rows, cols, data = zip(*cells) if cells else ((), (), ())
        return sp.csr_matrix((data, (rows, cols)), shape=(n_users, n_items), dtype=np.float64)

    train = sp.csr_matrix((n_users, n_items), dtype=np.float64)   # nothing to filter out
    whole = evaluation.ranking_metrics_at_k(model, train, test_matrix(), K=k, show_progress=False)
    per = {key: {} for key in IMPLICIT}
    for u in users:
        if u.truth:   # implicit skips users without test items
            one = evaluation.ranking_metrics_at_k(model, train, test_matrix(u.user), K=k, show_progress=False)
            for key in IMPLICIT:
                per[key][u.user] = float(one[key])
    return {key: (per[key], float(whole[key])) for key in IMPLICIT}


@pytest.mark.parametrize("seed", SEEDS)
def test_implicit_on_ranked_lists(seed):
    implicit = need("implicit", "implicit==0.7.3")
    from implicit import evaluation

    users = users_of(seed)
    for k in KS:
        for key, (want, mean) in implicit_values(evaluation, RankedListModel(users), users, k).items():
            metric = IMPLICIT[key].format(k=k)
            mine = evaluate(qrels(users), ranked_run(users), metric, "implicit")
            compare(mine, want, mean, label=f"implicit {implicit.__version__} ranking_metrics_at_k['{key}'] "
                                            f"K={k} -> {metric}")


@pytest.mark.parametrize("seed", SEEDS)
def test_implicit_own_recommend_on_distinct_scores(seed):
    """A real (unfitted) ALS model whose factors give user u item i the score scores[u][i] exactly, so
    implicit ranks with its own top-k; its heap orders tied scores by no simple rule: inputs without ties."""
    implicit = need("implicit", "implicit==0.7.3")
    from implicit import evaluation
    from implicit.cpu.als import AlternatingLeastSquares

    users = users_of(seed, ties=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # implicit's OpenBLAS threadpool advice
        model = AlternatingLeastSquares(factors=len(users[0].scores), dtype=np.float64, random_state=0)
    model.user_factors = np.array([u.scores for u in users], dtype=np.float64)
    model.item_factors = np.eye(len(users[0].scores), dtype=np.float64)
    for k in KS:
        for key, (want, mean) in implicit_values(evaluation, model, users, k).items():
            metric = IMPLICIT[key].format(k=k)
            mine = evaluate(qrels(users), dense_run(users), metric, "implicit")
            compare(mine, want, mean, label=f"implicit {implicit.__version__} ALS recommend "
                                            f"ranking_metrics_at_k['{key}'] K={k} -> {metric}")


# ---------------------------------------------------------------------------------------------------- cornac
CORNAC_AT_K = {"Precision": "P@{k}", "Recall": "R@{k}", "NDCG": "nDCG@{k}", "HitRatio": "Success@{k}",
               "FMeasure": "F@{k}"}


@pytest.mark.parametrize("seed", SEEDS)
def test_cornac_metrics_on_ranked_lists(seed):
    """compute() per user with test items, as ranking_eval calls it (gt_pos = the test items, pd_rank = the
    list; MAP and AUC: every item's score); the mean is ranking_eval's, over those users."""
    cornac = need("cornac", "cornac==3.0.1")
    from cornac import metrics as cm

    users = users_of(seed)
    judged = [u for u in users if u.truth]
    n_items = len(users[0].scores)

    def gt(u):
        return np.array(sorted(u.truth), dtype=int)

    def check(name, want, metric, run, *, mean=True, every_user=True):
        m = evaluate(qrels(users), run, metric, "cornac")
        compare(m, want, float(np.mean(list(want.values()))) if mean else None, every_user=every_user,
                label=f"cornac {cornac.__version__} {name} -> {metric}")

    for name, template in CORNAC_AT_K.items():
        for k in KS:
            metric = getattr(cm, name)(k=k)
            with np.errstate(all="ignore"):
                want = {u.user: float(metric.compute(gt_pos=gt(u), pd_rank=np.array(u.ranked, dtype=int)))
                        for u in judged}
            check(f"{name}(k={k})", want, template.format(k=k), ranked_run(users))
    items = np.arange(n_items)
    for name, metric in (("MAP", "LRAP"), ("AUC", "AUC")):
        want = {u.user: float(getattr(cm, name)().compute(item_indices=items, pd_scores=np.array(u.scores),
                                                          gt_pos=gt(u), gt_neg=np.setdiff1d(items, gt(u))))
                for u in judged}
        check(name, want, metric, dense_run(users))
    # MRR raises for a user none of whose test items is listed: compared on the others, the mean not at all
    want = {}
    for u in judged:
        try:
            want[u.user] = float(cm.MRR().compute(gt_pos=gt(u), pd_rank=np.array(u.ranked, dtype=int)))
        except ValueError:
            continue
    check("MRR", want, "RR", ranked_run(users), mean=False, every_user=False)


@pytest.mark.parametrize("seed", SEEDS)
def test_cornac_ranking_eval_on_distinct_scores(seed):
    """cornac's own evaluation loop (ranking_eval) on a model scoring every item; it ranks with numpy's
    argpartition/argsort, whose order of tied scores depends on the machine: inputs without ties."""
    cornac = need("cornac", "cornac==3.0.1")
    from collections import OrderedDict

    from cornac import metrics as cm
    from cornac.data import Dataset
    from cornac.eval_methods.base_method import ranking_eval
    from cornac.models import Recommender

    users = users_of(seed, ties=False)
    n_items = len(users[0].scores)
    scores = np.array([u.scores for u in users], dtype=float)
    uid_map = OrderedDict((u.user, u.user) for u in users)
    iid_map = OrderedDict((i, i) for i in range(n_items))
    # every (user, item) known to training with rating 0 (not a positive: nothing is excluded)
    train = Dataset.build([(u.user, i, 0.0) for u in users for i in range(n_items)],
                          global_uid_map=uid_map, global_iid_map=iid_map)
    test = Dataset.build([(u.user, i, float(g)) for u in users for i, g in u.truth.items()],
                         global_uid_map=uid_map, global_iid_map=iid_map, exclude_unknowns=True)

    class DenseScores(Recommender):
        def __init__(self):
            super().__init__(name="DenseScores", trainable=False)

        def score(self, user_idx, item_idx=None):
            return scores[user_idx].copy() if item_idx is None else scores[user_idx, item_idx]

    model = DenseScores()
    model.fit(train)
    groups = [[(getattr(cm, name)(k=k), template.format(k=k)) for name, template in CORNAC_AT_K.items()]
              for k in KS]
    groups.append([(cm.MAP(), "LRAP"), (cm.AUC(), "AUC"), (cm.MRR(), "RR")])
    for group in groups:
        means, per_user = ranking_eval(model, [m for m, _ in group], train, test)
        for (m, metric), mean, values in zip(group, means, per_user):
            want = {int(u): float(v) for u, v in values.items()}
            assert set(want) == {u.user for u in users if u.truth}
            mine = evaluate(qrels(users), dense_run(users), metric, "cornac")
            compare(mine, want, float(mean), label=f"cornac {cornac.__version__} ranking_eval {m.name} -> {metric}")


# ------------------------------------------------------------------------------------ Microsoft recommenders
RECOMMENDERS = {  # library function -> (rankwise metric, overrides)
    "precision_at_k": ("P@{k}", {}),
    "recall_at_k": ("R@{k}", {}),
    "map_at_k": ("AP@{k}", {}),
    "map": ("AP(denominator=relevant)@{k}", {}),
    # ndcg_at_k averages over every user with test items (0 without predictions): the preset's note
    "ndcg_at_k": ("nDCG@{k}", {"missing_in_run": "zero"}),
    # issue #24: averaged over the users with a hit in their top min(k, R) (Rprec's no_hit=nan)
    "r_precision_at_k": ("Rprec@{k}", {}),
}


@pytest.mark.parametrize("seed", SEEDS)
def test_recommenders_python_evaluation(seed):
    """rating_pred holds each list's items with their real scores, rows in a shuffled order: the library
    re-sorts by prediction with a stable sort, so tied items keep that row order, as ties=input keeps the
    order of rankwise's run. Per user: the function called on that user's rows alone."""
    pe = need("recommenders.evaluation.python_evaluation", "recommenders==1.2.1")
    import pandas as pd
    import recommenders

    users = users_of(seed, n_users=16)   # a pandas merge per user, metric and cutoff: fewer users
    rng = random.Random(seed)
    rows = {u.user: rng.sample(u.ranked, len(u.ranked)) for u in users}
    run = {u.user: {i: u.scores[i] for i in rows[u.user]} for u in users if u.ranked}

    def frames(sel):
        pred = pd.DataFrame([(u.user, i, u.scores[i]) for u in sel for i in rows[u.user]],
                            columns=["userID", "itemID", "prediction"])
        true = pd.DataFrame([(u.user, i, float(g)) for u in sel for i, g in u.truth.items()],
                            columns=["userID", "itemID", "rating"])
        return (true.astype({"userID": "int64", "itemID": "int64", "rating": "float64"}),
                pred.astype({"userID": "int64", "itemID": "int64", "prediction": "float64"}))

    whole = frames(users)
    alone = {u.user: frames([u]) for u in users if u.truth}
    for fn_name, (template, overrides) in RECOMMENDERS.items():
        fn = getattr(pe, fn_name)
        for k in KS:
            mean = float(fn(*whole, k=k))
            # the users it averages: with test items, and (but for ndcg_at_k) with predictions
            evaluated = [u.user for u in users if u.truth and (u.ranked or fn_name == "ndcg_at_k")]
            want = {user: float(fn(*alone[user], k=k)) for user in evaluated}
            if fn_name == "r_precision_at_k":
                # a user alone gets 0.0 without a hit in its top k and NaN with hits below R: the mean over
                # all users leaves both out, and so must rankwise (compare: every other user NaN)
                want = {user: v for user, v in want.items() if v > 0}
            metric = template.format(k=k)
            mine = evaluate(qrels(users), run, metric, "recommenders", **overrides)
            # r_precision_at_k: few of 16 users have a hit in their top min(k, R); the others must be NaN
            few = fn_name == "r_precision_at_k"
            compare(mine, want, mean, label=f"recommenders {recommenders.__version__} {fn_name}(k={k}) -> {metric}",
                    at_least=1 if few else 5)


# --------------------------------------------------------------------------------------------------- LensKit
LENSKIT = {"Precision": "P@{k}", "Recall": "R@{k}", "NDCG": "nDCG@{k}", "RecipRank": "RR@{k}", "Hit": "Success@{k}",
           "AveragePrecision": "AP@{k}"}


def lenskit_measure(users: list[User], metrics: dict) -> dict:
    """RunAnalysis over ``users`` (each in the outputs and in the test collection, either possibly empty):
    {label: (per-user values with NaN filled by the metric's default, list_summary()'s mean)}."""
    from lenskit.data import ItemList, ItemListCollection
    from lenskit.metrics import RunAnalysis

    outs = ItemListCollection.empty(["user_id"])
    test = ItemListCollection.empty(["user_id"])
    for u in users:
        outs.add(ItemList(item_ids=np.array(u.ranked, dtype=np.int64),
                          scores=np.array([u.scores[i] for i in u.ranked], dtype=np.float64),
                          rank=np.arange(1, len(u.ranked) + 1, dtype=np.int32), ordered=True), user_id=u.user)
        truth = sorted(u.truth)
        test.add(ItemList(item_ids=np.array(truth, dtype=np.int64),
                          rating=np.array([float(u.truth[i]) for i in truth], dtype=np.float64)), user_id=u.user)
    analysis = RunAnalysis()
    for label, metric in metrics.items():
        analysis.add_metric(metric, label=label)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # "could not find test data" for users without test items
        result = analysis.measure(outs, test)
    per_list, summary = result.list_metrics(fill_missing=True), result.list_summary()
    return {label: ({int(key[0] if isinstance(key, tuple) else key): float(v) for key, v in per_list[label].items()},
                    float(summary.loc[label, "mean"])) for label in metrics}


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("who", ["test_users", "listed_or_test_users"])
def test_lenskit_run_analysis(seed, who):
    """LensKit measures every list it is given, an empty one too, and its list_summary() averages them with
    NaN filled by the metric's default (0). "test_users": the users with test items (LensKit's usual
    pipeline; the run's other users left out by missing_in_qrels=skip). "listed_or_test_users": every user
    with a list or test items, under the preset's defaults (a list without test items scores 0); not
    AveragePrecision, which divides by zero on a list without test items."""
    lenskit = need("lenskit", "lenskit==2025.8.1")
    from lenskit.metrics import ranking as lr

    users = users_of(seed)
    if who == "test_users":
        fed, overrides = [u for u in users if u.truth], {"missing_in_qrels": "skip"}
    else:  # a user with neither exists for LensKit only (0 in its mean): rankwise is never told of it
        fed, overrides = [u for u in users if u.truth or u.ranked], {}
    metrics, names = {}, {}
    for name, template in LENSKIT.items():
        if name == "AveragePrecision" and who != "test_users":
            continue
        for k in (*KS, None):
            metrics[f"{name}@{k}"], names[f"{name}@{k}"] = getattr(lr, name)(k), metric_at(template, k)
    for label, (want, mean) in lenskit_measure(fed, metrics).items():
        mine = evaluate(qrels(users), ranked_run(users), names[label], "lenskit", **overrides)
        compare(mine, want, mean, label=f"lenskit {lenskit.__version__} {label} ({who}) -> {names[label]}")


# ------------------------------------------------------------------------------------------------------ BEIR
BEIR = {"NDCG": "nDCG@{k}", "MAP": "AP@{k}", "Recall": "R@{k}", "P": "P@{k}"}
BEIR_CUSTOM = {"mrr": ("MRR", "RR@{k}"), "recall_cap": ("R_cap", "R(denominator=min_k_relevant)@{k}")}


@pytest.mark.parametrize("seed", SEEDS)
def test_beir_evaluate_retrieval(seed, monkeypatch):
    """EvaluateRetrieval as BEIR runs it: the users with test items in qrels and results (an empty result
    dict kept), ignore_identical_ids=True (user ids and item ids share 0..n: item u leaves user u's list),
    evaluate_custom on the results evaluate() pruned. BEIR rounds its means to 5 decimals: they are read
    unrounded (round made the identity in its modules) and also checked rounded. Per user: the same call
    on that user alone."""
    need("pytrec_eval", "pytrec-eval-terrier")
    need("beir.retrieval.evaluation", "beir==2.2.0")
    from importlib.metadata import version

    import beir.retrieval.custom_metrics as custom_module
    import beir.retrieval.evaluation as evaluation_module
    from beir.retrieval.evaluation import EvaluateRetrieval

    beir_version = version("beir")
    users = users_of(seed)
    judged = [u for u in users if u.truth]
    qrels_beir = {str(u.user): {str(i): g for i, g in u.truth.items()} for u in judged}
    results = {str(u.user): {str(i): float(u.scores[i]) for i in u.ranked} for u in judged}

    def run_beir(q, r):
        r = copy.deepcopy(r)   # evaluate() pops the identical ids from it: the pruned dict is returned too
        out = dict(zip(BEIR, EvaluateRetrieval.evaluate(q, r, list(KS), ignore_identical_ids=True)))
        for metric, (label, _) in BEIR_CUSTOM.items():
            out[metric] = EvaluateRetrieval.evaluate_custom(q, copy.deepcopy(r), list(KS), metric)
            out[metric] = {key.replace(label, metric): v for key, v in out[metric].items()}
        return out

    rounded = run_beir(qrels_beir, results)
    monkeypatch.setattr(evaluation_module, "round", lambda x, n=None: x, raising=False)
    monkeypatch.setattr(custom_module, "round", lambda x, n=None: x, raising=False)
    means = run_beir(qrels_beir, results)
    per_user = {u.user: run_beir({str(u.user): qrels_beir[str(u.user)]}, {str(u.user): results[str(u.user)]})
                for u in judged}
    for name, template in {**BEIR, **{m: t for m, (_, t) in BEIR_CUSTOM.items()}}.items():
        overrides = {"ties": "input"} if name in BEIR_CUSTOM else {}  # evaluate_custom: a stable sort by score
        for k in KS:
            key = f"{name}@{k}"
            metric = template.format(k=k)
            want = {user: values[name][key] for user, values in per_user.items()}
            mine = evaluate(qrels(users), listed_scores_run(users), metric, "beir", **overrides)
            label = f"beir {beir_version} {key} -> {metric}"
            compare(mine, want, means[name][key], label=label)
            assert abs(rounded[name][key] - mine["mean"]) <= 5e-6 + 1e-12, f"{label}: BEIR's rounded mean"
