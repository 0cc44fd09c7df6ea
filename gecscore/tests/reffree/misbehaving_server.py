"""A local HTTP server on a real socket (127.0.0.1) that misbehaves the ways an LLM endpoint
can, for the tests of the LLM client (tests/reffree/test_llm_client.py) and of the platform's
Cancel (tests/scoring_app/test_llm_cancel_services.py). Raw sockets, not http.server, so it can
send what no well-behaved server would: half a status line, a Content-Length it never honours.

Behaviours (``mode``, changeable while it runs):
``good``          a chat-completions answer whose content is ``answer``;
``hang``          reads the request and never answers;
``drip``          headers with ``Content-Length: 100000``, then one space every ``interval`` s;
``drip-headers``  the status line and headers themselves one byte every ``interval`` s;
``huge``          valid JSON (a long content string) without Content-Length, ``size`` bytes,
                  streamed until the client stops reading;
``huge-declared`` the headers of a ``size``-byte answer, then the same stream;
``not-utf8``      ``size`` bytes of ``\\xff`` with status ``status``;
``redirect``      ``302`` to ``location``.
Every request's path and JSON body is recorded, with the time each client went away.
"""

from __future__ import annotations

import contextlib
import json
import socket
import socketserver
import threading
import time
from typing import Any

CHUNK = 65536


class MisbehavingServer:
    def __init__(self, mode: str = "good", **options: Any) -> None:
        self.mode = mode
        self.answer = str(options.get("answer", "an answer"))
        self.interval = float(options.get("interval", 0.2))
        self.size = int(options.get("size", 8 * 1024 * 1024))
        self.status = int(options.get("status", 200))
        self.location = str(options.get("location", "http://127.0.0.1:9/internal"))
        self.requests: list[dict[str, Any]] = []
        self.left: list[float] = []  # monotonic time each client was seen gone
        self.sent: list[int] = []  # body bytes each answer got out
        self.closing = threading.Event()
        self.lock = threading.Lock()
        server = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                body = _read_request(self.request)
                if body is None:
                    return
                with server.lock:
                    server.requests.append(body)
                sent = 0  # the client shut its side (what the tests wait for) before a byte
                with contextlib.suppress(OSError):
                    sent = server.behave(self.request)
                with server.lock:
                    server.left.append(time.monotonic())
                    server.sent.append(sent)

        socketserver.ThreadingTCPServer.daemon_threads = True
        socketserver.ThreadingTCPServer.allow_reuse_address = True
        self.tcp = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(
            target=self.tcp.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.tcp.server_address[1]}/v1"

    def __enter__(self) -> MisbehavingServer:
        self.thread.start()
        return self

    def __exit__(self, *args: object) -> None:
        self.closing.set()
        self.tcp.shutdown()
        self.tcp.server_close()

    def behave(self, sock: socket.socket) -> int:
        """Answer one request the current way; the number of body bytes sent."""
        mode = self.mode
        if mode == "good":
            content = {"choices": [{"index": 0, "message": {"content": self.answer}}]}
            return _send(sock, 200, json.dumps(content).encode())
        if mode == "hang":
            self.closing.wait(120)
            return 0
        if mode == "drip":
            sock.sendall(_head(200, 100000))
            return self._drip(sock, b" " * 100000)
        if mode == "drip-headers":
            return self._drip(sock, _head(200, 2) + b"{}")
        if mode in ("huge", "huge-declared"):
            sock.sendall(_head(200, self.size if mode == "huge-declared" else None))
            return self._stream(sock)
        if mode == "not-utf8":
            return _send(sock, self.status, b"\xff" * self.size)
        if mode == "redirect":
            sock.sendall(_head(302, 0, f"Location: {self.location}\r\n"))
            return 0
        raise ValueError(f"unknown mode {mode}")

    def _drip(self, sock: socket.socket, data: bytes) -> int:
        """``data`` a byte at a time; the bytes sent before the client went away."""
        for sent in range(len(data)):
            if self.closing.wait(self.interval):
                return sent
            try:
                sock.sendall(data[sent : sent + 1])
            except OSError:
                return sent
        return len(data)

    def _stream(self, sock: socket.socket) -> int:
        """``{"choices": [{"message": {"content": "xxxx...`` for ``size`` bytes, then closed:
        valid JSON all the way for a client that would read it all."""
        head = b'{"choices": [{"index": 0, "message": {"content": "'
        tail = b'"}}]}'
        sock.sendall(head)
        sent = len(head)
        filler = b"x" * CHUNK
        while sent < self.size - len(tail) and not self.closing.is_set():
            part = filler[: min(CHUNK, self.size - len(tail) - sent)]
            sock.sendall(part)
            sent += len(part)
        sock.sendall(tail)
        return sent + len(tail)


def _head(status: int, length: int | None, extra: str = "") -> bytes:
    reason = {200: "OK", 302: "Found", 500: "Internal Server Error"}.get(status, "Status")
    lines = f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\n{extra}"
    if length is not None:
        lines += f"Content-Length: {length}\r\n"
    return (lines + "Connection: close\r\n\r\n").encode()


def _send(sock: socket.socket, status: int, body: bytes) -> int:
    sock.sendall(_head(status, len(body)) + body)
    return len(body)


def _read_request(sock: socket.socket) -> dict[str, Any] | None:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(CHUNK)
        if not chunk:
            return None
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (x.partition(":") for x in lines[1:])}
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        chunk = sock.recv(CHUNK)
        if not chunk:
            return None
        body += chunk
    return {"path": lines[0].split(" ")[1], "headers": headers, "body": json.loads(body or b"{}")}
