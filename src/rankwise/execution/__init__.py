"""Execution: where the parts of an evaluation run (one thread, threads over parts of a run held in memory,
blocks of a file by threads or processes, a stream of blocks). Every way here only schedules the engine's
contract (``evaluation.plan``, ``evaluation.partial``, ``evaluation.combine``): it cuts the queries into parts,
maps ``evaluate_part`` over them and hands the partials to ``combine``."""
