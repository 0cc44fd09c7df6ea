"""What the reference-free metrics share: input checks, batching, the cache, the mean result."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from gecscore.errors import InputError
from gecscore.metric import Metric, References, Result, SentenceScore, check_corpus
from gecscore.reffree.cache import ValueCache, cache_key
from gecscore.reffree.models import LocalModel, hash_key, hash_known, model_hash, remember_hash

__all__ = ["ReferenceFreeMetric", "cache_key", "length_batches"]


def length_batches(
    texts: Sequence[str], batch_size: int, others: Sequence[str] = ()
) -> Iterator[list[int]]:
    """Indices of ``texts`` in batches of similar length (longest first), so padding to the
    longest input of a batch wastes little; ``others`` (same length) adds to each length."""
    lengths = [len(text) + (len(others[i]) if others else 0) for i, text in enumerate(texts)]
    order = sorted(range(len(texts)), key=lambda i: -lengths[i])
    for start in range(0, len(order), batch_size):
        yield order[start : start + batch_size]


class ReferenceFreeMetric(Metric):
    """A metric of (source, hypothesis) pairs: ``references`` must be empty."""

    needs_references = False
    _cache: ValueCache | None = None

    @property
    def cache(self) -> ValueCache:
        """The on-disk cache of the Config's ``cache_dir`` (keeps nothing without one)."""
        if self._cache is None:
            self._cache = ValueCache(getattr(self.config, "cache_dir", None))
        return self._cache

    def cached(
        self,
        keys: Sequence[str],
        compute: Callable[[list[int]], list[Any]],
    ) -> list[Any]:
        """The value of each key: from the cache, else ``compute(indices of the missing)``
        (which returns their values in that order), then stored."""
        found = self.cache.get_many(list(dict.fromkeys(keys)))
        missing = [i for i, key in enumerate(keys) if key not in found]
        if missing:
            computed = compute(missing)
            fresh = {keys[i]: value for i, value in zip(missing, computed, strict=True)}
            self.cache.put_many(fresh.items())
            found.update(fresh)
        return [found[key] for key in keys]

    def hash_models(self, models: Iterable[LocalModel], load: Callable[[], object]) -> None:
        """Make each model's hash (its signature, the cache keys) known before the cache is
        read: from the in-process memo, else the cache's memo of it, else hashed (~1 s per
        bert-base model) in a thread while ``load()`` loads the models in this one, since a
        model this cache has not hashed has, as a rule, no values in it either."""
        unknown = []
        for model in models:
            if hash_known(model.path):
                continue
            memo_key = cache_key("model-hash", repr(hash_key(model.path)))
            found = self.cache.get_many([memo_key]).get(memo_key)
            if isinstance(found, str):
                remember_hash(model.path, found)
            else:
                unknown.append((memo_key, model.path))
        if not unknown:
            return
        with ThreadPoolExecutor(max_workers=1) as pool:  # hashlib and reads release the GIL
            digests = pool.submit(lambda: [model_hash(path) for _, path in unknown])
            load()
            self.cache.put_many(
                (memo_key, digest)
                for (memo_key, _), digest in zip(unknown, digests.result(), strict=True)
            )

    @property
    def signature(self) -> str:
        raise NotImplementedError

    def check(
        self, sources: Sequence[str], hypotheses: Sequence[str], references: References
    ) -> None:
        check_corpus(sources, hypotheses, references, needs_references=False)
        if len(references) and any(len(reference_set) for reference_set in references):
            raise InputError(f"{self.name} is reference-free: pass references=()")

    def mean_result(self, scores: Sequence[float], **details: object) -> Result:
        """Sentence scores and their mean (0.0 for an empty corpus)."""
        return Result(
            metric=self.name,
            score=sum(scores) / len(scores) if scores else 0.0,
            signature=self.signature,
            sentences=tuple(SentenceScore(float(score)) for score in scores),
            details=details,
        )
