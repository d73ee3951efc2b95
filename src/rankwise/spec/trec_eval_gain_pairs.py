"""trec_eval's gain parameters in a metric's name: ``ndcg.1=4,3=0`` is ``nDCG(gain={1:4;3:0;other:grade})``.

trec_eval's ``-m ndcg.<level>=<gain>,...`` (usnistgov/trec_eval, m_ndcg.c's help and meas_init.c's
get_param_pairs, read at commit 214fd0b / 0bcaaa8) gives the listed relevance levels those gains and leaves every
other level at its default gain, the level itself (setup_gains); ndcg_rel and Rndcg take the same pairs. Its
per-query lines print the measure as ``ndcg_1=4,3=0``, so that spelling is read too. The translation keeps that
meaning under any convention (``other:grade`` in the map), so the number is trec_eval's wherever the rest of the
convention is. Levels are whole numbers (trec_eval reads them with atol, so ``1.5=3`` would silently be level 1:
refused here); gains any finite number.
"""
from __future__ import annotations

import math
import re

from rankwise.errors import InvalidParameterError

# trec_eval's measures whose parameters are level=gain pairs, as rankwise names them (lower case)
GAIN_PAIR_MEASURES = {"ndcg": "nDCG", "ndcg_rel": "nDCGRel", "rndcg": "RnDCG"}
_PAIR = r"[^,=\s(){}@;:]+=[^,=\s(){}@;:]+"  # no bracket: ndcg_rel(gain=linear) is the metric grammar's
_STEMS = "|".join(sorted(GAIN_PAIR_MEASURES, key=len, reverse=True))  # ndcg_rel before ndcg
_FORM = re.compile(rf"^\s*(?P<stem>{_STEMS})[._](?P<pairs>{_PAIR}(?:,{_PAIR})*)\s*$", re.IGNORECASE)


def gain_pairs_to_metric(text: str) -> str | None:
    """The metric string ``text`` means when it is trec_eval's ``<measure>.<level>=<gain>,...``, else None."""
    m = _FORM.match(text)
    if m is None:
        return None
    metric = GAIN_PAIR_MEASURES[m.group("stem").lower()]
    entries = []
    seen: set[int] = set()
    for pair in m.group("pairs").split(","):
        level, gain = pair.split("=")
        if not re.fullmatch(r"-?\d+", level):
            raise InvalidParameterError(
                f"{text!r}: trec_eval's {m.group('stem')} parameters are <relevance level>=<gain> with a whole "
                f"level; got level {level!r} in {pair!r} (e.g. {m.group('stem')}.1=3,2=7)")
        try:
            value = float(gain)
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            raise InvalidParameterError(f"{text!r}: the gain of level {level} must be a finite number; got {gain!r} "
                                        f"(e.g. {m.group('stem')}.{level}=3)")
        if int(level) in seen:
            raise InvalidParameterError(f"{text!r}: level {level} is given twice; give each level one gain")
        seen.add(int(level))
        entries.append(f"{int(level)}:{gain}")
    return f"{metric}(gain={{{';'.join(entries)};other:grade}})"
