"""Fuzz every reader: arbitrary bytes and near-valid lines either parse or raise a rankwise error that
names the file (and, for a parse error, the line) — never a traceback from inside, never a hang (#13)."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankwise.errors import DataError, ParseError
from rankwise.io.interactions import read_interactions
from rankwise.io.ncf import load_ncf
from rankwise.io.per_query import read_values
from rankwise.io.sampled_ranks import read_ranks
from rankwise.io.tabular import read_qrels_file, read_run_file
from rankwise.io.trec import read_qrels, read_run

TOKENS = ["q1", "q2", "Q0", "0", "d1", "d2", "1", "2", "-1", "0.5", "1e400", "inf", "nan", "", "é", "\x00",
          "\xff", '"', "'", "#", "10.0", "007", "user", "item", "score", "rank", "rating", "1,2"]
SEPARATORS = [" ", "\t", ",", "  ", ";"]


@st.composite
def near_valid(draw) -> bytes:
    lines = []
    for _ in range(draw(st.integers(0, 6))):
        sep = draw(st.sampled_from(SEPARATORS))
        lines.append(sep.join(draw(st.lists(st.sampled_from(TOKENS), min_size=0, max_size=6))))
    end = draw(st.sampled_from(["\n", "\r\n", ""]))
    return ("\n".join(lines) + end).encode("utf-8", "surrogatepass")


CONTENTS = st.one_of(st.binary(max_size=200), near_valid())
# FUZZ_EXAMPLES=1000 for a longer hunt; the deadline catches a reader that hangs
SETTINGS = settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", 60)), deadline=5000,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


def _write(data: bytes, suffix: str) -> Path:
    d = Path(tempfile.mkdtemp(prefix="rankwise-fuzz-"))
    path = d / f"input{suffix}"
    path.write_bytes(data)
    return path


def _check(reader, data: bytes, suffix: str) -> None:
    path = _write(data, suffix)
    try:
        reader(path)
    except ParseError as exc:
        assert exc.path is not None and Path(exc.path).name == path.name, str(exc)
        # a line, unless the fault is the whole file (empty, no header, a JSON document of the wrong shape, bad gzip)
        whole = ("empty", "column", "json", "gzip")
        assert exc.line is not None or any(w in str(exc).lower() for w in whole), str(exc)
    except DataError as exc:  # well-formed but not evaluable (duplicates, no rows): it names the file
        assert path.name in str(exc) or "duplicate" in str(exc) or "no " in str(exc), str(exc)


READERS = {
    "trec qrels": (read_qrels, ".qrels"),
    "trec run": (read_run, ".run"),
    "csv qrels": (lambda p: read_qrels_file(p, "csv"), ".csv"),
    "tsv run": (lambda p: read_run_file(p, "tsv"), ".tsv"),
    "json run": (lambda p: read_run_file(p, "json"), ".json"),
    "sampled ranks": (lambda p: read_ranks(str(p), 100), ".txt"),
    "per-query values": (lambda p: read_values([str(p)]), ".csv"),
    "interactions": (read_interactions, ".csv"),
}


@pytest.mark.slow  # fuzz, 8 readers x 60 examples: about 2.5 s
@pytest.mark.parametrize("name", sorted(READERS))
@SETTINGS
@given(data=CONTENTS)
def test_reader_parses_or_names_file_and_line(name, data):
    reader, suffix = READERS[name]
    _check(reader, data, suffix)


@pytest.mark.slow  # fuzz, 60 examples
@SETTINGS
@given(data=CONTENTS)
def test_ncf_reader(data):
    d = Path(tempfile.mkdtemp(prefix="rankwise-fuzz-ncf-"))
    (d / "x.test.rating").write_bytes(data)
    (d / "x.test.negative").write_bytes(data)
    try:
        load_ncf(d / "x")
    except ParseError as exc:
        assert exc.path is not None and (exc.line is not None or "gzip" in str(exc)), str(exc)
    except DataError as exc:  # the two files disagree: both are named
        assert "test.negative" in str(exc) and "test.rating" in str(exc), str(exc)


@pytest.mark.parametrize("name", sorted(READERS))
def test_binary_file_is_reported_at_its_first_line(name):
    reader, suffix = READERS[name]
    path = _write(bytes(range(256)) * 4, suffix)
    with pytest.raises((ParseError, DataError)) as info:
        reader(path)
    if isinstance(info.value, ParseError):
        assert info.value.line == 1, str(info.value)


@pytest.mark.parametrize("field", ["0.5", "1_0", "99999999999999999999", "x"])
def test_ncf_names_a_rating_line_that_is_not_integers(tmp_path, field):
    """(found by test_ncf_reader: a field that is a number but not an int64, as b'0\\t0\\t0\\t0.5', failed
    without a line)"""
    (tmp_path / "x.test.rating").write_text(f"0\t0\t1\t5\n0\t1\t{field}\t7\n")
    (tmp_path / "x.test.negative").write_text("(0,0)\t3\n(0,1)\t4\n")
    with pytest.raises(ParseError) as exc:
        load_ncf(tmp_path / "x")
    assert exc.value.line == 2 and "4 integer fields" in str(exc.value)
