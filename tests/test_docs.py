"""docs/metrics.md is generated from the registry; it must not drift from the code."""
from pathlib import Path

from rankwise.cli.describe import metrics_markdown


def test_docs_metrics_md_is_up_to_date():
    path = Path(__file__).parents[1] / "docs" / "metrics.md"
    assert path.read_text() == metrics_markdown(), "run: rankwise metrics --format markdown > docs/metrics.md"
