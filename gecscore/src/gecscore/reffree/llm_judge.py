"""LLM judges of Kobayashi, Mita & Komachi (BEA 2024): LLM-S (sentence level) and LLM-E (edit
level), with the prompts, sampling and score parsing of gec-metrics 0.1.1
(``LLMKobayashi24OpenAISent`` / ``...Edit``).

For each source sentence the distinct hypotheses of the systems (at most ``max_targets`` = 5:
the most frequent, ties in first-seen order, then sorted as strings) are shown to the LLM in
one prompt, one per line (LLM-E: each as its ERRANT edits ``orig→cor`` joined by spaces), and
the LLM answers a JSON object ``{"target_score1": s1, ...}`` with a 1-5 score per target. The
answer becomes a pairwise table per sentence (``1``: system i's hypothesis scored higher than
j's, ``-1`` lower, ``0`` tie or the same hypothesis, ``None``: not compared, its hypothesis
was not among the 5), which TrueSkill or Expected Wins turns into a system ranking.

``score_corpus`` (one system) shows each hypothesis alone and averages its scores; the
paper's use is :meth:`LLMJudge.score_systems` / :meth:`LLMJudge.rank_systems`.

The LLM is either an OpenAI-compatible HTTP endpoint the operator runs (vLLM, llama.cpp,
Ollama: ``backend="http"``, ``POST {url}/chat/completions`` with gec-metrics' messages, seed
and JSON-schema response format) or a local Hugging Face causal LM (``backend="hf"``, greedy
decoding of the chat-templated prompt; gec-metrics uses ``outlines`` constrained decoding
there, which we do not, so only the HTTP path is compared with it number for number).

Parsing: gec-metrics reads ``json.loads(content)["target_score{i}"]``. We read the same and,
when that fails, also a JSON object inside a Markdown code fence and the key spelling the
prompt shows (``target{i}_score``); an answer still unreadable after ``retries`` new requests
leaves the sentence unjudged (``None`` in its table, counted in ``details['unjudged']``).
A request that fails (connection, timeout, HTTP 429/5xx) is retried ``retries`` times with
doubling waits; the first prompt whose request still fails stops the run (the requests in
flight are cut off, the prompts not yet asked are not asked) with a GECError naming the URL.
The requests go through :mod:`gecscore.reffree.llm_clients` (one deadline per request, a cap
on the answer's size, no redirects), the client every LLM caller of the project uses.
"""

from __future__ import annotations

import hashlib
import itertools
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any

from gecscore.errors import InputError, OptionError, Unavailable
from gecscore.meta.aggregation import (
    PairwiseTable,
    expected_wins_scores,
    trueskill_scores,
)
from gecscore.metric import MetricConfig, References, Result, SentenceScore
from gecscore.options import (
    check_choice,
    check_count,
    check_device,
    check_non_negative,
    check_positive,
)
from gecscore.reffree.base import ReferenceFreeMetric, cache_key
from gecscore.reffree.llm_clients import (
    DEFAULT_MAX_RESPONSE_BYTES,
    HFChatClient,
    HTTPChatClient,
    LLMEndpoint,
    Stop,
)
from gecscore.reffree.llm_prompts import (
    AGGREGATIONS,
    BACKENDS,
    EDIT_CRITERIA,
    EDIT_TEMPLATE,
    PROMPT_VERSION,
    SENT_CRITERIA,
    SENT_TEMPLATE,
    SYSTEM_MESSAGE,
    parse_scores,
    response_schema,
    sample_targets,
)
from gecscore.signature import Signature

__all__ = [
    "AGGREGATIONS",
    "BACKENDS",
    "EDIT_CRITERIA",
    "EDIT_TEMPLATE",
    "JudgeResult",
    "JudgedSentence",
    "LLMJudge",
    "LLMJudgeConfig",
    "LLMJudgeEdit",
    "LLMJudgeSent",
    "PROMPT_VERSION",
    "SENT_CRITERIA",
    "SENT_TEMPLATE",
    "SYSTEM_MESSAGE",
    "pairwise_table",
    "parse_scores",
    "response_schema",
    "sample_targets",
]


@dataclass(frozen=True)
class LLMJudgeConfig(MetricConfig):
    """The judge's options. ``model``: the model name the endpoint serves (http) or a local
    model folder (hf), else ``$GEC_LLM_MODEL``; ``url``: the endpoint's base URL ending in
    ``/v1``, else ``$GEC_LLM_URL``; ``api_key`` (never part of a signature), else
    ``$GEC_LLM_API_KEY``."""

    backend: str = "http"
    model: str | None = None
    url: str | None = None
    api_key: str | None = None
    timeout: float = 60.0  # seconds per request, connect to last byte
    concurrency: int = 4  # requests in flight
    retries: int = 3  # new requests after a failed or unreadable answer
    retry_wait: float = 1.0  # seconds before the first retry; doubles each time
    seed: int = 777
    criteria: str | None = None
    max_targets: int = 5
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES  # http backend: larger is an error
    max_new_tokens: int = 64  # hf backend
    device: str = "auto"  # hf backend
    cache_dir: str | None = None  # on-disk cache of the readable answers, per prompt

    def __post_init__(self) -> None:
        check_choice(self.backend, "backend", BACKENDS)
        for name in ("concurrency", "max_targets", "max_new_tokens", "max_response_bytes"):
            check_count(getattr(self, name), name)
        check_count(self.retries, "retries", 0)
        check_positive(self.timeout, "timeout")
        check_non_negative(self.retry_wait, "retry_wait")
        check_device(self.device)


@dataclass(frozen=True)
class JudgedSentence:
    """One prompt: the targets shown (in order) and the scores read from the answer."""

    targets: tuple[str, ...]
    prompt: str
    scores: tuple[float, ...] | None  # None: no readable answer
    attempts: int  # requests made for it in this run (0: answered from the cache)


@dataclass(frozen=True)
class JudgeResult:
    """What :meth:`LLMJudge.score_systems` returns."""

    sentences: tuple[JudgedSentence, ...]
    pairwise: tuple[PairwiseTable, ...]  # per sentence, [system i][system j]
    scores: tuple[tuple[float | None, ...], ...]  # per system, per sentence (None: not shown)
    signature: str
    details: dict[str, Any] = field(default_factory=dict)


def pairwise_table(
    hypotheses: Sequence[str], targets: Sequence[str], scores: Sequence[float] | None
) -> PairwiseTable:
    """gec-metrics' table for one sentence: systems with the same hypothesis tie (0), the
    others compare their target's scores; ``None`` where a hypothesis was not shown (or no
    answer was readable)."""
    n = len(hypotheses)
    table: PairwiseTable = [[None] * n for _ in range(n)]
    positions = {target: [i for i, h in enumerate(hypotheses) if h == target] for target in targets}
    if scores is not None:
        for a, b in itertools.combinations(range(len(targets)), 2):
            outcome = (scores[a] > scores[b]) - (scores[a] < scores[b])
            for i in positions[targets[a]]:
                for j in positions[targets[b]]:
                    table[i][j] = outcome
                    table[j][i] = -outcome
    for target in targets:
        for i in positions[target]:
            for j in positions[target]:
                table[i][j] = 0
    return table


class LLMJudge(ReferenceFreeMetric):
    """Base of LLM-S and LLM-E; see the module docstring."""

    template: str = SENT_TEMPLATE
    criteria_prompts: dict[str, str] = SENT_CRITERIA
    level: str = "sent"
    Config = LLMJudgeConfig

    def __init__(self, config: MetricConfig | None = None) -> None:
        super().__init__(config)
        config = self.config
        assert isinstance(config, LLMJudgeConfig)
        if config.criteria is not None and config.criteria not in self.criteria_prompts:
            raise OptionError(
                f"{self.name} criteria must be one of {', '.join(self.criteria_prompts)}, "
                f"got {config.criteria!r}"
            )
        model = (config.model or "").strip() or os.environ.get("GEC_LLM_MODEL", "").strip()
        if config.backend == "http":
            url = (config.url or "").strip() or os.environ.get("GEC_LLM_URL", "").strip()
            if not url:
                raise Unavailable(
                    f"{self.name}: no LLM endpoint configured. Set url (--url) or $GEC_LLM_URL "
                    "to the base URL of an OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1"
                )
            if not model:
                raise Unavailable(
                    f"{self.name}: no model name. Set model (--model) or $GEC_LLM_MODEL to the "
                    "name the server serves"
                )
            self.model_name = model
            endpoint = LLMEndpoint(
                url=url,
                model=model,
                api_key=config.api_key or os.environ.get("GEC_LLM_API_KEY", ""),
                timeout=config.timeout,
                retries=config.retries,
                retry_wait=config.retry_wait,
                max_response_bytes=config.max_response_bytes,
                seed=config.seed,
            )
            self._client: HTTPChatClient | HFChatClient = HTTPChatClient(endpoint)
        else:
            from gecscore.reffree.models import model_setting

            local = model_setting(
                model,
                setting=f"{self.name} model (--model)",
                env="GEC_LLM_MODEL",
                what=f"{self.name}'s local causal LM",
            )
            self.model_name = local.id
            self._client = HFChatClient(
                local, device=config.device, max_new_tokens=config.max_new_tokens
            )
        self._memo: dict[str, tuple[tuple[float, ...] | None, int]] = {}

    @property
    def signature(self) -> str:
        config = self.config
        assert isinstance(config, LLMJudgeConfig)
        fields: list[tuple[str, str | None]] = [
            ("prompt", PROMPT_VERSION),
            ("backend", config.backend),
            ("model", self.model_name),
            ("seed", str(config.seed)),
            ("targets", str(config.max_targets)),
        ]
        if config.criteria:
            fields.append(("criteria", config.criteria))
        if config.backend == "hf":
            fields.append(("decode", f"greedy{config.max_new_tokens}"))
        return Signature(self.name, None, tuple(fields)).text

    def instruction_template(self) -> str:
        config = self.config
        assert isinstance(config, LLMJudgeConfig)
        template = self.template
        if config.criteria:
            # gec-metrics inserts the criterion before "# context", which only the edit-level
            # template has: LLM-S prompts are unchanged by a criterion.
            template = template.replace(
                "\n\n# context", f"\n{self.criteria_prompts[config.criteria]}\n\n# context"
            )
        return template

    def target_form(self, source: str, hypothesis: str) -> str:
        return hypothesis

    def prompt(self, source: str, targets: Sequence[str]) -> str:
        shown = "\n".join(self.target_form(source, target) for target in targets)
        return (
            self.instruction_template().replace("[SOURCE]", source).replace("[CORRECTION]", shown)
        )

    def messages(self, prompt: str) -> list[dict[str, str]]:
        """gec-metrics' messages: the system message and the prompt over HTTP, the prompt
        alone for a local model (what its chat template was given before)."""
        if isinstance(self._client, HTTPChatClient):
            return [
                {"role": "system", "content": SYSTEM_MESSAGE},
                {"role": "user", "content": prompt},
            ]
        return [{"role": "user", "content": prompt}]

    def _judge(
        self, prompt: str, n_targets: int, stop: Stop
    ) -> tuple[tuple[float, ...] | None, int]:
        config = self.config
        assert isinstance(config, LLMJudgeConfig)
        messages = self.messages(prompt)
        schema = response_schema(n_targets)
        for attempt in range(1, config.retries + 2):
            answer = self._client.complete(messages, response_format=schema, stop=stop)
            scores = parse_scores(answer, n_targets)
            if scores is not None:
                return scores, attempt
        return None, config.retries + 1

    def judge_prompts(
        self,
        prompts: Sequence[tuple[str, int]],
        progress: Callable[[int, int], None] | None = None,
        stop: Stop | None = None,
    ) -> list[tuple[tuple[float, ...] | None, int]]:
        """Scores (or None) and attempts per (prompt, number of targets); each distinct prompt
        is asked once per metric object, and not at all when ``cache_dir`` has its answer.
        The first prompt that fails stops the run (``stop``, also the caller's Cancel): the
        answers read before it stay memoised and cached, the prompts not yet asked are not."""
        config = self.config
        assert isinstance(config, LLMJudgeConfig)
        todo = {p: n for p, n in prompts if p not in self._memo}
        # Readable answers of earlier runs (the same signature: model, seed, decoding).
        prefix = self.signature
        stored = self.cache.get_many([cache_key(prefix, p) for p in todo])
        for p in list(todo):
            scores = stored.get(cache_key(prefix, p))
            if scores is not None:
                self._memo[p] = (tuple(scores), 0)
                del todo[p]
        workers = config.concurrency if config.backend == "http" else 1
        stop = stop if stop is not None else Stop()
        done = 0
        with ThreadPoolExecutor(max_workers=workers) as pool:
            futures = {pool.submit(self._judge, p, n, stop): p for p, n in todo.items()}
            try:
                for future in as_completed(futures):
                    p = futures[future]
                    self._memo[p] = future.result()
                    if self._memo[p][0] is not None:
                        self.cache.put_many([(cache_key(prefix, p), list(self._memo[p][0] or ()))])
                    done += 1
                    if progress is not None:
                        progress(done, len(futures))
            except BaseException as exc:
                # Without this the pool's exit would still ask every queued prompt.
                stop.trip(exc)
                pool.shutdown(wait=True, cancel_futures=True)
                if stop.failure is not None and exc is not stop.failure:
                    raise stop.failure from None  # the cause, not a call it cut off
                raise
        return [self._memo[p] for p, _ in prompts]

    def score_systems(
        self,
        sources: Sequence[str],
        systems: Sequence[Sequence[str]],
        *,
        stop: Stop | None = None,
    ) -> JudgeResult:
        """Judge the systems' hypotheses together (``systems[k][i]``: system k, sentence i);
        ``stop`` lets the caller cancel the run."""
        config = self.config
        assert isinstance(config, LLMJudgeConfig)
        for k, hyps in enumerate(systems):
            if isinstance(hyps, str) or len(hyps) != len(sources):
                n, m = len(hyps), len(sources)
                raise InputError(f"system {k} has {n} hypotheses for {m} sources")
        per_sentence = [[hyps[i] for hyps in systems] for i in range(len(sources))]
        targets = [sample_targets(hyps, config.max_targets) for hyps in per_sentence]
        prompts = [self.prompt(source, t) for source, t in zip(sources, targets, strict=True)]
        asked = [(p, len(t)) for p, t in zip(prompts, targets, strict=True)]
        answers = self.judge_prompts(asked, stop=stop)
        judged = tuple(
            JudgedSentence(tuple(t), p, scores, attempts)
            for t, p, (scores, attempts) in zip(targets, prompts, answers, strict=True)
        )
        tables = tuple(
            pairwise_table(hyps, s.targets, s.scores)
            for hyps, s in zip(per_sentence, judged, strict=True)
        )
        system_scores = []
        for hyps in systems:
            row: list[float | None] = []
            for i, sentence in enumerate(judged):
                if sentence.scores is None or hyps[i] not in sentence.targets:
                    row.append(None)
                else:
                    row.append(sentence.scores[sentence.targets.index(hyps[i])])
            system_scores.append(tuple(row))
        unjudged = sum(1 for s in judged if s.scores is None)
        return JudgeResult(
            judged, tables, tuple(system_scores), self.signature, {"unjudged": unjudged}
        )

    def rank_systems(
        self,
        sources: Sequence[str],
        systems: Sequence[Sequence[str]],
        aggregation: str = "trueskill",
    ) -> list[float]:
        """A score per system: TrueSkill (gec-metrics' parameters) or Expected Wins over the
        sentence tables."""
        if aggregation not in AGGREGATIONS:
            raise OptionError(f"aggregation must be one of {', '.join(AGGREGATIONS)}")
        tables = self.score_systems(sources, systems).pairwise
        if aggregation == "trueskill":
            return trueskill_scores(tables)
        return expected_wins_scores(tables)

    def score_corpus(
        self,
        sources: Sequence[str],
        hypotheses: Sequence[str],
        references: References = (),
    ) -> Result:
        """One system: each hypothesis judged alone (1-5); the mean over judged sentences."""
        self.check(sources, hypotheses, references)
        result = self.score_systems(sources, [hypotheses])
        scores = result.scores[0]
        judged = [s for s in scores if s is not None]
        return Result(
            metric=self.name,
            score=sum(judged) / len(judged) if judged else 0.0,
            signature=self.signature,
            sentences=tuple(SentenceScore(float("nan") if s is None else float(s)) for s in scores),
            details={"unjudged": result.details["unjudged"]},
        )


class LLMJudgeSent(LLMJudge):
    """LLM-S: the targets are the corrected sentences."""

    name = "llm-s"


class LLMJudgeEdit(LLMJudge):
    """LLM-E: each target is its ERRANT edits ``orig→cor`` joined by spaces (gecommon's
    ``CachedERRANT`` on whitespace tokens, what gec-metrics shows)."""

    name = "llm-e"
    template = EDIT_TEMPLATE
    criteria_prompts = EDIT_CRITERIA
    level = "edit"

    def target_form(self, source: str, hypothesis: str) -> str:
        from gecscore.english.errant_edits import annotator

        errant = annotator()
        edits = errant.annotate(_parse(source), _parse(hypothesis))
        return " ".join(f"{edit.o_str}→{edit.c_str}" for edit in edits)


_PARSED: dict[str, Any] = {}


def _parse(sentence: str) -> Any:
    key = hashlib.sha256(sentence.encode()).hexdigest()
    doc = _PARSED.get(key)
    if doc is None:
        from gecscore.english.errant_edits import annotator

        doc = _PARSED[key] = annotator().parse(sentence)
    return doc
