"""The one error type services raise; views and the API turn it into a clear message."""

from __future__ import annotations


class ServiceError(Exception):
    """A request that cannot be carried out, with a message a person can act on.

    `status` is the HTTP status the web layer answers with; `field` names the offending
    input (form field, file line) when there is one.
    """

    status = 400

    def __init__(self, message: str, *, field: str | None = None, status: int | None = None):
        super().__init__(message)
        self.message = message
        self.field = field
        if status is not None:
            self.status = status


class NotFound(ServiceError):
    status = 404


class PermissionDenied(ServiceError):
    status = 403


class Conflict(ServiceError):
    """Someone else changed the object first (optimistic concurrency) or it is closed."""

    status = 409


class ServiceUnavailable(ServiceError):
    """A service the request needs (the task broker) cannot be reached; nothing was changed."""

    status = 503
