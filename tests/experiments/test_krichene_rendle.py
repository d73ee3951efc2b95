"""rankwise reproduce krichene-rendle on a tiny generated data set in the ml-100k file format."""
import json

import numpy as np
import pytest

from rankwise.data.ranks import RelevantRanks
from rankwise.experiments import krichene_rendle as kr
from rankwise.sampled import ESTIMATORS
from rankwise.sampled.estimate import parse_estimator


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """u.data: user item rating timestamp, tab-separated; 40 users x 60 items, popularity skew."""
    folder = tmp_path_factory.mktemp("ml-100k")
    rng = np.random.default_rng(7)
    rows = []
    for u in range(1, 41):
        k = int(rng.integers(6, 20))
        p = np.linspace(2, 1, 60) / np.linspace(2, 1, 60).sum()
        items = rng.choice(np.arange(1, 61), size=k, replace=False, p=p)
        for t, i in enumerate(items):
            rows.append(f"{u}\t{i}\t{int(rng.integers(1, 6))}\t{880000000 + 1000 * t}")
    (folder / "u.data").write_text("\n".join(rows) + "\n")
    return folder


def small(data, out, seed=3, **kw):
    return kr.run(data, repetitions=6, m=20, seed=seed, fit_repetitions=2, out=out, **kw)


@pytest.fixture(scope="module")
def result(data, tmp_path_factory):
    return small(data, tmp_path_factory.mktemp("out"))


@pytest.mark.slow  # the whole experiment (the module's result): about 2.5 s
def test_json_shape(result):
    assert result["dataset"] == "ml-100k"
    json.dumps(result)  # serialisable
    for s in kr.SYSTEMS:
        assert set(result["exact"][s]) == set(kr.METRICS)
        for mt in kr.METRICS:
            assert set(result["sampled"][s][mt]) >= {"mean", "std", "expected"}
    assert set(result["corrected"]) == set(kr.CORRECTIONS)
    for est in result["corrected"]:
        assert parse_estimator(est)[0] in ESTIMATORS
        for s in kr.SYSTEMS:
            assert set(result["corrected"][est][s]) == set(kr.METRICS)
            assert set(result["corrected"][est][s]["AP"]) >= {"mean", "std"}
    assert set(result["pairwise"]) == {"sampled", *kr.CORRECTIONS}
    for key, table in result["pairwise"].items():
        assert set(table) == set(kr.METRICS)
        for mt in kr.METRICS:
            assert set(table[mt]) == {"X-Y", "X-Z", "Y-Z"}
            assert all(isinstance(v, int) and 0 <= v <= result["pairwise_out_of"][key] for v in table[mt].values())
    assert result["pairwise_out_of"]["sampled"] == 6 and result["pairwise_out_of"]["mle"] == 2
    assert result["ties"] == "random"


def test_exact_equals_rank_metrics_on_the_same_ranks(data):
    split = kr.load_movielens("ml-100k", path=data)
    ranks = kr.exact_ranks(split, seed=3)
    res = kr.evaluate(ranks, repetitions=3, m=20, seed=3, estimators=("bv(0.1)",))
    for s, rr in ranks.items():
        assert np.all(rr.ranks == np.round(rr.ranks))  # random ties: whole ranks
        assert np.all(np.diff(rr.offsets) == 1)  # one held-out item per user: eq. 7-13 of the paper
        r = rr.ranks
        expect = {"Recall@10": (r <= 10) * 1.0, "NDCG@10": (r <= 10) / np.log2(r + 1), "AP": 1.0 / r,
                  "AUC": (rr.n_items - r) / (rr.n_items - 1)}
        for mt, values in expect.items():
            assert res["exact"][s][mt] == pytest.approx(values.mean(), abs=1e-15)


def test_pairwise_counts_by_hand():
    exact = {"X": {mt: 0.1 for mt in kr.METRICS}, "Y": {mt: 0.2 for mt in kr.METRICS},
             "Z": {mt: 0.3 for mt in kr.METRICS}}
    vals = {"X": {mt: np.array([0.1, 0.5, 0.2]) for mt in kr.METRICS},
            "Y": {mt: np.array([0.2, 0.4, 0.2]) for mt in kr.METRICS},  # correct, wrong, tie (not correct)
            "Z": {mt: np.array([0.3, 0.3, 0.3]) for mt in kr.METRICS}}
    table = kr._pairwise(vals, exact)
    assert table["AP"] == {"X-Y": 1, "X-Z": 2, "Y-Z": 2}


@pytest.mark.slow  # the whole experiment again: about 2 s
def test_deterministic_with_seed(data, result, tmp_path):
    again = small(data, tmp_path)
    for key in ("exact", "sampled", "corrected", "pairwise"):
        assert again[key] == result[key]


@pytest.mark.slow  # about 1.5 s
def test_pngs_written(data, result, tmp_path):
    files = [tmp_path / "figure5_rank_distribution.png", tmp_path / "figure6_metric_vs_m.png"]
    small(data, tmp_path, estimators=("rank_floor",))
    for f in files:
        assert f.exists() and f.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow  # about 3 s
def test_estimate_repetitions_matches_single_calls():
    from rankwise.sampled import estimate, estimate_repetitions, simulate
    rng = np.random.default_rng(0)
    n = rng.integers(300, 400, size=50)
    rr = RelevantRanks.single(np.minimum(rng.geometric(0.02, size=50), n), n)
    sims = simulate(rr, 30, repetitions=3, seed=1)
    for est in ("rank_interp", "cls", "bv(0.01)", "mle", "maxent(0.01)", "min_error"):
        batch = estimate_repetitions(sims, n, 30, ("Recall@10", "AP"), estimator=est)
        for k, s in enumerate(sims):
            one = estimate(s, n, 30, ("Recall@10", "AP"), estimator=est, bootstrap=0).values
            for mt in one:
                # rank-distribution fits stop per row, as a one-sample call: equal up to rounding
                assert batch[mt][k] == pytest.approx(one[mt], rel=1e-10, abs=1e-13)


@pytest.mark.slow  # the whole experiment through the CLI: about 2 s
def test_cli_table(data, tmp_path, capsys):
    from rankwise.cli.main import main
    rc = main(["reproduce", "krichene-rendle", "--data", str(data), "--repetitions", "3", "--m", "10",
               "--fit-repetitions", "1", "--format", "table", "--out", str(tmp_path)])
    assert rc == 0
    out = capsys.readouterr().out
    assert "Table 3" in out and "Table 4" in out


def test_estimator_list_option():
    import pytest

    from rankwise.errors import RankwiseError
    from rankwise.experiments import krichene_rendle as kr

    assert kr._estimators(None) == kr.CORRECTIONS
    assert kr._estimators("all") == kr.CORRECTIONS + kr.LI_2023
    assert kr._estimators(" rank_interp, mn ") == ("rank_interp", "mn")
    with pytest.raises(RankwiseError):
        kr._estimators("rank_interp,nonsense")


@pytest.mark.slow  # starts `python -m rankwise` twice: about 3.5 s
def test_the_cli_reports_each_phase_on_stderr_with_progress(data):
    import subprocess
    import sys
    args = [sys.executable, "-m", "rankwise", "reproduce", "krichene-rendle", "--data", str(data), "--repetitions",
            "2", "--m", "20", "--fit-repetitions", "1", "--estimators", "naive"]
    quiet = subprocess.run(args, capture_output=True, text=True, timeout=300)
    loud = subprocess.run([*args, "--progress"], capture_output=True, text=True, timeout=300)
    assert quiet.returncode == loud.returncode == 0, loud.stderr
    assert quiet.stderr == ""  # not a terminal: silent unless asked
    phases = [line.split()[1] for line in loud.stderr.splitlines()]
    assert phases[0] == "load" and "simulate" in phases and "estimate_naive" in phases
    assert loud.stdout.count('"exact"') == quiet.stdout.count('"exact"') == 1  # stdout keeps only the JSON
