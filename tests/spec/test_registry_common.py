"""Common tests driven by the registry: every metric x every parameter value.

For each value a metric accepts, the resolved metric prints as a string that parses back to itself,
evaluates to finite values (or NaN where no_relevant=nan says so) within the metric's bounds, and does
not change when every score is doubled (metrics read the order of the scores, not their size). Every
invalid value of every parameter is rejected with an error that names the parameter.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import rankwise as rw
from rankwise.errors import ConventionError, DataError, InvalidParameterError
from rankwise.spec import registry
from rankwise.spec.grammar import parse_metric
from tests.quick_run import every_nth_quick

# random collections set queries aside and tie scores on purpose: the RankwiseWarnings that say so are
# tested in tests/evaluation/test_warnings.py, not repeated for every example here
pytestmark = pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")

EXAMPLES = Path(__file__).resolve().parents[2] / "src" / "rankwise" / "examples" / "data"
CONVENTION = rw.get_convention("trec_eval")
# sums of discounted gains and counts: not normalised to [0, 1]
UNBOUNDED = {"DCG", "Hits", "NumQ", "NumRet", "NumRel", "NumRelRet", "NumNonrelJudgedRet", "Utility"}
SIGNED = {"Utility"}  # +1 per relevant retrieved, -1 per other retrieved

VALID_SAMPLES = {"float": ("0", "1", "2.5"), "int": ("1", "3"), "prob": ("0.5", "0.95"),
                 "log_base": ("e", "2", "10"), "choice_or_positive": ("4",), "positive": ("0.5", "2"),
                 "unit": ("0", "0.25", "1"), "gains": ("{0:0;1:1;2:3;3:7}", "{0:1;1:4;2:9;3:16}")}
INVALID_SAMPLES = {"choice": ("bogus", ""), "float": ("abc", "inf", "nan"), "int": ("0", "1.5", "x"),
                   "prob": ("0", "1", "1.5", "x"), "log_base": ("1", "0.5", "x"),
                   "choice_or_positive": ("bogus", "-1", "0"), "positive": ("0", "-1", "x"),
                   "unit": ("-0.1", "1.5", "x"), "gains": ("bogus", "{1}", "{}", "{1:x}", "{1:1;1:2}")}


def _values(p) -> tuple[str, ...]:
    return tuple(p.choices) + VALID_SAMPLES.get(p.kind, ())


# (the beyond-accuracy metrics read item lists, training interactions and features: tests/metrics/beyond/ checks
# every parameter of theirs on those inputs)
CASES = [(d.name, p.name, v) for d in registry.all_metrics() if d.lists is None for p in d.all_params
         for v in _values(p)]
INVALID = [(d.name, p.name, v) for d in registry.all_metrics() for p in d.all_params
           for v in INVALID_SAMPLES[p.kind]]
# 3,900 cases (about 10 s on 2 cores, most of it pytest's own cost per case): the quick run takes every
# fourth, the full run (CI) all of them
QUICK_SHARE = 4


def _text(name: str, param: str, value: str) -> str:
    d = registry.lookup(name)[0]
    if d.name == "nDCG" and param == "ideal" and value == "cutoff" or d.name == "Unj":
        return f"{name}({param}={value})@10"  # these need a cutoff whatever the other choices
    return f"{name}({param}={value})" + ("@10" if d.cutoff else "")


@pytest.fixture(scope="module")
def data():
    qrels = rw.read_qrels(EXAMPLES / "synthetic.qrels")
    run = rw.read_run(EXAMPLES / "synthetic.run")
    doubled = rw.Run.from_dict({q: {d: 2 * s for d, s in docs.items()} for q, docs in run.to_dict().items()})
    return qrels, run, doubled


def _resolve(text: str):
    try:
        return CONVENTION.resolve(parse_metric(text))
    except ConventionError as exc:
        # the combinations the registry declares undefined: tie-averaging a non-linear metric, and a
        # micro-average of a metric without a per-query denominator
        only = parse_metric(text).definition.only
        if any(f"{n}=" in text and text.split(f"{n}=")[1].split(")")[0] not in v for n, (v, _) in only.items()):
            assert "is not defined for" in str(exc)
            return None
        if "aggregate=micro" in text:
            assert "aggregate=micro" in str(exc) and parse_metric(text).definition.micro_weight is None
            return None
        assert "ties=average" in str(exc), exc
        assert "ties=average" in text and not parse_metric(text).definition.tie_average
        return None


def test_the_registry_has_every_metric_module():
    import importlib
    names = {d.name for d in registry.all_metrics()}
    modules = (*(f"rankwise.metrics.{m}" for m in registry.METRIC_MODULES), *registry.EXTRA_METRIC_MODULES)
    per_module = [len(getattr(importlib.import_module(m), "DEFINITIONS", None) or (1,)) for m in modules]
    assert len(names) == sum(per_module)
    assert {"P", "R", "AP", "RR", "nDCG", "DCG", "Bpref", "RBP", "ERR"} <= names


@pytest.mark.parametrize("name, param, value", every_nth_quick(CASES, QUICK_SHARE))
def test_every_value_round_trips(name, param, value):
    rm = _resolve(_text(name, param, value))
    if rm is None:
        return
    again = CONVENTION.resolve(parse_metric(str(rm)))
    assert again == rm and str(again) == str(rm)
    assert parse_metric(str(rm)).definition is rm.definition


@pytest.mark.parametrize("name, param, value", every_nth_quick(CASES, QUICK_SHARE))
def test_every_value_evaluates_within_bounds_and_ignores_the_size_of_scores(name, param, value, data):
    text = _text(name, param, value)
    if _resolve(text) is None:
        return
    qrels, run, doubled = data
    needs_relevant = parse_metric(text).definition.needs_relevant  # counts are defined without relevant documents
    if param == "no_relevant" and value == "error" and needs_relevant:  # the example has queries without any
        with pytest.raises(DataError, match="no relevant document"):
            rw.evaluate(qrels, run, [text])
        return
    v = rw.evaluate(qrels, run, [text]).values[text]
    ok = ~np.isnan(v)
    if not (param == "no_relevant" and value == "nan"):
        assert ok.all(), f"{text}: NaN for a query"
    assert np.isfinite(v[ok]).all()
    assert name in SIGNED or (v[ok] >= 0).all(), f"{text}: {v[ok].min()}"
    graded_rbp = name == "RBP" and param == "gain" and value != "binary"  # weighted by the grade, as ranx
    # k documents of gain 1 normalise it: grades above 1 can pass 1 (documented with ideal=cutoff)
    above_one = name == "nDCG" and "ideal=cutoff" in str(_resolve(text)) and "gain=binary" not in str(_resolve(text))
    if name not in UNBOUNDED and not graded_rbp and not above_one:
        assert (v[ok] <= 1 + 1e-12).all(), f"{text}: up to {v[ok].max()}"
    # doubling is exact in binary floating point, so even float32 ties stay ties
    w = rw.evaluate(qrels, doubled, [text]).values[text]
    np.testing.assert_array_equal(np.isnan(v), np.isnan(w))
    np.testing.assert_array_equal(v[ok], w[ok])


@pytest.mark.parametrize("name, param, value", every_nth_quick(INVALID, QUICK_SHARE))
def test_every_invalid_value_is_rejected_naming_the_parameter(name, param, value):
    with pytest.raises(InvalidParameterError) as err:
        CONVENTION.resolve(parse_metric(_text(name, param, value)))
    assert param in str(err.value)


@pytest.mark.parametrize("name", [d.name for d in registry.all_metrics()])
def test_unknown_parameters_and_misplaced_cutoffs_are_rejected(name):
    d = registry.lookup(name)[0]
    with pytest.raises(InvalidParameterError, match="no_such_param|unknown"):
        parse_metric(f"{name}(no_such_param=1)")
    if d.at_param is not None:  # IPrec@0.25: @ gives a parameter, which 10 is not a valid value of
        with pytest.raises(InvalidParameterError, match=d.at_param):
            parse_metric(f"{name}@10" if d.name != "RprecMult" else f"{name}@-1")
    elif not d.cutoff:
        with pytest.raises(InvalidParameterError, match="cutoff"):
            parse_metric(f"{name}@10")
    else:
        with pytest.raises(InvalidParameterError):
            parse_metric(f"{name}@0")

