"""A query's values depend on its own rows alone, to the bit: evaluated with any other queries (a block of a
streamed file, a Spark partition, a parallel worker) it gets the same numbers, so an evaluation split by
query and put back together equals the evaluation of the whole. Every registered metric is checked."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankwise as rw
from rankwise.evaluation.plan import uses_collection_grade
from rankwise.spec.registry import all_metrics

METRICS = [d.name for d in all_metrics()]
CUT = ["ERR(gmax=query)@4", "uAP(levels=query)",
       "nDCG@5", "P@3", "AP@5", "R@4", "Success@2", "RR@3", "ERR@4", "Hit@2", "F(beta=0.5)@4",
       "nDCG(ideal=cutoff)@5", "IPrec@0.25", "Judged@5", "FallOut@5"]

# every registered metric under six conventions, 12 examples each: about 20 s on 2 cores (the full run only)
pytestmark = pytest.mark.slow


def _inputs(seed: int, n_queries: int):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        n = int(rng.integers(1, 12))
        grades = rng.choice([0, 1, 2, 3], size=n)
        qrels[f"q{q}"] = {f"d{i}": float(g) for i, g in enumerate(grades)}
        m = int(rng.integers(1, 15))
        docs = rng.choice(20, size=m, replace=False)
        run[f"q{q}"] = {f"d{d}": float(rng.integers(0, 4)) + float(rng.random() < 0.5) * 0.1 for d in docs}
    return qrels, run


def _evaluable(qrels, run, convention):
    out = []
    for m in METRICS + CUT:
        rm = rw.get_convention(convention).resolve(rw.parse_metric(m))
        if uses_collection_grade(rm):  # by definition: the highest grade of every evaluated query
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                rw.evaluate(qrels, run, [m], convention)
        except rw.RankwiseError:
            continue
        out.append(m)
    return out


@pytest.mark.parametrize("convention", ["trec_eval", "ranx", "ir_measures", "mllib", "rectools", "lenskit"])
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), cut=st.integers(1, 29))
def test_values_of_a_query_do_not_depend_on_the_other_queries(convention, seed, cut):
    qrels, run = _inputs(seed, 30)
    metrics = _evaluable(qrels, run, convention)
    assert len(metrics) > 20
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        whole = rw.evaluate(qrels, run, metrics, convention)
        ids = sorted(qrels)
        parts = [rw.evaluate({q: qrels[q] for q in half}, {q: run[q] for q in half}, metrics, convention)
                 for half in (ids[:cut], ids[cut:])]
    for m in metrics:
        joined = {**parts[0].per_query(m), **parts[1].per_query(m)}
        got = np.array([joined[q] for q in whole.per_query(m)])
        assert np.array_equal(got, whole.values[m], equal_nan=True), m
