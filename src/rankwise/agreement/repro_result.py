"""What ``rankwise.repro`` returns: every measure of a reproduction, per metric, with what it could not say.

Arrays are aligned with ``metrics`` (one value per metric) or with ``query_ids`` x ``metrics`` (per topic). A
NaN is a value that is undefined, and ``notes`` says which and why; nothing is infinite by a division by zero.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from rankwise.agreement.frames import frame
from rankwise.agreement.repro_tests import TTests

# the four runs, in the order the command line and the function take them
ROLES = ("original_baseline", "original_advanced", "reproduced_baseline", "reproduced_advanced")
SYSTEMS = ("baseline", "advanced")
REPRODUCIBILITY = "reproducibility"  # the same collection: topics paired
REPLICABILITY = "replicability"  # another collection: other topics, unpaired


@dataclass(frozen=True)
class Reproduction:
    kind: str  # REPRODUCIBILITY or REPLICABILITY
    metrics: tuple[str, ...]
    resolved: Mapping[str, str]  # metric -> its fully resolved form under the convention
    convention: str
    query_ids: np.ndarray  # (Q,) the original topics measured (reproducibility: the reproduced ones too)
    reproduced_query_ids: np.ndarray  # (Q',) the reproduced topics (replicability: the other collection's)
    values: Mapping[str, np.ndarray]  # role (ROLES) -> (Q or Q', M) per-topic values; NaN = no value
    arp: Mapping[str, np.ndarray]  # role -> (M,) average retrieval performance (mean over the topics)
    # system (SYSTEMS) -> (M,); absent for replicability (RMSE pairs the same topics)
    rmse: Mapping[str, np.ndarray]
    nrmse: Mapping[str, np.ndarray]
    improvement: Mapping[str, np.ndarray]  # "original" / "reproduced" -> (M,) mean per-topic a - b
    ri: Mapping[str, np.ndarray]  # "original" / "reproduced" -> (M,) relative improvement of the ARPs
    er: np.ndarray  # (M,) effect ratio
    dri: np.ndarray  # (M,) ΔRI = RI_original - RI_reproduced
    ttests: Mapping[str, TTests]  # system -> original against reproduced
    # ranking measure (as named) -> system -> (Q,) per-topic similarity of the original and reproduced rankings
    ranking: Mapping[str, Mapping[str, np.ndarray]] = field(default_factory=dict)
    set_aside: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # reason -> topics left out
    notes: tuple[str, ...] = ()
    inputs: Mapping[str, str] = field(default_factory=dict)  # role (and qrels) -> what was given

    @property
    def paired(self) -> bool:
        return self.kind == REPRODUCIBILITY

    def ranking_means(self) -> dict[str, dict[str, float | None]]:
        """Each ranking measure's mean over the topics with a value, per system."""
        out: dict[str, dict[str, float | None]] = {}
        for name, sides in self.ranking.items():
            out[name] = {}
            for s, v in sides.items():
                finite = v[~np.isnan(v)]
                out[name][s] = float(finite.mean()) if finite.size else None
        return out

    def to_dict(self, per_topic: bool = False) -> dict[str, Any]:
        """Plain types for JSON: per metric, every figure; the t-tests with their statistic, df and n."""
        metrics: dict[str, Any] = {}
        for i, m in enumerate(self.metrics):
            entry: dict[str, Any] = {"resolved": self.resolved.get(m, m),
                                     "arp": {r: _clean(self.arp[r][i]) for r in ROLES}}
            if self.rmse:
                entry["rmse"] = {s: _clean(self.rmse[s][i]) for s in SYSTEMS}
                entry["nrmse"] = {s: _clean(self.nrmse[s][i]) for s in SYSTEMS}
            entry["mean_improvement"] = {k: _clean(v[i]) for k, v in self.improvement.items()}
            entry["relative_improvement"] = {k: _clean(v[i]) for k, v in self.ri.items()}
            entry["er"] = _clean(self.er[i])
            entry["delta_ri"] = _clean(self.dri[i])
            entry["ttest"] = {s: {"statistic": _clean(t.statistic[i]), "pvalue": _clean(t.pvalue[i]),
                                  "df": _clean(t.df[i]), "n_original": int(t.n_original[i]),
                                  "n_reproduced": int(t.n_reproduced[i]), "identical": bool(t.identical[i])}
                              for s, t in self.ttests.items()}
            metrics[m] = entry
        out: dict[str, Any] = {
            "kind": self.kind, "convention": self.convention,
            "tests": {s: t.test for s, t in self.ttests.items()},
            "n_topics": {"original": int(self.query_ids.size), "reproduced": int(self.reproduced_query_ids.size)},
            "metrics": metrics,
            "ranking": self.ranking_means(),
            "set_aside": {k: list(v) for k, v in self.set_aside.items()},
            "notes": list(self.notes), "inputs": dict(self.inputs),
        }
        if per_topic:
            out["per_topic"] = {
                r: {m: {str(q): _clean(v) for q, v in zip(self._ids(r), self.values[r][:, i])}
                    for i, m in enumerate(self.metrics)} for r in ROLES}
            out["per_topic_ranking"] = {
                name: {s: {str(q): _clean(v) for q, v in zip(self.query_ids, vals)} for s, vals in sides.items()}
                for name, sides in self.ranking.items()}
        return out

    def _ids(self, role: str) -> np.ndarray:
        return self.query_ids if role.startswith("original") else self.reproduced_query_ids

    def to_frame(self, per_topic: bool = False) -> Any:
        """A pandas DataFrame (pandas extra). By default one row per metric (the index): arp_<role>,
        rmse_<system> and nrmse_<system> (NaN for a replicability), improvement_ and ri_ (original, reproduced),
        er, delta_ri, t_<system> and p_<system>. ``per_topic=True``: one row per (role, query_id), one column per
        metric."""
        if per_topic:
            roles = [r for r in ROLES for _ in range(self._ids(r).size)]
            ids = [q for r in ROLES for q in self._ids(r).tolist()]
            stacked = np.concatenate([self.values[r] for r in ROLES]) if roles else np.empty((0, len(self.metrics)))
            return frame({"role": roles, "query_id": ids, **{m: stacked[:, i] for i, m in enumerate(self.metrics)}},
                         "Reproduction")
        nan = np.full(len(self.metrics), np.nan)
        columns: dict[str, Any] = {"metric": list(self.metrics)}
        columns.update({f"arp_{r}": self.arp[r] for r in ROLES})
        columns.update({f"{k}_{s}": getattr(self, k).get(s, nan) for k in ("rmse", "nrmse") for s in SYSTEMS})
        columns.update({f"improvement_{k}": v for k, v in self.improvement.items()})
        columns.update({f"ri_{k}": v for k, v in self.ri.items()})
        columns.update({"er": self.er, "delta_ri": self.dri})
        for s, t in self.ttests.items():
            columns.update({f"t_{s}": t.statistic, f"p_{s}": t.pvalue})
        return frame(columns, "Reproduction", index="metric")

    def __repr__(self) -> str:
        body = ", ".join(f"{m}: ER={_short(self.er[i])} ΔRI={_short(self.dri[i])}" for i, m in enumerate(self.metrics))
        return f"Reproduction({self.kind}, {self.query_ids.size} topics, {body})"

    def __str__(self) -> str:
        """Per metric, the figures of each level (the CLI's reports are ``rankwise.report.repro``'s)."""
        lines = [f"{self.kind} under {self.convention}: {self.query_ids.size} original topics"
                 + ("" if self.paired else f", {self.reproduced_query_ids.size} reproduced topics")]
        for i, m in enumerate(self.metrics):
            arp = ", ".join(f"{r} {_short(self.arp[r][i])}" for r in ROLES)
            lines.append(f"  {m}: ARP {arp}")
            if self.rmse:
                lines.append("    " + ", ".join(f"{k} {s} {_short(getattr(self, k)[s][i])}"
                                                for k in ("rmse", "nrmse") for s in SYSTEMS))
            tests = ", ".join(f"{s} p = {_short(t.pvalue[i])}" for s, t in self.ttests.items())
            lines.append(f"    ER {_short(self.er[i])}, ΔRI {_short(self.dri[i])}; {tests}")
        for name, means in self.ranking_means().items():
            lines.append(f"  {name}: " + ", ".join(f"{s} {_short(v)}" for s, v in means.items()))
        return "\n".join(lines + [f"note: {n}" for n in self.notes])


def _short(v: Any) -> str:
    return "NaN" if v is None or math.isnan(float(v)) else f"{float(v):.4f}"


def _clean(v: Any) -> float | None:
    """A JSON number: None for NaN and for the infinite t of constant nonzero differences (p is 0 there)."""
    f = float(v)
    return None if math.isnan(f) or math.isinf(f) else f
