from __future__ import annotations

import json
from pathlib import Path

import opencc
import pytest

from core.exceptions import ServiceError
from core.models import AuditLog
from datasets.formats import ImportFile
from datasets.models import Dataset, GoldenReference, Judgement, ReferenceKind, Sentence
from datasets.services.imports import import_dataset

pytestmark = pytest.mark.django_db


def read_mucgec(path: Path) -> list[list[str]]:
    return [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()]


def f(name: str, text: str, encoding: str = "utf-8") -> ImportFile:
    return ImportFile(name=name, data=text.encode(encoding))


def test_mucgec_dev_imports_with_every_reference(mucgec_dev: Path) -> None:
    rows = read_mucgec(mucgec_dev)
    result = import_dataset(
        name="mucgec-dev",
        fmt="mucgec",
        files=[ImportFile.from_path(mucgec_dev)],
        source_name="mucgec",
        split="dev",
    )
    assert result.sentences == len(rows) == 1137
    assert result.references == sum(len(r) - 2 for r in rows) == 2467
    sentences = list(Sentence.objects.filter(dataset__name="mucgec-dev").order_by("position"))
    assert [(s.external_id, s.text) for s in sentences] == [(r[0], r[1]) for r in rows]
    assert {s.split for s in sentences} == {"dev"}
    refs = GoldenReference.objects.filter(sentence__dataset__name="mucgec-dev")
    assert refs.filter(kind=ReferenceKind.ERROR_FREE).count() == sum(
        r[2:].count("没有错误") for r in rows
    )
    assert refs.filter(kind=ReferenceKind.NOT_ANNOTATABLE).count() == sum(
        r[2:].count("无法标注") for r in rows
    )
    # Per sentence, the references come back in file order.
    third = sentences[2]
    assert (
        list(third.golden_references.order_by("position").values_list("text", flat=True))
        == rows[2][2:]
    )
    assert AuditLog.objects.filter(action="dataset.import").count() == 1


def test_judgement_follows_the_references() -> None:
    import_dataset(
        name="j",
        fmt="mucgec",
        files=[
            f("a.txt", "1\t我去了。\t没有错误\n2\t他去。\t他去了。\n3\t乱码\t无法标注\n4\t好。\n")
        ],
    )
    judgements = dict(Sentence.objects.values_list("external_id", "judgement"))
    assert judgements == {
        "1": Judgement.ERROR_FREE,
        "2": Judgement.ANNOTATABLE,
        "3": Judgement.NOT_ANNOTATABLE,
        "4": Judgement.UNSET,
    }


def test_text_import_numbers_lines_and_sets_source_and_split() -> None:
    result = import_dataset(
        name="t",
        fmt="text",
        files=[f("s.txt", "第一句。\n第二句。\n")],
        source_name="lang8",
        split="test",
    )
    assert result.sentences == 2 and result.references == 0
    rows = list(Sentence.objects.values_list("external_id", "text", "source__name", "split"))
    assert rows == [("1", "第一句。", "lang8", "test"), ("2", "第二句。", "lang8", "test")]


def test_parallel_import_pairs_lines_and_allows_missing_later_references() -> None:
    import_dataset(
        name="p",
        fmt="parallel",
        files=[
            f("src.txt", "他去。\n我来。\n"),
            f("ref1.txt", "他去了。\n我来了。\n"),
            f("ref2.txt", "他走了。\n\n"),
        ],
    )
    refs = {
        s.external_id: list(s.golden_references.values_list("text", flat=True))
        for s in Sentence.objects.all()
    }
    assert refs == {"1": ["他去了。", "他走了。"], "2": ["我来了。"]}


def test_jsonl_import_takes_per_row_source_and_split() -> None:
    lines = [
        {
            "id": "a",
            "source": "他去。",
            "references": ["他去了。"],
            "source_name": "hsk",
            "split": "dev",
        },
        {"id": 7, "source": "我来。", "extra": 1},
    ]
    text = "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in lines)
    import_dataset(
        name="jl", fmt="jsonl", files=[f("x.jsonl", text)], source_name="default", split="test"
    )
    rows = list(
        Sentence.objects.order_by("position").values_list("external_id", "source__name", "split")
    )
    assert rows == [("a", "hsk", "dev"), ("7", "default", "test")]


def test_m2_import_rebuilds_sources_and_references(shared_data: Path, mucgec_dev: Path) -> None:
    rows = read_mucgec(mucgec_dev)
    import_dataset(
        name="m2",
        fmt="m2",
        files=[ImportFile.from_path(shared_data / "mucgec-dev" / "MuCGEC_dev.m2")],
    )
    sentences = list(Sentence.objects.order_by("position"))
    assert len(sentences) == len(rows)
    t2s = opencc.OpenCC("t2s")
    for sentence, row in zip(sentences, rows, strict=True):
        # ChERRANT drops whitespace and converts targets to simplified characters.
        assert sentence.text == "".join(row[1].split())
        expected = []
        for ref in row[2:]:
            ref = "".join(ref.split())
            expected.append(
                ref if ref in ("没有错误", "无法标注") or ref == sentence.text else t2s.convert(ref)
            )
        got = list(sentence.golden_references.order_by("position").values_list("text", flat=True))
        # A reference equal to the source is written as `T<i> 没有错误` by ChERRANT.
        assert [("没有错误" if e == sentence.text else e) for e in expected] == got, (
            sentence.external_id
        )


def test_plain_errant_m2_applies_each_annotators_edits(shared_data: Path) -> None:
    path = shared_data / "cleme-conll14" / "demo.errant"
    import_dataset(name="en", fmt="m2", language="en", files=[ImportFile.from_path(path)])
    text = path.read_text(encoding="utf-8")
    first_block = text.split("\n\n")[0].splitlines()
    source = first_block[0][2:]
    assert Sentence.objects.order_by("position").first().text == source
    annotators = {line.rsplit("|||", 1)[1] for line in first_block[1:]}
    assert Sentence.objects.order_by("position").first().golden_references.count() == len(
        annotators
    )


def test_plain_m2_insertions_at_one_point_keep_their_file_order() -> None:
    m2 = (
        "S He went home .\n"
        "A 1 1|||M:ADV|||quickly|||REQUIRED|||-NONE-|||0\n"
        "A 1 1|||M:ADV|||then|||REQUIRED|||-NONE-|||0\n"
        "A 3 4|||U:PUNCT|||-NONE-|||REQUIRED|||-NONE-|||0\n"
    )
    import_dataset(name="en", fmt="m2", language="en", files=[f("i.m2", m2)])
    reference = Sentence.objects.get().golden_references.get()
    assert reference.text == "He quickly then went home"


# --- bad input: a clear message naming line and field, and nothing written ---------------------

BAD_CASES = [
    (
        "duplicate id",
        "mucgec",
        [("d.txt", "1\t他去。\n2\t我来。\n1\t你好。\n")],
        ["d.txt, line 3", "field id", "duplicate id '1'", "line 1"],
    ),
    (
        "empty line",
        "mucgec",
        [("e.txt", "1\t他去。\n\n2\t我来。\n")],
        ["e.txt, line 2", "empty line"],
    ),
    ("empty line in text", "text", [("e.txt", "他去。\n   \n")], ["e.txt, line 2", "empty line"]),
    (
        "trailing tab = empty reference",
        "mucgec",
        [("r.txt", "1\t他去。\t他去了。\t\n")],
        ["r.txt, line 1", "field ref2", "empty"],
    ),
    ("no tab", "mucgec", [("n.txt", "1 他去。\n")], ["n.txt, line 1", "field source"]),
    (
        "mismatched line counts",
        "parallel",
        [("src.txt", "他去。\n我来。\n"), ("ref.txt", "他去了。\n")],
        ["ref.txt", "line count", "1 lines", "src.txt has 2"],
    ),
    (
        "bad json",
        "jsonl",
        [("j.jsonl", '{"source": "a"}\n{"source": \n')],
        ["j.jsonl, line 2", "field json"],
    ),
    (
        "json without source",
        "jsonl",
        [("j.jsonl", '{"id": 1, "references": []}\n')],
        ["j.jsonl, line 1", "field source"],
    ),
    (
        "json bad split",
        "jsonl",
        [("j.jsonl", '{"source": "他去。", "split": "final"}\n')],
        ["j.jsonl, line 1", "field split", "'final'"],
    ),
    (
        "m2 broken edit",
        "m2",
        [("x.m2", "S 他 去 。\nA 0 x|||M|||了|||REQUIRED|||-NONE-|||0\n")],
        ["x.m2, line 2", "field m2"],
    ),
    (
        "m2 overlapping edits of one annotator",
        "m2",
        [
            (
                "o.m2",
                "S He go home .\nA 0 2|||R:VERB|||He goes|||REQUIRED|||-NONE-|||0\n"
                "A 1 3|||R:NOUN|||went|||REQUIRED|||-NONE-|||0\n",
            )
        ],
        ["o.m2, line 1", "field m2", "annotator 0: overlapping edits at token 1"],
    ),
]


@pytest.mark.parametrize("case,fmt,files,fragments", BAD_CASES, ids=[c[0] for c in BAD_CASES])
def test_bad_input_is_refused_with_line_and_field(
    case, fmt, files, fragments, assert_nothing_written
) -> None:
    with pytest.raises(ServiceError) as info:
        import_dataset(name="bad", fmt=fmt, files=[f(n, t) for n, t in files])
    for fragment in fragments:
        assert fragment in info.value.message, info.value.message
    assert_nothing_written()


def test_gbk_file_given_as_utf8_is_refused(assert_nothing_written) -> None:
    data = "1\t他去。\n2\t我来了。\n".encode("gbk")
    with pytest.raises(ServiceError) as info:
        import_dataset(name="gbk", fmt="mucgec", files=[ImportFile("g.txt", data)])
    message = info.value.message
    assert (
        "g.txt, line 1" in message and "field encoding" in message and "not valid UTF-8" in message
    )
    assert "GBK" in message
    assert_nothing_written()


def test_bom_is_refused(assert_nothing_written) -> None:
    with pytest.raises(ServiceError) as info:
        import_dataset(
            name="bom",
            fmt="mucgec",
            files=[ImportFile("b.txt", b"\xef\xbb\xbf" + "1\t他去。\n".encode())],
        )
    assert "b.txt, line 1" in info.value.message and "byte-order mark" in info.value.message
    assert_nothing_written()


def test_crlf_is_refused_naming_the_line(assert_nothing_written) -> None:
    with pytest.raises(ServiceError) as info:
        import_dataset(name="crlf", fmt="text", files=[f("c.txt", "他去。\n我来。\r\n")])
    assert "c.txt, line 2" in info.value.message and "CRLF" in info.value.message
    assert_nothing_written()


def test_oversize_file_is_refused(settings, assert_nothing_written) -> None:
    settings.GEC_MAX_UPLOAD_BYTES = 20
    with pytest.raises(ServiceError) as info:
        import_dataset(name="big", fmt="text", files=[f("big.txt", "他去。\n" * 10)])
    assert "big.txt" in info.value.message and "GEC_MAX_UPLOAD_BYTES" in info.value.message
    assert_nothing_written()


def test_failed_append_leaves_the_existing_dataset_unchanged() -> None:
    import_dataset(name="keep", fmt="mucgec", files=[f("a.txt", "1\t他去。\t他去了。\n")])
    with pytest.raises(ServiceError) as info:
        import_dataset(name="keep", fmt="mucgec", files=[f("b.txt", "2\t我来。\n1\t你好。\n")])
    assert "b.txt, line 2" in info.value.message and "already exists" in info.value.message
    assert list(Sentence.objects.values_list("external_id", flat=True)) == ["1"]
    assert GoldenReference.objects.count() == 1


def test_error_in_the_last_line_writes_nothing(assert_nothing_written) -> None:
    good = "".join(f"{i}\t句子{i}。\t句子{i}了。\n" for i in range(1, 5001))
    with pytest.raises(ServiceError) as info:
        import_dataset(name="late", fmt="mucgec", files=[f("late.txt", good + "5001\t\n")])
    assert "late.txt, line 5001" in info.value.message and "field source" in info.value.message
    assert Dataset.objects.count() == 0
    assert_nothing_written()


def test_files_without_ids_continue_the_numbering_when_appended() -> None:
    import_dataset(
        name="multi", fmt="text", source_name="nlpcc18", files=[f("a.txt", "第一句。\n第二句。\n")]
    )
    import_dataset(name="multi", fmt="text", source_name="lang8", files=[f("b.txt", "第三句。\n")])
    rows = list(
        Sentence.objects.order_by("position").values_list("external_id", "position", "source__name")
    )
    assert rows == [("1", 0, "nlpcc18"), ("2", 1, "nlpcc18"), ("3", 2, "lang8")]


def test_appending_to_a_one_sentence_dataset_continues_after_it() -> None:
    # The first sentence has position 0: the next import starts at 1 (it started at 0 again
    # and failed on the unique position when the maximum was read with `or`).
    import_dataset(name="one", fmt="mucgec", files=[f("a.txt", "a\t他去。\t他去了。\n")])
    import_dataset(name="one", fmt="mucgec", files=[f("b.txt", "b\t我来。\t我来了。\n")])
    rows = list(Sentence.objects.order_by("position").values_list("external_id", "position"))
    assert rows == [("a", 0), ("b", 1)]


def test_jsonl_auto_ids_may_not_clash_with_explicit_ones(assert_nothing_written) -> None:
    text = '{"source": "他去。"}\n{"id": "1", "source": "我来。"}\n'
    with pytest.raises(ServiceError) as info:
        import_dataset(name="clash", fmt="jsonl", files=[f("c.jsonl", text)])
    assert "c.jsonl, line 2, field id: duplicate id '1'" in info.value.message
    assert_nothing_written()


def test_cancelled_import_job_writes_nothing(assert_nothing_written) -> None:
    from core.jobs import JobCancelled, cancel_job, start_job
    from core.roles import Role
    from tests.factories import make_user

    admin = make_user(Role.ADMIN)
    job = start_job(kind="datasets.import", user=admin)
    cancel_job(job.pk, user=admin)
    with pytest.raises(JobCancelled):
        import_dataset(name="c", fmt="text", files=[f("c.txt", "他去。\n")], job_id=job.pk)
    assert_nothing_written()
