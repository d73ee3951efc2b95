"""Whole-run figures in a comparison (beyond accuracy: catalogue coverage, a Gini index, entropy,
personalization): a paired bootstrap over the users.

A whole-run figure has no per-user value to test, so each system's figure is computed on bootstrap samples of
the compared users, the same samples for every system (paired), from each user's share of it
(``data.item_tally.UserWeights``: no re-evaluation per sample). The interval of a figure and of a difference is
the percentile interval; the p-value of a difference is that of the shifted bootstrap distribution,
(1 + #{|Δ* - Δ| >= |Δ|}) / (B + 1) (Efron & Tibshirani 1993, §16.4; Sakai 2014's paired bootstrap test).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from rankwise.comparison import options as opt
from rankwise.comparison.matrix import PerQueryMatrix
from rankwise.comparison.result import PairedResult
from rankwise.errors import InvalidParameterError

BLOCK_BYTES = 1 << 26  # the draws of a block of replicates (replicates × users) stay under 64 MB


@dataclass(frozen=True)
class WholeRun:
    """A whole-run metric's figures: ``values[system]`` over the compared users, ``replicates[system]`` over
    each bootstrap sample of them (the same samples for every system); ``n`` users, ``draws`` samples."""
    values: Mapping[str, float]
    replicates: Mapping[str, np.ndarray]
    n: int
    draws: int
    seed: int

    def interval(self, system: str, alpha: float) -> tuple[float, float]:
        return _percentile(self.replicates[system], alpha)

    def paired(self, system: str, baseline: str, alpha: float) -> tuple[float, tuple[float, float], float, float]:
        """(delta, its percentile interval, delta / bootstrap sd, shifted-bootstrap p) of system - baseline."""
        delta = self.values[system] - self.values[baseline]
        d = self.replicates[system] - self.replicates[baseline]
        ok = d[~np.isnan(d)]
        if not math.isfinite(delta) or ok.size == 0:
            return delta, (math.nan, math.nan), math.nan, math.nan
        sd = float(ok.std(ddof=1)) if ok.size > 1 else 0.0
        p = float((1 + np.count_nonzero(np.abs(ok - delta) >= abs(delta) - 1e-12 * max(abs(delta), 1.0)))
                  / (ok.size + 1))
        return delta, _percentile(ok, alpha), delta / sd if sd > 0 else math.nan, min(p, 1.0)


def _percentile(x: np.ndarray, alpha: float) -> tuple[float, float]:
    ok = x[~np.isnan(x)]
    if ok.size == 0:
        return math.nan, math.nan
    lo, hi = np.quantile(ok, [alpha / 2, 1 - alpha / 2])
    return float(lo), float(hi)


def draw_blocks(n_users: int, draws: int, seed: int) -> list[np.ndarray]:
    """``draws`` bootstrap samples of ``n_users`` users as counts (replicates × users: how often each user is
    drawn), in blocks of bounded size; the same seed gives the same samples."""
    rng = np.random.default_rng([seed, 24])
    per_block = max(1, BLOCK_BYTES // max(8 * n_users, 1))
    blocks = []
    for start in range(0, draws, per_block):
        b = min(per_block, draws - start)
        picks = rng.integers(0, n_users, size=(b, n_users)) + (np.arange(b) * n_users)[:, None]
        blocks.append(np.bincount(picks.ravel(), minlength=b * n_users).reshape(b, n_users).astype(np.float64))
    return blocks


def whole_run_figures(qrels: Any, runs: Mapping[str, Any], metrics: list[str], conv: Any, users: np.ndarray, *,
                      draws: int, seed: int, train: Any = None, items: Any = None, item_features: Any = None,
                      columns: Any = None, duplicates: str = "error") -> dict[str, WholeRun]:
    """{whole-run metric: its WholeRun} for the systems ``runs`` (one run each) over ``users``."""
    from rankwise.api import as_qrels, as_run, whole_run_draws

    if users.size < 2:
        raise InvalidParameterError(f"{', '.join(metrics)}: a whole-run figure is compared by a bootstrap over the "
                                    f"users; {users.size} user(s) in common is too few")
    blocks = draw_blocks(users.size, draws, seed)
    judged = as_qrels(qrels, columns, duplicates=duplicates)
    per_system = {s: whole_run_draws(judged, as_run(run, columns, duplicates=duplicates), metrics, conv, users, blocks,
                                     train=train, items=items, item_features=item_features)
                  for s, run in runs.items()}
    return {m: WholeRun({s: per_system[s][m][0] for s in runs}, {s: per_system[s][m][1] for s in runs},
                        int(users.size), draws, seed) for m in metrics}


def whole_run_for(qrels: Any, runs: Mapping[str, Any], matrix: PerQueryMatrix, *, convention: Any,
                  columns: Mapping[str, Any] | None = None, duplicates: str = "error", all_pairs: bool = False,
                  test: str | None = None, permutations: int | None = None, seed: int | None = None,
                  overrides: Mapping[str, Any] | None = None, train: Any = None, items: Any = None,
                  item_features: Any = None) -> dict[str, WholeRun] | None:
    """The bootstrap figures of the matrix's whole-run metrics (coverage, Gini, entropy, personalization: no
    per-user value) for ``runs`` (named as the matrix's runs), or None when it has none."""
    from rankwise.conventions.presets import DEFAULT, get_convention
    from rankwise.spec.grammar import parse_metric

    whole = [m for m in matrix.metrics if (form := parse_metric(m).definition.lists) is not None and form.whole_run]
    if not whole:
        return None
    if all_pairs or (test or "") in opt.ALL_PAIRS_TESTS:
        raise InvalidParameterError(f"{', '.join(whole)}: whole-run figures are compared with a baseline, by a "
                                    "paired bootstrap over the users; all-pairs mode needs per-user values. "
                                    "Compare them in baseline mode, or leave them out of this comparison")
    if any(len(r) > 1 for r in matrix.runs_per_system.values()):
        raise InvalidParameterError(f"{', '.join(whole)}: a whole-run figure of several runs of one system is not a "
                                    "per-user mean; compare one run per system (group_tags=False, --no-group)")
    conv = get_convention(convention or DEFAULT)
    if overrides:
        conv = conv.derive(**overrides)
    return whole_run_figures(qrels, {s: runs[r[0]] for s, r in matrix.runs_per_system.items()}, whole, conv,
                             matrix.query_ids, draws=permutations or opt.DEFAULT_PERMUTATIONS,
                             seed=opt.DEFAULT_SEED if seed is None else seed, columns=columns, duplicates=duplicates,
                             train=train, items=items, item_features=item_features)


def whole_run_result(metric: str, system: str, baseline: str, r: tuple[float, tuple[float, float], float, float],
                      p_adj: float, w: WholeRun, alpha: float) -> PairedResult:
    """A whole-run figure's comparison: no per-user differences, so no t-interval, effect size or W/T/L."""
    delta, ci, z, p = r
    nan = (math.nan, math.nan)
    return PairedResult(metric, system, baseline, delta, ci, nan, ci, math.nan, z, p, float(p_adj), 0, 0, 0, w.n,
                        bool(p_adj < alpha))


def whole_run_note(metric: str, w: WholeRun) -> str:
    return (f"{metric}: a whole-run figure, compared by a paired bootstrap over the {w.n} users ({w.draws} samples, "
            f"seed {w.seed}): percentile intervals, p from the shifted bootstrap distribution, statistic = Δ / "
            "bootstrap sd; no per-user effect size or wins/ties/losses")
