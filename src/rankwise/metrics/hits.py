"""Number of relevant documents in the top k."""
from rankwise.kernels import rank_metrics as km
from rankwise.spec.metric import MetricDef, RankForm


def rank_form(p, k):
    return RankForm(lambda r, i, nrel, n: km.within(r, k))


def compute(ctx, p, k):
    return ctx.hits(p["rel"], k)


DEFINITION = MetricDef(
    name="Hits", aliases=("hit_count",),
    summary="number of relevant documents in the top k",
    formula="Hits@k = |{relevant in top k}|",
    reference="ranx hits (NumRelRet is the same count at no cutoff, summed over queries)",
    example="ranking [rel, non, rel]: Hits@2 = 1, Hits = 2",
    compute=compute, tie_average=True, rank_form=rank_form, order_free="whole_list")
