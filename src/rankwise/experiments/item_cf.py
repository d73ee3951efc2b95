"""Item-based collaborative filtering of Krichene & Rendle's §9 (recommenders Y and Z): cosine
item-item similarity raised to a power q, optionally kept to the k' nearest neighbours; dense when
the matrices fit in memory, streamed in blocks otherwise."""
from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from rankwise.catalogue.backends import NumpyBackend

try:  # y += A @ X for CSR A and dense X, accumulating into y: the kernel behind scipy's csr @ dense
    from scipy.sparse._sparsetools import csr_matvecs as _csr_matvecs
except ImportError:  # pragma: no cover - other scipy layouts: the full similarity is kept instead
    _csr_matvecs = None
from rankwise.catalogue.scorers import CallableScorer
from rankwise.errors import DataError, InvalidParameterError


def binary_matrix(train) -> sp.csr_matrix:
    """The training matrix as 0/1 interactions (duplicates summed, zeros dropped)."""
    if not sp.issparse(train):
        raise DataError(f"train must be a scipy.sparse (n_users, n_items) matrix, got {type(train).__name__}")
    x = sp.csr_matrix(train, dtype=np.float64, copy=True)
    x.eliminate_zeros()
    x.sum_duplicates()
    x.data[:] = 1.0
    return x


# Dense item-CF when the binary training matrix (users x items) and the item-item similarity fit
# in memory as float64 (2^26 entries = 512 MiB, 2^27 = 1 GiB; ml-latest-small needs 0.76 GiB). BLAS co-counts are
# exact (integer sums below 2^53) and an order of magnitude faster than blocked sparse products.
DENSE_TRAIN_LIMIT = 1 << 26
DENSE_SIMILARITY_LIMIT = 1 << 27


def n_users_fit_float32(x) -> bool:
    """Whether co-counts of the binary matrix ``x`` (at most n_users) are exact in float32."""
    return x.shape[0] < (1 << 24)


def _power_inplace(a: np.ndarray, q: float) -> None:
    if q == 1:
        return
    if q == int(q) and 2 <= q <= 4:  # repeated products: much faster than pow, same up to rounding
        base = a.copy()
        for _ in range(int(q) - 1):
            a *= base
        return
    np.power(a, q, out=a)


def _kth_positive(s: np.ndarray, k: int) -> np.ndarray:
    """Per row, the k-th largest value where it is positive, else 0 (k < s.shape[1]).

    What the selection below needs of ``np.partition(s, n - k, axis=1)[:, n - k]`` (only its
    sign when the row has fewer than k positive entries), without partitioning whole rows: the
    k-th largest of the maxima of >= k column chunks is a lower bound t of the k-th value (k
    chunks hold an entry >= t), so the k-th value is the k-th largest of the few entries >= t.
    """
    rows, n = s.shape
    chunks = min(n, 8 * k)
    if chunks < k or rows == 0:
        kth = np.partition(s, n - k, axis=1)[:, n - k]
        return np.where(kth > 0, kth, 0.0)
    bounds = np.linspace(0, n, chunks + 1).astype(np.int64)[:-1]
    maxima = np.maximum.reduceat(s, bounds, axis=1)
    low = np.partition(maxima, chunks - k, axis=1)[:, chunks - k]
    low = np.maximum(low, np.nextafter(0.0, 1.0))  # only positive entries matter
    r, c = np.divmod(np.flatnonzero(s >= low[:, None]), n)
    v = s[r, c]
    order = np.lexsort((-v, r))  # by row, values descending
    counts = np.bincount(r, minlength=rows)
    start = np.concatenate([[0], np.cumsum(counts)[:-1]])
    kth = np.zeros(rows)
    enough = counts >= k  # else fewer than k positive entries: the k-th value is not positive
    kth[enough] = v[order[start[enough] + k - 1]]
    return kth


def _top_k_positive(s: np.ndarray, k: int):
    """(row, col) of the k largest positive entries of each row, ties towards the lower column.

    Same selection as ``NumpyBackend.top_k_select`` restricted to positive values, but the
    tie bookkeeping runs only on the few candidates at or above each row's k-th value.
    """
    n = s.shape[1]
    if k >= n:
        return np.nonzero(s > 0)
    kth = _kth_positive(s, k)
    # s >= kth and s > 0 in one comparison: s > 0 is s >= the smallest positive double
    threshold = np.maximum(kth, np.nextafter(0.0, 1.0))
    flat = np.flatnonzero(s >= threshold[:, None])  # row-major: columns ascending in each row
    r, c = np.divmod(flat, n)
    v = s[r, c]
    gt = v > kth[r]
    need = k - np.bincount(r[gt], minlength=s.shape[0])
    eq = (~gt).astype(np.int64)
    # position of each tied candidate among its row's tied candidates (1-based)
    csum = np.cumsum(eq)
    starts = np.searchsorted(r, np.arange(s.shape[0]))
    before = np.concatenate([[0], csum])[starts]
    eq_pos = csum - before[r]
    keep = gt | ((eq == 1) & (eq_pos <= need[r]))
    return r[keep], c[keep]


class ItemCF:
    """Recommenders Y and Z: item-based CF with eq. 27-30 (``k``/``k_prime`` None = infinity)."""

    # set by fit_item_cf and the fit sinks: the training matrix, and a streamed fit's numerators with
    # the matrix they were computed for (None on the other paths)
    _x: Any
    _num: np.ndarray | None
    _num_x: Any

    def __init__(self, q: float = 1.0, k: int | None = None, k_prime: int | None = None, dense_above: float = 0.2):
        for name, val in (("k", k), ("k_prime", k_prime)):
            if val is not None and (int(val) != val or val < 1):
                raise InvalidParameterError(f"{name} must be a positive integer or None (infinity), got {val!r}")
        if q <= 0:
            raise InvalidParameterError(f"q must be > 0, got {q}")
        self.q, self.k, self.k_prime, self.dense_above = q, k, k_prime, dense_above

    def fit(self, train) -> "ItemCF":
        fit_item_cf([self], train)
        return self

    def _dense_fits(self, x) -> bool:
        n_users, n_items = x.shape
        return n_users * n_items <= DENSE_TRAIN_LIMIT and n_items * n_items <= DENSE_SIMILARITY_LIMIT

    def _fit_sparse(self, x) -> None:
        s2 = self._similarity_sparse(x)
        self._similarity = s2
        denom = np.asarray(s2.sum(axis=1)).ravel()
        self._inv_denom = np.divide(1.0, denom, out=np.zeros_like(denom), where=denom > 0)
        sim_t = s2.T.tocsr()
        dense = sim_t.nnz > self.dense_above * max(1, sim_t.shape[0] * sim_t.shape[1])
        self._sim_t = sim_t.toarray() if dense else sim_t

    @property
    def similarity(self) -> sp.csr_matrix:
        """s'' of eq. 29 as a CSR matrix (items x items); built on first access on the dense path."""
        if self._similarity is None:
            if self._s1 is None:
                self._dense_similarity()
            s1 = sp.csr_matrix(self._s1)
            norms = np.sqrt(np.asarray(s1.multiply(s1).sum(axis=1)).ravel())
            scale = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
            self._similarity = (sp.diags(scale) @ s1).tocsr()
        return self._similarity

    def _dense_sink(self, x):
        """Receives the blocks of s' (this model's q applied) of a dense fit: take(r0, r1, s), finish().

        eq. 27-28 with dense co-count blocks; predictions by eq. 30 straight from s'. The row
        normalisation of eq. 29 cancels out of eq. 30 exactly, so predictions use s' and its row
        sums; ``similarity`` still returns s'' on request. Only when column neighbours (k) are
        restricted is the full items x items matrix needed before selection; with k' alone each
        block is reduced to its row top-k' at once; with neither (recommender Y) the blocks go
        straight into the training users' predictions (:class:`_StreamedFit`). Sinks only read
        the blocks they are given.
        """
        n_users, n_items = x.shape
        if self.k is None and self.k_prime is None and _csr_matvecs is not None and n_users <= n_items:
            return _StreamedFit(self, x)
        return _DenseFit(self, x)

    def _dense_similarity(self) -> None:
        """s' of a streamed fit, built when something other than the training users' scores is asked."""
        x = self._num_x
        s1 = np.empty((x.shape[1], x.shape[1]))
        for r0, r1, base in _cosine_blocks(x):
            s1[r0:r1] = _powered(base, self.q, in_place=True)
        self._s1 = self._sim_t = s1  # symmetric: its own transpose

    def _sharpen(self, cb, n_i, r0, r1):
        """eq. 27 on a block of co-count rows r0:r1 (the diagonal is zeroed: no self-neighbour)."""
        cb[np.arange(r1 - r0), np.arange(r0, r1)] = 0.0
        norm = np.sqrt(n_i[r0:r1, None] * n_i[None, :])
        return np.divide(cb, norm, out=np.zeros_like(cb), where=cb > 0) ** self.q

    def _similarity_sparse(self, x) -> sp.csr_matrix:
        """eq. 27-29 for catalogues too large for a dense items x items matrix."""
        n_items = x.shape[1]
        n_i = np.asarray(x.sum(axis=0)).ravel()
        xt = x.T.tocsr()
        # co-counts are computed densely for a block of rows at a time: much faster than a sparse
        # items x items product, and memory stays bounded by the block
        step = max(1, (1 << 23) // max(1, n_items))
        row_sel = NumpyBackend("float64")
        parts_a: list[sp.csr_matrix] = []
        parts_b: list[sp.csr_matrix] = []
        for r0 in range(0, n_items, step):
            r1 = min(n_items, r0 + step)
            sb = self._sharpen((xt[r0:r1] @ x).toarray(), n_i, r0, r1)
            for k, parts in ((self.k_prime, parts_a), (self.k, parts_b)):
                if k is None:
                    parts.append(sp.csr_matrix(sb))
                else:
                    r, c, v = row_sel.top_k_select(sb, min(k, n_items))
                    pos = v > 0
                    parts.append(sp.csr_matrix((v[pos], (r[pos], c[pos])), shape=sb.shape))
                if self.k is None:
                    break  # column neighbours unrestricted: nothing to select
        s_row = sp.vstack(parts_a, format="csr")  # s_ij kept where j in N_k'(i)
        # eq. 28: also need i in N_k(j), i.e. row j's top-k read at the transposed position
        s1 = s_row if self.k is None else s_row.multiply(sp.vstack(parts_b, format="csr").T > 0).tocsr()
        s1.eliminate_zeros()
        norms = np.sqrt(np.asarray(s1.multiply(s1).sum(axis=1)).ravel())  # eq. 29
        s2 = sp.diags(np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)) @ s1
        return s2.tocsr()

    def score(self, users) -> np.ndarray:
        """eq. 30 for a block of users: (sum_{j in H_u} s''_ij) / (sum_j s''_ij), shape (b, n_items)."""
        users = np.atleast_1d(np.asarray(users))  # an index array: rows are copied, never views
        if self._num is not None and self._x is self._num_x:
            num = self._num[users]  # streamed fit: the numerators of every training user (a copy)
        else:
            if self._sim_t is None:
                self._dense_similarity()
            num = self._x[users] @ self._sim_t
            num = num.toarray() if sp.issparse(num) else np.asarray(num)  # a fresh product either way
        num *= self._inv_denom  # in place: one fresh (users x items) array fewer, same products
        return num

    def scorer(self) -> CallableScorer:
        return CallableScorer(self.score, *self._x.shape)


class _DenseFit:
    """Dense-path fit of one ItemCF model from row blocks of its s' (see ItemCF._dense_sink)."""

    def __init__(self, model, x):
        self.model, self.n_items = model, x.shape[1]
        n_items = self.n_items
        self.keep_dense = model.k is not None or model.k_prime is None
        self.s1 = np.empty((n_items, n_items)) if self.keep_dense else None
        self.col_keep = None if model.k is None else np.zeros((n_items, n_items), dtype=bool)
        self.rows, self.cols, self.vals = [], [], []

    def take(self, r0, r1, sb) -> None:
        model = self.model
        if model.k is not None:
            r, c = _top_k_positive(sb, model.k)
            self.col_keep[r + r0, c] = True
        if model.k_prime is not None:
            r, c = _top_k_positive(sb, model.k_prime)
            if self.keep_dense:
                kept = np.zeros_like(sb)
                kept[r, c] = sb[r, c]
                sb = kept
            else:
                self.rows.append(r + r0), self.cols.append(c), self.vals.append(sb[r, c])
                return
        self.s1[r0:r1] = sb

    def finish(self) -> None:
        model, s1, n_items = self.model, self.s1, self.n_items
        if self.col_keep is not None:
            s1 *= self.col_keep.T  # eq. 28: i in N_k(j), row j's top-k read at the transposed position
        if s1 is None:
            s1 = sp.csr_matrix((np.concatenate(self.vals), (np.concatenate(self.rows), np.concatenate(self.cols))),
                               shape=(n_items, n_items))
        model._s1 = s1
        model._similarity = None
        denom = np.asarray(s1.sum(axis=1)).ravel()
        model._inv_denom = np.divide(1.0, denom, out=np.zeros_like(denom), where=denom > 0)
        if sp.issparse(s1):
            model._sim_t = s1.T.tocsr()
        elif model.k is None and model.k_prime is None:
            model._sim_t = s1  # eq. 27 is symmetric bit for bit, so s' is its own transpose
        elif np.count_nonzero(s1) > model.dense_above * max(1, s1.size):
            model._sim_t = np.ascontiguousarray(s1.T)
        else:
            model._sim_t = sp.csr_matrix(s1).T.tocsr()


class _StreamedFit:
    """All neighbours (k = k' = None): the training users' numerators of eq. 30, block by block.

    s' is symmetric, so the numerators are X @ s' and row j of s' is all a block needs:
    ``num += X[:, block] @ s'[block]``, accumulated by scipy's CSR kernel in place, adds the same
    terms in the same order (each user's items ascending) as X @ s' did, so the predictions are
    the same doubles; the items x items matrix (0.76 GB for ml-latest-small, and as many page
    faults) is never held. ``score`` of other users builds it on demand.
    """

    def __init__(self, model, x):
        self.model, self.x = model, x
        self.num = np.zeros(x.shape)
        self.denom = np.empty(x.shape[1])

    def take(self, r0, r1, sb) -> None:
        self.denom[r0:r1] = sb.sum(axis=1)  # the same row sums as s'.sum(axis=1)
        xb = self.x[:, r0:r1]  # columns stay ascending within each row
        _csr_matvecs(self.x.shape[0], r1 - r0, self.x.shape[1], xb.indptr, xb.indices, xb.data, sb.ravel(),
                     self.num.ravel())

    def finish(self) -> None:
        model, denom = self.model, self.denom
        model._num, model._num_x = self.num, self.x
        model._s1 = model._sim_t = model._similarity = None
        model._inv_denom = np.divide(1.0, denom, out=np.zeros_like(denom), where=denom > 0)


def _cosine_blocks(x):
    """Row blocks (r0, r1, c_ij / sqrt(n_i n_j)) of eq. 27 before the power q, diagonal zeroed.

    Co-counts X[:, block]^T X are a sparse-times-dense product, several times faster than
    sparse-times-sparse, and exact: integer sums, here in float32 (exact below 2^24, so the
    float64 values are the same as a float64 product's, for ~2.5x less memory traffic).
    """
    n_items = x.shape[1]
    n_i = np.asarray(x.sum(axis=0)).ravel()
    xd = x.astype(np.float32).toarray() if n_users_fit_float32(x) else x.toarray()
    xt = x.T.tocsr().astype(xd.dtype)
    # sqrt(n_i n_j) with items of no training user counted as 1: their co-counts are 0, and
    # 0 / 1 = 0 is what a divide masked to n_i n_j > 0 leaves there, in one plain divide
    n_pos = np.maximum(n_i, 1.0)
    step = max(1, (1 << 21) // max(1, n_items))  # 16 MiB blocks: reused by malloc, not re-faulted
    for r0 in range(0, n_items, step):
        r1 = min(n_items, r0 + step)
        sb = np.asarray(xt[r0:r1] @ xd).astype(np.float64, copy=False)
        sb[np.arange(r1 - r0), np.arange(r0, r1)] = 0.0
        # eq. 27 as c_ij / sqrt(n_i n_j), rounded exactly as the sparse path and the definition:
        # equal similarities stay exactly equal (k-NN ties) and s_ij == s_ji bit for bit
        norm = n_pos[r0:r1, None] * n_pos[None, :]
        np.sqrt(norm, out=norm)
        np.divide(sb, norm, out=sb)
        yield r0, r1, sb


def _powered(base: np.ndarray, q: float, in_place: bool) -> np.ndarray:
    """base ** q as ``_power_inplace`` computes it; a new array unless ``in_place`` (or q = 1)."""
    if q == 1:
        return base
    if in_place:
        _power_inplace(base, q)
        return base
    if q == int(q) and 2 <= q <= 4:  # ((a * a) * a) * a: the products _power_inplace takes, in its order
        out = base * base
        for _ in range(int(q) - 2):
            out *= base
        return out
    return np.power(base, q)


def fit_item_cf(models, train) -> list:
    """Fit ItemCF models on the same training matrix; dense-path models share one co-count pass.

    Each model ends up exactly as its own ``fit(train)`` leaves it (same doubles): eq. 27 before
    the power q is computed once per block and each model takes its power of it (Y and Z of the
    Krichene-Rendle setup differ only in q and k'), which saves the second sparse-dense co-count
    product and normalisation.
    """
    models = list(models)
    x = binary_matrix(train)
    dense = []
    for model in models:
        model._x = x
        model._num = model._num_x = None
        if model._dense_fits(x):
            dense.append(model)
        else:
            model._fit_sparse(x)
    if dense:
        # models that power the block in place go last; the very last may reuse the block itself
        dense.sort(key=lambda mdl: mdl.q != 1)
        sinks = [model._dense_sink(x) for model in dense]
        for r0, r1, base in _cosine_blocks(x):
            for i, (model, sink) in enumerate(zip(dense, sinks)):
                sink.take(r0, r1, _powered(base, model.q, in_place=i == len(dense) - 1))
        for sink in sinks:
            sink.finish()
    return models
