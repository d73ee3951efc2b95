"""Qrels by name: an ir_datasets id where a qrels file goes (``msmarco-passage/trec-dl-2019/judged``).

Every reader of qrels passes through ``io.tabular.read_qrels_file`` (``rankwise.read_qrels``, ``as_qrels``, so
``rankwise.evaluate``, ``rankwise.compare`` and the CLI's ``evaluate``, ``compare``, ``explain --across``): there a
string that is not an existing path is handed to :func:`read_named_qrels`. ir_datasets is an optional extra
(``pip install 'rankwise[datasets]'``), imported only here, only then.

The judgments are read once through ir_datasets (its ``qrels_iter``: every collection's own format) and kept as a
Parquet file keyed by the dataset id and the ir_datasets version (:func:`cache_path`), so that the next evaluation
reads columns, as it would a local Parquet file. A download ir_datasets would start for judgments it does not
hold is announced first when it is large (:data:`ANNOUNCE_BYTES`).

The collections document their official measures in ir_measures' syntax; ``io.official_measures`` translates
them into rankwise's metrics.
"""
from __future__ import annotations

import difflib
import os
import re
import warnings
from typing import Any
from urllib.parse import quote

import numpy as np

from rankwise.cache_home import CACHE_ENV
from rankwise.data.collections import COLUMNS, Qrels
from rankwise.data.duplicates import grade_doubt
from rankwise.errors import ParseError, RankwiseWarning, user_stacklevel

INSTALL_HINT = "pip install 'rankwise[datasets]'"
# a download of the judgments above this size is announced before it starts (TREC DL's qrels are 0.2 MB; MS
# MARCO's dev qrels come inside the 1 GB collection archive)
ANNOUNCE_BYTES = 20 << 20
CACHE_LAYOUT = 1  # bump when the cached file's columns change: old files are then simply not found
# where the judgments of a collection come from, as Results.info["columns"] names a file's columns: the fields
# of ir_datasets' qrels tuples (TrecQrel and its kin)
NAMED_COLUMNS = {"query": "query_id", "doc": "doc_id", "relevance": "relevance"}
SOURCE_PREFIX = "ir_datasets:"


def is_collection_name(x: Any) -> bool:
    """Whether ``x`` is to be read as an ir_datasets id: a string that names no existing path (a Path object
    always means a file)."""
    return isinstance(x, str) and bool(x.strip()) and not os.path.exists(x)


def _ir_datasets(name: str) -> Any:
    try:
        import ir_datasets
    except ImportError:
        raise ParseError(
            "no such file, and it cannot be looked up as an ir_datasets collection id: ir_datasets is not "
            "installed", path=name,
            expected=f"the path of a qrels file, or an ir_datasets id with ir_datasets installed ({INSTALL_HINT})"
        ) from None
    return ir_datasets


def load_dataset(name: str) -> Any:
    """The ir_datasets dataset ``name`` (nothing downloaded yet), or a ParseError naming both checks made: no
    file of that path, no collection of that id (with the ids closest to it)."""
    ir_datasets = _ir_datasets(name)
    if name not in ir_datasets.registry:
        ids = list(getattr(ir_datasets.registry, "_registered", {}))
        close = difflib.get_close_matches(name, ids, n=3, cutoff=0.6)
        hint = f" (closest ids: {', '.join(close)})" if close else ""
        raise ParseError(
            f"no such file, and no ir_datasets collection has this id{hint}", path=name,
            expected="the path of a qrels file, or an ir_datasets id such as msmarco-passage/trec-dl-2019/judged "
                     "(https://ir-datasets.com lists them)")
    dataset = ir_datasets.load(name)
    if not dataset.has_qrels():
        raise ParseError("this ir_datasets collection has no relevance judgments (qrels)", path=name,
                         expected="a collection with judgments, e.g. one of its test or dev subsets "
                                  f"({name}/test, {name}/dev...), or the path of a qrels file")
    return dataset


def cache_dir() -> str:
    """Where parsed judgments are kept: $RANKWISE_CACHE, else ``rankwise/`` in ir_datasets' home
    ($IR_DATASETS_HOME, default ~/.ir_datasets), next to the files they were parsed from."""
    env = os.environ.get(CACHE_ENV)
    if env:
        return os.path.join(env, "qrels")
    home = os.environ.get("IR_DATASETS_HOME") or os.path.join(os.path.expanduser("~"), ".ir_datasets")
    return os.path.join(home, "rankwise", "qrels")


def cache_path(name: str, version: str) -> str:
    """The Parquet file of ``name``'s judgments as ir_datasets ``version`` gives them (a new ir_datasets may fix
    a collection's judgments: its version is in the key)."""
    return os.path.join(cache_dir(), f"{quote(name, safe='')}@ir_datasets-{version}@{CACHE_LAYOUT}.parquet")


def read_named_qrels(name: str, *, duplicates: str = "error") -> Qrels:
    """The judgments of the ir_datasets collection ``name``, from the cache when they were read before."""
    dataset = load_dataset(name)
    import ir_datasets

    path = cache_path(name, ir_datasets.__version__)
    columns = _read_cache(path)
    if columns is None:
        announce_download(name, dataset)
        columns = _parse(name, dataset)
        _write_cache(path, columns)
    q, d, v = columns
    qrels = Qrels.from_arrays(q, d, v, duplicates=duplicates, source=SOURCE_PREFIX + name, query_id_type="str",
                              extra={COLUMNS: NAMED_COLUMNS})
    doubt = grade_doubt(qrels.values)  # (as io.trec.read_qrels says it of a file)
    if doubt is not None:
        warnings.warn(f"{name}: {doubt}", RankwiseWarning, stacklevel=user_stacklevel())
    return qrels


# (query ids, doc ids as pyarrow string arrays, which Qrels.from_arrays takes as they are; grades as float64)
Columns = tuple[Any, Any, np.ndarray]


def _parse(name: str, dataset: Any) -> Columns:
    """The judgments through ir_datasets' own reader of the collection's format (once per collection and
    version: the cache keeps the columns)."""
    import pyarrow as pa

    try:
        rows = [(r.query_id, r.doc_id, r.relevance) for r in dataset.qrels_iter()]
    except Exception as exc:  # (a download or a file of ir_datasets' home that fails: said as what it is)
        raise ParseError(f"ir_datasets could not give the judgments of this collection: {type(exc).__name__}: "
                         f"{str(exc)[:300]}", path=name,
                         expected="a collection ir_datasets can download or finds in its home "
                                  "($IR_DATASETS_HOME); or give the path of a qrels file you have instead") from exc
    if not rows:
        raise ParseError("ir_datasets gives no judgments for this collection", path=name,
                         expected="a collection with at least one judgment")
    q, d, v = zip(*rows)
    return pa.array(q, pa.string()), pa.array(d, pa.string()), np.asarray(v, dtype=np.float64)


def _read_cache(path: str) -> Columns | None:
    if not os.path.isfile(path):
        return None
    import pyarrow.parquet as pq

    table = pq.read_table(path).combine_chunks()
    return (table.column("query").chunk(0), table.column("doc").chunk(0),
            table.column("relevance").to_numpy().astype(np.float64, copy=False))


def _write_cache(path: str, columns: Columns) -> None:
    """Keep the columns for the next evaluation; a cache that cannot be written is said, and the evaluation
    goes on (the judgments are in memory)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    q, d, v = columns
    table = pa.table({"query": q, "doc": d, "relevance": pa.array(v, pa.float64())})
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        pq.write_table(table, tmp)
        os.replace(tmp, path)  # (atomic: a concurrent reader sees the whole file or none)
    except OSError as exc:
        warnings.warn(f"the judgments could not be cached in {path} ({exc}); they are read again through "
                      f"ir_datasets next time (set {CACHE_ENV} to a writable directory)", RankwiseWarning,
                      stacklevel=user_stacklevel())


def announce_download(name: str, dataset: Any) -> None:
    """A warning before ir_datasets downloads more than :data:`ANNOUNCE_BYTES` to give the judgments, with the
    alternative of a local file."""
    size = download_size(dataset.qrels_handler())
    if size is None or size < ANNOUNCE_BYTES:
        return
    warnings.warn(
        f"{name}: ir_datasets downloads about {_megabytes(size)} to give the judgments (they come in a larger "
        f"archive); this may take a while. A qrels file you already have is read at once instead: give its path "
        f"where {name} is (rankwise evaluate QRELS_FILE RUN, or --qrels FILE where an option names the qrels)",
        RankwiseWarning, stacklevel=user_stacklevel())


def _megabytes(size: int) -> str:
    return f"{size / (1 << 30):.1f} GB" if size >= 1 << 30 else f"{size / (1 << 20):.0f} MB"


_PATH_ATTRS = ("_path", "_cache_path")


def download_size(obj: Any, depth: int = 0) -> int | None:
    """The bytes ir_datasets would download to give ``obj`` (a qrels handler or one of its download steps): 0
    when a step's file is already in its home, the size hints of the downloads below a missing one otherwise,
    None when nothing says (this reads ir_datasets' internals, ir_datasets 0.6: the announcement is advice,
    and an object it does not know gives None, never an error)."""
    if depth > 8 or obj is None or isinstance(obj, (str, bytes, int, float, dict)):
        return None
    if isinstance(obj, (list, tuple)):
        sizes = [download_size(o, depth + 1) for o in obj]
        return None if all(s is None for s in sizes) else sum(s or 0 for s in sizes)
    if not type(obj).__module__.startswith("ir_datasets"):
        return None
    for attr in _PATH_ATTRS:
        path = getattr(obj, attr, None)
        if path is not None and os.path.exists(os.fspath(path)):
            return 0
    hint = getattr(obj, "_size_hint", None)
    if isinstance(hint, int) and hint > 0:
        return hint
    sizes = [download_size(v, depth + 1) for k, v in vars(obj).items() if k not in _PATH_ATTRS]
    return None if all(s is None for s in sizes) else sum(s or 0 for s in sizes)


def collection_of(qrels: Any) -> str | None:
    """The ir_datasets id a Qrels was read from (its source), or None."""
    source = getattr(qrels, "source", None)
    if isinstance(source, str) and source.startswith(SOURCE_PREFIX):
        return source[len(SOURCE_PREFIX):]
    return None


def grade_names(name: str) -> dict[int, str]:
    """{grade: its label} as the collection documents its grades (ir_datasets' qrels_defs), each label cut to
    its name ("Related" of "Related: The passage seems related to the query...") or to its first words; {} when
    none."""
    defs = load_dataset(name).qrels_defs() or {}
    out = {}
    for grade, text in defs.items():
        out[int(grade)] = _label(str(text))
    return dict(sorted(out.items()))


def _label(text: str, width: int = 40) -> str:
    text = " ".join(text.split())
    head = text.split(":", 1)[0]
    if len(head) <= width and head != text:
        return head
    first = re.split(r"(?<=[.;])\s", text, maxsplit=1)[0].rstrip(".;")
    return first if len(first) <= width else first[:width].rsplit(" ", 1)[0] + "..."

