"""The join of a run with its judgments: which ranked rows are judged, and by which qrels row.

A ``JoinIndex`` is built once per Qrels (a bitmap over the hashes' top bits and a bucket directory of
(hash, row) pairs); each run row is probed a chunk at a time and every candidate is verified exactly,
so a hash collision can cost time but never a wrong match.
"""
from __future__ import annotations

import numpy as np

from rankwise.data import idkeys
from rankwise.data.collections import Qrels, Run


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


def join_judged(qrels: Qrels, run: Run, docs: np.ndarray, seg: np.ndarray, ridx: np.ndarray | None,
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
