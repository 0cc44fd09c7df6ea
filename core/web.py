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
