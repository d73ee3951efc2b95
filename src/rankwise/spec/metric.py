"""MetricDef (what a metric is), MetricSpec (what the user wrote), ResolvedMetric (every choice filled)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Mapping, TypeAlias

from rankwise.errors import ConventionError
from rankwise.spec.beyond_params import LIST_USERS
from rankwise.spec.params import COMMON_PARAMS, Param

if TYPE_CHECKING:
    import numpy as np

    from rankwise.data.item_side import ItemSide
    from rankwise.data.item_tally import ItemTally, UserWeights
    from rankwise.data.top_lists import TopLists
    from rankwise.spec.ranking_context import ComputeFn, Cutoff, MicroWeightFn, Params


@dataclass(frozen=True)
class RankForm:
    """A metric written on the ranks of the relevant items: the value of a query is the sum over its
    relevant items of ``contribution(r, i, nrel, n)``, where ``r`` is the item's (1-based, possibly
    tie-averaged) rank among ``n`` candidates, ``i`` its 1-based position among the query's ``nrel``
    relevant items sorted by rank. Every candidate that is not relevant counts as judged non-relevant.

    Written this way one resolved metric gives per-query values on ``RelevantRanks``, the curve M(r) of
    one relevant item, and (by linearity) the expectation of a sampled metric, with no second grammar.
    """

    contribution: Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]
    # True when the metric averages over the relevant items (Recall, AP, AUC): one item then adds at
    # most its best value, contribution(i, i, nrel, n); otherwise an item's share is bounded by 1
    item_share: bool = False


@dataclass(frozen=True)
class ListForm:
    """A beyond-accuracy metric, read off the recommendation lists (``data.top_lists.TopLists``) and what the
    evaluation knows of the items (``data.item_side.ItemSide``: catalogue, training interactions, features).

    A per-user metric has ``per_user(lists, params, k)``: one value per user (NaN: no value, left out of the
    mean and counted) and, for aggregate=micro, each user's weight (else None). A whole-run metric (coverage, a
    Gini index) has ``weights(lists, params, k)``, each user's share of the whole (``UserWeights``: weights of
    items and numbers, summed over the users into an ``ItemTally``), and ``value(tally, side, params, k)``, the
    figure of a tally (of a tally's rows: one per bootstrap replicate, over the last axis of its arrays).
    ``needs(params)``: the inputs beyond the run it reads ('train', 'items', 'features', 'reference'; 'test' when
    it reads which recommended items are relevant)."""
    needs: Callable[["Params"], tuple[str, ...]]
    per_user: Callable[["TopLists", "Params", "Cutoff"], "tuple[np.ndarray, np.ndarray | None]"] | None = None
    weights: Callable[["TopLists", "Params", "Cutoff"], "UserWeights"] | None = None
    value: Callable[["ItemTally", "ItemSide", "Params", "Cutoff"], "np.ndarray | float"] | None = None
    # the common parameters it reads besides ties and scores (and, per user, rel and aggregate): the accuracy
    # figures read off the lists (metrics/beyond/list_accuracy.py) read which users have a relevant item
    reads: tuple[str, ...] = ()

    @property
    def whole_run(self) -> bool:
        return self.weights is not None


# MetricDef.rank_form: (params, k) -> the metric's RankForm, or a sentence saying why these parameters have none
RankFormFn: TypeAlias = Callable[["Params", "Cutoff"], "RankForm | str"]


@dataclass(frozen=True)
class MetricDef:
    name: str  # canonical spelling, e.g. "nDCG"
    summary: str
    formula: str
    reference: str
    example: str
    compute: ComputeFn  # (ctx: RankingContext, params, k) -> one float per query (spec/ranking_context.py)
    params: tuple[Param, ...] = ()
    aliases: tuple[str, ...] = ()
    cutoff: bool = True  # accepts @k
    tie_average: bool = False  # supports ties=average (linear in the gains)
    # True when the value reads each row's rank alone, never the order of rows that share a rank, so it is
    # defined under ties=average_floor (rows of a tie block share one rank; Evidently's accuracy metrics)
    floor_ranks: bool = False
    gain_based: bool = False  # "relevant" means positive gain at threshold rel
    binary_only_params: tuple[str, ...] = ()
    # alias -> implied parameters, e.g. {"ndcg_burges": {"gain": "exp"}}
    implied: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    # (params, k) -> its RankForm, or a sentence saying why these parameters have none; None: no rank form
    rank_form: RankFormFn | None = None
    # False when the metric is defined for a query without relevant documents (counts, Judged, FallOut): the
    # no_relevant policy then does not apply to it
    needs_relevant: bool = True
    # parameters this metric is defined for only some values of, with the reason (LRAP reads tie groups, so
    # only ties=average): {parameter: (values, why)}; Convention.resolve refuses the others
    only: Mapping[str, tuple[tuple[str, ...], str]] = field(default_factory=dict)
    # True when no order of the ranking changes the value (counts, set measures): no tie policy decides it;
    # 'whole_list' when that holds without a cutoff only (P, R, F, Hits, Success over the whole list)
    order_free: bool | str = False
    # a parameter given after @ instead of a cutoff (IPrec@0.25: the recall level); None: @ is the cutoff k
    at_param: str | None = None
    # (params, k, nrel, n) -> each query's weight in aggregate=micro (the denominator of its value, so that
    # the weighted mean is Σ numerators / Σ denominators); nrel: relevant documents, n: retrieved. None: the
    # metric has no micro-average
    micro_weight: MicroWeightFn | None = None
    # True when a smaller value is the better ranking (FallOut): reports mark the lowest mean as the best and a
    # significantly lower mean as the better one
    lower_is_better: bool = False
    # {parameter: value}: a smaller value is better exactly when the parameters have these values (a Gini index
    # of inequality, not its complement); empty: lower_is_better says
    lower_when: Mapping[str, str] = field(default_factory=dict)
    # a beyond-accuracy metric (rankwise.metrics.beyond): read off the recommendation lists, not the judged
    # rows; None for every accuracy metric
    lists: ListForm | None = None

    @property
    def all_params(self) -> tuple[Param, ...]:
        if self.lists is not None:  # (whose lists a beyond-accuracy metric reads)
            return tuple(self.params) + (LIST_USERS,) + COMMON_PARAMS
        return tuple(self.params) + COMMON_PARAMS

    def param(self, name: str) -> Param | None:
        """The parameter spelt ``name`` in this metric's strings (its name or an older alias)."""
        for p in self.all_params:
            if p.name == name or name in p.aliases:
                return p
        return None


@dataclass(frozen=True)
class MetricSpec:
    text: str
    definition: MetricDef
    params: Mapping[str, object]  # explicitly given (coerced)
    k: int | None


@dataclass(frozen=True)
class ResolvedMetric:
    definition: MetricDef
    params: Mapping[str, object]  # every parameter, in definition order
    k: int | None

    def __str__(self) -> str:
        d = self.definition
        inner = ",".join(f"{p.name}={p.format(self.params[p.name])}" for p in d.all_params)
        return f"{d.name}({inner})" + (f"@{self.k}" if self.k is not None else "")

    @property
    def key(self) -> tuple[str, tuple[object, ...], int | None]:
        return (self.definition.name, tuple(self.params[p.name] for p in self.definition.all_params), self.k)

    def __repr__(self) -> str:
        return f"ResolvedMetric({str(self)!r})"

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ResolvedMetric) and self.key == other.key

    @property
    def has_rank_form(self) -> bool:
        return isinstance(self._rank_form(), RankForm)

    @property
    def rank_form(self) -> RankForm:
        """The metric on the ranks of the relevant items; ConventionError where it has none."""
        form = self._rank_form()
        if isinstance(form, RankForm):
            return form
        raise ConventionError(f"{self}: {form}")

    def _rank_form(self) -> RankForm | str:
        d = self.definition
        if d.rank_form is None:
            return (f"{d.name} has no form on the ranks of relevant items alone (it needs the grades or the "
                    "judged non-relevant documents of a run); evaluate a run instead")
        return d.rank_form(self.params, self.k)
