"""The ``llm-e`` metric: the edit-level LLM judge LLM-E (registry name ``llm-e``).

``get_metric("llm-e")`` is :class:`LLMJudgeEdit`;
the code is in ``gecscore.reffree.llm_judge`` (docs/metrics/reference-free.md)."""

from __future__ import annotations

from gecscore.reffree.llm_judge import LLMJudgeConfig, LLMJudgeEdit

__all__ = ["LLMJudgeConfig", "LLMJudgeEdit"]
