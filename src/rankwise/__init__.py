"""rankwise: exact ranking evaluation with every convention named."""
from rankwise.conventions import PRESETS, Convention, get_convention
from rankwise.conventions.explain import explain
from rankwise.data.collections import Qrels, Run
from rankwise.data.ranks import RelevantRanks
from rankwise.errors import (
    ConventionError,
    DataError,
    InvalidParameterError,
    MissingDependencyError,
    ParseError,
    RankwiseError,
    RankwiseWarning,
)
from rankwise.evaluation import Results, evaluate
from rankwise.evaluation.ranks import evaluate_ranks
from rankwise.io.streaming import evaluate_run_file
from rankwise.io.tabular import read_qrels_file as read_qrels
from rankwise.io.tabular import read_run_file as read_run
from rankwise.spec.grammar import parse_metric
from rankwise.spec.metric import MetricSpec, ResolvedMetric

__version__ = "0.1.0"

__all__ = [
    "evaluate", "evaluate_ranks", "compare", "evaluate_run_file", "Results", "Qrels", "Run", "RelevantRanks",
    "read_qrels", "read_run",
    "evaluate_catalogue",  # lazy: see __getattr__
    "Convention", "PRESETS", "get_convention", "parse_metric", "MetricSpec", "ResolvedMetric", "explain",
    "RankwiseError", "ParseError", "InvalidParameterError", "ConventionError", "DataError",
    "MissingDependencyError", "RankwiseWarning",
    "__version__",
]


def __getattr__(name: str):
    # rankwise.compare (callable: rankwise.compare(qrels, runs, metrics)) and rankwise.plots load scipy.stats
    # and matplotlib; importing them on first use keeps `import rankwise` and `rankwise evaluate` fast.
    if name in ("compare", "plots", "report"):
        import importlib
        return importlib.import_module(f"rankwise.{name}")
    if name == "evaluate_catalogue":  # rankwise.catalogue loads scipy.sparse (~0.25 s): on first use
        from rankwise.catalogue.workflow import evaluate_catalogue
        return evaluate_catalogue
    raise AttributeError(f"module 'rankwise' has no attribute {name!r}")
