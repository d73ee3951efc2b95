"""docs/metrics.md is generated from the registry; it must not drift from the code."""
from pathlib import Path

from rankwise.cli.describe import metrics_markdown


def test_docs_metrics_md_is_up_to_date():
    path = Path(__file__).parents[1] / "docs" / "metrics.md"
    assert path.read_text() == metrics_markdown(), "run: rankwise metrics --format markdown > docs/metrics.md"


def test_docs_presets_md_is_up_to_date():
    from rankwise.explanation.across import presets_markdown

    path = Path(__file__).parents[1] / "docs" / "presets.md"
    assert path.read_text() == presets_markdown(), "run: rankwise conventions --format markdown > docs/presets.md"


def test_docs_cli_md_is_up_to_date():
    from rankwise.cli.reference import cli_markdown

    path = Path(__file__).parents[1] / "docs" / "cli.md"
    assert path.read_text() == cli_markdown(), "run: python -m rankwise.cli.reference > docs/cli.md"


def test_cli_reference_covers_every_command():
    from rankwise.cli.main import COMMAND_MODULES, HEAVY_COMMANDS
    from rankwise.cli.reference import cli_markdown

    page = cli_markdown()
    for name in ("evaluate", "metrics", "conventions", "explain", "demo", *HEAVY_COMMANDS):
        assert f"`rankwise {name}`" in page, name
    assert len(COMMAND_MODULES) >= 7


def test_no_source_document_numbers_in_what_users_read():
    """The source documents are cited by title and author, never as 'seed 00x' (issue #13)."""
    import re

    root = Path(__file__).parents[1]
    pages = sorted((root / "docs").glob("*.md")) + [root / "README.md"]
    for page in pages:
        assert not re.search(r"seed ?00\d", page.read_text(), re.I), page.name
