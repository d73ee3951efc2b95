"""Issue #24, live: the beyond-accuracy presets against the recommender libraries themselves.

RecTools 0.19.0 (CatalogCoverage, CoveredUsers, MeanInvUserFreq, AvgRecPopularity, IntraListDiversity with
PairwiseHammingDistanceCalculator, Serendipity), Microsoft Recommenders 1.2.1 (python_evaluation:
catalog_coverage, distributional_coverage, novelty, diversity / user_diversity, serendipity / user_serendipity)
and LensKit 2025.8.1 (ListGini, ExposureGini, MeanPopRank) run on the shared fixture of
design/beyond-accuracy-research.md §1 and on seeded random cases (tests/reference/beyond_cases.py: repeated
training rows, cold items, items outside the catalogue, lists of length 1 and shorter than k, users without
training rows or without test items), at their defaults and main options. rankwise, under the library's preset,
must give every user the library gives a value the same value, leave every other user without one, and give the
library's mean (or whole-run value), to 1e-9. LensKit's ExposureGini sums float32 exposures: it is compared to
1e-7, float32's resolution (the largest difference seen is 1.1e-8).

First, on the fixture, each library must give the number the research spec states (test_*_gives_the_spec_values):
if a library disagrees with the spec, the spec is wrong, not rankwise.

A test skips, saying what to install, where its library is not installed; CI installs them all (.ci/run:
rectools and recommenders with --no-deps).
"""
from __future__ import annotations

import math
import warnings
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

import rankwise as rw
from tests.reference.beyond_cases import BeyondCase, fixture, random_case

pytestmark = pytest.mark.peer

SEEDS = (2401, 2402, 2403, 2404)
CASES = {"fixture": fixture(),
         # the smallest input with a listed user without test items (u3): RecTools and Microsoft Recommenders
         # still evaluate it (Serendipity: 0), with or without the test interactions
         "fixture-u3-untested": replace(fixture(), name="fixture-u3-untested",
                                        test={u: v for u, v in fixture().test.items() if u != "u3"}),
         **{f"seed{s}": random_case(s, k=5 if s % 2 else 4, features_outside=s == 2404) for s in SEEDS}}
TOL = 1e-9
SPEC_TOL = 1e-6      # the research spec prints 6 decimals
FLOAT32_TOL = 1e-7   # LensKit ExposureGini: float32 exposures and sums (float32 resolves 2**-23, 1.2e-7)


def need(module: str, pin: str):
    how = ("pip install --no-deps rectools==0.19.0 recommenders==1.2.1 and pip install attrs 'typeguard>=4.1,<5' "
           "(.ci/run)") if pin.startswith(("rectools", "recommenders")) else "pip install -e '.[recsys-peers]'"
    return pytest.importorskip(module, reason=f"{pin} is not installed: {how}")


def ks_of(case: BeyondCase) -> tuple[int, ...]:
    return tuple(sorted({2, case.k}))


@pytest.mark.parametrize("case_name", [c for c in CASES if c.startswith("seed")])
def test_the_cases_hold_the_awkward_inputs(case_name):
    case = CASES[case_name]
    k = case.k
    trained = {u for u, _ in case.train}
    history = {u: {i for v, i in case.train if v == u} for u in trained}
    assert len(set(case.train)) < len(case.train), "repeated training rows"
    assert case.cold_items() - case.outside_items(), "a cold catalogue item at rank <= k"
    assert case.outside_items(), "an item outside the catalogue at rank <= k"
    lengths = [len(v) for v in case.reco.values()]
    assert 1 in lengths and any(1 < n < k for n in lengths) and max(lengths) > k, "lists of 1, < k and > k items"
    assert set(case.test) - set(case.reco), "test users without a list"
    assert set(case.reco) - set(case.test), "listed users without test items"
    assert set(case.reco) - trained, "listed users without training rows"
    assert any(set(case.test.get(u, ())) & set(v[:k]) for u, v in case.reco.items()), "hits"
    assert not any(set(v) & history.get(u, set()) for u, v in case.reco.items()), "Microsoft Recommenders raises"
    assert all(any(v) for v in case.features.values()), "a zero vector: Microsoft Recommenders divides by 0.0"
    assert set(case.features) >= set(case.catalogue) and set(case.embedding) == set(case.features)


# ------------------------------------------------------------------------------------------------ rankwise side
def train_frame(case: BeyondCase):
    import pandas as pd

    return pd.DataFrame(case.train, columns=["user", "item"])


def binary_frame(case: BeyondCase):
    import pandas as pd

    items = sorted(case.features)
    width = len(case.features[items[0]])
    return pd.DataFrame({"item": items, **{f"f{j}": [case.features[i][j] for i in items] for j in range(width)}})


def embedding_input(case: BeyondCase) -> tuple[list[int], np.ndarray]:
    items = sorted(case.embedding)
    return items, np.array([case.embedding[i] for i in items], dtype=np.float64)


FEATURES = {"binary": binary_frame, "embedding": embedding_input}


def rankwise_values(case: BeyondCase, metric: str, preset: str, *, with_test: bool, reco: dict | None = None,
                    items: bool = False, features: str | None = None) -> dict:
    """rankwise.evaluate on ``case``: the run ``reco`` (the case's whole lists by default), the test interactions
    when ``with_test`` (else None: the users are the run's), the training rows, the catalogue when ``items``, the
    item features ``features`` ("binary": a frame with an item column, "embedding": (ids, matrix))."""
    run = {u: list(v) for u, v in (case.reco if reco is None else reco).items()}
    test = {u: list(v) for u, v in case.test.items()} if with_test else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)   # cold / outside items are reported, and compared
        res = rw.evaluate(test, run, [metric], preset, train=train_frame(case),
                          items=list(case.catalogue) if items else None,
                          item_features=FEATURES[features](case) if features else None)
    return {"per_user": res.per_query(metric), "mean": res.means[metric]}


def compare(mine: dict, want: dict | None, mean: float, *, label: str, tol: float = TOL) -> None:
    """``want``: {user: the library's value} for every user the library evaluates (NaN where it gives none), or
    None for a whole-run metric; rankwise must give those values and no value to any other user."""
    if want is not None:
        got = mine["per_user"]
        for user, value in want.items():
            here = got.get(user, math.nan)
            assert here == pytest.approx(value, abs=tol, nan_ok=True), \
                f"{label}: user {user!r}: rankwise {here!r}, library {value!r}"
        extra = sorted((u for u, v in got.items() if u not in want and not math.isnan(v)), key=repr)
        assert not extra, f"{label}: rankwise gives a value to users the library leaves out: {extra}"
    assert mine["mean"] == pytest.approx(mean, abs=tol, nan_ok=True), \
        f"{label}: the mean: rankwise {mine['mean']!r}, library {mean!r}"


def series_dict(series) -> dict:
    return {_plain(u): float(v) for u, v in series.items()}


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


# ------------------------------------------------------------------------------------------------------ RecTools
def rectools_frames(case: BeyondCase):
    import pandas as pd

    reco = pd.DataFrame([(u, i, r) for u, items in case.reco.items() for r, i in enumerate(items, 1)],
                        columns=["user_id", "item_id", "rank"])
    prev = pd.DataFrame(case.train, columns=["user_id", "item_id"])
    test = pd.DataFrame([(u, i) for u, items in case.test.items() for i in items], columns=["user_id", "item_id"])
    return reco, prev, test


def rectools_metric(name: str, k: int, case: BeyondCase):
    """RecTools' metric object for ``name`` (the RecTools spelling with its options)."""
    m = need("rectools.metrics", "rectools==0.19.0")
    if name.startswith("IntraListDiversity"):
        feats = binary_frame(case).set_index("item")
        return m.IntraListDiversity(k, distance_calculator=m.PairwiseHammingDistanceCalculator(feats))
    cls, _, option = name.partition("(normalize=")
    return getattr(m, cls)(k, normalize=True) if option else getattr(m, cls)(k)


def rectools_values(name: str, k: int, case: BeyondCase) -> tuple[dict | None, float]:
    """(per-user values or None for a whole-run metric, the library's calc())."""
    metric = rectools_metric(name, k, case)
    reco, prev, test = rectools_frames(case)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # "Some items has absent feature values": those pairs are NaN
        if name.startswith("CatalogCoverage"):
            return None, float(metric.calc(reco, list(case.catalogue)))
        if name == "CoveredUsers":
            return series_dict(metric.calc_per_user(reco, test)), float(metric.calc(reco, test))
        if name == "Serendipity":
            args = (reco, test, prev, list(case.catalogue))
            return series_dict(metric.calc_per_user(*args)), float(metric.calc(*args))
        if name.startswith("IntraListDiversity"):
            return series_dict(metric.calc_per_user(reco)), float(metric.calc(reco))
        return series_dict(metric.calc_per_user(reco, prev)), float(metric.calc(reco, prev))


# RecTools name -> (rankwise metric under the rectools preset, needs the test interactions, needs items=,
# item features)
RECTOOLS = {
    "CatalogCoverage": ("CatalogCoverage@{k}", False, False, None),
    "CatalogCoverage(normalize=True)": ("CatalogCoverage(catalogue=declared)@{k}", False, True, None),
    "CoveredUsers": ("CoveredUsers@{k}", True, False, None),
    "MeanInvUserFreq": ("MeanInvUserFreq@{k}", False, False, None),
    "AvgRecPopularity": ("AvgRecPopularity@{k}", False, False, None),
    "AvgRecPopularity(normalize=True)": ("AvgRecPopularity(normalise=total)@{k}", False, False, None),
    "IntraListDiversity(Hamming)": ("IntraListDiversity@{k}", False, False, "binary"),
    "Serendipity": ("Serendipity@{k}", True, True, None),
}

RECTOOLS_SPEC = {   # §2, §5, §6, §7, §8 at k = 3 (per user u1, u2, u3 where the spec gives them) and k = 2
    ("CatalogCoverage", 3): (None, 5.0), ("CatalogCoverage", 2): (None, 5.0),
    ("CatalogCoverage(normalize=True)", 3): (None, 1.0),
    ("CoveredUsers", 3): ((1.0, 1.0, 1.0), 1.0),
    ("MeanInvUserFreq", 3): ((1.584963, 1.251629, 1.251629), 1.362740), ("MeanInvUserFreq", 2): (None, 1.251629),
    ("AvgRecPopularity", 3): ((2 / 3, 1.0, 4 / 3), 1.0), ("AvgRecPopularity", 2): (None, 1.333333),
    ("AvgRecPopularity(normalize=True)", 3): (None, 0.142857),
    ("AvgRecPopularity(normalize=True)", 2): (None, 0.190476),
    ("IntraListDiversity(Hamming)", 3): ((4 / 3, 2.0, 2.0), 1.777778), ("IntraListDiversity(Hamming)", 2): (None, 2.0),
    ("Serendipity", 3): ((0.133333, 0.266667, 0.066667), 0.155556), ("Serendipity", 2): (None, 0.233333),
}


def check_spec(label: str, per_user: dict | None, mean: float, spec: tuple) -> None:
    want_users, want_mean = spec
    assert mean == pytest.approx(want_mean, abs=SPEC_TOL), \
        f"{label}: the library gives {mean!r}, the research spec {want_mean!r}: the spec is wrong, stop and report"
    if want_users is not None:
        got = [per_user[u] for u in ("u1", "u2", "u3")]
        assert got == pytest.approx(list(want_users), abs=SPEC_TOL), \
            f"{label}: the library gives per user {got}, the research spec {want_users}: stop and report"


@pytest.mark.parametrize("name,k", sorted(RECTOOLS_SPEC))
def test_rectools_gives_the_spec_values(name, k):
    rectools = need("rectools", "rectools==0.19.0")
    per_user, mean = rectools_values(name, k, CASES["fixture"])
    check_spec(f"rectools {rectools.__version__} {name} k={k}", per_user, mean, RECTOOLS_SPEC[name, k])


def rectools_params():
    for case in CASES:
        for name, (_, needs_test, _, _) in RECTOOLS.items():
            for k in ks_of(CASES[case]):
                # a metric that reads no test interactions runs on the run alone (test=None) and as calc_metrics
                # runs it beside the accuracy metrics (the test interactions given: RecTools still uses every
                # listed user)
                for with_test in ((True,) if needs_test else (False, True)):
                    yield pytest.param(case, name, k, with_test,
                                       id=f"{case}-{name}-k{k}{'-test' if with_test and not needs_test else ''}")


@pytest.mark.parametrize("case_name,name,k,with_test", rectools_params())
def test_rectools(case_name, name, k, with_test):
    rectools = need("rectools", "rectools==0.19.0")
    case = CASES[case_name]
    template, _, items, features = RECTOOLS[name]
    want, mean = rectools_values(name, k, case)
    metric = template.format(k=k)
    mine = rankwise_values(case, metric, "rectools", with_test=with_test, items=items, features=features)
    compare(mine, want, mean, label=f"rectools {rectools.__version__} {name} k={k} on {case_name} -> {metric}")


# ---------------------------------------------------------------------------------------- Microsoft Recommenders
MSR_USER, MSR_ITEM = "userID", "itemID"


def msr_module():
    return need("recommenders.evaluation.python_evaluation", "recommenders==1.2.1")


def msr_frames(case: BeyondCase, *, relevance: bool):
    """train_df (repeats kept) and reco_df (each list cut at k; with a relevance column, 1.0 for a test item)."""
    import pandas as pd

    train = pd.DataFrame(case.train, columns=[MSR_USER, MSR_ITEM])
    rows = [(u, i) for u, items in case.top().items() for i in items]
    reco = pd.DataFrame(rows, columns=[MSR_USER, MSR_ITEM])
    if relevance:
        reco["relevance"] = [1.0 if i in case.test.get(u, ()) else 0.0 for u, i in rows]
    return train, reco


def msr_feature_frame(case: BeyondCase, features: str):
    import pandas as pd

    table = case.features if features == "binary" else case.embedding
    items = sorted(table)
    return pd.DataFrame({MSR_ITEM: items, "features": [np.asarray(table[i], dtype=np.float64) for i in items]})


def msr_values(name: str, case: BeyondCase, *, features: str | None = None,
               relevance: bool = False) -> tuple[dict | None, float]:
    """``name``: a python_evaluation function; ``features``: None (item_cooccurrence_count, the default) or the
    item_feature_vector table ("binary", "embedding"); ``relevance``: col_relevance = the test hits."""
    pe = msr_module()
    # Its caches key a frame by the bytes of .values: for object columns (the feature vectors, string user ids)
    # those are object addresses, which a later frame may reuse. Start every call with empty caches.
    for attr in dir(pe):
        if hasattr(getattr(pe, attr), "cache_clear"):
            getattr(pe, attr).cache_clear()
    train, reco = msr_frames(case, relevance=relevance)
    kw: dict[str, Any] = {"col_user": MSR_USER, "col_item": MSR_ITEM}
    if features:
        kw |= {"item_sim_measure": "item_feature_vector", "item_feature_df": msr_feature_frame(case, features)}
    if relevance:
        kw["col_relevance"] = "relevance"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # its own SettingWithCopy / chained-assignment warnings
        if name in ("catalog_coverage", "distributional_coverage", "novelty"):
            return None, float(getattr(pe, name)(train, reco, col_user=MSR_USER, col_item=MSR_ITEM))
        per_user_fn = {"diversity": pe.user_diversity, "serendipity": pe.user_serendipity}[name]
        table = per_user_fn(train, reco, **kw)
        per_user = {_plain(u): float(v) for u, v in zip(table[MSR_USER], table[f"user_{name}"])}
        for attr in dir(pe):
            if hasattr(getattr(pe, attr), "cache_clear"):
                getattr(pe, attr).cache_clear()
        return per_user, float(getattr(pe, name)(train, reco, **kw))


# (function, item_feature_vector table or None, col_relevance) -> (rankwise metric under the recommenders
# preset, needs the test interactions)
MSR = {
    ("catalog_coverage", None, False): ("catalog_coverage", False),
    ("distributional_coverage", None, False): ("distributional_coverage", False),
    ("novelty", None, False): ("novelty", False),
    ("diversity", None, False): ("diversity", False),
    ("diversity", "binary", False): ("diversity(distance=cosine)", False),
    ("diversity", "embedding", False): ("diversity(distance=cosine)", False),
    ("serendipity", None, False): ("serendipity", False),
    ("serendipity", "binary", False): ("serendipity(similarity=features)", False),
    ("serendipity", "embedding", False): ("serendipity(similarity=features)", False),
    ("serendipity", None, True): ("serendipity(relevance=hit)", True),
    ("serendipity", "binary", True): ("serendipity(similarity=features,relevance=hit)", True),
}

MSR_SPEC = {   # §2, §4, §5, §7, §8 (k = 3)
    ("catalog_coverage", None, False): (None, 1.25),
    ("distributional_coverage", None, False): (None, 2.197160),
    ("novelty", None, False): (None, 1.584352),
    ("diversity", None, False): ((1.0, 0.764298, 0.807550), 0.857283),
    ("diversity", "binary", False): ((0.528595, 0.597631, 1.0), 0.708742),
    ("serendipity", None, False): ((0.793133, 0.863917, 0.863917), 0.840322),
    ("serendipity", "binary", False): (None, 0.680306),
    ("serendipity", None, True): (None, 0.290567),
}


def _msr_id(key) -> str:
    name, features, relevance = key
    return name + (f"-features_{features}" if features else "") + ("-col_relevance" if relevance else "")


@pytest.mark.parametrize("key", list(MSR_SPEC), ids=_msr_id)
def test_recommenders_gives_the_spec_values(key):
    need("recommenders.evaluation.python_evaluation", "recommenders==1.2.1")
    name, features, relevance = key
    per_user, mean = msr_values(name, CASES["fixture"], features=features, relevance=relevance)
    check_spec(f"recommenders 1.2.1 {_msr_id(key)}", per_user, mean, MSR_SPEC[key])


def msr_params():
    for case in CASES:
        for key, (_, needs_test) in MSR.items():
            for with_test in ((True,) if needs_test else (False, True)):
                yield pytest.param(case, key, with_test,
                                   id=f"{case}-{_msr_id(key)}{'-test' if with_test and not needs_test else ''}")


@pytest.mark.parametrize("case_name,key,with_test", msr_params())
def test_recommenders(case_name, key, with_test):
    """The library gets the lists cut at the case's k (its functions take no k); rankwise gets the same cut
    lists and the metric without @k."""
    case = CASES[case_name]
    name, features, relevance = key
    want, mean = msr_values(name, case, features=features, relevance=relevance)
    metric = MSR[key][0]
    mine = rankwise_values(case, metric, "recommenders", with_test=with_test, reco=case.top(), features=features)
    compare(mine, want, mean, label=f"recommenders 1.2.1 {_msr_id(key)} on {case_name} -> {metric}")


# ------------------------------------------------------------------------------------------------------- LensKit
def lenskit_run(case: BeyondCase, metrics: dict) -> tuple[dict, dict]:
    """RunAnalysis over the listed users (their whole lists; the metrics truncate) with their test items:
    ({label: {user: value}} of the list metrics, {label: value} of all: a list metric's mean over the lists)."""
    need("lenskit", "lenskit==2025.8.1")
    from lenskit.data import ItemList, ItemListCollection
    from lenskit.metrics import RunAnalysis

    key = "user_id"
    outs, test = ItemListCollection.empty([key]), ItemListCollection.empty([key])
    for u, items in case.reco.items():
        outs.add(ItemList(item_ids=np.array(items, dtype=np.int64), rank=np.arange(1, len(items) + 1, dtype=np.int32),
                          ordered=True), **{key: u})
        truth = sorted(case.test.get(u, ()))
        test.add(ItemList(item_ids=np.array(truth, dtype=np.int64)), **{key: u})
    analysis = RunAnalysis()
    for label, metric in metrics.items():
        analysis.add_metric(metric, label=label)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # "could not find test data" and the like
        result = analysis.measure(outs, test)
    globals_ = result.global_metrics()
    lists = result.list_metrics(fill_missing=False)
    per_list = {label: {_plain(u[0] if isinstance(u, tuple) else u): float(v) for u, v in lists[label].items()}
                for label in metrics if lists[label].notna().any()}   # a global metric's list values are None
    return per_list, {label: float(globals_[label]) for label in metrics}


def lenskit_metric(name: str, k: int, case: BeyondCase):
    need("lenskit", "lenskit==2025.8.1")
    from lenskit.data import DatasetBuilder
    from lenskit.metrics import ranking as lr

    if name == "ListGini":
        return lr.ListGini(k, items=len(case.catalogue))
    if name == "ExposureGini":
        return lr.ExposureGini(k, items=len(case.catalogue))
    # a builder that keeps repeated rows (from_interactions_df refuses them): item_stats()["count"] counts them,
    # "user_count" does not
    builder = DatasetBuilder()
    builder.add_interactions("interaction", train_frame(case).rename(columns={"user": "user_id", "item": "item_id"}),
                             entities=["user", "item"], missing="insert", allow_repeats=True, default=True)
    data = builder.build()
    count = "interactions" if "interactions" in name else "users"
    return lr.MeanPopRank(data, n=k, count=count)


def lenskit_values(name: str, k: int, case: BeyondCase) -> tuple[dict | None, float]:
    """(per-list values or None for a whole-run metric, global_metrics(): a list metric's mean over the lists)"""
    per_list, global_ = lenskit_run(case, {name: lenskit_metric(name, k, case)})
    return per_list.get(name), global_[name]


# LensKit name -> (rankwise metric under the lenskit preset, needs items=, tolerance)
LENSKIT = {
    "ListGini": ("ListGini@{k}", True, TOL),
    "ExposureGini": ("ExposureGini@{k}", True, FLOAT32_TOL),
    "MeanPopRank": ("MeanPopRank@{k}", False, TOL),
    "MeanPopRank(count=interactions)": ("MeanPopRank(popularity=interactions)@{k}", False, TOL),
}

LENSKIT_SPEC = {   # §3, §6
    ("ListGini", 3): (None, 0.222222), ("ListGini", 2): (None, 0.133333),
    ("ExposureGini", 3): (None, 0.178296), ("ExposureGini", 2): (None, 0.154955),
    ("MeanPopRank", 3): (None, 0.361111), ("MeanPopRank", 2): (None, 0.479167),
    ("MeanPopRank(count=interactions)", 3): (None, 0.361111),
    ("MeanPopRank(count=interactions)", 2): (None, 0.479167),
}
LENSKIT_SPEC_USERS = {   # per user u1, u2, u3 at k = 3
    "MeanPopRank": (0.25, 0.416667, 0.416667), "MeanPopRank(count=interactions)": (0.25, 0.375, 0.458333),
}


@pytest.mark.parametrize("name,k", sorted(LENSKIT_SPEC))
def test_lenskit_gives_the_spec_values(name, k):
    lenskit = need("lenskit", "lenskit==2025.8.1")
    per_user, mean = lenskit_values(name, k, CASES["fixture"])
    spec = LENSKIT_SPEC[name, k]
    if k == 3 and name in LENSKIT_SPEC_USERS:
        spec = (LENSKIT_SPEC_USERS[name], spec[1])
    check_spec(f"lenskit {lenskit.__version__} {name} k={k}", per_user, mean, spec)
    if name == "ExposureGini" and k == 3:   # the spec's float32 value, to the bit
        assert mean == 0.17829608738820105


def lenskit_params():
    for case in CASES:
        for name in LENSKIT:
            for k in ks_of(CASES[case]):
                for with_test in (False, True):
                    yield pytest.param(case, name, k, with_test,
                                       id=f"{case}-{name}-k{k}{'-test' if with_test else ''}")


@pytest.mark.parametrize("case_name,name,k,with_test", lenskit_params())
def test_lenskit(case_name, name, k, with_test):
    """The Gini metrics get the lists without their items outside the catalogue. LensKit's items= is only a
    count: an outside item takes a catalogue item's place, or LensKit raises "could not broadcast" once the
    distinct recommended items outnumber it; rankwise's over=declared refuses such an item with a DataError naming
    it. MeanPopRank gets the whole lists: an item it has no count for has quantile 0."""
    lenskit = need("lenskit", "lenskit==2025.8.1")
    template, items, tol = LENSKIT[name]
    case = CASES[case_name].within_catalogue() if items else CASES[case_name]
    want, mean = lenskit_values(name, k, case)
    metric = template.format(k=k)
    mine = rankwise_values(case, metric, "lenskit", with_test=with_test, items=items)
    compare(mine, want, mean, tol=tol, label=f"lenskit {lenskit.__version__} {name} k={k} on {case.name} -> {metric}")
