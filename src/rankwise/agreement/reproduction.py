"""``rankwise.repro``: did a reproduction succeed? Breuer et al.'s measures, with repro_eval's defects fixed.

Breuer, Ferro, Fuhr, Maistro, Sakai, Schaer, Soboroff, "How to Measure the Reproducibility of System-oriented IR
Experiments" (SIGIR 2020) measure a reproduced experiment (a baseline and an advanced run, reproduced) at four
levels: the per-topic scores (RMSE, nRMSE; the rankings themselves: Kendall's tau union, RBO), the overall effect
(effect ratio ER, ΔRI), and the significance (t-tests, original against reproduced). A *reproducibility* runs the
experiment again on the same collection (topics paired); a *replicability* on another one (``reproduced_qrels``:
other topics, so no RMSE, no ranking measures, and unpaired tests).

Every run is evaluated by :func:`rankwise.evaluate` (any input form, any convention; the default is the
trec_eval preset, the definitions repro_eval 0.5.0 gets from pytrec_eval through ir_measures). What differs from
repro_eval 0.5.0 (irgroup/repro_eval, commit 63b5d8c) is documented in docs/reproducibility.md.
"""
from __future__ import annotations

import os
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from rankwise.agreement import repro_measures as rm
from rankwise.agreement.renamed import renamed_keyword
from rankwise.agreement.repro_result import (
    REPLICABILITY,
    REPRODUCIBILITY,
    ROLES,
    SYSTEMS,
    Reproduction,
)
from rankwise.agreement.repro_tests import UNPAIRED, paired_t, unpaired_t
from rankwise.conventions.presets import DEFAULT
from rankwise.errors import DataError, InvalidParameterError

__all__ = ["repro", "Reproduction"]


def repro(original_baseline: Any, original_advanced: Any, reproduced_baseline: Any, reproduced_advanced: Any,
          qrels: Any, metrics: str | Iterable[str], *, reproduced_qrels: Any = None, convention: Any = DEFAULT,
          unpaired: str = "student", measures: str | Sequence[str] | None = None,
          columns: Mapping[str, Any] | None = None, workers: int | None = None, duplicates: str = "error",
          ranking: str | Sequence[str] | None = None, **overrides: Any) -> Reproduction:
    """Measure how well ``reproduced_baseline`` / ``reproduced_advanced`` reproduce the original experiment.

    Runs and qrels are any input of :func:`rankwise.evaluate` (Run, DataFrame, dict, path); ``convention``,
    ``columns``, ``workers``, ``duplicates`` and ``overrides`` are its options, applied to all four runs. Without
    ``reproduced_qrels`` this is a reproducibility (same collection): per metric, RMSE and nRMSE of each system's
    per-topic values, ER, ΔRI and paired t-tests (original against reproduced). With ``reproduced_qrels`` the
    reproduced runs are evaluated on that collection (a replicability): ER, ΔRI and unpaired t-tests
    (``unpaired``: "student", the pooled-variance test repro_eval runs, or "welch").

    ``measures`` names per-topic similarity measures of the original and reproduced rankings (Kendall's tau union,
    RBO: ``rankwise.similarity``'s ``measures``, by the same names), computed on the same topics (reproducibility
    only); the result holds them in ``ranking``. As in ``compare`` and ``correlate``, ``metrics`` are what is
    evaluated and ``measures`` what compares. ``ranking`` is their old name, deprecated.

    Topics are those every run was evaluated on (the convention's query policy decides what a run lacking a
    judged topic means); any topic left out is listed in ``set_aside``. Undefined figures are NaN, and
    ``notes`` says why (ER when the original shows no improvement; nRMSE for a metric outside [0, 1]).
    """
    if unpaired not in UNPAIRED:
        raise InvalidParameterError(f"unpaired={unpaired!r}: expected one of {', '.join(UNPAIRED)}")
    metric_list = [metrics] if isinstance(metrics, str) else list(metrics)
    if not metric_list:
        raise InvalidParameterError("name at least one metric, e.g. metrics=['AP', 'nDCG@10', 'P@10']")
    if renamed_keyword("repro", "ranking", ranking, "measures", measures):
        measures = ranking
    ranking = [] if measures is None else [measures] if isinstance(measures, str) else list(measures)
    replicated = reproduced_qrels is not None
    if ranking and replicated:
        raise InvalidParameterError(
            f"ranking measures {ranking} compare the original and reproduced rankings of the same topics; a "
            "replicability (reproduced_qrels given) ranks other topics and documents. Leave measures empty, or "
            "measure a reproducibility on the original qrels")
    runs = dict(zip(ROLES, (original_baseline, original_advanced, reproduced_baseline, reproduced_advanced)))
    given = _inputs(runs, qrels, reproduced_qrels)
    options = {"convention": convention, "columns": columns, "workers": workers, "duplicates": duplicates,
               **overrides}
    if ranking:  # read once: the rankings are compared, then evaluated
        from rankwise.api import as_run
        runs = {r: as_run(x, columns, duplicates=duplicates) for r, x in runs.items()}
    # the rankings first: a measure that does not exist is said before four runs are evaluated
    similarities: dict[str, dict[str, tuple[np.ndarray, np.ndarray]]] = {}
    order = _tie_rule(convention, overrides) if ranking else {}
    for s in SYSTEMS if ranking else ():
        ids, per_measure = _ranking_agreement(runs[f"original_{s}"], runs[f"reproduced_{s}"], ranking, **order)
        for name, vals in per_measure.items():
            similarities.setdefault(name, {})[s] = (ids, vals)
    notes: list[str] = []
    if replicated:
        orig = _matrix(qrels, {r: runs[r] for r in ROLES[:2]}, metric_list, options)
        rep = _matrix(reproduced_qrels, {r: runs[r] for r in ROLES[2:]}, metric_list, options)
        set_aside = _merge_set_aside({"original": orig.set_aside, "reproduced": rep.set_aside})
    else:
        orig = rep = _matrix(qrels, runs, metric_list, options)
        set_aside = dict(orig.set_aside)
    values = {r: (orig if i < 2 else rep).values[(orig if i < 2 else rep).systems.index(r)]
              for i, r in enumerate(ROLES)}
    result = _measures(values, orig.query_ids, rep.query_ids, tuple(orig.metrics), replicated, unpaired, notes)
    ranked = {name: {s: _align(ids, vals, orig.query_ids) for s, (ids, vals) in sides.items()}
              for name, sides in similarities.items()}
    return Reproduction(
        kind=REPLICABILITY if replicated else REPRODUCIBILITY, metrics=tuple(orig.metrics),
        resolved=dict(orig.resolved), convention=str(orig.convention), query_ids=orig.query_ids,
        reproduced_query_ids=rep.query_ids, values=values, ranking=ranked, set_aside=set_aside,
        notes=tuple(notes), inputs=given, **result)


def _matrix(qrels: Any, runs: Mapping[str, Any], metrics: list[str], options: Mapping[str, Any]) -> Any:
    """The per-query matrix of ``runs`` (roles as system names) on ``qrels``, on the topics all of them have."""
    from rankwise.comparison.matrix import PerQueryMatrix
    from rankwise.comparison.systems import evaluate_runs

    results = evaluate_runs(qrels, runs, metrics, **options)
    return PerQueryMatrix.from_results(results, group_tags=False)


def _merge_set_aside(sides: Mapping[str, Mapping[str, tuple[str, ...]]]) -> dict[str, tuple[str, ...]]:
    return {f"{reason} ({side} collection)": ids for side, m in sides.items() for reason, ids in m.items()}


def _measures(values: Mapping[str, np.ndarray], orig_ids: np.ndarray, rep_ids: np.ndarray,
              metrics: tuple[str, ...], replicated: bool, unpaired: str, notes: list[str]) -> dict[str, Any]:
    """Every measure of Breuer et al. from the four (topics, metrics) tables, with a note for each undefined one."""
    if orig_ids.size == 0 or rep_ids.size == 0:
        raise DataError("no topic is shared by the runs (and the qrels): nothing to compare. Check "
                        "that the four runs rank the same topics as the qrels judge")
    ob, oa, rb, ra = (values[r] for r in ROLES)
    arp = {r: rm.arp(values[r]) for r in ROLES}
    improvement = {"original": rm.mean_improvement(oa, ob), "reproduced": rm.mean_improvement(ra, rb)}
    ri = {"original": rm.relative_improvement(arp["original_advanced"], arp["original_baseline"]),
          "reproduced": rm.relative_improvement(arp["reproduced_advanced"], arp["reproduced_baseline"])}
    er = rm.effect_ratio(improvement["original"], improvement["reproduced"])
    dri = rm.delta_ri(ri["original"], ri["reproduced"])
    for i, m in enumerate(metrics):
        if improvement["original"][i] == 0:
            notes.append(f"{m}: ER is undefined: the original advanced run does not improve on its baseline "
                         "(mean per-topic improvement 0), so no ratio of effects exists")
        for side in ("original", "reproduced"):
            if arp[f"{side}_baseline"][i] == 0:
                notes.append(f"{m}: ΔRI is undefined: the {side} baseline scores 0 on average, so its relative "
                             "improvement has no denominator")
    rmse: dict[str, np.ndarray] = {}
    nrmse: dict[str, np.ndarray] = {}
    if replicated:
        notes.append("replicability (another collection): RMSE and nRMSE compare the same topics' values and are "
                     "not defined; the t-tests are unpaired")
        ttests = {"baseline": unpaired_t(ob, rb, kind=unpaired), "advanced": unpaired_t(oa, ra, kind=unpaired)}
    else:
        every = np.concatenate([ob, oa, rb, ra])  # nRMSE's bound is 1: a metric above it (DCG) has none
        bounded = np.all(np.isnan(every) | ((every >= 0) & (every <= 1)), axis=0)
        for s, (o, r) in {"baseline": (ob, rb), "advanced": (oa, ra)}.items():
            rmse[s] = rm.rmse(o, r)
            nrmse[s] = np.where(bounded, rm.nrmse(o, r), np.nan)
        for i in np.flatnonzero(~bounded).tolist():
            notes.append(f"{metrics[i]}: nRMSE is undefined: it divides by the RMSE of the farthest values in [0, 1], "
                         "and this metric has per-topic values outside [0, 1]")
        ttests = {"baseline": paired_t(ob, rb), "advanced": paired_t(oa, ra)}
    for s, t in ttests.items():
        for i in np.flatnonzero(t.identical).tolist():
            notes.append(f"{metrics[i]}: the {s}'s per-topic values are reproduced exactly: t = 0, p = 1")
        for i in np.flatnonzero(np.isnan(t.pvalue)).tolist():
            notes.append(f"{metrics[i]}: no t-test for the {s}: fewer than two topics with a value on a side")
    return {"arp": arp, "rmse": rmse, "nrmse": nrmse, "improvement": improvement, "ri": ri, "er": er,
            "dri": dri, "ttests": ttests}


def _tie_rule(convention: Any, overrides: Mapping[str, Any]) -> dict[str, str]:
    """How the convention orders tied documents and compares scores: the rankings are compared in the order the
    metrics read them (trec_eval: document id descending, scores as float32)."""
    from rankwise.conventions.presets import get_convention
    conv = get_convention(convention)
    conv = conv.derive(**overrides) if overrides else conv
    return {"ties": str(conv.defaults["ties"]), "scores": str(conv.defaults["scores"])}


def _ranking_agreement(original: Any, reproduced: Any, measures: Sequence[str], *, ties: str, scores: str) -> tuple[
        np.ndarray, dict[str, np.ndarray]]:
    """Per-topic similarity of the original and reproduced rankings: (topic ids, {measure: values}).

    Delegates to ``rankwise.agreement.similarity.similarity`` (Kendall's tau union, RBO, ... by name), which
    orders each run by score with the convention's tie rule (``ties``, ``scores``) and codes documents so that no
    value depends on their names (the defects of repro_eval's KTU)."""
    from rankwise.agreement.similarity import similarity
    sim = similarity(original, reproduced, list(measures), intervals=False, ties=ties, scores=scores)
    return np.asarray(sim.query_ids), {m: np.asarray(sim.values[m], dtype=np.float64) for m in measures}


def _align(ids: np.ndarray, values: np.ndarray, target: np.ndarray) -> np.ndarray:
    """``values`` (of topics ``ids``) on the topics ``target``; NaN for a topic ``ids`` lacks."""
    src = np.asarray(ids).astype(str)
    want = np.asarray(target).astype(str)
    out = np.full(want.size, np.nan)
    if src.size == 0:
        return out
    order = np.argsort(src, kind="stable")
    at = order[np.searchsorted(src, want, sorter=order).clip(0, src.size - 1)]
    found = src[at] == want
    out[found] = np.asarray(values, dtype=np.float64)[at][found]
    return out


def _inputs(runs: Mapping[str, Any], qrels: Any, reproduced_qrels: Any) -> dict[str, str]:
    def say(x: Any) -> str:
        return os.fspath(x) if isinstance(x, (str, os.PathLike)) else type(x).__name__
    out = {"qrels": say(qrels)}
    if reproduced_qrels is not None:
        out["reproduced_qrels"] = say(reproduced_qrels)
    return {**out, **{r: say(x) for r, x in runs.items()}}
