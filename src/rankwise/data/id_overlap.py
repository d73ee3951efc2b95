"""Qrels and run ids that cannot be meant to differ: no query in common, or ids of different formats (``'7'``
and ``'007'``, integers and decimals) that barely match, are a ``DataError`` showing both sides.

``check_id_overlap`` checks a Qrels and a Run (every ``evaluate()``); a run evaluated in parts (blocks of a
file, Spark partitions) is planned without it (``Plan.check_ids``) and checked once, whole, with its two
halves, ``check_query_overlap`` and ``check_doc_overlap``, from what the parts report.
"""
from __future__ import annotations

import re
from collections import Counter
from typing import Any, Callable, Sequence

import numpy as np

from rankwise.data.id_sets import n_shared
from rankwise.errors import DataError

_FORMATS = (("integer", re.compile(r"-?(0|[1-9][0-9]*)")), ("zero-padded integer", re.compile(r"0[0-9]+")),
            ("decimal number", re.compile(r"-?[0-9]*\.[0-9]+(e[-+]?[0-9]+)?", re.I)))
ID_SAMPLE = 2000  # ids whose most common form is an id column's format


def id_format(ids: Sequence[str] | np.ndarray) -> str:
    """The most common form of a sample of ids: integer, zero-padded integer, decimal number or text."""
    counts: Counter[str] = Counter()
    for s in list(ids[:ID_SAMPLE]):
        s = str(s)
        counts[next((name for name, rx in _FORMATS if rx.fullmatch(s)), "text")] += 1
    return counts.most_common(1)[0][0] if counts else "text"


def _examples(ids: Sequence[str] | np.ndarray, n: int = 3) -> str:
    shown = ", ".join(repr(str(x)) for x in list(ids[:n]))
    return f"{shown}{', ...' if len(ids) > n else ''} ({len(ids)} in all)"


def check_id_overlap(qrels: Any, run: Any) -> None:
    """A DataError when qrels and run share no query, or when their query or doc ids look like different
    formats (``'7'`` and ``'007'``, integers and decimals) and barely match; the message shows both sides."""
    # both are immutable: a run that passed against these qrels passes again (a repeated evaluate is free)
    run.memo_with(qrels, "id_overlap_checked", lambda: _checked(qrels, run))


def _checked(qrels: Any, run: Any) -> bool:
    qq, rq = np.asarray(qrels.query_ids), np.asarray(run.query_ids)
    if qq.size and rq.size:
        check_query_overlap(qq, rq)
        check_doc_overlap(qrels, run.doc_ids(np.arange(min(len(run), ID_SAMPLE))), lambda: np.unique(run.doc_ids()))
    return True


def check_doc_overlap(qrels: Any, run_sample: np.ndarray, run_docs: Callable[[], np.ndarray]) -> bool:
    """The doc-id half of ``check_id_overlap``: a DataError when the qrels' doc ids and the run's look like
    different formats and barely match. ``run_sample``: the run's first ``ID_SAMPLE`` doc ids (in its rows'
    order); ``run_docs``: its distinct doc ids, asked for only when the formats differ. True when they agree."""
    fq, fr = id_format(qrels.doc_ids(np.arange(min(len(qrels), ID_SAMPLE)))), id_format(run_sample)
    if fq == fr:
        return True
    qdocs, rdocs = np.unique(qrels.doc_ids()), run_docs()
    matched = np.intersect1d(qdocs, rdocs).size
    if matched < 0.05 * min(qdocs.size, rdocs.size):
        raise DataError(f"{'no' if matched == 0 else f'only {matched} of the'} {rdocs.size} distinct run doc ids "
                        f"{'is' if matched == 0 else 'are'} in the qrels: qrels doc ids {_examples(qdocs)} look like "
                        f"{fq}s, run doc ids {_examples(rdocs)} like {fr}s. Convert one side (e.g. to int, or pad "
                        "them the same way)")
    return False


def check_query_overlap(qq: np.ndarray, rq: np.ndarray, n_common: int | None = None) -> None:
    """A DataError when the qrels' and the run's query ids (str arrays) share none, or look like different
    formats and barely match. ``n_common``: how many they share, when the caller knows it already (the
    blocks of a file count theirs when they look up their judgments)."""
    if qq.size == 0 or rq.size == 0:
        return
    if n_common is None:
        n_common = n_shared(qq, rq)
    fq, fr = id_format(qq), id_format(rq)
    hint = (f"; the qrels' query ids look like {fq}s and the run's like {fr}s: convert one side "
            "(e.g. to int, or pad them the same way)" if fq != fr else
            "; check that both come from the same data (e.g. the same split, the same user ids)")
    if n_common == 0:
        raise DataError(f"the qrels and the run share no query: qrels query ids {_examples(qq)}; run query ids "
                        f"{_examples(rq)}{hint}")
    if fq != fr and n_common < 0.5 * min(qq.size, rq.size):
        raise DataError(f"only {n_common} of {rq.size} run queries are in the qrels (of {qq.size}): qrels query "
                        f"ids {_examples(qq)}; run query ids {_examples(rq)}{hint}")
