"""What trec_eval's set measures share: the retrieved list as an unordered set."""
import numpy as np

from rankwise.spec.ranking_context import RankingContext


def set_counts(ctx: RankingContext, t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(relevant retrieved, retrieved, relevant) per query."""
    return ctx.hits(t, None), ctx.n_ret, ctx.n_rel(t)


SET_NOTE = "the retrieved list as a set, whatever its order (no cutoff)"
