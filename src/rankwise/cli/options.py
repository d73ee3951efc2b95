"""Command-line options generated from the registry and the presets (never maintained by hand)."""
from __future__ import annotations

from rankwise.conventions import DEFAULT, OUTPUT_POLICIES, PRESETS, QUERY_POLICIES
from rankwise.spec import registry
from rankwise.spec.params import COMMON_PARAMS


def all_params():
    seen = {}
    for p in COMMON_PARAMS:
        seen[p.convention_key] = p
    for d in registry.all_metrics():
        for p in d.params:
            seen.setdefault(p.convention_key, p)
    return seen


def add_convention_options(parser) -> None:
    parser.add_argument("--convention", "-c", default=DEFAULT.name, metavar="NAME",
                        help="preset that fills every choice not given "
                             f"(default {DEFAULT.name}; one of {', '.join(PRESETS)})")
    grp = parser.add_argument_group("convention overrides (each changes one choice of the preset)")
    for name, spec in {**QUERY_POLICIES, **OUTPUT_POLICIES}.items():
        grp.add_argument("--" + name.replace("_", "-"), dest=f"ov_{name}", choices=list(spec["choices"]),
                         help=spec["doc"])
    for name, p in all_params().items():
        kw = {"dest": f"ov_{name}", "help": p.doc}
        if p.kind == "choice":
            kw["choices"] = list(p.choices)
        else:
            kw["metavar"] = "X"
        grp.add_argument("--" + name.replace("_", "-"), **kw)


def overrides_from(args) -> dict:
    return {k[3:]: v for k, v in vars(args).items() if k.startswith("ov_") and v is not None}
