"""The metric strings a convention can resolve, for suites that run one list under every preset."""
from __future__ import annotations

from collections.abc import Iterable

import rankwise as rw


def resolvable(metrics: Iterable[str], convention: str | rw.Convention) -> list[str]:
    """``metrics`` less those ``convention`` refuses (a ConventionError: no such choice under it), in order."""
    conv = rw.get_convention(convention)
    out = []
    for m in metrics:
        try:
            conv.resolve(rw.parse_metric(m))
        except rw.RankwiseError:
            continue
        out.append(m)
    return out
