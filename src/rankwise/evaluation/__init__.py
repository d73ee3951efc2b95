"""Evaluation: plan, evaluate(), results."""
from rankwise.evaluation.evaluate import evaluate
from rankwise.evaluation.results import Results

__all__ = ["evaluate", "Results"]
