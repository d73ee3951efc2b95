"""`rankwise metrics`, `rankwise conventions [--diff A B]`, `rankwise explain METRIC`: generated from the
registry and the presets."""
from __future__ import annotations

import json
import sys

from rankwise.conventions import PRESETS, QUERY_POLICIES, get_convention
from rankwise.spec import registry
from rankwise.spec.grammar import parse_metric


def register(sub) -> None:
    p = sub.add_parser("metrics", help="list the metrics, their aliases and parameters")
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.set_defaults(func=cmd_metrics)
    p = sub.add_parser("conventions", help="list the convention presets, or compare two")
    p.add_argument("--diff", nargs=2, metavar=("A", "B"), help="show only the choices where A and B differ")
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.set_defaults(func=cmd_conventions)
    p = sub.add_parser("explain", help="spell out every choice behind a metric, and how each preset differs")
    p.add_argument("metric", help="a metric string, e.g. 'nDCG@10' or 'AP(denominator=min_k_relevant)@10'")
    p.add_argument("--convention", "-c", default="trec_eval")
    p.set_defaults(func=cmd_explain)


def _param_choices(p) -> str:
    if p.kind == "choice":
        return "|".join(p.choices)
    return {"float": "number", "int": "integer", "prob": "0<p<1", "log_base": "number>1 or e"}.get(p.kind, p.kind)


def cmd_metrics(args) -> int:
    defs = registry.all_metrics()
    if args.format == "json":
        out = [{"name": d.name, "aliases": list(d.aliases), "cutoff": d.cutoff, "summary": d.summary,
                "formula": d.formula, "reference": d.reference,
                "params": {p.name: _param_choices(p) for p in d.all_params}} for d in defs]
        print(json.dumps(out, indent=2))
        return 0
    for d in defs:
        cut = "@k optional" if d.cutoff else "no cutoff"
        print(f"{d.name:<8} {d.summary}")
        print(f"{'':8} aliases: {', '.join(d.aliases) or '-'}; {cut}")
        own = ", ".join(f"{p.name}={_param_choices(p)}" for p in d.params)
        if own:
            print(f"{'':8} parameters: {own}")
    common = ", ".join(f"{p.name}={_param_choices(p)}" for p in registry.all_metrics()[0].all_params[-6:])
    print(f"\nEvery metric also takes: {common}")
    print("Syntax: name[(key=value,...)][@k], e.g. P@5, 'nDCG(gain=exp)@10', 'AP(rel=2)', ndcg_cut_10")
    return 0


def _convention_rows(conv):
    rows = {f: getattr(conv, f) for f in QUERY_POLICIES}
    rows.update({k: v for k, v in conv.defaults.items()})
    for m, per in conv.metric_defaults.items():
        for k, v in per.items():
            rows[f"{k} [{m}]"] = v
    return rows


def _fmt(v) -> str:
    if isinstance(v, float):
        import math
        return "e" if v == math.e else (str(int(v)) if v == int(v) else repr(v))
    return str(v)


def cmd_conventions(args) -> int:
    if args.diff:
        a, b = (get_convention(x) for x in args.diff)
        ra, rb = _convention_rows(a), _convention_rows(b)
        keys = [k for k in dict.fromkeys([*ra, *rb]) if ra.get(k) != rb.get(k)]
        if args.format == "json":
            print(json.dumps({k: {a.name: _fmt(ra.get(k, "-")), b.name: _fmt(rb.get(k, "-"))} for k in keys}, indent=2))
            return 0
        w = max([len(k) for k in keys] + [6])
        print(f"{'choice':<{w}}  {a.name:<18} {b.name}")
        for k in keys:
            print(f"{k:<{w}}  {_fmt(ra.get(k, '-')):<18} {_fmt(rb.get(k, '-'))}")
        if not keys:
            print("(no difference)")
        return 0
    if args.format == "json":
        print(json.dumps({n: {"description": c.description, "provenance": c.provenance, "base": c.base,
                              "choices": {k: _fmt(v) for k, v in _convention_rows(c).items()},
                              "notes": list(c.notes)} for n, c in PRESETS.items()}, indent=2))
        return 0
    for name, c in PRESETS.items():
        print(f"{name}{'' if c.base is None else f'  (diff from {c.base})'}")
        print(f"  {c.description}")
        print(f"  reproduces: {c.provenance}")
        if c.base:
            base = _convention_rows(get_convention(c.base))
            rows = _convention_rows(c)
            diff = {k: v for k, v in rows.items() if base.get(k) != v}
            print("  differs in: " + (", ".join(f"{k}={_fmt(v)}" for k, v in diff.items()) or "-"))
        else:
            print("  choices: " + ", ".join(f"{k}={_fmt(v)}" for k, v in _convention_rows(c).items()))
        for n in c.notes:
            print(f"  note: {n}")
        print()
    return 0


def cmd_explain(args) -> int:
    spec = parse_metric(args.metric)
    conv = get_convention(args.convention)
    rm = conv.resolve(spec)
    d = spec.definition
    out = sys.stdout.write
    out(f"{args.metric}\n")
    out(f"  resolved under {conv.name}: {rm}\n\n")
    out(f"{d.name}: {d.summary}\n")
    out(f"  formula:   {d.formula}\n")
    out(f"  reference: {d.reference}\n")
    out(f"  example:   {d.example}\n\n")
    out("choices:\n")
    for p in d.all_params:
        v = rm.params[p.name]
        src = "given" if p.name in spec.params else f"from {conv.name}"
        meaning = p.choice_docs.get(v, "") if p.kind == "choice" else ""
        out(f"  {p.name:<12} = {p.format(v):<12} ({src}) {meaning}\n")
        out(f"  {'':12}   {p.doc}\n")
    out("\nhow each preset computes it:\n")
    resolved = {}
    for name, c in PRESETS.items():
        try:
            resolved[name] = c.resolve(spec)
        except Exception as exc:  # a preset may not define this combination
            resolved[name] = exc
    names = list(PRESETS)
    w = max([len(p.name) for p in d.all_params] + [len(f) for f in QUERY_POLICIES]) + 2
    cw = max(len(n) for n in names) + 2
    out(f"  {'choice':<{w}}" + "".join(f"{n:<{cw}}" for n in names) + "\n")
    for p in d.all_params:
        vals = [p.format(r.params[p.name]) if not isinstance(r, Exception) else "n/a" for r in resolved.values()]
        mark = " *" if len(set(vals)) > 1 else ""
        out(f"  {p.name:<{w}}" + "".join(f"{v:<{cw}}" for v in vals) + mark + "\n")
    for f, spec_ in QUERY_POLICIES.items():
        vals = [getattr(c, f) for c in PRESETS.values()]
        mark = " *" if len(set(vals)) > 1 else ""
        out(f"  {f:<{w}}" + "".join(f"{v:<{cw}}" for v in vals) + mark + "\n")
    out("  (* = the presets disagree)\n")
    for name, r in resolved.items():
        if isinstance(r, Exception):
            out(f"  n/a under {name}: {r}\n")
    return 0
