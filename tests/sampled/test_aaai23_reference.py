"""rankwise's rank-distribution estimators against Li et al.'s AAAI 2023 public code (issue #5).

Reference values: ``data/aaai23_reference.json``, produced once by ``data/make_aaai23_reference.py``
from github.com/dli12/AAAI23-Towards-Reliable-Item-Sampling-for-Recommendation-Evaluation at commit
42f55585289ac197e09b0baba4fa5482aff0ee06 (no reference code is copied into rankwise).  The
notebooks estimator/MLE, MES, BV_MES_MLE and MN_MES_MLE were executed cell by cell, unmodified
except for one thing: in estimator/MES.ipynb the single ``prob.solve`` call names the Clarabel
solver where it named MOSEK.  Only MES uses a solver (a cvxpy problem with a squared term and
``cp.entr``, i.e. second-order and exponential cones, both supported by Clarabel); MLE is a fixed
100-epoch EM in torch and BV_MES / MN_MES are closed-form inverses in torch, none needing a solver.
Their dataset variables (nums, datasets, models, n, repeats) were re-bound to the fixture; their
estimator settings (epoch = 100, MES gamma = 0.01, BV gamma = 0.01, MN gamma = 1/H) were kept.

Fixture: 500 users, one relevant item each, true ranks from p(R) ~ (R + 4)^-1.2 on 1..300,
m = 20 negatives drawn with replacement (their n = 21), three independent draws of the sampled
ranks.  With n = 300 <= 400 rankwise's rank bins are single ranks, so both sides work on the same
1..n grid, and their likelihood matrix utils.A_Nn equals rankwise's (binomial, replacement=True).

Parameter mapping and outcome (max abs differences over the 3 draws, metrics Recall@10, NDCG@10, AP):

* EM / MLE: theirs runs exactly 100 EM epochs from the uniform start; rankwise's
  ``fit_rank_distribution(..., iterations=100, tol=0)`` is the same iteration and matches to 1e-14
  (both float64).  ``estimate(estimator="mle")`` instead runs up to 1000 iterations (stopping when pi
  moves < 1e-6 per 25 steps): EM is far from converged after 100 epochs on this flat likelihood,
  so pi differs by up to 0.066 and Recall@10 by up to 0.051 -- a different stopping rule, which
  ``estimate`` cannot be told to change (not a bug; documented xfail below).
* maximum entropy: their MES minimises ``n * sum_j pr_j (A^T x - pr)_j^2 - 0.01 * H(x)`` (a
  squared-distance data term weighted by the sampled-rank frequencies and by n = m + 1, entropy
  over ranks).  rankwise's ``maxent(eta)`` is an entropy-tempered EM on the likelihood.  The two
  objectives differ and no eta maps one onto the other: pi differs by up to 0.006, metrics by up to
  0.010 (xfail).  Solver tolerance for MES: Clarabel vs SCS differ by 5.6e-6 in pi (ECOS fails).
* minimum error: their BV_MES table is rankwise's ``bv(0.01)`` with the prior p(R) set to their
  MES estimate averaged over the draws: passing that prior to ``estimate(..., "bv(0.01)",
  prior=...)`` reproduces BV_MES to 4e-7 (their torch code works in float32; the tolerance is
  2 * cond(W) * eps_float32 ~ 6.5e-4, cond(W) ~ 2.7e3 for the 21 x 21 matrix inverted).  rankwise's ``min_error(0.01)``
  uses the same table with a different prior (its own EM fit plus a 1e-3/n floor), so it differs
  from BV_MES by up to 0.019 (xfail).  Their MN_MES ("minimal error", gamma = 1/H) uses a
  different matrix, A^T D A + (1/H)(diag(A^T 1) - A^T A): the variance term is unweighted by the
  prior and is a variance rather than a second moment.  No rankwise estimator has this form
  (``min_error`` differs by up to 0.046); rankwise's moment builder with a uniform and a fitted
  prior does reproduce it (to 3e-7, tolerance 2 * cond * eps_float32 ~ 6e-6; checked below), so
  only the estimator choice is missing.
"""
from __future__ import annotations

import importlib
import json
import os

import numpy as np
import pytest

from rankwise.sampled import corrections as cx

est = importlib.import_module("rankwise.sampled.estimate")

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "data", "aaai23_reference.json")) as _fh:
    REF = json.load(_fh)
FX = REF["fixture"]
N, M, H = FX["n_items"], FX["m"], FX["users"]
SAMPLED = np.array(FX["sampled_ranks"])
OUT = {k: np.array(v) for k, v in REF["outputs"].items()}
METRICS = ("Recall@10", "NDCG@10", "AP")
EPS32 = float(np.finfo(np.float32).eps)
#: MES: the solvers' optimum agrees to ~6e-6 (Clarabel vs SCS); metrics are means of pi against
#: curves bounded by 1, so 1e-5 would be the tolerance if rankwise could express MES.
MES_TOL = 1e-5


def _curves():
    r = np.arange(1, N + 1, dtype=np.float64)
    return {"Recall@10": (r <= 10) * 1.0, "NDCG@10": (r <= 10) / np.log2(r + 1), "AP": 1.0 / r}


def _grid():
    edges, L = est._bins_and_likelihood(N, M, True)
    assert edges.size - 1 == N  # single-rank bins: the same grid as theirs
    return L, np.diff(edges).astype(np.float64)


def _counts(rep):
    return np.bincount(SAMPLED[rep] - 1, minlength=M + 1)


def _estimate(rep, estimator, **kw):
    return est.estimate(SAMPLED[rep], N, M, METRICS, estimator=estimator, bootstrap=0, **kw).values


def _max_metric_diff(estimator, ref_name, **kw):
    return max(abs(_estimate(rep, estimator, **kw)[k] - REF["metrics"][ref_name][k][rep])
               for rep in range(SAMPLED.shape[0]) for k in METRICS)


def test_reference_provenance_and_fixture():
    assert REF["commit"] == "42f55585289ac197e09b0baba4fa5482aff0ee06"
    assert REF["solver"].startswith("CLARABEL") and REF["mes_status_last_repeat"] == "optimal"
    assert SAMPLED.shape == (3, H) and SAMPLED.min() >= 1 and SAMPLED.max() <= M + 1
    # their stored metric values are their outputs against the same curves rankwise uses
    for name, pis in OUT.items():
        for k, curve in _curves().items():
            np.testing.assert_allclose(pis @ curve, REF["metrics"][name][k], rtol=0, atol=1e-12)
    # the rank distributions are distributions (BV/MN outputs are signed pseudo-distributions)
    for name in ("MLE", "MES"):
        np.testing.assert_allclose(OUT[name].sum(axis=1), 1.0, atol=1e-6)
        assert OUT[name].min() > -1e-7


def test_likelihood_matches_theirs():
    from scipy.stats import binom

    L, _ = _grid()
    r = np.arange(1, N + 1)
    theirs = binom.pmf(np.arange(M + 1)[None, :], M, ((r - 1) / (N - 1))[:, None])  # utils.A_Nn(N, m+1)
    np.testing.assert_allclose(L, theirs, rtol=0, atol=1e-13)


def test_em_100_iterations_equals_their_mle():
    L, width = _grid()
    for rep in range(SAMPLED.shape[0]):
        pi = cx.fit_rank_distribution(L, _counts(rep), width, iterations=100, tol=0.0)[0]
        np.testing.assert_allclose(pi, OUT["MLE"][rep], rtol=0, atol=1e-12)


@pytest.mark.xfail(strict=True, reason="estimate('mle') iterates EM to convergence (<=1000 steps, tol 1e-6); "
                                       "their MLE stops after 100 epochs: up to 0.051 apart on Recall@10")
def test_estimate_mle_equals_their_mle_metrics():
    assert _max_metric_diff("mle", "MLE") < 1e-6


@pytest.mark.xfail(strict=True, reason="maxent(eta) is entropy-tempered EM on the likelihood; their MES is a "
                                       "squared-distance + entropy program: up to 0.010 apart")
def test_maxent_equals_their_mes():
    assert _max_metric_diff("maxent(0.01)", "MES") < MES_TOL


def test_bv_with_their_mes_prior_equals_their_bv_mes():
    prior = OUT["MES"].mean(axis=0)  # their BV_MES prior: MES averaged over the repeats
    G, c, _ = cx.moments([], N, M, True, prior=prior)
    tol = 2.0 * np.linalg.cond(0.99 * G + 0.01 * np.diag(c)) * EPS32  # their inverse is float32
    assert tol < 1e-3
    assert _max_metric_diff("bv(0.01)", "BV_MES", prior=prior) < tol


@pytest.mark.xfail(strict=True, reason="min_error's prior is rankwise's EM fit with a 1e-3/n floor, not their "
                                       "MES average: up to 0.019 from BV_MES")
def test_min_error_equals_their_bv_mes():
    assert _max_metric_diff("min_error(0.01)", "BV_MES") < 1e-4


@pytest.mark.xfail(strict=True, reason="their MN_MES table (gamma = 1/H, prior-free variance term) is not "
                                       "expressible by min_error: up to 0.046 apart")
def test_min_error_equals_their_mn_mes():
    assert _max_metric_diff("min_error(0.01)", "MN_MES") < 1e-4


def test_moments_reproduce_their_mn_mes():
    """rankwise's building blocks give MN_MES; only an estimator that uses them this way is missing."""
    prior = OUT["MES"].mean(axis=0)
    Gp, _, hp = cx.moments([cx.Target(lambda r, c=c: c[r.astype(np.int64) - 1], lambda j: j)
                            for c in _curves().values()], N, M, True, prior=prior)
    Gu, cu, _ = cx.moments([], N, M, True)  # uniform prior: A^T A / N and A^T 1 / N
    W = Gp + (N / H) * (np.diag(cu) - Gu)
    tol = 2.0 * np.linalg.cond(W) * EPS32
    for (k, _), h in zip(_curves().items(), hp):
        table = np.linalg.solve(W, h)
        vals = table[SAMPLED - 1].mean(axis=1)
        np.testing.assert_allclose(vals, REF["metrics"]["MN_MES"][k], rtol=0, atol=tol)
