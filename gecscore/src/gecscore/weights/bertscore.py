"""BERTScore edit weights, batched over a whole corpus and cached, on a CPU or a GPU.

PT-M2's reference calls bert-score twice per edit (source vs reference, edited vs
reference): every call re-tokenises, re-encodes the reference and the source, and runs a
forward pass over two sentences. Here every DISTINCT sentence of a corpus is tokenised once
(one batch call of the tokenizer) and encoded once, in batches of sentences whose token
counts fall in the same length bucket; the token vectors stay on the device in one tensor
and greedy matching runs there in large batched products; only the final (P, R, F) values
come back to the host. The same code runs on both devices; what differs is chosen per
device (see `_DEVICE_DEFAULTS`): on a CPU exact-length batches (no padding, no mask) and
oneDNN's AVX-512 linears (`kernels.py`), cache-sized matching chunks; on a GPU length
buckets of 8 tokens (a bounded number of distinct shapes), batches of ~16k tokens, large
matching chunks, optional fp16 autocast, and disk-cache writes on a background thread.
Source and reference embeddings (shared by all systems of a dataset) and every pair score
can be kept on disk, so scoring another system re-encodes only its partial sentences and a
re-run with the same model encodes nothing.
"""

from __future__ import annotations

import csv
import hashlib
import importlib.metadata
import math
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from gecscore.errors import decode_utf8
from gecscore.signature import WEIGHTS, Signature
from gecscore.weights.base import ProgressCallback, WeightRequest
from gecscore.weights.cache import DiskCache
from gecscore.weights.matching import greedy_match_spans
from gecscore.weights.model import (
    ModelNotFoundError,
    ResolvedModel,
    default_layer,
    resolve_model,
)

Triple = tuple[float, float, float]
Tokenized = tuple[str, list[int]]

DEVICE_CHOICES = ("auto", "cpu", "cuda")


@dataclass(frozen=True)
class _DeviceDefaults:
    length_bucket: int  # token counts rounded up to a multiple of this (1: exact lengths)
    batch_tokens: int  # tokens per forward pass (0: `batch_size` sentences)
    match_budget: int  # floats in one greedy-matching chunk
    background_writes: bool  # disk-cache writes on a writer thread


_DEVICE_DEFAULTS = {
    # Exact lengths: no padding to compute and no attention mask (SDPA's unmasked kernel);
    # ~64 rows of `tokens x sentences` are as efficient as larger batches on a CPU; matching
    # chunks of 4M floats (16 MB) stay cache-friendly. Writes inline: 2 cores are busy.
    "cpu": _DeviceDefaults(1, 0, 4_000_000, False),
    # Buckets of 8 tokens: at most 64 lengths up to 512, so a corpus runs a bounded number
    # of shapes (the first fp16 run paid a set-up per distinct shape); the padding costs
    # ~4 tokens per sentence, which a GPU does not notice.
    "cuda": _DeviceDefaults(8, 16_384, 128_000_000, True),
}
# Requests sampled to measure the fp16 error (weights with fp16 vs fp32 forward passes).
FP16_SAMPLE = 256


def resolve_device(spec: str | None) -> torch.device:
    """`auto` (or nothing): cuda when torch sees a GPU, else cpu; `cuda` without one: error."""
    text = (spec or "auto").strip().lower()
    if text == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        device = torch.device(text)
    except RuntimeError:
        device = None
    if device is None or device.type not in ("cpu", "cuda"):
        raise ValueError(f"unknown device {spec!r}: use auto, cpu or cuda")
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(
            f"device {spec!r} requested but no CUDA GPU is available to torch "
            f"{torch.__version__}; use --device cpu or auto (or leave it unset)"
        )
    return device


@dataclass(frozen=True)
class BertScoreConfig:
    """How to compute BERTScore F for edit weights (PT-M2 defaults: F, no IDF)."""

    model: str  # local folder or installed model package (never a hub name to download)
    num_layers: int | None = None  # None: bert-score's tuned layer for a known model
    batch_size: int = 64  # sentences per forward pass (on a GPU: see batch_tokens)
    device: str | None = None  # None or "auto": cuda when available, else cpu
    fp16: bool = False  # fp16 autocast forward pass, only on cuda (error in the signature)
    idf: bool = False
    idf_sentences: tuple[str, ...] | None = None  # None with idf: the requests' references
    rescale_with_baseline: bool = False
    baseline: str | None = None  # a bert-score baseline .tsv, or "lang/model" from bert-score
    use_fast_tokenizer: bool = False  # bert-score's default (transformers 5: the same class)
    cache_dir: str | None = None  # on-disk cache folder; None: in-memory only
    # fp32 CPU linears through oneDNN's AVX-512 kernels instead of MKL (2.3x faster on AMD,
    # same fp32 arithmetic up to summation order); False keeps torch's default.
    onednn: bool = True
    # None: the device's default (_DEVICE_DEFAULTS); set to test one device's path on another.
    length_bucket: int | None = None
    batch_tokens: int | None = None  # tokens per forward pass; 0: batch_size sentences


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


def _baseline_file(spec: str) -> Path:
    path = Path(spec).expanduser()
    if path.is_file():
        return path
    import bert_score

    packaged = Path(bert_score.__file__).parent / "rescale_baseline" / f"{spec}.tsv"
    if packaged.is_file():
        return packaged
    raise ModelNotFoundError(
        f"Baseline {spec!r} is neither a .tsv file nor one of bert-score's packaged baselines "
        "(give 'lang/model', e.g. 'zh/bert-base-chinese' or 'en/bert-base-uncased')."
    )


def read_baseline(spec: str, layer: int) -> Triple:
    """(P, R, F) baseline of one layer from a bert-score baseline table (row = layer)."""
    path = _baseline_file(spec)
    rows = list(csv.reader(decode_utf8(path.read_bytes(), name=str(path)).splitlines()))
    header, body = rows[0], rows[1:]
    if [name.strip() for name in header[1:4]] != ["P", "R", "F"] or layer >= len(body):
        raise ValueError(f"{path}: expected columns LAYER,P,R,F and a row for layer {layer}")
    row = body[layer]
    # bert-score rounds the baseline to float32 before rescaling; so do we.
    values = torch.tensor([float(row[1]), float(row[2]), float(row[3])], dtype=torch.float32)
    return (float(values[0]), float(values[1]), float(values[2]))


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


class _TokenStore:
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


class BertScoreWeights:
    """Edit weight = |F(edited, reference) - F(source, reference)| with batched BERTScore."""

    def __init__(self, config: BertScoreConfig, *, resolved: ResolvedModel | None = None) -> None:
        self.config = config
        self.model_info = resolved if resolved is not None else resolve_model(config.model)
        self.num_layers = (
            config.num_layers if config.num_layers is not None else default_layer(self.model_info)
        )
        if not 0 <= self.num_layers <= self.model_info.num_hidden_layers:
            raise ModelNotFoundError(
                f"Layer {self.num_layers} does not exist: {self.model_info.name} has "
                f"{self.model_info.num_hidden_layers} layers (--layers 0..{self.model_info.num_hidden_layers})."
            )
        self.baseline: Triple | None = None
        if config.rescale_with_baseline:
            if config.baseline is None:
                raise ModelNotFoundError(
                    "rescale_with_baseline needs a baseline: a bert-score baseline .tsv or "
                    "'lang/model' (e.g. 'zh/bert-base-chinese') matching this model."
                )
            self.baseline = read_baseline(config.baseline, self.num_layers)
        self.device = resolve_device(config.device)
        defaults = _DEVICE_DEFAULTS[self.device.type]
        self.length_bucket = max(1, config.length_bucket or defaults.length_bucket)
        self.batch_tokens = (
            config.batch_tokens if config.batch_tokens is not None else defaults.batch_tokens
        )
        self.match_budget = defaults.match_budget
        # fp16 only where it is fast; a CPU worker asked for fp16 computes (and says) fp32.
        self.half = config.fp16 and self.device.type == "cuda"
        self.fp16_error: tuple[float, int] | None = None  # (max |weight difference|, requests)
        self._tokenizer: Any = None
        self._model: Any = None
        self._store: _TokenStore | None = None
        self.onednn_linears = 0  # how many linear layers run through oneDNN (set by load)
        self._fingerprint: str | None = None
        self._keys: dict[str, str] = {}
        self._key_prefix: Any = None
        self._pair_prefix: Any = None
        self._pairs: dict[tuple[str, str], Triple] = {}
        self._idf: dict[int, float] | None = None
        self._idf_default = 1.0
        self._idf_tag = "no-idf"
        self._weight_table: torch.Tensor | None = None
        self._disk = (
            DiskCache(config.cache_dir, background_writes=defaults.background_writes)
            if config.cache_dir
            else None
        )
        self.stats = EncodingStats(shapes=set())
        if config.idf and config.idf_sentences is not None:
            self.set_idf(config.idf_sentences)

    # ----------------------------------------------------------------- model and naming
    def load(self) -> None:
        """Load tokenizer and model now (otherwise on first use)."""
        if self._model is not None:
            return
        from bert_score.utils import get_model, get_tokenizer

        path = str(self.model_info.path)
        self._tokenizer = get_tokenizer(path, self.config.use_fast_tokenizer)
        model = get_model(path, self.num_layers, False).to(self.device)
        self.onednn_linears = 0
        if self.config.onednn and self.device.type == "cpu":
            from gecscore.weights.kernels import use_onednn_linears

            self.onednn_linears = use_onednn_linears(model)
        self._model = model
        self._store = _TokenStore(int(model.config.hidden_size), self.device)

    @property
    def fingerprint(self) -> str:
        if self._fingerprint is None:
            self._fingerprint = self.model_info.fingerprint()
        return self._fingerprint

    def _precision_tag(self) -> str:
        if not self.half:
            return "fp32"
        if self.fp16_error is None:
            return "fp16(error-not-measured)"
        error, count = self.fp16_error
        return f"fp16(max-weight-error={error:.1e},n={count})"

    @property
    def signature(self) -> str:
        rescale = f"rescaled({self.config.baseline})" if self.baseline is not None else "no-rescale"
        import transformers

        return Signature(
            "bertscore-F",
            None,
            (
                ("model", self.model_info.name),
                ("built_from", self.model_info.config_name or "unknown"),
                ("sha256", self.fingerprint[:12]),
                ("layer", str(self.num_layers)),
                (rescale, None),
                (self._idf_tag if self.config.idf else "no-idf", None),
                (self._precision_tag(), None),
                ("tokenizer", "fast" if self.config.use_fast_tokenizer else "slow"),
                # bert-score 0.3.13's own __version__ still says 0.3.12: ask the installer.
                ("bert_score", importlib.metadata.version("bert-score")),
                ("transformers", transformers.__version__),
            ),
            style=WEIGHTS,
        ).text

    def _sync(self) -> None:
        """Wait for queued device work, so that a phase's time includes it."""
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)

    # ---------------------------------------------------------------------- tokenising
    def tokenize_many(self, sentences: Sequence[str]) -> list[list[int]]:
        """Token ids of each sentence exactly as bert-score's `sent_encode`, one batch call."""
        from transformers import GPT2Tokenizer, RobertaTokenizer

        self.load()
        started = time.perf_counter()
        tokenizer = self._tokenizer
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

    # ----------------------------------------------------------------------------- IDF
    def set_idf(self, sentences: Iterable[str]) -> None:
        """IDF from a document collection, as bert-score: log((N + 1) / (df + 1))."""
        documents = list(sentences)
        frequency: Counter[int] = Counter()
        for ids in self.tokenize_many(documents):
            frequency.update(set(ids))
        count = len(documents)
        self._idf = {token: math.log((count + 1) / (df + 1)) for token, df in frequency.items()}
        self._idf_default = math.log(count + 1)
        digest = hashlib.sha256()
        for token, value in sorted(self._idf.items()):
            digest.update(f"{token}:{value!r};".encode())
        self._idf_tag = f"idf(n={count},sha256={digest.hexdigest()[:12]})"
        self._weight_table = None
        self._pair_prefix = None
        self._pairs.clear()

    def _weights_by_token(self) -> torch.Tensor:
        """bert-score's idf dict as a dense table on the device (index: token id)."""
        if self._weight_table is None:
            size = max(len(self._tokenizer), int(self._model.config.vocab_size))
            if self._idf is None:
                table = torch.ones(size, dtype=torch.float32)
                table[[self._tokenizer.sep_token_id, self._tokenizer.cls_token_id]] = 0.0
            else:
                size = max(size, max(self._idf, default=0) + 1)
                table = torch.full((size,), self._idf_default, dtype=torch.float32)
                tokens = list(self._idf)
                table[tokens] = torch.tensor([self._idf[t] for t in tokens], dtype=torch.float32)
            self._weight_table = table.to(self.device)
        return self._weight_table

    # -------------------------------------------------------------------------- caching
    def _sentence_key(self, sentence: str) -> str:
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

    def _pair_key(self, candidate: str, reference: str) -> str:
        if self._pair_prefix is None:
            prefix = hashlib.sha256()
            prefix.update(b"pair\x00")
            self._pair_prefix = prefix
        digest = self._pair_prefix.copy()
        digest.update(
            f"{self._sentence_key(candidate)}\x00{self._sentence_key(reference)}\x00"
            f"{self._idf_tag}\x00".encode()
        )
        return str(digest.hexdigest())

    # ------------------------------------------------------------------------ encoding
    def _precision(self, half: bool) -> AbstractContextManager[Any]:
        if half:
            return torch.autocast(device_type=self.device.type, dtype=torch.float16)
        return nullcontext()

    def _forward(self, batch: Sequence[Tokenized]) -> torch.Tensor:
        """Unit token vectors of a batch, real tokens only, one sentence after another."""
        lengths = [len(ids) for _, ids in batch]
        width = _padded(max(lengths), self.length_bucket)
        if all(length == width for length in lengths):
            # One length: no padding to compute and no attention mask (bert-score pads;
            # masked padding changes nothing but costs forward time).
            input_ids = torch.tensor([ids for _, ids in batch], dtype=torch.long)
            output = self._model(input_ids.to(self.device, non_blocking=True))[0]
            output = output.reshape(-1, output.shape[-1])
        else:
            pad = self._tokenizer.pad_token_id or 0
            input_ids = torch.tensor(
                [ids + [pad] * (width - len(ids)) for _, ids in batch], dtype=torch.long
            )
            mask = torch.tensor([[1] * n + [0] * (width - n) for n in lengths], dtype=torch.long)
            output = self._model(
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

    def _encode_into(
        self,
        store: _TokenStore,
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
                rows = self._forward(batch)
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
        store = self._store
        assert store is not None
        missing = [s for s in dict.fromkeys(sentences) if s not in store]
        keep_on_disk = set(persist)
        if self._disk is not None and missing:
            started = time.perf_counter()
            keyed = {self._sentence_key(s): s for s in missing if s in keep_on_disk}
            found = self._disk.get_embeddings(list(keyed))
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
        self._encode_into(store, tokenized, half=self.half, progress=progress)
        self._sync()
        self.stats.forward_seconds += time.perf_counter() - started
        self.stats.encoded += len(missing)
        new_for_disk = [s for s in missing if s in keep_on_disk]
        if self._disk is not None and new_for_disk:
            started = time.perf_counter()
            # One copy to the host for all of them; the writer thread does the rest.
            matrix = store.rows(new_for_disk).cpu().numpy()
            items = []
            row = 0
            for sentence in new_for_disk:
                ids = store.ids[sentence]
                items.append((self._sentence_key(sentence), ids, matrix[row : row + len(ids)]))
                row += len(ids)
            self._disk.put_embeddings(items)
            self.stats.cache_seconds += time.perf_counter() - started

    # ------------------------------------------------------------------------- scoring
    def _match(self, store: _TokenStore, pairs: Sequence[tuple[str, str]]) -> list[Triple]:
        """Raw (P, R, F) of pairs whose sentences are all in `store`, in the given order."""
        if not pairs:
            return []
        spans = store.spans
        cand = np.array([spans[c] for c, _ in pairs], dtype=np.int64).reshape(-1, 2)
        ref = np.array([spans[r] for _, r in pairs], dtype=np.int64).reshape(-1, 2)
        # Similar lengths together: a chunk pads every pair to its longest sentences.
        order = np.lexsort((cand[:, 1], np.maximum(cand[:, 1], ref[:, 1])))
        cand, ref = cand[order], ref[order]
        on_device = [
            torch.from_numpy(np.ascontiguousarray(column)).to(self.device)
            for column in (cand[:, 0], cand[:, 1], ref[:, 0], ref[:, 1])
        ]
        table = self._weights_by_token()
        dim = store.dim
        cand_len, ref_len = cand[:, 1].tolist(), ref[:, 1].tolist()
        results = []
        start = 0
        with torch.inference_mode():
            while start < len(pairs):
                # Take pairs while the chunk's [pairs, longest, dim] sides and [pairs, lc, lr]
                # similarities stay under the device's budget of floats.
                end, widest_c, widest_r = start, 1, 1
                while end < len(pairs):
                    wc, wr = max(widest_c, cand_len[end]), max(widest_r, ref_len[end])
                    size = (end + 1 - start) * ((wc + wr) * dim + wc * wr)
                    if end > start and size > self.match_budget:
                        break
                    end, widest_c, widest_r = end + 1, wc, wr
                chunk = [column[start:end] for column in on_device]
                precision, recall, f_score = greedy_match_spans(
                    store.vectors,
                    store.token_ids,
                    table,
                    (chunk[0], chunk[1], widest_c),
                    (chunk[2], chunk[3], widest_r),
                )
                results.append(torch.stack([precision, recall, f_score], dim=1))
                start = end
            values = torch.cat(results).cpu().tolist()  # the one copy back to the host
        triples: list[Triple] = [(0.0, 0.0, 0.0)] * len(pairs)
        for position, (p, r, f) in zip(order.tolist(), values, strict=True):
            triples[position] = (p, r, f)
        return triples

    def score_pairs(
        self,
        pairs: Sequence[tuple[str, str]],
        *,
        persist: Iterable[str] = (),
        progress: ProgressCallback | None = None,
    ) -> list[Triple]:
        """Raw (P, R, F) of each (candidate, reference), exactly as one bert-score call each."""
        self.load()
        store = self._store
        assert store is not None
        keep = set(persist)
        todo = [pair for pair in dict.fromkeys(pairs) if pair not in self._pairs]
        if self._disk is not None and todo:
            started = time.perf_counter()
            keyed = {self._pair_key(c, r): (c, r) for c, r in todo}
            for key, triple in self._disk.get_pairs(list(keyed)).items():
                self._pairs[keyed[key]] = triple
                self.stats.pairs_cached += 1
            todo = [pair for pair in todo if pair not in self._pairs]
            self.stats.cache_seconds += time.perf_counter() - started
        if todo:
            self.encode([s for pair in todo for s in pair], persist=keep, progress=progress)
            started = time.perf_counter()
            scored = self._match(store, todo)
            self.stats.match_seconds += time.perf_counter() - started
            self._pairs.update(zip(todo, scored, strict=True))
            self.stats.pairs_scored += len(todo)
            started = time.perf_counter()
            if self._disk is not None:
                self._disk.put_pairs(
                    (self._pair_key(c, r), t) for (c, r), t in zip(todo, scored, strict=True)
                )
            # Partial sentences are needed only for their pairs, whose scores are now cached;
            # dropping them keeps a long-lived worker's memory at sources + references.
            dropped = {c for c, _ in todo if c not in keep}
            store.drop(dropped)
            for sentence in dropped:
                self._keys.pop(sentence, None)
            self.stats.cache_seconds += time.perf_counter() - started
        return [self._pairs[pair] for pair in pairs]

    def _rescale(self, values: Sequence[float]) -> list[float]:
        if self.baseline is None:
            return list(values)
        base = torch.tensor(self.baseline[2], dtype=torch.float32)
        raw = torch.tensor(list(values), dtype=torch.float32)
        return [float(v) for v in (raw - base) / (1 - base)]

    def f_scores(
        self,
        pairs: Sequence[tuple[str, str]],
        *,
        persist: Iterable[str] = (),
        progress: ProgressCallback | None = None,
    ) -> list[float]:
        """BERTScore F of each pair, rescaled with the baseline when configured."""
        triples = self.score_pairs(pairs, persist=persist, progress=progress)
        return self._rescale([f for _, _, f in triples])

    @staticmethod
    def _pairs_of(requests: Sequence[WeightRequest]) -> list[tuple[str, str]]:
        pairs: list[tuple[str, str]] = []
        for request in requests:
            pairs.append((request.edited, request.reference))
            pairs.append((request.source, request.reference))
        return pairs

    @staticmethod
    def _differences(scores: Sequence[float]) -> list[float]:
        return [abs(scores[2 * i] - scores[2 * i + 1]) for i in range(len(scores) // 2)]

    def measure_fp16_error(self, requests: Sequence[WeightRequest]) -> tuple[float, int]:
        """Max |weight with an fp16 forward - weight with fp32| over a sample of requests.

        Computed apart from the caches (nothing of it is kept) on up to FP16_SAMPLE requests
        spread over the corpus; named in the signature, so an fp16 number says its error.
        """
        self.load()
        step = max(1, len(requests) // FP16_SAMPLE)
        sample = list(requests[::step][:FP16_SAMPLE])
        pairs = self._pairs_of(sample)
        sentences = list(dict.fromkeys(s for pair in pairs for s in pair))
        tokenized = list(zip(sentences, self.tokenize_many(sentences), strict=True))
        weights = []
        for half in (False, True):
            store = _TokenStore(self._store.dim if self._store else 0, self.device)
            self._encode_into(store, tokenized, half=half)
            scores = self._rescale([f for _, _, f in self._match(store, pairs)])
            weights.append(self._differences(scores))
        error = max((abs(a - b) for a, b in zip(*weights, strict=True)), default=0.0)
        return error, len(sample)

    def prepare(self, requests: Sequence[WeightRequest]) -> None:
        """Called once with ALL requests before they arrive in chunks: corpus-wide IDF, and
        the fp16 error measured on a sample of them."""
        if self.config.idf and self._idf is None:
            self.set_idf(dict.fromkeys(request.reference for request in requests))
        if self.half and self.fp16_error is None and requests:
            self.fp16_error = self.measure_fp16_error(requests)

    def weights(
        self, requests: Sequence[WeightRequest], *, progress: ProgressCallback | None = None
    ) -> list[float]:
        if not requests:
            return []
        self.load()
        # IDF over the distinct references of the requests, unless set before (prepare,
        # set_idf or idf_sentences): with chunked calls, call prepare() first.
        self.prepare(requests)
        # Sources and references recur across systems of a dataset: keep those on disk.
        persist = {r.source for r in requests} | {r.reference for r in requests}
        scores = self.f_scores(self._pairs_of(requests), persist=persist, progress=progress)
        return self._differences(scores)

    def flush(self) -> None:
        """Wait until the disk cache holds everything computed so far."""
        if self._disk is not None:
            self._disk.flush()

    def close(self) -> None:
        if self._disk is not None:
            self._disk.close()
