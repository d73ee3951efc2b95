# the C extension's one function (_trec_native.c); io/trec_native.py is its caller
def parse_text(
    text: bytes | memoryview, fields: int, value_field: int, rank_field: int, /
) -> tuple[bytearray, int, bytearray, bytearray | None, bytearray, bytes, bytes] | None: ...
