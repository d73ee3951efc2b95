"""Where the tests find the public data sets that are not in the repository (MovieLens, the NCF split).

``RANKWISE_TEST_DATA`` names a folder holding ``ml-latest-small/``, ``ml-100k/`` and ``ncf-ml-1m/``
(``.ci/run`` sets it to ``../shared/data``, beside the repository). The tests that read them are
skipped, saying so, when the variable is unset or its folder is absent; when the folder is there, a
data set missing from it fails the test instead of skipping it silently.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

ENV = "RANKWISE_TEST_DATA"


def data_path(*parts: str) -> Path:
    """``$RANKWISE_TEST_DATA/<parts>``; skips the calling test when the variable or its folder is missing."""
    root = os.environ.get(ENV, "")
    if not root:
        pytest.skip(f"{ENV} is not set: point it at a folder holding ml-latest-small/, ml-100k/ and ncf-ml-1m/ "
                    "(not committed; .ci/run uses ../shared/data)")
    if not Path(root).is_dir():
        pytest.skip(f"{ENV}={root} is not a folder")
    path = Path(root).joinpath(*parts)
    # a file, a folder, or the prefix of a set of files (the NCF split: ml-1m.test.rating, ml-1m.test.negative)
    if not (path.exists() or path.parent.is_dir() and any(path.parent.glob(path.name + ".*"))):
        pytest.fail(f"{path} is missing from {ENV}={root}")
    return path
