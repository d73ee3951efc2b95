"""Where rankwise keeps what it downloads or records once for later runs: ``$RANKWISE_CACHE``, else
``~/.cache/rankwise``. The MovieLens downloads (``experiments/datasets.py``) and the Spark class archive
(``spark/class_archive.py``) keep theirs in it; a named collection's judgments go to ``$RANKWISE_CACHE`` too, and
without it next to ir_datasets' own files (``io/named_collections.py``).

Low in the layers on purpose (as ``run_names``): spark/ may not import experiments/, and both need the rule.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Mapping

CACHE_ENV = "RANKWISE_CACHE"


def cache_home(environ: Mapping[str, str] | None = None) -> Path:
    """``$RANKWISE_CACHE`` (of ``environ``; None: the process's), else ``~/.cache/rankwise``."""
    env = os.environ if environ is None else environ
    return Path(env.get(CACHE_ENV) or Path.home() / ".cache" / "rankwise")
