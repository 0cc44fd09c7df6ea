"""BERTScore greedy matching for many (candidate, reference) pairs at once.

bert-score pads a batch with zero similarities, so a token whose best real match is
negative would be credited 0 when it shares a batch with a longer sentence; PT-M2 calls
bert-score with ONE pair at a time, where that never happens. We mask padding with -inf
instead, so the batched result equals the one-pair-per-call result.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch


def _pad(tensors: Sequence[torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
    padded = torch.nn.utils.rnn.pad_sequence(list(tensors), batch_first=True)
    lengths = torch.tensor([tensor.shape[0] for tensor in tensors], device=padded.device)
    mask = torch.arange(padded.shape[1], device=padded.device)[None, :] < lengths[:, None]
    return padded, mask


def greedy_match(
    candidates: Sequence[torch.Tensor],
    candidate_idf: Sequence[torch.Tensor],
    references: Sequence[torch.Tensor],
    reference_idf: Sequence[torch.Tensor],
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(P, R, F) for each pair; embeddings are unit vectors [tokens, dim], idf [tokens]."""
    cand, cand_mask = _pad(candidates)
    ref, ref_mask = _pad(references)
    cand_weight, _ = _pad(candidate_idf)
    ref_weight, _ = _pad(reference_idf)
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
    cand_empty = cand_mask.sum(dim=1).eq(2)
    ref_empty = ref_mask.sum(dim=1).eq(2)
    precision = precision.masked_fill(cand_empty | ref_empty, 0.0)
    recall = recall.masked_fill(cand_empty | ref_empty, 0.0)
    f_score = f_score.masked_fill(torch.isnan(f_score), 0.0)
    return precision, recall, f_score
