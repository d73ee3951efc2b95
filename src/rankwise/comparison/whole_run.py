"""Whole-run figures in a comparison (beyond accuracy: catalogue coverage, a Gini index, entropy,
personalization): a paired bootstrap over the users.

A whole-run figure has no per-user value to test, so each system's figure is computed on bootstrap samples of
the compared users, the same samples for every system (paired), from each user's share of it
(``data.item_tally.UserWeights``: no re-evaluation per sample). The bootstrap gives each figure's and each
difference's standard error; the interval is the normal one around the figure itself, ± z·se, and the test the
normal test of Δ / se (Efron & Tibshirani 1993, §6 and §13.2). Not the percentile interval: a figure that counts
distinct items (coverage, a Gini index, entropy) is biased on a bootstrap sample, whose repeated users recommend
fewer distinct items than the users themselves, so the samples' figures need not even straddle the figure.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
from scipy import stats

from rankwise.comparison import options as opt
from rankwise.comparison.matrix import PerQueryMatrix
from rankwise.comparison.result import PairedResult
from rankwise.errors import InvalidParameterError
from rankwise.evaluation.lists import draw_blocks


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
        return normal_interval(self.values[system], self.replicates[system], alpha)

    def paired(self, system: str, baseline: str, alpha: float) -> tuple[float, tuple[float, float], float, float]:
        """(delta, its interval, delta / bootstrap se, two-sided normal p) of system - baseline."""
        delta = self.values[system] - self.values[baseline]
        d = self.replicates[system] - self.replicates[baseline]
        interval = normal_interval(delta, d, alpha)
        se = standard_error(d)
        if not (math.isfinite(delta) and math.isfinite(se)):
            return delta, interval, math.nan, math.nan
        if se == 0:  # every sample gives the same difference: none (p = 1) or a certain one (p = 0)
            return delta, interval, math.nan, 1.0 if delta == 0 else 0.0
        z = delta / se
        return delta, interval, z, float(2 * stats.norm.sf(abs(z)))


def standard_error(replicates: np.ndarray) -> float:
    """The bootstrap standard error: the standard deviation of the samples' figures (NaN samples left out)."""
    ok = replicates[~np.isnan(replicates)]
    return float(ok.std(ddof=1)) if ok.size > 1 else math.nan


def normal_interval(value: float, replicates: np.ndarray, alpha: float) -> tuple[float, float]:
    """value ± z(1 - alpha/2)·se, se the bootstrap standard error of the replicates."""
    half = float(stats.norm.ppf(1 - alpha / 2)) * standard_error(replicates)
    return value - half, value + half


def whole_run_figures(qrels: Any, runs: Mapping[str, Any], metrics: list[str], conv: Any, users: np.ndarray, *,
                      draws: int, seed: int, train: Any = None, items: Any = None, item_features: Any = None,
                      columns: Any = None, duplicates: str = "error") -> dict[str, WholeRun]:
    """{whole-run metric: its WholeRun} for the systems ``runs`` (one run each) over ``users``."""
    from rankwise.api import as_qrels, as_run, read_item_inputs, whole_run_draws

    if users.size < 2:
        raise InvalidParameterError(f"{', '.join(metrics)}: a whole-run figure is compared by a bootstrap over the "
                                    f"users; {users.size} user(s) in common is too few")
    blocks = draw_blocks(users.size, draws, seed)
    judged = as_qrels(qrels, columns, duplicates=duplicates)
    inputs = read_item_inputs(train=train, items=items, item_features=item_features)  # (once for every system)
    per_system = {s: whole_run_draws(judged, as_run(run, columns, duplicates=duplicates), metrics, conv, users, blocks,
                                     **inputs)
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
            f"seed {w.seed}): intervals ± z·(bootstrap standard error) around the figures, statistic z = Δ / se with "
            "its normal p; no per-user effect size or wins/ties/losses")
