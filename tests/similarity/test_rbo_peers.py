"""The depth-normalised RBOs of LensKit and ir_measures, run live, against their rankwise aliases.

* lenskit 2025.8.1 ``lenskit.metrics.reranking.rank_biased_overlap(reference, reranked, weight, n)``
  (lenskit/metrics/reranking/_rbo.py): ``LenskitRBO@n`` = RBO(p=0.85,value=sum,ties=broken,normalise=depth)@n;
* ir_measures 0.4.3 ``Compat(p, normalize)`` (providers/compat_provider.py), which compares a run with the
  ideal ranking of the qrels: with the second ranking given as graded qrels (the higher the grade, the higher
  its rank) and the first as the run's scores, ``CompatRBO`` = RBO(p=0.95,value=sum,ties=broken,
  normalise=ideal) and Compat(normalize=False) = RBO(value=sum,normalise=depth) over n = the longer ranking.

Both packages are in the test / recsys-peers extras that .ci/run installs.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from rankwise.agreement.rbo import RBO
from tests.similarity.rbo_pairs import make_pairs, strict

pytestmark = pytest.mark.peer


def _pairs(seed: int, n_queries: int) -> list[tuple[list[str], list[str]]]:
    rng = random.Random(seed)
    out = []
    for _ in range(n_queries):
        pool = [f"d{j}" for j in range(rng.randint(2, 25))]
        out.append((rng.sample(pool, rng.randint(1, len(pool))), rng.sample(pool, rng.randint(1, len(pool)))))
    return out


def _params(alias: str, **over: object) -> dict[str, object]:
    return {**RBO.defaults, **RBO.implied[alias.lower()], **over}


@pytest.mark.parametrize("n", [1, 3, 10, 30])
@pytest.mark.parametrize("patience", [0.85, 0.5, 0.95])
def test_lenskit_rank_biased_overlap(n, patience):
    pytest.importorskip("lenskit")
    from lenskit.data import ItemList
    from lenskit.metrics import GeometricRankWeight
    from lenskit.metrics.reranking import rank_biased_overlap

    queries = _pairs(n, 40)
    pairs = make_pairs([(strict(x), strict(y)) for x, y in queries])
    got = RBO.compute(pairs, n, _params("LenskitRBO", p=patience))
    expected = [rank_biased_overlap(ItemList(item_ids=x, ordered=True), ItemList(item_ids=y, ordered=True),
                                    GeometricRankWeight(patience), n=n) for x, y in queries]
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("p", [0.95, 0.8])
@pytest.mark.parametrize("normalize", [True, False])
def test_ir_measures_compat(p, normalize):
    ir_measures = pytest.importorskip("ir_measures")

    queries = _pairs(int(p * 100) + normalize, 40)
    qrels, run = [], []
    for q, (x, y) in enumerate(queries):
        qrels += [ir_measures.Qrel(f"q{q}", doc, len(y) - i) for i, doc in enumerate(y)]
        run += [ir_measures.ScoredDoc(f"q{q}", doc, float(len(x) - i)) for i, doc in enumerate(x)]
    measure = ir_measures.Compat(p=p, normalize=normalize)
    by_query = {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)}
    expected = [by_query[f"q{q}"] for q in range(len(queries))]
    pairs = make_pairs([(strict(x), strict(y)) for x, y in queries])
    params = _params("CompatRBO", p=p) if normalize else _params("CompatRBO", p=p, normalise="depth")
    np.testing.assert_allclose(RBO.compute(pairs, None, params), expected, rtol=1e-12, atol=1e-15)
