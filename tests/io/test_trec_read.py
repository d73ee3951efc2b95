"""TREC file reading, from bytes read whole and from a memory map (large plain files are mapped):
both must accept and reject the same files, with the same line numbers in the errors."""
import gzip
import mmap

import pytest

import rankwise as rw
from rankwise.io import run_tags, trec

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


# comment lines: '#' first after any blanks, as trec_eval 10.0 skips them in runs (get_trec_results.c); a '#' inside
# an id (MS MARCO's segment ids) is data. Blanked, not removed: every error still names its physical line
COMMENTED_RUN = (b"# made by bm25, 2026\nq1 Q0 d1 1 0.9 t\n  # indented\nq1 Q0 d2 2 0.5 t\n#q9 Q0 d1 1 1 t\n"
                 b"\t#\tnote\nq2 Q0 d3 1 0.1 t\nq2 Q0 d#1 2 0.1 t\n# the end")
COMMENTED_QRELS = b"# judged by NIST\nq1 0 d1 1\n# two comments\n# in a row\nq1 0 d2 0\nq2 0 d3 2\n# last line\n"


@pytest.mark.parametrize("crlf", [False, True])
def test_comment_lines_are_skipped(tmp_path, mode, crlf):
    def fix(b):
        return b.replace(b"\n", b"\r\n") if crlf else b
    (tmp_path / "r.run").write_bytes(fix(COMMENTED_RUN))
    (tmp_path / "q.qrels").write_bytes(fix(COMMENTED_QRELS))
    want = {"q1": {"d1": 0.9, "d2": 0.5}, "q2": {"d3": 0.1, "d#1": 0.1}}
    assert rw.Run.read(tmp_path / "r.run").to_dict() == want
    assert rw.Qrels.read(tmp_path / "q.qrels").to_dict() == QRELS_DICT
    assert run_tags.read_run_tag(tmp_path / "r.run") == "t"  # (the last data line's: trec_eval's runid)
    strict = trec._strict_parse(fix(COMMENTED_RUN).replace(b"\r", b""), "r.run", trec.RUN_LAYOUT, 4)
    assert strict[0].tolist() == ["q1", "q1", "q2", "q2"] and strict[3].tolist() == [2, 4, 7, 8]


def test_errors_after_comment_lines_name_the_physical_line(tmp_path, mode):
    path = tmp_path / "bad.run"
    path.write_bytes(b"# header\n# more\nq1 Q0 d1 1 0.5 t\n  # note\nq1 Q0 d2 2 abc t\n")
    with pytest.raises(rw.ParseError, match="not a number") as info:
        rw.Run.read(path)
    assert info.value.line == 5
    path.write_bytes(b"# header\nq1 Q0 d1 1 0.5 t\n# note\nq1 Q0 d1 2 0.4 t\n")
    with pytest.raises(rw.ParseError, match="already appeared on line 2") as info:
        rw.Run.read(path)
    assert info.value.line == 4


def test_a_file_of_comments_only_is_empty(tmp_path, mode):
    (tmp_path / "c.run").write_bytes(b"# nothing\n  # here\n\n")
    with pytest.raises(rw.ParseError, match="empty"):
        rw.Run.read(tmp_path / "c.run")


def test_hash_inside_ids_is_no_comment():
    assert not trec.has_comment(b"q1 Q0 msmarco_v2.1_doc_00_0#1_2 1 0.5 t\nq1 Q0 d#2 2 0.4 t\n")
    assert trec.has_comment(b"q1 Q0 d1 1 0.5 t\n\t # x\n")
    assert trec.has_comment(b"# x\nq1 Q0 d1 1 0.5 t\n")
    assert not trec.has_comment(b" q1 Q0 d#1 1 0.5 t\n")


@pytest.mark.parametrize("gz", [False, True])
@pytest.mark.parametrize("between", ["blank", "comment", "both"])
@pytest.mark.parametrize("block_bytes", [16, 40, 64, 100, 1 << 20])
def test_streamed_blocks_skip_comments_and_never_split_a_query(tmp_path, block_bytes, between, gz):
    """Blank or comment lines among a query's lines, at any cut: the blocks give the in-memory values (a query
    cut in two after a blank line was a 'not contiguous' error, however contiguous its lines were)."""
    from tests.io.streamed import streamed

    lines = []
    for q in range(6):
        for r in range(5):
            lines.append(f"q{q} Q0 d{r}#{q} {r + 1} {5 - r} t")
            if r in (1, 3):
                comment = between == "comment" or (between == "both" and (q + r) % 2)
                lines.append("# between" if comment else "")
    head, tail = ("", "\n") if between == "blank" else ("\ufeff# head\n", "\n# tail\n\n")
    text = (head + "\n".join(lines) + tail).encode()
    (tmp_path / "r.run").write_bytes(gzip.compress(text) if gz else text)  # (gzip: read in order, not mapped)
    (tmp_path / "q.qrels").write_text("".join(f"q{q} 0 d{q % 5}#{q} 1\n" for q in range(6)))
    want = rw.evaluate(rw.Qrels.read(tmp_path / "q.qrels"), rw.Run.read(tmp_path / "r.run"), ["AP", "P@3"])
    got = streamed(tmp_path / "q.qrels", tmp_path / "r.run", ["AP", "P@3"], block_bytes=block_bytes)
    for m in ("AP", "P@3"):
        assert got.values[m].tolist() == want.values[m].tolist()
    assert want.values["AP"].size == 6


@pytest.mark.parametrize("gz", [False, True])
@pytest.mark.parametrize("text", [
    b"\xef\xbb\xbfq1 Q0 d1 1 3 t\n",  # a byte-order mark, then the one data line
    b"\xef\xbb\xbfq1 Q0 d1 1 3 t",
    b"\xef\xbb\xbfq1 Q0 d1 1 3 t\n# end\n",
    b"#c\rq1 Q0 d1 1 3 t\rq2 Q0 d1 1 3 t\r",  # lines ended by a lone CR, a comment first
    b"\xef\xbb\xbf# c\nq1 Q0 d1 1 3 t\nq2 Q0 d1 1 3 t\n",
], ids=["bom", "bom_no_newline", "bom_comment_last", "cr_only", "bom_comment_first"])
@pytest.mark.parametrize("block_bytes", [1, 2, 3, 8, 1 << 20])
def test_streamed_edges_read_as_in_memory(tmp_path, gz, text, block_bytes):
    from tests.io.streamed import streamed

    (tmp_path / "q.qrels").write_bytes(b"q1 0 d1 1\nq1 0 d2 1\nq2 0 d1 1\n")
    (tmp_path / "r.run").write_bytes(gzip.compress(text) if gz else text)
    want = rw.evaluate(rw.Qrels.read(tmp_path / "q.qrels"), rw.Run.read(tmp_path / "r.run"), ["AP"])
    got = streamed(tmp_path / "q.qrels", tmp_path / "r.run", ["AP"], block_bytes=block_bytes)
    assert got.query_ids.tolist() == want.query_ids.tolist() and got.values["AP"].tolist() == want.values["AP"].tolist()
    assert run_tags.read_run_tag(tmp_path / "r.run") == "t"
