"""A TREC run file evaluated with beyond-accuracy metrics in blocks of whole users, as the accuracy metrics are
(``execution.files``): streamed in bounded memory, or by parallel workers, with the Results of the whole run in
memory, to the bit.

The items come first: one pass over the file's blocks gathers its distinct recommended items (the blocks' rows are
dropped as they are read), and the ``ItemSide`` is built from them and the other inputs exactly as for the whole
run in memory, on the same vocabulary (every id sorted as text). Every block then reads that one side, so an item
has one code in every block; each block's per-user values are its users' own, its whole-run tallies are counts
over that vocabulary, merged by addition (``evaluation.lists``), and the figures are computed once, from the merged
tallies. (A vocabulary grown block by block would give an item first seen late a code out of text order: the
codes' order decides ties under ``ties=docid_asc/desc``, the order of the items in a sum and which item an error
names, so the figures could differ from the in-memory ones in the last bit. The first pass costs a read of the
file; a streamed file's memory stays bounded by the number of distinct items.)
"""
from __future__ import annotations

from typing import Any, Callable, Iterable

from rankwise.conventions.convention import Convention
from rankwise.data.collections import Qrels, Run
from rankwise.errors import ParseError, RankwiseError
from rankwise.evaluation.item_counts import joined_items
from rankwise.evaluation.joined import join_results
from rankwise.evaluation.list_plan import check_item_inputs, every_recommended, wide_metrics
from rankwise.evaluation.plan import make_plan
from rankwise.evaluation.results import Results
from rankwise.execution.files import block_bytes_of
from rankwise.execution.streaming import distinct_run_items, run_file_results
from rankwise.io.item_inputs import item_side_of


def lists_in_blocks(qrels: Qrels, path: str, metrics: str | Iterable[str], conv: Convention, *, workers: int,
                    stream: str = "auto", duplicates: str = "error", pool: str = "thread", trim_memory: bool = False,
                    progress: Callable[[int, int], None] | None = None, train: Any = None, items: Any = None,
                    item_features: Any = None, reference: Run | None = None) -> Results | None:
    """``evaluation.item_lists.evaluate_lists`` of a TREC run file in blocks, when blocks are the way (as
    ``execution.files.evaluate_run_in_blocks`` decides), else None (evaluate it in memory). By the same rule as
    there, blocks chosen by ``stream='auto'`` promise the in-memory Results, errors included: an evaluation they
    cannot make (a query's lines apart, a policy set to 'error', a missing input) gives way to memory, which says
    the error; ``stream='yes'`` (a file that may not fit) raises the blocks' errors, and
    ``Results.info['blocks']`` counts the blocks. ``pool``: the blocks' workers are threads or forked processes
    (``execution.blocks.map_blocks``); ``trim_memory``: see ``execution.streaming.run_file_results``."""
    block = block_bytes_of(path, stream, workers)
    if block is None:
        return None
    strict = stream == "yes"
    try:
        plan = make_plan(metrics, conv)
        check_item_inputs(plan, {"train": train, "items": items, "features": item_features, "reference": reference,
                                 "test": qrels})
        side = item_side_of(distinct_run_items(path, block_bytes=block, duplicates=duplicates, workers=workers,
                                               pool=pool),
                            train=train, items=items, item_features=item_features, reference=reference)

        def blocks(of: list[str], under: Convention) -> Results:
            return run_file_results(qrels, path, of, under, block_bytes=block, duplicates=duplicates,
                                    progress=progress, workers=workers, pool=pool, side=side,
                                    trim_memory=trim_memory)[0]
        wide = wide_metrics(plan)
        narrow = [m for m in plan.metrics if m not in wide]
        parts = ([blocks(narrow, conv)] if narrow else []) + ([blocks(wide, every_recommended(conv))] if wide else [])
    except ParseError:
        raise
    except RankwiseError:
        if strict:
            raise
        return None
    res = parts[0] if len(parts) == 1 else join_results(parts, plan.metrics, conv)
    return joined_items(res, parts, keep=("blocks",) if strict else ())
