"""The order of a run's rows: by score within each query, then ties broken by the convention's policy
(doc id descending or ascending, input order, or by grade for the optimistic and pessimistic bounds),
and the ideal order of the judgments. Tie groups are kept as (start, size)."""
from __future__ import annotations

import numpy as np

from rankwise.data import idkeys
from rankwise.data.collections import Qrels, Run
from rankwise.kernels.segments import expand_ranges

# (order, inverse, tie_start, tie_size, tied) of rank_plan
RankPlan = tuple["np.ndarray | None", "np.ndarray | None", np.ndarray, np.ndarray, "np.ndarray | None"]


def break_ties(pos: np.ndarray, lab: np.ndarray, docs: np.ndarray, order: np.ndarray | None, tstart: np.ndarray,
                tsize: np.ndarray, tied: np.ndarray, ties: str) -> None:
    """Move the judged rows (ranked positions ``pos``, in place) within their tie groups per ``ties``.

    Only groups holding a judged document can change a metric: the order of unjudged documents
    among themselves is invisible. Just those groups' rows are ordered: pairs (most tie groups)
    by one vectorised comparison, larger groups by a sort."""
    jt = np.flatnonzero(tied[pos])  # judged rows in a tie group
    if jt.size == 0:
        return
    k = np.searchsorted(tstart, pos[jt], side="right") - 1  # their groups
    mark = np.zeros(tstart.size, dtype=bool)
    mark[k] = True
    pair = tsize[k] == 2
    if pair.any():
        _order_pairs(pos, lab, docs, order, tstart, jt[pair], k[pair], ties)
        mark[k[pair]] = False
        jt, k = jt[~pair], k[~pair]
        if jt.size == 0:
            return
    groups = np.flatnonzero(mark)
    sub, _ = expand_ranges(tstart[groups], tsize[groups])  # ranked positions of those groups' rows
    where = np.searchsorted(sub, pos[jt])
    lab_sub = np.zeros(sub.size, dtype=np.float64)  # unjudged: grade 0
    lab_sub[where] = lab[jt]
    d = docs[sub if order is None else order[sub]]
    if ties == "docid_desc":
        key = idkeys.lex_order_columns(d, descending=True)
    elif ties == "docid_desc_numeric":  # integers without leading zeros: longer is larger, then byte order
        key = [*idkeys.lex_order_columns(d, descending=True), -id_lengths(d)]
    elif ties == "docid_asc":
        key = idkeys.lex_order_columns(d)
    elif ties == "optimistic":
        key = [*idkeys.lex_order_columns(d, descending=True), -lab_sub]
    elif ties == "pessimistic":
        key = [*idkeys.lex_order_columns(d, descending=True), lab_sub]
    else:  # pragma: no cover - validated by Param
        raise ValueError(ties)
    # each row's rank by the within-group key (np.lexsort: the last column is primary), then one
    # sort by (group, rank): far cheaper than a lexsort with the group as one more column
    by_key = np.argsort(key[0]) if len(key) == 1 else np.lexsort(key)
    rank = np.empty(sub.size, dtype=np.int64)
    rank[by_key] = np.arange(sub.size, dtype=np.int64)
    g = np.repeat(np.arange(groups.size, dtype=np.int64), tsize[groups])
    g *= np.int64(sub.size)
    g += rank
    o = np.argsort(g)  # (the keys are distinct)
    new = np.empty(sub.size, dtype=np.int64)
    new[o] = sub  # the row that sorts i-th in its group takes the group's i-th position
    pos[jt] = new[where]


def floor_average_positions(pos: np.ndarray, tstart: np.ndarray, tsize: np.ndarray, tied: np.ndarray) -> np.ndarray:
    """ties=average_floor: the ranked positions ``pos`` with every row of a tie group moved to the group's
    shared position, its average rank truncated to an integer.

    This is pandas' ``rank(ascending=False)`` (method 'average') followed by ``astype(int)``, the rank Evidently
    gives scores (evidently v0.7.21 legacy/calculations/recommender_systems.py:23). A group of m rows from
    0-based position s has the 1-based average rank s + (m + 1)/2, truncated to s + (m + 1)//2, i.e. the
    0-based position s + (m - 1)//2: a pair at ranks 2-3 shares rank 2. Rows of one group then share one
    position, so a cutoff k can take in more than k rows; the positions stay in rank order."""
    out: np.ndarray = pos.copy()
    jt = np.flatnonzero(tied[pos])  # rows in a tie group
    if jt.size:
        g = np.searchsorted(tstart, pos[jt], side="right") - 1
        out[jt] = tstart[g] + (tsize[g] - 1) // 2
    return out


def _order_pairs(pos: np.ndarray, lab: np.ndarray, docs: np.ndarray, order: np.ndarray | None, tstart: np.ndarray,
                 jt: np.ndarray, k: np.ndarray, ties: str) -> None:
    """_break_ties for tie groups of two rows: swap a pair's judged rows where its second row
    comes first under ``ties`` (the same order as the sort of larger groups)."""
    in_pair = np.zeros(tstart.size, dtype=bool)
    in_pair[k] = True
    pairs = np.flatnonzero(in_pair)
    slot = np.searchsorted(pairs, k)  # each judged row's pair
    second = pos[jt] != tstart[k]  # it holds the pair's second position
    first_pos = tstart[pairs]
    da = docs[first_pos if order is None else order[first_pos]]
    db = docs[first_pos + 1 if order is None else order[first_pos + 1]]
    # b > a in id byte order (keys compare word by word), and a == b never (one query, distinct docs)
    b_gt = np.zeros(pairs.size, dtype=bool)
    undecided = np.ones(pairs.size, dtype=bool)
    for w in range(da.shape[1]):
        b_gt |= undecided & (db[:, w] > da[:, w])
        undecided &= db[:, w] == da[:, w]
    if ties == "docid_asc":
        swap = ~b_gt
    elif ties == "docid_desc_numeric":
        la, lb = id_lengths(da), id_lengths(db)
        swap = (lb > la) | ((lb == la) & b_gt)
    else:
        swap = b_gt  # docid_desc, and the tie-break after the grade for optimistic/pessimistic
        if ties in ("optimistic", "pessimistic"):
            la = np.zeros(pairs.size)  # unjudged: grade 0
            lb = np.zeros(pairs.size)
            la[slot[~second]] = lab[jt[~second]]
            lb[slot[second]] = lab[jt[second]]
            better = lb > la if ties == "optimistic" else lb < la
            swap = better | ((la == lb) & swap)
    moved = swap[slot]
    pos[jt[moved]] += np.where(second[moved], -1, 1)


def id_lengths(keys: np.ndarray) -> np.ndarray:
    """The length in bytes of each packed id (ids hold no NUL byte; the words are padded with zeros)."""
    lengths: np.ndarray = np.count_nonzero(np.ascontiguousarray(keys).view(np.uint8).reshape(keys.shape[0], -1),
                                           axis=1)
    return lengths


def numeric_doc_ids(run: Run) -> bool:
    """Whether every doc id of the run is a non-negative integer written without leading zeros (and packed,
    <= 32 bytes): then ordering ids by (length, bytes) is ordering them as numbers. Memoised on the run. (A
    part of a run answers for its own rows: an evaluation in parts passes the whole run's answer to each,
    ``evaluation.plan.Facts``.)"""
    def check() -> bool:
        if run.doc_vocab is not None or len(run) == 0:
            return False
        ids = run.doc_ids()
        bad = ~np.char.isdigit(ids) | ((np.char.str_len(ids) > 1) & (np.char.startswith(ids, "0")))
        return not bool(bad.any())
    return run.memo("numeric_doc_ids", check)


def mixed_ties(pos: np.ndarray, rows: np.ndarray, lab: np.ndarray, jseg: np.ndarray, score: np.ndarray,
               precision: str, offsets: np.ndarray, tstart: np.ndarray, tsize: np.ndarray, tied: np.ndarray,
               judged_only: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The tie groups whose order can change a metric: those holding documents of different grades.

    ``pos`` are the judged rows' ranked positions, ascending (after the tie-break: a group keeps its
    members), ``rows`` their rows in ``score``, ``lab`` their grades, ``jseg`` their queries; ``precision``
    the rank plan's. A grade <= 0 and an unjudged document count alike (non-relevant); with
    ``judged_only`` (unjudged=removed) the unjudged rows are not in the ranking. Returns (query, 0-based
    start rank in its query, size) of every such group, in rank order. Vectorised over the judged rows
    in tie groups only (no loop over queries): two of them, adjacent in rank order, share a group
    exactly when their query and score are equal; only the groups holding a relevant document are
    looked up among all the groups."""
    none = np.zeros(0, dtype=np.int64)
    jt = np.flatnonzero(tied[pos])  # judged rows in a tie group, in rank order
    if jt.size == 0:
        return none, none, none
    with np.errstate(over="ignore"):  # beyond float32: +-inf, as the rank plan compares them (said elsewhere)
        s = score[rows[jt]].astype(np.float32 if precision == "float32" else np.float64)
    qj = jseg[jt]
    first = np.flatnonzero(np.r_[True, (s[1:] != s[:-1]) | (qj[1:] != qj[:-1])])
    lv = np.maximum(lab[jt], 0.0)
    hi, lo = np.maximum.reduceat(lv, first), np.minimum.reduceat(lv, first)
    n_judged = np.diff(np.r_[first, jt.size])
    if judged_only:
        mixed = hi != lo
        f = first[mixed]
        q = qj[f]
        return q, jt[f] - np.searchsorted(jseg, q, side="left"), n_judged[mixed]
    cand = hi > 0  # (hi != lo implies it) a group without a relevant document changes nothing
    f = first[cand]
    grp = np.searchsorted(tstart, pos[jt[f]], side="right") - 1
    mixed = (hi[cand] != lo[cand]) | (n_judged[cand] < tsize[grp])  # an unjudged member counts as grade 0
    q, grp = qj[f][mixed], grp[mixed]
    return q, tstart[grp] - offsets[q], tsize[grp]


def dense_groups(n: int, tstart: np.ndarray, tsize: np.ndarray) -> np.ndarray:
    """Tie-group id of every ranked row (consecutive ids; a row tied with none is its own group)."""
    step = np.ones(n, dtype=np.int64)
    step[0] = 0
    inner, _ = expand_ranges(tstart + 1, tsize - 1)
    step[inner] = 0
    return np.cumsum(step)


def descending_within(qrels: Qrels) -> np.ndarray:
    """The qrels grades sorted descending within each query's segment."""
    v, seg = qrels.values, qrels.segment
    if v.size:
        lo, hi = float(v.min()), float(v.max())
        span = hi - lo + 1
        # integer grades (the usual case): (query, hi - grade) packed in an int64, far cheaper than a
        # two-key lexsort
        if span <= 1 << 20 and qrels.n_queries * span < 2 ** 62 and bool(np.all(v == np.floor(v))):
            key = seg.astype(np.int64)
            key *= np.int64(span)
            key += (hi - v).astype(np.int64)
            if qrels.n_queries * span <= 4 * v.size:  # few levels: count each (query, level), no sort
                counts = np.bincount(key, minlength=qrels.n_queries * int(span))
                levels = np.tile(np.arange(int(span), dtype=np.int64), qrels.n_queries)
                return np.subtract(hi, np.repeat(levels, counts), dtype=np.float64)
            key.sort()
            key %= np.int64(span)
            return np.subtract(hi, key, dtype=np.float64)
    return v[np.lexsort((-v, seg))]


_PLAN_CHUNK = 1 << 20  # rows per step of rank_plan's scan


def rank_plan(seg: np.ndarray, score: np.ndarray, precision: str) -> RankPlan:
    """How the rows of CSR segments ``seg`` rank by ``score`` (descending), before ties are broken.

    Returns (order, inverse, tie_start, tie_size, tied): ``order`` lists the rows in rank order and
    ``inverse`` gives each row's ranked position (both None when the rows already are in score
    order, as in most run files); ``tie_start``/``tie_size`` are the first ranked position and the
    size of every group of two or more adjacent rows of a query with equal scores (ties stay in
    input order here), ``tied`` flags the ranked rows in such a group (None without ties).
    Depends on the run alone, so a whole-run evaluation memoises it on the Run."""
    n = score.size
    none = np.zeros(0, dtype=np.int64)
    if n < 2:
        return None, None, none, none, None
    # float32: scores compared as C floats, as trec_eval <= 9.0.7 and pytrec_eval do
    dtype = np.float32 if precision == "float32" else np.float64
    same_q = seg[1:] == seg[:-1]
    # adjacent pairs, a chunk at a time (no full-size converted copy or flag array): does a score
    # rise within a query (then the rows need sorting), and which pairs tie
    tie_next = np.empty(n - 1, dtype=bool)
    chunk = min(n, _PLAN_CHUNK)
    x = np.empty(chunk + 1, dtype=dtype)
    rise = np.empty(chunk, dtype=bool)
    rises = False
    for a in range(0, n - 1, chunk):
        b = min(n - 1, a + chunk)  # pairs a .. b-1, rows a .. b
        xs = x[:b + 1 - a]
        with np.errstate(over="ignore"):  # beyond float32: +-inf (evaluation.notices reports how many)
            np.copyto(xs, score[a:b + 1], casting="same_kind")
        np.greater(xs[1:], xs[:-1], out=rise[:b - a])
        rise[:b - a] &= same_q[a:b]
        rises = rises or bool(rise[:b - a].any())
        np.equal(xs[1:], xs[:-1], out=tie_next[a:b])
    del x, rise
    order = inv = None
    if rises:
        with np.errstate(over="ignore"):
            s = score.astype(dtype)
        order = np.lexsort((-s, seg))  # stable: ties stay in input order
        s = s[order]
        inv = np.empty(n, dtype=np.int64)
        inv[order] = np.arange(n, dtype=np.int64)
        np.equal(s[1:], s[:-1], out=tie_next)
        del s
    tie_next &= same_q
    del same_q
    i = np.flatnonzero(tie_next)  # row i ties row i + 1
    if i.size == 0:
        return order, inv, none, none, None
    brk = i[1:] != i[:-1] + 1
    tstart = i[np.r_[True, brk]]
    tsize = i[np.r_[brk, True]] - tstart + 2
    tied = np.zeros(n, dtype=bool)  # ranked rows in a tie group
    tied[:-1] = tie_next
    tied[1:] |= tie_next
    frozen = [tstart, tsize, tied]
    if order is not None and inv is not None:  # set together above
        frozen += [order, inv]
    for arr in frozen:
        arr.setflags(write=False)
    return order, inv, tstart, tsize, tied
