"""The LLM an operator configures, one for every feature that asks one: the LLM judges, the
suggested corrections of post-edit annotation and the closest-gold proposals.

``GEC_LLM_URL`` (an OpenAI-compatible endpoint the operator runs: vLLM, llama.cpp, Ollama) with
``GEC_LLM_MODEL`` the name it serves, or ``GEC_LLM_MODEL`` alone, a local Hugging Face causal LM
folder (loaded from disk, never downloaded). Every request has one deadline
(``GEC_LLM_TIMEOUT``, connect to last byte), a bounded answer (``GEC_LLM_MAX_RESPONSE_BYTES``)
and ``GEC_LLM_RETRIES`` retries; the library's clients enforce all three.

A local model belongs on the `gpu` queue, an HTTP endpoint on the default one: a job sends its
``gpu_``-prefixed task when ``llm_needs_gpu()`` (config/settings.py routes those to `gpu`).
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from django.conf import settings

from core.exceptions import ServiceError
from core.job_leases import watch_cancel
from gecscore import (
    ChatClient,
    HFChatClient,
    HTTPChatClient,
    LLMEndpoint,
    Stop,
    model_setting,
)


def llm_backend() -> dict[str, str]:
    """``{"backend": "http", "url", "model"}`` or ``{"backend": "hf", "model"}`` from the
    settings; a ServiceError naming the setting to fill when none (or only half of the HTTP
    pair) is set."""
    url = str(getattr(settings, "GEC_LLM_URL", "") or "").strip()
    model = str(getattr(settings, "GEC_LLM_MODEL", "") or "").strip()
    if url and not model:
        raise ServiceError(
            "GEC_LLM_URL is set but GEC_LLM_MODEL is empty: set GEC_LLM_MODEL to the model "
            "name the endpoint serves"
        )
    if url:
        return {"backend": "http", "url": url, "model": model}
    if model:
        return {"backend": "hf", "model": model}
    raise ServiceError(
        "no LLM configured: set GEC_LLM_URL (an OpenAI-compatible endpoint, "
        "e.g. http://127.0.0.1:8000/v1) and GEC_LLM_MODEL (the model name it serves), or "
        "GEC_LLM_MODEL alone (a local Hugging Face causal LM folder)"
    )


def llm_configured() -> bool:
    try:
        llm_backend()
    except ServiceError:
        return False
    return True


def llm_setup() -> tuple[bool, str]:
    """(configured, what to fill or which LLM), for the pages that offer an LLM action."""
    try:
        backend = llm_backend()
    except ServiceError as exc:
        return False, exc.message
    where = backend.get("url") or "local model"
    return True, f"{backend['model']} ({where})"


def llm_needs_gpu() -> bool:
    """Whether a job that calls the LLM belongs on the `gpu` queue: a local model needs the
    GPU workers, an HTTP endpoint only waits on the network."""
    return llm_backend()["backend"] == "hf"


def _request_timeout() -> float:
    return float(getattr(settings, "GEC_LLM_TIMEOUT", 60.0))


def llm_request_options() -> dict[str, Any]:
    """The per-request bounds from the settings (the judges' Config takes the same keys)."""
    return {
        "api_key": str(getattr(settings, "GEC_LLM_API_KEY", "") or "") or None,
        "timeout": _request_timeout(),
        "retries": int(getattr(settings, "GEC_LLM_RETRIES", 3)),
        "retry_wait": float(getattr(settings, "GEC_LLM_RETRY_WAIT", 1.0)),
        "max_response_bytes": int(getattr(settings, "GEC_LLM_MAX_RESPONSE_BYTES", 1 << 20)),
    }


def chat_client(*, max_new_tokens: int = 256) -> ChatClient:
    """The configured LLM as the library's chat client (``complete(messages, stop=...)``).
    ``max_new_tokens`` bounds a local model's answer; an endpoint's answer is bounded in
    bytes."""
    backend = llm_backend()
    options = llm_request_options()
    if backend["backend"] == "http":
        return HTTPChatClient(
            LLMEndpoint(
                url=backend["url"],
                model=backend["model"],
                api_key=options["api_key"] or "",
                timeout=options["timeout"],
                retries=options["retries"],
                retry_wait=options["retry_wait"],
                max_response_bytes=options["max_response_bytes"],
            )
        )
    # The library's client takes the checked folder (a missing folder, config or weights
    # file is a GECError naming the setting), not the setting's text.
    local = model_setting(
        backend["model"],
        setting="GEC_LLM_MODEL",
        env="GEC_LLM_MODEL",
        what="the configured LLM (a local causal LM)",
    )
    return HFChatClient(local, device=settings.GEC_BERT_DEVICE, max_new_tokens=max_new_tokens)


def watch_llm_cancel(job_id: int | None, stop: Stop) -> AbstractContextManager[None]:
    """While the block runs, a Cancel of the job stops `stop`, cutting off the requests in
    flight: an LLM job must not wait for its next progress report, which can come after a
    whole batch or a whole judge. The job row is read every quarter of the request deadline,
    and at least once a second."""
    every = min(1.0, _request_timeout() / 4)
    return watch_cancel(job_id, lambda: stop.cancel("the job was cancelled"), every=every)
