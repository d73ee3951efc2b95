"""Label ranking average precision (scikit-learn's label_ranking_average_precision_score)."""
import numpy as np

from rankwise.kernels import segments as sk
from rankwise.spec.metric import MetricDef
from rankwise.spec.ranking_context import Cutoff, Params, RankingContext, param_float


def compute(ctx: RankingContext, p: Params, k: Cutoff) -> np.ndarray:
    # Each relevant document is credited at the END of its tie group, with every relevant document of the
    # group counted above it: rank = |{d : s(d) >= s}|, L = |{relevant d : s(d) >= s}| (scikit-learn's
    # rankdata(..., 'max')). That needs the tie groups, which only the ties=average alignment keeps.
    t = param_float(p, "rel")
    rel = ctx.is_rel(t)
    running = ctx.running_hits(t)
    group = ctx.jr.tie_group
    if group is not None:  # ties=average (ctx.averaged): rows are every ranked document, with its tie group
        last = np.flatnonzero(np.r_[group[1:] != group[:-1], True])  # last row of each group, by group id
        end = last[group]
    else:  # no tie anywhere: each document is its own group
        end = np.arange(rel.size)
    rows = np.flatnonzero(rel)
    share = running[end[rows]] / (ctx.pos[end[rows]] + 1.0)
    return sk.safe_divide(np.bincount(ctx.seg[rows], weights=share, minlength=ctx.n), ctx.n_rel(t))


DEFINITION = MetricDef(
    name="LRAP", aliases=("label_ranking_average_precision", "lrap_score"),
    summary="average precision with every tie resolved against the relevant documents as a group: each is "
            "credited at the end of its tie group, with all relevant documents of the group above it",
    formula="LRAP = 1/R Σ_{relevant d} |{relevant d' : s(d') >= s(d)}| / |{d' : s(d') >= s(d)}|; relevant "
            "documents not retrieved add 0; a query without relevant documents scores 1 (no_relevant=one)",
    reference="scikit-learn label_ranking_average_precision_score (Tsoumakas et al., 'Mining Multi-label Data', "
              "2010); cornac's MAP is the same per user",
    example="scores (0.9 rel, 0.5 rel, 0.5 non), R = 2: (1/1 + 2/3) / 2 = 0.8333 (AP with the tie broken "
            "pessimistically would give (1 + 2/3) / 2 too, but (1/1 + 2/3) vs (1/2 + 2/3) when the tied pair "
            "holds two relevant documents and one non-relevant ahead)",
    compute=compute, cutoff=False, tie_average=True,
    only={"ties": (("average",), "it credits each tied relevant document at the end of its tie group, so it reads "
                                 "the tie groups, which ties=average keeps (its default under every preset)")})
