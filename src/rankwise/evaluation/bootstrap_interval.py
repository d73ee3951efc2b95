"""A whole-run figure's 95% bootstrap interval over the users, from each user's share of it (``UserWeights``).

The figure ± 1.96 standard errors, the standard error that of ``draws`` bootstrap samples of the users (seed 0:
the same samples every time, ``evaluation.lists.draw_blocks``). Normal, not percentile: a figure of distinct
items is biased on a sample of users drawn with repeats (``comparison.whole_run``). The one definition: the
in-memory engine (``execution.item_lists``) and Spark, whose users' shares come from its partitions, both call
it, so they give the same interval to the bit.
"""
from __future__ import annotations

import numpy as np

from rankwise.data.item_side import ItemSide
from rankwise.data.item_tally import UserWeights
from rankwise.errors import InvalidParameterError
from rankwise.evaluation.lists import draw_blocks, resampled_values
from rankwise.evaluation.plan import Plan

Z_975 = 1.959963984540054  # (the standard normal's 0.975 quantile)


def check_draws(draws: int) -> None:
    """``intervals=``: a number of bootstrap samples, at least 2 (0: no intervals, checked by the caller)."""
    if isinstance(draws, bool) or not isinstance(draws, (int, np.integer)) or draws < 2:
        raise InvalidParameterError(f"intervals must be a number of bootstrap samples, at least 2 (e.g. 1000); "
                                    f"got {draws}")


def normal_interval(plan: Plan, m: str, weights: UserWeights, side: ItemSide, draws: int) -> tuple[float, float]:
    """Metric ``m``'s figure ± 1.96 standard errors of its ``draws`` bootstrap samples of the users of ``weights``."""
    check_draws(draws)
    n = weights.n_users
    reps = np.concatenate([resampled_values(plan, m, weights, side, d)
                           for d in draw_blocks(n, draws, 0)]) if n else np.zeros(0)
    ok = reps[~np.isnan(reps)]
    half = Z_975 * float(ok.std(ddof=1)) if ok.size > 1 else np.nan
    value = float(resampled_values(plan, m, weights, side, np.ones((1, n)))[0])
    return (value - half, value + half)
