"""Merge token-level alignment operations into edits (ChERRANT ``merger.py`` semantics).

1. Group consecutive operations: runs of M, runs of T*, runs of anything else (S/D/I).
2. Merge an S/D/I run: only D -> one deletion; only I -> one insertion; D and I only -> not
   merged; only S -> one substitution (char level; word level keeps them apart); any other
   mixture -> one substitution spanning the run. T operations stay separate.
3. Word-order pass (S M S, D M/T I, I M/T D -> one transposition), then M blocks dropped.
4. Clean-up: edits whose two sides are equal are dropped; substitutions lose a shared
   prefix/suffix at token level (turning into insertions or deletions).
"""

from __future__ import annotations

import string
from collections.abc import Sequence

from gecscore.align import Op

__all__ = [
    "MERGE_PUNCTUATION",
    "levenshtein",
    "merge",
]

# The merger's own punctuation string (it differs slightly from the alignment's: no 〰〾〿,
# and "." instead of "﹏" at the end). Used with ChERRANT's substring test.
MERGE_PUNCTUATION = string.punctuation + (
    "！？｡＂＃＄％＆＇（）＊＋，－／：；＜＝＞＠［＼］＾＿｀｛｜｝～｟｠｢｣､、〃》「」『』【】〔〕〖〗〘〙〚〛〜〝〞〟–—‘'‛“”„‟…‧."
)


def levenshtein(a: str, b: str) -> int:
    """Plain edit distance (insert/delete/substitute, unit costs)."""
    if a == b:
        return 0
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for x, ca in enumerate(a, start=1):
        current = [x]
        for y, cb in enumerate(b, start=1):
            current.append(min(previous[y] + 1, current[y - 1] + 1, previous[y - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def _span(label: str, group: Sequence[Op]) -> Op:
    return (label, group[0][1], group[-1][2], group[0][3], group[-1][4])


def _merge_run(run: list[Op], granularity: str) -> list[Op]:
    if len(run) <= 1:
        return run
    labels = {op[0] for op in run}
    if labels == {"D"} or labels == {"I"}:
        return [_span(run[0][0], run)]
    if labels == {"D", "I"}:
        return run
    if labels == {"S"}:
        return run if granularity == "word" else [_span("S", run)]
    if labels == {"M"}:
        return [_span("M", run)]
    return [_span("S", run)]


def _group(path: Sequence[Op], granularity: str) -> list[Op]:
    blocks: list[Op] = []
    index, total = 0, len(path)
    while index < total:
        kind = path[index][0][0]
        key = kind if kind in ("M", "T") else ""
        end = index + 1
        while end < total:
            other = path[end][0][0]
            if (other if other in ("M", "T") else "") != key:
                break
            end += 1
        run = list(path[index:end])
        if key == "T":
            blocks.extend(run)
        else:
            blocks.extend(_merge_run(run, granularity))
        index = end
    return blocks


def _is_rotation(a: str, b: str) -> bool:
    return b in a + a


def _word_order(blocks: list[Op], src: Sequence[str], tgt: Sequence[str]) -> list[Op]:
    out: list[Op] = []
    i, total = 0, len(blocks)
    while i < total:
        e1 = blocks[i][0][0]
        if i < total - 2:
            first, middle, last = blocks[i], blocks[i + 1], blocks[i + 2]
            e2, e3 = middle[0][0], last[0][0]
            merged = False
            if e1 == "S" and e2 == "M" and e3 == "S":
                w1 = "".join(src[first[1] : first[2]])
                w2 = "".join(tgt[first[3] : first[4]])
                w3 = "".join(src[last[1] : last[2]])
                w4 = "".join(tgt[last[3] : last[4]])
                if min(len(w1), len(w2), len(w3), len(w4)) == 1:
                    merged = w1 == w4 and w2 == w3
                else:
                    merged = levenshtein(w1, w4) <= 1 and levenshtein(w2, w3) <= 1
            elif (e1 == "D" and e2 in ("M", "T") and e3 == "I") or (
                e1 == "I" and e2 in ("M", "T") and e3 == "D"
            ):
                deleted, inserted = (first, last) if e1 == "D" else (last, first)
                a = "".join(src[deleted[1] : deleted[2]])
                b = "".join(tgt[inserted[3] : inserted[4]])
                if len(a) < len(b):
                    a, b = b, a
                if (
                    a not in MERGE_PUNCTUATION
                    and b not in MERGE_PUNCTUATION
                    and len(a) - len(b) <= 1
                ):
                    if len(b) == 1:
                        merged = a == b
                    else:
                        merged = levenshtein(a, b) <= 1 or (len(a) == len(b) and _is_rotation(a, b))
            if merged:
                out.append(_span(f"T{last[2] - first[1]}", [first, middle, last]))
                i += 3
                continue
            if e1 != "M":
                out.append(first)
            i += 1
        else:
            if e1 != "M":
                out.append(blocks[i])
            i += 1
    return out


def _trim_substitution(edit: Op, src: Sequence[str], tgt: Sequence[str], span2: str) -> Op:
    """Drop a shared token-level prefix/suffix of a substitution (ChERRANT's exact walk)."""
    _, s_start, s_end, t_start, t_end = edit
    changed = False
    common = ""
    cut_src = s_start
    for x in range(s_start, s_end):
        if not span2.startswith(common + src[x]):
            break
        common += src[x]
        cut_src = x + 1
    new_s_start, new_t_start = s_start, t_start
    if common:
        acc = ""
        for y in range(t_start, t_end):
            acc += tgt[y]
            if acc == common:
                new_s_start, new_t_start = cut_src, y + 1
                changed = True
                break
            if len(acc) > len(common):
                break
    common = ""
    new_s_end, new_t_end = s_end, t_end
    cut_src_end = s_end
    for x in reversed(range(new_s_start, s_end)):
        if not span2.endswith(src[x] + common):
            break
        common = src[x] + common
        cut_src_end = x
    if common:
        acc = ""
        for y in reversed(range(new_t_start, t_end)):
            acc = tgt[y] + acc
            if acc == common:
                new_s_end, new_t_end = cut_src_end, y
                changed = True
                break
            if len(acc) > len(common):
                break
    if not changed:
        return edit
    if new_s_start == new_s_end:
        label = "I"
    elif new_t_start == new_t_end:
        label = "D"
    else:
        label = "S"
    return (label, new_s_start, new_s_end, new_t_start, new_t_end)


def merge(
    path: Sequence[Op], src: Sequence[str], tgt: Sequence[str], granularity: str = "char"
) -> list[Op]:
    """Edits (label, src_start, src_end, tgt_start, tgt_end) of one alignment path."""
    blocks = _word_order(_group(path, granularity), src, tgt)
    edits: list[Op] = []
    for edit in blocks:
        span1 = "".join(src[edit[1] : edit[2]])
        span2 = "".join(tgt[edit[3] : edit[4]])
        if span1 == span2:
            continue
        edits.append(_trim_substitution(edit, src, tgt, span2) if edit[0] == "S" else edit)
    return edits
