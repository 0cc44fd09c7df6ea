"""The library tests' local LLM servers, loaded from their files for the platform's tests (the
platform's ``tests`` package is another one than the library's): ``ChatServer`` answers the
judges' prompts (gecscore/tests/reffree/chat_server.py), ``MisbehavingServer`` hangs, drips,
floods or redirects (gecscore/tests/reffree/misbehaving_server.py); ``CorrectionServer`` (on
the first) answers the closest-gold proposal prompts."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

LIBRARY_TESTS = Path(__file__).resolve().parents[2] / "gecscore/tests/reffree"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"gecscore_{name}", LIBRARY_TESTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


ChatServer = _load("chat_server").ChatServer
MisbehavingServer = _load("misbehaving_server").MisbehavingServer


class CorrectionServer(ChatServer):  # type: ignore[misc, valid-type]
    """Answers a closest-gold proposal prompt (scoring/services/closest_gold_proposals.py):
    reads the output from its line of the prompt and answers ``correct(output)``; with
    ``garbage`` it answers prose that corrects nothing, as a confused model would."""

    def __init__(
        self,
        correct: Callable[[str], str],
        *,
        output_label: str = "Output: ",
        garbage: bool = False,
    ) -> None:
        super().__init__()
        self.correct = correct
        self.output_label = output_label
        self.garbage = garbage

    def output_of(self, prompt: str) -> str:
        for line in prompt.splitlines():
            if line.startswith(self.output_label):
                return line[len(self.output_label) :]
        raise AssertionError(f"no {self.output_label!r} line in the prompt")

    def answer(self, body: dict[str, Any]) -> tuple[int, dict[str, Any], float]:
        prompt = body["messages"][-1]["content"]
        with self.lock:
            self.requests.append(body)
        if self.garbage:
            content = "As an AI language model I cannot say which sentence is better. 42!"
        else:
            content = self.correct(self.output_of(prompt))
        return 200, chat_completion(content, body.get("model", "")), 0.0


def chat_completion(content: str, model: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-closest-gold",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }
