"""`rankwise power`: how many queries a test collection needs, or the smallest difference it can detect."""
from __future__ import annotations

import json
import sys

from rankwise.cli.compare_cmd import add_input_options
from rankwise.comparison.options import DEFAULT_ALPHA
from rankwise.comparison.power import DEFAULT_POWER
from rankwise.errors import InvalidParameterError


def register(sub) -> None:
    p = sub.add_parser(
        "power", help="topic-set-size design: queries needed for a difference, or the minimum detectable difference",
        description="Power of the two-sided paired t-test (Sakai's topic-set-size design, exact noncentral t). "
                    "The variance of the per-query differences comes from --variance, or is estimated from runs "
                    "(QRELS RUN RUN ...) or --values as 2 V_E of the two-way ANOVA (with two systems, the "
                    "variance of their differences).")
    add_input_options(p)
    p.add_argument("--variance", type=float, help="variance of the per-query differences, instead of estimating it")
    p.add_argument("--n", type=int, help="number of queries: gives the minimum detectable difference "
                                         "(with --delta too: the power achieved)")
    p.add_argument("--delta", type=float, help="difference of means to detect: gives the queries needed")
    p.add_argument("--alpha", type=float, default=DEFAULT_ALPHA, help=f"significance level (default {DEFAULT_ALPHA})")
    p.add_argument("--power", type=float, default=DEFAULT_POWER, help=f"power wanted (default {DEFAULT_POWER})")
    p.add_argument("--format", "-f", choices=["table", "json"], default="table")
    p.set_defaults(func=run, convention=None)


def run(args) -> int:
    from rankwise.cli.compare_cmd import load_matrix
    from rankwise.comparison.power import power

    if args.variance is not None and (args.inputs or args.values):
        raise InvalidParameterError("give --variance or per-query values (runs or --values), not both")
    if args.variance is None:
        matrix = load_matrix(args)
        metrics = list(matrix.metrics)
        results = {m: power(matrix, metric=m, n=args.n, delta=args.delta, alpha=args.alpha, power=args.power)
                   for m in metrics}
    else:
        results = {"": power(variance=args.variance, n=args.n, delta=args.delta, alpha=args.alpha,
                             power=args.power)}
    if args.format == "json":
        out = {m or "given variance": r.to_dict() for m, r in results.items()}
        sys.stdout.write(json.dumps(out, indent=2, allow_nan=False) + "\n")
        return 0
    lines = []
    for m, r in results.items():
        head = f"{m}: " if m else ""
        if r.solved_for == "n":
            lines.append(f"{head}{r.n} queries detect a difference of {r.delta:g} with power {r.power:.3f} "
                         f"(target {args.power}) at alpha {r.alpha} (two-sided paired t)")
        elif r.solved_for == "delta":
            lines.append(f"{head}with {r.n} queries the minimum detectable difference is {r.delta:.4f} "
                         f"(power {r.power}, alpha {r.alpha}, two-sided paired t)")
        else:
            lines.append(f"{head}with {r.n} queries a difference of {r.delta:g} is detected with power "
                         f"{r.power:.3f} at alpha {r.alpha} (two-sided paired t)")
        lines.append(f"{' ' * len(head)}sd of the per-query differences {r.sd:.4f}: {r.variance_from}")
    sys.stdout.write("\n".join(lines) + "\n")
    return 0
