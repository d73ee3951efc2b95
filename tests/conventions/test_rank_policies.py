"""The ranks of held-out items are formed under the convention too (issue #12: one convention system).

Each policy has one home (the preset), one vocabulary (ties: rankwise.spec.params.TIE_BREAKS) and is
honoured by the catalogue ranks, the sampled ranks, the simulations and the estimators alike.
"""
from __future__ import annotations

import numpy as np
import pytest

import rankwise as rw
from rankwise.catalogue.ranks import ranks_from_scores
from rankwise.cli.main import main
from rankwise.conventions import POLICIES, RANK_POLICIES
from rankwise.data.ranks import RelevantRanks
from rankwise.errors import InvalidParameterError
from rankwise.sampled import estimate, expected_sampled, sampled_ranks, simulate
from rankwise.spec.params import CANDIDATE_TIES, RUN_TIES, TIE_BREAKS


def test_one_tie_vocabulary():
    assert set(RUN_TIES) | set(CANDIDATE_TIES) == set(TIE_BREAKS)
    assert tuple(rw.get_convention("trec_eval").derive(ties="average").defaults["ties"] for _ in [0]) == ("average",)
    assert set(RANK_POLICIES["candidate_ties"]["choices"]) == set(CANDIDATE_TIES)
    # a run's order does not apply to a held-out item's candidates, and the message says so
    with pytest.raises(InvalidParameterError, match="docid_desc orders a run's documents"):
        rw.get_convention("trec_eval").derive(candidate_ties="docid_desc")
    with pytest.raises(InvalidParameterError, match="ties must be one of optimistic, pessimistic, average, random"):
        ranks_from_scores(np.zeros((1, 3)), None, ([0], [1]), ties="input")


@pytest.mark.parametrize("name", sorted(rw.PRESETS))
def test_every_preset_sets_every_policy(name):
    conv = rw.PRESETS[name]
    for policy, spec in POLICIES.items():
        value = getattr(conv, policy)
        assert not spec["choices"] or value in spec["choices"], (name, policy, value)


def test_protocol_presets():
    ncf, kr = rw.get_convention("ncf"), rw.get_convention("krichene_rendle")
    assert (ncf.replacement, ncf.candidate_ties, ncf.self_negatives) == ("without", "pessimistic", "ignore")
    assert (kr.replacement, kr.candidate_ties) == ("with", "random")
    assert kr.default("AP", "denominator") == "min_k_relevant"
    with pytest.raises(InvalidParameterError, match="replacement must be one of with, without"):
        rw.get_convention("trec_eval").derive(replacement="sometimes")


def test_catalogue_ties_default_to_the_convention():
    scores = np.array([[0.5, 0.5, 0.5, 0.1]])
    held = ([0], [0])
    assert ranks_from_scores(scores, None, held).ranks.tolist() == [3.0]  # pessimistic (trec_eval's policy)
    optimistic = rw.get_convention("trec_eval").derive(candidate_ties="optimistic")
    assert ranks_from_scores(scores, None, held, convention=optimistic).ranks.tolist() == [1.0]
    assert ranks_from_scores(scores, None, held, ties="average").ranks.tolist() == [2.0]  # an argument wins
    with pytest.raises(InvalidParameterError, match="needs an explicit seed"):
        ranks_from_scores(scores, None, held, convention="krichene_rendle")
    assert ranks_from_scores(scores, None, held, convention="krichene_rendle", seed=0).ranks[0] in (1.0, 2.0, 3.0)


def test_sampled_ranks_policies_default_to_the_convention():
    users, pos = np.array([0]), np.array([0])
    negatives = np.array([[0, 1, 2]])  # the positive is listed among its own negatives
    scores = np.array([[1.0, 1.0, 0.0]])  # item 1 ties with it
    base = sampled_ranks(users, pos, negatives, scores, n_items=3)
    assert base.ranks.ranks.tolist() == [2.0]  # pessimistic: loses the tie with item 1; the self-copy is ignored
    tie = sampled_ranks(users, pos, negatives, scores, n_items=3,
                        convention=rw.get_convention("ncf").derive(self_negatives="tie"))
    assert tie.ranks.ranks.tolist() == [3.0]
    with pytest.raises(Exception, match="itself|self"):
        sampled_ranks(users, pos, negatives, scores, n_items=3,
                      convention=rw.get_convention("trec_eval").derive(self_negatives="error"))


def test_replacement_and_estimator_come_from_the_convention():
    rng = np.random.default_rng(0)
    truth = RelevantRanks.single(rng.integers(1, 500, 300).astype(float), 500)
    sample = simulate(truth, 20, seed=1, convention="ncf")[0]
    assert sample.ranks.max() <= 21
    with_ncf = estimate(sample, 500, 20, ["Recall@10"], convention="ncf", bootstrap=0)
    explicit = estimate(sample, 500, 20, ["Recall@10"], replacement=False, bootstrap=0)
    assert with_ncf.values == explicit.values
    assert with_ncf.estimator == rw.get_convention("ncf").estimator
    other = rw.get_convention("trec_eval").derive(estimator="bv(0.1)")
    assert estimate(sample, 500, 20, ["Recall@10"], convention=other, bootstrap=0).estimator == "bv(0.1)"
    e_with = expected_sampled(truth, 20, "AP")["AP"].mean
    e_without = expected_sampled(truth, 20, "AP", convention="ncf")["AP"].mean
    assert e_with != e_without and e_without == expected_sampled(truth, 20, "AP", replacement=False)["AP"].mean


def test_conventions_and_explain_show_the_rank_policies(capsys):
    assert main(["conventions"]) == 0
    out = capsys.readouterr().out
    assert "ncf  (diff from trec_eval)" in out and "replacement=without" in out
    text = rw.explain("AP@10")
    assert "candidate_ties" in text and "replacement" in text and "estimator" in text
    assert "candidate_ties" not in rw.explain("bpref")  # no rank form: the rank policies do not apply
