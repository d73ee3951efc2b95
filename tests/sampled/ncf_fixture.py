"""A tiny NCF split (three test lines, m = 4) and a run scoring it, written to a folder for the tests."""
from __future__ import annotations

# Three test lines, m = 4 negatives. Line 2 lists its held-out item 2 among its negatives.
TEST = "0\t1\t5\t100\n1\t2\t3\t101\n2\t0\t4\t102\n"
NEGATIVES = "(0,1)\t2\t3\t4\t5\n(1,2)\t0\t2\t3\t5\n(2,0)\t1\t3\t4\t5\n"
TRAIN = "0\t6\t5\t1\n1\t6\t4\t2\n1\t7\t4\t3\n"  # user 0: {6}; user 1: {6, 7}; user 2: none
# user 0: positive 1 at 0.5; 2 above; 3 and 4 tied; 5 below         -> greater 1, tied 2
# user 1: positive 2 at 0.7; 0 above; 3 tied; 5 below; 2 = itself     -> greater 1, tied 1 (+1 self copy)
# user 2: positive 0 at 0.3; 1 and 3 above; 4 below; (2, 5) unscored  -> greater 2, tied 0
RUN = """0 Q0 1 1 0.5 t
0 Q0 2 1 0.9 t
0 Q0 3 1 0.5 t
0 Q0 4 1 0.5 t
0 Q0 5 1 0.1 t
0 Q0 7 1 0.8 t
1 Q0 2 1 0.7 t
1 Q0 0 1 0.8 t
1 Q0 3 1 0.7 t
1 Q0 5 1 0.2 t
2 Q0 0 1 0.3 t
2 Q0 1 1 0.6 t
2 Q0 3 1 0.6 t
2 Q0 4 1 0.1 t
u9 Q0 1 1 0.4 t
0 Q0 05 1 0.4 t
"""


def write_ncf(tmp_path, train=False):
    (tmp_path / "toy.test.rating").write_text(TEST)
    (tmp_path / "toy.test.negative").write_text(NEGATIVES)
    if train:
        (tmp_path / "toy.train.rating").write_text(TRAIN)
    (tmp_path / "run.txt").write_text(RUN)
    return tmp_path / "toy", tmp_path / "run.txt"
