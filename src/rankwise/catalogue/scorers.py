"""Score sources: where the scores of (user, item) pairs come from, for full-catalogue and sampled ranks.

One source, validated once when it is built, serves two access patterns:

- whole rows, ``bind(backend)``: a function that takes an array of user indices and returns their
  (len(users), n_items) block in the backend's array type and dtype (numpy or torch). The caller
  may modify a block and must be done with it before asking for the next one (numpy blocks reuse
  one buffer). Factor scores are computed block by block, so the users x items matrix never
  exists in memory. This is what ``item_ranks``, ``ranks_from_*`` and ``top_k`` use.
- given pairs, ``score_pairs(users, items, line0)``: ``users`` (b,), ``items`` (b, c) -> (b, c)
  numpy scores of those pairs only, in the source's own dtype (for factors: their floating dtype).
  This is what ``rankwise.sampled.sampled_ranks`` uses, one block of test lines at a time
  (``line0``: the 0-based index of the block's first line, for messages).

What each pattern needs of the values: NaN is an error on both (it has no order). Whole rows must
also be finite, because the catalogue kernels mark training items with NaN and -inf; a pair may be
+-inf (ranked above/below every number, tied with an equal infinity). The problems found when a
source is built (shape, dtype, NaN, factor widths) raise the same message whichever pattern then
uses the source, and so do the ones found in a callable's output.

Two callable contracts, two classes sharing their checks (``_returned``, ``_nan_message``,
``_first_not_finite`` below): :class:`CallableScorer` wraps ``fn(users) -> (len(users), n_items)``
rows (the catalogue's contract; pairs are gathered from its rows), :class:`PairCallableScorer`
wraps ``score(users[b], items[b, c]) -> (b, c)`` (the sampled contract; rows, when it is told the
catalogue size, are its pairs with every item). They are not one class because the two contracts
cannot be told apart reliably from the function (arity inspection fails for ``*args``, partials,
torch modules) and because a row callable knows the catalogue size while a pair callable need not.

A run (``rankwise.catalogue.sources.RunSource``) serves pairs only; ``source_of`` turns any accepted
input into a source.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from rankwise.errors import DataError, InvalidParameterError

# why whole rows must be finite: said by every source that rejects +-inf on that path
ROWS_NEED_FINITE = ("full-catalogue ranks and top-K need finite scores (they mark training items with NaN and "
                    "-inf); +-inf is accepted for sampled (user, item) pairs only")
# why a callable that does not know the catalogue size cannot give whole rows
CALLABLE_ROWS_MESSAGE = ("a callable without n_users and n_items cannot score whole rows (full-catalogue ranks, "
                         "top-K): wrap it as CallableScorer(fn, n_users, n_items) for fn(users) -> (len(users), "
                         "n_items) rows, or PairCallableScorer(score, n_users, n_items) for score(users, items) -> "
                         "one score per (user, item) pair")


class ScoreSource:
    """What every score source offers; see the module notes for the two access patterns.

    ``n_users``/``n_items``: the users and items the source can score (None: not known, e.g. a pair
    callable or a run); ``width``: values computed per scored pair (factor width), for block sizing;
    ``missing``, ``missing_positives``, ``not_codes``, ``unused``: what a pair lookup could not
    score (only a run has any).
    """

    n_users: int | None = None
    n_items: int | None = None
    width: int = 1
    serves_rows: bool = True
    missing = missing_positives = not_codes = 0
    _covers = "the score source covers"

    @property
    def unused(self) -> int:
        """Rows of the score source that no candidate read; only a run source has any."""
        return 0

    def check_covers(self, max_user: int, max_item: int) -> None:
        """Fail unless users 0..max_user and items 0..max_item can all be scored."""
        if self.n_users is None or self.n_items is None:
            return
        if self.n_users <= max_user or self.n_items <= max_item:
            raise DataError(f"{self._covers} {self.n_users} users and {self.n_items} items but the test lines need "
                            f"users up to {max_user} and items up to {max_item}")

    def values_per_line(self, n_candidates: int) -> int:
        """Values computed to score one user's ``n_candidates`` items (for block sizing)."""
        return n_candidates * self.width

    def bind(self, backend):
        raise NotImplementedError

    def score_pairs(self, users: np.ndarray, items: np.ndarray, line0: int = 0) -> np.ndarray:
        raise NotImplementedError


def _first_not_finite(a: np.ndarray):
    """(index, value) of the first NaN, else of the first +-inf, else None; one pass when all are finite."""
    if a.dtype.kind not in "fc" or a.size == 0 or np.isfinite(a.sum()):  # a finite sum has no NaN or inf in it
        return None
    for bad in (np.isnan(a), ~np.isfinite(a)):
        if bad.any():
            at = tuple(int(x) for x in np.argwhere(bad)[0])
            return at, a[at]
    return None


def _on(t, device) -> bool:
    """Whether tensor ``t`` is on ``device`` (a device named without an index is the current one of its type)."""
    if t.device.type != device.type:
        return False
    if device.index is None and device.type == "cuda":
        import torch

        return t.device.index == torch.cuda.current_device()
    return device.index is None or t.device.index == device.index


def _first_not_finite_tensor(t):
    """``_first_not_finite`` of a torch tensor, computed where the tensor is (a Python float for the value)."""
    import torch

    if not t.dtype.is_floating_point or t.numel() == 0 or bool(torch.isfinite(t).all()):
        return None
    for bad in (torch.isnan(t), ~torch.isfinite(t)):
        if bool(bad.any()):
            at = tuple(int(x) for x in torch.nonzero(bad)[0].tolist())
            return at, float(t[at])
    return None


def _nan_message(what: str, user, item, line: int | None = None) -> str:
    """The one message for a NaN returned by a callable, on either access pattern (``line``: 1-based test line)."""
    where = "" if line is None else f"test line {line}, "
    return f"{what} returned NaN for {where}user {user}, item {item}"


def _as_numpy(out) -> np.ndarray:
    if hasattr(out, "detach"):  # a torch tensor, possibly on a GPU
        out = out.detach().cpu().numpy()
    return np.asarray(out)


def _returned(out, shape: tuple[int, ...], what: str, asked: str):
    """A callable's output, checked to be numbers of ``shape`` (numpy arrays and torch tensors pass as they are)."""
    if not hasattr(out, "detach"):
        out = np.asarray(out)
    got = tuple(out.shape)
    numeric = hasattr(out, "detach") or np.issubdtype(out.dtype, np.number)
    if got != shape or not numeric:
        raise DataError(f"{what} returned shape {got}, dtype {out.dtype} for {asked}; expected numbers of shape "
                        f"{shape}, one per (user, item) pair asked for")
    return out


def _check_callable(fn, name: str) -> None:
    if not callable(fn):
        raise InvalidParameterError(f"{name} must be callable, got {type(fn).__name__}")


def _check_sizes(n_users, n_items) -> tuple[int, int]:
    if int(n_users) < 0 or int(n_items) < 1:
        raise InvalidParameterError(f"need n_users >= 0 and n_items >= 1, got {n_users}, {n_items}")
    return int(n_users), int(n_items)


class DenseScorer(ScoreSource):
    """Scores given as a dense (n_users, n_items) array; serves whole rows and given pairs.

    A torch tensor (a model's scores on a GPU) is kept where it is: the torch backend gathers its blocks on the
    device, and the numpy backend and pair scores read one CPU copy."""

    _covers = "the score matrix covers"

    def __init__(self, scores):
        if _is_tensor(scores):
            scores = scores.detach()
            if scores.ndim != 2 or scores.dtype.is_complex or str(scores.dtype) == "torch.bool":
                raise DataError(f"scores must be a 2-D numeric tensor (users x items), got shape "
                                f"{tuple(scores.shape)}, dtype {scores.dtype}")
            bad = _first_not_finite_tensor(scores)
        else:
            scores = np.asarray(scores)
            if scores.ndim != 2 or not np.issubdtype(scores.dtype, np.number):
                raise DataError(f"scores must be a 2-D numeric array (users x items), got shape {scores.shape}, "
                                f"dtype {scores.dtype}")
            bad = _first_not_finite(scores)
        if bad is not None and np.isnan(bad[1]):
            i, j = bad[0]
            raise DataError(f"scores[{i}, {j}] is NaN: a NaN score has no place in a ranking; scores must be "
                            "finite numbers")
        self._inf_at = bad  # +-inf: fine for pairs, refused for whole rows (bind)
        self.scores = scores
        self.n_users, self.n_items = int(scores.shape[0]), int(scores.shape[1])
        self._on_host: np.ndarray | None = None  # a tensor's CPU copy, made once if a host path asks

    def _host_scores(self) -> np.ndarray:
        if self._on_host is None:
            self._on_host = _host(self.scores)
        return self._on_host

    def bind(self, backend):
        if self._inf_at is not None:
            (i, j), v = self._inf_at
            raise DataError(f"scores[{i}, {j}] is {v}: {ROWS_NEED_FINITE}")
        if backend.name != "numpy" and _is_tensor(self.scores) and _on(self.scores, backend.device):
            # a tensor already on the device: each block gathered there, then in the scoring dtype (a new tensor,
            # so masking a block never touches the caller's); one elsewhere travels a block at a time, as arrays do
            scores = self.scores
            return lambda users: scores[backend._idx(users)].to(dtype=backend.dtype)
        # converted to the scoring dtype before any comparison, so that ties are decided on the
        # same values whichever backend compares them; blocks travel to the device one at a time
        src = np.asarray(self._host_scores(), dtype=backend.dtype_name)
        if backend.name == "numpy":
            buf = []

            def block(users):
                # a gather into one reused buffer: never aliases the user's matrix, no second copy
                n = users.size
                if not buf or buf[0].shape[0] < n:
                    buf[:] = [np.empty((n, src.shape[1]), dtype=src.dtype)]
                return np.take(src, users, axis=0, out=buf[0][:n])
            return block
        return lambda users: backend.from_numpy(src[users])

    def score_pairs(self, users, items, line0=0):
        return self._host_scores()[users[:, None], items]


class FactorScorer(ScoreSource):
    """Scores ``user_factors @ item_factors.T``: whole rows one block of users at a time, or given
    pairs as one batched matrix-vector product per block of lines.

    The factors are numpy arrays (or anything ``np.asarray`` takes) or torch tensors, kept where they are: on a
    GPU, the torch backend and the fused kernels copy them on the device instead of from the host, and they
    are checked finite there. The numpy backend and pair scores read a CPU copy."""

    _covers = "factors cover"
    _pair_factors: tuple[np.ndarray, np.ndarray] | None  # the factors in their pair-scoring dtype, made once

    def __init__(self, user_factors, item_factors):
        u, v = _factor_values(user_factors), _factor_values(item_factors)
        if u.ndim != 2 or v.ndim != 2 or u.shape[1] != v.shape[1]:
            raise DataError(f"factors must be 2-D with the same number of columns, got user factors "
                            f"{tuple(u.shape)} and item factors {tuple(v.shape)}")
        for name, a in (("user_factors", u), ("item_factors", v)):
            if not _all_finite(a):
                raise DataError(f"{name} contain NaN or inf")
        self.user_factors, self.item_factors = u, v
        self.n_users, self.n_items = int(u.shape[0]), int(v.shape[0])
        self.width = max(1, int(u.shape[1]))
        self._pair_factors = None

    def bind(self, backend):
        # the product is taken in the scoring dtype by the backend's own matrix multiply
        if backend.name == "numpy":
            u = backend.from_numpy(_host(self.user_factors))
            v = backend.from_numpy(_host(self.item_factors))
            vt = v.T
            buf = []

            def block(users):
                # The product goes into one buffer reused by every block: a fresh users x items
                # array per block page-faults its whole size in first (about a fifth of the
                # product's own time on this machine). Callers finish with a block before asking
                # for the next one (ranks and top-K both do).
                n = users.size
                if not buf or buf[0].shape[0] < n:
                    buf[:] = [np.empty((n, vt.shape[1]), dtype=u.dtype)]
                return np.matmul(u[users], vt, out=buf[0][:n])
            return block
        u = backend.from_numpy(self.user_factors)
        v = backend.from_numpy(self.item_factors)
        return lambda users: u[backend._idx(users)] @ v.T

    def score_pairs(self, users, items, line0=0):
        if self._pair_factors is None:  # pairs are scored in the factors' dtype (integers: float64)
            uf, vf = _host(self.user_factors), _host(self.item_factors)
            dtype = np.result_type(uf, vf)
            if not np.issubdtype(dtype, np.floating):
                dtype = np.dtype(np.float64)
            self._pair_factors = (uf.astype(dtype, copy=False), vf.astype(dtype, copy=False))
        u, v = self._pair_factors
        # a batched matrix-vector product: every score of a line comes out of one product
        # np.take gathers rows about 3x faster than fancy indexing (measured, 100 x 32 float32 per line)
        return np.matmul(np.take(v, items, axis=0), np.take(u, users, axis=0)[:, :, None])[:, :, 0]


def _is_tensor(a) -> bool:
    """A torch tensor, told without importing torch (a numpy-only caller never pays for it)."""
    return type(a).__module__.split(".")[0] == "torch" and hasattr(a, "detach")


def _factor_values(a):
    """Factors as given: a torch tensor (detached, where it is), else a numpy array."""
    return a.detach() if _is_tensor(a) else np.asarray(a)


def _all_finite(a) -> bool:
    if _is_tensor(a):
        import torch

        return bool(torch.isfinite(a).all())  # (on the tensor's device)
    return bool(np.isfinite(a).all())


def _host(a) -> np.ndarray:
    """A numpy view or copy of factors held as an array or a tensor (bfloat16 and float16 widened to float32)."""
    if not _is_tensor(a):
        return a
    if a.dtype.is_floating_point and a.element_size() < 4:
        a = a.float()
    return a.cpu().numpy()


class _CallableSource(ScoreSource):
    """Whole rows from ``_rows(users)`` (checked, converted, finite) for both callable contracts."""

    what = "score_fn"

    def _rows(self, users: np.ndarray):
        raise NotImplementedError

    def bind(self, backend):
        def block(users):
            s = backend.from_numpy(self._rows(users))
            if not backend.all_finite(s):
                at, v = _first_not_finite(backend.to_numpy(s))
                if np.isnan(v):
                    raise DataError(_nan_message(self.what, users[at[0]], at[1]))
                raise DataError(f"{self.what} returned {v} for user {users[at[0]]}, item {at[1]}: {ROWS_NEED_FINITE}")
            return s
        return block

    def _pairs_checked(self, out: np.ndarray, users, items, line0):
        if np.isnan(out).any():
            r, c = np.argwhere(np.isnan(out))[0]
            raise DataError(_nan_message(self.what, users[r], items[r, c], line0 + r + 1))
        return out


class CallableScorer(_CallableSource):
    """Scores from ``fn(user_indices) -> (len(user_indices), n_items)`` array (numpy or torch).

    Serves whole rows as ``fn`` returns them and given pairs by gathering them from ``fn``'s rows
    (a full row per test line: use a :class:`PairCallableScorer` when scoring only the listed
    items is cheaper).
    """

    _covers = "score_fn covers"

    def __init__(self, fn: Callable, n_users: int, n_items: int):
        _check_callable(fn, "score_fn")
        self.fn = fn
        self.n_users, self.n_items = _check_sizes(n_users, n_items)

    def _rows(self, users):
        return _returned(self.fn(users.copy()), (users.size, self.n_items), self.what, f"{users.size} users")

    def values_per_line(self, n_candidates):
        return max(n_candidates, int(self.n_items or 1))

    def score_pairs(self, users, items, line0=0):
        rows = _as_numpy(self._rows(users))
        return self._pairs_checked(rows[np.arange(users.size)[:, None], items], users, items, line0)


class PairCallableScorer(_CallableSource):
    """Scores from ``score(users[b], items[b, c]) -> (b, c)`` array: the score of each listed pair.

    ``sampled_ranks`` passes each block of test lines with the held-out item in column 0. Serves
    whole rows too (each user with every item) when built with ``n_users`` and ``n_items``.
    """

    what = "score(users, items)"
    _covers = "score(users, items) covers"

    def __init__(self, fn: Callable, n_users: int | None = None, n_items: int | None = None):
        _check_callable(fn, "score")
        self.fn = fn
        if (n_users is None) != (n_items is None):
            raise InvalidParameterError("give both n_users and n_items (to score whole rows) or neither")
        if n_users is not None:
            self.n_users, self.n_items = _check_sizes(n_users, n_items)
        self.serves_rows = n_users is not None

    def _rows(self, users):
        if self.n_items is None:
            raise InvalidParameterError(CALLABLE_ROWS_MESSAGE)
        items = np.tile(np.arange(self.n_items, dtype=np.int64), (users.size, 1))
        return _returned(self.fn(users.copy(), items), items.shape, self.what, f"items of shape {items.shape}")

    def score_pairs(self, users, items, line0=0):
        out = _as_numpy(_returned(self.fn(users.copy(), items.copy()), items.shape, self.what,
                                  f"items of shape {items.shape}"))
        return self._pairs_checked(out, users, items, line0)
