"""CategoryEntropy against LensKit 2025.8.1's own ``entropy`` and ``rank_biased_entropy`` (issue #24), per list, on
seeded lists and 0/1 category matrices (the categories matrix LensKit takes is the list's items × categories, in
rank order)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import rankwise as rw

pytestmark = pytest.mark.peer


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("k", [2, 5, None])
def test_category_entropy_is_lenskits(seed, k):
    ranking = pytest.importorskip("lenskit.metrics.ranking._entropy", reason="pip install lenskit==2025.8.1")
    from lenskit.data import ItemList

    rng = np.random.default_rng(seed)
    n_items, n_cats = 30, 6
    cats = (rng.random((n_items, n_cats)) < 0.3).astype(float)
    reco = {f"u{u}": [int(i) for i in rng.choice(n_items, size=rng.integers(1, 9), replace=False)] for u in range(25)}
    features = pd.DataFrame({"item": range(n_items), **{f"c{j}": cats[:, j] for j in range(n_cats)}})
    cut = f"@{k}" if k else ""
    res = rw.evaluate(None, reco, [f"CategoryEntropy{cut}", f"rank_biased_entropy{cut}"], "lenskit",
                      item_features=features)
    for user, items in reco.items():
        lst = ItemList(item_ids=np.array(items), ordered=True)
        plain = ranking.entropy(lst, cats[items], n=k)
        biased = ranking.rank_biased_entropy(lst, cats[items], n=k)
        assert res.per_query(f"CategoryEntropy{cut}")[user] == pytest.approx(plain, abs=1e-9)
        assert res.per_query(f"rank_biased_entropy{cut}")[user] == pytest.approx(biased, abs=1e-9)
