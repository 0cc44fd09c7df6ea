"""BERTScore edit weights, batched over a whole corpus and cached, on a CPU or a GPU.

PT-M2's reference calls bert-score twice per edit (source vs reference, edited vs
reference): every call re-tokenises, re-encodes the reference and the source, and runs a
forward pass over two sentences. Here every DISTINCT sentence of a corpus is tokenised once
(one batch call of the tokenizer) and encoded once, in batches of sentences whose token
counts fall in the same length bucket; the token vectors stay on the device in one tensor
and greedy matching runs there in large batched products; only the final (P, R, F) values
come back to the host. The same code runs on both devices; what differs is chosen per
device (see `device.DEVICE_DEFAULTS`): on a CPU exact-length batches (no padding, no mask) and
oneDNN's AVX-512 linears (`kernels.py`), cache-sized matching chunks; on a GPU length
buckets of 32 tokens (a bounded number of distinct shapes), batches of ~16k tokens, large
matching chunks, optional fp16 autocast, and disk-cache writes on a background thread.
Source and reference embeddings (shared by all systems of a dataset) and every pair score
can be kept on disk, so scoring another system re-encodes only its partial sentences and a
re-run with the same model encodes nothing.

Modules: `device` (device choice and defaults), `encoding` (tokenising, encoding, the token
store), `matching` (greedy matching), `cache` (the disk cache); here the configuration, the
pair scores and the weights.
"""

from __future__ import annotations

import csv
import hashlib
import importlib.metadata
import math
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from gecscore.devices import resolve_device
from gecscore.errors import InputError, decode_utf8
from gecscore.signature import WEIGHTS, Signature
from gecscore.weights.base import ProgressCallback, WeightRequest
from gecscore.weights.cache import DiskCache
from gecscore.weights.device import DEVICE_DEFAULTS
from gecscore.weights.encoding import SentenceEncoder, TokenStore
from gecscore.weights.matching import greedy_match_spans
from gecscore.weights.model import (
    ModelNotFoundError,
    ResolvedModel,
    default_layer,
    resolve_model,
)

__all__ = [
    "BertScoreConfig",
    "BertScoreWeights",
    "FP16_SAMPLE",
    "Triple",
    "read_baseline",
]


Triple = tuple[float, float, float]

# Requests sampled to measure the fp16 error (weights with fp16 vs fp32 forward passes).
FP16_SAMPLE = 256


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
    # None: the device's default (DEVICE_DEFAULTS); set to test one device's path on another.
    length_bucket: int | None = None
    batch_tokens: int | None = None  # tokens per forward pass; 0: batch_size sentences


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
        raise InputError(f"{path}: expected columns LAYER,P,R,F and a row for layer {layer}")
    row = body[layer]
    # bert-score rounds the baseline to float32 before rescaling; so do we.
    values = torch.tensor([float(row[1]), float(row[2]), float(row[3])], dtype=torch.float32)
    return (float(values[0]), float(values[1]), float(values[2]))


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
                f"{self.model_info.num_hidden_layers} layers (0..{self.model_info.num_hidden_layers})."
            )
        self.baseline: Triple | None = None
        if config.rescale_with_baseline:
            if config.baseline is None:
                raise ModelNotFoundError(
                    "rescale_with_baseline needs a baseline: a bert-score baseline .tsv or "
                    "'lang/model' (e.g. 'zh/bert-base-chinese') matching this model."
                )
            self.baseline = read_baseline(config.baseline, self.num_layers)
        self.device = torch.device(resolve_device(config.device))
        defaults = DEVICE_DEFAULTS[self.device.type]
        self.match_budget = defaults.match_budget
        self.fp16_error: tuple[float, int] | None = None  # (max |weight difference|, requests)
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
        self.encoder = SentenceEncoder(
            config, self.model_info, self.num_layers, self.device, self._disk
        )
        self.stats = self.encoder.stats
        if config.idf and config.idf_sentences is not None:
            self.set_idf(config.idf_sentences)

    # ------------------------------------------------- the encoder's model and sentences
    def load(self) -> None:
        """Load tokenizer and model now (otherwise on first use)."""
        self.encoder.load()

    @property
    def half(self) -> bool:
        """fp16 forward passes (only on a GPU)."""
        return self.encoder.half

    @half.setter
    def half(self, value: bool) -> None:
        self.encoder.half = value

    @property
    def onednn_linears(self) -> int:
        return self.encoder.onednn_linears

    @property
    def fingerprint(self) -> str:
        return self.encoder.fingerprint

    def tokenize_many(self, sentences: Sequence[str]) -> list[list[int]]:
        return self.encoder.tokenize_many(sentences)

    def tokenize(self, sentence: str) -> list[int]:
        return self.encoder.tokenize(sentence)

    def encode(
        self,
        sentences: Iterable[str],
        *,
        persist: Iterable[str] = (),
        progress: ProgressCallback | None = None,
    ) -> None:
        """Make sure every sentence is encoded; those in `persist` also go to the disk cache."""
        self.encoder.encode(sentences, persist=persist, progress=progress)

    # ---------------------------------------------------------------------------- naming
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
            size = max(len(self.encoder.tokenizer), int(self.encoder.model.config.vocab_size))
            if self._idf is None:
                table = torch.ones(size, dtype=torch.float32)
                table[
                    [self.encoder.tokenizer.sep_token_id, self.encoder.tokenizer.cls_token_id]
                ] = 0.0
            else:
                size = max(size, max(self._idf, default=0) + 1)
                table = torch.full((size,), self._idf_default, dtype=torch.float32)
                tokens = list(self._idf)
                table[tokens] = torch.tensor([self._idf[t] for t in tokens], dtype=torch.float32)
            self._weight_table = table.to(self.device)
        return self._weight_table

    # -------------------------------------------------------------------------- caching
    def _pair_key(self, candidate: str, reference: str) -> str:
        if self._pair_prefix is None:
            prefix = hashlib.sha256()
            prefix.update(b"pair\x00")
            self._pair_prefix = prefix
        digest = self._pair_prefix.copy()
        digest.update(
            f"{self.encoder.sentence_key(candidate)}\x00{self.encoder.sentence_key(reference)}\x00"
            f"{self._idf_tag}\x00".encode()
        )
        return str(digest.hexdigest())

    # ------------------------------------------------------------------------ encoding
    # ------------------------------------------------------------------------- scoring
    def _match(self, store: TokenStore, pairs: Sequence[tuple[str, str]]) -> list[Triple]:
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
        store = self.encoder.store
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
            self.encoder.drop({c for c, _ in todo if c not in keep})
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
            store = TokenStore(self.encoder.store.dim if self.encoder.store else 0, self.device)
            self.encoder.encode_into(store, tokenized, half=half)
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
