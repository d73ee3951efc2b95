"""rankwise.repro against repro_eval 0.5.0 on the committed fixture (tests/golden/repro: generator scripts,
versions and command in goldens.json), for every measure whose definition is not one of its defects."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from rankwise.agreement.reproduction import repro

HERE = Path(__file__).resolve().parents[1] / "golden" / "repro"
GOLDEN = json.loads((HERE / "goldens.json").read_text())
# ir_measures names (repro_eval's keys) as rankwise names them; every other key is spelled alike
RENAMED = {"SetP(relative=True)": "SetRelP"}
KEYS = sorted(GOLDEN["reproducibility"]["rmse"]["baseline"])
METRICS = [RENAMED.get(k, k) for k in KEYS]


@pytest.fixture(scope="module")
def rpd():
    return repro(*(str(HERE / n) for n in ("orig_b.run", "orig_a.run", "rpd_b.run", "rpd_a.run", "qrels.txt")),
                 METRICS)


@pytest.fixture(scope="module")
def rpl():
    return repro(*(str(HERE / n) for n in ("orig_b.run", "orig_a.run", "rpl_b.run", "rpl_a.run", "qrels.txt")),
                 METRICS, reproduced_qrels=str(HERE / "qrels_rpl.txt"))


def _check(ours: np.ndarray, theirs: dict[str, float], skip: tuple[str, ...] = ()) -> None:
    assert len(KEYS) == 58
    for i, k in enumerate(KEYS):
        if k in skip:
            continue
        want = theirs[k]
        if math.isnan(want) or math.isinf(want):  # repro_eval divides by zero silently; rankwise: NaN and a note
            assert math.isnan(ours[i]), k
        else:
            assert ours[i] == pytest.approx(want, abs=1e-12), k


def test_ranked_topics_and_fixture_version() -> None:
    assert GOLDEN["version"] == "0.5.0" and GOLDEN["commit"].startswith("63b5d8c")


def test_rmse_and_nrmse(rpd) -> None:
    g = GOLDEN["reproducibility"]
    for s in ("baseline", "advanced"):
        _check(rpd.rmse[s], g["rmse"][s])
        _check(rpd.nrmse[s], g["nrmse"][s])


def test_effect_ratio_and_delta_ri(rpd, rpl) -> None:
    for result, g in ((rpd, GOLDEN["reproducibility"]), (rpl, GOLDEN["replicability"])):
        _check(result.er, g["er"])
        _check(result.dri, g["dri"])  # IPrec@1.0: both NaN (a baseline averaging 0), rankwise says so in a note
    assert any(n.startswith("IPrec@1.0: ΔRI is undefined") for n in rpd.notes)
    # the replicated baseline's IPrec@0.9 averages 0: repro_eval returns ΔRI = -inf, rankwise NaN with a note
    assert GOLDEN["replicability"]["dri"]["IPrec@0.9"] == -math.inf
    assert "IPrec@0.9: ΔRI is undefined: the reproduced baseline scores 0 on average, so its relative improvement " \
           "has no denominator" in rpl.notes


def test_paired_ttests(rpd) -> None:
    g = GOLDEN["reproducibility"]["ttest"]
    _check(rpd.ttests["advanced"].pvalue, g["advanced"])
    # IPrec@1.0 of the baseline is 0 for every topic in both runs: repro_eval leaves scipy's NaN (it sets p = 1
    # only when every metric of the run is identical), rankwise decides p = 1 per metric
    _check(rpd.ttests["baseline"].pvalue, g["baseline"], skip=("IPrec@1.0",))
    i = KEYS.index("IPrec@1.0")
    assert math.isnan(g["baseline"]["IPrec@1.0"]) and rpd.ttests["baseline"].pvalue[i] == 1.0


def test_unpaired_ttests_are_students(rpl) -> None:
    g = GOLDEN["replicability"]["ttest"]
    for s in ("baseline", "advanced"):
        _check(rpl.ttests[s].pvalue, g[s], skip=("IPrec@1.0",) if s == "baseline" else ())
    assert rpl.ttests["baseline"].test.startswith("Student's t")


@pytest.mark.peer
@pytest.mark.slow
def test_goldens_are_what_repro_eval_writes(tmp_path: Path) -> None:
    """Where repro_eval 0.5.0 is installed (it is not in the test extra: it imports pandas without declaring it
    and pulls GitPython and pytrec_eval), the committed goldens are regenerated and compared."""
    pytest.importorskip("repro_eval")
    pytest.importorskip("pandas")
    import subprocess
    import sys
    subprocess.run([sys.executable, str(HERE / "make_goldens.py"), str(tmp_path / "g.json")], check=True)
    fresh = json.loads((tmp_path / "g.json").read_text())
    for part in ("reproducibility", "replicability"):
        assert fresh[part].keys() == GOLDEN[part].keys()
        assert json.dumps(fresh[part], sort_keys=True) == json.dumps(GOLDEN[part], sort_keys=True)


def test_per_topic_values_and_means(rpd, rpl) -> None:
    """The four runs' per-topic values (and so their ARP) are those repro_eval gets through ir_measures."""
    scores = {**GOLDEN["reproducibility"]["scores"], **GOLDEN["replicability"]["scores"]}
    for result, roles in ((rpd, {"original_baseline": "orig_b", "original_advanced": "orig_a",
                                 "reproduced_baseline": "rpd_b", "reproduced_advanced": "rpd_a"}),
                          (rpl, {"reproduced_baseline": "rpl_b", "reproduced_advanced": "rpl_a"})):
        for role, name in roles.items():
            ids = [str(q) for q in (result.query_ids if role.startswith("original") else result.reproduced_query_ids)]
            assert sorted(ids) == sorted(scores[name])
            want = np.array([[scores[name][q][k] for k in KEYS] for q in ids])
            np.testing.assert_allclose(result.values[role], want, rtol=0, atol=1e-12, err_msg=role)
            np.testing.assert_allclose(result.arp[role], want.mean(axis=0), rtol=0, atol=1e-12, err_msg=role)
