"""Comparisons whose significant differences are known by construction, for the publication tables' tests.

Four systems on 30 queries: B is A plus 0.1 (plus noise of 0.005), C is A minus 0.1, D is A plus a noise whose
mean is exactly 0. With spreads this small every t statistic of A-B, A-C, B-C, B-D, C-D is above 50 (p below
1e-28), and A-D's is exactly 0 (p = 1): which differences are significant is known before any test runs.
"""
from __future__ import annotations

import numpy as np

import rankwise.comparison as C

SYSTEMS = ("A", "B", "C", "D")
# what a reader of the paper would print: nDCG first, one lower-is-better metric (FallOut) among others
PAPER_METRICS = ("nDCG@10", "AP", "R@100", "P@10", "RR@10", "nDCG@20", "R@1000", "bpref")
PAPER_SYSTEMS = ("BM25", "BM25+RM3", "SPLADE++", "ColBERTv2")


def designed_values(n_metrics: int, n_queries: int = 30) -> np.ndarray:
    """(systems, queries, metrics): the design above for every metric, the base level varying per metric."""
    rng = np.random.default_rng(2024)
    base = rng.uniform(0.3, 0.6, size=(1, n_queries, n_metrics))
    noise = rng.normal(0, 0.005, size=(1, n_queries, n_metrics))
    zero_mean = np.where(np.arange(n_queries) % 2 == 0, 0.01, -0.01).reshape(1, n_queries, 1)
    if n_queries % 2:
        zero_mean[0, -1, 0] = 0.0
    return np.concatenate([base, base + 0.1 + noise, base - 0.1 - noise, base + zero_mean], axis=0)


def matrix(metrics: tuple[str, ...], systems: tuple[str, ...] = SYSTEMS, n_queries: int = 30) -> C.PerQueryMatrix:
    values = designed_values(len(metrics), n_queries)
    queries = [f"q{i:02d}" for i in range(n_queries)]
    s, q, m = np.meshgrid(np.arange(len(systems)), np.arange(n_queries), np.arange(len(metrics)), indexing="ij")
    return C.PerQueryMatrix.from_long([systems[i] for i in s.ravel()], [queries[i] for i in q.ravel()],
                                      [metrics[i] for i in m.ravel()], values.ravel().tolist())
