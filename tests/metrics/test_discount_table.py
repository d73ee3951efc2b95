"""The log discount of many integer positions is looked up in a table of the distinct positions: the values
must be those of the formula, to the bit, whatever the positions (a value that changed in its last bit would
change a query's nDCG depending on how many rows it was evaluated with)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankwise.kernels import segments as sk


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-3, 3000), min_size=1, max_size=50), st.integers(1, 400),
       st.sampled_from([2.0, 10.0, float(np.e), 1.5]), st.sampled_from(["rank_plus_1", "max_rank_2"]),
       st.sampled_from([np.int64, np.int32, np.uint16]))
def test_the_table_gives_the_formulas_values(values, repeat, base, kind, dtype):
    if dtype is np.uint16:
        values = [abs(v) for v in values]
    pos = np.resize(np.asarray(values, dtype=dtype), len(values) * repeat * 100)  # from a few to 5M rows
    with np.errstate(divide="ignore", invalid="ignore"):  # (a negative position has no discount: NaN both ways)
        got, want = sk.log_discount(pos, base, kind), sk._log_discount(pos, base, kind)
    assert got.dtype == want.dtype == np.float64
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("n", [sk._TABLE_FROM - 1, sk._TABLE_FROM, 10 * sk._TABLE_FROM])
def test_positions_of_a_run(n, monkeypatch):
    """Positions as a run's queries have them (0, 1, ..., len - 1 per query), floats too (ties=average); the
    table is what computes them from _TABLE_FROM integer positions on (one formula call, on the table)."""
    rng = np.random.default_rng(n)
    lengths = rng.integers(1, 120, n // 30 + 10)  # (more rows than n: cut to n)
    pos = np.concatenate([np.arange(k) for k in lengths])[:n]
    sizes: list[int] = []
    formula = sk._log_discount
    monkeypatch.setattr(sk, "_log_discount", lambda p, b, k: sizes.append(np.size(p)) or formula(p, b, k))
    for p in (pos, pos.astype(np.float64) + 0.5):
        assert sk.log_discount(p, 2.0).tobytes() == (np.log(2.0) / np.log(np.asarray(p, dtype=float) + 2.0)).tobytes()
    table = n >= sk._TABLE_FROM
    assert sizes == ([int(pos.max()) + 1] if table else [n]) + [n]  # the floats: the formula on every row
