"""print(run) / print(qrels): counts and the first rows, never the internal arrays (#13)."""
from __future__ import annotations

import rankwise as rw


def test_run_repr_shows_counts_and_a_few_rows():
    run = rw.Run.from_dict({"q1": {"d1": 2.0, "d2": 1.5}, "q2": {f"d{i}": float(i) for i in range(10)}})
    text = repr(run)
    lines = text.splitlines()
    assert lines[0] == "Run(2 queries, 12 rows):"
    assert lines[1].split() == ["query", "doc", "score"]
    assert lines[2].split() == ["q1", "d1", "2"] and lines[3].split() == ["q1", "d2", "1.5"]
    assert lines[-1] == "  ... 7 more rows" and len(lines) == 8
    assert "array" not in text and "offsets" not in text and "Vocabulary" not in text
    assert str(run) == text


def test_qrels_repr_counts_dropped_duplicates_and_names_the_file(tmp_path):
    path = tmp_path / "q.qrels"
    path.write_text("q1 0 d1 1\nq1 0 d1 2\nq2 0 d3 0\n")
    qrels = rw.Qrels.read(path, duplicates="last")
    text = repr(qrels)
    assert text.splitlines()[0] == f"Qrels(2 queries, 2 rows, 1 duplicates dropped, from {str(path)!r}):"
    assert "relevance" in text.splitlines()[1]
    assert repr(rw.Qrels.from_dict({})) == "Qrels(0 queries, 0 rows)"
