"""A local HTTP server speaking the OpenAI chat-completions route, for the LLM judge tests.

It answers the way a model asked with the Kobayashi et al. prompt would: it reads the targets
from the user message (the lines between ``# targets`` and ``# output format``) and scores
each 1-5 by a fixed rule (the target's length in characters, mod 5, plus 1), as a JSON object
``{"target_score1": ...}``. ``faults`` maps a prompt's position in the arrival order of
distinct prompts to what goes wrong on the first attempts: ``"500"`` (an HTTP 500),
``"slow"`` (answers after the client's timeout), ``"prose"`` (no JSON at all),
``"fenced"`` (the right scores, inside a Markdown code fence with the key spelling the
prompt shows), ``"missing"`` (a key missing). Every request body is recorded.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def targets_of(prompt: str) -> list[str]:
    body = prompt.split("# targets\n", 1)[1].split("\n\n# output format", 1)[0]
    return body.split("\n")


def model_scores(targets: list[str]) -> list[int]:
    return [len(target) % 5 + 1 for target in targets]


class ChatServer:
    def __init__(self, faults: dict[int, list[str]] | None = None, slow_seconds: float = 2.0):
        self.faults = faults or {}
        self.slow_seconds = slow_seconds
        self.requests: list[dict[str, Any]] = []
        self.order: list[str] = []  # distinct prompts in arrival order
        self.attempts: dict[str, int] = {}
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 (the http.server name)
                if self.path != "/v1/chat/completions":
                    self.send_error(404)
                    return
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                status, payload, delay = server.answer(body)
                if delay:
                    time.sleep(delay)
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> ChatServer:
        self.thread.start()
        return self

    def __exit__(self, *args: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def answer(self, body: dict[str, Any]) -> tuple[int, dict[str, Any], float]:
        prompt = body["messages"][-1]["content"]
        with self.lock:
            self.requests.append(body)
            if prompt not in self.attempts:
                self.order.append(prompt)
                self.attempts[prompt] = 0
            attempt = self.attempts[prompt]
            self.attempts[prompt] += 1
            plan = self.faults.get(self.order.index(prompt), [])
        fault = plan[attempt] if attempt < len(plan) else None
        scores = model_scores(targets_of(prompt))
        content = json.dumps({f"target_score{i + 1}": s for i, s in enumerate(scores)})
        delay = 0.0
        if fault == "500":
            return 500, {"error": {"message": "overloaded"}}, 0.0
        if fault == "slow":
            delay = self.slow_seconds
        elif fault == "prose":
            content = "I think the first target is the best one."
        elif fault == "fenced":
            inner = json.dumps({f"target{i + 1}_score": s for i, s in enumerate(scores)})
            content = f"Here are the scores:\n```json\n{inner}\n```"
        elif fault == "missing":
            content = json.dumps({"target_score1": scores[0]}) if len(scores) > 1 else "{}"
        return (
            200,
            {
                "id": f"chatcmpl-{len(self.requests)}",
                "object": "chat.completion",
                "created": 0,
                "model": body.get("model", ""),
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            },
            delay,
        )
