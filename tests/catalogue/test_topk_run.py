"""top_k lists feed the engine as a Run that keeps their exact order."""
import numpy as np
import scipy.sparse as sp

import rankwise as rw
from rankwise.catalogue import top_k


def test_top_k_to_run_is_evaluated_in_list_order():
    scores = np.array([[0.1, 0.9, 0.5, 0.5, 0.0], [1.0, 1.0, 0.2, 0.3, 0.4]])
    train = sp.csr_matrix(np.array([[0, 0, 0, 0, 1], [0, 1, 0, 0, 0]]))
    lists = top_k(scores, train, 3)
    run = lists.to_run(user_ids=["u0", "u1"], item_ids=[f"i{j}" for j in range(5)])
    qrels = rw.Qrels.from_dict({"u0": {"i3": 1}, "u1": {"i4": 1}})
    res = rw.evaluate(qrels, run, ["RR"], ties="docid_asc")
    # u0: i1 (0.9), then the tie i2/i3 broken by lower index -> i3 third; u1: i0, i4, i3
    assert res.per_query("RR") == {"u0": 1 / 3, "u1": 1 / 2}
