"""The estimators of ``estimate(estimator=...)``: their grammar and one registry entry per estimator.

An entry (:class:`Estimator`) holds the name, the parameter's keyword, default and validation, the
kind of estimator and the function computing it on one catalogue-size node:

* ``"table"``: a table of m+1 values, one per reduced sampled rank, that depends only on the target,
  N, m and (for the prior-based tables) the prior, uniform unless given: ``table``.
* ``"fitted_prior"``: a bias-variance or minimal-error table whose prior is a rank distribution
  fitted to the data (``prior_fit``: ``"mle"`` or ``"mes"``) unless ``prior`` is given: ``table``
  for one problem, ``table_rows`` for a stack of problems (one per sample).
* ``"distribution"``: a rank distribution fitted to the histogram of sampled ranks, reported as the
  expectation of the metric under it: ``fit``.

The module docstring of :mod:`rankwise.sampled.estimate` describes what each estimator computes.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Literal

import numpy as np

from rankwise.errors import InvalidParameterError
from rankwise.sampled import corrections as cx

Kind = Literal["table", "fitted_prior", "distribution"]
#: (param, target, N, m, moments, items in the node) -> table; moments = (G, c, h) or, for ``mn``,
#: (G, c, h, G_uniform, c_uniform); None for the tables that need no moments
TableFunction = Callable[[float | None, cx.Target, int, int, tuple, int], np.ndarray]
#: (G (B, k, k), c (B, k), H (B, k, targets), gamma, N, uniform moments (G, c) or None) -> (B, k, targets)
TableRowsFunction = Callable[[np.ndarray, np.ndarray, np.ndarray, float, int, tuple | None], np.ndarray]
#: (bin likelihood L, histograms (rows, m+1), bin widths, param, bootstrap) -> (rows, bins) distributions
FitFunction = Callable[..., np.ndarray]


@dataclass(frozen=True)
class Estimator:
    name: str
    kind: Kind
    keyword: str | None = None  # the keyword its parameter may be given by: "bv(gamma=0.01)"
    default: float | None = None  # the parameter when not given
    valid: Callable[[float], bool] | None = None  # None: any value (or no parameter, without keyword)
    invalid: str = ""  # the message for an invalid value, formatted with name and value
    table: TableFunction | None = None
    needs_moments: bool = False  # the table is solved from moments (G, c, h) under a prior
    uniform_moments: bool = False  # ... and from the uniform prior's (G, c) (``mn``)
    prior_fit: Literal["mle", "mes"] | None = None  # fitted_prior: the rank distribution fitted as prior
    table_rows: TableRowsFunction | None = None
    fit: FitFunction | None = None

    def resolve(self, value: float | None, spec: str) -> float | None:
        """The parameter of ``spec`` (its default when not given), checked."""
        if self.keyword is None:
            if value is not None:
                raise InvalidParameterError(f"estimator {self.name!r} takes no parameter (got {spec!r})")
            return None
        value = self.default if value is None else value
        if value is not None and self.valid is not None and not self.valid(value):
            raise InvalidParameterError(self.invalid.format(name=self.name, value=value))
        return value

    @staticmethod
    def fitted_gamma(param: float | None, group_items: int) -> float:
        """A fitted-prior table's gamma: the parameter, else 1/H (H = the items of the node, as Li et al.)."""
        return param if param is not None else 1.0 / max(group_items, 1)


# ------------------------------------------------------------------------------------ tables

def _bias_variance(gamma: float | None) -> TableFunction:
    """Eq. 25 with a fixed gamma (None: the estimator's parameter)."""
    def table(param, target, size, m, moments, group_items):
        G, c, h = moments[:3]
        return cx.table_bias_variance(G, c, h, param if gamma is None else gamma)
    return table


def _fitted_bias_variance(param, target, size, m, moments, group_items):
    G, c, h = moments[:3]
    return cx.table_bias_variance(G, c, h, Estimator.fitted_gamma(param, group_items))


def _minimal_error(param, target, size, m, moments, group_items):
    G, c, h, G_uniform, c_uniform = moments[:5]
    return cx.table_minimal_error(G, h, G_uniform, c_uniform, size, Estimator.fitted_gamma(param, group_items))


def bias_variance_tables(G, c, H, gamma, size=None, uniform=None):
    """``table_bias_variance`` for a stack of problems: G (B, k, k), c (B, k), H (B, k, T)."""
    if gamma >= 1.0 or gamma <= 0.0:  # posterior mean / least squares: the one-problem code
        return np.stack([np.stack([cx.table_bias_variance(G[b], c[b], H[b, :, j], gamma)
                                   for j in range(H.shape[2])], axis=1) for b in range(G.shape[0])])
    W = (1.0 - gamma) * G
    idx = np.arange(G.shape[1])
    W[:, idx, idx] += gamma * c
    try:
        return np.linalg.solve(W, H)
    except np.linalg.LinAlgError:  # pragma: no cover - degenerate priors: the one-problem fallback
        return np.stack([np.stack([cx.table_bias_variance(G[b], c[b], H[b, :, j], gamma)
                                   for j in range(H.shape[2])], axis=1) for b in range(G.shape[0])])


def _minimal_error_tables(G, c, H, gamma, size, uniform):
    """``cx.table_minimal_error`` for a stack of problems."""
    G_uniform, c_uniform = uniform
    return np.linalg.solve(G + (gamma * size) * (np.diag(c_uniform) - G_uniform), H)


# ------------------------------------------------------------------------------------- fits
#
# ``bootstrap=True``: row 0 is the data (fitted from the uniform start) and the other rows are bootstrap
# replicates of it, warm-started from row 0's fit.  ``bootstrap=False``: independent samples, each
# from the uniform start and stopped at its own convergence, as a one-row call would stop it.

def _fit_em(L, hist, width, entropy, bootstrap):
    if not bootstrap:
        return cx.fit_rank_distribution(L, hist, width, entropy=entropy, iterations=1000, per_row=True)
    pi0 = cx.fit_rank_distribution(L, hist[:1], width, entropy=entropy, iterations=1000)
    if hist.shape[0] == 1:
        return pi0
    return np.vstack([pi0, cx.fit_rank_distribution(L, hist[1:], width, entropy=entropy, iterations=150,
                                                    init=np.repeat(pi0, hist.shape[0] - 1, axis=0))])


def _fit_mle(L, hist, width, steps, *, bootstrap):
    if steps is None:  # EM to convergence
        return _fit_em(L, hist, width, 0.0, bootstrap)
    # a fixed number of EM steps from the uniform start, every row alike
    return cx.fit_rank_distribution(L, hist, width, iterations=int(steps), tol=0.0, per_row=not bootstrap)


def _fit_maxent(L, hist, width, eta, *, bootstrap):
    return _fit_em(L, hist, width, eta, bootstrap)


def _fit_mes(L, hist, width, gamma, *, bootstrap):
    if not bootstrap:
        return cx.fit_rank_distribution_mes(L, hist, width, gamma=gamma)
    # a unique optimum: the warm start (bootstrap rows from row 0) only saves steps
    pi = cx.fit_rank_distribution_mes(L, hist[:1], width, gamma=gamma)
    if hist.shape[0] > 1:
        init = np.repeat(pi, hist.shape[0] - 1, axis=0)
        pi = np.vstack([pi, cx.fit_rank_distribution_mes(L, hist[1:], width, gamma=gamma, init=init)])
    return pi


# --------------------------------------------------------------------------------- registry

def _unit(value: float) -> bool:
    return 0.0 <= value <= 1.0


_UNIT = "{name} gamma must lie in [0, 1], got {value}"


def _fitted(name: str, prior_fit: Literal["mle", "mes"], table: TableFunction, rows: TableRowsFunction,
            **parameter) -> Estimator:
    return Estimator(name, "fitted_prior", keyword="gamma", table=table, needs_moments=True, prior_fit=prior_fit,
                     uniform_moments=table is _minimal_error, table_rows=rows, **parameter)


REGISTRY: dict[str, Estimator] = {e.name: e for e in (
    Estimator("naive", "table", table=lambda p, t, n, m, mo, g: cx.table_naive(t, n, m)),
    Estimator("rank_floor", "table", table=lambda p, t, n, m, mo, g: cx.table_rank_estimate(t, n, m, False)),
    Estimator("rank_interp", "table", table=lambda p, t, n, m, mo, g: cx.table_rank_estimate(t, n, m, True)),
    Estimator("ls", "table", table=_bias_variance(0.0), needs_moments=True),
    Estimator("cls", "table", needs_moments=True,
              table=lambda p, t, n, m, mo, g: cx.table_constrained(mo[0], mo[1], mo[2], t.lower, t.upper)),
    Estimator("bv", "table", keyword="gamma", default=0.1, valid=_unit, invalid=_UNIT, table=_bias_variance(None),
              needs_moments=True),
    Estimator("posterior_mean", "table", table=_bias_variance(1.0), needs_moments=True),
    # min_error is the older name of bv_mle (same results)
    _fitted("min_error", "mle", _fitted_bias_variance, bias_variance_tables, default=0.01, valid=_unit,
            invalid=_UNIT),
    _fitted("bv_mle", "mle", _fitted_bias_variance, bias_variance_tables, default=0.01, valid=_unit, invalid=_UNIT),
    _fitted("bv_mes", "mes", _fitted_bias_variance, bias_variance_tables, default=0.01, valid=_unit, invalid=_UNIT),
    _fitted("mn", "mes", _minimal_error, _minimal_error_tables, default=None, valid=lambda v: v >= 0.0,
            invalid="mn gamma must be non-negative, got {value}"),
    Estimator("mle", "distribution", keyword="steps", default=None, fit=_fit_mle,
              valid=lambda v: not (v != round(v) or v < 1),
              invalid="mle steps must be a positive whole number, got {value}"),
    Estimator("maxent", "distribution", keyword="eta", default=0.01, fit=_fit_maxent),
    Estimator("mes", "distribution", keyword="gamma", default=0.01, fit=_fit_mes, valid=lambda v: v > 0.0,
              invalid="mes gamma must be positive, got {value}"),
)}

ESTIMATORS = tuple(REGISTRY)
TABLE_ESTIMATORS = tuple(e.name for e in REGISTRY.values() if e.kind != "distribution")
DISTRIBUTION_ESTIMATORS = tuple(e.name for e in REGISTRY.values() if e.kind == "distribution")
#: table estimators whose prior p(r) is a rank distribution fitted to the data (unless ``prior`` is given);
#: ``min_error`` is the older name of ``bv_mle``
FITTED_PRIOR_ESTIMATORS = tuple(e.name for e in REGISTRY.values() if e.kind == "fitted_prior")
#: the keyword an estimator's parameter may be given by, e.g. ``mle(steps=100)`` or ``bv(gamma=0.01)``
PARAMETER_NAMES = {e.name: e.keyword for e in REGISTRY.values() if e.keyword is not None}

_SPEC = re.compile(r"^\s*([a-z_]+)\s*(?:\(\s*(?:([a-z_]+)\s*=\s*)?([0-9.eE+-]+)\s*\))?\s*$")


def parse_estimator(spec: str) -> tuple[str, float | None]:
    """``"bv(0.1)"`` -> ("bv", 0.1); ``"cls"`` -> ("cls", None); ``"mle(steps=100)"`` -> ("mle", 100.0).

    The parameter may be named by its keyword (``gamma``, ``eta`` or ``steps``, see
    ``PARAMETER_NAMES``).  ``mle`` without ``steps`` iterates EM to convergence; ``mn`` without
    gamma uses 1/H (H = the number of test items), as Li et al.'s code does.
    """
    match = _SPEC.match(spec.lower()) if isinstance(spec, str) else None
    try:
        value = float(match.group(3)) if match and match.group(3) is not None else None
    except ValueError:
        match = None
    if not match or match.group(1) not in REGISTRY:
        raise InvalidParameterError(f"unknown estimator {spec!r}; choose one of {', '.join(ESTIMATORS)} "
                                    "(bv, bv_mle, bv_mes, mn, mes, min_error and maxent take a parameter, e.g. "
                                    "'bv(0.01)'; mle takes a step count, e.g. 'mle(steps=100)')")
    name, keyword = match.group(1), match.group(2)
    entry = REGISTRY[name]
    if keyword is not None and keyword != entry.keyword:
        raise InvalidParameterError(f"estimator {name!r} has no parameter {keyword!r} (got {spec!r})")
    return name, entry.resolve(value, spec)


def table_for(name, param, target, size, m, replacement, moments, group_items) -> np.ndarray:
    """The table of estimator ``name`` for one target on a problem of ``size`` (``replacement`` is in
    ``moments`` already); ``moments``: see :data:`TableFunction`."""
    table = REGISTRY[name].table
    if table is None:  # pragma: no cover - parse_estimator guards the names
        raise RuntimeError(f"estimator {name} has no table")
    return table(param, target, size, m, moments, group_items)
