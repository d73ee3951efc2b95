"""CLI sub-actions, the ranks file reader and the figures (smoke tests)."""
import argparse
import json

import numpy as np
import pytest

from rankwise.cli import cmd_sampled
from rankwise.errors import ParseError
from rankwise.io.sampled_ranks import read_ranks


def run_cli(argv, capsys):
    parser = argparse.ArgumentParser(prog="rankwise")
    cmd_sampled.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    code = args.func(args)
    return code, capsys.readouterr()


def test_reader_groups_queries_and_reports_bad_lines(tmp_path):
    f = tmp_path / "r.tsv"
    f.write_text("query\trank\tn_items\nu1\t3\t100\nu2\t1\t90\nu1\t7\t100\n# comment\n")
    rr = read_ranks(str(f))
    assert list(rr.query_ids) == ["u1", "u2"] and list(rr.n_relevant) == [2, 1]
    assert list(rr.n_items) == [100, 90]
    bad = tmp_path / "bad.txt"
    bad.write_text("u1 3\nu2 three\n")
    with pytest.raises(ParseError) as err:
        read_ranks(str(bad), 100)
    assert ":2" in str(err.value) and "three" in str(err.value)


@pytest.mark.slow
def test_cli_estimate_json_and_csv(tmp_path, capsys):
    rng = np.random.default_rng(0)
    f = tmp_path / "s.txt"
    f.write_text("".join(f"u{i} {r}\n" for i, r in enumerate(rng.binomial(100, 0.05, 300) + 1)))
    code, out = run_cli(["sampled", "estimate", str(f), "--negatives", "100", "--n-items", "2000",
                         "--bootstrap", "50", "--format", "json"], capsys)
    assert code == 0
    rows = json.loads(out.out)["rows"]
    assert {r["metric"] for r in rows} == {"Recall@10", "NDCG@10", "AP"}
    code, out = run_cli(["sampled", "estimate", str(f), "--negatives", "100", "--n-items", "2000", "--bootstrap", "0",
                         "--agreement", "--metrics", "AP", "--format", "csv"], capsys)
    assert code == 0 and out.out.startswith("metric,estimator,value")


def test_cli_simulate_and_errors(tmp_path, capsys):
    f = tmp_path / "e.txt"
    f.write_text("a 100\nb 40\nc 8437\n")
    code, out = run_cli(["sampled", "simulate", str(f), "--negatives", "99", "--n-items", "10000",
                         "--repetitions", "20", "--format", "table"], capsys)
    assert code == 0 and "expected_sampled" in out.out
    code, out = run_cli(["sampled", "simulate", str(f), "--negatives", "99"], capsys)
    assert code == 2 and "n-items" in out.err


@pytest.mark.slow  # matplotlib figures: about 1.5 s
def test_figures_render(tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    from rankwise.plots import sampled as figs
    figs.figure2({"A": [100] * 5, "C": [212, 2, 743, 5342, 1548]}, 10_000, sample_sizes=(1, 10, 100))
    figs.figure3(2000, sample_sizes=(10, 100), max_rank=300)
    fig = figs.figure4(2000, 20, "AP", estimators=("cls", "bv(0.1)"), max_rank=300)
    fig.savefig(tmp_path / "f4.png")
    assert (tmp_path / "f4.png").stat().st_size > 0
