"""The vocabulary and the defaults of comparisons: the one place they are written.

Metric conventions live in the presets; these are the choices of the statistics that sit on top.
"""
from __future__ import annotations

import math
from types import MappingProxyType

import numpy as np

from rankwise.errors import InvalidParameterError

PAIRED_TESTS = MappingProxyType({
    "t": "paired t-test (Student; scipy.stats.ttest_1samp on the differences)",
    "randomization": "paired randomization test: random sign flips of the differences (Fisher; Smucker et al. "
                     "2007), exact over every sign vector when few differences are non-zero",
    "bootstrap": "shifted paired bootstrap test on the studentized mean (Sakai 2006; Efron & Tibshirani)",
    "wilcoxon": "Wilcoxon signed-rank test of the median difference, not the mean (zero differences dropped; "
                "exact up to 50 non-zero differences)",
    "sign": "sign test of the median difference, not the mean: wins against losses, ties dropped (exact binomial)",
})
ALL_PAIRS_TESTS = MappingProxyType({
    "randomized-tukey": "randomised Tukey HSD: systems permuted within each query, the range of the means as "
                        "statistic (Carterette 2012; Sakai 2018)",
    "tukey": "Tukey HSD of the two-way ANOVA without replication: studentized range on the residual "
             "variance V_E (Sakai 2018)",
})
TESTS = MappingProxyType({**PAIRED_TESTS, **ALL_PAIRS_TESTS})
CORRECTIONS = MappingProxyType({
    "holm": "Holm's step-down (controls the family-wise error)",
    "bonferroni": "Bonferroni (family-wise error)",
    "hochberg": "Hochberg's step-up (family-wise error; assumes independent or positively dependent tests)",
    "bh": "Benjamini-Hochberg (false discovery rate)",
    "by": "Benjamini-Yekutieli (false discovery rate under any dependence)",
    "none": "no correction",
})
FAMILIES = MappingProxyType({
    "metric": "each metric's comparisons form one family",
    "all": "every comparison on every metric forms one family",
})

DEFAULT_TEST = "t"
DEFAULT_ALL_PAIRS_TEST = "randomized-tukey"
DEFAULT_CORRECTION = "holm"  # applied when a family holds more than one comparison
DEFAULT_FAMILY = "metric"
DEFAULT_ALPHA = 0.05
DEFAULT_PERMUTATIONS = 10_000
DEFAULT_SEED = 0
# Monte-Carlo draws at most: a p-value's Monte-Carlo error at B draws is at most 0.5 / sqrt(B) (0.00016 at 10^7),
# and B draws of n queries cost B x n random numbers (10^7 x 10^4 queries is already hours)
MAX_PERMUTATIONS = 10_000_000
EXACT_RANDOMIZATION_UP_TO = 16  # non-zero differences up to which every sign vector is enumerated
STATISTIC_NAMES = MappingProxyType({
    "t": "t", "randomization": "mean difference", "bootstrap": "t", "wilcoxon": "W", "sign": "wins",
    "randomized-tukey": "range of means", "tukey": "q",
})


def check_permutations(value: object) -> int:
    """B, the Monte-Carlo draws: a whole number from 1 to MAX_PERMUTATIONS (1e4 written as a float is fine)."""
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        number = math.nan
    if isinstance(value, bool) or not math.isfinite(number) or number != int(number):
        raise InvalidParameterError(f"permutations must be a whole number of Monte-Carlo draws; got {value!r}. "
                                    f"The default is {DEFAULT_PERMUTATIONS}")
    if not 1 <= number <= MAX_PERMUTATIONS:
        raise InvalidParameterError(
            f"permutations must be between 1 and {MAX_PERMUTATIONS:,}; got {int(number):,}. A p-value's Monte-Carlo "
            f"error at B draws is at most 0.5/sqrt(B): the default {DEFAULT_PERMUTATIONS:,} gives 0.005, "
            "100,000 gives 0.0016 for p-values near alpha")
    return int(number)


def check_seed(value: object) -> int:
    """The seed of the Monte-Carlo draws: a non-negative whole number (numpy's SeedSequence takes no other)."""
    number = value if isinstance(value, (int, np.integer)) else math.nan
    if isinstance(value, (float, np.floating)) and math.isfinite(value) and value == int(value):
        number = int(value)
    if isinstance(value, bool) or math.isnan(number) or number < 0:
        raise InvalidParameterError(f"seed must be a whole number >= 0 (numpy's SeedSequence); got {value!r}. "
                                    f"The default is {DEFAULT_SEED}; any other such number gives other draws")
    return int(number)


def check_choice(value: str, choices, what: str) -> str:
    if value not in choices:
        raise InvalidParameterError(f"unknown {what} {value!r}; choose one of {', '.join(choices)}")
    return value
