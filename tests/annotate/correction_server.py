"""A local HTTP server on 127.0.0.1 speaking the OpenAI chat-completions route, answering the
post-edit suggestion prompts (annotate/llm_suggestions.py) the way a correcting model would.

It reads the sentence from the prompt's last line (after "句子：" or "Sentence: ") and answers
`answers[sentence]` (the sentence itself when absent). `slow` maps a sentence to how many of
its first attempts answer only after `slow_seconds` (past the client's timeout). Every
sentence asked is recorded, in order."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def sentence_of(prompt: str) -> str:
    last = prompt.rstrip().splitlines()[-1]
    for marker in ("句子：", "Sentence: "):
        if last.startswith(marker):
            return last[len(marker) :]
    raise ValueError(f"not a suggestion prompt: {last!r}")


class CorrectionServer:
    def __init__(
        self,
        answers: dict[str, str] | None = None,
        *,
        slow: dict[str, int] | None = None,
        slow_seconds: float = 3.0,
    ) -> None:
        self.answers = answers or {}
        self.slow = dict(slow or {})
        self.slow_seconds = slow_seconds
        self.asked: list[str] = []
        self.models: list[str] = []
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
                content, delay = server.answer(body)
                if delay:
                    time.sleep(delay)
                data = json.dumps(
                    {
                        "id": "chatcmpl-1",
                        "object": "chat.completion",
                        "model": body.get("model", ""),
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": content},
                                "finish_reason": "stop",
                            }
                        ],
                    }
                ).encode()
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (its timeout)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> CorrectionServer:
        self.thread.start()
        return self

    def __exit__(self, *args: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def answer(self, body: dict[str, Any]) -> tuple[str, float]:
        sentence = sentence_of(body["messages"][-1]["content"])
        with self.lock:
            self.asked.append(sentence)
            self.models.append(body.get("model", ""))
            delay = 0.0
            if self.slow.get(sentence, 0) > 0:
                self.slow[sentence] -= 1
                delay = self.slow_seconds
        return self.answers.get(sentence, sentence), delay
