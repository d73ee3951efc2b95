"""Scores that are not finite numbers (inf, nan, 1e400 which overflows to inf) are refused: in a TREC
run file a ParseError naming file:line and the text, on the fast (pyarrow) and the strict path, read
whole or in blocks; in a dict, arrays or a frame, a DataError naming query and doc. A qrels whose
4th column holds timestamps, not grades, is said so instead of a fix that would score them (#13)."""
from __future__ import annotations

import numpy as np
import pytest

import rankwise as rw
from rankwise.io import trec
from tests.io.streamed import streamed

GOOD = "q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 1.0 t\n"


@pytest.fixture(params=["fast", "strict"])
def path_kind(request, monkeypatch):
    if request.param == "strict":
        monkeypatch.setattr(trec, "_fast_parse", lambda *a, **k: None)
    return request.param


@pytest.mark.parametrize("text, why", [("1e400", r"score '1e400' overflows a double \(becomes inf\)"),
                                       ("-1E999", r"score '-1E999' overflows a double \(becomes -inf\)"),
                                       ("inf", "score is infinite"), ("-Infinity", "score is infinite"),
                                       ("nan", "score is NaN")])
def test_non_finite_scores_in_a_run_file_name_the_line(tmp_path, path_kind, text, why):
    path = tmp_path / "r.run"
    path.write_text(GOOD + f"q2 Q0 d3 1 {text} t\n")
    with pytest.raises(rw.ParseError, match=why) as exc:
        rw.Run.read(path)
    assert exc.value.path == str(path) and exc.value.line == 3
    assert exc.value.text == f"q2 Q0 d3 1 {text} t"
    assert f"{path}:3" in str(exc.value)
    with pytest.raises(rw.ParseError, match=why) as exc:  # the streaming reader too
        streamed({"q1": {"d1": 1}}, path, "P@1", block_bytes=16)
    assert exc.value.line == 3


@pytest.mark.parametrize("bad", [float("inf"), float("-inf"), float("nan")])
def test_non_finite_scores_in_a_dict_or_arrays_name_query_and_doc(bad):
    with pytest.raises(rw.DataError, match=r"score is (inf|-inf|nan) for query 'q2', doc 'd3'; scores must be "
                                           r"finite numbers") as exc:
        rw.Run.from_dict({"q1": {"d1": 1.0}, "q2": {"d3": bad}})
    assert not isinstance(exc.value, rw.ParseError)
    with pytest.raises(rw.DataError, match="for query 'q2', doc 'd3'"):
        rw.Run.from_arrays(["q1", "q2"], ["d1", "d3"], np.array([1.0, bad]))
    with pytest.raises(rw.DataError, match="for query 'q2', doc 'd3'"):
        rw.evaluate({"q1": {"d1": 1}}, {"q1": {"d1": 1.0}, "q2": {"d3": bad}}, "P@1")


def test_non_finite_scores_in_a_frame_name_query_and_doc():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["d1", "d3"], "score": [1.0, float("inf")]})
    with pytest.raises(rw.DataError, match="score is inf for query 'q2', doc 'd3'"):
        rw.Run.from_frame(frame)


def _udata(n=300, seed=0) -> str:
    """MovieLens u.data's layout: user item rating timestamp, tab-separated."""
    rng = np.random.default_rng(seed)
    rows = zip(rng.integers(1, 20, n), rng.integers(1, 400, n), rng.integers(1, 6, n),
               rng.integers(874724710, 893286638, n))
    return "".join(f"{u}\t{i}\t{r}\t{t}\n" for u, i, r, t in rows)


def test_a_ratings_file_read_as_qrels_is_flagged_not_deduplicated(tmp_path):
    path = tmp_path / "u.data"
    path.write_text(_udata())
    with pytest.raises(rw.ParseError, match="duplicate judgment") as exc:
        rw.Qrels.read(path)
    msg = str(exc.value)
    assert "The 4th column (relevance) does not look like relevance grades" in msg
    assert "up to 89" in msg and "'user item rating timestamp' file (MovieLens u.data)" in msg
    assert "duplicates='first'" not in msg  # the fix that would score timestamps as grades is not offered


def test_timestamps_as_grades_warn_when_nothing_repeats(tmp_path):
    path = tmp_path / "ts.qrels"
    path.write_text("".join(f"q{i} 0 d{i} {881250949 + 7919 * i}\n" for i in range(50)))
    with pytest.warns(rw.RankwiseWarning, match=r"ts\.qrels: The 4th column \(relevance\) does not look like "
                                                r"relevance grades: 50 distinct values up to 881638980"):
        qrels = rw.Qrels.read(path)
    assert qrels.n_queries == 50


def test_ordinary_grades_and_duplicates_keep_the_duplicates_fix(tmp_path):
    path = tmp_path / "g.qrels"
    path.write_text("q1 0 d1 1\nq1 0 d2 3\nq1 0 d1 2\n")
    with pytest.raises(rw.ParseError, match=r"duplicates='first'\|'last'\|'max'") as exc:
        rw.Qrels.read(path)
    assert "does not look like" not in str(exc.value)


@pytest.mark.slow  # starts `python -m rankwise`: about 0.5 s
def test_cli_flags_a_ratings_file_given_as_qrels(tmp_path):
    import subprocess
    import sys
    (tmp_path / "u.data").write_text(_udata())
    (tmp_path / "r.run").write_text(GOOD)
    p = subprocess.run([sys.executable, "-m", "rankwise", "evaluate", str(tmp_path / "u.data"), str(tmp_path / "r.run"),
                        "-m", "P@1"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "does not look like relevance grades" in p.stderr, p.stderr
    assert "--duplicates" not in p.stderr
