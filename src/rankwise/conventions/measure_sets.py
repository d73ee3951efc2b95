"""Named sets of metrics: trec_eval's default set (``official``) and ``all_trec``, in trec_eval's spelling and
print order, so that ``rankwise evaluate QRELS RUN --format trec`` reads like trec_eval's output.

The order is trec_eval's measure table (measures.c), the order it prints in, not the order of its nicknames.
"""
from __future__ import annotations

from typing import Any

P_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)  # trec_eval's default cutoffs of P, recall, ndcg_cut...
RECALL_LEVELS = tuple(f"{i / 10:.2f}" for i in range(11))  # iprec_at_recall_0.00 ... 1.00

# `trec_eval QRELS RUN` without -m (the "official" measures), as printed by trec_eval 9.0.7 to 10.0
TREC_EVAL_DEFAULT: tuple[str, ...] = (
    "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
    *(f"iprec_at_recall_{c}" for c in RECALL_LEVELS), *(f"P_{k}" for k in P_CUTOFFS),
)

R_MULTIPLES = tuple(f"{m / 10:.2f}" for m in range(2, 21, 2))  # Rprec_mult_0.20 ... 2.00


def _cut(stem: str, cutoffs: tuple[int, ...] = P_CUTOFFS) -> tuple[str, ...]:
    return tuple(f"{stem}_{k}" for k in cutoffs)


# `trec_eval -m all_trec` in trec_eval 9.x's print order (relstring, a per-query string, is left out: it is
# not a number). trec_eval 10.0 adds rbp, rbp_resid and unj_5/10/20 at the end.
ALL_TREC_9: tuple[str, ...] = (
    *TREC_EVAL_DEFAULT, *_cut("recall"), "infAP", "gm_bpref", *(f"Rprec_mult_{m}" for m in R_MULTIPLES),
    "utility", "11pt_avg", "binG", "G", "ndcg", "ndcg_rel", "Rndcg", *_cut("ndcg_cut"), *_cut("map_cut"),
    *_cut("relative_P"), *_cut("success", (1, 5, 10)), "set_P", "set_relative_P", "set_recall", "set_map",
    "set_F", "num_nonrel_judged_ret",
)
ALL_TREC_10: tuple[str, ...] = (*ALL_TREC_9, "rbp", "rbp_resid", *_cut("unj", (5, 10, 20)))

MEASURE_SETS: dict[str, tuple[str, ...]] = {"official": TREC_EVAL_DEFAULT, "trec_eval": TREC_EVAL_DEFAULT,
                                            "all_trec": ALL_TREC_9}

# trec_eval's per-query lines leave these out (their print_single is empty): only the `all` line exists
SUMMARY_ONLY = frozenset({"num_q", "gm_map", "gm_bpref"})


def expand(metrics: list[str], convention: Any = None) -> list[str]:
    """Each set name replaced by its metrics (in order); other metric strings kept as written. ``all_trec``
    is trec_eval 10.0's under the trec_eval_10 preset, 9.x's otherwise."""
    sets = dict(MEASURE_SETS)
    if convention is not None and (getattr(convention, "preset", None) or convention.name) == "trec_eval_10":
        sets["all_trec"] = ALL_TREC_10
    out: list[str] = []
    for m in metrics:
        out.extend(sets.get(m.strip().lower(), (m,)))
    return list(dict.fromkeys(out))


def is_trec_eval(convention: Any) -> bool:
    """True for the trec_eval presets and conventions derived from them (the default set is theirs)."""
    return (getattr(convention, "preset", None) or convention.name) in ("trec_eval", "trec_eval_10", "trec_eval_9.0.8")
