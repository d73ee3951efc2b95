"""Worked examples of the rank correlations: hand arithmetic, ircor's goldens (tau_AP-a/b), repro_eval's KTU."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from rankwise.agreement.rank_correlation import kendall_tau, tau_ap
from rankwise.agreement.rank_correlation_kernels import kendall_tau_b_segments, tau_ap_segments
from tests.reference import rank_correlation_naive as naive
from tests.similarity.lists import pairs_from_lists

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "similarity"


def test_one_swap_at_the_top_weighs_more_than_at_the_bottom() -> None:
    # reference a = 1..5; b swaps the top two, or the bottom two. Kendall: 9 concordant, 1 discordant of 10
    # pairs either way, tau = 0.8. tau_AP (b the candidate): top swap, C(i)/(i-1) over i = 2..5 is
    # 0/1 + 2/2 + 3/3 + 4/4 = 3, 2/4 * 3 - 1 = 0.5; bottom swap, 1/1 + 2/2 + 3/3 + 3/4 = 3.75 -> 0.875.
    ref = [1, 2, 3, 4, 5]
    pairs = pairs_from_lists([ref, ref], [[2, 1, 3, 4, 5], [1, 2, 3, 5, 4]])
    np.testing.assert_allclose(kendall_tau(pairs, None, {"items": "shared"}), [0.8, 0.8])
    for ties in ("a", "b"):
        np.testing.assert_allclose(tau_ap(pairs, None, {"reference": "a", "ties": ties}), [0.5, 0.875])
    # with b as the reference, a is the candidate: the same single swap, at the same ranks
    np.testing.assert_allclose(tau_ap(pairs, None, {"reference": "b", "ties": "b"}), [0.5, 0.875])


def test_tau_ap_is_asymmetric() -> None:
    # a = 1 2 3 4, b = 2 3 4 1: as candidate b puts 2, 3, 4 above 1 (reference a has 1 on top):
    # C = 1/1 + 2/2 + 0/3 -> 2/3 * 2 - 1 = 1/3; as candidate a: C = 0/1 + 1/2 + 2/3 -> 2/3 * 7/6 - 1 = -2/9
    pairs = pairs_from_lists([[1, 2, 3, 4]], [[2, 3, 4, 1]])
    assert tau_ap(pairs, None, {"reference": "a", "ties": "b"})[0] == pytest.approx(1 / 3)
    assert tau_ap(pairs, None, {"reference": "b", "ties": "b"})[0] == pytest.approx(-2 / 9)
    assert tau_ap(pairs, None, {"reference": "symmetric", "ties": "b"})[0] == pytest.approx((1 / 3 - 2 / 9) / 2)


def test_ties_in_the_candidate_by_hand() -> None:
    # reference 1 2 3, candidate (1 2) 3. tau_AP-a: the two orders 1 2 3 (tau_AP 1) and 2 1 3 (0/1 + 2/2
    # -> 0) are equally likely: 0.5. tau_AP-b: only 3 is outside the top group, with both above it in the
    # reference: C / (p - 1) = 2 / 2 = 1 -> 2 * 1 / 1 - 1 = 1. Kendall's tau-b: 2 concordant pairs, 1 tied
    # in the candidate: 2 / sqrt(3 * 2).
    pairs = pairs_from_lists([[1, 2, 3]], [[(1, 2), 3]])
    assert tau_ap(pairs, None, {"reference": "a", "ties": "a"})[0] == pytest.approx(0.5)
    assert tau_ap(pairs, None, {"reference": "a", "ties": "b"})[0] == pytest.approx(1.0)
    assert kendall_tau(pairs, None, {"items": "shared"})[0] == pytest.approx(2 / np.sqrt(6))


def test_union_by_hand() -> None:
    # a = x y z, b = y x w; union x y z w; z is missing from b (tied below b's last: rank 3), w from a.
    # pairs (x,y) D, (x,z) C, (x,w) C, (y,z) C, (y,w) C, (z,w) D: (4 - 2) / 6 = 1/3. On the shared x, y: -1.
    pairs = pairs_from_lists([["x", "y", "z"]], [["y", "x", "w"]])
    assert kendall_tau(pairs, None, {"items": "union"})[0] == pytest.approx(1 / 3)
    assert kendall_tau(pairs, None, {"items": "shared"})[0] == pytest.approx(-1.0)
    # @2: a = x y, b = y x: the union is the shared set
    assert kendall_tau(pairs, 2, {"items": "union"})[0] == pytest.approx(-1.0)


def _ircor_cases() -> list[dict]:
    return json.loads((GOLDEN / "ircor_tauap.json").read_text())["cases"]


@pytest.mark.parametrize("key, fn", [
    ("tau_b", lambda o, x, y: kendall_tau_b_segments(o, x, y)),
    ("tauAP_a", lambda o, x, y: tau_ap_segments(o, x, y, ties="a")),
    ("tauAP_b", lambda o, x, y: tau_ap_segments(o, x, y, ties="b", symmetric=True)),
    ("tauAP_b_ties", lambda o, x, y: tau_ap_segments(o, x, y, ties="b")),
])
def test_ircor_goldens(key: str, fn) -> None:  # type: ignore[no-untyped-def]
    # all cases as segments of one call, so the vectorised path is what is checked
    cases = _ircor_cases()
    offsets = np.concatenate([[0], np.cumsum([len(c["x"]) for c in cases])])
    x = np.concatenate([c["x"] for c in cases])
    y = np.concatenate([c["y"] for c in cases])
    got = fn(offsets, x, y)
    want = np.array([np.nan if c[key] is None else c[key] for c in cases])
    # ircor stops (tau_AP-a with ties in x) or returns NaN / Inf exactly where ours is undefined
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got[~np.isnan(want)], want[~np.isnan(want)], rtol=0, atol=1e-12)


def test_ircor_plain_tau_ap_without_ties() -> None:
    for c in _ircor_cases():
        if c["tauAP"] is None:
            continue
        o = np.array([0, len(c["x"])])
        for ties in ("a", "b"):  # without ties both are Yilmaz's tau_AP
            got = tau_ap_segments(o, np.array(c["x"]), np.array(c["y"]), ties=ties)[0]  # type: ignore[arg-type]
            assert got == pytest.approx(c["tauAP"], abs=1e-12)


def test_ircor_readme_examples() -> None:
    # the README of ircor (github.com/julian-urbano/ircor): tauAP 0.7491182, tauAP_a 0.6074515,
    # tauAP_b 0.6269841 (x true, y estimated; ties by rounding to fifths)
    x = np.array([0.06, 0.2, 0.27, 0.37, 0.57, 0.63, 0.66, 0.9, 0.91, 0.94])
    y = np.array([0.37, 0.06, 0.2, 0.27, 0.57, 0.66, 0.63, 0.91, 0.9, 0.94])
    o = np.array([0, 10])
    assert tau_ap_segments(o, x, y)[0] == pytest.approx(0.7491182, abs=5e-8)
    y5 = np.round(y * 5) / 5
    assert tau_ap_segments(o, x, y5, ties="a")[0] == pytest.approx(0.6074515, abs=5e-8)
    x5 = np.round(x * 5) / 5
    assert tau_ap_segments(o, x5, y5, ties="b", symmetric=True)[0] == pytest.approx(0.6269841, abs=5e-8)


def test_ircor_manual_examples() -> None:
    # ircor's manual page tauAP.Rd (its examples and their printed output): 0.3928571 without ties; with y
    # rounded to one decimal tauAP_a 0.39903 and tauAP_b 0.3317019; with x rounded too tauAP_b 0.339418
    x = np.array([0.67, 0.45, 0.29, 0.12, 0.57, 0.24, 0.94, 0.75, 0.08, 0.54])
    y = np.array([0.48, 0.68, 0.32, 0.09, 0.06, 0.61, 0.87, 0.22, 0.44, 0.84])
    o = np.array([0, 10])
    assert tau_ap_segments(o, x, y, ties="a")[0] == pytest.approx(0.3928571, abs=5e-8)
    y1 = np.round(y, 1)
    assert tau_ap_segments(o, x, y1, ties="a")[0] == pytest.approx(0.39903, abs=5e-6)
    assert tau_ap_segments(o, x, y1, ties="b", symmetric=True)[0] == pytest.approx(0.3317019, abs=5e-8)
    x1 = np.round(x, 1)
    assert tau_ap_segments(o, x1, y1, ties="b", symmetric=True)[0] == pytest.approx(0.339418, abs=5e-7)


def test_ktu_does_not_depend_on_document_names_unlike_repro_eval() -> None:
    data = json.loads((GOLDEN / "repro_eval_ktu.json").read_text())
    assert data["version"] == "0.5.0"
    cases = data["cases"]
    first = cases[0]
    # the example: repro_eval 0.5.0 gives 0.067, and -0.2 once the documents are renamed
    assert first["ktu"] == pytest.approx(1 / 15, abs=1e-12) and first["ktu_renamed"] == pytest.approx(-0.2)
    before = pairs_from_lists([c["orig"] for c in cases], [c["rep"] for c in cases])
    after = pairs_from_lists([c["orig_renamed"] for c in cases], [c["rep_renamed"] for c in cases])
    ours = kendall_tau(before, None, {"items": "union"})
    np.testing.assert_array_equal(ours, kendall_tau(after, None, {"items": "union"}))
    np.testing.assert_allclose(ours, [naive.kendall_union(c["orig"], c["rep"]) for c in cases], atol=1e-12)
    # ours: the same six documents, b's order is a's positions 0 2 5 4 3 1: 7 of the 15 pairs discordant,
    # (8 - 7) / 15 = 0.067 whatever the names. repro_eval agrees only before the renaming, where the original
    # list happens to be in alphabetical order (its index in the sorted union is then its position)
    assert ours[0] == pytest.approx(1 / 15)
    assert sum(abs(c["ktu"] - c["ktu_renamed"]) > 1e-9 for c in cases) >= len(cases) // 2


def test_the_tauapb_alias_is_ircors_tauap_b_through_similarity() -> None:
    # ircor's tauAP_b averages both directions (so does rankwise.correlate's tau_ap_b): the alias must too, and
    # TauAPa is ircor's one-way tauAP_a with the first run as the reference (x, the "true" scores)
    import rankwise as rw
    cases = [c for c in _ircor_cases() if c["tauAP_b"] is not None and c["tauAP_a"] is not None][:40]
    x = {f"q{i}": {f"d{j}": v for j, v in enumerate(c["x"])} for i, c in enumerate(cases)}
    y = {f"q{i}": {f"d{j}": v for j, v in enumerate(c["y"])} for i, c in enumerate(cases)}
    sim = rw.similarity(x, y, ["TauAPb", "TauAPa"], intervals=False, scores="float64", ties="input")
    order = np.argsort([int(q[1:]) for q in map(str, sim.query_ids)])
    np.testing.assert_allclose(sim.values["TauAPb"][order], [c["tauAP_b"] for c in cases], atol=1e-12)
    np.testing.assert_allclose(sim.values["TauAPa"][order], [c["tauAP_a"] for c in cases], atol=1e-12)
    assert sim.resolved["TauAPb"] == "TauAP(reference=symmetric,ties=b)"
