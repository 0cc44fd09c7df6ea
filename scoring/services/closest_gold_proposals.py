"""Closest-gold proposals: the configured LLM's minimal correction of a system OUTPUT (the
source given too), one per item of a closest-gold task (docs/closest-gold.md).

The prompt is versioned per language (``PROMPTS``); an answer is kept in
``ClosestGoldProposalCache`` under (model, prompt version, source, output), so a second task
over the same outputs, or a retried job, never asks twice. A run skips the items that already
have a proposal, saves each batch as it comes (a killed worker loses one batch at most) and
is bounded like every LLM call of the platform (core/llm.py: one deadline per request, a
bounded answer, retries; Cancel cuts requests in flight off). An answer that is no correction
of the output (prose, an empty line, another sentence) is not stored: the item keeps no
proposal and says why, and its verifier writes the correction.
"""

from __future__ import annotations

import hashlib
import json
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

from django.conf import settings
from django.db import transaction

from core.exceptions import NotFound, ServiceError
from core.job_queue import enqueue_job
from core.jobs import JobCancelled, fail_job, mark_running, report_progress, settle_job
from core.llm import chat_client, llm_backend, llm_needs_gpu, watch_llm_cancel
from core.models import BackgroundJob
from datasets.models import Language
from datasets.textrules import text_problem
from gecscore import ChatClient, GECError, Stop
from scoring import tasks
from scoring.models import ClosestGoldItem, ClosestGoldProposalCache, ClosestGoldTask

JOB_KIND_PROPOSALS = "scoring.closest_gold_proposals"


@dataclass(frozen=True)
class Prompt:
    version: str
    system: str
    user: str  # str.format with {source} and {output}
    output_label: str  # the line of `user` the output is on (the tests' server reads it)


# Change a prompt's text only together with its version: the version keys the cache and is
# stored on every proposal.
PROMPTS: dict[str, Prompt] = {
    Language.CHINESE: Prompt(
        version="cg-zh-1",
        system="你是中文语法纠错专家。",
        user=(
            "下面是一个中文句子（原句）和一个语法纠错系统对它的修改结果（系统输出）。"
            "请以系统输出为基础，只做最少的修改，得到一个正确、通顺的句子：保留系统改对的地方，"
            "改正仍然存在的错误，撤销系统改错的地方。如果系统输出已经正确，原样返回。"
            "只输出改正后的句子，不要解释。\n\n原句：{source}\n系统输出：{output}\n改正后的句子："
        ),
        output_label="系统输出：",
    ),
    Language.ENGLISH: Prompt(
        version="cg-en-1",
        system="You are an expert in English grammatical error correction.",
        user=(
            "Below are an original sentence (Source) and a grammatical error correction "
            "system's output for it (Output). Starting from the Output, make the fewest changes "
            "that give a correct, fluent sentence: keep what the system corrected well, fix the "
            "errors that remain, undo the changes that made it worse. If the Output is already "
            "correct, return it unchanged. Answer with the corrected sentence only, no "
            "explanation.\n\nSource: {source}\nOutput: {output}\nCorrected:"
        ),
        output_label="Output: ",
    ),
}

# A minimal correction keeps most of the output; an answer further from it than this is
# another sentence or prose, not a proposal.
MIN_SIMILARITY = 0.5
_FENCE = re.compile(r"^```[\w-]*$")
_LABELS = ("改正后的句子：", "改正后的句子:", "Corrected:", "Corrected sentence:", "Output:")
_QUOTES = ("\"'“”‘’「」『』", "\"'“”‘’「」『』")


def prompt_for(language: str) -> Prompt:
    return PROMPTS.get(language, PROMPTS[Language.CHINESE])


def messages_for(prompt: Prompt, source: str, output: str) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": prompt.system},
        {"role": "user", "content": prompt.user.format(source=source, output=output)},
    ]


def cache_key(model: str, prompt_version: str, source: str, output: str) -> str:
    return hashlib.sha256(
        json.dumps([model, prompt_version, source, output], ensure_ascii=False).encode()
    ).hexdigest()


def _clean_line(line: str) -> str:
    line = line.strip()
    for label in _LABELS:
        if line.startswith(label):
            line = line[len(label) :].strip()
    if len(line) >= 2 and line[0] in _QUOTES[0] and line[-1] in _QUOTES[1]:
        line = line[1:-1].strip()
    return line


def parse_proposal(answer: str, output: str) -> str:
    """The correction in the LLM's `answer`: of its lines (code fences, a leading label and
    surrounding quotes dropped), the one closest to `output`. ServiceError when no line is a
    correction of the output (at least MIN_SIMILARITY alike) or storable text."""
    lines = [_clean_line(line) for line in answer.splitlines() if not _FENCE.match(line.strip())]
    candidates = [line for line in lines if line]
    if not candidates:
        raise ServiceError("the LLM answered nothing")
    best = max(candidates, key=lambda line: SequenceMatcher(None, output, line).ratio())
    if SequenceMatcher(None, output, best).ratio() < MIN_SIMILARITY:
        raise ServiceError(f"the LLM's answer is no correction of the output: {answer[:120]!r}")
    problem = text_problem(best)
    if problem is not None:
        raise ServiceError(f"the LLM's answer cannot be stored: {problem}")
    return best


def request_proposals(*, task: ClosestGoldTask, user: Any) -> BackgroundJob:
    """Queue the proposals of `task`'s items that have none (a local model on the `gpu`
    queue, an endpoint on the default one); sent on commit. ServiceError when no LLM is
    configured."""
    backend = llm_backend()
    task_fn = tasks.gpu_closest_gold_proposals if llm_needs_gpu() else tasks.closest_gold_proposals
    pending = task.items.filter(proposal__isnull=True).count()
    job = enqueue_job(
        kind=JOB_KIND_PROPOSALS,
        user=user,
        params={"task": task.pk},
        message=f"closest-gold proposals of {pending} outputs by {backend['model']}",
        total=pending,
        task=task_fn,
        task_args=lambda job_id: (task.pk, job_id),
        audit=(task, "scoring.closest_gold_proposals_request", {"model": backend["model"]}),
    )
    ClosestGoldTask.objects.filter(pk=task.pk).update(background_job_id=job.pk)
    task.background_job_id = job.pk
    return job


def _pending(task: ClosestGoldTask) -> list[ClosestGoldItem]:
    return list(task.items.filter(proposal__isnull=True).order_by("position", "id"))


def _ask(client: ChatClient, messages: list[dict[str, str]], stop: Stop) -> str | BaseException:
    try:
        return client.complete(messages, stop=stop)
    except (GECError, OSError, ValueError) as exc:
        return exc


def _store_batch(
    batch: list[ClosestGoldItem],
    answers: dict[int, str | BaseException],
    keys: dict[int, str],
    *,
    model: str,
    prompt: Prompt,
) -> None:
    """Each item's proposal (or why it has none) and the new cache rows, in one commit."""
    with transaction.atomic():
        for item in batch:
            answer = answers[item.pk]
            if isinstance(answer, BaseException):
                continue  # the run stops on it (see run_proposals)
            cached = ClosestGoldProposalCache.objects.filter(key=keys[item.pk]).first()
            try:
                text = cached.proposal if cached else parse_proposal(answer, item.output)
            except ServiceError as refused:
                item.proposal_error = refused.message
                item.save(update_fields=["proposal_error"])
                continue
            if cached is None:
                ClosestGoldProposalCache.objects.get_or_create(
                    key=keys[item.pk],
                    defaults={"model": model, "prompt_version": prompt.version, "proposal": text},
                )
            # Only an item still without a proposal: a second run never overwrites one.
            ClosestGoldItem.objects.filter(pk=item.pk, proposal__isnull=True).update(
                proposal=text,
                proposal_model=model,
                proposal_prompt_version=prompt.version,
                proposal_error="",
            )


def _propose(
    task: ClosestGoldTask, job_id: int | None, client: ChatClient, stop: Stop, model: str
) -> dict[str, int]:
    prompt = prompt_for(task.version.dataset.language)
    sources = dict(task.version.sentences.values_list("position", "text"))
    pending = _pending(task)
    if job_id is not None:
        mark_running(job_id, total=len(pending), message=f"{len(pending)} outputs to propose for")
    concurrency = 1 if llm_needs_gpu() else max(1, int(getattr(settings, "GEC_LLM_CONCURRENCY", 4)))
    counts = {"asked": 0, "cached": 0, "refused": 0}
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        for start in range(0, len(pending), concurrency * 4):
            batch = pending[start : start + concurrency * 4]
            report_progress(job_id, start, message=f"{start}/{len(pending)} outputs")
            keys = {
                item.pk: cache_key(
                    model, prompt.version, sources.get(item.position, ""), item.output
                )
                for item in batch
            }
            cached = set(
                ClosestGoldProposalCache.objects.filter(key__in=keys.values()).values_list(
                    "key", flat=True
                )
            )
            to_ask = [item for item in batch if keys[item.pk] not in cached]
            answers: dict[int, str | BaseException] = {
                item.pk: "" for item in batch if keys[item.pk] in cached
            }
            asked = pool.map(
                lambda item: _ask(
                    client, messages_for(prompt, sources.get(item.position, ""), item.output), stop
                ),
                to_ask,
            )
            answers.update({item.pk: answer for item, answer in zip(to_ask, asked, strict=True)})
            _store_batch(batch, answers, keys, model=model, prompt=prompt)
            counts["asked"] += len(to_ask)
            counts["cached"] += len(batch) - len(to_ask)
            failures = [a for a in answers.values() if isinstance(a, BaseException)]
            if failures:
                raise failures[0]
    counts["refused"] = task.items.filter(proposal__isnull=True).exclude(proposal_error="").count()
    return counts


def run_proposals(*, task_id: int, job_id: int | None = None) -> dict[str, int]:
    """Propose a closest-gold for every item of the task that has none. Returns counts
    (``asked`` the LLM, taken from the ``cached`` answers, ``refused`` answers)."""
    task = ClosestGoldTask.objects.select_related("version__dataset").filter(pk=task_id).first()
    if task is None:
        raise NotFound(f"no closest-gold task {task_id}")
    stop = Stop()
    http = False
    try:
        backend = llm_backend()
        http = backend["backend"] == "http"
        client = chat_client(max_new_tokens=512)
        with watch_llm_cancel(job_id, stop):
            counts = _propose(task, job_id, client, stop, backend["model"])
    except JobCancelled:
        return {}
    except (ServiceError, GECError, ValueError, OSError) as exc:
        if stop.cancelled:
            return {}
        message = exc.message if isinstance(exc, ServiceError) else str(exc)
        if job_id is not None:
            # Proposals saved so far stay; a retry asks only for the rest.
            fail_job(job_id, message=message, retryable=http and isinstance(exc, GECError))
        raise ServiceError(f"closest-gold proposals failed: {message}") from None
    try:
        with transaction.atomic():
            settle_job(job_id, result={"task": task.pk, **counts}, message="done")
    except JobCancelled:
        return {}
    return counts
