"""The RBO family as list measures: ``RBO`` (every variant a parameter), its peers' forms as aliases, ``AO``.

Values are computed in rbo_values, from the per-depth sums of rbo_profile.

``RBO(p=0.9,value=ext,ties=a,normalise=none)@k`` names every choice. Two aliases stand for what other tools
call RBO, with their defaults:

* ``LenskitRBO`` = ``RBO(p=0.85,value=sum,ties=broken,normalise=depth)``: lenskit 2025.8.1
  ``lenskit.metrics.reranking.rank_biased_overlap`` (lenskit/metrics/reranking/_rbo.py) sums
  w_d |A[:d] & B[:d]| / d over d = 1..n with w_d = 0.85^(d-1) (GeometricRankWeight) and divides by the sum
  of w_d; its n (default 10) is our k;
* ``CompatRBO`` = ``RBO(p=0.95,value=sum,ties=broken,normalise=ideal)``: ir_measures 0.4.3 ``Compat``
  (ir_measures/providers/compat_provider.py: ``rbo`` and ``compatibility``) sums p^(d-1) overlap / d over
  d = 1..max(len(run), len(ideal)), divides by the sum of p^(d-1), and (normalize=True) divides again by the
  same value of the ideal ranking against itself; our second ranking plays the ideal, and without @k n is the
  longer ranking's length as there.
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from rankwise.agreement.measure import ListMeasure
from rankwise.agreement.pairs import RankingPairs
from rankwise.agreement.rbo_profile import TIE_VARIANTS
from rankwise.agreement.rbo_values import NORMALISE, VALUES, average_overlap, rbo
from rankwise.spec.params import Param

TIE_DOCS = {
    "broken": "the rankings as given: tied documents in the order the pair builder's tie policy put them",
    "w": "tied documents share their ranks: each counts from its group's first rank (Corsi & Urbano's RBO^w)",
    "a": "the expected RBO over all orders of each tie group (Corsi & Urbano's RBO^a)",
    "b": "RBO^a corrected for the information ties lose, so that RBO^b(X, X) = 1 (Corsi & Urbano's RBO^b)",
}
TIES_PARAM = Param("ties", "how documents tied in a ranking (equal scores) are treated", choices=TIE_VARIANTS,
                   choice_docs=TIE_DOCS, key="rbo_ties", value_aliases={"rbo_w": "w", "rbo_a": "a", "rbo_b": "b"})
P_PARAM = Param("p", "persistence: the weight of depth d is (1 - p) p^(d-1); strictly between 0 and 1 (p = 1 is AO)",
                kind="prob", key="rbo_p")
VALUE_PARAM = Param(
    "value", "which value of RBO on finite rankings", choices=VALUES, key="rbo_value",
    choice_docs={
        "ext": "RBO_ext: the agreement at the shorter ranking's end extrapolated to every deeper depth "
               "(Webber et al. 2010, eq. 32 for different lengths)",
        "min": "RBO_min: no overlap beyond what is seen (a lower bound)",
        "max": "RBO_max: every unseen document overlaps (an upper bound)",
        "res": "RBO_res = RBO_max - RBO_min: how much the unseen depths could still change",
        "sum": "the weighted sum over depths 1..n only (n = k, or the longer ranking), as most libraries return",
    },
    value_aliases={"rbo_ext": "ext", "rbo_min": "min", "rbo_max": "max", "rbo_res": "res", "truncated": "sum"})
NORMALISE_PARAM = Param(
    "normalise", "what value=sum is divided by", choices=NORMALISE, key="rbo_normalise",
    choice_docs={
        "none": "nothing: the sum is at most 1 - p^n",
        "depth": "the weight of depths 1..n, 1 - p^n (LensKit's rank_biased_overlap): 1 for identical rankings "
                 "of length n, but the value changes with n",
        "ideal": "the same sum for the second ranking against itself (ir_measures' Compat, normalize=True)",
    },
    value_aliases={"normalize": "depth", "lenskit": "depth", "compat": "ideal", "false": "none"})


def _rbo(pairs: RankingPairs, k: int | None, params: Mapping[str, object]) -> np.ndarray:
    return rbo(pairs, k, p=float(str(params["p"])), value=str(params["value"]), ties=str(params["ties"]),
               normalise=str(params["normalise"]))


def _ao(pairs: RankingPairs, k: int | None, params: Mapping[str, object]) -> np.ndarray:
    return average_overlap(pairs, k, ties=str(params["ties"]))


_AGREEMENT = ("A_d = X_d / d, X_d the overlap of the two prefixes of depth d (ties=broken, a: X_d the expected "
              "overlap over the orders of each tie group); ties=w: A_d = 2 X_d / (|A[:d]| + |B[:d]|) counting "
              "whole tie groups that start within depth d; ties=b: A_d = X_d / sqrt(sum of squared shares of "
              "both prefixes). Past the shorter ranking (length s) it counts as having d documents; past the "
              "longer one (length l) X_d stays at X_l (min), grows by every unseen document (max) or keeps "
              "the agreement A_s (ext)")

RBO = ListMeasure(
    name="RBO",
    doc="Rank-biased overlap of two rankings: the agreement of their prefixes weighted by depth, in [0, 1] "
        "(1 for identical rankings, 0 for disjoint ones).",
    formula="RBO = (1 - p) sum_{d >= 1} p^(d-1) A_d; " + _AGREEMENT + ". value=sum: (1 - p) sum_{d=1..n} p^(d-1) "
            "A_d with n = k or l; normalise=depth divides it by 1 - p^n, normalise=ideal by the same sum of B "
            "against itself. value=res = max - min.",
    reference="Webber, Moffat & Zobel, A Similarity Measure for Indefinite Rankings, TOIS 2010 (eq. 32: RBO_ext "
              "of rankings of different lengths); Corsi & Urbano, The Treatment of Ties in Rank-Biased Overlap, "
              "SIGIR 2024 (reference code "
              "github.com/julian-urbano/sigir2024-rbo rbo/Python/rbo.py, commit 0338fd9d); LenskitRBO: lenskit "
              "2025.8.1 lenskit/metrics/reranking/_rbo.py; CompatRBO: Clarke, Vtyurina & Smucker, Assessing Top-k "
              "Preferences, TOIS 2021, as ir_measures 0.4.3 providers/compat_provider.py",
    compute=_rbo,
    params=(P_PARAM, VALUE_PARAM, TIES_PARAM, NORMALISE_PARAM),
    defaults={"p": 0.9, "value": "ext", "ties": "a", "normalise": "none"},
    keeps_tie_groups=lambda params: params["ties"] != "broken",
    aliases=("RankBiasedOverlap", "LenskitRBO", "CompatRBO"),
    implied={
        "lenskitrbo": {"p": 0.85, "value": "sum", "ties": "broken", "normalise": "depth"},
        "compatrbo": {"p": 0.95, "value": "sum", "ties": "broken", "normalise": "ideal"},
    },
    undefined="value=ext when a ranking is empty (there is no agreement to extrapolate); value=sum when both "
              "rankings are empty and no @k is given (no depth to sum over). With an empty ranking min is 0, "
              "max 1 and res 1; normalise=ideal with an empty second ranking leaves the sum (0), as Compat.",
)

AO = ListMeasure(
    name="AO",
    doc="Average overlap: the unweighted mean of the prefix agreements A_1..A_n, in [0, 1] (RBO's p -> 1 at a "
        "finite depth; the PyPI rbo package's default, p=1).",
    formula="AO@n = (1/n) sum_{d=1..n} A_d, n = k or the longer ranking's length; " + _AGREEMENT.split(". Past")[0]
            + "; past a ranking's end it counts as having d documents, none of them shared.",
    reference="Fagin, Kumar & Sivakumar, Comparing top k lists, SIAM J. Discrete Math. 2003; Webber, Moffat & "
              "Zobel, TOIS 2010 (eq. 4); ties after Corsi & Urbano, SIGIR 2024",
    compute=_ao,
    params=(TIES_PARAM,),
    defaults={"ties": "a"},
    keeps_tie_groups=lambda params: params["ties"] != "broken",
    aliases=("AverageOverlap",),
    undefined="both rankings empty and no @k (no depth to average over)",
)

DEFINITIONS: tuple[ListMeasure, ...] = (RBO, AO)
