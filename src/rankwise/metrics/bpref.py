"""bpref: binary preference (Buckley & Voorhees 2004), as trec_eval computes it."""
import numpy as np

from rankwise.kernels import segments as sk
from rankwise.spec.metric import MetricDef
from rankwise.spec.params import BPREF_NO_NONRELEVANT
from rankwise.spec.ranking_context import Cutoff, Params, RankingContext, param_float


def compute(ctx: RankingContext, p: Params, k: Cutoff) -> np.ndarray:
    t = param_float(p, "rel")
    R = ctx.n_rel(t)
    N = ctx.n_judged() - R  # judged non-relevant documents in the qrels
    top = ctx.in_top(k)
    nonrel = ctx.judged & (ctx.labels < t)
    if top is not None:
        nonrel = nonrel & top
    nonrel_above = sk.running_count(nonrel, ctx.row_offsets, ctx.seg)  # inclusive; zero on relevant rows' own
    rel = ctx.is_rel(t) if top is None else ctx.is_rel(t) & top
    seg = ctx.seg[rel]
    above = nonrel_above[rel].astype(np.float64)
    cap = np.minimum(R, N)[seg]
    term = np.where(above > 0, 1.0 - sk.safe_divide(np.minimum(above, R[seg]), cap), 1.0)
    value = sk.safe_divide(np.bincount(seg, weights=term, minlength=ctx.n), R)
    if p["no_nonrelevant"] == "nan":  # ranx divides by min(R, N) = 0 for every relevant document retrieved
        value = np.where((N == 0) & (np.bincount(seg, minlength=ctx.n) > 0), np.nan, value)
    return value


DEFINITION = MetricDef(
    name="Bpref", aliases=("bpref",),
    summary="how often relevant documents are ranked above judged non-relevant ones; unjudged ignored",
    formula="bpref = 1/R Σ_{relevant retrieved r} (1 − min(|n ranked above r|, R) / min(R, N)), "
            "n over judged non-relevant, N = their number",
    reference="Buckley & Voorhees, SIGIR 2004; trec_eval bpref",
    example="R = 2, N = 2, ranking [rel, nonrel, rel]: bpref = (1 + (1 − 1/2)) / 2 = 0.75",
    compute=compute, params=(BPREF_NO_NONRELEVANT,), implied={"gm_bpref": {"aggregate": "gmean"}})
