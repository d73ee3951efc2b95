"""Evaluating from files with every core: how ``rankwise.evaluate(path, path)`` (and so ``rankwise evaluate``)
reads and schedules.

With several workers, qrels given as a path are read by a thread while the run is read (both readers spend most
of their time where the GIL is released: pyarrow's CSV reader, numpy), and a TREC run file above
``PARALLEL_BYTES`` is evaluated in blocks of whole queries by parallel workers (``io.streaming``). The way
taken never changes a number (the blocks give the in-memory evaluation's values, to the bit) nor which error is
said first (the qrels' errors come first, as when they are read first).
"""
from __future__ import annotations

import os
from concurrent.futures import Future
from dataclasses import replace
from typing import Any, Callable, Iterable

from rankwise.conventions.convention import Convention
from rankwise.data.collections import Qrels, Run
from rankwise.errors import InvalidParameterError, ParseError, RankwiseError
from rankwise.evaluation.results import Results
from rankwise.execution.parts import evaluate_in_memory
from rankwise.execution.reading import qrels_first, read_aside
from rankwise.execution.streaming import DEFAULT_BLOCK_BYTES, run_file_results
from rankwise.io.tabular import detect_format
from rankwise.io.trec_blocks import text_bytes

__all__ = ["evaluate_files", "evaluate_run_in_blocks", "qrels_first", "streams"]

STREAM_BYTES = 1 << 30  # TREC runs above this size are evaluated block by block (bounded memory)
# With several workers, TREC runs above this size are evaluated in blocks too (below it, starting the workers
# costs more than they save); each worker gets about two blocks, so that one slow block (a busy core) delays
# the end by half a worker's share, not a whole one.
PARALLEL_BYTES = 48 << 20
STREAM_CHOICES = ("auto", "yes", "no")
BLOCKS_PER_JOB = 2


def is_path(x: Any) -> bool:
    return isinstance(x, (str, os.PathLike))


def trec_path(x: Any, file_format: str | None = None) -> str | None:
    """``x`` as a path, when it is a path to a TREC run file (the files blocks can cut): ``file_format`` says so,
    or else its extension."""
    return os.fspath(x) if is_path(x) and (file_format or detect_format(x)) == "trec" else None


def evaluate_files(load_qrels: Callable[[], Qrels], load_run: Callable[[], Run], metrics: str | Iterable[str],
                   conv: Convention, *, workers: int, qrels_path: str | None, run_path: str | None,
                   trec_run: str | None, stream: str = "auto", progress: Callable[[int, int], None] | None = None,
                   stages: Callable[[str], None] | None = None, trim_memory: bool = False, duplicates: str = "error",
                   pool: str = "thread") -> tuple[Results, int]:
    """``evaluate()`` when the qrels or the run is a path: (its Results, without its warnings; the number of
    judged queries, for them). ``load_qrels``, ``load_run``: the input boundary's readers of either side;
    ``qrels_path``: the qrels' path, when they are one (then read in a thread while the run is read);
    ``run_path``: the run's; ``trec_run``: the run's path, when it is a TREC file (which blocks may evaluate);
    ``stream``, ``progress``, ``stages``, ``trim_memory`` and ``duplicates`` (the run's policy, which the loaders
    apply too): see ``rankwise.evaluate``; ``pool``: its ``pool``, resolved (``execution.workers.resolve_pool``)."""
    metrics = [metrics] if isinstance(metrics, str) else list(metrics)
    if stream == "yes" and trec_run is None:  # (stream is one of STREAM_CHOICES: the front door checks it)
        raise InvalidParameterError("stream='yes' evaluates a TREC run file block by block: give the run as the "
                                    "path of a TREC file (other formats and in-memory runs are read whole)")
    stage = stages or no_stages
    if qrels_path is not None:
        stage(f"reading qrels {qrels_path}")
    # (forked block workers need the qrels before the fork: read at once, so that no thread of ours is alive to be
    # copied mid-state; a run read whole still has them read beside it)
    forks = pool == "process" and trec_run is not None and blocks_of(trec_run, metrics, stream, workers) is not None
    with read_aside(load_qrels, workers > 1 and qrels_path is not None and not forks) as loading:
        if trec_run is not None and stream != "no":
            found = evaluate_run_in_blocks(loading, trec_run, metrics, conv, workers=workers, stream=stream,
                                           progress=progress, duplicates=duplicates,
                                           trim_memory=trim_memory, pool=pool)
            if found is not None:
                return found
        if run_path is not None:
            stage(f"reading run {run_path}")
        ranked = qrels_first(loading, load_run)
        judged = loading.result()
    stage(evaluating(ranked))
    return evaluate_in_memory(judged, ranked, metrics, conv, workers=workers), judged.n_queries


def no_stages(message: str) -> None:
    """No stages reported (``evaluate()`` without ``stages=``)."""


def evaluating(ranked: Run) -> str:
    """The stage said as a run read whole is evaluated (``rankwise.evaluate``'s ``stages=``)."""
    return f"evaluating {ranked.n_queries} queries, {len(ranked)} ranked documents"


def evaluate_run_in_blocks(qrels: Future[Qrels] | Qrels, path: str, metrics: list[str], conv: Convention, *,
                           workers: int, stream: str = "auto", duplicates: str = "error",
                           progress: Callable[[int, int], None] | None = None,
                           trim_memory: bool = False, pool: str = "thread") -> tuple[Results, int] | None:
    """A TREC run file evaluated in blocks of whole queries, when that is the way: ``stream='yes'``, or
    ``'auto'`` and the file is above STREAM_BYTES (bounded memory: blocks of DEFAULT_BLOCK_BYTES), or above
    PARALLEL_BYTES with several workers (two blocks a worker); else None (evaluate it in memory). Results
    without warnings, and the number of judged queries.

    Blocks chosen by ``'auto'`` (for the workers, or for a file above STREAM_BYTES: ``evaluate()`` promises the
    in-memory Results) give way to memory when the file cannot be evaluated in blocks (its queries' lines are
    not together) or when the evaluation fails (a bad metric, a policy set to 'error', a grade above ``gmax``):
    the evaluation of the whole run says its error, for the whole run and in its order (after the files'
    errors). A file's own errors (ParseError) are the same either way and are raised. Streaming asked for
    (``stream='yes'``: the whole run may not fit in memory) raises the blocks' errors, and
    ``Results.info['blocks']`` says how many there were. ``trim_memory`` and ``pool`` (the blocks' workers:
    threads or forked processes): see ``run_file_results``."""
    block = blocks_of(path, metrics, stream, workers)
    if block is None:
        return None
    strict = stream == "yes"
    try:
        res, n_judged = run_file_results(qrels, path, metrics, conv, block_bytes=block, duplicates=duplicates,
                                         progress=progress, workers=workers, trim_memory=trim_memory, pool=pool)
    except ParseError:
        raise
    except RankwiseError:  # not together (NotContiguousError), or an error of the evaluation: see above
        if strict:
            raise
        return None
    if not strict:  # the in-memory evaluation's Results, to the byte
        res = replace(res, info={k: v for k, v in res.info.items() if k != "blocks"})
    return res, n_judged


def blocks_of(path: str, metrics: list[str], stream: str, workers: int) -> int | None:
    """The size of the blocks ``evaluate_run_in_blocks`` evaluates a TREC run file in (``block_bytes_of``), None
    when it reads the file whole (no metric to evaluate, or a file blocks do not pay for)."""
    return block_bytes_of(path, stream, workers) if metrics else None


def block_bytes_of(path: str, stream: str, workers: int) -> int | None:
    """The size of the blocks a TREC run file is evaluated in: DEFAULT_BLOCK_BYTES when it is streamed
    (``streams``), two blocks a worker when ``stream='auto'``, several workers and a file above PARALLEL_BYTES;
    None when it is evaluated in memory."""
    if streams(path, stream):
        return DEFAULT_BLOCK_BYTES
    size = text_bytes(path) if os.path.isfile(path) else 0
    if stream == "auto" and workers > 1 and size >= PARALLEL_BYTES:
        return -(-size // (workers * BLOCKS_PER_JOB))
    return None


def streams(path: str, stream: str = "auto") -> bool:
    """Whether a TREC run file is streamed (blocks of DEFAULT_BLOCK_BYTES, bounded memory): asked for
    (``'yes'``), or ``'auto'`` and the file is above STREAM_BYTES."""
    return stream == "yes" or (stream == "auto" and os.path.isfile(path) and os.path.getsize(path) > STREAM_BYTES)
