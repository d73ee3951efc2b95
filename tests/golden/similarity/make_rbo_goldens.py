"""Generate the RBO goldens from the reference implementations (run in a throwaway venv, not by the tests).

    python -m venv /tmp/venv-rbo && /tmp/venv-rbo/bin/pip install rbo==0.1.3 'numpy<2'
    git -C sigir2024-rbo show 0338fd9dee6d51b5c51a40cb72c9fc73837c3a4a:rbo/Python/rbo.py > /tmp/corsi/rbo.py
    /tmp/venv-rbo/bin/python tests/golden/similarity/make_rbo_goldens.py /tmp/corsi/rbo.py

Writes corsi_urbano_rbo.json (Corsi & Urbano's rbo(): ext/min/max/res for ties w, a and b; github.com/
julian-urbano/sigir2024-rbo, rbo/Python/rbo.py at commit 0338fd9d) and rbo_package.json (PyPI rbo 0.1.3,
RankingSimilarity: rbo() with its default p=1, rbo(p), rbo(p, ext=True) and rbo_ext(p)). Rankings are lists
of tie groups (lists of item names); the cases are seeded random rankings with and without ties, of equal and
of different lengths, plus hand-picked ones (identical, disjoint, one swap at the top / at the bottom).
Neither tool accepts an empty ranking (Corsi & Urbano's code fails on it; rbo returns 0 or 1), so none is here.
"""
from __future__ import annotations

import json
import random
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

HERE = Path(__file__).resolve().parent
PS = (0.5, 0.8, 0.9, 0.95, 0.99)


def _random_ranking(rng: random.Random, pool: list[str], n: int, tie_rate: float) -> list[list[str]]:
    items = rng.sample(pool, n)
    groups, i = [], 0
    while i < n:
        g = 1 if rng.random() >= tie_rate else rng.randint(2, 4)
        groups.append(items[i:i + g])
        i += g
    return groups


def cases() -> list[dict]:
    strict = [[c] for c in "abcdefgh"]
    out = [
        {"name": "identical", "x": strict, "y": strict},
        {"name": "disjoint", "x": strict[:4], "y": [[c] for c in "wxyz"]},
        {"name": "swap at the top", "x": strict, "y": [["b"], ["a"]] + strict[2:]},
        {"name": "swap at the bottom", "x": strict, "y": strict[:6] + [["h"], ["g"]]},
        {"name": "different lengths", "x": strict[:3], "y": [["a"], ["x"], ["c"], ["b"], ["y"], ["z"]]},
        {"name": "ties", "x": [["a"], ["b", "c"], ["d"], ["e"]], "y": [["b", "a"], ["f"], ["d", "e", "g"], ["c"]]},
        {"name": "all tied", "x": [list("abcd")], "y": [list("badc")]},
    ]
    rng = random.Random(20240714)
    for i in range(40):
        pool = [f"i{j}" for j in range(rng.randint(6, 30))]
        nx = rng.randint(1, min(15, len(pool)))
        ny = rng.randint(1, min(15, len(pool))) if i % 3 else nx
        rate = (0.0, 0.2, 0.5)[i % 3]
        out.append({"name": f"random {i}", "x": _random_ranking(rng, pool, nx, rate),
                    "y": _random_ranking(rng, pool, ny, rate)})
    return out


def _as_corsi(r: list[list[str]]) -> list:
    return [g[0] if len(g) == 1 else set(g) for g in r]


def corsi(path: str) -> dict:
    ns: dict = {}
    exec(compile(Path(path).read_text(), path, "exec"), ns)  # their README's way of loading it
    commit = "0338fd9dee6d51b5c51a40cb72c9fc73837c3a4a"
    rows = []
    for case in cases():
        values = {}
        for p in PS:
            for ties in ("w", "a", "b"):
                r = ns["rbo"](_as_corsi(case["x"]), _as_corsi(case["y"]), p, ties=ties)
                values[f"p={p},ties={ties}"] = [float(r[key]) for key in ("ext", "min", "max", "res")]
        rows.append({**case, "ext,min,max,res": values})
    return {"tool": "Corsi & Urbano rbo.py (SIGIR 2024)", "repository": "github.com/julian-urbano/sigir2024-rbo",
            "file": "rbo/Python/rbo.py", "commit": commit, "numpy": version("numpy"),
            "command": "/tmp/venv-rbo/bin/python tests/golden/similarity/make_rbo_goldens.py /tmp/corsi/rbo.py",
            "cases": rows}


def rbo_package() -> dict:
    from rbo import RankingSimilarity

    rows = []
    for case in cases():
        if any(len(g) > 1 for g in case["x"] + case["y"]):
            continue  # the package has no ties: it reads the rankings as given
        x = [g[0] for g in case["x"]]
        y = [g[0] for g in case["y"]]
        sim = RankingSimilarity(x, y)
        row = {**case, "default": float(sim.rbo())}
        for p in PS:
            row[f"p={p}"] = float(sim.rbo(p=p))
            row[f"p={p},ext"] = float(sim.rbo(p=p, ext=True))
            row[f"rbo_ext p={p}"] = float(sim.rbo_ext(p=p))
        rows.append(row)
    return {"tool": "rbo (PyPI)", "version": version("rbo"), "numpy": version("numpy"),
            "command": "/tmp/venv-rbo/bin/python tests/golden/similarity/make_rbo_goldens.py /tmp/corsi/rbo.py",
            "cases": rows}


def main() -> None:
    out = {"corsi_urbano_rbo.json": corsi(sys.argv[1]), "rbo_package.json": rbo_package()}
    for name, data in out.items():
        (HERE / name).write_text(json.dumps(data, indent=1, separators=(",", ":")) + "\n")
    print(subprocess.run(["ls", "-l", *(str(HERE / n) for n in out)], capture_output=True, text=True).stdout)


if __name__ == "__main__":
    main()
