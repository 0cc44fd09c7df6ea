"""python manage.py import_dataset FILE [FILE ...] --name NAME --format mucgec|text|parallel|jsonl|m2
[--source SOURCE_NAME] [--split dev|test] [--language zh|en]
[--reference-style minimal|fluency]

All or nothing: on any problem the command prints the file, line and field and writes nothing.
For --format parallel give the source file first, then one file per reference.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.exceptions import ServiceError
from core.job_leases import keep_alive
from core.jobs import JobCancelled, fail_job, finish_job, listen, start_job
from datasets.formats import ImportFile, ImportFormat
from datasets.services.imports import import_dataset


def progress_line(stream: Any, verb: str) -> Any:
    """A progress callback writing `verb done/total (pct%)` on one terminal line."""
    state: dict[str, int] = {"total": 0}

    def show(done: int, total: int | None) -> None:
        if total:
            state["total"] = total
        total_ = state["total"]
        if not total_ or not stream.isatty():
            return
        stream.write(f"\r{verb} {done:,}/{total_:,} ({100 * done // total_}%)", ending="")
        if done >= total_:
            stream.write("")
        stream.flush()

    return show


class Command(BaseCommand):
    help = "Import sentences (and references) into a dataset, all or nothing."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("files", nargs="+", metavar="FILE")
        parser.add_argument("--name", required=True, help="dataset name (created if missing)")
        parser.add_argument("--format", required=True, choices=[f.value for f in ImportFormat])
        parser.add_argument("--source", default="", help="source name (NLPCC18, Lang8, ...)")
        parser.add_argument("--split", default="", choices=["", "dev", "test", "train"])
        parser.add_argument("--language", default="zh", choices=["zh", "en"])
        parser.add_argument(
            "--reference-style",
            default="",
            choices=["", "minimal", "fluency"],
            help="style stored on every imported reference (default: unspecified)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        job = start_job(kind="datasets.import", total=0, params={"files": options["files"]})
        try:
            files = [ImportFile.from_path(path) for path in options["files"]]
            # The lease stays alive while the command works (a long parse reports nothing).
            with listen(job.pk, progress_line(self.stderr, "importing")), keep_alive(job.pk):
                result = import_dataset(
                    name=options["name"],
                    fmt=options["format"],
                    files=files,
                    source_name=options["source"],
                    split=options["split"],
                    language=options["language"],
                    reference_style=options["reference_style"],
                    job_id=job.pk,
                )
        except (ServiceError, JobCancelled) as exc:
            fail_job(job.pk, message=str(exc))
            raise CommandError(getattr(exc, "message", str(exc))) from None
        finish_job(job.pk, result=result.as_dict())
        self.stdout.write(
            f"imported {result.sentences} sentences and {result.references} references "
            f"into dataset {result.dataset.name!r}"
            + (" (created)" if result.created_dataset else "")
        )
