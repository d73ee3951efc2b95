"""Beyond-accuracy metrics: coverage, concentration, novelty, popularity, diversity, serendipity (issue #24)."""
