"""Issue #13: one column guesser for the API and the CLI; ids in files never silently mismatch."""
import json
import subprocess
import sys

import pytest

import rankwise as rw
from rankwise.io.tabular import read_qrels_file, read_run_file

CLI = [sys.executable, "-m", "rankwise.cli.main"]


def cli(*args):
    return subprocess.run([*CLI, *map(str, args)], capture_output=True, text=True, timeout=120)


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


@pytest.mark.slow  # starts `python -m rankwise.cli.main`: about 0.5 s
def test_api_and_cli_read_a_recommender_csv_the_same_way(tmp_path):
    test = write(tmp_path, "test.csv", "userId,movieId,rating,timestamp\n1,10,4.0,5\n2,20,5.0,6\n10,30,3.0,7\n")
    recs = write(tmp_path, "recs.csv", "user,item,score\n1,10,2\n1,11,1\n2,21,2\n2,20,1\n10,31,2\n10,30,1\n")
    res = rw.evaluate(test, recs, ["RR"])
    assert res["RR"] == pytest.approx((1 + 0.5 + 0.5) / 3)
    p = cli("evaluate", test, recs, "-m", "RR", "--format", "json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["metrics"]["RR"] == pytest.approx(res["RR"])


@pytest.mark.slow  # starts `python -m rankwise.cli.main`: about 0.5 s
def test_a_file_without_relevance_means_every_row_relevant(tmp_path):
    test = write(tmp_path, "test.csv", "user,item\n1,10\n1,12\n2,20\n")
    qrels = read_qrels_file(test)
    assert list(qrels.relevance) == [1.0, 1.0, 1.0]
    recs = write(tmp_path, "recs.csv", "user,item,rank\n1,12,1\n1,10,2\n2,20,2\n2,21,1\n")
    run = read_run_file(recs)  # no score: the rank column orders the rows, rank 1 first
    assert rw.evaluate(qrels, run, ["RR"]).per_query("RR") == {1: 1.0, 2: 0.5}
    p = cli("evaluate", test, recs, "-m", "RR", "--format", "json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["metrics"]["RR"] == pytest.approx(0.75)


@pytest.mark.slow  # starts `python -m rankwise.cli.main`: about 0.5 s
def test_an_ambiguous_header_is_an_error_in_the_api_and_the_cli(tmp_path):
    qrels = write(tmp_path, "q.csv", "user,userId,item,rating\n1,1,10,1\n")
    with pytest.raises(rw.ParseError, match=r"q.csv:1: several columns could hold the query id: \['user', 'userId'\]"):
        read_qrels_file(qrels)
    assert len(read_qrels_file(qrels, query="userId")) == 1
    assert len(read_qrels_file(qrels, columns={"query": "user"})) == 1
    run = write(tmp_path, "r.csv", "user,item,score\n1,10,1\n")
    p = cli("evaluate", qrels, run, "-m", "RR")
    assert p.returncode != 0
    assert "several columns could hold the query id" in p.stderr and "--query-column" in p.stderr
    assert "Traceback" not in p.stderr


def test_integral_decimal_ids_in_a_csv_are_the_integers_they_hold(tmp_path):
    qrels = write(tmp_path, "q.csv", "user,item,rating\n1,10,1\n")
    run = write(tmp_path, "r.csv", "user,item,score\n1.0,10.0,2\n1.0,11.0,1\n")
    assert list(read_run_file(run).doc_ids()) == ["10", "11"]
    assert rw.evaluate(qrels, run, ["RR"])["RR"] == 1.0


def test_a_missing_id_in_a_csv_is_an_error_naming_column_and_line(tmp_path):
    qrels = write(tmp_path, "q.csv", "user,item,rating\n1,10,1\n,11,1\n")
    with pytest.raises(rw.ParseError, match=r"q.csv:3: the id in column 'user' is missing"):
        read_qrels_file(qrels)


def test_a_null_id_in_parquet_is_an_error(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq
    path = tmp_path / "q.parquet"
    pq.write_table(pa.table({"user": [1.0, None], "item": [10, 11]}), path)
    with pytest.raises(rw.ParseError, match=r"column 'user', row 1: the id is missing"):
        read_qrels_file(path)
    pq.write_table(pa.table({"user": [1.0, 2.0], "item": [10.0, 11.0]}), path)
    q = read_qrels_file(path)
    assert list(q.query_ids) == ["1", "2"] and list(q.doc_ids()) == ["10", "11"]


@pytest.mark.slow  # starts `python -m rankwise.cli.main`: about 0.5 s
def test_the_cli_exits_non_zero_when_no_query_is_shared(tmp_path):
    qrels = write(tmp_path, "q.csv", "user,item\n007,10\n008,11\n")
    run = write(tmp_path, "r.csv", "user,item,score\n7,10,1\n8,11,1\n")
    p = cli("evaluate", qrels, run, "-m", "RR")
    assert p.returncode != 0
    assert "share no query" in p.stderr and "'007'" in p.stderr and "zero-padded" in p.stderr


def test_integer_ids_of_a_csv_key_results_by_ints_in_numeric_order_as_a_dataframe_would(tmp_path):
    pd = pytest.importorskip("pandas")
    test = write(tmp_path, "test.csv", "user,item\n10,1\n2,1\n1,1\n100,1\n7,1\n")
    recs = write(tmp_path, "recs.csv", "user,item,score\n1,1,1\n2,2,1\n10,1,1\n100,1,1\n")
    res = rw.evaluate(test, recs, ["RR"])
    assert list(res.per_query("RR")) == [1, 2, 10, 100]
    assert res.set_aside == {"missing_in_run": (7,)}
    from_frames = rw.evaluate(pd.read_csv(test), pd.read_csv(recs), ["RR"])
    assert from_frames.per_query("RR") == res.per_query("RR") and from_frames.set_aside == res.set_aside
    # the same ids from Parquet (integer columns) and from a CSV whose ids are not plain integers
    pd.read_csv(test).to_parquet(tmp_path / "test.parquet")
    assert rw.evaluate(tmp_path / "test.parquet", recs, ["RR"]).per_query("RR") == res.per_query("RR")
    padded = write(tmp_path, "padded.csv", "user,item\n010,1\n2,1\n")
    assert read_qrels_file(padded).query_id_type == "str"  # '010' is not 10: kept as text


def test_json_keys_written_as_integral_decimals_are_the_integers_they_hold(tmp_path):
    qrels = write(tmp_path, "q.json", json.dumps({"1.0": {"10.0": 1}, "2": {"20": 1}}))
    run = write(tmp_path, "r.json", json.dumps({"1": {"10": 2.0, "11": 1.0}, "2.0": {"20.00": 1.0}}))
    assert rw.evaluate(qrels, run, ["RR"]).per_query("RR") == {"1": 1.0, "2": 1.0}
    clash = write(tmp_path, "c.json", '{"1": {"10": 1, "10.0": 1}}')
    with pytest.raises(rw.ParseError, match="'10' and '10.0'"):
        read_qrels_file(clash)


def test_a_table_whose_relevance_looks_like_timestamps_is_flagged_in_files_and_frames(tmp_path):
    pd = pytest.importorskip("pandas")
    rows = "".join(f"{u},{10 + u},{881250949 + 37 * u}\n" for u in range(12))
    path = write(tmp_path, "u.csv", "user,item,label\n" + rows)
    with pytest.warns(rw.RankwiseWarning, match=r"Column 'label' \(read as relevance\) does not look like"):
        read_qrels_file(path)
    pd.read_csv(path).to_parquet(tmp_path / "u.parquet")
    with pytest.warns(rw.RankwiseWarning, match="--relevance-column"):
        read_qrels_file(tmp_path / "u.parquet")
    with pytest.warns(rw.RankwiseWarning, match="timestamps or ids"):
        rw.Qrels.from_frame(pd.read_csv(path))
