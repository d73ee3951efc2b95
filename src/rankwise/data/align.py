"""Qrels x Run -> JudgedRankings: labels in rank order, ideal labels, tie groups.

This is the one sort and one join of an evaluation (house rule 6); it is done once per
(tie policy, unjudged policy) and shared by every metric that uses them.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from rankwise.data import idkeys
from rankwise.data.collections import Qrels, Run, _freeze, _frozen
from rankwise.kernels.segments import segment_ids

# (order, inverse, tie_start, tie_size, tied) of _rank_plan
RankPlan = tuple["np.ndarray | None", "np.ndarray | None", np.ndarray, np.ndarray, "np.ndarray | None"]


@dataclass(frozen=True, eq=False)
class JudgedRankings:
    """The ranked lists of the evaluated queries, reduced to what metrics read.

    Ranked rows are numbered by their position in a CSR array over queries (``offsets``); only
    the *judged* rows are listed (``rows``, ascending, with their query and grade): an unjudged
    document changes no metric except through the ranks of the documents below it, which
    ``rows`` keeps. Under ties=average, the dense arrays over every ranked row are given too."""
    query_ids: np.ndarray  # evaluated queries
    offsets: np.ndarray  # CSR over ranked rows
    rows: np.ndarray  # ranked position (flat, into offsets' numbering) of every judged row, ascending
    row_seg: np.ndarray  # the query (index into query_ids) of each of them
    row_labels: np.ndarray  # float64 grade of each of them
    ideal_offsets: np.ndarray  # CSR over judged docs of each query
    ideal_labels: np.ndarray  # judged grades, descending within each query
    unjudged_removed: int = 0  # rows dropped by unjudged=removed
    # None when rows follow the requested query order; else, for each requested query (in the
    # order given to align), its position here: per-query values v are reported as v[plan_index]
    plan_index: np.ndarray | None = None
    # ties=average only (else None): every ranked row's grade (0 where unjudged), judged flag and
    # tie group id
    labels: np.ndarray | None = None
    judged: np.ndarray | None = None
    tie_group: np.ndarray | None = None

    @property
    def n_queries(self) -> int:
        return self.offsets.size - 1


def _expand(starts: np.ndarray, lengths: np.ndarray) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The indices of the ranges [starts[i], starts[i] + lengths[i]), concatenated, and their CSR offsets."""
    offs = np.zeros(lengths.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=offs[1:])
    idx = np.arange(int(offs[-1]), dtype=np.int64) + np.repeat(starts - offs[:-1], lengths)
    return idx, offs


def _gather(offsets: np.ndarray, codes: np.ndarray) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Row indices of segments ``codes`` (-1 = empty) of a CSR array, and new offsets."""
    if offsets.size < 2:
        return np.zeros(0, dtype=np.int64), np.zeros(codes.size + 1, dtype=np.int64)
    c = np.maximum(codes, 0)
    lengths = np.where(codes >= 0, np.diff(offsets)[c], 0)
    return _expand(offsets[c], lengths)


def align(qrels: Qrels, run: Run, query_ids: np.ndarray, *, ties: str, unjudged: str,
          scores: str = "float64", negative: str = "nonrelevant") -> JudgedRankings:
    nq = query_ids.size
    # --- the run's rows of the evaluated queries, in input order within each query
    rq = run.query_vocab.codes_of(query_ids)
    whole_run = rq.size == run.n_queries and bool(np.all(rq >= 0))  # (ids are distinct)
    plan_index = None
    if whole_run:
        # The common case: every run query is evaluated. Work in the run's own storage order
        # (so run-only work is memoised on the Run and no row moves); values are put back in
        # the requested order at the end through plan_index.
        if not np.array_equal(rq, np.arange(nq)):
            plan_index = rq
            query_ids = run.query_ids
        ridx, offsets = None, run.offsets.copy()
        docs, score = run.docs, run.scores
        seg = run.segment
    else:
        ridx, offsets = _gather(run.offsets, rq)
        docs, score = run.docs[ridx], run.scores[ridx]
        seg = segment_ids(offsets)
    n = seg.size

    # --- each evaluated query's judged grades, best first: sorted once per Qrels within its own
    # segments, and a whole-segment gather keeps that order
    qq = qrels.query_vocab.codes_of(query_ids)  # each evaluated query's code in the qrels, or -1
    qidx, qoffsets = _gather(qrels.offsets, qq)
    ideal_labels = qrels.memo("ideal", lambda: _frozen(_descending_within(qrels)))[qidx]
    drop_negative = negative == "unjudged" and qrels.values.size and qrels.values.min() < 0
    if drop_negative:
        keepq = ideal_labels >= 0  # negatives sort last: the order is kept
        kept_per_query = np.bincount(segment_ids(qoffsets)[keepq], minlength=nq)
        qoffsets = np.zeros(nq + 1, dtype=np.int64)
        np.cumsum(kept_per_query, out=qoffsets[1:])
        ideal_labels = ideal_labels[keepq]

    # --- join: the ranked rows that are judged, and their grades
    if ridx is None:
        # one run is often evaluated against one qrels several times (other metrics, conventions,
        # tie policies in one call): the last whole-run join is kept on the Run
        last = run._memo.get("join")
        if last is not None and last[0]() is qrels:
            rows, qrow = last[1], last[2]
        else:
            rows, qrow = _join(qrels, run, docs, seg, ridx, qq)
            _freeze(rows, qrow)
            run._memo["join"] = (weakref.ref(qrels), rows, qrow)
    else:
        rows, qrow = _join(qrels, run, docs, seg, ridx, qq)
    if drop_negative:  # a negative grade is treated as no judgment (trec_eval)
        keep = qrels.values[qrow] >= 0
        rows, qrow = rows[keep], qrow[keep]
    lab = qrels.values[qrow].astype(np.float64)
    jseg = seg[rows]

    # --- rank: score descending; ties by policy. Only the judged rows' positions are computed.
    plan = run.memo(("rank", scores), lambda: _rank_plan(seg, score, scores)) if whole_run \
        else _rank_plan(seg, score, scores)
    order, inv, tstart, tsize, tied = plan
    pos = rows.copy() if inv is None else inv[rows]  # ranked position of each judged row
    # (tied is None exactly when there is no tie group, i.e. tstart is empty: the last test never fails)
    if ties not in ("input", "average") and tstart.size and tied is not None:
        _break_ties(pos, lab, docs, order, tstart, tsize, tied, ties)
    if pos.size > 1 and not bool(np.all(pos[1:] > pos[:-1])):
        o = np.argsort(pos, kind="stable")  # (nearly sorted, typically: timsort's runs)
        pos, lab, jseg, rows = pos[o], lab[o], jseg[o], rows[o]

    removed = 0
    labels = judged = group = None
    if unjudged == "removed":
        removed = n - pos.size
        offsets = np.zeros(nq + 1, dtype=np.int64)
        np.cumsum(np.bincount(jseg, minlength=nq), out=offsets[1:])
        pos = np.arange(jseg.size, dtype=np.int64)
    if ties == "average":
        if unjudged == "removed":  # tie groups among the judged rows alone
            labels, judged = lab, np.ones(lab.size, dtype=bool)
            _, _, jstart, jsize, _ = _rank_plan(jseg, score[rows], scores)  # (already in rank order)
            group = _dense_groups(lab.size, jstart, jsize) if jstart.size else None
        else:
            labels, judged = np.zeros(n, dtype=np.float64), np.zeros(n, dtype=bool)
            labels[pos], judged[pos] = lab, True
            group = _dense_groups(n, tstart, tsize) if tstart.size else None
        if group is None:  # no ties at all: averaging changes nothing
            labels = judged = None

    _freeze(offsets, pos, jseg, lab, qoffsets, ideal_labels, *(x for x in (labels, judged, group) if x is not None))
    return JudgedRankings(query_ids, offsets, pos, jseg, lab, qoffsets, ideal_labels, removed, plan_index,
                          labels, judged, group)


def _break_ties(pos: np.ndarray, lab: np.ndarray, docs: np.ndarray, order: np.ndarray | None, tstart: np.ndarray,
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
    sub, _ = _expand(tstart[groups], tsize[groups])  # ranked positions of those groups' rows
    where = np.searchsorted(sub, pos[jt])
    lab_sub = np.zeros(sub.size, dtype=np.float64)  # unjudged: grade 0
    lab_sub[where] = lab[jt]
    d = docs[sub if order is None else order[sub]]
    if ties == "docid_desc":
        key = idkeys.lex_order_columns(d, descending=True)
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


def _dense_groups(n: int, tstart: np.ndarray, tsize: np.ndarray) -> np.ndarray:
    """Tie-group id of every ranked row (consecutive ids; a row tied with none is its own group)."""
    step = np.ones(n, dtype=np.int64)
    step[0] = 0
    inner, _ = _expand(tstart + 1, tsize - 1)
    step[inner] = 0
    return np.cumsum(step)


def _descending_within(qrels: Qrels) -> np.ndarray:
    """The qrels grades sorted descending within each query's segment."""
    v, seg = qrels.values, qrels.segment
    if v.size:
        lo, hi = float(v.min()), float(v.max())
        span = hi - lo + 1
        # integer grades (the usual case): one vectorised sort of (query, hi - grade) packed in an
        # int64, far cheaper than a two-key lexsort
        if span <= 1 << 20 and qrels.n_queries * span < 2 ** 62 and bool(np.all(v == np.floor(v))):
            key = seg.astype(np.int64)
            key *= np.int64(span)
            key += (hi - v).astype(np.int64)
            key.sort()
            key %= np.int64(span)
            return np.subtract(hi, key, dtype=np.float64)
    return v[np.lexsort((-v, seg))]


_PLAN_CHUNK = 1 << 20  # rows per step of _rank_plan's scan


def _rank_plan(seg: np.ndarray, score: np.ndarray, precision: str) -> RankPlan:
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
        np.copyto(xs, score[a:b + 1], casting="same_kind")
        np.greater(xs[1:], xs[:-1], out=rise[:b - a])
        rise[:b - a] &= same_q[a:b]
        rises = rises or bool(rise[:b - a].any())
        np.equal(xs[1:], xs[:-1], out=tie_next[a:b])
    del x, rise
    order = inv = None
    if rises:
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


def _comparable_keys(run: Run, rdocs: np.ndarray, qrels: Qrels, qdocs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Doc keys of both sides in one key space (same width; same vocabulary if ids were too long)."""
    if run.doc_vocab is None and qrels.doc_vocab is None:
        nw = max(rdocs.shape[1], qdocs.shape[1])
        return idkeys.widen(rdocs, nw), idkeys.widen(qdocs, nw)
    # ids longer than idkeys packs: one sorted vocabulary over both sides (slow path, still exact)
    from rankwise.data.vocabulary import Vocabulary
    r_str = idkeys.unpack(rdocs) if run.doc_vocab is None else run.doc_vocab.ids[rdocs[:, 0].astype(np.int64)]
    q_str = idkeys.unpack(qdocs) if qrels.doc_vocab is None else qrels.doc_vocab.ids[qdocs[:, 0].astype(np.int64)]
    vocab = Vocabulary.from_ids(np.concatenate([r_str, q_str]))
    return (vocab.codes_of(r_str).astype(np.uint64).reshape(-1, 1),
            vocab.codes_of(q_str).astype(np.uint64).reshape(-1, 1))


def _join(qrels: Qrels, run: Run, docs: np.ndarray, seg: np.ndarray, ridx: np.ndarray | None,
          qq: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The ranked rows (indices into ``docs``/``seg``) whose (query, doc) is judged, and the qrels
    row judging each. ``seg`` numbers the evaluated queries; ``qq`` maps them to qrels query codes;
    ``ridx`` is None when ``docs`` are all the run's rows, else the run rows they are."""
    if run.doc_vocab is None and qrels.doc_vocab is None:
        # the common case: both sides' hashes depend on the ids alone, so each side keeps its own
        # (the Run's from its duplicate check; the Qrels' index is built once and reused)
        rkeys, qkeys = docs, qrels.doc_keys
        hr = run.row_hash() if ridx is None else run.row_hash()[ridx]
        index = qrels.memo("join_index", lambda: JoinIndex(qrels.row_hash()))
    else:
        rkeys, qkeys = _comparable_keys(run, docs, qrels, qrels.doc_keys)
        hr = idkeys.mix(rkeys, run.query_salt, codes=run.segment if ridx is None else run.segment[ridx])
        index = JoinIndex(idkeys.mix(qkeys, qrels.query_salt, codes=qrels.segment))
    return _verified(index, hr, rkeys, seg, qkeys, qrels.segment, qq)


class JoinIndex:
    """The judged side of the join, built once per Qrels from one 64-bit hash per judged row.

    - a bit-packed bitmap of the hashes' top ``bits`` bits: most ranked documents are unjudged,
      and one lookup rules most of them out;
    - the rows sorted by their hashes' top bits, (hash, row) side by side, with a directory of
      where each value of the top ``dir_bits`` bits starts: a candidate finds an equal hash in
      about one step (the buckets hold about one hash each).

    One vectorised sort builds both. Probing is plain numpy gathers; a hash match is only a
    candidate, verified by the caller."""

    _CHUNK = 1 << 18  # rows per step of a probe: its work arrays stay small and are reused

    def __init__(self, h: np.ndarray, bits: int | None = None):
        h = np.ascontiguousarray(h, dtype=np.uint64)
        n = h.size
        # 2**26 bits at most (8 MB packed): a byte table of that many slots would not stay in
        # cache. (Tests pass tiny tables, where most rows share a slot.)
        if bits is None:
            bits = int(min(26, max(16, (32 * n).bit_length())))
        self.bits = bits = max(bits, 3)
        self.dir_bits = min(bits, max(1, n.bit_length()))  # between n and 2n buckets
        row_bits = 64 - bits
        if n >= 1 << row_bits:  # pragma: no cover - beyond any collection that fits in memory
            raise ValueError("too many judged rows for the join index")
        # sort (top bits << row_bits | row): the slots come out sorted, and so do the buckets
        key = h >> np.uint64(row_bits)
        key <<= np.uint64(row_bits)
        key |= np.arange(n, dtype=np.uint64)
        key.sort()
        order = key & np.uint64((1 << row_bits) - 1)
        key >>= np.uint64(row_bits)  # now each row's slot, ascending
        # the bitmap: each byte ORs the bits of its slots (runs of equal bytes, as slots are sorted)
        self.bitmap = np.zeros(1 << (bits - 3), dtype=np.uint8)
        if n:
            byte = (key >> np.uint64(3)).view(np.int64)
            first = np.flatnonzero(np.r_[True, byte[1:] != byte[:-1]])
            bit = np.left_shift(np.uint8(1), (key & np.uint64(7)).astype(np.uint8))
            self.bitmap[byte[first]] = np.bitwise_or.reduceat(bit, first)
            del byte, first, bit
        key >>= np.uint64(bits - self.dir_bits)  # each row's bucket, ascending
        counts = np.bincount(key.view(np.int64), minlength=1 << self.dir_bits)
        del key
        self.directory = np.zeros((1 << self.dir_bits) + 1, dtype=np.int64 if n >= 2**31 else np.int32)
        np.cumsum(counts, out=self.directory[1:])
        del counts
        # (hash, row) side by side, so a probe's one random read fetches both; one row past the
        # end, for the probe of an empty last bucket: row 2**64 - 1, i.e. -1 (no match)
        self.pairs = np.empty((n + 1, 2), dtype=np.uint64)
        self.pairs[:n, 1] = order
        self.pairs[:n, 0] = h[order.view(np.int64)]
        self.pairs[n] = (0, np.iinfo(np.uint64).max)
        self._slot_shift = np.uint64(64 - bits)
        self._bucket_shift = np.uint64(64 - self.dir_bits)

    def candidates(self, hr: np.ndarray) -> np.ndarray:
        """Indices of the hashes ``hr`` whose top bits are set in the bitmap (a superset of the matches)."""
        hr = np.ascontiguousarray(hr, dtype=np.uint64)
        n = hr.size
        m = min(n, self._CHUNK * 4)
        slot, flag, bit = np.empty(m, dtype=np.uint64), np.empty(m, dtype=np.uint8), np.empty(m, dtype=np.uint8)
        parts = []
        for a in range(0, n, m):
            b = min(n, a + m)
            s, f, t = slot[:b - a], flag[:b - a], bit[:b - a]
            np.right_shift(hr[a:b], self._slot_shift, out=s)  # the slot
            np.bitwise_and(s, np.uint64(7), out=t, casting="unsafe")  # its bit within its byte
            s >>= np.uint64(3)  # its byte
            np.take(self.bitmap, s.view(np.intp), out=f)
            f >>= t
            f &= np.uint8(1)
            idx = np.flatnonzero(f)
            idx += a
            parts.append(idx)
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)

    def find(self, hc: np.ndarray) -> np.ndarray:
        """For each hash, the index (into the hashes the index was built from) of an equal one, or -1."""
        if hc.size == 0 or self.pairs.shape[0] == 1:
            return np.full(hc.size, -1, dtype=np.int64)
        b = (hc >> self._bucket_shift).view(np.int64)
        at = self.directory[b].astype(np.int64)  # the bucket's first entry (if empty, the next bucket's: no match)
        got = np.take(self.pairs, at, axis=0)
        eq = got[:, 0] == hc
        out: np.ndarray = got[:, 1].view(np.int64)  # (a strided view of got; copied by the caller's gathers)
        out[~eq] = -1
        todo = np.flatnonzero(~eq)
        todo = todo[self.directory[b[todo] + 1] > at[todo] + 1]
        step = 1
        while todo.size:  # later entries of the few buckets holding more than one
            a = at[todo] + step
            got2 = np.take(self.pairs, a, axis=0)
            eq = got2[:, 0] == hc[todo]
            out[todo[eq]] = got2[eq, 1].view(np.int64)
            todo = todo[~eq]
            step += 1
            todo = todo[self.directory[b[todo] + 1] > at[todo] + step]
        return out


def _verified(index: JoinIndex, hr: np.ndarray, rkeys: np.ndarray, rseg: np.ndarray, qkeys: np.ndarray,
              qseg: np.ndarray, qmap: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(rows, judged rows) pairs: run row ``rows[i]`` is the (query, doc) of qrels row ``ph[i]``.

    Run rows are probed by hash; every candidate is verified exactly (query and doc key), a
    chunk of candidates at a time (small work arrays). A row whose candidate fails verification
    (a hash collision, astronomically rare) is looked up exactly. ``qmap`` maps ``rseg`` values
    to ``qseg`` values (-1: a query the qrels lack); None when both share one numbering.

    (Measured alternatives, not kept: pyarrow's index_in for the probe (0.44 s against 0.19 s for
    1.8M candidates against 2M judged rows); a direct-address table of qrels row numbers instead
    of the bitmap (its 64 MB table and random gathers were slower still).)"""
    empty = np.zeros(0, dtype=np.int64)
    if rkeys.shape[0] == 0 or qkeys.shape[0] == 0:
        return empty, empty
    cand = index.candidates(hr)
    nw = max(rkeys.shape[1], qkeys.shape[1])
    rows_parts, ph_parts, bad_parts = [], [], []
    for a in range(0, cand.size, JoinIndex._CHUNK):
        c = cand[a:a + JoinIndex._CHUNK]
        ph = index.find(hr[c])
        hit = ph >= 0
        rows, ph = c[hit], ph[hit]
        rq = rseg[rows] if qmap is None else qmap[rseg[rows]]
        good = qseg[ph] == rq
        if nw == 1 and rkeys.shape[1] == qkeys.shape[1] == 1:
            good &= qkeys[ph, 0] == rkeys[rows, 0]
        else:
            good &= idkeys.rows_equal(idkeys.widen(qkeys[ph], nw), idkeys.widen(rkeys[rows], nw))
        if good.all():
            rows_parts.append(rows)
            ph_parts.append(ph)
        else:
            rows_parts.append(rows[good])
            ph_parts.append(ph[good])
            bad_parts.append(rows[~good])
    rows = np.concatenate(rows_parts) if rows_parts else empty
    ph = np.concatenate(ph_parts) if ph_parts else empty
    if not bad_parts:
        return rows, ph
    # rows with no candidate cannot match (an equal (query, doc) hashes equally); a row whose
    # candidate is wrong may still have another: look those up exactly
    bad = np.concatenate(bad_parts)
    rq_bad = rseg[bad] if qmap is None else qmap[rseg[bad]]
    found = _exact_lookup(idkeys.widen(qkeys, nw), qseg, idkeys.widen(rkeys[bad], nw), rq_bad)
    ok = found >= 0
    return np.concatenate([rows, bad[ok]]), np.concatenate([ph, found[ok]])


def _lookup(qkeys: np.ndarray, qseg: np.ndarray, rkeys: np.ndarray, rseg: np.ndarray, hr: np.ndarray | None = None,
            bits: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The run rows whose (segment, doc) has a qrels row, and the index of that qrels row
    (segments numbered alike on both sides). ``hr`` is ``idkeys.mix(rkeys, rseg)`` when the
    caller has it."""
    if rkeys.shape[0] == 0 or qkeys.shape[0] == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    index = JoinIndex(idkeys.mix(qkeys, qseg), bits)
    hr = idkeys.mix(rkeys, rseg) if hr is None else hr
    return _verified(index, hr, rkeys, rseg, qkeys, qseg)


def _exact_lookup(qkeys: np.ndarray, qseg: np.ndarray, rkeys: np.ndarray, rseg: np.ndarray) -> np.ndarray:
    """Sort-based exact join (no hashing), for the rows a hash probe could not settle.
    ``rseg`` may hold -1 (a query with no judgments): such rows find nothing."""
    allk = np.concatenate([qkeys, rkeys])
    _, codes = np.unique(allk, axis=0, return_inverse=True)
    codes = codes.ravel().astype(np.int64)
    width = np.int64(codes.max() + 1)
    qk = qseg * width + codes[:qkeys.shape[0]]
    rk = rseg * width + codes[qkeys.shape[0]:]
    order = np.argsort(qk, kind="stable")
    p = np.minimum(np.searchsorted(qk[order], rk), qk.size - 1)
    return np.where((qk[order][p] == rk) & (rseg >= 0), order[p], -1)
