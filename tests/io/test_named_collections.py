"""Qrels by name (issue #26): an ir_datasets id where a qrels file goes.

No test reaches the network. The quick tests substitute the loader (``named_collections.load_dataset``) with a
dataset that serves a TREC file of tmp_path as ir_datasets serves judgments (its qrels_iter tuples); the slow ones
run the real ir_datasets in a subprocess whose IR_DATASETS_HOME is a tmp dir holding the collection's qrels file
where ir_datasets keeps it once downloaded, so that it finds it and downloads nothing.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections import namedtuple
from pathlib import Path

import numpy as np
import pytest

import rankwise
from rankwise.errors import InvalidParameterError, ParseError, RankwiseWarning
from rankwise.io import named_collections
from rankwise.io.official_measures import CONVENTION, MEASURE_NAMES, translate
from rankwise.testing import assert_results_identical

pytest.importorskip("ir_datasets")  # (the `datasets` extra; .ci/run installs it with the `test` extra)

TrecQrel = namedtuple("TrecQrel", "query_id doc_id relevance iteration")
NAME = "msmarco-passage/trec-dl-2019/judged"
DL_GRADES = {0: "Irrelevant: nothing to do with the query.", 1: "Related: The passage seems related to the query.",
             2: "Highly relevant: some answer.", 3: "Perfectly relevant: The passage is dedicated to the query."}
# graded judgments; query 87181 is judged but not in the run, 99999 is in the run but not judged (coverage)
QRELS = "19335 0 a 3\n19335 0 b 1\n19335 0 c 0\n47923 0 d 2\n47923 0 e 1\n47923 0 f 3\n87181 0 g 1\n"
RUN = ("19335 Q0 b 1 3.0 t\n19335 Q0 a 2 2.5 t\n19335 Q0 z 3 1.0 t\n47923 Q0 e 1 2.0 t\n47923 Q0 d 2 1.5 t\n"
       "47923 Q0 y 3 1.0 t\n99999 Q0 a 1 1.0 t\n")


class FakeDataset:
    """What rankwise reads of an ir_datasets dataset, serving a TREC qrels file; counts its reads."""

    def __init__(self, path: Path, defs: dict[int, str], official: list[str] | None):
        self.path, self.defs, self.official, self.reads = path, defs, official, 0

    def has_qrels(self) -> bool:
        return True

    def qrels_iter(self):
        self.reads += 1
        for line in self.path.read_text().splitlines():
            q, it, d, r = line.split()
            yield TrecQrel(q, d, int(r), it)

    def qrels_handler(self):
        return None  # (nothing ir_datasets knows: no download to announce)

    def qrels_defs(self) -> dict[int, str]:
        return self.defs

    def documentation(self) -> dict:
        return {} if self.official is None else {"official_measures": self.official}


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    return tmp_path / "qrels.txt", tmp_path / "run.txt"


@pytest.fixture
def collection(files, tmp_path, monkeypatch):
    """NAME served from the qrels file, with TREC DL's grades and official measures; the cache in tmp_path."""
    monkeypatch.setenv("RANKWISE_CACHE", str(tmp_path / "cache"))
    data = FakeDataset(files[0], DL_GRADES, ["nDCG@10", "RR(rel=2)", "AP(rel=2)"])

    def load(name: str):
        if name != NAME:
            raise AssertionError(f"unexpected id {name}")
        return data
    monkeypatch.setattr(named_collections, "load_dataset", load)
    return data


def test_a_named_collection_gives_the_results_of_its_qrels_file(files, collection):
    qrels, run = files
    with pytest.warns(RankwiseWarning):  # (the queries set aside: said as for files)
        by_name = rankwise.evaluate(NAME, str(run), ["nDCG@10", "AP(rel=2)", "P(rel=2)@2"])
    with pytest.warns(RankwiseWarning):
        by_file = rankwise.evaluate(str(qrels), str(run), ["nDCG@10", "AP(rel=2)", "P(rel=2)@2"])
    # the same evaluation, the same query coverage (judged 87181 missing from the run, 99999 not judged); only
    # where the judgments' columns came from differs: ir_datasets' fields, not the file's
    assert_results_identical(by_name, by_file, ignore_info=["columns"])
    assert by_name.set_aside == {"missing_in_run": ("87181",), "missing_in_qrels": ("99999",)}
    assert by_name.info["columns"]["qrels"] == {"query": "query_id", "doc": "doc_id", "relevance": "relevance"}
    assert by_name.info["columns"]["run"] == by_file.info["columns"]["run"]


def test_every_reader_of_qrels_takes_the_name(files, collection):
    expected = rankwise.read_qrels(str(files[0]))
    for qrels in (rankwise.read_qrels(NAME), rankwise.as_qrels(NAME)):
        assert qrels.source == f"ir_datasets:{NAME}"
        assert qrels.to_dict() == expected.to_dict()


def test_the_second_read_comes_from_the_cache(files, collection, tmp_path):
    first = rankwise.read_qrels(NAME)
    assert collection.reads == 1
    cached = list((tmp_path / "cache" / "qrels").iterdir())
    assert len(cached) == 1 and cached[0].suffix == ".parquet" and "ir_datasets-" in cached[0].name
    second = rankwise.read_qrels(NAME)
    assert collection.reads == 1  # ir_datasets' reader was not called again: the Parquet file was read
    assert second.to_dict() == first.to_dict()
    assert np.array_equal(second.values, first.values)


def test_the_cache_is_keyed_by_the_ir_datasets_version(monkeypatch, tmp_path):
    monkeypatch.setenv("RANKWISE_CACHE", str(tmp_path))
    a, b = named_collections.cache_path(NAME, "0.6.3"), named_collections.cache_path(NAME, "0.6.4")
    assert a != b and os.path.dirname(a) == str(tmp_path / "qrels") and "/" not in os.path.basename(a)
    monkeypatch.delenv("RANKWISE_CACHE")
    monkeypatch.setenv("IR_DATASETS_HOME", str(tmp_path / "home"))
    assert named_collections.cache_dir() == str(tmp_path / "home" / "rankwise" / "qrels")


def test_no_metrics_evaluates_the_official_measures_and_says_so(files, collection):
    qrels, run = files
    with pytest.warns(RankwiseWarning, match=r"official measures of msmarco-passage/trec-dl-2019/judged .*"
                                             r"nDCG@10, RR\(rel=2\), AP\(rel=2\)"):
        res = rankwise.evaluate(NAME, str(run))
    assert list(res.metrics) == ["nDCG@10", "RR(rel=2)", "AP(rel=2)"]
    assert res.convention.name == CONVENTION  # ir_measures' meaning: the judged query missing scores 0
    assert res.set_aside == {"missing_in_qrels": ("99999",)}
    same = rankwise.evaluate(str(qrels), str(run), ["nDCG@10", "RR(rel=2)", "AP(rel=2)"], "ir_measures")
    assert_results_identical(res, same, ignore_info=["columns"])
    named = rankwise.evaluate(NAME, str(run), None, "trec_eval")  # a convention named is kept
    assert named.convention.name == "trec_eval"


def test_no_metrics_without_a_collection_is_an_error(files):
    with pytest.raises(InvalidParameterError, match="no metric given"):
        rankwise.evaluate(str(files[0]), str(files[1]))


def test_a_binary_measure_without_rel_on_graded_judgments_is_warned_about(files, collection):
    with pytest.warns(RankwiseWarning) as said:
        rankwise.evaluate(NAME, str(files[1]), ["AP", "P@2", "AP(rel=2)", "nDCG@10", "P(rel=1)@2"])
    graded = [str(w.message) for w in said if "is graded" in str(w.message)]
    assert len(graded) == 2, graded  # AP and P@2; not the rel-given, nor nDCG (grades are its gains)
    assert graded[0].startswith(f"{NAME} is graded 0 (Irrelevant), 1 (Related), 2 (Highly relevant), "
                                "3 (Perfectly relevant); AP is binary")
    assert "AP(rel=2)" in graded[0] and "P(rel=2)@2" in graded[1] and "P(rel=1)@2 to keep" in graded[1]


def test_no_graded_warning_for_binary_judgments(files, collection):
    collection.defs = {0: "not relevant", 1: "relevant"}
    with pytest.warns(RankwiseWarning) as said:  # (coverage notices only)
        rankwise.evaluate(NAME, str(files[1]), ["AP", "P@2"])
    assert not [w for w in said if "is graded" in str(w.message)]


def test_neither_a_file_nor_an_id_says_both_checks():
    with pytest.raises(ParseError) as err:
        rankwise.read_qrels("msmarco-pasage/trec-dl-2019/judged")
    text = str(err.value)
    assert "no such file, and no ir_datasets collection has this id" in text
    assert "msmarco-passage/trec-dl-2019/judged" in text  # the closest id


def test_without_the_extra_the_message_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "ir_datasets", None)  # (import ir_datasets raises ImportError)
    with pytest.raises(ParseError) as err:
        rankwise.evaluate(NAME, {"q": {"d": 1.0}}, ["AP"])
    text = str(err.value)
    assert "no such file" in text and "ir_datasets is not installed" in text
    assert "pip install 'rankwise[datasets]'" in text


def test_a_path_object_is_always_a_file(tmp_path):
    with pytest.raises(ParseError, match="file not found"):
        rankwise.read_qrels(tmp_path / "msmarco-passage")


def test_a_large_download_is_announced_before_it_starts(tmp_path, monkeypatch):
    from ir_datasets.formats.trec import TrecQrels
    from ir_datasets.util.download import Download

    monkeypatch.setenv("RANKWISE_CACHE", str(tmp_path / "cache"))
    # a download of 1 GB with no mirror: announced, then it fails at once (nothing reaches the network)
    handler = TrecQrels(Download([], cache_path=str(tmp_path / "missing"), size_hint=1 << 30), {1: "relevant"})
    data = FakeDataset(tmp_path / "missing", {1: "relevant"}, None)
    data.qrels_handler = lambda: handler  # type: ignore[method-assign]
    data.qrels_iter = handler.qrels_iter  # type: ignore[method-assign]
    monkeypatch.setattr(named_collections, "load_dataset", lambda name: data)
    with pytest.warns(RankwiseWarning, match=r"downloads about 1\.0 GB .* --qrels FILE"):
        with pytest.raises(ParseError, match="ir_datasets could not give the judgments"):
            rankwise.read_qrels("some/collection")
    assert named_collections.download_size(handler) == 1 << 30
    (tmp_path / "missing").write_text("1 0 d 1\n")  # once in the home, nothing to download
    assert named_collections.download_size(handler) == 0


def test_the_cli_evaluates_the_official_measures(files, collection, capsys):
    from rankwise.cli.main import main

    assert main(["evaluate", NAME, str(files[1]), "--format", "json"]) == 0
    out = capsys.readouterr()
    assert "note: no metric given: evaluating the official measures" in out.err
    by_name = json.loads(out.out)
    assert main(["evaluate", str(files[0]), str(files[1]), "-m", "nDCG@10", "-m", "RR(rel=2)", "-m", "AP(rel=2)",
                 "-c", "ir_measures", "--format", "json"]) == 0
    by_file = json.loads(capsys.readouterr().out)
    assert by_name["metrics"] == by_file["metrics"] and by_name["convention"] == by_file["convention"]


def test_the_cli_warns_about_a_binary_measure_on_graded_judgments(files, collection, capsys):
    from rankwise.cli.main import main

    assert main(["evaluate", NAME, str(files[1]), "-m", "AP", "-m", "AP(rel=2)"]) == 0
    err = capsys.readouterr().err
    assert err.count("is graded") == 1 and "rankwise: warning: msmarco-passage/trec-dl-2019/judged is graded" in err


def test_the_cli_error_for_neither(files, capsys):
    from rankwise.cli.main import main

    assert main(["evaluate", "no/such-collection", str(files[1]), "-m", "AP"]) == 2
    assert "no such file, and no ir_datasets collection has this id" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------------------------
# the ir_measures strings of the collections' documentation


def documented_official_measures() -> set[str]:
    """Every official measure string of ir_datasets' bundled documentation (ir_datasets/docs/*.yaml)."""
    import importlib.resources

    import yaml

    found: set[str] = set()
    for f in importlib.resources.files("ir_datasets").joinpath("docs").iterdir():
        if f.name.endswith(".yaml"):
            for entry in (yaml.load(f.read_text(encoding="utf-8"), Loader=yaml.BaseLoader) or {}).values():
                if isinstance(entry, dict):
                    found.update(entry.get("official_measures") or ())
    return found


@pytest.mark.slow
def test_every_documented_official_measure_translates_and_parses():
    measures = documented_official_measures()
    assert {"nDCG@10", "RR(rel=2)", "AP(rel=2)", "RR@10", "Success@5", "P(rel=2)@10", "MAP"} <= measures
    for m in sorted(measures):
        spec = rankwise.parse_metric(translate(m))
        assert spec.definition.name == MEASURE_NAMES[m.split("(")[0].split("@")[0]], m


@pytest.mark.parametrize("measure, expected", [
    ("MAP", "AP"), ("MRR", "RR"), ("RR(rel=2)@10", "RR(rel=2,ties=docid_asc)@10"), ("AP(rel=2)", "AP(rel=2)"),
    ("R(rel=2)@1000", "R(rel=2)@1000"), ("Judged@10", "Judged(ties=docid_asc)@10"),
    ('nDCG(dcg="log2")@10', "nDCG(gain=linear)@10"),
    ("nDCG(judged_only=False)@10", "nDCG@10"), ("Precision@5", "P@5"), ("BPref", "Bpref"), ("RPrec", "Rprec"),
])
def test_translations(measure, expected):
    assert translate(measure) == expected


@pytest.mark.parametrize("measure, says", [
    ("ERR@10", "has no rankwise translation"), ("NumRel", "has no rankwise translation"),
    ("nDCG(judged_only=True)@10", "judged_only=True"), ("nDCG(rel=2)", "rel=2"), ('nDCG(dcg="exp-log2")', "dcg"),
    ("P@", "cannot read"),
])
def test_untranslatable_measures_are_errors(measure, says):
    with pytest.raises(InvalidParameterError, match=says.replace("(", r"\(")):
        translate(measure)


def graded_case(seed: int, tied: bool = False):
    """Random graded judgments and a run, tie-free or (``tied``) with scores 0..4 only, so that most documents
    tie (ir_measures' RR@k and Judged@k break ties by doc id ascending, its pytrec_eval measures descending);
    some judged queries missing from the run, one run-only query."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(30):
        judged = rng.choice(40, 25, replace=False)
        qrels[f"q{q}"] = {f"d{i}": int(rng.integers(0, 4)) for i in judged}
        if q < 27:
            n = int(rng.integers(5, 35))
            scores = rng.integers(0, 5, n) if tied else rng.permutation(n)
            run[f"q{q}"] = {f"d{i}": float(s) + 0.5 for i, s in zip(rng.choice(40, n, replace=False), scores)}
    run["extra"] = {"d1": 1.0}
    return qrels, run


@pytest.mark.peer
@pytest.mark.parametrize("measure", sorted(documented_official_measures() | {
    "AP", "P@10", "R@5", "RR", "nDCG", "Judged@5", "Bpref", "Rprec", "NumRet", "NumRelRet", "SetP", "SetR", "SetAP",
    "infAP", "MRR", "Precision@5", "Recall@10", 'nDCG(dcg="log2")@10', "R(rel=2)@1000"}))
@pytest.mark.parametrize("tied", [False, True], ids=["no_ties", "ties"])
def test_each_translation_gives_what_ir_measures_gives(measure, tied):
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = graded_case(3, tied)
    expected = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.parse_measure(measure)], qrels, run)}
    res = rankwise.evaluate(qrels, run, [translate(measure)], CONVENTION, missing_in_qrels="skip")
    ours = dict(zip(res.query_ids.tolist(), res.values[translate(measure)].tolist()))
    assert set(ours) == set(expected)
    for q, v in expected.items():
        assert ours[q] == pytest.approx(v, abs=1e-9), (measure, q)


@pytest.mark.peer
def test_the_official_measures_path_gives_what_ir_measures_gives(tmp_path, monkeypatch):
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = graded_case(5)
    path = tmp_path / "qrels.txt"
    path.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    monkeypatch.setenv("RANKWISE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(named_collections, "load_dataset",
                        lambda name: FakeDataset(path, DL_GRADES, ["nDCG@10", "RR(rel=2)", "AP(rel=2)"]))
    with pytest.warns(RankwiseWarning, match="official measures"):
        res = rankwise.evaluate(NAME, run)
    expected = ir_measures.calc_aggregate([ir_measures.parse_measure(m) for m in ("nDCG@10", "RR(rel=2)", "AP(rel=2)")],
                                          qrels, run)
    for measure, value in expected.items():
        assert res.means[translate(str(measure))] == pytest.approx(value, abs=1e-12), measure


# ---------------------------------------------------------------------------------------------------------------
# the real ir_datasets with a fake home (a subprocess: ir_datasets fixes its paths when it is imported)

FAKE_HOME_SCRIPT = textwrap.dedent("""
    import json, sys, warnings
    import rankwise
    from ir_datasets.formats.trec import TrecQrels
    from rankwise.testing import assert_results_identical
    name, qrels, run = sys.argv[1:4]
    warnings.simplefilter("ignore")
    metrics = ["nDCG@10", "RR(rel=2)", "AP(rel=2)"]
    by_name = rankwise.evaluate(name, run, metrics, "ir_measures")
    assert_results_identical(by_name, rankwise.evaluate(qrels, run, metrics, "ir_measures"), ignore_info=["columns"])
    official = rankwise.evaluate(name, run)
    def never(self):
        raise AssertionError("the judgments were parsed again")
    TrecQrels.qrels_iter = never  # the second evaluation reads the cache, not ir_datasets' TREC file
    again = rankwise.evaluate(name, run, metrics, "ir_measures")
    assert_results_identical(again, by_name)
    print(json.dumps({"metrics": list(official.metrics), "convention": official.convention.name,
                      "means": official.means}))
""")


@pytest.mark.slow
def test_the_real_ir_datasets_with_a_fake_home(tmp_path):
    home = tmp_path / "home"
    (home / "msmarco-passage" / "trec-dl-2019").mkdir(parents=True)
    (home / "msmarco-passage" / "trec-dl-2019" / "qrels").write_text(QRELS)  # where ir_datasets keeps it
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    env = {**os.environ, "IR_DATASETS_HOME": str(home), "PYTHONPATH": os.pathsep.join(sys.path)}
    env.pop("RANKWISE_CACHE", None)
    done = subprocess.run([sys.executable, "-c", FAKE_HOME_SCRIPT, NAME, str(tmp_path / "qrels.txt"),
                           str(tmp_path / "run.txt")], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["metrics"] == ["nDCG@10", "RR(rel=2)", "AP(rel=2)"] and out["convention"] == "ir_measures"
    assert len(list((home / "rankwise" / "qrels").glob("*.parquet"))) == 1  # the cache, in ir_datasets' home
    cli = subprocess.run([sys.executable, "-m", "rankwise", "evaluate", NAME, str(tmp_path / "run.txt"), "-f", "json"],
                         env=env, capture_output=True, text=True, timeout=120)
    assert cli.returncode == 0, cli.stderr
    assert json.loads(cli.stdout)["metrics"] == out["means"]
    assert "official measures of msmarco-passage/trec-dl-2019/judged" in cli.stderr


def test_compare_takes_the_name_and_its_official_measures(files, collection, tmp_path):
    other = tmp_path / "other.txt"
    other.write_text(RUN.replace(" 3.0 t", " 0.5 t"))
    with pytest.warns(RankwiseWarning, match="official measures"):
        cmp = rankwise.compare(NAME, {"a": str(files[1]), "b": str(other)})
    assert list(cmp.metrics) == ["nDCG@10", "RR(rel=2)", "AP(rel=2)"]
    by_file = rankwise.compare(str(files[0]), {"a": str(files[1]), "b": str(other)},
                               ["nDCG@10", "RR(rel=2)", "AP(rel=2)"], convention="ir_measures")
    assert cmp.to_dict()["systems"] == by_file.to_dict()["systems"]
    with pytest.warns(RankwiseWarning, match=r"is graded .* RR is binary"):
        rankwise.compare(NAME, {"a": str(files[1]), "b": str(other)}, ["RR"])


def test_the_compare_cli_warns_about_a_binary_measure_on_graded_judgments(files, collection, tmp_path, capsys):
    from rankwise.cli.main import main

    other = tmp_path / "other.txt"
    other.write_text(RUN.replace(" 3.0 t", " 0.5 t"))
    assert main(["compare", NAME, str(files[1]), str(other), "-m", "AP", "-f", "json"]) == 0
    assert "rankwise: warning: msmarco-passage/trec-dl-2019/judged is graded" in capsys.readouterr().err
