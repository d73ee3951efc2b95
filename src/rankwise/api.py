"""The front door: ``rankwise.evaluate`` and the input boundary, ``as_qrels`` / ``as_run``.

Everything a user hands rankwise (a Qrels or Run, a pandas or polars DataFrame, an Arrow table, a dict, a path
to a file) becomes a Qrels or a Run here, once; below this module every function takes the data model. Which
way the evaluation runs (one thread, parts of a run on every core, blocks of a file) is ``rankwise.execution``'s
choice; the numbers are the same whichever it takes.
"""
from __future__ import annotations

import os
from os import PathLike
from typing import Any, Callable, Iterable, Mapping, TypeVar

import numpy as np

from rankwise.conventions.convention import Convention
from rankwise.conventions.presets import DEFAULT, get_convention
from rankwise.data.collections import Qrels, Run
from rankwise.data.frames import frame_kind
from rankwise.data.peer_objects import is_record_iterable, ranx_dict, read_records
from rankwise.errors import DataError, InvalidParameterError, RankwiseError, RankwiseWarning
from rankwise.evaluation.notices import warn_about
from rankwise.evaluation.plan import make_plan
from rankwise.evaluation.results import Results
from rankwise.execution.files import (
    STREAM_CHOICES,
    evaluate_files,
    evaluating,
    is_path,
    no_stages,
    streams,
    trec_path,
)
from rankwise.execution.item_blocks import lists_in_blocks
from rankwise.execution.item_lists import evaluate_lists, whole_run_draws
from rankwise.execution.parts import evaluate_in_memory
from rankwise.execution.workers import resolve_pool, resolve_workers
from rankwise.io.item_inputs import read_item_inputs as read_item_inputs  # (comparison/ reads them once)
from rankwise.io.tabular import FORMATS

_Rows = TypeVar("_Rows", Qrels, Run)

__all__ = ["evaluate", "evaluate_tensors", "as_qrels", "as_run", "side_columns", "side_format", "whole_run_draws"]


def side_columns(columns: Mapping[str, Any] | None, side: str) -> dict[str, str]:
    """The ``columns=`` roles of one side ("qrels" or "run"): ``{"qrels": {...}, "run": {...}}``, or one
    mapping for both (query and doc for both sides, relevance for the qrels, score and rank for the run)."""
    if not columns:
        return {}
    if "qrels" in columns or "run" in columns:
        return dict(columns.get(side) or {})
    drop = ("score", "rank") if side == "qrels" else ("relevance",)
    return {k: v for k, v in columns.items() if k not in drop}


def side_format(formats: str | Mapping[str, str | None] | None, side: str) -> str | None:
    """The ``formats=`` of one side ("qrels" or "run"): ``{"qrels": "trec", "run": "csv"}``, or one format for
    both; None: the format of a file is guessed from its extension."""
    if formats is None or isinstance(formats, str):
        return formats
    if not isinstance(formats, Mapping) or set(formats) - {"qrels", "run"}:
        raise InvalidParameterError(f"formats must be a format name ({', '.join(FORMATS)}) or a mapping "
                                    f'{{"qrels": ..., "run": ...}}; got {formats!r}')
    return formats.get(side)


def as_qrels(x: Any, columns: Mapping[str, Any] | None = None, *, duplicates: str = "error",
             file_format: str | None = None) -> Qrels:
    """A Qrels from itself, a pandas/polars DataFrame or pyarrow Table (``Qrels.from_frame``; PyTerrier's
    ``qid, docno, label`` frames included), a dict ``{query: {doc: grade}}`` (ir_measures', pytrec_eval's) or
    ``{query: [doc, ...]}`` (every listed doc relevant, grade 1), a ranx ``Qrels``, an iterator or list of records
    with named fields (``ir_measures.read_trec_qrels(path)``'s ``Qrel`` tuples, ir_datasets' ``qrels_iter()``;
    read once, whole), or a path to a TREC, CSV/TSV, Parquet or JSON file (read as the CLI reads it, columns
    found by name). ``columns`` names
    the columns of frames and files (as ``rankwise.evaluate``'s); ``duplicates`` what to do with a (query, doc)
    pair given twice in a frame or file: 'error' (default), 'first', 'last' or 'max'; ``file_format`` the format of
    a path (one of ``rankwise.io.tabular.FORMATS``; None: guessed from its extension)."""
    if isinstance(x, Qrels):
        return x
    if frame_kind(x) is not None:
        return Qrels.from_frame(x, columns=side_columns(columns, "qrels"), duplicates=duplicates)
    if is_record_iterable(x):
        return Qrels.from_frame(read_records(x, "qrels"), columns=side_columns(columns, "qrels"),
                                duplicates=duplicates)
    x = ranx_dict(x, "qrels") or x
    if isinstance(x, Mapping):
        if _ranked_lists(x):
            return Qrels.from_dict({q: dict.fromkeys(list(docs), 1) for q, docs in x.items()})
        return Qrels.from_dict(x)
    if isinstance(x, (str, PathLike)):
        from rankwise.io.tabular import read_qrels_file
        return read_qrels_file(x, file_format, columns=side_columns(columns, "qrels"), duplicates=duplicates)
    raise _not_an_input(x, Qrels, "grade")


def as_run(x: Any, columns: Mapping[str, Any] | None = None, *, duplicates: str = "error",
           file_format: str | None = None) -> Run:
    """A Run from itself, a pandas/polars DataFrame or pyarrow Table (``Run.from_frame``; PyTerrier's result
    frames ``qid, docno, score, rank`` included), a dict ``{query: {doc: score}}`` or ``{query: [doc, ...]}`` (a
    ranked list, best first), a ranx ``Run``, an iterator or list of records with named fields
    (``ir_measures.read_trec_run(path)``'s ``ScoredDoc`` tuples; read once, whole), or a path to a TREC,
    CSV/TSV, Parquet or JSON file. ``columns`` names the columns of frames and files; ``duplicates`` and
    ``file_format``: as :func:`as_qrels`'s."""
    if isinstance(x, Run):
        return x
    if frame_kind(x) is not None:
        return Run.from_frame(x, columns=side_columns(columns, "run"), duplicates=duplicates)
    if is_record_iterable(x):
        return Run.from_frame(read_records(x, "run"), columns=side_columns(columns, "run"), duplicates=duplicates)
    x = ranx_dict(x, "run") or x
    if isinstance(x, Mapping):
        return Run.from_ranked_lists(x) if _ranked_lists(x) else Run.from_dict(x)
    if isinstance(x, (str, PathLike)):
        from rankwise.io.tabular import read_run_file
        return read_run_file(x, file_format, columns=side_columns(columns, "run"), duplicates=duplicates)
    raise _not_an_input(x, Run, "score")


def _ranked_lists(x: Mapping[Any, Any]) -> bool:
    inner = list(x.values())
    return bool(inner) and all(isinstance(v, (list, tuple, np.ndarray)) for v in inner)


def _not_an_input(x: Any, cls: type, what: str) -> InvalidParameterError:
    side = "qrels" if cls is Qrels else "run"
    return InvalidParameterError(
        f"{side} must be a {cls.__name__}, a pandas or polars DataFrame, a pyarrow Table, a dict "
        f"{{query: {{doc: {what}}}}}{' or {query: [doc, ...]}' if cls is Run else ''}, a ranx {cls.__name__}, "
        "an iterator or list of named tuples or dicts (ir_measures' records), or a path to a TREC, CSV, "
        f"TSV, Parquet or JSON file; got {type(x).__name__}. (rankwise.{cls.__name__}.from_frame, from_dict "
        "and from_arrays build one explicitly)")


def evaluate(qrels: Any, run: Any, metrics: str | Iterable[str] | None = None,
             convention: str | Convention | None = None, *,
             columns: Mapping[str, Any] | None = None, formats: str | Mapping[str, str | None] | None = None,
             workers: int | None = None, stream: str = "auto", progress: Callable[[int, int], None] | None = None,
             stages: Callable[[str], None] | None = None, trim_memory: bool = False, duplicates: str = "error",
             train: Any = None, items: Any = None, item_features: Any = None, reference: Any = None,
             intervals: int = 0, pool: str = "thread", **overrides: Any) -> Results:
    """Evaluate ``run`` against ``qrels`` with ``metrics`` under a named convention.

    ``qrels`` and ``run`` are Qrels/Run, DataFrames (pandas, polars) or Arrow tables, dicts (``{query: {doc:
    value}}``, or ``{query: [doc, ...]}`` best first), or paths to TREC, CSV/TSV, Parquet or JSON files.
    Columns of frames and files are found by name (``user``/``userId``/``qid``...,
    ``item``/``movieId``/``docno``..., ``rating``/``relevance``..., ``score``/``prediction``..., ``rank``);
    ``columns={"query": "uid", "doc": "iid", "relevance": "r", "score": "s"}`` names them (or ``{"qrels":
    {...}, "run": {...}}`` for each side; ``"header": False`` reads CSV/TSV files without a header row, their
    columns named by position from 0). ``formats``: the format of files whose extension does not say it, one of
    ``trec``, ``csv``, ``tsv``, ``parquet``, ``json`` (``formats="trec"`` for both, or ``{"qrels": "trec", "run":
    "csv"}``; None: guessed from the extension). ``duplicates``: what to do with a (query, doc) pair a frame or file
    gives twice: 'error' (default), 'first', 'last' or 'max'. Qrels without a relevance column: every row is
    relevant (grade 1). Ids of any type match as values (``10.0`` is ``10``); with integer query ids the
    per-query results are keyed by ints in numeric order. Qrels and runs that share no query, or whose ids
    look like different formats (``'7'`` and ``'007'``) and barely match, are a DataError.

    Beyond accuracy (coverage, Gini, entropy, novelty, popularity, diversity, serendipity, personalization:
    ``rankwise metrics``) reads what the recommendations are measured against: ``train``, the training
    interactions (a frame or file with user and item columns, ``{user: [items]}``; repeated rows count);
    ``items``, the declared catalogue (item ids, or a file of one id per line); ``item_features``, a frame with an
    item column and one column per feature (or the path of a CSV/TSV/Parquet file of one), ``{item: vector}`` or
    ``(item ids, matrix)``; ``reference``, another
    recommender's run in any form of ``run`` (``Intersection``). A metric that needs one
    that was not given says so. ``qrels`` may then be None: every user of the run is evaluated, nothing is
    relevant. ``Results.info["items"]`` counts the recommended cold items, those outside the catalogue or without
    features, and the users without a recommendation. A whole-run figure (coverage, Gini, entropy, personalization,
    parity) has no per-user values; ``intervals=1000`` gives each its 95% interval, ± 1.96 standard errors estimated
    from 1000 bootstrap samples of its users, in ``Results.intervals`` (seed 0: the same every time).

    A ``qrels`` string that is not an existing file is an ir_datasets collection id (``"msmarco-passage/trec-dl-
    2019/judged"``; ``pip install 'rankwise[datasets]'``): its judgments, downloaded by ir_datasets if need be and
    cached as Parquet (docs/collections.md). With ``metrics`` None, the collection's official measures are evaluated
    (under the ``ir_measures`` convention unless ``convention`` names one), saying so in a warning; a binary metric
    without ``rel`` on a graded collection is warned about.

    ``convention``: a preset name or Convention (None: ``trec_eval``, the default).
    ``overrides`` change single choices of the convention, e.g. ``ties="average"``,
    ``missing_in_run="zero"``, ``denominator="min_k_relevant"``.

    ``workers``: the cores used (None or 0: all of them; 1: one). Qrels given as a path are read while the
    run is, a TREC run file above 48 MB is evaluated in blocks of whole queries by that many threads (as
    ``rankwise evaluate --jobs``), and a run held in memory of 2M ranked rows or more in parts of whole
    queries. The results are the same for every number of workers, to the bit. ``pool``: what the workers of a
    file's blocks are: ``"thread"`` (default) or ``"process"``, processes forked from this one, each with its own
    interpreter, so that no block waits for another's Python (the qrels are then read before the fork, not beside
    the run); ``"auto"``: processes from 8 workers up on Linux, else threads, as ``rankwise evaluate`` chooses (on
    16 cores forked workers were 1.4-1.7 times faster than 16 threads, at 1.5-1.9 times the memory:
    benchmarks/README.md). Forking copies this process as it is, its threads' state included: ask for it where
    the process is yours to fork.

    ``stream``: how a TREC run file is read. ``"auto"``: whole, or in blocks of whole queries when that is
    faster or the file is above 1 GB (the Results are those of reading it whole, errors included); ``"yes"``:
    block by block in bounded memory, for a file that may not fit (each query's lines must be together, and
    ``Results.info["blocks"]`` counts the blocks); ``"no"``: whole. ``progress(bytes_done, bytes_total)`` is
    called as the blocks are evaluated, and ``stages(message)`` as each stage of an evaluation from files begins
    (``"reading qrels PATH"``, ``"reading run PATH"``, ``"evaluating N queries, M ranked documents"``; the
    command line prints them with ``--progress``). With beyond-accuracy metrics too, against qrels and without
    ``intervals`` (a first pass gathers the file's items: docs/beyond-accuracy.md). ``trim_memory``: each
    finished block of a file evaluated in blocks gives the memory it freed back to the system (glibc's
    ``malloc_trim``), which bounds the resident memory of a long stream but acts on the whole process: only a
    caller that owns its process should ask for it (``rankwise evaluate`` does not: it keeps freed memory for
    the next block instead, cli/process.py).

    A wrong convention or override is said after the input files' own errors (they are read first), except for a
    run file streamed because it may not fit in memory, where it is said at once.
    """
    collection = named_collection(qrels)
    if metrics is None:
        metrics, convention = official_metrics_of(collection, convention)
    qrels_format, run_format = side_format(formats, "qrels"), side_format(formats, "run")

    def load_qrels() -> Qrels:
        return _rows(as_qrels(qrels, columns, duplicates=duplicates, file_format=qrels_format), qrels)

    def load_run() -> Run:
        return _rows(as_run(run, columns, duplicates=duplicates, file_format=run_format), run)

    trec_run = trec_path(run, run_format)
    conv = _convention(convention, overrides, lambda: (qrels is None or load_qrels(), load_run()),
                       at_once=trec_run is not None and streams(trec_run, stream))
    warn_if_graded(collection, metrics, conv)
    n_workers = resolve_workers(workers)
    kind = resolve_pool(pool, n_workers)
    if stream not in STREAM_CHOICES:
        raise InvalidParameterError(f"stream must be one of {', '.join(STREAM_CHOICES)}; got {stream!r}")
    if qrels is None or any(x is not None for x in (train, items, item_features, reference)) or intervals or \
            _reads_items(metrics, conv):
        stage = stages or no_stages
        if is_path(qrels):
            stage(f"reading qrels {_path_or_none(qrels)}")
        judged = None if qrels is None else load_qrels()
        if stream == "yes" and (trec_run is None or judged is None or intervals):
            raise InvalidParameterError("stream='yes' evaluates a TREC run file block by block, against qrels (the "
                                        "test interactions) and without intervals: give the run as the path of a "
                                        "TREC file and the qrels, and leave out intervals= (or stream='auto')")
        ref = None if reference is None else as_run(reference, columns, duplicates=duplicates, file_format=run_format)
        res = None
        if trec_run is not None and judged is not None and not intervals and stream != "no":  # (blocks, when worth it)
            res = lists_in_blocks(judged, trec_run, metrics, conv, workers=n_workers, stream=stream, pool=kind,
                                  duplicates=duplicates, progress=progress, trim_memory=trim_memory, train=train,
                                  items=items, item_features=item_features, reference=ref)
        if res is None:
            if is_path(run):
                stage(f"reading run {_path_or_none(run)}")
            ranked = load_run()
            stage(evaluating(ranked))
            res = evaluate_lists(judged, ranked, metrics, conv, workers=n_workers, train=train, items=items,
                                 item_features=item_features, intervals=intervals, reference=ref)
        warn_about(res, res.query_ids.size if judged is None else judged.n_queries)
        return res
    if is_path(qrels) or is_path(run):
        res, n_judged = evaluate_files(load_qrels, load_run, metrics, conv, workers=n_workers,
                                       qrels_path=_path_or_none(qrels), run_path=_path_or_none(run), trec_run=trec_run,
                                       stream=stream, progress=progress, stages=stages, trim_memory=trim_memory,
                                       duplicates=duplicates, pool=kind)
    else:
        if stream == "yes":
            raise InvalidParameterError("stream='yes' evaluates a TREC run file block by block: give the run as "
                                        "the path of a TREC file (an in-memory run is already read)")
        judged, ranked = load_qrels(), load_run()
        res, n_judged = evaluate_in_memory(judged, ranked, metrics, conv, workers=n_workers), judged.n_queries
    warn_about(res, n_judged)  # once per call, one warning per kind (evaluation.notices)
    return res


def _convention(convention: str | Convention | None, overrides: Mapping[str, Any], read_inputs: Callable[[], Any],
                at_once: bool) -> Convention:
    """The convention with its overrides. When it does not resolve (an unknown preset, a wrong override), the
    inputs are read first (``read_inputs``), so that their own errors come first, as for a bad metric; except
    when ``at_once`` (a run file streamed because it may not fit in memory, which is not read in vain)."""
    try:
        conv = get_convention(DEFAULT if convention is None else convention)
        return conv.derive(**overrides) if overrides else conv
    except RankwiseError:
        if not at_once:
            read_inputs()
        raise


def _path_or_none(x: Any) -> str | None:
    return os.fspath(x) if is_path(x) else None


def named_collection(qrels: Any) -> str | None:
    """The ir_datasets id ``qrels`` names (a string that is not a file) or was read from (a Qrels), else None."""
    from rankwise.io.named_collections import collection_of, is_collection_name
    return qrels if is_collection_name(qrels) else collection_of(qrels)


def official_metrics_of(collection: str | None, convention: Any) -> tuple[list[str], Any]:
    """``evaluate`` without metrics: the official measures of the named collection and the convention that gives
    them ir_measures' meaning (unless one is named), said in a warning; an error when the qrels name none."""
    if collection is None:
        raise InvalidParameterError(
            "no metric given: name one or more, e.g. rankwise.evaluate(qrels, run, ['nDCG@10', 'AP', 'P@5']) "
            "('rankwise metrics' lists them). Only qrels named by an ir_datasets id bring official measures")
    import warnings

    from rankwise.errors import user_stacklevel
    from rankwise.io.official_measures import CONVENTION, official_metrics
    metrics, note = official_metrics(collection)
    warnings.warn(note, RankwiseWarning, stacklevel=user_stacklevel())
    return metrics, CONVENTION if convention is None else convention


def warn_if_graded(collection: str | None, metrics: Any, conv: Convention) -> None:
    if collection is not None:
        from rankwise.io.graded_collections import warn_if_graded as warn
        warn(collection, metrics, conv)


def _reads_items(metrics: str | Iterable[str], conv: Convention) -> bool:
    """Whether a metric reads the item lists (beyond accuracy). A bad metric string says nothing here: it is
    said where it always is, after the errors of the input files."""
    try:
        return bool(make_plan(metrics, conv).list_metrics)
    except RankwiseError:
        return False


def _rows(collection: _Rows, given: Any) -> _Rows:
    """One rule for empty inputs, whatever their kind: an empty file is a ParseError when it is read, and an
    empty frame, dict, Qrels or Run is a DataError here (rather than NaN means and a warning)."""
    if len(collection) == 0:
        side = "qrels" if isinstance(collection, Qrels) else "run"
        what = type(given).__name__ if not is_path(given) else f"file {given}"
        raise DataError(f"the {side} has no rows (an empty {what}): there is nothing to evaluate. Give at least one "
                        f"(query, doc) row; a judged query without any ranked document is scored by "
                        "missing_in_run='zero' when the run has other queries")
    return collection


def evaluate_tensors(preds: Any, target: Any, indexes: Any, metrics: str | Iterable[str],
                     convention: str | Convention = DEFAULT, **options: Any) -> Results:
    """Evaluate torchmetrics-style flat tensors: ``preds`` (each row's score), ``target`` (its relevance: bool
    or a grade) and ``indexes`` (the integer query of each row), as torchmetrics' retrieval metrics take them
    (torch tensors on any device, numpy arrays or sequences). Row i is a document of query ``indexes[i]``
    judged ``target[i]`` and scored ``preds[i]`` (the doc id is its row number); the per-query results are keyed
    by the integer query ids. ``convention="torchmetrics"`` reproduces torchmetrics' own values; the default is
    rankwise's (trec_eval). ``options``: as :func:`evaluate`'s (``workers=``, overrides such as
    ``ties="average"``). ``rankwise.data.flat_tensors.from_tensors`` gives the (Qrels, Run) pair itself, e.g. for
    ``rankwise.compare``."""
    from rankwise.data.flat_tensors import from_tensors

    qrels, run = from_tensors(preds, target, indexes)
    return evaluate(qrels, run, metrics, convention, **options)
