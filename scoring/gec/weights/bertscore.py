"""BERTScore edit weights, batched over a whole corpus and cached.

PT-M2's reference calls bert-score twice per edit (source vs reference, edited vs
reference): every call re-tokenises, re-encodes the reference and the source, and runs a
forward pass over two sentences. Here every DISTINCT sentence of a corpus is encoded once,
in batches of sentences with exactly the same token count (no padding, no attention mask),
with the linear layers on oneDNN's AVX-512 kernels on CPU (`kernels.py`); greedy matching
is then a cheap batched matrix product over pairs of similar lengths. On CPU the cold path
is compute-bound: ~90% of it is the encoder's forward passes.
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from scoring.gec.weights.base import ProgressCallback, WeightRequest
from scoring.gec.weights.cache import DiskCache, cache_key
from scoring.gec.weights.matching import greedy_match
from scoring.gec.weights.model import (
    ModelNotFoundError,
    ResolvedModel,
    default_layer,
    resolve_model,
)

Triple = tuple[float, float, float]

# Floats in one padded side of a greedy-matching chunk (16 MB): small enough to stay in
# cache-friendly sizes, large enough that per-chunk Python overhead does not matter.
_MATCH_BUDGET = 4_000_000


@dataclass(frozen=True)
class BertScoreConfig:
    """How to compute BERTScore F for edit weights (PT-M2 defaults: F, no IDF)."""

    model: str  # local folder or installed model package (never a hub name to download)
    num_layers: int | None = None  # None: bert-score's tuned layer for a known model
    batch_size: int = 64  # sentences per forward pass
    device: str | None = None  # None: cuda when available, else cpu
    fp16: bool = False  # half precision forward pass, only on cuda
    idf: bool = False
    idf_sentences: tuple[str, ...] | None = None  # None with idf: the requests' references
    rescale_with_baseline: bool = False
    baseline: str | None = None  # a bert-score baseline .tsv, or "lang/model" from bert-score
    use_fast_tokenizer: bool = False  # bert-score's default is the slow tokenizer
    cache_dir: str | None = None  # on-disk cache folder; None: in-memory only
    # fp32 CPU linears through oneDNN's AVX-512 kernels instead of MKL (2.3x faster on AMD,
    # same fp32 arithmetic up to summation order); False keeps torch's default.
    onednn: bool = True


@dataclass
class _Encoded:
    token_ids: list[int]
    vectors: torch.Tensor  # [tokens, dim], unit length, float32


@dataclass
class EncodingStats:
    """What the last calls cost: useful for benchmarks and for a progress page."""

    encoded: int = 0
    from_memory: int = 0
    from_disk: int = 0
    pairs_scored: int = 0
    pairs_cached: int = 0
    forward_batches: int = 0
    tokens_encoded: int = 0  # tokens through the encoder (no padding: batches share a length)
    forward_seconds: float = 0.0  # wall time inside the encoder's forward passes


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
    with path.open(encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    header, body = rows[0], rows[1:]
    if [name.strip() for name in header[1:4]] != ["P", "R", "F"] or layer >= len(body):
        raise ValueError(f"{path}: expected columns LAYER,P,R,F and a row for layer {layer}")
    row = body[layer]
    # bert-score rounds the baseline to float32 before rescaling; so do we.
    values = torch.tensor([float(row[1]), float(row[2]), float(row[3])], dtype=torch.float32)
    return (float(values[0]), float(values[1]), float(values[2]))


def _length_batches(
    tokenized: Sequence[tuple[str, list[int]]], batch_size: int
) -> list[list[tuple[str, list[int]]]]:
    """Batches of at most `batch_size` sentences that all have the same token count.

    Longest first (as bert-score), so the first batch shows the memory peak at once. A
    length shared by few sentences gives a small batch, but its rows are still `tokens x
    sentences` rows for the matrix products, which on a CPU are as efficient from ~64 rows
    on as in large batches (measured), so exact lengths cost nothing there.
    """
    by_length: dict[int, list[tuple[str, list[int]]]] = {}
    for item in tokenized:
        by_length.setdefault(len(item[1]), []).append(item)
    batches: list[list[tuple[str, list[int]]]] = []
    for length in sorted(by_length, reverse=True):
        group = by_length[length]
        batches.extend(
            group[start : start + batch_size] for start in range(0, len(group), batch_size)
        )
    return batches


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
        if config.device is not None:
            self.device = torch.device(config.device)
            if self.device.type == "cuda" and not torch.cuda.is_available():
                raise ValueError(
                    f"device {config.device!r} requested but no CUDA GPU is available to torch "
                    f"{torch.__version__}; use --device cpu (or leave it unset)"
                )
        else:
            self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.half = config.fp16 and self.device.type == "cuda"
        self._tokenizer: Any = None
        self._model: Any = None
        self.onednn_linears = 0  # how many linear layers run through oneDNN (set by load)
        self._fingerprint: str | None = None
        self._memory: dict[str, _Encoded] = {}
        self._pairs: dict[tuple[str, str], Triple] = {}
        self._idf: dict[int, float] | None = None
        self._idf_default = 1.0
        self._idf_tag = "no-idf"
        self._disk = DiskCache(config.cache_dir) if config.cache_dir else None
        self.stats = EncodingStats()
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
        model = get_model(path, self.num_layers, False)
        if self.half:
            model = model.half()
        model = model.to(self.device)
        self.onednn_linears = 0
        if self.config.onednn and self.device.type == "cpu" and not self.half:
            from scoring.gec.weights.kernels import use_onednn_linears

            self.onednn_linears = use_onednn_linears(model)
        self._model = model

    @property
    def fingerprint(self) -> str:
        if self._fingerprint is None:
            self._fingerprint = self.model_info.fingerprint()
        return self._fingerprint

    @property
    def signature(self) -> str:
        rescale = f"rescaled({self.config.baseline})" if self.baseline is not None else "no-rescale"
        import transformers

        return "|".join(
            [
                "weights=bertscore-F",
                f"model={self.model_info.name}",
                f"built_from={self.model_info.config_name or 'unknown'}",
                f"sha256={self.fingerprint[:12]}",
                f"layer={self.num_layers}",
                rescale,
                self._idf_tag if self.config.idf else "no-idf",
                "fp16" if self.half else "fp32",
                f"tokenizer={'fast' if self.config.use_fast_tokenizer else 'slow'}",
                # bert-score 0.3.13's own __version__ still says 0.3.12: ask the installer.
                f"bert_score={importlib.metadata.version('bert-score')}",
                f"transformers={transformers.__version__}",
            ]
        )

    # ----------------------------------------------------------------------------- IDF
    def tokenize(self, sentence: str) -> list[int]:
        from bert_score.utils import sent_encode

        self.load()
        if not sentence.strip():
            # bert-score 0.3.13 calls build_inputs_with_special_tokens([]) here, which
            # transformers 5 removed; an empty sentence is just [CLS] [SEP] (F = 0 later).
            return [self._tokenizer.cls_token_id, self._tokenizer.sep_token_id]
        return list(sent_encode(self._tokenizer, sentence))

    def set_idf(self, sentences: Iterable[str]) -> None:
        """IDF from a document collection, as bert-score: log((N + 1) / (df + 1))."""
        self.load()
        documents = list(sentences)
        frequency: Counter[int] = Counter()
        for sentence in documents:
            frequency.update(set(self.tokenize(sentence)))
        count = len(documents)
        self._idf = {token: math.log((count + 1) / (df + 1)) for token, df in frequency.items()}
        self._idf_default = math.log(count + 1)
        digest = hashlib.sha256()
        for token, value in sorted(self._idf.items()):
            digest.update(f"{token}:{value!r};".encode())
        self._idf_tag = f"idf(n={count},sha256={digest.hexdigest()[:12]})"
        self._pairs.clear()

    def _idf_weights(self, token_ids: Sequence[int]) -> torch.Tensor:
        if self._idf is None:
            special = {self._tokenizer.sep_token_id, self._tokenizer.cls_token_id}
            values = [0.0 if token in special else 1.0 for token in token_ids]
        else:
            values = [self._idf.get(token, self._idf_default) for token in token_ids]
        return torch.tensor(values, dtype=torch.float32)

    # ------------------------------------------------------------------------ encoding
    def _embedding_key(self, sentence: str) -> str:
        return cache_key(
            "emb",
            self.fingerprint,
            str(self.num_layers),
            "fp16" if self.half else "fp32",
            "fast" if self.config.use_fast_tokenizer else "slow",
            sentence,
        )

    def encode(
        self,
        sentences: Iterable[str],
        *,
        persist: Iterable[str] = (),
        progress: ProgressCallback | None = None,
    ) -> None:
        """Make sure every sentence is encoded; those in `persist` also go to the disk cache."""
        self.load()
        missing = [s for s in dict.fromkeys(sentences) if s not in self._memory]
        keep_on_disk = set(persist)
        if self._disk is not None and missing:
            keyed = {self._embedding_key(s): s for s in missing if s in keep_on_disk}
            for key, (token_ids, matrix) in self._disk.get_embeddings(list(keyed)).items():
                self._memory[keyed[key]] = _Encoded(token_ids, torch.from_numpy(matrix.copy()))
                self.stats.from_disk += 1
            missing = [s for s in missing if s not in self._memory]
        tokenized = [(sentence, self.tokenize(sentence)) for sentence in missing]
        batches = _length_batches(tokenized, max(1, self.config.batch_size))
        new_for_disk = []
        done = 0
        for batch in batches:
            # Every sentence of a batch has the same token count: no padding to compute
            # (bert-score pads; masked padding changes nothing but costs forward time) and
            # no attention mask, which also lets SDPA take its faster unmasked kernel.
            input_ids = torch.tensor([ids for _, ids in batch], dtype=torch.long)
            with torch.inference_mode():
                started = time.perf_counter()
                output = self._model(input_ids.to(self.device))[0].float().cpu()
                self.stats.forward_seconds += time.perf_counter() - started
                # Unit length in one op per batch; rows are cloned so that dropping a
                # partial sentence later frees its memory (a view would pin the batch).
                output = output / torch.norm(output, dim=-1).unsqueeze(-1)
            self.stats.tokens_encoded += input_ids.numel()
            for row, (sentence, ids) in enumerate(batch):
                self._memory[sentence] = _Encoded(ids, output[row].clone())
                if sentence in keep_on_disk:
                    new_for_disk.append(sentence)
            done += len(batch)
            self.stats.encoded += len(batch)
            self.stats.forward_batches += 1
            if progress is not None:
                progress(done, len(tokenized))
        if self._disk is not None and new_for_disk:
            self._disk.put_embeddings(
                (
                    self._embedding_key(s),
                    self._memory[s].token_ids,
                    self._memory[s].vectors.numpy(),
                )
                for s in new_for_disk
            )

    # ------------------------------------------------------------------------- scoring
    def _pair_key(self, candidate: str, reference: str) -> str:
        return cache_key(
            "pair",
            self._embedding_key(candidate),
            self._embedding_key(reference),
            self._idf_tag,
        )

    def score_pairs(
        self,
        pairs: Sequence[tuple[str, str]],
        *,
        persist: Iterable[str] = (),
        progress: ProgressCallback | None = None,
    ) -> list[Triple]:
        """Raw (P, R, F) of each (candidate, reference), exactly as one bert-score call each."""
        self.load()
        keep = set(persist)
        todo = [pair for pair in dict.fromkeys(pairs) if pair not in self._pairs]
        if self._disk is not None and todo:
            keyed = {self._pair_key(c, r): (c, r) for c, r in todo}
            for key, triple in self._disk.get_pairs(list(keyed)).items():
                self._pairs[keyed[key]] = triple
                self.stats.pairs_cached += 1
            todo = [pair for pair in todo if pair not in self._pairs]
        if todo:
            self.encode([s for pair in todo for s in pair], persist=keep, progress=progress)
            length = {s: len(self._memory[s].token_ids) for pair in todo for s in pair}
            # Similar lengths together: a chunk pads every pair to its longest sentence, so
            # sorting by candidate length alone padded short pairs to a long reference.
            todo.sort(key=lambda pair: (max(length[pair[0]], length[pair[1]]), length[pair[0]]))
            # One idf vector per distinct sentence, not one per pair side.
            idf = {s: self._idf_weights(self._memory[s].token_ids) for s in length}
            scored: list[tuple[tuple[str, str], Triple]] = []
            dim = next(iter(self._memory.values())).vectors.shape[1]
            start = 0
            while start < len(todo):
                # Lengths grow along `todo`: take pairs while the padded [pairs, longest,
                # max(longest, dim)] tensors stay under _MATCH_BUDGET floats (cache-sized).
                end = start + 1
                while end < len(todo):
                    c, r = todo[end]
                    longest = max(length[c], length[r])
                    if (end + 1 - start) * longest * max(longest, dim) > _MATCH_BUDGET:
                        break
                    end += 1
                batch = todo[start:end]
                with torch.inference_mode():
                    precision, recall, f_score = greedy_match(
                        [self._memory[c].vectors for c, _ in batch],
                        [idf[c] for c, _ in batch],
                        [self._memory[r].vectors for _, r in batch],
                        [idf[r] for _, r in batch],
                    )
                triples = zip(precision.tolist(), recall.tolist(), f_score.tolist(), strict=True)
                for pair, triple in zip(batch, triples, strict=True):
                    self._pairs[pair] = triple
                    scored.append((pair, triple))
                self.stats.pairs_scored += len(batch)
                start = end
            if self._disk is not None:
                self._disk.put_pairs((self._pair_key(c, r), t) for (c, r), t in scored)
            # Partial sentences are needed only for their pairs, whose scores are now cached;
            # dropping them keeps a long-lived worker's memory at sources + references.
            for candidate, _ in todo:
                if candidate not in keep:
                    self._memory.pop(candidate, None)
        return [self._pairs[pair] for pair in pairs]

    def f_scores(
        self,
        pairs: Sequence[tuple[str, str]],
        *,
        persist: Iterable[str] = (),
        progress: ProgressCallback | None = None,
    ) -> list[float]:
        """BERTScore F of each pair, rescaled with the baseline when configured."""
        triples = self.score_pairs(pairs, persist=persist, progress=progress)
        if self.baseline is None:
            return [f for _, _, f in triples]
        base = torch.tensor(self.baseline[2], dtype=torch.float32)
        raw = torch.tensor([f for _, _, f in triples], dtype=torch.float32)
        return [float(v) for v in (raw - base) / (1 - base)]

    def prepare(self, requests: Sequence[WeightRequest]) -> None:
        """Called once with ALL requests before they arrive in chunks: corpus-wide IDF."""
        if self.config.idf and self._idf is None:
            self.set_idf(dict.fromkeys(request.reference for request in requests))

    def weights(
        self, requests: Sequence[WeightRequest], *, progress: ProgressCallback | None = None
    ) -> list[float]:
        if not requests:
            return []
        self.load()
        # IDF over the distinct references of the requests, unless set before (prepare,
        # set_idf or idf_sentences): with chunked calls, call prepare() first.
        self.prepare(requests)
        pairs: list[tuple[str, str]] = []
        for request in requests:
            pairs.append((request.edited, request.reference))
            pairs.append((request.source, request.reference))
        # Sources and references recur across systems of a dataset: keep those on disk.
        persist = {r.source for r in requests} | {r.reference for r in requests}
        scores = self.f_scores(pairs, persist=persist, progress=progress)
        return [abs(scores[2 * i] - scores[2 * i + 1]) for i in range(len(requests))]

    def close(self) -> None:
        if self._disk is not None:
            self._disk.close()
