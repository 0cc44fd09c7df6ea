"""What a comparison may add to ``compare.compare_m2``'s options: ChERRANT's edit filters
(``-single`` / ``-multi`` / ``-filt``) with their signature fields, and a ``PairTracer`` that
watches each sentence's choice of annotator pair (the drop-in commands' ``-v`` output)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from gecscore.m2 import M2Block, M2Edit
from gecscore.signature import Field

if TYPE_CHECKING:
    from gecscore.compare import EditDict

__all__ = ["PairTracer", "edit_filter", "filter_fields"]


def edit_filter(
    single: bool = False, multi: bool = False, filt: Sequence[str] = ()
) -> Callable[[M2Edit], bool] | None:
    """ChERRANT's ``-single`` / ``-multi`` / ``-filt``: which edits are kept, or None (all).

    As ChERRANT tests them: the correction has its spaces removed before it is split, so
    ``-single`` keeps spans of width 0 or 1 and ``-multi`` spans of width 2 or more.
    """
    if not (single or multi or filt):
        return None
    dropped = frozenset(filt)

    def keep(edit: M2Edit) -> bool:
        width = edit.end - edit.start
        cor_tokens = len(edit.correction.replace(" ", "").split())
        if single and (width >= 2 or cor_tokens >= 2):
            return False
        if multi and width < 2 and cor_tokens < 2:
            return False
        return edit.type not in dropped

    return keep


def filter_fields(single: bool, multi: bool, filt: Sequence[str]) -> list[Field]:
    """Signature fields of ChERRANT's edit filters (none when no filter is set)."""
    fields: list[Field] = []
    if single:
        fields.append(("single", None))
    if multi:
        fields.append(("multi", None))
    if filt:
        fields.append(("filt", ",".join(filt)))
    return fields


class PairTracer:
    """Watches a comparison sentence by sentence (the drop-in commands' ``-v`` output).

    ``sentence`` is called before the pairs of a scored sentence, ``pair`` once per
    (hypothesis, reference) annotator pair in the order they are tried, with the pair's
    counts and the running corpus totals before the sentence, ``chosen`` with the winner.
    The base class does nothing.
    """

    def sentence(self, index: int, hyp_block: M2Block) -> None:
        pass

    def pair(
        self,
        hyp_id: int,
        hyp_edits: EditDict,
        ref_id: int,
        ref_edits: EditDict,
        counts: tuple[int, int, int],
        total: Sequence[int],
    ) -> None:
        pass

    def chosen(self, hyp_id: int, hyp_edits: EditDict, ref_id: int, ref_edits: EditDict) -> None:
        pass
