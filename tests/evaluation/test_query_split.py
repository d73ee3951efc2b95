"""The query plan's one sort (``split_ids``) gives what numpy's set operations give, ids and dtypes alike."""
from __future__ import annotations

import numpy as np
import pytest

from rankwise.evaluation.aggregate import split_ids


def _by_set_operations(judged: np.ndarray, ranked: np.ndarray) -> tuple[np.ndarray, ...]:
    return (np.intersect1d(judged, ranked, assume_unique=True),
            np.sort(np.setdiff1d(judged, ranked, assume_unique=True)),
            np.sort(np.setdiff1d(ranked, judged, assume_unique=True)))


def _ids(rng: np.random.Generator, n: int, width: int) -> np.ndarray:
    return np.array(sorted({"".join(rng.choice(list("ab9Zé"), rng.integers(1, width + 1))) for _ in range(n)}))


@pytest.mark.parametrize("seed", range(8))
def test_split_ids_is_intersect_and_both_differences(seed):
    rng = np.random.default_rng(seed)
    pool = _ids(rng, 300, 4 + seed % 3)
    judged = rng.permutation(pool[rng.random(pool.size) < 0.7])
    ranked = rng.permutation(pool[rng.random(pool.size) < 0.6])
    if seed % 2:
        ranked = ranked.astype(f"U{4 + seed}")  # (a wider dtype on one side)
    got, want = split_ids(judged, ranked), _by_set_operations(judged, ranked)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        assert g.tolist() == w.tolist()


@pytest.mark.parametrize("judged, ranked", [([], []), (["a"], []), ([], ["b"]), (["a", "b"], ["b", "a"]),
                                            (["c", "a"], ["b", "d"]), ([3, 1, 2], [2, 5])])
def test_split_ids_edges(judged, ranked):
    j = np.array(judged, dtype=None if judged else "U1")
    r = np.array(ranked, dtype=None if ranked else "U1")
    for g, w in zip(split_ids(j, r), _by_set_operations(j, r)):
        assert g.tolist() == w.tolist()
