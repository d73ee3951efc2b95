"""Evaluation: the engine's contract (plan, evaluate a part, combine) and its Results."""
from rankwise.evaluation.results import Results

__all__ = ["Results"]
