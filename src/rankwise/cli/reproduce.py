"""`rankwise reproduce NAME`: the source papers' experiments, each a module with add_arguments/main."""
from __future__ import annotations

from rankwise.errors import import_if_present

REPRODUCTIONS = {
    "graded-levels": ("rankwise.experiments.graded_levels",
                      "Scheel, Lommatzsch & Albayrak (2011) §2.1: nDCG vs μAP vs NDCNG as the number of "
                      "relevance levels grows"),
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
        rp.set_defaults(func=mod.main)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])
