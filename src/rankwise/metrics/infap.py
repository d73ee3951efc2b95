"""Inferred AP (Yilmaz & Aslam 2006), as trec_eval's infAP computes it (m_infap.c)."""
import numpy as np

from rankwise.kernels import segments as sk
from rankwise.spec.metric import MetricDef
from rankwise.spec.ranking_context import Cutoff, Params, RankingContext, param_float

EPSILON = 1e-5  # trec_eval's INFAP_EPSILON (trec_eval.h): keeps the precision estimate defined at r = 1, n = 0


def compute(ctx: RankingContext, p: Params, k: Cutoff) -> np.ndarray:
    t = param_float(p, "rel")
    lab = ctx.labels
    # Three kinds of ranked rows: judged relevant, judged non-relevant (0 <= grade < rel) and, when the
    # alignment keeps them (negative=nonrelevant, which the name infAP implies), judgments with a negative
    # grade: trec_eval's "in the pool but not judged" (-2). Documents outside the qrels ("not in the pool",
    # -1) are not rows; they count only through the ranks (pos) of the rows below them.
    graded = lab >= 0
    rel = graded & (lab >= t)
    rel_so_far = sk.running_count(rel, ctx.row_offsets, ctx.seg)  # r, inclusive
    graded_so_far = sk.running_count(graded, ctx.row_offsets, ctx.seg)  # r + n at a relevant row
    rows_above = np.arange(ctx.seg.size) - ctx.row_offsets[ctx.seg]  # r - 1 + n + u: pooled docs above
    idx = np.flatnonzero(rel)
    j = ctx.pos[idx].astype(np.float64)  # 0-based rank, unpooled documents above included
    r1 = (rel_so_far[idx] - 1).astype(np.float64)
    judged_above = (graded_so_far[idx] - 1).astype(np.float64)  # r - 1 + n
    # the expression of m_infap.c, in its order of operations; j = 0 is its special case (no division by 0)
    jj = np.where(j > 0, j, 1.0)
    later = 1.0 / (j + 1.0) + (j / (j + 1.0)) * (rows_above[idx] / jj) * (
        (r1 + EPSILON) / (judged_above + 2 * EPSILON))
    term = np.where(j == 0, 1.0, later)
    num = np.bincount(ctx.seg[idx], weights=term, minlength=ctx.n)
    # R: judged documents with grade >= rel; a negative grade is never relevant
    il = ctx.jr.ideal_labels
    R = sk.segment_sum((il >= t) & (il >= 0), ctx.ideal_seg, ctx.n)
    return sk.safe_divide(num, R)


DEFINITION = MetricDef(
    name="infAP", aliases=("inferred_ap",),
    summary="average precision estimated from a sampled judgment pool: precision above each relevant "
            "document is estimated from the judged documents above it, documents outside the pool count "
            "as non-relevant, pooled but unjudged ones (a negative grade) are assumed relevant in the "
            "proportion of the judged ones",
    formula="infAP = 1/R Σ_{relevant retrieved at 0-based rank j} (j = 0: 1; else 1/(j+1) + j/(j+1) · "
            "(r−1+n+u)/j · (r−1+ε)/(r−1+n+2ε)), r, n, u: relevant, judged non-relevant and negative-graded "
            "documents at or above j (r counts the document itself), ε = 1e-5. The name infAP implies "
            "negative=nonrelevant so that negative grades stay visible: infAP reads them as 'pooled, not "
            "judged' (trec_eval); with negative=unjudged they are dropped and count as outside the pool",
    reference="Yilmaz & Aslam, 'Estimating Average Precision with Incomplete and Imperfect Judgments', "
              "CIKM 2006; trec_eval infAP (m_infap.c)",
    example="R = 2, ranking [rel, unjudged (not in qrels), rel]: (1 + (1/3 + 2/3 · 1/2 · (1+ε)/(1+2ε))) / 2 "
            "= 0.8333",
    compute=compute, cutoff=False,
    )  # it reads negative grades, so every preset gives it negative=nonrelevant (trec_eval_base.py)
