"""The filter of list rows that may be test rows (``data.top_lists._may_be_tested``): it keeps exactly the rows whose
item shares its bit (item mod 64) with a test item of the row's user, so it never drops a test row."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankwise.data.top_lists import _may_be_tested


@pytest.mark.slow  # hypothesis, ~1 s
@settings(max_examples=120, deadline=None)
@given(st.data())
def test_every_test_row_is_kept_and_every_dropped_row_is_no_test_row(data):
    n_users = data.draw(st.integers(1, 6))
    spread = data.draw(st.sampled_from([3, 64, 130, 5000]))  # (130: items equal mod 64; many test items saturate)
    tests = {(u, i) for u in range(n_users) for i in data.draw(st.lists(st.integers(0, spread), max_size=90))}
    if data.draw(st.booleans()):
        tests |= {(n_users + 2, 1)}  # a test user past the last list
    lists = [data.draw(st.lists(st.integers(0, spread), max_size=20)) for _ in range(n_users)]
    seg = np.array([u for u, items in enumerate(lists) for _ in items], dtype=np.int64)
    items = np.array([i for items in lists for i in items], dtype=np.int64)
    if seg.size == 0 or not tests:
        return
    ordered = sorted(tests)
    tusers = np.array([u for u, _ in ordered], dtype=np.int64)
    titems = np.array([i for _, i in ordered], dtype=np.int64)
    got = _may_be_tested(tusers, titems, seg, items).tolist()
    bits = {(u, i % 64) for u, i in tests}
    assert got == [row for row, (u, i) in enumerate(zip(seg.tolist(), items.tolist())) if (u, i % 64) in bits]
    for row, (u, i) in enumerate(zip(seg.tolist(), items.tolist())):
        if (u, i) in tests:
            assert row in got


def test_rows_whose_item_bit_no_test_item_sets_are_dropped():
    seg = np.array([0, 0, 0, 1, 1], dtype=np.int64)
    items = np.array([5, 69, 6, 5, 7], dtype=np.int64)  # (69 = 5 + 64: the same bit as 5)
    kept = _may_be_tested(np.array([0, 1]), np.array([5, 7]), seg, items)
    assert kept.tolist() == [0, 1, 4]
