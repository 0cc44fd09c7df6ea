"""python manage.py export_dataset NAME [--release VERSION] --format m2|mucgec|jsonl|parallel -o OUT

Without --release the live golden references are exported. VERSION is the release number
(3, v3 or NAME@v3). For --format parallel OUT is a folder, or a .zip file.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.exceptions import ServiceError
from core.jobs import JobCancelled, fail_job, finish_job, listen, start_job
from datasets.management.commands.import_dataset import progress_line
from datasets.selectors import get_dataset, get_version
from datasets.services.exports import ExportFormat, export_dataset


class Command(BaseCommand):
    help = "Export a release (or the live dataset) as M2, MuCGEC, JSONL or parallel files."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")
        parser.add_argument("--release", default=None, help="release number (default: live data)")
        parser.add_argument("--format", required=True, choices=[f.value for f in ExportFormat])
        parser.add_argument("-o", "--output", required=True, dest="out")
        parser.add_argument(
            "--with-annotations",
            action="store_true",
            help="JSONL: add raw submissions and review verdicts",
        )
        parser.add_argument(
            "--resources",
            default=None,
            help="M2: ChERRANT resources folder (default: GEC_CHERRANT_RESOURCES)",
        )
        parser.add_argument(
            "--workers",
            type=int,
            default=None,
            help="M2: extraction processes (default: GEC_EXPORT_WORKERS or all cores)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        job = start_job(
            kind="datasets.export", params={"name": options["name"], "format": options["format"]}
        )
        try:
            dataset = get_dataset(options["name"])
            version = get_version(dataset, options["release"])
            with listen(job.pk, progress_line(self.stderr, "exporting")):
                result = export_dataset(
                    dataset=dataset,
                    version=version,
                    fmt=options["format"],
                    out=options["out"],
                    include_annotations=options["with_annotations"],
                    job_id=job.pk,
                    resources_dir=options["resources"],
                    workers=options["workers"],
                )
        except (ServiceError, JobCancelled) as exc:
            fail_job(job.pk, message=str(exc))
            raise CommandError(getattr(exc, "message", str(exc))) from None
        finish_job(job.pk, result=result.as_dict())
        extra = f", resources {result.resources}" if result.resources else ""
        self.stdout.write(
            f"exported {result.label} ({result.sentences} sentences, {result.references} "
            f"references) as {result.format} to {result.path}{extra}"
        )
