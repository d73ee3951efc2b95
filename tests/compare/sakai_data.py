"""Sakai (2018) Table 5.1 and the numbers published with it (see test_sakai.py for the source)."""
from __future__ import annotations

import numpy as np
import pytest

from rankwise.comparison import PerQueryMatrix

# Sakai (2018), Table 5.1: nDCG@5, topics 1..20
SAKAI_TABLE = {
    "X": [.7, .3, .2, .6, .4, .4, 0, .7, .1, .3, .5, .4, 0, .6, .5, .3, .1, .5, .2, .1],
    "Y": [.5, .1, 0, .2, .4, .3, 0, .5, .3, .3, .4, .4, .1, .4, .2, .1, .1, .6, .3, .2],
    "Z": [0, 0, .2, .1, .3, .3, .1, .2, .4, .4, .4, .3, .3, .2, .2, .2, .1, .5, .4, .3],
}
METRIC = "nDCG@5"

# Published results (rounded as printed)
PAIRED_T_X_MINUS_Y = {"delta": 0.0750, "variance": 0.0251, "es": 0.473, "t": 2.116, "p": 0.048,
                      "ci": (0.0008, 0.1492)}
ANOVA = {"F": 2.475, "p": 0.098}
TUKEY_ES = {("X", "Y"): 0.507, ("X", "Z"): 0.676, ("Y", "Z"): 0.169}
TUKEY_P = {("X", "Y"): 0.257, ("X", "Z"): 0.096, ("Y", "Z"): 0.855}
# elinor's README, same data: means, ANOVA table (variation, df, variance)
MEANS = {"X": 0.3450, "Y": 0.2700, "Z": 0.2450}
ANOVA_TABLE = {"systems": (0.1083, 2, 0.0542), "queries": (1.0293, 19, 0.0542), "residual": (0.8317, 38, 0.0219)}


def sakai_matrix() -> PerQueryMatrix:
    rows = [(s, f"t{j + 1:02d}", METRIC, v) for s, vals in SAKAI_TABLE.items() for j, v in enumerate(vals)]
    return PerQueryMatrix.from_long(*zip(*rows))


def sakai_array() -> np.ndarray:
    """queries x systems (X, Y, Z)."""
    return np.asarray(list(SAKAI_TABLE.values())).T


def rounds_to(x: float, published: float, digits: int) -> bool:
    return round(x, digits) == pytest.approx(published, abs=1e-12)
