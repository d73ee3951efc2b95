"""rankwise: exact ranking evaluation with every convention named."""
from rankwise.data.ranks import RelevantRanks
from rankwise.errors import (ConventionError, DataError, InvalidParameterError, MissingDependencyError,
                             ParseError, RankwiseError)

__version__ = "0.1.0"

__all__ = [
    "RelevantRanks",
    "RankwiseError", "ParseError", "InvalidParameterError", "ConventionError", "DataError",
    "MissingDependencyError",
    "__version__",
]
