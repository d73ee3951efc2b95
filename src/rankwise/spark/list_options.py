"""The options of an evaluation of recommendation lists on Spark that the driver finishes from the partitions'
answers: ``intervals=`` (bootstrap intervals of the whole-run figures, ``spark.user_weights``) and an evaluation
of the run alone (no test interactions: every user of the run evaluated, nothing relevant), each as
``rankwise.evaluate`` (``execution.item_lists``) gives it.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

from rankwise.data.item_side import ItemSide
from rankwise.errors import InvalidParameterError
from rankwise.evaluation.notices import BELOW_REL_KEY
from rankwise.evaluation.plan import Plan
from rankwise.evaluation.results import Results
from rankwise.spark.user_weights import spark_intervals


@dataclass(frozen=True)
class Listed:
    """``intervals``: bootstrap samples of the users for each whole-run figure's interval (0: none);
    ``run_only``: no test interactions were given."""
    intervals: int = 0
    run_only: bool = False

    def finished(self, res: Results, plan: Plan, side: ItemSide | None, lists: Sequence[Mapping[str, Any]]) -> Results:
        """``res`` with the intervals of its whole-run figures, from the partitions' answers (``lists``), and, run
        only, without the count of test rows below the relevance threshold or the test columns (there were none)."""
        if self.run_only:  # (no test rows: none below the threshold, and no test columns read)
            info = {k: v for k, v in res.info.items() if k != BELOW_REL_KEY}
            read = info.get("columns")
            if isinstance(read, Mapping):
                info["columns"] = {k: v for k, v in read.items() if k != "qrels"}
            res = replace(res, info=info)
        if self.intervals and side is not None:
            shares = [x["shares"] for x in lists]
            res = replace(res, intervals=spark_intervals(plan, shares, res.query_ids, side, self.intervals))
        return res


NO_OPTIONS = Listed()


def refuse_accuracy_without_test(plan: Plan) -> None:
    """Without test interactions only the metrics of the lists alone can be computed, as locally."""
    accuracy = [m for m in plan.metrics if m not in plan.list_metrics]
    if accuracy:
        raise InvalidParameterError(f"{', '.join(accuracy)} compare the recommendations with test interactions: "
                                    "pass the qrels (or leave these metrics out)")
