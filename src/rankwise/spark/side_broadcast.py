"""The item side of a beyond-accuracy evaluation sent once per executor (a Spark broadcast variable), not once per
task.

Why: the side (the catalogue, the training interactions, the item features) was pickled into the partitions'
function, so Spark serialised it into every task of every stage: 29 MB a task for 50k items × 32 floats and 1M
training rows (measured with cloudpickle, against 3.8 KB for the task without it). A broadcast variable is written
once on the driver, fetched once by each executor (BitTorrent-like, ``spark.broadcast.blockSize``) and read by its
Python workers from a local file; a reused worker (``spark.python.worker.reuse``, Spark's default) unpickles it once
for all its tasks. The task then carries only the variable's id, a few bytes, whatever the side's size.

Spark Connect has no SparkContext and so no broadcast variables: there the side travels in the task, as before, and
the evaluation is the same (only slower to ship). The variable is unpersisted when the evaluation ends (the
executors drop their copies; the driver keeps the value, so that a later recomputation of the persisted per-user
values, should Spark evict them, fetches it again rather than failing), and destroyed (the driver's copy and
file too) by the results' ``unpersist()`` or when the results are garbage-collected (``owned_by``): a loop of
evaluations in one session does not accumulate sides on the driver.
"""
from __future__ import annotations

import contextlib
import weakref
from dataclasses import dataclass
from typing import Any, Iterator

from rankwise.data.item_side import ItemSide


@dataclass(frozen=True)
class ShippedSide:
    """How a partition task holds the item side: in its closure (``local``: Spark Connect) or as a broadcast
    variable (``broadcast``, a ``pyspark.Broadcast`` whose ``value`` is the side); both None: no side."""
    local: ItemSide | None = None
    broadcast: Any = None

    def value(self) -> ItemSide | None:
        """The side, read where the task runs (a broadcast is fetched and unpickled once per worker)."""
        if self.broadcast is not None:
            side: ItemSide = self.broadcast.value
            return side
        return self.local


def spark_context(session: Any) -> Any:
    """The session's SparkContext, or None where there is none (Spark Connect)."""
    try:
        return session.sparkContext
    except Exception:  # noqa: BLE001 - Spark Connect raises its own "not implemented" error here
        return None


@contextlib.contextmanager
def shipped_side(session: Any, side: ItemSide | None) -> Iterator[ShippedSide]:
    """The side as the partitions' tasks carry it for the length of the ``with`` block: a broadcast variable
    when the session has a SparkContext, unpersisted on leaving; else the side itself."""
    context = None if side is None else spark_context(session)
    if context is None:
        yield ShippedSide(local=side)
        return
    handle = context.broadcast(side)
    try:
        yield ShippedSide(broadcast=handle)
    except BaseException:  # (no results will own it)
        _destroy(handle)
        raise
    handle.unpersist(blocking=False)


def owned_by(owner: Any, shipped: ShippedSide) -> Any:
    """``owner`` (the evaluation's results) made the owner of the broadcast variable, if any: it is destroyed
    when ``owner`` is garbage-collected, or earlier by ``owner.unpersist()`` (which calls ``owner.releases``)."""
    if shipped.broadcast is not None:
        finalizer = weakref.finalize(owner, _destroy, shipped.broadcast)
        finalizer.atexit = False  # (at exit the SparkContext may be gone: nothing left to free)
        owner.releases.append(finalizer)
    return owner


def _destroy(handle: Any) -> None:
    try:
        handle.destroy(blocking=False)
    except Exception:  # noqa: BLE001 - a stopped SparkContext has freed it already
        pass
