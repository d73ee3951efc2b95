"""`rankwise reproduce NAME`: the source papers' experiments, each a module with add_arguments/main."""
from __future__ import annotations

import inspect
from functools import partial

from rankwise.cli.output import Progress
from rankwise.errors import import_if_present

REPRODUCTIONS = {
    "graded-levels": ("rankwise.experiments.graded_levels",
                      "Scheel, Lommatzsch & Albayrak (2011) §2.1: nDCG vs μAP vs NDCNG as the number of "
                      "relevance levels grows"),
    "krichene-rendle-figure1": ("rankwise.experiments.krichene_rendle_figure1",
                                "Krichene & Rendle (KDD 2020) Figure 1: AUC, P@10, Recall@10, AP, nDCG and RR "
                                "against the rank of one relevant item among n = 10,000"),
    "krichene-rendle-toy": ("rankwise.experiments.krichene_rendle_toy",
                            "Krichene & Rendle (KDD 2020) Tables 1-2: exact and sampled metrics of "
                            "recommenders A, B, C"),
    "krichene-rendle": ("rankwise.experiments.krichene_rendle",
                        "Krichene & Rendle (KDD 2020) §6: sampled vs exact metrics of recommenders X, Y, Z "
                        "on MovieLens"),
}


def register(sub) -> None:
    p = sub.add_parser("reproduce", help="reproduce a table or figure of the papers rankwise implements")
    rsub = p.add_subparsers(dest="reproduction", metavar="NAME")
    for name, (module, help_) in REPRODUCTIONS.items():
        mod = import_if_present(module)
        if mod is None:
            continue
        rp = rsub.add_parser(name, help=help_, description=help_)
        mod.add_arguments(rp)
        rp.add_argument("--progress", action="store_true",
                        help="report each phase on stderr (default: only when stderr is a terminal)")
        rp.set_defaults(func=partial(_with_progress, mod.main))
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def _with_progress(main, args) -> int:
    """Run a reproduction, giving its ``main`` the phase reporter when it takes one (the long ones do)."""
    if "progress" not in inspect.signature(main).parameters:
        return int(main(args))
    return int(main(args, progress=Progress.auto(args.progress, long=True).stage))
