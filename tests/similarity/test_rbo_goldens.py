"""RBO against the reference implementations' values, committed as goldens (tests/golden/similarity/).

* Corsi & Urbano's rbo.py (SIGIR 2024, github.com/julian-urbano/sigir2024-rbo at commit 0338fd9d): ext, min,
  max and res for ties w, a and b, at five p, on 47 pairs of rankings with and without ties;
* PyPI rbo 0.1.3 (pins numpy<2, so generated in a throwaway venv): what its RankingSimilarity returns, and
  which rankwise variant that is. Its rbo() truncates both rankings to the shorter one; rankwise does that only
  when asked (@k with k = the shorter length).

The generator and its command: tests/golden/similarity/make_rbo_goldens.py.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from rankwise.agreement.rbo_values import average_overlap, rbo
from tests.similarity.rbo_pairs import make_pairs

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "similarity"


def _load(name: str) -> dict:
    return json.loads((GOLDEN / name).read_text())


def test_corsi_urbano_every_variant():
    data = _load("corsi_urbano_rbo.json")
    assert data["commit"] == "0338fd9dee6d51b5c51a40cb72c9fc73837c3a4a"
    cases = data["cases"]
    pairs = make_pairs([(c["x"], c["y"]) for c in cases])
    checked = 0
    for key in cases[0]["ext,min,max,res"]:
        p_text, ties_text = key.split(",")
        p, ties = float(p_text.removeprefix("p=")), ties_text.removeprefix("ties=")
        for j, value in enumerate(("ext", "min", "max", "res")):
            expected = np.array([c["ext,min,max,res"][key][j] for c in cases])
            np.testing.assert_allclose(rbo(pairs, p=p, value=value, ties=ties), expected, rtol=1e-10,
                                       atol=1e-13, err_msg=f"{key} {value}")
            checked += len(cases)
    assert checked == 47 * 5 * 3 * 4


def test_without_ties_every_tie_variant_is_the_broken_one():
    cases = [c for c in _load("corsi_urbano_rbo.json")["cases"] if all(len(g) == 1 for g in c["x"] + c["y"])]
    pairs = make_pairs([(c["x"], c["y"]) for c in cases])
    for p in (0.8, 0.95):
        for value in ("ext", "min", "max"):
            expected = np.array([c["ext,min,max,res"][f"p={p},ties=a"][("ext", "min", "max").index(value)]
                                 for c in cases])
            np.testing.assert_allclose(rbo(pairs, p=p, value=value, ties="broken"), expected, rtol=1e-10)


def test_rbo_package_as_rankwise_variants():
    data = _load("rbo_package.json")
    assert data["version"] == "0.1.3"
    for case in data["cases"]:
        pairs = make_pairs([(case["x"], case["y"])])
        shorter = min(len(case["x"]), len(case["y"]))
        # rbo(): p=1 by default, both rankings cut to the shorter: average overlap at that depth
        assert average_overlap(pairs, shorter, ties="broken")[0] == pytest.approx(case["default"], rel=1e-10)
        for p in (0.5, 0.8, 0.9, 0.95, 0.99):
            got_sum = rbo(pairs, shorter, p=p, value="sum", ties="broken")[0]
            assert got_sum == pytest.approx(case[f"p={p}"], rel=1e-10, abs=1e-15), case["name"]
            got_ext = rbo(pairs, shorter, p=p, value="ext", ties="broken")[0]
            assert got_ext == pytest.approx(case[f"p={p},ext"], rel=1e-10, abs=1e-15), case["name"]
            # rbo_ext(): Webber et al.'s eq. 32 on the whole rankings
            whole = rbo(pairs, None, p=p, value="ext", ties="broken")[0]
            assert whole == pytest.approx(case[f"rbo_ext p={p}"], rel=1e-10, abs=1e-15), case["name"]


def test_rbo_package_truncation_differs_on_different_lengths():
    # the trap: rbo(p, ext=True) cuts the longer ranking to the shorter, RBO_ext does not
    case = next(c for c in _load("rbo_package.json")["cases"] if c["name"] == "different lengths")
    pairs = make_pairs([(case["x"], case["y"])])
    whole = rbo(pairs, None, p=0.9, value="ext", ties="broken")[0]
    assert whole == pytest.approx(case["rbo_ext p=0.9"], rel=1e-12)
    assert abs(whole - case["p=0.9,ext"]) > 0.01
