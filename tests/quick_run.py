"""A spread of a long parametrized test for the quick run, all of it for the full run.

The quick run (``python -m pytest -q -m "not peer and not slow"``) deselects the tests marked ``slow``;
CI runs everything. For a test parametrized over thousands of small cases, where pytest's own cost per
case is most of the time, :func:`every_nth_quick` keeps every n-th case in the quick run (the first, the
n+1-th, ...: spread over the whole list) and marks the others ``slow``. Ids and order are unchanged.
"""
from __future__ import annotations

from collections.abc import Iterable

import pytest


def every_nth_quick(cases: Iterable, n: int) -> list:
    """``cases`` as for ``pytest.mark.parametrize`` (plain values for one argument name, tuples for several;
    not ``pytest.param``) with all but every ``n``-th one marked ``slow``."""
    out = []
    for i, case in enumerate(cases):
        if i % n == 0:
            out.append(case)
        else:
            values = case if isinstance(case, tuple) else (case,)
            out.append(pytest.param(*values, marks=pytest.mark.slow))
    return out
