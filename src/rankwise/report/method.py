"""The method of a comparison in one sentence a reviewer reads under a table.

"Two-sided paired t-test, Holm-corrected within each metric, α = 0.05, over 50 queries." Tests and
corrections are named in words; the implementation (scipy's functions, B, the seed) stays in the
provenance comments and the JSON, where a reader who reruns the comparison looks for it.
"""
from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING

from rankwise.comparison import options as opt

if TYPE_CHECKING:  # pragma: no cover
    from rankwise.comparison.result import Comparison

# every paired test of rankwise is two-sided (comparison/paired.py, comparison/resampling.py)
TEST_WORDS = MappingProxyType({
    "t": "two-sided paired t-test",
    "randomization": "two-sided paired randomization test",
    "bootstrap": "two-sided paired bootstrap test",
    "wilcoxon": "two-sided Wilcoxon signed-rank test",
    "sign": "two-sided sign test",
    "randomized-tukey": "randomised Tukey HSD test",
    "tukey": "Tukey HSD test on the two-way ANOVA",
})
CORRECTION_WORDS = MappingProxyType({
    "holm": "Holm-corrected",
    "bonferroni": "Bonferroni-corrected",
    "hochberg": "Hochberg-corrected",
    "bh": "Benjamini-Hochberg-corrected (false discovery rate)",
    "by": "Benjamini-Yekutieli-corrected (false discovery rate)",
})
FAMILY_WORDS = MappingProxyType({"metric": "within each metric", "all": "over all metrics"})


def sentence(c: "Comparison", alpha: str = "\u03b1") -> str:
    """The method, ending with a full stop; ``alpha`` is how the format writes the Greek letter."""
    test = TEST_WORDS.get(c.test, c.test)
    parts = [test[0].upper() + test[1:]]
    if c.test in opt.ALL_PAIRS_TESTS:
        parts.append("family-wise error controlled over all pairs")
    elif c.correction == "none" or _one_per_family(c):
        parts.append("no multiple-testing correction" + (" (one comparison per metric)" if _one_per_family(c)
                                                          and c.correction != "none" else ""))
    else:
        parts.append(f"{CORRECTION_WORDS.get(c.correction, c.correction)} {FAMILY_WORDS.get(c.family, c.family)}")
    parts.append(f"{alpha} = {c.alpha:g}")
    parts.append(f"over {_queries(c)}")
    return ", ".join(parts) + "."


def _one_per_family(c: "Comparison") -> bool:
    """A family of one comparison: every correction leaves its p as it is, so naming one would mislead."""
    pairs = len(c.comparisons) if c.baseline is not None else len(c.all_pairs)
    return pairs == 1 or (c.family == "metric" and pairs == len(c.metrics))


def _queries(c: "Comparison") -> str:
    per = c.n_queries_per_metric
    counts = sorted(set(per.values()))
    if len(counts) == 1:
        n = counts[0]
        return f"{n} quer{'y' if n == 1 else 'ies'}"
    return f"{counts[0]}\u2013{counts[-1]} queries (per metric)"
