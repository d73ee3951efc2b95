"""The notes a comparison carries about its data and its tests: what was set aside, which p-values are exact,
how Wilcoxon's p-values were computed, and comparisons whose differences are all equal."""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from rankwise.comparison import options as opt
from rankwise.comparison.matrix import PerQueryMatrix
from rankwise.comparison.paired import WILCOXON_ENUMERATED, WILCOXON_EXACT, WILCOXON_NORMAL, PairedStats
from rankwise.comparison.result import PairedResult


def constant_note(c: PairedResult, test: str) -> str:
    what = "no query differs" if c.delta == 0 else f"every query differs by the same {c.delta:+.4g}"
    if test in ("t", "bootstrap"):
        return (f"{c.metric}, {c.system} vs {c.baseline}: {what}, so the variance of the differences is zero "
                f"and t and the effect size are undefined; p is the limit, {c.p:g}")
    return f"{c.metric}, {c.system} vs {c.baseline}: {what}; the effect size is undefined"


def exact_note(stats_by_metric: Mapping[str, PairedStats], permutations: int) -> str:
    exact = sum(int(st.exact.sum()) for st in stats_by_metric.values())
    total = sum(st.exact.size for st in stats_by_metric.values())
    rule = (f"over every sign vector of the non-zero differences when there are at most "
            f"{opt.EXACT_RANDOMIZATION_UP_TO} or 2^nonzero <= {permutations}")
    monte_carlo = f"Monte-Carlo, p = (b + 1) / ({permutations} + 1)"
    if exact == 0:
        return f"randomization: every p-value is {monte_carlo}"
    if exact == total:
        return f"randomization: every p-value is exact, {rule}"
    return f"randomization: {exact} of {total} p-values are exact, {rule}; the others are {monte_carlo}"


def wilcoxon_note(stats_by_metric: Mapping[str, PairedStats]) -> str:
    methods = np.concatenate([st.method for st in stats_by_metric.values()])
    counts = {how: int((methods == how).sum()) for how in (WILCOXON_EXACT, WILCOXON_ENUMERATED, WILCOXON_NORMAL)}
    said = {WILCOXON_EXACT: "exact (no ties, at most 50 non-zero differences)",
            WILCOXON_ENUMERATED: "exact over every sign vector (ties, at most 50 non-zero differences)",
            WILCOXON_NORMAL: "from the normal approximation with the tie and continuity corrections"}
    parts = [f"{n} of {methods.size} p-values {said[how]}" for how, n in counts.items() if n]
    return ("wilcoxon: a test of the median of the differences (a symmetric shift), not of the mean; zero "
            f"differences dropped (Wilcoxon's method, zero_method='wilcox'); {'; '.join(parts)}")


def data_notes(matrix: PerQueryMatrix, excluded: Mapping[str, tuple[str, ...]], all_pairs: bool) -> list[str]:
    notes = list(matrix.notes)
    for s, runs in matrix.runs_per_system.items():
        if len(runs) > 1:
            notes.append(f"{s}: the per-query mean of {len(runs)} runs ({', '.join(runs)})")
    for reason, ids in matrix.set_aside.items():
        what = {"missing_in_run": "judged queries absent from at least one run",
                "missing_in_qrels": "run queries without judgments",
                "not_in_every_system": "queries without values for every system"}.get(reason, reason)
        shown = ", ".join(ids[:3]) + (", ..." if len(ids) > 3 else "")
        notes.append(f"set aside for every system: {len(ids)} {what} ({reason}): {shown}")
    for m, ids in excluded.items():
        what = f"{m}: {len(ids)} queries without a value for some system (NaN: e.g. no relevant document under " \
               "no_relevant=nan)"
        if all_pairs:
            notes.append(f"{what} are left out of this metric: the all-pairs tests and the ANOVA need every "
                         "system's value")
        else:
            notes.append(f"{what}: each comparison uses the queries both its systems have, and each system's mean "
                         "its own queries")
    return notes
