"""F1 at k: harmonic mean of P@k and R@k."""
import numpy as np

from rankwise.kernels import rank_metrics as km
from rankwise.kernels.segments import safe_divide
from rankwise.metrics.precision import precision_denominator
from rankwise.spec.metric import MetricDef, RankForm
from rankwise.spec.params import SHORT


def rank_form(p, k):
    short = p["short"]

    def contribution(r, i, nrel, n):
        den = n if k is None else (float(k) if short == "k" else np.minimum(float(k), n))
        return 2.0 * km.within(r, k) / (den + nrel)
    return RankForm(contribution)


def compute(ctx, p, k):
    # 2PR/(P+R) = 2 hits / (den_P + R): linear in hits, so tie-averaging stays exact.
    hits = ctx.hits(p["rel"], k)
    return safe_divide(2.0 * hits, precision_denominator(ctx, p["short"], k) + ctx.n_rel(p["rel"]))


DEFINITION = MetricDef(
    name="F1", aliases=("f", "f1_score", "fmeasure"),
    summary="harmonic mean of precision and recall at k (0 when both are 0)",
    formula="F1@k = 2·P@k·R@k / (P@k + R@k) = 2·hits@k / (k + R)",
    reference="van Rijsbergen (1979); Bellei, 'The confusion over IR metrics in Recommender Systems' (2017) §3",
    example="labels {1..6}, predictions (1, 6, 8), k=3: P=2/3, R=1/3, F1 = 4/9",
    compute=compute, params=(SHORT,), tie_average=True, rank_form=rank_form)
