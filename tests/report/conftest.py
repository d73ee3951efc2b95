"""Comparisons to render: small (3 systems), wide (10 systems x 6 metrics, long names) and hostile names."""
from __future__ import annotations

import numpy as np
import pytest

import rankwise.comparison as C

X = [.7, .3, .2, .6, .4, .4, 0, .7, .1, .3, .5, .4, 0, .6, .5, .3, .1, .5, .2, .1]
Y = [.5, .1, 0, .2, .4, .3, 0, .5, .3, .3, .4, .4, .1, .4, .2, .1, .1, .6, .3, .2]
Z = [0, 0, .2, .1, .3, .3, .1, .2, .4, .4, .4, .3, .3, .2, .2, .2, .1, .5, .4, .3]
PERMUTATIONS = 300  # enough for the rendering tests, which check layout and escaping, not p-values

# names from users' files: markup, TeX, Markdown, CSV and terminal specials
HTML_NAME = "<img src=x onerror=alert(1)>"
TEX_NAME = "\\input{/etc/passwd} $x^2$ #1 ~ 50% a_b & c"
MD_NAME = 'evil, "quoted" | *bold* _em_ [link](javascript:alert(1)) `code`'
QUERY_ID = "q&9%_\nx"  # set aside (missing for one system): it is named in a note
METRIC = "<b>P</b>&_%@5"
HOSTILE_SYSTEMS = (HTML_NAME, TEX_NAME, MD_NAME)


def long_values(systems, queries, metrics, values):
    """``from_long`` rows from a (systems, queries, metrics) array."""
    s, q, m = np.meshgrid(np.arange(len(systems)), np.arange(len(queries)), np.arange(len(metrics)),
                          indexing="ij")
    return ([systems[i] for i in s.ravel()], [queries[i] for i in q.ravel()], [metrics[i] for i in m.ravel()],
            values.ravel().tolist())


@pytest.fixture(scope="session")
def small_matrix() -> C.PerQueryMatrix:
    qs = [f"Q{i + 1}" for i in range(20)]
    return C.PerQueryMatrix.from_long(["X"] * 20 + ["Y"] * 20 + ["Z"] * 20, qs * 3, ["nDCG@5"] * 60, X + Y + Z)


@pytest.fixture(scope="session")
def baseline_cmp(small_matrix) -> C.Comparison:
    return C.compare_matrix(small_matrix, baseline="Y")


@pytest.fixture(scope="session")
def pairs_cmp(small_matrix) -> C.Comparison:
    return C.compare_matrix(small_matrix, all_pairs=True, permutations=PERMUTATIONS)


@pytest.fixture(scope="session")
def cutoff_matrix() -> C.PerQueryMatrix:
    """4 systems, 30 queries, nDCG at 5, 10, 20 and AP: one family of cutoffs, one significant system."""
    rng = np.random.default_rng(7)
    systems = ["bm25", "bm25+rm3", "dense", "rerank"]
    metrics = ["nDCG@5", "nDCG@10", "nDCG@20", "AP"]
    queries = [f"q{i:02d}" for i in range(30)]
    base = rng.uniform(0.1, 0.8, size=(1, 30, 1))
    shift = np.array([0.0, 0.01, -0.12, 0.04]).reshape(4, 1, 1)
    values = np.clip(base + shift + rng.normal(0, 0.05, size=(4, 30, 4)), 0, 1)
    return C.PerQueryMatrix.from_long(*long_values(systems, queries, metrics, values))


@pytest.fixture(scope="session")
def cutoff_cmp(cutoff_matrix) -> C.Comparison:
    return C.compare_matrix(cutoff_matrix, baseline="bm25")


@pytest.fixture(scope="session")
def cutoff_pairs_cmp(cutoff_matrix) -> C.Comparison:
    return C.compare_matrix(cutoff_matrix, all_pairs=True, permutations=PERMUTATIONS)


@pytest.fixture(scope="session")
def wide_matrix() -> C.PerQueryMatrix:
    """10 systems (long names, one in wide CJK characters) x 6 metrics (one with a long name)."""
    rng = np.random.default_rng(3)
    systems = [f"system-{i}-with-a-really-long-descriptive-name-for-the-run-file-{'x' * 20}" for i in range(8)]
    systems += ["\u691c\u7d22\u30b7\u30b9\u30c6\u30e0" * 6, "s"]
    metrics = ["AP", "P@5", "nDCG@10", "nDCG@20", "recall@100",
               "nDCG(gain=exponential,log_base=2,ideal=judged,unjudged=nonrelevant)@1000"]
    queries = [f"query-{i}" for i in range(25)]
    values = rng.uniform(0, 1, size=(len(systems), len(queries), len(metrics)))
    return C.PerQueryMatrix.from_long(*long_values(systems, queries, metrics, values))


@pytest.fixture(scope="session")
def wide_cmp(wide_matrix) -> C.Comparison:
    return C.compare_matrix(wide_matrix)


@pytest.fixture(scope="session")
def wide_pairs_cmp(wide_matrix) -> C.Comparison:
    return C.compare_matrix(wide_matrix, all_pairs=True, permutations=PERMUTATIONS)


def _hostile_matrix() -> C.PerQueryMatrix:
    rng = np.random.default_rng(11)
    queries = [f"q{i}" for i in range(12)]
    systems, qs, ms, vs = [], [], [], []
    for k, s in enumerate(HOSTILE_SYSTEMS):
        own = queries + ([QUERY_ID] if k < 2 else [])  # the last system lacks QUERY_ID: it is set aside
        for metric in ("nDCG@10", "nDCG@20", METRIC):
            systems += [s] * len(own)
            qs += own
            ms += [metric] * len(own)
            vs += (rng.uniform(0, 1, len(own)) + (0.3 if k == 0 else 0)).tolist()
    return C.PerQueryMatrix.from_long(systems, qs, ms, vs)


@pytest.fixture(scope="session")
def hostile_cmp() -> C.Comparison:
    return C.compare_matrix(_hostile_matrix(), baseline=TEX_NAME)


@pytest.fixture(scope="session")
def hostile_pairs_cmp() -> C.Comparison:
    return C.compare_matrix(_hostile_matrix(), all_pairs=True, permutations=PERMUTATIONS)


COMPARISONS = ("baseline_cmp", "pairs_cmp", "cutoff_cmp", "cutoff_pairs_cmp", "wide_cmp", "wide_pairs_cmp",
               "hostile_cmp", "hostile_pairs_cmp")


@pytest.fixture(params=COMPARISONS)
def any_cmp(request) -> C.Comparison:
    """Each comparison above in turn, in baseline and in all-pairs mode."""
    return request.getfixturevalue(request.param)


def write_runs(folder) -> tuple[str, list[str]]:
    """Qrels and three TREC runs on 30 queries in ``folder``: ``base``, ``better`` (relevant documents lifted
    in most queries) and ``worse`` (relevant documents pushed down): one gain and one loss, both significant,
    and ties of scores that the evaluation notices.
    Returns the qrels' path and the runs' paths."""
    rng = np.random.default_rng(5)
    qrels, runs = [], {"base": [], "better": [], "worse": []}
    for q in range(30):
        grades = rng.integers(0, 3, size=20)
        noise = rng.uniform(0, 1, size=20).round(1)  # equal scores: ties, which the evaluation notices
        shift = {"base": 0.0, "better": 0.6 * (q % 5 != 0), "worse": -0.6 * (q % 4 != 0)}
        for d, g in enumerate(grades):
            qrels.append(f"q{q} 0 d{d} {g}")
        for name, lift in shift.items():
            scores = noise + lift * (grades > 0)
            order = np.argsort(-scores, kind="stable")
            runs[name] += [f"q{q} Q0 d{d} {r + 1} {scores[d]:.6f} {name}" for r, d in enumerate(order)]
    qrels_path = folder / "judgments.qrels"
    qrels_path.write_text("\n".join(qrels) + "\n")
    paths = []
    for name, lines in runs.items():
        path = folder / f"{name}.run"
        path.write_text("\n".join(lines) + "\n")
        paths.append(str(path))
    return str(qrels_path), paths
