"""docs/reproducibility.md cannot drift: its console example is what the command prints."""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from rankwise.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "reproducibility.md"


def test_the_computed_example_is_what_rankwise_repro_prints(capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    block = next(b for b in re.findall(r"```console\n(.*?)```", PAGE.read_text(), re.S) if "tests/golden" in b)
    command, printed = block.split("\n", 1)
    argv = shlex.split(command.removeprefix("$ "))
    assert argv[:2] == ["rankwise", "repro"]
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("COLUMNS", raising=False)
    assert main(argv[1:]) == 0
    assert capsys.readouterr().out == printed
