"""SystemNotices: several systems' warnings said once for a comparison, each notice with its systems."""
from __future__ import annotations

import warnings

import pytest

import rankwise as rw
from rankwise.evaluation.notices import SystemNotices


def test_each_notice_once_with_its_systems_in_order_at_the_user_s_line():
    notices = SystemNotices()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for system, texts in (("bm25", ["ties", "3 queries skipped"]), ("dense", ["ties"]), ("splade", [])):
            with notices.of(system):
                for text in texts:
                    warnings.warn(text, rw.RankwiseWarning, stacklevel=1)
                if system == "dense":
                    warnings.warn("not rankwise's", DeprecationWarning, stacklevel=1)
        assert [str(w.message) for w in caught] == ["not rankwise's"]  # (shown when said, not held)
        notices.say()
        notices.say()  # (said once: nothing is left to say)
    assert [(w.category, str(w.message)) for w in caught] == [
        (DeprecationWarning, "not rankwise's"),
        (rw.RankwiseWarning, "bm25, dense: ties; bm25: 3 queries skipped")]
    assert {w.filename for w in caught} == {__file__}


def test_other_libraries_warnings_keep_their_filters():
    """A filter the user set by module still applies: the warning is not re-said from rankwise's frame."""
    notices = SystemNotices()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=UserWarning, module=__name__)
        with notices.of("a"):
            warnings.warn("from this module", UserWarning, stacklevel=1)
        notices.say()
    assert caught == []


def test_what_was_said_before_a_failure_is_said():
    notices = SystemNotices()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with notices.of("a"):
            warnings.warn("ties", rw.RankwiseWarning, stacklevel=1)
        with pytest.raises(ValueError):
            try:
                with notices.of("b"):
                    warnings.warn("ties", rw.RankwiseWarning, stacklevel=1)
                    raise ValueError("b's run is refused")
            finally:
                notices.say()
    assert [str(w.message) for w in caught] == ["a, b: ties"]


def test_nothing_warned_nothing_said():
    notices = SystemNotices()
    with notices.of("a"):
        pass
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        notices.say()
    assert caught == []
