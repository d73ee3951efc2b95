"""Writes goldens.json: repro_eval 0.5.0's measures on the fixture of make_fixture.py.

Run in a throwaway environment (repro_eval pins nothing, but imports pandas without declaring it):

    python -m venv /tmp/venv-repro
    /tmp/venv-repro/bin/pip install repro_eval==0.5.0 pandas
    /tmp/venv-repro/bin/python tests/golden/repro/make_goldens.py [OUT.json]

repro_eval 0.5.0 is irgroup/repro_eval commit 63b5d8c (the PyPI files are that commit's); it evaluates through
ir_measures with the pytrec_eval backend. Its KTU is not a golden (it changes when documents are renamed:
docs/reproducibility.md); its RBO is recorded per topic for the RBO variant that normalises by the weights to the
depth (ported by repro_eval from Clarke et al.'s code; LensKit's normalisation, not ir_measures' Compat, which
divides by the ideal ranking's value), which the run files' trec_eval order makes well defined here.
"""
from __future__ import annotations

import json
import platform
import sys
from importlib.metadata import version
from pathlib import Path

from repro_eval.Evaluator import RpdEvaluator, RplEvaluator

HERE = Path(__file__).resolve().parent


def _plain(d):
    return {k: (_plain(v) if isinstance(v, dict) else float(v)) for k, v in d.items()}


def main(out_path: Path = HERE / "goldens.json") -> None:
    f = {n: str(HERE / n) for n in ("qrels.txt", "qrels_rpl.txt", "orig_b.run", "orig_a.run", "rpd_b.run",
                                     "rpd_a.run", "rpl_b.run", "rpl_a.run")}
    rpd = RpdEvaluator(qrels_orig_path=f["qrels.txt"], run_b_orig_path=f["orig_b.run"],
                       run_a_orig_path=f["orig_a.run"], run_b_rep_path=f["rpd_b.run"], run_a_rep_path=f["rpd_a.run"])
    rpd.trim()
    rpd.evaluate()
    rpl = RplEvaluator(qrels_orig_path=f["qrels.txt"], qrels_rpl_path=f["qrels_rpl.txt"],
                       run_b_orig_path=f["orig_b.run"], run_a_orig_path=f["orig_a.run"],
                       run_b_rep_path=f["rpl_b.run"], run_a_rep_path=f["rpl_a.run"])
    rpl.trim()
    rpl.evaluate()
    out = {
        "tool": "repro_eval", "version": version("repro_eval"), "commit": "63b5d8c7a2cd03306ebf46c560d742563da6433c",
        "backend": {"ir_measures": version("ir_measures"), "pytrec_eval_terrier": version("pytrec_eval_terrier"),
                    "scipy": version("scipy"), "numpy": version("numpy")},
        "python": platform.python_version(),
        "command": "/tmp/venv-repro/bin/python tests/golden/repro/make_goldens.py",
        "reproducibility": {
            "scores": {"orig_b": rpd.run_b_orig_score, "orig_a": rpd.run_a_orig_score,
                       "rpd_b": rpd.run_b_rep_score, "rpd_a": rpd.run_a_rep_score},
            "rmse": _plain(rpd.rmse()), "nrmse": _plain(rpd.nrmse()), "er": _plain(rpd.er()),
            "dri": _plain(rpd.dri()), "ttest": _plain(rpd.ttest()),
            "rbo_per_topic": _plain(rpd.rbo(per_topic=True)),
            "ktu_per_topic_not_a_golden": _plain(rpd.ktu(per_topic=True)),
        },
        "replicability": {
            "scores": {"rpl_b": rpl.run_b_rep_score, "rpl_a": rpl.run_a_rep_score},
            "er": _plain(rpl.er()), "dri": _plain(rpl.dri()), "ttest": _plain(rpl.ttest()),
        },
    }
    out_path.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print("wrote", out_path, file=sys.stderr)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "goldens.json")
