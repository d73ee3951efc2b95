"""Area under the ROC curve of one query's ranking (AUC; GAUC when averaged over users)."""
import numpy as np

from rankwise.kernels import rank_metrics as km
from rankwise.kernels import segments as sk
from rankwise.spec.metric import MetricDef, RankForm
from rankwise.spec.params import NO_NONRELEVANT
from rankwise.spec.ranking_context import Cutoff, Params, RankingContext, param_float


def rank_form(p: Params, k: Cutoff) -> RankForm | str:
    if p["no_nonrelevant"] == "zero":
        return RankForm(km.auc_contribution, item_share=True)
    empty = 1.0 if p["no_nonrelevant"] == "one" else np.nan

    # a query whose candidates are all relevant: 1 (shared) or NaN
    def contribution(r: np.ndarray, i: np.ndarray, nrel: np.ndarray, n: np.ndarray) -> np.ndarray:
        return np.where(np.asarray(n) > np.asarray(nrel), km.auc_contribution(r, i, nrel, n), empty / nrel)
    return RankForm(contribution, item_share=True)


def compute(ctx: RankingContext, p: Params, k: Cutoff) -> np.ndarray:
    # Mann-Whitney on the retrieved list: a relevant document at rank r has n_ret - r documents below it,
    # of which the relevant ones are counted once per pair, H(H - 1) / 2 in all. Relevant documents that
    # were not retrieved rank below every retrieved one: they beat no non-relevant document. Under
    # ties=average the expected relevance of each position gives tied pairs half credit.
    t = param_float(p, "rel")
    w = ctx.rel_weight(t)
    below = ctx.n_ret[ctx.seg] - ctx.pos - 1.0
    h = ctx.hits(t, None)
    num = np.bincount(ctx.seg, weights=w * below, minlength=ctx.n) - h * (h - 1.0) / 2.0
    nonrel = ctx.n_ret - h
    v = sk.safe_divide(num, ctx.n_rel(t) * nonrel)
    if p["no_nonrelevant"] != "zero":  # no pair to win: 1 or NaN (left out of the mean) by the choice
        v = np.where(nonrel > 0, v, 1.0 if p["no_nonrelevant"] == "one" else np.nan)
    return v


DEFINITION = MetricDef(
    name="AUC", aliases=("auroc", "roc_auc", "gauc"),
    summary="fraction of (relevant, non-relevant) pairs ranked in the right order; GAUC when averaged",
    formula="AUC = Σ_{relevant d} |{non-relevant retrieved below d}| / (R · N),  N = non-relevant retrieved; "
            "relevant documents not retrieved rank below all retrieved ones; 0 when N = 0",
    reference="Krichene & Rendle, On Sampled Metrics for Item Recommendation (KDD 2020), eq. 2; "
              "Hanley & McNeil (1982) for AUC as the Mann-Whitney statistic",
    example="ranking [rel, non, rel, non], R = 2: pairs won 2 + 1 of 4, AUC = 3/4 = 0.75",
    compute=compute, params=(NO_NONRELEVANT,), cutoff=False, tie_average=True, rank_form=rank_form)
