"""Exact full-catalogue ranks of held-out items from Spark DataFrames of user factors (an ALS model's).

Why it is built this way: the rank of a held-out item is a count over the user's whole row of scores
(n_items products), so the work is the users x items matrix product, done block by block, and nothing
about it needs more than one user's rows at a time. The rows of each user (its factors, held-out items
and training items) are tagged, unioned and shuffled by user, so that every user meets all of its rows
in one partition; each partition then runs the local engine, ``rankwise.catalogue.item_ranks`` with a
``FactorScorer``, on all of its users at once (no Python call per user). The item factors (the model's
item table, which fits in memory) travel in the partition function's closure, which Spark ships to each
task (broadcast once per executor when the pickled closure is large). Only the DataFrame API is used
(``mapInArrow``, no RDD and no SparkContext), so it also runs over Spark Connect.

The ranks are therefore exactly the local ones: same masking of training items, same tie policies, same
``other_relevant`` conventions, same comparison dtype. What Spark adds is only the grouping by user and
the mapping of ids to factor rows, which is done by the local ``IdIndex`` too.

Inputs refused, with a ``DataError`` raised on the driver before any rank is computed (``check=True``):
held-out or training items that are not in the item factors, and users with held-out items but no row
of user factors (a cold-start user has no factors to rank with; ALS leaves such users out of
``userFactors``). Both are refused, never dropped, as ``evaluate_catalogue`` refuses ids without scores:
filter them explicitly (a ``left_semi`` join, see the messages) to rank the others. The partitions check
the same again (and duplicates, training items that are also held out, NaN factors) and raise the local
``DataError`` when the result is computed, so ``check=False`` only saves the two driver-side passes.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Iterator

import numpy as np

from rankwise.catalogue.backends import check_dtype
from rankwise.catalogue.ranks import item_ranks
from rankwise.catalogue.scorers import FactorScorer
from rankwise.catalogue.ties import resolve_ties
from rankwise.catalogue.workflow import IdIndex
from rankwise.conventions.convention import Convention
from rankwise.conventions.presets import DEFAULT, get_convention
from rankwise.errors import DataError, InvalidParameterError, require
from rankwise.spark.workers import check_workers

SIDE_FACTORS, SIDE_HELDOUT, SIDE_TRAIN = 0, 1, 2
OUTPUT = ("user", "item", "rank", "n_candidates")
_INTEGRAL = ("tinyint", "smallint", "int", "bigint")


@dataclass(frozen=True)
class RankTask:
    """What every partition needs, pickled into the partition function's closure."""

    items: IdIndex  # raw item id -> row of item_factors (the local workflow's id mapping)
    item_factors: np.ndarray  # (n_items, rank), already in the comparison dtype
    ties: str
    other_relevant: str
    convention: Convention
    dtype: str
    block_size: int | None
    seed: int | None
    backend: str
    user_type: str  # Spark SQL type of the output's user column: "bigint" or "string"
    item_type: str


def schema_ddl(task: RankTask) -> str:
    types = (task.user_type, task.item_type, "double", "bigint")
    return ", ".join(f"`{name}` {kind}" for name, kind in zip(OUTPUT, types))


def rank_partition(task: RankTask, batches: Iterable[Any]) -> Iterator[Any]:
    """mapInArrow's function: the tagged rows of some users -> one output row per held-out item."""
    import pyarrow as pa

    batches = [b for b in batches if b.num_rows]
    if batches:
        yield from partition_ranks(task, pa.Table.from_batches(batches))


def _sorted_users(column: Any) -> tuple[np.ndarray, Any]:
    """(user index of each row, the user ids by index): indices follow the sorted ids, so the order in
    which the shuffle delivered the rows changes nothing (not even a random tie-break)."""
    import pyarrow.compute as pc

    if column.null_count:
        raise DataError("a user id is missing (null) in user_factors, heldout or train")
    enc = pc.dictionary_encode(column)
    order = pc.sort_indices(enc.dictionary).to_numpy()
    new_index = np.empty(order.size, dtype=np.int64)
    new_index[order] = np.arange(order.size)
    return new_index[enc.indices.to_numpy()], enc.dictionary.take(order)


def _factor_rows(column: Any, width: int, users: Any) -> np.ndarray:
    """(n, width) matrix of a list<float|double> column; every user needs ``width`` factors."""
    import pyarrow.compute as pc

    lengths = pc.list_value_length(column).to_numpy(zero_copy_only=False)
    bad = np.flatnonzero(np.isnan(lengths.astype(np.float64)) | (lengths != width))
    if bad.size:
        got = "no factors (null)" if column[int(bad[0])].as_py() is None else f"{int(lengths[bad[0]])} factors"
        raise DataError(f"user {users[int(bad[0])]} has {got} but the item factors have {width} columns")
    values = column.flatten().to_numpy(zero_copy_only=False)
    return np.asarray(values, dtype=np.float64 if values.dtype == object else values.dtype).reshape(-1, width)


def partition_ranks(task: RankTask, table: Any) -> list[Any]:
    """The output batches of one partition: its users' ranks, computed by the local ``item_ranks``."""
    import pyarrow as pa

    side = table.column("s").to_numpy()
    uidx, names = _sorted_users(table.column("u").combine_chunks())
    width = task.item_factors.shape[1]

    frows = np.flatnonzero(side == SIDE_FACTORS)
    fu = uidx[frows]
    if np.unique(fu).size != fu.size:
        dup = np.sort(fu)[1:][np.sort(fu)[1:] == np.sort(fu)[:-1]][0]
        raise DataError(f"user_factors has more than one row for user {names[int(dup)]}")
    factors = _factor_rows(table.column("f").take(pa.array(frows)).combine_chunks(), width,
                           names.take(pa.array(fu)))
    user_factors = np.zeros((len(names), width), dtype=factors.dtype)
    user_factors[fu] = factors
    has_factors = np.zeros(len(names), dtype=bool)
    has_factors[fu] = True

    hrows = np.flatnonzero(side == SIDE_HELDOUT)
    if not hrows.size:
        return []
    hu = uidx[hrows]
    missing = np.unique(hu[~has_factors[hu]])
    if missing.size:
        raise DataError(_no_factors_message([names[int(i)].as_py() for i in missing], missing.size))
    held_items = table.column("i").take(pa.array(hrows)).combine_chunks()
    hi = task.items.lookup(held_items, "heldout")
    trows = np.flatnonzero(side == SIDE_TRAIN)
    ti = task.items.lookup(table.column("i").take(pa.array(trows)).combine_chunks(), "train")

    # (under ties='random' each user's draw hashes its id: the same ranks as locally, whatever the partitions)
    ranked = item_ranks(FactorScorer(user_factors, task.item_factors), (uidx[trows], ti), (hu, hi),
                        ties=task.ties, other_relevant=task.other_relevant,  # type: ignore[arg-type]
                        backend=task.backend, dtype=task.dtype, block_size=task.block_size, seed=task.seed,
                        convention=task.convention, user_ids=names.to_numpy(zero_copy_only=False),
                        item_ids=task.items.ids)
    # item_ranks answers in CSR order (user, then item row); the raw ids come back in that order
    order = np.lexsort((hi, hu))
    return [pa.RecordBatch.from_arrays(
        [names.take(pa.array(ranked.users)), held_items.take(pa.array(order)),
         pa.array(ranked.ranks, type=pa.float64()), pa.array(ranked.n_candidates, type=pa.int64())],
        names=list(OUTPUT))]


def _no_factors_message(users: list[Any], n: int) -> str:
    shown = ", ".join(map(str, users[:5])) + (f" ... ({n} in all)" if n > 5 else "")
    return (f"{n} user(s) have held-out items but no row in user_factors: {shown}. A user without factors "
            "cannot be ranked (ALS leaves users it never trained on out of userFactors); to rank the others, "
            "keep the users that have factors: heldout.join(user_factors.select(F.col(id_col).alias(user_col)), "
            "user_col, 'left_semi')")


def _type(df: Any, column: str, what: str) -> str:
    if column not in df.columns:
        raise InvalidParameterError(f"{what} has no column {column!r} (columns: {', '.join(df.columns)}); name "
                                    "its columns with user_col=, item_col=, id_col=, factors_col=")
    return str(df.schema[column].dataType.simpleString())


def _id_type(types: Iterable[str], what: str) -> str:
    """The Spark type ids of several frames meet as: bigint when all are integers, else string."""
    types = list(types)
    for t in types:
        if t not in _INTEGRAL and t != "string":
            raise InvalidParameterError(f"{what} ids must be integers or strings, got {t} (cast the column)")
    return "bigint" if all(t in _INTEGRAL for t in types) else "string"


def _item_table(item_factors: Any, item_ids: Any, id_col: str, factors_col: str) -> tuple[Any, np.ndarray]:
    """(item ids, (n_items, rank) factors) from a Spark DataFrame (collected), an array or an (ids, array)
    pair; ids default to the row indices."""
    if hasattr(item_factors, "toArrow") and hasattr(item_factors, "schema"):
        if item_ids is not None:
            raise InvalidParameterError("item_ids= is for a factor array; a DataFrame names its ids (id_col=)")
        _type(item_factors, id_col, "item_factors")
        _type(item_factors, factors_col, "item_factors")
        table = item_factors.select(id_col, factors_col).toArrow()
        col = table.column(factors_col).combine_chunks()
        width = int(col.value_lengths().to_numpy(zero_copy_only=False).max()) if len(col) else 0
        factors = _factor_rows(col, width, table.column(id_col).combine_chunks())
        return table.column(id_col).combine_chunks(), factors
    if isinstance(item_factors, tuple) and len(item_factors) == 2 and item_ids is None:
        item_ids, item_factors = item_factors
    factors = np.asarray(item_factors)
    if factors.ndim != 2:
        raise DataError(f"item_factors must be a 2-D (n_items, rank) array, got shape {factors.shape}")
    return (np.arange(factors.shape[0]) if item_ids is None else item_ids), factors


def catalogue_ranks(user_factors: Any, item_factors: Any, heldout: Any, train: Any = None, *,
                    ties: str | None = None, other_relevant: str | None = None, seed: int | None = None,
                    dtype: Any = "float32", convention: str | Convention = DEFAULT, user_col: str = "user",
                    item_col: str = "item", id_col: str = "id", factors_col: str = "features",
                    item_ids: Any = None, block_size: int | None = None, num_partitions: int | None = None,
                    backend: str = "numpy", check: bool = True) -> Any:
    """Exact rank of every held-out (user, item) among all items but the user's training items, on Spark.

    ``user_factors``: a DataFrame of (``id_col``, ``factors_col``: array<float|double>), e.g.
    ``ALSModel.userFactors``. ``item_factors``: a DataFrame of the same shape (``ALSModel.itemFactors``,
    collected to the driver: the item table must fit in memory), an (n_items, rank) array whose row ``j``
    is item ``item_ids[j]`` (default: item ``j``), or an ``(item_ids, array)`` pair. ``heldout`` (the
    items to rank) and ``train`` (excluded from each user's ranking; may be None): DataFrames with
    ``user_col`` and ``item_col``. Ids are integers or strings; integers meet text as text ('7' is 7).

    ``ties``, ``other_relevant``, ``dtype``, ``block_size`` (users per block inside a partition) and
    ``backend`` are those of :func:`rankwise.catalogue.item_ranks`; the policies default to
    ``convention``'s ``candidate_ties`` and ``other_relevant``. ``ties='random'`` needs an int ``seed``;
    each held-out item's draw is a hash of (seed, its user's id, its item's id), so the ranks are the local
    ``evaluate_catalogue`` draw (``item_ranks`` with ``user_ids``/``item_ids``) with the same seed and ids,
    whatever the partitioning and the order of the item table (``7``, ``7.0`` and ``'7'`` draw alike,
    ``'007'`` does not). ``num_partitions``: of the shuffle by user (default ``spark.sql.shuffle.partitions``).
    ``check``: refuse unknown items and users without factors on the driver, before returning (two extra
    passes over the ids; see the module notes).

    Returns a DataFrame (lazy: the ranks are computed when it is used) with columns ``user``, ``item``
    (typed as the inputs' ids: bigint when integers everywhere, else string), ``rank`` (double, 1-based;
    .5 under ``ties='average'``) and ``n_candidates`` (bigint: ``n_items - |train_u|`` under 'compete',
    ``n_items - |train_u| - |heldout_u| + 1`` under 'exclude'), one row per held-out pair: the same values
    as the local ``item_ranks`` on the same factors.
    """
    require("pyspark", "spark", "rankwise.spark")
    import pyspark.sql.functions as F

    conv = get_convention(convention)
    ties = resolve_ties(conv, ties, seed)
    other_relevant = str(conv.policy("other_relevant", other_relevant))
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))):
        raise InvalidParameterError(f"seed must be an int on Spark (every partition draws from it), got {seed!r}")
    if block_size is not None and (int(block_size) != block_size or block_size < 1):
        raise InvalidParameterError(f"block_size must be a positive integer (users per block), got {block_size!r}")
    dtype = check_dtype(dtype)

    raw_ids, factors = _item_table(item_factors, item_ids, id_col, factors_col)
    if not np.isfinite(factors).all():
        raise DataError("item_factors contain NaN or inf")
    items = IdIndex(raw_ids, "item", factors.shape[0])

    frames = [(heldout, "heldout", SIDE_HELDOUT)] + ([] if train is None else [(train, "train", SIDE_TRAIN)])
    ftype = _type(user_factors, factors_col, "user_factors")
    if ftype not in ("array<float>", "array<double>"):
        raise InvalidParameterError(f"user_factors.{factors_col} must be array<float> or array<double>, got {ftype}")
    user_type = _id_type([_type(user_factors, id_col, "user_factors")]
                         + [_type(df, user_col, name) for df, name, _ in frames], "user")
    item_type = _id_type([_type(df, item_col, name) for df, name, _ in frames], "item")

    tagged = user_factors.select(F.col(id_col).cast(user_type).alias("u"), F.lit(SIDE_FACTORS).cast("tinyint")
                                 .alias("s"), F.lit(None).cast(item_type).alias("i"), F.col(factors_col).alias("f"))
    for df, _, side in frames:
        tagged = tagged.unionByName(df.select(
            F.col(user_col).cast(user_type).alias("u"), F.lit(side).cast("tinyint").alias("s"),
            F.col(item_col).cast(item_type).alias("i"), F.lit(None).cast(ftype).alias("f")))
    if check:
        _check(tagged, items, F)

    check_workers(user_factors.sparkSession)  # (once per session: workers without rankwise, said clearly)
    task = RankTask(items, factors.astype(dtype), ties, other_relevant, conv, dtype, block_size,
                    None if seed is None else int(seed), backend, user_type, item_type)
    shuffled = tagged.repartition("u") if num_partitions is None else tagged.repartition(int(num_partitions), "u")
    return shuffled.mapInArrow(lambda batches: rank_partition(task, batches), schema_ddl(task))


def _check(tagged: Any, items: IdIndex, F: Any) -> None:
    """Unknown items and users without factors, refused on the driver with the local messages. The
    distinct items of a valid input are at most the catalogue, which the driver holds anyway."""
    seen = tagged.filter(F.col("s") != SIDE_FACTORS).select("s", "i").distinct().toArrow()
    side = seen.column("s").to_numpy()
    for which, name in ((SIDE_HELDOUT, "heldout"), (SIDE_TRAIN, "train")):
        rows = np.flatnonzero(side == which)
        try:
            items.lookup(seen.column("i").take(rows).combine_chunks(), name)
        except DataError as exc:
            raise DataError(f"{exc}. To rank only the catalogue's items: {name}.join(item ids, item_col, "
                            "'left_semi')") from None
    users = tagged.filter(F.col("s") == SIDE_HELDOUT).select("u").distinct()
    missing = users.join(tagged.filter(F.col("s") == SIDE_FACTORS).select("u"), "u", "left_anti")
    found = missing.limit(6).toArrow().column("u").to_pylist()
    if found:
        n = len(found) if len(found) < 6 else missing.count()
        raise DataError(_no_factors_message(sorted(found, key=str), n))
