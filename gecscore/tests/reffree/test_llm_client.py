"""The LLM client against a misbehaving server on a real socket (tests/reffree/
misbehaving_server.py): a server that hangs, drips its body or its headers, sends 500 MB,
sends bytes that are not UTF-8 or redirects must not hold the caller longer than
``timeout x (retries + 1)`` per run, nor fill its memory or its error messages; a run stops at
its first request that fails after its retries, and Cancel ends it at once.

Short timeouts (1 s, one retry, no wait) keep each test to seconds. SLACK is what a loaded
2-core machine adds to a deadline (thread wake-ups, the server's own threads).
"""

from __future__ import annotations

import threading
import time
import tracemalloc

import pytest

from gecscore import get_metric
from gecscore.errors import GECError
from gecscore.reffree.llm_clients import (
    DEFAULT_MAX_RESPONSE_BYTES,
    HTTPChatClient,
    LLMEndpoint,
    LLMStopped,
    Stop,
    describe_body,
)
from tests.reffree.misbehaving_server import MisbehavingServer

TIMEOUT = 1.0
RETRIES = 1
RUN_BOUND = TIMEOUT * (RETRIES + 1)
SLACK = 1.5
MESSAGE_BOUND = 700  # characters of any error message


def _client(url: str, **options: object) -> HTTPChatClient:
    settings: dict[str, object] = {"timeout": TIMEOUT, "retries": RETRIES, "retry_wait": 0.0}
    return HTTPChatClient(LLMEndpoint(url=url, model="tiny", **{**settings, **options}))  # type: ignore[arg-type]


def _fails(chat: HTTPChatClient, match: str) -> tuple[str, float]:
    """The error message of one call that must fail, and how long the call took."""
    started = time.monotonic()
    with pytest.raises(GECError, match=match) as error:
        chat.complete([{"role": "user", "content": "Correct: He go ."}])
    elapsed = time.monotonic() - started
    message = str(error.value)
    assert len(message) < MESSAGE_BOUND, message[:MESSAGE_BOUND]
    return message, elapsed


def test_a_caller_other_than_the_judge_gets_the_answer() -> None:
    with MisbehavingServer("good", answer="He goes .") as server:
        client = _client(server.url, api_key="k-123")
        messages = [
            {"role": "system", "content": "You correct sentences minimally."},
            {"role": "user", "content": "He go ."},
        ]
        assert client.complete(messages) == "He goes ."
    (request,) = server.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["body"] == {"model": "tiny", "messages": messages}  # no seed, no format
    assert request["headers"]["authorization"] == "Bearer k-123"


@pytest.mark.parametrize("mode", ["hang", "drip", "drip-headers"])
def test_hang_and_drip_fail_within_timeout_times_attempts(mode: str) -> None:
    # One byte every 0.2 s: a timeout per socket read (urllib's) would never fire.
    with MisbehavingServer(mode, interval=0.2) as server:
        message, elapsed = _fails(
            _client(server.url),
            r"failed 2 times \(last: no complete answer within the 1 s timeout\)",
        )
        assert RUN_BOUND - 0.1 <= elapsed < RUN_BOUND + SLACK
        assert len(server.requests) == RETRIES + 1
        assert server.url in message


@pytest.mark.parametrize("declared", [False, True])
def test_a_huge_valid_answer_is_cut_off_at_the_limit(declared: bool) -> None:
    size = 500 * 1024 * 1024
    mode = "huge-declared" if declared else "huge"
    with MisbehavingServer(mode, size=size) as server:
        tracemalloc.start()
        try:
            what = f"declared {size} bytes" if declared else "more than 1048576 bytes"
            _message, elapsed = _fails(
                _client(server.url),
                rf"sent an answer of {what}, over the 1048576-byte limit \(max_response_bytes",
            )
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert DEFAULT_MAX_RESPONSE_BYTES == 1048576
    assert peak < 4 * DEFAULT_MAX_RESPONSE_BYTES  # about the limit, never the 500 MB
    assert elapsed < TIMEOUT + SLACK
    assert len(server.requests) == 1  # too large is not worth another try


def test_bodies_that_are_not_utf8_are_reported_by_their_size() -> None:
    with MisbehavingServer("not-utf8", size=8 * 1024 * 1024) as server:
        _fails(_client(server.url), r"answer of declared 8388608 bytes, over the 1048576-byte")
        server.size = 1000
        message, _ = _fails(
            _client(server.url),
            r"failed 2 times \(last: not a chat-completions response "
            r"\(1000 bytes, not UTF-8\)\)",
        )
        assert "\\xff" not in message and "\xff" not in message
        server.status, server.size = 500, 8 * 1024 * 1024
        _fails(_client(server.url), r"\(last: HTTP 500: 4096\+ bytes, not UTF-8\)")
        server.status = 400
        _fails(_client(server.url), r"refused the request \(HTTP 400: 4096\+ bytes, not UTF-8\)")


def test_error_text_is_cut_to_a_bounded_length() -> None:
    assert describe_body(b"overloaded") == "10 bytes: overloaded"
    long = describe_body(("é" * 3000).encode())
    assert long.startswith("6000 bytes: éé") and long.endswith("...") and len(long) < 250
    assert describe_body(b"\xff\xfe" * 5) == "10 bytes, not UTF-8"
    # A read cut in the middle of a character is still text.
    assert describe_body("ab€".encode()[:4], complete=False) == "4+ bytes: ab"


def test_redirects_are_not_followed() -> None:
    with MisbehavingServer("good") as internal:
        target = internal.url.removesuffix("/v1") + "/internal"
        with MisbehavingServer("redirect", location=target) as server:
            _fails(
                _client(server.url),
                rf"answered HTTP 302 \(a redirect to {target}\); redirects are not followed",
            )
            assert len(server.requests) == 1
    assert internal.requests == []


def test_a_run_stops_at_its_first_failed_prompt() -> None:
    """20 sentences, 4 requests in flight: the run ends after one prompt's attempts, and the
    prompts not yet asked are never sent (before: 20 x 2 requests, 10 s here)."""
    Judge = get_metric("llm-s")
    sources = [f"Sentence number {i} ." for i in range(20)]
    with MisbehavingServer("hang") as server:
        judge = Judge(
            Judge.Config(  # type: ignore[call-arg]
                model="tiny", url=server.url, timeout=TIMEOUT, retries=RETRIES, retry_wait=0.0
            )
        )
        started = time.monotonic()
        with pytest.raises(GECError, match="failed 2 times"):
            judge.score_corpus(sources, sources)
        elapsed = time.monotonic() - started
        asked = len(server.requests)
    assert elapsed < RUN_BOUND + SLACK
    assert asked <= 4 * (RETRIES + 1)


def test_cancel_ends_a_call_in_flight_at_once() -> None:
    with MisbehavingServer("drip", interval=0.2) as server:
        client = _client(server.url, timeout=30.0)
        stop = Stop()
        outcome: list[BaseException] = []

        def call() -> None:
            try:
                client.complete([{"role": "user", "content": "x"}], stop=stop)
            except BaseException as exc:  # noqa: BLE001 (kept for the test's thread)
                outcome.append(exc)

        thread = threading.Thread(target=call)
        thread.start()
        while not server.requests:
            time.sleep(0.02)
        cancelled = time.monotonic()
        stop.cancel("the job was cancelled")
        thread.join(timeout=10)
        ended = time.monotonic() - cancelled
        while not server.left and time.monotonic() - cancelled < 5:
            time.sleep(0.02)
    assert not thread.is_alive() and ended < 1.0
    (error,) = outcome
    assert isinstance(error, LLMStopped) and error.cancelled
    assert str(error) == "the job was cancelled"
    assert server.left and server.left[0] - cancelled < 1.0  # the socket was shut, not left open
    with pytest.raises(LLMStopped):  # a stopped run sends nothing more
        client.complete([{"role": "user", "content": "y"}], stop=stop)
    assert len(server.requests) == 1
