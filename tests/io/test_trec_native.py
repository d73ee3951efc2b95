"""The one-pass reader of plain TREC text (``rankwise.io.trec_native``, the C kernels' ``parse_text``).

Every Run and Qrels it builds must be the one the general path (pyarrow's reader, then the strict parser)
builds from the same text, to the bit; what it cannot read exactly it hands back (``parse_text`` returns
None), and the general path then reads the text, or refuses it naming the line, as before. Its scores are
checked against Python's ``float`` (correctly rounded) on the decimals its arithmetic finds hardest: 17–19
significant digits, halfway cases, exponents at the ends of its range.
"""
from __future__ import annotations

import dataclasses
import gzip
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rankwise as rw
import rankwise.io.trec_native as trec_native
from rankwise.data import idkeys
from rankwise.data.vocabulary import Vocabulary
from rankwise.errors import RankwiseError
from rankwise.io.trec import read_qrels, read_run, read_run_bytes
from rankwise.kernels.native import NATIVE
from rankwise.testing import assert_results_identical
from tests.io.streamed import streamed

needs_native = pytest.mark.skipif(NATIVE is None, reason="the C extension is not built here (.ci/run checks it is)")


def _parse(text: bytes, fields=trec_native.RUN_FIELDS):
    return trec_native._native.parse_text(text, *fields)


def _general(monkeypatch):
    """The general path: the one-pass reader switched off, for the reading that follows."""
    monkeypatch.setattr(trec_native, "_native", None)


def _same_collection(a, b) -> None:
    assert type(a) is type(b)
    for f in dataclasses.fields(a):
        if f.name == "_memo":
            continue
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, np.ndarray):
            assert x.dtype == y.dtype and x.shape == y.shape, f.name
            assert np.array_equal(x.view(np.uint8), y.view(np.uint8)), f.name  # (bits: -0.0 is not 0.0)
        elif isinstance(x, Vocabulary):
            assert x.ids.dtype == y.ids.dtype and np.array_equal(x.ids, y.ids) and x.is_sorted == y.is_sorted
        else:
            assert x == y, f.name
    assert np.array_equal(a.row_hash(), b.row_hash()) and np.array_equal(a.segment, b.segment)


def _both(monkeypatch, read, path):
    """(what the one-pass reader reads, what the general path reads) of the file, or of its error."""
    def outcome():
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            try:
                got = read(path)
            except RankwiseError as exc:
                return type(exc), str(exc), [str(w.message) for w in said]
        return got, [str(w.message) for w in said]
    fast = outcome()
    with monkeypatch.context() as m:
        _general(m)
        slow = outcome()
    return fast, slow


def _assert_same_reading(monkeypatch, read, path) -> None:
    fast, slow = _both(monkeypatch, read, path)
    if isinstance(fast[0], type):
        assert fast == slow
    else:
        assert not isinstance(slow[0], type), slow
        _same_collection(fast[0], slow[0])
        assert fast[1] == slow[1]


# ---- scores: the double nearest the decimal -----------------------------------------------------------------

def _scores_of(texts: list[str]) -> np.ndarray | None:
    lines = "".join(f"q Q0 d{i} {i} {t} tag\n" for i, t in enumerate(texts)).encode()
    parsed = _parse(lines)
    return None if parsed is None else np.frombuffer(parsed[2], dtype=np.float64)


def _same_bits(got: np.ndarray, texts: list[str]) -> None:
    want = np.array([float(t) for t in texts], dtype=np.float64)
    bad = np.flatnonzero(got.view(np.uint64) != want.view(np.uint64))
    assert bad.size == 0, [(texts[i], got[i], want[i]) for i in bad[:5]]


@needs_native
def test_scores_are_the_doubles_nearest_their_decimals():
    texts = [
        "0", "-0", "0.0", "-0.000", "007", "1", "-1", "17.507", "0.1", "0.2", "0.30000000000000004",
        "1e0", "1E5", "1e+22", "1e-22", "123456789e-22", "9.5367431640625e-07", "3.5",
        # 2^53 + 1 and + 3: halfway between two doubles, ties to even (down, then up)
        "9007199254740993", "9007199254740995", "9007199254740993e0", "90071992547409930e-1",
        # 17 to 19 significant digits: above 2^53, by 128-bit integers
        "0.3000000000000000444", "1234567890123456789", "9999999999999999999", "9999999999999999999e-22",
        "9999999999999999999e-26", "1.2345678901234567e-09", "3e-26", "-0.00000000000000000000000001",
        "1.234567890123456789e19", "-18446744073709551.5", "4.9406564584124654e-4", "1797693134862315.7e3",
        "123456789012345678e19",
    ]
    got = _scores_of(texts)
    assert got is not None
    _same_bits(got, texts)


@needs_native
@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e30, max_value=1e30), min_size=1,
                max_size=40), st.integers(0, 19))
def test_scores_written_by_python_read_back_to_the_same_double(xs, digits):
    texts = [repr(x) for x in xs] + [f"{x:.{digits}f}" for x in xs if abs(x) < 1e12] + \
            [f"{x:.{min(digits, 18)}e}" for x in xs]
    got = _scores_of(texts)
    if got is None:  # (some decimal outside what the reader does exactly: the general path reads them all)
        assert any(_outside(t) for t in texts)
        return
    _same_bits(got, texts)


def _outside(text: str) -> bool:
    """Whether a decimal is outside what the one-pass reader computes exactly, counted as it counts: more than 19
    significant digits as written (trailing zeros too), or a power of ten it does not reach for its digits."""
    mantissa, _, exponent = text.lstrip("-").lower().partition("e")
    whole, _, frac = mantissa.partition(".")
    digits = (whole + frac).lstrip("0")
    e = int(exponent or 0) - len(frac)
    w = int(digits or "0")
    if len(digits) > 19:
        return True
    return not (w == 0 or (w <= 2**53 and -22 <= e <= 22) or -26 <= e <= 19)


@needs_native
@settings(max_examples=300, deadline=None)
@given(st.integers(1, 10**19 - 1), st.integers(-28, 21), st.booleans(), st.integers(0, 3))
def test_decimals_of_up_to_19_digits_at_every_exponent(w, e, negative, style):
    digits = str(w)
    text = {0: f"{digits}e{e}",
            1: f"{digits}E+{e}" if e >= 0 else f"{digits}E{e}",
            2: _point(digits, e),
            3: f"{digits[0]}.{digits[1:] or '0'}e{e + len(digits) - 1}"}[style]
    text = "-" + text if negative else text
    got = _scores_of([text])
    if got is None:
        assert _outside(text), text
        return
    _same_bits(got, [text])


def _point(digits: str, e: int) -> str:
    """The decimal digits * 10^e written with a point and no exponent."""
    if e >= 0:
        return digits + "0" * e
    k = -e
    return f"0.{'0' * (k - len(digits))}{digits}" if k >= len(digits) else f"{digits[:-k]}.{digits[-k:]}"


# ---- what it hands back ----------------------------------------------------------------------------------------

PLAIN = "1 Q0 d1 1 2.5 tag\n1 Q0 d2 2 1.5 tag\n2 Q0 d1 1 0.5 tag\n"
HANDED_BACK = {
    "tab": "1\tQ0\td1\t1\t2.5\ttag\n",
    "CR": "1 Q0 d1 1 2.5 tag\r\n",
    "NUL": "1 Q0 d1 1 2.5 tag\x00\n",
    "vertical tab": "1 Q0 d1 1 2.5 tag\x0b\n",
    "byte-order mark": "\ufeff1 Q0 d1 1 2.5 tag\n",
    "non-ASCII id": "1 Q0 dé 1 2.5 tag\n",
    "DEL byte": "1 Q0 d\x7f 1 2.5 tag\n",
    "doubled space": "1 Q0  d1 1 2.5 tag\n",
    "empty tag": "1 Q0 d1 1 2.5 \n",
    "leading space": " 1 Q0 d1 1 2.5 tag\n",
    "seven fields": "1 Q0 d1 1 2.5 tag more\n",
    "five fields": "1 Q0 d1 1 2.5\n",
    "comment": "# a comment\n1 Q0 d1 1 2.5 tag\n",
    "doc id of 33 bytes": f"1 Q0 {'d' * 33} 1 2.5 tag\n",
    "rank 1.0": "1 Q0 d1 1.0 2.5 tag\n",
    "rank +1": "1 Q0 d1 +1 2.5 tag\n",
    "rank of 19 digits": "1 Q0 d1 1234567890123456789 2.5 tag\n",
    "score +2.5": "1 Q0 d1 1 +2.5 tag\n",
    "score .5": "1 Q0 d1 1 .5 tag\n",
    "score 5.": "1 Q0 d1 1 5. tag\n",
    "score 1e": "1 Q0 d1 1 1e tag\n",
    "score 1e400": "1 Q0 d1 1 1e400 tag\n",
    "score 1e-300": "1 Q0 d1 1 1e-300 tag\n",
    "score nan": "1 Q0 d1 1 nan tag\n",
    "score inf": "1 Q0 d1 1 inf tag\n",
    "score 0x10": "1 Q0 d1 1 0x10 tag\n",
    "score 1_0": "1 Q0 d1 1 1_0 tag\n",
    "score of 20 digits": "1 Q0 d1 1 12345678901234567890 tag\n",
    "exponent of 5 digits": "1 Q0 d1 1 1e00001 tag\n",
    "score of 65 bytes": f"1 Q0 d1 1 {'0' * 62}1.5 tag\n",
    "blank": "\n\n",
    "empty": "",
}


@needs_native
@pytest.mark.parametrize("where", ["first", "last"])  # (a line with 64 bytes after it is split by bit masks)
@pytest.mark.parametrize("name", sorted(HANDED_BACK))
def test_what_it_cannot_read_exactly_is_handed_back_and_read_as_before(name, where, tmp_path, monkeypatch):
    odd = HANDED_BACK[name]
    text = (odd if name in ("blank", "empty") else PLAIN * 2 + odd if where == "last" else odd + PLAIN * 2).encode()
    assert _parse(text) is None
    path = tmp_path / "r.run"
    path.write_bytes(text)
    _assert_same_reading(monkeypatch, read_run, path)


@needs_native
def test_long_lines_and_the_last_bytes_are_split_byte_by_byte_alike():
    lines = [f"q1 Q0 d{i} {i + 1} {i}.5 {'t' * w}" for i, w in enumerate([1, 60, 1, 70, 2, 200, 1, 1, 1, 1])]
    parsed = _parse(("\n".join(lines) + "\n").encode())
    assert parsed is not None and np.frombuffer(parsed[2]).tolist() == [i + 0.5 for i in range(10)]


@needs_native
def test_plain_text_is_read_by_it():
    parsed = _parse((PLAIN + "\n\n3 Q0 d9 1 1 t").encode())  # (blank lines; no line break at the end)
    assert parsed is not None
    keys, words, scores, ranks, runs, ids, ends = parsed
    assert words == 1 and np.frombuffer(scores).tolist() == [2.5, 1.5, 0.5, 1.0]
    assert np.frombuffer(runs, dtype=np.int64).tolist() == [0, 0, 1, 2] and ids == b"123"


# ---- whole files, both sides ----------------------------------------------------------------------------------

ID_CHARS = st.characters(min_codepoint=0x21, max_codepoint=0x7E)


@st.composite
def run_texts(draw) -> bytes:
    queries = draw(st.lists(st.text(ID_CHARS, min_size=1, max_size=12).filter(lambda q: q[0] != "#"), min_size=1,
                            max_size=5, unique=True))
    docs = draw(st.lists(st.text(ID_CHARS, min_size=1, max_size=draw(st.sampled_from([8, 16, 34]))), min_size=1,
                         max_size=12, unique=True))
    score = st.one_of(st.floats(allow_nan=False, allow_infinity=False, width=32).map(repr),
                      st.integers(-10**6, 10**6).map(str),
                      st.integers(0, 25).flatmap(lambda k: st.decimals(allow_nan=False, allow_infinity=False,
                                                                       places=k)).map(str))
    lines = []
    for _ in range(draw(st.integers(1, 30))):  # (queries interleaved: a query's lines in several runs)
        lines.append(f"{draw(st.sampled_from(queries))} Q0 {draw(st.sampled_from(docs))} "
                     f"{draw(st.integers(-3, 10**6))} {draw(score)} {draw(st.sampled_from(['t', 'run#1']))}")
        if draw(st.integers(0, 9)) == 0:
            lines.append("")
    return ("\n".join(lines) + draw(st.sampled_from(["\n", ""]))).encode()


SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@needs_native
@SETTINGS
@given(text=run_texts(), duplicates=st.sampled_from(["error", "max", "first"]))
def test_a_run_file_is_the_run_the_general_path_reads(text, duplicates, tmp_path, monkeypatch):
    path = tmp_path / "r.run"
    path.write_bytes(text)
    _assert_same_reading(monkeypatch, lambda p: read_run(p, duplicates=duplicates), path)
    _assert_same_reading(monkeypatch, lambda p: read_run_bytes(p.read_bytes(), duplicates=duplicates), path)


@st.composite
def qrels_texts(draw) -> bytes:
    queries = draw(st.lists(st.text(ID_CHARS, min_size=1, max_size=6).filter(lambda q: q[0] != "#"), min_size=1,
                            max_size=4, unique=True))
    docs = draw(st.lists(st.text(ID_CHARS, min_size=1, max_size=draw(st.sampled_from([8, 24]))), min_size=1,
                         max_size=10, unique=True))
    grade = st.one_of(st.integers(-2, 4).map(str), st.sampled_from(["0.5", "1.0", "2.50", "-1", "3e0", "1e9"]))
    lines = [f"{draw(st.sampled_from(queries))} 0 {draw(st.sampled_from(docs))} {draw(grade)}"
             for _ in range(draw(st.integers(1, 25)))]
    return ("\n".join(lines) + "\n").encode()


@needs_native
@SETTINGS
@given(text=qrels_texts())
def test_a_qrels_file_is_the_qrels_the_general_path_reads(text, tmp_path, monkeypatch):
    path = tmp_path / "q.qrels"
    path.write_bytes(text)
    _assert_same_reading(monkeypatch, read_qrels, path)  # (the first fractional grade, the grades' warning too)


@needs_native
def test_doc_ids_growing_wider_past_the_first_guess_of_room(tmp_path, monkeypatch):
    # the first line is long (room for few rows) and its id one word; later ids need two, three, four words
    rng = np.random.default_rng(7)
    widths = np.concatenate([[1], rng.integers(1, 33, 3000), [32, 9, 17, 25]])
    lines = [f"q{i // 40} Q0 {'x' * int(w - 1)}{i % 10} {i % 40 + 1} {rng.normal():.6f} t"
             for i, w in enumerate(widths)]
    lines[0] = lines[0] + "a" * 200  # (a long tag)
    text = ("\n".join(lines) + "\n").encode()
    parsed = _parse(text)
    assert parsed is not None
    keys = np.frombuffer(parsed[0], dtype=np.uint64).reshape(-1, parsed[1])
    assert np.array_equal(keys, idkeys.pack([line.split(" ")[2] for line in lines]))
    path = tmp_path / "r.run"
    path.write_bytes(text)
    _assert_same_reading(monkeypatch, read_run, path)


@needs_native
def test_duplicates_are_said_with_the_lines_of_the_file_in_blocks(tmp_path, monkeypatch):
    qrels = tmp_path / "q.qrels"
    qrels.write_text("".join(f"q{q} 0 d{d} 1\n" for q in range(40) for d in range(3)))
    run = tmp_path / "r.run"
    lines = [f"q{q} Q0 d{d} {d + 1} {5 - d}.25 t" for q in range(40) for d in range(4)]
    lines.insert(100, lines[99])  # a pair given twice, in a later block
    run.write_text("\n".join(lines) + "\n")
    gz = tmp_path / "r.run.gz"
    gz.write_bytes(gzip.compress(run.read_bytes()))
    for path in (run, gz):
        fast, slow = _both(monkeypatch, lambda p: streamed(str(qrels), p, ["AP"], block_bytes=600, workers=2), path)
        assert fast == slow
        assert f"{path.name}:101: duplicate document" in fast[1], fast


@needs_native
def test_blocks_give_the_numbers_of_the_general_path(tmp_path, monkeypatch):
    rng = np.random.default_rng(3)
    qrels = tmp_path / "q.qrels"
    qrels.write_text("".join(f"q{q} 0 d{d} {int(rng.integers(0, 3))}\n" for q in range(60) for d in range(0, 30, 3)))
    run = tmp_path / "r.run"
    ranked = [zip(rng.permutation(30), np.sort(rng.random(30))[::-1].tolist()) for _ in range(60)]
    run.write_text("".join(f"q{q} Q0 d{d} {r + 1} {s!r} t\n" for q in range(60) for r, (d, s) in enumerate(ranked[q])))
    metrics = ["AP", "nDCG@10", "ERR@10", "P@5", "R@20"]
    fast = streamed(str(qrels), run, metrics, block_bytes=2000, workers=2)
    assert fast.info["blocks"] > 5
    _general(monkeypatch)
    assert_results_identical(fast, streamed(str(qrels), run, metrics, block_bytes=2000, workers=2))


def test_written_runs_and_qrels_read_back_the_same(tmp_path):
    """``write_run`` writes each score as Python's shortest repr (17 significant digits at most: read by the
    one-pass reader's 128-bit arithmetic) and ``write_qrels`` each grade; both read back to the same values."""
    from rankwise.io.trec import write_qrels, write_run
    rng = np.random.default_rng(11)
    run = rw.Run.from_dict({f"q{q}": {f"d{d}": float(rng.normal() * 10.0 ** rng.integers(-8, 8)) for d in range(20)}
                            for q in range(5)})
    write_run(run, tmp_path / "r.run")
    back = read_run(tmp_path / "r.run")
    assert "np.float64" not in (tmp_path / "r.run").read_text()
    assert back.to_dict() == run.to_dict()
    qrels = rw.Qrels.from_dict({"q1": {"d1": 0.5, "d2": 2, "d3": 0}})
    write_qrels(qrels, tmp_path / "q.qrels")
    assert (tmp_path / "q.qrels").read_text() == "q1 0 d1 0.5\nq1 0 d2 2\nq1 0 d3 0\n"
    assert read_qrels(tmp_path / "q.qrels").to_dict() == qrels.to_dict()


@needs_native
def test_a_block_handed_back_is_not_read_by_it_twice(tmp_path, monkeypatch):
    import mmap

    from rankwise.io.trec_blocks import parse_span
    path = tmp_path / "r.run"
    path.write_text("".join(f"q{i // 10} Q0 d{i} {i % 10 + 1} {i}.5 t\n" for i in range(150)) + "# the end\n")
    calls = []
    real = trec_native._native.parse_text
    monkeypatch.setattr(trec_native._native, "parse_text", lambda *a: calls.append(a) or real(*a))
    with open(path, "rb") as fh:
        mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        assert len(parse_span(mm, 0, len(mm), str(path), "error")) == 150
    assert len(calls) == 1


@needs_native
def test_layouts_it_does_not_know_are_refused():
    for fields in [(2, 1, -1), (7, 4, 3), (6, 2, 3), (6, 4, 0), (6, 4, 4), (6, 4, -2), (4, 0, -1)]:
        with pytest.raises(ValueError):
            _parse(b"1 Q0 d1 1 2.5 tag\n", fields)
