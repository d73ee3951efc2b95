"""The field's own objects straight in (issue #26): each gives the Results of the equivalent TREC files.

ranx Qrels/Run, ir_measures' and pytrec_eval's dicts and record iterators, PyTerrier's frames (built exactly as
PyTerrier's docs/datamodel.md and pyterrier/io.py ``read_qrels`` lay them out: pyterrier itself needs Java and is
not installed by .ci/run) and torchmetrics' flat tensors. The real packages are used where they are installed by
.ci/run (ranx, ir_measures, pytrec_eval, torch, torchmetrics).
"""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import rankwise as rw
from rankwise.errors import DataError, InvalidParameterError

METRICS = ["nDCG@5", "nDCG", "AP", "P@3", "RR", "R@10", "bpref"]


def _case(seed: int = 0) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """Graded qrels and a run with distinct scores (so every tool orders them alike), a doc judged but never
    ranked, a ranked doc never judged, a query whose docs are all non-relevant."""
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(6):
        docs = [f"d{j}" for j in rng.choice(40, size=12, replace=False)]
        qrels[f"q{q}"] = {d: int(rng.integers(0, 4)) if q != 5 else 0 for d in docs[:8]}
        scores = rng.permutation(10) + rng.random(10) / 10
        run[f"q{q}"] = {d: float(s) for d, s in zip(docs[2:12], scores)}
    return qrels, run


def _files(tmp_path: Path, qrels: dict, run: dict) -> tuple[Path, Path]:
    qp, rp = tmp_path / "x.qrels", tmp_path / "x.run"
    qp.write_text("".join(f"{q} 0 {d} {g}\n" for q, dd in qrels.items() for d, g in dd.items()))
    rp.write_text("".join(f"{q} Q0 {d} {i} {s!r} sys\n" for q, dd in run.items()
                          for i, (d, s) in enumerate(sorted(dd.items(), key=lambda x: -x[1]))))
    return qp, rp


def _same(got: rw.Results, want: rw.Results) -> None:
    """The same means and per-query values (query ids compared as text: a file's are strings)."""
    assert got.metrics == want.metrics
    for m in want.metrics:
        assert got.means[m] == want.means[m], m
        assert {str(q): v for q, v in got.per_query(m).items()} == {str(q): v for q, v in want.per_query(m).items()}, m


@pytest.fixture
def files_result(tmp_path):
    qrels, run = _case()
    qp, rp = _files(tmp_path, qrels, run)
    return qrels, run, qp, rp, rw.evaluate(qp, rp, METRICS)


@pytest.mark.peer
@pytest.mark.slow  # ranx compiles its numba code on first use: about 30 s
def test_ranx_qrels_and_run_as_the_files(files_result):
    ranx = pytest.importorskip("ranx")
    qrels, run, qp, rp, want = files_result
    _same(rw.evaluate(ranx.Qrels(qrels), ranx.Run(run, name="bm25"), METRICS), want)
    # read from the files by ranx itself, too
    _same(rw.evaluate(ranx.Qrels.from_file(str(qp), kind="trec"), ranx.Run.from_file(str(rp), kind="trec"),
                      METRICS), want)


@pytest.mark.peer
@pytest.mark.slow  # (ranx's numba compilation)
def test_a_ranx_run_given_as_the_qrels_says_so():
    ranx = pytest.importorskip("ranx")
    qrels, run = _case()
    with pytest.raises(InvalidParameterError, match="ranx Run was given as the qrels"):
        rw.as_qrels(ranx.Run(run))
    with pytest.raises(InvalidParameterError, match="ranx Qrels was given as the run"):
        rw.as_run(ranx.Qrels(qrels))


@pytest.mark.peer
@pytest.mark.slow  # (ranx's numba compilation)
def test_ranx_frames_name_the_query_q_id(files_result):
    """ranx's Run.to_dataframe() and Qrels.to_dataframe() name their columns q_id, doc_id, score."""
    ranx = pytest.importorskip("ranx")
    qrels, run, qp, rp, want = files_result
    _same(rw.evaluate(qp, ranx.Run(run).to_dataframe(), METRICS), want)
    # ranx's qrels frame names the grade "score" too: read as the grades, not every row grade 1
    _same(rw.evaluate(ranx.Qrels(qrels).to_dataframe(), rp, METRICS), want)


@pytest.mark.peer
def test_ir_measures_iterators_are_read_once_whole(files_result):
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run, qp, rp, want = files_result
    _same(rw.evaluate(ir_measures.read_trec_qrels(str(qp)), ir_measures.read_trec_run(str(rp)), METRICS), want)
    # lists of the same records, and the dicts ir_measures and pytrec_eval take
    _same(rw.evaluate(list(ir_measures.read_trec_qrels(str(qp))), list(ir_measures.read_trec_run(str(rp))),
                      METRICS), want)
    _same(rw.evaluate(qrels, run, METRICS), want)


@pytest.mark.peer
def test_ir_datasets_records_as_the_files(files_result):
    """ir_datasets' qrels_iter() and scoreddocs_iter() yield TrecQrel and GenericScoredDoc named tuples (built
    here from the files: no dataset is downloaded)."""
    formats = pytest.importorskip("ir_datasets.formats")
    qrels, run, qp, rp, want = files_result
    judged = (formats.TrecQrel(q, d, g, "0") for q, dd in qrels.items() for d, g in dd.items())
    scored = (formats.GenericScoredDoc(q, d, s) for q, dd in run.items() for d, s in dd.items())
    _same(rw.evaluate(judged, scored, METRICS), want)


@pytest.mark.peer
def test_an_exhausted_iterator_says_it_was_read_already(files_result):
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run, qp, rp, want = files_result
    it = ir_measures.read_trec_run(str(rp))
    rw.evaluate(qp, it, ["AP"])
    with pytest.raises(DataError, match=r"can be read only once: this one was most likely read already"):
        rw.evaluate(qp, it, ["AP"])
    with pytest.raises(DataError, match=r"qrels iterator \(list_iterator\) yielded no rows"):
        rw.evaluate(iter([]), run, ["AP"])


@pytest.mark.peer
def test_ir_measures_agrees_on_its_own_records(files_result):
    """The same iterators through ir_measures itself (pytrec_eval backend) and through rankwise's ir_measures
    preset."""
    ir_measures = pytest.importorskip("ir_measures")
    from ir_measures import AP, RR, nDCG
    qrels, run, qp, rp, _ = files_result
    theirs = ir_measures.calc_aggregate([nDCG @ 5, AP, RR], ir_measures.read_trec_qrels(str(qp)),
                                        ir_measures.read_trec_run(str(rp)))
    ours = rw.evaluate(ir_measures.read_trec_qrels(str(qp)), ir_measures.read_trec_run(str(rp)),
                       ["nDCG@5", "AP", "RR"], "ir_measures").means
    for name, m in (("nDCG@5", nDCG @ 5), ("AP", AP), ("RR", RR)):
        assert ours[name] == pytest.approx(theirs[m], abs=1e-12), name


def test_records_of_other_kinds():
    """Dict records are read as named tuples are; records without names, or of changing fields, are errors."""
    from collections import namedtuple
    Row = namedtuple("Row", "query_id doc_id score")
    a = rw.as_run([Row("q1", "a", 2.0), Row("q1", "b", 1.0)])
    b = rw.as_run([{"query_id": "q1", "doc_id": "a", "score": 2.0}, {"query_id": "q1", "doc_id": "b", "score": 1.0}])
    assert a.to_dict() == b.to_dict() == {"q1": {"a": 2.0, "b": 1.0}}
    with pytest.raises(InvalidParameterError, match="records with named fields"):
        rw.as_run(iter([("q1", "a", 2.0)]))
    with pytest.raises(DataError, match="does not have the keys of record 0"):
        rw.as_run([{"query_id": "q1", "doc_id": "a", "score": 2.0}, {"qid": "q1", "doc_id": "b", "score": 1.0}])
    with pytest.raises(DataError, match="record 1 .* does not have the keys of record 0"):  # (an extra key too)
        rw.as_run([{"query_id": "q1", "doc_id": "a", "score": 2.0},
                   {"query_id": "q1", "doc_id": "b", "score": 1.0, "rank": 2}])


def test_pyterrier_frames_as_the_files(files_result):
    """PyTerrier's result frame holds the query text in ``query`` and Terrier's integer ``docid`` beside ``qid``
    and ``docno``: both were a second candidate for a role, and the frame an error (today's main: 'several
    columns could hold the query id'). Its ranks start at 0 (docs/datamodel.md); its qrels are qid, docno, label
    (pyterrier/io.py read_qrels)."""
    pd = pytest.importorskip("pandas")
    qrels, run, qp, rp, want = files_result
    rows = [(q, f"query text {q}", d, 1000 + i, s) for q, dd in run.items() for i, (d, s) in enumerate(dd.items())]
    res = pd.DataFrame(rows, columns=["qid", "query", "docno", "docid", "score"])
    res["rank"] = res.groupby("qid")["score"].rank(ascending=False, method="first").astype(int) - 1
    qr = pd.DataFrame([(q, d, g) for q, dd in qrels.items() for d, g in dd.items()], columns=["qid", "docno", "label"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (no notice: the rank column agrees with the scores)
        got = rw.evaluate(qr, res, METRICS)
    _same(got, want)
    assert rw.as_run(res).extra["columns"] == {"query": "qid", "doc": "docno", "score": "score", "rank": "rank"}
    # a PyTerrier frame with a label column merged in (pt.text / add_label) is still a run by its score
    _same(rw.evaluate(qr, res.merge(qr, on=["qid", "docno"], how="left").fillna({"label": 0}), METRICS), want)
    # naming a column still wins over the layout
    renamed = res.rename(columns={"qid": "qid_", "query": "qid"})  # (a frame whose "qid" is text: named away)
    _same(rw.evaluate(qr, renamed, METRICS, columns={"run": {"query": "qid_"}}), want)


@pytest.mark.peer
@pytest.mark.slow  # imports torch and torchmetrics: several seconds
def test_torchmetrics_tensors_as_the_files_and_as_torchmetrics(tmp_path):
    torch = pytest.importorskip("torch")
    tm = pytest.importorskip("torchmetrics.retrieval")
    g = torch.Generator().manual_seed(7)
    n = 200
    indexes = torch.randint(0, 12, (n,), generator=g)
    preds = torch.randperm(n, generator=g).float() / n  # distinct scores: no tie for torch.topk to order
    target = torch.randint(0, 4, (n,), generator=g)
    got = rw.evaluate_tensors(preds, target, indexes, ["nDCG@5", "AP", "P@3", "RR"], "torchmetrics")
    # the same rows as TREC files: row i is doc i of query indexes[i]
    qp, rp = tmp_path / "t.qrels", tmp_path / "t.run"
    qp.write_text("".join(f"{int(q)} 0 {i} {int(t)}\n" for i, (q, t) in enumerate(zip(indexes, target))))
    rp.write_text("".join(f"{int(q)} Q0 {i} 0 {float(p)!r} x\n" for i, (q, p) in enumerate(zip(indexes, preds))))
    _same(got, rw.evaluate(qp, rp, ["nDCG@5", "AP", "P@3", "RR"], "torchmetrics"))
    assert all(isinstance(q, int) for q in got.per_query("AP"))
    rel = target > 0
    theirs = {"nDCG@5": tm.RetrievalNormalizedDCG(top_k=5)(preds, target, indexes=indexes),
              "AP": tm.RetrievalMAP()(preds, rel, indexes=indexes),
              "P@3": tm.RetrievalPrecision(top_k=3)(preds, rel, indexes=indexes),
              "RR": tm.RetrievalMRR()(preds, rel, indexes=indexes)}
    for m, v in theirs.items():
        assert got.means[m] == pytest.approx(float(v), abs=2e-6), m  # (torchmetrics computes in float32)
    # numpy arrays are read as the tensors are
    _same(rw.evaluate_tensors(preds.numpy(), target.numpy(), indexes.numpy(), ["AP"], "torchmetrics"),
          rw.evaluate_tensors(preds, target, indexes, ["AP"], "torchmetrics"))


def test_flat_tensors_refuse_what_they_cannot_mean():
    with pytest.raises(InvalidParameterError, match="one length"):
        rw.evaluate_tensors([0.1, 0.2], [1, 0, 1], [0, 0], ["AP"])
    with pytest.raises(InvalidParameterError, match="indexes must hold integers"):
        rw.evaluate_tensors([0.1, 0.2], [1, 0], [0.0, 0.5], ["AP"])
    with pytest.raises(InvalidParameterError, match="one flat tensor"):
        rw.evaluate_tensors(np.zeros((2, 2)), np.zeros((2, 2)), np.zeros((2, 2), dtype=int), ["AP"])
