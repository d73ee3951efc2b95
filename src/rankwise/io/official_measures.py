"""A collection's official measures (ir_datasets documents them in ir_measures' syntax) as rankwise metrics.

ir_measures writes a measure ``Name(param=value,...)@cutoff`` (``RR(rel=2)@10``, ``nDCG@10``, ``AP(rel=2)``,
``Judged@10``): the name is one of ir_measures' measures, ``rel`` the lowest grade counted relevant (default 1),
``@k`` the cutoff. rankwise's grammar reads the same shape, and under the ``ir_measures`` preset (trec_eval's
definitions, judged queries missing from the run scored 0: pytrec_eval's behaviour through ir_measures) each
measure below has ir_measures' meaning; tests/io/test_named_collections.py checks every one against the real
ir_measures, and every official measure string of ir_datasets' documentation (its ``docs/*.yaml``) against
this table. A measure or parameter outside it is an error that names it, never a guess.

Measure names and parameters as ir_measures 0.4.3 defines them (macavaney/ir_measures, ir_measures/measures/).
"""
from __future__ import annotations

import re

from rankwise.errors import InvalidParameterError
from rankwise.io import named_collections

# ir_measures' name (its aliases included: MAP, MRR, NDCG, BPref, RPrec, Precision, Recall) -> rankwise's
MEASURE_NAMES = {
    "AP": "AP", "MAP": "AP", "P": "P", "Precision": "P", "R": "R", "Recall": "R", "RR": "RR", "MRR": "RR",
    "nDCG": "nDCG", "NDCG": "nDCG", "Success": "Success", "Judged": "Judged", "Bpref": "Bpref", "BPref": "Bpref",
    "Rprec": "Rprec", "RPrec": "Rprec", "NumRet": "NumRet", "NumRelRet": "NumRelRet",
    "SetP": "SetP", "SetR": "SetR", "SetAP": "SetAP", "infAP": "infAP",
}
# Not translated: NumRel and NumQ. ir_measures gives a judged query missing from the run 0 for every measure,
# these counts included (NumRel 0, NumQ 0), where rankwise's missing_in_run=zero scores the query as an empty
# ranking (NumRel its relevant documents, NumQ 1): no preset reproduces that today.
# the measures whose ``rel`` parameter ir_measures defines (the others ignore grades or use them as gains)
REL_MEASURES = frozenset({"AP", "P", "R", "RR", "Success", "Bpref", "Rprec", "NumRelRet", "SetP", "SetR", "SetAP",
                          "infAP"})
# the convention under which the translated measures mean what ir_measures computes
CONVENTION = "ir_measures"
# ir_measures computes these with providers of its own rather than pytrec_eval, and they order equally scored
# documents by doc id ascending where pytrec_eval (trec_eval) orders them descending: RR with a cutoff (its
# msmarco provider; RR without one is pytrec_eval's recip_rank) and Judged@k (its judged provider). The
# translation says so in the metric, so a run with ties gets ir_measures' values.
ASCENDING_TIES = frozenset({"RR", "Judged"})  # (with a cutoff)

_MEASURE = re.compile(r"^\s*(?P<name>[A-Za-z_]+)\s*(?:\((?P<params>[^()]*)\))?\s*(?:@\s*(?P<k>\d+))?\s*$")


def translate(measure: str) -> str:
    """The rankwise metric string of the ir_measures measure ``measure`` (``RR(rel=2)@10`` ->
    ``RR(rel=2,ties=docid_asc)@10``, ``MAP`` -> ``AP``, ``nDCG(dcg="log2")@10`` -> ``nDCG(gain=linear)@10``)."""
    m = _MEASURE.match(measure)
    if m is None:
        raise InvalidParameterError(f"cannot read the ir_measures measure {measure!r}; expected "
                                    "Name(param=value,...)@cutoff, e.g. 'RR(rel=2)@10'")
    name = MEASURE_NAMES.get(m.group("name"))
    if name is None:
        raise InvalidParameterError(
            f"the ir_measures measure {measure!r} has no rankwise translation; translated: "
            f"{', '.join(sorted(set(MEASURE_NAMES)))}. Name the metric with rankwise's syntax instead "
            "('rankwise metrics' lists them)")
    params = []
    for item in filter(None, (s.strip() for s in (m.group("params") or "").split(","))):
        key, _, value = (s.strip() for s in item.partition("="))
        value = value.strip("'\"")  # (ir_measures quotes string values: dcg="exp-log2")
        params.append(_param(measure, name, key, value))
    params = [p for p in params if p]
    if m.group("k") and name in ASCENDING_TIES:
        params.append("ties=docid_asc")
    text = name + (f"({','.join(params)})" if params else "")
    return text + (f"@{m.group('k')}" if m.group("k") else "")


def _param(measure: str, name: str, key: str, value: str) -> str:
    if key == "rel" and name in REL_MEASURES and re.fullmatch(r"-?\d+", value):
        return f"rel={value}"
    if key == "dcg" and name == "nDCG" and value == "log2":  # (exp-log2 is gdeval's nDCG: another definition)
        return "gain=linear"
    if key == "judged_only" and value == "False":  # ir_measures' default, written out
        return ""
    raise InvalidParameterError(
        f"the parameter {key}={value} of the ir_measures measure {measure!r} has no rankwise translation "
        f"(translated: rel=N for {', '.join(sorted(REL_MEASURES))}; dcg=log2 for nDCG). Name the "
        "metric with rankwise's syntax instead")


def official_measures(name: str) -> tuple[str, ...]:
    """The measures the collection ``name`` documents as official (ir_measures' syntax), () when none."""
    docs = named_collections.load_dataset(name).documentation() or {}
    found = docs.get("official_measures") or ()
    return tuple(str(m) for m in ([found] if isinstance(found, str) else found))


def official_metrics(name: str) -> tuple[list[str], str]:
    """The official measures of the collection ``name`` as rankwise metrics, and the sentence that says so
    (printed on stderr by the CLI, a warning in Python); an error when the collection documents none."""
    measures = official_measures(name)
    if not measures:
        raise InvalidParameterError(
            f"no metric given, and ir_datasets documents no official measures for {name}: name the metrics "
            f"(rankwise evaluate {name} RUN -m nDCG@10 -m AP; rankwise.evaluate({name!r}, run, ['nDCG@10']))")
    metrics = [translate(m) for m in measures]
    return metrics, (f"no metric given: evaluating the official measures of {name} (ir_datasets' documentation, "
                     f"ir_measures' syntax): {', '.join(measures)}, under convention {CONVENTION} unless one is "
                     "named")
