"""Top-K recommendation lists over the full catalogue, training items excluded.

Order within a user: score descending, then item index ascending (a pinned tie-break, also at
the K-th place: of the items tied there, the lowest indices are kept). Users with fewer than K
non-training items get all of them. Scores are those of the scoring dtype.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from rankwise.catalogue.interactions import block_entries
from rankwise.catalogue.ranks import FUSED_TERMS, choose_kernel, prepare
from rankwise.catalogue.sources import source_of
from rankwise.errors import InvalidParameterError


@dataclass(frozen=True)
class TopK:
    """Flat arrays in rank order: all of user 0's list, then user 1's, ... (users ascending)."""

    users: np.ndarray  # int64
    items: np.ndarray  # int64
    scores: np.ndarray  # scoring dtype

    @property
    def rank(self) -> np.ndarray:
        """1-based position of each entry in its user's list."""
        if self.users.size == 0:
            return np.zeros(0, dtype=np.int64)
        start = np.ones(self.users.size, dtype=bool)
        start[1:] = self.users[1:] != self.users[:-1]
        idx = np.arange(self.users.size)
        return idx - np.maximum.accumulate(np.where(start, idx, 0)) + 1

    def to_run(self, user_ids=None, item_ids=None):
        """The lists as a rankwise Run for the evaluation engine. Scores are the list positions
        reversed (K, K-1, ...), so the engine ranks exactly this order whatever its tie policy;
        ``user_ids``/``item_ids`` map indices to the dataset's own ids (default: the indices)."""
        from rankwise.data.collections import Run

        u = self.users if user_ids is None else np.asarray(user_ids)[self.users]
        i = self.items if item_ids is None else np.asarray(item_ids)[self.items]
        score = (-self.rank).astype(np.float64)
        return Run.from_arrays(np.asarray(u).astype(str), np.asarray(i).astype(str), score)


def top_k(scorer, train, k: int, *, users=None, backend: str = "auto", dtype="float32", device=None,
          block_size: int | None = None, progress: Callable[[int, int], None] | None = None,
          kernel: str = "auto") -> TopK:
    """The K best non-training items of each user (all users, or the given user indices).

    ``scorer``: a ``DenseScorer``/``FactorScorer``/``CallableScorer`` (or ``PairCallableScorer`` with
    sizes), a dense score matrix or a (user_factors, item_factors) pair. ``kernel``: as for ``item_ranks``;
    the fused kernels keep only the items above a threshold per user and never write the other scores
    (``fused_topk.py``).
    """
    scorer = source_of(scorer, rows=True)
    if isinstance(k, bool) or int(k) != k or k < 1:
        raise InvalidParameterError(f"k must be a positive integer, got {k!r}")
    k = int(k)
    # a block holds, per score, boolean masks, an int64 running count and an int64 key (top_k_select and the
    # resident path)
    dtype, n_users, n_items, block_size, be, train = prepare(scorer, train, dtype, block_size, backend, device,
                                                             bytes_per_score=20)
    if users is None:
        users = np.arange(n_users, dtype=np.int64)
    else:
        users = np.unique(np.asarray(users, dtype=np.int64))
        if users.size and (users[0] < 0 or users[-1] >= n_users):
            raise InvalidParameterError(f"users must be indices in 0..{n_users - 1}")
    k_eff = min(k, n_items)
    asked, kernel = kernel, choose_kernel(kernel, scorer, be, dtype)
    if kernel == "fused":
        raise InvalidParameterError("kernel='fused' (float32 multiply-adds) has no top-K lists: on an H200 its "
                                    "candidate kernel was slower than the blocks (benchmarks/README_gpu.md); use "
                                    "kernel='fused-bf16x6', 'fused-bf16x9' or 'blocks'")
    if kernel in FUSED_TERMS:
        return _fused(be, scorer, train, users, k_eff, FUSED_TERMS[kernel], asked, block_size, progress)
    score_block = scorer.bind(be)
    if be.name == "torch":
        from rankwise.catalogue.resident_topk import resident_top_k
        from rankwise.catalogue.scorers import FactorScorer

        u, i, v = resident_top_k(be, score_block, isinstance(scorer, FactorScorer), train, users, block_size, k_eff,
                                 progress)
        return TopK(u, i, v)
    out_u, out_i, out_s = [], [], []
    for a in range(0, users.size, block_size):
        block = users[a:a + block_size]
        s = score_block(block)
        rows, cols = block_entries(train, block)
        # scores are validated finite, so -inf marks exactly the excluded training items
        be.fill(s, rows, cols, float("-inf"))
        r, c, v = be.top_k_select(s, k_eff)
        keep = np.isfinite(v)
        r, c, v = r[keep], c[keep], v[keep]
        order = np.lexsort((c, -v, r))
        out_u.append(block[r[order]])
        out_i.append(c[order].astype(np.int64))
        out_s.append(v[order])
        if progress is not None:
            progress(min(a + block_size, users.size), users.size)
    if not out_u:
        return TopK(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.dtype(dtype)))
    return TopK(np.concatenate(out_u), np.concatenate(out_i), np.concatenate(out_s))


def _fused(be, scorer, train, users, k, terms, asked, block_size, progress) -> TopK:
    """The fused kernel's lists; the users it hands back (see ``fused_topk.py``) listed by the resident blocks
    (which then copy the factors to the device again: a rare case, not worth holding them twice)."""
    from rankwise.catalogue.fused import NotSplit
    from rankwise.catalogue.fused_topk import fused_top_k
    from rankwise.catalogue.resident_topk import resident_top_k

    u, v = be.from_numpy(scorer.user_factors), be.from_numpy(scorer.item_factors)
    try:
        lists_u, lists_i, lists_s, back = fused_top_k(be.torch, be.device, u, v, train, users, k, terms=terms,
                                                      progress=progress)
    except NotSplit:
        if asked != "auto":
            raise
        # factors beyond bfloat16's range: auto's choice goes to the blocks
        u = v = None
        lists_u, lists_i, lists_s = resident_top_k(be, scorer.bind(be), True, train, users, block_size, k, progress)
        return TopK(lists_u, lists_i, lists_s)
    if back.size:
        u = v = None
        more = resident_top_k(be, scorer.bind(be), True, train, back, block_size, k, None)
        # each user's list is in one part only, in list order: a stable sort by user interleaves the parts
        lists_u, lists_i, lists_s = (np.concatenate(pair) for pair in zip((lists_u, lists_i, lists_s), more))
        order = np.argsort(lists_u, kind="stable")
        lists_u, lists_i, lists_s = lists_u[order], lists_i[order], lists_s[order]
    if progress is not None:
        progress(users.size, users.size)
    return TopK(lists_u, lists_i, lists_s)
