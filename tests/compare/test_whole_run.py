"""Whole-run beyond-accuracy figures in a comparison (issue #24): a paired bootstrap over the users.

The bootstrap tallies come from each user's weights (data.item_tally.UserWeights.resampled); these tests check
them against evaluating the resampled users for real (a user drawn twice is two users with the same list), and
the comparison's figures against rankwise.evaluate's."""
from __future__ import annotations

import numpy as np
import pytest

import rankwise as rw
from rankwise.comparison.whole_run import draw_blocks
from rankwise.errors import InvalidParameterError

WHOLE = ["Coverage@5", "Gini@5", "ExposureGini@5", "Entropy@5", "Entropy(weighting=user_share)@5",
         "Personalization@5", "Personalization(list_length=k)@5", "Gini(over=recommended,denominator=n_minus_1)@5"]


def _data(seed: int = 0, n_users: int = 40, n_items: int = 30):
    rng = np.random.default_rng(seed)
    pop = 1 / np.arange(1, n_items + 1) ** 0.9
    pop /= pop.sum()
    train = {f"u{u}": [int(i) for i in rng.choice(n_items, size=rng.integers(2, 9), p=pop)] for u in range(n_users)}
    test = {f"u{u}": [int(i) for i in rng.choice(n_items, size=2, replace=False)] for u in range(n_users)}
    a = {f"u{u}": [int(i) for i in rng.choice(n_items, size=rng.integers(1, 8), replace=False, p=pop)]
         for u in range(n_users)}
    b = {f"u{u}": [int(i) for i in rng.choice(n_items, size=rng.integers(1, 8), replace=False)] for u in range(n_users)}
    return train, test, a, b, list(range(n_items))


def test_the_bootstrap_tally_is_the_tally_of_the_resampled_users():
    train, test, a, _, items = _data()
    users = np.array(sorted(a))
    draws = draw_blocks(users.size, 3, seed=7)[0]
    qrels, run = rw.as_qrels(test), rw.as_run(a)
    from rankwise.api import whole_run_draws
    from rankwise.conventions import get_convention
    figures = whole_run_draws(qrels, run, WHOLE, get_convention("trec_eval"), users, [draws], train=train, items=items)
    for r, counts in enumerate(draws):
        resampled = {f"{u}#{c}": a[u] for u, n in zip(users, counts) for c in range(int(n))}
        truth = rw.evaluate(None, resampled, WHOLE, train=train, items=items)
        for m in WHOLE:
            assert figures[m][1][r] == pytest.approx(truth[m], abs=1e-12), (m, r)


def test_the_comparison_figure_is_the_evaluation_figure_and_identical_systems_do_not_differ():
    train, test, a, b, items = _data(1)
    c = rw.compare(test, {"a": a, "b": b, "a2": dict(a)}, ["R@5", *WHOLE], train=train, items=items, permutations=200)
    res = rw.evaluate(test, a, WHOLE, train=train, items=items)
    for m in WHOLE:
        assert c.systems["a"][m].mean == pytest.approx(res[m], abs=1e-12)
        same = next(x for x in c.comparisons if x.metric == m and x.system == "a2")
        assert same.delta == 0 and same.p == 1.0 and same.ci == (0.0, 0.0)
        other = next(x for x in c.comparisons if x.metric == m and x.system == "b")
        assert other.ci[0] <= other.ci[1]  # (a percentile interval need not hold a biased figure such as Gini's)
        assert (other.wins, other.ties, other.losses) == (0, 0, 0) and np.isnan(other.effect_size)
    assert any("paired bootstrap over the 40 users" in n for n in c.notes)


def test_the_same_seed_gives_the_same_comparison_and_another_seed_another():
    train, test, a, b, items = _data(2)
    runs = {"a": a, "b": b}
    one = rw.compare(test, runs, ["Gini@5"], train=train, items=items, permutations=300, seed=3)
    two = rw.compare(test, runs, ["Gini@5"], train=train, items=items, permutations=300, seed=3)
    three = rw.compare(test, runs, ["Gini@5"], train=train, items=items, permutations=300, seed=4)
    assert one.comparisons[0].p == two.comparisons[0].p and one.comparisons[0].ci == two.comparisons[0].ci
    assert one.comparisons[0].ci != three.comparisons[0].ci


def test_a_clear_difference_is_significant_and_corrected_with_the_family():
    train, test, a, b, items = _data(3, n_users=120)
    c = rw.compare(test, {"pop": a, "uniform": b}, ["Gini@5", "Entropy@5", "Novelty@5"], train=train, items=items,
                   permutations=500, family="all")
    rows = {x.metric: x for x in c.comparisons}
    assert rows["Gini@5"].delta < 0 and rows["Gini@5"].significant  # uniform lists are less concentrated
    assert rows["Gini@5"].p_adjusted >= rows["Gini@5"].p  # (Holm over the three metrics)
    assert rows["Novelty@5"].wins + rows["Novelty@5"].losses > 0  # a per-user metric: tested per user


def test_whole_run_figures_refuse_all_pairs_and_grouped_runs():
    train, test, a, b, items = _data(4)
    with pytest.raises(InvalidParameterError, match="all-pairs mode needs per-user values"):
        rw.compare(test, {"a": a, "b": b, "c": b}, ["Gini@5"], train=train, items=items, all_pairs=True)
    with pytest.raises(InvalidParameterError, match="several runs of one system"):
        rw.compare(test, {"a@1": a, "a@2": b, "b": b}, ["Coverage@5"], train=train, items=items)


def test_the_command_line_compares_whole_run_figures(tmp_path, capsys):
    from rankwise.cli.main import main
    train, test, a, b, items = _data(5)
    (tmp_path / "train.tsv").write_text("user\titem\n" + "".join(f"{u}\t{i}\n" for u, v in train.items() for i in v))
    (tmp_path / "items.txt").write_text("".join(f"{i}\n" for i in items))
    (tmp_path / "test.qrels").write_text("".join(f"{u} 0 {i} 1\n" for u, v in test.items() for i in v))
    for name, run in (("a", a), ("b", b)):
        (tmp_path / f"{name}.run").write_text("".join(f"{u} Q0 {i} {r + 1} {10 - r} x\n" for u, v in run.items()
                                                      for r, i in enumerate(v)))
    args = [str(tmp_path / f) for f in ("test.qrels", "a.run", "b.run")]
    assert main(["compare", *args, "-m", "Gini@5", "-m", "P@5", "--train", str(tmp_path / "train.tsv"), "--items",
                 str(tmp_path / "items.txt"), "-B", "200", "-f", "json"]) == 0
    import json
    out = json.loads(capsys.readouterr().out)
    api = rw.compare(str(tmp_path / "test.qrels"), [str(tmp_path / "a.run"), str(tmp_path / "b.run")],
                     ["Gini@5", "P@5"], train=str(tmp_path / "train.tsv"), items=str(tmp_path / "items.txt"),
                     permutations=200)
    gini = next(c for c in out["comparisons"] if c["metric"] == "Gini@5")
    assert gini["p"] == pytest.approx(api.comparisons[0].p) and gini["ci"] == list(api.comparisons[0].ci)


def test_a_gini_index_is_lower_is_better_unless_it_is_elliots_equality():
    from rankwise.spec.grammar import lower_is_better
    assert lower_is_better("Gini@10") and lower_is_better("ARP@10") and not lower_is_better("Novelty@10")
    assert not lower_is_better("Gini(direction=equality)@10")
    resolved = str(rw.get_convention("elliot").resolve(rw.parse_metric("Gini@10")))
    assert not lower_is_better("Gini@10", resolved)  # Elliot's Gini is 1 - G: higher is more equal


@pytest.mark.slow
def test_the_html_report_draws_accuracy_against_beyond_accuracy(tmp_path):
    pytest.importorskip("matplotlib")
    from rankwise.report import render
    train, test, a, b, items = _data(6)
    c = rw.compare(test, {"a": a, "b": b}, ["R@5", "Coverage@5", "Novelty@5"], train=train, items=items,
                   permutations=100)
    html = render(c, "html")
    assert "R@5 against each beyond-accuracy metric" in html
    assert "Novelty@5: per-query differences" in html and "Coverage@5: per-query differences" not in html


def test_evaluate_gives_a_whole_run_figure_its_bootstrap_interval():
    """±1.96 standard errors of the figure over bootstrap samples of the users: the samples drawn here as the
    evaluation draws them (seed 0) and evaluated for real (a user drawn twice is two users)."""
    train, test, a, _, items = _data(7, n_users=30)
    res = rw.evaluate(None, a, ["Gini@5", "Novelty@5"], train=train, items=items, intervals=40)
    assert set(res.intervals) == {"Gini@5"} and res.to_dict()["intervals"]["Gini@5"] == list(res.intervals["Gini@5"])
    users = np.array(sorted(a))
    figures = []
    for counts in np.concatenate(draw_blocks(users.size, 40, 0)):
        resampled = {f"{u}#{c}": a[u] for u, n in zip(users, counts) for c in range(int(n))}
        figures.append(rw.evaluate(None, resampled, ["Gini@5"], train=train, items=items)["Gini@5"])
    half = 1.959963984540054 * np.std(figures, ddof=1)
    assert res.intervals["Gini@5"] == pytest.approx((res["Gini@5"] - half, res["Gini@5"] + half), abs=1e-12)
    assert rw.evaluate(None, a, ["Gini@5"], train=train, items=items, intervals=40).intervals == res.intervals
    with pytest.raises(InvalidParameterError, match="at least 2"):
        rw.evaluate(None, a, ["Gini@5"], train=train, items=items, intervals=1)
    with pytest.raises(InvalidParameterError, match="got 2.7"):  # (not truncated to 2 samples)
        rw.evaluate(None, a, ["Gini@5"], train=train, items=items, intervals=2.7)
