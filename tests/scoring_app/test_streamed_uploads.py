"""A system output is parsed as it is read: a request holds one line of the file and the
release's hypotheses, never the whole file. Millions of lines against a small release are
refused at the first line too many, in bounded memory; line ends and multi-byte characters
cut by the reader's chunk boundaries read as they would whole."""

from __future__ import annotations

import gzip
import tracemalloc

import pytest
from gecscore.boundedio import CHUNK_BYTES

from core.exceptions import ServiceError
from scoring.models import SystemOutput
from scoring.services.systems import upload_system_output
from scoring.uploads import upload_lines
from tests.factories import make_user
from tests.judgments.factories import make_release

SENTENCES = ["他去学校。", "我很好。", "今天天气不错。"]


def _peak_bytes(call) -> tuple[int, object]:  # type: ignore[no-untyped-def]
    tracemalloc.start()
    try:
        try:
            outcome: object = call()
        except ServiceError as error:
            outcome = error
        return tracemalloc.get_traced_memory()[1], outcome
    finally:
        tracemalloc.stop()


@pytest.mark.django_db
@pytest.mark.parametrize("shape", ["lines", "mucgec"])
def test_millions_of_lines_are_refused_at_the_first_line_too_many(shape: str) -> None:
    release = make_release(SENTENCES)
    user = make_user()
    line = "他去学校了。\n" if shape == "lines" else "1\t他去学校。\t他去学校了。\n"
    data = gzip.compress((line * 3_000_000).encode("utf-8"))  # 45-72 MB once decompressed
    peak, outcome = _peak_bytes(
        lambda: upload_system_output(
            version=release, name="huge", data=data, file_name="huge.txt.gz", user=user
        )
    )
    assert isinstance(outcome, ServiceError)
    expected = (
        "huge.txt.gz: more than 3 lines, but the release has 3 sentences"
        if shape == "lines"
        else "huge.txt.gz, line 2: id '1' already appeared on line 1"
    )
    assert expected in str(outcome)
    # A few chunks of the reader, not the file (reading it whole took hundreds of MB).
    assert peak < 4 * 1024 * 1024, f"peak {peak / 2**20:.1f} MiB"
    assert not SystemOutput.objects.exists()


@pytest.mark.django_db
def test_a_valid_output_is_read_whole_across_chunk_boundaries(settings) -> None:  # type: ignore[no-untyped-def]
    """CRLF split between two chunks, a three-byte character split between two chunks, a
    byte-order mark and no final newline: the hypotheses are the lines as written."""
    settings.GEC_MAX_SENTENCE_CHARS = 3 * CHUNK_BYTES  # lines as long as a chunk
    first = "他去学校了。"
    # Pad the first line so that its CRLF straddles the first chunk boundary.
    padding = CHUNK_BYTES - 3 - len(first.encode()) - 1
    line1 = first + "了" * (padding // 3) + "x" * (padding % 3)
    body = "\ufeff" + line1 + "\r\n"
    assert len(body.encode()) == CHUNK_BYTES + 1  # the LF is the next chunk's first byte
    # The second line's last character starts two bytes before the second boundary.
    line2 = "x" * (2 * CHUNK_BYTES - len(body.encode()) - 2) + "我很好。"
    data = (body + line2 + "\r\n今天天气不错").encode("utf-8")
    assert data[2 * CHUNK_BYTES - 2 : 2 * CHUNK_BYTES + 1] == "我".encode()
    assert list(upload_lines(data, file_name="out.txt")) == [line1, line2, "今天天气不错"]
    release = make_release(SENTENCES)
    system = upload_system_output(
        version=release, name="sys", data=data, file_name="out.txt", user=make_user()
    )
    assert system.hypotheses == [line1, line2, "今天天气不错"]


@pytest.mark.django_db
def test_bad_bytes_are_named_by_their_line() -> None:
    with pytest.raises(ServiceError, match=r"out.txt, line 3: the file is not UTF-8"):
        list(upload_lines(b"a\nb\n\xffc\n", file_name="out.txt"))
    with pytest.raises(ServiceError, match=r"out.txt, line 2: .*NUL"):
        list(upload_lines(b"a\nb\x00\n", file_name="out.txt"))
    # A file cut inside a character: the last line is not UTF-8.
    with pytest.raises(ServiceError, match=r"out.txt, line 2: the file is not UTF-8"):
        list(upload_lines("好\n好".encode()[:-1], file_name="out.txt"))
