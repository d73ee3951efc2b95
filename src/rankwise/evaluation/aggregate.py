"""What evaluate() and the streaming evaluation share: which queries are evaluated (the query
policies) and how per-query values become means and counts."""
from __future__ import annotations

from typing import Mapping

import numpy as np

from rankwise.conventions.convention import Convention
from rankwise.errors import DataError


def preview(ids) -> str:
    ids = [str(i) for i in ids]
    return ", ".join(ids[:5]) + (f" ... ({len(ids)} in all)" if len(ids) > 5 else "")


def plan_queries(judged: np.ndarray, ranked: np.ndarray,
                 conv: Convention) -> tuple[np.ndarray, dict[str, tuple[str, ...]]]:
    """The queries to evaluate (sorted) and those set aside, by reason, from the judged query ids and
    the ranked (run) query ids under the convention's missing_in_run and missing_in_qrels."""
    in_both = np.intersect1d(judged, ranked, assume_unique=True)
    only_qrels = np.sort(np.setdiff1d(judged, ranked, assume_unique=True))
    only_run = np.sort(np.setdiff1d(ranked, judged, assume_unique=True))
    parts, set_aside = [in_both], {}
    if only_qrels.size:
        if conv.missing_in_run == "error":
            raise DataError(f"{only_qrels.size} judged queries are missing from the run: {preview(only_qrels)}. "
                            "Set missing_in_run='skip' or 'zero' to evaluate anyway.")
        if conv.missing_in_run == "zero":
            parts.append(only_qrels)
        else:
            set_aside["missing_in_run"] = tuple(str(q) for q in only_qrels)
    if only_run.size:
        if conv.missing_in_qrels == "error":
            raise DataError(f"{only_run.size} queries of the run have no judgments: {preview(only_run)}. "
                            "Set missing_in_qrels='skip' or 'evaluate'.")
        if conv.missing_in_qrels == "evaluate":
            parts.append(only_run)
        else:
            set_aside["missing_in_qrels"] = tuple(str(q) for q in only_run)
    ids = np.sort(np.concatenate(parts)) if len(parts) > 1 else in_both
    return ids, set_aside


def summarize(values: Mapping[str, np.ndarray]) -> tuple[dict[str, float], dict[str, int], dict[str, int]]:
    """Per metric: the mean over the queries with a value, how many were averaged, and how many were
    left out (NaN: no relevant document under no_relevant='nan')."""
    means, counts, excluded = {}, {}, {}
    for m, v in values.items():
        ok = ~np.isnan(v)
        counts[m] = int(ok.sum())
        excluded[m] = int(v.size - counts[m])
        means[m] = float(v[ok].mean()) if counts[m] else float("nan")
    return means, counts, excluded
