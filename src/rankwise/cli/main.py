"""`rankwise` command line: a thin layer over the Python API."""
from __future__ import annotations

import argparse
import sys
import warnings

from rankwise.errors import RankwiseError, RankwiseWarning, import_if_present

# Sub-command modules; each exposes register(subparsers). Optional ones may be absent.
COMMAND_MODULES = (
    "rankwise.cli.evaluate_cmd",
    "rankwise.cli.describe",
    "rankwise.cli.demo",
    "rankwise.cli.reproduce",
    "rankwise.cli.cmd_sampled",
    "rankwise.cli.compare_cmd",
    "rankwise.cli.repro_cmd",
    "rankwise.cli.power_cmd",
    "rankwise.cli.correlate_cmd",
    "rankwise.cli.catalogue_cmd",
    "rankwise.cli.similarity_cmd",
)
# Commands whose registration imports heavy modules (scipy.optimize, the experiments): registered in
# full only when they are the command being run, so `rankwise evaluate` does not pay for them.
HEAVY_COMMANDS = {
    "reproduce": ("rankwise.cli.reproduce", "reproduce a table or figure of the papers rankwise implements"),
    "sampled": ("rankwise.cli.cmd_sampled", "sampled metrics: correct sampled ranks, simulate sampling"),
    "compare": ("rankwise.cli.compare_cmd", "compare systems: paired tests, CIs, effect sizes, corrections"),
    "repro": ("rankwise.cli.repro_cmd", "did a reproduction succeed? RMSE, ER, ΔRI and t-tests (Breuer et al.)"),
    "power": ("rankwise.cli.power_cmd", "topic-set-size design: queries needed, minimum detectable difference"),
    "correlate": ("rankwise.cli.correlate_cmd", "do two metrics, qrels or collections order the systems alike"),
}


def _command_of(argv) -> str | None:
    return next((a for a in argv if not a.startswith("-")), None)


def build_parser(argv=None, *, full: bool = False) -> argparse.ArgumentParser:
    """The ``rankwise`` parser. Heavy commands other than the one in ``argv`` get a placeholder (their
    modules load scipy.stats or matplotlib); ``full=True`` registers every command in full (docs)."""
    from rankwise import __version__

    parser = argparse.ArgumentParser(
        prog="rankwise",
        description="Exact ranking evaluation with every convention named. "
                    "Start with 'rankwise demo', then 'rankwise evaluate QRELS RUN -m nDCG@10'.")
    parser.add_argument("--version", action="version", version=f"rankwise {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    wanted = _command_of(sys.argv[1:] if argv is None else argv)
    light = {} if full else {mod: name for name, (mod, _) in HEAVY_COMMANDS.items() if name != wanted}
    for name in COMMAND_MODULES:
        if name in light:
            sub.add_parser(light[name], help=HEAVY_COMMANDS[light[name]][1], add_help=False)
            continue
        mod = import_if_present(name)
        if mod is not None:
            mod.register(sub)
    return parser


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """A RankwiseWarning on stderr as one 'rankwise: warning:' line (no source location); others as usual."""
    if issubclass(category, RankwiseWarning):
        print(f"rankwise: warning: {message}", file=sys.stderr)
    else:
        _SHOW_WARNING(message, category, filename, lineno, file, line)


_SHOW_WARNING = warnings.showwarning


def command() -> int:
    """The ``rankwise`` command: ``main`` in a process the command owns (cli/process.py tunes it)."""
    from rankwise.cli.process import own_process

    own_process()
    return main(owns_process=True)


def main(argv=None, *, owns_process: bool = False) -> int:
    """Run the command line ``argv``; ``owns_process``: the command runs in a process of its own (the
    ``rankwise`` command, ``python -m rankwise``), which it may tune (a stream gives freed memory back)."""
    parser = build_parser(argv)
    args, extra = parser.parse_known_args(argv)
    stray = getattr(args, "stray_positionals", None)
    if extra and stray and not any(a.startswith("-") for a in extra):
        # positionals after an option (`evaluate Q -m AP RUN`): argparse gives a trailing nargs='*' argument
        # nothing from the first group of positionals' and rejects the rest, so they are handed to it here
        getattr(args, stray).extend(extra)
    elif extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    args.owns_process = owns_process
    args.argv = list(sys.argv[1:] if argv is None else argv)  # as typed: reports quote their command line
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            return int(args.func(args) or 0)
    except RankwiseError as exc:
        print(f"rankwise: error: {exc}", file=sys.stderr)
        return 2
    except (FileNotFoundError, IsADirectoryError, PermissionError) as exc:
        print(f"rankwise: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # pragma: no cover
        print("rankwise: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # pragma: no cover - e.g. `rankwise ... | head`
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(command())
