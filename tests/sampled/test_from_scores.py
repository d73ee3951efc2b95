"""Sampled ranks from scores (rankwise.sampled.from_scores): hand-checked values on a tiny NCF
fixture, a property test against a per-line loop for every score source, and NCF's own ranking."""
from __future__ import annotations

import heapq

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankwise import Run
from rankwise.catalogue.sources import decimal_codes
from rankwise.errors import DataError, InvalidParameterError
from rankwise.io.ncf import load_ncf
from rankwise.sampled import estimate, sampled_ranks, sampled_ranks_ncf
from tests.data_paths import data_path
from tests.sampled.ncf_fixture import write_ncf


@pytest.fixture
def toy(tmp_path):
    prefix, run = write_ncf(tmp_path)
    return load_ncf(prefix), Run.read(str(run))


@pytest.mark.parametrize("ties, expected", [
    ("optimistic", [1 + 1, 1 + 1, 1 + 2]),
    ("pessimistic", [1 + 1 + 2, 1 + 1 + 1, 1 + 2]),
    ("average", [1 + 1 + 2 / 2, 1 + 1 + 1 / 2, 1 + 2]),
])
def test_tie_policies_on_the_fixture(toy, ties, expected):
    split, run = toy
    r = sampled_ranks_ncf(split, run, ties=ties, missing="worst")
    assert r.ranks.ranks.tolist() == expected
    assert r.greater.tolist() == [1, 1, 2] and r.tied.tolist() == [2, 1, 0]
    assert r.m == 4 and r.ranks.query_ids.tolist() == [0, 1, 2]
    assert r.n_items.tolist() == [6, 6, 6]  # no train file: every line gets the item count (codes 0..5)


def test_random_ties_are_seeded_uniform_and_block_independent(toy):
    split, run = toy
    a = sampled_ranks_ncf(split, run, ties="random", seed=3, missing="worst")
    u = np.random.default_rng(3).random(3)
    assert a.ranks.ranks.tolist() == [2 + np.floor(u[0] * 3), 2 + np.floor(u[1] * 2), 3]
    b = sampled_ranks_ncf(split, run, ties="random", seed=3, missing="worst", block_lines=1)
    assert a.ranks.ranks.tolist() == b.ranks.ranks.tolist()
    with pytest.raises(InvalidParameterError, match="seed"):
        sampled_ranks_ncf(split, run, ties="random", missing="worst")
    # line 1 (greater 1, tied 2) over many lines: ranks 2, 3, 4 each a third of the time
    n = 6000
    users, pos = np.zeros(n, np.int64), np.ones(n, np.int64)
    negs = np.tile([2, 3, 4, 5], (n, 1))
    r = sampled_ranks(users, pos, negs, split_scores(), n_items=6, ties="random", seed=0)
    freq = np.bincount(r.ranks.ranks.astype(int), minlength=6)[2:5] / n
    assert np.allclose(freq, 1 / 3, atol=0.03)


def split_scores():
    """The fixture's run as a dense (3 users x 6 items) matrix; unscored pairs at -1."""
    s = np.full((3, 6), -1.0)
    s[0, [1, 2, 3, 4, 5]] = [0.5, 0.9, 0.5, 0.5, 0.1]
    s[1, [2, 0, 3, 5]] = [0.7, 0.8, 0.7, 0.2]
    s[2, [0, 1, 3, 4]] = [0.3, 0.6, 0.6, 0.1]
    return s


def test_missing_score_is_an_error_naming_line_user_and_item(toy):
    split, run = toy
    with pytest.raises(DataError) as err:
        sampled_ranks_ncf(split, run)
    msg = str(err.value)
    assert "test line 3" in msg and "user 2" in msg and "item 5" in msg and "missing='worst'" in msg
    r = sampled_ranks_ncf(split, run, missing="worst")
    assert r.missing_scores == 1 and r.missing_positives == 0
    assert r.ranks.ranks[2] == 1 + 2  # the unscored negative is ranked last, below the positive
    # run rows not used: user 0's item 7 (no candidate) and the two rows whose ids are not codes
    assert r.run_rows_not_codes == 2 and r.run_rows_unused == 3
    assert any("no score in the run" in x for x in r.notes)
    # an unscored positive under 'worst' sits at -inf with the other unscored candidates (a tie)
    r = sampled_ranks(np.array([2]), np.array([2]), np.array([[1, 5, 0]]), run, n_items=6, missing="worst")
    assert r.missing_positives == 1 and r.greater.tolist() == [2] and r.tied.tolist() == [1]
    # a run that scores none of the candidates at all
    other = Run.from_arrays(["7"], ["1"], [1.0])
    r = sampled_ranks_ncf(split, other, missing="worst")
    # all tied at -inf, pessimistic: 1 + 4 tied, and 1 + 3 on line 2 (its own copy is left out)
    assert r.missing_scores == 15 and r.ranks.ranks.tolist() == [5, 4, 5] and r.run_rows_unused == 1
    with pytest.raises(InvalidParameterError, match="Run sources only"):
        sampled_ranks_ncf(split, split_scores(), missing="worst")


def test_negative_equal_to_the_positive(toy):
    split, run = toy
    ignore = sampled_ranks_ncf(split, run, missing="worst")
    tie = sampled_ranks_ncf(split, run, missing="worst", self_negatives="tie", ties="pessimistic")
    assert ignore.self_negatives == tie.self_negatives == 1
    # line 2: greater 1, tied 1 (item 3); its own copy is left out, or counted as one more tie
    assert ignore.ranks.ranks[1] == 1 + 1 + 1 and tie.ranks.ranks[1] == 1 + 1 + 1 + 1
    assert tie.tied[1] == 2
    assert sampled_ranks_ncf(split, run, missing="worst", self_negatives="tie", ties="average").ranks.ranks[1] == 3.0
    assert any("among their own negatives" in x for x in ignore.notes)
    with pytest.raises(DataError, match="test line 2: user 1's held-out item 2"):
        sampled_ranks_ncf(split, run, missing="worst", self_negatives="error")


def test_self_copy_is_found_by_id_not_by_score():
    # a callable that scores the column of the positive higher than the same item elsewhere: the
    # copy must still be recognised as the positive itself
    def score(users, items):
        s = np.zeros(items.shape)
        s[:, 0] = 1.0
        return s
    r = sampled_ranks(np.array([0]), np.array([3]), np.array([[3, 1, 2]]), score, n_items=5)
    assert r.ranks.ranks.tolist() == [1.0] and r.self_negatives == 1


def test_n_items_from_the_training_file(tmp_path):
    prefix, run = write_ncf(tmp_path, train=True)
    split = load_ncf(prefix)
    assert split.n_items == 8  # items 6 and 7 occur only in training
    r = sampled_ranks_ncf(split, str(run), missing="worst")
    assert r.n_items.tolist() == [8 - 1, 8 - 2, 8 - 0]
    assert not any("no training data" in x for x in r.notes)
    r = sampled_ranks_ncf(split, str(run), missing="worst", n_items=10)
    assert r.n_items.tolist() == [10 - 1, 10 - 2, 10 - 0]
    # a negative that is a training item of its user is counted, not silently accepted
    r = sampled_ranks(np.array([1]), np.array([2]), np.array([[6, 3]]), np.zeros((3, 8)), n_items=8,
                      train=split.train)
    assert r.train_negatives == 1
    with pytest.raises(DataError, match="also a training item"):
        sampled_ranks(np.array([1]), np.array([7]), np.array([[0, 3]]), np.zeros((3, 8)), n_items=8,
                      train=split.train)
    # no train file: the whole catalogue, said in the notes
    (tmp_path / "bare").mkdir()
    r = sampled_ranks_ncf(load_ncf(write_ncf(tmp_path / "bare")[0]), np.zeros((3, 6)))
    assert r.n_items.tolist() == [6, 6, 6] and any("no training data" in x for x in r.notes)


def test_ranks_feed_estimate(toy):
    split, run = toy
    r = sampled_ranks_ncf(split, run, missing="worst")
    res = estimate(r.ranks, r.n_items, r.m, ["AP"], estimator="rank_interp", bootstrap=0)
    assert res.values == r.estimate(["AP"], estimator="rank_interp", bootstrap=0).values
    avg = sampled_ranks_ncf(split, run, missing="worst", ties="average")
    with pytest.raises(DataError, match="ties='average'"):
        estimate(avg.ranks, avg.n_items, avg.m, ["AP"], bootstrap=0)


def test_bad_inputs_say_what_was_expected(toy):
    split, run = toy
    with pytest.raises(DataError, match="item code 5 but n_items is 5"):
        sampled_ranks_ncf(split, run, n_items=5)
    with pytest.raises(DataError, match="returned shape"):
        sampled_ranks_ncf(split, lambda u, i: np.zeros(len(u)))
    with pytest.raises(DataError, match="NaN for test line 1, user 0"):
        sampled_ranks_ncf(split, lambda u, i: np.full(i.shape, np.nan))
    with pytest.raises(DataError, match="factors cover"):
        sampled_ranks_ncf(split, (np.ones((3, 2)), np.ones((4, 2))))
    with pytest.raises(DataError, match="sampled rank 5 exceeds the line's candidate-set size 4"):
        sampled_ranks(np.array([0]), np.array([0]), np.array([[1, 1, 1, 1]]), np.zeros((1, 4)), n_items=4)
    with pytest.raises(InvalidParameterError, match="ties must be one of"):
        sampled_ranks_ncf(split, run, ties="docid")
    with pytest.raises(InvalidParameterError, match="scores must be"):
        sampled_ranks_ncf(split, {"0": {"1": 1.0}})


def test_decimal_codes_are_strict():
    ids = np.array(["0", "17", "017", "+1", " 1", "1.0", "u1", "", "123456789012345678", "1234567890123456789"])
    assert decimal_codes(ids).tolist() == [0, 17, -1, -1, -1, -1, -1, -1, 123456789012345678, -1]


# ------------------------------------------------------------------------------- property test

def oracle(users, positives, negatives, score_of, ties, seed, self_negatives):
    """One line at a time, straight from the definition."""
    u_rand = np.random.default_rng(seed).random(len(users)) if ties == "random" else None
    out = []
    for i, (u, p) in enumerate(zip(users, positives)):
        t = score_of(u, p)
        greater = tied = 0
        for x in negatives[i]:
            if x == p:
                if self_negatives == "error":
                    raise DataError("self")
                tied += self_negatives == "tie"
                continue
            s = score_of(u, x)
            greater += s > t
            tied += s == t
        extra = {"optimistic": 0, "pessimistic": tied, "average": tied / 2}.get(ties)
        out.append(1 + greater + (extra if extra is not None else np.floor(u_rand[i] * (tied + 1))))
    return out


@st.composite
def problems(draw):
    n_users = draw(st.integers(1, 5))
    n_items = draw(st.integers(2, 9))
    n = draw(st.integers(1, 25))
    m = draw(st.integers(1, 6))
    seed = draw(st.integers(0, 2 ** 31))
    rng = np.random.default_rng(seed)
    users = rng.integers(0, n_users, n)
    positives = rng.integers(0, n_items, n)
    negatives = rng.integers(0, n_items, (n, m))  # repeats and self-draws included
    levels = draw(st.integers(1, 4))  # few distinct score values: many ties
    dense = rng.integers(0, levels, (n_users, n_items)).astype(np.float64)
    d = draw(st.integers(1, 3))
    uf = rng.integers(-2, 3, (n_users, d)).astype(np.float64)  # integer factors: exact products
    vf = rng.integers(-2, 3, (n_items, d)).astype(np.float64)
    drop = rng.random((n_users, n_items)) < draw(st.sampled_from([0.0, 0.2]))
    drop[0, 0] = False  # a run has at least one row
    # a sampled rank (up to m+1) cannot exceed the candidate-set size RelevantRanks holds it in
    return dict(users=users, positives=positives, negatives=negatives, dense=dense, uf=uf, vf=vf, drop=drop,
                n_items=max(n_items, m + 1),
                ties=draw(st.sampled_from(["optimistic", "pessimistic", "average", "random"])),
                self_negatives=draw(st.sampled_from(["ignore", "tie", "error"])),
                block_lines=draw(st.sampled_from([None, 1, 2, 7])), seed=seed)


@pytest.mark.slow
@settings(max_examples=120, deadline=None)
@given(problems())
def test_every_source_matches_the_per_line_loop(p):
    users, positives, negatives = p["users"], p["positives"], p["negatives"]
    dense, uf, vf, drop = p["dense"], p["uf"], p["vf"], p["drop"]
    opts = dict(ties=p["ties"], seed=p["seed"], self_negatives=p["self_negatives"], block_lines=p["block_lines"])
    sources = {
        "dense": (dense, lambda u, i: dense[u, i]),
        "factors": ((uf, vf), lambda u, i: float(sum(a * b for a, b in zip(uf[u], vf[i])))),
        "callable": (lambda us, its: (us[:, None] * 3 + its * 5) % 4, lambda u, i: (u * 3 + i * 5) % 4),
    }
    kept = np.argwhere(~drop)
    run = Run.from_arrays(kept[:, 0].astype(str), kept[:, 1].astype(str), dense[kept[:, 0], kept[:, 1]])

    def run_score(u, i):
        return -np.inf if drop[u, i] else dense[u, i]

    sources["run"] = (run, run_score)
    for name, (scores, score_of) in sources.items():
        extra = {"missing": "worst"} if name == "run" else {}
        try:
            want = oracle(users, positives, negatives, score_of, p["ties"], p["seed"], p["self_negatives"])
        except DataError:
            with pytest.raises(DataError, match="also one of its negatives"):
                sampled_ranks(users, positives, negatives, scores, n_items=p["n_items"], **opts, **extra)
            continue
        got = sampled_ranks(users, positives, negatives, scores, n_items=p["n_items"], **opts, **extra)
        assert got.ranks.ranks.tolist() == want, name
        assert got.ranks.query_ids.tolist() == users.tolist()
        assert got.self_negatives == int((negatives == positives[:, None]).any(axis=1).sum())
    # the run under the default policy: an error exactly when some candidate is unscored
    cand = np.concatenate([positives[:, None], negatives], axis=1)
    unscored = drop[users[:, None], cand].any()
    if p["self_negatives"] != "error" or not (negatives == positives[:, None]).any():
        if unscored:
            with pytest.raises(DataError, match="no score in the run"):
                sampled_ranks(users, positives, negatives, run, n_items=p["n_items"], **opts)
        else:
            sampled_ranks(users, positives, negatives, run, n_items=p["n_items"], **opts)


def ncf_rank(user, gt, negatives, score_of):
    """NCF's evaluate.py (hexiangnan/neural_collaborative_filtering) on Python 3.7+: the positive is
    appended after the negatives, scores go into a dict keyed by item, heapq.nlargest orders it."""
    items = list(negatives) + [gt]
    map_item_score = {}
    for item in items:
        map_item_score[item] = score_of(user, item)
    ranklist = heapq.nlargest(len(map_item_score), map_item_score, key=map_item_score.get)
    return ranklist.index(gt) + 1


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2 ** 31), st.integers(1, 4))
def test_pessimistic_and_ignore_is_what_ncf_code_does_on_python3(seed, levels):
    # without a self-negative the positive is inserted last and loses every tie (nlargest is
    # stable); with one, NCF keeps a single entry for it (our 'ignore'), at the negative's place
    rng = np.random.default_rng(seed)
    n, m, n_items = 30, 6, 12
    users = rng.integers(0, 3, n)
    positives = rng.integers(0, n_items, n)
    negatives = np.array([rng.choice(n_items, m, replace=False) for _ in range(n)])  # NCF: no repeats
    dense = rng.integers(0, levels, (3, n_items)).astype(float)
    ours = sampled_ranks(users, positives, negatives, dense, n_items=n_items)
    theirs = [ncf_rank(u, p, negs, lambda a, b: dense[a, b]) for u, p, negs in zip(users, positives, negatives)]
    plain = ~(negatives == positives[:, None]).any(axis=1)
    assert ours.ranks.ranks[plain].tolist() == [t for t, k in zip(theirs, plain) if k]
    opt = sampled_ranks(users, positives, negatives, dense, n_items=n_items, ties="optimistic")
    # with a self-negative NCF's rank lies between our optimistic and pessimistic ranks
    assert np.all((opt.ranks.ranks <= theirs) & (np.array(theirs) <= ours.ranks.ranks))


# ------------------------------------------------------------------------------ the real files

def test_real_ncf_ml1m_files():
    split = load_ncf(data_path("ncf-ml-1m", "ml-1m"))
    rng = np.random.default_rng(0)
    uf, vf = rng.normal(size=(split.n_users, 8)), rng.normal(size=(split.n_items, 8))
    r = sampled_ranks_ncf(split, (uf, vf))
    assert r.n_lines == 6040 and r.m == 99 and r.self_negatives == 156 and r.repeated_negatives == 0
    assert r.n_items.tolist() == [3706] * 6040
    assert any("sampled without replacement" in x for x in r.notes)
    sub = slice(0, 200)
    want = oracle(split.test_users[sub], split.test_items[sub], split.negatives[sub],
                  lambda u, i: float(uf[u] @ vf[i]), "pessimistic", None, "ignore")
    assert np.allclose(r.ranks.ranks[sub], want)
