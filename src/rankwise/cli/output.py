"""Formatting of evaluation results: table, json, csv, tsv and trec_eval's layout."""
from __future__ import annotations

import csv
import io
import json
import math

from rankwise.evaluation.results import Results


def _num(v: float, digits: int | None = None) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "NaN"
    return f"{v:.{digits}f}" if digits is not None else repr(float(v))


def to_json(res: Results, per_query: bool) -> str:
    from rankwise import __version__
    out = res.to_dict(per_query=per_query)
    out["rankwise_version"] = __version__
    return json.dumps(out, indent=2, allow_nan=False)


def to_delimited(res: Results, per_query: bool, delimiter: str) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, delimiter=delimiter, lineterminator="\n")
    w.writerow(["query_id", *res.metrics])
    if per_query:
        for i, q in enumerate(res.query_ids):
            w.writerow([q, *(_num(res.values[m][i]) for m in res.metrics)])
    w.writerow(["all", *(_num(res.means[m]) for m in res.metrics)])
    return buf.getvalue()


def to_trec(res: Results, per_query: bool, digits: int = 4) -> str:
    """trec_eval's layout: ``measure<TAB>query<TAB>value``, per query first (with -q), then ``all``."""
    lines = []
    if per_query:
        for i, q in enumerate(res.query_ids):
            for m in res.metrics:
                v = res.values[m][i]
                if not math.isnan(v):
                    lines.append(f"{m:<22}\t{q}\t{_num(v, digits)}")
    lines.append(f"{'num_q':<22}\tall\t{res.query_ids.size}")
    for m in res.metrics:
        lines.append(f"{m:<22}\tall\t{_num(res.means[m], digits)}")
    return "\n".join(lines) + "\n"


def to_table(res: Results, per_query: bool, digits: int = 4) -> str:
    width = max([len(m) for m in res.metrics] + [6])
    lines = [f"convention: {res.convention.name}   queries evaluated: {res.query_ids.size}", ""]
    if per_query:
        qw = max([len(str(q)) for q in res.query_ids] + [5])
        cw = max(width, digits + 3)
        lines.append(f"{'query':<{qw}}  " + "  ".join(f"{m:>{cw}}" for m in res.metrics))
        for i, q in enumerate(res.query_ids):
            lines.append(f"{str(q):<{qw}}  " + "  ".join(f"{_num(res.values[m][i], digits):>{cw}}"
                                                        for m in res.metrics))
        lines.append(f"{'all':<{qw}}  " + "  ".join(f"{_num(res.means[m], digits):>{cw}}" for m in res.metrics))
    else:
        lines.append(f"{'metric':<{width}}  {'mean':>{digits + 3}}  {'queries':>7}")
        for m in res.metrics:
            lines.append(f"{m:<{width}}  {_num(res.means[m], digits):>{digits + 3}}  {res.n_averaged[m]:>7}")
    return "\n".join(lines) + "\n"


def render(res: Results, fmt: str, per_query: bool) -> str:
    if fmt == "json":
        return to_json(res, per_query) + "\n"
    if fmt == "csv":
        return to_delimited(res, per_query, ",")
    if fmt == "tsv":
        return to_delimited(res, per_query, "\t")
    if fmt == "trec":
        return to_trec(res, per_query)
    return to_table(res, per_query)


def set_aside_report(res: Results) -> str:
    """What was left out and why, for stderr (table mode)."""
    lines = []
    for reason, ids in res.set_aside.items():
        what = {"missing_in_run": "judged queries absent from the run",
                "missing_in_qrels": "run queries without judgments"}.get(reason, reason)
        lines.append(f"rankwise: set aside {len(ids)} {what} ({reason}); "
                     f"e.g. {', '.join(list(ids)[:3])}")
    for m in res.metrics:
        n = res.excluded.get(m, 0)
        if n:
            lines.append(f"rankwise: {m}: {n} queries without relevant documents are NaN and left out of the mean")
    for k, v in res.info.items():
        if v:
            lines.append(f"rankwise: {k.replace('_', ' ')}: {v}")
    return "\n".join(lines)


def render_many(results: dict[str, Results], fmt: str, per_query: bool, digits: int = 4) -> str:
    """Several runs evaluated on the same qrels: one table of systems x metrics (or JSON/CSV/TSV)."""
    names = list(results)
    metrics = results[names[0]].metrics
    if fmt == "json":
        from rankwise import __version__
        out = {"runs": {n: r.to_dict(per_query=per_query) for n, r in results.items()},
               "rankwise_version": __version__}
        return json.dumps(out, indent=2, allow_nan=False) + "\n"
    if fmt in ("csv", "tsv"):
        buf = io.StringIO()
        w = csv.writer(buf, delimiter="," if fmt == "csv" else "\t", lineterminator="\n")
        w.writerow(["system", "query_id", *metrics])
        for n, res in results.items():
            if per_query:
                for i, q in enumerate(res.query_ids):
                    w.writerow([n, q, *(_num(res.values[m][i]) for m in metrics)])
            w.writerow([n, "all", *(_num(res.means[m]) for m in metrics)])
        return buf.getvalue()
    first = results[names[0]]
    sw = max([len(n) for n in names] + [6])
    cw = max([len(m) for m in metrics] + [digits + 3])
    lines = [f"convention: {first.convention.name}   queries evaluated: "
             + ", ".join(f"{n} {r.query_ids.size}" for n, r in results.items()), ""]
    lines.append(f"{'system':<{sw}}  " + "  ".join(f"{m:>{cw}}" for m in metrics))
    for n, res in results.items():
        lines.append(f"{n:<{sw}}  " + "  ".join(f"{_num(res.means[m], digits):>{cw}}" for m in metrics))
    if per_query:
        lines.append("")
        lines.append("per-query values: use --format csv or json with several runs")
    lines.append("")
    lines.append("Is one better than another? 'rankwise compare QRELS RUN RUN ... -m METRIC' tests it.")
    return "\n".join(lines) + "\n"
