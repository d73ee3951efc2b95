"""rankwise: exact ranking evaluation with every convention named."""
from rankwise.api import as_qrels, as_run, evaluate, evaluate_tensors
from rankwise.conventions import PRESETS, Convention, get_convention
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
from rankwise.evaluation.ranks import evaluate_ranks
from rankwise.evaluation.results import Results
from rankwise.explanation.metric import explain
from rankwise.io.tabular import read_qrels_file as read_qrels
from rankwise.io.tabular import read_run_file as read_run
from rankwise.spec.grammar import parse_metric
from rankwise.spec.metric import MetricSpec, ResolvedMetric

__version__ = "0.1.0"

__all__ = [
    "evaluate", "evaluate_tensors", "evaluate_ranks", "compare", "Results", "Qrels", "Run", "RelevantRanks",
    "read_qrels", "read_run", "as_qrels", "as_run",
    "compare_matrix", "power", "PerQueryMatrix", "Comparison", "evaluate_catalogue",  # lazy: see _LAZY
    "correlate", "discriminative_power", "swap_rate", "bootstrap_sensitivity",  # lazy: system orderings (agreement/)
    "repro",  # lazy: agreement/reproduction (scipy.stats)
    "similarity", "Similarity",  # lazy
    "Convention", "PRESETS", "get_convention", "parse_metric", "MetricSpec", "ResolvedMetric", "explain",
    "RankwiseError", "ParseError", "InvalidParameterError", "ConventionError", "DataError",
    "MissingDependencyError", "RankwiseWarning",
    "__version__",
]


# loaded on first use: scipy.stats (comparison), matplotlib (plots), scipy.sparse (catalogue) would make
# `import rankwise` and `rankwise evaluate` slower for everyone who does not use them
_LAZY = {
    "compare": ("rankwise.comparison", "compare"), "compare_matrix": ("rankwise.comparison", "compare_matrix"),
    "power": ("rankwise.comparison", "power"), "PerQueryMatrix": ("rankwise.comparison", "PerQueryMatrix"),
    "Comparison": ("rankwise.comparison", "Comparison"),
    "evaluate_catalogue": ("rankwise.catalogue.workflow", "evaluate_catalogue"),
    "correlate": ("rankwise.agreement.orderings", "correlate"),
    "discriminative_power": ("rankwise.agreement.discriminative", "discriminative_power"),
    "swap_rate": ("rankwise.agreement.swap_rate", "swap_rate"),
    "bootstrap_sensitivity": ("rankwise.agreement.bootstrap_sensitivity", "bootstrap_sensitivity"),
    "repro": ("rankwise.agreement.reproduction", "repro"),
    "similarity": ("rankwise.agreement.similarity", "similarity"),
    "Similarity": ("rankwise.agreement.similarity", "Similarity"),
}


def __getattr__(name: str):
    import importlib
    if name in _LAZY:
        module, attr = _LAZY[name]
        return getattr(importlib.import_module(module), attr)
    if name in ("comparison", "plots", "report"):
        return importlib.import_module(f"rankwise.{name}")
    raise AttributeError(f"module 'rankwise' has no attribute {name!r}")
