"""Writes the fixture of the reproducibility goldens: qrels of two collections and eight runs (seeded).

    python tests/golden/repro/make_fixture.py

Collection "orig" (topics 301-312) has an original baseline and advanced run and their reproductions (rpd_*);
collection "rpl" (topics 401-410) has a replication of both (rpl_*). Scores have one decimal, so ties are common;
each run file lists its lines by score descending and, within a tie, by document id descending (trec_eval's
order), so that repro_eval's adjacent-lines tie breaking orders them as trec_eval does.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
POOL = 40  # documents per topic
DEPTH = 25  # documents each run retrieves per topic


def _qrels(rng: np.random.Generator, topics: list[int]) -> tuple[list[str], dict[int, np.ndarray]]:
    lines, grades = [], {}
    for t in topics:
        g = rng.choice([0, 0, 0, 1, 1, 2], size=POOL)
        g[rng.integers(POOL)] = 2  # every topic has a relevant document
        grades[t] = g
        judged = rng.permutation(POOL)[:30]  # ten documents of the pool stay unjudged
        lines += [f"{t} 0 d{d:03d} {g[d]}" for d in sorted(judged)]
    return lines, grades


def _run(rng: np.random.Generator, grades: dict[int, np.ndarray], skill: float, tag: str,
         base: dict[int, np.ndarray] | None = None, noise: float = 0.0) -> tuple[list[str], dict[int, np.ndarray]]:
    """Scores: grade * skill + noise (or a reproduced run's: the original's scores plus noise)."""
    lines, scores = [], {}
    for t, g in grades.items():
        s = g * skill + rng.normal(0, 1, POOL) if base is None else base[t] + rng.normal(0, noise, POOL)
        s = np.round(s, 1)
        scores[t] = s
        top = sorted(range(POOL), key=lambda d: (-s[d], -d))[:DEPTH]  # score desc, doc id desc
        lines += [f"{t} Q0 d{d:03d} {r} {s[d]:.1f} {tag}" for r, d in enumerate(top, 1)]
    return lines, scores


def main() -> None:
    rng = np.random.default_rng(20200725)  # SIGIR 2020's first day
    qrels, grades = _qrels(rng, list(range(301, 313)))
    qrels_rpl, grades_rpl = _qrels(rng, list(range(401, 411)))
    orig_b, sb = _run(rng, grades, 0.8, "orig_b")
    orig_a, sa = _run(rng, grades, 1.4, "orig_a")
    rpd_b, _ = _run(rng, grades, 0.0, "rpd_b", base=sb, noise=0.6)
    rpd_a, _ = _run(rng, grades, 0.0, "rpd_a", base=sa, noise=0.9)
    rpl_b, _ = _run(rng, grades_rpl, 0.7, "rpl_b")
    rpl_a, _ = _run(rng, grades_rpl, 1.1, "rpl_a")
    for name, lines in {"qrels.txt": qrels, "qrels_rpl.txt": qrels_rpl, "orig_b.run": orig_b, "orig_a.run": orig_a,
                        "rpd_b.run": rpd_b, "rpd_a.run": rpd_a, "rpl_b.run": rpl_b, "rpl_a.run": rpl_a}.items():
        (HERE / name).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
