"""MovieLens loaders (100K, 1M, 20M, latest-small), the NCF split files, binarisation and the
leave-last-out split of Krichene & Rendle (KDD 2020) §6 ("holdout last event").

Data come either from a local folder (``path=``, the extracted archive) or are downloaded once
from the official GroupLens URL into a cache directory ($RANKWISE_CACHE, else ~/.cache/rankwise)
and verified against a pinned checksum before use. GroupLens publishes MD5 digests (e.g.
``ml-20m.zip.md5``), so MD5 is what is pinned; the digests below are the published / widely
reproduced values. ``ml-latest-small`` has none pinned: GroupLens regenerates the "latest"
archives in place, so any digest would go stale; it is downloaded unverified (its size and row
count are still checked against what the README promises only by the user).

Pinned choices (documented because they move the numbers more than the gaps between models):

- binarisation: ``threshold=None`` keeps every rating as an interaction; a number keeps the
  ratings >= threshold.
- leave-last-out: per user, the held-out event is the one with the latest timestamp; among
  events sharing that latest timestamp, the one with the **largest raw item id** is held out.
  Users with a single event keep it in training and have no held-out item.
- ids: users and items are coded 0..n-1 in ascending order of their raw ids; the catalogue is
  every item with at least one (binarised) event, in training or held out.
- a (user, item) pair occurring twice is an error (MovieLens has none), not silently merged.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from rankwise.cache_home import cache_home
from rankwise.errors import DataError, InvalidParameterError

# the NCF files are an input format: read by rankwise.io.ncf, named here too for existing imports
from rankwise.io.ncf import NcfSplit, load_ncf  # noqa: F401
from rankwise.io.ncf import malformed_line as _parse_error

GROUPLENS = "https://files.grouplens.org/datasets/movielens/"


@dataclass(frozen=True)
class _Source:
    archive: str
    md5: str | None
    ratings_file: str
    fmt: str  # "tab" (u.data), "colons" (ratings.dat), "csv" (ratings.csv with header)


DATASETS = {
    "ml-100k": _Source("ml-100k.zip", "0e33842e24a9c977be4e0107933c0723", "u.data", "tab"),
    "ml-1m": _Source("ml-1m.zip", "c4d9eecfca2ab87c1945afe126590906", "ratings.dat", "colons"),
    "ml-20m": _Source("ml-20m.zip", "cd245b17a1ae2cc31bb14903e1204af3", "ratings.csv", "csv"),
    # regenerated in place by GroupLens from time to time: no stable digest to pin
    "ml-latest-small": _Source("ml-latest-small.zip", None, "ratings.csv", "csv"),
}


@dataclass(frozen=True)
class Interactions:
    """Raw events, one per row: raw user id, raw item id, rating, timestamp."""

    users: np.ndarray
    items: np.ndarray
    ratings: np.ndarray
    timestamps: np.ndarray


@dataclass(frozen=True)
class Split:
    """A leave-last-out split in coded ids; ``train`` is a (n_users, n_items) 0/1 CSR matrix."""

    train: sp.csr_matrix
    heldout_users: np.ndarray  # int64 codes, one per held-out event
    heldout_items: np.ndarray
    user_ids: np.ndarray  # raw id of each user code
    item_ids: np.ndarray  # raw id of each item code

    @property
    def heldout(self):
        """``(users, items)``: the held-out set as the catalogue functions take it."""
        return self.heldout_users, self.heldout_items

    @property
    def n_users(self) -> int:
        return self.train.shape[0]

    @property
    def n_items(self) -> int:
        return self.train.shape[1]


def cache_dir() -> Path:
    return cache_home()


def md5sum(path) -> str:
    h = hashlib.md5()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def download(url: str, dest: Path, md5: str | None) -> Path:
    """Download ``url`` to ``dest`` atomically; refuse a file whose MD5 differs from ``md5``."""
    dest = Path(dest)
    if dest.exists() and (md5 is None or md5sum(dest) == md5):
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, suffix=".part")
    os.close(fd)
    try:
        with urllib.request.urlopen(url) as resp, open(tmp, "wb") as out:
            shutil.copyfileobj(resp, out)
        if md5 is not None:
            got = md5sum(tmp)
            if got != md5:
                raise DataError(f"checksum mismatch for {url}: MD5 {got}, expected {md5}; the download is "
                                f"corrupt or the archive changed upstream (delete {dest} and retry, or pass path=)")
        os.replace(tmp, dest)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
    return dest


def fetch(name: str, *, cache: str | os.PathLike | None = None, url: str | None = None) -> Path:
    """Folder of the extracted archive ``name``, downloading and verifying it on first use."""
    src = _source(name)
    root = Path(cache) if cache is not None else cache_dir()
    folder = root / name
    if (folder / src.ratings_file).exists():
        return folder
    archive = download(url or GROUPLENS + src.archive, root / src.archive, src.md5)
    with zipfile.ZipFile(archive) as z:
        z.extractall(root)
    if not (folder / src.ratings_file).exists():
        raise DataError(f"{archive} did not contain {name}/{src.ratings_file}")
    return folder


def _source(name: str) -> _Source:
    if name not in DATASETS:
        raise InvalidParameterError(f"unknown data set {name!r}; known: {sorted(DATASETS)}")
    return DATASETS[name]


def read_ratings(name: str, *, path: str | os.PathLike | None = None, cache=None) -> Interactions:
    """All rating events of a MovieLens data set, from ``path`` (extracted folder) or the cache."""
    src = _source(name)
    folder = Path(path) if path is not None else fetch(name, cache=cache)
    file = folder / src.ratings_file
    if not file.exists():
        raise DataError(f"{file} does not exist; path= must be the extracted {name} folder")
    text = file.read_text(encoding="latin-1")
    sep, skip = {"tab": ("\t", 0), "colons": ("::", 0), "csv": (",", 1)}[src.fmt]
    body = text.replace("::", "\t") if src.fmt == "colons" else text
    delim = "\t" if src.fmt in ("tab", "colons") else ","
    try:
        arr = np.loadtxt(body.splitlines()[skip:], delimiter=delim, dtype=np.float64, ndmin=2)
        if arr.size and arr.shape[1] != 4:
            raise ValueError
    except ValueError:
        _parse_error(file, text.splitlines(), 4, sep, skip)
    if arr.size == 0:
        arr = np.zeros((0, 4))
    return Interactions(arr[:, 0].astype(np.int64), arr[:, 1].astype(np.int64), arr[:, 2],
                        arr[:, 3].astype(np.int64))


def binarize(events: Interactions, threshold: float | None) -> Interactions:
    """Keep every event (``threshold=None``) or those with rating >= threshold."""
    if threshold is None:
        return events
    keep = events.ratings >= threshold
    return Interactions(events.users[keep], events.items[keep], events.ratings[keep], events.timestamps[keep])


def leave_last_out(events: Interactions) -> Split:
    """Hold out each user's last event (ties on the timestamp: the largest raw item id)."""
    user_ids, u = np.unique(events.users, return_inverse=True)
    item_ids, i = np.unique(events.items, return_inverse=True)
    n_users, n_items = user_ids.size, item_ids.size
    key = u.astype(np.int64) * max(n_items, 1) + i
    uniq, counts = np.unique(key, return_counts=True)
    if np.any(counts > 1):
        k = uniq[counts > 1][0]
        raise DataError(f"{int(np.sum(counts > 1))} (user, item) pairs occur more than once, e.g. user "
                        f"{user_ids[k // n_items]}, item {item_ids[k % n_items]}; deduplicate before splitting")
    # last in (user, timestamp, raw item id) order = the held-out event of that user
    order = np.lexsort((events.items, events.timestamps, u))
    last = np.ones(order.size, dtype=bool)
    last[:-1] = u[order][1:] != u[order][:-1]
    per_user = np.bincount(u, minlength=n_users)
    held = order[last & (per_user[u[order]] >= 2)]
    in_train = np.ones(u.size, dtype=bool)
    in_train[held] = False
    train = sp.csr_matrix((np.ones(int(in_train.sum()), dtype=np.float32), (u[in_train], i[in_train])),
                          shape=(n_users, n_items))
    hu, hi = u[held].astype(np.int64), i[held].astype(np.int64)
    o = np.argsort(hu, kind="stable")
    return Split(train, hu[o], hi[o], user_ids, item_ids)


def load_movielens(name: str, *, path=None, threshold: float | None = None, cache=None) -> Split:
    """Binarised leave-last-out split of a MovieLens data set (see the module notes for the rules)."""
    return leave_last_out(binarize(read_ratings(name, path=path, cache=cache), threshold))
