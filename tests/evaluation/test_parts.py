"""evaluate() of a run held in memory by several threads, a part of the run's queries each
(execution/parts.py): the Results of one thread, to the bit, info and its order included, for every
number of workers, with the same errors; the parts are kept on the Run for a repeated call."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import rankwise as rw
import rankwise.execution.parts as parts
from rankwise.data.subsets import query_parts
from rankwise.testing import assert_results_identical
from tests.io.test_parallel_blocks import _collection

METRICS = ["nDCG@10", "AP", "RR", "P@5", "R@20", "bpref", "ERR(gmax=query)@10", "P(aggregate=micro)@5",
           "infAP", "RBP"]


@pytest.fixture
def small_parts(monkeypatch):
    """This test's small runs cut into parts, as a run of 2M rows is; the calls that used parts recorded."""
    monkeypatch.setattr(parts, "PARALLEL_ROWS", 50)
    used: list[int] = []
    real = parts.partials_in_parts

    def spy(*a, **k):
        found = real(*a, **k)
        used.append(found is not None)
        return found
    monkeypatch.setattr(parts, "partials_in_parts", spy)
    return used


def _inputs(tmp_path, seed: int):
    qrels_text, run_text = _collection(seed, n_queries=80)
    (tmp_path / "q").write_text(qrels_text)
    (tmp_path / "r").write_text(run_text)
    return rw.read_qrels(tmp_path / "q"), rw.read_run(tmp_path / "r")


def _identical(one, other) -> None:
    assert_results_identical(one, other)
    assert one.to_dict() == other.to_dict()


@pytest.mark.slow  # 18 cases, each evaluated by 1 and 2-3 threads: about 6 s on 2 cores
@pytest.mark.parametrize("overrides", [{}, {"missing_in_run": "zero"}, {"missing_in_qrels": "evaluate"},
                                       {"ties": "pessimistic", "missing_in_run": "zero"}, {"unjudged": "removed"},
                                       {"ties": "docid_asc", "scores": "float64"}])
@pytest.mark.parametrize("convention", ["trec_eval", "ranx", "mllib"])
def test_workers_give_the_results_of_one(tmp_path, small_parts, convention, overrides):
    qrels, run = _inputs(tmp_path, seed=30)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)
        one = rw.evaluate(qrels, run, METRICS, convention, workers=1, **overrides)
        assert small_parts == []  # one worker: one thread
        for workers in (2, 3, 5):
            _identical(one, rw.evaluate(qrels, run, METRICS, convention, workers=workers, **overrides))
            assert small_parts[-1] is True
            _identical(one, rw.evaluate(qrels, run, METRICS, convention, workers=workers, **overrides))  # again
    assert query_parts(run, 10) is query_parts(run, 10)  # kept on the Run: a repeated call reuses their memos


def test_integer_ids_of_frames(small_parts):
    """A recommender's frames: integer user ids (results keyed by ints in numeric order) and item ids."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(31)
    users = np.repeat(np.arange(1, 301), 12)
    test = pd.DataFrame({"user": users, "item": rng.integers(0, 500, users.size), "rating": 1})
    test = test.drop_duplicates(["user", "item"])
    recs = pd.DataFrame({"user": np.repeat(np.arange(1, 331), 20), "item": rng.integers(0, 500, 6600),
                         "score": rng.random(6600).round(2)}).drop_duplicates(["user", "item"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)
        one = rw.evaluate(test, recs, ["nDCG@10", "Recall@10", "HitRate@10"], "rectools", workers=1)
        two = rw.evaluate(test, recs, ["nDCG@10", "Recall@10", "HitRate@10"], "rectools", workers=2)
    _identical(one, two)
    assert one.query_ids.dtype.kind == "i" and small_parts[-1] is True


@pytest.mark.parametrize("overrides,metrics", [({"no_relevant": "error"}, ["AP", "nDCG@10"]),
                                               ({}, ["ERR(gmax=1)@10"])])
def test_an_error_is_the_whole_runs(tmp_path, small_parts, overrides, metrics):
    """A part's error would name its own queries only: the evaluation in one thread says it instead."""
    qrels_text, run_text = _collection(32, n_queries=80)
    rows = [line.split() for line in qrels_text.splitlines()]
    for row in rows:  # queries without a relevant document in several parts
        if row[0] in ("q001", "q040", "q077"):
            row[3] = "0"
    (tmp_path / "q").write_text("".join(" ".join(r) + "\n" for r in rows))
    (tmp_path / "r").write_text(run_text)
    qrels, run = rw.read_qrels(tmp_path / "q"), rw.read_run(tmp_path / "r")
    with pytest.raises(rw.RankwiseError) as one:
        rw.evaluate(qrels, run, metrics, workers=1, **overrides)
    with pytest.raises(rw.RankwiseError) as two:
        rw.evaluate(qrels, run, metrics, workers=2, **overrides)
    assert str(two.value) == str(one.value)
    assert small_parts == [False]  # tried in parts, given way


@pytest.mark.parametrize("overrides", [{}, {"missing_in_run": "zero"}, {"unscored_judgments": "ignored"},
                                       {"fractional_grades": "kept"}])
def test_collection_grades_use_every_core(tmp_path, small_parts, overrides):
    """ERR's gmax=collection (trec_eval's default) and μAP's levels=collection read the highest grade of every
    evaluated query: decided once for the whole run and given to every part, so they run in parts too."""
    qrels_text, run_text = _collection(33, n_queries=80)
    rows = [line.split() for line in qrels_text.splitlines()]
    for i, row in enumerate(rows):  # grades 0-3 and a fraction; the highest only in one query, absent from the run
        row[3] = "3.5" if row[0] == "q079" else str(i % 3)
    (tmp_path / "q").write_text("".join(" ".join(r) + "\n" for r in rows))
    (tmp_path / "r").write_text("".join(line + "\n" for line in run_text.splitlines() if not line.startswith("q079")))
    qrels, run = rw.read_qrels(tmp_path / "q"), rw.read_run(tmp_path / "r")
    metrics = ["ERR@10", "AP", "muAP(levels=collection)"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)
        _identical(rw.evaluate(qrels, run, metrics, workers=1, **overrides),
                   rw.evaluate(qrels, run, metrics, workers=2, **overrides))
    assert small_parts == [True]


def test_small_runs_stay_in_one_thread(tmp_path, monkeypatch):
    qrels, run = _inputs(tmp_path, seed=34)
    assert len(run) < parts.PARALLEL_ROWS
    monkeypatch.setattr(parts, "ThreadPoolExecutor", lambda *a, **k: pytest.fail("threads for a small run"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)
        rw.evaluate(qrels, run, ["AP"], workers=4)


def test_parts_are_whole_queries_of_about_equal_rows(tmp_path):
    _, run = _inputs(tmp_path, seed=35)
    cut = query_parts(run, 4)
    assert [a for _, a, _ in cut][0] == 0 and cut[-1][2] == run.n_queries
    assert all(b == a2 for (_, _, b), (_, a2, _) in zip(cut, cut[1:]))  # adjacent, no query twice
    sizes = [len(p) for p, _, _ in cut]
    assert sum(sizes) == len(run) and max(sizes) < 0.5 * len(run)
    for p, a, b in cut:
        assert np.array_equal(p.query_ids, run.query_ids[a:b])
        assert np.array_equal(p.row_hash(), run.row_hash()[run.offsets[a]:run.offsets[b]])


def test_numeric_doc_id_ties_are_decided_for_the_whole_run(tmp_path, small_parts, monkeypatch):
    """ties='docid_desc_numeric' orders tied doc ids as numbers only if every doc id of the run is one: one
    'x' in the last query makes every query's tie of 9, 10, 11 a text order (9 first), in every part too; and
    a file's blocks, which know only their own ids, guess it and are evaluated again when the guess was wrong."""
    import rankwise.execution.files as files

    monkeypatch.setattr(files, "PARALLEL_BYTES", 100)
    run_lines, qrels_lines = [], []
    for q in range(40):
        run_lines += [f"q{q:02d} Q0 {d} {i + 1} 1.0 t\n" for i, d in enumerate(("9", "10", "11"))]
        run_lines += [f"q{q:02d} Q0 {100 + i} {i + 4} {0.5 - i / 100} t\n" for i in range(3)]
        qrels_lines.append(f"q{q:02d} 0 9 1\n")
    run_lines.append("q40 Q0 x 1 1.0 t\n")
    (tmp_path / "q").write_text("".join(qrels_lines))
    (tmp_path / "r").write_text("".join(run_lines))
    qrels, run = rw.read_qrels(tmp_path / "q"), rw.read_run(tmp_path / "r")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rw.RankwiseWarning)
        one = rw.evaluate(qrels, run, ["RR"], ties="docid_desc_numeric", workers=1)
        assert one.means["RR"] == 1.0  # text order: '9' > '11' > '10'
        _identical(one, rw.evaluate(qrels, run, ["RR"], ties="docid_desc_numeric", workers=2))
        assert small_parts[-1] is True
        _identical(one, rw.evaluate(tmp_path / "q", tmp_path / "r", ["RR"], ties="docid_desc_numeric", workers=2))


def test_an_empty_plan(small_parts):
    """No query to evaluate (empty qrels): the engine's parts say what one thread says, NaN means and no
    query; the front door refuses empty inputs before (one rule for files, frames and dicts)."""
    run = rw.Run.from_dict({f"q{i}": {f"d{j}": float(j) for j in range(10)} for i in range(20)})
    empty = rw.Qrels.from_dict({})
    conv = rw.get_convention("trec_eval")
    _identical(parts.evaluate_in_memory(empty, run, ["AP"], conv, workers=1),
               parts.evaluate_in_memory(empty, run, ["AP"], conv, workers=2))
    with pytest.raises(rw.DataError, match="the qrels has no rows"):
        rw.evaluate(empty, run, ["AP"])
