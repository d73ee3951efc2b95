"""`rankwise catalogue --train T --test T (--factors U.npy V.npy | --scores S.npy) -m METRIC ...`"""
from __future__ import annotations

import sys
import time

from rankwise.cli.options import add_convention_options, overrides_from
from rankwise.errors import DataError

DESCRIPTION = (
    "Full-catalogue evaluation of a recommender: every held-out (test) item of a user is ranked among all "
    "items except the user's training items, by the scores of --scores S.npy (n_users x n_items) or of "
    "--factors U.npy V.npy (scores U @ V.T, computed per block of users), and the metrics are computed from "
    "those ranks as 'rankwise evaluate' computes them on the full ranking. Row u of the scores is the u-th "
    "id of --user-ids (else user index u), column i the i-th id of --item-ids (else item index i); an id of "
    "--train/--test with no score row or column is an error. The user's other test items compete with each "
    "one (--other-relevant compete, the default) and scores tied with a test item rank above it "
    "(--candidate-ties pessimistic, the default of trec_eval).")


def register(sub) -> None:
    p = sub.add_parser("catalogue", help="full-catalogue evaluation from a score matrix or factors",
                       description=DESCRIPTION, conflict_handler="resolve")
    # first, so that --scores below replaces the metric parameter 'scores' (a run's score precision, which
    # full-catalogue ranks do not read: they compare scores in the ranking dtype)
    add_convention_options(p)
    p.add_argument("--train", metavar="FILE",
                   help="training interactions, excluded from every ranking: CSV/TSV with a header (user and "
                        "item columns guessed, e.g. user/userId and item/movieId), Parquet, or 'user item ...' "
                        "lines; other columns (rating, timestamp) are ignored")
    p.add_argument("--test", metavar="FILE", required=True, help="held-out interactions to rank (same formats)")
    scores = p.add_mutually_exclusive_group(required=True)
    scores.add_argument("--factors", nargs=2, metavar=("U.npy", "V.npy"),
                        help="user factors (n_users x d) and item factors (n_items x d), numpy .npy files")
    scores.add_argument("--scores", metavar="S.npy", help="dense score matrix (n_users x n_items), a .npy file")
    p.add_argument("--user-ids", metavar="FILE", help="raw user id of each score row, one per line, in order")
    p.add_argument("--item-ids", metavar="FILE", help="raw item id of each score column, one per line, in order")
    p.add_argument("--user-column", help="column of the user id in --train/--test (CSV/TSV/Parquet)")
    p.add_argument("--item-column", help="column of the item id in --train/--test (CSV/TSV/Parquet)")
    p.add_argument("-m", "--metric", action="append", required=True, metavar="METRIC",
                   help="metric, e.g. Recall@10, NDCG@10, AP (repeat for several)")
    p.add_argument("--candidate-ties", choices=["pessimistic", "optimistic", "average", "random"],
                   help="an item scored exactly like a test item (default: the convention's candidate_ties)")
    p.add_argument("--tie-seed", type=int, help="with --candidate-ties random: the seed of the tie order")
    p.add_argument("--other-relevant", choices=["compete", "exclude"],
                   help="a user's other test items: ranked like any item, or left out of each one's ranking "
                        "(default: the convention's other_relevant)")
    p.add_argument("--backend", choices=["auto", "numpy", "torch"], default="auto",
                   help="ranking backend (auto: torch on a GPU when installed, else numpy)")
    p.add_argument("--kernel", choices=["auto", "blocks", "fused", "fused-bf16x6", "fused-bf16x9"], default="auto",
                   help="how the ranks are counted: blocks of scores, or, with factors on a CUDA device and "
                        "Triton installed, one kernel that never writes the scores (fused: float32 multiply-adds; "
                        "fused-bf16x6, fused-bf16x9: the tensor cores, on exact products of bfloat16 parts of the "
                        "factors; auto: fused-bf16x6 wherever it applies, else blocks; docs/catalogue.md)")
    p.add_argument("--per-query", "-q", action="store_true", help="also print one value per user")
    p.add_argument("--format", "-f", default="table", choices=["table", "json", "csv", "tsv"])
    p.add_argument("--output", "-o", metavar="FILE", help="write the result here instead of stdout")
    p.add_argument("--progress", action="store_true", help="report the ranking's progress on stderr")
    p.set_defaults(func=run)


def _load_array(path: str):
    import numpy as np

    try:
        return np.load(path, allow_pickle=False)
    except (FileNotFoundError, IsADirectoryError, PermissionError):
        raise
    except (ValueError, OSError) as exc:
        raise DataError(f"{path}: cannot read a numpy .npy array ({exc})") from None


def run(args) -> int:
    from rankwise.catalogue.workflow import evaluate_catalogue
    from rankwise.cli.output import render, set_aside_report, write_report
    from rankwise.io.interactions import read_ids, read_interactions

    t0 = time.perf_counter()

    def stage(msg: str) -> None:
        if args.progress:
            print(f"rankwise: {msg} ({time.perf_counter() - t0:.1f}s)", file=sys.stderr, flush=True)

    columns = None
    if args.user_column or args.item_column:
        if not (args.user_column and args.item_column):
            raise DataError("give both --user-column and --item-column, or neither (both are then guessed)")
        columns = (args.user_column, args.item_column)
    scores = (_load_array(args.factors[0]), _load_array(args.factors[1])) if args.factors else _load_array(args.scores)
    user_ids = read_ids(args.user_ids) if args.user_ids else None
    item_ids = read_ids(args.item_ids) if args.item_ids else None
    stage("reading interactions")
    train = read_interactions(args.train, columns) if args.train else None
    test = read_interactions(args.test, columns)

    def report(done: int, total: int) -> None:
        stage(f"ranked {done} of {total} users")

    res = evaluate_catalogue(train, test, scores, args.metric, args.convention, user_ids=user_ids,
                             item_ids=item_ids, ties=args.candidate_ties, other_relevant=args.other_relevant,
                             seed=args.tie_seed, backend=args.backend, kernel=args.kernel,
                             progress=report if args.progress else None, **overrides_from(args))
    stage("done")
    text = render(res, args.format, args.per_query)
    write_report(text, args.output)
    if args.format == "table":
        report_text = set_aside_report(res)
        if report_text:
            print(report_text, file=sys.stderr)
    return 0
