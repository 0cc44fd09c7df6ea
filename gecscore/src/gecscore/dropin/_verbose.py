"""The ``-v`` output of ChERRANT's and errant_compare's comparison, as ``PairTracer``s."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from gecscore.compare import EditDict, compare_pair
from gecscore.compare_options import PairTracer
from gecscore.counts import Counts, precision_recall_f
from gecscore.m2 import M2Block

__all__ = [
    "CherrantTrace",
    "ErrantTrace",
]


_RULE = "{:-^40}".format("")


class _Trace(PairTracer):
    def __init__(self, beta: float, out: TextIO) -> None:
        self.beta = beta
        self.out = out
        self.index = 0
        self.block: M2Block | None = None

    def sentence(self, index: int, hyp_block: M2Block) -> None:
        self.index = index
        self.block = hyp_block

    def _keys(self, edits: EditDict) -> list[tuple[object, ...]]:
        keys = sorted(edits)
        return [] if not keys or keys[0][0] == -1 else keys

    def _pair_lines(
        self,
        hyp_id: int,
        hyp_keys: Sequence[object],
        ref_id: int,
        ref_keys: Sequence[object],
        counts: tuple[int, int, int],
        total: Sequence[int],
    ) -> list[str]:
        tp, fp, fn = counts
        beta = str(float(self.beta))
        loc = Counts(tp, fp, fn).prf(self.beta, digits=4)
        g_tp, g_fp, g_fn = tp + total[0], fp + total[1], fn + total[2]
        glob = precision_recall_f(g_tp, g_tp + g_fp, g_tp + g_fn, self.beta, digits=4)
        return [
            _RULE,
            f"SENTENCE {self.index} - HYP {hyp_id} - REF {ref_id}",
            f"HYPOTHESIS EDITS : {hyp_keys!r}",
            f"REFERENCE EDITS  : {ref_keys!r}",
            f"Local TP/FP/FN   : {tp} {fp} {fn}",
            f"Local P/R/F{beta}  : {loc[0]} {loc[1]} {loc[2]}",
            f"Global TP/FP/FN  : {g_tp} {g_fp} {g_fn}",
            f"Global P/R/F{beta}  : {glob[0]} {glob[1]} {glob[2]}",
        ]

    def _write(self, lines: list[str]) -> None:
        self.out.write("\n".join(lines) + "\n")


class CherrantTrace(_Trace):
    """``compare_m2_for_evaluation.py -v``: each pair under a header naming the sentence."""

    def pair(
        self,
        hyp_id: int,
        hyp_edits: EditDict,
        ref_id: int,
        ref_edits: EditDict,
        counts: tuple[int, int, int],
        total: Sequence[int],
    ) -> None:
        source = self.block.source if self.block is not None else ""
        lines = [_RULE, f"SENTENCE {self.index} {source}"]
        lines += self._pair_lines(
            hyp_id, self._keys(hyp_edits), ref_id, self._keys(ref_edits), counts, total
        )
        self._write(lines)

    def chosen(self, hyp_id: int, hyp_edits: EditDict, ref_id: int, ref_edits: EditDict) -> None:
        self._write([_RULE, f"^^ HYP {hyp_id}, REF {ref_id} chosen for sentence {self.index}"])


class ErrantTrace(_Trace):
    """``errant_compare -v``: the sentence, its pairs with edit types, the chosen pair's
    per-type counts."""

    def sentence(self, index: int, hyp_block: M2Block) -> None:
        super().sentence(index, hyp_block)
        self._write([_RULE, f"Original sentence {index}: {hyp_block.source}"])

    @staticmethod
    def _typed(keys: list[tuple[object, ...]], edits: EditDict) -> list[tuple[object, ...]]:
        return [key + (edits[key][0],) for key in keys]

    def pair(
        self,
        hyp_id: int,
        hyp_edits: EditDict,
        ref_id: int,
        ref_edits: EditDict,
        counts: tuple[int, int, int],
        total: Sequence[int],
    ) -> None:
        hyp_keys = self._typed(sorted(hyp_edits), hyp_edits)
        ref_keys = self._typed(sorted(ref_edits), ref_edits)
        if not hyp_keys or hyp_keys[0][0] == -1:
            hyp_keys = []
        if not ref_keys or ref_keys[0][0] == -1:
            ref_keys = []
        self._write(self._pair_lines(hyp_id, hyp_keys, ref_id, ref_keys, counts, total))

    def chosen(self, hyp_id: int, hyp_edits: EditDict, ref_id: int, ref_edits: EditDict) -> None:
        cats = compare_pair(hyp_edits, ref_edits)[3]
        table: list[list[object]] = [["Category", "TP", "FP", "FN"]]
        table += [[name, *counts] for name, counts in cats.items()]
        widths = [max(len(str(row[i])) for row in table) + 3 for i in range(4)]
        lines = [_RULE, f"^^ HYP {hyp_id}, REF {ref_id} chosen for sentence {self.index}"]
        lines.append("Local results:")
        lines += [
            "".join(f"{cell!s:>{w}}" for cell, w in zip(row, widths, strict=True)) for row in table
        ]
        self._write(lines)
