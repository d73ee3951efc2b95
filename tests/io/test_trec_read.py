"""TREC file reading, from bytes read whole and from a memory map (large plain files are mapped):
both must accept and reject the same files, with the same line numbers in the errors."""
import gzip
import mmap

import pytest

import rankwise as rw
from rankwise.io import trec

RUN = "q1 Q0 d1 1 0.9 t\nq1 Q0 d2 2 0.5 t\nq2 Q0 d3 1 0.1 t\nq2 Q0 d1 2 0.1 t\n"
QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\n"
RUN_DICT = {"q1": {"d1": 0.9, "d2": 0.5}, "q2": {"d3": 0.1, "d1": 0.1}}
QRELS_DICT = {"q1": {"d1": 1.0, "d2": 0.0}, "q2": {"d3": 2.0}}


@pytest.fixture(params=["read", "mapped"])
def mode(request, monkeypatch):
    if request.param == "mapped":
        monkeypatch.setattr(trec, "_MAP_MIN_BYTES", 0)
    return request.param


VALID = {
    "plain": lambda t: t,
    "bom_crlf_no_final_newline": lambda t: "\ufeff" + t.replace("\n", "\r\n").rstrip("\r\n"),
    "tabs_spaces_blank_lines": lambda t: "".join("\t" + "  \t ".join(line.split()) + " \t\n\n"
                                                 for line in t.splitlines()),
    "tabs_only": lambda t: t.replace(" ", "\t"),
}


@pytest.mark.parametrize("variant", list(VALID))
def test_valid_files_read_alike(tmp_path, mode, variant):
    (tmp_path / "r.run").write_bytes(VALID[variant](RUN).encode())
    (tmp_path / "q.qrels").write_bytes(VALID[variant](QRELS).encode())
    if mode == "mapped" and variant == "plain":
        assert isinstance(trec._map_file(str(tmp_path / "r.run")), mmap.mmap)
    assert rw.Run.read(tmp_path / "r.run").to_dict() == RUN_DICT
    assert rw.Qrels.read(tmp_path / "q.qrels").to_dict() == QRELS_DICT


def test_gzip_is_never_mapped(tmp_path, mode):
    (tmp_path / "r.run.gz").write_bytes(gzip.compress(RUN.encode()))
    assert trec._map_file(str(tmp_path / "r.run.gz")) is None
    assert rw.Run.read(tmp_path / "r.run.gz").to_dict() == RUN_DICT


BAD = {  # bytes of a run file -> (line, substrings of the error)
    "too_few_columns": (b"q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 0.4\n", 2, ["q1 Q0 d2 2 0.4", "5 columns"]),
    "not_a_number": (b"q1 Q0 d1 1 0.5 t\n\nq1 Q0 d2 2 abc t\n", 3, ["abc", "not a number"]),
    "nul_byte": (b"q1 Q0 d1 1 0.5 t\n\x00\x01garbage\n", 2, ["binary"]),
    "not_utf8": (b"q1 Q0 d1 1 0.5 t\nq1 Q0 d\xff\xfe 2 0.4 t\n", 2, ["UTF-8"]),
    "duplicate_pair": (b"q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 0.4 t\r\nq1 Q0 d1 3 0.3 t\n", 3, ["d1", "line 1", "duplicate"]),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_files_fail_alike_with_the_line(tmp_path, mode, case):
    data, line, must = BAD[case]
    path = tmp_path / "bad.run"
    path.write_bytes(data)
    with pytest.raises(rw.ParseError) as info:
        rw.Run.read(path)
    assert info.value.line == line
    for s in must:
        assert s in str(info.value), str(info.value)


def test_empty_file(tmp_path, mode):
    (tmp_path / "e.run").write_bytes(b" \n\n")
    with pytest.raises(rw.ParseError, match="empty"):
        rw.Run.read(tmp_path / "e.run")
    (tmp_path / "z.run").write_bytes(b"")
    with pytest.raises(rw.ParseError, match="empty"):
        rw.Run.read(tmp_path / "z.run")


# vertical tab and form feed separate fields for the strict parser (bytes.split()) as for trec_eval (isspace(), in
# get_trec_results.c's parse_results_line); pyarrow's CSV reader would keep them inside a field
OTHER_SPACE = {
    "vertical_tab_between_fields": (b"q1\x0bQ0 d1 1 0.9 t\nq1 Q0 d2\x0c2 0.5 t\n", {"q1": {"d1": 0.9, "d2": 0.5}}),
    "form_feed_inside_a_doc_id": (b"q1 Q0 d1 1 0.9 t\nq1 Q0 d\x0c2 2 0.5 t\n", 2),
    "vertical_tab_inside_the_tag": (b"q1 Q0 d1 1 0.9 t\x0bx\nq1 Q0 d2 2 0.5 t\n", 1),
}


@pytest.mark.parametrize("case", list(OTHER_SPACE))
def test_vertical_tab_and_form_feed_separate_fields(tmp_path, mode, case):
    data, want = OTHER_SPACE[case]
    path = tmp_path / "r.run"
    path.write_bytes(data)
    if isinstance(want, dict):
        assert rw.Run.read(path).to_dict() == want
        return
    with pytest.raises(rw.ParseError, match="7 columns, expected 6") as info:
        rw.Run.read(path)
    assert info.value.line == want


@pytest.mark.parametrize("case", [c for c, (_, want) in OTHER_SPACE.items() if not isinstance(want, dict)])
def test_vertical_tab_and_form_feed_in_a_streamed_block(tmp_path, case):
    from tests.io.streamed import streamed

    data, line = OTHER_SPACE[case]
    (tmp_path / "q.qrels").write_bytes(b"q1 0 d1 1\n")
    path = tmp_path / "r.run"
    path.write_bytes(b"q0 Q0 d7 1 0.3 t\nq0 Q0 d8 2 0.2 t\nq0 Q0 d9 3 0.1 t\n" + data)  # (its own blocks before)
    with pytest.raises(rw.ParseError, match="7 columns, expected 6") as info:
        streamed(tmp_path / "q.qrels", path, ["P@1"], block_bytes=40)
    assert info.value.line == line + 3
