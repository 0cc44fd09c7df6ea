"""Encoding sentences with bert-score's model: token ids in one tokenizer call, unit token
vectors of every distinct sentence once, in length batches, kept on the device in one tensor
(TokenStore) and, for sentences that recur across systems, in the disk cache."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from gecscore.weights.base import ProgressCallback
from gecscore.weights.cache import DiskCache
from gecscore.weights.device import DEVICE_DEFAULTS
from gecscore.weights.model import ResolvedModel

__all__ = [
    "EncodingStats",
    "SentenceEncoder",
    "TokenStore",
    "Tokenized",
]


if TYPE_CHECKING:
    from gecscore.weights.bertscore import BertScoreConfig

Tokenized = tuple[str, list[int]]


@dataclass
class EncodingStats:
    """What the last calls cost: useful for benchmarks and for a progress page.

    The *_seconds are wall time per phase; on a GPU each phase ends with a synchronisation,
    so device work is counted in the phase that queued it.
    """

    encoded: int = 0
    from_memory: int = 0
    from_disk: int = 0
    pairs_scored: int = 0
    pairs_cached: int = 0
    forward_batches: int = 0
    tokens_encoded: int = 0  # real tokens through the encoder
    tokens_padded: int = 0  # tokens computed, padding included (= tokens_encoded on a CPU)
    shapes: set[tuple[int, int]] | None = None  # distinct (sentences, tokens) batch shapes
    tokenize_seconds: float = 0.0
    forward_seconds: float = 0.0  # encoder forward passes, normalising, storing the vectors
    match_seconds: float = 0.0  # greedy matching, copying the scores to the host
    cache_seconds: float = 0.0  # cache keys, disk reads, copies for and queueing of disk writes


def _padded(length: int, bucket: int) -> int:
    return -(-length // bucket) * bucket if bucket > 1 else length


def _length_batches(
    tokenized: Sequence[Tokenized],
    batch_size: int,
    *,
    bucket: int = 1,
    batch_tokens: int = 0,
) -> list[list[Tokenized]]:
    """Batches of sentences whose token counts round up to the same multiple of `bucket`.

    Longest first (as bert-score), so the first batch shows the memory peak at once. Batch
    rows: `batch_size` sentences, or with `batch_tokens` as many as fit that many padded
    tokens (at least `batch_size`). With bucket 1 every batch shares one exact length (the
    CPU path: no padding, no mask); a length shared by few sentences gives a small batch,
    but its rows are still `tokens x sentences` rows for the matrix products, which on a
    CPU are as efficient from ~64 rows on as in large batches (measured).
    """
    by_length: dict[int, list[Tokenized]] = {}
    for item in tokenized:
        by_length.setdefault(_padded(len(item[1]), bucket), []).append(item)
    batches: list[list[Tokenized]] = []
    for length in sorted(by_length, reverse=True):
        group = by_length[length]
        if bucket > 1:
            group.sort(key=lambda item: len(item[1]), reverse=True)
        rows = max(batch_size, batch_tokens // length) if batch_tokens else batch_size
        rows = max(1, rows)
        batches.extend(group[start : start + rows] for start in range(0, len(group), rows))
    return batches


class TokenStore:
    """Unit token vectors of many sentences in ONE device tensor; a sentence is a row span.

    Matching gathers spans with one index per chunk. Dropped sentences leave holes that are
    compacted (one gather) once they are half the rows, so a long-lived worker's memory stays
    at what it keeps (sources and references) and appending stays amortised O(rows).
    """

    def __init__(self, dim: int, device: torch.device) -> None:
        self.dim = dim
        self.device = device
        self.vectors = torch.empty(0, dim, dtype=torch.float32, device=device)
        self.token_ids = torch.empty(0, dtype=torch.long, device=device)
        self.used = 0
        self.dead = 0
        self.spans: dict[str, tuple[int, int]] = {}  # sentence -> (first row, token count)
        self.ids: dict[str, list[int]] = {}  # host copy of the token ids

    def __contains__(self, sentence: object) -> bool:
        return sentence in self.spans

    def _reserve(self, rows: int) -> None:
        needed = self.used + rows
        if needed <= self.vectors.shape[0]:
            return
        capacity = max(needed, 2 * self.vectors.shape[0], 1024)
        vectors = torch.empty(capacity, self.dim, dtype=torch.float32, device=self.device)
        token_ids = torch.zeros(capacity, dtype=torch.long, device=self.device)
        vectors[: self.used] = self.vectors[: self.used]
        token_ids[: self.used] = self.token_ids[: self.used]
        self.vectors, self.token_ids = vectors, token_ids

    def add(self, sentences: Sequence[str], ids: Sequence[list[int]], rows: torch.Tensor) -> None:
        """`rows` holds the sentences' token vectors one sentence after another."""
        count = int(rows.shape[0])
        self._reserve(count)
        start = self.used
        self.vectors[start : start + count] = rows
        flat = torch.tensor([token for seq in ids for token in seq], dtype=torch.long)
        self.token_ids[start : start + count] = flat.to(self.device, non_blocking=True)
        for sentence, seq in zip(sentences, ids, strict=True):
            self.spans[sentence] = (start, len(seq))
            self.ids[sentence] = seq
            start += len(seq)
        self.used = start

    def rows(self, sentences: Sequence[str]) -> torch.Tensor:
        """The sentences' vectors one after another (a new tensor)."""
        if not sentences:
            return self.vectors[:0].clone()
        index = np.concatenate(
            [
                np.arange(first, first + count)
                for first, count in map(self.spans.__getitem__, sentences)
            ]
        )
        return self.vectors.index_select(0, torch.from_numpy(index).to(self.device))

    def drop(self, sentences: Iterable[str]) -> None:
        for sentence in sentences:
            span = self.spans.pop(sentence, None)
            if span is not None:
                del self.ids[sentence]
                self.dead += span[1]
        if self.dead and 2 * self.dead >= self.used:
            self._compact()

    def _compact(self) -> None:
        kept = sorted(self.spans, key=lambda sentence: self.spans[sentence][0])
        index = torch.from_numpy(
            np.concatenate(
                [np.arange(0, 0)]
                + [
                    np.arange(first, first + count)
                    for first, count in map(self.spans.__getitem__, kept)
                ]
            ).astype(np.int64)
        ).to(self.device)
        self.vectors = self.vectors.index_select(0, index)
        self.token_ids = self.token_ids.index_select(0, index)
        row = 0
        for sentence in kept:
            count = self.spans[sentence][1]
            self.spans[sentence] = (row, count)
            row += count
        self.used, self.dead = row, 0


class SentenceEncoder:
    """bert-score's model and tokenizer on one device: token ids, unit token vectors of distinct
    sentences (in a TokenStore), their keys, and the embeddings kept in the disk cache."""

    def __init__(
        self,
        config: BertScoreConfig,
        model_info: ResolvedModel,
        num_layers: int,
        device: torch.device,
        disk: DiskCache | None,
    ) -> None:
        self.config = config
        self.model_info = model_info
        self.num_layers = num_layers
        self.device = device
        defaults = DEVICE_DEFAULTS[device.type]
        self.length_bucket = max(1, config.length_bucket or defaults.length_bucket)
        self.batch_tokens = (
            config.batch_tokens if config.batch_tokens is not None else defaults.batch_tokens
        )
        # fp16 only where it is fast; a CPU worker asked for fp16 computes (and says) fp32.
        self.half = config.fp16 and device.type == "cuda"
        self.tokenizer: Any = None
        self.model: Any = None
        self.store: TokenStore | None = None
        self.onednn_linears = 0  # how many linear layers run through oneDNN (set by load)
        self._fingerprint: str | None = None
        self._keys: dict[str, str] = {}
        self._key_prefix: Any = None
        self.disk = disk
        self.stats = EncodingStats(shapes=set())

    # ----------------------------------------------------------------------------- model
    def load(self) -> None:
        """Load tokenizer and model now (otherwise on first use)."""
        if self.model is not None:
            return
        from bert_score.utils import get_model, get_tokenizer

        path = str(self.model_info.path)
        self.tokenizer = get_tokenizer(path, self.config.use_fast_tokenizer)
        model = get_model(path, self.num_layers, False).to(self.device)
        self.onednn_linears = 0
        if self.config.onednn and self.device.type == "cpu":
            from gecscore.weights.kernels import use_onednn_linears

            self.onednn_linears = use_onednn_linears(model)
        self.model = model
        self.store = TokenStore(int(model.config.hidden_size), self.device)

    @property
    def fingerprint(self) -> str:
        if self._fingerprint is None:
            self._fingerprint = self.model_info.fingerprint()
        return self._fingerprint

    def sync(self) -> None:
        """Wait for queued device work, so that a phase's time includes it."""
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)

    # ---------------------------------------------------------------------- tokenising
    def tokenize_many(self, sentences: Sequence[str]) -> list[list[int]]:
        """Token ids of each sentence exactly as bert-score's `sent_encode`, one batch call."""
        from transformers import GPT2Tokenizer, RobertaTokenizer

        self.load()
        started = time.perf_counter()
        tokenizer = self.tokenizer
        stripped = [sentence.strip() for sentence in sentences]
        empty = [tokenizer.cls_token_id, tokenizer.sep_token_id]
        out: list[list[int]] = [empty] * len(stripped)
        todo = [i for i, text in enumerate(stripped) if text]
        if isinstance(tokenizer, (GPT2Tokenizer, RobertaTokenizer)):
            from bert_score.utils import sent_encode

            # bert-score adds a prefix space for these: keep its own per-sentence call.
            for i in todo:
                out[i] = list(sent_encode(tokenizer, stripped[i]))
        elif todo:
            encoded = tokenizer(
                [stripped[i] for i in todo],
                add_special_tokens=True,
                max_length=tokenizer.model_max_length,
                truncation=True,
                return_attention_mask=False,
                return_token_type_ids=False,
            )["input_ids"]
            for i, ids in zip(todo, encoded, strict=True):
                out[i] = list(ids)
        # An empty sentence: bert-score 0.3.13 calls build_inputs_with_special_tokens([]),
        # which transformers 5 removed; it is just [CLS] [SEP] (F = 0 later).
        self.stats.tokenize_seconds += time.perf_counter() - started
        return out

    def tokenize(self, sentence: str) -> list[int]:
        return self.tokenize_many([sentence])[0]

    # -------------------------------------------------------------------------- caching
    def sentence_key(self, sentence: str) -> str:
        """SHA-256 of (model fingerprint, layer, precision, tokenizer, text): once per sentence."""
        key = self._keys.get(sentence)
        if key is None:
            if self._key_prefix is None:
                prefix = hashlib.sha256()
                for part in (
                    "emb",
                    self.fingerprint,
                    str(self.num_layers),
                    "fp16" if self.half else "fp32",
                    "fast" if self.config.use_fast_tokenizer else "slow",
                ):
                    prefix.update(part.encode("utf-8") + b"\x00")
                self._key_prefix = prefix
            digest = self._key_prefix.copy()
            digest.update(sentence.encode("utf-8") + b"\x00")
            key = digest.hexdigest()
            self._keys[sentence] = key
        return key

    def drop(self, sentences: Iterable[str]) -> None:
        """Forget sentences (their vectors and keys): a partial sentence once its pairs are scored."""
        assert self.store is not None
        sentences = list(sentences)
        self.store.drop(sentences)
        for sentence in sentences:
            self._keys.pop(sentence, None)

    # ------------------------------------------------------------------------ encoding
    def _precision(self, half: bool) -> AbstractContextManager[Any]:
        if half:
            return torch.autocast(device_type=self.device.type, dtype=torch.float16)
        return nullcontext()

    def forward(self, batch: Sequence[Tokenized]) -> torch.Tensor:
        """Unit token vectors of a batch, real tokens only, one sentence after another."""
        lengths = [len(ids) for _, ids in batch]
        width = _padded(max(lengths), self.length_bucket)
        if all(length == width for length in lengths):
            # One length: no padding to compute and no attention mask (bert-score pads;
            # masked padding changes nothing but costs forward time).
            input_ids = torch.tensor([ids for _, ids in batch], dtype=torch.long)
            output = self.model(input_ids.to(self.device, non_blocking=True))[0]
            output = output.reshape(-1, output.shape[-1])
        else:
            pad = self.tokenizer.pad_token_id or 0
            input_ids = torch.tensor(
                [ids + [pad] * (width - len(ids)) for _, ids in batch], dtype=torch.long
            )
            mask = torch.tensor([[1] * n + [0] * (width - n) for n in lengths], dtype=torch.long)
            output = self.model(
                input_ids.to(self.device, non_blocking=True),
                attention_mask=mask.to(self.device, non_blocking=True),
            )[0]
            keep = torch.tensor(
                [row * width + t for row, n in enumerate(lengths) for t in range(n)],
                dtype=torch.long,
            )
            output = output.reshape(-1, output.shape[-1]).index_select(
                0, keep.to(self.device, non_blocking=True)
            )
        self.stats.tokens_encoded += sum(lengths)
        self.stats.tokens_padded += len(batch) * width
        if self.stats.shapes is not None:
            self.stats.shapes.add((len(batch), width))
        vectors: torch.Tensor = output.float()
        unit: torch.Tensor = vectors / torch.norm(vectors, dim=-1).unsqueeze(-1)
        return unit

    def encode_into(
        self,
        store: TokenStore,
        tokenized: Sequence[Tokenized],
        *,
        half: bool,
        progress: ProgressCallback | None = None,
    ) -> None:
        batches = _length_batches(
            tokenized,
            max(1, self.config.batch_size),
            bucket=self.length_bucket,
            batch_tokens=self.batch_tokens,
        )
        done = 0
        # On a GPU the loop only queues work: the host builds the next batch while the
        # device computes this one (no value is read back inside the loop).
        with torch.inference_mode(), self._precision(half):
            for batch in batches:
                rows = self.forward(batch)
                store.add([s for s, _ in batch], [ids for _, ids in batch], rows)
                done += len(batch)
                self.stats.forward_batches += 1
                if progress is not None:
                    progress(done, len(tokenized))

    def encode(
        self,
        sentences: Iterable[str],
        *,
        persist: Iterable[str] = (),
        progress: ProgressCallback | None = None,
    ) -> None:
        """Make sure every sentence is encoded; those in `persist` also go to the disk cache."""
        self.load()
        store = self.store
        assert store is not None
        missing = [s for s in dict.fromkeys(sentences) if s not in store]
        keep_on_disk = set(persist)
        if self.disk is not None and missing:
            started = time.perf_counter()
            keyed = {self.sentence_key(s): s for s in missing if s in keep_on_disk}
            found = self.disk.get_embeddings(list(keyed))
            if found:
                rows = torch.from_numpy(np.concatenate([matrix for _, matrix in found.values()]))
                store.add(
                    [keyed[key] for key in found],
                    [token_ids for token_ids, _ in found.values()],
                    rows.to(self.device),
                )
                self.stats.from_disk += len(found)
                missing = [s for s in missing if s not in store]
            self.stats.cache_seconds += time.perf_counter() - started
        if not missing:
            return
        tokenized = list(zip(missing, self.tokenize_many(missing), strict=True))
        started = time.perf_counter()
        self.encode_into(store, tokenized, half=self.half, progress=progress)
        self.sync()
        self.stats.forward_seconds += time.perf_counter() - started
        self.stats.encoded += len(missing)
        new_for_disk = [s for s in missing if s in keep_on_disk]
        if self.disk is not None and new_for_disk:
            started = time.perf_counter()
            # One copy to the host for all of them; the writer thread does the rest.
            matrix = store.rows(new_for_disk).cpu().numpy()
            items = []
            row = 0
            for sentence in new_for_disk:
                ids = store.ids[sentence]
                items.append((self.sentence_key(sentence), ids, matrix[row : row + len(ids)]))
                row += len(ids)
            self.disk.put_embeddings(items)
            self.stats.cache_seconds += time.perf_counter() - started
