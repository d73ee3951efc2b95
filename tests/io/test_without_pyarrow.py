"""The core needs only numpy/scipy: with pyarrow hidden, every fallback path (strict TREC parser,
numpy interning, sort-based join, duplicate check) must give exactly what the pyarrow paths give."""
import sys

import numpy as np
import pytest

import rankwise as rw
from rankwise.examples import DATASETS, dataset

METRICS = ["P@5", "R@10", "AP", "AP@10", "RR", "nDCG@10", "nDCG(gain=exp)", "bpref", "RBP", "ERR@10", "uAP"]


def _evaluate_all():
    out = {}
    for name in DATASETS:
        q, r = dataset(name)
        for conv in ("trec_eval", "mllib", "recsys_confusion", "sklearn"):
            ms = [m for m in METRICS if conv != "sklearn" or m.startswith(("nDCG", "P@", "R@", "RBP"))]
            res = rw.evaluate(rw.Qrels.read(q), rw.Run.read(r), ms, convention=conv)
            out[(name, conv)] = (list(res.query_ids), {m: res.values[m].copy() for m in ms})
    return out


@pytest.mark.slow
def test_fallbacks_without_pyarrow_match_the_pyarrow_paths(monkeypatch, tmp_path):
    pytest.importorskip("pyarrow")
    with_arrow = _evaluate_all()
    for mod in [m for m in sys.modules if m == "pyarrow" or m.startswith("pyarrow.")]:
        monkeypatch.delitem(sys.modules, mod)
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # `import pyarrow` now raises ImportError
    without = _evaluate_all()
    assert with_arrow.keys() == without.keys()
    for key, (ids, values) in with_arrow.items():
        ids2, values2 = without[key]
        assert ids == ids2, key
        for m in values:
            np.testing.assert_array_equal(values[m], values2[m], err_msg=str((key, m)))
    # strict errors and duplicate handling on the numpy path
    bad = tmp_path / "bad.run"
    bad.write_text("q1 Q0 d1 1 1.0 t\nq1 Q0 d1 2 0.5 t\n")
    with pytest.raises(rw.ParseError, match=":2"):
        rw.Run.read(bad)
    assert rw.Run.read(bad, duplicates="max").to_dict() == {"q1": {"d1": 1.0}}
