"""Keywords renamed for one name per idea across similarity, correlate, repro and compare (#25's review).

The old keyword keeps working for a release with a DeprecationWarning that names the new one; giving both is an
error, since the call would say two things.
"""
from __future__ import annotations

import warnings
from typing import Any

from rankwise.errors import InvalidParameterError


def renamed_keyword(function: str, old: str, old_value: Any, new: str, new_value: Any, how: str = "") -> bool:
    """Whether the old keyword was given (``old_value`` not None), warning that ``new`` replaces it.

    ``how`` says how to write the old value in the new keyword when it is not the same value (``alpha = 1 -
    confidence``). Both given is refused: the new keyword's default is None, so that a value given, even its
    usual one (``alpha=0.05``) or an empty list, is told from one left out."""
    if old_value is None:
        return False
    if new_value is not None:
        raise InvalidParameterError(f"{function}() got both {old}= and {new}=; {old}= is the old name of {new}= "
                                    f"({how or 'the same value'}): give {new}= only")
    warnings.warn(f"{function}({old}=...) is deprecated and will be removed in the next release: use {new}= "
                  f"({how or 'the same value'})", DeprecationWarning, stacklevel=3)
    return True
