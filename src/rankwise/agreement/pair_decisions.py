"""What a discriminative power reads from each system pair's ASL (achieved significance level), whichever test
gave it: ``rankwise.discriminative_power`` (compare's tests, corrected) and ``rankwise.bootstrap_sensitivity``
(Sakai's paired bootstrap)."""
from __future__ import annotations

import numpy as np


class PairDecisions:
    """Mixed into a result holding ``alpha``, the system ``pairs`` and each pair's ``asl``."""

    alpha: float
    pairs: tuple[tuple[str, str], ...]
    asl: np.ndarray

    @property
    def significant(self) -> int:
        """The system pairs with ASL < alpha."""
        return int((self.asl < self.alpha).sum())

    @property
    def power(self) -> float:
        """The discriminative power: the share of system pairs with ASL < alpha."""
        return self.significant / len(self.pairs)

    def curve(self) -> np.ndarray:
        """The ASL curve: every pair's ASL, smallest first."""
        return np.sort(self.asl)
