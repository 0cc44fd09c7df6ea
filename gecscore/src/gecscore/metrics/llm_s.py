"""The ``llm-s`` metric: the sentence-level LLM judge LLM-S (registry name ``llm-s``).

``get_metric("llm-s")`` is :class:`LLMJudgeSent`;
the code is in ``gecscore.reffree.llm_judge`` (docs/metrics/reference-free.md)."""

from __future__ import annotations

from gecscore.reffree.llm_judge import LLMJudgeConfig, LLMJudgeSent

__all__ = ["LLMJudgeConfig", "LLMJudgeSent"]
