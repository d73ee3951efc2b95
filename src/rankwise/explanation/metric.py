"""explain(): every choice behind a metric under a convention, and how each preset computes it."""
from __future__ import annotations

from rankwise.conventions.convention import QUERY_POLICIES, RANK_POLICIES, Convention
from rankwise.conventions.presets import DEFAULT, PRESETS, get_convention
from rankwise.spec.grammar import parse_metric
from rankwise.spec.metric import MetricDef, ResolvedMetric
from rankwise.spec.params import Param

# what a beyond-accuracy metric reads besides the run, as the API and the command line take it
_INPUTS = {"train": "the training interactions (train=, --train)", "items": "the declared catalogue (items=, --items)",
           "features": "the item features (item_features=, --item-features)",
           "reference": "a reference run (reference=, --reference)",
           "test": "which recommended items are relevant (the test interactions: the qrels)"}


def shown_params(d: MetricDef) -> tuple[Param, ...]:
    """The parameters that can change ``d``'s value. A metric read off the recommendation lists (beyond
    accuracy) reads, of the common ones, only how the lists are ordered (ties, scores) and, per user, which
    recommended items are hits (rel) and how the users' values are aggregated; the others (unjudged, negative,
    no_relevant...) shape the judged rows of the accuracy metrics, which these metrics do not read."""
    if d.lists is None:
        return d.all_params
    read = {"ties", "scores", *d.lists.reads} | (set() if d.lists.whole_run else {"rel", "aggregate"})
    return tuple(p for p in d.all_params if p in d.params or p.name in read)


def _lists_lines(rm: ResolvedMetric) -> str:
    """For a beyond-accuracy metric: what it reads and whether it has a value per user."""
    form = rm.definition.lists
    if form is None:
        return ""
    needs = form.needs(rm.params)
    reads = "the recommendation lists" + "".join(f"; {_INPUTS[n]}" for n in needs)
    value = ("one value for the whole run (the users' lists pooled; no per-user values)" if form.whole_run else
             "one value per user, then aggregated over the users")
    return f"  reads:     {reads}\n  value:     {value}\n"


def explain(metric: str, convention: str | Convention = DEFAULT) -> str:
    """The resolved form of ``metric`` under ``convention``, its formula, reference and example, each
    choice with where it came from, and a table of how every preset resolves it (``rankwise explain``)."""
    spec = parse_metric(metric)
    conv = get_convention(convention)
    rm = conv.resolve(spec)
    d = spec.definition
    parts: list[str] = []
    out = parts.append
    out(f"{metric}\n")
    out(f"  resolved under {conv.name}: {rm}\n\n")
    out(f"{d.name}: {d.summary}\n")
    out(f"  formula:   {d.formula}\n")
    out(f"  reference: {d.reference}\n")
    out(f"  example:   {d.example}\n")
    out(_lists_lines(rm) + "\n")
    out("choices:\n")
    params = shown_params(d)
    for p in params:
        v = rm.params[p.name]
        src = "given" if p.name in spec.params else f"from {conv.name}"
        meaning = p.choice_docs.get(v, "") if p.kind == "choice" and isinstance(v, str) else ""
        out(f"  {p.name:<12} = {p.format(v):<12} ({src}) {meaning}\n")
        out(f"  {'':12}   {p.doc}\n")
    out("\nhow each preset computes it:\n")
    resolved: dict[str, ResolvedMetric | Exception] = {}
    for name, c in PRESETS.items():
        try:
            resolved[name] = c.resolve(spec)
        except Exception as exc:  # a preset may not define this combination
            resolved[name] = exc
    names = list(PRESETS)
    w = max([len(p.name) for p in params] + [len(f) for f in (*QUERY_POLICIES, *RANK_POLICIES)]) + 2
    shown = [p.format(r.params[p.name]) for r in resolved.values() if not isinstance(r, Exception)
             for p in params] + [str(getattr(c, f)) for c in PRESETS.values() for f in (*QUERY_POLICIES,
                                                                                      *RANK_POLICIES)]
    cw = max(len(x) for x in [*names, *shown]) + 2
    out(f"  {'choice':<{w}}" + "".join(f"{n:<{cw}}" for n in names) + "\n")
    for p in params:
        vals = [p.format(r.params[p.name]) if not isinstance(r, Exception) else "n/a" for r in resolved.values()]
        mark = " *" if len(set(vals)) > 1 else ""
        out(f"  {p.name:<{w}}" + "".join(f"{v:<{cw}}" for v in vals) + mark + "\n")
    for f, _spec in QUERY_POLICIES.items():
        vals = [getattr(c, f) for c in PRESETS.values()]
        mark = " *" if len(set(vals)) > 1 else ""
        out(f"  {f:<{w}}" + "".join(f"{v:<{cw}}" for v in vals) + mark + "\n")
    if rm.has_rank_form:  # the metric can be read off ranks: how those ranks are formed matters too
        out("  -- ranks of held-out items (evaluate_ranks, catalogue and sampled evaluation) --\n")
        for f in RANK_POLICIES:
            vals = [getattr(c, f) for c in PRESETS.values()]
            mark = " *" if len(set(vals)) > 1 else ""
            out(f"  {f:<{w}}" + "".join(f"{v:<{cw}}" for v in vals) + mark + "\n")
    out("  (* = the presets disagree)\n")
    for name, r in resolved.items():
        if isinstance(r, Exception):
            out(f"  n/a under {name}: {r}\n")
    return "".join(parts)
