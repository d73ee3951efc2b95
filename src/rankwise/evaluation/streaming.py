"""Evaluate a TREC run file too large for memory, one block of whole queries at a time.

Per-query independence is what makes this exact: every metric of a query depends only on that
query's rows, so blocks are evaluated separately and their per-query values concatenated. The
run file must keep each query's lines together (as every TREC run does); a query seen in two
blocks is an error, never a silent merge.
"""
from __future__ import annotations

import gzip
import os
from typing import Iterable, cast

import numpy as np

from rankwise.conventions.presets import DEFAULT, get_convention
from rankwise.data.collections import Qrels, Run
from rankwise.errors import DataError, ParseError
from rankwise.evaluation.evaluate import _preview, evaluate
from rankwise.evaluation.results import Results
from rankwise.io import trec

DEFAULT_BLOCK_BYTES = 256 << 20


def _blocks(path: str, block_bytes: int):
    """Yield (bytes, first line number) blocks that end at a query boundary."""
    with open(path, "rb") as raw:
        magic = raw.read(2)
    opener = gzip.open if magic == b"\x1f\x8b" else open
    with opener(path, "rb") as fh:
        carry = b""
        line_no = 1
        first = True
        while True:
            chunk = fh.read(block_bytes)
            if first and chunk.startswith(b"\xef\xbb\xbf"):
                chunk = chunk[3:]
            first = False
            if not chunk:
                if carry.strip():
                    yield carry, line_no
                return
            buf = carry + chunk
            cut = buf.rfind(b"\n")
            if cut < 0:
                carry = buf
                continue
            # keep the last query's lines for the next block: it may continue there
            last_line_start = buf.rfind(b"\n", 0, cut) + 1
            last_q = buf[last_line_start:cut].split(None, 1)[:1]
            boundary = cut + 1
            if last_q:
                q = last_q[0]
                start = last_line_start
                while start > 0:
                    prev = buf.rfind(b"\n", 0, start - 1) + 1
                    if buf[prev:start - 1].split(None, 1)[:1] != [q]:
                        break
                    start = prev
                boundary = start
            if boundary == 0:  # one query fills the whole block: read more before cutting
                carry = buf
                continue
            block, carry = buf[:boundary], buf[boundary:]
            yield block, line_no
            line_no += block.count(b"\n")


def _parse_block(block: bytes, path: str, line_no: int, duplicates: str) -> Run:
    data = trec._prepare(block, path, "run")
    try:
        with trec.arrow_scope():
            fast = trec._fast_parse(data, trec.RUN_LAYOUT, 4)
            if fast is None:
                q, d, v, _ = trec._strict_parse(data, path, trec.RUN_LAYOUT, 4)
            else:
                q, d, v = fast
            return Run.from_arrays(q, d, v, duplicates=duplicates, source=path, row_numbers=trec._LineNumbers(data))
    except ParseError as exc:
        if exc.line is None:
            raise
        raise ParseError(str(exc).split("\n")[0].split(": ", 1)[-1], path=path, line=exc.line + line_no - 1,
                         text=exc.text, expected=exc.expected) from None


def evaluate_run_file(qrels, run_path, metrics: str | Iterable[str], convention=DEFAULT, *,
                      block_bytes: int = DEFAULT_BLOCK_BYTES, duplicates: str = "error", progress=None,
                      **overrides) -> Results:
    """Like evaluate(), for a TREC run file read in blocks of whole queries (bounded memory)."""
    conv = get_convention(convention)
    if overrides:
        conv = conv.derive(**overrides)
    if not isinstance(qrels, Qrels):
        qrels = Qrels.read(qrels) if isinstance(qrels, (str, os.PathLike)) else Qrels.from_dict(qrels)
    path = os.fspath(run_path)
    metrics = [metrics] if isinstance(metrics, str) else list(dict.fromkeys(metrics))
    block_conv = conv.derive(missing_in_run="skip") if conv.missing_in_run != "skip" else conv
    parts, seen = [], []
    set_aside_run_only: list[str] = []
    resolved, info_dups = None, 0
    total = os.path.getsize(path)
    done = 0
    for block, line_no in _blocks(path, block_bytes):
        run = _parse_block(block, path, line_no, duplicates)
        res = evaluate(qrels, run, metrics, convention=block_conv)
        parts.append((res.query_ids, res.values))
        resolved = res.resolved
        info_dups += cast(int, res.info.get("run_duplicates_dropped", 0))
        seen.append(run.query_ids)
        set_aside_run_only.extend(res.set_aside.get("missing_in_qrels", ()))
        done += len(block)
        if progress:
            progress(done, total)
    if not parts:
        raise ParseError("the run file is empty", path=path, expected="lines of " + " ".join(trec.RUN_LAYOUT))
    if resolved is None:  # pragma: no cover - every block sets it, and there was one
        raise RuntimeError("no block of the run was evaluated")
    run_ids = np.concatenate(seen)
    uniq, counts = np.unique(run_ids, return_counts=True)
    if np.any(counts > 1):
        raise DataError(f"{path}: the lines of query {str(uniq[counts > 1][0])!r} are not contiguous; "
                        "streaming needs each query's lines together. Sort the file by query "
                        "(e.g. sort -s -k1,1) or evaluate it in memory.")
    missing = np.sort(np.setdiff1d(qrels.query_ids, uniq, assume_unique=True))
    set_aside = {}
    if missing.size:
        if conv.missing_in_run == "error":
            raise DataError(f"{missing.size} judged queries are missing from the run: {_preview(missing)}")
        if conv.missing_in_run == "zero":
            empty = Run.from_arrays(np.zeros(0, dtype=str), np.zeros(0, dtype=str), np.zeros(0))
            part = evaluate(qrels, empty, metrics, convention=conv.derive(missing_in_qrels="skip"))
            keep = np.isin(part.query_ids, missing)
            parts.append((part.query_ids[keep], {m: part.values[m][keep] for m in metrics}))
        else:
            set_aside["missing_in_run"] = tuple(str(q) for q in missing)
    if set_aside_run_only:
        set_aside["missing_in_qrels"] = tuple(sorted(set_aside_run_only))
    qids = np.concatenate([p[0] for p in parts])
    order = np.argsort(qids, kind="stable")
    values, means, counts_, excluded = {}, {}, {}, {}
    for m in metrics:
        v = np.concatenate([p[1][m] for p in parts])[order]
        v.setflags(write=False)
        ok = ~np.isnan(v)
        values[m], counts_[m] = v, int(ok.sum())
        excluded[m] = int(v.size - counts_[m])
        means[m] = float(v[ok].mean()) if counts_[m] else float("nan")
    info = {"qrels_duplicates_dropped": qrels.duplicates_dropped,
            "run_duplicates_dropped": info_dups,
            "blocks": len(seen)}
    return Results(conv, tuple(metrics), resolved, qids[order], values, means, counts_, set_aside,
                   excluded, info)
