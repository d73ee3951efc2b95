"""TREC files read by Spark: the common single-space lines parsed without a regular expression, every other
line as before (issue #28: the parse of the text was most of a cold run's map stage)."""
from __future__ import annotations

import pytest

pytest.importorskip("pyspark", reason="pyspark is a test dependency: pip install -e '.[test]'")

# (every kind of line the fast path must leave to the regular expression, and the plain ones it takes)
LINES = [
    "1 Q0 D1 1 2.5 run", "q7 Q0 doc-9 12 -0.25 tag", " 1 Q0 D1 1 2.5 run", "1 Q0 D1 1 2.5 run ",
    "1  Q0 D1 1 2.5 run", "1\tQ0\tD1\t1\t2.5\trun", "1 Q0\tD1 1 2.5 run", "1 Q0 D1\x0b1 2.5 run",
    "1 Q0 D1 1 2.5\x0crun", "1 Q0 D1 1 2.5 run\r", "1 Q0 D1 1 2.5", "1 Q0 D1 1 2.5 run extra",
    "1 Q0 D1 1 2.5 run\t", "\t1 Q0 D1 1 2.5 run", "1 0 D1 2", "1 0  D1 2", "1\t0 D1 2 ", "a b", "x",
]


@pytest.mark.parametrize("n", [4, 6])
def test_fields_are_the_local_readers_split_of_the_line(spark, n):
    """Each line's fields are Python's ``str.split()`` of it (the local reader's ``bytes.split()``), whichever
    path a line takes."""
    import pyspark.sql.functions as F

    from rankwise.spark.read import _fields

    df = spark.createDataFrame([(x,) for x in LINES], "value string")
    fast = [r[0] for r in df.select(_fields(F.col("value"), n)).collect()]
    assert fast == [x.split() for x in LINES]
    assert sum(len(f) == n for f in fast) >= 3  # (plain lines of this width were among them)


def test_a_run_with_mixed_whitespace_reads_every_line(spark, tmp_path):
    """Plain lines, tabs, runs of spaces and padded lines in one file: each line's fields, as the local reader
    reads them (rank and score as numbers, the ids as text). A trailing tab was an extra, empty field before
    (Spark's trim() removes spaces only): the file was refused by Spark and read locally."""
    from rankwise.spark.read import read

    lines = ["1 Q0 D1 1 2.5 run", "1\tQ0\tD2\t2\t1.5\trun", "1  Q0 D3 3 0.5 run", " 2 Q0 D1 1 9 run ",
             "2 Q0 D4 2 -1e3 run\t"]
    path = tmp_path / "mixed.run"
    path.write_text("\n".join(lines) + "\n\n")
    got = sorted(tuple(r) for r in read(spark, str(path), "score").collect())
    assert got == sorted([("1", "D1", 2.5, 1.0), ("1", "D2", 1.5, 2.0), ("1", "D3", 0.5, 3.0),
                          ("2", "D1", 9.0, 1.0), ("2", "D4", -1000.0, 2.0)])


def test_a_line_of_too_few_fields_is_still_refused_with_its_text(spark, tmp_path):
    from rankwise.spark.read import read

    path = tmp_path / "short.qrels"
    path.write_text("1 0 D1 1\n1 0 D2\n")
    with pytest.raises(Exception, match="1 0 D2"):
        read(spark, str(path), "relevance").collect()


def test_comment_lines_are_skipped_as_the_local_reader_skips_them(spark, tmp_path):
    """'#' first, after any blanks (trec_eval 10.0's rule for runs): no data. A '#' inside an id is data."""
    import rankwise as rw
    from rankwise.spark.read import read

    text = ("# run made by bm25\n1 Q0 D#1 1 2.5 run\n  \t# indented note\n1 Q0 D2 2 1.5 run\n\x0c# fed\n"
            "#2 Q0 D9 1 9 run\n2 Q0 D1 1 9 run\n\x0b#\n# last\n")
    path = tmp_path / "commented.run"
    path.write_text(text)
    got = sorted(tuple(r) for r in read(spark, str(path), "score").collect())
    assert got == sorted([("1", "D#1", 2.5, 1.0), ("1", "D2", 1.5, 2.0), ("2", "D1", 9.0, 1.0)])
    assert rw.Run.read(path).to_dict() == {"1": {"D#1": 2.5, "D2": 1.5}, "2": {"D1": 9.0}}
