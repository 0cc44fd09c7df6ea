"""Suggested corrections from the configured LLM (core/llm.py), for post-edit annotation.

One versioned prompt per dataset language asks for a minimal correction following that
language's annotation guideline. Answers are cleaned (quotes, code fences, a leading label
stripped); an empty or garbled answer gives that sentence no suggestion (counted as
`unsuggested`), never a crash. Requests go in batches (`GEC_LLM_CONCURRENCY` in flight for an
HTTP endpoint, one at a time for a local model), and every readable answer is cached by
(model, prompt version, source sha256) as its batch ends: a retried job asks only about
the sentences not answered yet, and writes its suggestions with `store_suggestions`, which
never duplicates a row. A local model runs on the `gpu` queue (`annotate.gpu_llm_suggestions`),
an endpoint on the default queue; Cancel is watched from a thread while requests are in
flight, as for the LLM judges.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction

from annotate import tasks
from annotate.models import LLMSuggestionCache
from annotate.services import UNRELATED_SHARE, shared_with_source
from annotate.suggestions import SuggestionRun, check_blind_share, check_seed, store_run
from core.exceptions import NotFound, ServiceError
from core.job_queue import enqueue_job
from core.jobs import JobCancelled, fail_job, mark_running, report_progress, settle_job
from core.llm import chat_client, llm_backend, llm_needs_gpu, watch_llm_cancel
from core.models import BackgroundJob
from datasets.models import Dataset, Language
from datasets.textrules import max_sentence_chars, text_problem
from gecscore import GECError, Stop, model_id

JOB_KIND_LLM_SUGGESTIONS = "annotate.llm_suggestions"
BATCH_SIZE = 16

# Versioned: a change of wording is a new version, so cached answers of the old prompt are
# never taken for the new one's. The text follows each language's annotation guideline
# (annotate/guideline_seed.py): minimal edits, a sentence without errors repeated as it is.
PROMPTS: dict[str, tuple[str, str]] = {
    Language.CHINESE: (
        "zh-v1",
        "你是中文语法纠错标注员。请按最小改动原则改正下面句子中的语法错误（错别字、"
        "成分残缺或多余、搭配不当、语序不当等）：只改有错误的地方，不润色，不改写没有错误的"
        "部分；句子没有错误时原样输出。只输出改正后的一句话，不要解释，不要加引号。\n\n"
        "句子：{source}",
    ),
    Language.ENGLISH: (
        "en-v1",
        "You are a grammatical error correction annotator. Correct the grammatical, spelling "
        "and word-choice errors of the sentence below with minimal edits: change only what is "
        "wrong, do not rephrase or improve style; if the sentence has no error, repeat it "
        "unchanged. Keep its tokenisation (spaces around punctuation). Answer with the "
        "corrected sentence only, no explanation, no quotes.\n\nSentence: {source}",
    ),
}

_FENCE = re.compile(r"^```[\w-]*\s*\n?(.*?)\n?```$", re.DOTALL)
_LABEL = re.compile(
    r"^(?:改正后的?句子|改正后|修改后|正确的?句子|句子|答案|corrected sentence|correction|"
    r"corrected|answer|sentence)\s*[:：]\s*",
    re.IGNORECASE,
)
_QUOTES = [('"', '"'), ("'", "'"), ("“", "”"), ("‘", "’"), ("「", "」"), ("『", "』"), ("`", "`")]


def prompt_for(language: str) -> tuple[str, str]:
    """(prompt version, template) of a dataset language."""
    if language not in PROMPTS:
        raise ServiceError(f"no suggestion prompt for language {language!r}", field="language")
    return PROMPTS[language]


def parse_answer(answer: str, source: str) -> str | None:
    """The corrected sentence in an LLM's answer, or None when there is none to trust: empty,
    several sentences of prose, control characters, far too long, or unrelated to the source."""
    text = answer.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if len(lines) != 1:
        return None  # nothing, or an explanation around the sentence: not a correction
    text = _LABEL.sub("", lines[0]).strip()
    for opening, closing in _QUOTES:
        if len(text) >= 2 and text.startswith(opening) and text.endswith(closing):
            text = text[len(opening) : -len(closing)].strip()
    if not text or text_problem(text) is not None or len(text) > max_sentence_chars():
        return None
    if len(text) > 2 * len(source) + 20:
        return None
    share = shared_with_source(source, text)
    if share is not None and share < UNRELATED_SHARE:
        return None
    return text


def model_label(backend: dict[str, str]) -> tuple[str, str]:
    """(label model name, cache model key): an endpoint's model name for both, or a local
    model's folder name and its id (folder@sha8 of the weights: new weights, new answers)."""
    if backend["backend"] == "http":
        return backend["model"], backend["model"]
    path = Path(backend["model"]).expanduser().resolve()
    return path.name or "local-model", model_id(path) if path.is_dir() else path.name


def source_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def request_llm_suggestions(
    *, dataset: Dataset, user: Any, blind_share: Any = None, seed: Any = 0
) -> BackgroundJob:
    """Queue the LLM's suggestions for the dataset (the task is sent on commit): on the `gpu`
    queue for a local model, the default one for an endpoint."""
    llm_backend()
    prompt_for(dataset.language)
    if blind_share is not None:
        blind_share = check_blind_share(blind_share)
    seed = check_seed(seed)
    task = tasks.gpu_llm_suggestions if llm_needs_gpu() else tasks.llm_suggestions_task
    params = {"dataset": dataset.pk, "blind_share": blind_share, "seed": seed}
    return enqueue_job(
        kind=JOB_KIND_LLM_SUGGESTIONS,
        user=user,
        params=params,
        message=f"LLM suggestions for {dataset.name}",
        task=task,
        task_args=lambda job_id: (dataset.pk, job_id, blind_share, seed),
        audit=(dataset, "project.llm_suggestions_request", params),
    )


def _ask(client: Any, template: str, source: str, stop: Stop) -> tuple[str, str | None]:
    answer = client.complete(
        [{"role": "user", "content": template.format(source=source)}], stop=stop
    )
    return source, parse_answer(answer, source)


def _answer_batches(
    sources: list[str],
    *,
    model_key: str,
    version: str,
    template: str,
    stop: Stop,
    on_batch: Callable[[int], None],
) -> None:
    """Ask the LLM about each source not cached yet, caching each batch's readable answers."""
    cached = set(
        LLMSuggestionCache.objects.filter(model=model_key, prompt_version=version).values_list(
            "source_sha256", flat=True
        )
    )
    todo = list(dict.fromkeys(s for s in sources if source_sha256(s) not in cached))
    on_batch(len(sources) - len(todo))
    if not todo:
        return
    # A minimal correction is about as long as its source: room for that (a local model's
    # answer is bounded in tokens; Chinese characters take one to three each).
    client = chat_client(max_new_tokens=min(512, 3 * max(len(s) for s in todo) + 16))
    http = llm_backend()["backend"] == "http"
    workers = int(getattr(settings, "GEC_LLM_CONCURRENCY", 4)) if http else 1
    done = len(sources) - len(todo)
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        for start in range(0, len(todo), BATCH_SIZE):
            batch = todo[start : start + BATCH_SIZE]
            futures = [pool.submit(_ask, client, template, source, stop) for source in batch]
            answers: list[tuple[str, str | None]] = []
            failure: BaseException | None = None
            for future in futures:
                try:
                    answers.append(future.result())
                except Exception as exc:  # the first failure ends the run (after caching)
                    failure = failure or exc
            # What was answered is kept even when the batch failed: a retry skips it.
            LLMSuggestionCache.objects.bulk_create(
                [
                    LLMSuggestionCache(
                        model=model_key,
                        prompt_version=version,
                        source_sha256=source_sha256(source),
                        text=text,
                    )
                    for source, text in answers
                    if text is not None
                ],
                ignore_conflicts=True,
            )
            if failure is not None:
                # The request that failed, not one it cut off (those say "stopped").
                raise stop.failure if stop.failure is not None else failure
            done += len(batch)
            on_batch(done)


def run_llm_suggestions(
    *,
    dataset_id: int,
    job_id: int | None = None,
    blind_share: float | None = None,
    seed: Any = 0,
    user: Any = None,
) -> SuggestionRun:
    """Suggest a correction for every sentence of the dataset with the configured LLM, store
    them under `llm:MODEL` (the project's suggestion source from then on), then draw the
    blind items when `blind_share` is given."""
    dataset = Dataset.objects.filter(pk=dataset_id).first()
    if dataset is None:
        raise NotFound(f"no dataset {dataset_id}")
    stop = Stop()
    http = False
    try:
        backend = llm_backend()
        http = backend["backend"] == "http"
        version, template = prompt_for(dataset.language)
        name, model_key = model_label(backend)
        sentences = list(dataset.sentences.order_by("position").values_list("pk", "text"))
        sources = [text for _pk, text in sentences]
        if job_id is not None:
            mark_running(job_id, total=len(sources), message=f"asking {name}")

        def progress(done: int) -> None:
            report_progress(job_id, done, message=f"{done} of {len(sources)} sentences answered")

        with watch_llm_cancel(job_id, stop):
            _answer_batches(
                sources,
                model_key=model_key,
                version=version,
                template=template,
                stop=stop,
                on_batch=progress,
            )
    except JobCancelled:
        raise
    except (ServiceError, GECError, OSError) as exc:
        if stop.cancelled:
            raise JobCancelled("the job was cancelled") from None
        message = exc.message if isinstance(exc, ServiceError) else str(exc)
        if job_id is not None:
            # An endpoint down or slow is worth retrying as it is; answers so far are cached.
            fail_job(job_id, message=message, retryable=http and isinstance(exc, GECError))
        raise ServiceError(f"LLM suggestions failed: {message}") from None
    texts = _cached_texts(sentences, model_key=model_key, version=version)
    signature = f"llm:{name}|prompt:{version}|backend:{backend['backend']}"
    if backend["backend"] == "hf":
        signature += f"|model:{model_key}"
    with transaction.atomic():
        run = store_run(
            dataset,
            source=f"llm:{name}"[:120],
            signature=signature[:255],
            texts=texts,
            unsuggested=len(sentences) - len(texts),
            blind_share=blind_share,
            seed=seed,
            user=user,
        )
        settle_job(
            job_id,
            result={**run.as_json(), "unsuggested": run.unsuggested},
            message=f"{run.suggested} suggested, {run.unsuggested} without a readable answer",
        )
    return run


def _cached_texts(
    sentences: list[tuple[int, str]], *, model_key: str, version: str
) -> dict[int, str]:
    """{sentence id: the cached answer} of the sentences the LLM answered readably."""
    answers = dict(
        LLMSuggestionCache.objects.filter(model=model_key, prompt_version=version).values_list(
            "source_sha256", "text"
        )
    )
    return {pk: answers[sha] for pk, text in sentences if (sha := source_sha256(text)) in answers}
