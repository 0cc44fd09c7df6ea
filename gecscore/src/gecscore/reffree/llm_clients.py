"""The client every LLM caller uses, judge or not: an OpenAI-compatible chat-completions
endpoint (standard library only) or a local Hugging Face causal LM, behind one calling
convention::

    client = HTTPChatClient(LLMEndpoint(url="http://127.0.0.1:8000/v1", model="m"))
    text = client.complete([{"role": "user", "content": "Correct minimally: ..."}], stop=stop)

An endpoint cannot hold its caller: each request has one wall-clock deadline (``timeout``)
covering connect, TLS, headers and body, so a server that drips a byte at a time is cut off
like one that never answers; at most ``max_response_bytes`` of the answer are read (streamed,
never more in memory); redirects are not followed; error text is cut to a bounded length and a
body that is not UTF-8 is described by its size. A request that fails (connection, deadline,
HTTP 429/5xx, an unreadable answer) is sent again ``retries`` times after doubling waits.

Calls of one run share a :class:`Stop`: the first call that still fails after its retries trips
it (a circuit breaker: the calls in flight are cut off and the rest fail at once instead of
each waiting out its own deadlines), and the caller can cancel the run with it at any time,
which ends every call within one request's deadline.

The standard library, not httpx or urllib3: both time out per socket operation (a read that
gets one byte in time resets the clock), so neither bounds a drip without a watchdog like the
one here, and the judges' HTTP path needs no dependency.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import ssl
import threading
import urllib.parse
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from gecscore.errors import GECError, OptionError, Unavailable

__all__ = [
    "DEFAULT_MAX_RESPONSE_BYTES",
    "ChatClient",
    "HFChatClient",
    "HTTPChatClient",
    "LLMEndpoint",
    "LLMStopped",
    "Stop",
    "describe_body",
]

# A chat answer is a few hundred bytes (a judge's scores) to a few kilobytes (a corrected
# sentence); a megabyte is far above any honest answer and far below what hurts a worker.
DEFAULT_MAX_RESPONSE_BYTES = 1 << 20
_ERROR_BODY_BYTES = 4096  # read of a refusal's body, to quote its start
_QUOTE_CHARS = 200  # of a body or a URL quoted in an error
_READ_CHUNK = 65536

Messages = Sequence[Mapping[str, str]]


class LLMStopped(GECError):
    """A call that did not run to its end because its run was stopped: cancelled by the
    caller, or another call of the run failed after its retries (``reason`` says which)."""

    def __init__(self, reason: str, *, cancelled: bool) -> None:
        super().__init__(reason)
        self.reason = reason
        self.cancelled = cancelled


class Stop:
    """Shared by the calls of one run (threads included). ``cancel(reason)`` is the caller's
    Cancel; ``trip(error)`` is called by a call that failed after its retries (or by the
    caller, on any error that ends its run). Either one
    cuts off every request in flight (their sockets are shut down) and makes every later
    call raise :class:`LLMStopped` at once."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._aborts: set[Callable[[str], None]] = set()
        self.reason = ""
        self.cancelled = False
        self.failure: BaseException | None = None  # the error that tripped it

    @property
    def stopped(self) -> bool:
        return self._event.is_set()

    def cancel(self, reason: str = "cancelled") -> None:
        self._set(reason, cancelled=True, failure=None)

    def trip(self, failure: BaseException) -> None:
        self._set(str(failure), cancelled=False, failure=failure)

    def _set(self, reason: str, *, cancelled: bool, failure: BaseException | None) -> None:
        with self._lock:
            if self._event.is_set():
                return  # the first reason stands
            self.reason, self.cancelled, self.failure = reason, cancelled, failure
            self._event.set()
            aborts = list(self._aborts)
        for abort in aborts:
            abort("stopped")

    def check(self) -> None:
        if self._event.is_set():
            raise LLMStopped(self.reason, cancelled=self.cancelled)

    def wait(self, seconds: float) -> None:
        """Sleep ``seconds`` (a retry's wait) unless the run is stopped meanwhile."""
        if self._event.wait(seconds):
            self.check()

    @contextlib.contextmanager
    def watching(self, abort: Callable[[str], None]) -> Iterator[None]:
        """Call ``abort("stopped")`` if the run stops while the block runs."""
        with self._lock:
            self._aborts.add(abort)
            stopped = self._event.is_set()
        try:
            if stopped:
                abort("stopped")
            yield
        finally:
            with self._lock:
                self._aborts.discard(abort)


class ChatClient(Protocol):
    """What every caller of an LLM uses: the text of the model's answer to ``messages``
    (OpenAI chat messages); ``response_format`` is a JSON-schema response format the HTTP
    endpoint is asked to follow; ``stop`` the run the call belongs to."""

    def complete(
        self,
        messages: Messages,
        *,
        response_format: Mapping[str, Any] | None = None,
        stop: Stop | None = None,
    ) -> str: ...


@dataclass(frozen=True)
class LLMEndpoint:
    """An OpenAI-compatible endpoint: ``url`` its base URL ending in ``/v1``, ``model`` the
    name it serves; ``timeout`` seconds per request, all of it; ``retries`` new requests after
    a failure, the first ``retry_wait`` seconds later, each wait twice the last; ``seed`` sent
    with each request (not to Gemini, which refuses it, as gec-metrics does)."""

    url: str
    model: str
    api_key: str = field(default="", repr=False)
    timeout: float = 60.0
    retries: int = 3
    retry_wait: float = 1.0
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES
    seed: int | None = None

    def __post_init__(self) -> None:
        parsed = urllib.parse.urlsplit(self.url)
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise OptionError(
                f"LLM endpoint URL {_quote(self.url)} is not an http(s) URL; give the server's "
                "base URL, e.g. http://127.0.0.1:8000/v1"
            )
        if self.timeout <= 0 or self.retries < 0 or self.retry_wait < 0:
            raise OptionError("LLM endpoint timeout must be > 0, retries and retry_wait >= 0")
        if self.max_response_bytes < 1:
            raise OptionError("LLM endpoint max_response_bytes must be at least 1")


class _Retry(Exception):
    """A failed attempt worth another try; the message says what went wrong."""


class _Request:
    """One request's socket, shut down by whichever comes first of its deadline and its run's
    stop. A shutdown wakes a read blocked in another thread (a close would not); it is done on
    the file descriptor so it also reaches a socket wrapped in TLS, and never after the
    request closed it (the number may belong to another file by then)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._fd: int | None = None
        self._closed = False
        self.reason = ""

    def attach(self, fd: int) -> None:
        with self._lock:
            self._fd = fd
            if self.reason:
                self._shutdown()

    def abort(self, reason: str) -> None:
        with self._lock:
            if self.reason or self._closed:
                return
            self.reason = reason
            if self._fd is not None:
                self._shutdown()

    def close(self) -> None:
        with self._lock:
            self._closed = True

    def _shutdown(self) -> None:
        with contextlib.suppress(OSError):
            sock = socket.socket(fileno=self._fd)
            try:
                sock.shutdown(socket.SHUT_RDWR)
            finally:
                sock.detach()  # the request's own socket object closes the descriptor


class HTTPChatClient:
    """An OpenAI-compatible ``POST {url}/chat/completions``; see the module docstring."""

    def __init__(self, endpoint: LLMEndpoint) -> None:
        self.endpoint = endpoint
        self.url = endpoint.url.rstrip("/") + "/chat/completions"
        parts = urllib.parse.urlsplit(self.url)
        self._https = parts.scheme == "https"
        self._host = parts.hostname or ""
        self._port = parts.port or (443 if self._https else 80)
        self._path = parts.path + (f"?{parts.query}" if parts.query else "")
        self._headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if endpoint.api_key:
            self._headers["Authorization"] = f"Bearer {endpoint.api_key}"

    def request_body(
        self, messages: Messages, response_format: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.endpoint.model, "messages": [*map(dict, messages)]}
        if response_format is not None:
            body["response_format"] = dict(response_format)
        if self.endpoint.seed is not None and "gemini" not in self.endpoint.model:
            body["seed"] = self.endpoint.seed
        return body

    def complete(
        self,
        messages: Messages,
        *,
        response_format: Mapping[str, Any] | None = None,
        stop: Stop | None = None,
    ) -> str:
        """The content of the first choice. Raises GECError (and trips ``stop``) when the
        endpoint refuses the request or fails ``retries + 1`` times; LLMStopped when the run
        is stopped."""
        stop = stop if stop is not None else Stop()
        data = json.dumps(self.request_body(messages, response_format)).encode()
        wait = self.endpoint.retry_wait
        failure = ""
        try:
            for attempt in range(self.endpoint.retries + 1):
                stop.check()
                if attempt:
                    stop.wait(wait)
                    wait *= 2
                try:
                    return self._attempt(data, stop)
                except _Retry as exc:
                    failure = str(exc)
            error: GECError = Unavailable(
                f"LLM endpoint {_quote(self.url)} failed {self.endpoint.retries + 1} times "
                f"(last: {failure}); check that the server runs (url / $GEC_LLM_URL) and the "
                "timeout"
            )
        except LLMStopped:
            raise
        except GECError as exc:  # refused: not worth a retry
            error = exc
        stop.trip(error)
        raise error

    def _attempt(self, data: bytes, stop: Stop) -> str:
        """One request under one deadline; _Retry for what another request may fix."""
        timeout = self.endpoint.timeout
        request = _Request()
        deadline = threading.Timer(timeout, request.abort, args=("deadline",))
        deadline.daemon = True
        connection: http.client.HTTPConnection | None = None
        with stop.watching(request.abort):
            deadline.start()
            try:
                connection = self._connect(request, timeout)
                connection.request("POST", self._path, body=data, headers=self._headers)
                response = connection.getresponse()
                body = self._read(response)
                if request.reason:  # the shutdown ended the read, not the server
                    raise OSError("cut off")
            except (OSError, http.client.HTTPException) as exc:
                # The socket's own timeout (the same length) can fire a moment before the
                # timer on a loaded machine: either way the deadline passed.
                if request.reason == "deadline" or isinstance(exc, TimeoutError):
                    raise _Retry(f"no complete answer within the {timeout:g} s timeout") from None
                stop.check()
                raise _Retry(_quote(f"{type(exc).__name__}: {exc}")) from None
            finally:
                deadline.cancel()
                request.close()
                if connection is not None:
                    connection.close()
        return self._content(body)

    def _connect(self, request: _Request, timeout: float) -> http.client.HTTPConnection:
        # The socket is made here (not by http.client) so that the deadline watches it from
        # its first byte, TLS handshake included.
        sock = socket.create_connection((self._host, self._port), timeout=timeout)
        request.attach(sock.fileno())
        if self._https:
            context = ssl.create_default_context()
            sock = context.wrap_socket(sock, server_hostname=self._host)
        kind = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
        connection = kind(self._host, self._port, timeout=timeout)
        connection.sock = sock
        return connection

    def _read(self, response: http.client.HTTPResponse) -> bytes:
        status = response.status
        if 300 <= status < 400:
            where = response.getheader("Location") or "nowhere"
            raise Unavailable(
                f"LLM endpoint {_quote(self.url)} answered HTTP {status} (a redirect to "
                f"{_quote(where)}); redirects are not followed: set the URL to the address "
                "that answers"
            )
        if status >= 300:
            quoted = describe_body(*_read_capped(response, _ERROR_BODY_BYTES))
            if status == 429 or status >= 500:
                raise _Retry(f"HTTP {status}: {quoted}")
            raise Unavailable(
                f"LLM endpoint {_quote(self.url)} refused the request (HTTP {status}: {quoted}); "
                "check url, model and api_key"
            )
        limit = self.endpoint.max_response_bytes
        declared = _declared_length(response)
        if declared is not None and declared > limit:
            raise Unavailable(self._too_large(f"declared {declared} bytes"))
        body, complete = _read_capped(response, limit)
        if not complete:
            raise Unavailable(self._too_large(f"more than {limit} bytes"))
        return body

    def _too_large(self, size: str) -> str:
        return (
            f"LLM endpoint {_quote(self.url)} sent an answer of {size}, over the "
            f"{self.endpoint.max_response_bytes}-byte limit (max_response_bytes / "
            "$GEC_LLM_MAX_RESPONSE_BYTES); check that the URL is the chat model's"
        )

    @staticmethod
    def _content(body: bytes) -> str:
        try:
            payload = json.loads(body.decode("utf-8"))
            return str(payload["choices"][0]["message"]["content"] or "")
        except UnicodeDecodeError:
            raise _Retry(f"not a chat-completions response ({describe_body(body)})") from None
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            # The exception's name only: its text can quote the whole body.
            raise _Retry(
                f"not a chat-completions response ({type(exc).__name__}; {describe_body(body)})"
            ) from None


def _declared_length(response: http.client.HTTPResponse) -> int | None:
    value = (response.getheader("Content-Length") or "").strip()
    return int(value) if value.isdigit() else None


def _read_capped(response: http.client.HTTPResponse, limit: int) -> tuple[bytes, bool]:
    """At most ``limit`` bytes of the body, read in chunks; (bytes, whether that was all)."""
    chunks: list[bytes] = []
    size = 0
    while size <= limit:
        chunk = response.read1(min(_READ_CHUNK, limit + 1 - size))
        if not chunk:
            return b"".join(chunks), True
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)[:limit], False


def describe_body(body: bytes, complete: bool = True) -> str:
    """A body for an error message: its start when it is UTF-8 text, else its size only."""
    size = f"{len(body)}{'' if complete else '+'} bytes"
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        if complete or exc.start < len(body) - 3:  # not just a character cut at the end
            return f"{size}, not UTF-8"
        text = body[: exc.start].decode("utf-8")
    return f"{size}: {_quote(text)}" if text.strip() else size


def _quote(text: str) -> str:
    """``text`` as a bounded, one-line quote."""
    clipped = text if len(text) <= _QUOTE_CHARS else text[:_QUOTE_CHARS] + "..."
    return repr(clipped)[1:-1]


class HFChatClient:
    """A local Hugging Face causal LM: greedy decoding of the chat-templated messages (no
    response format: the prompt asks for the JSON). A run's ``stop`` is checked before each
    generation, which is not cut off midway."""

    def __init__(self, model: Any, *, device: str = "auto", max_new_tokens: int = 64) -> None:
        from gecscore.devices import resolve_device
        from gecscore.reffree.models import load_model, load_tokenizer

        self.device = resolve_device(device)
        self.max_new_tokens = max_new_tokens
        self.tokenizer = load_tokenizer(model)
        self.model = load_model(model, "causal-lm", self.device)

    def prompt_text(self, messages: Messages) -> str:
        if getattr(self.tokenizer, "chat_template", None):
            return str(
                self.tokenizer.apply_chat_template([dict(m) for m in messages], tokenize=False)
            )
        return "\n\n".join(m["content"] for m in messages)

    def complete(
        self,
        messages: Messages,
        *,
        response_format: Mapping[str, Any] | None = None,
        stop: Stop | None = None,
    ) -> str:
        import torch

        if stop is not None:
            stop.check()
        inputs = self.tokenizer(self.prompt_text(messages), return_tensors="pt").to(self.device)
        limit = getattr(self.model.config, "max_position_embeddings", None)
        needed = inputs["input_ids"].shape[1] + self.max_new_tokens
        if limit is not None and needed > limit:
            raise OptionError(
                f"the prompt ({inputs['input_ids'].shape[1]} tokens) plus max_new_tokens "
                f"({self.max_new_tokens}) exceeds the model's {limit} positions"
            )
        with torch.inference_mode():
            output = self.model.generate(
                **inputs,
                max_new_tokens=self.max_new_tokens,
                do_sample=False,
                pad_token_id=self.tokenizer.pad_token_id or self.tokenizer.eos_token_id,
            )
        return str(
            self.tokenizer.decode(
                output[0, inputs["input_ids"].shape[1] :], skip_special_tokens=True
            )
        )
