"""The one MuCGEC / ChERRANT parallel-text reader (gecscore.mucgec)."""

from __future__ import annotations

import pytest

from gecscore.errors import InputFormatError, split_lines
from gecscore.extract import ParallelFormatError, parse_parallel
from gecscore.mucgec import ParallelLine, parallel_rows


def test_rows_keep_id_source_targets_and_line() -> None:
    text = "\ufeff1\t他去\t他去了\t他走了\r\n2\t我来\t没有错误\n\n \n"
    rows = parse_parallel(text, name="f.txt")  # trailing blank lines ignored
    assert rows == [
        ParallelLine("1", "他去", ("他去了", "他走了"), 1),
        ParallelLine("2", "我来", ("没有错误",), 2),
    ]


def test_references_may_be_optional() -> None:
    assert list(parallel_rows(["7\t他去"], name="f", min_targets=0)) == [
        ParallelLine("7", "他去", (), 1)
    ]
    with pytest.raises(InputFormatError, match=r"f, line 1: expected 'id<TAB>source<TAB>target"):
        list(parallel_rows(["7\t他去"], name="f"))


def test_a_blank_line_inside_is_an_error_with_its_line() -> None:
    with pytest.raises(ParallelFormatError, match=r"f, line 2: empty line"):
        list(
            parallel_rows(split_lines("1\ta\tb\n\n2\tc\td\n"), name="f", error=ParallelFormatError)
        )


def test_rows_come_lazily_so_the_first_bad_line_is_reported_first() -> None:
    # Line 2 has an empty source (the extractor's check), line 3 too few fields.
    with pytest.raises(ParallelFormatError, match=r"line 2: empty source"):
        parse_parallel("1\t他去\t他去了\n2\t \t没有错误\n3\t只有\n", name="f")
