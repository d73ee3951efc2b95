"""trec_eval semantics, the last gaps (issue #26), against the real trec_eval 10.0's outputs.

* A gain map that does not list every grade: trec_eval's ``ndcg.2=5`` leaves the other grades at their default
  gain, the grade itself ("level 3 remains at the default", its ndcg help; gain_init.c setup_gains), and so do
  ir_measures' ``nDCG(gains=...)`` and pytrec_eval. The trec_eval-family presets follow it (``unlisted_gains=
  grade``: the resolved map says ``other:grade``); every other preset keeps the error.
* A fractional grade (``1.5``) in a TREC qrels file is truncated under the trec_eval presets (trec_eval's atol),
  said in Python as a RankwiseWarning and on the CLI's stderr in every format, naming the file, the first line
  and its grade, and how many lines.

Goldens: tests/golden/trec_eval/10.0/{gains.partial,gains.partial2,fractional,fractional.partial}.txt, made by
the commands of tests/golden/trec_eval/README.md from tests/golden/{gains,fractional}.qrels and gains.run.
"""
from __future__ import annotations

import contextlib
import io
import json
import warnings
from pathlib import Path

import pytest

import rankwise as rw
from rankwise.cli.main import main
from rankwise.errors import DataError, InvalidParameterError, RankwiseWarning

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
GAINS, FRACTIONAL, RUN = GOLDEN / "gains.qrels", GOLDEN / "fractional.qrels", GOLDEN / "gains.run"
TE10 = GOLDEN / "trec_eval" / "10.0"

# trec_eval's measure (as it prints it) -> rankwise's metric string
PARTIAL = {"ndcg_2=5": "nDCG(gain={2:5})", "ndcg_rel_2=5": "nDCGRel(gain={2:5})"}
PARTIAL2 = {"ndcg_1=4,3=0": "nDCG(gain={1:4;3:0})"}
FRACTIONAL_MEASURES = {"ndcg": "nDCG", "ndcg_cut_5": "nDCG@5", "ndcg_cut_10": "nDCG@10", "map": "AP",
                       "P_5": "P@5", "recip_rank": "RR", "Rprec": "Rprec", "bpref": "bpref"}
TREC_PRESETS = ("trec_eval", "trec_eval_10", "trec_eval_9.0.8", "ir_measures")


def golden(name: str) -> dict[tuple[str, str], float]:
    out = {}
    for line in (TE10 / name).read_text().splitlines():
        measure, qid, value = line.split()
        out[(measure, qid)] = float(value)
    return out


def check(res: rw.Results, gold: dict[tuple[str, str], float], names: dict[str, str]) -> None:
    """Every (measure, query) value and the 'all' mean at trec_eval's 4 decimals."""
    seen = 0
    for (measure, qid), want in gold.items():
        metric = names[measure]
        got = res.means[metric] if qid == "all" else res.per_query(metric)[qid]
        assert got == pytest.approx(want, abs=5e-5), (measure, qid)
        seen += 1
    assert seen == len(gold) > 4


@pytest.mark.parametrize("preset", TREC_PRESETS)
def test_partial_gain_maps_give_trec_eval_values(preset):
    check(rw.evaluate(GAINS, RUN, list(PARTIAL.values()), preset), golden("gains.partial.txt"), PARTIAL)
    check(rw.evaluate(GAINS, RUN, list(PARTIAL2.values()), preset), golden("gains.partial2.txt"), PARTIAL2)


# trec_eval's own spelling of the same measures: its -m argument, and the name it prints per query
TREC_SPELLING = {"ndcg_2=5": "ndcg.2=5", "ndcg_rel_2=5": "ndcg_rel_2=5"}
TREC_SPELLING2 = {"ndcg_1=4,3=0": "ndcg.1=4,3=0"}


@pytest.mark.parametrize("preset", TREC_PRESETS)
def test_trec_evals_gain_parameters_give_trec_evals_values(preset):
    """``-m ndcg.2=5`` as trec_eval takes it: the same gain map, so trec_eval 10.0's numbers."""
    check(rw.evaluate(GAINS, RUN, list(TREC_SPELLING.values()), preset), golden("gains.partial.txt"), TREC_SPELLING)
    check(rw.evaluate(GAINS, RUN, list(TREC_SPELLING2.values()), preset), golden("gains.partial2.txt"),
          TREC_SPELLING2)


def test_trec_evals_gain_parameters_resolve_to_the_gain_map_they_mean():
    """Unlisted levels keep their grade (other:grade) under every convention, as trec_eval's setup_gains does."""
    for preset in ("trec_eval_10", "sklearn"):  # sklearn's preset alone refuses a map without every grade
        res = rw.evaluate(GAINS, RUN, ["ndcg.1=4,3=0", "nDCG(gain={1:4;3:0;other:grade})"], preset)
        assert res.resolved["ndcg.1=4,3=0"] == res.resolved["nDCG(gain={1:4;3:0;other:grade})"]
        assert res.means["ndcg.1=4,3=0"] == res.means["nDCG(gain={1:4;3:0;other:grade})"]
    res = rw.evaluate(GAINS, RUN, ["Rndcg.2=5", "RnDCG(gain={2:5;other:grade})"], "trec_eval_10")
    assert res.resolved["Rndcg.2=5"] == res.resolved["RnDCG(gain={2:5;other:grade})"]
    with pytest.raises(DataError, match="has no gain for grade 0, 2"):
        rw.evaluate(GAINS, RUN, ["nDCG(gain={1:4;3:0})"], "sklearn")
    assert rw.parse_metric("NDCG.2=5").text == "NDCG.2=5"
    # the metric grammar's own parameters are not trec_eval's pairs, though ndcg_rel starts with ndcg_
    assert rw.parse_metric("ndcg_rel(gain=linear)").definition.name == "nDCGRel"
    assert rw.parse_metric("ndcg_burges(log_base=2)@5").k == 5


@pytest.mark.parametrize("text, message", [
    ("ndcg.1.5=3", r"whole level; got level '1.5' in '1.5=3'"),
    ("ndcg.2=x", "the gain of level 2 must be a finite number; got 'x'"),
    ("ndcg_rel.2=5,2=3", "level 2 is given twice"),
])
def test_malformed_trec_eval_gain_parameters_are_clear_errors(text, message):
    with pytest.raises(InvalidParameterError, match=message):
        rw.parse_metric(text)


def _trec_lines(capsys, qrels: Path, measures: list[str]) -> set[tuple[str, str, str]]:
    """(measure, query, value) of ``rankwise evaluate -c trec_eval_10 --format trec -q`` with trec_eval's -m
    arguments; num_q and runid, which rankwise's trec layout always prints, left out."""
    assert main(["evaluate", str(qrels), str(RUN), *[x for m in measures for x in ("-m", m)], "-c", "trec_eval_10",
                 "--format", "trec", "--per-query"]) == 0
    lines = {tuple(line.split()) for line in capsys.readouterr().out.splitlines() if line.strip()}
    return {t for t in lines if t[0] not in ("num_q", "runid")}


@pytest.mark.parametrize("measures, gold, qrels", [
    (["ndcg.2=5", "ndcg_rel.2=5"], "gains.partial.txt", GAINS),
    (["ndcg.1=4,3=0"], "gains.partial2.txt", GAINS),
    (["ndcg", "ndcg_cut.5,10", "map", "P.5", "recip_rank", "Rprec", "bpref"], "fractional.txt", FRACTIONAL),
])
def test_cli_takes_trec_evals_m_arguments_and_prints_its_lines(capsys, measures, gold, qrels):
    """The -m arguments of the commands in tests/golden/trec_eval/README.md, as trec_eval 10.0 takes them: every
    line of its output, name, query and 4 decimals, printed alike (``ndcg.2=5`` prints as ``ndcg_2=5``,
    ``ndcg_cut.5,10`` as ``ndcg_cut_5`` and ``ndcg_cut_10``, ``P.5`` as ``P_5``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RankwiseWarning)  # the fractional grades, said on stderr
        ours = _trec_lines(capsys, qrels, measures)
    theirs = {tuple(line.split()) for line in (TE10 / gold).read_text().splitlines() if line.strip()}
    assert ours == theirs


def test_trec_evals_cutoff_lists_expand_in_its_order_and_refuse_what_it_refuses():
    from rankwise.conventions.measure_sets import expand
    assert expand(["P.10,5", "ndcg_cut.5", "map", "ndcg.2=5", "nDCG@10"]) == [
        "P_5", "P_10", "ndcg_cut_5", "map", "ndcg_2=5", "nDCG@10"]
    with pytest.raises(InvalidParameterError, match="cutoff 5 is given twice"):
        expand(["P.5,10,5"])
    with pytest.raises(InvalidParameterError, match="positive whole numbers separated by commas; got '0'"):
        expand(["recall.0,10"])


@pytest.mark.peer
def test_partial_gain_maps_give_ir_measures_values():
    """ir_measures' nDCG(gains=...) (pytrec_eval backend) on the same files: unlisted grades keep their grade."""
    ir_measures = pytest.importorskip("ir_measures")
    from ir_measures import nDCG
    measures = {"nDCG(gain={2:5})": nDCG(gains={2: 5}), "nDCG(gain={1:4;3:0})@5": nDCG(gains={1: 4, 3: 0}) @ 5}
    theirs = ir_measures.iter_calc(list(measures.values()), ir_measures.read_trec_qrels(str(GAINS)),
                                   ir_measures.read_trec_run(str(RUN)))
    ours = rw.evaluate(GAINS, RUN, list(measures), "ir_measures")
    by_measure = {str(m): name for name, m in measures.items()}
    n = 0
    for row in theirs:
        assert ours.per_query(by_measure[str(row.measure)])[row.query_id] == pytest.approx(row.value, abs=1e-12)
        n += 1
    assert n == 2 * ours.n_queries


def test_the_resolved_map_says_unlisted_grades_keep_their_gain():
    res = rw.evaluate(GAINS, RUN, ["nDCG(gain={2:5})@10"])
    resolved = res.resolved["nDCG(gain={2:5})@10"]
    assert str(resolved).startswith("nDCG(gain={2:5;other:grade},")
    assert rw.get_convention("trec_eval").resolve(rw.parse_metric(str(resolved))) == resolved  # round trip
    # a map listing every grade is the same value as the partial one with the defaults written out
    full = rw.evaluate(GAINS, RUN, ["nDCG(gain={0:0;1:1;2:5;3:3})@10"]).means["nDCG(gain={0:0;1:1;2:5;3:3})@10"]
    assert res.means["nDCG(gain={2:5})@10"] == full


def test_elsewhere_an_unlisted_grade_stays_an_error():
    for preset in ("ranx", "sklearn", "torchmetrics"):
        with pytest.raises(DataError, match=r"has no gain for grade .*other:grade"):
            rw.evaluate(GAINS, RUN, ["nDCG(gain={2:5})"], preset)
    with pytest.raises(DataError, match="has no gain for grade"):
        rw.evaluate(GAINS, RUN, ["nDCG(gain={2:5})"], "trec_eval", unlisted_gains="error")
    # ... and other:grade written in the map asks for trec_eval's rule under any preset
    got = rw.evaluate(GAINS, RUN, ["nDCG(gain={2:5;other:grade})"], "ranx", rel=0).means
    assert got["nDCG(gain={2:5;other:grade})"] == pytest.approx(golden("gains.partial.txt")[("ndcg_2=5", "all")],
                                                               abs=5e-5)
    with pytest.raises(InvalidParameterError, match="other:grade gives every unlisted grade"):
        rw.parse_metric("nDCG(gain={2:5;other:zero})")


def test_fractional_grades_are_truncated_as_trec_eval_and_said():
    with pytest.warns(RankwiseWarning) as caught:
        res = rw.evaluate(FRACTIONAL, RUN, list(FRACTIONAL_MEASURES.values()), "trec_eval_10")
        partial = rw.evaluate(FRACTIONAL, RUN, ["nDCG(gain={2:5})"], "trec_eval_10")
    check(res, golden("fractional.txt"), FRACTIONAL_MEASURES)
    check(partial, golden("fractional.partial.txt"), {"ndcg_2=5": "nDCG(gain={2:5})"})
    said = [str(w.message) for w in caught if "fractional grade" in str(w.message)]
    assert len(said) == 2, said  # (one per evaluation)
    assert str(FRACTIONAL) in said[0] and "4 lines" in said[0]
    assert "line 18: query g2, doc d3, grade 1.5 read as 1" in said[0]
    # the golden tells truncation from the grades as given
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kept = rw.evaluate(FRACTIONAL, RUN, ["nDCG"], "trec_eval_10", fractional_grades="kept").means["nDCG"]
    assert abs(kept - golden("fractional.txt")[("ndcg", "all")]) > 1e-3


def test_fractional_grades_of_a_dict_name_the_judgment():
    with pytest.warns(RankwiseWarning, match=r"the qrels: 1 judgments with a fractional grade.*query q1, doc a, "
                                             r"grade 1\.5 read as 1"):
        rw.evaluate({"q1": {"a": 1.5, "b": 0}}, {"q1": {"a": 1.0, "b": 0.5}}, ["AP"])


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("fmt", ["table", "json", "csv", "trec"])
def test_the_cli_says_truncated_grades_on_stderr_in_every_format(fmt):
    """Before: a count-only line ('fractional grades truncated: 4') in table mode, nothing under --format json."""
    code, out, err = run_cli("evaluate", str(FRACTIONAL), str(RUN), "-m", "nDCG", "--format", fmt)
    assert code == 0, err
    lines = [line for line in err.splitlines() if "fractional grade" in line]
    assert len(lines) == 1, err
    assert lines[0].startswith("rankwise: warning: the qrels ") and str(FRACTIONAL) in lines[0]
    assert "4 lines" in lines[0] and "line 18" in lines[0] and "grade 1.5 read as 1" in lines[0]
    if fmt == "json":
        info = json.loads(out)["info"]
        assert info["fractional_grades_truncated"] == 4
        assert info["fractional_grades_first"] == {"source": str(FRACTIONAL), "line": 18, "query": "g2",
                                                   "doc": "d3", "value": 1.5}


def test_the_first_fractional_grade_without_a_line_is_the_first_in_results_order():
    # no reader recorded a line (a dict, a frame, a Spark partition): "first" is the first (query, doc) in the
    # order results list them, so every engine names the same grade whatever order the rows were stored in
    qrels = {"q2": {"a": 1.5}, "q1": {"z": 0.5, "b": 2.5}, "q10": {"c": 3.5}}
    run = {q: {d: 1.0 for d in docs} for q, docs in qrels.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rw.evaluate(qrels, run, "P@1")
    assert res.info["fractional_grades_first"] == {"source": None, "line": None, "query": "q1", "doc": "b",
                                                   "value": 2.5}
    ints = {20: {5: 1.5}, 3: {9: 0.5, 12: 2.5}}  # integer ids: 3 before 20 (as numbers), doc "12" before "9"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rw.evaluate(ints, {q: {d: 1.0 for d in docs} for q, docs in ints.items()}, "P@1")
    assert (res.info["fractional_grades_first"]["query"], res.info["fractional_grades_first"]["doc"]) == ("3", "12")
