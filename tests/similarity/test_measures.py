"""The similarity measure registry and grammar: resolved strings name every parameter, aliases, and clear errors."""
from __future__ import annotations

import pytest

from rankwise.agreement import measures
from rankwise.agreement.measures import all_measures, describe, parse_measure, parse_measures
from rankwise.errors import InvalidParameterError


@pytest.mark.parametrize("text, resolved", [
    ("Jaccard@10", "Jaccard@10"), ("jaccard @ 10", "Jaccard@10"), ("IoU@5", "Jaccard@5"), ("Jaccard", "Jaccard"),
    ("Overlap@10", "Overlap(denominator=k)@10"),
    ("OVERLAP(denominator=shorter)@3", "Overlap(denominator=min_length)@3"),
    ("ANNRecall@100", "Overlap(denominator=b_length)@100"),
    ("Overlap(denominator=b_length)", "Overlap(denominator=b_length)"),
])
def test_resolved_strings_name_every_parameter(text, resolved):
    assert str(parse_measure(text)) == resolved


@pytest.mark.parametrize("text, message", [
    ("Jacard@10", r"unknown similarity measure 'Jacard' in 'Jacard@10'\. Did you mean 'Jaccard'"),
    ("RBP@10", r"unknown similarity measure 'RBP'.*rankwise similarity --list"),
    ("Jaccard@ten", r"cutoff in 'Jaccard@ten' must be a positive integer; got 'ten'"),
    ("Jaccard@0", "must be a positive integer"),
    ("Overlap(denominator=all)@3",
     r"parameter denominator of Overlap must be one of k, min_length, b_length; got 'all'"),
    ("Overlap(denominatr=k)@3", r"Overlap has no parameter 'denominatr'.*Did you mean 'denominator'"),
    ("Jaccard(k=3)", r"Jaccard has no parameter 'k'.*It takes no parameter"),
    ("Overlap", r"Overlap\(denominator=k\) divides by the cutoff: give one \(Overlap@10\)"),
    ("Overlap(denominator)@3", "must be key=value"),
    ("Overlap(denominator=k,denominator=k)@3", "given twice"),
    ("Jaccard@10@3", "must be a positive integer; got .10@3."),
    ("Jaccard(", "cannot parse similarity measure .Jaccard\\(.; expected name"),
])
def test_a_bad_measure_says_what_and_how_to_fix_it(text, message):
    with pytest.raises(InvalidParameterError, match=message):
        parse_measure(text)


def test_a_measure_named_twice_is_refused_and_the_defaults_name_every_parameter():
    with pytest.raises(InvalidParameterError, match="are the same measure, Overlap"):
        parse_measures(["Overlap@10", "overlap(denominator=k)@10"])
    assert [str(s) for s in parse_measures(None)] == [
        "RBO(p=0.9,value=ext,ties=a,normalise=none)", "KendallTau(items=shared)", "Jaccard@10",
        "Overlap(denominator=k)@10"]
    assert [s.text for s in parse_measures("Jaccard@3")] == ["Jaccard@3"]
    with pytest.raises(InvalidParameterError, match="at least one"):
        parse_measures([])


def test_every_family_registers_its_definitions_and_the_list_documents_them():
    names = {d.name for d in all_measures()}
    assert {"Jaccard", "Overlap"} <= names
    text = describe()
    for d in all_measures():
        assert d.name in text and d.formula in text and d.reference in text
        assert set(d.defaults) == {p.name for p in d.params}  # no hidden choice
        for p in d.params:
            for c in p.choices:
                assert c in p.choice_docs and p.choice_docs[c] in text
    assert measures.FAMILIES[0] == "overlap"
