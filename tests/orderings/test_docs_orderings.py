"""docs/orderings.md: its worked example prints what the page shows."""
from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "orderings.md"


def test_the_worked_example_prints_what_the_page_says():
    text = DOC.read_text()
    code, printed = re.search(r"```python\n(.*?)```\n\n```text\n(.*?)```", text, re.S).groups()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, str(DOC), "exec"), {})
    assert out.getvalue() == printed
