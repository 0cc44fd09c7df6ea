"""The LLM judges' prompts, target sampling, response schema and score parsing, as
gec-metrics 0.1.1 writes them (Kobayashi, Mita & Komachi, BEA 2024)."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from gecscore.meta.aggregation_names import RANKING_SPELLINGS

__all__ = [
    "AGGREGATIONS",
    "BACKENDS",
    "EDIT_CRITERIA",
    "EDIT_TEMPLATE",
    "PROMPT_VERSION",
    "SENT_CRITERIA",
    "SENT_TEMPLATE",
    "SYSTEM_MESSAGE",
    "parse_scores",
    "response_schema",
    "sample_targets",
]


PROMPT_VERSION = "kobayashi24-gec-metrics-0.1.1"
BACKENDS = ("http", "hf")
AGGREGATIONS = RANKING_SPELLINGS  # rankings over the judges' sentence tables
SYSTEM_MESSAGE = "You are a helpful assistant."

SENT_TEMPLATE = """The goal of this task is to rank the presented targets based on the quality of the sentences.
After reading the source sentence and target sentences, please assign a score from a minimum of 1 point to a maximum of 5 points to each target based on the quality of the sentence (note that you can assign the same score multiple times).

# source
[SOURCE]

# targets
[CORRECTION]

# output format
The output should be a markdown code snippet formatted in the following schema, including the leading and trailing "```json" and "```":
```json
{
"target1_score": int // assigned score for target 1
...
"targetN_score": int // assigned score for target N
}
```
"""

EDIT_TEMPLATE = """The goal of this task is to rank the presented targets based on the quality of the sentences.
After reading the source sentence and target sentences, please assign a score from a minimum of 1 point to a maximum of 5 points to each target based on the quality of the sentence (note that you can assign the same score multiple times).
For targets without any edits, if the sentence is correct, they will be awarded 5 points; if there is an error, they will receive 1 point.
The edits in each target are indicated as follows:
Insert "the": [→the]
Delete "the": [the→]
Replace "the" with "a": [the→a]

# context
[SOURCE]

# targets
[CORRECTION]

# output format
The output should be a markdown code snippet formatted in the
following schema, including the leading and trailing "```json" and "```":
```json
{
"target1_score": int // assigned score for target 1
...
"targetN_score": int // assigned score for target N
}
```
"""

SENT_CRITERIA = {
    "grammaticality": "Please evaluate each target with a focus on the grammaticality of the sentence.",
    "fluency": "Please evaluate each target with a focus on the fluency of the sentence.",
    "meaning": "Please evaluate each target with a focus on preserving the meaning between each target and the source, which is the middle sentence in the context.",
}
EDIT_CRITERIA = {
    "difficulty": "Please evaluate each edit in the target with a focus on the difficulty of corrections.",
    "impact": "Please evaluate each edit in the target with a focus on its impact on the sentence.",
}


def sample_targets(hypotheses: Sequence[str], max_n: int = 5) -> list[str]:
    """The distinct hypotheses shown to the LLM: the ``max_n`` most frequent (a stable sort,
    so ties keep first-seen order), then sorted as strings."""
    frequency = Counter(hypotheses)
    if len(frequency) <= max_n:
        chosen = list(frequency)
    else:
        chosen = [h for h, _ in sorted(frequency.items(), key=lambda x: x[1], reverse=True)]
        chosen = chosen[:max_n]
    return sorted(chosen)


def response_schema(n_targets: int) -> dict[str, Any]:
    """The JSON-schema response format gec-metrics sends (its pydantic output model)."""
    keys = [f"target_score{i + 1}" for i in range(n_targets)]
    return {
        "type": "json_schema",
        "json_schema": {
            "name": f"LLMSentOutputFormat{n_targets}",
            "schema": {
                "properties": {
                    key: {"title": f"Target Score{i + 1}", "type": "integer"}
                    for i, key in enumerate(keys)
                },
                "required": keys,
                "title": f"LLMSentOutputFormat{n_targets}",
                "type": "object",
                "additionalProperties": False,
            },
            "strict": True,
        },
    }


_FENCE = re.compile(r"```(?:json)?\s*(\{.*?\})\s*```", re.DOTALL)
_OBJECT = re.compile(r"\{.*?\}", re.DOTALL)


def _number(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return value
    if isinstance(value, str):
        try:
            return float(value) if "." in value else int(value)
        except ValueError:
            return None
    return None


def parse_scores(content: str, n_targets: int) -> tuple[float, ...] | None:
    """The ``n_targets`` scores of an answer, or None when it cannot be read (see module)."""
    candidates = [content]
    candidates += [m.group(1) for m in _FENCE.finditer(content)]
    candidates += [m.group(0) for m in _OBJECT.finditer(content)]
    for text in candidates:
        try:
            obj = json.loads(text)
        except (json.JSONDecodeError, ValueError):
            continue
        if not isinstance(obj, dict):
            continue
        for pattern in ("target_score{}", "target{}_score"):
            values = [_number(obj.get(pattern.format(i + 1))) for i in range(n_targets)]
            if all(value is not None for value in values):
                return tuple(value for value in values if value is not None)
    return None
