"""One rule for rankwise's cache folder: $RANKWISE_CACHE, else ~/.cache/rankwise, read by every cache."""
from pathlib import Path

from rankwise.cache_home import CACHE_ENV, cache_home
from rankwise.experiments.datasets import cache_dir
from rankwise.spark.class_archive import folder


def test_the_cache_folder_is_the_variable_else_the_home_cache(monkeypatch, tmp_path):
    assert cache_home({CACHE_ENV: str(tmp_path)}) == tmp_path
    assert cache_home({}) == Path.home() / ".cache" / "rankwise"
    assert cache_home({CACHE_ENV: ""}) == Path.home() / ".cache" / "rankwise"  # (set but empty: not a folder)
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    assert cache_home() == tmp_path == cache_dir()
    assert folder({CACHE_ENV: str(tmp_path)}) == tmp_path / "spark-classes"
    monkeypatch.delenv(CACHE_ENV)
    assert cache_dir() == Path.home() / ".cache" / "rankwise" == folder({}).parent
