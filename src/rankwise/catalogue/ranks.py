"""Exact full-catalogue ranks of held-out items.

For every user with held-out items, each held-out item is ranked among all catalogue items
except that user's training items. The rank is computed without sorting: it is one plus the
number of competitors scored strictly higher (plus a share of the tied ones, per tie policy),
a comparison and a count over each block of scores, so the cost is one pass over the scores
after they are produced.

Conventions (explicit parameters):

Both default to the convention's policies (``candidate_ties``, ``other_relevant``; ``rankwise conventions``):

- ``ties``: how competitors with exactly the target's score count (see ``rankwise.catalogue.ties``).
  Ties are decided on the scores as held in ``dtype`` (default float32): both backends cast the
  scores to that dtype before comparing, and the target's own score is read from the same block
  as its competitors' (never recomputed), so an item is never "tied with itself" at a different
  rounding.
- ``other_relevant``: ``"compete"`` (default) ranks each held-out item among all non-training
  items, other held-out items of the same user included: the ranks are the positions of the
  held-out items in the user's full ranking, R(A, x) of Krichene & Rendle (KDD 2020) §2 ("the
  positions of the withheld relevant items within this ranking"), and the candidate count is
  n_items - |train_u|. ``"exclude"`` ranks each held-out item only against the items that are
  neither training nor held-out (one relevant item at a time, as in leave-one-out protocols
  with several test items); its candidate count is n_items - |train_u| - |heldout_u| + 1. With
  one held-out item per user the two agree.

Backends: ``numpy`` always; ``torch`` when installed (``backend='auto'`` picks it only on a GPU), with the
arrays resident on the device (``resident.py``) or, for factors on CUDA with Triton, one fused kernel that
never writes the scores (``fused.py``; ``kernel=``). For dense and callable
scores both backends compare identical values and return identical ranks. For factors each
backend computes the products with its own matrix multiply, whose summation order may differ
in the last bit; ranks are then identical whenever the products are exact (e.g. integer-valued
factors) and may otherwise differ only for items whose scores agree to within rounding.
"""
from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from typing import Any, Callable, Literal

import numpy as np
import scipy.sparse as sp

from rankwise.catalogue.backends import check_dtype, make_backend
from rankwise.catalogue.blocks import check_block_size, default_block_size, device_block_size
from rankwise.catalogue.interactions import as_interaction_csr, block_entries, check_disjoint
from rankwise.catalogue.scorers import CallableScorer, DenseScorer, FactorScorer
from rankwise.catalogue.sources import source_of
from rankwise.catalogue.ties import draw_keys, ranks_from_counts, resolve_ties
from rankwise.conventions.convention import Convention
from rankwise.conventions.presets import DEFAULT, get_convention
from rankwise.data.ranks import RelevantRanks
from rankwise.errors import DataError, InvalidParameterError

OtherRelevant = Literal["compete", "exclude"]
# the fused kernels' arithmetic: float32 multiply-adds (0), or that many products of bfloat16 parts (fused.py)
FUSED_TERMS = {"fused": 0, "fused-bf16x6": 6, "fused-bf16x9": 9}
KERNELS = ("auto", "blocks", *FUSED_TERMS)


@dataclass(frozen=True)
class ItemRanks:
    """Rank of every held-out (user, item) pair, in CSR order (by user, then item)."""

    users: np.ndarray  # int64
    items: np.ndarray  # int64
    ranks: np.ndarray  # float64, 1-based
    n_candidates: np.ndarray  # int64: size of the set each item was ranked in

    def relevant_ranks(self) -> RelevantRanks:
        """One query per user that has held-out items; ``query_ids`` are the user indices."""
        qids, starts = np.unique(self.users, return_index=True)
        offsets = np.append(starts, self.users.size).astype(np.int64)
        # n_candidates differs per item only under "exclude"; RelevantRanks takes one n per query:
        # the candidate set of the query's items (equal within a user under both conventions)
        return RelevantRanks(offsets, self.ranks, self.n_candidates[starts], query_ids=qids)


def _runs(users: np.ndarray, values: np.ndarray):
    """Sort order by (user, value) and, per element in that order: end of its user group, start
    and end of its run of equal (user, value)."""
    n = users.size
    order = np.lexsort((values, users))
    su, sv = users[order], values[order]
    idx = np.arange(n)
    new_user = np.ones(n, dtype=bool)
    new_user[1:] = su[1:] != su[:-1]
    new_run = new_user.copy()
    new_run[1:] |= sv[1:] != sv[:-1]
    run_start = np.maximum.accumulate(np.where(new_run, idx, 0))
    end_run = np.ones(n, dtype=bool)
    end_run[:-1] = new_run[1:]
    end_user = np.ones(n, dtype=bool)
    end_user[:-1] = new_user[1:]
    run_end = np.minimum.accumulate(np.where(end_run, idx, n)[::-1])[::-1] + 1
    user_end = np.minimum.accumulate(np.where(end_user, idx, n)[::-1])[::-1] + 1
    return order, user_end, run_start, run_end


def prepare(scorer, train, dtype, block_size, backend, device, bytes_per_score: int = 1):
    """What ranking and top-K share: checked dtype, sizes, block size, backend and the train mask.

    ``bytes_per_score``: what a block holds per score beyond the score itself (its comparison masks),
    for blocks sized from an accelerator's free memory."""
    dtype = check_dtype(dtype)
    n_users, n_items = scorer.n_users, scorer.n_items
    block_size = check_block_size(block_size, n_items)
    be = make_backend(backend, dtype, device)
    if block_size is None:
        block_size = (device_block_size(be.torch, be.device, n_items, np.dtype(dtype).itemsize + bytes_per_score)
                      if be.name == "torch" else default_block_size(n_items))
    if train is None:
        train = sp.csr_matrix((n_users, n_items), dtype=bool)
    train = as_interaction_csr(train, n_users, n_items, "train")
    return dtype, n_users, n_items, block_size, be, train


def item_ranks(scorer, train, heldout, *, ties: str | None = None, other_relevant: OtherRelevant | None = None,
               backend: str = "auto", dtype="float32", device=None, block_size: int | None = None,
               seed=None, progress: Callable[[int, int], None] | None = None,
               convention: str | Convention = DEFAULT, user_ids: Any = None, item_ids: Any = None,
               kernel: str = "auto") -> ItemRanks:
    """Ranks of held-out items for any scorer (``DenseScorer``, ``FactorScorer``, ``CallableScorer``,
    ``PairCallableScorer`` with sizes), a dense score matrix or a (user_factors, item_factors) pair.

    ``train`` and ``heldout``: scipy.sparse (n_users, n_items) matrices or (user_indices,
    item_indices) pairs; ``train`` may be None (nothing excluded). ``progress(done, total)`` is
    called after each block with counts of evaluated users. ``ties`` and ``other_relevant`` default
    to the convention's ``candidate_ties`` and ``other_relevant`` policies. Under ``ties='random'`` a
    held-out item's draw is a function of (``seed``, its user's id, its item's id): ``user_ids`` and
    ``item_ids`` give the id of each score row and column (default: the index), so a user's ranks are the
    same whichever rows, blocks, partitions or column order it is ranked with. ``seed``: an int (or a
    SeedSequence; a Generator gives its next draw).

    ``kernel``: how the counts are made. ``'blocks'``: a block of users' scores at a time, compared with
    the targets (numpy; with torch, every array resident on the device, see ``resident.py``).
    ``'fused'``: factors only, float32, torch tensors on a CUDA device with Triton installed: one kernel
    computes and compares tiles of scores without writing them (``fused.py``), by float32 multiply-adds.
    ``'fused-bf16x6'``/``'fused-bf16x9'``: the same on the tensor cores, each factor split into three
    bfloat16 parts whose 6 or 9 products are exact and summed in float32 (``fused_kernel.py``): exact
    scores for integer-valued factors (sum_k |u_k v_k| within 2^24 - 2^19), float32 rounding otherwise. ``'auto'``:
    ``'fused-bf16x6'`` wherever it applies (on an H200 it ranked 10^6 users x 10^6 items in 2.5-2.9 s,
    about 7 times faster than the blocks and in 0.59-0.70 times cuBLAS's float32 products alone;
    benchmarks/README_gpu.md), ``'fused'`` for factors beyond bfloat16's range, else ``'blocks'``.
    """
    conv = get_convention(convention)
    ties = resolve_ties(conv, ties, seed)
    other_relevant = conv.policy("other_relevant", other_relevant)
    scorer = source_of(scorer, rows=True)
    dtype, n_users, n_items, block_size, be, train = prepare(scorer, train, dtype, block_size, backend, device)
    held = as_interaction_csr(heldout, n_users, n_items, "heldout")
    asked, kernel = kernel, choose_kernel(kernel, scorer, be, dtype)
    launched = None
    if kernel in FUSED_TERMS:  # launched first: the host's check below runs while the device counts
        from rankwise.catalogue.fused import NotSplit, launch_fused

        u, v = be.from_numpy(scorer.user_factors), be.from_numpy(scorer.item_factors)
        try:
            launched = launch_fused(be.torch, be.device, u, v, train, held, terms=FUSED_TERMS[kernel])
        except NotSplit:
            if asked != "auto":
                raise
            # factors beyond bfloat16's range: auto's choice goes to the float32 multiply-adds
            launched = launch_fused(be.torch, be.device, u, v, train, held, terms=0)
    check_disjoint(train, held)

    per_user = np.diff(held.indptr)
    eval_users = np.flatnonzero(per_user > 0)
    n_held = held.nnz
    need_gt = ties != "pessimistic"
    need_ge = ties != "optimistic"
    users_of = np.repeat(np.arange(n_users, dtype=np.int64), per_user)
    n_candidates = n_items - np.diff(train.indptr)[users_of]
    held_items = held.indices.astype(np.int64)
    if launched is not None:
        greater, at_least, target = launched.result()
        if progress is not None:
            progress(eval_users.size, eval_users.size)
    elif be.name == "torch":
        from rankwise.catalogue.resident import resident_counts

        greater, at_least, target = resident_counts(be, scorer.bind(be), isinstance(scorer, FactorScorer), train,
                                                    held, eval_users, block_size, need_gt, need_ge, progress)
    else:
        greater, at_least, target = _block_counts(be, scorer.bind(be), train, held, eval_users, block_size,
                                                  need_gt, need_ge, progress)

    if other_relevant == "exclude":
        # remove the other held-out items of the same user from the counts
        order, user_end, run_start, run_end = _runs(users_of, target)
        others_gt = np.empty(n_held, dtype=np.int64)
        others_ge = np.empty(n_held, dtype=np.int64)
        others_gt[order] = user_end - run_end
        others_ge[order] = user_end - run_start - 1
        greater -= others_gt
        at_least -= others_ge
        n_candidates = n_candidates - (per_user[users_of] - 1)
    if not need_gt:
        greater = at_least
    if not need_ge:
        at_least = greater
    ukeys = ikeys = None
    if ties == "random":
        ukeys = _draw_keys(user_ids, n_users, "user_ids", "rows")
        ikeys = _draw_keys(item_ids, n_items, "item_ids", "columns")
    ranks = ranks_from_counts(ties, greater, at_least - greater, users_of, target,
                              other_relevant == "compete", seed, held_items, ukeys, ikeys)
    return ItemRanks(users_of, held_items, ranks, n_candidates.astype(np.int64))


def _block_counts(be, score_block, train, held, eval_users, block_size, need_gt, need_ge, progress):
    """(greater, at_least, target) per held-out pair in CSR order, one block of users' scores at a time."""
    per_user = np.diff(held.indptr)
    n_held = held.nnz
    greater = np.zeros(n_held, dtype=np.int64)  # competitors strictly above the target
    at_least = np.zeros(n_held, dtype=np.int64)  # competitors at or above it, the target itself not counted
    target = np.zeros(n_held, dtype=np.float64)

    done = 0
    for a in range(0, eval_users.size, block_size):
        users = eval_users[a:a + block_size]
        s = score_block(users)
        t_rows, t_cols = block_entries(train, users)
        be.fill(s, t_rows, t_cols, float("nan"))  # NaN compares false: training items never count
        lo, hi = held.indptr[users[0]], held.indptr[users[-1] + 1]
        h_rows = np.repeat(np.arange(users.size), per_user[users])
        h_cols = held.indices[lo:hi].astype(np.int64)
        t = be.take(s, h_rows, h_cols)
        target[lo:hi] = t
        # one held-out item per user (leave-one-out) compares the block in place; otherwise rows
        # are gathered per held-out item, at most block_size rows at a time to bound memory
        chunks = [(None, 0, users.size)] if h_rows.size == users.size else \
            [(h_rows[c:c + block_size], c, min(c + block_size, h_rows.size)) for c in range(0, h_rows.size, block_size)]
        for rows, c0, c1 in chunks:
            if need_gt:
                greater[lo + c0:lo + c1] = be.count(s, rows, t[c0:c1], "gt")
            if need_ge:
                at_least[lo + c0:lo + c1] = be.count(s, rows, t[c0:c1], "ge") - 1
        done += users.size
        if progress is not None:
            progress(done, eval_users.size)

    return greater, at_least, target


def choose_kernel(kernel: str, scorer, be, dtype: str) -> str:
    """The kernel a call runs (see ``item_ranks``); a named fused kernel is checked to apply."""
    if kernel not in KERNELS:
        raise InvalidParameterError(f"kernel must be one of {KERNELS}, got {kernel!r}")
    if kernel == "auto":
        fused = (be.name == "torch" and be.device.type == "cuda" and isinstance(scorer, FactorScorer)
                 and dtype == "float32" and importlib.util.find_spec("triton") is not None)
        return "fused-bf16x6" if fused else "blocks"
    if kernel != "blocks":
        from rankwise.catalogue.fused import check_fused, interpreter_on

        check_fused(scorer, dtype, kernel)
        if be.name != "torch":
            raise InvalidParameterError(f"kernel={kernel!r} runs on torch tensors; got backend={be.name!r} (use "
                                        "backend='torch', or kernel='blocks')")
        if be.device.type != "cuda" and not interpreter_on():
            raise InvalidParameterError(f"kernel={kernel!r} is a Triton kernel for CUDA devices; got device "
                                        f"{str(be.device)!r} (use a CUDA device, or kernel='blocks'; tests run it on "
                                        "the CPU in Triton's interpreter, with TRITON_INTERPRET=1 set before "
                                        "Triton is imported)")
    return kernel


def _draw_keys(ids: Any, n: int, what: str, of: str) -> np.ndarray:
    keys = draw_keys(np.arange(n) if ids is None else ids)
    if keys.size != n:
        raise DataError(f"{what} has {keys.size} ids but the scores have {n} {of}")
    return keys


_COMMON = """
    ``train``/``heldout``: scipy.sparse (n_users, n_items) matrices or (user_indices, item_indices)
    pairs (``train`` may be None). ``ties``: 'optimistic' | 'pessimistic' | 'average' | 'random'
    (needs ``seed``). ``other_relevant``: 'compete' | 'exclude'. Both default to ``convention``'s
    ``candidate_ties`` and ``other_relevant`` (trec_eval, the default: pessimistic, compete).
    ``backend``: 'auto' (torch on a GPU, else numpy) | 'numpy' | 'torch'; ``dtype``: scores are compared in this
    dtype. ``block_size``: users per block (memory ~ block_size x n_items x itemsize). Returns
    ``RelevantRanks`` with one query per user that has held-out items (``query_ids`` = user indices).
"""


def ranks_from_scores(scores, train, heldout, *, ties: str | None = None, **options) -> RelevantRanks:
    return item_ranks(DenseScorer(scores), train, heldout, ties=ties, **options).relevant_ranks()


def ranks_from_factors(user_factors, item_factors, train, heldout, *, ties: str | None = None,
                       **options) -> RelevantRanks:
    return item_ranks(FactorScorer(user_factors, item_factors), train, heldout, ties=ties,
                      **options).relevant_ranks()


def ranks_from_callable(score_fn, n_users: int, n_items: int, train, heldout, *, ties: str | None = None,
                        **options) -> RelevantRanks:
    return item_ranks(CallableScorer(score_fn, n_users, n_items), train, heldout, ties=ties,
                      **options).relevant_ranks()


ranks_from_scores.__doc__ = "Full-catalogue ranks from a dense (n_users, n_items) score matrix." + _COMMON
ranks_from_factors.__doc__ = ("Full-catalogue ranks from user and item factors (scores = U @ V.T, "
                              "computed per block of users)." + _COMMON)
ranks_from_callable.__doc__ = ("Full-catalogue ranks from ``score_fn(user_indices) -> "
                               "(len(user_indices), n_items)`` scores (numpy or torch)." + _COMMON)
