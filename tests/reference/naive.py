"""A slow, obviously correct per-query reference implementation (the oracle of the property tests).

Written from the definitions, one query at a time with plain Python loops, sharing no code with
rankwise's kernels. ties='average' is computed by enumerating every order of the tied documents.
"""
from __future__ import annotations

import itertools
import math

import numpy as np


def _rank(items, ties):
    """items: list of (doc, score, grade, judged). Returns ranked lists (one, or all for 'average')."""
    def doc_key(d):
        return d.encode("utf-8")

    if ties == "input":
        return [sorted(items, key=lambda it: -it[1])]
    if ties == "docid_desc":
        s = sorted(items, key=lambda it: doc_key(it[0]), reverse=True)
        return [sorted(s, key=lambda it: -it[1])]
    if ties == "docid_desc_numeric" and all(it[0].isdigit() and (it[0] == "0" or it[0][0] != "0") for it in items):
        s = sorted(items, key=lambda it: int(it[0]), reverse=True)
        return [sorted(s, key=lambda it: -it[1])]
    if ties == "docid_desc_numeric":  # ids that are not all integers: as docid_desc
        ties = "docid_desc"
    if ties == "docid_asc":
        s = sorted(items, key=lambda it: doc_key(it[0]))
        return [sorted(s, key=lambda it: -it[1])]
    if ties in ("optimistic", "pessimistic"):
        s = sorted(items, key=lambda it: doc_key(it[0]), reverse=True)
        sign = -1 if ties == "optimistic" else 1
        s = sorted(s, key=lambda it: sign * it[2])
        return [sorted(s, key=lambda it: -it[1])]
    # average: every order of every tie group
    base = sorted(items, key=lambda it: -it[1])
    groups = [list(g) for _, g in itertools.groupby(base, key=lambda it: it[1])]
    out = []
    for combo in itertools.product(*[list(itertools.permutations(g)) for g in groups]):
        out.append([it for g in combo for it in g])
    return out


def _dcg(gains, k, base, discount="rank_plus_1"):
    def disc(rank):  # 1/log_b(rank + 1), or LensKit's 1/log_b(max(rank, 2))
        return math.log(rank + 1 if discount == "rank_plus_1" else max(rank, 2), base)
    return sum(g / disc(i + 1) for i, g in enumerate(gains[:k] if k else gains))


def _gain(g, t, kind):
    if isinstance(kind, tuple):  # a gain map ((grade, gain), ...): every grade >= t takes its gain
        return dict(kind)[g] if g >= t else 0.0
    if g >= t and g > 0:
        return {"linear": g, "exp": 2.0 ** g - 1, "binary": 1.0}[kind]
    return 0.0


def _interpolated_precision(rel, R, level, rounding):
    """trec_eval's iprec_at_recall, literally: the best precision at or after the rank of the needed-th hit."""
    x = level * R
    need = int(math.floor(x + 0.9)) if rounding == "plus_0.9" else int(math.floor(x + 0.5))
    precisions = []
    found, at = 0, None
    for i, r in enumerate(rel):
        found += r
        precisions.append(found / (i + 1))
        if r and found == need and at is None:
            at = i
    if need == 0:
        return max(precisions, default=0.0)
    if at is None:
        return 0.0
    return max(precisions[at:])


def metric_on_list(name, p, k, ranked, judgments, collection_grades=()):
    """ranked: list of (doc, score, grade, judged) in rank order; judgments: {doc: grade} (after policies);
    collection_grades: every judged grade of every evaluated query (for ERR's and μAP's collection options)."""
    t = p["rel"]
    rel = [1 if (j and g >= t) else 0 for (_, _, g, j) in ranked]
    R = sum(1 for g in judgments.values() if g >= t)
    n = len(ranked)
    kk = k if k is not None else n
    top = rel[:kk]
    hits = sum(top)

    def pden():
        if k is None:
            return n
        return {"k": k, "retrieved": min(k, n), "min_k_relevant": min(k, R)}[p["denominator"]]

    def div(a, b):
        return a / b if b else 0.0

    if name == "P":
        return div(hits, pden())
    if name == "R":
        return div(hits, R if p["denominator"] == "relevant" or k is None else min(k, R))
    if name == "F":
        P, Rc, b2 = div(hits, pden()), div(hits, R), p["beta"] ** 2
        return div((1 + b2) * P * Rc, b2 * P + Rc)
    judged_top = sum(1 for (_, _, _, j) in ranked[:kk] if j)
    nonrel_all = n - sum(rel)
    counts = {"NumQ": 1.0, "NumRet": float(n), "NumRel": float(R), "NumRelRet": float(sum(rel)),
              "NumNonrelJudgedRet": float(sum(1 for (_, _, g, j) in ranked if j and g < t)),
              "SetP": div(sum(rel), n), "SetR": div(sum(rel), R), "SetAP": div(sum(rel) ** 2, n * R),
              "SetRelP": div(sum(rel), min(n, R)), "Judged": div(judged_top, min(kk, n)),
              "FallOut": div(min(kk, n) - hits, nonrel_all) if nonrel_all else float(p.get("no_nonrelevant") == "one")}
    if name in counts:
        return counts[name]
    if name == "Unj":
        return (min(k, n) - judged_top) / k
    if name == "IPrec":
        return _interpolated_precision(rel, R, p["recall"], p["recall_rounding"])
    if name == "IPrecAvg":
        return sum(_interpolated_precision(rel, R, c / 10, p["recall_rounding"]) for c in range(11)) / 11
    if name == "RprecMult":
        at = int(math.floor(p["multiple"] * R + 0.9))
        return div(sum(rel[:at]), at)
    if name == "Success":
        return 1.0 if hits > 0 else 0.0
    if name == "Hits":
        return float(hits)
    if name == "Rprec":  # of the list cut at k: the top min(k, R)
        found = sum(rel[:R if k is None else min(k, R)])
        if p["no_hit"] == "nan" and R and not found:
            return float("nan")
        return div(found, R)
    if name == "AP" and p["precisions"] == "at_every_rank":  # Elliot: the mean of P@1 .. P@k
        return sum(sum(rel[:m]) / m for m in range(1, k + 1)) / k
    if name == "AP":
        s, c = 0.0, 0
        for i, r in enumerate(top):
            if r:
                c += 1
                s += c / (i + 1)
        den = {"relevant": R, "min_k_relevant": R if k is None else min(k, R), "retrieved_relevant": hits,
               "min_k_retrieved": n if k is None else min(k, n), "k": k,
               "min_relevant_listed": min(R, n if k is None else min(k, n))}[p["denominator"]]
        return div(s, den)
    if name == "AUC":  # every (relevant, retrieved non-relevant) pair, won when the relevant one is above
        nonrel = [i for i, r in enumerate(rel) if not r]
        won = sum(1 for i, r in enumerate(rel) if r for j in nonrel if i < j)
        if not nonrel and p["no_nonrelevant"] != "zero":
            return 1.0 if p["no_nonrelevant"] == "one" else float("nan")
        return div(won, R * len(nonrel))
    if name == "RR":
        for i, r in enumerate(top):
            if r:
                return 1.0 / (i + 1)
        return 0.0
    if name in ("DCG", "nDCG"):
        gains = [_gain(g, t, p["gain"]) if j else 0.0 for (_, _, g, j) in ranked]
        d = _dcg(gains, k, p["log_base"], p["discount"])
        if name == "DCG":
            return d
        if p["ideal"] == "judged":
            ideal = sorted((_gain(g, t, p["gain"]) for g in judgments.values()), reverse=True)
        elif p["ideal"] == "cutoff":
            ideal = [1.0] * k
        else:
            ideal = sorted(gains[:kk], reverse=True)
        return div(d, _dcg(ideal, k, p["log_base"], p["discount"]))
    if name == "Bpref":
        N = sum(1 for g in judgments.values() if g < t)
        if N == 0 and p["no_nonrelevant"] == "nan" and any(r for r in rel[:kk]):
            return float("nan")  # ranx: min(R, N) = 0 divides every relevant document's term
        s, nonrel = 0.0, 0
        for (_, _, g, j) in ranked[:kk]:
            if not j:
                continue
            if g >= t:
                s += 1.0 if nonrel == 0 else 1.0 - min(nonrel, R) / min(R, N)
            else:
                nonrel += 1
        return div(s, R)
    if name == "RBP":
        if p["gain"] == "binary":
            return sum((1 - p["p"]) * p["p"] ** i for i, r in enumerate(top) if r)
        gains = [_gain(g, t, p["gain"]) if j else 0.0 for (_, _, g, j) in ranked][:kk]
        return sum((1 - p["p"]) * p["p"] ** i * gn for i, gn in enumerate(gains))
    if name == "ERR":
        if p["gmax"] == "collection":
            gmax = max([0.0] + [float(g) for g in collection_grades])
        elif p["gmax"] == "query":
            gmax = max([0.0] + [float(g) for g in judgments.values()])
        else:
            gmax = float(p["gmax"])
        value, still_looking = 0.0, 1.0
        for i, (_, _, g, j) in enumerate(ranked[:kk]):
            stop = (2.0 ** g - 1) / 2.0 ** gmax if (j and g >= t and g > 0) else 0.0
            value += still_looking * stop / (i + 1)
            still_looking *= 1 - stop
        return value
    if name == "uAP":
        # eq. 4 literally: every level of L, its distance to the level below (or to 0), AP at it
        pool = judgments.values() if p["levels"] == "query" else collection_grades
        levels = sorted({float(g) for g in pool if g >= t and g > 0})
        if not levels:
            return 0.0
        total, below = 0.0, 0.0
        for level in levels:
            ap = metric_on_list("AP", dict(p, rel=level, precisions="at_relevant"), k, ranked, judgments)
            total += (level - below) * ap
            below = level
        return total / sum(b - a for a, b in zip([0.0] + levels[:-1], levels))
    if name == "nDCNG":
        m = max([0.0] + [float(g) for g in judgments.values()])

        def ngain(g):
            if not (g >= t and g > 0) or m <= 0:
                return 0.0
            x = g / m
            return x if p["gain"] == "linear" else 2.0 ** x - 1

        gains = [ngain(g) if j else 0.0 for (_, _, g, j) in ranked]
        if p["ideal"] == "judged":
            ideal = sorted((ngain(g) for g in judgments.values()), reverse=True)
        else:
            ideal = sorted(gains[:kk], reverse=True)
        return div(_dcg(gains, k, p["log_base"]), _dcg(ideal, k, p["log_base"]))
    raise KeyError(name)


def _judgments(qrels_q: dict, p) -> dict:
    if p["fractional_grades"] == "truncated":  # as trec_eval's atol reads them
        qrels_q = {d: float(math.trunc(g)) for d, g in qrels_q.items()}
    if p["negative"] == "unjudged":
        return {d: g for d, g in qrels_q.items() if g >= 0}
    return dict(qrels_q)


GAIN_BASED = ("DCG", "nDCG", "ERR", "uAP", "nDCNG")
# defined for a query without relevant documents: no_relevant does not apply
COUNTS = ("NumQ", "NumRet", "NumRel", "NumRelRet", "NumNonrelJudgedRet", "Judged", "Unj", "FallOut")


def naive_query(name, p, k, run_q: dict, qrels_q: dict, collection_grades=(), qid=None) -> float:
    """Value of one metric for one query under resolved parameters ``p`` (before the no_relevant policy)."""
    judgments = _judgments(qrels_q, p)
    if p["unscored_judgments"] == "ignored":  # only the documents the run scores exist (torchmetrics)
        judgments = {d: g for d, g in judgments.items() if d in run_q}
    items = []
    for d, s in run_q.items():
        if p["nonpositive"] == "not_retrieved" and s <= 0:
            continue  # scored <= 0 is not retrieved
        if p["self_retrieval"] == "removed" and d == qid:
            continue  # BEIR's ignore_identical_ids
        # torchmetrics zeroes the target of a document scored <= 0 and keeps it in the list (R still counts it)
        j = d in judgments and not (p["nonpositive"] == "unjudged" and s <= 0)
        s = float(np.float32(s)) if p["scores"] == "float32" else float(s)
        if p["unjudged"] == "removed" and not j:
            continue
        items.append((d, s, judgments.get(d, 0.0) if j else 0.0, j))
    lists = _rank(items, p["ties"])
    vals = [metric_on_list(name, p, k, lst, judgments, collection_grades) for lst in lists]
    if name == "Rprec" and len(vals) > 1 and not all(math.isnan(x) for x in vals):
        # ties=average: the expected hits over R, NaN (no_hit=nan) only where no order of the ties has a hit
        vals = [0.0 if math.isnan(x) else x for x in vals]
    v = sum(vals) / len(vals)
    gain_based = name in GAIN_BASED
    t = p["rel"]
    has_rel = any((g >= t and (g > 0 or not gain_based)) for g in judgments.values())
    if not has_rel and name not in COUNTS:
        if p["no_relevant"] == "one":
            return 1.0
        if p["no_relevant"] == "zero":
            return 0.0
        if p["no_relevant"] == "nan":
            return float("nan")
        raise ValueError("no relevant")
    return v


def naive_evaluate(qrels: dict, run: dict, resolved, missing_in_run: str, missing_in_qrels: str) -> dict:
    """{qid: value} for one resolved metric over the query set the policies define."""
    qrels = {q: v for q, v in qrels.items() if v}
    run = {q: v for q, v in run.items() if v}
    qids = set(qrels) & set(run)
    if missing_in_run == "zero":
        qids |= set(qrels)
    if missing_in_qrels == "evaluate":
        qids |= set(run)
    name, p, k = resolved.definition.name, resolved.params, resolved.k
    grades = [g for q in qids for g in _judgments(qrels.get(q, {}), p).values()]
    return {q: naive_query(name, p, k, run.get(q, {}), qrels.get(q, {}), grades, q) for q in sorted(qids)}
