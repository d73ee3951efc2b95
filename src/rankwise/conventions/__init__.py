"""Conventions and presets."""
from rankwise.conventions.convention import (
    OUTPUT_POLICIES,
    PARAMETER_POLICIES,
    POLICIES,
    QUERY_POLICIES,
    RANK_POLICIES,
    Convention,
)
from rankwise.conventions.presets import DEFAULT, PRESETS, get_convention

__all__ = ["Convention", "PRESETS", "DEFAULT", "get_convention", "QUERY_POLICIES", "RANK_POLICIES", "OUTPUT_POLICIES",
           "PARAMETER_POLICIES", "POLICIES"]
