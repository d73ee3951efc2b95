"""The per-topic ranking measures of a reproduction (RBO and Kendall's tau union, from rankwise.similarity)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from rankwise.agreement.reproduction import repro

HERE = Path(__file__).resolve().parents[1] / "golden" / "repro"
RPD = [str(HERE / n) for n in ("orig_b.run", "orig_a.run", "rpd_b.run", "rpd_a.run")]
GOLDEN = json.loads((HERE / "goldens.json").read_text())["reproducibility"]


def test_repro_evals_rbo_is_the_depth_normalised_form() -> None:
    # repro_eval 0.5.0's RBO (document_order.py, _rbo, after Clarke et al.'s code) divides the truncated sum by the
    # weights to the depth, p = 0.95 and depth 1000 by default: LensKit's normalisation. The fixture's run files
    # are in trec_eval's order, so repro_eval's file order is the ranking here.
    measure = "LenskitRBO(p=0.95)@1000"
    r = repro(*RPD, str(HERE / "qrels.txt"), "AP", measures=[measure])
    ids = [str(q) for q in r.query_ids]
    for system in ("baseline", "advanced"):
        want = GOLDEN["rbo_per_topic"][system]
        got = r.ranking[measure][system]
        assert sorted(want) == sorted(ids)
        np.testing.assert_allclose([got[ids.index(q)] for q in want], list(want.values()), rtol=0, atol=1e-12)


def _runs(names: dict[str, str]) -> list[dict[str, dict[str, float]]]:
    """repro_eval's renaming example as four runs: original a, b, c, d; reproduced b, a, c, e (no ties)."""
    orig = {"1": {names[d]: float(4 - i) for i, d in enumerate("abcd")}}
    rep = {"1": {names[d]: float(4 - i) for i, d in enumerate("bace")}}
    return [orig, orig, rep, rep]


def test_kendalls_tau_union_does_not_depend_on_document_names() -> None:
    # repro_eval 0.5.0's KTU is 0.667 with these names and -0.667 after renaming a to z (its union positions
    # follow the alphabet); rankwise's is the same for both namings
    plain = {d: d for d in "abcde"}
    renamed = {**plain, "a": "z"}
    values = []
    for names in (plain, renamed):
        qrels = {"1": {names["a"]: 1}}
        values.append(repro(*_runs(names), qrels, "P@1", measures=["KTU@1000"]).ranking["KTU@1000"]["baseline"][0])
    assert values[0] == values[1]
