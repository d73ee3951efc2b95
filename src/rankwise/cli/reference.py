"""docs/cli.md: the command-line reference, generated from the argparse parser.

``python -m rankwise.cli.reference > docs/cli.md`` writes it; ``tests/test_docs.py`` checks that the
committed page is up to date. Every command (and sub-command) is registered in full, including the
heavy ones that ``rankwise`` registers lazily, and its ``--help`` is rendered at a fixed width so the
page does not depend on the terminal it was generated in.
"""
from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator

WIDTH = 100


def full_parser() -> argparse.ArgumentParser:
    """The ``rankwise`` parser with every command registered in full (none of them lazily)."""
    from rankwise.cli.main import build_parser

    return build_parser([], full=True)


def _subcommands(parser: argparse.ArgumentParser) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    for action in parser._actions:  # argparse keeps its sub-parsers here; there is no public accessor
        if isinstance(action, argparse._SubParsersAction):
            seen: set[int] = set()
            for name, sp in action.choices.items():
                if id(sp) not in seen:  # aliases map to the same parser
                    seen.add(id(sp))
                    yield name, sp


def _walk(parser: argparse.ArgumentParser, path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...],
                                                                                   argparse.ArgumentParser]]:
    yield path, parser
    for name, sp in _subcommands(parser):
        yield from _walk(sp, (*path, name))


def cli_markdown() -> str:
    """The CLI reference page: every command's ``--help``, in the order ``rankwise --help`` lists them."""
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(WIDTH)  # argparse wraps help text at the terminal width
    try:
        parser = full_parser()
        lines = ["# Command line", "",
                 "Generated from the argparse parser by `python -m rankwise.cli.reference > docs/cli.md`; "
                 "do not edit by hand. Every command also answers `--help`.", ""]
        for path, p in _walk(parser, ()):
            title = " ".join(("rankwise", *path))
            lines += [f"{'#' * min(len(path) + 2, 4)} `{title}`", "", "```text", p.format_help().rstrip(), "```", ""]
        return "\n".join(lines)
    finally:
        if old is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = old


if __name__ == "__main__":  # pragma: no cover
    sys.stdout.write(cli_markdown())
