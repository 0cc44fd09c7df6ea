"""python manage.py publish_release DATASET@vN -o DIR [--report] [--allow-blocked]

Writes the release's publishable folder (every export format, Parquet per split, the dataset
card, Croissant metadata, the release report and SHA256SUMS) into DIR, which must not exist
or be empty. Prints the folder's files on stdout; progress, the summary and each phase's
wall time (report, each format, parquet, card, croissant, checksums) go to stderr.

Killed at any moment, it leaves no DIR that looks complete: the folder is written beside DIR
under a hidden name and renamed at the end (publishing.services.publish_release). SIGTERM
removes that hidden folder on the way out; after SIGKILL the next run removes it.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.exceptions import ServiceError
from datasets.selectors import get_dataset, get_version
from publishing.services import compute_report, publish_release


class Command(BaseCommand):
    help = "Write a release's publishable folder: formats, Parquet, card, Croissant, report."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("release", help="DATASET@vN, e.g. mucgec-dev@v1")
        parser.add_argument("-o", "--out", required=True, help="the folder to write")
        parser.add_argument(
            "--report",
            action="store_true",
            help="run the release report again first (default: the newest report, or a new "
            "one when the release has none)",
        )
        parser.add_argument(
            "--allow-blocked",
            action="store_true",
            help="publish even when a blocking check has findings",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        name, at, number = options["release"].partition("@")
        if not at or not number:
            raise CommandError(f"name the release as DATASET@vN, got {options['release']!r}")
        try:
            version = get_version(get_dataset(name), number)
            assert version is not None
            report_seconds = None
            if options["report"]:
                self.stderr.write(f"checking {version.label} ...")
                started = time.perf_counter()
                compute_report(version=version)
                report_seconds = time.perf_counter() - started
            self.stderr.write(f"publishing {version.label} to {options['out']} ...")
            with _sigterm_as_exit(options["out"]):
                result = publish_release(
                    version=version, out=options["out"], allow_blocked=options["allow_blocked"]
                )
        except ServiceError as exc:
            raise CommandError(exc.message) from None
        splits = ", ".join(f"{split} {n}" for split, n in sorted(result["splits"].items()))
        self.stderr.write(f"wrote {len(result['files'])} files ({splits}) to {result['folder']}")
        timings = dict(result["timings"])
        if report_seconds is not None:
            timings["report"] = round(report_seconds, 3)
        for phase, seconds in timings.items():
            self.stderr.write(f"  {phase}: {seconds:.1f} s")
        for name in result["files"]:
            self.stdout.write(name)


@contextmanager
def _sigterm_as_exit(out: str) -> Iterator[None]:
    """SIGTERM (a `docker stop`, a scheduler's time limit) raises SystemExit where the work
    is, so publish_release removes its staging folder before the process ends; by default
    SIGTERM ends Python at once and would leave it for the next run to remove."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers can only be set from the main thread
        return

    def stop(signum: int, frame: Any) -> None:
        raise SystemExit(
            f"publish_release stopped by SIGTERM; nothing partial was left at {out} "
            "(it is absent, or complete if the stop came after the final rename)"
        )

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
