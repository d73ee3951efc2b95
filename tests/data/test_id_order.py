"""rankwise.data.id_order: text ids sorted through packed integer keys come out in numpy's string order, for
ids of one, two and four bytes a code point, empty ids, ids that prefix others, embedded NULs, and ids too
long to pack (numpy's own sort then); unique_ids is np.unique(..., return_counts=True)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankwise.data.id_order import MAX_KEY_WORDS, _packed_keys, argsort_ids, one_word_keys, unique_ids

# code points of every packed size: ASCII, Latin-1 (one byte), the BMP (two), beyond it (four), and NUL
ALPHABET = ["a", "b", "0", "\x00", "é", "ÿ", "Ā", "中", "\uffff", "😀", "\U0010ffff"]
texts = st.lists(st.text(alphabet=st.sampled_from(ALPHABET), max_size=12), max_size=50)


def _ids(values: list[str]) -> np.ndarray:
    return np.array(values, dtype=str) if values else np.zeros(0, dtype="U1")


def _check(ids: np.ndarray) -> None:
    assert np.array_equal(argsort_ids(ids), np.argsort(ids, kind="stable"))  # (equal ids in their order)
    got, want = unique_ids(ids), np.unique(ids, return_counts=True)
    assert got[0].dtype == want[0].dtype and got[1].dtype == want[1].dtype
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


@settings(max_examples=100, deadline=None)
@given(texts)
def test_order_and_uniques_are_numpy_s(values):
    _check(_ids(values))


@pytest.mark.parametrize("ids", [
    ["b", "a", "", "ab", "a\x00b", "a", ""],  # the empty id and prefixes first; NUL inside an id
    ["10", "9", "1", "100", "09", "9"],  # text order, not numeric
    ["é", "e", "ÿ", "z"],  # one byte a code point above ASCII
    ["中", "Ā", "a", "\uffff"],  # two bytes
    ["😀", "\uffff", "a", "\U0010ffff"],  # four bytes
])
def test_small_cases(ids):
    _check(_ids(ids))


def test_keys_are_packed_until_too_wide():
    narrow = _ids(["x" * 8 * MAX_KEY_WORDS, "y"])  # 32 one-byte code points: four words
    keys = _packed_keys(narrow)
    assert keys is not None and keys.shape == (2, MAX_KEY_WORDS)
    assert keys[1, 0] == int.from_bytes(b"y" + bytes(7), "big") and not keys[1, 1:].any()
    assert _packed_keys(_ids(["x" * (8 * MAX_KEY_WORDS + 1)])) is None
    assert _packed_keys(_ids(["中" * (4 * MAX_KEY_WORDS + 1)])) is None  # two bytes a code point: 17 need five
    _check(_ids(["x" * 40, "x" * 39 + "a", "y", "x" * 40]))  # too wide: numpy's sort, same answers


def test_many_query_ids_in_numpy_s_order():
    rng = np.random.default_rng(7)
    judged = np.array([str(i) for i in rng.permutation(np.arange(1, 30_001))])
    ranked = np.array([f"{i}" for i in rng.integers(1, 36_000, 30_000)])
    _check(np.concatenate((judged, ranked)))


def test_other_dtypes_are_numpy_s():
    ints = np.array([5, 3, 9, 3])
    assert np.array_equal(argsort_ids(ints), np.argsort(ints, kind="stable"))
    _check(np.array([b"b", b"a", b"a"]))


def test_big_endian_text_is_sorted_by_its_code_points():
    """A '>U' array (read from a big-endian source) sorts as the same ids stored natively: viewed as native
    words its code points were other numbers, and a vocabulary's lookups then missed ids."""
    ids = np.array(["\u0101", "\xff", "b", "", "\U0001f600", "a\x00b"], dtype=">U3")
    native = ids.astype("=U3")
    np.testing.assert_array_equal(argsort_ids(ids), np.argsort(native, kind="stable"))
    got, counts = unique_ids(np.r_[ids, ids[:2]])
    want, want_counts = np.unique(np.r_[native, native[:2]], return_counts=True)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(counts, want_counts)


def _codes_by_text(vocab_ids: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The reference: each value's position in the vocabulary's ids, -1 when absent (dict lookup of the text)."""
    where = {str(v): i for i, v in enumerate(vocab_ids.tolist())}
    return np.array([where.get(str(v), -1) for v in values.tolist()], dtype=np.int64)


short = st.lists(st.text(alphabet=st.sampled_from(ALPHABET[:6] + ["z"]), max_size=9), max_size=40)


@settings(max_examples=150, deadline=None)
@given(short, st.lists(st.text(alphabet=st.sampled_from(ALPHABET), max_size=11), max_size=30), st.booleans())
def test_codes_of_by_one_word_keys_is_the_text_lookup(vocab, extra, appearance):
    """Vocabulary.codes_of looks ids up as integers when every id of the vocabulary fits one word (at most 8
    code points below 256); values that do not fit (longer, other code points) are absent, as by text."""
    from rankwise.data.vocabulary import Vocabulary, intern

    vocab_ids = np.unique(_ids(vocab)) if not appearance else intern(_ids(vocab), order="appearance")[0].ids
    v = Vocabulary(vocab_ids, is_sorted=not appearance)
    values = _ids(vocab[::2] + extra)
    assert np.array_equal(v.codes_of(values), _codes_by_text(vocab_ids, values))
    assert (v._sorted_words is not None) == bool(one_word_keys(vocab_ids)[1].all())  # (the path taken)
