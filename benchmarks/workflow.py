"""Annotation workflow speed on MuCGEC dev (1,137 sentences, k = 3): assignment, submissions,
reviews and the live-diff call an annotator makes on every pause in typing.

Runs the real services against a fresh SQLite database in a temporary folder (never the
quick-start database), with ChERRANT's resources configured. Naive baselines:

* assignment: per sentence, ask the database for every annotator's load and create rows
  one by one (what a straightforward loop does) instead of one in-memory balanced pass
  and bulk inserts;
* live diff: reload the Cilin / confusion resources on every request instead of using the
  process-wide cache.

    .venv/bin/python benchmarks/workflow.py [--shared ../shared] [--diff-pairs 500]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

from _quickstart_db import setup_quickstart_django  # noqa: E402  (beside this script)


def read_mucgec(path: Path) -> list[tuple[str, str, list[str]]]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        fields = line.split("\t")
        rows.append((fields[0], fields[1], fields[2:]))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", default=str(REPO.parent / "shared"))
    parser.add_argument("--diff-pairs", type=int, default=500)
    args = parser.parse_args()
    data = Path(args.shared) / "data"
    if not (data / "mucgec-dev").is_dir():
        print(f"no MuCGEC dev data under {data}", file=sys.stderr)
        return 2
    setup_quickstart_django(data, prefix="gec-bench-workflow-")
    from django.conf import settings

    # Users are set-up, not the thing measured: a fast hasher keeps the set-up short.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

    from annotate.models import Assignment
    from annotate.services import submit_correction
    from core.roles import Role
    from core.services import create_user
    from datasets.extraction import edits_between
    from datasets.models import Dataset, Sentence, Source
    from gecscore import resources as resources_module
    from review.models import ReviewTask
    from review.selectors import merged_candidates
    from review.verdicts import submit_review
    from review.workflow import assign_dataset

    rows = read_mucgec(data / "mucgec-dev" / "MuCGEC_dev.txt")
    annotators = [
        create_user(username=f"bench-a{i}", password="x" * 12, roles=[Role.ANNOTATOR])
        for i in range(10)
    ]
    reviewers = [
        create_user(username=f"bench-r{i}", password="x" * 12, roles=[Role.REVIEWER])
        for i in range(3)
    ]

    def make(name: str) -> Dataset:
        dataset = Dataset.objects.create(name=name)
        source = Source.objects.create(dataset=dataset, name="MuCGEC")
        Sentence.objects.bulk_create(
            [
                Sentence(
                    dataset=dataset,
                    source=source,
                    split="dev",
                    external_id=ident,
                    position=i,
                    text=text,
                )
                for i, (ident, text, _) in enumerate(rows)
            ]
        )
        dataset.annotators.set(annotators)
        dataset.reviewers.set(reviewers)
        return dataset

    # The process loads the resources once (a web worker does so on its first diff); the
    # per-request numbers below are for a warm worker.
    edits_between(rows[0][1], rows[0][2][0])

    # --- assignment ------------------------------------------------------------------------
    dataset = make("bench")
    started = time.perf_counter()
    summary = assign_dataset(dataset=dataset, seed=1, by=None)
    ours = time.perf_counter() - started
    naive_dataset = make("bench-naive")
    rng = random.Random(1)
    started = time.perf_counter()
    for sentence in naive_dataset.sentences.order_by("position"):
        loads = {
            u.pk: Assignment.objects.filter(annotator=u, sentence__dataset=naive_dataset).count()
            for u in annotators
        }
        chosen = sorted(annotators, key=lambda u: (loads[u.pk], rng.random()))[:3]
        for user in chosen:
            Assignment.objects.create(sentence=sentence, annotator=user)
        reviewer_loads = {
            r.pk: ReviewTask.objects.filter(reviewer=r, sentence__dataset=naive_dataset).count()
            for r in reviewers
        }
        ReviewTask.objects.create(
            sentence=sentence, reviewer=min(reviewers, key=lambda r: reviewer_loads[r.pk])
        )
    naive = time.perf_counter() - started
    print(
        f"assign {summary.sentences} sentences x k=3 ({summary.assignments} assignments + "
        f"{summary.review_tasks} review tasks): ours {ours:.2f} s, naive loop {naive:.2f} s, "
        f"ratio {naive / ours:.1f}x"
    )

    # --- submissions ------------------------------------------------------------------------
    refs = {ident: targets for ident, _, targets in rows}
    assignments = list(
        Assignment.objects.filter(sentence__dataset=dataset).select_related("sentence", "annotator")
    )
    started = time.perf_counter()
    for index, assignment in enumerate(assignments):
        targets = [
            t for t in refs[assignment.sentence.external_id] if t not in ("没有错误", "无法标注")
        ]
        target = targets[index % len(targets)] if targets else ""
        if target and target != assignment.sentence.text:
            submit_correction(
                assignment_id=assignment.pk, user=assignment.annotator, texts=[target]
            )
        else:
            submit_correction(
                assignment_id=assignment.pk, user=assignment.annotator, texts=[], tag="error_free"
            )
    elapsed = time.perf_counter() - started
    print(
        f"submit {len(assignments)} corrections one by one: {elapsed:.2f} s, "
        f"{1000 * elapsed / len(assignments):.1f} ms per submission (incl. opening reviews)"
    )

    # --- reviews -------------------------------------------------------------------------------
    tasks = list(
        ReviewTask.objects.filter(sentence__dataset=dataset, status="open").select_related(
            "sentence", "reviewer"
        )[:300]
    )
    page_times, save_times = [], []
    for task in tasks:
        started = time.perf_counter()
        candidates = merged_candidates(task)  # what the review page computes, edits included
        page_times.append(time.perf_counter() - started)
        corrections = [c for c in candidates if c.is_correction]
        started = time.perf_counter()
        if corrections:
            submit_review(
                task_id=task.pk,
                user=task.reviewer,
                version=task.version,
                judgement="annotatable",
                verdicts=[{"position": c.position, "correct": True} for c in corrections],
            )
        else:
            submit_review(
                task_id=task.pk,
                user=task.reviewer,
                version=task.version,
                judgement="error_free",
                verdicts=[],
            )
        save_times.append(time.perf_counter() - started)
    print(
        f"review page (merge + edits) over {len(tasks)} sentences: median {1000 * statistics.median(page_times):.1f} ms, "
        f"max {1000 * max(page_times):.1f} ms; save: median {1000 * statistics.median(save_times):.1f} ms"
    )

    # --- live diff -----------------------------------------------------------------------------
    pairs = [
        (text, target)
        for _, text, targets in rows
        for target in targets
        if target not in ("没有错误", "无法标注")
    ][: args.diff_pairs]
    latencies = []
    for source, target in pairs:
        started = time.perf_counter()
        edits_between(source, target)
        latencies.append(time.perf_counter() - started)
    latencies.sort()
    p50 = latencies[len(latencies) // 2]
    p95 = latencies[int(len(latencies) * 0.95)]
    naive_latencies = []
    for source, target in pairs[:10]:
        resources_module._load_directory.cache_clear()
        started = time.perf_counter()
        edits_between(source, target)
        naive_latencies.append(time.perf_counter() - started)
    naive_p50 = statistics.median(naive_latencies)
    print(
        f"live diff over {len(pairs)} MuCGEC source/reference pairs: p50 {1000 * p50:.1f} ms, "
        f"p95 {1000 * p95:.1f} ms, max {1000 * latencies[-1]:.1f} ms; reloading resources per "
        f"request: p50 {1000 * naive_p50:.0f} ms (ratio {naive_p50 / p50:.0f}x)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
