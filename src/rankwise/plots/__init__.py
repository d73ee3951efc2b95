"""plots: figures of sampled metrics (``rankwise.plots.sampled``) and of comparisons of systems.

matplotlib is imported by the functions themselves, so importing this package needs no matplotlib.
"""
from rankwise.plots.compare import cutoff_families, forest, metric_vs_cutoff, per_query_delta

__all__ = ["forest", "per_query_delta", "metric_vs_cutoff", "cutoff_families"]
