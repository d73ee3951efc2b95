"""What every report of ``rankwise similarity`` says in words: its title and the facts the numbers depend on
(shared by :mod:`rankwise.report.similarity` and :mod:`rankwise.report.similarity_html`)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from rankwise.agreement.similarity import queries

if TYPE_CHECKING:  # pragma: no cover
    from rankwise.agreement.similarity import Similarity


def title(s: "Similarity") -> str:
    return f"Similarity of {s.names[0]} and {s.names[1]} over {queries(s.n_queries)}"


def facts(s: "Similarity") -> list[tuple[str, str]]:
    """What the numbers depend on, as (label, text): the resolved measures, the pairing's policies and counts,
    the interval method."""
    i = s.info
    out = [("Measures", "; ".join(f"{m} = {s.resolved[m]}" if s.resolved[m] != m else m for m in s.measures)),
           ("Rankings", f"ties={i['ties']} (scores compared as {i['scores']}), depth="
                        f"{i['depth'] if i['depth'] is not None else 'whole'}, missing={i['missing']}"),
           ("Queries", f"{i['queries_paired']} in both runs, {i['only_in_a']} only in {s.names[0]}, "
                       f"{i['only_in_b']} only in {s.names[1]}"),
           ("Ties", f"{queries(i['tied_queries_a'])} ({i['tied_rows_a']} rows) of {s.names[0]} and "
                    f"{queries(i['tied_queries_b'])} ({i['tied_rows_b']} rows) of {s.names[1]} hold documents of "
                    "equal score"),
           ("Interval", s.interval_text())]
    return out
