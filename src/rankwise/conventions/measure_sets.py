"""Named sets of metrics: trec_eval's default set (``official``) and ``all_trec``, in trec_eval's spelling and
print order, so that ``rankwise evaluate QRELS RUN --format trec`` reads like trec_eval's output.

The order is trec_eval's measure table (measures.c), the order it prints in, not the order of its nicknames.
"""
from __future__ import annotations

import re
from typing import Any

from rankwise.errors import InvalidParameterError

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


def expand(metrics: list[str], convention: Any = None, *, printed: bool = True) -> list[str]:
    """The metrics a list written with trec_eval's spellings means, in order, duplicates dropped: each set name
    replaced by its metrics, trec_eval's list of cutoffs (``P.5,10``, ``ndcg_cut.5,10``) by one metric per cutoff;
    other metric strings kept as written. ``all_trec`` is trec_eval 10.0's under the trec_eval_10 preset, 9.x's
    otherwise.

    The one expansion of every place that takes metrics (``evaluation.plan.make_plan``, so ``rankwise.evaluate``,
    ``compare``, Spark and every command). ``printed``: a single cutoff (``P.5``) and a gain spelling
    (``ndcg.2=5``) are named as trec_eval prints them (``P_5``, ``ndcg_2=5``), as ``--format trec`` needs; without
    it they keep the name the user wrote (a list of several cutoffs is named per cutoff either way)."""
    sets = dict(MEASURE_SETS)
    if convention is not None and (getattr(convention, "preset", None) or convention.name) == "trec_eval_10":
        sets["all_trec"] = ALL_TREC_10
    out: list[str] = []
    for m in metrics:
        if not isinstance(m, str):  # (said by the metric grammar, in its words)
            out.append(m)
            continue
        each = sets.get(m.strip().lower(), None) or cutoff_list(m)
        if len(each) == 1 and not printed:
            each = (m,)
        out.extend(each or ((printed_name(m) if printed else None) or m,))
    return list(dict.fromkeys(out))


_CUTOFF_LIST = re.compile(r"^\s*(?P<stem>[A-Za-z_]+)\.(?P<cutoffs>[^,=()@]+(?:,[^,=()@]+)*)\s*$")


def printed_name(text: str) -> str | None:
    """trec_eval's ``-m ndcg.2=5`` as trec_eval prints it (``ndcg_2=5``, the same metric), else None."""
    from rankwise.spec.trec_eval_gain_pairs import gain_pairs_to_metric
    stem, dot, params = text.strip().partition(".")
    return f"{stem}_{params}" if dot and gain_pairs_to_metric(text) is not None else None


def cutoff_list(text: str) -> tuple[str, ...]:
    """trec_eval's ``-m P.5,10`` (or ``P.5``): one metric per cutoff in its printed spelling (``P_5``, ``P_10``), so
    that ``--format trec`` prints trec_eval's names; the cutoffs in
    increasing order as trec_eval prints them (meas_init.c get_long_cutoffs, usnistgov/trec_eval at 214fd0b);
    () when ``text`` is not such a list. A cutoff that is not a positive whole number, or one given twice, is an
    error, as there."""
    from rankwise.spec.registry import CUTOFF_SUFFIX_STEMS
    m = _CUTOFF_LIST.match(text)
    if m is None or m.group("stem").lower() not in CUTOFF_SUFFIX_STEMS:
        return ()
    raw = m.group("cutoffs").split(",")
    bad = [c for c in raw if not re.fullmatch(r"\s*[1-9][0-9]*\s*", c)]
    if bad:
        raise InvalidParameterError(f"{text!r}: trec_eval's list of cutoffs takes positive whole numbers separated by "
                                    f"commas; got {bad[0].strip()!r} (e.g. {m.group('stem')}.5,10)")
    cutoffs = sorted(int(c) for c in raw)
    if len(set(cutoffs)) != len(cutoffs):
        twice = sorted({c for c in cutoffs if cutoffs.count(c) > 1})
        raise InvalidParameterError(f"{text!r}: cutoff {twice[0]} is given twice; give each cutoff once")
    return tuple(f"{m.group('stem')}_{k}" for k in cutoffs)


def is_trec_eval(convention: Any) -> bool:
    """True for the trec_eval presets and conventions derived from them (the default set is theirs)."""
    return (getattr(convention, "preset", None) or convention.name) in ("trec_eval", "trec_eval_10", "trec_eval_9.0.8")
