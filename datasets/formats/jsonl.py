"""``jsonl``: one JSON object a line, ``{"id", "source", "references", "source_name", "split"}``
(exports add ``judgement``: annotatable / error_free / not_annotatable, or "" when undecided;
and per reference, parallel to ``references``, ``origin``: typed / post-edited /
accepted-unchanged, and ``suggestion_source``: the suggestion's label or "").

Reading: only ``source`` is required, unknown keys are ignored (so our own JSONL export,
which adds annotation data, re-imports). Writing: with ``include_annotations`` each line also
carries what the higher apps answer to the `collect_annotations` signal (annotators' raw
submissions, reviewers' verdicts): the datasets app never imports them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from datasets.formats.common import (
    ImportFile,
    ImportFormat,
    ParsedSentence,
    check_id,
    check_text,
    decode_lines,
    format_error,
    reject_empty,
    single_file,
)
from datasets.selectors import DatasetRow, chunked
from datasets.signals import collect_annotations


def parse_jsonl(files: Sequence[ImportFile]) -> list[ParsedSentence]:
    file = single_file(files, ImportFormat.JSONL)
    lines = decode_lines(file)
    reject_empty(lines, file.name)
    seen: dict[str, int] = {}
    rows = []
    for number, line in enumerate(lines, start=1):
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise format_error(
                file.name, number, "json", f"not valid JSON ({exc.msg}, column {exc.colno})"
            ) from None
        if not isinstance(obj, dict):
            raise format_error(file.name, number, "json", "each line must be a JSON object")
        text = obj.get("source")
        if not isinstance(text, str):
            raise format_error(file.name, number, "source", "missing, or not a string")
        check_text(text, file.name, number, "source")
        raw_id = obj.get("id", number)
        if isinstance(raw_id, bool) or not isinstance(raw_id, (str, int)):
            raise format_error(file.name, number, "id", "must be a string or an integer")
        external_id = str(raw_id)
        check_id(external_id, file.name, number, seen)
        references = obj.get("references", [])
        if not isinstance(references, list):
            raise format_error(file.name, number, "references", "must be a list of strings")
        for index, reference in enumerate(references, start=1):
            if not isinstance(reference, str):
                raise format_error(file.name, number, f"references[{index}]", "must be a string")
            check_text(reference, file.name, number, f"references[{index}]")
        source_name = obj.get("source_name")
        if source_name is not None and not isinstance(source_name, str):
            raise format_error(file.name, number, "source_name", "must be a string")
        split = obj.get("split")
        if split is not None and not isinstance(split, str):
            raise format_error(file.name, number, "split", "must be a string")
        rows.append(
            ParsedSentence(
                external_id,
                text,
                list(references),
                number,
                source_name=source_name or None,
                split=split,
                auto_id="id" not in obj,
            )
        )
    return rows


def jsonl_lines(rows: Iterable[DatasetRow], *, include_annotations: bool = False) -> Iterator[str]:
    for chunk in chunked(rows, 1000):
        extra = (
            _annotation_data([r.sentence_id for r in chunk if r.sentence_id])
            if include_annotations
            else {}
        )
        for row in chunk:
            origins, suggestion_sources = row.provenance()
            obj: dict[str, Any] = {
                "id": row.external_id,
                "source": row.text,
                "references": list(row.references),
                "source_name": row.source_name,
                "split": row.split,
                # The reviewer's verdict: says which references are markers (an English
                # export writes them as the source) and which sentences are error free.
                "judgement": row.judgement,
                # Per reference, parallel to `references`: how its text came to be (typed,
                # post-edited, accepted-unchanged) and the suggestion's label ("" none).
                "origin": list(origins),
                "suggestion_source": list(suggestion_sources),
            }
            if include_annotations:
                obj.update(extra.get(row.sentence_id or -1, {key: [] for key in ANNOTATION_KEYS}))
            yield json.dumps(obj, ensure_ascii=False) + "\n"


# The keys every exported line carries with include_annotations, in this order, even when
# no app answers (a dataset nobody annotated): readers can rely on them.
ANNOTATION_KEYS = ("submissions", "verdicts")


def _annotation_data(sentence_ids: Sequence[int]) -> dict[int, dict[str, Any]]:
    """What the higher apps record about these sentences, merged per sentence: each
    receiver of `collect_annotations` answers {sentence_id: {key: [...]}}."""
    data: dict[int, dict[str, Any]] = {
        sid: {key: [] for key in ANNOTATION_KEYS} for sid in sentence_ids
    }
    answer: Any
    for _receiver, answer in collect_annotations.send(sender=None, sentence_ids=list(sentence_ids)):
        for sentence_id, parts in (answer or {}).items():
            for key, items in parts.items():
                data[sentence_id].setdefault(key, []).extend(items)
    return data
