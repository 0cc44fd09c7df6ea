"""The two ways the LLM judges reach a model: an OpenAI-compatible HTTP endpoint (standard
library only: timeout, retries with doubling waits) and a local Hugging Face causal LM."""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from typing import TYPE_CHECKING, Any

from gecscore.errors import GECError
from gecscore.reffree.llm_prompts import SYSTEM_MESSAGE, response_schema

__all__ = []


if TYPE_CHECKING:
    from gecscore.reffree.llm_judge import LLMJudgeConfig


class _HTTPClient:
    """An OpenAI-compatible chat-completions endpoint, standard library only."""

    def __init__(self, config: LLMJudgeConfig, model: str, url: str) -> None:
        self.config = config
        self.model = model
        self.endpoint = url.rstrip("/") + "/chat/completions"
        self.api_key = config.api_key or os.environ.get("GEC_LLM_API_KEY", "")

    def request_body(self, prompt: str, n_targets: int) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": SYSTEM_MESSAGE},
                {"role": "user", "content": prompt},
            ],
            "response_format": response_schema(n_targets),
        }
        if "gemini" not in self.model:  # gec-metrics sends no seed to Gemini
            body["seed"] = self.config.seed
        return body

    def complete(self, prompt: str, n_targets: int) -> str:
        """The content of the first choice; retried on transport errors and 429/5xx."""
        data = json.dumps(self.request_body(prompt, n_targets)).encode()
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        wait = self.config.retry_wait
        failure = ""
        for attempt in range(self.config.retries + 1):
            if attempt:
                time.sleep(wait)
                wait *= 2
            request = urllib.request.Request(self.endpoint, data=data, headers=headers)
            try:
                with urllib.request.urlopen(request, timeout=self.config.timeout) as response:
                    payload = json.loads(response.read().decode("utf-8"))
                return str(payload["choices"][0]["message"]["content"] or "")
            except urllib.error.HTTPError as exc:
                failure = f"HTTP {exc.code}"
                if exc.code != 429 and exc.code < 500:
                    raise GECError(
                        f"LLM endpoint {self.endpoint} refused the request ({failure}: "
                        f"{exc.read()[:200]!r}); check url, model and api_key"
                    ) from None
            except (urllib.error.URLError, TimeoutError, OSError) as exc:
                failure = f"{type(exc).__name__}: {getattr(exc, 'reason', exc)}"
            except (ValueError, KeyError, IndexError, TypeError) as exc:
                failure = f"not a chat-completions response ({exc!r})"
        raise GECError(
            f"LLM endpoint {self.endpoint} failed {self.config.retries + 1} times "
            f"(last: {failure}); check that the server runs (url / $GEC_LLM_URL) and the "
            "timeout"
        )


class _HFClient:
    """A local Hugging Face causal LM, greedy decoding of the chat-templated prompt."""

    def __init__(self, config: LLMJudgeConfig, model: Any) -> None:
        from gecscore.reffree.models import load_model, load_tokenizer, resolve_device

        self.config = config
        self.device = resolve_device(config.device)
        self.tokenizer = load_tokenizer(model)
        self.model = load_model(model, "causal-lm", self.device)

    def prompt_text(self, prompt: str) -> str:
        if getattr(self.tokenizer, "chat_template", None):
            return str(
                self.tokenizer.apply_chat_template(
                    [{"role": "user", "content": prompt}], tokenize=False
                )
            )
        return prompt

    def complete(self, prompt: str, n_targets: int) -> str:
        import torch

        inputs = self.tokenizer(self.prompt_text(prompt), return_tensors="pt").to(self.device)
        limit = getattr(self.model.config, "max_position_embeddings", None)
        needed = inputs["input_ids"].shape[1] + self.config.max_new_tokens
        if limit is not None and needed > limit:
            raise GECError(
                f"the judge's prompt ({inputs['input_ids'].shape[1]} tokens) plus max_new_tokens "
                f"({self.config.max_new_tokens}) exceeds the model's {limit} positions"
            )
        with torch.inference_mode():
            output = self.model.generate(
                **inputs,
                max_new_tokens=self.config.max_new_tokens,
                do_sample=False,
                pad_token_id=self.tokenizer.pad_token_id or self.tokenizer.eos_token_id,
            )
        return str(
            self.tokenizer.decode(
                output[0, inputs["input_ids"].shape[1] :], skip_special_tokens=True
            )
        )
