import hashlib
import zipfile
from pathlib import Path

import pytest

from rankwise.errors import DataError, ParseError
from rankwise.experiments import datasets as ds
from tests.data_paths import data_path

# (user, item, rating, timestamp); user 1's last timestamp 50 is shared by items 30 and 20
EVENTS = [(1, 10, 5, 10), (1, 30, 4, 50), (1, 20, 3, 50), (2, 10, 2, 5), (2, 20, 5, 7), (3, 40, 4, 1)]


def write(folder: Path, fmt: str):
    folder.mkdir(parents=True, exist_ok=True)
    if fmt == "tab":
        (folder / "u.data").write_text("".join(f"{u}\t{i}\t{r}\t{t}\n" for u, i, r, t in EVENTS))
    elif fmt == "colons":
        (folder / "ratings.dat").write_text("".join(f"{u}::{i}::{r}::{t}\n" for u, i, r, t in EVENTS))
    else:
        (folder / "ratings.csv").write_text("userId,movieId,rating,timestamp\n" +
                                            "".join(f"{u},{i},{r}.0,{t}\n" for u, i, r, t in EVENTS))
    return folder


@pytest.mark.parametrize("name,fmt", [("ml-100k", "tab"), ("ml-1m", "colons"), ("ml-20m", "csv"),
                                      ("ml-latest-small", "csv")])
def test_formats_and_split_rule(tmp_path, name, fmt):
    split = ds.load_movielens(name, path=write(tmp_path / name, fmt))
    assert split.user_ids.tolist() == [1, 2, 3] and split.item_ids.tolist() == [10, 20, 30, 40]
    # user 1: items 30 and 20 share the latest timestamp -> the larger raw id (30) is held out;
    # user 3 has a single event: it stays in training
    held = {(int(split.user_ids[u]), int(split.item_ids[i])) for u, i in zip(*split.heldout)}
    assert held == {(1, 30), (2, 20)}
    dense = split.train.toarray()
    assert dense.tolist() == [[1, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 1]]


def test_binarize_threshold(tmp_path):
    split = ds.load_movielens("ml-100k", path=write(tmp_path / "a", "tab"), threshold=4)
    # kept: (1,10,5), (1,30,4), (2,20,5), (3,40,4)
    assert split.item_ids.tolist() == [10, 20, 30, 40]
    held = {(int(split.user_ids[u]), int(split.item_ids[i])) for u, i in zip(*split.heldout)}
    assert held == {(1, 30)}
    assert split.train.nnz == 3


def test_duplicates_and_bad_lines(tmp_path):
    f = tmp_path / "d"
    f.mkdir()
    (f / "u.data").write_text("1\t2\t3\t4\n1\t2\t5\t6\n")
    with pytest.raises(DataError, match="more than once"):
        ds.load_movielens("ml-100k", path=f)
    (f / "u.data").write_text("1\t2\t3\t4\n1\tx\t5\t6\n")
    with pytest.raises(ParseError, match=r"u.data:2"):
        ds.read_ratings("ml-100k", path=f)


def test_download_verifies_md5(tmp_path, monkeypatch):
    src = write(tmp_path / "src" / "ml-100k", "tab")
    archive = tmp_path / "ml-100k.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.write(src / "u.data", "ml-100k/u.data")
    good = hashlib.md5(archive.read_bytes()).hexdigest()
    monkeypatch.setitem(ds.DATASETS, "ml-100k", ds._Source("ml-100k.zip", "0" * 32, "u.data", "tab"))
    with pytest.raises(DataError, match="checksum"):
        ds.fetch("ml-100k", cache=tmp_path / "c1", url=archive.as_uri())
    assert not (tmp_path / "c1" / "ml-100k.zip").exists()
    monkeypatch.setitem(ds.DATASETS, "ml-100k", ds._Source("ml-100k.zip", good, "u.data", "tab"))
    monkeypatch.setenv("RANKWISE_CACHE", str(tmp_path / "c2"))
    folder = ds.fetch("ml-100k", url=archive.as_uri())
    assert folder == tmp_path / "c2" / "ml-100k"
    assert ds.load_movielens("ml-100k").train.shape == (3, 4)  # now served from the cache


def test_ncf_files(tmp_path):
    p = tmp_path / "toy"
    (tmp_path / "toy.train.rating").write_text("0\t1\t5\t10\n0\t2\t4\t11\n1\t0\t3\t12\n")
    (tmp_path / "toy.test.rating").write_text("0\t3\t5\t20\n1\t4\t1\t21\n")
    (tmp_path / "toy.test.negative").write_text("(0,3)\t5\t6\n(1,4)\t2\t3\n")
    d = ds.load_ncf(p)
    assert (d.n_users, d.n_items) == (2, 7)
    assert d.train.toarray()[0].tolist() == [0, 1, 1, 0, 0, 0, 0]
    assert d.test_items.tolist() == [3, 4] and d.negatives.tolist() == [[5, 6], [2, 3]]
    (tmp_path / "toy.test.negative").write_text("(0,3)\t5\t6\n(1,9)\t2\t3\n")
    with pytest.raises(DataError, match="same"):
        ds.load_ncf(p)


def test_local_copies():
    s = ds.load_movielens("ml-100k", path=data_path("ml-100k"))
    assert s.train.shape == (943, 1682) and s.heldout_users.size == 943 and s.train.nnz == 99057
    s = ds.load_movielens("ml-latest-small", path=data_path("ml-latest-small"))
    assert s.n_users == 610 and s.train.nnz + s.heldout_users.size == 100836
    d = ds.load_ncf(data_path("ncf-ml-1m", "ml-1m"))
    assert d.test_users.size == 6040 and d.negatives.shape == (6040, 99)
