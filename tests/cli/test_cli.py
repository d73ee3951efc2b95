"""The `rankwise` command, run as a subprocess on files: every command, every output format, every
input format, every kind of bad input, and `--format trec` diffed against the real trec_eval.

trec_eval's outputs are stored under tests/golden/trec_eval/ (see the README there for the versions,
commits and exact commands). Subprocesses are started in parallel where a test needs many (the
interpreter start-up dominates), so the whole file runs in a few seconds of CPU.
"""
from __future__ import annotations

import gzip
import importlib.util
import json
import math
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden"
EXAMPLES = ROOT / "src" / "rankwise" / "examples" / "data"
_EXE = shutil.which("rankwise")
RANKWISE = [_EXE] if _EXE else [sys.executable, "-m", "rankwise.cli.main"]
ENV = {**os.environ, "PYTHONIOENCODING": "utf-8", "COLUMNS": "200"}

# every test here starts `rankwise` processes (about 25 s in all on 2 cores): the full run only; the quick run
# keeps the in-process CLI tests (test_trec_eval_dropin.py, test_cli_polish.py, test_cli_catalogue.py)
pytestmark = pytest.mark.slow


def rankwise(*args, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([*RANKWISE, *map(str, args)], capture_output=True, text=True, cwd=cwd, env=ENV,
                          timeout=120)


def rankwise_many(arg_lists, cwd=None) -> list[subprocess.CompletedProcess]:
    with ThreadPoolExecutor(max_workers=4) as pool:
        return list(pool.map(lambda a: rankwise(*a, cwd=cwd), arg_lists))


def ok(p: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert p.returncode == 0, f"exit {p.returncode}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}"
    assert "Traceback" not in p.stderr, p.stderr
    return p


def parse_trec(text: str) -> dict[tuple[str, str], float]:
    """trec_eval's `measure<TAB>qid<TAB>value` lines -> {(measure, qid): value}; each pair once."""
    out = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        fields = line.split()
        assert len(fields) == 3, f"not 'measure qid value': {line!r}"
        if fields[0] == "runid":  # the run's name, not a number: checked in test_cli_polish.py
            continue
        key = (fields[0], fields[1])
        assert key not in out, f"{key} printed twice"
        out[key] = float(fields[2])
    return out


SEED001 = (EXAMPLES / "seed001.qrels", EXAMPLES / "seed001.run")  # user3 only in qrels, user4 only in run
GRADED = (GOLDEN / "graded.qrels", GOLDEN / "graded.run")


# ---------------------------------------------------------------------------------------------------
# --format trec against trec_eval's own output
# ---------------------------------------------------------------------------------------------------

# trec_eval -m P.5,10 -m recall.10 -m map -m map_cut.10 -m recip_rank -m ndcg -m ndcg_cut.10 -m Rprec
#           -m bpref -m success.1,5   (measure names as trec_eval prints them)
TREC_MEASURES = ["P_5", "P_10", "recall_10", "map", "map_cut_10", "recip_rank", "ndcg", "ndcg_cut_10",
                 "Rprec", "bpref", "success_1", "success_5"]
# seed001's goldens are stored too; not run here to keep the file fast (graded covers the same cases)
DATASETS = {
    "seed003": (EXAMPLES / "seed003.qrels", EXAMPLES / "seed003.run"),
    "synthetic": (EXAMPLES / "synthetic.qrels", EXAMPLES / "synthetic.run"),
    "graded": (GOLDEN / "graded.qrels", GOLDEN / "graded.run"),
    "random": (GOLDEN / "random.qrels", GOLDEN / "random.run"),
}
# trec_eval flag -> (golden file suffix, rankwise options). trec_eval's -l changes only the binary measures:
# ndcg's gains are the grades themselves (gain_init.c), while rankwise's rel also zeroes the gain of lower
# grades, so under -l2 nDCG is asked for with rel=1 explicitly (an explicit metric parameter wins).
MODES = {
    "default": ("", []),
    "-c": (".c", ["--missing-in-run", "zero"]),
    "-l2": (".l2", ["--rel", "2"]),
}
# trec_eval <= 9.0.7 stores scores as C floats (the trec_eval preset's scores=float32); 9.0.8 and 10.0 as
# doubles. Only graded.run (query qG) has scores that differ in float64 but tie in float32.
VERSIONS = {"9.0.7": [], "9.0.8": ["--convention", "trec_eval_9.0.8"], "10.0": ["--convention", "trec_eval_10"]}


def _metric_args(mode: str) -> tuple[list[str], dict[str, str]]:
    if mode != "-l2":
        return TREC_MEASURES, {}
    rename = {"ndcg(rel=1)": "ndcg", "ndcg_cut_10(rel=1)": "ndcg_cut_10"}
    inv = {v: k for k, v in rename.items()}
    return [inv.get(m, m) for m in TREC_MEASURES], rename


def _trec_cases():
    for ver, _vopts in VERSIONS.items():
        for name in DATASETS:
            for mode, (sfx, _) in MODES.items():
                gold = GOLDEN / "trec_eval" / ver / f"{name}{sfx}.txt"
                if gold.exists():
                    yield ver, name, mode


def _command_key(ver, name, mode):
    scores = tuple(VERSIONS[ver])  # the preset for that trec_eval version
    return name, mode, scores


@pytest.fixture(scope="module")
def trec_runs():
    keys = sorted({_command_key(*c) for c in _trec_cases()})
    arg_lists = []
    for name, mode, scores in keys:
        qrels, run = DATASETS[name]
        metrics, _ = _metric_args(mode)
        arg_lists.append(["evaluate", qrels, run, "--format", "trec", "--per-query", *MODES[mode][1], *scores,
                          *[x for m in metrics for x in ("-m", m)]])
    return dict(zip(keys, rankwise_many(arg_lists)))


def _qids(path: Path, col: int = 0) -> set[str]:
    return {line.split()[col] for line in path.read_text().splitlines() if line.strip()}


@pytest.mark.parametrize("ver,name,mode", list(_trec_cases()),
                         ids=[f"trec_eval{v}-{n}-{m}" for v, n, m in _trec_cases()])
def test_trec_format_matches_trec_eval(trec_runs, ver, name, mode):
    p = ok(trec_runs[_command_key(ver, name, mode)])
    _, rename = _metric_args(mode)
    ours_raw = parse_trec(p.stdout)
    ours = {(rename.get(m, m), q): v for (m, q), v in ours_raw.items() if m != "num_q"}
    gold = parse_trec((GOLDEN / "trec_eval" / ver / f"{name}{MODES[mode][0]}.txt").read_text())

    qrels, run = DATASETS[name]
    absent_from_run = _qids(qrels) - _qids(run)
    # num_q (trec_eval prints it only with -m num_q): the queries printed, and under 9.x's -c the judged
    # queries without a ranking too (counted, not printed)
    per_query_ids = {q for (_, q) in ours if q != "all"}
    unprinted = len(absent_from_run) if mode == "-c" and ver != "10.0" else 0
    assert ours_raw[("num_q", "all")] == len(per_query_ids) + unprinted
    extra = set(ours) - set(gold)
    # trec_eval 9.x counts the qrels queries absent from the run as 0 in `all` under -c but prints no line
    # for them; 10.0 prints those zeros; so does rankwise, each under its version's preset
    assert not extra, f"rankwise prints lines trec_eval does not: {sorted(extra)[:10]} (absent: {absent_from_run})"
    missing = set(gold) - set(ours)
    assert not missing, f"trec_eval prints lines rankwise does not: {sorted(missing)[:10]}"
    wrong = [(k, ours[k], gold[k]) for k in sorted(gold) if abs(ours[k] - gold[k]) > 1e-4 + 1e-9]
    assert not wrong, f"{len(wrong)} of {len(gold)} values differ (measure, qid, rankwise, trec_eval): {wrong[:10]}"
    # every requested measure has an `all` line
    assert {m for m, q in gold if q == "all"} == set(TREC_MEASURES)


def test_trec_layout_is_byte_identical_to_trec_eval(trec_runs):
    """Same lines as trec_eval (`%-22s\\t%s\\t%6.4f`), per query first and `all` last, apart from num_q and
    runid (the golden was made without -m num_q -m runid; 10.0/seed003.runid.txt has them)."""
    p = ok(trec_runs[("seed003", "default", ())])
    ours = [line for line in p.stdout.splitlines() if not line.startswith(("num_q", "runid"))]
    gold = (GOLDEN / "trec_eval" / "10.0" / "seed003.txt").read_text().splitlines()
    assert sorted(ours) == sorted(gold)
    first_all = next(i for i, line in enumerate(ours) if line.split("\t")[1] == "all")
    assert all(line.split("\t")[1] == "all" for line in ours[first_all:])


def test_float32_preset_differs_from_double_trec_eval_only_on_float32_ties():
    """Guards the golden files: 9.0.7 (float) and 9.0.8 (double) disagree on graded.run's qG and nowhere else."""
    a = parse_trec((GOLDEN / "trec_eval" / "9.0.7" / "graded.txt").read_text())
    b = parse_trec((GOLDEN / "trec_eval" / "9.0.8" / "graded.txt").read_text())
    assert {q for k, q in a if a[(k, q)] != b[(k, q)]} == {"qG", "all"}


# ---------------------------------------------------------------------------------------------------
# evaluate: output formats
# ---------------------------------------------------------------------------------------------------

def _is_num_or_null(v) -> bool:
    return v is None or (isinstance(v, float) and math.isfinite(v)) or (type(v) is int)


def check_json_schema(obj, metrics, *, per_query: bool, convention: str):
    """The issue's schema, strictly: required keys and types; extra keys allowed."""
    assert isinstance(obj, dict)
    for key in ("convention", "n_queries", "metrics"):
        assert key in obj, f"missing required key {key!r}"
    assert isinstance(obj["convention"], str) and obj["convention"] == convention  # the preset's name
    assert type(obj["n_queries"]) is int and obj["n_queries"] >= 0
    assert isinstance(obj["metrics"], dict)
    assert list(obj["metrics"]) == list(metrics), "metric keys must be the metrics as written, in order"
    for m, v in obj["metrics"].items():
        assert _is_num_or_null(v), f"metrics[{m!r}] = {v!r}"
    if not per_query:
        assert "per_query" not in obj
        return
    assert isinstance(obj["per_query"], dict)
    assert len(obj["per_query"]) == obj["n_queries"]
    for q, row in obj["per_query"].items():
        assert isinstance(q, str)
        assert isinstance(row, dict) and list(row) == list(metrics), (q, row)
        for m, v in row.items():
            assert _is_num_or_null(v), f"per_query[{q!r}][{m!r}] = {v!r}"


def test_json_schema_and_exactly_one_object():
    metrics = ["P@5", "nDCG(gain=exp)@10", "map", "P_5", "recip_rank", "AP"]
    p = ok(rankwise("evaluate", *SEED001, *[x for m in metrics for x in ("-m", m)], "--format", "json",
                    "--per-query"))
    obj = json.loads(p.stdout)  # the whole stdout is one JSON document
    check_json_schema(obj, metrics, per_query=True, convention="trec_eval")
    assert obj["n_queries"] == 2 and set(obj["per_query"]) == {"user1", "user2"}
    assert obj["metrics"]["P@5"] == pytest.approx(0.4) and obj["metrics"]["P_5"] == obj["metrics"]["P@5"]
    assert obj["metrics"]["map"] == obj["metrics"]["AP"]
    # set-aside queries are reported in a key, with their ids
    assert obj["set_aside"] == {"missing_in_run": ["user3"], "missing_in_qrels": ["user4"]}
    assert "Traceback" not in p.stderr


def test_json_without_per_query_and_nan_is_null():
    # graded qC has no relevant document: with no_relevant=nan its AP is NaN -> null, left out of the mean
    p = ok(rankwise("evaluate", *GRADED, "-m", "AP", "-m", "P@5", "--no-relevant", "nan", "--format", "json",
                    "--per-query", "--convention", "trec_eval"))
    obj = json.loads(p.stdout, parse_constant=lambda c: pytest.fail(f"non-JSON constant {c} in output"))
    # still the preset's name under an override; the override itself is reported in an extra key
    check_json_schema(obj, ["AP", "P@5"], per_query=True, convention="trec_eval")
    assert "no_relevant" in json.dumps(obj.get("overrides"))
    assert obj["per_query"]["qC"]["AP"] is None
    finite = [row["AP"] for row in obj["per_query"].values() if row["AP"] is not None]
    assert obj["metrics"]["AP"] == pytest.approx(sum(finite) / len(finite))

    assert obj["n_queries_averaged"] == {"AP": 4, "P@5": 4} and obj["excluded_no_relevant"]["AP"] == 1


def test_table_names_the_convention_and_reports_set_aside_on_stderr():
    p = ok(rankwise("evaluate", *SEED001, "-m", "P@5", "-m", "AP"))
    assert "convention: trec_eval" in p.stdout
    assert re.search(r"^P@5\s+0\.4000\s+2$", p.stdout, re.M), p.stdout
    assert re.search(r"set aside 1 .*missing_in_run.*user3", p.stderr), p.stderr
    assert re.search(r"set aside 1 .*missing_in_qrels.*user4", p.stderr), p.stderr
    assert "user3" not in p.stdout

    p = ok(rankwise("evaluate", *SEED001, "-m", "P@5", "-q", "--convention", "mllib"))
    assert "mllib" in p.stdout
    lines = p.stdout.splitlines()
    assert any(line.startswith("user1") for line in lines) and any(line.startswith("all") for line in lines)


def test_csv_tsv_and_trec_summary_formats():
    base = ["evaluate", *SEED001, "-m", "P@5", "-m", "AP"]
    csv_q, tsv, trec = rankwise_many([[*base, "-f", "csv", "-q"], [*base, "-f", "tsv"], [*base, "-f", "trec"]])
    assert ok(csv_q).stdout.splitlines() == ["query_id,P@5,AP", "user1,0.4,0.3333333333333333",
                                             "user2,0.4,0.3333333333333333", "all,0.4,0.3333333333333333"]
    assert ok(tsv).stdout.splitlines() == ["query_id\tP@5\tAP", "all\t0.4\t0.3333333333333333"]
    parsed = parse_trec(ok(trec).stdout)
    assert parsed == {("num_q", "all"): 2.0, ("P@5", "all"): 0.4, ("AP", "all"): 0.3333}


def test_output_file_progress_and_convention_options(tmp_path):
    out = tmp_path / "res.json"
    p = ok(rankwise("evaluate", *SEED001, "-m", "P@5", "-m", "AP@10", "--format", "json", "--output", out,
                    "--progress", "--missing-in-run", "zero", "--missing-in-qrels", "evaluate",
                    "--denominator", "min_k_relevant", "--ties", "input", "--scores", "float64"))
    assert p.stdout == ""
    obj = json.loads(out.read_text())
    check_json_schema(obj, ["P@5", "AP@10"], per_query=False, convention="trec_eval")
    # convention-field options: all four queries evaluated, and the overrides show in the resolved metrics
    assert obj["n_queries"] == 4
    assert "denominator=min_k_relevant" in obj["resolved"]["AP@10"] and "ties=input" in obj["resolved"]["P@5"]
    assert "reading qrels" in p.stderr and "done" in p.stderr  # stages on stderr, never on stdout


# ---------------------------------------------------------------------------------------------------
# evaluate: input formats and unusual-but-valid files
# ---------------------------------------------------------------------------------------------------

def _rows(path: Path, kind: str):
    rows = []
    for line in path.read_text().splitlines():
        f = line.split()
        rows.append((f[0], f[2], f[3] if kind == "qrels" else f[4]))
    return rows


JSON_ARGS = ["-m", "P@5", "-m", "AP", "-m", "nDCG@10", "-m", "RR", "-m", "bpref", "--format", "json", "--per-query"]


@pytest.fixture(scope="module")
def graded_reference():
    return _numbers(rankwise("evaluate", *GRADED, *JSON_ARGS))


def _numbers(p):
    obj = json.loads(ok(p).stdout)
    return obj["n_queries"], obj["metrics"], obj["per_query"], obj["set_aside"]


def test_tabular_json_parquet_and_gzip_inputs_give_the_same_numbers(tmp_path, graded_reference):
    qrels, run = GRADED
    qr, rr = _rows(qrels, "qrels"), _rows(run, "run")
    files = {}

    def write(name, text, gz=False):
        path = tmp_path / name
        path.write_bytes(gzip.compress(text.encode()) if gz else text.encode())
        return path

    for fmt, sep in (("csv", ","), ("tsv", "\t")):
        files[f"q.{fmt}"] = write(f"q.{fmt}", f"qid{sep}docno{sep}rel\n" + "".join(
            f"{q}{sep}{d}{sep}{v}\n" for q, d, v in qr))
        files[f"r.{fmt}"] = write(f"r.{fmt}", f"query_id{sep}doc_id{sep}score\n" + "".join(
            f"{q}{sep}{d}{sep}{v}\n" for q, d, v in rr))
    jq, jr = {}, {}
    for q, d, v in qr:
        jq.setdefault(q, {})[d] = int(v)
    for q, d, v in rr:
        jr.setdefault(q, {})[d] = float(v)
    files["q.json"] = write("q.json", json.dumps(jq))
    files["r.json"] = write("r.json", json.dumps(jr))
    # .gz of each kind; a TREC file and a CSV under names that hide their format
    files["q.qrels.gz"] = write("q.qrels.gz", qrels.read_text(), gz=True)
    files["r.csv.gz"] = write("r.csv.gz", (tmp_path / "r.csv").read_text(), gz=True)
    files["r.json.gz"] = write("r.json.gz", json.dumps(jr), gz=True)
    files["r.txt"] = write("r.txt", "U,I,s\n" + "".join(f"{q},{d},{v}\n" for q, d, v in rr))
    # custom column names, named with the column options (shared by qrels and run)
    files["cq.csv"] = write("cq.csv", "U,I,grade_x\n" + "".join(f"{q},{d},{v}\n" for q, d, v in qr))
    # CSV with a BOM, CRLF and no final newline
    files["bom.csv"] = write("bom.csv", "\ufeffquery_id,doc_id,score\r\n" + "\r\n".join(
        f"{q},{d},{v}" for q, d, v in rr))

    commands = {
        "csv+bom_crlf_csv": [files["q.csv"], files["bom.csv"]],
        "tsv+csv.gz": [files["q.tsv"], files["r.csv.gz"]],
        "json": [files["q.json"], files["r.json"]],
        "trec.gz+json.gz": [files["q.qrels.gz"], files["r.json.gz"]],
        "columns+explicit_format": [files["cq.csv"], files["r.txt"], "--run-format", "csv", "--query-column", "U",
                                    "--doc-column", "I", "--relevance-column", "grade_x", "--score-column", "s"],
    }
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    pq.write_table(pa.table({"query_id": [q for q, _, _ in qr], "doc_id": [d for _, d, _ in qr],
                             "relevance": [int(v) for _, _, v in qr]}), tmp_path / "q.parquet")
    pq.write_table(pa.table({"query_id": [q for q, _, _ in rr], "doc_id": [d for _, d, _ in rr],
                             "score": [float(v) for _, _, v in rr]}), tmp_path / "r.parquet")
    commands["parquet"] = [tmp_path / "q.parquet", tmp_path / "r.parquet"]
    names = list(commands)
    results = rankwise_many([["evaluate", *commands[n], *JSON_ARGS] for n in names])
    reference = graded_reference
    assert reference[0] == 5 and reference[3] == {"missing_in_run": ["qD"], "missing_in_qrels": ["qE"]}
    for name, p in zip(names, results):
        assert _numbers(p) == reference, name


def _variants(text: str):
    return {
        "bom+crlf+no_final_newline": "\ufeff" + text.replace("\n", "\r\n").rstrip("\r\n"),
        "tabs_and_spaces+blank_lines": "".join("\t" + "  \t ".join(line.split()) + " \t\n\n"
                                               for line in text.splitlines()),
    }


def test_unusual_but_valid_trec_files_give_identical_numbers(tmp_path, graded_reference):
    qrels, run = GRADED
    qv, rv = _variants(qrels.read_text()), _variants(run.read_text())
    arg_lists = []
    for name in qv:
        (tmp_path / f"{name}.qrels").write_bytes(qv[name].encode("utf-8"))
        (tmp_path / f"{name}.run").write_bytes(rv[name].encode("utf-8"))
        arg_lists.append(["evaluate", tmp_path / f"{name}.qrels", tmp_path / f"{name}.run", *JSON_ARGS])
    results = rankwise_many(arg_lists)
    for name, p in zip(qv, results):
        assert _numbers(p) == graded_reference, name


# ---------------------------------------------------------------------------------------------------
# bad input: non-zero exit, one clear message naming the file, the line and the offending text
# ---------------------------------------------------------------------------------------------------

GOOD_QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\n"
GOOD_RUN = "q1 Q0 d1 1 0.9 t\nq1 Q0 d2 2 0.5 t\nq2 Q0 d3 1 0.1 t\n"

# id -> (which file is bad, its bytes, extra args, substrings the error must contain)
BAD = {
    "qrels_too_few_columns": ("bad.qrels", b"q1 0 d1 1\nq1 0 d2\n", [], [":2", "'q1 0 d2'", "3 columns", "expected 4"]),
    "run_too_many_columns": ("bad.run", b"q1 Q0 d1 1 0.5 t\n\nq1 Q0 d2 2 0.4 t extra\n", [],
                             [":3", "q1 Q0 d2 2 0.4 t extra", "expected 6"]),
    "non_numeric_score": ("bad.run", b"q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 abc t\n", [], [":2", "abc", "not a number"]),
    "non_numeric_relevance": ("bad.qrels", b"q1 0 d1 1\r\nq1 0 d2 high\r\n", [], [":2", "high", "not a number"]),
    "empty_qrels": ("bad.qrels", b"", [], ["empty"]),
    "binary_nul": ("bad.run", b"q1 Q0 d1 1 0.5 t\n\x00\x01\x02\xff\x00garbage", [], [":2", "binary"]),
    "binary_not_utf8": ("bad.run", b"q1 Q0 d1 1 0.5 t\nq1 Q0 d\xff\xfe 2 0.4 t\n", [], [":2", "UTF-8"]),
    "gz_bad_line": ("bad.run.gz", gzip.compress(b"q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 0.4\n"), [], [":2", "q1 Q0 d2 2 0.4"]),
    "gz_truncated": ("bad.run.gz", gzip.compress(GOOD_RUN.encode() * 50)[:40], [], ["gzip"]),
    "csv_too_few_columns": ("bad.csv", b"qid,doc_id,score\nq1,d1,0.5\nq1,d2\n", [], [":3", "q1,d2", "expected 3"]),
    "csv_unknown_column": ("bad.csv", b"a,b,c\nq1,d1,0.5\n", [], [":1", "query"]),
    "json_syntax": ("bad.json", b'{"q1": {"d1": 1,\n "d2": }}', [], [":2", "JSON"]),
    "missing_file": ("nope.run", None, [], ["nope.run"]),
    "gz_corrupt": ("bad.run.gz", b"\x1f\x8b\x08\x00garbage-not-deflate-data", [], ["gzip"]),
    "json_non_numeric_value": ("bad.json", b'{"q1": {"d1": "high"}}', [], ["high", "not a number"]),
    "json_duplicate_key": ("bad.json", b'{"q1": {"d1": 1, "d1": 0}}', [], ["duplicate", "d1"]),
}
BAD_XFAIL: dict = {}  # the CLI got these wrong once (corrupt gzip, JSON errors); fixed, kept as ordinary cases
BAD_METRICS = {  # id -> (extra args, substrings)
    "unknown_metric": (["-m", "nDGC@10"], ["nDGC", "Did you mean", "ndcg"]),
    "unknown_metric_param": (["-m", "nDCG(gian=exp)@10"], ["gian", "Did you mean", "gain"]),
    "bad_param_value": (["-m", "nDCG(gain=cubic)@10"], ["cubic", "linear"]),
    "unknown_preset": (["-m", "P@5", "--convention", "trec_evl"], ["trec_evl", "Did you mean", "trec_eval"]),
    "bad_override_value": (["-m", "P@5", "--log-base", "abc"], ["log_base", "abc"]),
    "missing_in_run_error": (["-m", "P@5", "--missing-in-run", "error"], ["missing", "q9"]),
}


def _one_clear_message(p, must):
    assert p.returncode != 0, p.stdout
    assert p.stdout == ""
    assert "Traceback" not in p.stderr, p.stderr
    errors = [line for line in p.stderr.splitlines() if re.match(r"^rankwise( \w+)?: error:", line)]
    assert len(errors) == 1, p.stderr
    for s in must:
        assert s in p.stderr, f"{s!r} not in:\n{p.stderr}"


@pytest.fixture(scope="module")
def bad_runs(tmp_path_factory):
    d = tmp_path_factory.mktemp("bad")
    (d / "good.qrels").write_text(GOOD_QRELS + "q9 0 d9 1\n")
    (d / "good.run").write_text(GOOD_RUN)
    arg_lists = []
    for key, (name, data, extra, _) in BAD.items():
        sub = d / key
        sub.mkdir()
        if data is not None:
            (sub / name).write_bytes(data)
        is_qrels = "qrels" in name or key.startswith("json")
        pair = [sub / name, d / "good.run"] if is_qrels else [d / "good.qrels", sub / name]
        arg_lists.append(["evaluate", *pair, "-m", "P@5", *extra])
    for extra, _ in BAD_METRICS.values():
        arg_lists.append(["evaluate", d / "good.qrels", d / "good.run", *extra])
    res = rankwise_many(arg_lists)
    return dict(zip([*BAD, *BAD_METRICS], res))


@pytest.mark.parametrize("case", [pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=BAD_XFAIL[c]))
                                  if c in BAD_XFAIL else c for c in BAD])
def test_bad_input_file(bad_runs, case):
    name, _, _, must = BAD[case]
    _one_clear_message(bad_runs[case], [name, *must])


@pytest.mark.parametrize("case", list(BAD_METRICS))
def test_bad_metric_or_option(bad_runs, case):
    _one_clear_message(bad_runs[case], BAD_METRICS[case][1])


@pytest.fixture(scope="module")
def dup_runs(tmp_path_factory):
    d = tmp_path_factory.mktemp("dup")
    (d / "q.qrels").write_text("q1 0 d1 1\nq1 0 d2 0\nq1 0 d1 0\n")
    (d / "r.run").write_text("q1 Q0 d1 1 0.9 t\nq1 Q0 d7 2 0.5 t\nq1 Q0 d7 3 0.4 t\n")
    (d / "ok.qrels").write_text("q1 0 d1 1\n")
    (d / "ok.run").write_text("q1 Q0 d1 1 0.9 t\n")
    return rankwise_many([["evaluate", d / "q.qrels", d / "ok.run", "-m", "P@5"],
                          ["evaluate", d / "ok.qrels", d / "r.run", "-m", "P@5"],
                          ["evaluate", d / "ok.qrels", d / "r.run", "-m", "P@5", "--duplicates", "first",
                           "--format", "json"]])


def test_duplicates_are_errors_naming_file_and_line(dup_runs):
    pq, pr, first = dup_runs
    _one_clear_message(pq, ["q.qrels:3", "duplicate", "line 1"])
    _one_clear_message(pr, ["r.run:3", "duplicate", "line 2"])
    assert json.loads(ok(first).stdout)["metrics"]["P@5"] == pytest.approx(0.2)


def test_duplicate_message_shows_the_offending_text(dup_runs):
    pq, pr, _ = dup_runs
    assert "q1 0 d1 0" in pq.stderr, pq.stderr
    assert "q1 Q0 d7 3 0.4 t" in pr.stderr, pr.stderr
    assert "--duplicates" in pq.stderr  # the CLI spelling of the fix


# ---------------------------------------------------------------------------------------------------
# the other commands
# ---------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def describe_runs():
    cmds = {
        "metrics_json": ["metrics", "--format", "json"],
        "conventions": ["conventions"],
        "diff": ["conventions", "--diff", "trec_eval", "mllib"],
        "diff_json": ["conventions", "--diff", "trec_eval", "mllib", "--format", "json"],
        "diff_unknown": ["conventions", "--diff", "trec_eval", "nope"],
        "explain": ["explain", "AP@10"],
        "explain_unknown": ["explain", "nDGC@10"],
        "demo": ["demo"],
        "reproduce_help": ["reproduce", "--help"],
    }
    return dict(zip(cmds, rankwise_many(list(cmds.values()))))


def _presets() -> list[str]:
    from rankwise.conventions import PRESETS as presets
    return list(presets)


PRESETS = _presets()


def test_metrics_command(describe_runs):
    reg = json.loads(ok(describe_runs["metrics_json"]).stdout)
    assert isinstance(reg, list) and {"name", "aliases", "params"} <= set(reg[0])
    assert {"P", "AP", "nDCG", "RR", "Bpref", "Rprec", "Success"} <= {d["name"] for d in reg}


def test_conventions_command(describe_runs):
    out = ok(describe_runs["conventions"]).stdout
    for name in PRESETS:
        assert re.search(rf"^{name}\b", out, re.M), name
    diff = ok(describe_runs["diff"]).stdout
    assert re.search(r"^scores\s+float32\s+float64$", diff, re.M), diff
    assert json.loads(ok(describe_runs["diff_json"]).stdout)["scores"] == {"trec_eval": "float32", "mllib": "float64"}
    _one_clear_message(describe_runs["diff_unknown"], ["nope", "trec_eval"])


def test_explain_command(describe_runs):
    out = ok(describe_runs["explain"]).stdout
    assert "resolved under trec_eval: AP(denominator=relevant" in out and ")@10" in out
    for name in PRESETS:
        assert name in out
    _one_clear_message(describe_runs["explain_unknown"], ["nDGC", "Did you mean"])


def test_demo_command(describe_runs):
    out = ok(describe_runs["demo"]).stdout
    for name in ["five_users", "cats", "synthetic", *PRESETS]:
        assert name in out
    assert not re.search(r"seed ?00", out, re.I), out  # the source documents are cited by title, not by number
    assert re.search(r"^nDCG@10\s+0\.4959\s", out, re.M), out  # five_users under trec_eval (the post's value)


def _reproductions_importable() -> bool:
    import importlib.util

    from rankwise.cli.reproduce import REPRODUCTIONS
    return all(importlib.util.find_spec(mod) is not None for mod, _ in REPRODUCTIONS.values())


def test_reproduce_help(describe_runs):
    assert ok(describe_runs["reproduce_help"]).stdout.startswith("usage: rankwise reproduce")


def test_reproduce_lists_every_importable_reproduction(describe_runs):
    import re

    from rankwise.cli.reproduce import REPRODUCTIONS
    listed = set(re.findall(r"^\s{4}([a-z][a-z0-9-]+)", describe_runs["reproduce_help"].stdout, re.M))
    for name, (module, _) in REPRODUCTIONS.items():
        assert (name in listed) == (importlib.util.find_spec(module) is not None), name
    assert "graded-levels" in listed and "krichene-rendle-toy" in listed
