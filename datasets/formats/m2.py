"""``m2``: ChERRANT M2 (references from the ``T`` lines) or plain ERRANT M2 (references
rebuilt by applying each annotator's edits; ``noop``, ``UNK`` and ``Um`` edits change
nothing); the id is the block number. Every annotator of a block is kept as one reference, in
annotator order; an annotator with no ``A`` line in a block is absent there (the sentence has
fewer references), and a block with no ``A`` line at all gets one reference equal to the
source, as m2scorer reads it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from datasets.formats.common import (
    ImportFile,
    ImportFormat,
    ParsedSentence,
    check_rule,
    check_text,
    decode_lines,
    format_error,
    single_file,
)
from datasets.models import Language
from gecscore import (
    NO_ERROR_TEXT,
    NOT_ANNOTATABLE_TEXT,
    M2FormatError,
    OverlappingEditsError,
    apply_m2_edits,
    parse_m2,
)

if TYPE_CHECKING:
    from gecscore import M2Target

# Edit types that change nothing in the rebuilt reference.
_NO_CHANGE = ("noop", "UNK", "Um")


def parse_m2_files(
    files: Sequence[ImportFile], *, language: str = Language.CHINESE
) -> list[ParsedSentence]:

    file = single_file(files, ImportFormat.M2)
    lines = decode_lines(file)
    try:
        blocks = parse_m2("\n".join(lines), name=file.name)
    except M2FormatError as exc:
        raise format_error(file.name, exc.line, "m2", exc.message) from None
    # Chinese M2 separates characters with spaces; English separates words.
    joiner = "" if language == Language.CHINESE else " "
    rows = []
    for number, block in enumerate(blocks, start=1):
        tokens = block.source.split()
        if not tokens:
            raise format_error(file.name, block.line, "source", "empty S line")
        references: list[str] = []
        seen_annotators: set[int] = set()
        for target in block.targets:
            if target.annotator in seen_annotators:
                continue  # T<r>-A1, A2...: other alignments of the same reference
            seen_annotators.add(target.annotator)
            if target.text is not None:
                text = target.text.strip()
                if text in (NO_ERROR_TEXT, NOT_ANNOTATABLE_TEXT):
                    references.append(text)
                else:
                    references.append(joiner.join(text.split()))
            else:
                rebuilt = _rebuilt_reference(tokens, target, file.name, block.line)
                references.append(joiner.join(rebuilt))
        if not block.targets:
            # No A line at all: as m2scorer reads it, one annotator who changed nothing.
            references.append(joiner.join(tokens))
        source = joiner.join(tokens)
        check_text(source, file.name, block.line, "source")
        for index, reference in enumerate(references, start=1):
            check_rule(reference, file.name, block.line, f"reference {index}")
        rows.append(ParsedSentence(str(number), source, references, block.line, auto_id=True))
    return rows


def _rebuilt_reference(tokens: list[str], target: M2Target, file_name: str, line: int) -> list[str]:
    """An ERRANT M2 annotator's reference: the source with its edits applied."""
    edits = [(e.start, e.end, e.correction) for e in target.edits if e.type not in _NO_CHANGE]
    try:
        return apply_m2_edits(tokens, edits)
    except OverlappingEditsError as exc:
        raise format_error(file_name, line, "m2", f"annotator {target.annotator}: {exc}") from None
