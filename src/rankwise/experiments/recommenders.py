"""The recommenders of §9 of Krichene & Rendle, On Sampled Metrics for Item Recommendation (KDD 2020),
compact and vectorised.

- ``ImplicitALS`` = recommender X: matrix factorisation with the loss of Bayer et al.,
      sum_{(u,i) in H} (y(u,i) - 1)^2 + alpha * sum_{u,i} y(u,i)^2 + lambda ||V||_F^2,
  i.e. alpha weights the implicit "everything is 0" term over *all* pairs (observed included),
  not a confidence on the observed ones. d = 16, lambda = 10, alpha = 0.2.
- ``ItemCF`` = recommenders Y (q = 3, k = k' = inf) and Z (q = 1, k = inf, k' = 10): sharpened
  cosine similarity (eq. 27), k-NN sparsification (eq. 28), row normalisation (eq. 29) and the
  normalised prediction (eq. 30).
- ``Popularity``: score = number of training users of the item (same for every user).

Each has ``fit(train_csr)``; X exposes ``user_factors``/``item_factors`` and ``scorer()`` gives a
``FactorScorer``; Y, Z and popularity expose ``score(user_indices)`` and ``scorer()`` gives a
``CallableScorer`` -- either plugs into ``rankwise.catalogue``.

Where §9 leaves a choice open, this module pins it:
- training matrix: binarised; any stored non-zero is an interaction in H.
- ALS: number of sweeps (not given; default 20), initialisation (item factors ~ N(0, 0.1^2)
  from ``seed``; users are solved first), plain (not frequency-scaled) lambda as written.
- Item CF: the diagonal s_ii is set to 0 (an item is not its own neighbour; otherwise it would
  take one of the k' places and inflate the row sums); N_k(i) = the k items j != i with the
  largest s_ij, ties broken towards the lower item index; entries with s_ij = 0 are never
  neighbours; ||.|| in eq. 29 is the Euclidean norm. Note that eq. 30 divides by the row sum,
  so the row normalisation of eq. 29 cancels out of the prediction (kept for fidelity). Items
  whose row is empty (no co-occurring item) score 0 for everyone.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from rankwise.catalogue.scorers import CallableScorer, FactorScorer
from rankwise.errors import InvalidParameterError
from rankwise.experiments.item_cf import ItemCF, binary_matrix, fit_item_cf  # noqa: F401 (fit_item_cf: public here)


class ImplicitALS:
    """Recommender X: implicit ALS with the gramian trick, O(nnz d^2 + n d^3) per sweep."""

    def __init__(self, factors: int = 16, reg: float = 10.0, alpha: float = 0.2, iterations: int = 20,
                 seed: int = 0):
        if factors < 1 or reg < 0 or alpha < 0 or iterations < 1:
            raise InvalidParameterError("need factors >= 1, reg >= 0, alpha >= 0, iterations >= 1")
        self.factors, self.reg, self.alpha, self.iterations, self.seed = factors, reg, alpha, iterations, seed

    def _solve(self, x: sp.csr_matrix, q: np.ndarray) -> np.ndarray:
        """Exact minimiser for every row of x given the other side's factors q.

        Row u: (sum_{i in H_u} q_i q_i^T + alpha Q^T Q + lambda I) p_u = sum_{i in H_u} q_i. The
        per-row sums of outer products are one sparse product x @ [q_i q_i^T flattened].
        """
        d = q.shape[1]
        outer = (q[:, :, None] * q[:, None, :]).reshape(q.shape[0], d * d)
        a = np.asarray(x @ outer).reshape(x.shape[0], d, d)
        a += self.alpha * (q.T @ q) + self.reg * np.eye(d)
        b = np.asarray(x @ q)
        return np.linalg.solve(a, b[:, :, None])[:, :, 0]

    def fit(self, train) -> "ImplicitALS":
        x = binary_matrix(train)
        xt = x.T.tocsr()
        rng = np.random.default_rng(self.seed)
        v = rng.normal(0.0, 0.1, (x.shape[1], self.factors))
        for _ in range(self.iterations):
            u = self._solve(x, v)
            v = self._solve(xt, u)
        self.user_factors, self.item_factors = u, v
        return self

    def loss(self, train) -> float:
        """The objective of §9 (for tests and convergence checks); O(nnz d + n d^2)."""
        x = binary_matrix(train).tocoo()
        u, v = self.user_factors, self.item_factors
        y_obs = np.einsum("ij,ij->i", u[x.row], v[x.col])
        all_sq = np.sum((u.T @ u) * (v.T @ v))  # sum over all pairs of y^2
        return float(np.sum((y_obs - 1) ** 2) + self.alpha * all_sq + self.reg * (np.sum(u * u) + np.sum(v * v)))

    def scorer(self) -> FactorScorer:
        return FactorScorer(self.user_factors, self.item_factors)


class Popularity:
    """Score = number of training users of the item, identical for every user."""

    def fit(self, train) -> "Popularity":
        x = binary_matrix(train)
        self.counts = np.asarray(x.sum(axis=0)).ravel()
        self.shape = x.shape
        return self

    def score(self, users) -> np.ndarray:
        return np.broadcast_to(self.counts, (np.asarray(users).size, self.counts.size))

    def scorer(self) -> CallableScorer:
        return CallableScorer(self.score, *self.shape)


def recommender_x(**overrides) -> ImplicitALS:
    return ImplicitALS(**{"factors": 16, "reg": 10.0, "alpha": 0.2, **overrides})


def recommender_y(**overrides) -> ItemCF:
    return ItemCF(**{"q": 3.0, "k": None, "k_prime": None, **overrides})


def recommender_z(**overrides) -> ItemCF:
    return ItemCF(**{"q": 1.0, "k": None, "k_prime": 10, **overrides})
