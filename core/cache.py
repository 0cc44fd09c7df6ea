"""Reading through the cache without depending on it: a cache outage (Redis down) makes
pages slower, never broken."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TypeVar

from django.core.cache import cache

logger = logging.getLogger("gec.cache")
T = TypeVar("T")


def cached(key: str, compute: Callable[[], T], timeout: int | None) -> T:
    """The cached value of `key`, or `compute()` stored under it. When the cache cannot be
    reached (its client raises; settings give it a 1 s socket timeout) the value is computed
    and returned without caching."""
    try:
        value = cache.get(key)
    except Exception as exc:  # redis ConnectionError/TimeoutError, or any backend failure
        logger.warning("cache unreachable, computing %s: %s", key, exc)
        return compute()
    if value is not None:
        return value  # type: ignore[no-any-return]
    value = compute()
    try:
        cache.set(key, value, timeout)
    except Exception as exc:
        logger.warning("cache unreachable, %s not stored: %s", key, exc)
    return value
