"""Block-by-block evaluation of TREC run files equals in-memory evaluation, errors keep true line numbers."""
import gzip

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rankwise as rw
from tests.io.streamed import streamed

# random collections set queries aside and tie scores on purpose: the RankwiseWarnings that say so are
# tested in tests/evaluation/test_warnings.py, not repeated for every example here
pytestmark = pytest.mark.filterwarnings("ignore::rankwise.RankwiseWarning")

METRICS = ["nDCG@5", "AP", "RR", "P@3", "R@10", "bpref"]


def write_trec(tmp_path, qrels: dict, run: dict, gz=False):
    qp, rp = tmp_path / "q.qrels", tmp_path / ("r.run.gz" if gz else "r.run")
    qp.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    lines = "".join(f"{q}\tQ0 {d} {i} {s} tag\n" for q, docs in run.items() for i, (d, s) in enumerate(docs.items()))
    if gz:
        rp.write_bytes(gzip.compress(lines.encode()))
    else:
        rp.write_text(lines)
    return qp, rp


@pytest.mark.slow  # hypothesis, 40 files: about 3 s on 2 cores
@settings(max_examples=40, deadline=None)
@given(st.data())
def test_blocks_equal_in_memory(tmp_path_factory, data):
    tmp_path = tmp_path_factory.mktemp("s")
    qids = data.draw(st.lists(st.sampled_from([f"q{i}" for i in range(12)]), unique=True, min_size=1, max_size=8))
    docs = [f"d{i}" for i in range(9)]
    qrels = {q: {d: data.draw(st.sampled_from([0, 1, 2])) for d in data.draw(st.lists(st.sampled_from(docs),
             unique=True, min_size=1, max_size=5))} for q in qids[: max(1, len(qids) - 1)]}
    run = {q: {d: data.draw(st.sampled_from([0.5, 1.0, 2.0, 3.5])) for d in data.draw(st.lists(st.sampled_from(docs),
           unique=True, min_size=1, max_size=9))} for q in qids[1:] or qids}
    qp, rp = write_trec(tmp_path, qrels, run, gz=data.draw(st.booleans()))
    conv = data.draw(st.sampled_from(["trec_eval", "ir_measures", "mllib", "recsys_confusion"]))
    if not set(qrels) & set(run):  # no query in common: an error both ways (issue #13), never NaN means
        with pytest.raises(rw.DataError, match="share no query"):
            rw.evaluate(rw.Qrels.read(qp), rw.Run.read(rp), METRICS, convention=conv)
        with pytest.raises(rw.DataError, match="share no query"):
            streamed(qp, rp, METRICS, convention=conv, block_bytes=16)
        return
    want = rw.evaluate(rw.Qrels.read(qp), rw.Run.read(rp), METRICS, convention=conv)
    got = streamed(qp, rp, METRICS, convention=conv, block_bytes=data.draw(st.sampled_from([16, 64, 1 << 20])))
    assert list(got.query_ids) == list(want.query_ids)
    assert got.set_aside == want.set_aside
    # what the warnings say (ties a deterministic policy decided), counted block by block, is the same
    assert got.info.get("ties_decided_by_policy") == want.info.get("ties_decided_by_policy")
    for m in METRICS:
        np.testing.assert_allclose(got.values[m], want.values[m], atol=1e-12)
        assert got.n_averaged[m] == want.n_averaged[m]
        assert got.excluded[m] == want.excluded[m]
    # condensed lists: the unjudged rows removed are counted as in memory, over every block
    want = rw.evaluate(rw.Qrels.read(qp), rw.Run.read(rp), METRICS, convention=conv, unjudged="removed")
    got = streamed(qp, rp, METRICS, convention=conv, unjudged="removed", block_bytes=16)
    assert got.info.get("unjudged_removed", 0) == want.info.get("unjudged_removed", 0)
    for m in METRICS:
        np.testing.assert_allclose(got.values[m], want.values[m], atol=1e-12)


def test_a_query_split_across_the_file_is_an_error(tmp_path):
    qp = tmp_path / "q"
    qp.write_text("a 0 x 1\nb 0 y 1\n")
    rp = tmp_path / "r"
    rp.write_text("a Q0 x 1 1 t\nb Q0 y 1 1 t\na Q0 z 2 0.5 t\n")
    with pytest.raises(rw.DataError, match="not contiguous"):
        streamed(qp, rp, ["AP"], block_bytes=8)


def test_errors_name_the_true_line_of_the_file(tmp_path):
    qp = tmp_path / "q"
    qp.write_text("a 0 x 1\n")
    rp = tmp_path / "r"
    rp.write_text("".join(f"q{i} Q0 d 1 1 t\n" for i in range(50)) + "q99 Q0 d 1 oops t\n")
    with pytest.raises(rw.ParseError) as e:
        streamed(qp, rp, ["AP"], block_bytes=64)
    assert e.value.line == 51 and "oops" in str(e.value)
