"""What every beyond-accuracy metric's definition shares: it has no form on judged rankings (its ``compute``
refuses, saying where it is computed), and, for most, no input beyond the run (``nothing``)."""
from __future__ import annotations

from typing import NoReturn

from rankwise.errors import ConventionError
from rankwise.spec.ranking_context import Cutoff, Params, RankingContext


def no_ranking_form(name: str):  # type: ignore[no-untyped-def]
    """The ``MetricDef.compute`` of a list metric: it is not computed on judged rankings (evaluate_ranks)."""
    def compute(ctx: RankingContext, p: Params, k: Cutoff) -> NoReturn:
        raise ConventionError(f"{name} is read off the recommended items' lists (beyond accuracy): evaluate a run "
                              "with rankwise.evaluate, not ranks")
    return compute


def nothing(p: Params) -> tuple[str, ...]:
    """``ListForm.needs`` of a metric that reads the recommendation lists alone."""
    return ()
