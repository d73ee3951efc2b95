"""`rankwise compare`, `rankwise power` and multi-run `rankwise evaluate`, run as subprocesses on files.

The numbers the command prints must be those of the Python API on the same inputs; the inputs are
the bundled example qrels and runs derived from the example run by seeded score noise.
"""
from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import rankwise as rw
from rankwise.comparison import PerQueryMatrix

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "src" / "rankwise" / "examples" / "data"
QRELS = EXAMPLES / "synthetic.qrels"
CMD = [sys.executable, "-m", "rankwise"]

# every test here starts `python -m rankwise` processes (about 35 s in all on 2 cores): the full run only
pytestmark = pytest.mark.slow


def rankwise(*args, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([*CMD, *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=300)


def _write_run(path: Path, scores: dict) -> Path:
    with open(path, "w") as fh:
        for q, docs in scores.items():
            for rank, (d, s) in enumerate(sorted(docs.items(), key=lambda x: -x[1]), start=1):
                fh.write(f"{q} Q0 {d} {rank} {s:.6f} {path.stem}\n")
    return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> list[Path]:
    """The example run and two noisier copies (seeded), as TREC files named base, noisy, noisier."""
    tmp = tmp_path_factory.mktemp("runs")
    base = rw.Run.read(EXAMPLES / "synthetic.run").to_dict()
    rng = np.random.default_rng(7)
    out = [_write_run(tmp / "base.run", base)]
    for name, sd in (("noisy", 0.4), ("noisier", 1.0)):
        out.append(_write_run(tmp / f"{name}.run", {q: {d: s + rng.normal(0, sd) for d, s in docs.items()}
                                                     for q, docs in base.items()}))
    return out


def test_compare_json_matches_the_python_api(runs):
    r = rankwise("compare", QRELS, *runs, "-m", "AP", "-m", "P@5", "--format", "json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    api = rw.compare(QRELS, {p.stem: rw.Run.read(p) for p in runs}, ["AP", "P@5"])
    assert out["baseline"] == "base" and out["test"] == "t" and out["correction"] == "holm"
    assert out["family"] == "metric" and out["alpha"] == 0.05 and out["convention"] == "trec_eval"
    assert out["n_queries"] == api.n_queries == 37
    assert set(out["systems"]) == {"base", "noisy", "noisier"}
    assert out["all_pairs"] == []
    assert len(out["comparisons"]) == 4
    for c in out["comparisons"]:
        ref = api.comparison(c["metric"], c["system"])
        assert c["baseline"] == "base"
        assert c["p"] == ref.p and c["p_adjusted"] == ref.p_adjusted and c["delta"] == ref.delta
        assert c["ci"] == list(ref.ci) and c["effect_size"] == ref.effect_size
        assert c["wins"] + c["ties"] + c["losses"] == 37
    assert out["systems"]["base"]["AP"]["mean"] == api.systems["base"]["AP"].mean
    # the queries set aside (judged but not in the runs) are counted, on stderr too
    assert len(out["set_aside"]["missing_in_run"]) == 3
    assert "set aside for every system: 3 queries (missing_in_run)" in r.stderr


def test_compare_all_pairs_and_baseline_choice(runs):
    r = rankwise("compare", QRELS, *runs, "-m", "AP", "--all-pairs", "--permutations", "500", "--format", "json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["test"] == "randomized-tukey" and out["baseline"] is None and out["seed"] == 0
    assert out["comparisons"] == [] and len(out["all_pairs"]) == 3
    assert {(p["a"], p["b"]) for p in out["all_pairs"]} == {("base", "noisy"), ("base", "noisier"),
                                                              ("noisy", "noisier")}
    assert all(1 / 501 <= p["p"] <= 1 for p in out["all_pairs"])
    r = rankwise("compare", QRELS, *runs, "-m", "AP", "--baseline", "noisier", "--test", "randomization",
                 "--permutations", "999", "--seed", "3", "--format", "json")
    out = json.loads(r.stdout)
    assert out["baseline"] == "noisier" and out["seed"] == 3 and out["permutations"] == 999
    assert {c["system"] for c in out["comparisons"]} == {"base", "noisy"}


def test_compare_values_csv_and_evaluate_json_give_the_same_numbers(runs, tmp_path):
    ref = json.loads(rankwise("compare", QRELS, *runs, "-m", "AP", "-m", "nDCG@10", "--format", "json").stdout)
    # long CSV
    matrix = PerQueryMatrix.from_results({p.stem: rw.evaluate(QRELS, rw.Run.read(p), ["AP", "nDCG@10"])
                                          for p in runs})
    path = tmp_path / "values.csv"
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["system", "query", "metric", "value"])
        w.writerows(matrix.to_long())
    out = json.loads(rankwise("compare", "--values", path, "--format", "json").stdout)
    # per-query JSON files written by `rankwise evaluate --per-query --format json`
    files = []
    for p in runs:
        f = tmp_path / f"{p.stem}.json"
        r = rankwise("evaluate", QRELS, p, "-m", "AP", "-m", "nDCG@10", "--per-query", "--format", "json",
                     "-o", f)
        assert r.returncode == 0, r.stderr
        files.append(f)
    out2 = json.loads(rankwise("compare", "--values", *files, "--format", "json").stdout)
    for o in (out, out2):
        assert o["n_queries"] == ref["n_queries"]
        assert [c["p"] for c in o["comparisons"]] == pytest.approx([c["p"] for c in ref["comparisons"]], abs=1e-12)
    # a CSV of values does not say how they were made; evaluate's JSON does, and the comparison carries it
    assert out["convention"] is None and out["resolved"] == {}
    assert out2["convention"] == ref["convention"] == "trec_eval" and out2["resolved"] == ref["resolved"]


@pytest.mark.parametrize("args, message", [
    (["{q}", "{a}", "-m", "AP"], "at least two runs"),
    (["{q}", "{a}", "{b}"], "name at least one metric"),
    (["{q}", "{a}", "{b}", "-m", "AP", "--baseline", "nope"], "unknown baseline 'nope'"),
    (["{q}", "{a}", "x/{a_name}", "-m", "AP"], "two runs are named"),
    (["{q}", "{a}", "{b}", "-m", "AP", "--alpha", "1.5"], "alpha must be between 0 and 1"),
])
def test_compare_bad_input_is_a_clear_error(runs, args, message, tmp_path):
    alias = tmp_path / "x"
    alias.mkdir()
    (alias / runs[0].name).write_text(runs[0].read_text())
    subst = {"q": QRELS, "a": runs[0], "b": runs[1], "a_name": runs[0].name}
    r = rankwise("compare", *[a.format(**subst) for a in args], cwd=tmp_path)
    assert r.returncode == 2
    assert message in r.stderr


def test_compare_values_bad_line_names_file_and_line(tmp_path):
    path = tmp_path / "v.csv"
    path.write_text("system,query,metric,value\na,q1,AP,0.5\nb,q1,AP,zero\n")
    r = rankwise("compare", "--values", path)
    assert r.returncode == 2
    assert f"{path}:3" in r.stderr and "'zero'" in r.stderr
    path.write_text("system,query,metric,value\na,q1,AP,0.5\na,q2,AP,0.4\nb,q1,AP,0.3\nb,q2,AP,0.1\nb,q1,P@5,1\n")
    r = rankwise("compare", "--values", path)
    assert r.returncode == 2 and "system 'a' has no values for metric(s) ['P@5']" in r.stderr


def test_compare_table_fits_100_columns(runs):
    r = rankwise("compare", QRELS, *runs, "-m", "AP", "-m", "P@5", "-m", "nDCG@10", "-m", "RR", "-m", "R@100")
    assert r.returncode == 0, r.stderr
    assert max(len(line) for line in r.stdout.splitlines()) <= 100
    assert "holm" in r.stdout.lower()


def test_evaluate_several_runs_one_table(runs):
    r = rankwise("evaluate", QRELS, *runs, "-m", "AP", "-m", "P@5")
    assert r.returncode == 0, r.stderr
    rows = {line.split()[0]: line.split()[1:] for line in r.stdout.splitlines()[3:6]}
    for p in runs:
        res = rw.evaluate(QRELS, rw.Run.read(p), ["AP", "P@5"])
        assert rows[p.stem] == [f"{res.means['AP']:.4f}", f"{res.means['P@5']:.4f}"]
    out = json.loads(rankwise("evaluate", QRELS, *runs, "-m", "AP", "--format", "json").stdout)
    assert set(out["runs"]) == {"base", "noisy", "noisier"}
    assert rankwise("evaluate", QRELS, *runs, "-m", "AP", "--format", "trec").returncode == 2


def test_power_command(runs):
    r = rankwise("power", "--variance", "0.04", "--delta", "0.05", "--format", "json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)["given variance"]
    api = rw.power(variance=0.04, delta=0.05)
    assert out["n"] == api.n and out["power"] >= 0.8
    r = rankwise("power", QRELS, *runs, "-m", "AP", "--n", "50")
    assert r.returncode == 0, r.stderr
    assert "minimum detectable difference" in r.stdout and "2 V_E" in r.stdout
    r = rankwise("power", "--variance", "0.04")
    assert r.returncode == 2 and "give n" in r.stderr


def test_python_dash_m_help():
    r = rankwise("--help")
    assert r.returncode == 0 and "compare" in r.stdout and "power" in r.stdout


def test_compare_values_json_files_with_one_name_are_an_error(tmp_path):
    out = {"per_query": {"q1": {"AP": 0.5}, "q2": {"AP": 0.25}}}
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    for d in ("a", "b"):
        (tmp_path / d / "bm25.json").write_text(json.dumps(out))
    r = rankwise("compare", "--values", tmp_path / "a" / "bm25.json", tmp_path / "b" / "bm25.json")
    assert r.returncode == 2 and "two runs are named 'bm25'" in r.stderr
    r = rankwise("compare", "--values", f"x={tmp_path / 'a' / 'bm25.json'}", f"y={tmp_path / 'b' / 'bm25.json'}",
                 "--format", "json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["comparisons"][0]["delta"] == 0.0


def test_compare_takes_jobs_and_columns_as_evaluate_does(runs, tmp_path):
    """`rankwise compare` evaluates its runs through rankwise.compare's path: --jobs gives the same report, and
    CSV inputs with their own column names are read with --query-column/--doc-column/--score-column."""
    one = rankwise("compare", QRELS, *runs, "-m", "AP", "--format", "json", "--jobs", "1")
    two = rankwise("compare", QRELS, *runs, "-m", "AP", "--format", "json", "--jobs", "2")
    assert one.returncode == 0, one.stderr
    assert two.stderr == one.stderr
    a, b = json.loads(one.stdout), json.loads(two.stdout)
    assert a.pop("command_line").endswith("--jobs 1") and b.pop("command_line").endswith("--jobs 2")
    assert a == b  # the same report but for the command line it quotes
    qrels_csv = tmp_path / "judged.csv"
    with open(qrels_csv, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["topic", "passage", "relevance"])
        for q, docs in rw.Qrels.read(QRELS).to_dict().items():
            w.writerows([q, d, int(g)] for d, g in docs.items())
    csvs = []
    for p in runs:
        out = tmp_path / f"{p.stem}.csv"
        with open(out, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["topic", "passage", "s"])
            for q, docs in rw.Run.read(p).to_dict().items():
                w.writerows([q, d, f"{s:.6f}"] for d, s in docs.items())
        csvs.append(out)
    from_csv = rankwise("compare", qrels_csv, *csvs, "-m", "AP", "--format", "json", "--query-column", "topic",
                        "--doc-column", "passage", "--score-column", "s")
    assert from_csv.returncode == 0, from_csv.stderr
    assert json.loads(from_csv.stdout)["systems"] == json.loads(one.stdout)["systems"]


def test_a_bad_run_file_is_said_before_a_bad_override(runs, tmp_path):
    """As `rankwise evaluate`: a run file's own error comes before a wrong convention option."""
    bad = tmp_path / "bad.run"
    bad.write_text("q1 Q0 d1 1 x t\n")
    r = rankwise("compare", QRELS, bad, runs[0], "-m", "P@2", "--rel", "abc")
    assert r.returncode == 2 and "bad.run:1" in r.stderr and "not a number" in r.stderr, r.stderr
    r = rankwise("compare", QRELS, runs[0], runs[1], "-m", "P@2", "--rel", "abc")
    assert r.returncode == 2 and "rel" in r.stderr, r.stderr


def test_compare_values_reads_trec_eval_s_list_of_cutoffs(tmp_path, capsys):
    """-m P.5,10 names trec_eval's P_5 and P_10 in values another tool wrote, as `rankwise evaluate` reads it."""
    from rankwise.cli.main import main

    path = tmp_path / "v.csv"
    rows = [f"{s},q{i},{m},{v}" for s, base in (("a", 0.2), ("b", 0.4)) for i in range(1, 6)
            for m, v in (("P_5", base + i / 50), ("P_10", base / 2 + i / 100), ("map", 0.3))]
    path.write_text("system,query,metric,value\n" + "\n".join(rows) + "\n")
    assert main(["compare", "--values", str(path), "-m", "P.5,10", "-f", "json"]) == 0
    assert {c["metric"] for c in json.loads(capsys.readouterr().out)["comparisons"]} == {"P_5", "P_10"}
