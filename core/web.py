"""Web helpers every app's views share: run a service from a page, look an object up."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from django.contrib import messages
from django.http import Http404, HttpRequest

from core.exceptions import NotFound, ServiceError

T = TypeVar("T")


def call_service(request: HttpRequest, fn: Callable[..., T], **kwargs: Any) -> T | None:
    """Run a service; NotFound becomes a 404, other service errors a message on the page."""
    try:
        return fn(**kwargs)
    except NotFound as error:
        raise Http404(error.message) from None
    except ServiceError as error:
        messages.error(request, error.message)
        return None


def lookup(fn: Callable[..., T], *args: Any) -> T:
    """A selector's object, or a 404 with the selector's message."""
    try:
        return fn(*args)
    except NotFound as error:
        raise Http404(error.message) from None


# A database id fits a signed 64-bit integer: 18 decimal digits always do.
MAX_ID_DIGITS = 18


def parse_id(raw: Any) -> int | None:
    """An id from a query parameter or form field, or None when it is not one: ASCII digits
    only (str.isdigit() also accepts "²", which int() refuses) and short enough for the
    database (a longer one overflows the query instead of matching nothing)."""
    if not isinstance(raw, str) or not raw.isascii() or not raw.isdigit():
        return None
    if len(raw) > MAX_ID_DIGITS:
        return None
    return int(raw)
