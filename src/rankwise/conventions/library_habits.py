"""What some libraries do that a preset reproduces, for the notices to know when to keep quiet or speak.

``OWN_TIE_ORDER``: presets whose tie policy *is* the library's own order of tied scores, whatever the input
(so a tie it decides is the value that library reports, and saying so on every call is noise; the count
stays in ``Results.info``). Left out: libraries whose order of ties follows no rule (torchmetrics' and
RecBole's torch.topk, TF-Ranking's shuffle, ranx's undocumented permutation, cornac's unspecified order
beyond k), and 'input' presets whose library sorts the scores itself (implicit: its own lists only).

``EVERY_TEST_ROW_RELEVANT``: presets whose library counts every test row relevant (binary relevance from
the test interactions, no rating threshold): a grade column picked up from a recommender's test frame
(``rating``) then makes rows below rankwise's ``rel`` threshold non-relevant where the library would not.
"""
from __future__ import annotations

OWN_TIE_ORDER = frozenset({
    "trec_eval", "trec_eval_10", "trec_eval_9.0.8",  # docid_desc: trec_eval's qsort by score, then doc id
    "ir_measures", "beir",  # pytrec_eval: trec_eval's own code
    "mllib",  # RankingMetrics reads each prediction list in the order given (ties='input')
    "recommenders",  # a stable sort by score: tied rows keep their order (ties='input')
    "lenskit", "elliot", "rectools",  # lists scored in the order given (rectools: its rank column)
    "replay",  # re-sorted by score, ties by item id descending, numeric when numbers (docid_desc_numeric)
})

EVERY_TEST_ROW_RELEVANT = frozenset({
    "recbole", "rectools", "replay", "recommenders", "lenskit", "implicit",  # their notes: binary, any test row
    "mllib",  # RankingMetrics takes the set of relevant items: every label listed is relevant
})
