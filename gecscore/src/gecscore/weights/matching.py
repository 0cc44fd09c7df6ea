"""BERTScore greedy matching for many (candidate, reference) pairs at once, on the device.

Token vectors of all sentences live in ONE tensor (rows; a sentence is a span of rows), so a
chunk of pairs is gathered with one index per side: no per-sentence tensors, no padding loop
in Python and no copy to the host until the final (P, R, F) values.

bert-score pads a batch with zero similarities, so a token whose best real match is
negative would be credited 0 when it shares a batch with a longer sentence; PT-M2 calls
bert-score with ONE pair at a time, where that never happens. We mask padding with -inf
instead, so the batched result equals the one-pair-per-call result.
"""

from __future__ import annotations

import torch

__all__ = [
    "greedy_match_spans",
]


def _gather(
    vectors: torch.Tensor,
    token_ids: torch.Tensor,
    weight_table: torch.Tensor,
    start: torch.Tensor,
    length: torch.Tensor,
    width: int,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """[pairs, width, dim] vectors, [pairs, width] weights (0 on padding) and the mask."""
    positions = torch.arange(width, device=vectors.device)
    mask = positions[None, :] < length[:, None]
    index = (start[:, None] + positions[None, :]).masked_fill(~mask, 0)
    weights = weight_table[token_ids[index]].masked_fill(~mask, 0.0)
    return vectors[index], weights, mask


def greedy_match_spans(
    vectors: torch.Tensor,
    token_ids: torch.Tensor,
    weight_table: torch.Tensor,
    candidates: tuple[torch.Tensor, torch.Tensor, int],
    references: tuple[torch.Tensor, torch.Tensor, int],
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(P, R, F) for each pair.

    `vectors` [rows, dim] are unit token vectors, `token_ids` [rows] their ids and
    `weight_table` [vocabulary] the idf weight of each id (bert-score's: 1, or 0 for [CLS] and
    [SEP] without IDF). Each side is (first row [pairs], token count [pairs], the largest
    count as a Python int, so that no device value is read back to size the chunk).
    """
    cand, cand_weight, cand_mask = _gather(vectors, token_ids, weight_table, *candidates)
    ref, ref_weight, ref_mask = _gather(vectors, token_ids, weight_table, *references)
    similarity = torch.bmm(cand, ref.transpose(1, 2))
    valid = cand_mask[:, :, None] & ref_mask[:, None, :]
    similarity = similarity.masked_fill(~valid, float("-inf"))
    word_precision = similarity.max(dim=2).values.masked_fill(~cand_mask, 0.0)
    word_recall = similarity.max(dim=1).values.masked_fill(~ref_mask, 0.0)
    # Same order of operations as bert-score: normalise the idf first, then weight and sum.
    cand_weight = cand_weight / cand_weight.sum(dim=1, keepdim=True)
    ref_weight = ref_weight / ref_weight.sum(dim=1, keepdim=True)
    precision = (word_precision * cand_weight).sum(dim=1)
    recall = (word_recall * ref_weight).sum(dim=1)
    f_score = 2 * precision * recall / (precision + recall)
    # bert-score's convention for a sentence that is only [CLS] [SEP]: P/R 0, F NaN -> 0.
    empty = candidates[1].eq(2) | references[1].eq(2)
    precision = precision.masked_fill(empty, 0.0)
    recall = recall.masked_fill(empty, 0.0)
    f_score = f_score.masked_fill(torch.isnan(f_score), 0.0)
    return precision, recall, f_score
