"""``to_frame()`` of the agreement results: a pandas DataFrame of plain columns, pandas imported on first use."""
from __future__ import annotations

from typing import Any, Mapping, Sequence


def frame(columns: Mapping[str, Any], what: str, index: str | None = None) -> Any:
    """A DataFrame of ``columns`` ({name: values}, in that order), indexed by the column ``index``; the error
    without pandas names ``what`` and the install hint."""
    from rankwise.errors import require
    pd = require("pandas", "pandas", f"{what}.to_frame")
    out = pd.DataFrame(dict(columns))
    return out.set_index(index) if index is not None else out


def columns_of(rows: Sequence[Mapping[str, Any]], names: Sequence[str]) -> dict[str, list[Any]]:
    """{name: [row[name] for row in rows]}: the columns of a few rows (one per pair, bin or metric), kept even
    when there is no row."""
    return {n: [r[n] for r in rows] for n in names}
